# The GA tree search (search mode `ga`).
#
# Dehghani and Babamir (2017), "A GA based method for search-space reduction of
# chess game-tree": a genetic algorithm replaces alpha-beta. A chromosome is a
# branch of the game tree (legal moves from the root to a quiet position); every
# branch produced is merged into one reservation tree whose values are backed up by
# minimax, and the fitness of a branch is how high its leaf value rises in that
# tree. The trade-off against alpha-beta: the tree grows where the evolving
# population looks (the principal variation and its neighbours) instead of full
# width to a fixed depth, so it sees deep lines cheaply and misses what no
# crossover or mutation happened to produce.
#
# Everything per node and per branch is C: the tree is a preallocated pool of
# GANode (first-child / next-sibling links), branches are Move arrays on the
# stack, positions are replayed from the root with make/unmake. Memory is the pool;
# when it is full the search stops and plays its best branch.
#
# The paper leaves these choices open; ours:
# - Values: every node's value is from the root side's view; even depths are Max
#   nodes. The changed back-up rule (the paper's Figs 13-16): a node where some
#   branch ended keeps that leaf value as its own value, and a Max (Min) node's
#   value is the max (min) of its own value and its children's. So a leaf that is
#   later extended by a refutation takes the refutation's value at once (a Min
#   node never rises above its worst known reply), and a side may always "stand"
#   on a node's own value, as in quiescence.
# - Quiet: a position is quiet when a capture search (the alpha-beta search's
#   quiescence without its SEE and delta pruning: captures and promotions, every
#   evasion in check, stand-pat otherwise) finds no capture that does better
#   for the side to move than standing pat. A new branch ending in position P gets
#   P's static value as its own value (unless in check), and when the capture
#   search's principal variation from P is not empty (the paper's Qxc3 Bxc3),
#   that line is added as a second branch P + PV ending in a quiet position.
# - Fitness of a branch: H - K + 1, H the tree height, K the smallest level up to
#   which the branch's leaf value rises (the nodes from K down to the leaf all
#   have the leaf's value); K = leaf depth + 1 when the leaf's own node has
#   already taken another value, so such a branch has fitness H - depth.
# - Population and selection: the population is every branch end in the tree.
#   Each generation draws GA_SAMPLE ends at random plus the current best branch
#   (the principal variation), and the GA_PARENTS fittest of those breed
#   (truncation selection): parents 2i and 2i+1 cross over, each parent mutates
#   once: up to GA_PARENTS crossover children and GA_PARENTS mutants a
#   generation, each inserted at once (steady state: nothing is ever removed, the
#   tree is the memory). Fitness is computed only for the sample (a pass over all
#   ends each generation would cost as much as the generation).
# - Crossover: one break point drawn uniformly in [1, min(len a, len b) - 1];
#   both children a[:p] + b[p:] and b[:p] + a[p:] are replayed and dropped if any
#   move is illegal (colours alternate because each move must be legal for the
#   side to move in turn). Parents shorter than two plies do not cross over.
# - Mutation: a node drawn uniformly among the branch's len + 1 places; at place
#   len it appends a random legal move (the only way branches grow past their
#   initial length besides quiescence, which the paper leaves open), elsewhere it
#   replaces the move by another legal move of the position before it, and the
#   old tail is replayed and cut at its first illegal move. Moves are drawn
#   uniformly; a branch that already ends in the tree is not inserted again.
# - Initial population: every legal root move (level 1) or every two-ply branch
#   (level 2), each with its quiescence branch.
# - The move played is the root child with the best value (the first move of the
#   best branch). With one legal move the search returns at once.

from libc.stdlib cimport malloc, free

from genchess_core.types cimport *
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, in_check,
                                     repetition_count, move_to_uci, set_fen)
from genchess_core.movegen cimport (generate_legal, GEN_ALL, GEN_CAPTURES, game_status,
                                    STATUS_ONGOING, STATUS_CHECKMATE, insufficient_material)
from genchess_core.evaluate cimport evaluate
from genchess_core.search cimport (SearchState, monotonic_seconds, check_limits, quiesce,
                                   MATE_SCORE, INFINITE_SCORE, USE_QS_SEE, USE_DELTA)
from genchess_core.searcher cimport Searcher, set_root_moves
from genchess_core.playout cimport xorshift64
from genchess_core.board cimport Board

cdef enum:
    REPORT_SECONDS = 1          # the Python driver reports this often


# ------------------------------------------------------------ the reservation tree

cdef int tree_alloc(GATree* t, int capacity) noexcept nogil:
    t.nodes = <GANode*>malloc(capacity * sizeof(GANode))
    t.ends = <int*>malloc(capacity * sizeof(int))
    if t.nodes == NULL or t.ends == NULL:
        free(t.nodes)
        free(t.ends)
        t.nodes = NULL
        t.ends = NULL
        return -1
    t.capacity = capacity
    t.size = 1
    t.height = 0
    t.n_ends = 0
    t.nodes[0].parent = -1
    t.nodes[0].first_child = -1
    t.nodes[0].next_sibling = -1
    t.nodes[0].depth = 0
    t.nodes[0].own = GA_NO_VALUE
    t.nodes[0].value = GA_NO_VALUE
    t.nodes[0].move = MOVE_NONE
    return 0


cdef void tree_free(GATree* t) noexcept nogil:
    free(t.nodes)
    free(t.ends)
    t.nodes = NULL
    t.ends = NULL


cdef int find_child(const GATree* t, int parent, Move m) noexcept nogil:
    cdef int c = t.nodes[parent].first_child
    while c >= 0 and t.nodes[c].move != m:
        c = t.nodes[c].next_sibling
    return c


cdef int find_path(const GATree* t, const Move* moves, int n) noexcept nogil:
    """The node a branch leads to, or -1 when part of it is not in the tree."""
    cdef int i, node = 0
    for i in range(n):
        node = find_child(t, node, moves[i])
        if node < 0:
            return -1
    return node


cdef void recompute(GATree* t, int i) noexcept nogil:
    """The changed back-up rule: max (min) of the own value and the children's."""
    cdef GANode* node = &t.nodes[i]
    cdef bint maximise = (node.depth & 1) == 0
    cdef int v = node.own, c = node.first_child, cv
    while c >= 0:
        cv = t.nodes[c].value
        if cv != GA_NO_VALUE and (v == GA_NO_VALUE or (maximise and cv > v)
                                  or (not maximise and cv < v)):
            v = cv
        c = t.nodes[c].next_sibling
    node.value = v


cdef void back_up(GATree* t, int i) noexcept nogil:
    """Recompute from node i towards the root, stopping where nothing changes."""
    cdef int old
    recompute(t, i)
    i = t.nodes[i].parent
    while i >= 0:
        old = t.nodes[i].value
        recompute(t, i)
        if t.nodes[i].value == old:
            return
        i = t.nodes[i].parent


cdef int insert_branch(GATree* t, const Move* moves, int n, int own) noexcept nogil:
    """Merge a branch into the tree (shared prefixes share nodes), give its end the
    leaf value `own` unless it has one, back up. Returns the end node, or -1 when
    the pool cannot hold the new nodes."""
    cdef int i, node = 0, child, new_nodes = 0
    for i in range(n):
        child = find_child(t, node, moves[i])
        if child < 0:
            new_nodes = n - i
            break
        node = child
    if t.size + new_nodes > t.capacity:
        return -1
    node = 0
    for i in range(n):
        child = find_child(t, node, moves[i])
        if child < 0:
            child = t.size
            t.size += 1
            t.nodes[child].parent = node
            t.nodes[child].first_child = -1
            t.nodes[child].next_sibling = t.nodes[node].first_child
            t.nodes[node].first_child = child
            t.nodes[child].depth = i + 1
            t.nodes[child].own = GA_NO_VALUE
            t.nodes[child].value = GA_NO_VALUE
            t.nodes[child].move = moves[i]
            if i + 1 > t.height:
                t.height = i + 1
        node = child
    if own != GA_NO_VALUE and t.nodes[node].own == GA_NO_VALUE:
        t.nodes[node].own = own
        t.ends[t.n_ends] = node
        t.n_ends += 1
    back_up(t, node)
    return node


cdef int read_branch(const GATree* t, int node, Move* out) noexcept nogil:
    """The moves from the root to `node`."""
    cdef int n = t.nodes[node].depth, i = n
    while node > 0:
        i -= 1
        out[i] = t.nodes[node].move
        node = t.nodes[node].parent
    return n


cdef int fitness(const GATree* t, int end) noexcept nogil:
    """H - K + 1: K the level up to which the branch's leaf value rises."""
    cdef int v = t.nodes[end].own, k = t.nodes[end].depth, node = end
    if t.nodes[end].value != v:
        return t.height - k
    while k > 0 and t.nodes[t.nodes[node].parent].value == v:
        node = t.nodes[node].parent
        k -= 1
    return t.height - k + 1


cdef int best_end(const GATree* t) noexcept nogil:
    """Follow the backed-up value down from the root: the principal variation's end."""
    cdef int node = 0, c
    while True:
        c = t.nodes[node].first_child
        while c >= 0 and t.nodes[c].value != t.nodes[node].value:
            c = t.nodes[c].next_sibling
        if c < 0:
            return node
        node = c


# ------------------------------------------------------------ positions and values

cdef inline void count_node(SearchState* s) noexcept nogil:
    s.nodes += 1
    check_limits(s)


cdef Move legal_version(const Position* p, Move m) noexcept nogil:
    """The legal move with m's squares and promotion, or MOVE_NONE. A move's capture
    and en-passant flags depend on the position: the same squares may capture in a
    crossover child where they did not in the parent."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(p, moves, GEN_ALL), i
    for i in range(n):
        if (moves[i] & 0xFFF) == (m & 0xFFF) and move_is_promotion(moves[i]) == move_is_promotion(m) \
                and (not move_is_promotion(m) or move_promo_kind(moves[i]) == move_promo_kind(m)):
            return moves[i]
    return MOVE_NONE


cdef int replay(GAState* g, Move* moves, int n, bint cut) noexcept nogil:
    """Play a branch from the root, each move checked for legality in turn (and its
    flags set for the position). Returns how many moves were played (the caller
    unwinds them); with `cut` it stops at the first illegal move, without it an
    illegal move unwinds and returns -1."""
    cdef int i
    for i in range(n):
        moves[i] = legal_version(&g.s.pos, moves[i])
        if moves[i] == MOVE_NONE:
            if cut:
                return i
            unwind(g, moves, i)
            return -1
        make_move(&g.s.pos, moves[i], &g.undo[i])
        count_node(g.s)
    return n


cdef void unwind(GAState* g, const Move* moves, int n) noexcept nogil:
    cdef int i
    for i in range(n - 1, -1, -1):
        unmake_move(&g.s.pos, moves[i], &g.undo[i])


cdef inline int root_view(GAState* g, int v) noexcept nogil:
    return v if g.s.pos.side == g.root_side else -v


cdef int leaf_value(GAState* g, int ply) noexcept nogil:
    """The value of the current position as a branch end, from the root side's view:
    mate and draws by the rules (repetitions inside the tree count at the second
    occurrence, as in the alpha-beta search), else the static evaluation."""
    cdef int status = game_status(&g.s.pos, True)
    if status == STATUS_CHECKMATE:
        return root_view(g, -MATE_SCORE + ply)
    if status != STATUS_ONGOING or repetition_count(&g.s.pos) >= 2:
        return 0
    return root_view(g, evaluate(&g.s.pos, &g.s.params))


cdef int add_branch(GAState* g, Move* moves, int n) noexcept nogil:
    """Insert a new branch, already played on g.s.pos (n moves), with its quiescence
    branch. Returns 1 if the tree grew, 0 if the branch was known, -1 when the pool
    is full."""
    cdef int node = find_path(&g.tree, moves, n), own = GA_NO_VALUE, q, i
    cdef U64 features
    cdef int ends_before = g.tree.n_ends
    if node >= 0 and g.tree.nodes[node].own != GA_NO_VALUE:
        return 0
    if game_status(&g.s.pos, True) != STATUS_ONGOING or repetition_count(&g.s.pos) >= 2:
        q = 0                       # a finished game: the rule's value is final
        own = leaf_value(g, n)
    else:
        if not in_check(&g.s.pos):  # in check there is no standing pat
            own = root_view(g, evaluate(&g.s.pos, &g.s.params))
        # The search's own quiescence, without the two prunings the design's capture
        # search never had (SEE and delta), finds the refuting capture line.
        features = g.s.features
        g.s.features = features & ~<U64>(USE_QS_SEE | USE_DELTA)
        quiesce(g.s, -INFINITE_SCORE, INFINITE_SCORE, n)
        g.s.features = features
        q = g.s.pv_len[n] - n
        if q > GA_MAX_PLY - n:
            q = GA_MAX_PLY - n
    if own != GA_NO_VALUE and insert_branch(&g.tree, moves, n, own) < 0:
        g.full = 1
        return -1
    if q > 0:
        # The refuting capture line: played out, valued at its quiet end, inserted too.
        for i in range(q):
            moves[n + i] = g.s.pv[n][n + i]
            make_move(&g.s.pos, moves[n + i], &g.undo[n + i])
        own = leaf_value(g, n + q)
        for i in range(n + q - 1, n - 1, -1):
            unmake_move(&g.s.pos, moves[i], &g.undo[i])
        if insert_branch(&g.tree, moves, n + q, own) < 0:
            g.full = 1
            return -1
    g.branches += g.tree.n_ends - ends_before
    return 1 if g.tree.n_ends > ends_before else 0


cdef int try_branch(GAState* g, Move* moves, int n, bint cut) noexcept nogil:
    """Replay a candidate chromosome (dropped if illegal, or cut with `cut`) and
    add it. moves must have room for GA_MAX_PLY moves (the quiescence tail)."""
    cdef int played = replay(g, moves, n, cut), result
    if played <= 0:
        return 0
    result = add_branch(g, moves, played)
    unwind(g, moves, played)
    return result


# ------------------------------------------------------------ genetic operators

cdef inline int random_below(GAState* g, int n) noexcept nogil:
    return <int>(xorshift64(&g.rng) % <U64>n)


cdef int crossover_child(GAState* g, const Move* a, int na, const Move* b, int nb, int point,
                         Move* child) noexcept nogil:
    """a[:point] + b[point:], replayed: its length, or -1 when a move is illegal."""
    cdef int i, n
    for i in range(point):
        child[i] = a[i]
    for i in range(point, nb):
        child[i] = b[i]
    n = replay(g, child, nb, False)
    if n < 0:
        return -1
    unwind(g, child, n)
    return n


cdef int mutate_child(GAState* g, const Move* a, int na, int place, Move* child) noexcept nogil:
    """Replace the move at `place` (place == na: append one) by a random other legal
    move, replay the old tail and cut it at its first illegal move. Returns the
    child's length, or -1 when there is no other move to play there."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, r, length
    cdef SearchState* s = g.s
    for i in range(place):
        child[i] = a[i]
    if replay(g, child, place, False) < 0:
        return -1
    if place == 0:
        n = s.n_root
        for i in range(n):
            moves[i] = s.root_moves[i]
    else:
        n = generate_legal(&s.pos, moves, GEN_ALL)
    if n == 0 or (place < na and n == 1) or place >= GA_MAX_PLY - 1:
        unwind(g, child, place)
        return -1
    r = random_below(g, n)
    if place < na and moves[r] == a[place]:
        r = (r + 1 + random_below(g, n - 1)) % n
    child[place] = moves[r]
    make_move(&s.pos, child[place], &g.undo[place])
    count_node(s)
    length = place + 1
    for i in range(place + 1, na):
        child[length] = legal_version(&s.pos, a[i])
        if child[length] == MOVE_NONE:
            break
        make_move(&s.pos, child[length], &g.undo[length])
        count_node(s)
        length += 1
    unwind(g, child, length)
    return length


cdef int select_parents(GAState* g, int* parents) noexcept nogil:
    """Truncation selection: the GA_PARENTS fittest of GA_SAMPLE random branch ends
    and the best branch. Returns how many parents there are."""
    cdef int cand[GA_SAMPLE + 1]
    cdef int fit[GA_SAMPLE + 1]
    cdef int n = 0, i, j, t, best = best_end(&g.tree)
    cdef GATree* tree = &g.tree
    if tree.n_ends == 0:
        return 0
    if tree.nodes[best].own != GA_NO_VALUE:
        cand[n] = best
        n += 1
    for i in range(GA_SAMPLE):
        cand[n] = tree.ends[random_below(g, tree.n_ends)]
        n += 1
    for i in range(n):
        fit[i] = fitness(tree, cand[i])
    for i in range(min(n, GA_PARENTS)):
        for j in range(i + 1, n):
            if fit[j] > fit[i]:
                t = fit[i]; fit[i] = fit[j]; fit[j] = t
                t = cand[i]; cand[i] = cand[j]; cand[j] = t
        parents[i] = cand[i]
    return min(n, GA_PARENTS)


cdef bint out_of_time(GAState* g, double until) noexcept nogil:
    cdef SearchState* s = g.s
    if s.stop or g.full:
        return True
    if s.node_limit and s.nodes >= s.node_limit:
        return True
    if until > 0.0 and monotonic_seconds() >= until:
        return True
    return False


cdef void order_root_moves(GAState* g) noexcept nogil:
    """Root moves best static value first (insertion sort; one evaluation each)."""
    cdef SearchState* s = g.s
    cdef int values[MAX_MOVES]
    cdef int i, j, v
    cdef Move m
    cdef Undo u
    for i in range(s.n_root):
        make_move(&s.pos, s.root_moves[i], &u)
        values[i] = root_view(g, evaluate(&s.pos, &s.params))
        unmake_move(&s.pos, s.root_moves[i], &u)
    for i in range(1, s.n_root):
        m = s.root_moves[i]
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] < v:
            s.root_moves[j + 1] = s.root_moves[j]
            values[j + 1] = values[j]
            j -= 1
        s.root_moves[j + 1] = m
        values[j + 1] = v


cdef int ga_init(GAState* g, int level, double until) noexcept nogil:
    """The initial population: every root move (level 1) or two-ply branch (level 2).
    Root moves go best static value first, and when the clock runs out part way
    (level 2 at short time controls) the rest are left out and g.init_done says
    how many were completed: only those may be played, since a root move with
    half its replies in the tree looks better than it is."""
    cdef Move branch[GA_MAX_PLY]
    cdef Move replies[MAX_MOVES]
    cdef int i, j, n
    cdef SearchState* s = g.s
    g.root_side = s.pos.side
    g.init_done = 0
    order_root_moves(g)
    for i in range(s.n_root):
        if i > 0 and out_of_time(g, until):
            return -1
        branch[0] = s.root_moves[i]
        make_move(&s.pos, branch[0], &g.undo[0])
        count_node(s)
        n = generate_legal(&s.pos, replies, GEN_ALL) if level >= 2 else 0
        if n == 0:
            add_branch(g, branch, 1)
        for j in range(n):
            if g.full or s.stop:
                break
            branch[1] = replies[j]
            make_move(&s.pos, branch[1], &g.undo[1])
            count_node(s)
            add_branch(g, branch, 2)
            unmake_move(&s.pos, branch[1], &g.undo[1])
        unmake_move(&s.pos, branch[0], &g.undo[0])
        if g.full or s.stop:
            return -1
        g.init_done = i + 1
    return 0


cdef bint init_covers(GAState* g, Move m) noexcept nogil:
    """Whether root move m may be played: its initial branches are all in the tree
    (or no root move's are, and any valued one will do)."""
    cdef int i
    if g.init_done == 0 or g.init_done >= g.s.n_root:
        return True
    for i in range(g.init_done):
        if g.s.root_moves[i] == m:
            return True
    return False


cdef void ga_run(GAState* g, double until) noexcept nogil:
    """Generations until `until` (monotonic seconds), a stop, the node limit or a full pool."""
    cdef int parents[GA_PARENTS]
    cdef Move a[GA_MAX_PLY]
    cdef Move b[GA_MAX_PLY]
    cdef Move child[GA_MAX_PLY]
    cdef int n_parents, i, na, nb, n, point
    cdef GATree* tree = &g.tree
    while not out_of_time(g, until):
        g.generations += 1
        n_parents = select_parents(g, parents)
        if n_parents == 0:
            return
        # Crossover: parents 2i and 2i+1 exchange tails at one break point.
        i = 0
        while i + 1 < n_parents and not g.full:
            na = read_branch(tree, parents[i], a)
            nb = read_branch(tree, parents[i + 1], b)
            if na >= 2 and nb >= 2:
                point = 1 + random_below(g, (na if na < nb else nb) - 1)
                n = crossover_child(g, a, na, b, nb, point, child)
                if n > 0:
                    try_branch(g, child, n, False)
                n = crossover_child(g, b, nb, a, na, point, child)
                if n > 0:
                    try_branch(g, child, n, False)
            i += 2
        # Mutation: each parent once.
        for i in range(n_parents):
            if g.full:
                break
            na = read_branch(tree, parents[i], a)
            n = mutate_child(g, a, na, random_below(g, na + 1), child)
            if n > 0:
                try_branch(g, child, n, True)


# ------------------------------------------------------------ Python driver

DEFAULT_POOL_NODES = GA_DEFAULT_NODES

cdef class _GA:
    """Owns a GAState and its pool for one search (or one test)."""
    cdef GAState g

    def __dealloc__(self):
        tree_free(&self.g.tree)

    cdef int setup(self, Searcher searcher, Board board, int pool_nodes, U64 seed) except -1:
        self.g.s = searcher.s
        self.g.s.pos = board.pos
        self.g.root_side = board.pos.side
        self.g.rng = (seed ^ board.pos.key ^ <U64>0x9E3779B97F4A7C15ULL) | 1
        if tree_alloc(&self.g.tree, max(pool_nodes, 2)) != 0:
            raise MemoryError(f"cannot allocate a GA node pool of {pool_nodes} nodes")
        return 0

    cdef list branch_uci(self, int node):
        cdef Move moves[GA_MAX_PLY]
        cdef int n = read_branch(&self.g.tree, node, moves), i
        return [move_to_uci(&self.g.s.pos, moves[i]) for i in range(n)]

    cdef dict report(self, double start):
        """The search result so far, in Searcher.search's form."""
        cdef GAState* g = &self.g
        cdef SearchState* s = g.s
        cdef int best = self.root_best(), node
        if best < 0:
            # Not even one root move fitted in the pool or the time: any legal move.
            line = (0, [move_to_uci(&s.pos, s.root_moves[0])])
        else:
            node = best_end(&g.tree)
            pv = self.branch_uci(node) if node > 0 else []
            if not pv or pv[0] != move_to_uci(&s.pos, g.tree.nodes[best].move):
                pv = self.branch_uci(best)
            line = (g.tree.nodes[best].value, pv)
        return {"depth": g.tree.height, "seldepth": g.tree.height, "nodes": s.nodes,
                "time": monotonic_seconds() - start, "hashfull": 0, "lines": [line],
                "string": f"ga tree {g.tree.size} branches {g.branches} "
                          f"generations {g.generations}" + (" pool full" if g.full else ""),
                "tree_size": g.tree.size, "branches": g.branches, "generations": g.generations,
                "init_done": g.init_done}

    cdef int root_best(self):
        """The root child with the best value, -1 if none is valued."""
        cdef GATree* t = &self.g.tree
        cdef int c = t.nodes[0].first_child, best = -1
        while c >= 0:
            if t.nodes[c].value != GA_NO_VALUE and init_covers(&self.g, t.nodes[c].move) \
                    and (best < 0 or t.nodes[c].value > t.nodes[best].value):
                best = c
            c = t.nodes[c].next_sibling
        return best


def ga_search(Searcher searcher, Board board, U64 node_limit=0, soft_time=None, hard_time=None,
              searchmoves=None, int level=1, int pool_nodes=GA_DEFAULT_NODES, on_iteration=None,
              U64 seed=0, bint keep_time_limits=False):
    """Run the GA tree search on `board` with `searcher`'s evaluation, stop flag and
    limits (call searcher.clear_stop() first). The result has the keys of
    Searcher.search (depth and seldepth are the tree height) and `string`: tree
    size, branches and generations. The GA ends at soft_time (hard_time if none),
    the node limit, a stop, or a full pool; with keep_time_limits, at the limits
    searcher.set_time_limits() set instead (as Searcher.search)."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, node
    cdef _GA ga = _GA()
    cdef GAState* g = &ga.g
    cdef SearchState* s = searcher.s
    cdef double start = monotonic_seconds(), until, end_time
    ga.setup(searcher, board, pool_nodes, seed)
    s.nodes = 0
    s.seldepth = 0
    s.node_limit = node_limit
    if not keep_time_limits:
        searcher.set_time_limits(soft_time, hard_time)
    end_time = searcher.soft_deadline if searcher.soft_deadline > 0 else s.deadline
    n = set_root_moves(s, searchmoves)
    if n == 0:
        return {"depth": 0, "seldepth": 0, "nodes": 0, "time": 0.0, "hashfull": 0,
                "lines": [(-MATE_SCORE if in_check(&s.pos) else 0, [])], "string": ""}

    with nogil:
        ga_init(g, level, end_time)
    if s.n_root > 1:
        while not out_of_time(g, end_time):
            # Re-read: a ponderhit sets the limits while the search runs.
            end_time = searcher.soft_deadline if searcher.soft_deadline > 0 else s.deadline
            until = monotonic_seconds() + REPORT_SECONDS
            if end_time > 0 and end_time < until:
                until = end_time
            with nogil:
                ga_run(g, until)
            if on_iteration is not None and not out_of_time(g, end_time):
                on_iteration(ga.report(start))
    final = ga.report(start)
    if on_iteration is not None:
        on_iteration(final)
    return final


# ------------------------------------------------------------ test API (not per node)

cdef _GA test_ga(Searcher searcher, Board board, int pool_nodes):
    cdef _GA ga = _GA()
    ga.setup(searcher, board, pool_nodes, 1)
    searcher.s.nodes = 0
    searcher.s.node_limit = 0
    searcher.s.deadline = 0.0
    set_root_moves(searcher.s, None)
    return ga


cdef int parse_branch(Board board, list uci, Move* out) except -1:
    """UCI strings to core moves, each looked up among the legal moves in turn."""
    cdef Board b = board.copy()
    for i, text in enumerate(uci):
        b.push_uci(text)
        out[i] = b.played[b.n_played - 1]
    return len(uci)


def tree_from_branches(Searcher searcher, Board board, list branches, list values):
    """Build a reservation tree from branches (UCI lists) with given leaf values (root
    side's view), in order. Returns the root value, the height H, and for each
    branch its end's value, the values along its path and its fitness."""
    cdef _GA ga = test_ga(searcher, board, 100000)
    cdef Move moves[GA_MAX_PLY]
    cdef int n, node, ends[256]
    for i, (branch, value) in enumerate(zip(branches, values)):
        n = parse_branch(board, branch, moves)
        ends[i] = insert_branch(&ga.g.tree, moves, n, value)
    out = []
    for i in range(len(branches)):
        node = ends[i]
        path = []
        while node >= 0:
            path.append(ga.g.tree.nodes[node].value)
            node = ga.g.tree.nodes[node].parent
        out.append({"value": ga.g.tree.nodes[ends[i]].value, "path": path[::-1],
                    "fitness": fitness(&ga.g.tree, ends[i])})
    return {"root": ga.g.tree.nodes[0].value, "height": ga.g.tree.height,
            "size": ga.g.tree.size, "branches": out, "best": ga.branch_uci(best_end(&ga.g.tree))}


def add_branches(Searcher searcher, Board board, list branches):
    """Add branches as the GA adds a new chromosome (replayed, cut at the first
    illegal move, valued, with their quiescence branches). Returns every branch
    end in the tree as (UCI moves, leaf value, backed-up value) and the root value."""
    cdef _GA ga = test_ga(searcher, board, 100000)
    cdef Move moves[GA_MAX_PLY]
    cdef int n
    for branch in branches:
        n = parse_branch(board, branch, moves)
        try_branch(&ga.g, moves, n, True)
    ends = [(ga.branch_uci(ga.g.tree.ends[i]), ga.g.tree.nodes[ga.g.tree.ends[i]].own,
             ga.g.tree.nodes[ga.g.tree.ends[i]].value) for i in range(ga.g.tree.n_ends)]
    return {"root": ga.g.tree.nodes[0].value, "ends": ends}


def crossover(Searcher searcher, Board board, list a, list b, int point):
    """The two crossover children of branches a and b at `point` (None when invalid)."""
    cdef _GA ga = test_ga(searcher, board, 1000)
    cdef Move ma[GA_MAX_PLY]
    cdef Move mb[GA_MAX_PLY]
    cdef Move child[GA_MAX_PLY]
    cdef int na = parse_branch(board, a, ma), nb = parse_branch(board, b, mb), n
    cdef Move* pair[2]
    cdef int lengths[2]
    pair[0] = ma
    pair[1] = mb
    lengths[0] = na
    lengths[1] = nb
    out = []
    for first in range(2):
        n = crossover_child(&ga.g, pair[first], lengths[first], pair[1 - first],
                            lengths[1 - first], point, child)
        out.append(None if n < 0 else [move_to_uci(&board.pos, child[i]) for i in range(n)])
    return out


def mutate(Searcher searcher, Board board, list branch, int place, U64 seed=1):
    """A mutation of `branch` at `place` (None when impossible)."""
    cdef _GA ga = test_ga(searcher, board, 1000)
    cdef Move ma[GA_MAX_PLY]
    cdef Move child[GA_MAX_PLY]
    cdef int na = parse_branch(board, branch, ma), n
    ga.g.rng = seed | 1
    n = mutate_child(&ga.g, ma, na, place, child)
    return None if n < 0 else [move_to_uci(&board.pos, child[i]) for i in range(n)]
