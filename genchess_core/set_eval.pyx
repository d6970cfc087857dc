# Labelled position sets on the C side: a set's arrays to positions, and whole-set evaluation.
#
# A tuner scores a genome on hundreds of thousands of positions, so the set is kept
# as compact arrays (twelve bitboards and three small fields a position, see
# genchess/position_sets/position_set.py) and a C Position is rebuilt from them one at a
# time inside the nogil loop: a Position carries an 8 KB key history, so packing
# the whole set as structs would cost a hundred times the memory for no speed.
# Evaluation goes through the very evaluate() the search calls (no cache, so
# no order dependence), which is what keeps the linear kinds' feature path honest.

from libc.string cimport memset

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t

import numpy as np

from genchess_core.types cimport *
from genchess_core.bitboard cimport pop_lsb
from genchess_core.position cimport (Position, in_check, compute_key, set_fen, get_fen,
                                     castling_from_rights, reachable_army)
from genchess_core.evaluate cimport EvalParams, evaluate, make_params
from genchess_core.eval_material cimport material_features
from genchess_core.eval_unified cimport unified_trace, N_TERMS
from genchess_core.eval_pvt cimport pvt_phase

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
