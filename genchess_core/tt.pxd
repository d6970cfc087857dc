# Transposition table: a malloc'd power-of-two array of 16-byte entries, shared
# without locks by every thread of a search (Lazy SMP). Read as one entry per key
# (`key & mask`) or, with `buckets` (the TT Buckets trial), as buckets of
# TT_BUCKET entries, a 64-byte cache line each, that a key may use any of.

from libc.stdint cimport int32_t, uint8_t, int8_t, uint16_t, uint32_t
from genchess_core.types cimport U64, Move
from genchess_core.bitboard cimport gc_prefetch

cdef enum:
    TT_BUCKET = 4           # entries per bucket: 4 x 16 bytes, one cache line

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1         # score <= value (failed low)
    BOUND_LOWER = 2         # score >= value (failed high)
    BOUND_EXACT = 3

cdef struct TTEntry:
    # Two 8-byte words that threads write without a lock. `check` is the key XOR
    # `data`: an entry torn by two threads writing at once (one thread's check
    # with the other's data) fails the check on probe and is not used.
    U64 check
    U64 data                # score (32 bits) | move << 32 | depth << 48 | bound_age << 56

cdef struct TTHit:
    # A probed entry, unpacked from one read of its data word.
    int score
    Move move
    int depth
    int bound               # BOUND_UPPER, BOUND_LOWER or BOUND_EXACT

cdef struct TT:
    TTEntry* entries
    U64 mask
    uint8_t age

cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil
cdef void tt_free(TT* tt) noexcept nogil
cdef void tt_clear(TT* tt) noexcept nogil
cdef void tt_new_search(TT* tt) noexcept nogil
cdef bint tt_probe(TT* tt, U64 key, TTHit* hit, bint buckets) noexcept nogil
cdef void tt_store(TT* tt, U64 key, int score, int bound, int depth, Move move,
                   bint buckets, int age_weight) noexcept nogil
cdef int tt_hashfull(const TT* tt) noexcept nogil

cdef inline void tt_prefetch(const TT* tt, U64 key) noexcept nogil:
    """Start loading key's slot into the cache: called right after a move is made,
    the slot arrives while the child node does its first checks, before its probe.
    The slot's cache line is its whole bucket too (the table is 64-byte aligned)."""
    gc_prefetch(&tt.entries[key & tt.mask])
