# Phoenix piece-square evaluation.
#
# Evaluation = sum over pieces of (material + table[square]), White minus Black,
# with the middle-game and end-game sums blended by the phase: non-pawn material
# counted N = B = 1, R = 2, Q = 4 (24 in the starting army, capped there), so a
# board with only kings and pawns is scored by the end-game tables alone. The
# chromosome has no end-game tables for the rook and the queen (the paper's
# Table I): their middle-game tables serve in the end game too (pvt.py packs them
# so). Material and table are folded into one signed int per piece and square at
# load time, so per node this is twelve bitboard walks and two multiplies: no
# attack maps and no move generation, which is why it is several times faster
# than the Genetic Chess evaluation.

from genchess_core.types cimport *
from genchess_core.bitboard cimport pop_lsb, popcount

# Table order in pack()'s `pvt_tables` (64 values each, a1 = 0, from White's side).
cdef int MG = 0
cdef int EG = 1


cdef int pvt_phase(const Position* p) noexcept nogil:
    cdef int phase = popcount(p.bb[KNIGHT] | p.bb[6 + KNIGHT] | p.bb[BISHOP] | p.bb[6 + BISHOP]) \
        + 2 * popcount(p.bb[ROOK] | p.bb[6 + ROOK]) + 4 * popcount(p.bb[QUEEN] | p.bb[6 + QUEEN])
    return phase if phase < PHASE_MAX else PHASE_MAX


cdef int evaluate_pvt(Position* p, const PvtParams* t) noexcept nogil:
    cdef int pc, sq, mg = 0, eg = 0, phase = pvt_phase(p), score
    cdef U64 b
    for pc in range(12):
        b = p.bb[pc]
        while b:
            sq = pop_lsb(&b)
            mg += t.mg[pc][sq]
            eg += t.eg[pc][sq]
    score = (mg * phase + eg * (PHASE_MAX - phase)) * t.scale // PHASE_MAX
    return score if p.side == WHITE else -score


cdef int pvt_params(PvtParams* t, dict packed) except -1:
    """Fill t from a PVT genome's pack() dict; once per genome load. `pvt_tables`
    holds per kind (pawn .. king) a middle-game and an end-game table, 12 x 64."""
    tables = [int(v) for v in packed["pvt_tables"]]
    material = [int(v) for v in packed["pvt_material"]]
    if len(tables) != 12 * 64 or len(material) != 6:
        raise ValueError("pvt_tables needs 768 values and pvt_material 6")
    t.scale = int(packed["eval_scale_cp"])
    for kind in range(6):
        for phase in (MG, EG):
            for sq in range(64):
                value = tables[(kind * 2 + phase) * 64 + sq]
                # Black's table is White's seen from the other side: rank mirrored.
                white = material[kind] + value
                if phase == MG:
                    t.mg[kind][sq] = white
                    t.mg[6 + kind][sq ^ 56] = -white
                    t.own_mg[kind][sq] = value
                    t.own_mg[6 + kind][sq ^ 56] = value
                else:
                    t.eg[kind][sq] = white
                    t.eg[6 + kind][sq ^ 56] = -white
                    t.own_eg[kind][sq] = value
                    t.own_eg[6 + kind][sq ^ 56] = value
    return 0
