"""Continuation history by plies (a trial behind the Cont History Plies option): a quiet
move's continuation history after the last move counts cont_history1_weight percent in the
order of quiet moves (its history and the other rows once), and a row four plies back (the
move the side to move made before its last), in the table of the rows one and two plies
back, is read by the ordering and by late-move reductions and taught at every cutoff, bonus
and malus, except in check; off, nothing changes."""

from __future__ import annotations

import chess
import pytest

from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import (assert_a_mate_search_keeps_it_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_engine,
                           trial_searcher)

CONT_HISTORY_PLIES = FEATURE_NAMES["cont_history_plies"]
# Steps that would end the test's node before its move loop or skip its quiet moves: without
# them the node searches its moves in the order its statistics give.
OTHERS = FEATURE_NAMES["lmp"] | FEATURE_NAMES["rfp"] | FEATURE_NAMES["iir"] | FEATURE_NAMES["null_move"]
# Four plies from START (h3, Kg8, Kg1, Be5) reach a node where Black's bishop attacks the
# knight on a1, whose one safe square is c2 (b3 is covered by the a4 pawn), with no
# capture for White. Each of the four moves has its own piece and square, so the rows one,
# two and four plies back are three different rows of the one table.
START = "7k/5ppp/3b4/8/p7/8/5PPP/N6K w - - 0 1"
LINE = ["h2h3", "h8g8", "h1g1", "d6e5"]
ESCAPE, OTHER = "a1c2", "f2f3"
# The same line with a last move that checks (Bh2+): the node is in check.
CHECK_LINE = ["h2h3", "h8g8", "h1g1", "d6h2"]
WEIGHT = {gene.name: gene.default for gene in GENES}["cont_history1_weight"]
# bench's position 19: a middlegame.
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"


def searcher(trial: bool) -> Searcher:
    s = trial_searcher(CONT_HISTORY_PLIES if trial else 0)
    s.features = s.features & ~OTHERS
    return s


def node(line=LINE) -> Board:
    board = Board(START)
    for move in line:
        board.push_uci(move)
    return board


def first_of(s: Searcher, moves, line=LINE) -> str:
    """Which of `moves` the node at the end of `line` orders first."""
    order = s.ordered_moves(Board(START), line)
    return min(moves, key=order.index)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Cont History Plies", CONT_HISTORY_PLIES)


@pytest.mark.parametrize("trial", [False, True])
def test_a_planted_entry_four_plies_back_moves_a_quiet_move_up_only_with_the_trial(trial):
    s = searcher(trial)
    s.set_history(node(), ESCAPE, 100)
    assert first_of(s, (ESCAPE, OTHER)) == ESCAPE
    s.set_continuation_history(Board(START), LINE + [OTHER], 4, 200)
    assert s.continuation_history(Board(START), LINE + [OTHER], 4) == 200
    assert s.continuation_history(Board(START), LINE + [OTHER], 1) == 0     # another row
    assert first_of(s, (ESCAPE, OTHER)) == (OTHER if trial else ESCAPE)


def test_in_check_the_row_four_plies_back_is_not_read():
    s = searcher(True)
    assert node(CHECK_LINE).is_check()
    s.set_history(node(CHECK_LINE), "g1h1", 100)
    s.set_continuation_history(Board(START), CHECK_LINE + ["g1f1"], 4, 200)
    assert first_of(s, ("g1h1", "g1f1"), CHECK_LINE) == "g1h1"


@pytest.mark.parametrize("trial", [False, True])
def test_the_last_moves_row_weighs_its_gene_with_the_trial_and_once_without(trial):
    # 300 once is below the other move's history of 400, twice (the gene's 200%) above it.
    assert WEIGHT == 200
    s = searcher(trial)
    s.set_history(node(), ESCAPE, 400)
    s.set_continuation_history(Board(START), LINE + [OTHER], 1, 300)
    assert first_of(s, (ESCAPE, OTHER)) == (OTHER if trial else ESCAPE)
    s.set_tunables({**s.tunables, "cont_history1_weight": 100})
    assert first_of(s, (ESCAPE, OTHER)) == ESCAPE
    s.set_tunables({**s.tunables, "cont_history1_weight": 140})     # 420 against 400
    assert first_of(s, (ESCAPE, OTHER)) == (OTHER if trial else ESCAPE)


def rows_after_a_cutoff(trial: bool, depth: int) -> dict[str, list[int]]:
    """A null-window search of the node to `depth` with beta a knight's loss below its
    static evaluation less half a pawn: OTHER, ordered first by its history, loses the
    knight and fails low; ESCAPE, second, cuts. Each move's continuation histories one,
    two and four plies back after it."""
    board, s = node(), searcher(trial)
    beta = s.evaluate(board) - round(1.5 * s.pawn_unit)
    s.set_history(board, OTHER, 2000)
    s.set_history(board, ESCAPE, 1000)
    score, _ = s.null_window(Board(START), depth, beta, line=LINE)
    assert score >= beta
    return {move: [s.continuation_history(Board(START), LINE + [move], back) for back in (1, 2, 4)]
            for move in (ESCAPE, OTHER)}


@pytest.mark.parametrize("depth", [1, 2])
def test_a_cutoff_teaches_the_row_four_plies_back_bonus_and_malus_only_with_the_trial(depth):
    on, off = rows_after_a_cutoff(True, depth), rows_after_a_cutoff(False, depth)
    bonus = on[ESCAPE][0]
    assert bonus > 0
    assert on[ESCAPE] == [bonus, bonus, bonus]
    assert on[OTHER] == [-bonus, -bonus, -bonus]        # the malus of a quiet move tried before
    assert off[ESCAPE] == [bonus, bonus, 0]
    assert off[OTHER] == [-bonus, -bonus, 0]


def test_the_hooks_refuse_a_capture_a_short_line_and_a_value_past_the_limit():
    s = searcher(True)
    with pytest.raises(ValueError, match="no move 4 plies"):
        s.continuation_history(Board(START), LINE[:3] + [OTHER], 4)
    with pytest.raises(ValueError, match="no quiet move"):
        s.continuation_history(Board(START), ["h2h3", "h8g8", "h1g1", "a4a3", "g2g3", "a3a2", "a1b3", "a2a1q"], 4)
    with pytest.raises(ValueError, match="within"):
        s.set_continuation_history(Board(START), LINE + [OTHER], 4, 20000)


def game_line(trial: bool):
    """Six moves of a game from MIDDLEGAME, each searched to depth 7 by the engine that
    played the last (its statistics carried over, as in a game): its nodes and moves."""
    e = trial_engine("Cont History Plies", trial)
    moves, nodes = [], 0
    for _ in range(6):
        e.set_position(MIDDLEGAME, moves)
        result = e.search(Limits(depth=7))
        moves.append(result.bestmove)
        nodes += result.nodes
    board = chess.Board(MIDDLEGAME)
    for move in moves:
        assert chess.Move.from_uci(move) in board.legal_moves
        board.push_uci(move)
    return nodes, moves


def test_in_a_game_it_changes_the_tree_and_stays_deterministic():
    plain, first, again = game_line(False), game_line(True), game_line(True)
    assert first == again
    assert first[0] != plain[0]


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Cont History Plies", MIDDLEGAME)


def test_a_mate_search_keeps_it_and_still_proves_the_mate():
    # Ordering and reductions only, sound for a proof: a mate search keeps the trial on.
    e = trial_engine("Cont History Plies")
    e.set_position("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1")     # mate in 2: Ra6!
    result = e.search(Limits(mate=2))
    assert result.bestmove == "a1a6"
    assert_a_mate_search_keeps_it_and_proves_the_mate(trial_searcher(CONT_HISTORY_PLIES), CONT_HISTORY_PLIES)
