# The network evaluation: a perspective network, 768 piece-square inputs for each
# side, one hidden layer per side with shared weights, one output. See eval_network.pyx.

from libc.stdint cimport int16_t, int32_t
from genchess_core.types cimport U64
from genchess_core.position cimport Position

cdef enum:
    NETWORK_INPUTS = 768            # (own or enemy) * 6 kinds * 64 squares
    NETWORK_MAX_HIDDEN = 1024       # per perspective; the accumulator's room
    NETWORK_MAX_BUCKETS = 16        # output buckets by material
    NETWORK_MAX_KING_BUCKETS = 16   # input buckets by the king's square
    ACTIVATION_CRELU = 0            # clip(x, 0, 1)
    ACTIVATION_SCRELU = 1           # clip(x, 0, 1) squared

cdef struct NetworkParams:
    int hidden                  # units per perspective, a multiple of 16
    int activation              # ACTIVATION_*
    int qa                      # the first layer's quantisation: 1.0 is qa
    int qb                      # the output weights': 1.0 is qb
    int scale                   # centipawns per unit of the network's output
    int scale_cp                # internal evaluation units per centipawn
    const int16_t* w1           # [king_buckets * NETWORK_INPUTS][hidden]: each input's column, by qa
    const int16_t* b1           # [hidden], by qa
    const int16_t* w2           # [buckets][2 * hidden]: each bucket's side-to-move half, then
                                # the other's, by qb
    const int32_t* b2           # [buckets], by qa * qb
    int buckets
    unsigned char bucket_of[33] # pieces on the board -> output bucket (0 and 1 unused)
    const int32_t* psqt         # [king_buckets * NETWORK_INPUTS] the piece-square term, by qa * qb;
                                # NULL: none
    int king_buckets
    bint kings                  # a king layout other than one bucket, unmirrored
    unsigned char king_bucket[64]   # a side's king square (its own seat) -> its bucket
    unsigned char king_flip[64]     # ... -> 7 where the side reads the board mirrored a <-> h, else 0

cdef struct NetworkAccumulator:
    # One search thread's last evaluated army and both perspectives' hidden sums
    # for it. A depth-first search evaluates neighbouring positions one after
    # another, so the next evaluation applies only the pieces that differ, or
    # starts afresh when that is cheaper (see network_accumulate).
    U64 bb[12]
    int16_t acc[2][NETWORK_MAX_HIDDEN]
    int32_t psqt[2]             # each perspective's sum of the piece-square term
    int king[2]                 # each perspective's king key (see king_key) its sums were made for
    int valid

cdef int evaluate_network(const Position* p, const NetworkParams* n,
                          NetworkAccumulator* a) noexcept nogil
cdef int network_params(NetworkParams* n, dict packed) except -1
