# The position as a C struct, make/unmake with an undo record, Zobrist keys, FEN.

from genchess_core.types cimport U64, Move, KEY_HISTORY, PAWN
from libc.stdint cimport int8_t

cdef struct Position:
    U64 bb[12]              # one bitboard per piece (colour * 6 + kind)
    U64 occ[2]              # occupancy per colour
    U64 all                 # occ[0] | occ[1]
    int8_t board[64]        # square -> piece, NO_PIECE when empty
    int side
    int castling            # WHITE_OO | WHITE_OOO | BLACK_OO | BLACK_OOO
    int ep                  # en-passant square, set only when a legal ep capture exists
    int halfmove
    int fullmove
    U64 key
    int game_ply            # plies since the position was set from a FEN
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
cdef int king_square(const Position* p, int color) noexcept nogil
cdef int repetition_count(const Position* p) noexcept nogil
cdef U64 compute_key(const Position* p) noexcept nogil

cdef int set_fen(Position* p, str fen) except -1
cdef str get_fen(const Position* p)
cdef str move_to_uci(Move m)


cdef inline U64 pawn_structure_hash(const Position* p) noexcept nogil:
    """Both colours' pawns mixed into 64 bits, whose top bits index what is kept by
    pawn structure (the evaluations' pawn caches, the search's correction history):
    two multiplications, no key to keep up to date in make_move."""
    return (p.bb[PAWN] * <U64>0x9E3779B97F4A7C15) ^ (p.bb[6 + PAWN] * <U64>0xC2B2AE3D27D4EB4F)
