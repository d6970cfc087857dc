"""The lab's jobs and worker (genchess/lab/kinds.py, worker.py): a job is checked when
queued with the command's own messages; the worker runs jobs in order, a timed one
alone, marks a crash failed with its output and goes on, stops a hung job at its
time limit; and a worker killed with SIGKILL mid-job, then started again, resumes
the job from its own files without losing or doubling a game or a position: a short
SPRT-like match, a short tune and a short data run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from genchess.lab.queue import Queue
from genchess.lab.worker import Worker, token_processes
from train_helpers import genchess_command, run

MATCH = ["genchess", "genchess", "--tc", "nodes=2000", "--concurrency", "1"]


def lab(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return run(genchess_command("lab", *args), cwd, timeout=timeout)


def start_worker(cwd: Path) -> subprocess.Popen:
    argv, env = genchess_command("lab", "run", "--until-empty")
    return subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def wait_for(condition, timeout: float = 180, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} did not happen within {timeout} s")


def pgn_rounds(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return re.findall(r'\[Round "([^"]+)"\]', text)


# ------------------------------------------------------------------ queueing


def test_a_job_is_refused_with_the_commands_own_message(tmp_path):
    own = run(genchess_command("match", "genchess", "genchess", "--tc", "bad"), tmp_path)
    queued = lab(tmp_path, "add", "match", "genchess", "genchess", "--tc", "bad")
    assert own.returncode == queued.returncode == 2
    assert queued.stderr.strip() == own.stderr.strip().splitlines()[-1]
    assert queued.stderr.startswith("genchess match: time control 'bad'")
    usage = lab(tmp_path, "add", "datagen", "d", "--depth", "zero")
    assert "genchess datagen: error: argument --depth" in usage.stderr
    assert not (tmp_path / "lab" / "queue.sqlite").exists()       # nothing was queued


def test_a_gauntlet_is_checked_as_the_command_checks_it(tmp_path):
    config = Path(__file__).resolve().parents[1] / "genchess" / "data" / "gauntlet.cfg"
    arguments = [str(config), "--opponents", "no-such-opponent", "--tc", "nodes=500"]
    own = run(genchess_command("gauntlet", *arguments), tmp_path)
    queued = lab(tmp_path, "add", "gauntlet", *arguments)
    assert own.returncode == queued.returncode == 2
    assert queued.stderr.strip() == own.stderr.strip().splitlines()[-1]
    assert "no opponent to play" in queued.stderr


def test_the_lab_resumes_a_match_itself(tmp_path):
    result = lab(tmp_path, "add", "match", *MATCH, "--pgn", "mine.pgn", "--resume")
    assert result.returncode == 2
    assert "leave out --resume" in result.stderr


def test_a_match_continues_in_a_pgn_of_its_own(tmp_path):
    """A paused SPRT's games kept in a file of the project's (lab/search-trials/...):
    a job that names it with --pgn checks it as --resume would, plays the rest of the
    match into it, and no second job may write there."""
    (tmp_path / "trials").mkdir()
    played = run(genchess_command("match", *MATCH, "--games", "4", "--pgn", "trials/t.pgn"), tmp_path)
    assert played.returncode == 0, played.stderr
    other = lab(tmp_path, "add", "match", "genchess", "genchess:unified", "--tc", "nodes=2000",
                "--concurrency", "1", "--games", "6", "--pgn", "trials/t.pgn")
    assert other.returncode == 2 and other.stderr.startswith("genchess match: trials/t.pgn, game 1: ")
    assert "name the engines as before" in other.stderr
    assert lab(tmp_path, "add", "match", *MATCH, "--games", "6", "--pgn", "trials/t.pgn").returncode == 0
    twice = lab(tmp_path, "add", "match", *MATCH, "--games", "6", "--pgn", "trials/t.pgn")
    assert twice.returncode == 2
    assert "--pgn trials/t.pgn is already the PGN of job 1 (queued)" in twice.stderr
    finished = lab(tmp_path, "run", "--until-empty", timeout=600)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rounds = pgn_rounds(tmp_path / "trials" / "t.pgn")
    assert sorted(rounds) == [f"{p}.{g}" for p in (1, 2, 3) for g in (1, 2)]     # 4 kept, 2 more
    assert not (tmp_path / "lab" / "jobs" / "1" / "games.pgn").exists()
    report = (tmp_path / "lab" / "jobs" / "1" / "report.md").read_text()
    assert "| games | 6 of at most 6 |" in report
    assert "[trials/t.pgn](../../../trials/t.pgn)" in report


def test_checking_a_match_leaves_no_pgn_behind(tmp_path):
    # The check opens the PGN to append, to find it writable; it does not keep a file it made.
    assert lab(tmp_path, "add", "match", *MATCH, "--games", "2", "--pgn", "fresh.pgn").returncode == 0
    assert not (tmp_path / "fresh.pgn").exists()
    refused = lab(tmp_path, "add", "match", *MATCH, "--pgn", "no-such-folder/x.pgn")
    assert refused.returncode == 2
    assert refused.stderr.strip() == "genchess match: cannot write PGN file no-such-folder/x.pgn: No such file or directory"


def test_checking_a_data_run_leaves_its_folder_alone(tmp_path):
    result = lab(tmp_path, "add", "datagen", "set", "--depth", "2", "--chunks", "1")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "set").exists()
    job = Queue(tmp_path / "lab").jobs()[0]
    assert (job.kind, job.timed, job.args["argv"]) == ("datagen", False, ["set", "--depth", "2", "--chunks", "1"])


def test_a_training_is_queued_with_its_config_as_it_was(tmp_path):
    config = tmp_path / "t.cfg"
    config.write_text("method = tune\nrun file = t.txt\ntune = rfp_margin\ngenerations = 2\nnodes = 100\n")
    assert lab(tmp_path, "add", "train", "t.cfg").returncode == 0
    config.write_text("method = nonsense\n")
    job = Queue(tmp_path / "lab").jobs()[0]
    assert "method = tune" in job.args["config"] and job.args["config_name"] == "t.cfg"
    bad = lab(tmp_path, "add", "train", "t.cfg")
    assert bad.returncode == 2 and bad.stderr.startswith("genchess train: ")


# ------------------------------------------------------------------ running


def in_process_worker(lab_dir: Path, **settings) -> tuple[Worker, list[str]]:
    lines: list[str] = []
    worker = Worker(Queue(lab_dir), until_empty=True, tick=0.2, out=lines.append, **settings)
    return worker, lines


def test_a_crash_is_marked_failed_with_its_output_and_the_queue_goes_on(tmp_path):
    queue = Queue(tmp_path / "lab")
    # Queued past the checks, as a job whose command fails when it runs.
    crash = queue.add("bench", {"argv": ["--depth", "nonsense"]}, str(tmp_path), timed=True, time_limit=600)
    fine = queue.add("bench", {"argv": ["--depth", "1", "--runs", "1"]}, str(tmp_path), timed=True,
                     time_limit=600)
    worker, lines = in_process_worker(tmp_path / "lab")
    worker.run()
    failed, done = queue.job(crash), queue.job(fine)
    assert failed.state == "failed" and failed.exit_code == 2
    assert "argument --depth" in failed.message
    assert done.state == "done"
    assert (tmp_path / "lab" / "jobs" / str(fine) / "report.md").exists()


def test_a_hung_job_is_stopped_at_its_time_limit(tmp_path):
    queue = Queue(tmp_path / "lab")
    hung = queue.add("match", {"argv": ["genchess", "genchess", "--tc", "nodes=2000000", "--games", "50",
                                        "--concurrency", "1"]}, str(tmp_path), timed=True, time_limit=3)
    worker, lines = in_process_worker(tmp_path / "lab", grace=10)
    started = time.monotonic()
    worker.run()
    job = queue.job(hung)
    assert job.state == "failed"
    assert job.message.startswith("stopped at its time limit")
    assert time.monotonic() - started < 60
    assert token_processes(job.token) == []


def test_a_timed_job_stops_the_untimed_ones_until_it_is_done(tmp_path):
    # Two games at once on a worker of two cores: the match takes the machine.
    queue = Queue(tmp_path / "lab")
    data = queue.add("datagen", {"argv": ["set", "--depth", "3", "--games-per-chunk", "8", "--chunks", "2",
                                          "--workers", "1"]}, str(tmp_path), timed=False, time_limit=600)
    worker, lines = in_process_worker(tmp_path / "lab", cores=2)
    match = None
    whole_machine = MATCH[:-1] + ["2"]

    def queue_match_once_data_runs():
        nonlocal match
        if match is None and data in worker.running:
            match = queue.add("match", {"argv": whole_machine + ["--games", "2"]}, str(tmp_path),
                              timed=True, time_limit=600)
    original = worker.schedule

    def schedule():
        queue_match_once_data_runs()
        original()
        if match in worker.running:             # while the match runs, the data run is stopped
            r = worker.running[data] if data in worker.running else None
            assert r is None or r.stopped_at is not None
            if r is not None:
                state = Path(f"/proc/{r.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                assert state == "T"
                assert queue.job(data).held == 1          # the page and the status say so
    worker.schedule = schedule
    worker.run()
    assert queue.job(data).state == queue.job(match).state == "done"
    assert queue.job(data).held == 0
    said = "\n".join(lines)
    assert f"job {data} (datagen) stopped while timed job {match} runs" in said
    assert f"job {data} (datagen) continued" in said


def affinity(pids) -> set[frozenset[int]]:
    """The CPU sets of every thread of these processes."""
    found = set()
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                found.add(frozenset(os.sched_getaffinity(int(task.name))))
            except OSError:
                pass
    return found


def test_the_cores_a_timed_job_needs_are_its_games_at_once_unless_an_engine_has_threads(tmp_path):
    from genchess.lab.kinds import timed_cores
    queue = Queue(tmp_path / "lab")
    (tmp_path / "one.cfg").write_text("command = uci:stockfish Threads=1 name=SF\n")
    (tmp_path / "two.cfg").write_text("command = uci:stockfish Threads=2 name=SF\n")

    def needs(kind, *argv):
        return timed_cores(queue.job(queue.add(kind, {"argv": list(argv)}, str(tmp_path), timed=True,
                                               time_limit=60)))
    assert needs("match", "genchess", "genchess", "--concurrency", "1") == 1
    assert needs("match", "genchess", "genchess", "--concurrency=2") == 2
    assert needs("match", "genchess", "uci:stockfish Threads=1", "--concurrency", "1") == 1
    assert needs("match", "genchess threads=2", "genchess", "--concurrency", "1") is None
    assert needs("match", "genchess", "genchess") is None              # half the cores: the machine
    assert needs("gauntlet", "one.cfg", "--concurrency", "1") == 1
    assert needs("gauntlet", "two.cfg", "--concurrency", "1") is None
    assert needs("bench", "--depth", "8") is None


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="placing jobs on CPUs needs Linux and two CPUs this process may use")
def test_a_match_of_fewer_games_than_cores_gets_its_own_and_the_data_runs_go_on_beside(tmp_path):
    # One game at a time on a two-core worker: the match gets the last CPU; the data run
    # running is moved to the other and never stopped; one queued while the match plays
    # starts there; when the match ends, the data run is back on both. Each job is
    # cancelled once seen, so the test takes seconds.
    queue = Queue(tmp_path / "lab")
    cpus = sorted(os.sched_getaffinity(0))[:2]

    def data_run(folder):
        return queue.add("datagen", {"argv": [folder, "--depth", "3", "--games-per-chunk", "8", "--chunks",
                                              "100", "--workers", "1"]}, str(tmp_path), timed=False,
                         time_limit=600)
    first = data_run("one")
    worker, lines = in_process_worker(tmp_path / "lab", cores=2)
    match = second = None
    seen: dict[str, set] = {"match": set(), "first": set(), "second": set(), "after": set()}

    def running(job):
        return job is not None and job in worker.running and queue.job(job).request is None

    def look(name, job):
        r = worker.running[job]
        assert r.stopped_at is None and queue.job(job).held == 0     # beside the match, never held
        seen[name] |= affinity(token_processes(r.job.token))
        return seen[name]

    def watch():
        nonlocal match, second
        original()
        if match is None:
            if running(first):
                match = queue.add("match", {"argv": MATCH + ["--games", "400"]}, str(tmp_path), timed=True,
                                  time_limit=600)
        elif running(match):
            look("match", match)
            if running(first) and look("first", first):
                queue.cancel(first)
            elif second is None and queue.job(first).state == "cancelled":
                second = data_run("two")
            elif running(second) and look("second", second):
                queue.cancel(match)
        elif queue.job(match).state == "cancelled" and running(second) and look("after", second):
            queue.cancel(second)
    original = worker.schedule
    worker.schedule = watch
    worker.run()
    assert [queue.job(j).state for j in (first, match, second)] == ["cancelled"] * 3
    assert seen == {"match": {frozenset(cpus[1:])}, "first": {frozenset(cpus[:1])},
                    "second": {frozenset(cpus[:1])}, "after": {frozenset(cpus)}}, seen
    said = "\n".join(lines)
    assert f"job {match} (match) started on CPU {cpus[1]}" in said
    assert f"job {first} (datagen) moved to CPU {cpus[0]} beside timed job {match} on CPU {cpus[1]}" in said
    assert f"job {second} (datagen) started on CPU {cpus[0]}" in said
    assert f"job {second} (datagen) back on CPU {cpus[0]},{cpus[1]}" in said
    assert "stopped while timed job" not in said


def test_cancel_stops_a_running_job_at_a_safe_point(tmp_path):
    queue = Queue(tmp_path / "lab")
    job_id = queue.add("match", {"argv": MATCH + ["--games", "400"]}, str(tmp_path), timed=True,
                       time_limit=600)
    worker, lines = in_process_worker(tmp_path / "lab")
    original = worker.poll

    def poll():
        original()
        if len(pgn_rounds(tmp_path / "lab" / "jobs" / str(job_id) / "games.pgn")) >= 2 and \
                queue.job(job_id).request is None and queue.job(job_id).state == "running":
            queue.cancel(job_id)
    worker.poll = poll
    worker.run()
    job = queue.job(job_id)
    assert job.state == "cancelled"
    assert 2 <= len(pgn_rounds(tmp_path / "lab" / "jobs" / str(job_id) / "games.pgn")) < 400


# ------------------------------------------------------------------ kill -9 and resume


def kill_worker_then_finish(tmp_path: Path, ready) -> Queue:
    """Start a worker, SIGKILL it once `ready()`, start another until the queue is empty."""
    first = start_worker(tmp_path)
    try:
        wait_for(lambda: ready() or first.poll() is not None, what="the job's progress")
        assert first.poll() is None, first.stdout.read()
        first.send_signal(signal.SIGKILL)
        first.wait()
    finally:
        if first.poll() is None:
            first.kill()
    queue = Queue(tmp_path / "lab")
    job = queue.jobs()[0]
    # The job's command outlived its worker (its own process group) until the next
    # worker ends it: otherwise two would write the same files.
    assert job.state == "running" and token_processes(job.token)
    second = lab(tmp_path, "run", "--until-empty", timeout=600)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "its worker is gone; back in the queue" in second.stdout
    job = queue.job(job.id)
    assert job.state == "done", job.message
    assert job.attempts == 2
    assert token_processes(queue.jobs()[0].token) == []
    return queue


def test_an_sprt_survives_its_worker_killed_mid_match(tmp_path):
    games = 10
    assert lab(tmp_path, "add", "match", *MATCH, "--games", str(games),
               "--sprt", "elo0=0", "elo1=10").returncode == 0
    pgn = tmp_path / "lab" / "jobs" / "1" / "games.pgn"
    kill_worker_then_finish(tmp_path, lambda: len(pgn_rounds(pgn)) >= 3)
    rounds = pgn_rounds(pgn)
    assert len(rounds) == games                          # none lost
    assert sorted(set(rounds)) == sorted(rounds)         # none twice
    assert set(rounds) == {f"{p}.{g}" for p in range(1, games // 2 + 1) for g in (1, 2)}
    report = (tmp_path / "lab" / "jobs" / "1" / "report.md").read_text()
    assert f"| games | {games} of at most {games} |" in report


def test_a_tune_survives_its_worker_killed_mid_run(tmp_path):
    iterations = 24
    (tmp_path / "tune.cfg").write_text(
        "method = tune\nrun file = tune.txt\ntune = rfp_margin, lmr_base\n"
        f"generations = {iterations}\nnodes = 150\nseed = 3\nworkers = 1\noutput volume = quiet\n")
    assert lab(tmp_path, "add", "train", "tune.cfg").returncode == 0

    def records():
        path = tmp_path / "tune.txt"
        lines = path.read_text().splitlines() if path.exists() else []
        return [json.loads(line)["iteration"] for line in lines[1:] if line.endswith("}")]
    kill_worker_then_finish(tmp_path, lambda: len(records()) >= 4)
    assert records() == list(range(1, iterations + 1))
    assert "![the tuned parameters over the iterations](parameters.png)" in \
        (tmp_path / "lab" / "jobs" / "1" / "report.md").read_text()


def chunk_digests(folder: Path) -> list[tuple[str, int, str]]:
    rows = json.loads((folder / "MANIFEST.json").read_text())
    return [(r["chunk"], r["positions"], r["sha256"]) for r in rows]


def test_a_data_run_survives_its_worker_killed_mid_chunk(tmp_path):
    # Three batches of 8 games a chunk (datagen's journal line each), so the kill
    # comes inside a chunk, after a batch of it is on disk.
    recipe = ["--depth", "4", "--games-per-chunk", "24", "--chunks", "2", "--workers", "1"]
    reference = run(genchess_command("datagen", "whole", *recipe), tmp_path, timeout=600)
    assert reference.returncode == 0, reference.stderr
    assert lab(tmp_path, "add", "datagen", "killed", *recipe, "--name", "whole").returncode == 0
    folder = tmp_path / "killed"

    def inside_a_chunk():
        try:
            return any(j.stat().st_size for j in folder.glob("*.chains.journal"))
        except FileNotFoundError:           # a chunk finished as we looked
            return False
    kill_worker_then_finish(tmp_path, inside_a_chunk)
    # The same chunks, position for position, as a run that was never stopped.
    assert chunk_digests(folder) == chunk_digests(tmp_path / "whole")
    assert len(chunk_digests(folder)) == 2


def test_a_paused_job_resumes_where_it_stopped_when_queued_again(tmp_path):
    queue = Queue(tmp_path / "lab")
    job_id = queue.add("match", {"argv": MATCH + ["--games", "8"]}, str(tmp_path), timed=True, time_limit=600)
    pgn = tmp_path / "lab" / "jobs" / str(job_id) / "games.pgn"
    worker, lines = in_process_worker(tmp_path / "lab")
    original = worker.poll

    def poll():
        original()
        if len(pgn_rounds(pgn)) >= 2 and queue.job(job_id).state == "running" and not queue.job(job_id).request:
            queue.pause(job_id)
    worker.poll = poll
    worker.run()
    assert queue.job(job_id).state == "paused"
    played = len(pgn_rounds(pgn))
    assert 2 <= played < 8
    assert queue.retry(job_id) == "queued"
    worker, lines = in_process_worker(tmp_path / "lab")
    worker.run()
    rounds = pgn_rounds(pgn)
    assert queue.job(job_id).state == "done"
    assert sorted(rounds) == sorted(f"{p}.{g}" for p in range(1, 5) for g in (1, 2))   # each game once


def test_the_workers_scheduler_takes_an_untimed_jobs_games_to_the_cluster(tmp_path):
    queue = Queue(tmp_path / "lab")
    job_id = queue.add("datagen", {"argv": ["set", "--depth", "2", "--games-per-chunk", "4", "--chunks", "1"]},
                       str(tmp_path), timed=False, time_limit=600)
    worker, lines = in_process_worker(tmp_path / "lab", scheduler="local:1")
    worker.run()
    assert queue.job(job_id).state == "done"
    log = (tmp_path / "lab" / "jobs" / str(job_id) / "output.log").read_text()
    assert "Playing on a local dask cluster" in log
