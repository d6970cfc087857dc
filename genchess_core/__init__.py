"""GenChess's compiled core: bitboards, positions, legal moves, perft (and later search)."""

from genchess_core.board import Board, FenError, MoveError, Outcome, STARTING_FEN

__all__ = ["Board", "FenError", "MoveError", "Outcome", "STARTING_FEN"]
