# Transposition table.
#
# One entry per slot, indexed by the low bits of the Zobrist key and verified by
# the full key. Replacement keeps the deeper entry of the current search and
# always replaces entries left from earlier searches, a simple scheme that works
# well at the depths a genome-driven evaluation reaches.
#
# Buckets (the TT Buckets trial, `buckets` true): the same array read as buckets of
# TT_BUCKET consecutive entries, one 64-byte cache line each. A key's bucket is its
# slot with the low two bits cleared, so its one-entry slot is one of the bucket's
# four and a table written in one mode is read correctly in the other (the full key
# decides every hit). Probe scans the four; store takes the key's own entry if it
# is there, else the one worth least: depth - age_weight x its age in searches
# (empty entries first), as Stockfish (depth - 8 x age) and Ethereal (4 x age) do.
# Four keys that share a slot's bucket then coexist where one entry kept only the
# last, and an old deep entry gives way to the current search in time.
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
from libc.limits cimport INT_MAX

from genchess_core.types cimport U64, Move


cdef enum:
    # An empty entry's worth in a bucket: below any entry's depth - age_weight x age
    # (depth >= -128, age <= 63, age_weight within its gene's bounds), so it goes first.
    EMPTY_WORTH = -1000000


cdef inline U64 pack(int score, Move move, int depth, int bound_age) noexcept nogil:
    return (<U64><uint32_t>score) | (<U64>move << 32) | (<U64><uint8_t><int8_t>depth << 48) \
        | (<U64><uint8_t>bound_age << 56)


cdef inline int bound_age_of(U64 data) noexcept nogil:
    return <int>(data >> 56)


cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil:
    """Allocate the largest power-of-two table within `megabytes`; 0 on success.
    From TT_BUCKET entries up, so the count is a whole number of buckets; the
    allocation is at least 64-byte aligned (large_pages.h), so a bucket is one line."""
    cdef size_t n = TT_BUCKET
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


cdef inline bint read_entry(TTEntry* e, U64 key, TTHit* hit) noexcept nogil:
    """Whether e holds an entry for `key`; if so, unpacked into hit."""
    cdef U64 data = load_word(&e.data)  # one read: what is checked is what is used
    if (load_word(&e.check) ^ data) != key or (bound_age_of(data) & 3) == BOUND_NONE:
        return False
    hit.score = <int32_t><uint32_t>data          # the low 32 bits
    hit.move = <Move>((data >> 32) & 0xFFFF)
    hit.depth = depth_of(data)
    hit.bound = bound_age_of(data) & 3
    return True


cdef inline TTEntry* bucket_of(TT* tt, U64 key) noexcept nogil:
    return &tt.entries[key & tt.mask & ~<U64>(TT_BUCKET - 1)]


cdef inline int depth_of(U64 data) noexcept nogil:
    return <int8_t><uint8_t>((data >> 48) & 0xFF)


cdef inline void write_entry(TT* tt, TTEntry* e, U64 key, int score, int bound, int depth,
                             Move move) noexcept nogil:
    cdef U64 data = pack(score, move, depth if depth < 127 else 127, bound | (tt.age << 2))
    store_word(&e.data, data)
    store_word(&e.check, key ^ data)


cdef bint tt_probe(TT* tt, U64 key, TTHit* hit, bint buckets) noexcept nogil:
    """Whether the table holds an entry for `key` (in its slot, or with `buckets`
    anywhere in its bucket); if so, unpacked into hit."""
    cdef TTEntry* e
    cdef int i
    if not buckets:
        return read_entry(&tt.entries[key & tt.mask], key, hit)
    e = bucket_of(tt, key)
    for i in range(TT_BUCKET):
        if read_entry(&e[i], key, hit):
            return True
    return False


cdef void tt_store(TT* tt, U64 key, int score, int bound, int depth, Move move,
                   bint buckets, int age_weight) noexcept nogil:
    """Store an entry for `key`. One entry per slot: over another position's entry
    only if that one is shallower, not exact, or from an earlier search. With
    `buckets`: over the key's own entry in its bucket, else over the bucket's entry
    worth least (age_weight: how many plies of depth a search of age costs)."""
    cdef TTEntry* e
    cdef TTEntry* bucket
    cdef U64 old
    cdef bint same
    cdef int i, value, lowest, bound_age
    if not buckets:
        e = &tt.entries[key & tt.mask]
        old = load_word(&e.data)
        same = (load_word(&e.check) ^ old) == key
        if not (same or (bound_age_of(old) >> 2) != tt.age or depth >= depth_of(old)
                or bound == BOUND_EXACT):
            return
    else:
        bucket = bucket_of(tt, key)
        e = bucket
        same = False
        lowest = INT_MAX
        for i in range(TT_BUCKET):
            old = load_word(&bucket[i].data)
            if (load_word(&bucket[i].check) ^ old) == key:
                e = &bucket[i]
                same = True
                break
            bound_age = bound_age_of(old)
            if (bound_age & 3) == BOUND_NONE:
                value = EMPTY_WORTH             # below any entry's worth
            else:
                value = depth_of(old) - age_weight * ((tt.age - (bound_age >> 2)) & 63)
            if value < lowest:                  # the first of equals: deterministic
                lowest = value
                e = &bucket[i]
    if move == 0 and same:          # (`old` is then the data word that matched the key)
        move = <Move>((old >> 32) & 0xFFFF)     # keep the best move we knew for this position
    write_entry(tt, e, key, score, bound, depth, move)


cdef int tt_hashfull(const TT* tt) noexcept nogil:
    """Permille of the first thousand entries used by the current search. Right in
    both modes: buckets are the same array of entries read four at a time, and the
    thousand entries are 250 whole buckets."""
    cdef int i, used = 0, n = 1000, bound_age
    if tt.mask + 1 < <U64>n:
        n = <int>(tt.mask + 1)
    for i in range(n):
        bound_age = bound_age_of(load_word(&tt.entries[i].data))    # the search may be writing it
        if (bound_age & 3) != BOUND_NONE and (bound_age >> 2) == tt.age:
            used += 1
    return used * 1000 // n
