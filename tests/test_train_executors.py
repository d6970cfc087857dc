"""The executor choice (genchess/parallel/executors.py) with local processes: workers die
with their trainer, a dead worker stops the run cleanly, no dask without a scheduler.

Processes are found through /proc (Linux): the trainer runs in its own session, so
every process of the run shares its session id. The cluster side is in
test_train_cluster.py.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genchess.parallel.executors import parse_scheduler
from train_helpers import (Background, check_run_files, count_game_starts, game_key,
                           genchess_command, read_pgn_games, run, train_command, wait_for,
                           write_config)

POPULATION, POOLS, SWAP = 4, 2, 4
linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="finds the run's processes through /proc (Linux)")


def session_processes(session: int) -> dict[int, str]:
    """pid -> state letter of every live (not zombie) process in `session`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, sid = fields[0], int(fields[3])
        if sid == session and state not in ("Z", "X"):
            found[int(entry.name)] = state
    return found


@linux_only
@pytest.mark.parametrize("scheduler", [None, "local:2"])
def test_kill_9_of_the_trainer_leaves_no_process_of_the_run(tmp_path, scheduler):
    """Issue 10 §4: worker processes exit within 5 s of the trainer's death."""
    if scheduler and importlib.util.find_spec("distributed") is None:
        pytest.skip('needs pip install "genchess[cluster]"')
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=41)
    args = [str(cfg)] + (["--scheduler", scheduler] if scheduler else [])
    bg = Background(train_command(*args), cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(tmp_path / "pool.txt_games.txt") >= 2, 150, "two games", bg)
        others = set(session_processes(bg.pid)) - {bg.pid}
        assert len(others) >= 2, f"expected worker processes, found {others}"
        os.kill(bg.pid, signal.SIGKILL)
        bg.proc.wait(30)
        killed = time.monotonic()
        while session_processes(bg.pid) and time.monotonic() - killed < 5:
            time.sleep(0.05)
        left = session_processes(bg.pid)
    finally:
        bg.kill_group()                 # whatever a failing run left behind
    assert not left, f"still alive 5 s after kill -9 of the trainer: {left}"


@linux_only
def test_a_dead_local_worker_stops_the_run_with_one_line_and_the_files_resume(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=42)
    games_file = tmp_path / "pool.txt_games.txt"
    bg = Background(train_command(str(cfg)), cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(games_file) >= 3, 150, "three games", bg)
        workers = sorted(set(session_processes(bg.pid)) - {bg.pid})
        os.kill(workers[0], signal.SIGKILL)
        code = bg.wait(60)
    finally:
        bg.kill_group()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert "Traceback" not in output, "\n".join(bg.stderr_lines)
    assert code == 1, (code, output[-1000:])
    stopped = [line for line in bg.stdout_lines if line.startswith("Stopped:")]
    assert len(stopped) == 1 and "a local worker process died unexpectedly" in stopped[0], output
    assert stopped[0].endswith("run the same command to resume.")
    before = read_pgn_games(games_file)
    write_config(cfg, time_limit="3 seconds", seed=42)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    games, _, _ = check_run_files(tmp_path / "pool.txt", POPULATION, POOLS, SWAP, fresh=False)
    assert [game_key(g) for g in games[:len(before)]] == [game_key(g) for g in before]
    assert len({game_key(g) for g in games}) == len(games) > len(before)


def test_without_a_scheduler_dask_is_never_imported(tmp_path):
    argv, env = genchess_command()
    # From tmp_path: the repository root would put the uncompiled source tree first.
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import genchess.train.cli"],
                          env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = [line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line]
    assert "genchess.train.cli" in imported
    assert not [m for m in imported if m.split(".")[0] in ("dask", "distributed")]
    # Nor during a whole (short) run on local processes.
    cfg = write_config(tmp_path / "run.cfg", time_limit="1 seconds", seed=43)
    script = ("import sys\nfrom genchess.train.cli import main\ncode = main([sys.argv[1]])\n"
              "assert code == 0, code\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n")
    proc = subprocess.run([sys.executable, "-c", script, str(cfg)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines()[-1] == "[]"


def _nap(seconds):
    time.sleep(seconds)


def test_stop_now_returns_after_the_pools_manager_thread_has_ended():
    # CPython's exit hook for process pools writes to each pool's wakeup pipe after
    # checking it is open; a manager thread still running can close it in between,
    # and the exit prints an OSError traceback after "Stopped." (CI: a paused trainer
    # stopped with Ctrl-C, about one exit in thirty). stop_now ends that thread first;
    # without its join the thread is still alive here every time.
    import concurrent.futures.process as cf_process
    from genchess.parallel.executors import local_process_pool, stop_now
    pool = local_process_pool(2)
    futures = [pool.submit(_nap, 5) for _ in range(4)]
    wait_for(lambda: any(f.running() for f in futures), 30, "a game to start")
    manager = pool._executor_manager_thread
    stop_now(pool)
    assert not manager.is_alive()
    wakeups = [w for t, w in list(cf_process._threads_wakeups.items()) if t is manager]
    assert all(w._closed for w in wakeups)


def _size(blob):
    return len(blob)


@pytest.mark.parametrize("how", ["stop_now", "worker killed"])
def test_a_pools_end_does_not_wait_for_a_job_stuck_in_its_pipe(how):
    # Pool A's feeder thread is blocked writing a job larger than the pipe's buffer
    # (its one worker is busy); pool B's worker, forked meanwhile, holds A's pipe
    # open, so killing A's worker does not fail that write. Before local_process_pool
    # cancelled the wait for the feeder, A's manager thread joined it forever:
    # stop_now gave up after STOP_JOIN_SECONDS with the thread alive, a broken pool
    # never ended, and the exit hung on either.
    from genchess.parallel.executors import local_process_pool, stop_now
    a = local_process_pool(1)
    busy = a.submit(_nap, 30)
    a.submit(_size, b"x" * 300_000)
    wait_for(busy.running, 30, "the first job to start")
    wait_for(lambda: not a._call_queue._buffer, 30,
             "the big job to leave the queue's buffer for the pipe")
    b = local_process_pool(1)
    try:
        assert b.submit(_size, b"y").result(timeout=60) == 1
        manager = a._executor_manager_thread
        if how == "stop_now":
            stop_now(a)
            assert not manager.is_alive()
        else:
            for process in list(a._processes.values()):
                process.kill()
            wait_for(lambda: not manager.is_alive(), 20, "the broken pool's manager thread to end")
    finally:
        b.shutdown(wait=True)


@pytest.mark.parametrize("text", ["local", "local:3", "localhost:8786", "tcp://10.0.0.5:8786",
                                  "tls://scheduler.lab:8786", "10.0.0.5:8786"])
def test_scheduler_addresses_accepted(text):
    assert parse_scheduler(f" {text} ") == text


@pytest.mark.parametrize("text", ["", "local:0", "local:x", "tcp://a b:8786", "tcp://host:port",
                                  "tcp://host:8786/path"])
def test_scheduler_addresses_refused(text):
    with pytest.raises(ValueError, match="expected tcp://HOST:PORT|local:N needs"):
        parse_scheduler(text)
