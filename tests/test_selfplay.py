"""Self-play in C (genchess_core.selfplay): the games the Python game loop plays, move for
move and score for score, its own limits and adjudication on top."""

import io

import pytest

from genchess.genome import load_genome, write_genome
from genchess.position_sets.making import PositionsJob, game_rng, opening_position, play_genchess
from genchess_core import Board
from genchess_core.chains import decode_games, encode_game
from genchess_core.searcher import Searcher
from genchess_core.selfplay import TERMINATIONS, play_game

# The network the games below were chosen with (the default until 2026-12-07).
NETWORK = "genchess/genomes/network-5m.genome"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture(scope="module")
def genome():
    return load_genome(NETWORK)


@pytest.fixture
def searchers(genome):
    sides = []
    for _ in range(2):
        searcher = Searcher(8)
        searcher.set_genome(genome.pack())
        sides.append(searcher)
    return sides


def uci_moves(start: str, codes, chess960: bool = False) -> list[str]:
    """The UCI spelling of Move codes, through the chains codec's replay."""
    board = Board(start, chess960=chess960)
    return decode_games(encode_game(board, codes, None, 1, 0))[0][4]


@pytest.mark.parametrize("game", [0, 1, 2])
def test_a_c_game_is_the_python_loops_game(genome, searchers, game):
    text = io.StringIO()
    write_genome(genome, text)
    start = opening_position(START, (), 8, game_rng(5, game))
    job = PositionsJob(game, "genchess", "genchess", start, (), nodes=1500, genome=text.getvalue(), seed=5)
    moves, result, scores = play_genchess(job, start, scored=True)
    c_result, termination, codes, c_scores, nodes = play_game(*searchers, Board(start), nodes=1500)
    assert uci_moves(start, codes) == moves
    assert c_result == result
    # The Python loop reports a mate as +-100000 (adjudication's MATE_CP); the C loop
    # clamps it where the set maker does.
    assert c_scores == [max(-10000, min(10000, cp)) for cp in scores]
    # Every move spent nodes within the limit, but a last move that ended the game by the
    # fifty-move rule can spend none: every child is a draw before it counts as a node.
    assert all(0 < n <= 1500 for n in nodes[:-1])
    assert 0 <= nodes[-1] <= 1500 and (nodes[-1] > 0 or termination == "fifty moves")


def test_the_same_game_twice_from_cleared_tables(searchers):
    start = opening_position(START, (), 8, game_rng(9, 0))
    first = play_game(*searchers, Board(start), nodes=800)
    again = play_game(*searchers, Board(start), nodes=800)
    assert first == again


def test_soft_nodes_finish_the_iteration_that_passed_them(searchers):
    *_, nodes = play_game(*searchers, Board(START), soft_nodes=600, max_plies=20)
    # Iterations are whole: a soft limit is passed, never cut at, and no move stops at
    # exactly the limit as a hard limit does.
    assert any(n > 600 for n in nodes)
    *_, hard = play_game(*searchers, Board(START), nodes=600, max_plies=20)
    assert max(hard) == 600


def test_a_fixed_depth_searches_fewer_nodes_at_depth_two(searchers):
    *_, shallow = play_game(*searchers, Board(START), depth=2, max_plies=10)
    *_, deeper = play_game(*searchers, Board(START), depth=5, max_plies=10)
    assert sum(shallow) < sum(deeper)


def test_a_won_game_is_adjudicated_when_both_sides_agree(searchers):
    queen_up = "4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1"
    result, termination, codes, scores, _ = play_game(*searchers, Board(queen_up), nodes=500,
                                                      win_cp=1000, win_plies=4)
    assert (result, termination) == ("1-0", "win adjudication")
    assert len(codes) == 4
    white_view = [cp if i % 2 == 0 else -cp for i, cp in enumerate(scores)]
    assert all(cp >= 1000 for cp in white_view)


def test_a_dead_draw_is_adjudicated_from_its_ply_on(searchers):
    pawns = "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"     # repeats itself after 22 plies unadjudicated
    assert play_game(*searchers, Board(pawns), nodes=500)[1] == "threefold repetition"
    result, termination, codes, scores, _ = play_game(*searchers, Board(pawns), nodes=500,
                                                      draw_cp=30, draw_plies=6, draw_from=8)
    assert (result, termination) == ("1/2-1/2", "draw adjudication")
    # The game ends at the first six plies in a row within 30, counting from ply 8 on
    # (scores before ply 8 do not count, however small).
    window = 6
    end = next(ply for ply in range(8 + window - 1, len(scores) + 1)
               if all(abs(cp) <= 30 for cp in scores[ply - window:ply]))
    assert len(codes) == end
    assert all(abs(cp) <= 30 for cp in scores[:window]), "the position was meant to start quiet"


def test_without_adjudication_the_rules_end_the_game(searchers):
    result, termination, codes, _, _ = play_game(*searchers, Board("4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1"),
                                                 nodes=2000)
    assert (result, termination) == ("1-0", "checkmate")
    board = Board("4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1")
    for move in uci_moves(board.fen(), codes):
        board.push_uci(move)
    assert board.outcome().result == "1-0"


def test_a_game_still_going_at_max_plies_is_drawn(searchers):
    result, termination, codes, _, _ = play_game(*searchers, Board(START), nodes=300, max_plies=7)
    assert (result, termination, len(codes)) == ("1/2-1/2", "move limit", 7)
    assert TERMINATIONS.index(termination) == 7


@pytest.mark.parametrize("limits, problem", [({}, "needs a limit"), ({"depth": -1}, "out of range"),
                                             ({"nodes": 100, "max_plies": 0}, "max_plies")])
def test_bad_limits_are_refused(searchers, limits, problem):
    with pytest.raises(ValueError, match=problem):
        play_game(*searchers, Board(START), **limits)
