# Attack tables, built once at import.
#
# Sliding attacks use "fancy" magic bitboards: for each square the relevant
# blockers are hashed by a multiply and shift into a per-square slice of one
# shared table. The magic numbers come from our own fixed-seed search
# (`scripts/maintenance/find_magics.py` writes them to magics.h); searching at every start-up
# costs ~0.3 s, too slow for GUIs, so start-up only verifies the stored numbers
# while filling the table and searches again only for one that fails.

from genchess_core.types cimport U64

cdef extern from "magics.h" nogil:
    const U64 STORED_ROOK_MAGICS[64]
    const U64 STORED_BISHOP_MAGICS[64]

cdef AttackTables TABLES
cdef U64 rng_state = 0x9E3779B97F4A7C15ULL


cdef U64 rand64() noexcept nogil:
    # xorshift64*: tiny, fast and good enough to find magics.
    global rng_state
    rng_state ^= rng_state >> 12
    rng_state ^= rng_state << 25
    rng_state ^= rng_state >> 27
    return rng_state * 2685821657736338717ULL


cdef U64 slide(int sq, U64 occ, const int* dirs) noexcept nogil:
    """Ray-walk attacks from sq; only used to build the tables."""
    cdef U64 att = 0
    cdef int d, f, r, df, dr
    for d in range(4):
        df = dirs[2 * d]
        dr = dirs[2 * d + 1]
        f = (sq & 7) + df
        r = (sq >> 3) + dr
        while 0 <= f < 8 and 0 <= r < 8:
            att |= (<U64>1) << (r * 8 + f)
            if occ & ((<U64>1) << (r * 8 + f)):
                break
            f += df
            r += dr
    return att


cdef bint fill_slice(Magic* m, U64 magic, const U64* occs, const U64* refs, int size,
                    int* epoch, int tries) noexcept nogil:
    """Try `magic` for one square: fill its slice of the table, False on a collision."""
    cdef int i, idx
    for i in range(size):
        idx = <int>(((occs[i] & m.mask) * magic) >> m.shift)
        if epoch[idx] < tries:
            epoch[idx] = tries
            m.attacks[idx] = refs[i]
        elif m.attacks[idx] != refs[i]:
            return False
    m.magic = magic
    return True


cdef int init_magics(Magic* magics, U64* table, const int* dirs, const U64* stored) noexcept nogil:
    cdef U64 occs[4096]
    cdef U64 refs[4096]
    cdef int epoch[4096]
    cdef int sq, size, i, tries = 0
    cdef U64 edges, mask, b, magic
    cdef U64* base = table
    cdef Magic* m
    for i in range(4096):
        epoch[i] = 0
    for sq in range(64):
        m = &magics[sq]
        edges = (((<U64>0xFF) | (<U64>0xFF << 56)) & ~((<U64>0xFF) << ((sq >> 3) * 8))) | \
                (((<U64>0x0101010101010101ULL) | (<U64>0x8080808080808080ULL)) &
                 ~((<U64>0x0101010101010101ULL) << (sq & 7)))
        mask = slide(sq, 0, dirs) & ~edges
        m.mask = mask
        m.shift = 64 - popcount(mask)
        m.attacks = base
        # Enumerate every blocker subset of the mask (Carry-Rippler).
        size = 0
        b = 0
        while True:
            occs[size] = b
            refs[size] = slide(sq, b, dirs)
            size += 1
            b = (b - mask) & mask
            if b == 0:
                break
        # The stored magic first; else sparse random numbers until one maps every
        # subset without a destructive collision (`epoch` saves clearing the slice).
        tries += 1
        if not fill_slice(m, stored[sq], occs, refs, size, epoch, tries):
            while True:
                magic = rand64() & rand64() & rand64()
                if popcount((mask * magic) >> 56) < 6:
                    continue
                tries += 1
                if fill_slice(m, magic, occs, refs, size, epoch, tries):
                    break
        base += size
    return 0


cdef void init_tables() noexcept nogil:
    cdef int rook_dirs[8]
    cdef int bishop_dirs[8]
    cdef int knight_d[16]
    cdef int sq, f, r, i, s2, df, dr, d
    cdef U64 b
    rook_dirs[:] = [1, 0, -1, 0, 0, 1, 0, -1]
    bishop_dirs[:] = [1, 1, 1, -1, -1, 1, -1, -1]
    knight_d[:] = [1, 2, 2, 1, 2, -1, 1, -2, -1, -2, -2, -1, -2, 1, -1, 2]
    for sq in range(64):
        f = sq & 7
        r = sq >> 3
        TABLES.knight[sq] = 0
        TABLES.king[sq] = 0
        TABLES.pawn[0][sq] = 0
        TABLES.pawn[1][sq] = 0
        for i in range(8):
            df = knight_d[2 * i]
            dr = knight_d[2 * i + 1]
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                TABLES.knight[sq] |= (<U64>1) << ((r + dr) * 8 + f + df)
        for df in range(-1, 2):
            for dr in range(-1, 2):
                if (df or dr) and 0 <= f + df < 8 and 0 <= r + dr < 8:
                    TABLES.king[sq] |= (<U64>1) << ((r + dr) * 8 + f + df)
        for df in range(-1, 2, 2):
            if 0 <= f + df < 8:
                if r < 7:
                    TABLES.pawn[0][sq] |= (<U64>1) << ((r + 1) * 8 + f + df)
                if r > 0:
                    TABLES.pawn[1][sq] |= (<U64>1) << ((r - 1) * 8 + f + df)
    init_magics(TABLES.rook, TABLES.rook_table, rook_dirs, STORED_ROOK_MAGICS)
    init_magics(TABLES.bishop, TABLES.bishop_table, bishop_dirs, STORED_BISHOP_MAGICS)
    for sq in range(64):
        for s2 in range(64):
            TABLES.between[sq][s2] = 0
            TABLES.line[sq][s2] = 0
            if sq == s2:
                continue
            for d in range(2):
                if d == 0:
                    b = slide(sq, 0, rook_dirs)
                else:
                    b = slide(sq, 0, bishop_dirs)
                if b & ((<U64>1) << s2):
                    if d == 0:
                        TABLES.line[sq][s2] = (slide(sq, 0, rook_dirs) & slide(s2, 0, rook_dirs)) | \
                            ((<U64>1) << sq) | ((<U64>1) << s2)
                        TABLES.between[sq][s2] = rook_attacks(&TABLES, sq, (<U64>1) << s2) & \
                            rook_attacks(&TABLES, s2, (<U64>1) << sq)
                    else:
                        TABLES.line[sq][s2] = (slide(sq, 0, bishop_dirs) & slide(s2, 0, bishop_dirs)) | \
                            ((<U64>1) << sq) | ((<U64>1) << s2)
                        TABLES.between[sq][s2] = bishop_attacks(&TABLES, sq, (<U64>1) << s2) & \
                            bishop_attacks(&TABLES, s2, (<U64>1) << sq)


cdef const AttackTables* attack_tables() noexcept nogil:
    return &TABLES


def magic_numbers():
    """The magics in use, as ([rook] * 64, [bishop] * 64), for scripts/maintenance/find_magics.py."""
    return ([TABLES.rook[sq].magic for sq in range(64)],
            [TABLES.bishop[sq].magic for sq in range(64)])


init_tables()
