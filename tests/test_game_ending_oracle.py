"""The trainers' game-ending oracle (train_helpers.check_game_ending) follows play_game's
rules: a draw the mover could only claim with its next move does not end the game, so a
flag that falls there is a real time forfeit."""
from __future__ import annotations

import chess
import chess.pgn
import pytest

from train_helpers import check_game_ending

# After these moves the start position has been seen twice and Black's Ng8 would make it
# a third time: python-chess's can_claim_threefold_repetition() is already true.
ONE_MOVE_FROM_THREEFOLD = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]


def game(moves: list[str], termination: str, result: str) -> chess.pgn.Game:
    g = chess.pgn.Game()
    node = g
    for uci in moves:
        node = node.add_variation(chess.Move.from_uci(uci))
    g.headers.update({"Round": "1", "Pool": "1", "WhiteID": "1", "BlackID": "2",
                      "Termination": termination, "Result": result,
                      "PlyCount": str(len(moves))})
    return g


def test_a_flag_falling_one_move_from_a_claimable_repetition_is_a_time_forfeit():
    assert game(ONE_MOVE_FROM_THREEFOLD, "", "").end().board().can_claim_threefold_repetition()
    check_game_ending(game(ONE_MOVE_FROM_THREEFOLD, "time forfeit", "1-0"))


def test_a_time_forfeit_after_the_game_ended_is_caught():
    over = ONE_MOVE_FROM_THREEFOLD + ["f6g8"]
    with pytest.raises(AssertionError, match="already over by threefold repetition"):
        check_game_ending(game(over, "time forfeit", "1-0"))
    check_game_ending(game(over, "threefold repetition", "1/2-1/2"))


def test_a_time_forfeit_against_a_bare_king_is_a_draw():
    lone_king = chess.pgn.Game.from_board(chess.Board("8/8/8/4k3/8/8/8/K6Q w - - 0 1"))
    lone_king.headers.update({"Round": "1", "Pool": "1", "WhiteID": "1", "BlackID": "2",
                              "Termination": "time forfeit", "PlyCount": "0"})
    # White flags with a queen; Black has only its king and cannot mate.
    lone_king.headers["Result"] = "1/2-1/2"
    check_game_ending(lone_king)
    lone_king.headers["Result"] = "0-1"
    with pytest.raises(AssertionError):
        check_game_ending(lone_king)
