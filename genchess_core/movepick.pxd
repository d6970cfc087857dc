# Move picking and the statistics behind it: the order a node tries its moves in
# (hash move, captures by MVV-LVA or by the victim and capture history, killers, countermove, quiet moves by history and
# continuation history, captures losing by SEE last) and how a cutoff teaches the
# statistics. All inline: each is called once or more per node, and a call across
# modules would go through a pointer the compiler cannot see into.

from genchess_core.types cimport *
from genchess_core.search cimport (SearchState, SearchParams, mvv_lva, captured_kind, PIECE_ORDER_VALUE,
                                   MVV_VICTIM_WEIGHT, MVV_PROMO_WEIGHT, USE_VALUE_ORDERING,
                                   USE_CONT_HISTORY, USE_CAPTURE_HISTORY, USE_CONT_HISTORY_PLIES)
from genchess_core.evaluate cimport quiet_order_phase, quiet_order
from genchess_core.see cimport see_ge

cdef enum:
    # Step 13. Move ordering: the bands a move's score falls in, best first.
    SCORE_HASH_MOVE = 1 << 30
    SCORE_CAPTURE = 1 << 28     # + MVV-LVA, or capture_order (within +-2^17 either way)
    SCORE_KILLER = 1 << 27      # + 1 for the first killer
    SCORE_COUNTERMOVE = (1 << 27) - 1  # after both killers, before every history score
    SCORE_LOSING_CAPTURE = -(1 << 29)  # captures that lose by SEE: after every quiet move
    # Step 18. History (its bonus is SearchParams' history_bonus_*)
    HISTORY_LIMIT = 16384       # history and continuation history stay within +-this


cdef inline void order_by_value(SearchState* s, const Move* moves, int* scores, int n) noexcept nogil:
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
                           const int* cont2, const int* cont4) noexcept nogil:
    """What the statistics say of a quiet move: its history and (continuation
    history) how it fared after the same last move, the one before and (where
    given, a trial) the one four plies back, each within +-HISTORY_LIMIT."""
    cdef int stat = s.history[piece][to]
    if cont1 != NULL:
        stat += cont1[piece * 64 + to]
    if cont2 != NULL:
        stat += cont2[piece * 64 + to]
    if cont4 != NULL:
        stat += cont4[piece * 64 + to]
    return stat


cdef inline int* capture_stat(SearchState* s, Move m) noexcept nogil:
    """Capture m's capture history: by the piece that moves, its destination and the
    kind it takes."""
    return &s.capture_history[s.pos.board[move_from(m)]][move_to(m)][captured_kind(&s.pos, m)]


cdef inline int capture_order(SearchState* s, Move m) noexcept nogil:
    """Capture history ordering (a trial behind USE_CAPTURE_HISTORY), as Ethereal and
    Stockfish order captures: the most valuable victim first, but a capture that has
    often cut (or failed) before moves up (down) by its own statistics, which learn
    what MVV-LVA's fixed attacker term only guesses. A promotion adds its new piece,
    at the weight MVV-LVA gives it against a victim."""
    cdef int flags = move_flags(m), score = 0
    if flags & FLAG_CAPTURE:
        score = s.sp.capture_history_mvv * PIECE_ORDER_VALUE[captured_kind(&s.pos, m)] + capture_stat(s, m)[0]
    if flags & FLAG_PROMO:
        score += (s.sp.capture_history_mvv * PIECE_ORDER_VALUE[move_promo_kind(m)]
                  * MVV_PROMO_WEIGHT // MVV_VICTIM_WEIGHT)
    return score


cdef inline void order_moves(SearchState* s, const Move* moves, int* scores, int n, Move hash_move,
                      int ply, Move countermove, const int* cont1, const int* cont2,
                      const int* cont4) noexcept nogil:
    cdef int i, flags, own_order_phase, piece
    cdef bint by_capture_history = s.features & USE_CAPTURE_HISTORY
    # The trial behind USE_CONT_HISTORY_PLIES weighs the last move's continuation
    # history cont_history1_weight percent: this much more than its one share.
    cdef int cont1_extra = (s.sp.cont_history1_weight - 100
                            if s.features & USE_CONT_HISTORY_PLIES and cont1 != NULL else 0)
    cdef Move m
    if s.features & USE_VALUE_ORDERING:
        order_by_value(s, moves, scores, n)
        return
    # A genome may order quiet moves itself (Phoenix's tables do); the others leave
    # them to the history heuristic.
    own_order_phase = quiet_order_phase(&s.params, &s.pos)
    for i in range(n):
        m = moves[i]
        flags = move_flags(m)
        if m == hash_move:
            scores[i] = SCORE_HASH_MOVE
        elif flags & (FLAG_CAPTURE | FLAG_PROMO):
            scores[i] = SCORE_CAPTURE + (capture_order(s, m) if by_capture_history else mvv_lva(&s.pos, m))
        elif m == s.killers[ply][0]:
            scores[i] = SCORE_KILLER + 1
        elif m == s.killers[ply][1]:
            scores[i] = SCORE_KILLER
        elif m == countermove:
            scores[i] = SCORE_COUNTERMOVE
        elif own_order_phase >= 0:
            scores[i] = quiet_order(&s.params, s.pos.board[move_from(m)], move_to(m), own_order_phase)
        else:
            # Continuation history: a quiet move is also judged by how it fared
            # after the same last move and the one before (piece and square).
            # (search-elo.md step 7, with the gravity update of the history: +44 Elo,
            # SPRT [0,10] 10+0.1, 712 games)
            # A trial (USE_CONT_HISTORY_PLIES): the row of the last move counts
            # cont_history1_weight percent (Stockfish weighed it twice from 2021 to
            # 2024), and the row of the move four plies back, the side to move's own
            # before its last, counts too (cont4), as in Stockfish and Weiss.
            piece = s.pos.board[move_from(m)]
            scores[i] = quiet_stat(s, piece, move_to(m), cont1, cont2, cont4)
            if cont1_extra:
                scores[i] += cont1[piece * 64 + move_to(m)] * cont1_extra // 100


cdef inline void demote_losing_captures(SearchState* s, const Move* moves, int* scores, int n,
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
                and not see_ge(&s.pos, m, 0)):
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


cdef inline int history_bonus(const SearchParams* sp, int depth) noexcept nogil:
    cdef int bonus = sp.history_bonus_quadratic * depth * depth + sp.history_bonus_linear * (depth - 1)
    return bonus if bonus < sp.history_bonus_max else sp.history_bonus_max


cdef inline void gravity(int* score, int bonus) noexcept nogil:
    """Stockfish's history update: the bonus shrinks as the score nears the limit,
    so scores stay within +-HISTORY_LIMIT and recent results weigh most."""
    score[0] += bonus - score[0] * (bonus if bonus > 0 else -bonus) // HISTORY_LIMIT


cdef inline void add_history(SearchState* s, Move m, int bonus, int* cont1, int* cont2,
                             int* cont4) noexcept nogil:
    """Add to a quiet move's history and to its continuation histories (where given)."""
    cdef int pc = s.pos.board[move_from(m)]
    gravity(&s.history[pc][move_to(m)], bonus)
    if cont1 != NULL:
        gravity(&cont1[pc * 64 + move_to(m)], bonus)
    if cont2 != NULL:
        gravity(&cont2[pc * 64 + move_to(m)], bonus)
    if cont4 != NULL:
        gravity(&cont4[pc * 64 + move_to(m)], bonus)


cdef inline int* continuation(SearchState* s, int ply, int back) noexcept nogil:
    """The continuation-history row of the move made `back` plies before this node
    (its piece and destination), or NULL at the root side of the line or after a null move."""
    if not (s.features & USE_CONT_HISTORY) or ply < back or s.played[ply - back] == MOVE_NONE:
        return NULL
    return &s.cont_history[s.played_piece[ply - back]][move_to(s.played[ply - back])][0][0]


cdef inline int* continuation4(SearchState* s, int ply, bint checked) noexcept nogil:
    """The trial's (USE_CONT_HISTORY_PLIES) row four plies back, in the one table that
    holds the rows one and two plies back, as Stockfish keeps its rows (no memory more);
    NULL with the trial off, and in check, where Stockfish teaches only its first two."""
    if not (s.features & USE_CONT_HISTORY_PLIES) or checked:
        return NULL
    return continuation(s, ply, 4)


cdef inline void reward_quiet(SearchState* s, Move m, int depth, int ply, int* cont1, int* cont2,
                              int* cont4) noexcept nogil:
    if s.killers[ply][0] != m:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = m
    add_history(s, m, history_bonus(&s.sp, depth), cont1, cont2, cont4)


cdef inline void reward_captures(SearchState* s, Move best, int depth, const Move* tried,
                                 int n_tried) noexcept nogil:
    """Capture history at a cutoff: the capture that cut gains the history bonus and
    the captures tried before it lose as much, whatever kind of move cut: they failed
    where the node had a refutation."""
    cdef int bonus = history_bonus(&s.sp, depth), j
    if move_flags(best) & FLAG_CAPTURE:
        gravity(capture_stat(s, best), bonus)
    for j in range(n_tried):
        gravity(capture_stat(s, tried[j]), -bonus)


cdef inline Move* countermove_slot(SearchState* s, int ply) noexcept nogil:
    """Where the refutation of the opponent's previous move is kept (by its piece,
    now on its destination, and that square); NULL at the root or after a null move."""
    cdef Move previous = s.played[ply - 1] if ply > 0 else MOVE_NONE
    if previous == MOVE_NONE:
        return NULL
    return &s.countermoves[s.pos.board[move_to(previous)]][move_to(previous)]


