"""The GA tree search (search mode `ga`) and plain minimax (mode `minimax`).

The reservation tree, its changed back-up rule and the fitness H - K + 1 are
checked on hand-built trees through gasearch's test API (the same C functions the
search runs); crossover and mutation against python-chess on random branches; the
search itself for a legal move in awkward cases and a bounded pool; minimax for
the same value as alpha-beta; and whole games through both protocols.
"""

from __future__ import annotations

import random

import chess
import pytest

from genchess.genome import hand_set_genome
from genchess_core import Board
from genchess_core.gasearch import add_branches, crossover, ga_search, mutate, tree_from_branches
from genchess_core.searcher import FEATURE_NAMES, Searcher
from engine_helpers import Player, opening_fens, run_match


@pytest.fixture(scope="module")
def searcher():
    s = Searcher(4)
    s.set_genome(hand_set_genome().pack())
    return s


def random_branch(rng: random.Random, board: chess.Board, length: int) -> list[str]:
    board = board.copy()
    moves = []
    for _ in range(length):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    return moves


def first_illegal(board: chess.Board, moves: list[str]) -> int:
    """Index of the first move that is illegal in turn (len(moves) if none)."""
    board = board.copy()
    for i, uci in enumerate(moves):
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            return i
        board.push(move)
    return len(moves)


# ------------------------------------------------------------------ operators

def test_crossover_children_are_replayed_and_invalid_ones_dropped(searcher):
    rng = random.Random(5)
    fens = [chess.STARTING_FEN] + opening_fens(5, seed=3)
    kept = dropped = 0
    for fen in fens:
        board = chess.Board(fen)
        for _ in range(40):
            # Branches sharing a prefix often give legal children; others rarely do.
            a = random_branch(rng, board, rng.randint(2, 6))
            prefix = a[:rng.randint(0, len(a) - 1)]
            after = board.copy()
            for m in prefix:
                after.push_uci(m)
            b = prefix + random_branch(rng, after, rng.randint(1, 5))
            if len(a) < 2 or len(b) < 2:
                continue
            point = rng.randint(1, min(len(a), len(b)) - 1)
            children = crossover(searcher, Board(fen), a, b, point)
            for child, (x, y) in zip(children, ((a, b), (b, a))):
                expected = x[:point] + y[point:]
                legal = first_illegal(board, expected) == len(expected)
                if child is None:
                    assert not legal, (fen, x, y, point)
                    dropped += 1
                else:
                    assert child == expected and legal, (fen, x, y, point, child)
                    kept += 1
    assert kept > 20 and dropped > 20, (kept, dropped)


def test_crossover_examples(searcher):
    children = crossover(searcher, Board(), ["e2e4", "e7e5"], ["d2d4", "d7d5"], 1)
    assert children == [["e2e4", "d7d5"], ["d2d4", "e7e5"]]
    children = crossover(searcher, Board(), ["e2e4", "e7e5", "f1c4"], ["g1f3", "d7d5", "g2g3"], 1)
    assert children[0] == ["e2e4", "d7d5", "g2g3"]
    assert children[1] is None            # g1f3 e7e5 f1c4: the bishop is blocked by e2


def test_mutation_replaces_one_move_and_cuts_the_tail_at_the_first_illegal_move(searcher):
    rng = random.Random(9)
    for fen in [chess.STARTING_FEN] + opening_fens(4, seed=4):
        board = chess.Board(fen)
        for trial in range(30):
            a = random_branch(rng, board, rng.randint(1, 7))
            place = rng.randint(0, len(a))
            child = mutate(searcher, Board(fen), a, place, seed=trial + 1)
            assert child is not None
            assert child[:place] == a[:place]
            assert first_illegal(board, child) == len(child)       # the child replays
            if place < len(a):
                assert child[place] != a[place]
            tail = child[place + 1:]
            assert tail == a[place + 1:place + 1 + len(tail)]
            # Cut exactly at the first move of the old tail that is no longer legal.
            rest = a[place + 1 + len(tail):]
            if rest:
                assert first_illegal(board, child + rest[:1]) == len(child)


# ------------------------------------------------------------------ the reservation tree

def test_merge_and_changed_back_up_on_a_small_tree(searcher):
    # The pattern of the paper's Figs 13-16: a leaf extended later keeps its own value.
    branches = [["e2e4", "e7e5"], ["e2e4", "d7d5"], ["d2d4"], ["d2d4", "d7d5"], ["e2e4"]]
    values = [10, -20, 5, 30, 50]
    tree = tree_from_branches(searcher, Board(), branches, values)
    assert tree["size"] == 6              # root, e4, e4 e5, e4 d5, d4, d4 d5: prefixes shared
    assert tree["height"] == 2
    by_branch = tree["branches"]
    # d2d4 (a Min node) keeps its own 5 below its child's 30: plain minimax would say 30.
    assert by_branch[2]["path"] == [5, 5]
    # e2e4 ended a branch (50) after its replies: min(50, 10, -20) = -20.
    assert by_branch[4]["path"] == [5, -20]
    assert tree["root"] == 5 and tree["best"] == ["d2d4"]
    # Fitness H - K + 1 with H = 2: d2d4's 5 rises to the root (K = 0), e4 d5's -20
    # to level 1, e4 e5's 10 and d4 d5's 30 stay at level 2, and e2e4's own 50 no
    # longer holds its own node (K = 2: fitness H - depth).
    assert [b["fitness"] for b in by_branch] == [1, 2, 3, 1, 1]


def test_max_node_keeps_its_own_value_when_children_are_worse(searcher):
    base = [["e2e4", "e7e5"]]
    tree = tree_from_branches(searcher, Board(), base + [["e2e4", "e7e5", "g1f3"]], [10, 0])
    assert tree["branches"][0]["value"] == 10          # max(own 10, child 0)
    tree = tree_from_branches(searcher, Board(), base + [["e2e4", "e7e5", "g1f3"],
                                                         ["e2e4", "e7e5", "f1c4"]], [10, 40, -50])
    assert tree["branches"][0]["value"] == 40 and tree["root"] == 40
    assert tree["best"] == ["e2e4", "e7e5", "g1f3"]


def test_quiescence_adds_the_refuting_branch(searcher):
    # Qxc3 wins a knight, but Bxc3 takes the queen back: the tree must hold both.
    fen = "4k3/p6p/8/8/1b6/2n5/P2Q3P/6K1 w - - 0 1"
    result = add_branches(searcher, Board(fen), [["d2c3"]])
    ends = {tuple(moves): (own, value) for moves, own, value in result["ends"]}
    assert ("d2c3",) in ends
    refutations = [m for m in ends if m[:2] == ("d2c3", "b4c3")]
    assert refutations, ends
    own, value = ends[("d2c3",)]
    refuted = ends[refutations[0]][0]
    assert refuted < 0 < own                          # a queen for a knight, then up a knight
    assert value == refuted and result["root"] == refuted


# ------------------------------------------------------------------ the search

LEGAL_CASES = {
    "one legal move, in check": "7k/8/8/8/8/8/6q1/7K w - - 0 1",
    "in check": "r3k2r/ppp2ppp/2n5/1B1qp3/8/8/PPP2PPP/R1BQK2R w KQkq - 0 1",
    "start": chess.STARTING_FEN,
    "middle game": "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 9",
}


@pytest.mark.parametrize("name", sorted(LEGAL_CASES))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("limits", [dict(soft_time=1e-6, hard_time=1e-6), dict(node_limit=1),
                                    dict(soft_time=0.05, hard_time=0.1), dict(pool_nodes=5)])
def test_the_ga_always_returns_a_legal_move(searcher, name, level, limits):
    fen = LEGAL_CASES[name]
    searcher.clear_stop()
    options = {"soft_time": 0.05, "hard_time": 0.1, **limits}
    result = ga_search(searcher, Board(fen), level=level, **options)
    pv = result["lines"][0][1]
    board = chess.Board(fen)
    assert pv and chess.Move.from_uci(pv[0]) in board.legal_moves, (name, result)
    assert first_illegal(board, pv) == len(pv)


@pytest.mark.parametrize("pool", [50, 1000, 20000])
def test_the_pool_is_never_exceeded(searcher, pool):
    searcher.clear_stop()
    fen = LEGAL_CASES["middle game"]
    result = ga_search(searcher, Board(fen), soft_time=2.0, hard_time=3.0, pool_nodes=pool, level=2)
    assert result["tree_size"] <= pool
    assert result["time"] < 2.0 or pool == 20000      # a full pool ends the search early
    assert chess.Move.from_uci(result["lines"][0][1][0]) in chess.Board(fen).legal_moves


def test_a_level_2_start_cut_short_plays_only_a_completed_root_move(searcher):
    fen = LEGAL_CASES["middle game"]
    board = Board(fen)
    # The start takes root moves best static value first.
    order = []
    for move in board.legal_moves():
        after = board.copy()
        after.push_uci(move)
        order.append((searcher.evaluate(after), move))
    order = [move for _, move in sorted(order, key=lambda pair: pair[0])]
    searcher.clear_stop()
    result = ga_search(searcher, board, node_limit=5000, level=2)
    assert 0 < result["init_done"] < len(order)
    assert result["lines"][0][1][0] in order[:result["init_done"]]


def test_the_ga_finds_a_winning_capture(searcher):
    # A hanging queen: every branch through the capture backs up a queen ahead.
    fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
    searcher.clear_stop()
    result = ga_search(searcher, Board(fen), soft_time=0.3, hard_time=0.5)
    assert result["lines"][0][1][0] == "d2d5"


def test_engine_facade_reports_tree_size_and_generations():
    from genchess.engine import Engine
    from genchess.timeman import Limits
    engine = Engine(search_mode="ga")
    infos = []
    result = engine.search(Limits(movetime=300), on_info=infos.append)
    assert result.bestmove in [m for m in engine.board.legal_moves()]
    assert infos and infos[-1].string.startswith("ga tree ") and "generations" in infos[-1].string
    assert infos[-1].pv[0] == result.bestmove


def test_the_engine_alone_decides_which_search_runs_a_mode(searcher):
    # Every `Search` value is run by one function: the alpha-beta modes by
    # Searcher.search, the GA by ga_search, chosen by the Engine; Searcher.search
    # refuses a mode it does not run instead of running another one.
    from genchess.engine import SEARCH_MODES
    from genchess_core.searcher import ALPHA_BETA_MODES
    assert set(SEARCH_MODES) == set(ALPHA_BETA_MODES) | {"ga"}
    with pytest.raises(ValueError, match="'ga'"):
        searcher.search(Board(), max_depth=1, mode="ga")


def test_engine_in_ga_mode_searches_a_fixed_depth_by_iterative_deepening():
    from genchess.engine import Engine
    from genchess.timeman import Limits
    engine = Engine(search_mode="ga")
    infos = []
    result = engine.search(Limits(depth=3), on_info=infos.append)
    assert result.depth == 3
    assert result.bestmove in engine.board.legal_moves()
    assert not any(info.string.startswith("ga tree ") for info in infos)


# ------------------------------------------------------------------ minimax

MINIMAX_FENS = [
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/ppp2ppp/2n5/1B1qp3/8/8/PPP2PPP/R1BQK2R w KQkq - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",          # back-rank mate in one
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
]


@pytest.mark.parametrize("fen", MINIMAX_FENS)
def test_minimax_value_equals_alpha_beta_value(searcher, fen):
    depth = 3
    searcher.clear_stop()
    minimax = searcher.search(Board(fen), max_depth=depth, mode="minimax")
    saved = searcher.features
    try:
        searcher.features = (FEATURE_NAMES["alphabeta"] | FEATURE_NAMES["ordering"]
                             | FEATURE_NAMES["pvs"] | FEATURE_NAMES["mate_distance"])
        searcher.clear()
        alphabeta = searcher.search(Board(fen), max_depth=depth)
    finally:
        searcher.features = saved
    assert minimax["depth"] == alphabeta["depth"] == depth
    assert minimax["lines"][0][0] == alphabeta["lines"][0][0], fen
    assert alphabeta["nodes"] <= minimax["nodes"]
    assert searcher.features == saved                 # minimax mode leaves the switches alone


# ------------------------------------------------------------------ protocols

def test_uci_game_with_search_ga(launcher):
    """One game GenChess (Search ga, via setoption) v GenChess at 1 s + 0.1 s."""
    ga = launcher.genchess("uci", name="GenChess-GA")
    ga.configure({"Search": "ga", "GA Init Level": 2, "GA Nodes": 200000})
    other = launcher.genchess("uci", name="GenChess")
    records = run_match(Player("GenChess-GA", ga, True), Player("GenChess", other, True),
                        opening_fens(1, seed=31), base=1.0, inc=0.1, max_plies=80)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def test_xboard_game_with_search_ga(launcher):
    """One game through CECP, the GA side set from the command line (python-chess
    keeps only the first word of an xboard option's name, so not `GA Init Level`)."""
    ga = launcher.genchess("xboard", "--search", "ga", "--ga-init-level", "2", name="GenChess-GA")
    other = launcher.genchess("xboard", name="GenChess")
    records = run_match(Player("GenChess-GA", ga, True), Player("GenChess", other, True),
                        opening_fens(1, seed=32), base=1.0, inc=0.1, max_plies=80)
    assert all(r.failure is None for r in records), [r.summary() for r in records]
