# The position as a C struct, make/unmake with an undo record, Zobrist keys, FEN.

from genchess_core.types cimport (U64, Move, KEY_HISTORY, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
                                  FLAG_KING_CASTLE)
from genchess_core.bitboard cimport popcount
from libc.stdint cimport int8_t

cdef struct Position:
    U64 bb[12]              # one bitboard per piece (colour * 6 + kind)
    U64 occ[2]              # occupancy per colour
    U64 all                 # occ[0] | occ[1]
    int8_t board[64]        # square -> piece, NO_PIECE when empty
    int side
    int castling            # WHITE_OO | WHITE_OOO | BLACK_OO | BLACK_OOO: right r is bit 1 << r
    int ep                  # en-passant square, set only when a legal ep capture exists
    int halfmove
    int fullmove
    U64 key
    int game_ply            # plies since the position was set from a FEN
    # Where each castling right's king and rook stand (Chess960 and standard chess
    # alike), set once with the position (set_fen) and never changed by a move; right
    # r = colour * 2 + (1 on the queen side), as in `castling`.
    int8_t castle_rook[4]   # the rook the right castles with, NO_SQ without the right
    int8_t castle_keep[64]  # the rights kept when a move starts or ends on the square
    int castle_recheck      # rights whose rook's move can uncover the king's destination
    U64 castle_empty[4]     # must be empty: both paths and destinations, less the king and that rook
    U64 castle_safe[4]      # must be unattacked: the king's path and destination, less its own square
    bint chess960           # notation only: castling is written king-takes-rook (e1h1)
    U64 history[KEY_HISTORY]  # ring of keys; history[game_ply % KEY_HISTORY] == key

cdef struct Undo:
    U64 key
    int castling
    int ep
    int halfmove
    int captured            # captured piece, NO_PIECE if none

cdef void make_move(Position* p, Move m, Undo* u) noexcept nogil
cdef void unmake_move(Position* p, Move m, const Undo* u) noexcept nogil
cdef void make_null(Position* p, Undo* u) noexcept nogil
cdef void unmake_null(Position* p, const Undo* u) noexcept nogil

cdef U64 attackers_to(const Position* p, int sq, U64 occ) noexcept nogil
cdef U64 side_attacks(const Position* p, int c, U64 occ, bint with_king) noexcept nogil
cdef bint in_check(const Position* p) noexcept nogil
cdef bint reachable_army(const Position* q, int color) noexcept nogil
cdef int king_square(const Position* p, int color) noexcept nogil
cdef int repetition_count(const Position* p) noexcept nogil
cdef U64 compute_key(const Position* p) noexcept nogil

cdef void set_castling(Position* p, const int* rook_squares) noexcept nogil
cdef void castling_from_rights(Position* p) noexcept nogil
cdef int outermost_rook(const Position* p, int right) noexcept nogil
cdef int set_fen(Position* p, str fen) except -1
cdef str get_fen(const Position* p, bint shredder=*)
cdef str move_to_uci(const Position* p, Move m)
cdef str castling_text(const Position* p, Move m, bint king_takes_rook)
cdef str shown(str text, int limit=*)
cdef bint is_standard_castling(const Position* p, Move m)


cdef inline int castle_right(int color, int flags) noexcept nogil:
    """The right (0-3) a castling move of `color` with `flags` uses."""
    return color * 2 + (flags - FLAG_KING_CASTLE)


cdef inline int castle_king_to(int right) noexcept nogil:
    """Where the king ends: g1, c1, g8 or c8."""
    return (right >> 1) * 56 + (2 if right & 1 else 6)


cdef inline int castle_rook_to(int right) noexcept nogil:
    """Where the rook ends: f1, d1, f8 or d8."""
    return (right >> 1) * 56 + (3 if right & 1 else 5)


cdef inline U64 pawn_structure_hash(const Position* p) noexcept nogil:
    """Both colours' pawns mixed into 64 bits, whose top bits index what is kept by
    pawn structure (the evaluations' pawn caches, the search's correction history):
    two multiplications, no key to keep up to date in make_move."""
    return (p.bb[PAWN] * <U64>0x9E3779B97F4A7C15) ^ (p.bb[6 + PAWN] * <U64>0xC2B2AE3D27D4EB4F)


cdef inline U64 mix64(U64 x) noexcept nogil:
    """Every bit of x spread over every bit of the result (MurmurHash3's finaliser), so
    that the top bits of a key made of counts or of a few pieces' squares index a table
    evenly: a multiplication alone carries a high input bit (a piece on the eighth
    rank) into the top bits only."""
    x ^= x >> 33
    x *= <U64>0xFF51AFD7ED558CCD
    x ^= x >> 33
    x *= <U64>0xC4CEB9FE1A85EC53
    x ^= x >> 33
    return x


cdef inline U64 material_hash(const Position* p) noexcept nogil:
    """Both sides' piece counts, kings aside (pawns to queens, four bits each: no count
    passes 10), mixed into 64 bits whose top bits index what is kept by material (the
    search's correction history). Ten population counts at the node that wants it,
    rather than a key kept up to date in make_move."""
    cdef U64 counts = 0
    cdef int piece
    for piece in range(PAWN, KING):
        counts = counts << 8 | <U64>popcount(p.bb[piece]) << 4 | <U64>popcount(p.bb[6 + piece])
    return mix64(counts)


cdef inline U64 non_pawn_hash(const Position* p, int colour) noexcept nogil:
    """Where `colour`'s pieces other than pawns stand (its king with them, as in
    Stockfish's non-pawn keys), mixed into 64 bits whose top bits index what is kept by
    that structure (the search's correction history): each kind's bitboard by its own
    odd constant, then mixed, with no key to keep up to date in make_move."""
    cdef const U64* bb = &p.bb[colour * 6]
    return mix64(bb[KNIGHT] * <U64>0x9E3779B97F4A7C15 ^ bb[BISHOP] * <U64>0xC2B2AE3D27D4EB4F
                 ^ bb[ROOK] * <U64>0x165667B19E3779F9 ^ bb[QUEEN] * <U64>0xD6E8FEB86659FD93
                 ^ bb[KING] * <U64>0xA0761D6478BD642F)
