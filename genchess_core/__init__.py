"""GenChess's compiled core, the hot path: bitboards, positions, the legal-move
generator and perft; the evaluation, one scoring function per genome kind (Genetic
Chess, Kendall-Whitwell material, Phoenix piece-square tables); the alpha-beta
search and its modes (iterative, budget, minimax) with SEE and the hash table; the
GA tree search; the Monte Carlo playouts; and the network trainer's kernels."""

import os

# The network trainer's threads (network_fit, OpenMP) wait for each other at every
# minibatch. OpenMP's own default spins while it waits, which on cores shared with
# other work (the data machine, a match) keeps the one thread that has work from
# running: an epoch measured seven times slower on two loaded cores. Waiting
# passively costs little on an idle machine. OpenMP reads this when it loads, so it is
# set before any module here can load it; a value the user set stands.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from genchess_core.board import Board, FenError, MoveError, Outcome, STARTING_FEN

__all__ = ["Board", "FenError", "MoveError", "Outcome", "STARTING_FEN"]
