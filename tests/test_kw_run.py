"""Real Kendall-Whitwell runs through `genchess-train`: the files a tiny run
writes (population 6, depth 2), the engine playing its average player, kill -9
twice and resume ending exactly where an uninterrupted run ends, and bad
configurations stopping with file:line.
"""

from __future__ import annotations

import signal
import subprocess

import chess
import numpy as np
import pytest

from genchess.genome import MaterialGenome, load_genome, read_genome_file
from genchess.train.config import ConfigError
from genchess.train.registry import parse_config
from train_helpers import (Background, config_text, count_game_starts, genchess_command, read_pgn_games,
                           run, still_alive_snapshots, train_command, wait_for)

MU, GENERATIONS = 6, 8
GAMES_PER_GENERATION = 2 * (MU - 1)


KW_CONFIG = {"method": "kendall-whitwell", "run file": "kw.txt", "population": str(MU),
             "generations": str(GENERATIONS), "depth": "2", "seed": "4",
             "workers": "2"}


def write_kw_config(path, **changes):
    path.write_text(config_text(KW_CONFIG, **changes), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One uninterrupted run."""
    d = tmp_path_factory.mktemp("kw_reference")
    cfg = write_kw_config(d / "kw.cfg")
    proc = run(train_command(str(cfg)), cwd=d, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    return d, proc


def game_keys(path):
    return sorted((g.headers["Generation"], g.headers["Match"], g.headers["Game"], g.headers["WhiteID"],
                   g.headers["BlackID"], g.headers["Result"], str(g.mainline_moves()))
                  for g in read_pgn_games(path))


def test_tiny_run_files(reference):
    d, proc = reference
    assert "Traceback" not in proc.stdout + proc.stderr
    genomes = read_genome_file(d / "kw.txt").genomes
    ids = [g.id for g in genomes]
    assert len(ids) == len(set(ids)) and all(isinstance(g, MaterialGenome) for g in genomes)
    snapshots = [s[0] for s in still_alive_snapshots((d / "kw.txt").read_text(), 1)]
    assert len(snapshots) == GENERATIONS + 1 and all(len(s) == MU for s in snapshots)
    games = read_pgn_games(d / "kw.txt_games.txt")
    assert len(games) == GENERATIONS * GAMES_PER_GENERATION
    by_id = {g.id: g for g in genomes}
    for game in games:
        h = game.headers
        assert h["Event"] == "GenChess Kendall-Whitwell" and h["Depth"] == "2"
        assert 1 <= int(h["Match"]) <= MU - 1 and h["Game"] in ("1", "2")
        assert int(h["WhiteID"]) in by_id and int(h["BlackID"]) in by_id
        board = game.end().board()
        assert h["Result"] == board.result(claim_draw=True) or h["Termination"] != "normal", h
    # The average players: one per generation, the last the mean of the last population.
    averages = read_genome_file(d / "kw.txt_average.genome").genomes
    assert [a.id for a in averages] == list(range(GENERATIONS + 1))
    final = np.array([by_id[i].weights for i in snapshots[-1]])
    assert averages[-1].weights == pytest.approx(final.mean(axis=0))
    assert load_genome(d / "kw.txt_average.genome").id == GENERATIONS
    # The console: per generation the outcome counts and the mean and sd rows (pawn = 100).
    out = proc.stdout
    for g in range(1, GENERATIONS + 1):
        assert f"Generation {g}/{GENERATIONS}: two wins " in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("mean", "sd"))]
    assert len(rows) == 2 * GENERATIONS and all(row[1] == "100.0" for row in rows[::2])
    assert f"Stopped: {GENERATIONS} generations done." in out


def test_engine_plays_the_average_player(reference):
    d, _ = reference
    argv, env = genchess_command("uci")
    proc = subprocess.run(argv, input="uci\nsetoption name Genome value kw.txt_average.genome\n"
                                      "isready\nposition startpos\ngo depth 3\nisready\nquit\n",
                          capture_output=True, text=True, env=env, cwd=d, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert f"info string genome {GENERATIONS} loaded from kw.txt_average.genome" in out, proc.stdout
    best = [line for line in out if line.startswith("bestmove ")]
    assert best and chess.Move.from_uci(best[0].split()[1]) in chess.Board().legal_moves


def test_kill_9_twice_then_resume_ends_as_the_uninterrupted_run(reference, tmp_path):
    ref, _ = reference
    cfg = write_kw_config(tmp_path / "kw.cfg", depth=2)
    games_file = tmp_path / "kw.txt_games.txt"
    outputs = []
    target = 13                          # inside generation 2
    for kill in range(2):
        bg = Background(train_command(str(cfg)), cwd=tmp_path, unbuffered=True)
        try:
            wait_for(lambda: count_game_starts(games_file) >= target, 120,
                     f"{target} games before kill {kill + 1}", bg)
        finally:
            bg.kill_group()
        assert bg.proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
        bg.wait(10)
        outputs.append("\n".join(bg.stdout_lines))
        target = count_game_starts(games_file) + 17
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "Resuming kw.txt: " in outputs[1] and "Resuming kw.txt: " in proc.stdout
    # Nothing lost, nothing played twice, and the same evolution as without kills.
    assert game_keys(games_file) == game_keys(ref / "kw.txt_games.txt")
    assert (tmp_path / "kw.txt").read_text() == (ref / "kw.txt").read_text()
    assert (tmp_path / "kw.txt_average.genome").read_text() == (ref / "kw.txt_average.genome").read_text()
    # Run again: finished, nothing added.
    again = run(train_command(str(cfg)), cwd=tmp_path, timeout=120)
    assert again.returncode == 0 and f"{GENERATIONS} generations done" in again.stdout
    assert (tmp_path / "kw.txt").read_text() == (ref / "kw.txt").read_text()


def test_torn_tails_are_set_aside_on_resume(reference, tmp_path):
    ref, _ = reference
    pop = (ref / "kw.txt").read_text()
    games = (ref / "kw.txt_games.txt").read_text()
    # Cut both files inside generation 3: mid-genome and mid-game.
    snapshot_3 = [i for i, line in enumerate(pop.splitlines(keepends=True)) if line.startswith("Still")][2]
    lines = pop.splitlines(keepends=True)
    (tmp_path / "kw.txt").write_text("".join(lines[:snapshot_3 + 1 + 14]))
    cut = games.index('[Generation "3"]')
    cut = games.index("[Event", games.index("[Event", cut) + 1)
    (tmp_path / "kw.txt_games.txt").write_text(games[:cut + 200])
    cfg = write_kw_config(tmp_path / "kw.cfg")
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "kw.txt:" in proc.stdout and "incomplete" in proc.stdout
    assert (tmp_path / "kw.txt.torn").exists() and (tmp_path / "kw.txt_games.txt.torn").exists()
    assert (tmp_path / "kw.txt").read_text() == pop
    assert game_keys(tmp_path / "kw.txt_games.txt") == game_keys(ref / "kw.txt_games.txt")


@pytest.mark.parametrize("change, line, problem", [
    ({"colour": "blue"}, 8, "unknown key 'colour' for method 'kendall-whitwell'"),
    ({"population": -3}, 3, "population: must be at least 2"),
    ({"depth": 0}, 5, "depth: must be at least 1"),
    ({"depth": 9}, 5, "depth: at most 8"),
    ({"scaling_factor": "large"}, 8, "scaling factor: expected a number, not 'large'"),
    ({"search": "budget"}, 8, "kendall-whitwell players search a fixed depth"),
    ({"generations": "2.5"}, 4, "generations: expected a whole number"),
    ({"run_file": None}, None, "missing key: run file"),
])
def test_bad_configuration_names_the_line(tmp_path, change, line, problem):
    cfg = write_kw_config(tmp_path / "bad.cfg", **change)
    if line is None and "run_file" in change:
        # The key's removal shifts lines; the message names the file only.
        where = f"{cfg}: "
    else:
        where = f"{cfg}:{line}: "
    with pytest.raises(ConfigError) as error:
        parse_config(cfg)
    assert str(error.value).startswith(where) and problem in str(error.value), str(error.value)


def test_bad_configuration_from_the_command_line(tmp_path):
    cfg = write_kw_config(tmp_path / "bad.cfg", depth=0)
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"genchess-train: {cfg}:5: depth: must be at least 1, not 0"]
    assert not (tmp_path / "kw.txt").exists()
