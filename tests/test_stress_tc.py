"""scripts/dev/stress_tc.py: the clock stress on more threads and under fastchess, its games
kept where asked, and GenChess set up the way a tournament sets it (the protocol's option)."""

from __future__ import annotations

import argparse

import chess.pgn

from engine_helpers import tournament_manager
from script_helpers import load_script, run_script

stress = load_script("dev/stress_tc.py")


def options(**given) -> argparse.Namespace:
    values = dict(protocol="uci", search="iterative", player=None, log_dir=None, threads=1,
                  manager="cutechess-cli", option=[])
    return argparse.Namespace(**{**values, **given})


def test_the_threads_are_set_by_the_protocols_option():
    uci = stress.genchess_argv(options(threads=2), "A")
    assert "option.Threads=2" in uci and "proto=uci" in uci and "arg=uci" in uci
    xboard = stress.genchess_argv(options(threads=2, protocol="xboard"), "A")
    assert "option.cores=2" in xboard and "proto=xboard" in xboard and "arg=xboard" in xboard
    fast = stress.genchess_argv(options(threads=2, manager="fastchess"), "A")
    assert [w for w in fast if w.startswith("args=")][0].split("=", 1)[1].split()[-3:] == \
        ["uci", "--search", "iterative"]
    assert not [w for w in fast if w.startswith("arg=")]


def test_a_trial_option_reaches_every_genchess_under_either_manager():
    for manager in ("cutechess-cli", "fastchess"):
        words = stress.genchess_argv(options(manager=manager, option=["Time Scaling=true"]), "A")
        assert "option.Time Scaling=true" in words, manager


def test_two_threads_under_fastchess_keep_their_games(tmp_path):
    tournament_manager("fastchess")
    done = run_script("dev/stress_tc.py", "--manager", "fastchess", "--threads", "2", "--selfplay", "2",
                      "--stockfish", "0", "--pgn-dir", tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 games finished" in done.stdout and "time losses 0, illegal moves 0" in done.stdout
    with open(tmp_path / "selfplay-fastchess-threads2.pgn") as f:
        games = [g for g in iter(lambda: chess.pgn.read_game(f), None)]
    assert len(games) == 2 and all(g.headers["Result"] != "*" for g in games)


def test_fastchess_cannot_speak_xboard():
    done = run_script("dev/stress_tc.py", "--manager", "fastchess", "--protocol", "xboard")
    assert done.returncode == 2 and "fastchess speaks UCI only" in done.stderr
    assert "Traceback" not in done.stderr


def test_chess960_games_start_from_chess960_positions(tmp_path):
    """--variant chess960: the manager plays fischerandom from the 960 start positions, each
    with both colours, and the PGN says so."""
    tournament_manager("fastchess")
    done = run_script("dev/stress_tc.py", "--manager", "fastchess", "--variant", "chess960", "--selfplay", "2",
                      "--selfplay-tc", "2+0.05", "--stockfish", "0", "--pgn-dir", tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "time losses 0, illegal moves 0" in done.stdout
    starts = (tmp_path / "chess960.epd").read_text().splitlines()
    assert len(starts) == 960 and len(set(starts)) == 960
    with open(tmp_path / "selfplay-960-fastchess-threads1.pgn") as f:
        games = [g for g in iter(lambda: chess.pgn.read_game(f), None)]
    assert len(games) == 2 and games[0].headers["Variant"].lower() in ("chess960", "fischerandom")
    assert games[0].headers["FEN"] == games[1].headers["FEN"]
    assert games[0].board().chess960 and games[0].headers["White"] == games[1].headers["Black"]


def test_the_stockfish_games_add_up_in_whole_pairs():
    assert stress.level_shares(200, 3) == [68, 66, 66]
    assert stress.level_shares(200, 4) == [50, 50, 50, 50]
    assert stress.level_shares(2, 3) == [2, 2, 2]           # at least a pair a level
    assert sum(stress.level_shares(1000, 7)) == 1000
