"""The transposition table in quiescence (a default step of the search since its SPRT
passed; a trial behind the Quiescence Hash option before): quiescence probes the table,
cuts on a bound on the right side of its window, takes a bound as a better stand-pat
score, and stores what it found; with its bit off, it does none of it."""

from __future__ import annotations

import chess
import pytest

from genchess.engine import Engine
from genchess.genome import default_genome
from genchess.protocols.options import TRIALS
from genchess.timeman import Limits
from genchess_core import STARTING_FEN, Board
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import trial_searcher

QS_TT = FEATURE_NAMES["qs_tt"]
BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 1, 2, 3
# Black to move with captures on both sides (exd4, Nxd4, Qxd4 ...): a capture search
# of more than one node.
CAPTURES = "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3"


def searcher(on: bool) -> Searcher:
    s = trial_searcher(0)
    s.features = s.features | QS_TT if on else s.features & ~QS_TT
    return s


def test_it_is_a_default_step_and_no_longer_a_trial():
    assert trial_searcher(0).features & QS_TT
    assert Engine(default_genome()).searcher.features & QS_TT
    assert "Quiescence Hash" not in TRIALS


def test_an_entry_stored_by_quiescence_is_found_and_cuts():
    s, board = searcher(True), Board(CAPTURES)
    score, nodes = s.quiesce(board)
    assert nodes > 1 and s.probe(board) is not None
    stored_score, move, depth, bound = s.probe(board)
    assert (stored_score, depth, bound) == (score, 0, BOUND_EXACT)
    assert s.quiesce(board) == (score, 1)         # the second time: one node, cut at the probe


def test_without_it_quiescence_neither_stores_nor_cuts():
    s, board = searcher(False), Board(CAPTURES)
    score, nodes = s.quiesce(board)
    assert s.probe(board) is None
    assert s.quiesce(board) == (score, nodes)


@pytest.mark.parametrize("bound, offset, window, cuts", [
    (BOUND_LOWER, 300, (-50, 100), True),       # a lower bound at or above beta: fail high
    (BOUND_UPPER, -300, (-100, 50), True),      # an upper bound at or below alpha: fail low
    (BOUND_LOWER, -300, (-50, 100), False),     # on the wrong side of the window: searched
])
def test_a_bound_in_the_table_cuts_only_on_its_side_of_the_window(bound, offset, window, cuts):
    board = Board(CAPTURES)
    plain, plain_nodes = searcher(False).quiesce(board, *window)
    s = searcher(True)
    s.store(board, plain + offset, 0, bound=bound)
    score, nodes = s.quiesce(board, plain + window[0], plain + window[1])
    if cuts:
        assert (score, nodes) == (plain + offset, 1)
    else:
        assert nodes > 1


@pytest.mark.parametrize("bound, offset", [(BOUND_LOWER, 40), (BOUND_UPPER, -40)])
def test_a_bound_is_a_better_stand_pat_score(bound, offset):
    # The start position has no capture, so quiescence is its stand pat: the evaluation,
    # or a bound from the table that says the position is worth more (lower bound above
    # it) or less (upper bound below it).
    board = Board(STARTING_FEN)
    evaluation, nodes = searcher(False).quiesce(board)
    assert nodes == 1
    s = searcher(True)
    s.store(board, evaluation + offset, 0, bound=bound)
    assert s.quiesce(board) == (evaluation + offset, 1)
    # A bound on the other side of the evaluation tells nothing more.
    s.store(board, evaluation - offset, 0, bound=bound)
    assert s.quiesce(board)[0] == evaluation


def test_a_search_with_it_plays_legal_moves_and_finds_mates():
    engine = Engine(default_genome())
    engine.set_position(CAPTURES)
    result = engine.search(Limits(depth=7))
    assert chess.Move.from_uci(result.bestmove) in chess.Board(CAPTURES).legal_moves
    engine.set_position("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1")     # mate in 2: Ra6!
    assert engine.search(Limits(mate=2)).bestmove == "a1a6"
