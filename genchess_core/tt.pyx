# Transposition table.
#
# One entry per slot, indexed by the low bits of the Zobrist key and verified by
# the full key. Replacement keeps the deeper entry of the current search and
# always replaces entries left from earlier searches, a simple scheme that works
# well at the depths a genome-driven evaluation reaches.
#
# Lazy SMP: all the threads of a search read and write the one table with no lock
# (a lock per node would cost more than the table saves). Each entry is two
# 64-bit words, the data and the key XOR the data (Hyatt and Mann's lockless
# hashing, as Crafty and Stockfish do it): a reader takes the data word once and
# accepts it only if check ^ data is its key, so an entry half-written by two
# threads is a miss, never another position's move or score. Each word is read and
# written whole by a relaxed atomic access (atomics.h: a plain move on x86-64), so
# the compiler may not split or repeat a read and the checked word is the used one.
# The hash move is checked anyway: the search only plays it if the move generator
# made it (tests/test_hash_move_legality.py).

from libc.string cimport memset

from genchess_core.large_pages cimport gc_large_calloc, gc_large_free
from genchess_core.atomics cimport load_word, store_word

from libc.stdint cimport int32_t, uint32_t, int8_t, uint8_t

from genchess_core.types cimport U64, Move


cdef inline U64 pack(int score, Move move, int depth, int bound_age) noexcept nogil:
    return (<U64><uint32_t>score) | (<U64>move << 32) | (<U64><uint8_t><int8_t>depth << 48) \
        | (<U64><uint8_t>bound_age << 56)


cdef inline int bound_age_of(U64 data) noexcept nogil:
    return <int>(data >> 56)


cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil:
    """Allocate the largest power-of-two table within `megabytes`; 0 on success."""
    cdef size_t n = 1
    cdef TTEntry* entries
    if megabytes < 1:
        megabytes = 1
    while n * 2 * sizeof(TTEntry) <= megabytes * 1024 * 1024:
        n *= 2
    entries = <TTEntry*>gc_large_calloc(n, sizeof(TTEntry))
    if entries == NULL:
        return -1
    gc_large_free(tt.entries)
    tt.entries = entries
    tt.mask = n - 1
    tt.age = 0
    return 0


cdef void tt_free(TT* tt) noexcept nogil:
    gc_large_free(tt.entries)
    tt.entries = NULL
    tt.mask = 0


cdef void tt_clear(TT* tt) noexcept nogil:
    if tt.entries != NULL:
        memset(tt.entries, 0, (tt.mask + 1) * sizeof(TTEntry))
    tt.age = 0


cdef void tt_new_search(TT* tt) noexcept nogil:
    tt.age = (tt.age + 1) & 63


cdef bint tt_probe(TT* tt, U64 key, TTHit* hit) noexcept nogil:
    """Whether `key`'s slot holds an entry for it; if so, unpacked into hit."""
    cdef TTEntry* e = &tt.entries[key & tt.mask]
    cdef U64 data = load_word(&e.data)  # one read: what is checked is what is used
    if (load_word(&e.check) ^ data) != key or (bound_age_of(data) & 3) == BOUND_NONE:
        return False
    hit.score = <int32_t><uint32_t>data          # the low 32 bits
    hit.move = <Move>((data >> 32) & 0xFFFF)
    hit.depth = <int8_t><uint8_t>((data >> 48) & 0xFF)
    hit.bound = bound_age_of(data) & 3
    return True


cdef void tt_store(TT* tt, U64 key, int score, int bound, int depth, Move move) noexcept nogil:
    cdef TTEntry* e = &tt.entries[key & tt.mask]
    cdef U64 old = load_word(&e.data)
    cdef bint same = (load_word(&e.check) ^ old) == key
    cdef int old_depth = <int8_t><uint8_t>((old >> 48) & 0xFF)
    cdef U64 data
    if same or (bound_age_of(old) >> 2) != tt.age or depth >= old_depth or bound == BOUND_EXACT:
        if move == 0 and same:
            move = <Move>((old >> 32) & 0xFFFF)   # keep the best move we knew for this position
        data = pack(score, move, depth if depth < 127 else 127, bound | (tt.age << 2))
        store_word(&e.data, data)
        store_word(&e.check, key ^ data)


cdef int tt_hashfull(const TT* tt) noexcept nogil:
    """Permille of the first thousand slots used by the current search."""
    cdef int i, used = 0, n = 1000, bound_age
    if tt.mask + 1 < <U64>n:
        n = <int>(tt.mask + 1)
    for i in range(n):
        bound_age = bound_age_of(load_word(&tt.entries[i].data))    # the search may be writing it
        if (bound_age & 3) != BOUND_NONE and (bound_age >> 2) == tt.age:
            used += 1
    return used * 1000 // n
