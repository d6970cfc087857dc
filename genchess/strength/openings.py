"""Match openings: start positions (EPD), the first plies of PGN games, or lines of
UCI moves from the standard start.

An opening is a start position plus moves, so one type serves all three files
and an engine that cannot set up a position (xboard `setboard=0`, Fairy-Max)
can still be given any opening that is moves from the start. Every line is
checked when the file is read, so a bad one is reported as `file:line` before
any game starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from genchess_core import STARTING_FEN, Board, FenError

DEFAULT_PLIES = 8           # plies taken from each PGN game


class OpeningError(ValueError):
    """A problem in an opening file; the message reads `file:line: problem`."""


@dataclass(frozen=True)
class Opening:
    fen: str                        # where the game starts
    moves: tuple[str, ...] = ()     # then these moves
    source: str = ""                # file:line, for the PGN's Opening tag

    @property
    def from_start(self) -> bool:
        """Playable by an engine that cannot set up positions."""
        return self.fen == STARTING_FEN

    @property
    def position(self) -> str:
        """The FEN after the opening's moves: where an in-process game starts."""
        board = Board(self.fen)
        for move in self.moves:
            board.push_uci(move)
        return board.fen()


def _checked(fen: str, moves: list[str], where: str) -> Opening:
    try:
        board = Board(fen)
    except FenError as e:
        raise OpeningError(f"{where}: {e}") from None
    for move in moves:
        if move not in board.legal_moves():
            raise OpeningError(f"{where}: illegal move {move!r} in {board.fen()}")
        board.push_uci(move)
    if board.outcome(claim_draw=True).termination is not None:
        raise OpeningError(f"{where}: the game is already over after the opening")
    return Opening(Board(fen).fen(), tuple(moves), where)


def read_openings(path: str | Path, plies: int = DEFAULT_PLIES,
                  on_error: Callable[[str], None] | None = None) -> list[Opening]:
    """Every opening of an EPD, PGN or UCI-moves file (by content: `.pgn` files are
    PGN; other lines with a `/` are EPD/FEN, the rest UCI moves). A bad line or game
    raises OpeningError, or with `on_error` is handed to it (`file:line: problem`)
    and skipped; a file that cannot be read, or has no good opening, always raises."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OpeningError(f"{path}: no such opening file") from None
    except UnicodeDecodeError:
        raise OpeningError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise OpeningError(f"{path}: cannot read: {e.strerror}") from None
    if path.suffix.lower() == ".pgn":
        openings = _read_pgn(path, text, plies, on_error)
    else:
        openings = []
        for n, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{n}"
            try:
                if "/" in line:
                    fields = line.split(";")[0].split()
                    if len(fields) < 4:
                        raise OpeningError(f"{where}: expected an EPD position (4 fields), got {line[:60]!r}")
                    counters = fields[4:6] if len(fields) >= 6 and all(f.isdigit() for f in fields[4:6]) \
                        else ["0", "1"]
                    openings.append(_checked(" ".join(fields[:4] + counters), [], where))
                else:
                    openings.append(_checked(STARTING_FEN, line.split(), where))
            except OpeningError as e:
                if on_error is None:
                    raise
                on_error(str(e))
    if not openings:
        raise OpeningError(f"{path}: no positions in opening file")
    return openings


def _read_pgn(path: Path, text: str, plies: int,
              on_error: Callable[[str], None] | None = None) -> list[Opening]:
    import io

    import chess.pgn

    openings = []
    stream = io.StringIO(text)
    number = 0
    while True:
        offset_line = text.count("\n", 0, stream.tell()) + 1
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        number += 1
        where = f"{path}:{offset_line}"
        try:
            if game.errors:
                raise OpeningError(f"{where}: game {number}: {game.errors[0]}")
            moves = [move.uci() for move in list(game.mainline_moves())[:plies]]
            openings.append(_checked(game.board().fen(), moves, where))
        except OpeningError as e:
            if on_error is None:
                raise
            on_error(str(e))
    return openings


def read_start_positions(path: str | Path) -> list[str]:
    """Where each opening of the file leaves the board, as FENs: the trainers' games
    start there (they take positions, not moves). OpeningError as read_openings."""
    return [opening.position for opening in read_openings(path)]
