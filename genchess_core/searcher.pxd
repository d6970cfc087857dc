# The Searcher: one search at a time on one or more threads (Lazy SMP), each thread
# a Worker with its own state and evaluation caches around the shared hash table.

from genchess_core.search cimport SearchState, SearchParams
from genchess_core.evaluate cimport EvalCaches
from genchess_core.tt cimport TT
from genchess_core.board cimport Board


cdef int set_root_moves(SearchState* s, searchmoves) except -1


cdef struct Worker:
    # One thread of a search: its own state (position, killers, histories, stack)
    # and evaluation caches; only the hash table is shared (Lazy SMP).
    SearchState* s
    EvalCaches caches


cdef class Searcher:
    cdef SearchState* s                 # the main thread's state, workers[0].s
    cdef Worker* workers                # one per thread, the main thread's first
    cdef int n_workers
    cdef object packed                  # the loaded genome's pack(), for threads added later
    cdef dict _tunables                 # the search's tunables set over their defaults
    cdef TT tt
    cdef public double pawn_unit        # internal units per pawn, for centipawn reports
    cdef public double quiescence_cap   # quiescence ends at this many times the depth; 0: never
    cdef double soft_deadline           # monotonic seconds (the clock's, if set); 0: none
    cdef double soft_start              # when set_time_limits() last set the limits, same clock
    cdef double soft_window             # seconds from soft_start to the soft limit; 0: none
    cdef double hard_window             # ... and to the hard one; 0: none
    # Tests' simulated clock for the soft limit (a callable returning seconds); None:
    # the monotonic clock. The hard limit's abort inside an iteration keeps the real one.
    cdef public object clock

    cdef double now(self) except? -1.0
    cdef SearchState* unlimited(self, Board board)
    cdef int* capture_stat_of(self, Board board, str move) except NULL
    cdef int* history_of(self, Board board, str move) except NULL
    cdef Board follow(self, Board board, line)
    cdef int* continuation_of(self, Board board, line, int back) except NULL
