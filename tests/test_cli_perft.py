"""`genchess perft` from the command line: counts, --divide, and bad input (a one-line
message and exit status 2, no traceback). An empty FEN is a bad FEN, as python-chess
has it; only leaving --fen out means the start position."""

from __future__ import annotations

import os
import subprocess

import chess
import pytest

from engine_helpers import genchess_command

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
    command, env = genchess_command(*args)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(command, env=env, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert proc.stderr == ""
