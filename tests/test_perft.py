"""Perft: exact leaf counts on the shared suite and the six standard positions.

The default run covers every depth of every suite position whose count is at
most about five million nodes; `-m slow` runs every depth given in the suite.
"""

from pathlib import Path

import pytest

from genchess_core import Board

SUITE = Path(__file__).resolve().parent / "data" / "perftsuite.epd"
DEFAULT_NODE_CAP = 5_000_000

# The six positions of the usual perft results page, with their depth-5 counts.
STANDARD = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4865609),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 193690690),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 674624),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 15833292),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 89941194),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 164075551),
]


def suite_cases():
    if not SUITE.exists():
        return []
    cases = []
    for line in SUITE.read_text().splitlines():
        if not line.strip():
            continue
        fen, *depths = line.split(";")
        for item in depths:
            depth, count = item.split()
            cases.append((fen.strip(), int(depth[1:]), int(count)))
    return cases


CASES = suite_cases()


def case_id(case):
    fen, depth, count = case
    return f"{fen.split()[0][:24]}-d{depth}"


@pytest.mark.skipif(not CASES, reason=f"perft suite not found at {SUITE}")
@pytest.mark.parametrize("case", [c for c in CASES if c[2] <= DEFAULT_NODE_CAP], ids=case_id)
def test_perft_suite(case):
    fen, depth, count = case
    assert Board(fen).perft(depth) == count


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c[2] > DEFAULT_NODE_CAP], ids=case_id)
def test_perft_suite_deep(case):
    fen, depth, count = case
    assert Board(fen).perft(depth) == count


def test_suite_is_covered_by_default_run():
    # Guard against the suite silently shrinking to nothing (e.g. a moved file).
    assert len([c for c in CASES if c[2] <= DEFAULT_NODE_CAP]) > 300


@pytest.mark.slow
@pytest.mark.parametrize("fen,count", STANDARD, ids=["start", "kiwipete", "pos3", "pos4", "pos5", "pos6"])
def test_standard_positions_depth5(fen, count):
    assert Board(fen).perft(5) == count


@pytest.mark.parametrize("fen,count", STANDARD, ids=["start", "kiwipete", "pos3", "pos4", "pos5", "pos6"])
def test_standard_positions_depth3_full_make(fen, count):
    # Without bulk counting every leaf is made and unmade: same tree, other code path.
    board = Board(fen)
    assert board.perft(3, bulk=False) == board.perft(3)
    assert board.fen() == Board(fen).fen()


def test_divide_sums_to_perft():
    board = Board(STANDARD[1][0])
    divide = board.divide(3)
    assert len(divide) == 48
    assert sum(count for _, count in divide) == 97862
    assert dict(divide)["e1g1"] == 2059


def test_perft_depth_zero_and_one():
    board = Board()
    assert board.perft(0) == 1
    assert board.perft(1) == 20
    with pytest.raises(ValueError):
        board.perft(-1)
