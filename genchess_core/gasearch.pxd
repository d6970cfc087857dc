# The GA tree search of Dehghani and Babamir (2017): branches evolved by a genetic
# algorithm, merged into one reservation tree in a preallocated node pool.

from genchess_core.types cimport U64, Move
from genchess_core.position cimport Undo
from genchess_core.search cimport SearchState

cdef enum:
    GA_MAX_PLY = 96             # longest branch, quiescence tail included
    GA_NO_VALUE = -2147483647   # a node nobody has valued yet
    GA_SAMPLE = 32              # branch ends drawn at random each generation
    GA_PARENTS = 8              # the fittest of the sample (and the best branch) breed
    GA_DEFAULT_NODES = 1000000  # node pool size (a GANode and a population slot: 32 bytes)

cdef struct GANode:
    int parent
    int first_child
    int next_sibling
    int depth                   # plies from the root; even depth: the root side moves (Max)
    int own                     # leaf value when a branch ended here, else GA_NO_VALUE
    int value                   # backed-up value, from the root side's view
    Move move                   # the move into this node

cdef struct GATree:
    GANode* nodes
    int size
    int capacity
    int height                  # H: the deepest node's depth
    int* ends                   # the branch ends (nodes with an own value): the population
    int n_ends

cdef struct GAState:
    SearchState* s
    GATree tree
    U64 rng
    U64 generations
    U64 branches                # branches inserted (each a new branch end)
    int full                    # the node pool is full: stop and play the best
    int root_side
    int init_done               # root moves whose initial branches are all in the tree
    Undo undo[GA_MAX_PLY]

cdef int ga_init(GAState* g, int level, double until) noexcept nogil
cdef void ga_run(GAState* g, double until) noexcept nogil
