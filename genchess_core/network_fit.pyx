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
# the piece-square term, the loss) are taken in order on one thread.
#
# `real` is float (training) or double (the checks against the reference, where the
# order of a sum must not hide a wrong term). OpenMP gives the threads; a compiler
# without it (setup.py checks) builds the same loops to run on one thread.

from libc.stdint cimport uint8_t, uint32_t, int16_t, uint64_t
from libc.math cimport exp
from libc.stdlib cimport malloc, free
from cython.parallel cimport prange
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
                        float d_out, int hidden, const int16_t* inputs, int n, int j0, int j1) noexcept nogil
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
                        double d_out, int hidden, const int16_t* inputs, int n, int j0, int j1) noexcept nogil
        void (*adam)(double* values, const double* gradient, double* m, double* v, Py_ssize_t n,
                     double beta1, double keep1, double beta2, double keep2, double unbias1,
                     double unbias2, double step, double epsilon, double top) noexcept nogil
    gc_fit_kernels_float gc_fit_float
    gc_fit_kernels_double gc_fit_double
    const char* gc_choose_fit_kernels(int allow_avx2)

# Chosen once, before any training: "avx2" or "baseline" (the engine's switch chooses both).
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


cdef class Workspace:
    """The buffers of one model's passes, made once and reused by every minibatch:
    each position of a block's inputs, bucket, output slope and its two hidden
    layers' activations and slopes."""
    cdef int hidden, buckets, threads
    cdef int16_t* inputs         # [BLOCK][2][MAX_PIECES]
    cdef int* counts             # [BLOCK]
    cdef int* bucket             # [BLOCK]
    cdef double* d_out           # [BLOCK]: d loss / d out (also the cp, forward only)
    cdef double* loss            # [BLOCK]
    cdef char* act               # [BLOCK][2H] of real: activations (us, then them)
    cdef char* slope             # [BLOCK][2H] of real: accumulators, then d loss / d acc
    cdef unsigned char bucket_of[MAX_PIECES + 1]

    def __cinit__(self, int hidden, int buckets, int threads):
        cdef int pieces, divisor
        if hidden < 1 or not 1 <= buckets <= MAX_BUCKETS or threads < 1:
            raise ValueError(f"a workspace for {hidden} units, {buckets} buckets, {threads} threads")
        self.hidden, self.buckets, self.threads = hidden, buckets, threads
        divisor = (32 + buckets - 1) // buckets         # genome/network.py's output_bucket
        for pieces in range(MAX_PIECES + 1):
            self.bucket_of[pieces] = min(max(pieces - 2, 0) // divisor, buckets - 1)
        self.inputs = <int16_t*>malloc(BLOCK * 2 * MAX_PIECES * sizeof(int16_t))
        self.counts = <int*>malloc(BLOCK * sizeof(int))
        self.bucket = <int*>malloc(BLOCK * sizeof(int))
        self.d_out = <double*>malloc(BLOCK * sizeof(double))
        self.loss = <double*>malloc(BLOCK * sizeof(double))
        self.act = <char*>malloc(BLOCK * 2 * hidden * sizeof(double))
        self.slope = <char*>malloc(BLOCK * 2 * hidden * sizeof(double))
        if (self.inputs == NULL or self.counts == NULL or self.bucket == NULL or self.d_out == NULL
                or self.loss == NULL or self.act == NULL or self.slope == NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.inputs)
        free(self.counts)
        free(self.bucket)
        free(self.d_out)
        free(self.loss)
        free(self.act)
        free(self.slope)


cdef void forward_block(Workspace ws, const uint8_t* records, Py_ssize_t n_records,
                        const uint32_t* rows, const uint32_t* flips, Py_ssize_t count,
                        const real* w1, const real* b1, const real* w2, const real* b2,
                        const real* psqt, bint squared, double scale, double k, double wdl,
                        Py_ssize_t batch, bint backward) noexcept nogil:
    """Each of `count` rows' inputs, bucket, hidden layers and output, the rows split
    between the threads. Forward only, ws.d_out holds each row's cp from White's view;
    with `backward`, its loss and the slopes of the loss (a mean over `batch`
    positions) by its output and by each unit of its accumulators."""
    cdef Py_ssize_t p
    for p in prange(count, nogil=True, num_threads=ws.threads, schedule="static"):
        forward_position(ws, p, records, n_records, rows[p], flips, w1, b1, w2, b2, psqt, squared,
                         scale, k, wdl, batch, backward)


cdef void forward_position(Workspace ws, Py_ssize_t p, const uint8_t* records, Py_ssize_t n_records,
                           uint32_t row, const uint32_t* flips, const real* w1, const real* b1,
                           const real* w2, const real* b2, const real* psqt, bint squared,
                           double scale, double k, double wdl, Py_ssize_t batch,
                           bint backward) noexcept nogil:
    """forward_block's work for one row, into the workspace's position p (each call's
    locals its own: a thread's)."""
    cdef int h = ws.hidden, c, i, b, index
    cdef Position pos
    cdef real* acc
    cdef real* a
    cdef int16_t* inputs
    cdef real out = 0, linear = 0, d_out
    cdef double cp, sign, s, target, expected
    if row < n_records:
        decode(records + <Py_ssize_t>row * RECORD, False, &pos)
    else:
        decode(records + <Py_ssize_t>flips[row - n_records] * RECORD, True, &pos)
    ws.counts[p] = pos.count
    b = ws.bucket_of[pos.count]
    ws.bucket[p] = b
    for c in range(2):
        acc = <real*>ws.slope + (2 * p + c) * h
        a = <real*>ws.act + (2 * p + c) * h
        inputs = ws.inputs + (2 * p + c) * MAX_PIECES
        for i in range(pos.count):
            index = input_index(pos.side ^ c, pos.codes[i], pos.squares[i])   # us, then them
            inputs[i] = index
            if psqt != NULL:
                linear += psqt[index] if c == 0 else -psqt[index]
        if real is float:
            gc_fit_float.accumulate(acc, w1, b1, h, inputs, pos.count)
            out += gc_fit_float.activate_dot(acc, a, w2 + b * 2 * h + c * h, h, squared)
        else:
            gc_fit_double.accumulate(acc, w1, b1, h, inputs, pos.count)
            out += gc_fit_double.activate_dot(acc, a, w2 + b * 2 * h + c * h, h, squared)
    out = out + b2[b] + linear * <real>0.5
    sign = 1.0 - 2.0 * pos.side
    cp = <double>(out * <real>scale) * sign
    if not backward:
        ws.d_out[p] = cp
        return
    # The Texel loss (fitness/loss.py) against the blended label, and its slope.
    target = pos.result
    if wdl < 1.0:
        expected = 1.0 / (1.0 + exp(-k * pos.score / 400.0 * LN10))
        target = expected if wdl == 0.0 else wdl * pos.result + (1.0 - wdl) * expected
    s = 1.0 / (1.0 + exp(-k * cp / 400.0 * LN10))
    ws.loss[p] = (target - s) * (target - s)
    d_out = <real>((2.0 * (s - target) * s * (1.0 - s) * (LN10 * k / 400.0)) / batch * scale * sign)
    ws.d_out[p] = d_out
    for c in range(2):
        acc = <real*>ws.slope + (2 * p + c) * h
        if real is float:
            gc_fit_float.slope(acc, w2 + b * 2 * h + c * h, d_out, h, squared)
        else:
            gc_fit_double.slope(acc, w2 + b * 2 * h + c * h, d_out, h, squared)


cdef double backward_block(Workspace ws, Py_ssize_t count, real* g_w1, real* g_b1, real* g_w2,
                           real* g_b2, real* g_psqt) noexcept nogil:
    """Add a forward_block's positions to the gradients, in their order, the hidden
    units split between the threads; the sum of the positions' losses."""
    cdef Py_ssize_t p
    cdef int parts = ws.threads, part, c, i, index
    cdef int width = ((ws.hidden // 8 + parts - 1) // parts) * 8     # whole vectors a thread
    cdef real d_out
    cdef double total = 0
    for part in prange(parts, nogil=True, num_threads=parts, schedule="static", chunksize=1):
        backward_units(ws, count, part * width, min((part + 1) * width, ws.hidden), g_w1, g_b1, g_w2)
    for p in range(count):
        d_out = <real>ws.d_out[p]
        g_b2[ws.bucket[p]] += d_out
        total += ws.loss[p]
        if g_psqt != NULL:
            for c in range(2):
                for i in range(ws.counts[p]):
                    index = ws.inputs[(2 * p + c) * MAX_PIECES + i]
                    g_psqt[index] += <real>0.5 * d_out if c == 0 else -(<real>0.5 * d_out)
    return total


cdef void backward_units(Workspace ws, Py_ssize_t count, int j0, int j1, real* g_w1, real* g_b1,
                         real* g_w2) noexcept nogil:
    """backward_block's work for the hidden units j0 to j1 (a thread's), every
    position in order."""
    cdef Py_ssize_t p
    cdef int h = ws.hidden, c, b
    cdef real d_out
    cdef real* d
    cdef real* a
    for p in range(count):
        b = ws.bucket[p]
        d_out = <real>ws.d_out[p]
        for c in range(2):
            d = <real*>ws.slope + (2 * p + c) * h
            a = <real*>ws.act + (2 * p + c) * h
            if real is float:
                gc_fit_float.scatter(g_w1, g_b1, g_w2 + b * 2 * h + c * h, d, a, d_out, h,
                                     ws.inputs + (2 * p + c) * MAX_PIECES, ws.counts[p], j0, j1)
            else:
                gc_fit_double.scatter(g_w1, g_b1, g_w2 + b * 2 * h + c * h, d, a, d_out, h,
                                      ws.inputs + (2 * p + c) * MAX_PIECES, ws.counts[p], j0, j1)


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
    h = ws.hidden
    if (w1_rows, w1_cols, b1, w2_rows, w2_cols, b2) != (INPUTS, h, h, ws.buckets, 2 * h, ws.buckets):
        raise ValueError(f"arrays of shapes {(w1_rows, w1_cols)}, {b1}, {(w2_rows, w2_cols)}, {b2} do "
                         f"not fit {h} units and {ws.buckets} buckets")
    if psqt not in (0, INPUTS):
        raise ValueError(f"a piece-square term of {psqt} numbers")


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
    cdef Py_ssize_t n = rows.shape[0], start, count
    cdef double total = 0
    cdef const real* p_psqt = &psqt[0] if psqt.shape[0] else NULL
    cdef real* p_g_psqt = &g_psqt[0] if g_psqt.shape[0] else NULL
    cdef const uint32_t* p_flips = &flips[0] if flips.shape[0] else NULL
    if n == 0:
        return float("nan")
    with nogil:
        zero(&g_w1[0, 0], INPUTS * ws.hidden)
        zero(&g_b1[0], ws.hidden)
        zero(&g_w2[0, 0], ws.buckets * 2 * ws.hidden)
        zero(&g_b2[0], ws.buckets)
        if p_g_psqt != NULL:
            zero(p_g_psqt, INPUTS)
        start = 0
        while start < n:
            count = min(<Py_ssize_t>BLOCK, n - start)
            forward_block(ws, &records[0, 0], records.shape[0], &rows[start], p_flips, count, &w1[0, 0],
                          &b1[0], &w2[0, 0], &b2[0], p_psqt, squared, scale, k, wdl, n, True)
            total += backward_block(ws, count, &g_w1[0, 0], &g_b1[0], &g_w2[0, 0], &g_b2[0], p_g_psqt)
            start += count
    return total / n


def evaluate(Workspace ws, const uint8_t[:, ::1] records, const uint32_t[::1] flips,
             const uint32_t[::1] rows, const real[:, ::1] w1, const real[::1] b1,
             const real[:, ::1] w2, const real[::1] b2, const real[::1] psqt,
             bint squared, double scale):
    """Each row's evaluation in centipawns from White's view (float64 [n])."""
    _shapes(ws, w1.shape[0], w1.shape[1], b1.shape[0], w2.shape[0], w2.shape[1], b2.shape[0], psqt.shape[0])
    cdef Py_ssize_t n = rows.shape[0], start, count, i
    cp = np.empty(n, dtype=np.float64)
    cdef double[::1] out = cp
    cdef const real* p_psqt = &psqt[0] if psqt.shape[0] else NULL
    cdef const uint32_t* p_flips = &flips[0] if flips.shape[0] else NULL
    if n == 0:
        return cp
    with nogil:
        start = 0
        while start < n:
            count = min(<Py_ssize_t>BLOCK, n - start)
            forward_block(ws, &records[0, 0], records.shape[0], &rows[start], p_flips, count, &w1[0, 0],
                          &b1[0], &w2[0, 0], &b2[0], p_psqt, squared, scale, 0.0, 1.0, n, False)
            for i in range(count):
                out[start + i] = ws.d_out[i]
            start += count
    return cp


cdef inline void zero(real* values, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        values[i] = 0


def adam_step(real[::1] values, const real[::1] gradient, real[::1] m, real[::1] v,
              const Py_ssize_t[::1] ends, const double[::1] limits, long t, double rate, int threads):
    """Adam's t-th step (optimise/adam.py's adam_move, in the arrays' own precision
    and order of operations) on every number of `values`, which holds arrays one after
    another (the k-th ends before ends[k]), each then clipped to [-limits[k], limits[k]].
    One pass for all the arrays, each split between the threads."""
    cdef Py_ssize_t n = values.shape[0], k, first, last, size
    cdef int part
    if (gradient.shape[0] != n or m.shape[0] != n or v.shape[0] != n or t < 1 or threads < 1
            or ends.shape[0] != limits.shape[0] or ends.shape[0] == 0 or ends[ends.shape[0] - 1] != n):
        raise ValueError("adam_step: arrays of one length that the ends cover, a step from 1 and a "
                         "thread at least")
    cdef real beta1 = <real>BETA1, beta2 = <real>BETA2
    cdef real keep1 = <real>(1.0 - BETA1), keep2 = <real>(1.0 - BETA2)
    cdef real unbias1 = <real>(1.0 - BETA1 ** t), unbias2 = <real>(1.0 - BETA2 ** t)
    cdef real step = <real>rate, epsilon = <real>EPSILON, top
    for part in prange(threads, nogil=True, num_threads=threads, schedule="static", chunksize=1):
        for k in range(ends.shape[0]):
            first = 0 if k == 0 else ends[k - 1]
            size = (ends[k] - first + threads - 1) // threads
            last = min(first + (part + 1) * size, ends[k])
            first = min(first + part * size, ends[k])
            top = <real>limits[k]
            if real is float:
                gc_fit_float.adam(&values[first], &gradient[first], &m[first], &v[first], last - first,
                                  beta1, keep1, beta2, keep2, unbias1, unbias2, step, epsilon, top)
            else:
                gc_fit_double.adam(&values[first], &gradient[first], &m[first], &v[first], last - first,
                                   beta1, keep1, beta2, keep2, unbias1, unbias2, step, epsilon, top)


def inputs_of(const uint8_t[:, ::1] records, Py_ssize_t row, bint flipped):
    """For tests: (us, them), the inputs of record `row` (mirrored a <-> h if
    `flipped`) for the side to move and the other side, in the records' order."""
    cdef Position pos
    decode(&records[row, 0], flipped, &pos)
    return tuple([input_index(pos.side ^ c, pos.codes[i], pos.squares[i]) for i in range(pos.count)]
                 for c in range(2))
