"""scripts/studies/ga_matches.py and scripts/studies/ga_blunders.py: the GA search's paper numbers
(Dehghani and Babamir's Table 6 and Table 4), with a genome and a node pool of
the user's choosing."""

import os
import shutil

import chess.pgn
import pytest

from script_helpers import run_script
from train_helpers import REPO_ROOT

UNIFIED = REPO_ROOT / "genchess" / "genomes" / "unified.genome"


def test_the_level_match_prints_level_2s_elo_with_its_interval_and_pentanomial(tmp_path):
    pgn = tmp_path / "levels.pgn"
    done = run_script("studies/ga_matches.py", "levels", "--games", 2, "--movetime", 20, "--max-plies", 16,
                      "--genome", UNIFIED, "--ga-nodes", 20000, "--pgn", pgn)
    assert done.returncode == 0, done.stderr
    header, _, row = done.stdout.strip().splitlines()[-3:]
    assert "level 2 Elo (95%)" in header and "pentanomial" in header
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[2] == "2"                                    # games
    wins, draws, losses = map(int, cells[3].split("/"))
    assert wins + draws + losses == 2
    assert sum(eval(cells[6])) == 1                           # one game pair
    # The games are kept, each replayable, colours swapped within the pair.
    with open(pgn, encoding="utf-8") as handle:
        games = [chess.pgn.read_game(handle) for _ in range(2)]
        assert chess.pgn.read_game(handle) is None
    assert [g.headers["White"] for g in games] == ["GA-level-2", "GA-level-1"]
    assert all("20 ms a move" in g.headers["Event"] and not g.errors for g in games)
    outcomes = [{"1-0": "W", "0-1": "L"}.get(games[0].headers["Result"], "D"),
                {"0-1": "W", "1-0": "L"}.get(games[1].headers["Result"], "D")]
    assert (outcomes.count("W"), outcomes.count("D"), outcomes.count("L")) == (wins, draws, losses)


def test_a_bad_genome_or_pool_size_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.genome"
    bad.write_text("Kind: material\nnot a gene\n")
    done = run_script("studies/ga_matches.py", "levels", "--games", 2, "--genome", bad)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "bad.genome" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = run_script("studies/ga_matches.py", "levels", "--games", 2, "--ga-nodes", 1)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "--ga-nodes" in done.stderr
    done = run_script("studies/ga_matches.py", "levels", "--games", 2, "--pgn", tmp_path / "no" / "g.pgn")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--pgn" in done.stderr and "g.pgn" in done.stderr


def stockfish():
    return shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


@pytest.mark.skipif(stockfish() is None, reason="needs Stockfish (apt-get install stockfish)")
def test_the_blunder_check_counts_blunders_and_says_when_the_ga_pool_filled(tmp_path):
    epd = tmp_path / "two.epd"
    # A hanging queen (any search takes it) and the start position.
    epd.write_text('4k3/8/8/3q4/8/8/3R4/4K3 w - - id "queen";\n'
                   'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id "start";\n')
    done = run_script("studies/ga_blunders.py", "--epd", epd, "--movetime", 200, "--sf-depth", 6,
                      "--ga-nodes", 300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| queen | Rxd5" in out                       # Stockfish's best, the GA's and alpha-beta's
    assert "| GA | 2 |" in out and "| alpha-beta | 2 |" in out
    # A 300-node pool fills long before 200 ms in the start position.
    line = next(line for line in out.splitlines() if line.startswith("GA reservation tree"))
    assert "the pool of 300 nodes filled" in line and "in 0 of 2" not in line


def test_a_full_pool_is_reported_by_the_search():
    from genchess.engine import Engine
    from genchess.timeman import Limits
    engine = Engine(search_mode="ga")
    engine.ga_nodes = 200
    infos = []
    engine.search(Limits(movetime=2000), on_info=infos.append)
    assert infos[-1].string.endswith("pool full")
    assert infos[-1].time_ms < 1500                       # the full pool, not the clock, ended it


def test_a_stockfish_that_does_not_start_is_one_line_naming_it(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "stockfish"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    done = run_script("studies/ga_blunders.py", "--movetime", 10)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert str(fake) in done.stderr and len(done.stderr.strip().splitlines()) == 1
