"""Where games run: local worker processes or a dask.distributed cluster.

Every trainer and every match gets its executor here and nowhere else, and hands
it games through `completed()` (or `wait_first`), so a new trainer inherits local
processes, clusters and their faults for free. The trade-off: a caller sees only a
`concurrent.futures.Executor` and two exceptions, never dask itself, so it cannot
use dask's richer features (data locality, priorities); games are independent and
small, so it needs none of them, and without a scheduler dask is never even
imported (start-up stays fast).

    with open_executor(scheduler, workers) as executor:      # scheduler None: local
        for result in completed(executor, play_job, jobs, in_flight=workers):
            record(result)                                   # each job exactly once

A cluster is reached over TLS (`tls://HOST:PORT` with the files of
genchess-cluster-certs, `TlsFiles`): a dask scheduler runs whatever its clients
submit on every worker, so on a network the only safe scheduler is one that
admits nobody without a key pair its CA signed. A plain `tcp://` address that
leaves this machine still works, with a warning (`stays_on_this_machine`).
Whatever the executor, every game that comes back is replayed (replay.py) before
the caller sees it; a refused one is played again, so a broken or tampered worker
cannot put a game into the run's files.

Faults, as a trainer sees them:
- `ClusterError` (a ValueError): the cluster cannot be used as asked (dask missing,
  no scheduler at the address, no workers, a worker with another GenChess version,
  a TLS file missing, expired or not the cluster's, TLS on one side only).
  Report the one-line message and exit 2, as for a bad configuration.
- `ExecutorLost`: mid-run, games can no longer be played (the scheduler went away,
  a local worker process died, one game's result was refused MAX_REFUSALS times).
  Every finished game is already on disk: report the
  one-line message, stop, and let the same command resume from the files.
- Ctrl-C: inside `open_executor`'s block it is held and raised as KeyboardInterrupt
  at a safe point, between two games (`completed`, `wait_first`, `as_completed`),
  never halfway through recording one. Catch it outside the block: the executor
  has stopped the games in flight by then.
- A worker killed mid-game is not a fault here: dask runs its game again on
  another worker and the future completes once.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime
import ipaddress
import logging
import os
import re
import signal
import socket
import ssl
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import genchess

CONNECT_SECONDS = 20          # to reach the scheduler
WORKER_WAIT_SECONDS = 60      # for the first worker to join a scheduler that has none
PARENT_POLL_SECONDS = 0.5     # how often a local worker checks that its trainer lives
POLL_SECONDS = 0.5            # completed(): how often the caller's pause/stop is looked at
MAX_REFUSALS = 3              # refused results of one game before the run stops
PROBE_SECONDS = 5             # to tell whether a scheduler that hung up on us speaks TLS

SCHEDULER_HELP = ("tcp://HOST:PORT or tls://HOST:PORT (a running dask scheduler) "
                  "or local:N (N workers on this machine)")
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-f:.]+(?:%[\w.-]+)?\]|[^\s:/\[\]]+)(?::\d{1,5})?", re.I)
_LOCAL = re.compile(r"local(?::([0-9]+))?")
_ENCRYPTED = ("tls", "wss")   # dask's schemes that carry TLS


class ClusterError(ValueError):
    """The cluster cannot be used as asked; the message is one line for the user."""


class ExecutorLost(RuntimeError):
    """Games can no longer be played (scheduler gone, worker process died); one line."""


def parse_scheduler(text: str) -> str:
    """Check a `--scheduler` / `scheduler =` value; ValueError with the reason if bad."""
    text = text.strip()
    local = _LOCAL.fullmatch(text)
    if local and local.group(1) is not None and int(local.group(1)) < 1:
        raise ValueError(f"local:N needs at least one worker, not {text!r}")
    if not local and not _ADDRESS.fullmatch(text):
        raise ValueError(f"expected {SCHEDULER_HELP}, not {text!r}")
    return text


def split_address(address: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a dask address: `tls://[::1]:8786` -> ("tls", "::1", 8786);
    no scheme is dask's default, tcp."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port = tail[1:]
    else:
        host, _, port = rest.partition(":")
    return scheme.lower(), host, int(port) if port else None


def stays_on_this_machine(scheduler: str | None) -> bool:
    """Whether a scheduler value keeps the games' traffic on this machine: local
    processes (None), `local:N`, and an address on the loopback (127.0.0.0/8, ::1,
    ::ffff:127.x.x.x, `localhost` and names under `.localhost`).

    Host names are not resolved: a name is taken to leave the machine. It may
    resolve to another address on the workers, or tomorrow, than here now; asking
    would cost a DNS query before every run; and a false alarm costs a line, while
    a missed one leaves a cluster open. Write 127.0.0.1 for a scheduler on this machine.
    """
    if scheduler is None or _LOCAL.fullmatch(scheduler):
        return True
    host = split_address(scheduler)[1].lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def plain_warning(address: str) -> str:
    """The one line a trainer prints on a plain scheduler outside this machine."""
    return (f"Warning: {address} is a plain dask scheduler: anyone who can reach it can run code "
            f"on every worker and read or change the games on the way; use TLS "
            f"(genchess-cluster-certs DIR, then tls://, see docs/cluster.md)")


# ------------------------------------------------------------------ TLS

@dataclass(frozen=True)
class TlsFiles:
    """The trainer's side of a TLS cluster: the cluster's CA certificate, and the
    certificate and private key the trainer shows (genchess-cluster-certs writes them)."""
    ca_file: Path
    cert: Path
    key: Path

    # (field, how a user names it: config key, switch)
    NAMES = (("ca_file", "tls ca file (--tls-ca-file)"), ("cert", "tls cert (--tls-cert)"),
             ("key", "tls key (--tls-key)"))

    @classmethod
    def given(cls, ca_file=None, cert=None, key=None) -> "TlsFiles | None":
        """From the three settings as given (None: not given): None when none is,
        ClusterError naming the missing ones when only some are."""
        values = {"ca_file": ca_file, "cert": cert, "key": key}
        if all(v is None for v in values.values()):
            return None
        missing = [name for field, name in cls.NAMES if values[field] is None]
        if missing:
            raise ClusterError(f"TLS needs the cluster's CA file, a certificate and its key; "
                               f"missing: {', '.join(missing)}")
        return cls(*(Path(v) for v in values.values()))


def _client_security(tls: TlsFiles):
    """dask's Security for a client with these files, every file checked first so
    that a problem is reported naming its file, not as a failed handshake."""
    from distributed.security import Security
    for field, name in TlsFiles.NAMES:
        path = getattr(tls, field)
        if not path.is_file():
            raise ClusterError(f"{name.split(' (')[0]} {path}: no such file")
    _check_tls_files(tls)
    security = Security(tls_ca_file=str(tls.ca_file), tls_client_cert=str(tls.cert),
                        tls_client_key=str(tls.key), require_encryption=True)
    try:
        security.get_connection_args("client")          # loads them as the handshake will
    except (ssl.SSLError, OSError, ValueError) as e:
        raise ClusterError(f"cannot use the TLS files {tls.ca_file}, {tls.cert} and {tls.key}: "
                           f"{_one_line(e)}") from None
    return security


def _check_tls_files(tls: TlsFiles) -> None:
    """What can be known of the files before connecting: each is what it should be,
    the key is the certificate's, the certificate is the CA's, neither has expired.
    (cryptography comes with genchess[cluster]; without it only ssl's checks run.)"""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
    except ImportError:
        return
    try:
        authorities = x509.load_pem_x509_certificates(tls.ca_file.read_bytes())
    except ValueError:
        raise ClusterError(f"tls ca file {tls.ca_file}: not a PEM certificate") from None
    try:
        cert = x509.load_pem_x509_certificate(tls.cert.read_bytes())
    except ValueError:
        raise ClusterError(f"tls cert {tls.cert}: not a PEM certificate") from None
    try:
        key = serialization.load_pem_private_key(tls.key.read_bytes(), password=None)
    except (ValueError, TypeError):
        raise ClusterError(f"tls key {tls.key}: not a PEM private key without a password") from None
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    if (key.public_key().public_bytes(serialization.Encoding.PEM, public)
            != cert.public_key().public_bytes(serialization.Encoding.PEM, public)):
        raise ClusterError(f"tls key {tls.key} is not the key of the certificate {tls.cert}")
    issuer = next((ca for ca in authorities if _issued_by(cert, ca)), None)
    if issuer is None:
        raise ClusterError(f"tls cert {tls.cert} was not signed by the CA of {tls.ca_file}: "
                           f"use files from one run of genchess-cluster-certs")
    now = datetime.datetime.now(datetime.timezone.utc)
    for name, path, c in (("tls ca file", tls.ca_file, issuer), ("tls cert", tls.cert, cert)):
        if now > c.not_valid_after_utc:
            raise ClusterError(f"{name} {path} expired on {c.not_valid_after_utc:%Y-%m-%d}: "
                               f"make new files with genchess-cluster-certs")
        if now < c.not_valid_before_utc:
            raise ClusterError(f"{name} {path} is not valid before "
                               f"{c.not_valid_before_utc:%Y-%m-%d %H:%M} UTC (is this clock right?)")


def _issued_by(cert, ca) -> bool:
    try:
        cert.verify_directly_issued_by(ca)
    except Exception:       # ValueError, TypeError, InvalidSignature: not this CA's
        return False
    return True


# How a connection ends when the two sides disagree about TLS (ssl's words, tornado's,
# or the reset of a peer that read garbage), as opposed to nobody listening.
_HUNG_UP = re.compile(r"alert|wrong.version.number|record.layer|packet.length|http.request|eof|"
                      r"not idle|reset by peer|stream is closed", re.I)


def _refusal(address: str, tls: TlsFiles | None, error: BaseException) -> str | None:
    """What a failed connection says about TLS, as one line; None if nothing."""
    chain, seen = [], error
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for e in chain:
        if isinstance(e, ssl.SSLCertVerificationError):
            return (f"the dask scheduler at {address} showed a certificate that {tls.ca_file} does "
                    f"not vouch for ({e.verify_message}): start the scheduler and workers with "
                    f"the files of the same genchess-cluster-certs run")
    text = " ".join(str(e) for e in chain)
    if not _HUNG_UP.search(text):
        return None
    tls_there = _speaks_tls(address)
    if tls is None:
        if not tls_there:
            return None
        return (f"the dask scheduler at {address} speaks TLS: connect to "
                f"tls://{address.partition('://')[2] or address} with --tls-ca-file, --tls-cert "
                f"and --tls-key (the files of its genchess-cluster-certs run)")
    if not tls_there:
        return (f"the dask scheduler at {address} does not speak TLS: start it with "
                f"--tls-ca-file, --tls-cert and --tls-key (docs/cluster.md)")
    # TLS 1.3 checks the client's certificate after the client's side of the
    # handshake: the refusal comes as an alert, or as the connection closing first.
    alert = re.search(r"alert ([a-z ]+)", text, re.I)
    why = f"TLS alert: {alert.group(1).strip().lower()}" if alert else "it hung up after the handshake"
    return (f"the dask scheduler at {address} refused the certificate {tls.cert} ({why}): use the "
            f"client files of the genchess-cluster-certs run that the scheduler's files come from")


def _speaks_tls(address: str) -> bool:
    """Whether the server at `address` answers a TLS hello (a dask scheduler started
    with TLS options), asked only after it hung up on a plain connection. A plain
    dask server speaks first, so one that sends something before the hello is
    left alone: it never has to read a TLS record as a dask message."""
    _, host, port = split_address(address)
    if port is None:
        return False
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS) as raw:
            raw.settimeout(0.5)
            try:
                if raw.recv(1, socket.MSG_PEEK):
                    return False
            except (TimeoutError, socket.timeout):
                pass
            except OSError:
                return False
            raw.settimeout(PROBE_SECONDS)
            with context.wrap_socket(raw, server_hostname=host) as tls:
                tls.getpeercert(binary_form=True)
        return True
    except ssl.SSLError as e:
        # It answered in TLS, if only to refuse us for want of a certificate.
        return "alert" in str(e).lower() or "certificate" in str(e).lower()
    except OSError:
        return False


# ------------------------------------------------------------------ local processes

def init_local_worker(trainer_pid: int) -> None:
    """Initializer of every local worker process: the trainer handles Ctrl-C and
    Ctrl-Z (worker.init_worker), and the worker dies with its trainer, however the
    trainer dies (kill -9 included), instead of idling forever as an orphan."""
    from genchess.parallel.worker import init_worker
    init_worker()
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            # SIGKILL: a worker holds no files (the trainer writes them all), so
            # nothing is lost by dying without cleanup.
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    # The portable fallback, and the Linux race the prctl cannot close (the trainer
    # died before it ran), and start methods where our parent is not the trainer
    # (forkserver): a thread that watches the trainer's pid.
    parent = os.getppid()
    if parent != trainer_pid and not _alive(trainer_pid):
        os._exit(1)
    threading.Thread(target=_watch_trainer, args=(trainer_pid, parent), daemon=True,
                     name="genchess-watch-trainer").start()


def _alive(pid: int) -> bool:
    if os.name != "posix":          # os.kill(pid, 0) would terminate it on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _watch_trainer(trainer_pid: int, parent: int) -> None:
    while os.getppid() == parent and _alive(trainer_pid):
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def local_process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """`workers` local processes that die with this process (for trainers and matches)."""
    return cf.ProcessPoolExecutor(workers, initializer=init_local_worker, initargs=(os.getpid(),))


# ------------------------------------------------------------------ Ctrl-C

# Ctrl-C pressed inside ctrl_c_at_safe_points() and not yet acted on.
_ctrl_c_pressed = threading.Event()


def _hold_ctrl_c(signum, frame) -> None:
    if _ctrl_c_pressed.is_set():        # pressed again: the user will not wait
        raise KeyboardInterrupt
    _ctrl_c_pressed.set()


@contextlib.contextmanager
def ctrl_c_at_safe_points() -> Iterator[None]:
    """While the block runs, Ctrl-C only sets a flag, and `raise_if_ctrl_c()` (which
    `completed`, `wait_first` and `as_completed` call between games) raises the
    KeyboardInterrupt there.

    Python raises KeyboardInterrupt wherever the main thread happens to be. Between
    writing a game and counting it, the count the trainer reports disagrees with
    its files (seen in the tests). Inside concurrent.futures.wait, after it took
    some futures' locks and before the `with` that releases them, the executor's
    thread would block forever on those locks, and so would the exit that joins it:
    the likely cause of a trainer that did not exit after Ctrl-C (seen in the tests
    too, and gone since the press waits for a safe point). A second Ctrl-C raises
    at once, for a user who will not wait half a second. Leaving the block with a
    Ctrl-C not yet acted on raises it then, so a press is never lost. SIGTERM is held
    the same way. Nested blocks, other threads and a signal that is ignored (SIGINT in
    a worker) keep Python's behaviour.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # SIGTERM (`kill PID`, a job manager's stop) is a Ctrl-C too: without it a run
    # started in the background, where the shell leaves SIGINT ignored, could only
    # be killed mid-write. Each signal is taken only where Python's default stands.
    held = [sig for sig, default in ((signal.SIGINT, signal.default_int_handler),
                                     (signal.SIGTERM, signal.SIG_DFL))
            if signal.getsignal(sig) is default]
    if not held:
        yield
        return
    _ctrl_c_pressed.clear()
    previous = {sig: signal.signal(sig, _hold_ctrl_c) for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    raise_if_ctrl_c()           # reached only when the block ended without an exception


def ctrl_c_pending() -> bool:
    """Whether a Ctrl-C (or SIGTERM) is held, not yet acted on."""
    return _ctrl_c_pressed.is_set()


def raise_if_ctrl_c() -> None:
    """A safe point: raise the KeyboardInterrupt of a Ctrl-C held since the last one."""
    if _ctrl_c_pressed.is_set():
        _ctrl_c_pressed.clear()
        raise KeyboardInterrupt


def wait_first(futures, timeout: float = POLL_SECONDS):
    """concurrent.futures.wait(FIRST_COMPLETED) for at most `timeout` seconds, a safe
    point for Ctrl-C before it. Callers loop on it, so a held Ctrl-C is acted on
    within `timeout` even while one long game runs."""
    raise_if_ctrl_c()
    return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)


def as_completed(futures) -> Iterator[cf.Future]:
    """concurrent.futures.as_completed with a safe point for Ctrl-C between results."""
    waiting = set(futures)
    while waiting:
        done, waiting = wait_first(waiting)
        yield from done


STOP_JOIN_SECONDS = 5         # stop_now(): how long the pool's manager thread may take to end


def stop_now(executor) -> None:
    """Stop an executor at once, games in progress and all (their results are not
    wanted). The process list and the manager thread must be read first: shutdown()
    forgets them.

    The join matters at exit: CPython's own exit hook for process pools (3.11, 3.12)
    wakes each pool's manager thread through a pipe that thread closes when it ends.
    Left running, the thread can close it between the hook's check and its write,
    and the exit prints an OSError traceback after a clean "Stopped." (seen in CI,
    about one exit in thirty). Once the thread has ended the hook's write is skipped."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    if manager is not None:
        manager.join(STOP_JOIN_SECONDS)


# ------------------------------------------------------------------ one interface

def worker_version() -> str:
    """This process's GenChess version (read at call time, so a test can change it).
    Importing the game worker on the way proves the compiled core loads there, and
    warms the process before its first game's clock starts."""
    import genchess.parallel.worker  # noqa: F401
    return genchess.__version__


def _versioned(version: str, fn, *args, **kwargs):
    # Runs on the worker: a worker that joined after the check on connect is
    # refused here, with the same message, instead of playing games of its own rules.
    if worker_version() != version:
        raise ClusterError(_mismatch(_worker_name(), worker_version(), version))
    return fn(*args, **kwargs)


def _worker_name() -> str:
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return "a worker"


def _mismatch(worker: str, theirs: str, ours: str) -> str:
    return (f"worker {worker} runs GenChess {theirs} but this trainer runs GenChess {ours}: "
            f"install the same version on every worker")


class _Submission:
    """One submit(): what to send again when its result is refused, and where it is now."""

    def __init__(self, fn, args, kwargs, outer: cf.Future, job):
        self.fn, self.args, self.kwargs, self.outer = fn, args, kwargs, outer
        self.job = job                  # the GameJob whose result is checked, or None
        self.inner: cf.Future | None = None
        self.refused: list[str] = []    # the workers (or "") whose results were refused


class GameExecutor(cf.Executor):
    """Any executor, its futures failing with ExecutorLost instead of the executor's
    own fault types (BrokenProcessPool, dask's cancellation when the scheduler goes),
    and every game it returns checked.

    A submission whose first argument is a GameJob must come back as a GameResult
    of that job which replay.result_problem accepts. One that does not is never
    passed on: a line says why (and which worker sent it, where the executor knows),
    and the game is played again, away from the workers that sent refused results
    where there are others; MAX_REFUSALS refusals of one game end it as ExecutorLost.
    Checks run on a thread of their own: the inner executor's thread, which relays
    every result (dask's event loop, the process pool's manager), is never kept
    waiting on a replay or blocked in a submit from inside its own callback."""

    def __init__(self, inner: cf.Executor, lost: str, wrap=None, out: Callable[[str], None] = print,
                 placement=None):
        self.inner = inner
        self.lost = lost              # the message of ExecutorLost
        self.wrap = wrap              # (fn, args) -> (fn, args) for every submission
        self.out = out                # where a refused result is reported
        self.placement = placement    # dask: which worker ran a future, and how to avoid it
        self.closing = False
        self.checker = cf.ThreadPoolExecutor(1, thread_name_prefix="genchess-replay")

    def submit(self, fn, /, *args, **kwargs):
        from genchess.parallel.worker import GameJob
        outer = cf.Future()
        job = args[0] if args and isinstance(args[0], GameJob) else None
        state = _Submission(fn, args, kwargs, outer, job)
        outer.add_done_callback(lambda f: f.cancelled() and state.inner is not None
                                and state.inner.cancel())
        self._send(state)
        return outer

    def _send(self, state: _Submission) -> None:
        fn, args = state.fn, state.args
        if self.wrap:
            fn, args = self.wrap(fn, args)
        kwargs = dict(state.kwargs)
        if state.refused and self.placement is not None:
            kwargs.update(self.placement.elsewhere(state.refused))
        try:
            inner = self.inner.submit(fn, *args, **kwargs)
        except cf.BrokenExecutor as e:     # broke between two games: no future to fail
            raise ExecutorLost(f"{self.lost} ({e})") from None
        state.inner = inner
        inner.add_done_callback(lambda f: self._relay(f, state))

    def _relay(self, inner: cf.Future, state: _Submission) -> None:
        # Runs in the executor's own thread; the caller may cancel `outer` meanwhile.
        with contextlib.suppress(cf.InvalidStateError):
            self._settle(inner, state)

    def _settle(self, inner: cf.Future, state: _Submission) -> None:
        outer = state.outer
        if outer.done():
            return
        if inner.cancelled():
            if self.closing:
                outer.cancel()
                outer.set_running_or_notify_cancel()
            else:           # nobody here cancelled it: the scheduler is gone
                outer.set_exception(ExecutorLost(self.lost))
            return
        error = inner.exception()
        # KilledWorker: dask gave up on a game that took down several workers in turn
        # (matched by name: dask is not imported when it is not used).
        if isinstance(error, cf.BrokenExecutor) or type(error).__name__ == "KilledWorker":
            outer.set_exception(ExecutorLost(f"{self.lost} ({error})"))
        elif error is not None:
            outer.set_exception(error)
        elif state.job is None:
            outer.set_result(inner.result())
        else:
            try:
                self.checker.submit(self._check, inner, state)
            except RuntimeError:            # shut down: nobody waits for this game now
                outer.cancel()
                outer.set_running_or_notify_cancel()

    def _check(self, inner: cf.Future, state: _Submission) -> None:
        from genchess.parallel.replay import result_problem
        with contextlib.suppress(cf.InvalidStateError):
            result = inner.result()
            problem = result_problem(result, state.job)
            if problem is None:
                state.outer.set_result(result)
                return
            worker = self.placement.worker_of(inner) if self.placement is not None else None
            state.refused.append(worker or "")
            job = state.job
            game = f"game {job.white_id}-{job.black_id} of round {job.round}"
            if len(state.refused) >= MAX_REFUSALS:
                state.outer.set_exception(ExecutorLost(
                    f"{len(state.refused)} results of {game} were refused, the last because "
                    f"{problem} (a broken or tampered worker?)"))
                return
            self.out(f"Refused {game} from {worker or 'a worker'}: {problem}; playing it again")
            if state.outer.done() or self.closing:
                return
            try:
                self._send(state)
            except (ExecutorLost, RuntimeError) as e:   # (RuntimeError: shut down meanwhile)
                state.outer.set_exception(e if isinstance(e, ExecutorLost) else ExecutorLost(self.lost))

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.closing = self.closing or cancel_futures or not wait
        self.inner.shutdown(wait=wait)
        self.checker.shutdown(wait=wait)


class _DaskPlacement:
    """Where a dask future ran, and submit options that keep a game away from
    workers: the scheduler's view, never what a worker says of itself."""

    def __init__(self, client):
        self.client = client

    def worker_of(self, future: cf.Future) -> str | None:
        task = getattr(future, "dask_future", None)
        if task is None:
            return None
        try:
            holders = self.client.who_has([task]).get(task.key) or ()
        except Exception:           # the scheduler may be gone; the game is replayed anyway
            return None
        return sorted(holders)[0] if holders else None

    def elsewhere(self, refused: list[str]) -> dict:
        try:
            others = sorted(set(self.client.scheduler_info()["workers"]) - set(refused))
        except Exception:
            return {}
        # Loose restrictions: if those workers die the game may still run anywhere.
        return {"workers": others, "allow_other_workers": True} if others else {}


def _cluster_executor(client):
    """client.get_executor(pure=False), its futures knowing their dask future (for
    _DaskPlacement); ClientExecutor keeps that link to itself."""
    from distributed.cfexecutor import ClientExecutor

    class Executor(ClientExecutor):
        def _wrap_future(self, future):
            wrapped = super()._wrap_future(future)
            wrapped.dask_future = future
            return wrapped

    return Executor(client, pure=False)


@contextlib.contextmanager
def open_executor(scheduler: str | None, workers: int, out: Callable[[str], None] = print,
                  tls: TlsFiles | None = None) -> Iterator[cf.Executor]:
    """The executor for a trainer's games, as a context manager.

    scheduler None: `workers` local processes that die with the trainer. A dask
    address (tls://HOST:PORT with `tls`, the cluster's files; tcp://HOST:PORT,
    with a warning unless on the loopback): that cluster, after checking every
    worker's GenChess version. `local:N`: a LocalCluster of N one-thread worker
    processes on this machine (`local`: N = workers); local processes and local:N
    never leave the machine and ignore `tls`. Leaving the block normally waits for
    the games in flight; leaving it by an exception (Ctrl-C, ExecutorLost) stops
    at once. Raises ClusterError when the cluster cannot be used.
    """
    if scheduler is None:
        executor = GameExecutor(local_process_pool(workers),
                                "a local worker process died unexpectedly (killed? out of memory?)",
                                out=out)
        try:
            with ctrl_c_at_safe_points():
                yield executor
        except BaseException:
            executor.closing = True
            stop_now(executor.inner)
            executor.checker.shutdown(wait=False, cancel_futures=True)
            raise
        executor.shutdown(wait=True)
        return
    with _dask_client(parse_scheduler(scheduler), workers, out, tls) as (client, lost):
        executor = GameExecutor(_cluster_executor(client), lost, out=out,
                                placement=_DaskPlacement(client),
                                wrap=lambda fn, args: (_versioned, (genchess.__version__, fn, *args)))
        try:
            with ctrl_c_at_safe_points():
                yield executor
        except BaseException:
            executor.closing = True
            executor.inner.shutdown(wait=False)         # cancels the games in flight
            executor.checker.shutdown(wait=False, cancel_futures=True)
            raise
        executor.shutdown(wait=True)


@contextlib.contextmanager
def _dask_client(address: str, workers: int, out, tls: TlsFiles | None = None):
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--scheduler {address} needs dask.distributed: "
                           f'pip install "genchess[cluster]"') from None
    _quiet_dask_logs()
    cluster = None
    security = None
    local = _LOCAL.fullmatch(address)
    if not local:
        encrypted = split_address(address)[0] in _ENCRYPTED
        if encrypted and tls is None:
            raise ClusterError(f"the scheduler {address} needs the cluster's TLS files: "
                               f"--tls-ca-file, --tls-cert and --tls-key (or the keys tls ca file, "
                               f"tls cert, tls key; genchess-cluster-certs makes them)")
        if tls is not None and not encrypted:
            raise ClusterError(f"TLS files are given but the scheduler address {address} is "
                               f"plain: write tls://{address.partition('://')[2] or address}")
        if tls is not None:
            security = _client_security(tls)
    with contextlib.ExitStack() as stack:
        if local:
            count = int(address.partition(":")[2] or workers)
            cluster = distributed.LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                               # (None still binds port 8787 and warns
                                               # when another cluster has it)
                                               dashboard_address=":0", host="127.0.0.1",
                                               silence_logs=logging.CRITICAL)
            stack.callback(cluster.close)
            target, where = cluster, "a local dask cluster"
        else:
            target, where = address, "the dask cluster"
        try:
            client = distributed.Client(target, timeout=CONNECT_SECONDS, set_as_default=False,
                                        security=security)
        # (ValueError: tornado's, for a TLS client whose plain server spoke first)
        except (OSError, TimeoutError, ValueError) as e:
            _close_unborn_client(e, distributed.Client)
            raise ClusterError(_refusal(address, tls, e) or
                               f"cannot reach the dask scheduler at {address}: {_one_line(e)}") from None
        stack.callback(_close_quietly, client)
        if cluster is not None:
            client.register_plugin(_signal_plugin(), name="genchess-signals")
        _check_workers(client, tls)
        if tls is None and not stays_on_this_machine(address):
            out(plain_warning(address))
        out(f"Playing on {where} at {client.scheduler.address}: "
            f"{_describe_workers(client)}, GenChess {genchess.__version__}"
            + (" (TLS)" if security is not None else ""))
        yield client, f"lost the dask scheduler at {client.scheduler.address}"


def _close_unborn_client(error: BaseException, client_class) -> None:
    """Close the Client whose constructor raised `error`, while its event loop still
    runs. dask closes it itself on an OSError, but not on every error: left to the
    garbage collector at exit, its close() waits out a 40 s timeout and prints a
    traceback after the trainer's one line."""
    tb = error.__traceback__
    while tb is not None:
        client = tb.tb_frame.f_locals.get("self")
        if isinstance(client, client_class):
            with contextlib.suppress(Exception):
                client.close(timeout=5)
            return
        tb = tb.tb_next


def _quiet_dask_logs() -> None:
    # dask's own log lines (worker restarts, reconnect attempts with tracebacks)
    # would bury the trainer's console; the trainer reports what matters itself.
    # distributed gives some loggers a level and handler of their own (client).
    names = [name for name in logging.root.manager.loggerDict
             if name.split(".")[0] in ("distributed", "tornado")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _check_workers(client, tls: TlsFiles | None = None) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, OSError):
        options = " --tls-ca-file ... --tls-cert ... --tls-key ..." if tls is not None else ""
        raise ClusterError(f"no dask worker joined the scheduler at {client.scheduler.address} "
                           f"within {WORKER_WAIT_SECONDS} s "
                           f"(start some: dask worker {client.scheduler.address}{options} "
                           f"--nthreads 1)") from None
    versions = client.run(worker_version, on_error="return")
    for worker, version in sorted(versions.items()):
        if isinstance(version, BaseException):
            raise ClusterError(f"worker {worker} cannot run GenChess ({_one_line(version)}): "
                               f'pip install "genchess[cluster]" there')
        if version != genchess.__version__:
            raise ClusterError(_mismatch(worker, version, genchess.__version__))


def _describe_workers(client) -> str:
    info = client.scheduler_info()["workers"]
    threads = sum(w.get("nthreads", 1) for w in info.values())
    return f"{len(info)} worker{'s' if len(info) != 1 else ''} ({threads} threads)"


def _signal_plugin():
    """Workers of a LocalCluster share the terminal's process group: like local
    worker processes they must leave Ctrl-C and Ctrl-Z to the trainer (a game
    frozen by Ctrl-Z would lose on time). A plugin reaches restarted workers too."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class IgnoreTerminalSignals(WorkerPlugin):
        def setup(self, worker):
            from genchess.parallel.worker import init_worker
            if threading.current_thread() is threading.main_thread():
                init_worker()

    return IgnoreTerminalSignals()


def _close_quietly(client) -> None:
    with contextlib.suppress(Exception):
        client.close(timeout=5)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


# ------------------------------------------------------------------ running jobs

def completed(executor: cf.Executor, fn: Callable, jobs: Iterable, in_flight: int, *,
              may_submit: Callable[[], bool] = lambda: True,
              on_idle: Callable[[], bool] = lambda: False,
              key: Callable = id) -> Iterator:
    """Run fn(job) for each job, at most `in_flight` at a time, and yield each result
    as it completes, each job's at most once (by `key(job)`).

    Games go out a few at a time, not all at once, so that a pause, a stop or a
    time limit acts after the games in flight: while `may_submit()` is false
    nothing new is sent. When nothing is running and nothing may be sent,
    `on_idle()` is asked: true to go on (e.g. after a pause), false to end early
    (stopping: the remaining jobs are not played). Between games it is a safe
    point for a Ctrl-C held by ctrl_c_at_safe_points(). Raises ExecutorLost (after
    yielding the results that completed alongside) when games can no longer run.
    """
    pending = deque(jobs)
    running: dict[cf.Future, object] = {}
    seen = set()
    while pending or running:
        raise_if_ctrl_c()
        while pending and len(running) < in_flight and may_submit():
            job = pending.popleft()
            running[executor.submit(fn, job)] = job
        if not running:
            if on_idle():
                continue
            return
        done, _ = wait_first(running)
        lost = None
        for future in done:
            job = running.pop(future)
            try:
                result = future.result()
            except ExecutorLost as e:
                lost = e
                continue
            if key(job) not in seen:
                seen.add(key(job))
                yield result
        if lost is not None:
            raise lost
