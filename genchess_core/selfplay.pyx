# Self-play games for training data, played in C from the first move to the last.
#
# The set maker used to play its games through the Python game loop (the engine
# facade, a Board per move, a result object per search): some 15% of a game's time
# was spent outside the search. Here one call plays a whole game without the GIL:
# two Searchers (White's and Black's, each with its own hash table and histories,
# as two engines in a match have), the rules of game_status, and the search run
# per move exactly as Searcher.search runs it (the same iterations, the same stop
# rules, the same move and score taken from a stopped iteration), so that a game
# played here is move for move and score for score the game the Python loop plays
# (tests/test_selfplay.py keeps the two equal).
#
# What the data machine adds over that loop are its own limits and adjudication:
# - a soft node limit: no new iteration once the search has spent that many nodes
#   (a hard node limit wastes the part of the last iteration it cuts off);
# - adjudication of decided games: a game whose scores have all been beyond
#   `win_cp` for `win_plies` plies in a row, one side's way, is that side's; one
#   whose scores have stayed within `draw_cp` of zero for `draw_plies` plies from
#   ply `draw_from` on is a draw. The plies of a won ending spent on mating are
#   plies of one kind of position, and long drawn endings are another.

from libc.string cimport memset
from libc.math cimport nearbyint

from genchess_core.types cimport *
from genchess_core.position cimport Position, Undo, make_move, in_check
from genchess_core.movegen cimport (generate_legal, GEN_ALL, game_status, STATUS_ONGOING,
                                    STATUS_CHECKMATE)
from genchess_core.tt cimport tt_new_search
from genchess_core.search cimport (SearchState, search_iteration, order_root_by_eval, MATE_SCORE,
                                   MATE_BOUND, INFINITE_SCORE, MODE_ITERATIVE)
from genchess_core.searcher cimport Searcher
from genchess_core.board cimport Board

cdef enum:
    MAX_GAME_PLIES = 4096
    MAX_SEARCH_DEPTH = MAX_PLY - 2     # Searcher.search's default depth
    SCORE_CLAMP_CP = 10000             # mates and beyond, as a mentor's scores are clamped

# How a game ended (the chains format stores the number).
TERMINATIONS = ("checkmate", "stalemate", "insufficient material", "seventyfive moves",
                "fivefold repetition", "fifty moves", "threefold repetition", "move limit",
                "win adjudication", "draw adjudication")
cdef enum:
    END_MOVE_LIMIT = 7
    END_WIN_ADJUDICATION = 8
    END_DRAW_ADJUDICATION = 9

cdef struct Limits:
    U64 nodes           # hard: the search stops at this node (0: none)
    U64 soft_nodes      # no new iteration once this many nodes are spent (0: none)
    int depth           # the deepest iteration (0: MAX_SEARCH_DEPTH)
    double quiescence_cap

cdef struct Adjudication:
    int win_cp          # 0: no win adjudication
    int win_plies
    int draw_cp         # < 0: no draw adjudication
    int draw_plies
    int draw_from       # the first ply (of the game) a draw may be adjudicated at
    int max_plies       # a game still going after this many plies is drawn


cdef int think(SearchState* s, const Position* pos, const Limits* lim, Move* best) noexcept nogil:
    """Searcher.search's iterative deepening in C for one searching thread, no time
    limits and one line: the best move in `best`, its score (internal units) returned."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, depth, score = 0, previous = 0, max_depth
    cdef bint have = False
    s.pos = pos[0]
    s.nodes = 0
    s.seldepth = 0
    s.aspiration_researches = 0
    s.node_limit = lim.nodes
    s.deadline = 0.0
    s.stop = 0
    s.mode = MODE_ITERATIVE
    tt_new_search(s.tt)
    memset(s.killers, 0, sizeof(s.killers))
    n = generate_legal(&s.pos, moves, GEN_ALL)
    for i in range(n):
        s.root_moves[i] = moves[i]
    s.n_root = n
    best[0] = MOVE_NONE
    if n == 0:
        return 0
    order_root_by_eval(s)
    max_depth = lim.depth if lim.depth > 0 else MAX_SEARCH_DEPTH
    for depth in range(1, max_depth + 1):
        s.qs_ply_limit = <int>(lim.quiescence_cap * depth) if lim.quiescence_cap > 0 else 0
        search_iteration(s, depth, 0, 0.0, previous)
        if s.stop and not s.root_scores[0] > -INFINITE_SCORE:
            break                       # stopped before this iteration learned anything
        best[0] = s.root_moves[0]
        score = s.root_scores[0]
        have = True
        if s.stop:
            break
        previous = score
        if abs(score) > MATE_BOUND and depth >= MATE_SCORE - abs(score) + 2:
            break                       # a mate is proven; deeper search cannot change it
        if lim.nodes and s.nodes >= lim.nodes:
            break
        if lim.soft_nodes and s.nodes >= lim.soft_nodes:
            break
    if not have:
        best[0] = s.root_moves[0]       # the best by the static evaluation after it
        return 0
    return score


cdef inline int centipawns(int score, double pawn_unit) noexcept nogil:
    """The mover's score in centipawns as the engine reports it (Score.from_internal:
    round half to even), clamped; mates at the clamp."""
    cdef double cp
    if score > MATE_BOUND:
        return SCORE_CLAMP_CP
    if score < -MATE_BOUND:
        return -SCORE_CLAMP_CP
    cp = nearbyint(<double>score * 100.0 / pawn_unit)
    if cp > SCORE_CLAMP_CP:
        return SCORE_CLAMP_CP
    if cp < -SCORE_CLAMP_CP:
        return -SCORE_CLAMP_CP
    return <int>cp


cdef int play(Position* pos, SearchState* white, SearchState* black, double white_unit,
              double black_unit, const Limits* lim, const Adjudication* adj, Move* moves,
              int* scores, U64* nodes, int* plies, int* termination) noexcept nogil:
    """Play from `pos` (changed) to the end; the result from White's view (2 win, 1
    draw, 0 loss), each ply's move, the mover's score in centipawns and the nodes
    searched, the number of plies and how it ended (TERMINATIONS' index)."""
    cdef int ply = 0, status, cp, white_cp, winning = 0, quiet = 0
    cdef SearchState* s
    cdef Undo u
    cdef Move m
    while True:
        status = game_status(pos, True)
        if status != STATUS_ONGOING:
            plies[0] = ply
            termination[0] = status - 1
            if status == STATUS_CHECKMATE:
                return 0 if pos.side == WHITE else 2
            return 1
        if ply >= adj.max_plies or ply >= MAX_GAME_PLIES:
            plies[0] = ply
            termination[0] = END_MOVE_LIMIT
            return 1
        s = white if pos.side == WHITE else black
        cp = centipawns(think(s, pos, lim, &m), white_unit if pos.side == WHITE else black_unit)
        moves[ply] = m
        scores[ply] = cp
        nodes[ply] = s.nodes
        make_move(pos, m, &u)
        ply += 1
        # Adjudication reads the scores from White's view: both sides' searches must agree.
        white_cp = cp if pos.side == BLACK else -cp
        if adj.win_cp > 0:
            if white_cp >= adj.win_cp:
                winning = winning + 1 if winning > 0 else 1
            elif white_cp <= -adj.win_cp:
                winning = winning - 1 if winning < 0 else -1
            else:
                winning = 0
            if (winning >= adj.win_plies or -winning >= adj.win_plies) \
                    and game_status(pos, True) == STATUS_ONGOING:
                plies[0] = ply
                termination[0] = END_WIN_ADJUDICATION
                return 2 if winning > 0 else 0
        if adj.draw_cp >= 0 and ply >= adj.draw_from:
            quiet = quiet + 1 if -adj.draw_cp <= white_cp <= adj.draw_cp else 0
            if quiet >= adj.draw_plies and game_status(pos, True) == STATUS_ONGOING:
                plies[0] = ply
                termination[0] = END_DRAW_ADJUDICATION
                return 1


def play_game(Searcher white, Searcher black, Board start, *, nodes=0, soft_nodes=0, depth=0,
              double quiescence_cap=0.0, int win_cp=0, int win_plies=1, int draw_cp=-1,
              int draw_plies=1, int draw_from=0, int max_plies=2000, bint clear=True):
    """Play one game between the two Searchers (each with its genome set) from `start`.

    nodes: a hard node limit a move; soft_nodes: no new iteration past this many; depth:
    the deepest iteration (at least one limit). win_cp/win_plies and draw_cp/draw_plies/
    draw_from adjudicate (win_cp 0, draw_cp -1: never); a game still going after
    max_plies is drawn. With `clear` both Searchers forget their tables first, as a new
    game in a match does. Returns (result "1-0"/"1/2-1/2"/"0-1", termination, moves as
    Move codes, scores in centipawns from the mover's view, nodes a move)."""
    cdef Limits lim
    cdef Adjudication adj
    cdef Position pos = start.pos
    cdef int result, plies = 0, termination = 0, i
    cdef Move[MAX_GAME_PLIES] moves
    cdef int[MAX_GAME_PLIES] scores
    cdef U64[MAX_GAME_PLIES] searched
    if not (nodes or soft_nodes or depth):
        raise ValueError("play_game needs a limit: nodes, soft_nodes or depth")
    if nodes < 0 or soft_nodes < 0 or depth < 0 or depth > MAX_SEARCH_DEPTH:
        raise ValueError(f"limits out of range: nodes {nodes}, soft_nodes {soft_nodes}, depth {depth}")
    if white.n_workers != 1 or black.n_workers != 1:
        raise ValueError("self-play searches on one thread a side")
    if not 1 <= max_plies <= MAX_GAME_PLIES or win_plies < 1 or draw_plies < 1:
        raise ValueError(f"max_plies must be 1 to {MAX_GAME_PLIES}, win_plies and draw_plies at least 1")
    lim.nodes = nodes
    lim.soft_nodes = soft_nodes
    lim.depth = depth
    lim.quiescence_cap = quiescence_cap
    adj.win_cp, adj.win_plies = win_cp, win_plies
    adj.draw_cp, adj.draw_plies, adj.draw_from = draw_cp, draw_plies, draw_from
    adj.max_plies = max_plies
    if clear:
        white.clear()
        black.clear()
    with nogil:
        result = play(&pos, white.s, black.s, white.pawn_unit, black.pawn_unit, &lim, &adj,
                      moves, scores, searched, &plies, &termination)
    return (("0-1", "1/2-1/2", "1-0")[result], TERMINATIONS[termination],
            [moves[i] for i in range(plies)], [scores[i] for i in range(plies)],
            [searched[i] for i in range(plies)])
