# The Genetic Chess evaluation: twelve scoring genes, each a raw score S per side,
# weighed as priority * sgn(S) * |S|^exponent (evaluate routes to it, as to every kind).

from genchess_core.position cimport Position
from genchess_core.types cimport U64

cdef enum:  # scoring genes, in GENE_PREFIXES order
    G_TOTAL_FORCE = 0
    G_FREEDOM = 1
    G_PAWN_ADVANCEMENT = 2
    G_PASSED_PAWN = 3
    G_TARGETED = 4
    G_SPHERE = 5
    G_CONFINEMENT = 6
    G_KING_PROTECTION = 7
    G_CASTLING = 8
    G_PAWN_ISLANDS = 9
    G_STACKED_PAWNS = 10
    G_CHECKMATE_MATERIAL = 11
    N_SCORING_GENES = 12

cdef enum:
    PAWN_CACHE_BITS = 14
    PAWN_CACHE_SIZE = 1 << PAWN_CACHE_BITS  # entries, about 1.4 MB

cdef struct PawnEntry:
    # The four pawn-structure genes' raw scores (advancement, passed pawns, islands,
    # stacked pawns) of both colours, for one placement of all the pawns.
    U64 pawns[2]
    double raw[2][4]
    int filled

cdef struct GeneticParams:
    double piece_values[6]      # normalised: sum over the starting army of |value| is 1
    double priority[12]
    double exponent[12]
    double pawn_adv_table[8]    # |ranks advanced|^(1 + non-linearity), precomputed
    double sphere_legal_score
    double sphere_illegal_score
    double sphere_king_target
    double confine_friendly
    double confine_enemy
    int confine_max_distance
    double castling_kingside
    double castling_queenside
    PawnEntry* pawn_cache       # PAWN_CACHE_SIZE entries owned by a Searcher; NULL: none

cdef int evaluate_genetic(Position* p, const GeneticParams* e) noexcept nogil
cdef void raw_scores(Position* p, const GeneticParams* e, int color, double* out) noexcept nogil
cdef int genetic_params(GeneticParams* e, dict packed) except -1
