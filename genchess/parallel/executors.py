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

Faults, as a trainer sees them:
- `ClusterError` (a ValueError): the cluster cannot be used as asked (dask missing,
  no scheduler at the address, no workers, a worker with another GenChess version).
  Report the one-line message and exit 2, as for a bad configuration.
- `ExecutorLost`: mid-run, games can no longer be played (the scheduler went away,
  a local worker process died). Every finished game is already on disk: report the
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
import logging
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from typing import Callable, Iterable, Iterator

import genchess

CONNECT_SECONDS = 20          # to reach the scheduler
WORKER_WAIT_SECONDS = 60      # for the first worker to join a scheduler that has none
PARENT_POLL_SECONDS = 0.5     # how often a local worker checks that its trainer lives
POLL_SECONDS = 0.5            # completed(): how often the caller's pause/stop is looked at

SCHEDULER_HELP = "tcp://HOST:PORT (a running dask scheduler) or local:N (N workers on this machine)"
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?[^\s:/]+(?::\d{1,5})?")
_LOCAL = re.compile(r"local(?::([0-9]+))?")


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
    Ctrl-C not yet acted on raises it then, so a press is never lost. Nested blocks,
    other threads and a SIGINT that is ignored (a worker) keep Python's behaviour.
    """
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _ctrl_c_pressed.clear()
    signal.signal(signal.SIGINT, _hold_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    raise_if_ctrl_c()           # reached only when the block ended without an exception


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


def stop_now(executor) -> None:
    """Stop an executor at once, games in progress and all (their results are not
    wanted). The process list must be read first: shutdown() forgets it."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()


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


class GameExecutor(cf.Executor):
    """Any executor, its futures failing with ExecutorLost instead of the executor's
    own fault types (BrokenProcessPool, dask's cancellation when the scheduler goes)."""

    def __init__(self, inner: cf.Executor, lost: str, wrap=None):
        self.inner = inner
        self.lost = lost              # the message of ExecutorLost
        self.wrap = wrap              # (fn, args) -> (fn, args) for every submission
        self.closing = False

    def submit(self, fn, /, *args, **kwargs):
        if self.wrap:
            fn, args = self.wrap(fn, args)
        try:
            inner = self.inner.submit(fn, *args, **kwargs)
        except cf.BrokenExecutor as e:     # broke between two games: no future to fail
            raise ExecutorLost(f"{self.lost} ({e})") from None
        outer = cf.Future()
        outer.add_done_callback(lambda f: f.cancelled() and inner.cancel())
        inner.add_done_callback(lambda f: self._relay(f, outer))
        return outer

    def _relay(self, inner: cf.Future, outer: cf.Future) -> None:
        # Runs in the executor's own thread; the caller may cancel `outer` meanwhile.
        with contextlib.suppress(cf.InvalidStateError):
            self._settle(inner, outer)

    def _settle(self, inner: cf.Future, outer: cf.Future) -> None:
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
        else:
            outer.set_result(inner.result())

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.closing = self.closing or cancel_futures or not wait
        self.inner.shutdown(wait=wait)


@contextlib.contextmanager
def open_executor(scheduler: str | None, workers: int, out: Callable[[str], None] = print
                  ) -> Iterator[cf.Executor]:
    """The executor for a trainer's games, as a context manager.

    scheduler None: `workers` local processes that die with the trainer. A dask
    address (tcp://HOST:PORT): that cluster, after checking every worker's GenChess
    version. `local:N`: a LocalCluster of N one-thread worker processes on this
    machine (`local`: N = workers). Leaving the block normally waits for the games
    in flight; leaving it by an exception (Ctrl-C, ExecutorLost) stops at once.
    Raises ClusterError when the cluster cannot be used.
    """
    if scheduler is None:
        executor = GameExecutor(local_process_pool(workers),
                                "a local worker process died unexpectedly (killed? out of memory?)")
        try:
            with ctrl_c_at_safe_points():
                yield executor
        except BaseException:
            executor.closing = True
            stop_now(executor.inner)
            raise
        executor.shutdown(wait=True)
        return
    with _dask_client(parse_scheduler(scheduler), workers, out) as (client, lost):
        executor = GameExecutor(client.get_executor(pure=False), lost,
                                wrap=lambda fn, args: (_versioned, (genchess.__version__, fn, *args)))
        try:
            with ctrl_c_at_safe_points():
                yield executor
        except BaseException:
            executor.closing = True
            executor.inner.shutdown(wait=False)         # cancels the games in flight
            raise
        executor.shutdown(wait=True)


@contextlib.contextmanager
def _dask_client(address: str, workers: int, out):
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--scheduler {address} needs dask.distributed: "
                           f'pip install "genchess[cluster]"') from None
    _quiet_dask_logs()
    cluster = None
    with contextlib.ExitStack() as stack:
        if _LOCAL.fullmatch(address):
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
            client = distributed.Client(target, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise ClusterError(f"cannot reach the dask scheduler at {address}: "
                               f"{_one_line(e)}") from None
        stack.callback(_close_quietly, client)
        if cluster is not None:
            client.register_plugin(_signal_plugin(), name="genchess-signals")
        _check_workers(client)
        out(f"Playing on {where} at {client.scheduler.address}: "
            f"{_describe_workers(client)}, GenChess {genchess.__version__}")
        yield client, f"lost the dask scheduler at {client.scheduler.address}"


def _quiet_dask_logs() -> None:
    # dask's own log lines (worker restarts, reconnect attempts with tracebacks)
    # would bury the trainer's console; the trainer reports what matters itself.
    # distributed gives some loggers a level and handler of their own (client).
    names = [name for name in logging.root.manager.loggerDict
             if name.split(".")[0] in ("distributed", "tornado")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _check_workers(client) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, OSError):
        raise ClusterError(f"no dask worker joined the scheduler at {client.scheduler.address} "
                           f"within {WORKER_WAIT_SECONDS} s "
                           f"(start some: dask worker {client.scheduler.address} --nthreads 1)") from None
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
