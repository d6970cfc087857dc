# Phoenix piece-square evaluation: material plus positional value tables (PVTs),
# tapered between middle-game and end-game tables by non-pawn material.

from genchess_core.position cimport Position

cdef enum:
    PHASE_MAX = 24              # non-pawn material of the starting army: N, B = 1, R = 2, Q = 4

cdef struct PvtParams:
    # Per piece (colour * 6 + kind) and square (a1 = 0): material + table value in
    # centipawns, positive for White, negative for Black, so a position's score is
    # a plain sum over its pieces.
    int mg[12][64]
    int eg[12][64]
    # The same tables from the piece's own side, without material: the value of a
    # quiet move's destination for move ordering.
    int own_mg[12][64]
    int own_eg[12][64]
    int scale                   # internal evaluation units per centipawn

cdef int evaluate_pvt(Position* p, const PvtParams* t) noexcept nogil
cdef int pvt_phase(const Position* p) noexcept nogil
cdef int pvt_params(PvtParams* t, dict packed) except -1


cdef inline int pvt_quiet_order(const PvtParams* t, int piece, int to, int phase) noexcept nogil:
    """The tapered table value of a quiet move's destination, from the mover's side."""
    return (t.own_mg[piece][to] * phase + t.own_eg[piece][to] * (PHASE_MAX - phase)) // PHASE_MAX
