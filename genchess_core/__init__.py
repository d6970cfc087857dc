"""GenChess's compiled core, the hot path: bitboards, positions, the legal-move
generator and perft; the evaluation, one scoring function per genome kind (Genetic
Chess, Kendall-Whitwell material, Phoenix piece-square tables); the alpha-beta
search and its modes (iterative, budget, minimax) with SEE and the hash table; the
GA tree search; and the Monte Carlo playouts."""

from genchess_core.board import Board, FenError, MoveError, Outcome, STARTING_FEN

__all__ = ["Board", "FenError", "MoveError", "Outcome", "STARTING_FEN"]
