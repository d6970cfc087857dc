# The search's state and what every search mode shares: the feature bits, mate
# scores, the limit check and capture ordering. Alpha-beta and the budget search
# are in search.pyx, move picking in movepick.pxd, the Searcher in searcher.pyx;
# the GA search (gasearch) cimports its state, limit check and capture ordering here.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from genchess_core.types cimport (U64, Move, MAX_PLY, MAX_MOVES, PAWN, FLAG_CAPTURE, FLAG_EP_CAPTURE,
                                  FLAG_PROMO, move_from, move_to, move_flags, move_promo_kind)
from genchess_core.position cimport Position
from genchess_core.evaluate cimport EvalParams
from genchess_core.tt cimport TT
from genchess_core.atomics cimport gc_shared_int, gc_shared_double

cdef enum:
    # Heuristic switches, so each one's effect on node counts can be measured.
    USE_ALPHABETA = 1
    USE_ORDERING = 2        # hash move, MVV-LVA captures, killers, history
    USE_QUIESCENCE = 4
    USE_TT = 8
    USE_NULL_MOVE = 16
    USE_LMR = 32
    USE_CHECK_EXTENSION = 64
    USE_PVS = 128
    USE_MATE_DISTANCE = 256
    USE_QS_SEE = 1024       # quiescence skips captures that lose material by SEE
    USE_RFP = 2048          # reverse futility pruning (static null move) near the leaves
    USE_LMP = 4096          # late-move pruning of quiet moves near the leaves
    USE_FUTILITY = 8192     # quiet moves that cannot lift a node far below alpha are skipped
    USE_ASPIRATION = 16384  # aspiration windows at the root from depth 5
    USE_SEE_ORDERING = 32768  # captures losing by SEE ordered after the quiet moves
    USE_DELTA = 65536       # delta pruning in quiescence
    USE_COUNTERMOVE = 131072  # the refutation of the opponent's last move after the killers
    USE_HISTORY_MALUS = 262144  # quiet moves tried before a cutoff lose history
    USE_IIR = 524288        # internal iterative reduction without a hash move
    USE_CONT_HISTORY = 1048576  # quiet moves ordered by continuation history too
    USE_SINGULAR = 2097152  # singular extensions and multi-cut
    USE_LMR_HISTORY = 4194304  # late-move reductions shrink or grow with the move's history
    USE_IMPROVING = 8388608  # prune and reduce more where the static evaluation is falling
    USE_QS_TT = 33554432    # quiescence probes, cuts on and stores the hash table (a trial
                            # until its SPRT passed on 2026-12-08)
    # Trials: steps waiting for their SPRT, off by default (not in FEATURES_ALL), each
    # turned on by its engine option (genchess.protocols.options.TRIALS) so that one build plays
    # both sides of the SPRT.
    USE_TIME_SCALING = 16777216  # the soft time limit scaled by the last iterations (timeman.SoftScaling)
    USE_PROBCUT = 67108864  # a capture that beats beta by a margin at reduced depth cuts the node
    USE_CAPTURE_HISTORY = 134217728  # captures ordered by the victim and their own history
    USE_HISTORY_PRUNING = 268435456  # quiet moves with a bad history skipped near the leaves
    USE_DOUBLE_SINGULAR = 536870912  # a move far more singular extended twice; a hash move
                                     # that is not singular where the table says beta holds, reduced
    USE_RULE50_SCALING = 1073741824  # the search's static evaluation shrinks toward a draw as
                                     # the fifty-move counter grows
    USE_NULL_VERIFY = 2147483648u    # a null move's cut verified by a search without one (zugzwang)
    # A C enum holds an int, so a bit from 32 on (`features` is 64 bits) is a 64-bit
    # constant instead, declared in a `cdef extern from *` block beside this enum:
    #     #define GC_USE_NAME (1ULL << 32)      (in the block's C text: U64 is a Cython name, not C's)
    #     const U64 USE_NAME "GC_USE_NAME"
    # and every complement of bits is taken as ~<U64>(...), so that no high bit is lost.
    FEATURES_ALL = (511 | USE_QS_SEE | USE_RFP | USE_FUTILITY | USE_LMP | USE_ASPIRATION
                    | USE_SEE_ORDERING | USE_DELTA | USE_COUNTERMOVE | USE_HISTORY_MALUS | USE_IIR
                    | USE_CONT_HISTORY | USE_SINGULAR | USE_LMR_HISTORY | USE_IMPROVING
                    | USE_QS_TT)
    # What a mate search (`go mate`) turns off: prunings whose cut is a guess, not a proof
    # (and MATE_UNSOUND_HIGH's bits, below).
    MATE_UNSOUND = USE_NULL_MOVE | USE_PROBCUT | USE_HISTORY_PRUNING | USE_DOUBLE_SINGULAR
    # Not in FEATURES_ALL: the Kendall-Whitwell players' ordering, which replaces
    # USE_ORDERING's (captures and promotions by the value gained under the genome's
    # own order_values, then quiet moves by the mover's value; no hash move,
    # killers or history).
    USE_VALUE_ORDERING = 512
    KENDALL_WHITWELL = USE_ALPHABETA | USE_QUIESCENCE | USE_TT | USE_VALUE_ORDERING

# Trials from bit 32 on (the enum's comment above says why they are declared here).
cdef extern from *:
    """
    #define GC_USE_CORRECTION_HISTORY (1ULL << 32)
    #define GC_USE_CONT_HISTORY_PLIES (1ULL << 33)
    #define GC_USE_SEE_PRUNING (1ULL << 34)
    #define GC_USE_TT_BUCKETS (1ULL << 35)
    #define GC_MATE_UNSOUND_HIGH GC_USE_SEE_PRUNING
    #define GC_FEATURES_ALL_HIGH 0ULL
    """
    # the static evaluation the search reads corrected by what searches of positions
    # with the same material and the same non-pawn pieces found it to miss
    const U64 USE_CORRECTION_HISTORY "GC_USE_CORRECTION_HISTORY"
    # the continuation history one ply back weighted on its own (cont_history1_weight) in
    # the quiet moves' order, and one four plies back read and taught beside the two
    const U64 USE_CONT_HISTORY_PLIES "GC_USE_CONT_HISTORY_PLIES"
    # near the leaves, captures and quiet moves that lose material by SEE are skipped
    const U64 USE_SEE_PRUNING "GC_USE_SEE_PRUNING"
    # the hash table read as buckets of four entries, replaced by depth and age (tt.pyx)
    const U64 USE_TT_BUCKETS "GC_USE_TT_BUCKETS"
    # MATE_UNSOUND's bits from 32 on: a mate search turns off MATE_UNSOUND | this
    const U64 MATE_UNSOUND_HIGH "GC_MATE_UNSOUND_HIGH"
    # FEATURES_ALL's bits from 32 on: a trial from bit 32 that passes its SPRT joins the
    # default search here (the enum cannot hold it); default_features() joins the two.
    const U64 FEATURES_ALL_HIGH "GC_FEATURES_ALL_HIGH"


cdef inline U64 default_features() noexcept nogil:
    """The search's default steps: FEATURES_ALL and FEATURES_ALL_HIGH."""
    return <U64>FEATURES_ALL | FEATURES_ALL_HIGH

cdef enum:
    MATE_SCORE = 1000000000
    MATE_BOUND = 999999000      # |score| above this is a mate in (MATE_SCORE - |score|) plies
    INFINITE_SCORE = 1100000000
    DRAW_SCORE = 0

cdef enum:
    MODE_ITERATIVE = 0
    MODE_BUDGET = 1

# Shared by every search mode (the alpha-beta search here and the GA search).
cdef enum:
    CHECK_EVERY = 1023          # nodes between time/limit checks, minus one
    MVV_VICTIM_WEIGHT = 64      # MVV-LVA: the victim's order value outweighs any attacker's
    MVV_PROMO_WEIGHT = 16       # ... and a promotion's new piece, between the two

# Each piece kind's worth for ordering captures (and delta pruning), in pawns:
# pawn, knight, bishop, rook, queen, king. A C constant here rather than a module
# array, which a .pxd cannot initialise, so that both searches read the one table.
cdef extern from *:
    """
    static const int genchess_piece_order_value[6] = {1, 3, 3, 5, 9, 20};
    """
    const int PIECE_ORDER_VALUE "genchess_piece_order_value"[6]

cdef enum:
    LMR_TABLE_SIZE = 64
    # Root moves' node counts by from | to << 6: a table needs no reordering when the
    # root moves are sorted; only the under-promotions share a promotion's slot.
    ROOT_NODE_SLOTS = 4096
    # Correction history (a trial behind USE_CORRECTION_HISTORY): 2^this entries a table
    CORRECTION_BITS = 14
    CORRECTION_SIZE = 1 << CORRECTION_BITS
    # Entries are kept in 1/this of an evaluation unit, so that a shallow search's small
    # error still moves them (weight/256 of a tenth of a pawn is less than one unit);
    # an update moves an entry weight/this of the error, which is error * weight grains
    CORRECTION_GRAIN = 256
    CORRECTION_ENTRY_MAX = 1 << 30  # an entry's bound stays an int whatever the genome's pawn


# SearchParams, one int per gene of the search: made from the genes' one table
# (search_gene_table.py) when the core is built.
include "search_params.pxi"


cdef struct SearchState:
    Position pos
    EvalParams params
    SearchParams sp
    int lmr[LMR_TABLE_SIZE][LMR_TABLE_SIZE]     # late-move reductions by depth and move number,
                                                # from sp's lmr_base and lmr_divisor
    TT* tt
    U64 nodes
    U64 node_limit              # 0: none
    gc_shared_double deadline   # monotonic seconds; 0: none (a ponderhit sets it mid-search)
    gc_shared_int stop          # set by `stop`, the limits, or the main thread for its helpers
    int seldepth
    U64 features                # the USE_ bits (64; a C enum holds the first 32)
    int qs_ply_limit            # quiescence stands pat at this ply from the root; 0: no cap
    int pawn_value              # the margins' pawn in evaluation units: pruning margins scale with it
    int material_pawn           # the genome's own pawn in evaluation units: what a captured piece is
                                # worth in delta pruning (differs from pawn_value only with `Search pawn`)
    int mode
    int aspiration_researches   # root searches again after a fail, this search (for tests)
    U64 history_prunes          # quiet moves history pruning skipped, this search (for tests)
    U64 see_prunes              # moves SEE pruning skipped, this search (for tests)
    U64 null_verifications      # null-move cuts verified by a search without one (for tests)
    U64 null_refuted            # ... and the verification refuted, this search (for tests)
    U64 double_extensions       # hash moves extended twice, this search (for tests)
    U64 negative_extensions     # ... and searched a ply shallower (for tests)
    int most_line_doubles       # the most double extensions one line took, this search (for tests)
    double spec[4]              # budget mode: just captured, can capture, recapture, default
    Move root_moves[256]
    int root_scores[256]
    U64 root_nodes[ROOT_NODE_SLOTS]  # nodes this search spent under each root move, by
                                # its from and to squares (time management's node share)
    int n_root
    Move killers[MAX_PLY][2]
    int history[12][64]
    Move countermoves[12][64]   # by the piece that moved last and its destination
    Move played[MAX_PLY]        # the move made at each ply of the current line (none: null move)
    int played_piece[MAX_PLY]   # ... and the piece that made it
    Move excluded[MAX_PLY]      # the move a singular-extension search leaves out at that ply
    int line_doubles[MAX_PLY]   # double extensions on the current line above each ply's node
    int static_evals[MAX_PLY]   # each ply's static evaluation on the current line (in check: none)
    int cont_history[12][64][12][64]  # by the piece and square of a move 1 or 2 plies back (or, a
                                      # trial, 4), then this move's: one table for every distance
    int capture_history[12][64][5]  # by the capturing piece, its destination and the kind it takes
    # Correction history, what the search found the static evaluation to miss (in grains,
    # CORRECTION_GRAIN to an evaluation unit), by the side to move and a key: the piece
    # counts of both sides (material),
    # and for each colour the places of its pieces other than pawns (non_pawn[colour])
    int correction_material[2][CORRECTION_SIZE]
    int correction_non_pawn[2][2][CORRECTION_SIZE]
    Move pv[MAX_PLY][MAX_PLY]
    int pv_len[MAX_PLY]


cdef int set_search_params(SearchState* s, dict values) except -1


cdef inline double monotonic_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int captured_kind(const Position* p, Move m) noexcept nogil:
    return PAWN if move_flags(m) == FLAG_EP_CAPTURE else p.board[move_to(m)] % 6


cdef inline int mvv_lva(const Position* p, Move m) noexcept nogil:
    """Most valuable victim first (a promotion adds its new piece), then least
    valuable attacker: the captures most likely to cut come first."""
    cdef int flags = move_flags(m), score = -PIECE_ORDER_VALUE[p.board[move_from(m)] % 6]
    if flags & FLAG_CAPTURE:
        score += MVV_VICTIM_WEIGHT * PIECE_ORDER_VALUE[captured_kind(p, m)]
    if flags & FLAG_PROMO:
        score += MVV_PROMO_WEIGHT * PIECE_ORDER_VALUE[move_promo_kind(m)]
    return score


cdef inline void check_limits(SearchState* s) noexcept nogil:
    """Stop at the node limit, to the node: a comparison a node, so that `go nodes N`
    and the strength levels' budgets mean what they say. The hard deadline is looked
    at every CHECK_EVERY + 1 nodes only: the clock costs more than a node's counting."""
    if s.node_limit and s.nodes >= s.node_limit:
        s.stop = 1
    elif (s.nodes & CHECK_EVERY) == 0 and s.deadline > 0.0 and monotonic_seconds() >= s.deadline:
        s.stop = 1


cdef int search_evaluate(SearchState* s) noexcept nogil
cdef void correction_slots(SearchState* s, int** slots) noexcept nogil
cdef int quiesce(SearchState* s, int alpha, int beta, int ply) noexcept nogil
cdef int negamax(SearchState* s, int depth, int alpha, int beta, int ply, bint null_ok) noexcept nogil
cdef int search_iteration(SearchState* s, int depth, int line, double budget,
                          int previous) noexcept nogil
cdef void order_root_by_eval(SearchState* s) noexcept nogil
