"""History pruning (a trial behind the History Pruning option): near the leaves, in a node
off the principal variation and out of check, once a real score is in hand, a quiet move
whose history and continuation histories add up to less than minus history_prune_margin
per ply is skipped; a mate search turns it off; off, nothing changes."""

from __future__ import annotations

import pytest

from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import (assert_a_mate_search_turns_it_off_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_searcher)
from trial_helpers import game_line as trial_game_line

HISTORY_PRUNING = FEATURE_NAMES["history_pruning"]
# The steps that would cut the test's node before the move loop or skip its late quiet
# moves on their own: without them the node's depth is the one given and only the step
# under test skips a move.
OTHERS = FEATURE_NAMES["lmp"] | FEATURE_NAMES["rfp"] | FEATURE_NAMES["iir"]
GENE = {gene.name: gene.default for gene in GENES}
MAX_DEPTH, MARGIN = GENE["history_prune_max_depth"], GENE["history_prune_margin"]
# White to move; Black's bishop on e5 attacks the knight on a1, whose one safe square is
# c2 (a4 takes on b3): every other move loses the knight.
CORNERED_KNIGHT = "6k1/5ppp/8/4b3/p7/7P/5PP1/N5K1 w - - 0 1"
ESCAPE = "a1c2"
# bench's position 19: a middlegame.
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"


def searcher(trial: bool) -> Searcher:
    s = trial_searcher(HISTORY_PRUNING if trial else 0)
    s.features = s.features & ~OTHERS
    return s


def escape_found(trial: bool, depth: int, history: int) -> tuple[bool, int]:
    """Whether a null-window search to `depth`, with beta a knight's loss below the static
    evaluation less half a pawn, finds the escape whose history is `history`; and how many
    quiet moves the step skipped."""
    board = Board(CORNERED_KNIGHT)
    s = searcher(trial)
    beta = s.evaluate(board) - round(1.5 * s.pawn_unit)
    s.set_history(board, ESCAPE, history)
    score, _ = s.null_window(board, depth, beta)
    return score >= beta, s.history_prunes


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("History Pruning", HISTORY_PRUNING)


@pytest.mark.parametrize("depth", range(1, MAX_DEPTH + 1))
def test_a_quiet_move_below_the_floor_is_skipped_and_one_on_it_is_searched(depth):
    # At the root of the test's search the continuation histories have no line to follow:
    # the move's statistics are its history alone.
    floor = -MARGIN * depth
    assert escape_found(True, depth, floor) == (True, 0)
    assert escape_found(True, depth, floor - 1) == (False, 1)
    assert escape_found(False, depth, floor - 1) == (True, 0)    # off, the same move is found


def test_farther_from_the_leaves_than_its_depth_nothing_is_skipped_at_the_node():
    found, _ = escape_found(True, MAX_DEPTH + 1, -16384)
    assert found


def test_the_hooks_refuse_a_capture_and_a_value_past_the_limit():
    s, board = searcher(True), Board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    with pytest.raises(ValueError, match="no quiet move"):
        s.history(board, "e4d5")
    with pytest.raises(ValueError, match="within"):
        s.set_history(board, "e4e5", -20000)
    s.set_history(board, "e4e5", -3000)
    assert s.history(board, "e4e5") == -3000


def game_line(trial: bool):
    """Eight moves of a game from MIDDLEGAME: its nodes, its moves and the quiet moves
    the step skipped."""
    return trial_game_line("History Pruning", trial, MIDDLEGAME, 8, lambda s: s.history_prunes)


def test_in_a_game_it_skips_moves_changes_the_tree_and_stays_deterministic():
    plain, first, again = game_line(False), game_line(True), game_line(True)
    assert first == again
    assert plain[2] == 0 and first[2] > 0
    assert first[0] != plain[0]


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("History Pruning", MIDDLEGAME)


def test_a_mate_search_turns_it_off_and_still_proves_the_mate():
    assert_a_mate_search_turns_it_off_and_proves_the_mate(HISTORY_PRUNING)
