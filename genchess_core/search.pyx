# The search.
#
# Negamax alpha-beta with principal-variation search, driven by iterative
# deepening from Python one iteration at a time (the GIL is taken back only
# between iterations, to report). Every heuristic sits behind a bit of
# `features` so its effect on node counts can be measured. A second depth
# control, the Look Ahead Gene's budget search, spends a node budget instead
# of a fixed depth: each move gets its share of what is left and is searched
# deeper only while the estimated cost of doing so fits in that share.
#
# Scores are side-to-move relative ints: evaluations in EVAL_SCALE units, mates
# as MATE_SCORE - plies, so shorter mates score higher. Draws score 0.

import threading

from libc.stdlib cimport malloc, free, calloc, realloc
from libc.string cimport memset, memcpy
from libc.math cimport log

from genchess_core.types cimport *
from genchess_core.bitboard cimport popcount
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, make_null,
                                     unmake_null, in_check, repetition_count, move_to_uci)
from genchess_core.movegen cimport (generate_legal, GEN_ALL, GEN_CAPTURES, insufficient_material,
                                    has_legal_move)
from genchess_core.large_pages cimport gc_large_calloc, gc_large_free
from genchess_core.evaluate cimport (EvalParams, PawnEntry, evaluate, eval_prefetch, make_params, EVAL_SCALE,
                                     EVAL_LIMIT, KIND_PVT, KIND_UNIFIED, PAWN_CACHE_SIZE, EvalEntry, EVAL_CACHE_SIZE)
from genchess_core.eval_pvt cimport pvt_phase, pvt_quiet_order
from genchess_core.eval_unified cimport UnifiedPawnEntry, UNIFIED_PAWN_CACHE_SIZE
from genchess_core.tt cimport (TT, TTHit, TTEntry, tt_resize, tt_free, tt_clear, tt_new_search, tt_probe,
                               tt_prefetch, tt_store, tt_hashfull, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT)
from genchess_core.board cimport Board
from genchess_core.see cimport see

# Every tunable of the search, grouped by the step that uses it (each step's
# measured Elo is at its comment in negamax and quiesce). The ones the GA search
# shares (CHECK_EVERY, PIECE_ORDER_VALUE, the MVV-LVA weights) are in search.pxd.
cdef enum:
    # Step 13. Move ordering: the bands a move's score falls in, best first.
    SCORE_HASH_MOVE = 1 << 30
    SCORE_CAPTURE = 1 << 28     # + MVV-LVA
    SCORE_KILLER = 1 << 27      # + 1 for the first killer
    SCORE_COUNTERMOVE = (1 << 27) - 1  # after both killers, before every history score
    SCORE_LOSING_CAPTURE = -(1 << 29)  # captures that lose by SEE: after every quiet move
    # Step 18. History: a cutoff at depth d earns its quiet move
    # min(HISTORY_BONUS_QUADRATIC d^2 + HISTORY_BONUS_LINEAR (d - 1), HISTORY_BONUS_MAX).
    HISTORY_BONUS_QUADRATIC = 16
    HISTORY_BONUS_LINEAR = 128
    HISTORY_BONUS_MAX = 1600    # the most one cutoff moves a history score
    HISTORY_LIMIT = 16384       # history and continuation history stay within +-this
    MAX_QUIETS_PUNISHED = 64    # quiet moves remembered per node for the history malus
    # Step 7. Internal iterative reduction
    IIR_MIN_DEPTH = 4           # from this depth on
    # Step 9. Reverse futility pruning
    RFP_MAX_DEPTH = 6           # acts this close to the leaves
    RFP_MARGIN_PERCENT = 90     # of a pawn per ply of depth left
    # Steps 10 and 16. Futility pruning
    FUTILITY_MAX_DEPTH = 3      # of quiet moves this close to the leaves
    FUTILITY_EXTRA_PAWNS = 1    # margin: a pawn per ply of depth left and this many more
    # Step 11. Null-move pruning
    NULL_MOVE_MIN_DEPTH = 3     # from this depth on
    NULL_MOVE_R = 2             # the null move's reduction, in plies beyond the move itself
    NULL_MOVE_DEEP_DEPTH = 6    # ... and from this depth on
    NULL_MOVE_DEEP_R = 3        # ... this one
    # Step 14. Singular extensions
    SINGULAR_MIN_DEPTH = 7      # from this depth on
    SINGULAR_TT_DEPTH_GAP = 3   # ... where the hash move was searched this shallower at most
    SINGULAR_MARGIN_PERCENT = 2  # of a pawn per ply of depth: how much worse the others must be
    SINGULAR_DEPTH_DIVISOR = 2  # the others are searched to (depth - 1) / this
    # Step 16. Late-move pruning
    LMP_MAX_DEPTH = 3           # this close to the leaves
    LMP_BASE = 3                # ... after LMP_BASE + depth^2 quiet moves
    # Step 17. Late-move reductions
    LMR_MIN_DEPTH = 3           # from this depth on
    LMR_MIN_MOVE = 3            # ... for moves after this many
    LMR_TABLE_SIZE = 64
    LMR_BASE_PERCENT = 75       # table: LMR_BASE + ln(depth) ln(move) / LMR_DIVISOR plies,
    LMR_DIVISOR_PERCENT = 225   # ... both in hundredths of a ply (an enum holds no fractions)
    LMR_HISTORY_STEP = 8192     # statistics worth a ply of reduction (half a table's range)
    LMR_HISTORY_PLIES = 2       # ... up to this many plies either way
    LMR_MIN_PLIES_LEFT = 1      # a reduced search still looks this far before quiescence
    # Step Q6. Delta pruning (quiescence)
    DELTA_MARGIN_PAWNS = 2      # a capture must bring a node this near alpha
    # Aspiration windows (the root, between iterations)
    ASPIRATION_MIN_DEPTH = 5    # from this iteration on
    ASPIRATION_PERCENT = 25     # first half-width, in percent of the genome's pawn
    ASPIRATION_MAX_PAWNS = 16   # a window wider than this many pawns opens fully


# Late-move reductions by depth and move number: 0.75 + ln(depth) ln(move) / 2.25
# plies, the shape of Stockfish's table (reductions grow with both, but slowly).
cdef int LMR_REDUCTION[LMR_TABLE_SIZE][LMR_TABLE_SIZE]
cdef int _d, _m
for _d in range(LMR_TABLE_SIZE):
    for _m in range(LMR_TABLE_SIZE):
        LMR_REDUCTION[_d][_m] = <int>(LMR_BASE_PERCENT / 100.0 + log(_d) * log(_m)
                                      / (LMR_DIVISOR_PERCENT / 100.0)) if _d > 0 and _m > 0 else 0


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


cdef inline bint is_draw(const Position* p) noexcept nogil:
    """Draws inside the tree: any repetition (a second occurrence is enough to know
    the side can repeat), the fifty-move rule and dead positions."""
    if p.halfmove >= 100 or repetition_count(p) >= 2:
        return True
    return insufficient_material(p)


cdef void order_by_value(SearchState* s, const Move* moves, int* scores, int n) noexcept nogil:
    """Kendall-Whitwell ordering: captures and promotions first by the value they
    gain under the genome's own order_values (the captured piece; for a promotion
    the new piece minus the pawn, queen minus pawn for the usual one), then quiet
    moves by the mover's value, most powerful piece first."""
    cdef int i, flags, gain
    cdef const int* value = s.params.order_values
    cdef Move m
    for i in range(n):
        m = moves[i]
        flags = move_flags(m)
        if flags & (FLAG_CAPTURE | FLAG_PROMO):
            gain = 0
            if flags == FLAG_EP_CAPTURE:
                gain = value[PAWN]
            elif flags & FLAG_CAPTURE:
                gain = value[s.pos.board[move_to(m)] % 6]
            if flags & FLAG_PROMO:
                gain += value[move_promo_kind(m)] - value[PAWN]
            scores[i] = SCORE_CAPTURE + gain
        else:
            scores[i] = value[s.pos.board[move_from(m)] % 6]


cdef inline int quiet_stat(SearchState* s, int piece, int to, const int* cont1,
                           const int* cont2) noexcept nogil:
    """What the statistics say of a quiet move: its history and (continuation
    history) how it fared after the same last move and the one before, each
    within +-HISTORY_LIMIT."""
    cdef int stat = s.history[piece][to]
    if cont1 != NULL:
        stat += cont1[piece * 64 + to]
    if cont2 != NULL:
        stat += cont2[piece * 64 + to]
    return stat


cdef void order_moves(SearchState* s, const Move* moves, int* scores, int n, Move hash_move,
                      int ply, Move countermove, const int* cont1, const int* cont2) noexcept nogil:
    cdef int i, flags, pvt_phase_now
    cdef Move m
    if s.features & USE_VALUE_ORDERING:
        order_by_value(s, moves, scores, n)
        return
    # Quiet-move hook per evaluation kind: a PVT genome orders quiet moves by the
    # tapered table value of their destination (Phoenix's use of its PVTs); the
    # other kinds by the history heuristic.
    pvt_phase_now = pvt_phase(&s.pos) if s.params.kind == KIND_PVT else -1
    for i in range(n):
        m = moves[i]
        flags = move_flags(m)
        if m == hash_move:
            scores[i] = SCORE_HASH_MOVE
        elif flags & (FLAG_CAPTURE | FLAG_PROMO):
            scores[i] = SCORE_CAPTURE + mvv_lva(&s.pos, m)
        elif m == s.killers[ply][0]:
            scores[i] = SCORE_KILLER + 1
        elif m == s.killers[ply][1]:
            scores[i] = SCORE_KILLER
        elif m == countermove:
            scores[i] = SCORE_COUNTERMOVE
        elif pvt_phase_now >= 0:
            scores[i] = pvt_quiet_order(&s.params.pvt, s.pos.board[move_from(m)], move_to(m), pvt_phase_now)
        else:
            # Continuation history: a quiet move is also judged by how it fared
            # after the same last move and the one before (piece and square).
            # (search-elo.md step 7, with the gravity update of the history: +44 Elo,
            # SPRT [0,10] 10+0.1, 712 games)
            scores[i] = quiet_stat(s, s.pos.board[move_from(m)], move_to(m), cont1, cont2)


cdef void demote_losing_captures(SearchState* s, const Move* moves, int* scores, int n,
                                 Move hash_move) noexcept nogil:
    """Captures that lose material by SEE go after the quiet moves: a knight
    taking a defended pawn is more often a blunder than a good move. SEE runs only
    where the attacker is worth more than its victim, the only way to lose.
    (search-elo.md step 5, with delta pruning: +42 Elo, SPRT [0,10] 10+0.1, 786 games)"""
    cdef int i, flags
    cdef Move m
    for i in range(n):
        m = moves[i]
        flags = move_flags(m)
        if (flags & FLAG_CAPTURE and not (flags & FLAG_PROMO) and m != hash_move
                and PIECE_ORDER_VALUE[s.pos.board[move_from(m)] % 6]
                > PIECE_ORDER_VALUE[captured_kind(&s.pos, m)]
                and see(&s.pos, m) < 0):
            scores[i] += SCORE_LOSING_CAPTURE - SCORE_CAPTURE


cdef inline Move pick_move(Move* moves, int* scores, int i, int n) noexcept nogil:
    """Selection sort step: bring the best-scored remaining move to position i."""
    cdef int best = i, j, t
    cdef Move m
    for j in range(i + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        m = moves[i]; moves[i] = moves[best]; moves[best] = m
        t = scores[i]; scores[i] = scores[best]; scores[best] = t
    return moves[i]


cdef inline void update_pv(SearchState* s, int ply, Move m) noexcept nogil:
    cdef int j
    s.pv[ply][ply] = m
    for j in range(ply + 1, s.pv_len[ply + 1]):
        s.pv[ply][j] = s.pv[ply + 1][j]
    s.pv_len[ply] = s.pv_len[ply + 1] if s.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline int history_bonus(int depth) noexcept nogil:
    cdef int bonus = HISTORY_BONUS_QUADRATIC * depth * depth + HISTORY_BONUS_LINEAR * (depth - 1)
    return bonus if bonus < HISTORY_BONUS_MAX else HISTORY_BONUS_MAX


cdef inline void gravity(int* score, int bonus) noexcept nogil:
    """Stockfish's history update: the bonus shrinks as the score nears the limit,
    so scores stay within +-HISTORY_LIMIT and recent results weigh most."""
    score[0] += bonus - score[0] * (bonus if bonus > 0 else -bonus) // HISTORY_LIMIT


cdef inline void add_history(SearchState* s, Move m, int bonus, int* cont1, int* cont2) noexcept nogil:
    """Add to a quiet move's history and to its continuation histories (where given)."""
    cdef int pc = s.pos.board[move_from(m)]
    gravity(&s.history[pc][move_to(m)], bonus)
    if cont1 != NULL:
        gravity(&cont1[pc * 64 + move_to(m)], bonus)
    if cont2 != NULL:
        gravity(&cont2[pc * 64 + move_to(m)], bonus)


cdef inline int* continuation(SearchState* s, int ply, int back) noexcept nogil:
    """The continuation-history row of the move made `back` plies before this node
    (its piece and destination), or NULL at the root side of the line or after a null move."""
    if not (s.features & USE_CONT_HISTORY) or ply < back or s.played[ply - back] == MOVE_NONE:
        return NULL
    return &s.cont_history[s.played_piece[ply - back]][move_to(s.played[ply - back])][0][0]


cdef void reward_quiet(SearchState* s, Move m, int depth, int ply, int* cont1, int* cont2) noexcept nogil:
    if s.killers[ply][0] != m:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = m
    add_history(s, m, history_bonus(depth), cont1, cont2)


cdef inline Move* countermove_slot(SearchState* s, int ply) noexcept nogil:
    """Where the refutation of the opponent's previous move is kept (by its piece,
    now on its destination, and that square); NULL at the root or after a null move."""
    cdef Move previous = s.played[ply - 1] if ply > 0 else MOVE_NONE
    if previous == MOVE_NONE:
        return NULL
    return &s.countermoves[s.pos.board[move_to(previous)]][move_to(previous)]


cdef int quiesce(SearchState* s, int alpha, int beta, int ply) noexcept nogil:
    """Captures (every evasion in check) until the position is quiet. Its steps
    are numbered on their own (Q1-Q6) in the order they run; the `search-elo.md
    step N` beside a step is the row of docs/search-elo.md it was measured as."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score, best, stand_pat
    cdef bint checked
    cdef Position* p = &s.pos
    # Step Q1. Count the node and check for stop.
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
        return evaluate(p, &s.params)
    if s.qs_ply_limit and ply >= s.qs_ply_limit:
        return evaluate(p, &s.params)
    if not (s.features & USE_QUIESCENCE):
        if not has_legal_move(p):
            return -MATE_SCORE + ply if in_check(p) else DRAW_SCORE
        return evaluate(p, &s.params)
    if insufficient_material(p):
        return DRAW_SCORE
    # Step Q3. Stand pat, or in check search every evasion: no standing pat in
    # check, and no evasion is mate.
    checked = in_check(p)
    if checked:
        n = generate_legal(p, moves, GEN_ALL)
        if n == 0:
            return -MATE_SCORE + ply
        best = -INFINITE_SCORE
    else:
        stand_pat = evaluate(p, &s.params)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        n = generate_legal(p, moves, GEN_CAPTURES)
    # Step Q4. Move loop, MVV-LVA first.
    order_moves(s, moves, scores, n, MOVE_NONE, ply, MOVE_NONE, NULL, NULL)
    for i in range(n):
        pick_move(moves, scores, i, n)
        # Step Q5. SEE pruning: a capture that loses material on its square cannot
        # raise a stand-pat score, except through a tactic (a pin, a discovered
        # attack) that quiescence would not follow anyway. Never in check.
        # (search-elo.md step 1: +43 Elo, SPRT [0,10] 10+0.1, 811 games)
        if not checked and s.features & USE_QS_SEE and see(p, moves[i]) < 0:
            continue
        # Step Q6. Delta pruning: a capture that would leave the side below alpha
        # even if it won its victim and DELTA_MARGIN_PAWNS more cannot raise the
        # score. Not in check, not for promotions (they gain a piece besides the
        # victim). The victim counts in the genome's own pawns, the margin in the
        # margins' pawns (a genome's `Search pawn` moves the margin, not what a
        # queen is worth).
        # (search-elo.md step 5, with SEE ordering: +42 Elo, SPRT [0,10] 10+0.1, 786 games)
        if (not checked and s.features & USE_DELTA and not (move_flags(moves[i]) & FLAG_PROMO)
                and alpha < MATE_BOUND
                and stand_pat + <long long>PIECE_ORDER_VALUE[captured_kind(p, moves[i])] * s.material_pawn
                              + <long long>DELTA_MARGIN_PAWNS * s.pawn_value <= alpha):
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
                if score >= beta:
                    break
    return best


cdef bint has_non_pawn_material(const Position* p) noexcept nogil:
    cdef int c = p.side * 6
    return (p.bb[c + KNIGHT] | p.bb[c + BISHOP] | p.bb[c + ROOK] | p.bb[c + QUEEN]) != 0


cdef int negamax(SearchState* s, int depth, int alpha, int beta, int ply, bint null_ok) noexcept nogil:
    """The alpha-beta search below the root. Its steps are numbered in the order
    they run, as in Stockfish's search.cpp. docs/search-elo.md numbers the same
    ideas in the order they were written and SPRT-tested; the `search-elo.md step
    N` beside a step is the row it was measured as (step 0: the baseline, whose
    parts were never measured alone)."""
    cdef Move moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef Undo u
    cdef int n, i, score, best, reduction, orig_alpha = alpha, R, bound, static_eval
    cdef bint checked, pv_node = beta - alpha > 1, gives_check, quiet, futile, lmp
    cdef int quiets_tried, n_tried_quiets, j
    cdef Move tried_quiets[MAX_QUIETS_PUNISHED]
    cdef int* cont1 = NULL
    cdef Move* counter_slot
    cdef int tt_depth = -1, tt_bound = 0, tt_score = 0, singular_beta, new_depth
    cdef bint singular
    cdef int stat
    cdef Move excluded = s.excluded[ply]
    cdef int* cont2 = NULL
    cdef bint use_ab = s.features & USE_ALPHABETA
    cdef bint ordered = s.features & (USE_ORDERING | USE_VALUE_ORDERING)
    cdef Move m, best_move = MOVE_NONE, hash_move = MOVE_NONE, countermove
    cdef TTHit entry
    cdef Position* p = &s.pos
    # Step 1. Initialize node: an empty PV; at the ply limit, the static evaluation.
    s.pv_len[ply] = ply
    if ply >= MAX_PLY - 2:
        return evaluate(p, &s.params)
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
        if tt_probe(s.tt, p.key, &entry):
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
    if (s.features & USE_IIR and hash_move == MOVE_NONE and depth >= IIR_MIN_DEPTH
            and ordered and not checked):
        depth -= 1

    # Step 8. Static evaluation, only where one of the prunings below can act: the
    # genome's evaluation is the costliest thing in a node.
    static_eval = -INFINITE_SCORE
    if use_ab and not pv_node and not checked and excluded == MOVE_NONE and (
            (s.features & USE_RFP and depth <= RFP_MAX_DEPTH)
            or (s.features & USE_FUTILITY and depth <= FUTILITY_MAX_DEPTH)
            or (s.features & USE_NULL_MOVE and null_ok and depth >= NULL_MOVE_MIN_DEPTH)):
        static_eval = evaluate(p, &s.params)

    # Step 9. Reverse futility pruning (static null move): so close to the leaves, a
    # position this far above beta stays above it whatever the opponent does, short
    # of a tactic a margin of a pawn per ply covers. Not when beta is a mate score.
    # (search-elo.md step 2, with futility pruning: +91 Elo, SPRT [0,10] 10+0.1, 386 games)
    if (s.features & USE_RFP and static_eval > -INFINITE_SCORE and depth <= RFP_MAX_DEPTH
            and -MATE_BOUND < beta < MATE_BOUND
            and static_eval - depth * (s.pawn_value * RFP_MARGIN_PERCENT // 100) >= beta):
        return static_eval

    # Step 10. Futility: a node is futile where even a margin of a pawn per ply of
    # depth, and FUTILITY_EXTRA_PAWNS more, leaves the static evaluation under alpha;
    # its quiet moves are pruned in step 16. No razoring (dropping such a node
    # straight into quiescence): quiescence searches no quiet checks, so it would
    # miss a quiet mate in one in the tree.
    # (search-elo.md step 2, with reverse futility: +91 Elo, SPRT [0,10] 10+0.1, 386 games)
    futile = (s.features & USE_FUTILITY and static_eval > -INFINITE_SCORE
              and depth <= FUTILITY_MAX_DEPTH and -MATE_BOUND < alpha < MATE_BOUND
              and static_eval + (depth + FUTILITY_EXTRA_PAWNS) * s.pawn_value <= alpha)

    # Step 11. Null-move pruning: if passing still fails high, a real move will too.
    # Not in check, not in PV nodes, and not without pieces (zugzwang is common then).
    # (search-elo.md step 0; a reduction growing with depth and the static lead was
    # tried as step 9 and dropped: -60 Elo, SPRT [0,10] 10+0.1, 444 games)
    if (s.features & USE_NULL_MOVE and null_ok and use_ab and not pv_node and not checked
            and depth >= NULL_MOVE_MIN_DEPTH and has_non_pawn_material(p) and beta < MATE_BOUND
            and static_eval >= beta):
        R = NULL_MOVE_DEEP_R if depth >= NULL_MOVE_DEEP_DEPTH else NULL_MOVE_R
        make_null(p, &u)
        s.played[ply] = MOVE_NONE
        score = -negamax(s, depth - 1 - R, -beta, -beta + 1, ply + 1, False)
        unmake_null(p, &u)
        if s.stop:
            return 0
        if score >= beta:
            return beta if score > MATE_BOUND else score

    # Step 12. Generate the legal moves; with none, check for mate and stalemate.
    n = generate_legal(p, moves, GEN_ALL)
    if n == 0:
        return -MATE_SCORE + ply if checked else DRAW_SCORE
    # Step 13. Move ordering: hash move, captures by MVV-LVA, killers, countermove
    # (search-elo.md step 6), quiet moves by history and continuation history
    # (search-elo.md step 7), captures losing by SEE last (search-elo.md step 5).
    cont1 = continuation(s, ply, 1)
    cont2 = continuation(s, ply, 2)
    counter_slot = countermove_slot(s, ply)
    if ordered:
        countermove = MOVE_NONE
        if s.features & USE_COUNTERMOVE and counter_slot != NULL:
            countermove = counter_slot[0]
        order_moves(s, moves, scores, n, hash_move, ply, countermove, cont1, cont2)
        if s.features & USE_SEE_ORDERING and s.features & USE_ORDERING:
            demote_losing_captures(s, moves, scores, n, hash_move)
    # Step 14. Singular extension: when the hash move (a lower bound or exact, from a
    # search nearly as deep) is better than every other move by a margin, shown by a
    # search at half depth without it, it is the only move here and is searched a
    # ply deeper (in step 17). If even the others reach the margin above beta, more
    # than one move fails high and the node is cut (multi-cut).
    # (search-elo.md step 8: +34 Elo, SPRT [0,10] 10+0.1, 946 games)
    singular = False
    if (s.features & USE_SINGULAR and use_ab and ply > 0 and depth >= SINGULAR_MIN_DEPTH
            and hash_move != MOVE_NONE and excluded == MOVE_NONE
            and tt_depth >= depth - SINGULAR_TT_DEPTH_GAP
            and (tt_bound == BOUND_LOWER or tt_bound == BOUND_EXACT)
            and -MATE_BOUND < tt_score < MATE_BOUND):
        singular_beta = tt_score - depth * (s.pawn_value * SINGULAR_MARGIN_PERCENT // 100)
        s.excluded[ply] = hash_move
        score = negamax(s, (depth - 1) // SINGULAR_DEPTH_DIVISOR, singular_beta - 1, singular_beta,
                        ply, False)
        s.excluded[ply] = MOVE_NONE
        s.pv_len[ply] = ply
        if s.stop:
            return 0
        if score < singular_beta:
            singular = True
        elif singular_beta >= beta:
            return singular_beta

    # Step 15. Move loop. Late-move pruning (step 16) acts only in null-window nodes
    # near the leaves, out of check.
    lmp = (s.features & USE_LMP and use_ab and not pv_node and not checked
           and depth <= LMP_MAX_DEPTH)
    quiets_tried = 0
    n_tried_quiets = 0
    best = -INFINITE_SCORE
    for i in range(n):
        if ordered:
            m = pick_move(moves, scores, i, n)
        else:
            m = moves[i]
        if m == excluded:
            continue
        quiet = not (move_flags(m) & (FLAG_CAPTURE | FLAG_PROMO))
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
        # - late-move pruning: so near the leaves, once LMP_BASE + depth^2 quiet
        #   moves have failed to raise alpha, the ordering's later quiet moves (no
        #   capture, no check, no killer standing before them) rarely will.
        #   (search-elo.md step 3, with late-move reductions: +28 Elo, SPRT [0,10]
        #   10+0.1, 1338 games)
        if quiet and not gives_check and best > -MATE_BOUND:
            if futile or (lmp and quiets_tried >= LMP_BASE + depth * depth):
                unmake_move(p, m, &u)
                continue
        if quiet:
            quiets_tried += 1
        # Step 17. Extend the singular move (step 14) and search: the first move with
        # the full window, the others (PVS, search-elo.md step 0) with a null window
        # and late-move reductions first.
        new_depth = depth - 1 + (singular and m == hash_move)
        if not use_ab:
            score = -negamax(s, depth - 1, -INFINITE_SCORE, INFINITE_SCORE, ply + 1, True)
        elif i == 0 or not (s.features & USE_PVS):
            score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True)
        else:
            # Late-move reductions: quiet moves ordered late are searched shallower
            # first and again at full depth only if they turn out to matter. The
            # reduction grows with depth and move number (LMR_REDUCTION), a ply less
            # where a miss costs most: in PV nodes, for killers, for checks.
            # (search-elo.md step 3, with late-move pruning: +28 Elo, SPRT [0,10]
            # 10+0.1, 1338 games)
            reduction = 0
            if (s.features & USE_LMR and depth >= LMR_MIN_DEPTH and i >= LMR_MIN_MOVE
                    and quiet and not checked):
                reduction = LMR_REDUCTION[depth if depth < LMR_TABLE_SIZE else LMR_TABLE_SIZE - 1][
                    i if i < LMR_TABLE_SIZE else LMR_TABLE_SIZE - 1]
                reduction -= pv_node + gives_check + (m == s.killers[ply][0] or m == s.killers[ply][1])
                # Reductions by history: a ply less (more) for each LMR_HISTORY_STEP
                # the move's statistics stand above (below) zero, up to
                # LMR_HISTORY_PLIES: the ordering only says which move comes first,
                # not how sure it is.
                # (search-elo.md step 10: +43 Elo, SPRT [0,10] 10+0.1, 752 games)
                if s.features & USE_LMR_HISTORY:
                    stat = quiet_stat(s, s.played_piece[ply], move_to(m), cont1, cont2) // LMR_HISTORY_STEP
                    reduction -= (LMR_HISTORY_PLIES if stat > LMR_HISTORY_PLIES else
                                  -LMR_HISTORY_PLIES if stat < -LMR_HISTORY_PLIES else stat)
                if reduction > depth - 1 - LMR_MIN_PLIES_LEFT:
                    reduction = depth - 1 - LMR_MIN_PLIES_LEFT
                if reduction < 0:
                    reduction = 0
            score = -negamax(s, new_depth - reduction, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and reduction:
                score = -negamax(s, new_depth, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and score < beta:
                score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True)
        # Step 18. Undo the move and check for a new best move; at a cutoff the
        # statistics learn from it (killers and history for a quiet move).
        unmake_move(p, m, &u)
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
                        reward_quiet(s, m, depth, ply, cont1, cont2)
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
                                add_history(s, tried_quiets[j], -history_bonus(depth), cont1, cont2)
                    break
        if quiet and n_tried_quiets < MAX_QUIETS_PUNISHED:
            tried_quiets[n_tried_quiets] = m
            n_tried_quiets += 1
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
        tt_store(s.tt, p.key, score_to_tt(best, ply), bound, depth, best_move)
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
        if tt_probe(s.tt, p.key, &entry):
            hash_move = entry.move
    order_moves(s, moves, scores, n, hash_move, ply, MOVE_NONE, NULL, NULL)
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
                        reward_quiet(s, m, 1, ply, NULL, NULL)
                    break
    if s.features & USE_TT:
        tt_store(s.tt, p.key, 0, BOUND_UPPER, 0, s.pv[ply][ply] if s.pv_len[ply] > ply else MOVE_NONE)
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
    cdef U64 start = s.nodes
    s.pv_len[0] = 0
    for i in range(first, n):
        s.root_scores[i] = -INFINITE_SCORE
    for i in range(first, n):
        m = s.root_moves[i]
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
    cdef int delta = max(s.pawn_value * ASPIRATION_PERCENT // 100, 1)  # never an empty window
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
        if delta > ASPIRATION_MAX_PAWNS * s.pawn_value:
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


# ------------------------------------------------------------ Python driver

cdef int set_root_moves(SearchState* s, searchmoves) except -1:
    """Fill s.root_moves with the legal moves of s.pos that `searchmoves` (UCI
    strings, or None for all) names; return the number of legal moves."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(&s.pos, moves, GEN_ALL), i
    wanted = set(searchmoves) if searchmoves else None
    s.n_root = 0
    for i in range(n):
        if wanted is None or move_to_uci(&s.pos, moves[i]) in wanted:
            s.root_moves[s.n_root] = moves[i]
            s.n_root += 1
    if s.n_root == 0:
        # searchmoves named no legal move: better any legal move than none.
        for i in range(n):
            s.root_moves[i] = moves[i]
        s.n_root = n
    return n


cdef int new_worker(Worker* w, TT* tt) except -1:
    w.s = <SearchState*>calloc(1, sizeof(SearchState))
    w.pawn_cache = <PawnEntry*>gc_large_calloc(PAWN_CACHE_SIZE, sizeof(PawnEntry))
    w.eval_cache = <EvalEntry*>gc_large_calloc(EVAL_CACHE_SIZE, sizeof(EvalEntry))
    if w.s == NULL or w.pawn_cache == NULL or w.eval_cache == NULL:
        free_worker(w)
        raise MemoryError()
    w.s.tt = tt
    w.s.features = FEATURES_ALL
    w.s.pawn_value = EVAL_SCALE
    w.s.material_pawn = EVAL_SCALE
    return 0


cdef void free_worker(Worker* w) noexcept:
    gc_large_free(w.pawn_cache)
    gc_large_free(w.eval_cache)
    gc_large_free(w.unified_pawn_cache)
    free(w.s)
    w.s = NULL
    w.pawn_cache = NULL
    w.eval_cache = NULL
    w.unified_pawn_cache = NULL


cdef int load_genome(Worker* w, dict packed, int pawn_value, int material_pawn) except -1:
    make_params(&w.s.params, packed)
    # The cached pawn terms and evaluations were computed with the old genome's parameters.
    memset(w.pawn_cache, 0, PAWN_CACHE_SIZE * sizeof(PawnEntry))
    memset(w.eval_cache, 0, EVAL_CACHE_SIZE * sizeof(EvalEntry))
    w.s.params.pawn_cache = w.pawn_cache
    w.s.params.eval_cache = w.eval_cache
    if w.s.params.kind == KIND_UNIFIED:
        if w.unified_pawn_cache == NULL:
            w.unified_pawn_cache = <UnifiedPawnEntry*>gc_large_calloc(UNIFIED_PAWN_CACHE_SIZE, sizeof(UnifiedPawnEntry))
            if w.unified_pawn_cache == NULL:
                raise MemoryError()
        memset(w.unified_pawn_cache, 0, UNIFIED_PAWN_CACHE_SIZE * sizeof(UnifiedPawnEntry))
        w.s.params.unified_pawn_cache = w.unified_pawn_cache
    w.s.spec[0] = packed["spec_just_captured"]
    w.s.spec[1] = packed["spec_can_capture"]
    w.s.spec[2] = packed["spec_recapture"]
    w.s.spec[3] = packed["spec_default"]
    w.s.pawn_value = pawn_value
    w.s.material_pawn = material_pawn
    return 0


cdef void helper_iterate(SearchState* h, int max_depth, int index, double cap) noexcept nogil:
    """A helper thread's iterative deepening (Lazy SMP): the main thread's search,
    without reporting, until stopped; every other helper a ply deeper, so that the
    threads spread over two depths and fill the shared table with what the main
    thread will need next."""
    cdef int depth, d, score, previous = 0
    for depth in range(1, max_depth + 1):
        d = min(depth + (index & 1), max_depth)
        h.qs_ply_limit = <int>(cap * d) if cap > 0 else 0
        if (h.features & USE_ASPIRATION and h.features & USE_ALPHABETA and d >= ASPIRATION_MIN_DEPTH
                and -MATE_BOUND < previous < MATE_BOUND):
            score = search_root_aspiration(h, d, previous)
        else:
            score = search_root(h, d, 0, 0.0, -INFINITE_SCORE, INFINITE_SCORE)
        if h.stop:
            return
        previous = score


FEATURE_NAMES = {
    "alphabeta": USE_ALPHABETA, "ordering": USE_ORDERING, "quiescence": USE_QUIESCENCE,
    "tt": USE_TT, "null_move": USE_NULL_MOVE, "lmr": USE_LMR,
    "check_extension": USE_CHECK_EXTENSION, "pvs": USE_PVS, "mate_distance": USE_MATE_DISTANCE,
    "value_ordering": USE_VALUE_ORDERING, "qs_see": USE_QS_SEE, "rfp": USE_RFP,
    "futility": USE_FUTILITY, "lmp": USE_LMP, "aspiration": USE_ASPIRATION,
    "see_ordering": USE_SEE_ORDERING, "delta": USE_DELTA,
    "countermove": USE_COUNTERMOVE, "history_malus": USE_HISTORY_MALUS, "iir": USE_IIR,
    "cont_history": USE_CONT_HISTORY, "singular": USE_SINGULAR,
    "lmr_history": USE_LMR_HISTORY,
}
ALL_FEATURES = FEATURES_ALL
KENDALL_WHITWELL_FEATURES = KENDALL_WHITWELL
MATE = MATE_SCORE
MATE_THRESHOLD = MATE_BOUND
ALPHA_BETA_MODES = ("iterative", "budget", "minimax")   # what Searcher.search runs


cdef class Searcher:
    """Owns a search state and its transposition table; one search at a time.

    `search()` runs iterative deepening (or one budget pass), releasing the GIL
    for each iteration; `stop()` may be called from any thread."""

    # Attributes are declared in search.pxd, so other search modes (gasearch) can use them.

    def __cinit__(self, int hash_mb=16):
        self.tt.entries = NULL
        if tt_resize(&self.tt, hash_mb) != 0:
            raise MemoryError(f"cannot allocate a {hash_mb} MB hash table")
        self.workers = <Worker*>calloc(1, sizeof(Worker))
        if self.workers == NULL:
            raise MemoryError()
        self.n_workers = 1
        new_worker(&self.workers[0], &self.tt)
        self.s = self.workers[0].s
        self.pawn_unit = EVAL_SCALE
        self.packed = None

    def __dealloc__(self):
        if self.workers != NULL:
            for i in range(self.n_workers):
                free_worker(&self.workers[i])
            free(self.workers)
        tt_free(&self.tt)

    def set_hash(self, int megabytes):
        if tt_resize(&self.tt, megabytes) != 0:
            raise MemoryError(f"cannot allocate a {megabytes} MB hash table")

    @property
    def threads(self):
        return self.n_workers

    def set_threads(self, int n):
        """Search on `n` threads (Lazy SMP): the main thread and n - 1 helpers that
        search the same root on their own state, sharing the hash table."""
        cdef Worker* grown
        n = max(1, n)
        for i in range(n, self.n_workers):
            free_worker(&self.workers[i])
        grown = <Worker*>realloc(self.workers, n * sizeof(Worker))
        if grown == NULL:
            raise MemoryError()
        self.workers = grown
        self.s = self.workers[0].s
        for i in range(self.n_workers, n):
            memset(&self.workers[i], 0, sizeof(Worker))
            self.n_workers = i          # a failure below leaves the ones made so far
            new_worker(&self.workers[i], &self.tt)
            self.workers[i].s.features = self.s.features
            if self.packed is not None:
                load_genome(&self.workers[i], self.packed, self.s.pawn_value, self.s.material_pawn)
        self.n_workers = n

    def clear(self):
        """Forget everything learned: hash table, killers, histories (every thread's)."""
        cdef SearchState* w
        tt_clear(&self.tt)
        for i in range(self.n_workers):
            w = self.workers[i].s
            memset(w.killers, 0, sizeof(w.killers))
            memset(w.history, 0, sizeof(w.history))
            memset(w.countermoves, 0, sizeof(w.countermoves))
            memset(w.cont_history, 0, sizeof(w.cont_history))

    def set_genome(self, dict packed):
        """Load a genome's packed parameters (once per genome, not per search)."""
        if "pawn_unit" in packed:       # kinds other than Genetic Chess say it themselves
            unit = packed["pawn_unit"]
        else:
            unit = packed["total_force_priority"] * packed["piece_values"][PAWN] * EVAL_SCALE
        self.pawn_unit = unit if unit > 0 else EVAL_SCALE
        # The margins' pawn: the genome's own unit unless it says otherwise (a unified
        # genome's `Search pawn:`, set by games; the unit stays what scores are shown in).
        margin_pawn = packed.get("search_pawn_unit", self.pawn_unit)
        for i in range(self.n_workers):
            load_genome(&self.workers[i], packed, <int>min(margin_pawn, EVAL_LIMIT / 16.0),
                        <int>min(self.pawn_unit, EVAL_LIMIT / 16.0))
        self.packed = packed

    @property
    def aspiration_researches(self):
        """How often the last search's aspiration windows failed and searched again."""
        return self.s.aspiration_researches

    @property
    def features(self):
        return self.s.features

    @features.setter
    def features(self, int value):
        for i in range(self.n_workers):
            self.workers[i].s.features = value

    def stop(self):
        for i in range(self.n_workers):
            self.workers[i].s.stop = 1

    def clear_stop(self):
        """Arm for the next search. Kept out of search() so that a stop arriving
        between a `go` and the search thread starting is not lost."""
        self.s.stop = 0

    def set_time_limits(self, soft_time=None, hard_time=None):
        """(Re)set the time limits, in seconds from now, also while searching (ponderhit)."""
        now = monotonic_seconds()
        self.soft_deadline = now + soft_time if soft_time else 0.0
        self.s.deadline = now + hard_time if hard_time else 0.0

    def progress(self):
        """(nodes of every thread, seldepth) of the running search; safe to call from
        another thread."""
        return self.total_nodes(), self.s.seldepth

    def total_nodes(self):
        cdef U64 nodes = 0
        for i in range(self.n_workers):
            nodes += self.workers[i].s.nodes
        return nodes

    def _start_helpers(self, int max_depth):
        """Start the helper threads on the main thread's root (its moves already
        ordered): each runs its own iterative deepening until stopped."""
        cdef SearchState* h
        threads = []
        for i in range(1, self.n_workers):
            h = self.workers[i].s
            h.pos = self.s.pos
            h.nodes = 0
            h.seldepth = 0
            h.stop = 0
            h.node_limit = 0
            h.deadline = self.s.deadline            # the hard limit holds for every thread
            h.mode = MODE_ITERATIVE
            h.n_root = self.s.n_root
            memcpy(h.root_moves, self.s.root_moves, self.s.n_root * sizeof(Move))
            memset(h.killers, 0, sizeof(h.killers))
            thread = threading.Thread(target=self._helper, args=(i, max_depth), daemon=True,
                                      name=f"genchess-search-{i}")
            thread.start()
            threads.append(thread)
        return threads

    def _helper(self, int i, int max_depth):
        cdef SearchState* h = self.workers[i].s
        cdef double cap = self.quiescence_cap
        with nogil:
            helper_iterate(h, max_depth, i, cap)

    def _stop_helpers(self, threads):
        for i in range(1, self.n_workers):
            self.workers[i].s.stop = 1
        for thread in threads:
            thread.join()


    def hashfull(self):
        return tt_hashfull(&self.tt)

    def evaluate(self, Board board):
        """The static evaluation of `board` from the side to move's view."""
        return evaluate(&board.pos, &self.s.params)

    def ordered_moves(self, Board board):
        """The legal moves of `board` (UCI) in the order this search's ordering
        tries them, with no hash move or killers: what the features choose."""
        cdef Move moves[MAX_MOVES]
        cdef int scores[MAX_MOVES]
        cdef int n, i
        self.s.pos = board.pos
        n = generate_legal(&self.s.pos, moves, GEN_ALL)
        if self.s.features & (USE_ORDERING | USE_VALUE_ORDERING):
            order_moves(self.s, moves, scores, n, MOVE_NONE, MAX_PLY - 1, MOVE_NONE, NULL, NULL)
            if self.s.features & USE_SEE_ORDERING and self.s.features & USE_ORDERING:
                demote_losing_captures(self.s, moves, scores, n, MOVE_NONE)
            for i in range(n):
                pick_move(moves, scores, i, n)
        return [move_to_uci(&self.s.pos, moves[i]) for i in range(n)]

    def probe(self, Board board):
        """(score, move as UCI or None, depth, bound) of `board`'s hash entry, or None."""
        cdef TTHit hit
        if not tt_probe(&self.tt, board.pos.key, &hit):
            return None
        return hit.score, move_to_uci(&board.pos, hit.move) if hit.move else None, hit.depth, hit.bound

    def tear_entry_for_tests(self, Board board, Board other):
        """Make `board`'s slot look written by two threads at once: the check word of
        `board`'s entry with the data word of `other`'s (stored alike): what the
        table's XOR check exists to refuse."""
        cdef TTEntry* e = &self.tt.entries[board.pos.key & self.tt.mask]
        cdef TTEntry* f = &self.tt.entries[other.pos.key & self.tt.mask]
        e.data = f.data

    def store(self, Board board, int score, int depth):
        """Put an exact score for `board` (side to move's view) in the hash table,
        as a search to `depth` would: for tests of the table's depth rule."""
        tt_store(&self.tt, board.pos.key, score, BOUND_EXACT, depth, MOVE_NONE)

    def search(self, Board board, int max_depth=MAX_PLY - 2, U64 node_limit=0,
               soft_time=None, hard_time=None, searchmoves=None, int multipv=1,
               mode="iterative", double budget_nodes=0.0, int mate=0, on_iteration=None):
        """Search `board` and return the last complete result as a dict. Call
        clear_stop() first: a pending stop() ends this search at once.

        soft_time: start no new iteration after this many seconds; hard_time: abort
        the search then. In budget mode `depth` counts passes and the passes
        together spend about `budget_nodes`. Mode `minimax` is iterative deepening
        with every feature off (plain minimax, no pruning, no quiescence). The result
        and each on_iteration(info) carry depth, seldepth, nodes, time, hashfull and
        lines: [(score, pv as UCI list)] best first."""
        cdef SearchState* s = self.s
        cdef Move moves[MAX_MOVES]
        cdef int features = s.features
        if mode not in ALPHA_BETA_MODES:
            raise ValueError(f"Searcher.search runs the modes {', '.join(ALPHA_BETA_MODES)}, "
                             f"not {mode!r}")
        if mode == "minimax":
            s.features = 0
            try:
                return self.search(board, max_depth, node_limit, soft_time, hard_time,
                                   searchmoves, multipv, "iterative", 0.0, mate, on_iteration)
            finally:
                s.features = features
        cdef int n, i, depth, line, score = 0, lines_wanted, previous = 0
        cdef double start = monotonic_seconds(), budget = budget_nodes
        s.pos = board.pos
        s.nodes = 0
        s.seldepth = 0
        s.aspiration_researches = 0
        s.node_limit = node_limit
        self.set_time_limits(soft_time, hard_time)
        s.mode = MODE_BUDGET if mode == "budget" else MODE_ITERATIVE
        tt_new_search(&self.tt)
        memset(s.killers, 0, sizeof(s.killers))
        n = set_root_moves(s, searchmoves)
        result = {"depth": 0, "seldepth": 0, "nodes": 0, "time": 0.0, "hashfull": 0, "lines": []}
        if s.n_root == 0:
            if n == 0:
                result["lines"] = [(-MATE_SCORE if in_check(&s.pos) else DRAW_SCORE, [])]
            return result
        with nogil:
            order_root_by_eval(s)
        lines_wanted = min(max(multipv, 1), s.n_root)
        # Lazy SMP: helper threads search the same root until this loop ends.
        helpers = self._start_helpers(max_depth) if self.n_workers > 1 and s.mode == MODE_ITERATIVE else []
        try:
            # Budget mode repeats its pass with a doubled budget (the TT and the sorted
            # root moves make each pass better ordered) until the move's budget is
            # spent: alpha-beta cut-offs leave most of a single pass's budget unused.
            for depth in range(1, max(max_depth, 1) + 1):
                if s.mode == MODE_BUDGET:
                    budget = budget_nodes * (2.0 ** (depth - 1))
                s.qs_ply_limit = <int>(self.quiescence_cap * depth) if self.quiescence_cap > 0 else 0
                lines = []
                for line in range(lines_wanted):
                    with nogil:
                        if (line == 0 and s.mode == MODE_ITERATIVE and s.features & USE_ASPIRATION
                                and s.features & USE_ALPHABETA and depth >= ASPIRATION_MIN_DEPTH
                                and -MATE_BOUND < previous < MATE_BOUND):
                            score = search_root_aspiration(s, depth, previous)
                        else:
                            score = search_root(s, depth, line, budget, -INFINITE_SCORE, INFINITE_SCORE)
                    if s.stop and not (line == 0 and s.root_scores[line] > -INFINITE_SCORE):
                        break
                    pv = [move_to_uci(&s.pos, s.pv[0][i]) for i in range(s.pv_len[0])]
                    if not pv or pv[0] != move_to_uci(&s.pos, s.root_moves[line]):
                        pv = [move_to_uci(&s.pos, s.root_moves[line])]
                    lines.append((s.root_scores[line], pv))
                    if s.stop:
                        break
                if not lines:
                    break                     # stopped before anything was learned this iteration
                # Each MultiPV line is its own search; reductions can leave a later line
                # scoring above an earlier one, so report them best first.
                lines.sort(key=lambda line: -line[0])
                if s.stop and result["lines"] and len(lines) < len(result["lines"]):
                    lines = lines + result["lines"][len(lines):]
                elapsed = monotonic_seconds() - start
                result = {"depth": depth, "seldepth": s.seldepth, "nodes": self.total_nodes(),
                          "time": elapsed, "hashfull": tt_hashfull(&self.tt), "lines": lines}
                if on_iteration is not None:
                    on_iteration(result)
                if s.stop:
                    break
                best_score = previous = lines[0][0]
                if mate and best_score > MATE_BOUND and (MATE_SCORE - best_score + 1) // 2 <= mate:
                    break
                if abs(best_score) > MATE_BOUND and depth >= MATE_SCORE - abs(best_score) + 2:
                    break                     # a mate is proven; deeper search cannot change it
                if self.soft_deadline > 0 and monotonic_seconds() >= self.soft_deadline:
                    break
                if node_limit and s.nodes >= node_limit:
                    break
                if s.mode == MODE_BUDGET and s.nodes >= budget_nodes:
                    break
        finally:
            self._stop_helpers(helpers)
        if not result["lines"]:
            # Stopped before any iteration finished: the first root move (the best
            # of a partial iteration, if any) so that the caller always has a move.
            result["lines"] = [(0, [move_to_uci(&s.pos, s.root_moves[0])])]
        result["nodes"] = self.total_nodes()
        result["time"] = monotonic_seconds() - start
        return result
