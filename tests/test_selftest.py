"""`genchess selftest`: passes on a good build, says FAIL and exits 1 when a check
fails, and runs in well under its 30-second promise."""

import io
import subprocess
import time

import chess

from genchess import selftest
from engine_helpers import genchess_command



def test_selftest_passes_in_process():
    out = io.StringIO()
    assert selftest.run_selftest(out) == 0
    text = out.getvalue()
    assert "FAIL" not in text
    assert "selftest: " in text and "all passed" in text
    for part in ("perft 4 =  197281", "rules: fool's mate", "SAN: every legal move",
                 "turing: mate in one", "montecarlo: mate in one", "genetic: mate in one",
                 "random: mate in one", "genome: default genome"):
        assert part in text


def test_selftest_command_exit_status_and_time():
    command, env = genchess_command("selftest")
    start = time.monotonic()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert time.monotonic() - start < 30
    assert proc.stdout.strip().splitlines()[-1].startswith("selftest: ")


def test_shipped_data_agrees_with_python_chess():
    """The table itself is right: python-chess agrees with every line of it."""
    for fen, ops, number in selftest.read_epd():
        board = chess.Board(fen)
        for op, operands in ops:
            if op == "moves":
                for move in operands:
                    board.push_uci(move)
        for op, operands in ops:
            if op == "status":
                outcome = board.outcome(claim_draw=True)
                name = outcome.termination.name.lower() if outcome else "ongoing"
                assert name == operands[0], number
            elif op == "legal":
                assert board.legal_moves.count() == int(operands[0]), number
            elif op in ("has", "lacks"):
                assert (chess.Move.from_uci(operands[0]) in board.legal_moves) == (op == "has"), number
            elif op == "bm":
                for text in operands:
                    move = board.parse_san(text)
                    board.push(move)
                    assert board.is_checkmate(), number
                    board.pop()
            elif op[:1] == "D" and op[1:].isdigit() and int(op[1:]) <= 2:
                assert _perft(board, int(op[1:])) == int(operands[0]), number


def _perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _perft(board, depth - 1)
        board.pop()
    return total


def test_a_failing_check_is_reported(tmp_path, monkeypatch):
    good = selftest.DATA.read_text()
    bad = good.replace(";D4 197281;", ";D4 197282;").replace("status stalemate", "status checkmate")
    path = tmp_path / "selftest.epd"
    path.write_text(bad)
    monkeypatch.setattr(selftest, "DATA", path)
    out = io.StringIO()
    assert selftest.run_selftest(out) == 1
    text = out.getvalue()
    assert "FAIL  perft 4 =  197282" in text and "got 197281" in text
    assert "FAIL  rules: stalemate: status stalemate, expected checkmate" in text
    assert "2 FAILED" in text


def test_missing_data_is_an_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(selftest, "DATA", tmp_path / "gone.epd")
    assert selftest.run_selftest(io.StringIO()) == 2
    assert "cannot read" in capsys.readouterr().err
