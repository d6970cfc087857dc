"""Start positions: match openings (EPD, the first plies of PGN games, or lines of
UCI moves from the standard start) and Chess960's 960 start positions.

An opening is a start position plus moves, so one type serves all three files
and an engine that cannot set up a position (xboard `setboard=0`, Fairy-Max)
can still be given any opening that is moves from the start. Every line is
checked when the file is read, so a bad one is reported as `file:line` before
any game starts.

Chess960 (Fischer random) is the other variant GenChess's tools play: its start
positions are computed from their Scharnagl numbers (0-959, 518 the standard
start) rather than shipped as a file, and a run takes a seeded choice of them. An
opening says whether it is played by Chess960's rules, which only changes how
castling is written: king-takes-rook, the one spelling that never reads as
another king move when the king and rook start anywhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from genchess.console import quoted, shortened
from genchess.files import display_path
from genchess_core import STARTING_FEN, Board, FenError, MoveError

DEFAULT_PLIES = 8           # plies taken from each PGN game
VARIANTS = ("standard", "chess960")
CHESS960_POSITIONS = 960
# Where the two knights go among the five squares the bishops and queen leave, by
# the last digit of a Scharnagl number (Scharnagl's table, NN--- first).
_KNIGHTS = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


class OpeningError(ValueError):
    """A problem in an opening file; the message reads `file:line: problem`."""


@dataclass(frozen=True)
class Opening:
    fen: str                        # where the game starts
    moves: tuple[str, ...] = ()     # then these moves
    source: str = ""                # file:line (files.display_path), for the PGN's Opening tag
    chess960: bool = False          # played by Chess960's rules (castling written king-takes-rook)

    @property
    def from_start(self) -> bool:
        """Playable by an engine that cannot set up positions."""
        return self.fen == STARTING_FEN

    @property
    def position(self) -> str:
        """The FEN after the opening's moves: where an in-process game starts."""
        board = Board(self.fen, chess960=self.chess960)
        for move in self.moves:
            board.push_uci(move)
        return board.fen()


def check_variant(text: str) -> str:
    """The variant `text` names (VARIANTS); ValueError saying which ones there are."""
    variant = text.strip().lower()
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {quoted(text)}: expected {' or '.join(VARIANTS)}")
    return variant


def needs_chess960(fen: str) -> bool:
    """Whether a position's castling rights are Chess960's: a right whose king is off
    e1 (e8) or whose rook is off its corner. Standard chess (and python-chess's
    standard board) would drop such a right, so the position must be played as Chess960."""
    from genchess.players import placement
    squares = placement(fen)
    for right in fen.split()[2]:
        if right == "-":
            continue
        if right not in "KQkq":
            return True                 # a rook named by its file
        white = right.isupper()
        rank = 0 if white else 56
        corner = rank + (7 if right.upper() == "K" else 0)
        if squares[rank + 4] != ("K" if white else "k") or squares[corner] != ("R" if white else "r"):
            return True
    return False


def chess960_fen(number: int) -> str:
    """The Chess960 start position numbered `number` (0-959) as X-FEN: white's pieces
    by Scharnagl's numbering (the light-squared bishop, the dark-squared bishop, the
    queen on a free square, the knights by the table, then rook, king and rook on the
    three squares left), black's mirrored. 518 is the standard start. ValueError
    outside 0-959."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < CHESS960_POSITIONS:
        raise ValueError(f"Chess960 start positions are numbered 0 to {CHESS960_POSITIONS - 1}, "
                         f"not {number!r}")
    rank = [""] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    knights, queen = divmod(n, 6)
    rank[[f for f in range(8) if not rank[f]][queen]] = "Q"
    free = [f for f in range(8) if not rank[f]]
    for i in _KNIGHTS[knights]:
        rank[free[i]] = "N"
    for f, piece in zip([f for f in range(8) if not rank[f]], "RKR"):
        rank[f] = piece
    white = "".join(rank)
    return f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"


def chess960_numbers(count: int, seed: int = 0) -> list[int]:
    """`count` different Chess960 start positions (all 960 at most), drawn with `seed`:
    the same seed gives the same numbers in the same order."""
    return random.Random(f"chess960:{seed}").sample(range(CHESS960_POSITIONS),
                                                    min(count, CHESS960_POSITIONS))


def chess960_openings(count: int, seed: int = 0) -> list[Opening]:
    """chess960_numbers(count, seed) as openings, each named `Chess960 #N`."""
    return [Opening(chess960_fen(n), (), f"Chess960 #{n}", chess960=True)
            for n in chess960_numbers(count, seed)]


def _checked(fen: str, moves: list[str], where: str, chess960: bool = False,
             source: str | None = None) -> Opening:
    """The opening, or OpeningError at `where` (the file as the user named it); `source`
    is what the PGN records (files.display_path's name), `where` if not given."""
    try:
        board = Board(fen, chess960=chess960)
    except FenError as e:
        raise OpeningError(f"{where}: {e}") from None
    written = []
    for move in moves:
        try:
            written.append(board.parse_uci(move))       # castling in the variant's spelling
        except MoveError:
            raise OpeningError(f"{where}: illegal move {quoted(move)} in {board.fen()}") from None
        board.push_uci(written[-1])
    if board.outcome(claim_draw=True).termination is not None:
        raise OpeningError(f"{where}: the game is already over after the opening")
    start = Board(fen).fen()
    if not chess960 and needs_chess960(start):
        raise OpeningError(f"{where}: a Chess960 position (castling rights {start.split()[2]} with "
                           f"the king or a rook off its standard square): give variant chess960")
    return Opening(start, tuple(written), source or where, chess960)


def read_openings(path: str | Path, plies: int = DEFAULT_PLIES,
                  on_error: Callable[[str], None] | None = None,
                  chess960: bool = False) -> list[Opening]:
    """Every opening of an EPD, PGN or UCI-moves file (by content: `.pgn` files are
    PGN; other lines with a `/` are EPD/FEN, the rest UCI moves), played by
    Chess960's rules if `chess960`. A bad line or game raises OpeningError, or with
    `on_error` is handed to it (`file:line: problem`) and skipped; a file that
    cannot be read, or has no good opening, always raises."""
    path = Path(path)
    name = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OpeningError(f"{path}: no such opening file") from None
    except UnicodeDecodeError:
        raise OpeningError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise OpeningError(f"{path}: cannot read: {e.strerror}") from None
    if path.suffix.lower() == ".pgn":
        openings = _read_pgn(path, text, plies, on_error, chess960, name)
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
                    openings.append(_checked(" ".join(fields[:4] + counters), [], where, chess960,
                                             f"{name}:{n}"))
                else:
                    openings.append(_checked(STARTING_FEN, line.split(), where, chess960, f"{name}:{n}"))
            except OpeningError as e:
                if on_error is None:
                    raise
                on_error(str(e))
    if not openings:
        raise OpeningError(f"{path}: no positions in opening file")
    return openings


def _read_pgn(path: Path, text: str, plies: int,
              on_error: Callable[[str], None] | None = None, chess960: bool = False,
              name: str | None = None) -> list[Opening]:
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
                raise OpeningError(f"{where}: game {number}: {shortened(str(game.errors[0]))}")
            moves = [move.uci() for move in list(game.mainline_moves())[:plies]]
            openings.append(_checked(game.board().fen(), moves, where, chess960,
                                     f"{name or path}:{offset_line}"))
        except OpeningError as e:
            if on_error is None:
                raise
            on_error(str(e))
    return openings


def read_start_positions(path: str | Path, chess960: bool = False) -> list[str]:
    """Where each opening of the file leaves the board, as FENs: the trainers' games
    start there (they take positions, not moves). OpeningError as read_openings."""
    return [opening.position for opening in read_openings(path, chess960=chess960)]
