# Kendall-Whitwell material evaluation.
#
# Evaluation = sum_y W[y] * (N[y]_us - N[y]_them) over the six piece kinds and the
# number of legal moves, from the side to move's view, plus two fixed bonuses the
# re-implementation study set to 0 because the original paper never gave them
# (kept as settings so their effect can be studied). The king term is always zero
# (one king each); it is kept so a genome is the paper's seven-weight vector.
# Counting legal moves (count_legal_as: popcounts of each piece's targets and one
# attack map per side) is the whole cost of this evaluation when W[legal move] != 0;
# with it at 0 this is a popcount.

from genchess_core.types cimport *
from genchess_core.bitboard cimport bit, pop_lsb, popcount, FILE_A
from genchess_core.position cimport Position, side_attacks
from genchess_core.movegen cimport count_legal_as

cdef U64 CENTRE = bit(27) | bit(28) | bit(35) | bit(36)
cdef U64 ALL_SQUARES = 0xFFFFFFFFFFFFFFFFULL
cdef U64 FILE_MASK[8]
cdef U64 RANKS_FROM_FIFTH[2]        # a pawn's fifth rank and beyond, per colour

cdef void init_tables() noexcept nogil:
    cdef int f
    for f in range(8):
        FILE_MASK[f] = FILE_A << f
    RANKS_FROM_FIFTH[WHITE] = 0xFFFFFFFF00000000ULL
    RANKS_FROM_FIFTH[BLACK] = 0x00000000FFFFFFFFULL

init_tables()


cdef int passed_advanced(const Position* p, int c) noexcept nogil:
    """Pawns of c on their fifth rank or beyond with no enemy pawn ahead on their
    own or a neighbouring file: the "advanced pawns with promotion potential"."""
    cdef U64 pawns = p.bb[c * 6 + PAWN] & RANKS_FROM_FIFTH[c]
    cdef U64 enemy = p.bb[(c ^ 1) * 6 + PAWN]
    cdef U64 files, ahead
    cdef int sq, f, r, count = 0
    while pawns:
        sq = pop_lsb(&pawns)
        f = sq & 7
        r = sq >> 3
        files = FILE_MASK[f]
        if f > 0:
            files |= FILE_MASK[f - 1]
        if f < 7:
            files |= FILE_MASK[f + 1]
        if c == WHITE:
            ahead = files & (ALL_SQUARES << (8 * (r + 1))) if r < 7 else 0
        else:
            ahead = files & ((<U64>1 << (8 * r)) - 1)
        if not (ahead & enemy):
            count += 1
    return count


cdef int evaluate_material(Position* p, const MaterialParams* m) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1, k
    cdef double total = 0.0
    for k in range(6):
        if m.weight[k] != 0.0:
            total += m.weight[k] * (popcount(p.bb[us * 6 + k]) - popcount(p.bb[them * 6 + k]))
    if m.weight[W_LEGAL_MOVE] != 0.0:
        total += m.weight[W_LEGAL_MOVE] * (count_legal_as(p, us) - count_legal_as(p, them))
    if m.centre_bonus != 0.0:
        total += m.centre_bonus * (popcount(side_attacks(p, us, p.all, True) & CENTRE)
                                   - popcount(side_attacks(p, them, p.all, True) & CENTRE))
    if m.advanced_pawn_bonus != 0.0:
        total += m.advanced_pawn_bonus * (passed_advanced(p, us) - passed_advanced(p, them))
    total *= m.scale
    if total > 500000000.0:
        return 500000000
    if total < -500000000.0:
        return -500000000
    return <int>total


cdef void material_features(Position* p, int* diff) noexcept nogil:
    """The nine counts evaluate_material weighs, White's minus Black's, in its order:
    pawn .. king, legal moves, centre squares attacked, advanced passed pawns (the
    position tuner's features: genchess/fitness/features.py)."""
    cdef int k
    for k in range(6):
        diff[k] = popcount(p.bb[WHITE * 6 + k]) - popcount(p.bb[BLACK * 6 + k])
    diff[6] = count_legal_as(p, WHITE) - count_legal_as(p, BLACK)
    diff[7] = (popcount(side_attacks(p, WHITE, p.all, True) & CENTRE)
               - popcount(side_attacks(p, BLACK, p.all, True) & CENTRE))
    diff[8] = passed_advanced(p, WHITE) - passed_advanced(p, BLACK)


cdef int material_params(MaterialParams* m, dict packed) except -1:
    """Fill m from a material genome's pack() dict; once per genome load."""
    weights = [float(w) for w in packed["material_weights"]]
    if len(weights) != N_MATERIAL_WEIGHTS:
        raise ValueError(f"material_weights needs {N_MATERIAL_WEIGHTS} numbers, got {len(weights)}")
    for k in range(N_MATERIAL_WEIGHTS):
        m.weight[k] = weights[k]
    m.centre_bonus = float(packed.get("centre_bonus", 0.0))
    m.advanced_pawn_bonus = float(packed.get("advanced_pawn_bonus", 0.0))
    m.scale = float(packed["eval_scale"])
    return 0
