# The network trainer's hot loops: a minibatch's forward pass, its loss and
# backward pass, and Adam's step, on both cores (genchess/fitness/network_training.py
# drives them; genchess/fitness/network_model.py is the numpy reference they equal).
#
# The positions stay in the packed set's 32-byte records (position_sets/packed.py),
# one array for the whole set, and each minibatch's inputs are decoded here, in C, as
# they are needed: fifty million positions take 1.6 GB, where a sparse input matrix
# would take ten times that. A row of the training set is a record, or (rows from
# len(records) on, `flip files`) the record flips[row - len(records)] mirrored a <-> h.
#
# A minibatch is split into PARTS runs of consecutive positions, each with a gradient
# of its own: a thread takes a position's forward pass and at once its share of its
# part's gradient, so the position's few kilobytes of activations stay in that core's
# cache, and each sum runs in the positions' order. The parts are then added in their
# order, each thread a share of the numbers, and Adam's step moves them. However many
# threads train (one takes both parts in turn), the sums are the same, so the result
# is the same bit for bit (and a run resumes exactly on any number). A minibatch is
# one parallel region with one wait in it, between the parts and their sum.
#
# With king buckets (genome/network.py's KingLayout) a side's inputs are offset by its
# king's bucket and its squares mirrored a <-> h where the layout says so, the inputs
# eval_network.pyx reads: the first layer is 768 x K columns, and so is the
# piece-square term.
#
# `real` is float (training) or double (the checks against the reference, where the
# order of a sum must not hide a wrong term). OpenMP gives the threads; a compiler
# without it (setup.py checks) builds the same loops to run on one thread.

from libc.stdint cimport uint8_t, uint32_t, int16_t, uint64_t
from libc.math cimport exp
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from genchess_core.bitboard cimport pop_lsb

import os

import numpy as np

cdef extern from "network_fit_kernels.h" nogil:
    # The loops over a hidden layer, in C so that they can be built for more than one
    # CPU and chosen when the module loads (see the header).
    ctypedef struct gc_fit_kernels_float:
        void (*accumulate)(float* acc, const float* w1, const float* b1, int hidden,
                           const int16_t* inputs, int n) noexcept nogil
        float (*activate_dot)(const float* acc, float* act, const float* w, int hidden,
                              int squared) noexcept nogil
        void (*slope)(float* d, const float* w, float d_out, int hidden, int squared) noexcept nogil
        void (*scatter)(float* g_w1, float* g_b1, float* g_w2, const float* d, const float* act,
                        float d_out, int hidden, const int16_t* inputs, int n, int j0, int j1,
                        float* g_psqt, float psqt_slope) noexcept nogil
        void (*adam)(float* values, const float* gradient, float* m, float* v, Py_ssize_t n,
                     float beta1, float keep1, float beta2, float keep2, float unbias1,
                     float unbias2, float step, float epsilon, float top) noexcept nogil
    ctypedef struct gc_fit_kernels_double:
        void (*accumulate)(double* acc, const double* w1, const double* b1, int hidden,
                           const int16_t* inputs, int n) noexcept nogil
        double (*activate_dot)(const double* acc, double* act, const double* w, int hidden,
                               int squared) noexcept nogil
        void (*slope)(double* d, const double* w, double d_out, int hidden, int squared) noexcept nogil
        void (*scatter)(double* g_w1, double* g_b1, double* g_w2, const double* d, const double* act,
                        double d_out, int hidden, const int16_t* inputs, int n, int j0, int j1,
                        double* g_psqt, double psqt_slope) noexcept nogil
        void (*adam)(double* values, const double* gradient, double* m, double* v, Py_ssize_t n,
                     double beta1, double keep1, double beta2, double keep2, double unbias1,
                     double unbias2, double step, double epsilon, double top) noexcept nogil
    gc_fit_kernels_float gc_fit_float
    gc_fit_kernels_double gc_fit_double
    const char* gc_choose_fit_kernels(int allow_avx2)
    ctypedef void (*gc_fit_part)(void* work, int thread, int threads) noexcept nogil
    void gc_fit_parallel(gc_fit_part part, void* work, int threads)
    void gc_fit_barrier()
    void gc_fit_prefetch(const void* address)

# Chosen once, before any training: "avx512", "avx2" or "baseline" (the engine's switch chooses
# between the last two; AVX-512 rides on the AVX2 choice).
KERNELS = gc_choose_fit_kernels(os.environ.get("GENCHESS_NETWORK_KERNELS") != "baseline").decode()
# The threads that train at once (a minibatch's parts); more only share the parts' sum.
TRAINING_THREADS = PARTS

ctypedef fused real:
    float
    double

cdef enum:
    INPUTS = 768
    RECORD = 32                 # bytes a record (position_sets/packed.py)
    MAX_PIECES = 32
    MAX_BUCKETS = 16            # genome/network.py's MAX_BUCKETS
    MAX_KING_BUCKETS = 16       # genome/network.py's MAX_KING_BUCKETS
    AHEAD = 8                   # positions ahead that a record is prefetched

cdef double LN10 = 2.302585092994046
cdef double BETA1 = 0.9, BETA2 = 0.999, EPSILON = 1e-8     # optimise/adam.py's, Adam's own


cdef struct Position:
    int side
    int count
    int score
    double result
    int squares[MAX_PIECES]
    int codes[MAX_PIECES]
    int king[2]                 # each colour's king square (0 if none)


cdef inline void decode(const uint8_t* rec, bint flipped, Position* out) noexcept nogil:
    """A record's pieces (square, colour * 6 + kind) in ascending square order, the
    side to move and the labels; files mirrored when `flipped`."""
    cdef uint64_t occupancy = 0
    cdef int k, square, code, count = 0
    for k in range(8):
        occupancy |= (<uint64_t>rec[k]) << (8 * k)
    out.king[0] = out.king[1] = 0
    while occupancy:
        square = pop_lsb(&occupancy)
        code = (rec[8 + count // 2] >> (4 * (count & 1))) & 15
        out.squares[count] = square ^ 7 if flipped else square
        out.codes[count] = code
        if code % 6 == 5 and code < 12:
            out.king[code // 6] = out.squares[count]
        count += 1
    out.count = count
    out.side = rec[24] & 1
    out.score = <int16_t>(rec[26] | (rec[27] << 8))
    out.result = rec[28] * 0.5


cdef inline int king_key(const Buffers* ws, const Position* pos, int perspective) noexcept nogil:
    """A perspective's first input (its king's bucket * 768) plus the flip of its
    squares (0 or 7): eval_network.pyx's king_key."""
    cdef int sq = pos.king[perspective] ^ (56 * perspective)
    return ws.king_bucket[sq] * INPUTS + ws.king_flip[sq]


cdef inline int input_index(int perspective, int code, int square) noexcept nogil:
    """network_model.py's contract: own pieces first, ranks flipped for Black."""
    cdef int colour = code // 6
    return ((colour ^ perspective) * 6 + code % 6) * 64 + (square ^ (56 * perspective))


# input_index of every perspective, piece code and square, looked up by the decoding
# of every position instead of computed (two divisions by 6 an input).
cdef int16_t FEATURES[2][16][64]
cdef int _perspective, _code, _square
for _perspective in range(2):
    for _code in range(16):
        for _square in range(64):
            FEATURES[_perspective][_code][_square] = input_index(_perspective, _code, _square)


cdef enum:
    W1, B1, W2, B2, PSQT, ARRAYS    # the network's arrays, in FloatNetwork.arrays()' order
    LINE = 64                       # bytes a cache line
    PARTS = 2                       # a minibatch's partial gradients (see Buffers)


cdef struct Scratch:
    # One position's numbers while a thread trains on it: they stay in the core's own
    # cache from its forward pass to its gradient, a few kilobytes.
    int16_t inputs[2 * MAX_PIECES]  # us, then them
    int count, bucket
    double d_out                    # d loss / d out (forward only: the cp from White's view)
    double loss
    char* act                       # [2H] of real: activations (us, then them)
    char* slope                     # [2H] of real: accumulators, then d loss / d acc


cdef struct Buffers:
    # A minibatch's positions are split into PARTS runs of consecutive positions; each
    # run's gradient is summed, in the positions' order, into a gradient of its own (the
    # first into the call's gradient arrays, the others into `part`, the arrays one
    # after another at `offset`), and the others are then added to the first in their
    # order. A thread takes whole parts, so the numbers are the same bit for bit
    # whatever the number of threads (up to PARTS that train at once), and no thread
    # writes where another does until the sum.
    int hidden, buckets, threads
    int inputs                      # 768 a king bucket
    unsigned char king_bucket[64]   # a side's king square (its own seat) -> its bucket
    unsigned char king_flip[64]     # ... -> 7 where it reads the board mirrored a <-> h
    Py_ssize_t offset[ARRAYS + 1]   # offset[ARRAYS]: the numbers of a gradient
    char* part[PARTS]               # [offset[ARRAYS]] of real each (part[0] unused: the call's arrays)
    double part_loss[PARTS]
    Scratch* scratch                # [max(threads, PARTS)]
    unsigned char bucket_of[MAX_PIECES + 1]


cdef inline Py_ssize_t whole_lines(Py_ssize_t size) noexcept nogil:
    return (size + LINE - 1) // LINE * LINE


cdef class Workspace:
    """The buffers of one model's minibatches, made once and reused by every one: each
    part's gradient and each thread's one position."""
    cdef Buffers b
    cdef void* memory

    def __cinit__(self, int hidden, int buckets, int threads, bytes king_table=bytes(64),
                  bytes king_flip=bytes(64)):
        """king_table and king_flip: 64 bytes each, KingLayout's bucket and flip of each
        king square (one bucket, no mirror by default)."""
        cdef int pieces, divisor, k, scratches = max(threads, PARTS)
        cdef Py_ssize_t total, gradient_bytes, position_bytes
        cdef char* start
        if hidden < 1 or not 1 <= buckets <= MAX_BUCKETS or threads < 1:
            raise ValueError(f"a workspace for {hidden} units, {buckets} buckets, {threads} threads")
        if (len(king_table), len(king_flip)) != (64, 64) or max(king_table) >= MAX_KING_BUCKETS \
                or any(f not in (0, 7) for f in king_flip):
            raise ValueError("a king layout is 64 buckets and 64 flips of 0 or 7")
        self.b.hidden, self.b.buckets, self.b.threads = hidden, buckets, threads
        self.b.inputs = INPUTS * (max(king_table) + 1)
        for k in range(64):
            self.b.king_bucket[k], self.b.king_flip[k] = king_table[k], king_flip[k]
        divisor = (32 + buckets - 1) // buckets         # genome/network.py's output_bucket
        for pieces in range(MAX_PIECES + 1):
            self.b.bucket_of[pieces] = min(max(pieces - 2, 0) // divisor, buckets - 1)
        self.b.offset[W1] = 0
        self.b.offset[B1] = <Py_ssize_t>self.b.inputs * hidden
        self.b.offset[W2] = self.b.offset[B1] + hidden
        self.b.offset[B2] = self.b.offset[W2] + buckets * 2 * hidden
        self.b.offset[PSQT] = self.b.offset[B2] + buckets
        self.b.offset[ARRAYS] = self.b.offset[PSQT] + self.b.inputs
        # One allocation, each buffer starting a cache line (room for double, the larger
        # precision), so that no two threads write one line.
        gradient_bytes = whole_lines(self.b.offset[ARRAYS] * sizeof(double))
        position_bytes = whole_lines(2 * hidden * sizeof(double))
        total = (PARTS - 1) * gradient_bytes + whole_lines(scratches * sizeof(Scratch)) + 2 * scratches * position_bytes
        self.memory = malloc(total + LINE)
        if self.memory == NULL:
            raise MemoryError()
        start = <char*>self.memory + (LINE - <size_t>self.memory % LINE)
        self.b.part[0] = NULL
        for k in range(1, PARTS):
            self.b.part[k] = start
            start += gradient_bytes
        self.b.scratch = <Scratch*>start
        start += whole_lines(scratches * sizeof(Scratch))
        for k in range(scratches):
            self.b.scratch[k].act = start
            self.b.scratch[k].slope = start + position_bytes
            start += 2 * position_bytes

    def __dealloc__(self):
        free(self.memory)


cdef struct Batch:
    # One call's work, which every thread reads: the positions, the network, and with
    # `backward` the gradients and (m[W1] not NULL) Adam's step.
    Buffers* ws
    const uint8_t* records
    Py_ssize_t n_records, n
    const uint32_t* rows
    const uint32_t* flips
    char* w[ARRAYS]             # the arrays (w[PSQT] NULL without the term)
    char* g[ARRAYS]             # d loss / d each
    char* m[ARRAYS]             # Adam's moments
    char* v[ARRAYS]
    double limits[ARRAYS]
    double rate, unbias1, unbias2
    bint squared, backward
    double scale, k, wdl
    double loss                 # out: the sum of the positions' losses
    double* cp                  # out (forward only): each row's cp from White's view


cdef void forward_position(Batch* job, Scratch* pos_out, uint32_t row, real* kind) noexcept nogil:
    """Row `row`'s inputs, bucket, hidden layers and output, into a thread's scratch.
    Forward only, d_out holds its cp from White's view; with `backward`, its loss and
    the slopes of the loss (a mean over the call's positions) by its output and by each
    unit of its accumulators."""
    cdef int h = job.ws.hidden, c, i, b, index, key
    cdef Position pos
    cdef real* acc
    cdef real* a
    cdef int16_t* inputs
    cdef const real* w1 = <const real*>job.w[W1]
    cdef const real* w2 = <const real*>job.w[W2]
    cdef const real* psqt = <const real*>job.w[PSQT]
    cdef real out = 0, linear = 0, d_out
    cdef double cp, sign, s, target, expected, k = job.k, wdl = job.wdl
    if row < job.n_records:
        decode(job.records + <Py_ssize_t>row * RECORD, False, &pos)
    else:
        decode(job.records + <Py_ssize_t>job.flips[row - job.n_records] * RECORD, True, &pos)
    pos_out.count = pos.count
    b = job.ws.bucket_of[pos.count]
    pos_out.bucket = b
    for c in range(2):
        acc = <real*>pos_out.slope + c * h
        a = <real*>pos_out.act + c * h
        inputs = pos_out.inputs + c * MAX_PIECES
        key = king_key(job.ws, &pos, pos.side ^ c)
        for i in range(pos.count):
            index = (key & ~7) + FEATURES[pos.side ^ c][pos.codes[i]][pos.squares[i] ^ (key & 7)]  # us, then them
            inputs[i] = index
            if psqt != NULL:
                linear += psqt[index] if c == 0 else -psqt[index]
        if real is float:
            gc_fit_float.accumulate(acc, w1, <const float*>job.w[B1], h, inputs, pos.count)
            out += gc_fit_float.activate_dot(acc, a, w2 + b * 2 * h + c * h, h, job.squared)
        else:
            gc_fit_double.accumulate(acc, w1, <const double*>job.w[B1], h, inputs, pos.count)
            out += gc_fit_double.activate_dot(acc, a, w2 + b * 2 * h + c * h, h, job.squared)
    out = out + (<const real*>job.w[B2])[b] + linear * <real>0.5
    sign = 1.0 - 2.0 * pos.side
    cp = <double>(out * <real>job.scale) * sign
    if not job.backward:
        pos_out.d_out = cp
        return
    # The Texel loss (fitness/loss.py) against the blended label, and its slope.
    target = pos.result
    if wdl < 1.0:
        expected = 1.0 / (1.0 + exp(-k * pos.score / 400.0 * LN10))
        target = expected if wdl == 0.0 else wdl * pos.result + (1.0 - wdl) * expected
    s = 1.0 / (1.0 + exp(-k * cp / 400.0 * LN10))
    pos_out.loss = (target - s) * (target - s)
    d_out = <real>((2.0 * (s - target) * s * (1.0 - s) * (LN10 * k / 400.0)) / job.n * job.scale * sign)
    pos_out.d_out = d_out
    for c in range(2):
        acc = <real*>pos_out.slope + c * h
        if real is float:
            gc_fit_float.slope(acc, w2 + b * 2 * h + c * h, d_out, h, job.squared)
        else:
            gc_fit_double.slope(acc, w2 + b * 2 * h + c * h, d_out, h, job.squared)


cdef inline const void* record_of(Batch* job, uint32_t row) noexcept nogil:
    if row < job.n_records:
        return job.records + <Py_ssize_t>row * RECORD
    return job.records + <Py_ssize_t>job.flips[row - job.n_records] * RECORD


cdef inline void prefetch_ahead(Batch* job, Py_ssize_t p, Py_ssize_t p0, Py_ssize_t p1) noexcept nogil:
    """Ask for the record AHEAD positions on before position p (of a thread's run p0 to
    p1) is decoded, and at the run's start for its first AHEAD: in a shuffled minibatch
    of a large set, each is a cache miss the decoding would wait for."""
    cdef Py_ssize_t q
    if p == p0:
        for q in range(p0, min(p1, p0 + AHEAD)):
            gc_fit_prefetch(record_of(job, job.rows[q]))
    if p + AHEAD < p1:
        gc_fit_prefetch(record_of(job, job.rows[p + AHEAD]))


cdef void add_position(Batch* job, Scratch* pos, char** g, real* kind) noexcept nogil:
    """A trained position's share of a part's gradient (g: its arrays): its inputs'
    columns of the first layer, the biases, the output weights of its bucket and, with
    the term, the piece-square entries of its inputs."""
    cdef int h = job.ws.hidden, c
    cdef real d_out = <real>pos.d_out
    cdef real half = <real>0.5 * d_out
    cdef real* g_psqt = <real*>g[PSQT]
    (<real*>g[B2])[pos.bucket] += d_out
    for c in range(2):
        if real is float:
            gc_fit_float.scatter(<float*>g[W1], <float*>g[B1], <float*>g[W2] + pos.bucket * 2 * h + c * h,
                                 <float*>pos.slope + c * h, <float*>pos.act + c * h, d_out, h,
                                 pos.inputs + c * MAX_PIECES, pos.count, 0, h,
                                 g_psqt, half if c == 0 else -half)
        else:
            gc_fit_double.scatter(<double*>g[W1], <double*>g[B1], <double*>g[W2] + pos.bucket * 2 * h + c * h,
                                  <double*>pos.slope + c * h, <double*>pos.act + c * h, d_out, h,
                                  pos.inputs + c * MAX_PIECES, pos.count, 0, h,
                                  g_psqt, half if c == 0 else -half)


cdef void train_part(Batch* job, int part, Scratch* scratch, real* kind) noexcept nogil:
    """Part `part` of the minibatch: each of its positions forward and at once into the
    part's gradient (zeroed first), in the positions' order; its losses' sum."""
    cdef Buffers* ws = job.ws
    cdef Py_ssize_t p0 = job.n * part // PARTS, p1 = job.n * (part + 1) // PARTS, p
    cdef char* g[ARRAYS]
    cdef double loss = 0
    cdef int array
    for array in range(ARRAYS):
        if job.w[array] == NULL:
            g[array] = NULL
            continue
        g[array] = job.g[array] if part == 0 else ws.part[part] + ws.offset[array] * sizeof(real)
        memset(g[array], 0, (ws.offset[array + 1] - ws.offset[array]) * sizeof(real))
    for p in range(p0, p1):
        prefetch_ahead(job, p, p0, p1)
        forward_position(job, scratch, job.rows[p], kind)
        loss += scratch.loss
        add_position(job, scratch, g, kind)
    ws.part_loss[part] = loss


cdef void sum_parts(Batch* job, int array, Py_ssize_t first, Py_ssize_t last, real* kind) noexcept nogil:
    """Numbers first to last of one array's gradient: the other parts added to the
    first, which the call's array holds, in their order."""
    cdef Buffers* ws = job.ws
    cdef real* out = <real*>job.g[array]
    cdef const real* part
    cdef Py_ssize_t i, offset = ws.offset[array]
    cdef int k
    for k in range(1, PARTS):
        part = <const real*>ws.part[k] + offset
        for i in range(first, last):
            out[i] = out[i] + part[i]


cdef void adam(Batch* job, int array, Py_ssize_t first, Py_ssize_t last, real* kind) noexcept nogil:
    """Adam's step (optimise/adam.py's adam_move, in the arrays' own precision and order
    of operations) on numbers first to last of one array, then clipped to its limit."""
    if last <= first:
        return
    if real is float:
        gc_fit_float.adam(<float*>job.w[array] + first, <float*>job.g[array] + first,
                          <float*>job.m[array] + first, <float*>job.v[array] + first, last - first,
                          <float>BETA1, <float>(1.0 - BETA1), <float>BETA2, <float>(1.0 - BETA2),
                          <float>job.unbias1, <float>job.unbias2, <float>job.rate, <float>EPSILON,
                          <float>job.limits[array])
    else:
        gc_fit_double.adam(<double*>job.w[array] + first, <double*>job.g[array] + first,
                           <double*>job.m[array] + first, <double*>job.v[array] + first, last - first,
                           BETA1, 1.0 - BETA1, BETA2, 1.0 - BETA2, job.unbias1, job.unbias2, job.rate,
                           EPSILON, job.limits[array])


cdef void batch_part(Batch* job, int thread, int threads, real* kind) noexcept nogil:
    """One thread's share of a call (gc_fit_parallel runs one on each thread).

    Forward only, the threads split the positions. Training, each thread takes whole
    parts (Buffers), every position's forward pass and gradient in turn, so that its
    numbers stay in the thread's own cache between the two; after one wait, each
    thread sums its share of every array's numbers over the parts and moves them by
    Adam's step, which is number by number. Thread 0 also sums the losses."""
    cdef Buffers* ws = job.ws
    cdef Py_ssize_t p, p0, p1, first, last, length
    cdef int part, array, lanes = LINE // sizeof(real)
    if not job.backward:
        p0, p1 = job.n * thread // threads, job.n * (thread + 1) // threads
        for p in range(p0, p1):
            prefetch_ahead(job, p, p0, p1)
            forward_position(job, &ws.scratch[thread], job.rows[p], kind)
            job.cp[p] = ws.scratch[thread].d_out
        return
    part = thread
    while part < PARTS:
        train_part(job, part, &ws.scratch[part], kind)
        part += threads
    gc_fit_barrier()
    for array in range(ARRAYS):
        if job.w[array] == NULL:
            continue
        length = ws.offset[array + 1] - ws.offset[array]
        # whole cache lines a thread (the arrays start lines: FlatArrays)
        first = min((length * thread // threads + lanes - 1) // lanes * lanes, length)
        last = min((length * (thread + 1) // threads + lanes - 1) // lanes * lanes, length)
        sum_parts(job, array, first, last, kind)
        if job.m[W1] != NULL:
            adam(job, array, first, last, kind)
    if thread == 0:
        job.loss = 0
        for part in range(PARTS):
            job.loss += ws.part_loss[part]


cdef void batch_part_float(void* job, int thread, int threads) noexcept nogil:
    batch_part(<Batch*>job, thread, threads, <float*>NULL)


cdef void batch_part_double(void* job, int thread, int threads) noexcept nogil:
    batch_part(<Batch*>job, thread, threads, <double*>NULL)


cdef void run(Batch* job, bint is_float) noexcept nogil:
    gc_fit_parallel(batch_part_float if is_float else batch_part_double, job, job.ws.threads)


def check_rows(const uint8_t[:, ::1] records, const uint32_t[::1] rows, const uint32_t[::1] flips):
    """ValueError unless every row names a record or a flipped one (the kernels trust them)."""
    cdef Py_ssize_t n = records.shape[0], i
    if records.shape[1] != RECORD:
        raise ValueError(f"records of {records.shape[1]} bytes, not {RECORD}")
    for i in range(flips.shape[0]):
        if flips[i] >= n:
            raise ValueError(f"flipped row {i} names record {flips[i]} of {n}")
    for i in range(rows.shape[0]):
        if rows[i] >= n + flips.shape[0]:
            raise ValueError(f"row {rows[i]} of {n + flips.shape[0]}")


def _shapes(Workspace ws, Py_ssize_t w1_rows, Py_ssize_t w1_cols, Py_ssize_t b1, Py_ssize_t w2_rows,
            Py_ssize_t w2_cols, Py_ssize_t b2, Py_ssize_t psqt):
    h = ws.b.hidden
    if (w1_rows, w1_cols, b1, w2_rows, w2_cols, b2) != (ws.b.inputs, h, h, ws.b.buckets, 2 * h, ws.b.buckets):
        raise ValueError(f"arrays of shapes {(w1_rows, w1_cols)}, {b1}, {(w2_rows, w2_cols)}, {b2} do "
                         f"not fit {ws.b.inputs} inputs, {h} units and {ws.b.buckets} buckets")
    if psqt not in (0, ws.b.inputs):
        raise ValueError(f"a piece-square term of {psqt} numbers")


cdef void _positions(Batch* job, Workspace ws, const uint8_t[:, ::1] records, const uint32_t[::1] flips,
                     const uint32_t[::1] rows, bint squared, double scale, double k, double wdl,
                     bint backward):
    job.ws = &ws.b
    job.records = &records[0, 0]
    job.n_records = records.shape[0]
    job.flips = &flips[0] if flips.shape[0] else NULL
    job.rows = &rows[0] if rows.shape[0] else NULL
    job.n = rows.shape[0]
    job.squared, job.scale, job.k, job.wdl, job.backward = squared, scale, k, wdl, backward
    job.m[W1] = NULL


cdef void _arrays(char** into, const real[:, ::1] w1, const real[::1] b1, const real[:, ::1] w2,
                  const real[::1] b2, const real[::1] psqt):
    into[W1], into[B1], into[W2], into[B2] = <char*>&w1[0, 0], <char*>&b1[0], <char*>&w2[0, 0], <char*>&b2[0]
    into[PSQT] = <char*>&psqt[0] if psqt.shape[0] else NULL


def gradient(Workspace ws, const uint8_t[:, ::1] records, const uint32_t[::1] flips,
             const uint32_t[::1] rows, const real[:, ::1] w1, const real[::1] b1,
             const real[:, ::1] w2, const real[::1] b2, const real[::1] psqt,
             real[:, ::1] g_w1, real[::1] g_b1, real[:, ::1] g_w2, real[::1] g_b2, real[::1] g_psqt,
             bint squared, double scale, double k, double wdl):
    """The mean loss of the positions `rows` and its gradient by every array, written
    into the g_ arrays (psqt and g_psqt empty without the term); the rows were
    checked (check_rows) when the set was."""
    _shapes(ws, w1.shape[0], w1.shape[1], b1.shape[0], w2.shape[0], w2.shape[1], b2.shape[0], psqt.shape[0])
    _shapes(ws, g_w1.shape[0], g_w1.shape[1], g_b1.shape[0], g_w2.shape[0], g_w2.shape[1], g_b2.shape[0],
            g_psqt.shape[0])
    cdef Batch job
    if rows.shape[0] == 0:
        return float("nan")
    _positions(&job, ws, records, flips, rows, squared, scale, k, wdl, True)
    _arrays(job.w, w1, b1, w2, b2, psqt)
    _arrays(job.g, g_w1, g_b1, g_w2, g_b2, g_psqt)
    with nogil:
        run(&job, real is float)
    return job.loss / job.n


def train_batch(Workspace ws, const uint8_t[:, ::1] records, const uint32_t[::1] flips,
                const uint32_t[::1] rows, real[::1] values, real[::1] gradient, real[::1] m, real[::1] v,
                const Py_ssize_t[::1] ends, const double[::1] limits, long t, double rate,
                bint squared, double scale, double k, double wdl):
    """One minibatch of the positions `rows`: its gradient (into `gradient`) and Adam's
    t-th step (optimise/adam.py's adam_move, in the arrays' own precision and order of
    operations) on `values`, each array then clipped to [-limits[k], limits[k]]; the
    mean loss. The four vectors hold the network's arrays one after another
    (FloatNetwork.arrays()' order, the k-th ending before ends[k])."""
    cdef Py_ssize_t h = ws.b.hidden, buckets = ws.b.buckets, n = values.shape[0], a, first
    cdef Py_ssize_t w1_size = <Py_ssize_t>ws.b.inputs * h
    cdef Py_ssize_t arrays = ends.shape[0]
    cdef Py_ssize_t layout[ARRAYS]
    cdef bint fits = ARRAYS - 1 <= arrays <= ARRAYS and limits.shape[0] == arrays and t >= 1
    cdef Batch job
    layout[:] = [w1_size, w1_size + h, w1_size + h + buckets * 2 * h,
                 w1_size + h + buckets * 2 * h + buckets, w1_size + h + buckets * 2 * h + buckets + ws.b.inputs]
    for a in range(arrays if fits else 0):
        fits = fits and ends[a] == layout[a]
    if (not fits or n != ends[arrays - 1] or gradient.shape[0] != n or m.shape[0] != n or v.shape[0] != n):
        raise ValueError(f"train_batch: vectors of {n} numbers ending at {list(ends)} do not hold the arrays "
                         f"of {h} units and {buckets} buckets (or step {t})")
    if rows.shape[0] == 0:
        return float("nan")
    _positions(&job, ws, records, flips, rows, squared, scale, k, wdl, True)
    for a in range(ARRAYS):
        first = 0 if a == 0 else layout[a - 1]
        job.w[a] = <char*>&values[first] if a < arrays else NULL
        job.g[a] = <char*>&gradient[first] if a < arrays else NULL
        job.m[a] = <char*>&m[first] if a < arrays else NULL
        job.v[a] = <char*>&v[first] if a < arrays else NULL
        job.limits[a] = limits[a] if a < arrays else 0
    job.rate = rate
    job.unbias1, job.unbias2 = 1.0 - BETA1 ** t, 1.0 - BETA2 ** t
    with nogil:
        run(&job, real is float)
    return job.loss / job.n


def evaluate(Workspace ws, const uint8_t[:, ::1] records, const uint32_t[::1] flips,
             const uint32_t[::1] rows, const real[:, ::1] w1, const real[::1] b1,
             const real[:, ::1] w2, const real[::1] b2, const real[::1] psqt,
             bint squared, double scale):
    """Each row's evaluation in centipawns from White's view (float64 [n])."""
    _shapes(ws, w1.shape[0], w1.shape[1], b1.shape[0], w2.shape[0], w2.shape[1], b2.shape[0], psqt.shape[0])
    cp = np.empty(rows.shape[0], dtype=np.float64)
    cdef double[::1] out = cp
    cdef Batch job
    if rows.shape[0] == 0:
        return cp
    _positions(&job, ws, records, flips, rows, squared, scale, 0.0, 1.0, False)
    _arrays(job.w, w1, b1, w2, b2, psqt)
    job.cp = &out[0]
    with nogil:
        run(&job, real is float)
    return cp


def inputs_of(Workspace ws, const uint8_t[:, ::1] records, Py_ssize_t row, bint flipped):
    """For tests: (us, them), the inputs of record `row` (mirrored a <-> h if
    `flipped`) for the side to move and the other side, in the records' order, by
    ws's king layout."""
    cdef Position pos
    decode(&records[row, 0], flipped, &pos)
    keys = [king_key(&ws.b, &pos, pos.side ^ c) for c in range(2)]
    return tuple([(keys[c] & ~7) + FEATURES[pos.side ^ c][pos.codes[i]][pos.squares[i] ^ (keys[c] & 7)]
                  for i in range(pos.count)] for c in range(2))
