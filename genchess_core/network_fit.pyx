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
# The threads never share a sum, so the result is the same bit for bit whatever the
# number of threads (and a run resumes exactly on any): the forward pass splits the
# minibatch's positions between the threads, each position's numbers its own; the
# backward pass splits the hidden units instead, each thread walking every position
# in order and adding into its own units' columns of the first layer's gradient. So
# no thread needs a private copy of the gradient to sum at the end, and each sum is
# taken in the positions' order. The few sums over positions alone (the output bias,
# the piece-square term, the loss) are taken in order on one thread. A minibatch is
# one parallel region, forward, backward and Adam's step, with one wait in it
# (batch_part says why one is enough).
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

ctypedef fused real:
    float
    double

cdef enum:
    INPUTS = 768
    RECORD = 32                 # bytes a record (position_sets/packed.py)
    BLOCK = 2048                # positions a pass: the workspace's rows
    MAX_PIECES = 32
    MAX_BUCKETS = 16            # genome/network.py's MAX_BUCKETS
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


cdef inline void decode(const uint8_t* rec, bint flipped, Position* out) noexcept nogil:
    """A record's pieces (square, colour * 6 + kind) in ascending square order, the
    side to move and the labels; files mirrored when `flipped`."""
    cdef uint64_t occupancy = 0
    cdef int k, square, count = 0
    for k in range(8):
        occupancy |= (<uint64_t>rec[k]) << (8 * k)
    while occupancy:
        square = pop_lsb(&occupancy)
        out.squares[count] = square ^ 7 if flipped else square
        out.codes[count] = (rec[8 + count // 2] >> (4 * (count & 1))) & 15
        count += 1
    out.count = count
    out.side = rec[24] & 1
    out.score = <int16_t>(rec[26] | (rec[27] << 8))
    out.result = rec[28] * 0.5


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


cdef struct Buffers:
    int hidden, buckets, threads
    int16_t* inputs             # [BLOCK][2][MAX_PIECES]
    int* counts                 # [BLOCK]
    int* bucket                 # [BLOCK]
    double* d_out               # [BLOCK]: d loss / d out (also the cp, forward only)
    double* loss                # [BLOCK]
    char* act                   # [BLOCK][2H] of real: activations (us, then them)
    char* slope                 # [BLOCK][2H] of real: accumulators, then d loss / d acc
    unsigned char bucket_of[MAX_PIECES + 1]


cdef class Workspace:
    """The buffers of one model's passes, made once and reused by every minibatch:
    each position of a block's inputs, bucket, output slope and its two hidden
    layers' activations and slopes."""
    cdef Buffers b
    cdef void* memory

    def __cinit__(self, int hidden, int buckets, int threads):
        cdef int pieces, divisor
        cdef Py_ssize_t sizes[7]
        cdef Py_ssize_t total = 0, k
        cdef char* start
        if hidden < 1 or not 1 <= buckets <= MAX_BUCKETS or threads < 1:
            raise ValueError(f"a workspace for {hidden} units, {buckets} buckets, {threads} threads")
        self.b.hidden, self.b.buckets, self.b.threads = hidden, buckets, threads
        divisor = (32 + buckets - 1) // buckets         # genome/network.py's output_bucket
        for pieces in range(MAX_PIECES + 1):
            self.b.bucket_of[pieces] = min(max(pieces - 2, 0) // divisor, buckets - 1)
        # One allocation, each buffer starting a cache line, so that the threads, which
        # write different positions' rows, share no line but at the split's one row.
        sizes[:] = [BLOCK * 2 * MAX_PIECES * sizeof(int16_t), BLOCK * sizeof(int), BLOCK * sizeof(int),
                    BLOCK * sizeof(double), BLOCK * sizeof(double), BLOCK * 2 * hidden * sizeof(double),
                    BLOCK * 2 * hidden * sizeof(double)]
        for k in range(7):
            sizes[k] = (sizes[k] + LINE - 1) // LINE * LINE
            total += sizes[k]
        self.memory = malloc(total + LINE)
        if self.memory == NULL:
            raise MemoryError()
        start = <char*>self.memory + (LINE - <size_t>self.memory % LINE)
        self.b.inputs = <int16_t*>start
        self.b.counts = <int*>(start + sizes[0])
        self.b.bucket = <int*>(start + sizes[0] + sizes[1])
        self.b.d_out = <double*>(start + sizes[0] + sizes[1] + sizes[2])
        self.b.loss = <double*>(start + sizes[0] + sizes[1] + sizes[2] + sizes[3])
        self.b.act = start + sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4]
        self.b.slope = self.b.act + sizes[5]

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


cdef void forward_position(Batch* job, Py_ssize_t p, uint32_t row, real* kind) noexcept nogil:
    """Row `row`'s inputs, bucket, hidden layers and output, into the workspace's
    position p. Forward only, ws.d_out holds its cp from White's view; with
    `backward`, its loss and the slopes of the loss (a mean over the call's positions)
    by its output and by each unit of its accumulators."""
    cdef Buffers* ws = job.ws
    cdef int h = ws.hidden, c, i, b, index
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
    ws.counts[p] = pos.count
    b = ws.bucket_of[pos.count]
    ws.bucket[p] = b
    for c in range(2):
        acc = <real*>ws.slope + (2 * p + c) * h
        a = <real*>ws.act + (2 * p + c) * h
        inputs = ws.inputs + (2 * p + c) * MAX_PIECES
        for i in range(pos.count):
            index = FEATURES[pos.side ^ c][pos.codes[i]][pos.squares[i]]     # us, then them
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
        ws.d_out[p] = cp
        return
    # The Texel loss (fitness/loss.py) against the blended label, and its slope.
    target = pos.result
    if wdl < 1.0:
        expected = 1.0 / (1.0 + exp(-k * pos.score / 400.0 * LN10))
        target = expected if wdl == 0.0 else wdl * pos.result + (1.0 - wdl) * expected
    s = 1.0 / (1.0 + exp(-k * cp / 400.0 * LN10))
    ws.loss[p] = (target - s) * (target - s)
    d_out = <real>((2.0 * (s - target) * s * (1.0 - s) * (LN10 * k / 400.0)) / job.n * job.scale * sign)
    ws.d_out[p] = d_out
    for c in range(2):
        acc = <real*>ws.slope + (2 * p + c) * h
        if real is float:
            gc_fit_float.slope(acc, w2 + b * 2 * h + c * h, d_out, h, job.squared)
        else:
            gc_fit_double.slope(acc, w2 + b * 2 * h + c * h, d_out, h, job.squared)


cdef inline const void* record_of(Batch* job, uint32_t row) noexcept nogil:
    if row < job.n_records:
        return job.records + <Py_ssize_t>row * RECORD
    return job.records + <Py_ssize_t>job.flips[row - job.n_records] * RECORD


cdef void forward_positions(Batch* job, const uint32_t* rows, Py_ssize_t p0, Py_ssize_t p1,
                            real* kind) noexcept nogil:
    """forward_position for positions p0 to p1 of a block (a thread's share). Each
    record is asked for AHEAD positions before it is decoded: in a shuffled
    minibatch of a large set, each is a cache miss the decoding would wait for."""
    cdef Py_ssize_t p
    for p in range(p0, min(p1, p0 + AHEAD)):
        gc_fit_prefetch(record_of(job, rows[p]))
    for p in range(p0, p1):
        if p + AHEAD < p1:
            gc_fit_prefetch(record_of(job, rows[p + AHEAD]))
        forward_position(job, p, rows[p], kind)


cdef void backward_units(Batch* job, Py_ssize_t count, int j0, int j1, real* g_psqt) noexcept nogil:
    """Add a block's positions, in their order, to the gradients of the hidden units
    j0 to j1 (a thread's): their columns of the first layer, their biases and their
    output weights; and to g_psqt, the piece-square term's, unless it is NULL (one
    thread's)."""
    cdef Buffers* ws = job.ws
    cdef Py_ssize_t p
    cdef int h = ws.hidden, c, b
    cdef real d_out, half
    cdef real* d
    cdef real* a
    cdef real* g_w2
    for p in range(count):
        b = ws.bucket[p]
        d_out = <real>ws.d_out[p]
        half = <real>0.5 * d_out
        for c in range(2):
            d = <real*>ws.slope + (2 * p + c) * h
            a = <real*>ws.act + (2 * p + c) * h
            g_w2 = <real*>job.g[W2] + b * 2 * h + c * h
            if real is float:
                gc_fit_float.scatter(<float*>job.g[W1], <float*>job.g[B1], g_w2, d, a, d_out, h,
                                     ws.inputs + (2 * p + c) * MAX_PIECES, ws.counts[p], j0, j1,
                                     g_psqt, half if c == 0 else -half)
            else:
                gc_fit_double.scatter(<double*>job.g[W1], <double*>job.g[B1], g_w2, d, a, d_out, h,
                                      ws.inputs + (2 * p + c) * MAX_PIECES, ws.counts[p], j0, j1,
                                      g_psqt, half if c == 0 else -half)


cdef void backward_sums(Batch* job, Py_ssize_t count, real* g_b2) noexcept nogil:
    """The output biases' gradient and job.loss, sums over a block's positions alone, in
    their order (one running sum over the blocks, so that their size changes no number)."""
    cdef Buffers* ws = job.ws
    cdef Py_ssize_t p
    cdef double total = job.loss
    for p in range(count):
        g_b2[ws.bucket[p]] += <real>ws.d_out[p]
        total += ws.loss[p]
    job.loss = total


cdef void zero(real* values, Py_ssize_t n) noexcept nogil:
    memset(values, 0, n * sizeof(real))


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

    The forward pass splits each block's positions between the threads, each
    position's numbers its own. The backward pass splits the hidden units instead,
    whole cache lines of them a thread, each thread walking every position in order and
    adding into its own units' part of the gradients, which it zeroed itself; thread 0
    also takes the sums over positions alone (the piece-square term's in the same
    walk). Adam's step then moves what each thread summed, so only one wait a block is
    needed: after its forward pass (and before the next block's, which reuses the
    workspace). No sum is split between threads, so the numbers are the same bit for
    bit whatever their number.

    Thread 0, which runs the region, has the most work (those sums) and the last
    units, the fewest when the units do not split evenly: so it tends to arrive last at
    the region's end, where the others go to sleep, and goes on without waiting for a
    thread to wake (a passive wait is a system call and a scheduling)."""
    cdef Buffers* ws = job.ws
    cdef int h = ws.hidden, lanes = LINE // sizeof(real), width, j0, j1, c, b
    cdef Py_ssize_t start = 0, count, p, row
    cdef bint serial = thread == 0
    cdef real* g_psqt = <real*>job.g[PSQT] if serial else NULL
    width = ((h + lanes - 1) // lanes + threads - 1) // threads * lanes
    j0 = min((threads - 1 - thread) * width, h)
    j1 = min(j0 + width, h)
    if job.backward:
        if j0 == 0 and j1 == h:
            zero(<real*>job.g[W1], INPUTS * h)
        else:
            for row in range(INPUTS):
                zero(<real*>job.g[W1] + row * h + j0, j1 - j0)
        zero(<real*>job.g[B1] + j0, j1 - j0)
        for b in range(2 * ws.buckets):
            zero(<real*>job.g[W2] + b * h + j0, j1 - j0)
        if serial:
            zero(<real*>job.g[B2], ws.buckets)
            if job.g[PSQT] != NULL:
                zero(<real*>job.g[PSQT], INPUTS)
            job.loss = 0
    while start < job.n:
        count = min(<Py_ssize_t>BLOCK, job.n - start)
        forward_positions(job, job.rows + start, count * thread // threads, count * (thread + 1) // threads,
                          kind)
        if not job.backward:
            for p in range(count * thread // threads, count * (thread + 1) // threads):
                job.cp[start + p] = ws.d_out[p]
        else:
            gc_fit_barrier()
            backward_units(job, count, j0, j1, g_psqt)
            if serial:
                backward_sums(job, count, <real*>job.g[B2])
            if start + count < job.n:
                gc_fit_barrier()
        start += count
    if not job.backward or job.m[W1] == NULL:
        return
    if j0 == 0 and j1 == h:
        adam(job, W1, 0, INPUTS * h, kind)
    else:
        for row in range(INPUTS):
            adam(job, W1, row * h + j0, row * h + j1, kind)
    adam(job, B1, j0, j1, kind)
    for b in range(2 * ws.buckets):
        adam(job, W2, b * h + j0, b * h + j1, kind)
    if serial:
        adam(job, B2, 0, ws.buckets, kind)
        if job.w[PSQT] != NULL:
            adam(job, PSQT, 0, INPUTS, kind)


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
    if (w1_rows, w1_cols, b1, w2_rows, w2_cols, b2) != (INPUTS, h, h, ws.b.buckets, 2 * h, ws.b.buckets):
        raise ValueError(f"arrays of shapes {(w1_rows, w1_cols)}, {b1}, {(w2_rows, w2_cols)}, {b2} do "
                         f"not fit {h} units and {ws.b.buckets} buckets")
    if psqt not in (0, INPUTS):
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
    cdef Py_ssize_t arrays = ends.shape[0]
    cdef Py_ssize_t layout[ARRAYS]
    cdef bint fits = ARRAYS - 1 <= arrays <= ARRAYS and limits.shape[0] == arrays and t >= 1
    cdef Batch job
    layout[:] = [INPUTS * h, INPUTS * h + h, INPUTS * h + h + buckets * 2 * h,
                 INPUTS * h + h + buckets * 2 * h + buckets, INPUTS * h + h + buckets * 2 * h + buckets + INPUTS]
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


def inputs_of(const uint8_t[:, ::1] records, Py_ssize_t row, bint flipped):
    """For tests: (us, them), the inputs of record `row` (mirrored a <-> h if
    `flipped`) for the side to move and the other side, in the records' order."""
    cdef Position pos
    decode(&records[row, 0], flipped, &pos)
    return tuple([FEATURES[pos.side ^ c][pos.codes[i]][pos.squares[i]] for i in range(pos.count)]
                 for c in range(2))
