# The search itself: alpha-beta below the root (negamax with PVS and the prunings,
# quiescence), the Look Ahead Gene's budget search, and one root iteration with its
# aspiration windows. Move picking and the statistics are in movepick.pxd; the
# Searcher (threads, the genome, iterative deepening from Python) in searcher.pyx.
# Every heuristic sits behind a bit of `features` so its effect on node counts can
# be measured. The budget search spends a node budget instead of a fixed depth:
# each move gets its share of what is left and is searched deeper only while the
# estimated cost of doing so fits in that share.
#
# Scores are side-to-move relative ints: evaluations in EVAL_SCALE units, mates
# as MATE_SCORE - plies, so shorter mates score higher. Draws score 0.

from libc.string cimport memcpy
from libc.math cimport log

from genchess_core.types cimport *
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, make_null,
                                     unmake_null, in_check, repetition_count, material_hash,
                                     non_pawn_hash)
from genchess_core.movegen cimport (generate_legal, GEN_ALL, GEN_CAPTURES, insufficient_material,
                                    has_legal_move)
from genchess_core.evaluate cimport evaluate, eval_prefetch, EVAL_LIMIT
from genchess_core.tt cimport (TTHit, tt_probe, tt_prefetch, tt_store, BOUND_NONE, BOUND_UPPER,
                               BOUND_LOWER, BOUND_EXACT)
from genchess_core.see cimport see_ge
from genchess_core.movepick cimport (order_moves, demote_losing_captures, pick_move, quiet_stat,
                                     history_bonus, add_history, continuation, continuation4, reward_quiet,
                                     reward_captures, countermove_slot, SCORE_KILLER)
from genchess_core.search_gene_table import SEARCH, genes_of

# The search's genes (SearchParams' fields, their defaults, bounds and steps) are the
# rows of search_gene_table.GENES that the search reads. The numbers the GA search
# shares (CHECK_EVERY, PIECE_ORDER_VALUE, the MVV-LVA weights) are in search.pxd,
# move ordering's score bands in movepick.pxd.
SEARCH_GENES = genes_of(SEARCH)

cdef enum:
    # Step 18. History malus
    MAX_QUIETS_PUNISHED = 64    # quiet moves remembered per node for the history malus
    MAX_CAPTURES_PUNISHED = 32  # ... and captures for capture history's


cdef int set_search_params(SearchState* s, dict values) except -1:
    """Set s.sp from `values` (name -> whole number) over the genes' defaults, and the
    reduction table that follows from it; ValueError naming an unknown name or a value
    outside its bounds, with s unchanged. Once per genome."""
    unknown = sorted(set(values) - {gene.name for gene in SEARCH_GENES})
    if unknown:
        raise ValueError(f"unknown search tunable {unknown[0]!r}")
    cdef dict fields = {}
    for gene in SEARCH_GENES:
        value = values.get(gene.name, gene.default)
        if value != int(value) or not gene.lo <= value <= gene.hi:
            raise ValueError(f"search tunable {gene.name} must be a whole number from {gene.lo} "
                             f"to {gene.hi}, not {value!r}")
        fields[gene.name] = int(value)
    s.sp = fields       # Cython's conversion of a dict to the struct, field by field
    # Late-move reductions by depth and move number: base + ln(depth) ln(move) /
    # divisor plies, the shape of Stockfish's table (reductions grow with both, but slowly).
    cdef int d, m
    for d in range(LMR_TABLE_SIZE):
        for m in range(LMR_TABLE_SIZE):
            s.lmr[d][m] = <int>(s.sp.lmr_base / 100.0 + log(d) * log(m)
                                / (s.sp.lmr_divisor / 100.0)) if d > 0 and m > 0 else 0
    return 0


cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


cdef inline bint probe_table(SearchState* s, TTHit* hit) noexcept nogil:
    """The hash table's entry for the node's position, in the layout the TT Buckets
    trial sets: one entry per key, or a bucket of four (tt.pyx)."""
    return tt_probe(s.tt, s.pos.key, hit, (s.features & USE_TT_BUCKETS) != 0)


cdef inline void store_table(SearchState* s, int score, int bound, int depth, Move move) noexcept nogil:
    """Store the node's entry, in the same layout; with buckets, an entry of another
    position gives way by its depth less tt_age_weight plies per search of age."""
    tt_store(s.tt, s.pos.key, score, bound, depth, move, (s.features & USE_TT_BUCKETS) != 0,
             s.sp.tt_age_weight)


cdef inline bint is_draw(const Position* p) noexcept nogil:
    """Draws inside the tree: any repetition (a second occurrence is enough to know
    the side can repeat), the fifty-move rule and dead positions."""
    if p.halfmove >= 100 or repetition_count(p) >= 2:
        return True
    return insufficient_material(p)


cdef inline void update_pv(SearchState* s, int ply, Move m) noexcept nogil:
    cdef int j
    s.pv[ply][ply] = m
    for j in range(ply + 1, s.pv_len[ply + 1]):
        s.pv[ply][j] = s.pv[ply + 1][j]
    s.pv_len[ply] = s.pv_len[ply + 1] if s.pv_len[ply + 1] > ply + 1 else ply + 1



cdef void correction_slots(SearchState* s, int** slots) noexcept nogil:
    """The correction history's three entries for the node (a trial behind
    USE_CORRECTION_HISTORY), all of the side to move: by material, and by where
    White's and Black's pieces other than pawns stand. The keys are made here from the
    bitboards (position.pxd), once per node that has a static evaluation, so that
    make_move keeps no key it would rarely need."""
    cdef const Position* p = &s.pos
    slots[0] = &s.correction_material[p.side][material_hash(p) >> (64 - CORRECTION_BITS)]
    slots[1] = &s.correction_non_pawn[0][p.side][non_pawn_hash(p, 0) >> (64 - CORRECTION_BITS)]
    slots[2] = &s.correction_non_pawn[1][p.side][non_pawn_hash(p, 1) >> (64 - CORRECTION_BITS)]


cdef inline long long correction_of(SearchState* s, int** slots) noexcept nogil:
    """What the correction history adds to the static evaluation, in evaluation units:
    its entries, each weighted (percent) by its search gene, the two non-pawn ones alike."""
    return (<long long>s.sp.correction_material_weight * slots[0][0]
            + <long long>s.sp.correction_non_pawn_weight * (<long long>slots[1][0] + slots[2][0])
            ) // (100 * CORRECTION_GRAIN)


cdef void learn_correction(SearchState* s, int error, int depth) noexcept nogil:
    """The search found the node `error` better than the static evaluation it read
    (corrected already): each of its entries moves min(depth + 1,
    correction_max_weight) / 256 of the error, never past correction_limit (percent
    of the genome's pawn). A deeper search is surer, so it moves them further (the
    moving-average form of Ethereal's and older Stockfish's correction history). All
    three move by the same step: the corrected evaluation of the node itself then
    moves that share of the error times the sum of the weights."""
    cdef int* slots[3]
    cdef int i
    cdef long long weight = depth + 1 if depth + 1 < s.sp.correction_max_weight else s.sp.correction_max_weight
    cdef long long limit = <long long>s.sp.correction_limit * s.material_pawn * CORRECTION_GRAIN // 100
    cdef long long step = <long long>error * weight, v     # weight/256 of it, in grains
    if limit > CORRECTION_ENTRY_MAX:
        limit = CORRECTION_ENTRY_MAX
    correction_slots(s, slots)
    for i in range(3):
        v = slots[i][0] + step
        slots[i][0] = <int>(limit if v > limit else -limit if v < -limit else v)


cdef int search_evaluate(SearchState* s) noexcept nogil:
    """The static evaluation as the main search and quiescence read it. With the
    fifty-move trial (USE_RULE50_SCALING) it shrinks toward a draw as the halfmove
    clock runs, by (rule50_divisor - clock) / rule50_divisor, as Stockfish and
    Ethereal scale theirs: an edge that has made no capture or pawn move for fifty
    moves is worth less than the same edge with the clock at zero, and the search
    then prefers the line that resets the clock. With the correction history trial
    (USE_CORRECTION_HISTORY) it adds what searches of nodes with the same material and
    the same non-pawn pieces found the evaluation to miss (negamax's step 19 teaches
    it). Only the search's view: `explain` and the tuners read the evaluation itself.
    (The table stores scores by the key, which does not hold the clock, as in those
    engines.)"""
    cdef int score = evaluate(&s.pos, &s.params)
    cdef int clock
    cdef int* slots[3]
    cdef long long corrected
    if s.features & USE_RULE50_SCALING:
        # Quiescence's evasions can run the clock past 100; the divisor's floor (120)
        # keeps the factor positive all the same.
        clock = s.pos.halfmove if s.pos.halfmove < 100 else 100
        score = <int>(<long long>score * (s.sp.rule50_divisor - clock) // s.sp.rule50_divisor)
    if s.features & USE_CORRECTION_HISTORY:
        correction_slots(s, slots)
        corrected = score + correction_of(s, slots)
        score = <int>(EVAL_LIMIT if corrected > EVAL_LIMIT else -EVAL_LIMIT if corrected < -EVAL_LIMIT
                      else corrected)
    return score


cdef int quiesce(SearchState* s, int alpha, int beta, int ply) noexcept nogil:
    """Captures (every evasion in check) until the position is quiet. Its steps
    are numbered on their own (Q1-Q8) in the order they run; the `search-elo.md
    step N` beside a step is the row of docs/studies/search-elo.md it was measured as."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score, best, stand_pat, orig_alpha = alpha, tt_score = 0, tt_bound = BOUND_NONE
    cdef bint checked, use_tt = s.features & USE_QS_TT and s.features & USE_TT
    cdef Move tt_move = MOVE_NONE, best_move = MOVE_NONE
    cdef TTHit entry
    cdef Position* p = &s.pos
    # Step Q1. Count the node and check for stop. The line it finds is kept (a
    # capture sequence the PV shows, and the GA search's refutation line): a copy at
    # each raised alpha, 0.1% of the search's instructions (callgrind, bench depth 6).
    s.pv_len[ply] = ply
    s.nodes += 1
    if ply > s.seldepth:
        s.seldepth = ply
    check_limits(s)
    if s.stop:
        return 0
    # Step Q2. Where the capture search ends before it starts: the ply limit; the
    # quiescence cap, at which a fixed-depth player's capture sequences end at a
    # set multiple of its nominal depth (Kendall-Whitwell: two to three times);
    # without quiescence (plain minimax), the horizon itself; a dead position.
    if ply >= MAX_PLY - 1:
        return search_evaluate(s)
    if s.qs_ply_limit and ply >= s.qs_ply_limit:
        return search_evaluate(s)
    if not (s.features & USE_QUIESCENCE):
        if not has_legal_move(p):
            return -MATE_SCORE + ply if in_check(p) else DRAW_SCORE
        return search_evaluate(s)
    if insufficient_material(p):
        return DRAW_SCORE
    # Step Q3. Transposition table (a trial behind USE_QS_TT): any entry was searched
    # at least as deep as quiescence, so a bound on the right side of the window cuts
    # here, as in the main search's step 6; its move is tried first.
    if use_tt and probe_table(s, &entry):
        tt_move = entry.move
        tt_bound = entry.bound
        tt_score = score_from_tt(entry.score, ply)
        if tt_bound == BOUND_EXACT or (tt_bound == BOUND_LOWER and tt_score >= beta) \
                or (tt_bound == BOUND_UPPER and tt_score <= alpha):
            return tt_score
    # Step Q4. Stand pat, or in check search every evasion: no standing pat in
    # check, and no evasion is mate. A table bound that says the position is worth
    # more (a lower bound above the evaluation) or less (an upper bound below it)
    # is a better stand-pat score than the evaluation.
    checked = in_check(p)
    if checked:
        n = generate_legal(p, moves, GEN_ALL)
        if n == 0:
            return -MATE_SCORE + ply
        best = -INFINITE_SCORE
    else:
        stand_pat = search_evaluate(s)
        if (tt_bound == BOUND_LOWER and tt_score > stand_pat) \
                or (tt_bound == BOUND_UPPER and tt_score < stand_pat):
            stand_pat = tt_score
        if stand_pat >= beta:
            if use_tt and tt_bound == BOUND_NONE:
                store_table(s, score_to_tt(stand_pat, ply), BOUND_LOWER, 0, MOVE_NONE)
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        n = generate_legal(p, moves, GEN_CAPTURES)
    # Step Q5. Move loop, the table's move, then MVV-LVA.
    order_moves(s, moves, scores, n, tt_move, ply, MOVE_NONE, NULL, NULL, NULL)
    for i in range(n):
        pick_move(moves, scores, i, n)
        # Step Q6. SEE pruning: a capture that loses material on its square cannot
        # raise a stand-pat score, except through a tactic (a pin, a discovered
        # attack) that quiescence would not follow anyway. Never in check.
        # (search-elo.md step 1: +43 Elo, SPRT [0,10] 10+0.1, 811 games)
        if not checked and s.features & USE_QS_SEE and not see_ge(p, moves[i], 0):
            continue
        # Step Q7. Delta pruning: a capture that would leave the side below alpha
        # even if it won its victim and delta_margin more cannot raise the
        # score. Not in check, not for promotions (they gain a piece besides the
        # victim). The victim counts in the genome's own pawns, the margin in the
        # margins' pawns (a genome's `Search pawn` moves the margin, not what a
        # queen is worth).
        # (search-elo.md step 5, with SEE ordering: +42 Elo, SPRT [0,10] 10+0.1, 786 games)
        if (not checked and s.features & USE_DELTA and not (move_flags(moves[i]) & FLAG_PROMO)
                and alpha < MATE_BOUND
                and stand_pat + <long long>PIECE_ORDER_VALUE[captured_kind(p, moves[i])] * s.material_pawn
                              + <long long>s.sp.delta_margin * s.pawn_value // 100 <= alpha):
            continue
        make_move(p, moves[i], &u)
        eval_prefetch(&s.params, p.key)      # the child's stand-pat evaluation
        score = -quiesce(s, -beta, -alpha, ply + 1)
        unmake_move(p, moves[i], &u)
        if s.stop:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = moves[i]
                update_pv(s, ply, moves[i])
                if score >= beta:
                    break
    # Step Q8. Transposition table store, at depth 0: below every entry of the main
    # search, whose own probes never take it for a score (only its move). An entry
    # of a deeper search for this position is kept, not overwritten.
    if use_tt and (tt_bound == BOUND_NONE or entry.depth <= 0) and best > -INFINITE_SCORE:
        store_table(s, score_to_tt(best, ply),
                    BOUND_LOWER if best >= beta else (BOUND_EXACT if best > orig_alpha else BOUND_UPPER),
                    0, best_move)
    return best


cdef bint has_non_pawn_material(const Position* p) noexcept nogil:
    cdef int c = p.side * 6
    return (p.bb[c + KNIGHT] | p.bb[c + BISHOP] | p.bb[c + ROOK] | p.bb[c + QUEEN]) != 0


cdef int probcut(SearchState* s, int depth, int beta, int ply, int static_eval, Move hash_move,
                 int tt_depth, int tt_score) noexcept nogil:
    """negamax's step 11b: the score of a capture that holds beta + probcut_margin in
    a search probcut_reduction plies shallower, or -INFINITE_SCORE if none does (or
    the table says none will)."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score
    cdef int probcut_beta = beta + s.pawn_value * s.sp.probcut_margin // 100
    cdef int reduced = depth - 1 - s.sp.probcut_reduction
    cdef long long see_threshold
    cdef Move m
    cdef Position* p = &s.pos
    if probcut_beta >= MATE_BOUND or (tt_depth >= reduced + 1 and tt_score < probcut_beta):
        return -INFINITE_SCORE
    # The gain a capture needs by SEE, in SEE's centipawns of the genome's own pawn
    # (clamped: a genome's evaluation may stray far from its pawn).
    see_threshold = <long long>(probcut_beta - static_eval) * 100 // s.material_pawn
    if see_threshold > MATE_BOUND:
        return -INFINITE_SCORE
    if see_threshold < -MATE_BOUND:
        see_threshold = -MATE_BOUND
    n = generate_legal(p, moves, GEN_CAPTURES)
    order_moves(s, moves, scores, n, hash_move, ply, MOVE_NONE, NULL, NULL, NULL)
    for i in range(n):
        m = pick_move(moves, scores, i, n)
        if not see_ge(p, m, <int>see_threshold):
            continue
        s.played_piece[ply] = p.board[move_from(m)]
        make_move(p, m, &u)
        s.played[ply] = m
        score = -quiesce(s, -probcut_beta, -probcut_beta + 1, ply + 1)
        if score >= probcut_beta and not s.stop:
            score = -negamax(s, reduced, -probcut_beta, -probcut_beta + 1, ply + 1, True)
        unmake_move(p, m, &u)
        if s.stop:
            return 0
        if score >= probcut_beta:
            if s.features & USE_TT:
                store_table(s, score_to_tt(score, ply), BOUND_LOWER, reduced + 1, m)
            return score
    return -INFINITE_SCORE


cdef int negamax(SearchState* s, int depth, int alpha, int beta, int ply, bint null_ok) noexcept nogil:
    """The alpha-beta search below the root. Its steps are numbered in the order
    they run, as in Stockfish's search.cpp. docs/studies/search-elo.md numbers the same
    ideas in the order they were written and SPRT-tested; the `search-elo.md step
    N` beside a step is the row it was measured as (step 0: the baseline, whose
    parts were never measured alone)."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score, best, reduction, orig_alpha = alpha, R, bound, static_eval
    cdef bint checked, pv_node = beta - alpha > 1, gives_check, quiet, futile, lmp, improving = False
    cdef bint history_prune, see_prune, see_losing, captures_sorted
    cdef int quiets_tried, n_tried_quiets, j, lmp_quiets, n_tried_captures
    cdef Move tried_quiets[MAX_QUIETS_PUNISHED]
    cdef Move tried_captures[MAX_CAPTURES_PUNISHED]
    cdef int* cont1 = NULL
    cdef Move* counter_slot
    cdef int tt_depth = -1, tt_bound = 0, tt_score = 0, singular_beta, new_depth, history_floor
    cdef int see_capture_floor, see_quiet_floor
    cdef int hash_extension = 0    # plies the hash move is extended by (step 14), or reduced by
    cdef int doubles_above          # double extensions on the line above this node
    cdef int stat
    cdef Move excluded = s.excluded[ply]
    cdef int* cont2 = NULL
    cdef int* cont4 = NULL
    cdef bint use_ab = s.features & USE_ALPHABETA
    cdef bint ordered = s.features & (USE_ORDERING | USE_VALUE_ORDERING)
    cdef Move m, best_move = MOVE_NONE, hash_move = MOVE_NONE, countermove = MOVE_NONE
    cdef TTHit entry
    cdef Position* p = &s.pos
    # Step 1. Initialize node: an empty PV; at the ply limit, the static evaluation.
    s.pv_len[ply] = ply
    if ply >= MAX_PLY - 2:
        return search_evaluate(s)
    doubles_above = s.line_doubles[ply - 1] if ply > 0 else 0
    s.line_doubles[ply] = doubles_above
    if ply > 0:
        # Step 2. Check for draw: repetition, fifty moves, dead position.
        if is_draw(p):
            # A checkmate on the hundredth half-move is still a checkmate.
            if p.halfmove >= 100 and in_check(p) and not has_legal_move(p):
                return -MATE_SCORE + ply
            return DRAW_SCORE
        # Step 3. Mate distance pruning: no line from here can beat a mate already
        # found nearer the root. (search-elo.md step 0)
        if s.features & USE_MATE_DISTANCE and use_ab:
            if alpha < -MATE_SCORE + ply:
                alpha = -MATE_SCORE + ply
            if beta > MATE_SCORE - ply - 1:
                beta = MATE_SCORE - ply - 1
            if alpha >= beta:
                return alpha
    # Step 4. Check extension: a forcing line is not cut off in the middle of a
    # check. (search-elo.md step 0; sparing checks that lose material by SEE was
    # tried as step 11 and dropped, undecided: +4 Elo after 478 games)
    checked = in_check(p)
    if checked and s.features & USE_CHECK_EXTENSION:
        depth += 1
    # Step 5. At the horizon, quiescence; else count the node and check for stop.
    if depth <= 0:
        return quiesce(s, alpha, beta, ply)
    s.nodes += 1
    check_limits(s)
    if s.stop:
        return 0

    # Step 6. Transposition table lookup. (search-elo.md step 0)
    if s.features & USE_TT:
        if probe_table(s, &entry):
            hash_move = entry.move
            tt_depth = entry.depth
            tt_bound = entry.bound
            tt_score = score_from_tt(entry.score, ply)
            # Only an entry searched at least as deep as planned here gives a score.
            # With PVS, PV nodes (full window) search on to keep the PV whole; a
            # plain alpha-beta (no PVS) has few null-window nodes, so it cuts at all.
            # Without alpha-beta every stored score is exact, so a transposition is
            # a hit in every node (minimax + TT, Kendall-Whitwell's Table 1).
            if (tt_depth >= depth and excluded == MOVE_NONE
                    and (not use_ab or not pv_node or not (s.features & USE_PVS))):
                if tt_bound == BOUND_EXACT or (tt_bound == BOUND_LOWER and tt_score >= beta) \
                        or (tt_bound == BOUND_UPPER and tt_score <= alpha):
                    return tt_score

    # Step 7. Internal iterative reduction: a node deep enough to matter that the
    # hash table knows nothing of is searched a ply shallower; its best move, once
    # stored, orders the deeper search when the node comes back.
    # (search-elo.md step 6, with countermove and history malus: +62 Elo,
    # SPRT [0,10] 10+0.1, 522 games)
    if (s.features & USE_IIR and hash_move == MOVE_NONE and depth >= s.sp.iir_min_depth
            and ordered and not checked):
        depth -= 1

    # Step 8. Static evaluation, only where one of the prunings below can act (the
    # genome's evaluation is the costliest thing in a node), or in every node out of
    # check when the evaluation's trend (improving) is wanted two plies on or the
    # search's score will correct it (step 19). A singular-extension search at this
    # ply keeps the entry its node made. With the correction history trial the
    # evaluation read here and by quiescence's stand pat is the corrected one
    # (search_evaluate).
    static_eval = -INFINITE_SCORE
    if use_ab and not checked and excluded == MOVE_NONE and (
            s.features & (USE_IMPROVING | USE_CORRECTION_HISTORY) or not pv_node and (
            (s.features & USE_RFP and depth <= s.sp.rfp_max_depth)
            or (s.features & USE_FUTILITY and depth <= s.sp.futility_max_depth)
            or (s.features & USE_NULL_MOVE and null_ok and depth >= s.sp.null_min_depth)
            or (s.features & USE_PROBCUT and depth >= s.sp.probcut_min_depth))):
        static_eval = search_evaluate(s)
    if excluded == MOVE_NONE:
        s.static_evals[ply] = static_eval
    # Improving: the side to move's static evaluation is higher than at its last
    # turn (or the one before, if it was in check then). Where it is rising, reverse
    # futility trusts it a ply sooner (step 9); where it is falling, half as many
    # quiet moves are tried near the leaves (step 16) and late moves are reduced a
    # ply more (step 17): a side whose position is getting worse rarely finds its
    # way back among the late moves. Unknown counts as rising.
    # (search-elo.md step 12)
    if s.features & USE_IMPROVING and not checked and s.static_evals[ply] > -INFINITE_SCORE:
        if ply >= 2 and s.static_evals[ply - 2] > -INFINITE_SCORE:
            improving = s.static_evals[ply] > s.static_evals[ply - 2]
        elif ply >= 4 and s.static_evals[ply - 4] > -INFINITE_SCORE:
            improving = s.static_evals[ply] > s.static_evals[ply - 4]
        else:
            improving = True
    if pv_node:
        static_eval = -INFINITE_SCORE   # no pruning reads it in a PV node

    # Step 9. Reverse futility pruning (static null move): so close to the leaves, a
    # position this far above beta stays above it whatever the opponent does, short
    # of a tactic a margin of a pawn per ply covers. Not when beta is a mate score.
    # (search-elo.md step 2, with futility pruning: +91 Elo, SPRT [0,10] 10+0.1, 386 games)
    if (s.features & USE_RFP and static_eval > -INFINITE_SCORE and depth <= s.sp.rfp_max_depth
            and -MATE_BOUND < beta < MATE_BOUND
            and static_eval - (depth - improving) * (s.pawn_value * s.sp.rfp_margin // 100) >= beta):
        return static_eval

    # Step 10. Futility: a node is futile where even a margin of futility_margin per
    # ply of depth, and futility_base more, leaves the static evaluation under alpha;
    # its quiet moves are pruned in step 16. No razoring (dropping such a node
    # straight into quiescence): quiescence searches no quiet checks, so it would
    # miss a quiet mate in one in the tree.
    # (search-elo.md step 2, with reverse futility: +91 Elo, SPRT [0,10] 10+0.1, 386 games)
    futile = (s.features & USE_FUTILITY and static_eval > -INFINITE_SCORE
              and depth <= s.sp.futility_max_depth and -MATE_BOUND < alpha < MATE_BOUND
              and static_eval + (<long long>depth * s.sp.futility_margin + s.sp.futility_base)
                                * s.pawn_value // 100 <= alpha)

    # Step 11. Null-move pruning: if passing still fails high, a real move will too.
    # Not in check, not in PV nodes, and not without pieces (zugzwang is common then).
    # (search-elo.md step 0; a reduction growing with depth and the static lead was
    # tried as step 9 and dropped: -60 Elo, SPRT [0,10] 10+0.1, 444 games)
    if (s.features & USE_NULL_MOVE and null_ok and use_ab and not pv_node and not checked
            and depth >= s.sp.null_min_depth and has_non_pawn_material(p) and beta < MATE_BOUND
            and static_eval >= beta):
        R = s.sp.null_deep_reduction if depth >= s.sp.null_deep_depth else s.sp.null_reduction
        # Near the leaves depth - 1 - R may be below zero: negamax then goes straight to
        # quiescence, so a genome may start null-move pruning from depth 1.
        make_null(p, &u)
        s.played[ply] = MOVE_NONE
        score = -negamax(s, depth - 1 - R, -beta, -beta + 1, ply + 1, False)
        unmake_null(p, &u)
        if s.stop:
            return 0
        # Step 11a. Zugzwang guard (a trial behind USE_NULL_VERIFY): from
        # null_verify_min_depth on, a null move's cut stands only if this node, searched
        # R plies shallower with no null move of its own, holds beta too, as Stockfish
        # verifies its null moves. Where every real move is worse than passing
        # (zugzwang), that search fails low and the node is searched in full.
        # has_non_pawn_material does not see it: in kbK5/pp6/1P6/8/8/8/8/R7 w, after
        # Ra6! Black's bishop may move but every move loses (bxa6 b7#, else Rxa7#),
        # and Black's null move hid the mate in two until depth 6.
        if (score >= beta and s.features & USE_NULL_VERIFY
                and depth >= s.sp.null_verify_min_depth):
            s.null_verifications += 1
            if negamax(s, depth - R, beta - 1, beta, ply, False) < beta:
                s.null_refuted += 1
                score = -INFINITE_SCORE
            if s.stop:
                return 0
        if score >= beta:
            return beta if score > MATE_BOUND else score

    # Step 11b. ProbCut (a trial behind USE_PROBCUT): a capture that holds beta by
    # probcut_margin more in a search probcut_reduction plies shallower would almost
    # surely hold beta at full depth, so the node is cut on it. Only captures whose
    # SEE alone reaches the raised beta from the static evaluation are tried, each
    # first by quiescence (cheap, and most fail there) and then by the reduced search.
    # Not in PV or check nodes, not near a mate score, not in a singular search, and
    # not where the table already holds a search almost as deep that stayed below
    # the raised beta. The cut is stored as a lower bound of the depth it proved.
    # Stockfish's and Ethereal's step (their SPRTs: +6 / +7).
    if (s.features & USE_PROBCUT and use_ab and not pv_node and not checked and excluded == MOVE_NONE
            and depth >= s.sp.probcut_min_depth and static_eval > -INFINITE_SCORE
            and -MATE_BOUND < beta < MATE_BOUND):
        score = probcut(s, depth, beta, ply, static_eval, hash_move, tt_depth, tt_score)
        if s.stop:
            return 0
        if score > -INFINITE_SCORE:
            return score

    # Step 12. Generate the legal moves; with none, check for mate and stalemate.
    n = generate_legal(p, moves, GEN_ALL)
    if n == 0:
        return -MATE_SCORE + ply if checked else DRAW_SCORE
    # Step 13. Move ordering: hash move, captures by MVV-LVA (or, a trial, by their
    # victim and capture history), killers, countermove (search-elo.md step 6), quiet
    # moves by history and continuation history (search-elo.md step 7; a trial, Cont
    # History Plies: the last move's weighed on its own, and one four plies back), captures
    # losing by SEE last (search-elo.md step 5).
    cont1 = continuation(s, ply, 1)
    cont2 = continuation(s, ply, 2)
    cont4 = continuation4(s, ply, checked)
    counter_slot = countermove_slot(s, ply)
    if ordered:
        if s.features & USE_COUNTERMOVE and counter_slot != NULL:
            countermove = counter_slot[0]
        order_moves(s, moves, scores, n, hash_move, ply, countermove, cont1, cont2, cont4)
        if s.features & USE_SEE_ORDERING and s.features & USE_ORDERING:
            demote_losing_captures(s, moves, scores, n, hash_move)
    # Step 14. Singular extension: when the hash move (a lower bound or exact, from a
    # search nearly as deep) is better than every other move by a margin, shown by a
    # search at half depth without it, it is the only move here and is searched a
    # ply deeper (in step 17). If even the others reach the margin above beta, more
    # than one move fails high and the node is cut (multi-cut).
    # (search-elo.md step 8: +34 Elo, SPRT [0,10] 10+0.1, 946 games)
    # Double and negative extensions (a trial behind USE_DOUBLE_SINGULAR): away from
    # the PV, a hash move whose others stay singular_double_margin further below is
    # extended twice, while fewer than singular_double_max moves above it on the line
    # were (each double extension deepens the whole line, so the count caps the
    # growth, as Stockfish's and Ethereal's per-ply counts do). A hash move that is
    # not singular where the table says it holds beta is searched a ply shallower:
    # other moves would hold beta too, so it matters less. Ethereal's, Stockfish's and
    # Weiss's step (their SPRTs: +7 / +9, +11.5 / +11).
    if (s.features & USE_SINGULAR and use_ab and ply > 0 and depth >= s.sp.singular_min_depth
            and hash_move != MOVE_NONE and excluded == MOVE_NONE
            and tt_depth >= depth - s.sp.singular_tt_gap
            and (tt_bound == BOUND_LOWER or tt_bound == BOUND_EXACT)
            and -MATE_BOUND < tt_score < MATE_BOUND):
        singular_beta = tt_score - depth * (s.pawn_value * s.sp.singular_margin // 100)
        s.excluded[ply] = hash_move
        score = negamax(s, (depth - 1) // s.sp.singular_divisor, singular_beta - 1, singular_beta,
                        ply, False)
        s.excluded[ply] = MOVE_NONE
        s.pv_len[ply] = ply
        if s.stop:
            return 0
        if score < singular_beta:
            hash_extension = 1
            if (s.features & USE_DOUBLE_SINGULAR and not pv_node and doubles_above < s.sp.singular_double_max
                    and score < singular_beta - s.pawn_value * s.sp.singular_double_margin // 100):
                hash_extension = 2
                s.double_extensions += 1
                if doubles_above + 1 > s.most_line_doubles:
                    s.most_line_doubles = doubles_above + 1
        elif singular_beta >= beta:
            return singular_beta
        elif s.features & USE_DOUBLE_SINGULAR and tt_score >= beta:
            hash_extension = -1
            s.negative_extensions += 1

    # Step 15. Move loop. Late-move pruning and history pruning (step 16) act only in
    # null-window nodes near the leaves, out of check; SEE pruning in PV nodes too.
    lmp = (s.features & USE_LMP and use_ab and not pv_node and not checked
           and depth <= s.sp.lmp_max_depth)
    lmp_quiets = (s.sp.lmp_base + depth * depth) // (1 if improving or not (s.features & USE_IMPROVING) else 2)
    history_prune = (s.features & USE_HISTORY_PRUNING and use_ab and ordered and not pv_node
                     and not checked and depth <= s.sp.history_prune_max_depth)
    history_floor = -s.sp.history_prune_margin * depth
    see_prune = (s.features & USE_SEE_PRUNING and use_ab and ply > 0 and not checked
                 and depth <= s.sp.see_prune_max_depth and has_non_pawn_material(p))
    see_capture_floor = -s.sp.see_capture_margin * depth
    see_quiet_floor = -s.sp.see_quiet_margin * depth * depth
    # Where the ordering has put the captures that lose by SEE after the quiet moves
    # (step 13), a capture it left in its band loses at most a bishop for a knight's
    # 10 centipawns, less than any capture margin allows (20 at least, its gene's lower
    # bound): SEE pruning need not ask.
    captures_sorted = ordered and s.features & USE_ORDERING and s.features & USE_SEE_ORDERING
    quiets_tried = 0
    n_tried_quiets = 0
    n_tried_captures = 0
    best = -INFINITE_SCORE
    for i in range(n):
        if ordered:
            m = pick_move(moves, scores, i, n)
        else:
            m = moves[i]
        if m == excluded:
            continue
        quiet = not (move_flags(m) & (FLAG_CAPTURE | FLAG_PROMO))
        # SEE pruning (step 16, a trial) asks SEE before the move is made, since SEE
        # reads the board as it stands; not for a quiet move that futility or
        # late-move pruning skips anyway (or lets through as a check, as this does).
        see_losing = (see_prune and best > -MATE_BOUND and m != hash_move
                      and move_flags(m) != FLAG_KING_CASTLE and move_flags(m) != FLAG_QUEEN_CASTLE
                      and not (quiet and (futile or (lmp and quiets_tried >= lmp_quiets)))
                      and not (captures_sorted and move_flags(m) & FLAG_CAPTURE
                               and not (move_flags(m) & FLAG_PROMO) and scores[i] > SCORE_KILLER)
                      and not see_ge(p, m, see_quiet_floor if quiet else see_capture_floor))
        s.played_piece[ply] = p.board[move_from(m)]
        make_move(p, m, &u)
        if s.features & USE_TT:
            tt_prefetch(s.tt, p.key)
        eval_prefetch(&s.params, p.key)
        s.played[ply] = m
        gives_check = quiet and in_check(p)
        # Step 16. Pruning at shallow depth, of quiet moves that give no check, once
        # a real score is in hand:
        # - futility pruning: in a futile node (step 10) such a move cannot gain the
        #   material it needs.
        #   (search-elo.md step 2, with reverse futility: +91 Elo, SPRT [0,10] 10+0.1, 386 games)
        # - late-move pruning: so near the leaves, once lmp_base + depth^2 quiet
        #   moves have failed to raise alpha, the ordering's later quiet moves (no
        #   capture, no check, no killer standing before them) rarely will.
        #   (search-elo.md step 3, with late-move reductions: +28 Elo, SPRT [0,10]
        #   10+0.1, 1338 games)
        # - history pruning (a trial behind USE_HISTORY_PRUNING): a quiet move whose
        #   history and continuation histories add up to less than minus
        #   history_prune_margin per ply has failed so often in these surroundings
        #   that it is skipped; the killers and the countermove, which stand before
        #   the history-ordered moves on their own evidence, are spared. A skipped
        #   move counts toward late-move pruning's quiet moves, as the moves Stockfish
        #   and Ethereal count for theirs include the ones pruned. Their step (their
        #   SPRTs: +9 / +10.5).
        # - SEE pruning (a trial behind USE_SEE_PRUNING), of captures too: out of check,
        #   not at the root, with pieces besides pawns, within see_prune_max_depth plies
        #   of the horizon, a move that loses material on its square by SEE (a capture
        #   more than see_capture_margin per ply left, a quiet move more than
        #   see_quiet_margin times the plies left squared: Stockfish's shapes, in SEE's
        #   centipawns) is skipped: the opponent simply takes. The hash move, castling
        #   and checks are spared, as the search's step 13 did (Stockfish and Ethereal
        #   spare neither); a skipped quiet move counts toward late-move pruning's, as
        #   history pruning's do. In PV nodes too, as theirs. (Step 13's form, dropped
        #   undecided on the search of 2026-11-30: -1.6 +- 20.2 Elo; the field's SPRTs:
        #   akimbo +36 for captures, +7 for quiet moves.)
        if quiet and not gives_check and best > -MATE_BOUND:
            if futile or (lmp and quiets_tried >= lmp_quiets):
                unmake_move(p, m, &u)
                continue
            if (history_prune and m != s.killers[ply][0] and m != s.killers[ply][1] and m != countermove
                    and quiet_stat(s, s.played_piece[ply], move_to(m), cont1, cont2, NULL) < history_floor):
                s.history_prunes += 1
                quiets_tried += 1
                unmake_move(p, m, &u)
                continue
        if see_losing and not (gives_check if quiet else in_check(p)):
            s.see_prunes += 1
            quiets_tried += quiet
            unmake_move(p, m, &u)
            continue
        if quiet:
            quiets_tried += 1
        # Step 17. Extend the singular move (or, a trial, extend it twice or reduce
        # the hash move: step 14) and search: the first move with the full window, the
        # others (PVS, search-elo.md step 0) with a null window and late-move
        # reductions first.
        new_depth = depth - 1
        if m == hash_move:
            new_depth += hash_extension
            s.line_doubles[ply] = doubles_above + (hash_extension == 2)
        if not use_ab:
            score = -negamax(s, depth - 1, -INFINITE_SCORE, INFINITE_SCORE, ply + 1, True)
        elif i == 0 or not (s.features & USE_PVS):
            score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True)
        else:
            # Late-move reductions: quiet moves ordered late are searched shallower
            # first and again at full depth only if they turn out to matter. The
            # reduction grows with depth and move number (the table s.lmr), a ply less
            # where a miss costs most: in PV nodes, for killers, for checks.
            # (search-elo.md step 3, with late-move pruning: +28 Elo, SPRT [0,10]
            # 10+0.1, 1338 games)
            reduction = 0
            if (s.features & USE_LMR and depth >= s.sp.lmr_min_depth and i >= s.sp.lmr_min_move
                    and quiet and not checked):
                reduction = s.lmr[depth if depth < LMR_TABLE_SIZE else LMR_TABLE_SIZE - 1][
                    i if i < LMR_TABLE_SIZE else LMR_TABLE_SIZE - 1]
                reduction -= pv_node + gives_check + (m == s.killers[ply][0] or m == s.killers[ply][1])
                if s.features & USE_IMPROVING and not improving:
                    reduction += 1
                # Reductions by history: a ply less (more) for each lmr_history_step
                # the move's statistics stand above (below) zero, up to
                # lmr_history_plies: the ordering only says which move comes first,
                # not how sure it is.
                # (search-elo.md step 10: +43 Elo, SPRT [0,10] 10+0.1, 752 games)
                # The Cont History Plies trial's row four plies back counts here too, each
                # row once (as Stockfish's statScore took its rows 1, 2 and 4 while its
                # ordering weighed row 1 twice).
                if s.features & USE_LMR_HISTORY:
                    stat = quiet_stat(s, s.played_piece[ply], move_to(m), cont1, cont2, cont4) // s.sp.lmr_history_step
                    reduction -= (s.sp.lmr_history_plies if stat > s.sp.lmr_history_plies else
                                  -s.sp.lmr_history_plies if stat < -s.sp.lmr_history_plies else stat)
                if reduction > depth - 1 - s.sp.lmr_min_plies_left:
                    reduction = depth - 1 - s.sp.lmr_min_plies_left
                if reduction < 0:
                    reduction = 0
            # (A stopped search's 0 is no score: it must not start a re-search,
            # which would count a node past a node limit.)
            score = -negamax(s, new_depth - reduction, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and reduction and not s.stop:
                score = -negamax(s, new_depth, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and score < beta and not s.stop:
                score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True)
        # Step 18. Undo the move and check for a new best move; at a cutoff the
        # statistics learn from it (killers and history for a quiet move, capture
        # history for the captures).
        unmake_move(p, m, &u)
        s.line_doubles[ply] = doubles_above
        if s.stop:
            return 0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
                update_pv(s, ply, m)
                if alpha >= beta and use_ab:
                    if quiet:
                        reward_quiet(s, m, depth, ply, cont1, cont2, cont4)
                        # Countermove: this refutation of the opponent's last move
                        # is tried right after the killers the next time it comes.
                        # (search-elo.md step 6, with history malus and IIR: +62 Elo,
                        # SPRT [0,10] 10+0.1, 522 games)
                        if counter_slot != NULL:
                            counter_slot[0] = m
                        # History malus: the quiet moves tried before the one that
                        # cut lose what it gains, so the next time they come later.
                        # (search-elo.md step 6, with countermove and IIR: +62 Elo,
                        # SPRT [0,10] 10+0.1, 522 games)
                        if s.features & USE_HISTORY_MALUS:
                            for j in range(n_tried_quiets):
                                add_history(s, tried_quiets[j], -history_bonus(&s.sp, depth), cont1, cont2,
                                            cont4)
                    # Capture history (a trial behind USE_CAPTURE_HISTORY): the capture
                    # that cut gains, the captures tried before the cutoff lose.
                    if s.features & USE_CAPTURE_HISTORY:
                        reward_captures(s, m, depth, tried_captures, n_tried_captures)
                    break
        if quiet and n_tried_quiets < MAX_QUIETS_PUNISHED:
            tried_quiets[n_tried_quiets] = m
            n_tried_quiets += 1
        elif move_flags(m) & FLAG_CAPTURE and n_tried_captures < MAX_CAPTURES_PUNISHED:
            tried_captures[n_tried_captures] = m
            n_tried_captures += 1
    # Step 19. Transposition table store. A search without the excluded move (step
    # 14's) is not this node's result: not stored, and if the excluded move was the
    # only one, it fails low.
    if excluded != MOVE_NONE and best == -INFINITE_SCORE:
        return alpha
    if s.features & USE_TT and excluded == MOVE_NONE:
        if best >= beta:
            bound = BOUND_LOWER
        elif best > orig_alpha:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
        store_table(s, score_to_tt(best, ply), bound, depth, best_move)
    # Correction history (a trial behind USE_CORRECTION_HISTORY): where the search's
    # score says the static evaluation was wrong, the node's entries learn by how much
    # (search_evaluate adds them), as Stockfish's and Ethereal's do after their table
    # store. Not in check (no evaluation), not in a singular search (not this node's
    # result), not from a mate score, not where the score is only a bound on the wrong
    # side of the evaluation (a fail high below it says nothing of how far above it the
    # node lies, nor a fail low above it of how far below), and not when a capture or a
    # promotion raised the score: material won is the search's, not the evaluation's
    # error. By material and by each side's non-pawn pieces rather than by pawns (the
    # form dropped as search-elo.md step 14): a network's errors follow the pieces.
    if (s.features & USE_CORRECTION_HISTORY and use_ab and excluded == MOVE_NONE and not checked
            and s.static_evals[ply] > -INFINITE_SCORE and -MATE_BOUND < best < MATE_BOUND
            and ((best >= beta and best > s.static_evals[ply])
                 or (best <= orig_alpha and best < s.static_evals[ply])
                 or orig_alpha < best < beta)
            and not (best > orig_alpha and move_flags(best_move) & (FLAG_CAPTURE | FLAG_PROMO))):
        learn_correction(s, best - s.static_evals[ply], depth)
    return best


cdef int budget_search(SearchState* s, int alpha, int beta, double budget, int ply) noexcept nogil:
    """The Look Ahead Gene's search: `budget` nodes shared among the moves here."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score, best
    cdef Move m, hash_move = MOVE_NONE
    cdef U64 start = s.nodes
    cdef TTHit entry
    cdef Position* p = &s.pos
    s.pv_len[ply] = ply
    if ply >= MAX_PLY - 2:
        return evaluate(p, &s.params)
    if is_draw(p):
        if p.halfmove >= 100 and in_check(p) and not has_legal_move(p):
            return -MATE_SCORE + ply
        return DRAW_SCORE
    s.nodes += 1
    check_limits(s)
    if s.stop:
        return 0
    n = generate_legal(p, moves, GEN_ALL)
    if n == 0:
        return -MATE_SCORE + ply if in_check(p) else DRAW_SCORE
    if s.features & USE_TT:
        if probe_table(s, &entry):
            hash_move = entry.move
    order_moves(s, moves, scores, n, hash_move, ply, MOVE_NONE, NULL, NULL, NULL)
    best = -INFINITE_SCORE
    for i in range(n):
        m = pick_move(moves, scores, i, n)
        make_move(p, m, &u)
        score = -child_by_budget(s, m, -beta, -alpha,
                                 (budget - <double>(s.nodes - start)) / (n - i), ply + 1)
        unmake_move(p, m, &u)
        if s.stop:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                update_pv(s, ply, m)
                if alpha >= beta:
                    if not (move_flags(m) & (FLAG_CAPTURE | FLAG_PROMO)):
                        reward_quiet(s, m, 1, ply, NULL, NULL, NULL)
                    break
    if s.features & USE_TT:
        store_table(s, 0, BOUND_UPPER, 0, s.pv[ply][ply] if s.pv_len[ply] > ply else MOVE_NONE)
    return best


cdef int child_by_budget(SearchState* s, Move m, int alpha, int beta, double share, int ply) noexcept nogil:
    """After move m: search deeper if the estimated cost k * N_legal fits in `share`,
    else settle the position by quiescence. k is the speculation constant for
    whether m captured and whether the reply can capture."""
    cdef Move replies[MAX_MOVES]
    cdef int n = generate_legal(&s.pos, replies, GEN_ALL), i, kind
    cdef bint just_captured = move_flags(m) & FLAG_CAPTURE, can_capture = False
    s.pv_len[ply] = ply
    # Settle what quiescence cannot see: no reply is mate or stalemate, and
    # repetitions and the fifty-move rule are draws however small the share.
    if n == 0:
        return -MATE_SCORE + ply if in_check(&s.pos) else DRAW_SCORE
    if is_draw(&s.pos):
        return DRAW_SCORE
    for i in range(n):
        if move_flags(replies[i]) & FLAG_CAPTURE:
            can_capture = True
            break
    if just_captured and can_capture:
        kind = 2
    elif just_captured:
        kind = 0
    elif can_capture:
        kind = 1
    else:
        kind = 3
    if share > s.spec[kind] * n:
        return budget_search(s, alpha, beta, share, ply)
    return quiesce(s, alpha, beta, ply)


cdef int search_root(SearchState* s, int depth, int first, double budget, int alpha,
                     int beta) noexcept nogil:
    """Search root_moves[first:] (MultiPV lines before `first` are already chosen) in
    the window (alpha, beta), leave them sorted best first, the PV in pv[0]; return
    the best score (fail-soft: a bound when it is outside the window)."""
    cdef Undo u
    cdef int i, j, score, best = -INFINITE_SCORE
    cdef int n = s.n_root, t
    cdef Move m
    cdef U64 start = s.nodes, before
    s.pv_len[0] = 0
    s.line_doubles[0] = 0                 # no double extension above the root's children
    if s.features & USE_IMPROVING:        # what the nodes two plies down compare with
        s.static_evals[0] = -INFINITE_SCORE if in_check(&s.pos) else search_evaluate(s)
    for i in range(first, n):
        s.root_scores[i] = -INFINITE_SCORE
    for i in range(first, n):
        m = s.root_moves[i]
        before = s.nodes
        s.played_piece[0] = s.pos.board[move_from(m)]
        make_move(&s.pos, m, &u)
        s.played[0] = m
        if s.mode == MODE_BUDGET:
            score = -child_by_budget(s, m, -beta, -alpha,
                                     (budget - <double>(s.nodes - start)) / (n - i), 1)
        elif i == first or not (s.features & USE_PVS) or not (s.features & USE_ALPHABETA):
            score = -negamax(s, depth - 1, -beta, -alpha, 1, True)
        else:
            score = -negamax(s, depth - 1, -alpha - 1, -alpha, 1, True)
            if score > alpha and not s.stop:
                score = -negamax(s, depth - 1, -beta, -alpha, 1, True)
        unmake_move(&s.pos, m, &u)
        s.root_nodes[m & (ROOT_NODE_SLOTS - 1)] += s.nodes - before
        if s.stop:
            break
        s.root_scores[i] = score
        if score > best:
            best = score
            if score > alpha:
                if s.features & USE_ALPHABETA:
                    alpha = score
                update_pv(s, 0, m)
                if score >= beta:
                    break               # an aspiration window failed high
    # Stable insertion sort, best first: the next iteration searches the best move first.
    for i in range(first + 1, n):
        m = s.root_moves[i]
        t = s.root_scores[i]
        j = i - 1
        while j >= first and s.root_scores[j] < t:
            s.root_moves[j + 1] = s.root_moves[j]
            s.root_scores[j + 1] = s.root_scores[j]
            j -= 1
        s.root_moves[j + 1] = m
        s.root_scores[j + 1] = t
    return best


cdef int search_root_aspiration(SearchState* s, int depth, int previous) noexcept nogil:
    """Aspiration windows: the score of an iteration is seldom far from the
    last one's, and a narrow window around it cuts more. A score outside the window
    (a fail) widens that side, doubling, and searches again; a fail low puts the
    root moves back in the last iteration's order, so that its best move is still
    searched first and a search stopped mid-way keeps it unless another beats it.
    (search-elo.md step 4: +56 Elo, SPRT [0,10] 10+0.1, 580 games)"""
    cdef Move order[256]
    cdef int delta = max(s.pawn_value * s.sp.aspiration_width // 100, 1)  # never an empty window
    cdef int alpha = previous - delta, beta = previous + delta, score
    memcpy(order, s.root_moves, s.n_root * sizeof(Move))
    while True:
        score = search_root(s, depth, 0, 0.0, alpha, beta)
        if s.stop or alpha < score < beta:
            return score
        s.aspiration_researches += 1
        if score <= alpha:
            memcpy(s.root_moves, order, s.n_root * sizeof(Move))
            alpha = score - delta
        else:
            beta = score + delta
        delta += delta
        if delta > s.sp.aspiration_max_pawns * s.pawn_value:
            alpha = -INFINITE_SCORE
            beta = INFINITE_SCORE


cdef void order_root_by_eval(SearchState* s) noexcept nogil:
    """Sort the root moves by the static evaluation after each, so that even a search
    stopped before its first iteration ends plays a sensible move, not the first
    one generated. Costs one evaluation per root move."""
    cdef Undo u
    cdef int i, j, t
    cdef Move m
    for i in range(s.n_root):
        make_move(&s.pos, s.root_moves[i], &u)
        s.root_scores[i] = -evaluate(&s.pos, &s.params)
        unmake_move(&s.pos, s.root_moves[i], &u)
    for i in range(1, s.n_root):
        m = s.root_moves[i]
        t = s.root_scores[i]
        j = i - 1
        while j >= 0 and s.root_scores[j] < t:
            s.root_moves[j + 1] = s.root_moves[j]
            s.root_scores[j + 1] = s.root_scores[j]
            j -= 1
        s.root_moves[j + 1] = m
        s.root_scores[j + 1] = t


cdef int search_iteration(SearchState* s, int depth, int line, double budget, int previous) noexcept nogil:
    """One iteration's search of MultiPV line `line` at `depth` (`previous`: the
    last iteration's score): the first line through aspiration windows once the
    iterations are deep enough and the last score was no mate, else a full window."""
    if (line == 0 and s.mode == MODE_ITERATIVE and s.features & USE_ASPIRATION
            and s.features & USE_ALPHABETA and depth >= s.sp.aspiration_min_depth
            and -MATE_BOUND < previous < MATE_BOUND):
        return search_root_aspiration(s, depth, previous)
    return search_root(s, depth, line, budget, -INFINITE_SCORE, INFINITE_SCORE)
