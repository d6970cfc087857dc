"""A corrupted hash entry never makes the search play or search an illegal move.

The table's XOR check refuses an entry torn by two threads (test_threads.py), but an
entry can still pass it and carry a wrong move: a key collision, or a torn write that
happens to check. So the search must treat the hash move as a hint: it only orders the
moves the generator made, and a move that is not among them is never made. Here every
position within two plies of the root gets an entry under its own key with a move that
is garbage, a move of another position, or one of its own moves with wrong flags, and a
depth and bound that often cut; every best move and every PV the search then gives, at
several depths, in iterative and budget modes and on two threads, must be legal
(python-chess is the referee).
"""

from __future__ import annotations

import random

import chess
import pytest

from genchess.genome import load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess_core import Board
from genchess_core.searcher import Searcher

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ROOTS = [chess.STARTING_FEN, KIWIPETE, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
         "r1bq1rk1/pp2nppp/2n1p3/3pP3/2pP4/P1P2N2/2P2PPP/R1BQKB1R w KQ - 0 1"]
BOUNDS = (1, 2, 3)      # tt.pxd: upper, lower, exact

# types.pxd's move flags
QUIET, DOUBLE_PUSH, KING_CASTLE, QUEEN_CASTLE, CAPTURE, EP_CAPTURE, PROMO = 0, 1, 2, 3, 4, 5, 8


def move_code(board: chess.Board, move: chess.Move) -> int:
    """The core's 16-bit code of a legal python-chess move (from | to << 6 | flags << 12;
    castling as the king's move to the g or c file with a castle flag)."""
    frm, to = move.from_square, move.to_square
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        to = chess.square(6 if kingside else 2, chess.square_rank(frm))
        return frm | to << 6 | (KING_CASTLE if kingside else QUEEN_CASTLE) << 12
    if board.is_en_passant(move):
        flags = EP_CAPTURE
    else:
        flags = CAPTURE if board.is_capture(move) else QUIET
        if move.promotion:
            flags |= PROMO + move.promotion - chess.KNIGHT
        elif board.piece_type_at(frm) == chess.PAWN and abs(to - frm) == 16:
            flags = DOUBLE_PUSH
    return frm | to << 6 | flags << 12


def corrupt_move(rng: random.Random, board: chess.Board, others: list[int]) -> int:
    """A move code that is not a legal move of `board`: random bits, another position's
    legal move, or one of this position's own moves with its flags wrong."""
    legal = {move_code(board, m) for m in board.legal_moves}
    while True:
        kind = rng.randrange(3)
        if kind == 0:
            code = rng.randrange(1, 1 << 16)
        elif kind == 1:
            code = rng.choice(others)
        else:
            code = move_code(board, rng.choice(list(board.legal_moves))) ^ (rng.randrange(1, 16) << 12)
        if code not in legal:
            return code


def corruption(fen: str, rng: random.Random) -> list[tuple]:
    """A corrupted entry (board, score, depth, move, bound) for the root and every
    position within two plies of it, the game not over."""
    others = [move_code(b, m) for b in (chess.Board(f) for f in ROOTS if f != fen) for m in b.legal_moves]
    root = chess.Board(fen)
    lines = [[]]
    for move in root.legal_moves:
        after = root.copy(stack=False)
        after.push(move)
        lines += [[move]] + [[move, reply] for reply in after.legal_moves]
    entries = []
    for line in lines:
        ours, theirs = Board(fen), root.copy(stack=False)
        for move in line:
            ours.push_uci(move.uci())
            theirs.push(move)
        if not theirs.is_game_over():
            score = rng.choice([0, rng.randrange(-3000, 3000), 999_999_990, -999_999_990])
            entries.append((ours, score, rng.choice([0, 1, 3, 60]), corrupt_move(rng, theirs, others),
                            rng.choice(BOUNDS)))
    return entries


def plant(searcher: Searcher, entries: list[tuple]) -> None:
    for board, score, depth, move, bound in entries:
        searcher.store(board, score, depth, move=move, bound=bound)


def assert_lines_legal(fen: str, result: dict, what: str) -> None:
    assert result["lines"], what
    for score, pv in result["lines"]:
        board = chess.Board(fen)
        assert pv, what
        for move in pv:
            assert chess.Move.from_uci(move) in board.legal_moves, (what, fen, pv, move)
            board.push_uci(move)


def searcher_on(threads: int) -> Searcher:
    searcher = Searcher(4)
    searcher.set_genome(load_genome(GENOMES_DIR / "default.genome").pack())
    searcher.set_threads(threads)
    return searcher


def test_the_test_encodes_moves_as_the_core_does():
    """A legal move stored by its code reads back as that move: the codes planted below
    are what the core would take for moves (and for another position's moves)."""
    searcher = searcher_on(1)
    for fen in ROOTS + ["4k3/1P6/8/3pP3/8/8/8/R3K2R w KQ d6 0 1"]:
        board = chess.Board(fen)
        for move in board.legal_moves:
            searcher.store(Board(fen), 5, 2, move=move_code(board, move))
            assert searcher.probe(Board(fen))[1] == move.uci(), (fen, move)


@pytest.mark.parametrize("mode, threads", [("iterative", 1), ("iterative", 2), ("budget", 1)])
def test_corrupted_hash_moves_never_reach_a_line(mode, threads):
    rng = random.Random(53)
    changed = []
    for fen in ROOTS:
        entries = corruption(fen, rng)
        assert len(entries) > 20
        clean = searcher_on(threads)
        for depth in (1, 2, 4, 6):
            searcher = searcher_on(threads)
            plant(searcher, entries)
            searcher.clear_stop()
            kwargs = {"budget_nodes": 4000.0 * depth} if mode == "budget" else {}
            result = searcher.search(Board(fen), max_depth=depth if mode == "iterative" else 3,
                                     multipv=1 if depth < 6 else 3, mode=mode, **kwargs)
            assert_lines_legal(fen, result, f"{mode} depth {depth} on {threads} threads")
            if depth >= 4 and threads == 1:
                clean.clear()
                clean.clear_stop()
                other = clean.search(Board(fen), max_depth=depth if mode == "iterative" else 3,
                                     multipv=1 if depth < 6 else 3, mode=mode, **kwargs)
                changed.append(other["nodes"] != result["nodes"])
    if mode == "iterative":
        # The search did read the planted entries: their scores cut.
        assert all(changed)
    else:
        # Budget mode's own nodes read only the hash move, to order by (the next test);
        # its quiescence reads the table (since 53e4f50), so where a planted entry is a
        # leaf of the budget tree its score cuts: on some roots, not on every one.
        assert any(changed) and not all(changed), changed


def test_budget_mode_orders_by_a_planted_legal_hash_move():
    """The budget search does read the hash move: a legal one planted in every position
    ahead (the last the generator makes) changes what it searches."""
    fen = KIWIPETE
    searchers = [searcher_on(1), searcher_on(1)]
    root = chess.Board(fen)
    for move in root.legal_moves:
        after = root.copy(stack=False)
        after.push(move)
        ours = Board(fen)
        ours.push_uci(move.uci())
        last = list(after.legal_moves)[-1]
        searchers[1].store(ours, 0, 0, move=move_code(after, last), bound=1)
    nodes = []
    for searcher in searchers:
        searcher.clear_stop()
        result = searcher.search(Board(fen), max_depth=3, mode="budget", budget_nodes=20000.0)
        assert_lines_legal(fen, result, "budget")
        nodes.append(result["nodes"])
    assert nodes[0] != nodes[1]


def test_a_search_over_torn_and_corrupted_entries_plays_legal_games():
    """Short games on two threads where, before every move, the positions ahead get
    corrupted entries and the root's slot a torn one: every move played is legal."""
    rng = random.Random(7)
    searcher = searcher_on(2)
    board = chess.Board()
    while not board.is_game_over(claim_draw=True) and board.ply() < 12:
        ours = Board(board.fen())
        plant(searcher, corruption(board.fen(), rng))
        searcher.tear_entry_for_tests(ours, Board(KIWIPETE))
        searcher.clear_stop()
        result = searcher.search(ours, max_depth=5)
        assert_lines_legal(board.fen(), result, f"ply {board.ply()}")
        board.push_uci(result["lines"][0][1][0])
