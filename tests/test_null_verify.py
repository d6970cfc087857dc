"""The zugzwang guard for null moves (a trial behind the Null Verify option): from
null_verify_min_depth on, a null move's cut stands only if the node, searched R plies
shallower with no null move of its own, holds beta too. Off, nothing changes."""

from __future__ import annotations

from genchess_core import Board
from genchess_core.searcher import FEATURE_NAMES, MATE

from trial_helpers import assert_option_sets_the_bit, assert_two_threads_play_a_legal_move, trial_searcher

NULL_VERIFY = FEATURE_NAMES["null_verify"]
MATE_IN_TWO = MATE - 3          # a mate in two moves: three plies from the root
# Mate in two by a quiet move: after Ra6! Black is in zugzwang (bxa6 b7#, a bishop move
# Rxa7#). Black keeps a bishop, so has_non_pawn_material allows its null move, and
# passing is Black's best "move": without the guard the default genome's search
# (null_min_depth 2) plays Ra5 at every depth to 12.
ZUGZWANG = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"
MATE_MOVE = "a1a6"
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"


def best_line(bits: int, depth: int, tunables: dict | None = None):
    s = trial_searcher(bits)
    if tunables:
        s.set_tunables({**s.tunables, **tunables})
    result = s.search(Board(ZUGZWANG), max_depth=depth)
    score, pv = result["lines"][0]
    return score, pv[0], result["nodes"], s.null_verifications


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Null Verify", NULL_VERIFY)


def test_null_moves_hide_the_quiet_mate_and_the_guard_finds_it():
    without_null = trial_searcher(0)
    without_null.features = without_null.features & ~FEATURE_NAMES["null_move"]
    result = without_null.search(Board(ZUGZWANG), max_depth=3)
    assert result["lines"][0][1][0] == MATE_MOVE          # no null moves: found at depth 3
    score, move, _, verified = best_line(0, 8)
    assert move != MATE_MOVE and score < MATE_IN_TWO and verified == (0, 0)
    score, move, nodes, (verified, refuted) = best_line(NULL_VERIFY, 6)
    assert move == MATE_MOVE and score == MATE_IN_TWO
    assert verified > 0 and refuted > 0
    assert best_line(NULL_VERIFY, 6) == (score, move, nodes, (verified, refuted))   # deterministic


def test_below_its_minimum_depth_nothing_is_verified():
    score, move, _, verified = best_line(NULL_VERIFY, 8, {"null_verify_min_depth": 16})
    assert verified == (0, 0) and move != MATE_MOVE
    assert best_line(NULL_VERIFY, 8, {"null_verify_min_depth": 16})[:3] == best_line(0, 8)[:3]


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Null Verify", MIDDLEGAME)
