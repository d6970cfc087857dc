# Labelled position sets on the C side: quiet resolution and whole-set evaluation.
#
# A tuner scores a genome on hundreds of thousands of positions, so the set is kept
# as compact arrays (twelve bitboards and three small fields a position, see
# genchess/fitness/positions.py) and a C Position is rebuilt from them one at a
# time inside the nogil loop: a Position carries an 8 KB key history, so packing
# the whole set as structs would cost a hundred times the memory for no speed.
# Evaluation goes through the very evaluate() the search calls (no cache, so
# no order dependence), which is what keeps the linear kinds' feature path honest.
#
# Quiet resolution walks quiesce()'s principal variation without changing quiesce:
# it keeps no PV, so the walk asks it again for each child (full window) and
# follows the first capture or evasion whose negated value is the node's value,
# until it reaches a node whose static evaluation is that value (stand pat is the
# quiescence value: no capture improves on it). Children are tried in MVV-LVA
# order and SEE-losing captures are passed over where quiesce passes over them;
# delta pruning depends on the window, so a child's full-window value can in rare
# cases differ from the one quiesce saw, and a walk that finds no matching child
# gives the position up ("unresolved") rather than returning a wrong pair.

from collections import namedtuple
from libc.string cimport memset

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t

import numpy as np

from genchess_core.types cimport *
from genchess_core.bitboard cimport pop_lsb
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, in_check,
                                     compute_key, set_fen, get_fen, castling_from_rights,
                                     reachable_army)
from genchess_core.movegen cimport (generate_legal, GEN_ALL, GEN_CAPTURES, insufficient_material,
                                    has_legal_move)
from genchess_core.evaluate cimport EvalParams, evaluate, make_params
from genchess_core.eval_material cimport material_features
from genchess_core.eval_unified cimport unified_trace, N_TERMS
from genchess_core.eval_pvt cimport pvt_phase
from genchess_core.search cimport (SearchState, quiesce, mvv_lva, MATE_BOUND, INFINITE_SCORE,
                                   USE_QS_SEE, USE_QUIESCENCE)
from genchess_core.searcher cimport Searcher
from genchess_core.board cimport Board
from genchess_core.see cimport see

# Resolution outcomes (status codes, in the order of RESOLUTION_STATUS).
cdef enum:
    R_QUIET = 0
    R_MATE = 1              # the quiescence value is a mate score
    R_CHECK = 2             # the walk ended in check (only at the ply cap)
    R_DRAW = 3              # insufficient material on the way: quiesce calls it 0 without looking
    R_UNRESOLVED = 4        # no child reproduces the value (window-dependent pruning)
    R_NO_QUIESCENCE = 5     # the searcher's features have quiescence off

RESOLUTION_STATUS = ("quiet", "mate", "check", "draw", "unresolved", "no quiescence")

Resolution = namedtuple("Resolution", "fen score plies status")
Resolution.__doc__ = """What resolve_quiet found. fen: the quiet position at the end of
quiescence's principal variation (6 fields), None unless status is "quiet"; score: the
quiescence value of the original position from its side to move's view, internal
units (equal to the quiet position's static evaluation, negated when plies is odd);
plies: moves from the original position to the quiet one; status: one of
RESOLUTION_STATUS."""


cdef int walk_quiet(SearchState* s, int* score, int* plies, Move* line) noexcept nogil:
    """Resolve s.pos in place: on R_QUIET it is left at the quiet position, `plies`
    moves (in `line`) from where it started. Returns a status code."""
    cdef Move moves[MAX_MOVES]
    cdef int keys[MAX_MOVES]
    cdef Undo u
    cdef Position* p = &s.pos
    cdef int n, i, j, best, t, q, target, ply = 0
    cdef bint checked, found
    cdef Move m
    plies[0] = 0
    if not (s.features & USE_QUIESCENCE):
        return R_NO_QUIESCENCE
    q = quiesce(s, -INFINITE_SCORE, INFINITE_SCORE, 0)
    score[0] = q
    if q > MATE_BOUND or q < -MATE_BOUND:
        return R_MATE
    target = q
    while True:
        if insufficient_material(p):
            return R_DRAW
        checked = in_check(p)
        if not checked and evaluate(p, &s.params) == target:
            plies[0] = ply
            return R_QUIET
        if ply >= MAX_PLY - 2:
            return R_CHECK if checked else R_UNRESOLVED
        n = generate_legal(p, moves, GEN_ALL if checked else GEN_CAPTURES)
        for i in range(n):
            # Captures and promotions by MVV-LVA; other evasions keep their generated
            # order (key 0), so the walk, and the set it makes, is the same as ever.
            keys[i] = mvv_lva(p, moves[i]) if move_flags(moves[i]) & (FLAG_CAPTURE | FLAG_PROMO) else 0
        found = False
        for i in range(n):
            best = i
            for j in range(i + 1, n):
                if keys[j] > keys[best]:
                    best = j
            m = moves[best]; moves[best] = moves[i]; moves[i] = m
            t = keys[best]; keys[best] = keys[i]; keys[i] = t
            if not checked and s.features & USE_QS_SEE and see(p, m) < 0:
                continue
            make_move(p, m, &u)
            if -quiesce(s, -INFINITE_SCORE, INFINITE_SCORE, ply + 1) == target:
                found = True
                line[ply] = m
                break
            unmake_move(p, m, &u)
        if not found:
            return R_UNRESOLVED
        target = -target
        ply += 1


def resolve_quiet(Searcher searcher, Board board):
    """The quiet position at the end of `searcher`'s own quiescence search from `board`
    (its genome and features; the search's limits are lifted for the call and put
    back). Returns a Resolution; `board` is not changed."""
    cdef SearchState* s = searcher.s
    cdef Position saved_pos = s.pos
    cdef U64 node_limit = s.node_limit
    cdef double deadline = s.deadline
    cdef int qs_ply_limit = s.qs_ply_limit, status, score = 0, plies = 0
    cdef Move line[MAX_PLY]
    s.pos = board.pos
    s.node_limit = 0
    s.deadline = 0.0
    s.qs_ply_limit = 0
    s.stop = 0
    # Evasions are ordered by killers and history: cleared, so that a resolution
    # depends on the position alone, never on what the searcher did before.
    memset(s.killers, 0, sizeof(s.killers))
    memset(s.history, 0, sizeof(s.history))
    with nogil:
        status = walk_quiet(s, &score, &plies, line)
    fen = get_fen(&s.pos) if status == R_QUIET else None
    s.pos = saved_pos
    s.node_limit = node_limit
    s.deadline = deadline
    s.qs_ply_limit = qs_ply_limit
    return Resolution(fen, score, plies, RESOLUTION_STATUS[status])


# ------------------------------------------------------------------ packed sets

cdef inline void unpack_position(Position* p, const U64* bb, int side, int castling,
                                 int ep) noexcept nogil:
    """A whole Position from twelve bitboards and the three flags (no history)."""
    cdef int pc
    cdef U64 b
    memset(p.board, NO_PIECE, sizeof(p.board))
    p.occ[0] = p.occ[1] = 0
    for pc in range(12):
        b = bb[pc]
        p.bb[pc] = b
        p.occ[pc // 6] |= b
        while b:
            p.board[pop_lsb(&b)] = pc
    p.all = p.occ[0] | p.occ[1]
    p.side = side
    # A set keeps four rights bits, not the rooks' squares: read them as X-FEN's
    # KQkq (the outermost rooks), which is every standard chess position.
    p.castling = castling
    castling_from_rights(p)
    p.chess960 = False
    p.ep = ep if ep >= 0 else NO_SQ
    p.halfmove = 0
    p.fullmove = 1
    p.key = compute_key(p)
    p.game_ply = 0
    p.history[0] = p.key


def parse_fens(fens):
    """Parse EPD/FEN position fields (4 or 6) into set arrays: (pieces uint64 [n, 12],
    side uint8, castling uint8, ep int8, errors) where errors is a list of (index,
    message) for the strings that are not legal positions (their rows stay zero;
    the caller drops them). En-passant squares are kept only where a legal
    en-passant capture exists, so equal positions have equal rows."""
    cdef Py_ssize_t n = len(fens), i
    cdef Position pos
    cdef int pc
    pieces = np.zeros((n, 12), dtype=np.uint64)
    side = np.zeros(n, dtype=np.uint8)
    castling = np.zeros(n, dtype=np.uint8)
    ep = np.full(n, -1, dtype=np.int8)
    cdef U64[:, ::1] pv = pieces
    cdef uint8_t[::1] sv = side, cv = castling
    cdef int8_t[::1] ev = ep
    errors = []
    for i in range(n):
        try:
            set_fen(&pos, fens[i])
        except ValueError as e:
            errors.append((i, str(e)))
            continue
        for pc in range(12):
            pv[i, pc] = pos.bb[pc]
        sv[i] = pos.side
        cv[i] = pos.castling
        ev[i] = pos.ep if pos.ep != NO_SQ else -1
    return pieces, side, castling, ep, errors


def set_fen_of(const U64[::1] pieces, int side, int castling, int ep):
    """The FEN (6 fields, counters 0 1) of one packed position."""
    cdef Position pos
    unpack_position(&pos, &pieces[0], side, castling, ep)
    return get_fen(&pos)


cdef int unreachable(Position* p) noexcept nogil:
    """0 for a position a FEN could set up, else what set_fen would refuse it for
    (UNREACHABLE's index); the pieces themselves (kings, pawns' ranks) are the
    packed reader's numpy checks."""
    cdef int ep = p.ep, pushed, origin
    if not reachable_army(p, WHITE) or not reachable_army(p, BLACK):
        return 1
    p.side ^= 1
    if in_check(p):
        p.side ^= 1
        return 2
    p.side ^= 1
    if ep != NO_SQ:
        pushed = ep - 8 if p.side == WHITE else ep + 8
        origin = ep + 8 if p.side == WHITE else ep - 8
        if ep >> 3 != (5 if p.side == WHITE else 2) or p.board[pushed] != (p.side ^ 1) * 6 + PAWN \
                or p.board[ep] != NO_PIECE or p.board[origin] != NO_PIECE:
            return 3
    return 0


UNREACHABLE = ("", "an army no game reaches (more than 8 pawns, or more promoted pieces than "
               "pawns missing)", "the side not to move is in check",
               "an en-passant square no pawn can just have passed")


def first_unreachable(const U64[:, ::1] pieces, const uint8_t[::1] side,
                      const uint8_t[::1] castling, const int8_t[::1] ep):
    """(row, problem) of the first packed position no FEN could set up, or None: a
    packed set must hold what an EPD line could say, or its positions would reach
    the search and move generator unchecked (sixteen queens overrun a move list)."""
    cdef Py_ssize_t n = pieces.shape[0], i
    cdef Position pos
    cdef int problem = 0
    with nogil:
        for i in range(n):
            unpack_position(&pos, &pieces[i, 0], side[i], castling[i], ep[i])
            problem = unreachable(&pos)
            if problem:
                break
    return (i, UNREACHABLE[problem]) if problem else None


def evaluate_set(const U64[:, ::1] pieces, const uint8_t[::1] side,
                 const uint8_t[::1] castling, const int8_t[::1] ep, dict packed):
    """The static evaluation of every packed position under one genome (its pack()
    dict, any kind): an int32 array, White's view, internal units (divide by the
    genome's pawn_unit for pawns). The same evaluate() the search calls, without
    its caches."""
    cdef Py_ssize_t n = pieces.shape[0], i
    cdef EvalParams e
    cdef Position pos
    cdef int score
    if pieces.shape[1] != 12:
        raise ValueError(f"pieces must have 12 columns, not {pieces.shape[1]}")
    if side.shape[0] != n or castling.shape[0] != n or ep.shape[0] != n:
        raise ValueError("pieces, side, castling and ep must have one row per position")
    make_params(&e, packed)
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] ov = out
    with nogil:
        for i in range(n):
            unpack_position(&pos, &pieces[i, 0], side[i], castling[i], ep[i])
            score = evaluate(&pos, &e)
            ov[i] = score if side[i] == WHITE else -score
    return out


def material_counts(const U64[:, ::1] pieces, const uint8_t[::1] side,
                    const uint8_t[::1] castling, const int8_t[::1] ep):
    """The material kind's features of every packed position: int32 [n, 9], the counts
    its evaluation weighs, White's minus Black's (eval_material.material_features)."""
    cdef Py_ssize_t n = pieces.shape[0], i
    cdef Position pos
    out = np.empty((n, 9), dtype=np.int32)
    cdef int32_t[:, ::1] ov = out
    with nogil:
        for i in range(n):
            unpack_position(&pos, &pieces[i, 0], side[i], castling[i], ep[i])
            material_features(&pos, <int*>&ov[i, 0])
    return out


def unified_counts(const U64[:, ::1] pieces, const uint8_t[::1] side,
                   const uint8_t[::1] castling, const int8_t[::1] ep, dict packed):
    """The unified kind's features of every packed position, sparse: (rows, terms,
    counts, phases), the nonzero term counts (White's minus Black's, what
    eval_unified.unified_trace records) with their position's row, and each
    position's game phase (0 .. 24). `packed` is any unified genome's pack() (the
    counts do not depend on its numbers)."""
    cdef Py_ssize_t n = pieces.shape[0], i, used = 0, capacity = max(1024, n * 80)
    cdef EvalParams e
    cdef Position pos
    cdef int counts[N_TERMS]
    cdef int t
    make_params(&e, packed)
    rows = np.empty(capacity, dtype=np.int32)
    terms = np.empty(capacity, dtype=np.int16)
    values = np.empty(capacity, dtype=np.int16)
    phases = np.empty(n, dtype=np.int8)
    cdef int32_t[::1] rv = rows
    cdef int16_t[::1] tv = terms, vv = values
    cdef int8_t[::1] pv = phases
    for i in range(n):
        if used + N_TERMS > capacity:           # grow (rarely: ~70 terms a position)
            capacity *= 2
            rows, terms, values = (np.resize(rows, capacity), np.resize(terms, capacity),
                                   np.resize(values, capacity))
            rv, tv, vv = rows, terms, values
        with nogil:
            unpack_position(&pos, &pieces[i, 0], side[i], castling[i], ep[i])
            memset(counts, 0, sizeof(counts))
            unified_trace(&pos, &e.unified, counts)
            pv[i] = pvt_phase(&pos)
            for t in range(N_TERMS):
                if counts[t] != 0:
                    rv[used] = i
                    tv[used] = t
                    vv[used] = counts[t]
                    used += 1
    return rows[:used].copy(), terms[:used].copy(), values[:used].copy(), phases
