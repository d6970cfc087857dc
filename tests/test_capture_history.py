"""Capture history (a trial behind the Capture History option): the main search's
cutoffs teach a table by moving piece, destination and captured kind (the capture that
cut gains, the captures tried before it lose), and captures are ordered by their victim
plus that history instead of MVV-LVA; off, the table stays empty and the order is MVV-LVA."""

from __future__ import annotations

import chess
import pytest

from genchess.engine import Engine
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import assert_option_sets_the_bit, assert_two_threads_play_a_legal_move, trial_engine, trial_searcher

CAPTURE_HISTORY = FEATURE_NAMES["capture_history"]
# White's e-pawn takes a pawn (d5) or a knight (f5).
TWO_VICTIMS = "4k3/8/8/3p1n2/4P3/8/8/4K3 w - - 0 1"
# bench's position 19: a middlegame with captures on both sides.
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"


def searcher(trial: bool) -> Searcher:
    return trial_searcher(CAPTURE_HISTORY if trial else 0)


def engine(trial: bool) -> Engine:
    return trial_engine("Capture History", trial)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Capture History", CAPTURE_HISTORY)


@pytest.mark.parametrize("trial", [False, True])
def test_a_search_teaches_the_table_gains_and_losses_only_with_the_trial(trial):
    s = searcher(trial)
    s.search(Board(MIDDLEGAME), max_depth=8)
    lowest, highest = s.capture_history_span()
    if trial:
        assert lowest < 0 < highest           # captures that cut, and captures tried before a cutoff
    else:
        assert (lowest, highest) == (0, 0)
    s.clear()
    assert s.capture_history_span() == (0, 0)


def test_a_capture_that_cuts_gains_history():
    # Black's queen hangs on d4 to the c3 pawn: the capture comes first and cuts.
    board = Board("rnb1kbnr/pppp1ppp/8/4p3/3q4/2P5/PP1PPPPP/RNBQKBNR w KQkq - 0 1")
    s = searcher(True)
    score, _ = s.null_window(board, 3, s.evaluate(board) + 2 * round(s.pawn_unit))
    assert score > s.evaluate(board) and s.capture_history(board, "c3d4") > 0


@pytest.mark.parametrize("trial, first", [(False, "e4f5"), (True, "e4d5")])
def test_a_capture_with_a_good_history_goes_before_a_bigger_victim_only_with_the_trial(trial, first):
    board = Board(TWO_VICTIMS)
    s = searcher(trial)
    assert s.ordered_moves(board)[:2] == ["e4f5", "e4d5"]      # empty table: the knight first
    s.set_capture_history(board, "e4d5", 16000)
    s.set_capture_history(board, "e4f5", -1000)
    assert s.capture_history(board, "e4d5") == 16000
    assert s.ordered_moves(board)[0] == first


def test_the_hooks_refuse_a_quiet_move_and_a_value_past_the_limit():
    s, board = searcher(True), Board(TWO_VICTIMS)
    with pytest.raises(ValueError, match="captures nothing"):
        s.capture_history(board, "e1e2")
    with pytest.raises(ValueError, match="within"):
        s.set_capture_history(board, "e4d5", 20000)


def test_the_ordering_changes_the_tree_and_stays_deterministic_at_fixed_depth():
    def nodes(trial: bool):
        e = engine(trial)
        e.set_position(MIDDLEGAME)
        result = e.search(Limits(depth=8))
        assert chess.Move.from_uci(result.bestmove) in chess.Board(MIDDLEGAME).legal_moves
        return result.nodes, result.bestmove
    plain, first, again = nodes(False), nodes(True), nodes(True)
    assert first == again
    assert first[0] != plain[0]


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Capture History", MIDDLEGAME)


def test_a_mate_search_with_the_trial_still_proves_the_mate():
    e = engine(True)
    e.set_position("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1")     # mate in 2: Ra6!
    assert e.search(Limits(mate=2)).bestmove == "a1a6"
