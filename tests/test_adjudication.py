"""Score adjudication (cutechess's -resign and -draw): the rules, a game, the CLI."""

import pytest

from genchess.game.adjudication import FISHTEST, MATE_CP, Adjudication, Adjudicator, score_cp
from genchess.game import TimeControl, play_game
from genchess_core import Board

from engine_helpers import peer_engine
from test_match_cli import match

RESIGN = Adjudication(resign_moves=3, resign_score=400)
DRAW = Adjudication(draw_from_move=34, draw_moves=8, draw_score=20)


def run(rules, moves):
    """Feed (side, cp, fullmove) in order; return the move index and verdict that ended it."""
    adjudicator = Adjudicator(rules)
    for index, (side, cp, fullmove) in enumerate(moves):
        verdict = adjudicator.update(side, cp, fullmove)
        if verdict is not None:
            return index, verdict
    return None


def alternate(white_cp, black_cp, plies, first_move=1):
    """Plies of both sides from full move `first_move`, White first."""
    return [(ply % 2, white_cp if ply % 2 == 0 else black_cp, first_move + ply // 2)
            for ply in range(plies)]


def test_a_side_that_sees_itself_lost_three_moves_running_loses():
    index, (result, reason) = run(RESIGN, alternate(500, -450, 10))
    assert index == 5 and result == "1-0"       # Black's third move
    assert reason.startswith("Black loses by adjudication")


def test_only_the_losing_side_score_counts_and_a_better_move_resets_the_run():
    # Black sees itself lost, recovers once, then is lost again: three in a row from there.
    black = [-500, -500, -100, -500, -500, -500]
    moves = []
    for i, cp in enumerate(black):
        moves += [(0, 0, i + 1), (1, cp, i + 1)]    # White's score never matters
    index, (result, _) = run(RESIGN, moves)
    assert index == 11 and result == "1-0"


def test_a_mate_against_the_mover_counts_as_lost_and_no_score_breaks_the_run():
    assert score_cp(None, -3) == -MATE_CP and score_cp(None, 0) == -MATE_CP
    assert score_cp(None, 2) == MATE_CP and score_cp(35, None) == 35
    assert score_cp(None, None) is None
    moves = [(0, -MATE_CP, 1), (0, None, 2), (0, -MATE_CP, 3), (0, -400, 4), (0, -MATE_CP, 5)]
    index, (result, _) = run(RESIGN, moves)
    assert index == 4 and result == "0-1"


def test_a_level_game_is_drawn_only_after_the_move_number_and_both_sides_agree():
    # Level from move 30: the run counts from move 34, eight moves each.
    index, (result, reason) = run(DRAW, alternate(10, -15, 60, first_move=30))
    assert result == "1/2-1/2" and "Draw by adjudication" in reason
    assert index == 8 + 16 - 1                  # plies of moves 30-33, then 16 level plies
    # One side outside the band every time: never a draw.
    assert run(DRAW, alternate(10, -25, 60, first_move=30)) is None


def test_option_parsing_names_the_faulty_word():
    rules = Adjudication.from_options(["movecount=3", "score=400"],
                                      ["movenumber=34", "movecount=8", "score=20"])
    assert rules == FISHTEST and rules.active
    assert not Adjudication.from_options(None, None).active
    for resign, draw, message in [
        (["movecount=3"], None, "--resign: give score=N"),
        (["movecount=0", "score=400"], None, "movecount must be a whole number of at least 1"),
        (["moves=3", "score=400"], None, "'moves=3' is not one of"),
        (None, ["movenumber=x", "movecount=8", "score=20"], "movenumber must be a whole number"),
    ]:
        with pytest.raises(ValueError, match=message):
            Adjudication.from_options(resign, draw)


def test_the_rules_spell_the_options_they_are_read_from():
    assert FISHTEST.options() == "--resign movecount=3 score=400 --draw movenumber=34 movecount=8 score=20"
    words = FISHTEST.options().split()
    assert Adjudication.from_options(words[1:3], words[4:]) == FISHTEST
    assert Adjudication().options() == "" and Adjudication().describe() == "none"


class ScriptedPlayer:
    """Plays its first legal move and reports a fixed score."""

    def __init__(self, name, cp):
        self.name, self.last_cp = name, cp

    def new_game(self):
        pass

    def choose_move(self, board, clock):
        return sorted(board.legal_moves())[0]


def test_play_game_ends_a_lost_game_by_adjudication():
    record = play_game(ScriptedPlayer("W", 600), ScriptedPlayer("B", -600), control=None,
                       adjudication=RESIGN)
    assert record.result == "1-0" and record.termination == "adjudication"
    assert len(record.moves) == 6
    # Without the rules the same players play on.
    record = play_game(ScriptedPlayer("W", 600), ScriptedPlayer("B", -600), control=None, max_plies=20)
    assert record.termination != "adjudication"


def test_play_game_reads_a_genchess_engine_score():
    from genchess.engine import Engine
    from genchess.game import EnginePlayer
    player = EnginePlayer(Engine(), depth=2)
    assert player.last_cp is None
    board = Board("6k1/5ppp/8/8/8/8/5PPP/Q5K1 w - - 0 1")    # a queen up
    player.choose_move(board, None)
    assert player.last_cp > 400
    player.choose_move(Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), None)   # mate in one
    assert player.last_cp == MATE_CP


def test_match_cli_adjudicates_and_says_so(tmp_path):
    # A draw band of 50 pawns from move 1: every game is level enough at once.
    pgn = tmp_path / "m.pgn"
    done = match("genchess", "genchess", "--games", "2", "--tc", "depth=1", "--concurrency", "1",
                 "--draw", "movenumber=1", "movecount=2", "score=5000", "--pgn", str(pgn))
    assert done.returncode == 0, done.stderr
    assert "adjudication: draw movenumber=1 movecount=2 score=5000" in done.stdout
    assert done.stdout.count("Draw by adjudication") == 2
    assert pgn.read_text().count('[Termination "adjudication"]') == 2


def test_match_cli_rejects_bad_rules():
    done = match("genchess", "genchess", "--resign", "movecount=3")
    assert done.returncode == 2 and "--resign: give score=N" in done.stderr


def test_an_external_engine_score_reaches_the_adjudicator(tmp_path):
    # Stockfish a queen down sees itself lost at once: three moves and it loses.
    stockfish = peer_engine("stockfish")
    fen_file = tmp_path / "o.epd"
    fen_file.write_text("rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    done = match("genchess", f"uci:{stockfish} name=SF", "--games", "2", "--tc", "depth=6",
                 "--concurrency", "1", "--openings", str(fen_file),
                 "--resign", "movecount=3", "score=400", timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("loses by adjudication") == 2
