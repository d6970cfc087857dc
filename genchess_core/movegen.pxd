# Legal move generation, perft and game status.

from genchess_core.types cimport U64, Move
from genchess_core.position cimport Position

cdef enum GenKind:
    GEN_ALL = 0
    GEN_CAPTURES = 1        # captures, en passant and every promotion (quiescence)
    GEN_QUIETS = 2          # everything else: quiet moves and castling

cdef enum GameStatus:
    STATUS_ONGOING = 0
    STATUS_CHECKMATE = 1
    STATUS_STALEMATE = 2
    STATUS_INSUFFICIENT = 3
    STATUS_SEVENTYFIVE = 4
    STATUS_FIVEFOLD = 5
    STATUS_FIFTY = 6        # claimable only
    STATUS_THREEFOLD = 7    # claimable only

cdef int generate_legal(const Position* p, Move* moves, int kind) noexcept nogil
cdef int generate_evasions(const Position* p, Move* moves) noexcept nogil
cdef int legal_moves_as(Position* p, int c, Move* moves) noexcept nogil
cdef int count_legal_as(Position* p, int c) noexcept nogil
cdef int legal_count_and_targets(Position* p, int c, U64* attack_targets) noexcept nogil
cdef int legal_count_given_danger(Position* p, int c, U64 danger, U64* attack_targets) noexcept nogil
cdef U64 attack_targets_of(const Position* p, const Move* moves, int n) noexcept nogil
cdef bint has_legal_move(const Position* p) noexcept nogil
cdef bint insufficient_material(const Position* p) noexcept nogil
cdef int game_status(const Position* p, bint claim_draw) noexcept nogil
cdef U64 perft(Position* p, int depth, bint bulk) noexcept nogil
