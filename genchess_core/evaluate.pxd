# Genome-driven evaluation over a flat parameter struct, one scoring function per
# evaluation kind (the genome file's `Kind:`, each in its own eval_*.pyx), chosen
# once per call; this module only routes, and owns the caches a search thread keeps.

from genchess_core.types cimport U64, EVAL_SCALE, EVAL_LIMIT   # (re-exported: the score units)
from genchess_core.bitboard cimport gc_prefetch
from genchess_core.position cimport Position
from genchess_core.eval_genetic cimport GeneticParams, PawnEntry
from genchess_core.eval_material cimport MaterialParams
from genchess_core.eval_pvt cimport PvtParams, pvt_phase, pvt_quiet_order
from genchess_core.eval_unified cimport UnifiedParams, UnifiedPawnEntry
from genchess_core.eval_network cimport NetworkParams, NetworkAccumulator

cdef enum EvalKind:
    KIND_GENETIC = 0            # Genetic Chess scoring genes (eval_genetic)
    KIND_MATERIAL = 1           # Kendall-Whitwell material weights (eval_material)
    KIND_PVT = 2                # Phoenix piece-square tables (eval_pvt)
    KIND_UNIFIED = 3            # the three designs' terms, tapered and linear (eval_unified)
    KIND_NETWORK = 4            # a perspective network (eval_network)

cdef enum:
    EVAL_CACHE_SIZE = 65536     # entries (a power of two), 1 MB

cdef struct EvalEntry:
    # One position's evaluation (genetic, unified or network kind), by its Zobrist key.
    U64 key
    int score
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
    GeneticParams genetic       # KIND_GENETIC (its pawn cache a Searcher's)
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


cdef int make_params(EvalParams* e, dict packed) except -1
