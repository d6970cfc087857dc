# The network evaluation (genome kind `network`).
#
# A perspective network in the style of the small networks of Bullet-trained
# engines: each side sees the board from its own seat, 768 inputs (its own pieces,
# then the enemy's, six kinds on 64 squares, ranks flipped for Black), through one
# hidden layer whose weights both sides share; the side to move's hidden layer and
# the other's, activated, meet in one output:
#
#     out = b2[b] + act(acc_us) . w2[b][:H] + act(acc_them) . w2[b][H:] + (psqt_us - psqt_them) / 2
#     acc_c = b1 + sum over c's active inputs of W1[input]
#     psqt_c = sum over c's active inputs of P[input]   (networks with the term only)
#     centipawns (side to move) = out * scale
#
# where b is the output bucket of the position's material (the pieces on the board,
# genome/network.py's output_bucket; always 0 with one bucket): the bucket only
# chooses which output weights the last dot product reads, so the accumulators and
# their incremental updates are the same for every bucket, and choosing costs a
# popcount and a table lookup an evaluation.
#
# Everything is integer: W1 and b1 quantised by qa (so an accumulator is int16 and
# clipping to [0, 1] is clipping to [0, qa]), w2 by qb, b2 by qa * qb. The
# trainer's weight limits keep every accumulator inside int16
# (genchess/fitness/network_training.py), and the quantised file is what plays.
#
# The accumulator is the costly part (an add of H numbers per piece), so a search
# thread keeps the last one it computed with the army it was computed for, and the
# next evaluation applies only the pieces that differ: after one move that is two
# to four columns instead of thirty. Bitboards say what changed, so make and
# unmake (shared with perft and every other kind) carry no network work at all,
# and there is no stack of accumulators to keep in step with the search. When more
# pieces differ than stand on the board (a new root, a distant transposition), the
# accumulator is built afresh, which is then cheaper.
#
# With king buckets (genome/network.py's KingLayout) a side's inputs are those of the
# bucket its king stands in, read mirrored a <-> h when the layout says so: input
# bucket * 768 + the index above of the square XOR flip. A side whose king has moved
# into another bucket or across the mirror is built afresh; the other side, and every
# move that leaves both kings' keys as they were, updates as before. One bucket and
# no mirror (every network without a `Kings:` line) is the network above exactly.

from libc.stdint cimport int16_t, int32_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
import os
from array import array

from genchess_core.types cimport *
from genchess_core.bitboard cimport lsb, pop_lsb, popcount
from genchess_core.position cimport set_fen
from genchess_core.board cimport Board

cdef extern from "network_kernels.h" nogil:
    # The per-node loops, in C so that they can be built for more than one CPU and
    # chosen when the module loads (see the header).
    ctypedef struct gc_network_kernels:
        void (*update)(int16_t* acc, const int16_t* w1, int hidden, const int* added, int n_added,
                       const int* removed, int n_removed) noexcept nogil
        int64_t (*hidden_output)(const int16_t* us, const int16_t* them, const int16_t* w2,
                                 int hidden, int qa, int squared) noexcept nogil
    gc_network_kernels gc_kernels
    const char* gc_choose_kernels(int allow_avx2)

# Chosen once, before any search runs: "avx2" or "baseline".
KERNELS = gc_choose_kernels(os.environ.get("GENCHESS_NETWORK_KERNELS") != "baseline").decode()


cdef enum:
    # |evaluation| in centipawns is kept below this: far from the mate scores, and
    # more than any position needs.
    NETWORK_CP_LIMIT = 30000


cdef inline int king_key(const Position* p, const NetworkParams* n, int perspective) noexcept nogil:
    """A perspective's (colour's) king bucket and mirror as one number: its first
    input's offset (bucket * 768) plus its square flip (0 or 7). No king (a test's
    board): the first bucket, not mirrored."""
    cdef U64 king = p.bb[perspective * 6 + KING]
    cdef int sq
    if not king:
        return 0
    sq = lsb(king) ^ (56 * perspective)
    return n.king_bucket[sq] * NETWORK_INPUTS + n.king_flip[sq]


cdef inline int input_index(int perspective, int key, int piece, int sq) noexcept nogil:
    """The input a piece (colour * 6 + kind) on sq is for a perspective (colour) whose
    king key is `key`: its own pieces first, the board from its own side (mirrored
    when the key says so), in its king's bucket."""
    sq ^= key & 7
    if perspective == WHITE:
        return (key & ~7) + piece * 64 + sq
    return (key & ~7) + (piece + 6 if piece < 6 else piece - 6) * 64 + (sq ^ 56)


cdef void refresh_side(const Position* p, const NetworkParams* n, NetworkAccumulator* a,
                       int c) noexcept nogil:
    """Perspective c's sums made afresh from p's pieces."""
    cdef int piece, sq, index, count = 0, key = king_key(p, n, c) if n.kings else 0
    cdef int inputs[64]
    cdef U64 b
    memcpy(a.acc[c], n.b1, n.hidden * sizeof(int16_t))
    a.psqt[c] = 0
    for piece in range(12):
        b = p.bb[piece]
        while b:
            sq = pop_lsb(&b)
            index = input_index(c, key, piece, sq)
            inputs[count] = index
            count += 1
            if n.psqt != NULL:
                a.psqt[c] += n.psqt[index]
    gc_kernels.update(a.acc[c], n.w1, n.hidden, inputs, count, NULL, 0)
    a.king[c] = key


cdef void refresh(const Position* p, const NetworkParams* n, NetworkAccumulator* a) noexcept nogil:
    refresh_side(p, n, a, WHITE)
    refresh_side(p, n, a, BLACK)
    memcpy(a.bb, p.bb, sizeof(a.bb))
    a.valid = 1


cdef inline void apply_changes(const Position* p, const NetworkParams* n, NetworkAccumulator* a,
                               bint kings) noexcept nogil:
    """network_accumulate's update of a's accumulators by the pieces that differ.
    Called with `kings` a constant, so that the C compiler builds it twice and the
    network without a king layout (every key 0, no side afresh) pays (almost) nothing
    for the layouts (bench_builds.py --instructions: 1.022 of the build before them
    when every evaluation looked its kings up, 1.009 with this)."""
    cdef int piece, sq, c, index, n_added = 0, n_removed = 0
    cdef int added[2][64]           # each perspective's inputs (at most one a square)
    cdef int removed[2][64]
    cdef int key[2]
    cdef bint afresh[2]
    cdef U64 gone, come
    for c in range(2):
        key[c] = king_key(p, n, c) if kings else 0
        afresh[c] = kings and key[c] != a.king[c]
    for piece in range(12):
        gone = a.bb[piece] & ~p.bb[piece]
        come = p.bb[piece] & ~a.bb[piece]
        while gone:
            sq = pop_lsb(&gone)
            for c in range(2):
                if not afresh[c]:
                    index = input_index(c, key[c] if kings else 0, piece, sq)
                    removed[c][n_removed] = index
                    if n.psqt != NULL:
                        a.psqt[c] -= n.psqt[index]
            n_removed += 1
        while come:
            sq = pop_lsb(&come)
            for c in range(2):
                if not afresh[c]:
                    index = input_index(c, key[c] if kings else 0, piece, sq)
                    added[c][n_added] = index
                    if n.psqt != NULL:
                        a.psqt[c] += n.psqt[index]
            n_added += 1
        a.bb[piece] = p.bb[piece]
    for c in range(2):
        if afresh[c]:
            refresh_side(p, n, a, c)
        else:
            gc_kernels.update(a.acc[c], n.w1, n.hidden, added[c], n_added, removed[c], n_removed)


cdef void network_accumulate(const Position* p, const NetworkParams* n,
                             NetworkAccumulator* a) noexcept nogil:
    """Bring a's accumulators to p's army: the pieces that differ from the army
    they hold, or all of p's pieces when that is fewer; a side whose king key
    changed, afresh."""
    cdef int piece, changed = 0
    if a.valid:
        for piece in range(12):
            changed += popcount(a.bb[piece] ^ p.bb[piece])
    if not a.valid or changed > popcount(p.all):
        refresh(p, n, a)
    elif n.kings:
        apply_changes(p, n, a, True)
    else:
        apply_changes(p, n, a, False)


cdef inline int64_t c_div(int64_t a, int64_t b) noexcept nogil:
    """Division truncated towards zero (C's, which cdivision gives), spelled out so
    that the Python reference of the tests can say the same."""
    return a / b


cdef int network_output(const NetworkParams* n, const NetworkAccumulator* a, int side,
                        int pieces) noexcept nogil:
    """The evaluation from `side`'s view, internal units, from a's accumulators, by
    the output bucket of `pieces` pieces on the board."""
    cdef int h = n.hidden
    cdef int bucket = n.bucket_of[pieces if pieces <= 32 else 32]
    cdef int64_t out, cp_units, limit = <int64_t>NETWORK_CP_LIMIT * n.scale_cp
    out = gc_kernels.hidden_output(a.acc[side], a.acc[side ^ 1], n.w2 + bucket * 2 * h, h, n.qa,
                                   n.activation == ACTIVATION_SCRELU) + n.b2[bucket]
    if n.psqt != NULL:
        out += c_div(<int64_t>a.psqt[side] - a.psqt[side ^ 1], 2)
    cp_units = c_div(out * n.scale * n.scale_cp, <int64_t>n.qa * n.qb)
    if cp_units > limit:
        return <int>limit
    if cp_units < -limit:
        return <int>-limit
    return <int>cp_units


cdef int evaluate_network(const Position* p, const NetworkParams* n,
                          NetworkAccumulator* a) noexcept nogil:
    """p's evaluation from the side to move's view, internal units. `a` is the
    calling thread's accumulator (NULL: computed afresh on the stack)."""
    cdef NetworkAccumulator fresh
    if a == NULL:
        refresh(p, n, &fresh)
        return network_output(n, &fresh, p.side, popcount(p.all))
    network_accumulate(p, n, a)
    return network_output(n, a, p.side, popcount(p.all))


# ------------------------------------------------------------ load time (Python)

_NO_PSQT = array("i")       # a network without the piece-square term

def network_evaluations(dict packed, list fens):
    """For tests: each FEN's evaluation (side to move's view, internal units)
    through one accumulator in turn, as a search thread keeps it, and each afresh:
    two lists, which must agree."""
    cdef NetworkParams n
    cdef NetworkAccumulator* a = <NetworkAccumulator*>calloc(1, sizeof(NetworkAccumulator))
    cdef Position pos
    if a == NULL:
        raise MemoryError()
    try:
        network_params(&n, packed)
        incremental, afresh = [], []
        for fen in fens:
            set_fen(&pos, fen)
            incremental.append(evaluate_network(&pos, &n, a))
            afresh.append(evaluate_network(&pos, &n, NULL))
        return incremental, afresh
    finally:
        free(a)


def network_evaluations_along(dict packed, Board board, list steps):
    """For tests: `board` taken through `steps` (a UCI move made, or None: the last
    move unmade) by the core's make and unmake, evaluated after each through one
    accumulator carried along, as a search thread's is, and afresh: two lists."""
    cdef NetworkParams n
    cdef NetworkAccumulator* a = <NetworkAccumulator*>calloc(1, sizeof(NetworkAccumulator))
    if a == NULL:
        raise MemoryError()
    try:
        network_params(&n, packed)
        incremental, afresh = [], []
        for step in steps:
            if step is None:
                board.pop()
            else:
                board.push_uci(step)
            incremental.append(evaluate_network(&board.pos, &n, a))
            afresh.append(evaluate_network(&board.pos, &n, NULL))
        return incremental, afresh
    finally:
        free(a)


cdef int network_params(NetworkParams* n, dict packed) except -1:
    """Fill n from a network genome's pack() dict; once per genome load. The weight
    arrays are borrowed, not copied: pack()'s dict holds them (int16 buffers: the
    genome's arrays), and whoever made n keeps that dict while n is in use (the
    Searcher keeps its genome's pack())."""
    cdef const int16_t[::1] w1 = packed["network_w1"]
    cdef const int16_t[::1] b1 = packed["network_b1"]
    cdef const int16_t[::1] w2 = packed["network_w2"]
    cdef const int32_t[::1] b2 = packed["network_b2"]
    cdef const int32_t[::1] psqt = packed.get("network_psqt", _NO_PSQT)
    cdef int pieces, sq
    hidden = int(packed["network_hidden"])
    buckets = int(packed.get("network_buckets", 1))
    king_buckets = int(packed.get("network_king_buckets", 1))
    king_table = bytes(packed.get("network_king_table", bytes(64)))
    king_flip = bytes(packed.get("network_king_flip", bytes(64)))
    inputs = NETWORK_INPUTS * king_buckets
    if not 16 <= hidden <= NETWORK_MAX_HIDDEN or hidden % 16:
        raise ValueError(f"network_hidden must be a multiple of 16 from 16 to {NETWORK_MAX_HIDDEN}, not {hidden}")
    if not 1 <= buckets <= NETWORK_MAX_BUCKETS:
        raise ValueError(f"network_buckets must be from 1 to {NETWORK_MAX_BUCKETS}, not {buckets}")
    if not 1 <= king_buckets <= NETWORK_MAX_KING_BUCKETS:
        raise ValueError(f"network_king_buckets must be from 1 to {NETWORK_MAX_KING_BUCKETS}, not {king_buckets}")
    if (len(king_table), len(king_flip)) != (64, 64) or max(king_table) >= king_buckets \
            or any(f not in (0, 7) for f in king_flip):
        raise ValueError(f"a king layout is 64 buckets below {king_buckets} and 64 flips of 0 or 7")
    if (w1.shape[0] != inputs * hidden or b1.shape[0] != hidden
            or w2.shape[0] != 2 * hidden * buckets or b2.shape[0] != buckets):
        raise ValueError(f"network weights do not fit {inputs}x2 -> {hidden} -> 1x{buckets}")
    if psqt.shape[0] not in (0, inputs):
        raise ValueError(f"a piece-square term has {inputs} numbers, not {psqt.shape[0]}")
    activation = packed["network_activation"]
    if activation not in ("crelu", "screlu"):
        raise ValueError(f"unknown network activation {activation!r} (crelu or screlu)")
    qa, qb, scale, scale_cp = (int(packed[key]) for key in ("network_qa", "network_qb", "network_scale",
                                                             "eval_scale_cp"))
    if min(qa, qb, scale, scale_cp) <= 0:
        raise ValueError("network quantisation and scales must be positive")
    # Every check passed: n changes whole or not at all (a search thread may still hold it).
    n.hidden = hidden
    n.activation = ACTIVATION_SCRELU if activation == "screlu" else ACTIVATION_CRELU
    n.qa, n.qb, n.scale, n.scale_cp = qa, qb, scale, scale_cp
    n.w1 = &w1[0]
    n.b1 = &b1[0]
    n.w2 = &w2[0]
    n.b2 = &b2[0]
    n.buckets = buckets
    divisor = -(-32 // buckets)         # genome/network.py's bucket_divisor
    for pieces in range(33):
        n.bucket_of[pieces] = min(max(pieces - 2, 0) // divisor, buckets - 1)
    n.psqt = &psqt[0] if psqt.shape[0] else NULL
    n.king_buckets = king_buckets
    n.kings = king_buckets > 1 or any(king_flip)
    for sq in range(64):
        n.king_bucket[sq] = king_table[sq]
        n.king_flip[sq] = king_flip[sq]
    return 0


def network_piece_values(dict packed, str fen):
    """The evaluation of `fen` (side to move's view, internal units) and, for each
    piece but the kings, (square, piece, what the evaluation loses when that piece
    alone is lifted off the board): a network's readable account of a position
    (genchess/explain.py), as Stockfish's `eval` shows its network's."""
    cdef NetworkParams n
    cdef Position pos, without
    cdef int sq, piece, whole
    network_params(&n, packed)
    set_fen(&pos, fen)
    whole = evaluate_network(&pos, &n, NULL)
    values = []
    for sq in range(64):
        piece = pos.board[sq]
        if piece == NO_PIECE or piece % 6 == KING:
            continue
        without = pos
        without.bb[piece] &= ~((<U64>1) << sq)
        without.occ[piece // 6] &= ~((<U64>1) << sq)
        without.all &= ~((<U64>1) << sq)
        without.board[sq] = NO_PIECE
        values.append((sq, piece, whole - evaluate_network(&without, &n, NULL)))
    return whole, values
