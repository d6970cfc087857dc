"""SEE pruning (a trial behind the SEE Pruning option): near the leaves, out of check and
not at the root, once a real score is in hand, a capture that loses more than
see_capture_margin per ply left by SEE, or a quiet move more than see_quiet_margin times
the plies left squared, is skipped; the hash move, castling and checks are spared; a mate
search turns it off; off, nothing changes."""

from __future__ import annotations

import chess
import pytest

from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES
from genchess_core.see import see_moves

from trial_helpers import (assert_a_mate_search_turns_it_off_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_engine, trial_searcher)
from trial_helpers import game_line as trial_game_line

SEE_PRUNING = FEATURE_NAMES["see_pruning"]
# The steps that would skip the test node's quiet moves or cut it on their own: without
# them only the step under test skips a move.
OTHERS = FEATURE_NAMES["lmp"] | FEATURE_NAMES["rfp"] | FEATURE_NAMES["iir"] | FEATURE_NAMES["futility"]
GENE = {gene.name: gene.default for gene in GENES}
# White is in check from the b7 bishop and has one move, Rg2 (the root, where nothing is
# pruned; the check extends it, so a search to depth 1 leaves Black's reply a ply). Black
# then tries Bxg2+ first (it wins the exchange) and has two moves that lose material by
# SEE and give no check: Rxd4, a rook for the bishop (cxd4: -170), and a5, a pawn (bxa5:
# -100). Every other move of Black's loses nothing.
FEN = "3rk3/1b6/p7/8/1P1B4/2P5/7P/6RK w - - 0 1"
LOSING_CAPTURE, LOSING_QUIET = ("d8d4", -170), ("a6a5", -100)
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"


def black_reply_prunes(trial: bool, capture_margin: int = GENE["see_capture_margin"],
                       quiet_margin: int = GENE["see_quiet_margin"]) -> int:
    """How many moves of Black's reply (one ply from the horizon) SEE pruning skips, in a
    search of FEN with a window so low that no reply of Black's cuts the node."""
    s = trial_searcher(SEE_PRUNING if trial else 0)
    s.features = s.features & ~OTHERS
    s.set_tunables({**s.tunables, "see_capture_margin": capture_margin, "see_quiet_margin": quiet_margin})
    board = Board(FEN)
    s.null_window(board, 1, s.evaluate(board) - 50 * round(s.pawn_unit))
    return s.see_prunes


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("SEE Pruning", SEE_PRUNING)


def test_the_position_is_what_the_test_says():
    board = chess.Board(FEN)
    assert [m.uci() for m in board.legal_moves] == ["g1g2"]
    board.push_uci("g1g2")
    values = see_moves(Board(board.fen()))
    losing = {u: v for u, v in values.items() if v < 0 and not board.gives_check(chess.Move.from_uci(u))}
    assert losing == dict([LOSING_CAPTURE, LOSING_QUIET])


def test_the_losing_capture_and_quiet_move_are_skipped_one_ply_from_the_horizon():
    assert black_reply_prunes(True) == 2
    assert black_reply_prunes(False) == 0


@pytest.mark.parametrize("move, margin_gene", [(LOSING_CAPTURE, "capture"), (LOSING_QUIET, "quiet")])
def test_a_move_is_skipped_below_its_margin_and_searched_at_it(move, margin_gene):
    # One ply from the horizon the floor is minus the margin (the quiet one's square of one ply).
    loss = -move[1]
    at = black_reply_prunes(True, **{f"{margin_gene}_margin": loss})
    below = black_reply_prunes(True, **{f"{margin_gene}_margin": loss - 1})
    assert (at, below) == (1, 2)


def game_line(trial: bool):
    """Six moves of a game from MIDDLEGAME: its nodes, its moves and the moves the step
    skipped."""
    return trial_game_line("SEE Pruning", trial, MIDDLEGAME, 6, lambda s: s.see_prunes)


def test_in_a_game_it_skips_moves_and_stays_deterministic_and_off_changes_nothing():
    plain, first, again = game_line(False), game_line(True), game_line(True)
    assert first == again
    assert plain[2] == 0 and first[2] > 0
    assert first[0] < plain[0]
    # Off (set on, then off again) is the search that never had the bit, node for node.
    def search(engine):
        engine.set_position(MIDDLEGAME)
        result = engine.search(Limits(depth=8))
        return result.nodes, result.bestmove
    never = trial_engine("SEE Pruning", True)
    never.searcher.features = never.searcher.features & ~SEE_PRUNING
    assert search(trial_engine("SEE Pruning", False)) == search(never)


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("SEE Pruning", MIDDLEGAME)


def test_a_mate_search_turns_it_off_and_still_proves_the_mate():
    assert_a_mate_search_turns_it_off_and_proves_the_mate(SEE_PRUNING)
