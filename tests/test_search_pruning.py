"""Safety of the search's selective heuristics (issue 15).

Every pruning or reduction switch (genchess_core.searcher.FEATURE_NAMES) must keep
what no search may lose: a mate in one at every depth, and the recapture in
positions where anything else drops material. The recapture positions come from
Stockfish games from the openings book: Stockfish 15 at depth 12 prefers the
recapture by at least 250 cp over any other move, and the position is level.
A second group of tests pins each heuristic's own behaviour, so that a switch
that silently does nothing fails too.
"""

import chess
import pytest

from genchess.engine import Engine
from genchess.timeman import Limits
from genchess_core.board import Board
from genchess_core.searcher import ALL_FEATURES, FEATURE_NAMES, Searcher

from genchess.genome.material import MaterialGenome
from genchess.timeman import Limits

from test_search import MATE_IN_1, MIDDLEGAMES, Score, assert_legal, make_engine, search

# The selective switches: each may cut the tree, so each is checked here.
PRUNING_FEATURES = ["qs_see", "rfp", "futility", "lmr", "lmp", "delta", "iir", "improving"]
# The search before issue 15's steps, with none of the switches above.
PLAIN = ALL_FEATURES & ~sum(FEATURE_NAMES[name] for name in PRUNING_FEATURES)


def alone_and_with_all(name):
    """Each switch is checked on its own beside the plain search, where nothing else
    can cover for it, and in the full search, where the switches act together."""
    return [("alone", PLAIN | FEATURE_NAMES[name]), ("all", ALL_FEATURES)]

MATES_IN_ONE = MATE_IN_1 + [
    # Scholar's mate: the queen takes a pawn the king guards (ignoring the c4 bishop).
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7"),
    # Smothered mate by a knight that the queen could take if it were legal.
    ("6rk/6pp/7N/8/8/8/6PP/6K1 w - - 0 1", "h6f7"),
    # A quiet back-rank mate, far from any capture.
    ("k7/pp6/8/8/8/8/8/3R2K1 w - - 0 1", "d1d8"),
]

# (FEN, the recaptures): anything else loses a piece or more.
FORCED_RECAPTURES = [
    ("r1bqr1k1/pp3pp1/5N1p/b2P1n2/2B2P2/2N5/PP1B2PP/R2Q1RK1 b - - 0 14", {"d8f6", "g7f6"}),
    ("r2qk2r/pp3ppp/2nbpB2/3p4/3P3P/6PN/PP2PPB1/1R1Q1RK1 b kq - 0 7", {"d8f6", "g7f6"}),
    ("r2qkb1r/pppb1ppp/2n1p3/8/3Pn3/P1N5/1PP2PPP/R1BQKB1R w KQkq - 0 5", {"c3e4"}),
    ("r3kbnr/ppq3p1/2pp3p/4n3/1P2P3/P1N1BbPP/2P1Q1B1/R3K2R w KQkq - 0 13", {"e2f3", "g2f3"}),
    ("r2q1rk1/ppp3p1/2nbb2p/3p4/7P/2PPnN2/PPNQPPB1/R3K2R w KQ - 0 10", {"c2e3", "d2e3", "f2e3"}),
    ("2kr1b2/2p1n2p/1p5P/pN1p2p1/1P6/P1q2N2/2bP1PP1/n1B1KB1R w - - 0 15", {"b5c3", "d2c3"}),
    ("r4rk1/pbp3pp/3b4/1p2np2/5N2/1qB1PP2/PP2NKPP/R2R4 w - - 0 19", {"a2b3"}),
    ("r3r1k1/1pp3pp/1n2bp1n/pP6/2PqN1P1/5P2/PB5P/1K2RB1R w - - 0 18", {"b2d4"}),
]


def test_the_pruning_list_names_real_switches():
    for name in PRUNING_FEATURES:
        assert FEATURE_NAMES[name] & ALL_FEATURES, f"{name} is not on in the full search"


@pytest.mark.parametrize("name", PRUNING_FEATURES)
@pytest.mark.parametrize("fen, key", MATES_IN_ONE)
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_no_pruning_loses_a_mate_in_one(name, fen, key, depth):
    # The mate must survive every depth, where the pruning acts at different
    # distances from the leaves.
    for how, features in alone_and_with_all(name):
        result = search(fen, depth=depth, features=features)
        assert result.bestmove == key, how
        assert result.score == Score(mate=1), how


@pytest.mark.parametrize("name", PRUNING_FEATURES)
@pytest.mark.parametrize("fen, recaptures", FORCED_RECAPTURES)
@pytest.mark.parametrize("depth", [2, 4, 6])
def test_no_pruning_loses_a_forced_recapture(name, fen, recaptures, depth):
    for how, features in alone_and_with_all(name):
        result = search(fen, depth=depth, features=features)
        assert result.bestmove in recaptures, f"{how}: {result.bestmove} at depth {depth}"


@pytest.mark.parametrize("name", PRUNING_FEATURES)
@pytest.mark.parametrize("fen", MIDDLEGAMES)
def test_each_pruning_saves_nodes(name, fen):
    # Internal iterative reduction acts from depth 4, so it pays off only deeper.
    depth = 6 if name == "iir" else 5
    bit = FEATURE_NAMES[name]
    with_it = search(fen, depth=depth, features=ALL_FEATURES)
    without = search(fen, depth=depth, features=ALL_FEATURES & ~bit)
    assert with_it.nodes < without.nodes
    assert_legal(chess.Board(fen), with_it.bestmove)


# --------------------------------------------------------------------------- SEE in quiescence

def test_quiescence_searches_every_evasion_even_a_losing_capture():
    # After Nf7+ black's only legal move is ...Qxf7, a queen for a knight guarded by
    # the f1 rook (SEE -580). Pruned, quiescence would see no move and call it
    # mate; white would announce a mate in one that is not there.
    fen = "6rk/6pp/8/3q2N1/8/8/6PP/5RK1 w - - 0 1"
    for depth in (1, 2, 3):
        result = search(fen, depth=depth, features=ALL_FEATURES)
        assert result.score.mate is None, f"phantom mate at depth {depth}: {result.score}"


def test_quiescence_skips_a_losing_capture_and_keeps_a_winning_one():
    # The queen can take a pawn guarded by a pawn (SEE -800) or a loose knight.
    # Below the root, quiescence with SEE pruning never tries the losing capture
    # (fewer nodes); the winning one it keeps, so the choice is the same.
    fen = "4k3/8/2p5/3p4/6n1/8/8/3QK3 w - - 0 1"
    bit = FEATURE_NAMES["qs_see"]
    # A plain alpha-beta with quiescence, so that no other pruning hides the difference.
    plain = sum(FEATURE_NAMES[name] for name in ("alphabeta", "ordering", "quiescence", "pvs"))
    for depth in (1, 2, 3):
        with_see = search(fen, depth=depth, features=plain | bit)
        without = search(fen, depth=depth, features=plain)
        assert with_see.bestmove == without.bestmove == "d1g4"
        if depth >= 2:
            assert with_see.nodes < without.nodes


# --------------------------------------------------------------------------- reverse futility

def test_a_big_lead_does_not_hide_a_mate_threat():
    # White is two rooks for a bishop up, but ...Qg2 is mate (the b7 bishop behind
    # the queen): 26 of White's 32 moves allow it. Reverse futility in the nodes
    # below must not stand on White's lead and miss the threat.
    fen = "6k1/1b3ppp/8/8/8/5q2/5P1P/QRR3K1 w - - 0 1"
    for depth in (2, 3, 4, 5, 6):
        result = search(fen, depth=depth, features=ALL_FEATURES)
        board = chess.Board(fen)
        board.push_uci(result.bestmove)
        for reply in list(board.legal_moves):
            board.push(reply)
            assert not board.is_checkmate(), f"depth {depth}: {result.bestmove} allows {reply}"
            board.pop()


# --------------------------------------------------------------------------- futility pruning

def test_a_side_far_behind_still_finds_a_mate_by_quiet_checks():
    # White is a rook and more down (Q+N against Q+2R) but mates in two:
    # Qg8+ Rxg8 Nf7#, two quiet checks. After Rxg8 White is a queen down more, the
    # node is futile, and every quiet move but a check is skipped: the mate stays.
    fen = "r6k/6pp/7N/8/2Q5/q7/1r4PP/6K1 w - - 0 1"
    for depth in (3, 4, 5, 6):
        result = search(fen, depth=depth, features=ALL_FEATURES)
        assert result.bestmove == "c4g8", f"depth {depth}: {result.bestmove}"
        assert result.score == Score(mate=2)


def test_futility_pruning_skips_quiet_moves_in_a_lost_position():
    # Black is a queen and rook down: in its nodes near the leaves no quiet move
    # can make up the difference, so futility pruning cuts there (the plain
    # search with only alpha-beta, ordering, quiescence and PVS beside it, so no
    # other pruning hides the difference) and chooses the same move.
    fen = "4k3/pp3ppp/8/8/8/8/PPQ2PPP/3R2K1 b - - 0 1"
    bit = FEATURE_NAMES["futility"]
    plain = sum(FEATURE_NAMES[name] for name in ("alphabeta", "ordering", "quiescence", "pvs"))
    for depth in (3, 4):
        with_it = search(fen, depth=depth, features=plain | bit)
        without = search(fen, depth=depth, features=plain)
        assert with_it.nodes < without.nodes
        assert_legal(chess.Board(fen), with_it.bestmove)


# --------------------------------------------------------------------------- aspiration windows

@pytest.mark.parametrize("pawn", [0.002, 1.0])
def test_aspiration_windows_are_never_empty(pawn):
    # The first window is a quarter pawn either side of the last score, at least one
    # unit: a genome whose pawn is below 4 units (here a material genome with pawn
    # weight 0.002, 2 units) once got an empty window, which fails at every iteration
    # and costs a search again each time. The same material genome at any scale must
    # play the same search: without any fail here, as at a pawn of 1.
    weights = [pawn * w for w in (1, 3, 3, 5, 9, 0, 0)]
    engine = make_engine("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                         genome=MaterialGenome(1, weights))
    result = engine.search(Limits(depth=7))
    assert result.score == Score(cp=0)
    assert engine.searcher.aspiration_researches == 0


def test_aspiration_researches_are_counted():
    # The counter the test above reads: depth 5 here fails low far from depth 4's score.
    engine = make_engine("r1bqkb1r/pp3ppp/4pn2/8/2P5/1P1p1NNP/P1QP1PP1/1RB1KB1R b Kkq - 0 1")
    engine.search(Limits(depth=5))
    assert engine.searcher.aspiration_researches >= 1


@pytest.mark.parametrize("fen, move, depth4, depth5", [
    # Depth 5 sees that the c3 rook's capture of b2 is answered (+5.2 to +3.7 pawns):
    # the narrow window around +5.2 fails low.
    ("4r1k1/pp3pp1/8/8/1b1P4/2r2P1P/1P4P1/R1B2RK1 w - - 0 1", "b2c3", 522, 370),
    # Depth 5 finds half a pawn more than depth 4 (+1.2 to +1.7): it fails high.
    ("6n1/2pkp3/3p1q2/5p2/bP1n1P1N/3P2P1/PQ2P3/2R1K1N1 b - - 0 1", "d4f3", 120, 168),
])
def test_aspiration_fails_are_searched_again_to_the_full_window_score(fen, move, depth4, depth5):
    # With aspiration windows from depth 5, a score outside the first window is
    # searched again, wider, until it is exact: the same score and move as a
    # search without them, however far the score moved. On the plain search: the
    # history-driven reductions would let the two runs' trees differ for other
    # reasons (their histories differ once the windows do).
    scores = {}
    aspiration = FEATURE_NAMES["aspiration"]
    for name, features in (("with", PLAIN | aspiration), ("without", PLAIN & ~aspiration)):
        infos = []
        result = search(fen, depth=5, features=features, on_info=infos.append)
        scores[name] = ([(info.depth, info.score.cp) for info in infos if hasattr(info, "depth")][-2:],
                        result.bestmove)
    assert scores["with"] == scores["without"]
    assert scores["with"] == ([(4, depth4), (5, depth5)], move)


# --------------------------------------------------------------------------- SEE ordering

def test_a_capture_that_loses_material_is_ordered_after_the_quiet_moves():
    # Qxe5 takes a pawn the d6 pawn guards (it loses the queen); Qxb4 wins a free
    # pawn. Most valuable victim first would try both captures first; with SEE
    # ordering the losing one goes last, after every quiet move.
    fen = "4k3/8/3p4/4p3/1p6/8/8/4QK2 w - - 0 1"
    searcher = Searcher()
    searcher.features = ALL_FEATURES
    order = searcher.ordered_moves(Board(fen))
    assert order[0] == "e1b4" and order[-1] == "e1e5"
    searcher.features = ALL_FEATURES & ~FEATURE_NAMES["see_ordering"]
    assert searcher.ordered_moves(Board(fen))[:2] == ["e1b4", "e1e5"]


# --------------------------------------------------------------------------- singular extensions

@pytest.mark.parametrize("fen, recaptures", FORCED_RECAPTURES)
def test_a_forced_recapture_is_singular_and_searched_deeper(fen, recaptures):
    # At depth 8 the singular search (depth 7 and more) runs where the recapture is
    # the hash move: every other move is far worse, so the recapture is extended,
    # and the tree grows. It is still the move played.
    bit = FEATURE_NAMES["singular"]
    with_it = search(fen, depth=8, features=ALL_FEATURES)
    without = search(fen, depth=8, features=ALL_FEATURES & ~bit)
    assert with_it.bestmove in recaptures and without.bestmove in recaptures
    assert with_it.nodes != without.nodes


# --------------------------------------------------------------------------- reductions by history

def test_reductions_by_history_act_on_top_of_the_log_table():
    # Not a pruning of its own (a move with a good history is reduced less, so the
    # tree may grow): the full search keeps the mates and recaptures above; here,
    # that the switch acts at all, and only where late-move reductions do.
    bit = FEATURE_NAMES["lmr_history"]
    lmr = FEATURE_NAMES["lmr"]

    def nodes(features):
        # One engine for all the positions, as in a game: the statistics must grow
        # past LMR_HISTORY_STEP before the reductions change, and a fresh engine's
        # single search seldom gets them there.
        engine = Engine()
        engine.searcher.features = features
        total = 0
        for fen in MIDDLEGAMES + MIDDLEGAMES:
            engine.set_position(fen, [])
            total += engine.search(Limits(depth=8)).nodes
        return total

    assert nodes(ALL_FEATURES) != nodes(ALL_FEATURES & ~bit)
    assert nodes(ALL_FEATURES & ~lmr) == nodes(ALL_FEATURES & ~lmr & ~bit)
