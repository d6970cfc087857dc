"""ProbCut (a trial behind the ProbCut option): away from the principal variation, a
capture that holds beta by a margin in a shallower search cuts the node and leaves a
lower bound of the depth it proved in the table; the table's own shallower verdict
below the raised beta skips it; a mate search turns it off; off, nothing changes."""

from __future__ import annotations

import chess
import pytest

from genchess.engine import Engine
from genchess.genome import default_genome
from genchess.protocols.options import Settings
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import (assert_a_mate_search_turns_it_off_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_searcher)

PROBCUT = FEATURE_NAMES["probcut"]
IIR = FEATURE_NAMES["iir"]
BOUND_UPPER, BOUND_LOWER = 1, 2
REDUCTION = next(gene.default for gene in GENES if gene.name == "probcut_reduction")
# White to move; Black's queen stands on d4, where the c3 pawn takes it (e5 retakes).
HANGING_QUEEN = "rnb1kbnr/pppp1ppp/8/4p3/3q4/2P5/PP1PPPPP/RNBQKBNR w KQkq - 0 1"
DEPTH = 8


def searcher(probcut: bool) -> Searcher:
    """The default genome's searcher, without internal iterative reduction (so that
    the node's depth is the one given), with or without the trial."""
    s = trial_searcher(PROBCUT if probcut else 0)
    s.features = s.features & ~IIR
    return s


def beta_above_the_evaluation(s: Searcher, board: Board) -> int:
    # Two pawns above the static evaluation: no null move or reverse futility cut
    # first, and the queen (nine pawns) still clears ProbCut's raised beta.
    return s.evaluate(board) + 2 * round(s.pawn_unit)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("ProbCut", PROBCUT)


def test_a_winning_capture_cuts_the_node_at_reduced_depth():
    board = Board(HANGING_QUEEN)
    plain = searcher(False)
    beta = beta_above_the_evaluation(plain, board)
    plain_score, _ = plain.null_window(board, DEPTH, beta)
    assert plain_score >= beta and plain.probe(board)[1:] == ("c3d4", DEPTH, BOUND_LOWER)
    s = searcher(True)
    score, _ = s.null_window(board, DEPTH, beta)
    # Cut by ProbCut: the capture's lower bound stands at the depth the shallower search
    # proved (the node's depth less the reduction), not the node's own depth. (Here the
    # plain search cuts on the same capture about as cheaply: the savings are in the
    # whole searches below.)
    assert score >= beta
    assert s.probe(board)[1:] == ("c3d4", DEPTH - REDUCTION, BOUND_LOWER)


def test_a_shallower_entry_below_the_raised_beta_skips_it():
    board = Board(HANGING_QUEEN)
    s = searcher(True)
    beta = beta_above_the_evaluation(s, board)
    # The table says a search nearly as deep stayed below beta: ProbCut is not tried,
    # and the node is searched to its own depth.
    s.store(board, beta - 1, DEPTH - REDUCTION, bound=BOUND_UPPER)
    s.null_window(board, DEPTH, beta)
    assert s.probe(board)[2] == DEPTH


@pytest.mark.parametrize("fen", [
    # bench's position 19 and a tactical one (tests/test_time_scaling.py's FALLING)
    "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1",
    "rn1q1rk1/5ppp/2p2b1B/pp2P3/8/2PB2Q1/P1P2PbP/R4RK1 b - - 0 1",
])
def test_fewer_nodes_to_the_same_depth_and_the_same_move_every_time(fen):
    def search(probcut: bool):
        engine = Engine(default_genome())
        Settings(engine).setter("ProbCut")("true" if probcut else "false")
        engine.set_position(fen)
        return engine.search(Limits(depth=DEPTH))
    plain, first, again = search(False), search(True), search(True)
    assert (first.nodes, first.bestmove) == (again.nodes, again.bestmove)     # deterministic
    assert first.nodes < plain.nodes
    assert chess.Move.from_uci(first.bestmove) in chess.Board(fen).legal_moves
    assert first.bestmove == plain.bestmove


def test_a_mate_search_turns_it_off_and_still_proves_the_mate():
    assert_a_mate_search_turns_it_off_and_proves_the_mate(PROBCUT)


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move(
        "ProbCut", "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
