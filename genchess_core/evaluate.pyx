# Evaluation: the router. A genome is packed once into EvalParams (its kind's own
# parameters in their struct); per position, evaluate() branches once on the kind
# to that kind's scoring function, each in its own module: eval_genetic (the
# Genetic Chess genes), eval_material, eval_pvt, eval_unified, eval_network. The
# costly kinds (genetic, unified, network) go through a search thread's
# evaluation cache, which this module owns with the rest of a thread's caches.

from libc.string cimport memset

from genchess_core.types cimport *
from genchess_core.movegen cimport legal_moves_as, legal_count_and_targets, attack_targets_of
from genchess_core.board cimport Board
from genchess_core.eval_genetic cimport evaluate_genetic, genetic_params, PAWN_CACHE_SIZE
from genchess_core.eval_material cimport evaluate_material, material_params
from genchess_core.eval_pvt cimport evaluate_pvt, pvt_params
from genchess_core.eval_unified cimport evaluate_unified, unified_params, UNIFIED_PAWN_CACHE_SIZE
from genchess_core.eval_network cimport evaluate_network, network_params, NetworkAccumulator
from genchess_core.large_pages cimport gc_large_calloc, gc_large_free

# The `kind` a genome's pack() names, to the EvalKind the C evaluation switches on.
KIND_CODES = {"genetic": KIND_GENETIC, "material": KIND_MATERIAL, "pvt": KIND_PVT,
              "unified": KIND_UNIFIED, "network": KIND_NETWORK}


cdef int evaluate(Position* p, const EvalParams* e) noexcept nogil:
    # One branch per call chooses the kind's scoring function: search, players and
    # trainers take any kind without knowing which it is.
    if e.kind == KIND_MATERIAL:
        return evaluate_material(p, &e.material)
    if e.kind == KIND_PVT:
        return evaluate_pvt(p, &e.pvt)
    return cached_evaluate(p, e)


cdef inline int uncached_evaluate(Position* p, const EvalParams* e) noexcept nogil:
    if e.kind == KIND_UNIFIED:
        return evaluate_unified(p, &e.unified, e.unified_pawn_cache)
    if e.kind == KIND_NETWORK:
        return evaluate_network(p, &e.network, e.network_accumulator)
    return evaluate_genetic(p, &e.genetic)


cdef inline int cached_evaluate(Position* p, const EvalParams* e) noexcept nogil:
    """The Genetic Chess, the unified and the network evaluations through the
    Searcher's evaluation cache: a search meets the same position again and again
    (transpositions, null-window re-searches, aspiration re-searches, the static
    evaluation of a node and its stand-pat), and these evaluations (attack maps,
    the genes' legal-move counts, the network's hidden layer) are the costliest
    thing in a node. The same number comes back, so the search is unchanged."""
    cdef EvalEntry* entry
    if e.eval_cache == NULL:
        return uncached_evaluate(p, e)
    entry = &e.eval_cache[p.key & (EVAL_CACHE_SIZE - 1)]
    if entry.filled and entry.key == p.key:
        return entry.score
    entry.score = uncached_evaluate(p, e)
    entry.key = p.key
    entry.filled = 1
    return entry.score


# ------------------------------------------------------------ load time (Python)

cdef enum:
    ORDER_VALUE_LIMIT = 1 << 22     # keeps every ordering score inside its band in search


cdef void set_order_values(EvalParams* e, values) except *:
    """The piece values the search's value ordering uses (USE_VALUE_ORDERING):
    each kind's own idea of a piece's worth, in EVAL_SCALE units, clamped so
    that an evolved weight, however large, cannot move a capture out of the
    captures' band. A kind's pack() may name them (`order_values`); else its
    piece values are used."""
    cdef double v
    for k in range(6):
        v = float(values[k]) * EVAL_SCALE
        e.order_values[k] = <int>max(-ORDER_VALUE_LIMIT, min(ORDER_VALUE_LIMIT, v))


cdef int eval_caches_new(EvalCaches* c) except -1:
    c.pawn = <PawnEntry*>gc_large_calloc(PAWN_CACHE_SIZE, sizeof(PawnEntry))
    c.whole = <EvalEntry*>gc_large_calloc(EVAL_CACHE_SIZE, sizeof(EvalEntry))
    c.unified_pawn = NULL
    c.network = NULL
    if c.pawn == NULL or c.whole == NULL:
        eval_caches_free(c)
        raise MemoryError()
    return 0


cdef void eval_caches_free(EvalCaches* c) noexcept:
    gc_large_free(c.pawn)
    gc_large_free(c.whole)
    gc_large_free(c.unified_pawn)
    gc_large_free(c.network)
    c.pawn = NULL
    c.whole = NULL
    c.unified_pawn = NULL
    c.network = NULL


cdef int eval_caches_attach(EvalParams* e, EvalCaches* c) except -1:
    """Give freshly made parameters a thread's caches, emptied: what they hold was
    computed with the last genome's numbers."""
    memset(c.pawn, 0, PAWN_CACHE_SIZE * sizeof(PawnEntry))
    memset(c.whole, 0, EVAL_CACHE_SIZE * sizeof(EvalEntry))
    e.genetic.pawn_cache = c.pawn
    e.eval_cache = c.whole
    if e.kind == KIND_UNIFIED:
        if c.unified_pawn == NULL:
            c.unified_pawn = <UnifiedPawnEntry*>gc_large_calloc(UNIFIED_PAWN_CACHE_SIZE, sizeof(UnifiedPawnEntry))
            if c.unified_pawn == NULL:
                raise MemoryError()
        memset(c.unified_pawn, 0, UNIFIED_PAWN_CACHE_SIZE * sizeof(UnifiedPawnEntry))
        e.unified_pawn_cache = c.unified_pawn
    if e.kind == KIND_NETWORK:
        if c.network == NULL:
            c.network = <NetworkAccumulator*>gc_large_calloc(1, sizeof(NetworkAccumulator))
            if c.network == NULL:
                raise MemoryError()
        c.network.valid = 0         # its sums are of the last genome's weights
        e.network_accumulator = c.network
    return 0


cdef int make_params(EvalParams* e, dict packed) except -1:
    """Fill e from a genome's pack() dict; runs once per genome load."""
    e.genetic.pawn_cache = NULL     # a Searcher attaches its own after packing
    e.eval_cache = NULL
    e.unified_pawn_cache = NULL
    e.network_accumulator = NULL
    kind = packed.get("kind", "genetic")
    if kind not in KIND_CODES:
        raise ValueError(f"unknown evaluation kind {kind!r} (known: {', '.join(KIND_CODES)})")
    if KIND_CODES[kind] == KIND_NETWORK:
        # Its weights are pointers: the kind changes only once they are all in place,
        # so that parameters that fail to load never point at another genome's memory.
        network_params(&e.network, packed)
        set_order_values(e, packed["order_values"])
        e.kind = KIND_NETWORK
        return 0
    e.kind = KIND_CODES[kind]
    try:
        if e.kind == KIND_MATERIAL:
            material_params(&e.material, packed)
            set_order_values(e, packed.get("order_values", packed["material_weights"][:6]))
            return 0
        if e.kind == KIND_UNIFIED:
            unified_params(&e.unified, packed)
            # Order values in pawns, from the middle-game material in centipawns.
            set_order_values(e, packed.get("order_values", [v / 100.0 for v in packed["unified_mg"][:5]] + [0.0]))
            return 0
        if e.kind == KIND_PVT:
            pvt_params(&e.pvt, packed)
            # Order values in pawns, from the genome's material in centipawns.
            set_order_values(e, packed.get("order_values", [v / 100.0 for v in packed["pvt_material"][:6]]))
            return 0
    except KeyError as missing:
        raise ValueError(f"packed genome lacks parameter {missing}") from None
    genetic_params(&e.genetic, packed)
    set_order_values(e, packed.get("order_values", [e.genetic.piece_values[k] for k in range(6)]))
    return 0


def evaluate_board(Board board, dict packed):
    """The evaluation of `board` (side to move's view, EVAL_SCALE units) under a packed genome."""
    cdef EvalParams e
    make_params(&e, packed)
    return evaluate(&board.pos, &e)


def evaluate_boards(list boards, dict packed):
    """evaluate_board over many boards with one genome, packed once (similarity measures)."""
    cdef EvalParams e
    cdef Board board
    make_params(&e, packed)
    result = []
    for board in boards:
        result.append(evaluate(&board.pos, &e))
    return result


def mobility_terms(Board board, int color):
    """(count, attack targets) of colour `color`'s legal moves two ways: counted by
    the evaluation's fast path, and from the listed moves. For tests: they must agree."""
    cdef Move moves[MAX_MOVES]
    cdef U64 fast_targets
    cdef int fast = legal_count_and_targets(&board.pos, color, &fast_targets)
    cdef int n = legal_moves_as(&board.pos, color, moves)
    return (fast, fast_targets), (n, attack_targets_of(&board.pos, moves, n))
