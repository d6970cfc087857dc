"""The Kendall-Whitwell study's player: a fixed-depth alpha-beta search with a
depth-checked hash table, captures and promotions ordered by the genome's own
piece values, and quiescence capped at a multiple of the depth. Deterministic.

Ordering is checked against python-chess's idea of captures, promotions and
movers; the hash table's depth rule by putting scores in it by hand.
"""

import random
import threading

import chess
import pytest

from genchess.genome import MaterialGenome, hand_set_genome
from genchess.parallel.worker import GameJob, play_job
from genchess_core import Board
from genchess_core.searcher import ALL_FEATURES, KENDALL_WHITWELL_FEATURES as KW, Searcher

CLASSICAL = (1, 3, 3.25, 5, 9, 0, 0.1)
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def kw_searcher(weights=CLASSICAL, cap=3.0) -> Searcher:
    searcher = Searcher(4)
    searcher.set_genome(MaterialGenome(1, weights).pack())
    searcher.features = KW
    searcher.quiescence_cap = cap
    return searcher


def gain(board: chess.Board, move: chess.Move, values) -> int:
    """What the ordering ranks a capture or promotion by, in internal units."""
    total = 0
    if board.is_en_passant(move):
        total += values[0]
    elif board.is_capture(move):
        total += values[board.piece_type_at(move.to_square) - 1]
    if move.promotion:
        total += values[move.promotion - 1] - values[0]
    return total


def test_value_ordering_is_captures_by_gain_then_quiet_moves_by_mover(perftsuite_fens):
    rng = random.Random(4)
    fens = rng.sample(perftsuite_fens, 40) + [KIWIPETE, "8/P1k5/8/8/8/8/5Kp1/7R b - - 0 1"]
    for n, fen in enumerate(fens):
        weights = [round(rng.uniform(0, 12), 3) for _ in range(7)]
        values = [int(w * 1000) for w in weights[:6]]
        board = chess.Board(fen)
        order = [chess.Move.from_uci(u) for u in kw_searcher(weights).ordered_moves(Board(fen))]
        assert sorted(order, key=chess.Move.uci) == sorted(board.legal_moves, key=chess.Move.uci)
        forcing = [m for m in order if board.is_capture(m) or m.promotion]
        assert order[:len(forcing)] == forcing, f"a quiet move before a capture in {fen}"
        gains = [gain(board, m, values) for m in forcing]
        assert gains == sorted(gains, reverse=True), fen
        movers = [values[board.piece_type_at(m.from_square) - 1] for m in order[len(forcing):]]
        assert movers == sorted(movers, reverse=True), fen


def test_captures_are_ranked_by_the_players_own_weights():
    fen = "4k3/8/8/2n1b3/3P4/8/8/4K3 w - - 0 1"          # d4 takes the knight or the bishop
    knight_dear = kw_searcher((1, 5, 2, 5, 9, 0, 0)).ordered_moves(Board(fen))
    bishop_dear = kw_searcher((1, 2, 5, 5, 9, 0, 0)).ordered_moves(Board(fen))
    assert knight_dear[:2] == ["d4c5", "d4e5"]
    assert bishop_dear[:2] == ["d4e5", "d4c5"]


def test_promotion_is_valued_as_the_new_piece_minus_the_pawn():
    fen = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"              # a7-a8 or a7xb8, each with 4 promotions
    order = kw_searcher((1, 4, 3, 5, 6, 0, 0)).ordered_moves(Board(fen))
    # axb8=Q gains 4 + (6 - 1), axb8=R 4 + 4, a8=Q 5, axb8=N 4 + 3, a8=R 4, a8=N 3, a8=B 2.
    assert order[0] == "a7b8q"
    assert order.index("a7b8r") < order.index("a7b8n") < order.index("a7a8q") \
        < order.index("a7a8r") < order.index("a7a8n") < order.index("a7a8b")


def test_hash_table_gives_a_score_only_when_searched_deep_enough():
    """A planted score for the position after a2a3 is used by a depth-d search only
    when its depth is at least d-1, the depth the search plans there."""
    board = Board()
    after = Board()
    after.push_uci("a2a3")
    planted = -400_000                      # black to move: a2a3 looks winning for white
    for depth in (2, 3):
        deep, shallow = kw_searcher(), kw_searcher()
        deep.store(after, planted, depth - 1)
        shallow.store(after, planted, depth - 2)
        taken = deep.search(board, max_depth=depth)["lines"][0]
        assert taken[0] == -planted and taken[1][0] == "a2a3"
        ignored = shallow.search(board, max_depth=depth)["lines"][0]
        assert abs(ignored[0]) < 10_000 and ignored[1][0] != "a2a3", ignored


def test_quiescence_stops_at_the_cap():
    board = Board(KIWIPETE)
    uncapped = kw_searcher(cap=0).search(board, max_depth=2)
    assert uncapped["seldepth"] > 3
    for cap in (1.5, 2.0):
        result = kw_searcher(cap=cap).search(board, max_depth=2)
        assert result["seldepth"] <= int(cap * 2)


def test_default_features_do_not_include_the_value_ordering():
    assert KW & ~ALL_FEATURES, "the value ordering is an opt-in switch"
    searcher = Searcher(4)
    searcher.set_genome(hand_set_genome().pack())
    # The default ordering (MVV-LVA) is untouched: same moves, different order here.
    value = kw_searcher().ordered_moves(Board(KIWIPETE))
    default = searcher.ordered_moves(Board(KIWIPETE))
    assert sorted(value) == sorted(default) and value != default


def kw_job(white, black, depth=2):
    return GameJob.between(white, black, round=1, depth=depth, features=KW, quiescence_cap=3.0)


def test_fixed_depth_player_plays_the_same_game_twice():
    rng = random.Random(9)
    a, b, c = (MaterialGenome.random(rng, i) for i in range(3))
    first = play_job(kw_job(a, b)).record
    play_job(kw_job(b, c))                  # the worker's engines play something else between
    again = play_job(kw_job(a, b)).record
    fresh = []                              # and new engines (another thread's) agree
    thread = threading.Thread(target=lambda: fresh.append(play_job(kw_job(a, b)).record))
    thread.start()
    thread.join()
    assert first.moves == again.moves == fresh[0].moves
    assert first.result == again.result == fresh[0].result
    assert first.time_control == "-" and len(first.moves) > 0
    swapped = play_job(kw_job(b, a)).record
    assert swapped.moves != first.moves


@pytest.mark.parametrize("depth", [1, 3])
def test_fixed_depth_game_ends_by_the_rules(depth):
    rng = random.Random(depth)
    a, b = MaterialGenome.random(rng, 1), MaterialGenome.random(rng, 2)
    record = play_job(kw_job(a, b, depth)).record
    board = chess.Board()
    for move in record.moves:
        board.push_uci(move)
    assert record.result in ("1-0", "0-1", "1/2-1/2")
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None or record.termination == "move limit", record.reason
