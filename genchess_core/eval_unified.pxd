# The unified evaluation: the three designs' terms in one tapered, linear form.
# Every term has a middle-game and an end-game number; see eval_unified.pyx.

from genchess_core.types cimport U64
from genchess_core.position cimport Position

# Term layout: where each group of terms starts in the numbers, and its length.
# The genome file, the tuner's features and the C evaluation all read this one
# table (TERMS in eval_unified.pyx is built from it).
cdef enum:
    T_MATERIAL = 0                          # pawn .. queen
    T_TABLE = T_MATERIAL + 5                # pawn .. king, 64 squares each, from White's side
    T_MOB_KNIGHT = T_TABLE + 6 * 64         # by safe squares reached: 0 .. 8
    T_MOB_BISHOP = T_MOB_KNIGHT + 9         # 0 .. 13
    T_MOB_ROOK = T_MOB_BISHOP + 14          # 0 .. 14
    T_MOB_QUEEN = T_MOB_ROOK + 15           # 0 .. 27
    T_PASSED = T_MOB_QUEEN + 28             # by relative rank 2 .. 7
    T_PASSED_BLOCKED = T_PASSED + 6         # its stop square occupied, by rank
    T_PASSED_OWN_KING = T_PASSED_BLOCKED + 6    # per square of own king's distance to the stop square, by rank
    T_PASSED_ENEMY_KING = T_PASSED_OWN_KING + 6  # the same for the enemy king
    T_ISOLATED = T_PASSED_ENEMY_KING + 6
    T_STACKED = T_ISOLATED + 1              # per pawn beyond the first on a file
    T_BACKWARD = T_STACKED + 1
    T_ISLANDS = T_BACKWARD + 1
    T_SUPPORTED = T_ISLANDS + 1             # defended by a pawn
    T_PHALANX = T_SUPPORTED + 1             # beside a pawn of its own on its rank
    T_THREAT = T_PHALANX + 1                # [attacker pawn .. king][victim pawn .. queen]
    T_HANGING = T_THREAT + 30               # attacked, undefended, by victim pawn .. queen
    T_KING_ZONE = T_HANGING + 5             # squares of the enemy king's zone attacked, by knight .. queen
    T_KING_ATTACKERS = T_KING_ZONE + 4      # pieces attacking the enemy king's zone: 0 .. 7
    T_SHELTER = T_KING_ATTACKERS + 8        # own pawns one and two ranks ahead of the king
    T_KING_OPEN = T_SHELTER + 2             # no own pawn on the king's file
    T_KING_ENEMY_OPEN = T_KING_OPEN + 1     # no enemy pawn on the king's file
    T_KING_ESCAPE = T_KING_ENEMY_OPEN + 1   # the king's safe squares: 0 .. 8
    T_CENTRE = T_KING_ESCAPE + 9            # d4 e4 d5 e5 attacked
    T_WIDE_CENTRE = T_CENTRE + 1            # the rest of c3-f6 attacked
    T_CASTLING = T_WIDE_CENTRE + 1          # the right to castle king side, queen side
    T_BISHOP_PAIR = T_CASTLING + 2
    T_ROOK_OPEN = T_BISHOP_PAIR + 1
    T_ROOK_HALF_OPEN = T_ROOK_OPEN + 1
    T_OUTPOST = T_ROOK_HALF_OPEN + 1        # knight, bishop
    T_TEMPO = T_OUTPOST + 2
    N_TERMS = T_TEMPO + 1

cdef struct UnifiedParams:
    int mg[N_TERMS]             # centipawns, each term's middle-game number
    int eg[N_TERMS]             # ... and its end-game number
    # Material + table folded per piece (colour * 6 + kind) and square, signed
    # for White: the per-node walk over the pieces is one lookup each.
    int psq_mg[12][64]
    int psq_eg[12][64]
    int scale                   # internal evaluation units per centipawn

cdef enum:
    UNIFIED_PAWN_CACHE_BITS = 14
    UNIFIED_PAWN_CACHE_SIZE = 1 << UNIFIED_PAWN_CACHE_BITS     # entries, 640 KB

cdef struct UnifiedPawnEntry:
    # The pawn-only terms of one placement of all the pawns (a Searcher's cache).
    U64 pawns[2]
    U64 passed[2]
    int mg
    int eg
    int filled

cdef int evaluate_unified(Position* p, const UnifiedParams* u, UnifiedPawnEntry* cache) noexcept nogil
cdef void unified_trace(Position* p, const UnifiedParams* u, int* counts) noexcept nogil
cdef int unified_params(UnifiedParams* u, dict packed) except -1
