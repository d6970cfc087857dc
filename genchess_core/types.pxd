# Shared C types and constants of the hot path.
#
# Pieces are numbered colour * 6 + kind so one array of twelve bitboards holds the
# whole army and `piece % 6`, `piece // 6` are cheap. Moves are 16-bit integers in
# the usual from | to << 6 | flags << 12 layout so a move list is a flat C array.

from libc.stdint cimport uint64_t, uint16_t, int8_t

ctypedef uint64_t U64
ctypedef uint16_t Move

cdef enum:
    WHITE = 0
    BLACK = 1

cdef enum:
    PAWN = 0
    KNIGHT = 1
    BISHOP = 2
    ROOK = 3
    QUEEN = 4
    KING = 5

cdef enum:
    # Internal score units per unit of the genome's weighted score (a Genetic Chess
    # genome's; the search's pawn unless a genome names its own).
    EVAL_SCALE = 1000
    EVAL_LIMIT = 500000000      # evaluations are clamped well inside the mate range

cdef enum:
    NO_PIECE = 12
    NO_SQ = 64
    MOVE_NONE = 0
    MAX_MOVES = 256
    MAX_PLY = 128
    # Keys kept for repetition detection; a ring, so lookback is capped at this.
    KEY_HISTORY = 1024

# Castling-right bits.
cdef enum:
    WHITE_OO = 1
    WHITE_OOO = 2
    BLACK_OO = 4
    BLACK_OOO = 8

# Move flags (the top four bits of a Move). A castling move is the king's move, from
# its square to g1/c1 (g8/c8) with a castle flag, in Chess960 too: the flag tells it
# from a plain king move with the same squares, and the rook's square comes from the
# position. Keeping the king's destination as `to` leaves every table the search
# indexes by destination (history, piece-square ordering) as it is in standard chess.
cdef enum:
    FLAG_QUIET = 0
    FLAG_DOUBLE_PUSH = 1
    FLAG_KING_CASTLE = 2
    FLAG_QUEEN_CASTLE = 3
    FLAG_CAPTURE = 4
    FLAG_EP_CAPTURE = 5
    FLAG_PROMO = 8          # + (promoted kind - KNIGHT); | FLAG_CAPTURE for capture-promotions

cdef inline int move_from(Move m) noexcept nogil:
    return m & 63

cdef inline int move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_flags(Move m) noexcept nogil:
    return m >> 12

cdef inline bint move_is_capture(Move m) noexcept nogil:
    return (m >> 12) & FLAG_CAPTURE

cdef inline bint move_is_castle(Move m) noexcept nogil:
    """FLAG_KING_CASTLE or FLAG_QUEEN_CASTLE: the king's from and destination squares
    (Chess960 included); the rook's square is the position's (castle_rook)."""
    return (m >> 13) == 1

cdef inline bint move_is_promotion(Move m) noexcept nogil:
    return (m >> 12) & FLAG_PROMO

cdef inline int move_promo_kind(Move m) noexcept nogil:
    return ((m >> 12) & 3) + KNIGHT

cdef inline Move make_move_code(int frm, int to, int flags) noexcept nogil:
    return <Move>(frm | (to << 6) | (flags << 12))
