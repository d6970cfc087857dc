# Pure Monte Carlo: random playouts to the end of the game, in C without the GIL.

from genchess_core.types cimport U64, Move, MAX_MOVES
from genchess_core.position cimport Position

cdef enum:
    # A playout that has not ended after this many plies counts as a draw; random
    # games almost always end sooner (the fifty-move rule sees to that).
    PLAYOUT_MAX_PLIES = 1000

cdef U64 xorshift64(U64* state) noexcept nogil
cdef int playout(Position* p, U64* rng, int max_plies, int side, int* plies) noexcept nogil
