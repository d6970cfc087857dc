"""The lab's queue: one SQLite database in the lab folder (queue.sqlite).

WAL mode, so that the web page reads while a worker writes; every change is one
transaction, and taking a job is `BEGIN IMMEDIATE` (the write lock first), so two
workers never take the same job. A job is taken with a lease that its worker
renews while it lives; a job whose lease ran out, or whose worker on this machine
is gone, goes back to `queued` (recover), so a crash between taking a job and
starting it, or a worker killed mid-job, loses nothing: the job's own files resume it.

States: queued -> taken -> running -> done | failed | cancelled; `paused` is held
by the user (`genchess lab pause`) until `genchess lab retry`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

QUEUE_FILE = "queue.sqlite"
LEASE_SECONDS = 30.0            # a worker renews its leases every few seconds
FINAL = ("done", "failed", "cancelled")

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    args TEXT NOT NULL,             -- JSON: the command's arguments, never a shell string
    cwd TEXT NOT NULL,              -- where it was queued: its relative paths are from there
    priority INTEGER NOT NULL DEFAULT 0,
    timed INTEGER NOT NULL,         -- 1: never shares the cores with another job
    time_limit REAL NOT NULL,       -- seconds of running (paused time not counted)
    used REAL NOT NULL DEFAULT 0,   -- seconds run so far, over every attempt
    state TEXT NOT NULL DEFAULT 'queued',
    request TEXT,                   -- 'pause' or 'cancel', for the worker running it
    held INTEGER NOT NULL DEFAULT 0, -- 1: an untimed job stopped while a timed one runs
    worker TEXT,
    lease REAL,
    token TEXT,                     -- marks the processes of one attempt (their environment)
    pid INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    exit_code INTEGER,
    message TEXT,                   -- a failure's last lines of output, or why it stopped
    commit_id TEXT
);
CREATE TABLE IF NOT EXISTS workers (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat REAL NOT NULL
);
"""


class QueueError(Exception):
    """A job that is not there or cannot do what was asked: one line."""


@dataclass
class Job:
    id: int
    kind: str
    args: dict
    cwd: str
    priority: int
    timed: bool
    time_limit: float
    used: float
    state: str
    request: str | None
    held: int
    worker: str | None
    lease: float | None
    token: str | None
    pid: int | None
    attempts: int
    created: float
    started: float | None
    finished: float | None
    exit_code: int | None
    message: str | None
    commit_id: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "Job":
        values = dict(row)
        values["args"] = json.loads(values["args"])
        values["timed"] = bool(values["timed"])
        return cls(**values)


class Queue:
    """The queue of one lab folder. `clock` is time.time, or a test's."""

    def __init__(self, lab: str | Path, clock=time.time, create: bool = True):
        self.lab = Path(lab)
        self.path = self.lab / QUEUE_FILE
        self.clock = clock
        if not self.path.exists() and not create:
            raise QueueError(f"{self.path}: no queue here (genchess lab add makes one)")
        self.lab.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; each change says BEGIN itself.
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=60000")
        self.db.executescript(SCHEMA)
        # A queue made before jobs could be held for a timed one.
        if "held" not in {row["name"] for row in self.db.execute("PRAGMA table_info(jobs)")}:
            self.db.execute("ALTER TABLE jobs ADD COLUMN held INTEGER NOT NULL DEFAULT 0")

    def close(self) -> None:
        self.db.close()

    def job_dir(self, job_id: int) -> Path:
        return self.lab / "jobs" / str(job_id)

    # ------------------------------------------------------------ transactions

    def _write(self, body):
        """body(db) inside one write transaction, taken at once (BEGIN IMMEDIATE)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            result = body(self.db)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return result

    # ------------------------------------------------------------ reading

    def jobs(self) -> list[Job]:
        return [Job.from_row(r) for r in self.db.execute("SELECT * FROM jobs ORDER BY id")]

    def job(self, job_id: int) -> Job:
        row = self.db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise QueueError(f"no job {job_id} in {self.path}")
        return Job.from_row(row)

    def next_queued(self) -> Job | None:
        """The job a worker takes next: highest priority first, then the oldest."""
        row = self.db.execute("SELECT * FROM jobs WHERE state = 'queued' "
                              "ORDER BY priority DESC, id LIMIT 1").fetchone()
        return Job.from_row(row) if row else None

    # ------------------------------------------------------------ queueing

    def add(self, kind: str, args: dict, cwd: str, *, priority: int = 0, timed: bool,
            time_limit: float) -> int:
        def body(db):
            cursor = db.execute("INSERT INTO jobs (kind, args, cwd, priority, timed, time_limit, "
                                "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (kind, json.dumps(args), cwd, priority, int(timed), time_limit,
                                 self.clock()))
            return cursor.lastrowid
        return self._write(body)

    # ------------------------------------------------------------ a worker's side

    def register(self, worker: str) -> None:
        self._write(lambda db: db.execute(
            "INSERT OR REPLACE INTO workers (id, host, pid, heartbeat) VALUES (?, ?, ?, ?)",
            (worker, socket.gethostname(), os.getpid(), self.clock())))

    def unregister(self, worker: str) -> None:
        self._write(lambda db: db.execute("DELETE FROM workers WHERE id = ?", (worker,)))

    def take(self, worker: str, accept=lambda job: True, lease: float = LEASE_SECONDS) -> Job | None:
        """The first queued job (highest priority, then the oldest) that `accept(job)`
        says the worker can run now, leased to `worker`; None if none can. A job that
        cannot start yet does not hold back the ones behind it that can: an SPRT waits
        for no training that waits for a core, and a data run starts beside an SPRT
        while a second SPRT waits its turn. One transaction: a job is taken once."""
        def body(db):
            rows = db.execute("SELECT * FROM jobs WHERE state = 'queued' "
                              "ORDER BY priority DESC, id").fetchall()
            row = next((row for row in rows if accept(Job.from_row(row))), None)
            if row is None:
                return None
            db.execute("UPDATE jobs SET state = 'taken', worker = ?, lease = ?, "
                       "attempts = attempts + 1 WHERE id = ? AND state = 'queued'",
                       (worker, self.clock() + lease, row["id"]))
            return row["id"]
        job_id = self._write(body)
        return None if job_id is None else self.job(job_id)

    def start(self, job_id: int, worker: str, pid: int, token: str, commit_id: str) -> None:
        def body(db):
            changed = db.execute("UPDATE jobs SET state = 'running', pid = ?, token = ?, "
                                 "started = COALESCE(started, ?), commit_id = ? "
                                 "WHERE id = ? AND worker = ? AND state = 'taken'",
                                 (pid, token, self.clock(), commit_id, job_id, worker)).rowcount
            if not changed:
                raise QueueError(f"job {job_id} is no longer leased to this worker")
        self._write(body)

    def set_token(self, job_id: int, worker: str, token: str) -> None:
        """Name the attempt's processes before they start, so that a recovery finds
        them even if the worker dies before start() is written."""
        self._write(lambda db: db.execute("UPDATE jobs SET token = ? WHERE id = ? AND worker = ?",
                                          (token, job_id, worker)))

    def hold(self, job_id: int, worker: str, held: bool) -> None:
        """Say that the worker stopped (or continued) an untimed job for a timed one."""
        self._write(lambda db: db.execute("UPDATE jobs SET held = ? WHERE id = ? AND worker = ?",
                                          (int(held), job_id, worker)))

    def renew(self, worker: str, used: dict[int, float], lease: float = LEASE_SECONDS) -> None:
        """The worker's heartbeat: its leases extended, its jobs' running time."""
        def body(db):
            now = self.clock()
            db.execute("UPDATE workers SET heartbeat = ? WHERE id = ?", (now, worker))
            db.execute("UPDATE jobs SET lease = ? WHERE worker = ? AND state IN ('taken', 'running')",
                       (now + lease, worker))
            for job_id, seconds in used.items():
                db.execute("UPDATE jobs SET used = ? WHERE id = ? AND worker = ?",
                           (seconds, job_id, worker))
        self._write(body)

    def finish(self, job_id: int, worker: str, state: str, exit_code: int | None,
               message: str | None) -> None:
        """A job's attempt ended: done, failed, cancelled, paused (the user's pause)
        or queued (the worker stopping; the job resumes from its files)."""
        def body(db):
            db.execute("UPDATE jobs SET state = ?, exit_code = ?, message = ?, request = NULL, held = 0, "
                       "worker = NULL, lease = NULL, pid = NULL, finished = ? "
                       "WHERE id = ? AND worker = ?",
                       (state, exit_code, message, self.clock() if state in FINAL else None,
                        job_id, worker))
        self._write(body)

    def recover(self, alive=None, on_lost=None) -> list[Job]:
        """Jobs whose worker is gone: its lease ran out, or it was on this machine
        and its process is dead. Each goes back to queued (or to what was asked of
        it meanwhile: paused, cancelled). `on_lost(job)` is called for each inside
        the transaction, before any worker can take it again: the worker ends the
        processes of the lost attempt there (they carry its token)."""
        if alive is None:
            from genchess.parallel.executors import process_alive as alive
        host = socket.gethostname()

        def body(db):
            now = self.clock()
            workers = {r["id"]: r for r in db.execute("SELECT * FROM workers")}
            lost = []
            for row in db.execute("SELECT * FROM jobs WHERE state IN ('taken', 'running')").fetchall():
                owner = workers.get(row["worker"])
                dead_here = owner is None or (owner["host"] == host and not alive(owner["pid"]))
                if row["lease"] is not None and row["lease"] >= now and not dead_here:
                    continue
                lost.append(Job.from_row(row))
                if on_lost is not None:
                    on_lost(lost[-1])
                state = {"pause": "paused", "cancel": "cancelled"}.get(row["request"], "queued")
                db.execute("UPDATE jobs SET state = ?, request = NULL, held = 0, worker = NULL, "
                           "lease = NULL, pid = NULL, finished = ? WHERE id = ?",
                           (state, now if state in FINAL else None, row["id"]))
            for worker_id, owner in workers.items():
                if owner["host"] == host and not alive(owner["pid"]) or \
                        owner["heartbeat"] < now - 10 * LEASE_SECONDS:
                    db.execute("DELETE FROM workers WHERE id = ?", (worker_id,))
            return lost
        return self._write(body)

    # ------------------------------------------------------------ the user's commands

    def pause(self, job_id: int) -> str:
        return self._ask(job_id, "pause", {"queued": "paused"}, ("taken", "running"))

    def cancel(self, job_id: int) -> str:
        return self._ask(job_id, "cancel", {"queued": "cancelled", "paused": "cancelled",
                                            "failed": "cancelled"}, ("taken", "running"))

    def retry(self, job_id: int) -> str:
        """A failed, cancelled or paused job back to the queue, its time limit anew;
        it resumes from its files."""
        def body(db):
            job = self._job_in(db, job_id)
            if job.state not in ("failed", "cancelled", "paused"):
                raise QueueError(f"job {job_id} is {job.state}: only a failed, cancelled or "
                                 f"paused job is queued again")
            db.execute("UPDATE jobs SET state = 'queued', used = 0, exit_code = NULL, message = NULL, "
                       "finished = NULL WHERE id = ?", (job_id,))
            return "queued"
        return self._write(body)

    def _ask(self, job_id: int, request: str, now: dict[str, str], running: tuple[str, ...]) -> str:
        """A state change at once (a job no worker holds), or a request to the worker
        that runs it, which stops it at a safe point."""
        def body(db):
            job = self._job_in(db, job_id)
            if job.state in now:
                db.execute("UPDATE jobs SET state = ?, finished = ? WHERE id = ?",
                           (now[job.state], self.clock() if now[job.state] in FINAL else None, job_id))
                return now[job.state]
            if job.state in running:
                db.execute("UPDATE jobs SET request = ? WHERE id = ?", (request, job_id))
                return f"{job.state}: its worker will {request} it"
            raise QueueError(f"job {job_id} is {job.state}: nothing to {request}")
        return self._write(body)

    @staticmethod
    def _job_in(db, job_id: int) -> Job:
        row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise QueueError(f"no job {job_id}")
        return Job.from_row(row)

