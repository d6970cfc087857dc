"""The lab's queue (genchess/lab/queue.py): order and priorities, a job taken once
by racing workers, a worker lost between taking a job and starting it, and the
user's pause, cancel and retry."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from genchess.lab.queue import Queue, QueueError


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def add(queue, kind="datagen", priority=0, timed=False):
    return queue.add(kind, {"argv": [kind]}, "/", priority=priority, timed=timed, time_limit=3600)


def take_all(queue, worker="w"):
    taken = []
    while (job := queue.take(worker)) is not None:
        taken.append(job.id)
    return taken


def test_the_database_is_sqlite_in_wal_mode(tmp_path):
    queue = Queue(tmp_path / "lab")
    add(queue)
    assert (tmp_path / "lab" / "queue.sqlite").exists()
    db = sqlite3.connect(tmp_path / "lab" / "queue.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_jobs_are_taken_in_the_order_queued(tmp_path):
    queue = Queue(tmp_path)
    ids = [add(queue) for _ in range(4)]
    assert take_all(queue) == ids


def test_a_higher_priority_is_taken_first_then_the_order_queued(tmp_path):
    queue = Queue(tmp_path)
    low = add(queue, priority=0)
    high1 = add(queue, priority=5)
    mid = add(queue, priority=1)
    high2 = add(queue, priority=5)
    assert take_all(queue) == [high1, high2, mid, low]


def test_take_leaves_the_job_queued_when_the_worker_cannot_run_it(tmp_path):
    queue = Queue(tmp_path)
    timed = add(queue, kind="match", timed=True)
    assert queue.take("w", accept=lambda job: not job.timed) is None
    assert queue.job(timed).state == "queued"
    assert queue.take("w").id == timed


def test_a_job_that_cannot_start_does_not_hold_back_the_ones_behind_it(tmp_path):
    queue = Queue(tmp_path)
    training = add(queue, kind="train", priority=5)         # waits for a core
    sprt = add(queue, kind="match", timed=True)
    data = add(queue, kind="datagen")
    assert queue.take("w", accept=lambda job: job.kind != "train").id == sprt
    # Among the jobs that can start, the order stays: priority, then the oldest.
    assert queue.take("w", accept=lambda job: job.kind != "train").id == data
    assert queue.job(training).state == "queued"
    assert queue.take("w").id == training


def _racer(path, worker, out):
    queue = Queue(path)
    out.put((worker, take_all(queue, worker)))


def test_racing_workers_never_take_the_same_job(tmp_path):
    queue = Queue(tmp_path)
    ids = [add(queue) for _ in range(60)]
    queue.close()
    out = multiprocessing.Queue()
    racers = [multiprocessing.Process(target=_racer, args=(tmp_path, f"w{i}", out)) for i in range(4)]
    for p in racers:
        p.start()
    results = [out.get(timeout=120) for _ in racers]
    for p in racers:
        p.join(timeout=60)
    taken = [job for _, jobs in results for job in jobs]
    assert sorted(taken) == ids                  # every job once, none twice
    queue = Queue(tmp_path)
    owners = {job.id: job.worker for job in queue.jobs()}
    for worker, jobs in results:
        assert all(owners[j] == worker for j in jobs)


def test_a_crash_between_take_and_start_puts_the_job_back_when_the_lease_runs_out(tmp_path):
    clock = Clock()
    queue = Queue(tmp_path, clock=clock)
    job_id = add(queue)
    queue.register("lost")
    job = queue.take("lost", lease=30)
    assert job.state == "taken"
    # The worker is alive as far as this machine can tell: the lease decides.
    assert queue.recover(alive=lambda pid: True) == []
    clock.now += 31
    lost = queue.recover(alive=lambda pid: True)
    assert [j.id for j in lost] == [job_id]
    assert queue.job(job_id).state == "queued"
    again = queue.take("next")
    assert again.id == job_id and again.attempts == 2


def test_a_dead_worker_on_this_machine_loses_its_jobs_at_once(tmp_path):
    queue = Queue(tmp_path)
    running, taken = add(queue), add(queue)
    queue.register("dead")
    queue.take("dead")
    queue.start(running, "dead", pid=1, token="t1", commit_id="")
    queue.take("dead")
    seen = []
    lost = queue.recover(alive=lambda pid: False, on_lost=seen.append)
    assert sorted(j.id for j in lost) == [running, taken]
    assert [j.token for j in seen if j.id == running] == ["t1"]
    assert {j.state for j in queue.jobs()} == {"queued"}


def test_a_live_worker_keeps_its_jobs(tmp_path):
    clock = Clock()
    queue = Queue(tmp_path, clock=clock)
    add(queue)
    queue.register("alive")
    queue.take("alive", lease=30)
    for _ in range(5):
        clock.now += 20
        queue.renew("alive", {})
        assert queue.recover(alive=lambda pid: True) == []


def test_start_refuses_a_job_the_worker_no_longer_holds(tmp_path):
    queue = Queue(tmp_path)
    job_id = add(queue)
    queue.take("slow")
    queue.recover(alive=lambda pid: False)          # "slow" is gone as far as the queue knows
    queue.take("other")
    with pytest.raises(QueueError, match="no longer leased"):
        queue.start(job_id, "slow", pid=1, token="t", commit_id="")


def test_pause_cancel_and_retry(tmp_path):
    queue = Queue(tmp_path)
    a, b = add(queue), add(queue)
    assert queue.pause(a) == "paused"
    assert queue.take("w").id == b              # a paused job is not taken
    assert queue.cancel(a) == "cancelled"
    assert queue.retry(a) == "queued"
    assert queue.job(a).state == "queued"
    # A running job: the request waits for its worker.
    assert "will cancel" in queue.cancel(b)
    assert queue.job(b).request == "cancel"
    queue.finish(b, "w", "cancelled", 130, None)
    assert queue.job(b).state == "cancelled" and queue.job(b).request is None
    with pytest.raises(QueueError, match="nothing to pause"):
        queue.pause(b)
    with pytest.raises(QueueError, match="only a failed, cancelled or paused"):
        queue.retry(take_all(queue)[0])
    with pytest.raises(QueueError, match="no job 99"):
        queue.cancel(99)


def test_a_request_made_while_the_worker_was_lost_is_carried_out_on_recovery(tmp_path):
    queue = Queue(tmp_path)
    job_id = add(queue)
    queue.take("dead")
    queue.pause(job_id)
    queue.recover(alive=lambda pid: False)
    assert queue.job(job_id).state == "paused"


def test_a_match_is_listed_by_its_sides_their_options_and_its_own_pgn(tmp_path):
    # Two trials' SPRTs of one build differ only in the option set on one side and in
    # their PGN: the list of jobs names both, and no engine's genome path.
    import sys
    from genchess.lab.kinds import title
    engine = f"uci:{sys.executable}"
    queue = Queue(tmp_path / "lab")
    argv = [f"{engine} Genome=/a/b.genome name=on 'SEE Pruning=true'", f"{engine} Genome=/a/b.genome name=off",
            "--tc", "4+0.04", "--pgn", "trials/see.pgn"]
    match = queue.job(queue.add("match", {"argv": argv}, str(tmp_path), timed=True, time_limit=60))
    assert title(match) == "on [SEE Pruning=true] vs off (trials/see.pgn)"
    data = queue.job(queue.add("datagen", {"argv": ["set", "--workers", "1"]}, str(tmp_path),
                               timed=False, time_limit=60))
    assert title(data) == "genchess datagen set --workers 1"
