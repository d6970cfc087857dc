"""Fifty-move scaling (a trial behind the Rule50 Scaling option): the static evaluation the
main search and quiescence read shrinks toward a draw by (rule50_divisor - halfmove clock)
/ rule50_divisor; at clock 0, and with the option off, nothing changes."""

from __future__ import annotations

import pytest

from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES

from trial_helpers import assert_option_sets_the_bit, assert_two_threads_play_a_legal_move, trial_searcher

RULE50_SCALING = FEATURE_NAMES["rule50_scaling"]
DIVISOR = {gene.name: gene.default for gene in GENES}["rule50_divisor"]
# White a rook up, no capture on the board: quiescence stands pat on the evaluation.
ROOK_UP = "4k3/8/8/8/8/8/4P3/R3K3 {side} - - {clock} 60"
# A rook against a bare king: no capture or pawn move resets the clock in the search.
ROOK_ENDING = "4k3/8/8/8/8/8/8/R3K3 w - - {clock} 60"
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - {clock} 30"


def stand_pat(trial: bool, side: str, clock: int) -> tuple[int, int]:
    """(quiescence's score, the plain evaluation) of ROOK_UP with `side` to move."""
    s, board = trial_searcher(RULE50_SCALING if trial else 0), Board(ROOK_UP.format(side=side, clock=clock))
    score, _ = s.quiesce(board)
    return score, s.evaluate(board)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Rule50 Scaling", RULE50_SCALING)


@pytest.mark.parametrize("side", ["w", "b"])
def test_a_high_clock_scales_quiescence_toward_a_draw_and_clock_zero_does_not(side):
    plain, evaluation = stand_pat(False, side, 80)
    assert plain == evaluation and abs(evaluation) > 0
    assert stand_pat(False, side, 0)[0] == plain          # off, the clock changes nothing
    assert stand_pat(True, side, 0)[0] == plain           # on, clock 0 is the evaluation
    scaled, _ = stand_pat(True, side, 80)
    assert 0 < abs(scaled) < abs(plain) and (scaled > 0) == (plain > 0)
    assert abs(scaled) == abs(plain) * (DIVISOR - 80) // DIVISOR


def search_score(trial: bool, clock: int, depth: int = 7) -> tuple[int, list[str], int]:
    s = trial_searcher(RULE50_SCALING if trial else 0)
    result = s.search(Board(ROOK_ENDING.format(clock=clock)), max_depth=depth)
    score, pv = result["lines"][0]
    return score, pv, result["nodes"]


def test_the_main_search_scores_a_high_clock_nearer_a_draw_deterministically():
    # Clock 80, not higher: from 90 a line of this search (depth 7, extensions and
    # quiescence) reaches the hundredth half-move, a draw by the fifty-move rule with the
    # trial on or off, and the tree changes for that reason alone.
    plain = search_score(False, 80)
    assert search_score(False, 0) == plain                # off, the clock changes nothing
    assert search_score(True, 0) == search_score(True, 0)
    high = search_score(True, 80)
    assert high == search_score(True, 80)                 # deterministic at a fixed depth
    low = search_score(True, 0)
    assert abs(high[0]) < abs(low[0])
    assert high[2] != plain[2]                            # the tree itself changed


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Rule50 Scaling", MIDDLEGAME.format(clock=70))
