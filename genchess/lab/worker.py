"""`genchess lab run`: the worker. It takes jobs from the queue in order (the first that
can start now) and runs each as its own command (`python -m genchess KIND ...`) in a
process group of its own, its output in the job's folder (lab/jobs/N/output.log).

The rules, each checked once a tick:
- a timed job (a match, a gauntlet, a benchmark) never shares its cores: one at a time,
  and when one is next, the untimed jobs running are stopped (SIGSTOP to their process
  groups) until no timed job is next, then continued (SIGCONT);
- but a match or gauntlet that names its games at once (`--concurrency N`) with fewer
  than the worker's cores gets N cores of its own (CPU affinity, on Linux), and the
  untimed jobs go on, moved to the other cores, and may start there: an SPRT one game
  at a time on one core, the data machine on the other (moved back to every core after);
- untimed jobs (data, position sets, trainings) start while their cores are free;
- a job that exits 0 is done; any other exit is failed, with its last lines; a job
  running longer than its time limit (paused time not counted) is stopped and failed;
- `genchess lab pause` or `cancel` of a running job: Ctrl-C to its group (every
  command stops at a safe point), SIGKILL after a grace period;
- Ctrl-C or SIGTERM to the worker: the same to every job, which goes back to the
  queue; kill -9 of the worker or a reboot: the next worker finds the jobs whose
  worker is gone, ends any of their processes still running (each attempt's
  processes carry a token in their environment) and queues them again.
A job resumes from its own files: its command's resume, never the lab's.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from genchess.lab import kinds
from genchess.lab.queue import Job, Queue, QueueError
from genchess.parallel import usable_cpus

TOKEN_VARIABLE = "GENCHESS_LAB_TOKEN"
GRACE_SECONDS = 60.0            # after Ctrl-C, a job's time to reach a safe point
HEARTBEAT_SECONDS = 5.0


@dataclass
class Running:
    job: Job
    proc: subprocess.Popen
    log: object
    since: float                            # monotonic start of this attempt
    stopped_at: float | None = None         # SIGSTOPped for a timed job since then
    stopped_for: float = 0.0                # seconds stopped so far
    stopping: str | None = None             # pause, cancel, limit or shutdown
    stop_sent: float = 0.0
    cpus: list[int] | None = None           # a timed job's own CPUs beside untimed jobs

    def used(self, now: float) -> float:
        """Seconds this job has run, over every attempt, paused time left out."""
        paused = self.stopped_for + (now - self.stopped_at if self.stopped_at is not None else 0.0)
        return self.job.used + now - self.since - paused


@dataclass
class Worker:
    queue: Queue
    cores: int = field(default_factory=lambda: len(usable_cpus()))
    until_empty: bool = False
    tick: float = 1.0
    grace: float = GRACE_SECONDS
    out: object = print
    scheduler: str | None = None            # a dask cluster for the untimed jobs' games

    def __post_init__(self):
        self.id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.running: dict[int, Running] = {}
        # The CPUs the worker fills, when it can place processes (Linux): a timed job
        # of fewer games at once takes the last ones, the untimed jobs the rest.
        self.cpus = usable_cpus()[:self.cores] if hasattr(os, "sched_setaffinity") else []
        self.quit = False
        self.last_beat = 0.0

    # ------------------------------------------------------------ the loop

    def run(self) -> int:
        self.queue.register(self.id)
        handlers = {sig: signal.signal(sig, self._ask_to_quit) for sig in (signal.SIGINT, signal.SIGTERM)}
        self.out(f"lab worker {self.id}: {self.queue.path}, {self.cores} cores"
                 + (f", untimed jobs' games on {self.scheduler}" if self.scheduler else ""))
        try:
            while not self.quit:
                self.queue.recover(on_lost=self._end_leftovers)
                self.poll()
                self.follow_requests()
                self.schedule()
                self.heartbeat()
                if self.until_empty and not self.running and self.queue.next_queued() is None:
                    break
                time.sleep(self.tick)
        finally:
            self.shutdown()
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
            self.queue.unregister(self.id)
        return 0

    def _ask_to_quit(self, signum, frame) -> None:
        if self.quit:                       # a second Ctrl-C: no more waiting
            raise KeyboardInterrupt
        self.quit = True
        self.out("lab worker: stopping; the jobs running go back to the queue and resume from "
                 "their files (Ctrl-C again to stop them at once)")

    # ------------------------------------------------------------ starting

    def timed_cpus(self, job: Job) -> list[int] | None:
        """The CPUs of its own a timed job gets beside the untimed jobs, None if it takes
        the machine (untimed jobs stopped while it runs)."""
        wanted = kinds.timed_cores(job)
        if wanted is None or wanted >= len(self.cpus):
            return None
        return self.cpus[-wanted:]

    def _beside(self) -> tuple[list[int] | None, list[int] | None]:
        """The running timed job's CPUs, and the ones left for untimed jobs (None, None
        while no timed job runs or one takes the machine)."""
        for r in self.running.values():
            if r.job.timed and r.cpus is not None:
                return r.cpus, [c for c in self.cpus if c not in r.cpus]
        return None, None

    def schedule(self) -> None:
        if any(r.job.timed for r in self.running.values()):
            self._fill_beside()
            return
        waiting = self.queue.next_queued()
        stopped = [r for r in self.running.values() if r.stopped_at is not None]
        if stopped and (waiting is None or not waiting.timed or self.timed_cpus(waiting) is not None):
            for r in stopped:
                self._signal(r, signal.SIGCONT)
                r.stopped_for += time.monotonic() - r.stopped_at
                r.stopped_at = None
                self.queue.hold(r.job.id, self.id, False)
                self.out(f"job {r.job.id} ({r.job.kind}) continued")
        while (job := self.queue.take(self.id, self._can_start)) is not None:
            own = self.timed_cpus(job) if job.timed else None
            if job.timed and own is None:
                for r in self.running.values():
                    if r.stopped_at is None:
                        self._signal(r, signal.SIGSTOP)
                        r.stopped_at = time.monotonic()
                        self.queue.hold(r.job.id, self.id, True)
                        self.out(f"job {r.job.id} ({r.job.kind}) stopped while timed job {job.id} runs")
            elif own is not None:
                rest = [c for c in self.cpus if c not in own]
                for r in self.running.values():
                    place(r, rest)
                    self.out(f"job {r.job.id} ({r.job.kind}) moved to CPU {cpu_list(rest)} beside "
                             f"timed job {job.id} on CPU {cpu_list(own)}")
            self.start(job, own)
            if job.timed:
                self._fill_beside()
                break

    def _fill_beside(self) -> None:
        """Untimed jobs started on the cores a timed job leaves (its games are on its own)."""
        own, rest = self._beside()
        if own is None:
            return
        while (job := self.queue.take(self.id, self._can_start)) is not None:
            self.start(job, rest)

    def _can_start(self, job: Job) -> bool:
        own, rest = self._beside()
        if any(r.job.timed for r in self.running.values()):
            if job.timed or own is None:
                return False
            busy = sum(kinds.cores(r.job) for r in self.running.values() if not r.job.timed)
            return busy == 0 or busy + kinds.cores(job) <= len(rest)
        if job.timed:
            return True
        busy = sum(kinds.cores(r.job) for r in self.running.values())
        return not self.running or busy + kinds.cores(job) <= self.cores

    def start(self, job: Job, cpus: list[int] | None = None) -> None:
        job_dir = self.queue.job_dir(job.id).resolve()
        job_dir.mkdir(parents=True, exist_ok=True)
        token = uuid.uuid4().hex
        # The token first: a worker killed right after Popen leaves processes that
        # the next worker must be able to find.
        self.queue.set_token(job.id, self.id, token)
        argv = [sys.executable, "-m", "genchess", *kinds.command(job, job_dir, self.scheduler)]
        log = open(job_dir / "output.log", "ab")
        log.write(f"=== attempt {job.attempts}, {time.strftime('%Y-%m-%d %H:%M:%S')}, "
                  f"{kinds.describe(job)}\n".encode())
        log.flush()
        env = {**os.environ, TOKEN_VARIABLE: token, "PYTHONUNBUFFERED": "1"}
        try:
            proc = subprocess.Popen(argv, cwd=job.cwd, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                    preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus))
        except OSError as e:
            log.close()
            self.queue.finish(job.id, self.id, "failed", None, f"could not start: {e}")
            self.out(f"job {job.id} ({job.kind}) failed to start: {e}")
            return
        try:
            self.queue.start(job.id, self.id, proc.pid, token, _commit())
        except QueueError as e:     # the lease ran out meanwhile and another worker has it
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            log.close()
            self.out(f"job {job.id}: {e}")
            return
        job.token = token                   # for place() and the end of its processes
        self.running[job.id] = Running(job, proc, log, time.monotonic(), cpus=cpus if job.timed else None)
        self.out(f"job {job.id} ({job.kind}) started"
                 + ("" if cpus is None else f" on CPU {cpu_list(cpus)}") + f": {kinds.describe(job)}")

    # ------------------------------------------------------------ watching

    def poll(self) -> None:
        for job_id, r in list(self.running.items()):
            code = r.proc.poll()
            if code is None:
                continue
            self._kill_group(r)             # anything the command left behind
            r.log.close()
            del self.running[job_id]
            if r.job.timed and r.cpus is not None:      # its cores go back to the untimed jobs
                for other in self.running.values():
                    place(other, self.cpus)
                    self.out(f"job {other.job.id} ({other.job.kind}) back on CPU {cpu_list(self.cpus)}")
            job_dir = self.queue.job_dir(job_id)
            tail = kinds.last_lines(job_dir / "output.log")
            if r.stopping in ("pause", "cancel"):
                state, message = {"pause": "paused", "cancel": "cancelled"}[r.stopping], None
            elif r.stopping == "limit":
                state = "failed"
                message = f"stopped at its time limit of {r.job.time_limit / 3600:g} h\n{tail}"
            elif r.stopping == "shutdown" and code != 0:
                state, message = "queued", None
            elif code == 0:
                state, message = "done", None
            else:
                state, message = "failed", f"exit status {code}\n{tail}"
            self.queue.renew(self.id, {job_id: r.used(time.monotonic())})
            self.queue.finish(job_id, self.id, state, code, message)
            self.out(f"job {job_id} ({r.job.kind}) {state}" + (f" (exit status {code})" if code else ""))
            if state == "done":
                from genchess.lab.report import write_report
                try:
                    write_report(self.queue, self.queue.job(job_id))
                except (OSError, ValueError) as e:
                    self.out(f"job {job_id}: no report: {e}")

    def follow_requests(self) -> None:
        now = time.monotonic()
        for job_id, r in self.running.items():
            if r.stopping is None:
                request = self.queue.job(job_id).request
                if request in ("pause", "cancel"):
                    self._stop(r, request)
                elif r.used(now) > r.job.time_limit:
                    self._stop(r, "limit")
            elif now - r.stop_sent > self.grace:
                self._kill_group(r)

    def _stop(self, r: Running, why: str) -> None:
        """Ctrl-C to the job's group: its command stops at a safe point."""
        self.out(f"job {r.job.id} ({r.job.kind}): stopping ({why})")
        r.stopping, r.stop_sent = why, time.monotonic()
        if r.stopped_at is not None:
            r.stopped_for += time.monotonic() - r.stopped_at
            r.stopped_at = None
        self._signal(r, signal.SIGCONT)
        self._signal(r, signal.SIGINT)

    def heartbeat(self) -> None:
        now = time.monotonic()
        if now - self.last_beat >= HEARTBEAT_SECONDS:
            self.queue.renew(self.id, {i: r.used(now) for i, r in self.running.items()})
            self.last_beat = now

    def shutdown(self) -> None:
        """Every job stopped at a safe point and back in the queue."""
        for r in self.running.values():
            if r.stopping is None:
                self._stop(r, "shutdown")
        deadline = time.monotonic() + self.grace
        try:
            while self.running and time.monotonic() < deadline:
                self.poll()
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        for job_id, r in list(self.running.items()):
            self._kill_group(r)
            r.proc.wait()
            r.log.close()
            self.queue.finish(job_id, self.id, "queued", None, None)
        self.running.clear()

    # ------------------------------------------------------------ signals

    @staticmethod
    def _signal(r: Running, sig: int) -> None:
        try:
            os.killpg(r.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _kill_group(self, r: Running) -> None:
        self._signal(r, signal.SIGKILL)
        if r.job.token is None:
            r.job.token = self.queue.job(r.job.id).token
        end_processes(r.job.token)

    def _end_leftovers(self, job: Job) -> None:
        if job.token:
            ended = end_processes(job.token)
            if ended:
                self.out(f"job {job.id}: ended {ended} processes left by its lost worker")
        self.out(f"job {job.id} ({job.kind}): its worker is gone; back in the queue")


def token_processes(token: str | None) -> list[int]:
    """The processes whose environment carries this attempt's token (the job's command,
    its engines, its pool's workers); none where /proc is not there to read."""
    if not token or not Path("/proc").is_dir():
        return []
    marker = f"{TOKEN_VARIABLE}={token}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def place(r: Running, cpus: list[int]) -> None:
    """Every thread of every process of a running job onto these CPUs (what they start
    later inherits it)."""
    for pid in token_processes(r.job.token):
        try:
            threads = [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
        except OSError:
            continue
        for tid in threads:
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:                 # gone meanwhile
                pass


def cpu_list(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))


def end_processes(token: str | None, wait: float = 10.0) -> int:
    """SIGKILL every process whose environment carries this attempt's token (the
    job's command, its engines, its pool's workers), and wait until they are gone;
    how many there were. Linux reads /proc; elsewhere the process group alone ends."""
    if not token or not Path("/proc").is_dir():
        return 0
    found = 0
    deadline = time.monotonic() + wait
    while True:
        live = [pid for pid in token_processes(token) if not _zombie(pid)]
        if not live or time.monotonic() > deadline:
            return found
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        found = max(found, len(live))
        time.sleep(0.1)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _commit() -> str:
    from genchess.position_sets.datagen import git_commit
    return git_commit()
