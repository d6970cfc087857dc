"""Polyglot opening books: a move from the book at the root, never in the search.

Phoenix played its openings from a book, which is why its tables need no opening
knowledge; any GenChess genome can do the same (`--book FILE`, the `Book File`
and `Book Depth` options). The engine asks the book once per move before it
searches: while the game is within `Book Depth` moves and the book knows the
position, the move is drawn at random with probability proportional to the
entries' weights, so a book gives a player varied openings. Trainers may draw
their start positions from a book the same way (`random_line`).

Design trade-off: python-chess's `chess.polyglot` reader does the Zobrist key
and the binary search; it is Python, but it runs once per move on one position,
so its cost is nothing beside a search. The file is checked when it is set, so
a bad path fails at `setoption`, not in the middle of a game.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.polyglot

DEFAULT_DEPTH = 20          # moves (full moves) from the game's start the book is used for
MAX_DEPTH = 200
ENTRY_SIZE = 16             # bytes per Polyglot entry: key 8, move 2, weight 2, learn 4


class BookError(ValueError):
    """A book file that cannot be used; the message names the file and the problem."""


class Book:
    def __init__(self, path: str | Path, depth: int = DEFAULT_DEPTH, rng: random.Random | None = None):
        self.path = Path(path)
        self.depth = depth
        self.rng = rng or random.Random()
        try:
            size = self.path.stat().st_size
        except OSError as e:
            raise BookError(f"{self.path}: cannot open book: {e.strerror}") from None
        if size == 0 or size % ENTRY_SIZE:
            raise BookError(f"{self.path}: not a Polyglot book (size {size} is not a positive "
                            f"multiple of {ENTRY_SIZE} bytes)")
        try:
            self.reader = chess.polyglot.open_reader(self.path)
        except (OSError, ValueError) as e:
            raise BookError(f"{self.path}: cannot open book: {e}") from None

    def close(self) -> None:
        self.reader.close()

    def choose(self, fen: str) -> str | None:
        """A weighted random book move (UCI) for the position, or None when out of
        book (unknown position, or past `depth` moves)."""
        board = chess.Board(fen)
        if board.fullmove_number > self.depth:
            return None
        return self._pick(board, self.rng)

    def _pick(self, board: chess.Board, rng: random.Random) -> str | None:
        try:
            entry = self.reader.weighted_choice(board, random=rng)
        except IndexError:              # the position is not in the book
            return None
        if entry.move not in board.legal_moves:
            return None                 # a damaged or foreign entry: never play it
        return entry.move.uci()

    def random_line(self, rng: random.Random, plies: int, fen: str = chess.STARTING_FEN) -> str:
        """The position after following the book from `fen` for up to `plies` half
        moves (weighted random choices), for trainers' start positions."""
        board = chess.Board(fen)
        for _ in range(plies):
            move = self._pick(board, rng)
            if move is None:
                break
            board.push_uci(move)
        return board.fen()
