# Transposition table.
#
# One entry per slot, indexed by the low bits of the Zobrist key and verified by
# the full key. Replacement keeps the deeper entry of the current search and
# always replaces entries left from earlier searches, a simple scheme that works
# well at the depths a genome-driven evaluation reaches.

from libc.stdlib cimport calloc, free
from libc.string cimport memset

from genchess_core.types cimport U64, Move


cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil:
    """Allocate the largest power-of-two table within `megabytes`; 0 on success."""
    cdef size_t n = 1
    cdef TTEntry* entries
    if megabytes < 1:
        megabytes = 1
    while n * 2 * sizeof(TTEntry) <= megabytes * 1024 * 1024:
        n *= 2
    entries = <TTEntry*>calloc(n, sizeof(TTEntry))
    if entries == NULL:
        return -1
    free(tt.entries)
    tt.entries = entries
    tt.mask = n - 1
    tt.age = 0
    return 0


cdef void tt_free(TT* tt) noexcept nogil:
    free(tt.entries)
    tt.entries = NULL
    tt.mask = 0


cdef void tt_clear(TT* tt) noexcept nogil:
    if tt.entries != NULL:
        memset(tt.entries, 0, (tt.mask + 1) * sizeof(TTEntry))
    tt.age = 0


cdef void tt_new_search(TT* tt) noexcept nogil:
    tt.age = (tt.age + 1) & 63


cdef TTEntry* tt_probe(TT* tt, U64 key) noexcept nogil:
    cdef TTEntry* e = &tt.entries[key & tt.mask]
    if e.key == key and (e.bound_age & 3) != BOUND_NONE:
        return e
    return NULL


cdef void tt_store(TT* tt, U64 key, int score, int bound, int depth, Move move) noexcept nogil:
    cdef TTEntry* e = &tt.entries[key & tt.mask]
    if e.key == key or (e.bound_age >> 2) != tt.age or depth >= e.depth or bound == BOUND_EXACT:
        if move == 0 and e.key == key:
            move = e.move            # keep the best move we knew for this position
        e.key = key
        e.score = score
        e.move = move
        e.depth = depth if depth < 127 else 127
        e.bound_age = <unsigned char>(bound | (tt.age << 2))


cdef int tt_hashfull(const TT* tt) noexcept nogil:
    """Permille of the first thousand slots used by the current search."""
    cdef int i, used = 0, n = 1000
    if tt.mask + 1 < <U64>n:
        n = <int>(tt.mask + 1)
    for i in range(n):
        if (tt.entries[i].bound_age & 3) != BOUND_NONE and (tt.entries[i].bound_age >> 2) == tt.age:
            used += 1
    return used * 1000 // n
