"""Correction history by material and by non-pawn pieces (a trial behind the Correction
History option): the static evaluation the search reads adds correction_material_weight
percent of the side to move's entry by material and correction_non_pawn_weight percent of
its entries by White's and by Black's pieces other than pawns; after a search out of check
whose score is not a bound on the wrong side of that evaluation (and not raised by a
capture), each entry moves min(depth + 1, correction_max_weight) / 256 of the error.
Off, nothing changes."""

from __future__ import annotations

from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import CORRECTION_UNIT, FEATURE_NAMES

from trial_helpers import (TRIAL_GENOME, assert_a_mate_search_keeps_it_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_searcher)

CORRECTION = FEATURE_NAMES["correction_history"]
DEFAULTS = {gene.name: gene.default for gene in GENES}
MATERIAL_WEIGHT = DEFAULTS["correction_material_weight"]
NON_PAWN_WEIGHT = DEFAULTS["correction_non_pawn_weight"]
# Quiet: no capture for the side to move, so quiescence stands pat on the evaluation.
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The same pieces, a pawn moved (White to move again): the same three entries.
PAWN_MOVED = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
# A white knight moved: White's non-pawn entry differs, the other two do not.
KNIGHT_MOVED = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1"
MIDDLEGAME = "r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1"
QUIET_MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 1"
# Planted entries (in CORRECTION_UNIT parts of an evaluation unit) whose weighted sum
# divides evenly: 40% of 1000 units + 30% of (200 - 100).
PLANTED = (1000 * CORRECTION_UNIT, 200 * CORRECTION_UNIT, -100 * CORRECTION_UNIT)


def truncated(numerator: int, denominator: int) -> int:
    """C's integer division (the core is built with cdivision): toward zero."""
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


def correction(material: int, white: int, black: int) -> int:
    """What the entries add to the evaluation, in evaluation units."""
    return truncated(MATERIAL_WEIGHT * material + NON_PAWN_WEIGHT * (white + black),
                     100 * CORRECTION_UNIT)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("Correction History", CORRECTION)


def test_a_planted_entry_shifts_the_evaluation_the_search_reads_by_the_formula():
    s, board = trial_searcher(CORRECTION), Board(START)
    evaluation = s.evaluate(board)
    assert s.search_evaluation(board) == evaluation and s.corrections(board) == (0, 0, 0)
    s.set_corrections(board, *PLANTED)
    assert s.corrections(board) == PLANTED
    shift = correction(*PLANTED)
    assert shift == 430
    assert s.search_evaluation(board) == evaluation + shift
    assert s.quiesce(board)[0] == evaluation + shift          # quiescence's stand pat
    assert s.evaluate(board) == evaluation                    # explain's and the tuners' view
    # The other side to move has tables of its own.
    black = Board(START.replace(" w ", " b "))
    assert s.corrections(black) == (0, 0, 0)
    assert s.search_evaluation(black) == s.evaluate(black)


def test_the_keys_follow_material_and_each_sides_non_pawn_pieces_not_pawns():
    s = trial_searcher(CORRECTION)
    s.set_corrections(Board(START), *PLANTED)
    assert s.corrections(Board(PAWN_MOVED)) == PLANTED
    material, white, black = s.corrections(Board(KNIGHT_MOVED))
    assert (material, black) == (PLANTED[0], PLANTED[2]) and white != PLANTED[1]
    # A pawn fewer: the material entry is another, the non-pawn ones are the same.
    assert s.corrections(Board(START.replace("PPPPPPPP", "PPPPPPP1")))[1:] == PLANTED[1:]
    assert s.corrections(Board(START.replace("PPPPPPPP", "PPPPPPP1")))[0] != PLANTED[0]


def test_with_the_option_off_a_planted_entry_changes_nothing_and_is_not_taught():
    board = Board(QUIET_MIDDLEGAME)
    plain = trial_searcher(0)
    reference = plain.search(board, max_depth=7)
    s = trial_searcher(0)
    s.set_corrections(board, *PLANTED)
    assert s.search_evaluation(board) == s.evaluate(board)
    result = s.search(board, max_depth=7)
    assert (result["nodes"], result["lines"]) == (reference["nodes"], reference["lines"])
    assert s.corrections(board) == PLANTED


def one_node(planted: tuple[int, int, int]) -> tuple[int, int, tuple[int, int, int]]:
    """(the corrected evaluation, the score, the entries after) of a depth-1 null-window
    node of QUIET_MIDDLEGAME with `planted` entries and beta just above that evaluation
    (so that reverse futility does not cut it): its children go straight to quiescence,
    which teaches nothing, so the node's own update is the only one."""
    s, board = trial_searcher(CORRECTION), Board(QUIET_MIDDLEGAME)
    s.set_corrections(board, *planted)
    evaluation = s.search_evaluation(board)
    assert evaluation == s.evaluate(board) + correction(*planted)
    score, _ = s.null_window(board, 1, evaluation + 1)
    return evaluation, score, s.corrections(board)


def test_one_node_moves_its_entries_by_the_error_it_found():
    # The evaluation two pawns' entry for material too good (40%: 0.8 pawn): the node
    # fails low below it, and each of its three entries moves min(1 + 1, 16) / 256 of
    # the error (in entry units, error * 2).
    pawn = int(trial_searcher(0).pawn_unit) * CORRECTION_UNIT
    planted = (2 * pawn, 0, 0)
    evaluation, score, after = one_node(planted)
    assert score < evaluation
    step = (score - evaluation) * 2 * CORRECTION_UNIT // 256
    assert after == tuple(entry + step for entry in planted)
    # Planted past the bound (correction_limit: two pawns), an entry comes back to it.
    evaluation, score, after = one_node((3 * pawn, 0, 0))
    step = (score - evaluation) * 2 * CORRECTION_UNIT // 256
    assert step < 0 and after == (2 * pawn, step, step)


def test_a_search_pulls_a_wrong_entry_back_and_stays_deterministic():
    # Planted: the evaluation 1.5 pawns too good for White. White's searches find less,
    # and the entry for White's material comes down, never past its bound of two pawns.
    board = Board(QUIET_MIDDLEGAME)

    def search(planted: int):
        s = trial_searcher(CORRECTION)
        s.set_corrections(board, planted, 0, 0)
        result = s.search(board, max_depth=8)
        return s.corrections(board), result["nodes"], result["lines"][0]

    pawn = int(trial_searcher(0).pawn_unit) * CORRECTION_UNIT
    (material, white, black), nodes, line = search(3 * pawn // 2)
    assert -2 * pawn <= material < 3 * pawn // 2
    assert search(3 * pawn // 2) == ((material, white, black), nodes, line)
    assert search(0)[1] != nodes                              # the planted entry changed the tree


def test_clear_and_a_new_genome_forget_the_entries():
    s, board = trial_searcher(CORRECTION), Board(START)
    s.set_corrections(board, *PLANTED)
    s.clear()
    assert s.corrections(board) == (0, 0, 0)
    s.set_corrections(board, *PLANTED)
    s.set_genome(TRIAL_GENOME.pack())
    assert s.corrections(board) == (0, 0, 0)


def test_a_mate_search_keeps_the_trial_and_proves_the_mate():
    # Sound for a proof (it moves no mate score), so not in MATE_UNSOUND.
    assert_a_mate_search_keeps_it_and_proves_the_mate(trial_searcher(CORRECTION), CORRECTION)


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move("Correction History", MIDDLEGAME)
