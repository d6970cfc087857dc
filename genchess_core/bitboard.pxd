# Bitboards: attack tables and the inline bit operations every hot module uses.
#
# The tables live in one C struct owned by bitboard.pyx. Other modules fetch its
# address once at import (`attack_tables()`) and pass it to the inline lookups
# below, so a sliding-attack lookup compiles to a few instructions in the caller
# with no cross-module call.

from genchess_core.types cimport U64

cdef extern from "bitops.h" nogil:
    int gc_popcount(U64 b)
    int gc_lsb(U64 b)
    void gc_prefetch(const void* addr)
    const U64 RANK_1 "GC_RANK_1"
    const U64 RANK_8 "GC_RANK_8"
    const U64 FILE_A "GC_FILE_A"
    const U64 FILE_H "GC_FILE_H"
    const U64 DARK_SQUARES "GC_DARK_SQUARES"

cdef struct Magic:
    U64 mask
    U64 magic
    U64* attacks
    int shift

cdef struct AttackTables:
    U64 pawn[2][64]
    U64 knight[64]
    U64 king[64]
    Magic rook[64]
    Magic bishop[64]
    U64 between[64][64]     # squares strictly between two aligned squares, else 0
    U64 line[64][64]        # the whole line through two aligned squares, else 0
    U64 rook_table[102400]
    U64 bishop_table[5248]

cdef const AttackTables* attack_tables() noexcept nogil

cdef inline int popcount(U64 b) noexcept nogil:
    return gc_popcount(b)

cdef inline int lsb(U64 b) noexcept nogil:
    return gc_lsb(b)

cdef inline int pop_lsb(U64* b) noexcept nogil:
    cdef int s = gc_lsb(b[0])
    b[0] &= b[0] - 1
    return s

cdef inline U64 bit(int sq) noexcept nogil:
    return (<U64>1) << sq

cdef inline U64 rook_attacks(const AttackTables* T, int sq, U64 occ) noexcept nogil:
    cdef const Magic* m = &T.rook[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline U64 bishop_attacks(const AttackTables* T, int sq, U64 occ) noexcept nogil:
    cdef const Magic* m = &T.bishop[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline U64 queen_attacks(const AttackTables* T, int sq, U64 occ) noexcept nogil:
    return rook_attacks(T, sq, occ) | bishop_attacks(T, sq, occ)

cdef inline int square_distance(int a, int b) noexcept nogil:
    cdef int df = (a & 7) - (b & 7)
    cdef int dr = (a >> 3) - (b >> 3)
    if df < 0:
        df = -df
    if dr < 0:
        dr = -dr
    return df if df > dr else dr
