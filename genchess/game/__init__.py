"""Playing games in-process: a clock, the players' interface, and one game's record.

Everything that makes two players meet goes through `play_game`: the trainers,
`genchess play`, and the strength matches. It keeps a real chess clock (thinking
time is measured on the wall clock; running out loses, or draws when the
opponent has no mating material) and ends the game on every rule: checkmate,
stalemate, insufficient material, the fifty-move rule and threefold repetition
(claimed at once, since players here neither offer nor accept draws), and the
seventy-five-move and fivefold rules.

The package is one game and nothing more: this loop, `openings` (where a game
starts), `adjudication` (ending a decided game early on the engines' scores), `pgn`
(the finished game as PGN text) and `external` (an external engine's process). It stands below everything that plays games (the parallel workers, the
strength matches, the trainers, `genchess play`) and imports none of them; the
`genchess match` command, many games and their statistics, is `genchess/strength/`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from genchess.console import quoted, whole_number
from genchess.engine import Engine
from genchess.game.adjudication import Adjudication, Adjudicator, score_cp
from genchess.timeman import Limits
from genchess_core import Board

MAX_PLIES = 2000            # play_game's default: a game still going then is drawn ("move limit")


@dataclass
class TimeControl:
    """`base` seconds per side, `increment` seconds per move, topped up by `base`
    every `moves` moves (0: one period for the whole game); or instead a fixed
    limit per move: `movetime` seconds, `nodes` or `depth` (no clock then, and a
    flag falls only for a move slower than `movetime`). `margin` seconds of
    overrun are forgiven (cutechess's timemargin; 0: none)."""
    base: float = 0.0
    increment: float = 0.0
    moves: int = 0
    movetime: float | None = None
    nodes: int | None = None
    depth: int | None = None
    margin: float = 0.0

    @property
    def per_move(self) -> bool:
        return self.movetime is not None or self.nodes is not None or self.depth is not None

    def describe(self) -> str:
        """The PGN TimeControl tag: `40/20+0.1`, `60+0.5`, `60`; `1/0.5` for a fixed
        time per move; `-` for fixed nodes or depth (no time limit)."""
        if self.movetime is not None:
            return f"1/{self.movetime:g}"
        if self.per_move:
            return "-"
        text = f"{self.base:g}" + (f"+{self.increment:g}" if self.increment else "")
        return f"{self.moves}/{text}" if self.moves else text

    def spelling(self) -> str:
        """What `--tc` accepts back: `10+0.1`, `40/60`, `st=0.5`, `nodes=1000`, `depth=6`."""
        if self.movetime is not None:
            return f"st={self.movetime:g}"
        if self.nodes is not None:
            return f"nodes={self.nodes}"
        if self.depth is not None:
            return f"depth={self.depth}"
        return self.describe()

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """`base+inc`, `moves/base(+inc)`, `st=SECONDS` (or movetime=), `nodes=N`,
        `depth=N`; ValueError saying what is wrong."""
        spelled = text.strip().lower()
        text = quoted(text.strip())         # as the messages show it
        key, eq, value = spelled.partition("=")
        if eq:
            if key in ("st", "movetime"):
                seconds = _number(value, text)
                if seconds <= 0:
                    raise ValueError(f"time control {text}: the time per move must be positive")
                return cls(movetime=seconds)
            if key in ("nodes", "depth"):
                number = whole_number(value)
                if number is None or number < 1:
                    raise ValueError(f"time control {text}: {key} must be a whole number of at least 1")
                return cls(**{key: number})
            raise ValueError(f"time control {text}: expected st=, movetime=, nodes= or depth=")
        moves, slash, rest = spelled.rpartition("/")
        if slash and not ((whole_number(moves) or 0) >= 1):
            raise ValueError(f"time control {text}: moves per period must be a whole number of at least 1")
        base, plus, inc = rest.partition("+")
        control = cls(_number(base, text), _number(inc, text) if plus else 0.0,
                      whole_number(moves) if slash else 0)
        if control.base <= 0:
            raise ValueError(f"time control {text}: the base time must be positive")
        if control.increment < 0:
            raise ValueError(f"time control {text}: the increment must not be negative")
        return control


def _number(value: str, text: str) -> float:
    try:
        number = float(value)
        if not math.isfinite(number):
            raise ValueError
    except ValueError:
        raise ValueError(f"time control {text}: {quoted(value)} is not a number of seconds "
                         f"(expected e.g. 10+0.1, 40/60, st=0.5, nodes=10000, depth=6)") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"time control {text}: {value!r} is not a finite number")
    return number


@dataclass
class Clock:
    """Seconds left for white and black, and the moves each has made this period.
    `black_control` gives Black a time control of its own (time odds); None: White's."""
    control: TimeControl
    remaining: list[float] = field(default_factory=list)
    moves_made: list[int] = field(default_factory=lambda: [0, 0])
    black_control: TimeControl | None = None

    def __post_init__(self):
        if not self.remaining:
            self.remaining = [self.control.base, self.control_of(1).base]

    def control_of(self, side: int) -> TimeControl:
        """Side 0 (White) or 1's time control."""
        return self.black_control if side == 1 and self.black_control is not None else self.control

    def moves_to_go(self, side: int) -> int | None:
        control = self.control_of(side)
        if not control.moves:
            return None
        return control.moves - self.moves_made[side] % control.moves

    def limits(self, white_to_move: bool) -> Limits:
        side = 0 if white_to_move else 1
        control = self.control_of(side)
        if control.per_move:
            return Limits(movetime=int(control.movetime * 1000) if control.movetime is not None else None,
                          nodes=control.nodes, depth=control.depth)
        return Limits(wtime=int(self.remaining[0] * 1000), btime=int(self.remaining[1] * 1000),
                      winc=int(self.control.increment * 1000), binc=int(self.control_of(1).increment * 1000),
                      movestogo=self.moves_to_go(side))

    def punch(self, side: int, used: float) -> bool:
        """Charge `used` seconds to `side`; False if the flag fell."""
        control = self.control_of(side)
        self.moves_made[side] += 1
        if control.per_move:
            return control.movetime is None or used <= control.movetime + control.margin
        self.remaining[side] -= used
        if self.remaining[side] < -control.margin:
            return False
        self.remaining[side] = max(self.remaining[side], 0.0) + control.increment
        if control.moves and self.moves_made[side] % control.moves == 0:
            self.remaining[side] += control.base
        return True


class GameEnded(Exception):
    """Raised by a player's choose_move to end the game on the spot: a person quits,
    input ends, a draw offer is accepted."""

    def __init__(self, result: str, termination: str, reason: str):
        super().__init__(reason)
        self.result, self.termination, self.reason = result, termination, reason


class TimeExpired(Exception):
    """Raised by a player whose flag fell while it was still choosing (a person typing,
    an external engine that had to be stopped)."""


class PlayerFailed(Exception):
    """Raised by a player that broke the rules or died (an external engine's illegal
    move, crash or protocol error): it loses the game, with `termination` (e.g.
    "illegal move", "crash") and the `reason` sentence recorded."""

    def __init__(self, termination: str, reason: str):
        super().__init__(reason)
        self.termination, self.reason = termination, reason


class Player(Protocol):
    name: str

    def new_game(self) -> None: ...

    def choose_move(self, board: Board, clock: Clock | None) -> str | None:
        """A legal move in UCI notation, or None to resign."""

    # Optional: `last_cp`, the score of the move just chosen from the mover's side in
    # centipawns (mates as +-adjudication.MATE_CP), or None; score adjudication uses it.


class EnginePlayer:
    """A genome-driven engine as a player (the trainers' and `genchess play`'s)."""

    def __init__(self, engine: Engine, name: str = "GenChess", movetime_ms: int | None = None,
                 depth: int | None = None, on_info=None, nodes: int | None = None):
        self.engine = engine
        self.name = name
        self.movetime_ms = movetime_ms
        self.depth = depth
        self.nodes = nodes          # a fixed node count per move (with a depth: whichever ends first)
        self.on_info = on_info
        self.last_result = None

    def new_game(self) -> None:
        self.engine.new_game()

    def choose_move(self, board: Board, clock: Clock | None) -> str | None:
        self.engine.board = board.copy()
        if self.depth or self.movetime_ms or self.nodes or clock is None:
            limits = Limits(depth=self.depth, movetime=self.movetime_ms, nodes=self.nodes)
            if clock is None and not (self.depth or self.movetime_ms or self.nodes):
                limits.depth = 4
        else:
            limits = clock.limits(board.turn == "w")
        self.last_result = self.engine.search(limits, on_info=self.on_info)
        return self.last_result.bestmove

    @property
    def last_cp(self) -> int | None:
        if self.last_result is None:
            return None
        return score_cp(self.last_result.score.cp, self.last_result.score.mate)


def can_mate(board: Board, white: bool) -> bool:
    """Whether `white` (or black) has material that could ever mate: anything but a
    bare king, a king and one minor piece, or a king and bishops all of one colour.
    This decides a flag fall: losing on time to a side that cannot mate is a draw."""
    placement = board.fen().split()[0]
    pieces = [c for c in placement if c.isalpha() and c.isupper() == white and c.upper() != "K"]
    if any(p.upper() in "PRQ" for p in pieces):
        return True
    if len(pieces) <= 1:
        return False
    if all(p.upper() == "B" for p in pieces):
        colours = set()
        squares = placement.split("/")
        for row_index, row in enumerate(squares):
            file_index = 0
            for c in row:
                if c.isdigit():
                    file_index += int(c)
                    continue
                if c.upper() == "B" and c.isupper() == white:
                    colours.add((file_index + row_index) % 2)
                file_index += 1
        return len(colours) > 1
    return True


@dataclass
class GameRecord:
    start_fen: str
    moves: list[str]
    result: str                 # 1-0, 0-1, 1/2-1/2
    termination: str            # checkmate, stalemate, ..., time forfeit, resignation
    reason: str                 # a sentence: "White mates", "Draw by repetition", ...
    white: str
    black: str
    time_control: str = "-"
    clock: list[float] = field(default_factory=list)
    opening_plies: int = 0      # the first moves were the opening's, not the players'
    chess960: bool = False      # a Chess960 game: castling in `moves` is king-takes-rook
    black_time_control: str = ""    # Black's own (time odds); "": White's

    @property
    def winner(self) -> str | None:
        return {"1-0": "white", "0-1": "black"}.get(self.result)


def play_game(white: Player, black: Player, start_fen: str | None = None,
              control: TimeControl | None = None,
              on_move: Callable[[Board, str, float, Clock | None], None] | None = None,
              max_plies: int = MAX_PLIES, opening_moves: tuple[str, ...] | list[str] = (),
              adjudication: Adjudication | None = None, chess960: bool = False,
              black_control: TimeControl | None = None) -> GameRecord:
    """Play one game to its end and return its record. on_move(board, move, seconds
    used, clock) follows every move. `opening_moves` are played first, from
    `start_fen`, and belong to the record (so the players see the whole game).
    With `adjudication`, a game the players' scores call decided ends early
    (termination "adjudication"). Players with an `end_game(record)` method hear
    the result. A `chess960` game's board writes castling king-takes-rook, and the
    players must answer in that spelling (the board they are given uses it).
    `black_control` gives Black its own time control (time odds; `control` is White's)."""
    board = Board(start_fen, chess960=chess960) if start_fen else Board(chess960=chess960)
    start = board.fen()
    for move in opening_moves:
        board.push_uci(move)
    clock = Clock(control, black_control=black_control) if control else None
    black_described = black_control.describe() if control and black_control else ""
    players = (white, black)
    for player in players:
        player.new_game()
    moves: list[str] = list(opening_moves)
    adjudicator = Adjudicator(adjudication) if adjudication and adjudication.active else None

    def finish(result, termination, reason):
        record = GameRecord(start, moves, result, termination, reason, white.name, black.name,
                            control.describe() if control else "-",
                            list(clock.remaining) if clock else [], len(opening_moves), chess960,
                            black_described)
        for player in players:
            end_game = getattr(player, "end_game", None)
            if end_game is not None:
                end_game(record)
        return record

    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome.termination is not None:
            return finish(outcome.result, outcome.termination.replace("_", " "), outcome.reason)
        if len(moves) >= max_plies:
            return finish("1/2-1/2", "move limit", f"Draw: game stopped after {max_plies} plies")
        side = 0 if board.turn == "w" else 1
        mover, loser = ("White", "Black") if side == 0 else ("Black", "White")
        lost = "0-1" if side == 0 else "1-0"
        t0 = time.perf_counter()
        flag_fell = False
        try:
            move = players[side].choose_move(board, clock)
        except TimeExpired:
            move, flag_fell = "", True
        except GameEnded as ended:
            return finish(ended.result, ended.termination, ended.reason)
        except PlayerFailed as failed:
            return finish(lost, failed.termination, f"{mover} loses: {failed.reason}")
        used = time.perf_counter() - t0
        if move is None:
            return finish(lost, "resignation", f"{mover} resigns")
        if clock is not None and (not clock.punch(side, used) or flag_fell):
            clock.remaining[side] = min(clock.remaining[side], 0.0)
            if not can_mate(board, white=side == 1):
                return finish("1/2-1/2", "time forfeit",
                              f"Draw: {mover} ran out of time but {loser} cannot mate")
            return finish(lost, "time forfeit", f"{mover} forfeits on time")
        if move not in board.legal_moves():
            return finish(lost, "illegal move", f"{mover} loses: illegal move {move!r} "
                                                f"in {board.fen()}")
        fullmove = board.fullmove_number
        board.push_uci(move)
        moves.append(move)
        if on_move is not None:
            on_move(board, move, used, clock)
        if adjudicator is not None and board.outcome(claim_draw=True).termination is None:
            verdict = adjudicator.update(side, getattr(players[side], "last_cp", None), fullmove)
            if verdict is not None:
                return finish(verdict[0], "adjudication", verdict[1])
