"""Static exchange evaluation against exchanges worked out by hand.

Values: pawn 100, knight 320, bishop 330, rook 500, queen 900 (genchess_core/see.pyx).
Each case names the sequence that decides it.
"""

import gzip
import random
from pathlib import Path

import chess
import pytest

from genchess_core import Board
from genchess_core.see import see_ge_moves, see_move, see_moves

CASES = [
    # Rxe5: the pawn is undefended (the d8 rook guards the d-file, not e5).
    ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),
    # Nxe5 Nxe5 Rxe5 Bxe5 Qxe5 Qxe5 (Qh8 x-rays through f6): black stops at Nxe5, 100 - 320.
    ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220),
    # dxe5 wins the knight; Qxe5 would lose the queen to the b2 bishop behind the pawn (x-ray).
    ("4k3/4q3/8/4n3/3P4/8/1B6/4K3 w - - 0 1", "d4e5", 320),
    # The same without the bishop: Qxe5 recaptures, so a knight for a pawn.
    ("4k3/4q3/8/4n3/3P4/8/8/4K3 w - - 0 1", "d4e5", 220),
    # Doubled rooks: R2xe5 Rxe5 Rxe5 nets the pawn thanks to the rook behind (x-ray).
    ("4r1k1/8/8/4p3/8/8/4R3/4R1K1 w - - 0 1", "e2e5", 100),
    # A single rook against the defended pawn loses the exchange: 100 - 500.
    ("4r1k1/8/8/4p3/8/8/8/4R1K1 w - - 0 1", "e1e5", -400),
    # Queen takes a pawn defended by a pawn.
    ("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -800),
    # Pawn takes a knight defended by a pawn: 320 - 100.
    ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 220),
    # The black king "defends" d5, but the f3 bishop covers it: Qxd5 keeps the pawn.
    ("8/8/2k5/3p4/8/5B2/8/3QK3 w - - 0 1", "d1d5", 100),
    # A quiet promotion wins queen minus pawn; guarded by the d8 rook it loses the pawn.
    ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", 800),
    ("3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", -100),
    # Under-promotion to a knight, unguarded: 320 - 100.
    ("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", 220),
    # Capture-promotion of a rook, recaptured by the king: 500 + 800 - 900.
    ("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8q", 400),
    # En passant takes the pawn beside: +100 alone, even when c7 recaptures on d6.
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),
    ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
    # A quiet move onto an attacked square loses the piece.
    ("4k3/8/8/2p5/8/8/8/1N2K3 w - - 0 1", "b1d2", 0),
    ("4k3/8/8/8/2p5/8/8/1N2K3 w - - 0 1", "b1d2", 0),
    # ...cxd2 takes the knight and Kxd2 the pawn back: 100 - 320.
    ("4k3/8/8/8/8/2p5/8/1N2K3 w - - 0 1", "b1d2", -220),
    # A pawn recapturing onto the last rank promotes: ...Qxb8 axb8=Q costs black the queen
    # and gives white the promotion: 320 - 900 - 800.
    ("1N5k/P7/8/8/1q6/8/8/6K1 b - - 0 1", "b4b8", -1380),
]


@pytest.mark.parametrize("fen, move, value", CASES)
def test_see_matches_the_hand_computed_exchange(fen, move, value):
    assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves, "test case must be legal"
    assert see_move(Board(fen), move) == value


def test_illegal_moves_are_refused():
    with pytest.raises(ValueError):
        see_move(Board(), "e2e5")


# ------------------------------------------------------------------- see_ge

DATA = Path(__file__).resolve().parent.parent / "genchess" / "data"


def sampled_positions() -> list[str]:
    """Positions to hold see_ge to see() on: some of the self-play set's, the tactics set,
    the hand cases above (promotions, en passant, x-rays) and positions of random games
    whose moves favour captures and promotions (long exchanges, pawns on the last rank)."""
    rng = random.Random(20261207)
    with gzip.open(DATA / "positions.epd.gz", "rt") as f:
        epd = [" ".join(line.split()[:4]) for line in f]
    fens = [fen + " 0 1" for fen in rng.sample(epd, 300)]
    with open(DATA / "tactics.epd") as f:
        fens += [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
    fens += [fen for fen, _, _ in CASES]
    for _ in range(60):
        board = chess.Board()
        for ply in range(rng.randint(20, 140)):
            moves = list(board.legal_moves)
            if not moves:
                break
            sharp = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(sharp if sharp and rng.random() < 0.5 else moves))
            if ply % 6 == 0:
                fens.append(board.fen())
    return fens


def test_see_ge_answers_as_see_does_at_every_threshold_that_matters():
    # For every legal move, the thresholds one either side of its SEE and at it (where an
    # early exit that rounds the wrong way would show), and a few anywhere.
    rng = random.Random(7)
    checked = 0
    for fen in sampled_positions():
        board = Board(fen)
        values = see_moves(board)
        thresholds = {t for v in values.values() for t in (v - 1, v, v + 1)}
        thresholds |= {rng.randint(-2000, 2000) for _ in range(3)}
        for t in thresholds:
            ge = see_ge_moves(board, t)
            wrong = {u: v for u, v in values.items() if ge[u] != (v >= t)}
            assert not wrong, f"{fen}: see_ge(t={t}) disagrees with see() on {wrong}"
            checked += len(values)
    assert checked > 100_000
