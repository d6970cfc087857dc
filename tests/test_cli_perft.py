"""`genchess perft` from the command line: counts, --divide, and bad input (a one-line
message and exit status 2, no traceback). An empty FEN is a bad FEN, as python-chess
has it; only leaving --fen out means the start position."""

from __future__ import annotations

import subprocess
from pathlib import Path

import chess
import pytest

from engine_helpers import genchess_command, run_into_closed_pipe

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def perft(*args):
    command, env = genchess_command("perft", *args)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def nodes(proc):
    assert proc.returncode == 0, proc.stderr
    return int(next(line for line in proc.stdout.splitlines()
                    if line.startswith("Nodes searched:")).split(":")[1])


def test_no_fen_means_the_start_position():
    assert nodes(perft("2")) == 400


def test_divide_from_a_fen_matches_python_chess():
    proc = perft("2", "--divide", "--fen", KIWIPETE)
    board = chess.Board(KIWIPETE)
    expected = {}
    for move in board.legal_moves:
        board.push(move)
        expected[move.uci()] = board.legal_moves.count()
        board.pop()
    got = dict(line.split(": ") for line in proc.stdout.splitlines() if ": " in line
               and not line.startswith(("Nodes", "Time")))
    assert {m: int(c) for m, c in got.items()} == expected
    assert nodes(proc) == sum(expected.values())


@pytest.mark.parametrize("fen", ["", "   ", "8/8/8/8 w - -", "not a fen"])
def test_a_bad_fen_is_a_message_and_exit_status_2(fen):
    with pytest.raises(ValueError):
        chess.Board(fen)            # the oracle agrees the FEN is bad
    proc = perft("1", "--fen", fen)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("genchess perft: ") and "FEN" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_play_rejects_an_empty_fen_too():
    command, env = genchess_command("play", "random", "random", "--fen", "")
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "FEN" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [("perft", "2", "--divide"), ("bench", "--depth", "1", "--runs", "1")])
def test_output_into_a_closed_pipe_stops_quietly(args):
    # `genchess bench | head -1`: once the reader has gone, the command stops with
    # status 1 and says nothing (Python's default is a traceback, twice).
    proc = run_into_closed_pipe(*args)
    assert proc.returncode == 1
    assert proc.stderr == ""


CHESS960 = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
SUITE960 = Path(__file__).resolve().parent / "data" / "perft960.epd"


def test_divide_writes_chess960_castling_as_king_takes_rook():
    board = chess.Board(CHESS960, chess960=True)
    expected = {board.uci(move) for move in board.legal_moves}
    assert {"b1a1", "b1h1"} <= expected
    for extra in ((), ("--chess960",)):
        proc = perft("1", "--divide", "--fen", CHESS960, *extra)
        got = {line.split(":")[0] for line in proc.stdout.splitlines() if line.endswith(": 1")}
        assert got == expected
    standard = {line.split(":")[0] for line in perft("1", "--divide").stdout.splitlines()
                if line.endswith(": 1")}
    assert len(standard) == 20
    proc = perft("1", "--divide", "--chess960", "--fen",
                 "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert "e1h1: 1" in proc.stdout and "e1g1" not in proc.stdout
    assert "e1g1: 1" in perft("1", "--divide", "--fen", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").stdout


def test_suite_checks_the_chess960_suite():
    proc = perft("2", "--suite", str(SUITE960))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "960 positions, 1920 counts to depth 2: all match" in proc.stdout
    assert nodes(proc) == sum(counts[1] + counts[2] for counts in _suite_counts())


def _suite_counts():
    return [{int(item.split()[0][1:]): int(item.split()[1]) for item in line.split(";")[1:]}
            for line in SUITE960.read_text().splitlines() if line and not line.startswith("#")]


def test_suite_reports_a_wrong_count_with_its_line_and_status_1(tmp_path):
    suite = tmp_path / "suite.epd"
    suite.write_text("# a comment\n\n"
                     f"{chess.STARTING_FEN} ;D1 20 ;D2 400\n"
                     f"{CHESS960} ;D1 {chess.Board(CHESS960, chess960=True).legal_moves.count()} ;D2 999\n")
    proc = perft("3", "--suite", str(suite))
    assert proc.returncode == 1
    assert f"{suite}:4: depth 2: " in proc.stdout and "expected 999" in proc.stdout
    assert "2 positions, 4 counts to depth 3: 1 wrong" in proc.stdout


@pytest.mark.parametrize("text,where", [
    (f"{chess.STARTING_FEN} ;D1 twenty\n", ":1: expected FEN ;D1 COUNT"),
    ("not a fen ;D1 20\n", ":1: invalid FEN"),
    ("rk5r/8/8/8/8/8/8/RK5R w C - 0 1 ;D1 5\n", ":1: invalid FEN"),
])
def test_suite_with_a_bad_line_is_one_message_and_status_2(tmp_path, text, where):
    suite = tmp_path / "suite.epd"
    suite.write_text(text)
    proc = perft("1", "--suite", str(suite))
    assert proc.returncode == 2 and proc.stdout == ""
    assert where in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_suite_takes_no_fen_and_a_missing_file_is_a_message(tmp_path):
    proc = perft("1", "--suite", str(SUITE960), "--fen", CHESS960)
    assert proc.returncode == 2 and "takes no --fen" in proc.stderr
    proc = perft("1", "--suite", str(tmp_path / "none.epd"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr
