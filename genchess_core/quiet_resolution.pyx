# Quiet resolution: the quiet position at the end of quiescence's principal variation.
#
# The set maker (genchess/position_sets/making.py) labels quiet positions, the ones a
# static evaluation can be judged on, so each sampled position is resolved first.
# The walk follows quiesce()'s principal variation without changing quiesce:
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

from genchess_core.types cimport *
from genchess_core.position cimport Position, Undo, make_move, unmake_move, in_check, get_fen
from genchess_core.movegen cimport generate_legal, GEN_ALL, GEN_CAPTURES, insufficient_material
from genchess_core.evaluate cimport evaluate
from genchess_core.search cimport (SearchState, quiesce, mvv_lva, MATE_BOUND, INFINITE_SCORE,
                                   USE_QS_SEE, USE_QUIESCENCE)
from genchess_core.searcher cimport Searcher
from genchess_core.board cimport Board
from genchess_core.see cimport see_ge

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
            if not checked and s.features & USE_QS_SEE and not see_ge(p, m, 0):
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
