"""xboard / CECP 2: GenChess driven as xboard, Cute Chess and python-chess drive it.

Games go through python-chess's xboard client (which sends `level`, `time`,
`otim`, `usermove`, `ping` as a GUI does) with a clock kept here. Fairy-Max is
the peer; it declares `setboard=0`, which python-chess refuses, so it runs behind
a wrapper that rewrites that feature and plays only from the standard position.
The raw tests check each reply the specification asks for, line by line.
"""

from __future__ import annotations

import os
import re
import signal
import time

import chess
import chess.engine
import pytest

from engine_helpers import (Player, RawEngine, fairymax_command, opening_fens,
                            run_match, xboard_session)

THINKING = re.compile(r"^\d+ -?\d+ \d+ \d+( \S+)*$")     # ply score time nodes pv
WHITE_MATES_IN_1 = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"    # a1a8#
BLACK_MATES_IN_1 = "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1"    # a8a1#
ONLY_MOVE_STALEMATES = "7k/8/6Q1/8/8/1p6/Kq6/8 w - - 0 1"  # a2b2 is forced and stalemates


def moves_of(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("move ")]


def ping(engine: RawEngine, token: int, timeout: float = 10.0) -> list[str]:
    """Send `ping token`; the lines that came before its pong."""
    seen: list[str] = []
    engine.send(f"ping {token}")
    engine.expect(f"pong {token}", timeout=timeout, seen=seen)
    return seen


# ------------------------------------------------------------------ games

def test_self_play_games(launcher):
    """Two games GenChess v GenChess at 1 s + 0.1 s from two openings (via setboard), of at
    most 140 plies: by then the clock lives on its increment."""
    a = launcher.genchess("xboard", name="GenChess-A")
    b = launcher.genchess("xboard", name="GenChess-B")
    records = run_match(Player("GenChess-A", a, True), Player("GenChess-B", b, True),
                        opening_fens(2, seed=31), base=1.0, inc=0.1,
                        max_plies=140)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def test_games_against_fairymax(launcher, tmp_path):
    """Two games against Fairy-Max at 1 s + 0.1 s, from the standard position."""
    ours = launcher.genchess("xboard")
    fm = launcher.peer(fairymax_command(tmp_path), "xboard", "Fairy-Max")
    records = run_match(Player("GenChess", ours, True), Player("Fairy-Max", fm, False),
                        [chess.STARTING_FEN] * 2, base=1.0, inc=0.1)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def test_moves_per_session_game_against_fairymax(launcher, tmp_path):
    """One game at 20 moves in 6 s (level 20 0:06 0), crossing a session boundary."""
    ours = launcher.genchess("xboard")
    fm = launcher.peer(fairymax_command(tmp_path), "xboard", "Fairy-Max")
    records = run_match(Player("GenChess", ours, True), Player("Fairy-Max", fm, False),
                        [chess.STARTING_FEN], base=6.0, moves_per_session=20, max_plies=120)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_self_play_match_slow(launcher):
    a = launcher.genchess("xboard", name="GenChess-A")
    b = launcher.genchess("xboard", "--search", "budget", name="GenChess-B-budget")
    starts = [fen for fen in opening_fens(4, seed=41) for _ in range(2)]
    records = run_match(Player("GenChess-A", a, True), Player("GenChess-B-budget", b, True),
                        starts, base=2.0, inc=0.2, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_fairymax_match_slow(launcher, tmp_path):
    ours = launcher.genchess("xboard")
    fm = launcher.peer(fairymax_command(tmp_path), "xboard", "Fairy-Max")
    records = run_match(Player("GenChess", ours, True), Player("Fairy-Max", fm, False),
                        [chess.STARTING_FEN] * 8, base=2.0, inc=0.1, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_moves_per_session_match_slow(launcher, tmp_path):
    ours = launcher.genchess("xboard")
    fm = launcher.peer(fairymax_command(tmp_path), "xboard", "Fairy-Max")
    records = run_match(Player("GenChess", ours, True), Player("Fairy-Max", fm, False),
                        [chess.STARTING_FEN] * 4, base=20.0, moves_per_session=40, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def test_analysis_through_python_chess(launcher):
    engine = launcher.genchess("xboard")
    board = chess.Board()
    board.push_uci("e2e4")
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["depth"] >= 5, info
    assert info["pv"][0] in board.legal_moves
    assert "score" in info


# ------------------------------------------------------------------ handshake

def test_protover_2_features():
    engine = RawEngine.genchess("xboard")
    with engine:
        engine.send("xboard")
        engine.send("protover 2")
        seen: list[str] = []
        _, line = engine.expect(lambda text: "done=1" in text, timeout=20, seen=seen)
        assert not any(text.startswith("feature") for text in seen), f"more than one feature line: {seen}"
        assert line.startswith("feature ") and line.rstrip().endswith("done=1"), line
        for feature in ("ping=1", "setboard=1", "usermove=1", "playother=1", "time=1", "draw=0",
                        "sigint=0", "sigterm=0", "reuse=1", "analyze=1", "colors=0", "name=1",
                        "memory=1", 'myname="GenChess', 'variants="normal,fischerandom"'):
            assert f" {feature}" in line, f"{feature} missing from {line}"


def test_plain_genchess_picks_xboard():
    engine = RawEngine.genchess()
    with engine:
        engine.send("xboard")
        engine.send("protover 2")
        engine.expect(lambda text: text.startswith("feature") and "done=1" in text, timeout=20)
        ping(engine, 1)


# ------------------------------------------------------------------ thinking and pings

def test_ping_while_thinking_is_answered_after_the_move():
    with xboard_session() as engine:
        assert ping(engine, 1) == []                          # idle: at once
        engine.send("new")
        engine.send("st 1")
        engine.send("usermove e2e4")
        engine.send("ping 2")
        seen: list[str] = []
        engine.expect("pong 2", timeout=15, seen=seen)
        replies = moves_of(seen)
        assert len(replies) == 1, f"pong 2 did not come after exactly one move: {seen}"
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(replies[0]) in board.legal_moves


def test_move_now_and_post_output():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("post")
        engine.send("st 30")
        engine.send("usermove d2d4")
        engine.expect(lambda line: bool(THINKING.match(line)), timeout=10)
        time.sleep(0.3)
        sent = time.monotonic()
        engine.send("?")
        seen: list[str] = []
        stamp, move = engine.expect("move ", timeout=10, seen=seen)
        assert stamp - sent < 2.0, f"`?` took {stamp - sent:.2f} s"
        board = chess.Board()
        board.push_uci("d2d4")
        assert chess.Move.from_uci(move.split()[1]) in board.legal_moves
        for line in seen:
            assert THINKING.match(line), f"not a thinking line: {line!r}"
        # nopost: no thinking output at all.
        engine.send("nopost")
        engine.send("sd 4")
        engine.send("usermove g1f3")
        seen = []
        engine.expect("move ", timeout=20, seen=seen)
        assert seen == [], f"thinking output after nopost: {seen}"


def test_hard_ponders_and_still_answers():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("hard")
        engine.send("st 0.3")
        engine.send("usermove e2e4")
        engine.expect("move ", timeout=10)
        time.sleep(0.3)                                         # pondering now
        assert not [line for line in ping(engine, 1) if line.startswith("move")]
        engine.send("usermove d2d4")
        engine.expect("move ", timeout=10)
        ping(engine, 2)
        engine.send("easy")
        ping(engine, 3)


def test_playother_white_black_and_go():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("sd 3")
        engine.send("force")
        engine.send("usermove e2e4")
        engine.send("playother")                # engine plays White, user has Black to move
        assert moves_of(ping(engine, 1)) == []
        engine.send("usermove e7e5")
        seen = ping(engine, 2, timeout=20)
        board = chess.Board()
        board.push_uci("e2e4")
        board.push_uci("e7e5")
        replies = moves_of(seen)
        assert len(replies) == 1 and chess.Move.from_uci(replies[0]) in board.legal_moves, seen
        # go: the engine takes the side to move (Black now) and moves at once.
        board.push_uci(replies[0])
        engine.send("force")
        engine.send("go")
        seen = ping(engine, 3, timeout=20)
        replies = moves_of(seen)
        assert len(replies) == 1 and chess.Move.from_uci(replies[0]) in board.legal_moves, seen
        # white/black (old style) are accepted without error.
        engine.send("force")
        engine.send("white")
        engine.send("black")
        assert not [line for line in ping(engine, 4) if line.startswith("Error")]


# ------------------------------------------------------------------ errors keep the game

def test_illegal_moves_are_refused_and_change_nothing():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("force")
        for bad in ("e7e5", "e2e5", "e1g1", "a7a8q", "zz99"):
            engine.send(f"usermove {bad}")
            _, reply = engine.expect("Illegal move", timeout=5)
            assert reply == f"Illegal move: {bad}", reply
        # The position is still the start: these are legal, in order.
        for good in ("e2e4", "e7e5", "g1f3"):
            engine.send(f"usermove {good}")
        assert ping(engine, 1) == []


def test_unknown_command_reply():
    with xboard_session() as engine:
        engine.send("frobnicate 1 2")
        _, reply = engine.expect("Error", timeout=5)
        assert reply == "Error (unknown command): frobnicate 1 2"
        ping(engine, 1)


@pytest.mark.parametrize("bad", ["garbage", "6k1/5ppp/8/8/8/8/8/r6K b - - 0 1",
                                 "8/8/8/8/8/8/8/8 w - - 0 1",
                                 "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0"])
def test_bad_setboard_keeps_previous_position(bad):
    with xboard_session() as engine:
        engine.send("new")
        engine.send("force")
        engine.send(f"setboard {WHITE_MATES_IN_1}")
        engine.send(f"setboard {bad}")
        seen: list[str] = []
        engine.expect("Error", timeout=5, seen=seen)
        assert any(line.startswith("tellusererror") for line in seen), seen
        engine.send("go")
        engine.expect("move a1a8", timeout=10)        # only the kept position explains it


def test_undo_and_remove():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("force")
        for move in ("e2e4", "e7e5", "g1f3", "b8c6"):
            engine.send(f"usermove {move}")
        engine.send("undo")                              # b8c6 taken back: Black to move
        engine.send("usermove b8c6")                     # legal only if the undo happened
        engine.send("remove")                            # g1f3 and b8c6 taken back
        engine.send("usermove g1f3")
        engine.send("usermove g8f6")
        assert ping(engine, 1) == []
        for _ in range(2):
            engine.send("remove")
        engine.send("remove")                            # nothing left to take back
        engine.expect("Error", timeout=5)
        engine.send("usermove e2e4")                     # back at the start
        assert ping(engine, 2) == []


def test_level_forms():
    with xboard_session() as engine:
        engine.send("new")
        for good in ("level 40 5 0", "level 40 0:30 0.5", "level 0 1:05 2.5", "level 0 2 12"):
            engine.send(good)
        assert ping(engine, 1) == []
        for bad in ("level 40 x 0", "level 1 2", "level -1 5 0", "level 40 5 -3"):
            engine.send(bad)
            _, reply = engine.expect("Error", timeout=5)
            assert bad in reply, reply
        engine.send("level 0 0:05 0.5")
        engine.send("time 500")
        engine.send("otim 500")
        sent = time.monotonic()
        engine.send("usermove e2e4")
        stamp, _ = engine.expect("move ", timeout=10)
        assert stamp - sent < 5.0, f"used {stamp - sent:.2f} s of a 5 s clock on move 1"


def test_analyze_dot_and_exit():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("post")
        engine.send("analyze")
        engine.expect(lambda line: bool(THINKING.match(line)), timeout=10)
        engine.send(".")
        engine.expect("stat01:", timeout=5)
        engine.send("usermove e2e4")
        board = chess.Board()
        board.push_uci("e2e4")
        # The analysis restarts on the new position: Black's moves lead its PVs.
        deadline = time.monotonic() + 10
        while True:
            _, line = engine.expect(lambda text: bool(THINKING.match(text)) or text.startswith("move"),
                                    timeout=10)
            assert not line.startswith("move"), f"moved while analysing: {line}"
            words = line.split()
            if len(words) > 4 and chess.Move.from_uci(words[4]) in board.legal_moves:
                break
            assert time.monotonic() < deadline, "analysis did not follow the move"
        engine.send("exit")
        seen = ping(engine, 1)
        assert not moves_of(seen), seen
        after = engine.drain(quiet=0.5)
        assert not after, f"output after exit: {after}"


@pytest.mark.parametrize("fen, move, claim", [
    (WHITE_MATES_IN_1, "a1a8", "1-0 {White mates}"),
    (BLACK_MATES_IN_1, "a8a1", "0-1 {Black mates}"),
    (ONLY_MOVE_STALEMATES, "a2b2", "1/2-1/2 {Stalemate}"),
])
def test_claims_when_the_game_ends_on_our_move(fen, move, claim):
    with xboard_session() as engine:
        engine.send("new")
        engine.send("force")
        engine.send(f"setboard {fen}")
        engine.send("go")
        engine.expect(f"move {move}", timeout=10)
        _, line = engine.expect(lambda text: not THINKING.match(text), timeout=5)
        assert line == claim
        ping(engine, 1)


def test_result_ends_the_game():
    with xboard_session() as engine:
        engine.send("new")
        engine.send("sd 2")
        engine.send("result 1-0 {White resigns}")
        engine.send("usermove e2e4")
        assert moves_of(ping(engine, 1)) == []
        engine.send("new")
        engine.send("sd 2")
        engine.send("usermove e2e4")
        engine.expect("move ", timeout=10)


def test_options_and_memory():
    with xboard_session() as engine:
        for good in ("memory 32", "option Hash=8", "option Move Overhead=50",
                     "option Search=budget", "option Search=iterative", "option Genome=<default>"):
            engine.send(good)
        assert not [line for line in ping(engine, 1, timeout=20) if line.startswith("Error")]
        for bad in ("option Foo=3", "option Hash=0", "option Search=sideways", "memory lots"):
            engine.send(bad)
            _, reply = engine.expect("Error", timeout=5)
            assert bad in reply, reply
        engine.send("new")
        engine.send("sd 2")
        engine.send("usermove e2e4")
        engine.expect("move ", timeout=10)


# ------------------------------------------------------------------ signals

def test_sigint_is_ignored():
    with xboard_session() as engine:
        os.kill(engine.proc.pid, signal.SIGINT)
        ping(engine, 1)
        engine.send("new")
        engine.send("st 1")
        engine.send("usermove e2e4")
        time.sleep(0.3)
        os.kill(engine.proc.pid, signal.SIGINT)                # while thinking
        engine.expect("move ", timeout=10)
        ping(engine, 2)
        assert engine.alive()
        engine.close()
        assert engine.proc.returncode == 0
        assert "Traceback" not in engine.stderr, engine.stderr


# ------------------------------------------------------------------ bugs found here

@pytest.mark.parametrize("setting", ["sd 99999999999999999999", "st 1e309", "st nan"])
def test_out_of_range_limits_do_not_wedge_the_game(setting):
    """A limit the search cannot use must be refused or clamped; it must not leave
    the engine `thinking` forever with pings unanswered (and a traceback on stderr)."""
    with xboard_session() as engine:
        engine.send("new")
        engine.send("force")
        engine.send(setting)
        engine.send("go")
        engine.send("ping 1")
        seen: list[str] = []
        # A clamped search may think (5 min default clock) until `?`.
        time.sleep(1.0)
        engine.send("?")
        engine.expect("pong 1", timeout=10, seen=seen)
        engine.send("force")
        engine.send("new")
        engine.send("sd 2")
        engine.send("usermove e2e4")
        engine.expect("move ", timeout=10)
        engine.close()
        assert "Traceback" not in engine.stderr, engine.stderr[-2000:]
