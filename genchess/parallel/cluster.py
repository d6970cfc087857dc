"""A dask.distributed cluster for the games: its address, the connection, its workers.

`dask_client` connects (a `tls://` scheduler with the trainer's TLS files, a plain
`tcp://` one, with a warning unless it stays on this machine, or `local:N`, a
LocalCluster of N one-thread worker processes), explains a refused connection in
one line (TLS on one side only, a certificate the other side does not vouch for),
and checks that every worker runs this GenChess; `versioned` refuses, on the
worker, a game sent to one that joined later with another version. dask is
imported only here, and only when a scheduler is given (start-up stays fast).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ipaddress
import logging
import re
import socket
import ssl
import threading

import genchess
from genchess.parallel.faults import ClusterError, one_line
from genchess.parallel.pickle_guard import guarded_loop
from genchess.parallel.tls import TlsFiles, client_security

CONNECT_SECONDS = 20          # to reach the scheduler
WORKER_WAIT_SECONDS = 60      # for the first worker to join a scheduler that has none
PROBE_SECONDS = 5             # to tell whether a scheduler that hung up on us speaks TLS

# What the trainer's client writes and reads as data: msgpack, never a pickle. Jobs
# still go out pickled (dask sends tasks so); what comes back is JSON text
# (plain.py), and a worker that answers with a pickle is refused, not read. The
# pickles dask opens regardless (errors, result types) go through pickle_guard.py.
PLAIN_ONLY = ["msgpack"]

SCHEDULER_HELP = ("tcp://HOST:PORT or tls://HOST:PORT (a running dask scheduler) "
                  "or local:N (N workers on this machine)")

_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-f:.]+(?:%[\w.-]+)?\]|[^\s:/\[\]]+)(?::\d{1,5})?", re.I)

LOCAL = re.compile(r"local(?::([0-9]+))?")

_ENCRYPTED = ("tls", "wss")   # dask's schemes that carry TLS


def parse_scheduler(text: str) -> str:
    """Check a `--scheduler` / `scheduler =` value; ValueError with the reason if bad."""
    text = text.strip()
    local = LOCAL.fullmatch(text)
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
    if scheduler is None or LOCAL.fullmatch(scheduler):
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


def worker_version() -> str:
    """This process's GenChess version (read at call time, so a test can change it).
    Importing the game worker on the way proves the compiled core loads there, and
    warms the process before its first game's clock starts."""
    import genchess.parallel.worker  # noqa: F401
    return genchess.__version__


def versioned(version: str, fn, *args, **kwargs):
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


class DaskPlacement:
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
            if not holders:         # a failed task is held nowhere: ask where it failed
                holders = self.client.run_on_scheduler(
                    lambda key, dask_scheduler: sorted(getattr(dask_scheduler.tasks.get(key),
                                                               "erred_on", None) or ()), task.key)
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


def cluster_executor(client):
    """client.get_executor(pure=False), its futures knowing their dask future (for
    DaskPlacement); ClientExecutor keeps that link to itself."""
    from distributed.cfexecutor import ClientExecutor

    class Executor(ClientExecutor):
        def _wrap_future(self, future):
            wrapped = super()._wrap_future(future)
            wrapped.dask_future = future
            return wrapped

    return Executor(client, pure=False)


@contextlib.contextmanager
def dask_client(address: str, workers: int, out, tls: TlsFiles | None = None):
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--scheduler {address} needs dask.distributed: "
                           f'pip install "genchess[cluster]"') from None
    _quiet_dask_logs()
    cluster = None
    security = None
    local = LOCAL.fullmatch(address)
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
            security = client_security(tls)
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
            loop = None             # (its workers are this trainer's own processes)
        else:
            target, where = address, "the dask cluster"
            loop = stack.enter_context(guarded_loop())
        try:
            client = distributed.Client(target, timeout=CONNECT_SECONDS, set_as_default=False,
                                        security=security, serializers=PLAIN_ONLY,
                                        deserializers=PLAIN_ONLY, loop=loop)
        # (ValueError: tornado's, for a TLS client whose plain server spoke first)
        except (OSError, TimeoutError, ValueError) as e:
            _close_unborn_client(e, distributed.Client)
            raise ClusterError(_refusal(address, tls, e) or
                               f"cannot reach the dask scheduler at {address}: {one_line(e)}") from None
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


VERSION_CHECK_ROUNDS = 3   # a worker lost during the check is skipped; none left: ask again


def _check_workers(client, tls: TlsFiles | None = None) -> None:
    """Every worker runs this GenChess. A worker that dies while it is asked (its
    connection closed, or it timed out, and the scheduler no longer lists it) is
    no worker that cannot run GenChess: it is left out, and when no worker is left
    the trainer waits for one again, as a run resumed beside a dying worker must."""
    for _ in range(VERSION_CHECK_ROUNDS):
        _wait_for_a_worker(client, tls)
        versions = client.run(worker_version, on_error="return")
        alive = set(client.scheduler_info()["workers"])
        answered = 0
        for worker, version in sorted(versions.items()):
            if isinstance(version, (OSError, TimeoutError)) and worker not in alive:
                continue                            # gone while it was asked
            if isinstance(version, BaseException):
                raise ClusterError(f"worker {worker} cannot run GenChess ({one_line(version)}): "
                                   f'pip install "genchess[cluster]" there')
            if version != genchess.__version__:
                raise ClusterError(_mismatch(worker, version, genchess.__version__))
            answered += 1
        if answered:
            return
    raise ClusterError(f"every dask worker at {client.scheduler.address} was lost while its "
                       f"GenChess version was checked, {VERSION_CHECK_ROUNDS} times")


def _wait_for_a_worker(client, tls: TlsFiles | None) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, OSError):
        options = " --tls-ca-file ... --tls-cert ... --tls-key ..." if tls is not None else ""
        raise ClusterError(f"no dask worker joined the scheduler at {client.scheduler.address} "
                           f"within {WORKER_WAIT_SECONDS} s "
                           f"(start some: dask worker {client.scheduler.address}{options} "
                           f"--nthreads 1)") from None


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
