"""Checking a game a worker sent back, by replaying it with python-chess, before it
is recorded.

TLS keeps strangers off a cluster, but a worker that was broken into, or is just
broken, can still send back anything as a game. GameExecutor (executors.py) hands
every GameResult to `result_problem` and never passes on one it refuses. The replay
uses python-chess, not the Cython core the worker ran, so neither a bug in the core
nor a tampered copy of it can vouch for its own games; a Chess960 game is replayed
on python-chess's Chess960 board (castling king-takes-rook, rights kept by rook).
A result passes when it answers the job that was sent (same players, same start,
same variant), every move is legal from
the start, the game did not go on past a position that ends it, and its end is one
the game's rules allow, with the result that end gives:

- the board ended it (checkmate, stalemate, insufficient material, the fifty- and
  seventy-five-move rules, threefold and fivefold repetition): the final position
  must end the game, by that termination, in genchess_core's order of precedence
  (the same as python-chess's), and give that result;
- the board did not: the move limit (that many plies were played, a draw), a time
  forfeit (only with a clock; the side to move flagged, its clock shows no time
  left, and it loses unless the other side cannot mate: game.can_mate, the rule
  play_game applies), a resignation or an illegal move (the side to move loses; an
  illegal move the reason names must be illegal there), an adjudication (only under
  rules that have one: a loss for the side that just moved, or a draw).

What no replay can check is whether the moves are the ones the engines would have
chosen: a worker that lies with legal moves goes unnoticed. (A worker that
attacks the trainer rather than its records gets no pickle read there: results
come back as JSON, plain.py, and pickle_guard.py opens what dask insists on.) Cost: a few
milliseconds per game, against the second or more a game takes
(scripts/bench/bench_replay.py).
"""

from __future__ import annotations

import re

import chess

from genchess.game import MAX_PLIES, GameRecord, can_mate
from genchess.game.adjudication import Adjudication

RESULTS = ("1-0", "0-1", "1/2-1/2")
# play_game's reason for a player's illegal move: "<mover> loses: illegal move 'e2e5' in <fen>"
_ILLEGAL = re.compile(r"illegal move '([^']*)'")


def result_problem(result, job) -> str | None:
    """Why the value a worker returned for the GameJob `job` must not be recorded
    (one line), or None when it is a game `job`'s rules allow."""
    from genchess.parallel.worker import GameResult
    if not isinstance(result, GameResult) or not isinstance(result.record, GameRecord):
        return f"a {type(result).__name__} came back instead of a game"
    try:
        if result.job != job:
            return "the result is of another game than the one sent"
        record = result.record
        if record.opening_plies:
            return f"{record.opening_plies} plies are marked as an opening the job did not give"
        if record.chess960 != job.chess960:
            return f"the game is {_variant(record.chess960)}, but the job asked for {_variant(job.chess960)}"
        start = chess.Board(job.start_fen, chess960=job.chess960) if job.start_fen else chess.Board()
        if _position(record.start_fen, job.chess960) != _position(start.fen(), job.chess960):
            return f"the game starts from {record.start_fen!r}, not from the job's position"
        return record_problem(record, timed=job.depth is None)
    except Exception as e:          # anything at all may come back from a worker
        return f"the record cannot be read ({type(e).__name__}: {e})"


def _variant(chess960: bool) -> str:
    return "Chess960" if chess960 else "standard chess"


def _position(fen: str, chess960: bool) -> str:
    board = chess.Board(fen, chess960=chess960)
    return board.fen(en_passant="legal")


def record_problem(record: GameRecord, *, timed: bool, adjudication: Adjudication | None = None,
                   max_plies: int = MAX_PLIES) -> str | None:
    """Why `record` is not a game play_game could have produced under these rules
    (a clock or not, adjudication or not, the move limit), or None."""
    if record.result not in RESULTS:
        return f"the result {record.result!r} is none of {', '.join(RESULTS)}"
    board = chess.Board(record.start_fen, chess960=record.chess960)
    for ply, uci in enumerate(record.moves, start=1):
        if ply > record.opening_plies:      # play_game plays an opening without asking
            if ply > max_plies:
                return f"the game went on past the move limit of {max_plies} plies"
            end = _claimed_end(board)
            if end is not None:
                return f"the game was over ({end}) before ply {ply} ({uci})"
        try:
            move = chess.Move.from_uci(uci)
        except (ValueError, TypeError):
            return f"ply {ply} ({uci!r}) is not a move"
        if not board.is_legal(move):
            return f"ply {ply} ({uci}) is illegal in {board.fen()}"
        board.push(move)
    return _end_problem(record, board, timed, adjudication, max_plies)


def _claimed_end(board: chess.Board) -> str | None:
    """The draw that ends the game here though a move could be made (checkmate and
    stalemate show as the next move being illegal)."""
    if board.is_insufficient_material():
        return "insufficient material"
    if board.halfmove_clock >= 100:
        return "fifty moves"
    if board.is_repetition(3):
        return "threefold repetition"
    return None


def board_end(board: chess.Board) -> str | None:
    """The termination play_game ends on in this position (genchess_core's
    game_status, draws claimed at once), None while the game goes on."""
    if board.is_checkmate():
        return "checkmate"
    if board.is_insufficient_material():
        return "insufficient material"
    if board.is_stalemate():
        return "stalemate"
    if board.halfmove_clock >= 150:
        return "seventyfive moves"
    if board.is_repetition(5):
        return "fivefold repetition"
    if board.halfmove_clock >= 100:
        return "fifty moves"
    if board.is_repetition(3):
        return "threefold repetition"
    return None


def _end_problem(record: GameRecord, board: chess.Board, timed: bool,
                 adjudication: Adjudication | None, max_plies: int) -> str | None:
    claimed = record.termination
    to_move = "White" if board.turn == chess.WHITE else "Black"
    loses = "0-1" if board.turn == chess.WHITE else "1-0"       # the side to move loses
    end = board_end(board)
    if end is not None:
        if claimed != end:
            return f"the final position ends the game by {end}, not by {claimed!r}"
        expected = loses if end == "checkmate" else "1/2-1/2"
    elif claimed == "move limit":
        if len(record.moves) < max_plies:
            return f"a move limit after {len(record.moves)} plies, but the limit is {max_plies}"
        expected = "1/2-1/2"
    elif claimed == "time forfeit":
        if not timed:
            return "a time forfeit in a game without a clock"
        side = 0 if board.turn == chess.WHITE else 1
        if len(record.clock) != 2 or not record.clock[side] <= 0:
            return f"a time forfeit by {to_move}, whose clock does not show the flag down ({record.clock})"
        expected = loses if can_mate(board, white=board.turn != chess.WHITE) else "1/2-1/2"
    elif claimed == "resignation":
        expected = loses
    elif claimed == "illegal move":
        named = _ILLEGAL.search(record.reason)
        if named:
            try:
                legal = board.is_legal(chess.Move.from_uci(named.group(1)))
            except ValueError:
                legal = False
            if legal:
                return f"{to_move}'s move {named.group(1)} is called illegal but is legal in {board.fen()}"
        expected = loses
    elif claimed == "adjudication":
        if adjudication is None or not adjudication.active:
            return "an adjudication in a game without adjudication rules"
        if record.result == "1/2-1/2":
            if not adjudication.draw_moves:
                return "a draw by adjudication, but the rules adjudicate no draws"
            expected = "1/2-1/2"
        else:
            if not adjudication.resign_moves:
                return "a loss by adjudication, but the rules adjudicate no losses"
            expected = "1-0" if board.turn == chess.WHITE else "0-1"     # the side that moved
    else:
        return f"the game is still going, and {claimed!r} cannot end it here"
    if record.result != expected:
        return f"{end or claimed} gives {expected}, but the record says {record.result}"
    return None
