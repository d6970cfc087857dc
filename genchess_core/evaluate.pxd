# Genome-driven evaluation over a flat parameter struct, one scoring function per
# evaluation kind (the genome file's `Kind:`), chosen once per call.

from genchess_core.types cimport U64
from genchess_core.bitboard cimport gc_prefetch
from genchess_core.position cimport Position
from genchess_core.eval_material cimport MaterialParams
from genchess_core.eval_pvt cimport PvtParams, pvt_phase, pvt_quiet_order
from genchess_core.eval_unified cimport UnifiedParams, UnifiedPawnEntry
from genchess_core.eval_network cimport NetworkParams, NetworkAccumulator

cdef enum EvalKind:
    KIND_GENETIC = 0            # Genetic Chess scoring genes (this module)
    KIND_MATERIAL = 1           # Kendall-Whitwell material weights (eval_material)
    KIND_PVT = 2                # Phoenix piece-square tables (eval_pvt)
    KIND_UNIFIED = 3            # the three designs' terms, tapered and linear (eval_unified)
    KIND_NETWORK = 4            # a perspective network (eval_network)

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
    # Internal score units per unit of the genome's weighted score.
    EVAL_SCALE = 1000
    EVAL_LIMIT = 500000000      # evaluations are clamped well inside the mate range

cdef enum:
    PAWN_CACHE_BITS = 14
    PAWN_CACHE_SIZE = 1 << PAWN_CACHE_BITS  # entries, about 1.4 MB

cdef enum:
    EVAL_CACHE_SIZE = 65536     # entries (a power of two), 1 MB

cdef struct EvalEntry:
    # One position's Genetic Chess evaluation, by its Zobrist key.
    U64 key
    int score
    int filled

cdef struct PawnEntry:
    # The four pawn-structure genes' raw scores (advancement, passed pawns, islands,
    # stacked pawns) of both colours, for one placement of all the pawns.
    U64 pawns[2]
    double raw[2][4]
    int filled

cdef struct EvalParams:
    int kind                    # an EvalKind: which scoring function and which fields below
    int order_values[6]         # each piece kind's worth for move ordering, internal units
    MaterialParams material     # KIND_MATERIAL
    PvtParams pvt               # KIND_PVT
    UnifiedParams unified       # KIND_UNIFIED
    UnifiedPawnEntry* unified_pawn_cache    # UNIFIED_PAWN_CACHE_SIZE entries owned by a Searcher; NULL: none
    NetworkParams network       # KIND_NETWORK (its weights borrowed from the genome's pack())
    NetworkAccumulator* network_accumulator # a Searcher's thread's; NULL: none (computed afresh)
    # KIND_GENETIC:
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
    EvalEntry* eval_cache       # EVAL_CACHE_SIZE entries owned by a Searcher; NULL: none
                                # (genetic, unified and network kinds: the costly evaluations)

cdef struct EvalCaches:
    # One search thread's evaluation caches. Which kind reads which is this module's
    # business: the search only owns them, and attaches them when a genome loads.
    PawnEntry* pawn                     # the genetic kind's pawn-structure terms
    EvalEntry* whole                    # whole evaluations (genetic and unified kinds)
    UnifiedPawnEntry* unified_pawn      # the unified kind's pawn terms, made when one loads
    NetworkAccumulator* network         # the network kind's accumulator, made when one loads

cdef int eval_caches_new(EvalCaches* c) except -1
cdef void eval_caches_free(EvalCaches* c) noexcept
cdef int eval_caches_attach(EvalParams* e, EvalCaches* c) except -1

cdef int evaluate(Position* p, const EvalParams* e) noexcept nogil

cdef inline void eval_prefetch(const EvalParams* e, U64 key) noexcept nogil:
    """Start loading key's evaluation-cache slot, as tt_prefetch does the hash
    table's: a profile of the unified genome put nearly all of evaluate()'s own time
    on the cache probe's first read, waiting for memory."""
    if e.eval_cache != NULL:
        gc_prefetch(&e.eval_cache[key & (EVAL_CACHE_SIZE - 1)])

cdef inline int quiet_order_phase(const EvalParams* e, const Position* p) noexcept nogil:
    """-1 where quiet moves are ordered by the search's statistics; else the genome
    orders them itself (a PVT genome, by the tapered table value of their destination:
    Phoenix's use of its tables), and this is the phase quiet_order wants."""
    return pvt_phase(p) if e.kind == KIND_PVT else -1


cdef inline int quiet_order(const EvalParams* e, int piece, int to, int phase) noexcept nogil:
    """A quiet move's order score by the genome itself (only where quiet_order_phase
    gave a phase)."""
    return pvt_quiet_order(&e.pvt, piece, to, phase)


cdef void raw_scores(Position* p, const EvalParams* e, int color, double* out) noexcept nogil
cdef int make_params(EvalParams* e, dict packed) except -1
