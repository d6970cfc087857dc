# The Searcher: what Python drives. It owns the hash table and one Worker per
# thread, loads a genome once into every thread's parameters, and runs iterative
# deepening one iteration at a time, releasing the GIL for each (so the protocol
# thread can answer `isready` and `stop` while it thinks) and taking it back between
# iterations to report. Helper threads (Lazy SMP) run their own iterations on the
# same root without reporting; only the hash table is shared.

import threading

from libc.stdlib cimport free, calloc, realloc
from libc.string cimport memset, memcpy

from genchess_core.types cimport *
from genchess_core.position cimport in_check, move_to_uci
from genchess_core.movegen cimport generate_legal, GEN_ALL
from genchess_core.evaluate cimport (evaluate, make_params, eval_caches_new, eval_caches_free,
                                     eval_caches_attach, EVAL_SCALE, EVAL_LIMIT)
from genchess_core.tt cimport (TTHit, TTEntry, tt_resize, tt_free, tt_clear, tt_new_search, tt_probe,
                               tt_store, tt_hashfull, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT)
from genchess_core.board cimport Board
from genchess_core.search cimport *
from genchess_core.movepick cimport (order_moves, demote_losing_captures, pick_move, capture_stat,
                                     continuation, continuation4, HISTORY_LIMIT)


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
    if w.s == NULL:
        raise MemoryError()
    try:
        eval_caches_new(&w.caches)
    except MemoryError:
        free_worker(w)
        raise
    w.s.tt = tt
    w.s.features = default_features()
    set_search_params(w.s, {})
    w.s.pawn_value = EVAL_SCALE
    w.s.material_pawn = EVAL_SCALE
    return 0


cdef void free_worker(Worker* w) noexcept:
    eval_caches_free(&w.caches)
    free(w.s)
    w.s = NULL


cdef int load_genome(Worker* w, dict packed, dict tunables, int pawn_value,
                     int material_pawn) except -1:
    make_params(&w.s.params, packed)
    set_search_params(w.s, tunables)
    clear_corrections(w.s)          # they corrected the old genome's evaluation
    eval_caches_attach(&w.s.params, &w.caches)
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
        score = search_iteration(h, d, 0, 0.0, previous)
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
    "lmr_history": USE_LMR_HISTORY, "improving": USE_IMPROVING,
    "time_scaling": USE_TIME_SCALING, "qs_tt": USE_QS_TT, "probcut": USE_PROBCUT,
    "capture_history": USE_CAPTURE_HISTORY, "history_pruning": USE_HISTORY_PRUNING,
    "double_singular": USE_DOUBLE_SINGULAR, "rule50_scaling": USE_RULE50_SCALING,
    "null_verify": <U64>USE_NULL_VERIFY,   # a C enum is an int: its sign bit, unsigned
    "cont_history_plies": USE_CONT_HISTORY_PLIES,
    "tt_buckets": USE_TT_BUCKETS,
    "correction_history": USE_CORRECTION_HISTORY,
    "see_pruning": USE_SEE_PRUNING,
}
ALL_FEATURES = default_features()
KENDALL_WHITWELL_FEATURES = KENDALL_WHITWELL
MATE = MATE_SCORE
CORRECTION_UNIT = CORRECTION_GRAIN      # correction history entries per evaluation unit
MATE_THRESHOLD = MATE_BOUND
ALPHA_BETA_MODES = ("iterative", "budget", "minimax")   # what Searcher.search runs


cdef void clear_corrections(SearchState* s) noexcept nogil:
    """Forget the correction history (the Correction History trial's tables)."""
    memset(s.correction_material, 0, sizeof(s.correction_material))
    memset(s.correction_non_pawn, 0, sizeof(s.correction_non_pawn))


cdef void clear_trial_counters(SearchState* s) noexcept nogil:
    """Zero the counters the trials' tests read (history and SEE prunes, null verifications,
    double and negative extensions): one place, so a new counter is reset wherever a
    search starts."""
    s.history_prunes = 0
    s.see_prunes = 0
    s.null_verifications = 0
    s.null_refuted = 0
    s.double_extensions = 0
    s.negative_extensions = 0
    s.most_line_doubles = 0


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
        self._tunables = {}

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
                load_genome(&self.workers[i], self.packed, self._tunables, self.s.pawn_value,
                            self.s.material_pawn)
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
            memset(w.capture_history, 0, sizeof(w.capture_history))
            clear_corrections(w)

    def set_genome(self, dict packed):
        """Load a genome's packed parameters (once per genome, not per search), with
        the search's tunables its `search` entry sets (the rest at their defaults)."""
        unit = packed["pawn_unit"]      # every kind's pack() says what its pawn is worth
        self.pawn_unit = unit if unit > 0 else EVAL_SCALE
        # The margins' pawn: the genome's own unit unless it says otherwise (a unified
        # genome's `Search pawn:`, set by games; the unit stays what scores are shown in).
        margin_pawn = packed.get("search_pawn_unit", self.pawn_unit)
        tunables = dict(packed.get("search", {}))
        for i in range(self.n_workers):
            load_genome(&self.workers[i], packed, tunables, <int>min(margin_pawn, EVAL_LIMIT / 16.0),
                        <int>min(self.pawn_unit, EVAL_LIMIT / 16.0))
        self.packed = packed
        self._tunables = tunables

    @property
    def tunables(self):
        """The search's genes this Searcher was given over their defaults (search_gene_table)."""
        return dict(self._tunables)

    def thread_tunables(self, int i):
        """Every gene's value as thread i's search reads it, by name (for tests)."""
        if not 0 <= i < self.n_workers:
            raise IndexError(f"no thread {i}")
        return self.workers[i].s.sp     # Cython's conversion of the struct to a dict

    def set_tunables(self, dict values):
        """Set the search's tunables (name -> whole number; the rest at their defaults)
        for every thread, leaving the genome as it is; ValueError on an unknown name
        or a value out of bounds, with nothing changed (the first thread's check fails
        before any thread is set)."""
        for i in range(self.n_workers):
            set_search_params(self.workers[i].s, values)
        self._tunables = dict(values)

    @property
    def aspiration_researches(self):
        """How often the last search's aspiration windows failed and searched again."""
        return self.s.aspiration_researches

    @property
    def history_prunes(self):
        """How many quiet moves the main thread's last search skipped by history pruning."""
        return self.s.history_prunes

    @property
    def see_prunes(self):
        """How many moves the main thread's last search skipped by SEE pruning."""
        return self.s.see_prunes

    @property
    def null_verifications(self):
        """(verified, refuted): how many null-move cuts the main thread's last search
        verified by a search without a null move (the Null Verify trial), and how many
        of them that search refuted."""
        return self.s.null_verifications, self.s.null_refuted

    @property
    def singular_extensions(self):
        """(double, negative, most doubles on one line): how many hash moves the main
        thread's last search extended twice and searched a ply shallower (the Double
        Singular trial), and the most double extensions one line of it took."""
        return self.s.double_extensions, self.s.negative_extensions, self.s.most_line_doubles

    @property
    def features(self):
        return self.s.features

    @features.setter
    def features(self, U64 value):
        for i in range(self.n_workers):
            self.workers[i].s.features = value

    def stop(self):
        for i in range(self.n_workers):
            self.workers[i].s.stop = 1

    def clear_stop(self):
        """Arm for the next search. Kept out of search() so that a stop arriving
        between a `go` and the search thread starting is not lost."""
        self.s.stop = 0

    cdef double now(self) except? -1.0:
        return monotonic_seconds() if self.clock is None else self.clock()

    def set_time_limits(self, soft_time=None, hard_time=None):
        """(Re)set the time limits, in seconds from now, also while searching (ponderhit)."""
        now = self.now()
        self.soft_start = now
        self.soft_window = soft_time or 0.0
        self.hard_window = hard_time or 0.0
        self.soft_deadline = now + soft_time if soft_time else 0.0
        self.s.deadline = monotonic_seconds() + hard_time if hard_time else 0.0

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


    def root_share(self, str move):
        """The share (0 to 1) of the last search's root nodes spent under `move` (UCI),
        over every iteration so far; 0 for a move not at the root."""
        cdef U64 total = 0, mine = 0
        cdef int i
        for i in range(self.s.n_root):
            total += self.s.root_nodes[self.s.root_moves[i] & (ROOT_NODE_SLOTS - 1)]
            if move_to_uci(&self.s.pos, self.s.root_moves[i]) == move:
                mine = self.s.root_nodes[self.s.root_moves[i] & (ROOT_NODE_SLOTS - 1)]
        return <double>mine / total if total else 0.0

    def hashfull(self):
        return tt_hashfull(&self.tt)

    def evaluate(self, Board board):
        """The static evaluation of `board` from the side to move's view."""
        return evaluate(&board.pos, &self.s.params)

    def ordered_moves(self, Board board, line=()):
        """The legal moves (UCI) of `board`, or of the node at the end of `line` (UCI
        moves from `board`, as the search's line to it: its continuation histories
        follow them), in the order this search's ordering tries them, with no hash
        move, killers or countermove: what the features and statistics choose."""
        cdef SearchState* s = self.s
        cdef Move moves[MAX_MOVES]
        cdef int scores[MAX_MOVES]
        cdef int n, i, ply = len(line)
        cdef Move killer0, killer1
        self.follow(board, line)
        n = generate_legal(&s.pos, moves, GEN_ALL)
        if s.features & (USE_ORDERING | USE_VALUE_ORDERING):
            killer0, killer1 = s.killers[ply][0], s.killers[ply][1]
            s.killers[ply][0] = s.killers[ply][1] = MOVE_NONE
            order_moves(s, moves, scores, n, MOVE_NONE, ply, MOVE_NONE, continuation(s, ply, 1),
                        continuation(s, ply, 2), continuation4(s, ply, in_check(&s.pos)))
            s.killers[ply][0], s.killers[ply][1] = killer0, killer1
            if s.features & USE_SEE_ORDERING and s.features & USE_ORDERING:
                demote_losing_captures(s, moves, scores, n, MOVE_NONE)
            for i in range(n):
                pick_move(moves, scores, i, n)
        return [move_to_uci(&s.pos, moves[i]) for i in range(n)]

    cdef Board follow(self, Board board, line):
        """Set the main thread's position to `board` after the UCI moves of `line`, each
        recorded as the search records the moves of its line to a node (the move and
        the piece that made it, per ply); the board at its end."""
        cdef SearchState* s = self.s
        cdef Board b = board.copy()
        cdef Move m
        cdef int ply
        if len(line) >= MAX_PLY // 2:
            raise ValueError(f"a line of {len(line)} moves is longer than the {MAX_PLY // 2 - 1} a test may give")
        for ply, uci in enumerate(line):
            m = b._parse(uci)
            s.played[ply] = m
            s.played_piece[ply] = b.pos.board[move_from(m)]
            s.static_evals[ply] = -INFINITE_SCORE
            s.line_doubles[ply] = 0
            b._push(m)
        s.pos = b.pos
        return b

    def continuation_history(self, Board board, line, int back):
        """The main thread's continuation history of the last move of `line` (UCI moves
        from `board`; the last a quiet move) after the move `back` plies before it: the
        entry the search reads for that move at the end of such a line."""
        return self.continuation_of(board, line, back)[0]

    def set_continuation_history(self, Board board, line, int back, int value):
        """Set it, within the histories' limit: for tests of the order it makes."""
        if not -HISTORY_LIMIT <= value <= HISTORY_LIMIT:
            raise ValueError(f"a continuation history lies within +-{HISTORY_LIMIT}, not {value}")
        self.continuation_of(board, line, back)[0] = value

    cdef int* continuation_of(self, Board board, line, int back) except NULL:
        cdef Board b
        cdef Move m
        cdef int ply = len(line) - 1
        if not 1 <= back <= ply:
            raise ValueError(f"a line of {len(line)} moves has no move {back} plies before its last")
        b = self.follow(board, line[:ply])
        m = b._parse(line[ply])
        if move_flags(m) & (FLAG_CAPTURE | FLAG_PROMO):
            raise ValueError(f"{line[ply]} is no quiet move in {b.fen()}")
        return &self.s.cont_history[self.s.played_piece[ply - back]][move_to(self.s.played[ply - back])][
            b.pos.board[move_from(m)]][move_to(m)]

    def capture_history(self, Board board, str move):
        """The main thread's capture history of the capture `move` (UCI) in `board`;
        ValueError for a legal move that captures nothing."""
        return self.capture_stat_of(board, move)[0]

    def set_capture_history(self, Board board, str move, int value):
        """Set it, within the histories' limit: for tests of the ordering it makes."""
        if not -HISTORY_LIMIT <= value <= HISTORY_LIMIT:
            raise ValueError(f"a capture history lies within +-{HISTORY_LIMIT}, not {value}")
        self.capture_stat_of(board, move)[0] = value

    def history(self, Board board, str move):
        """The main thread's history (not continuation history) of the quiet move
        `move` (UCI) in `board`; ValueError for a capture or a promotion."""
        return self.history_of(board, move)[0]

    def set_history(self, Board board, str move, int value):
        """Set it, within the histories' limit: for tests of what a history prunes."""
        if not -HISTORY_LIMIT <= value <= HISTORY_LIMIT:
            raise ValueError(f"a history lies within +-{HISTORY_LIMIT}, not {value}")
        self.history_of(board, move)[0] = value

    cdef int* history_of(self, Board board, str move) except NULL:
        cdef Move m = board._parse(move)
        if move_flags(m) & (FLAG_CAPTURE | FLAG_PROMO):
            raise ValueError(f"{move} is no quiet move in {board.fen()}")
        return &self.s.history[board.pos.board[move_from(m)]][move_to(m)]

    cdef int* capture_stat_of(self, Board board, str move) except NULL:
        cdef Move m = board._parse(move)
        if not move_flags(m) & FLAG_CAPTURE:
            raise ValueError(f"{move} captures nothing in {board.fen()}")
        self.s.pos = board.pos
        return capture_stat(self.s, m)

    def capture_history_span(self):
        """(lowest, highest) of every thread's capture history: what the searches taught it."""
        cdef int lo = 0, hi = 0, i, j
        cdef int* table
        for i in range(self.n_workers):
            table = &self.workers[i].s.capture_history[0][0][0]
            for j in range(sizeof(self.workers[i].s.capture_history) // sizeof(int)):
                lo = min(lo, table[j])
                hi = max(hi, table[j])
        return lo, hi

    def search_evaluation(self, Board board):
        """The static evaluation of `board` as the main thread's search reads it (its
        trials may scale or correct it; `evaluate` is the genome's own)."""
        self.s.pos = board.pos
        return search_evaluate(self.s)

    def corrections(self, Board board):
        """The main thread's correction history entries for `board`'s side to move:
        (by material, by White's non-pawn pieces, by Black's), each in CORRECTION_UNIT
        parts of an evaluation unit."""
        cdef int* slots[3]
        self.s.pos = board.pos
        correction_slots(self.s, slots)
        return slots[0][0], slots[1][0], slots[2][0]

    def set_corrections(self, Board board, int material, int white, int black):
        """Plant them: for tests of what the search reads and how it learns."""
        cdef int* slots[3]
        self.s.pos = board.pos
        correction_slots(self.s, slots)
        slots[0][0] = material
        slots[1][0] = white
        slots[2][0] = black

    def probe(self, Board board):
        """(score, move as UCI or None, depth, bound) of `board`'s hash entry, or None."""
        found = self.probe_key(board.pos.key)
        if found is None:
            return None
        score, move, depth, bound = found
        return score, move_to_uci(&board.pos, move) if move else None, depth, bound

    def probe_key(self, U64 key):
        """(score, raw move, depth, bound) of the hash entry for `key`, or None, read in
        the layout this searcher's features set (the TT Buckets trial): for tests of
        keys chosen to share a slot or a bucket."""
        cdef TTHit hit
        if not tt_probe(&self.tt, key, &hit, (self.s.features & USE_TT_BUCKETS) != 0):
            return None
        return hit.score, hit.move, hit.depth, hit.bound

    @property
    def hash_entries(self):
        """How many entries the hash table holds (a power of two, whole buckets)."""
        return self.tt.mask + 1

    @property
    def hash_alignment(self):
        """The hash table's address modulo 64: 0 when each bucket is one cache line."""
        return <size_t>self.tt.entries % 64

    def new_table_search(self):
        """Age the hash table by one search, as each search() does: for tests of
        replacement by age."""
        tt_new_search(&self.tt)

    def tear_entry_for_tests(self, Board board, Board other):
        """Make `board`'s slot look written by two threads at once: the check word of
        `board`'s entry with the data word of `other`'s (stored alike): what the
        table's XOR check exists to refuse."""
        cdef TTEntry* e = &self.tt.entries[board.pos.key & self.tt.mask]
        cdef TTEntry* f = &self.tt.entries[other.pos.key & self.tt.mask]
        e.data = f.data

    cdef SearchState* unlimited(self, Board board):
        """The main thread's state set to search `board` with no limit: for the tests'
        entries into one part of the search."""
        cdef SearchState* s = self.s
        s.pos = board.pos
        s.nodes = 0
        clear_trial_counters(s)
        s.node_limit = 0
        s.qs_ply_limit = 0
        s.stop = 0
        s.deadline = 0.0
        return s

    def quiesce(self, Board board, int alpha=-INFINITE_SCORE, int beta=INFINITE_SCORE):
        """(score, nodes) of the capture search alone from `board` in the window (alpha,
        beta), with this searcher's features and table: for tests of quiescence."""
        cdef SearchState* s = self.unlimited(board)
        cdef int score
        with nogil:
            score = quiesce(s, alpha, beta, 0)
        return score, s.nodes

    def null_window(self, Board board, int depth, int beta, int ply=0, line=()):
        """(score, nodes) of one null-window search (beta - 1, beta) of `board` to
        `depth`, as a node off the principal variation sees it `ply` plies below the
        root (steps such as singular extensions act only below it), no move known on
        the line above it, with this searcher's features and table: for tests of the
        main search's prunings and extensions. With a `line` (UCI moves from `board`)
        instead of a ply: of the node at its end, the line's moves known (the
        continuation histories follow them)."""
        cdef SearchState* s = self.unlimited(board)
        cdef int score, i
        if not 0 <= ply < MAX_PLY // 2:
            raise ValueError(f"null_window: ply {ply} is not from 0 to {MAX_PLY // 2 - 1}")
        if line and ply:
            raise ValueError("null_window: give a ply or a line, not both")
        for i in range(ply):
            s.played[i] = MOVE_NONE
            s.static_evals[i] = -INFINITE_SCORE
            s.line_doubles[i] = 0
        if line:
            self.follow(board, line)
            ply = len(line)
        tt_new_search(&self.tt)
        with nogil:
            score = negamax(s, depth, beta - 1, beta, ply, True)
        return score, s.nodes

    def store(self, Board board, int score, int depth, int move=MOVE_NONE, int bound=BOUND_EXACT):
        """Put a score for `board` (side to move's view) in the hash table, exact
        unless `bound` says otherwise, as a search to `depth` would: for tests of the
        table's depth rule. `move` is a raw 16-bit code (types.pxd), stored unchecked:
        tests plant an illegal move, or another position's, under the right key, as
        a torn write that passed the table's check would leave it."""
        self.store_key(board.pos.key, score, depth, move, bound)

    def store_key(self, U64 key, int score, int depth, int move=MOVE_NONE, int bound=BOUND_EXACT):
        """Store as store() does, under a raw key, in the layout this searcher's features
        set (the TT Buckets trial): for tests of keys chosen to share a slot or a bucket."""
        if not 0 <= move <= 0xFFFF or bound not in (BOUND_UPPER, BOUND_LOWER, BOUND_EXACT):
            raise ValueError(f"store: move {move} or bound {bound} out of range")
        tt_store(&self.tt, key, score, bound, depth, <Move>move, (self.s.features & USE_TT_BUCKETS) != 0,
                 self.s.sp.tt_age_weight)

    def search(self, Board board, int max_depth=MAX_PLY - 2, U64 node_limit=0,
               soft_time=None, hard_time=None, searchmoves=None, int multipv=1,
               mode="iterative", double budget_nodes=0.0, int mate=0, on_iteration=None,
               bint keep_time_limits=False, U64 soft_nodes=0, soft_scale=None):
        """Search `board` and return the last complete result as a dict. Call
        clear_stop() first: a pending stop() ends this search at once.

        soft_time: start no new iteration after this many seconds; hard_time: abort
        the search then. soft_nodes: start no new iteration once this many nodes are
        searched (the data machine's limit: no iteration cut short). soft_scale: an
        object whose after_iteration(depth, best move, its share of the root's nodes,
        score in pawns) returns a factor for the soft time limit (timeman.SoftScaling),
        applied under the USE_TIME_SCALING feature and never past the hard limit; only
        for a search whose soft limit is a guess (a game clock, not `go movetime`).
        keep_time_limits: ignore both and keep what set_time_limits()
        set (a caller that arms the clock itself, so that a ponderhit landing while
        the search starts is not undone). In budget mode `depth` counts passes and
        the passes together spend about `budget_nodes`. Mode `minimax` is iterative
        deepening with every feature off (plain minimax, no pruning, no quiescence).
        The result and each on_iteration(info) carry depth, seldepth, nodes, time,
        hashfull and lines: [(score, pv as UCI list)] best first."""
        cdef SearchState* s = self.s
        cdef Move moves[MAX_MOVES]
        cdef U64 features = s.features
        if mode not in ALPHA_BETA_MODES:
            raise ValueError(f"Searcher.search runs the modes {', '.join(ALPHA_BETA_MODES)}, "
                             f"not {mode!r}")
        # The features of this one search, set on every thread and given back after:
        # minimax is iterative deepening with all of them off. A mate search is a proof,
        # and null-move pruning is not sound for one: it assumes passing is never better
        # than moving, which zugzwang (common in a mating net) breaks. With null moves
        # from depth 2 (the shipped genome's null_min_depth) a quiet mate in two such as
        # kbK5/pp6/1P6/8/8/8/8/R7 w (Ra6!) was missed at every depth to 9. ProbCut is
        # not sound for one either: it cuts on a shallower search's word. Nor is history
        # pruning: it skips quiet moves near the leaves by their statistics, and a mate
        # search ends at depth 2N + 1, so a quiet mating move it skips there is not
        # found by a deeper iteration; negative extensions (the Double Singular trial)
        # search a hash move that may be the mating one a ply shallower. Nor is SEE
        # pruning (a trial): a mate often starts with a sacrifice, which it skips.
        cdef U64 wanted = 0 if mode == "minimax" else (
            features & ~<U64>(MATE_UNSOUND | MATE_UNSOUND_HIGH) if mate else features)
        if wanted != features:
            self.features = wanted
            try:
                return self.search(board, max_depth, node_limit, soft_time, hard_time,
                                   searchmoves, multipv, mode, budget_nodes, mate, on_iteration,
                                   keep_time_limits, soft_nodes, soft_scale)
            finally:
                self.features = features
        cdef int n, i, depth, line, score = 0, lines_wanted, previous = 0
        cdef double start = monotonic_seconds(), budget = budget_nodes, scale = 1.0, window
        cdef bint scaling = soft_scale is not None and features & USE_TIME_SCALING
        s.pos = board.pos
        memset(s.root_nodes, 0, sizeof(s.root_nodes))
        s.nodes = 0
        s.seldepth = 0
        s.aspiration_researches = 0
        clear_trial_counters(s)
        s.node_limit = node_limit
        if not keep_time_limits:
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
                        score = search_iteration(s, depth, line, budget, previous)
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
                if scaling:
                    scale = soft_scale.after_iteration(depth, lines[0][1][0], self.root_share(lines[0][1][0]),
                                                       best_score / self.pawn_unit)
                    result["soft_scale"] = scale
                if self.soft_deadline > 0:
                    # The soft limit scaled by what the iterations learned, never past
                    # the hard one; unscaled, the deadline exactly as it was set.
                    window = self.soft_window * scale
                    if self.hard_window > 0 and window > self.hard_window:
                        window = self.hard_window
                    if self.now() >= (self.soft_deadline if scale == 1.0 else self.soft_start + window):
                        break
                if node_limit and s.nodes >= node_limit:
                    break
                if soft_nodes and s.nodes >= soft_nodes:
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

