"""Double and negative singular extensions (a trial behind the Double Singular option):
away from the principal variation, a hash move whose rivals stay far below the singular
margin is extended twice, while the line above holds fewer than singular_double_max double
extensions; a hash move that is not singular where the table says it holds beta is searched
a ply shallower; a mate search turns both off; off, nothing changes."""

from __future__ import annotations

import chess
import pytest

from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.chains import move_codes
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import (assert_a_mate_search_turns_it_off_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_engine, trial_searcher)

DOUBLE_SINGULAR = FEATURE_NAMES["double_singular"]
BOUND_LOWER = 2
SINGULAR_MIN_DEPTH = next(gene.default for gene in GENES if gene.name == "singular_min_depth")
# White to move takes the rook on a8 with check (h6 gives the king a square); any other
# move loses the a1 rook to it instead: the capture is as singular as a move gets.
ROOKS_FACING = "r5k1/5pp1/7p/8/8/8/5PPP/R5K1 w - - 0 1"
# bench's position 19 (a middlegame) and a tactical one (tests/test_time_scaling.py's FALLING).
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"
TACTICAL = "rn1q1rk1/5ppp/2p2b1B/pp2P3/8/2PB2Q1/P1P2PbP/R4RK1 b - - 0 1"


def searcher(trial: bool, **genes) -> Searcher:
    s = trial_searcher(DOUBLE_SINGULAR if trial else 0)
    s.set_tunables({**s.tunables, **genes})
    return s


def hash_move_node(trial: bool, fen: str, move: str, pawns_above: float, planted_above: int):
    """One null-window node a ply below the root, at the singular extensions' least depth,
    whose table holds `move` as a lower bound from a ply shallower: beta `pawns_above` the
    static evaluation, the bound `planted_above` beta. The counts of the search's extensions
    (double, negative, most doubles on one line)."""
    board = Board(fen)
    s = searcher(trial)
    beta = s.evaluate(board) + round(pawns_above * s.pawn_unit)
    s.store(board, beta + planted_above, SINGULAR_MIN_DEPTH - 1, move=move_codes(board, [move])[0],
            bound=BOUND_LOWER)
    s.null_window(board, SINGULAR_MIN_DEPTH, beta, ply=1)
    return s.singular_extensions


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Double Singular", DOUBLE_SINGULAR)


@pytest.mark.parametrize("trial", [False, True])
def test_a_move_far_more_singular_is_extended_twice_only_with_the_trial(trial):
    double, negative, most = hash_move_node(trial, ROOKS_FACING, "a1a8", 4, 0)
    assert (double >= 1, negative, most) == ((True, 0, 1) if trial else (False, 0, 0))


@pytest.mark.parametrize("trial, planted_above, negative", [
    (True, 0, 1),           # the table says the knight's move holds beta: the others do too
    (True, -1, 0),          # a bound below beta: no verdict on beta, no reduction
    (False, 0, 0),
])
def test_a_hash_move_not_singular_where_the_table_holds_beta_is_reduced(trial, planted_above, negative):
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert hash_move_node(trial, start, "g1h3", 0, planted_above) == (0, negative, 0)


def test_a_line_takes_no_more_double_extensions_than_its_cap():
    def extensions(**genes):
        s = searcher(True, **genes)
        s.search(Board(TACTICAL), max_depth=9)
        return s.singular_extensions
    uncapped, capped = extensions(), extensions(singular_double_max=1)
    assert uncapped[2] >= 2             # lines do take more than one
    assert capped[2] == 1 and capped[0] < uncapped[0]


def test_the_tree_changes_and_stays_deterministic_at_fixed_depth():
    def search(trial: bool):
        e = trial_engine("Double Singular", trial)
        e.set_position(MIDDLEGAME)
        result = e.search(Limits(depth=9))
        assert chess.Move.from_uci(result.bestmove) in chess.Board(MIDDLEGAME).legal_moves
        return result.nodes, result.bestmove, e.searcher.singular_extensions
    plain, first, again = search(False), search(True), search(True)
    assert first == again
    assert plain[2] == (0, 0, 0) and first[2][0] > 0
    assert first[0] != plain[0]


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Double Singular", TACTICAL)


def test_a_mate_search_turns_it_off_and_still_proves_the_mate():
    assert_a_mate_search_turns_it_off_and_proves_the_mate(DOUBLE_SINGULAR)


def test_the_test_entry_refuses_a_ply_past_the_stack():
    with pytest.raises(ValueError, match="ply"):
        searcher(True).null_window(Board(ROOKS_FACING), 3, 0, ply=-1)
