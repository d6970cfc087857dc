"""Real gene-pool runs: the files a short run writes, the engine loading its result,
kill -9 and resume, torn tails, pause/continue (Ctrl-Z), stop (Ctrl-C), executors.

Games are 0.2-0.4 s a side on 2 pools of 4, so every run here is a few seconds to
a quarter of a minute; waits are generous because other processes may share the
machine. Nothing asserts on how fast anything is.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from random import Random

import chess
import pytest

from genchess.genome import Genome, open_genome, read_genome_file
from genchess.train.registry import parse_config
from genchess.train.pool import game_time
from genchess.train.gene_pool import GenePoolTrainer
from train_helpers import (PACKAGE_DATA, REPO_ROOT, Background, check_run_files,
                           complete_games_prefix, complete_pool_prefix, copy_run,
                           count_game_starts, game_key,
                           genchess_command, read_pgn_games, read_pgn_text, run, short_run,
                           still_alive_snapshots, train_command, wait_for, write_config)

POPULATION, POOLS, SWAP = 4, 2, 4


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    run_dir, proc = short_run(tmp_path_factory)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    return run_dir, proc


@pytest.fixture
def keep_sigtstp():
    """An in-process Trainer installs a SIGTSTP handler; put pytest's back afterwards."""
    old = signal.getsignal(signal.SIGTSTP)
    yield
    signal.signal(signal.SIGTSTP, old)


def latest_alive(pool_file: Path) -> dict[int, list[int]]:
    return still_alive_snapshots(pool_file.read_text(), POOLS)[-1]


# ------------------------------------------------------------------ a short real run

def test_short_run_reports_and_writes_only_its_two_files(short):
    run_dir, proc = short
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == "New gene pool: 2 pools of 4 random genomes in pool.txt (seed 5)"
    assert any(line.startswith("Time limit reached after ") for line in lines)
    assert re.search(r"^\d+ games in \d+ s \([\d.]+ games per minute\); workers spent \d+% of "
                     r"their time searching$", proc.stdout, re.M)
    # The relative run file is relative to the current directory, not the config's.
    assert sorted(p.name for p in run_dir.iterdir()) == ["pool.txt", "pool.txt_games.txt"]
    assert sorted(p.name for p in (run_dir.parent / "config").iterdir()) == ["short.cfg"]


def test_short_run_files_are_valid_and_follow_the_rules(short):
    run_dir, _ = short
    games, snapshots, ids = check_run_files(run_dir / "pool.txt", POPULATION, POOLS, SWAP, fresh=True)
    assert len(games) >= 8, "fewer than two rounds in 15 seconds"
    rounds = [int(g.headers["Round"]) for g in games]
    last = max(rounds)
    assert sorted(set(rounds)) == list(range(1, last + 1))
    for r in range(1, last):                    # every round but the last is complete
        assert rounds.count(r) == POOLS * POPULATION // 2, r
    assert len(snapshots) == last + 1           # the start, then one snapshot per round
    # Every genome ever made: the first pools, then one offspring per game.
    assert len(ids) == POOLS * POPULATION + len(games)
    assert snapshots[0] == {0: [0, 1, 2, 3], 1: [4, 5, 6, 7]}
    # With a swap interval of one round's games, some genome must have changed pools.
    moved = [i for s in snapshots[1:] for p, members in s.items() for i in members
             if i < POOLS * POPULATION and i // POPULATION != p]
    offspring_pool = {int(g.headers["Offspring"]): int(g.headers["Pool"]) for g in games}
    moved += [i for s in snapshots[1:] for p, members in s.items() for i in members
              if i in offspring_pool and offspring_pool[i] != p]
    assert moved, "no pool swap ever happened"


def test_short_run_time_control_follows_the_schedule(short):
    run_dir, _ = short
    for game in read_pgn_games(run_dir / "pool.txt_games.txt"):
        r = int(game.headers["Round"])
        assert game.headers["TimeControl"] == f"{game_time(r - 1, 0.2, 0.4, 0.1, True):g}", r


def test_short_run_console_lines_match_the_games(short):
    run_dir, proc = short
    games = read_pgn_games(run_dir / "pool.txt_games.txt")
    words = {"1-0": "White", "0-1": "Black", "1/2-1/2": "Draw"}
    for game in games:
        h = game.headers
        assert (f"  pool {h['Pool']}: {h['WhiteID']} vs {h['BlackID']}: {words[h['Result']]} "
                f"({h['Reason']})") in proc.stdout
        assert (f"  Mating {h['WhiteID']} x {h['BlackID']} -> {h['Offspring']} replaces "
                f"{h['Replaced']}") in proc.stdout
    assert proc.stdout.count("Gene pool ID: 0 ") == max(int(g.headers["Round"]) for g in games)


def test_engine_loads_the_smallest_living_id(short):
    run_dir, _ = short
    pool_file = run_dir / "pool.txt"
    alive = latest_alive(pool_file)
    smallest = min(min(ids) for ids in alive.values())
    genome = open_genome(pool_file)
    assert genome.id == smallest
    assert genome == read_genome_file(pool_file).find(smallest)
    argv, env = genchess_command("--genome", str(pool_file))
    proc = subprocess.run(argv, input=f"uci\nsetoption name Genome value {pool_file}\nisready\n"
                                      f"position startpos\ngo depth 2\nisready\nquit\n",
                          capture_output=True, text=True, env=env, cwd=run_dir, timeout=120)
    out = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert "uciok" in out and out.count("readyok") == 2, proc.stdout
    assert f"info string genome {smallest} loaded from {pool_file}" in out
    best = [line for line in out if line.startswith("bestmove ")]
    assert best and chess.Move.from_uci(best[0].split()[1]) in chess.Board().legal_moves


def test_three_pools_with_a_swap_interval_across_rounds(tmp_path):
    """3 pools of 4 play 6 games a round; swaps come when a multiple of 5 games is
    crossed, so some rounds swap and some do not, and the best goes round the ring."""
    cfg = write_config(tmp_path / "run.cfg", gene_pool_count=3, pool_swap_interval=5,
                       minimum_game_time=0.1, maximum_game_time=0.2, workers=3,
                       time_limit="8 seconds", seed=17)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    games, snapshots, ids = check_run_files(tmp_path / "pool.txt", 4, 3, 5, fresh=True)
    assert len(snapshots) >= 4, "fewer than three rounds"
    swaps = [line for line in proc.stdout.splitlines() if line.startswith("Pool swap: ")]
    assert any("from pool 2" in line or "in pool 2) copied into pool 0" in line for line in swaps), swaps


# ------------------------------------------------------------------ kill -9 and resume

def test_kill_9_twice_then_resume(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="90 seconds", seed=3)
    pool_file, games_file = tmp_path / "pool.txt", tmp_path / "pool.txt_games.txt"
    prefixes = []                       # (pool prefix, games prefix) after each kill
    outputs = []
    target = 5
    for kill in range(2):
        bg = Background(train_command(str(cfg)), cwd=tmp_path, unbuffered=True)
        try:
            wait_for(lambda: count_game_starts(games_file) >= target, 150,
                     f"{target} games before kill {kill + 1}", bg)
        finally:
            bg.kill_group()
        assert bg.proc.returncode == -signal.SIGKILL
        bg.wait(10)
        outputs.append("\n".join(bg.stdout_lines))
        pool_text, games_text = pool_file.read_text(), games_file.read_text()
        prefixes.append((complete_pool_prefix(pool_text), complete_games_prefix(games_text),
                         pool_text, games_text))
        target = count_game_starts(games_file) + 5
    write_config(cfg, time_limit="6 seconds", seed=3)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    outputs.append(proc.stdout)

    final_pool, final_games = pool_file.read_text(), games_file.read_text()
    games, snapshots, ids = check_run_files(pool_file, POPULATION, POOLS, SWAP, fresh=False)
    keys = [game_key(g) for g in games]
    assert len(keys) == len(set(keys)), "a game is in the games file twice"
    for k, (pool_prefix, games_prefix, pool_text, games_text) in enumerate(prefixes):
        # Append-only: everything complete at the kill is still there, unchanged.
        assert final_pool.startswith(pool_prefix), f"pool file rewritten after kill {k + 1}"
        assert final_games.startswith(games_prefix), f"games file rewritten after kill {k + 1}"
        before = [game_key(g) for g in read_pgn_text(games_prefix)]
        assert before and before == keys[:len(before)]
        resumed = outputs[k + 1]
        assert "Resuming pool.txt: round " in resumed and f", {len(before)} games, " in resumed, resumed
        # The run goes on, and its rounds continue from the last round before the kill.
        assert len(keys) > len(before)
        assert int(keys[len(before)][0]) == int(before[-1][0]) + 1
        for name, text, prefix in (("pool.txt", pool_text, pool_prefix),
                                   ("pool.txt_games.txt", games_text, games_prefix)):
            torn = text[len(prefix):]
            if torn.strip():
                assert f"{name}:" in resumed and "incomplete" in resumed, resumed
                assert torn.strip() in (tmp_path / f"{name}.torn").read_text()
    assert len(snapshots[-1]) == POOLS
    assert all(len(ids_) == POPULATION for ids_ in snapshots[-1].values())


@pytest.mark.slow
def test_many_kills_at_random_moments_lose_nothing(tmp_path):
    """Eight kill -9s at seeded random moments (some land while a record is written),
    then a clean resume: every game finished before a kill is still there, once."""
    rng = Random(1234)
    cfg = write_config(tmp_path / "run.cfg", gene_pool_count=3, pool_swap_interval=5,
                       minimum_game_time=0.05, maximum_game_time=0.3, game_time_added_per_round=0.05,
                       time_limit="120 seconds", seed=6)
    pool_file, games_file = tmp_path / "pool.txt", tmp_path / "pool.txt_games.txt"
    prefixes = []
    for kill in range(8):
        bg = Background(train_command(str(cfg)), cwd=tmp_path, unbuffered=True)
        try:
            if kill == 0:
                wait_for(lambda: count_game_starts(games_file) >= 1, 150, "a first game", bg)
            else:
                wait_for(lambda: any(line.startswith("Resuming") for line in bg.stdout_lines), 150,
                         "the resume", bg)
            time.sleep(rng.uniform(0.0, 2.5))
        finally:
            bg.kill_group()
        assert "Traceback" not in "\n".join(bg.stdout_lines + bg.stderr_lines), bg.output()
        prefixes.append((complete_pool_prefix(pool_file.read_text()),
                         complete_games_prefix(games_file.read_text())))
    write_config(cfg, gene_pool_count=3, pool_swap_interval=5, minimum_game_time=0.05,
                 maximum_game_time=0.3, game_time_added_per_round=0.05, time_limit="5 seconds", seed=6)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    final_pool, final_games = pool_file.read_text(), games_file.read_text()
    for pool_prefix, games_prefix in prefixes:
        assert final_pool.startswith(pool_prefix) and final_games.startswith(games_prefix)
    games, snapshots, ids = check_run_files(pool_file, 4, 3, 5, fresh=False)
    keys = [game_key(g) for g in games]
    assert len(keys) == len(set(keys))
    assert len(read_pgn_text(prefixes[-1][1])) < len(games)


TORN = {
    "half genome and half game": (
        lambda next_id: Genome.random(Random(1), next_id).to_text()[:700],
        '[Event "GenChess gene pool"]\n[Site "pool.txt"]\n[Date "2026.01.01"]\n[Round "999"]\n'
        '[White "GenChess 1"]\n[Black "GenChess 2"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5'),
    "half Still Alive line and half headers": (
        lambda next_id: "Still Alive: 0 : 1 2",
        '[Event "GenChess gene pool"]\n[Site "pool.'),
}


@pytest.mark.parametrize("case", list(TORN))
def test_torn_tails_are_reported_set_aside_and_the_run_goes_on(short, tmp_path, case):
    pool_file = copy_run(short[0], tmp_path)
    games_file = tmp_path / "pool.txt_games.txt"
    good_pool, good_games = pool_file.read_text(), games_file.read_text()
    old_ids = [g.id for g in read_genome_file(pool_file).genomes]
    old_games = read_pgn_games(games_file)
    make_pool_tail, games_tail = TORN[case]
    pool_tail = make_pool_tail(max(old_ids) + 1)
    with open(pool_file, "a") as f:
        f.write(pool_tail)
    with open(games_file, "a") as f:
        f.write(games_tail)
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds", seed=5)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    warnings = [line for line in proc.stdout.splitlines() if "incomplete" in line]
    assert len(warnings) == 2, proc.stdout[:2000]
    assert any(w.startswith("warning: pool.txt:") for w in warnings)
    assert any(w.startswith("warning: pool.txt_games.txt:") for w in warnings)
    # Moved aside, nothing thrown away.
    assert (tmp_path / "pool.txt.torn").read_text().strip() == pool_tail.strip()
    assert (tmp_path / "pool.txt_games.txt.torn").read_text().strip() == games_tail.strip()
    new_pool, new_games = pool_file.read_text(), games_file.read_text()
    assert new_pool.startswith(good_pool)
    assert new_games.startswith(complete_games_prefix(good_games))
    games, snapshots, ids = check_run_files(pool_file, POPULATION, POOLS, SWAP, fresh=False)
    assert ids[:len(old_ids)] == old_ids and ids[len(old_ids)] == max(old_ids) + 1
    assert len(games) > len(old_games)
    assert int(games[len(old_games)].headers["Round"]) == int(old_games[-1].headers["Round"]) + 1


def test_resume_with_a_different_population_exits_2_and_leaves_the_files(short, tmp_path):
    pool_file = copy_run(short[0], tmp_path)
    before = pool_file.read_bytes(), (tmp_path / "pool.txt_games.txt").read_bytes()
    cfg = write_config(tmp_path / "run.cfg", gene_pool_population=6, time_limit="3 seconds")
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and "gene pool population = 6" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (pool_file.read_bytes(), (tmp_path / "pool.txt_games.txt").read_bytes()) == before


@pytest.mark.parametrize("count", [1, 3])
def test_resume_with_a_different_pool_count_exits_2_and_leaves_the_files(short, tmp_path, count):
    """A 2-pool file resumed as 1 pool must not silently drop pool 1 (nor, as 3, invent one)."""
    pool_file = copy_run(short[0], tmp_path)
    before = pool_file.read_bytes(), (tmp_path / "pool.txt_games.txt").read_bytes()
    cfg = write_config(tmp_path / "run.cfg", gene_pool_count=count, time_limit="3 seconds")
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, f"resumed a 2-pool file as {count} pools:\n{proc.stdout[:600]}"
    assert len(proc.stderr.splitlines()) == 1 and "gene pool count" in proc.stderr
    assert (pool_file.read_bytes(), (tmp_path / "pool.txt_games.txt").read_bytes()) == before


def test_run_killed_before_its_first_snapshot_can_be_resumed(tmp_path, keep_sigtstp, monkeypatch):
    """A kill while the first genomes are written leaves genomes but no Still Alive line."""
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds")
    trainer = GenePoolTrainer(parse_config(cfg), out=lambda line: None)
    trainer.load_or_create()
    trainer.pool_out.close()
    trainer.games_out.close()
    pool_file = tmp_path / "pool.txt"
    text = pool_file.read_text()
    pool_file.write_text(text[:text.index("Still Alive:")])
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    games, snapshots, ids = check_run_files(pool_file, POPULATION, POOLS, SWAP, fresh=False)
    assert games


# ------------------------------------------------------------------ pause, continue, stop

def test_ctrl_z_pauses_after_the_games_in_progress_and_fg_continues(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=8)
    games_file = tmp_path / "pool.txt_games.txt"
    bg = Background(train_command(str(cfg)), cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(games_file) >= 3, 150, "3 games", bg)
        os.kill(bg.pid, signal.SIGTSTP)
        wait_for(lambda: bg.state() == "T", 60, "the trainer to stop itself", bg, interval=0.01)
        # Flushed before stopping: the line arrives although the process is stopped.
        wait_for(lambda: any(line.startswith("Paused") for line in bg.stdout_lines), 10,
                 "'Paused' printed before stopping")
        assert any(line.startswith("Pausing after the games in progress") for line in bg.stdout_lines)
        assert bg.state() == "T"
        size = games_file.stat().st_size
        text = games_file.read_text()
        # Every finished game is on disk and complete while paused.
        assert text.endswith("\n\n") and text.rstrip().endswith(("1-0", "0-1", "1/2-1/2"))
        paused_games = count_game_starts(games_file)
        time.sleep(2.0)
        assert games_file.stat().st_size == size, "games were written while paused"
        assert bg.state() == "T"
        os.kill(bg.pid, signal.SIGCONT)
        wait_for(lambda: count_game_starts(games_file) >= paused_games + 3, 150,
                 "more games after SIGCONT", bg)
        assert bg.state() in ("R", "S", "D")
    finally:
        bg.kill_group()
    assert "Traceback" not in "\n".join(bg.stdout_lines + bg.stderr_lines)


def test_ctrl_c_stops_at_once_with_130_and_keeps_the_finished_games(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=9)
    pool_file, games_file = tmp_path / "pool.txt", tmp_path / "pool.txt_games.txt"
    bg = Background(train_command(str(cfg)), cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(games_file) >= 5, 150, "5 games", bg)
        os.kill(bg.pid, signal.SIGINT)
        code = bg.wait(60)
    finally:
        bg.kill_group()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert "Traceback" not in output, output[-3000:]
    assert code == 130, output[-3000:]
    stopped = [line for line in bg.stdout_lines if line.startswith("Stopped.")]
    assert stopped and "run the same command to resume" in stopped[0]
    n = len(read_pgn_games(games_file))
    assert f"Stopped. {n} games are safely in pool.txt_games.txt" in stopped[0]
    read_genome_file(pool_file)


def test_paused_run_can_be_stopped_with_ctrl_c(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=10)
    games_file = tmp_path / "pool.txt_games.txt"
    bg = Background(train_command(str(cfg)), cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(games_file) >= 3, 150, "3 games", bg)
        os.kill(bg.pid, signal.SIGTSTP)
        wait_for(lambda: bg.state() == "T", 60, "the trainer to stop itself", bg, interval=0.01)
        os.kill(bg.pid, signal.SIGINT)         # pending until the process runs again
        os.kill(bg.pid, signal.SIGCONT)
        code = bg.wait(60)
    finally:
        bg.kill_group()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert code == 130 and "Traceback" not in output, output[-3000:]
    assert any(line.startswith("Stopped.") for line in bg.stdout_lines)


# ------------------------------------------------------------------ executors and options

def test_in_process_run_with_quiet_output_openings_and_budget_search(tmp_path, keep_sigtstp,
                                                                     monkeypatch):
    fens = [line.split(";")[0].split() for line in (PACKAGE_DATA / "openings.epd").read_text().splitlines()]
    fens = [" ".join(f[:4]) for f in fens if len(f) >= 4][:3]
    assert fens, "no openings in genchess/data/openings.epd"
    (tmp_path / "book.epd").write_text("# three openings\n" + "\n".join(fens) + "\n")
    cfg = write_config(tmp_path / "run.cfg", time_limit="4 seconds", seed=21)
    with open(cfg, "a") as f:
        f.write("opening file = book.epd\noutput volume = quiet\nsearch = budget\n")
    monkeypatch.chdir(tmp_path)
    lines: list[str] = []
    used = []

    def executor_factory(workers):
        used.append(workers)
        from genchess.parallel.worker import init_worker
        return cf.ProcessPoolExecutor(workers, initializer=init_worker)

    trainer = GenePoolTrainer(parse_config(cfg), out=lines.append, executor_factory=executor_factory)
    assert trainer.run() == 0
    assert used == [2]
    assert lines[0].startswith("New gene pool: 2 pools of 4")
    assert not [line for line in lines if line.startswith("  ")], "quiet output lists games"
    assert any(line.startswith("Gene pool ID: 0 ") for line in lines)
    assert any(line.startswith("Gene pool ID: 1 ") for line in lines)
    games, _, _ = check_run_files(tmp_path / "pool.txt", POPULATION, POOLS, SWAP)
    assert games
    starts = {chess.Board(fen + " 0 1").fen() for fen in fens}
    for game in games:
        assert game.headers.get("SetUp") == "1" and game.headers["FEN"] in starts


def test_same_seed_gives_the_same_first_pools(tmp_path, keep_sigtstp, monkeypatch):
    def first_pools(directory: Path, **changes) -> tuple[str, list[str]]:
        directory.mkdir()
        monkeypatch.chdir(directory)
        lines = []
        trainer = GenePoolTrainer(parse_config(write_config(directory / "run.cfg", **changes)), out=lines.append)
        trainer.load_or_create()
        trainer.pool_out.close()
        trainer.games_out.close()
        return (directory / "pool.txt").read_text(), lines

    a, _ = first_pools(tmp_path / "a", seed=123)
    b, _ = first_pools(tmp_path / "b", seed=123)
    c, _ = first_pools(tmp_path / "c", seed=124)
    d, lines = first_pools(tmp_path / "d", seed=None)
    assert a == b and a != c
    assert len(read_genome_file(tmp_path / "a" / "pool.txt").genomes) == POOLS * POPULATION
    # Without a seed one is drawn and printed, and it reproduces the pools.
    seed = int(re.search(r"\(seed (\d+)\)", lines[0]).group(1))
    e, _ = first_pools(tmp_path / "e", seed=seed)
    assert d == e


def test_thread_pool_executor_with_two_workers(tmp_path):
    """worker.py promises any concurrent.futures executor (e.g. dask's, whose workers
    run tasks in threads); two games at once in one process must not share engines."""
    cfg = write_config(tmp_path / "run.cfg", time_limit="5 seconds", seed=4)
    script = ("import concurrent.futures as cf, sys\n"
              "from genchess.train.registry import parse_config\n"
              "from genchess.train.gene_pool import GenePoolTrainer\n"
              "t = GenePoolTrainer(parse_config(sys.argv[1]), out=lambda line: None,\n"
              "            executor_factory=lambda n: cf.ThreadPoolExecutor(n))\n"
              "sys.exit(t.run())\n")
    argv, env = genchess_command()
    env["PYTHONFAULTHANDLER"] = "1"
    proc = subprocess.run([sys.executable, "-c", script, str(cfg)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-3000:]}"
    games, _, _ = check_run_files(tmp_path / "pool.txt", POPULATION, POOLS, SWAP)
    assert len(games) >= 4


def test_initial_genomes_seed_mutated_copies_and_the_pools_keep_the_piece_step(tmp_path, monkeypatch):
    """`initial genomes` starts every player as a copy of the file's genome with about two
    genes mutated (the first line says so), and `piece value mutation` reaches the pools."""
    source = REPO_ROOT / "genchess" / "genomes" / "default.genome"
    cfg = write_config(tmp_path / "run.cfg", seed=3)
    with open(cfg, "a") as f:
        f.write(f"initial genomes = {source}\npiece value mutation = 0.25\n")
    monkeypatch.chdir(tmp_path)
    lines: list[str] = []
    trainer = GenePoolTrainer(parse_config(cfg), out=lines.append)
    trainer.load_or_create()
    trainer.close()
    assert lines[0] == f"New gene pool: 2 pools of 4 mutated copies of {source} in pool.txt (seed 3)"
    assert trainer.pools.piece_step == 0.25
    original = read_genome_file(source).genomes[-1]
    changed = [sum(mine != theirs for mine, theirs in zip(genome.genes, original.genes))
               for genome in trainer.pools.genomes.values()]
    assert len(changed) == 8 and all(n <= 6 for n in changed) and sum(changed) >= 4
