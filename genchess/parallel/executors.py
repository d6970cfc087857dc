"""Where games run: local worker processes or a dask.distributed cluster.

Every trainer and every match gets its executor here and nowhere else, and hands
it games through `completed()` (or `wait_first`), so a new trainer inherits local
processes, clusters and their faults for free. The trade-off: a caller sees only a
`concurrent.futures.Executor` and two exceptions, never dask itself, so it cannot
use dask's richer features (data locality, priorities); games are independent and
small, so it needs none of them, and without a scheduler dask is never even
imported (start-up stays fast). This module holds the executors themselves (local
processes, the game-checking wrapper, `completed`); the faults (faults.py), the
TLS files (tls.py), the dask cluster (cluster.py) and the Ctrl-C safe points
(ctrl_c.py) are modules of their own, and every name a caller needs is here too.

    with open_executor(scheduler, workers) as executor:      # scheduler None: local
        for result in completed(executor, play_job, jobs, in_flight=workers):
            record(result)                                   # each job exactly once

A cluster is reached over TLS (`tls://HOST:PORT` with the files of
genchess-cluster-certs, `TlsFiles`): a dask scheduler runs whatever its clients
submit on every worker, so on a network the only safe scheduler is one that
admits nobody without a key pair its CA signed. A plain `tcp://` address that
leaves this machine still works, with a warning (`stays_on_this_machine`).
Whatever the executor, what a job returns comes back as JSON text (plain.py),
never as a pickle, and every game is replayed (replay.py) before the caller sees
it; a result that cannot be read or a game that is refused is played again, so a
broken or tampered worker can neither run code on the trainer nor put a game
into the run's files.

Faults, as a trainer sees them:
- `ClusterError` before any game (exit 2, as for a bad configuration) and
  `ExecutorLost` mid-run (stop; the same command resumes): faults.py says when.
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
import os
import signal
import sys
import threading
import time
from collections import deque
from typing import Callable, Iterable, Iterator

import genchess
# The names a trainer or a match uses, gathered here: the executors are their one door.
from genchess.parallel.cluster import (DaskPlacement, cluster_executor, dask_client,  # noqa: F401
                                       parse_scheduler, plain_warning, stays_on_this_machine,
                                       versioned)
from genchess.parallel.ctrl_c import (POLL_SECONDS, as_completed, ctrl_c_at_safe_points,  # noqa: F401
                                      ctrl_c_pending, raise_if_ctrl_c, wait_first)
from genchess.parallel.faults import ClusterError, ExecutorLost, WorkerError, one_line  # noqa: F401
from genchess.parallel.plain import Unreadable, from_worker, on_worker
from genchess.parallel.tls import TlsFiles

PARENT_POLL_SECONDS = 0.5     # how often a local worker checks that its trainer lives
MAX_REFUSALS = 3              # refused results of one game before the run stops


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
    if parent != trainer_pid and not process_alive(trainer_pid):
        os._exit(1)
    threading.Thread(target=_watch_trainer, args=(trainer_pid, parent), daemon=True,
                     name="genchess-watch-trainer").start()


def process_alive(pid: int) -> bool:
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
    while os.getppid() == parent and process_alive(trainer_pid):
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def local_process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """`workers` local processes that die with this process (for trainers and matches).

    The pool's manager thread never waits for its job pipe's feeder thread. A job
    larger than the pipe's buffer (a set maker's job carries a whole network genome,
    272 KB) that no worker has read yet keeps the feeder blocked in its write; when
    the workers are killed (stop_now) or die (a broken pool), the write fails and the
    feeder ends, unless a process forked while the pool lived (another pool's worker)
    holds the pipe's read end too. Then the manager thread, which joins the feeder,
    waited forever, and the exit with it (seen in CI: pytest hung after every test
    had passed). Cancelling that join loses nothing: a pool that shuts down normally
    joins its workers, which read every job and stop sentinel before they end, and
    the jobs of a killed or broken pool are not wanted."""
    pool = cf.ProcessPoolExecutor(workers, initializer=init_local_worker, initargs=(os.getpid(),))
    pool._call_queue.cancel_join_thread()
    return pool


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

    With `plain` (every executor open_executor gives), each job runs inside
    plain.on_worker and comes back as JSON text, which is all the trainer reads:
    its value rebuilt, or its error raised as the trainer's own type (plain.py).
    A submission whose first argument is a GameJob must come back as a GameResult
    of that job which replay.result_problem accepts. A result that cannot be read
    (not that JSON; a pickle the dask client refused to open) or a game refused is
    never passed on: a line says why (and which worker sent it, where the executor
    knows), and the job is run again, away from the workers that sent refused
    results where there are others; MAX_REFUSALS refusals of one job end it as
    ExecutorLost. Checks run on a thread of their own: the inner executor's thread,
    which relays every result (dask's event loop, the process pool's manager), is
    never kept waiting on a replay or blocked in a submit from inside its own callback."""

    def __init__(self, inner: cf.Executor, lost: str, wrap=None, out: Callable[[str], None] = print,
                 placement=None, plain: bool = False):
        self.inner = inner
        self.lost = lost              # the message of ExecutorLost
        self.wrap = wrap              # (fn, args) -> (fn, args) for every submission
        self.out = out                # where a refused result is reported
        self.placement = placement    # dask: which worker ran a future, and how to avoid it
        self.plain = plain            # jobs run in on_worker; only JSON comes back
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
        if self.plain:
            fn, args = on_worker, (fn, *args)
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
        elif error is not None and not (self.plain and self.placement is not None):
            outer.set_exception(error)
        elif state.job is None and not self.plain:
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
            result, problem = None, None
            error = inner.exception()
            if error is not None:
                # Not the job's error (on_worker sends that back as JSON) but dask's: a
                # pickle the client would not open (cluster.PLAIN_ONLY, pickle_guard.py),
                # or a worker that broke or lied on the way.
                what = ("an error pickled by the worker, not opened"
                        if error.args and isinstance(error.args[0], (bytes, bytearray))
                        else one_line(error)[:200])
                problem = f"dask failed to bring the result back ({what})"
            else:
                result = inner.result()
                if self.plain:
                    try:
                        result = from_worker(result)
                    except Unreadable as e:
                        problem = str(e)
                    except Exception as e:          # the job's own error, rebuilt
                        state.outer.set_exception(e)
                        return
            if problem is None and state.job is not None:
                problem = result_problem(result, state.job)
            if problem is None:
                state.outer.set_result(result)
                return
            worker = self.placement.worker_of(inner) if self.placement is not None else None
            state.refused.append(worker or "")
            job = state.job
            what = (f"game {job.white_id}-{job.black_id} of round {job.round}" if job is not None
                    else f"the result of {getattr(state.fn, '__name__', 'a job')}")
            if len(state.refused) >= MAX_REFUSALS:
                state.outer.set_exception(ExecutorLost(
                    f"{len(state.refused)} results of {what.removeprefix('the result of ')} were "
                    f"refused, the last because {problem} (a broken or tampered worker?)"))
                return
            again = "playing it again" if job is not None else "running it again"
            self.out(f"Refused {what} from {worker or 'a worker'}: {problem}; {again}")
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
                                out=out, plain=True)
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
    with dask_client(parse_scheduler(scheduler), workers, out, tls) as (client, lost):
        executor = GameExecutor(cluster_executor(client), lost, out=out, plain=True,
                                placement=DaskPlacement(client),
                                wrap=lambda fn, args: (versioned, (genchess.__version__, fn, *args)))
        try:
            with ctrl_c_at_safe_points():
                yield executor
        except BaseException:
            executor.closing = True
            executor.inner.shutdown(wait=False)         # cancels the games in flight
            executor.checker.shutdown(wait=False, cancel_futures=True)
            raise
        executor.shutdown(wait=True)


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
