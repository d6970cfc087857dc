/* The bodies of network_fit_kernels.h's loops, included once for each precision (REAL)
   and CPU target (KERNEL_TARGET, KERNEL(name)) it builds them for. Every sum that runs
   across a vector (the output's dot product) is taken in eight fixed lanes, so a
   version with wider vectors adds in the same order as the baseline one and both give
   the same numbers bit for bit: a run resumes exactly on another CPU. */

/* acc = the columns of w1 for the inputs, summed in order, then + b1 (the reference's
   order: the sparse product, then the bias). Four vectors of the accumulator stay in
   registers while every column adds to them, instead of being loaded and stored again
   for each column (the compiler does not keep an array there by itself). */
KERNEL_TARGET static void KERNEL(accumulate)(REAL* acc, const REAL* w1, const REAL* b1, int hidden,
                                             const int16_t* inputs, int n) {
    int j = 0;
#if GC_FIT_VECTORS
    for (; j + 4 * LANES <= hidden; j += 4 * LANES) {
        VEC s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (int i = 0; i < n; i++) {
            const REAL* column = w1 + (ptrdiff_t)inputs[i] * hidden + j;
            s0 += *(const VEC*)column;
            s1 += *(const VEC*)(column + LANES);
            s2 += *(const VEC*)(column + 2 * LANES);
            s3 += *(const VEC*)(column + 3 * LANES);
        }
        *(VEC*)(acc + j) = s0 + *(const VEC*)(b1 + j);
        *(VEC*)(acc + j + LANES) = s1 + *(const VEC*)(b1 + j + LANES);
        *(VEC*)(acc + j + 2 * LANES) = s2 + *(const VEC*)(b1 + j + 2 * LANES);
        *(VEC*)(acc + j + 3 * LANES) = s3 + *(const VEC*)(b1 + j + 3 * LANES);
    }
#endif
    for (; j < hidden; j++) {
        REAL sum = 0;
        for (int i = 0; i < n; i++)
            sum += w1[(ptrdiff_t)inputs[i] * hidden + j];
        acc[j] = sum + b1[j];
    }
}

#ifndef GC_FIT_WIDE  /* its eight lanes are narrower than a wide vector */
/* act = the activation of acc (clip to [0, 1], squared or not); the return value is
   act . w, summed in eight lanes (lane l holds the units j with j % 8 == l) whatever
   the vectors' width. */
KERNEL_TARGET static REAL KERNEL(activate_dot)(const REAL* acc, REAL* act, const REAL* w, int hidden,
                                               int squared) {
    REAL lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int j = 0;
#if GC_FIT_VECTORS
    /* One pass: the clip as bit masks (x > 0 ? x : +0, then c < 1 ? c : 1, the scalar
       loop's very choices, NaN and -0 included), the square, the lanes' sums. */
    const VEC zero = {0}, one = zero + 1;
    VEC sum0 = zero, sum1 = zero;
    for (; j + 8 <= hidden; j += 8) {
        VEC a[8 / LANES];
        for (int q = 0; q < 8 / LANES; q++) {
            VEC x = *(const VEC*)(acc + j + q * LANES);
            VEC c = (VEC)((IVEC)x & (x > zero));
            IVEC below = c < one;
            c = (VEC)(((IVEC)c & below) | ((IVEC)one & ~below));
            a[q] = squared ? c * c : c;
            *(VEC*)(act + j + q * LANES) = a[q];
        }
        sum0 += a[0] * *(const VEC*)(w + j);
        if (8 / LANES > 1)
            sum1 += a[8 / LANES - 1] * *(const VEC*)(w + j + LANES);
    }
    /* (read by element: a memcpy from the sums kept them in memory, the loop's chain
       through a store and a load every vector) */
    for (int l = 0; l < LANES; l++) {
        lane[l] = sum0[l];
        if (8 / LANES > 1)
            lane[(LANES + l) % 8] = sum1[l];
    }
#endif
    for (int k = j; k < hidden; k++) {
        REAL c = acc[k] > 0 ? acc[k] : 0;
        act[k] = c < 1 ? c : 1;
        if (squared)
            act[k] = act[k] * act[k];
    }
    for (; j < hidden; j++)
        lane[j % 8] += act[j] * w[j];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}
#endif

/* d, which holds the accumulators, becomes the loss's slope by them:
   d_out * w * act'(acc), act' 0 outside (0, 1). */
KERNEL_TARGET static void KERNEL(slope)(REAL* d, const REAL* w, REAL d_out, int hidden, int squared) {
    if (squared) {
        for (int j = 0; j < hidden; j++) {
            REAL x = d[j];
            REAL s = d_out * w[j] * (2 * x);
            d[j] = ((x > 0) & (x < 1)) ? s : 0;
        }
    } else {
        for (int j = 0; j < hidden; j++) {
            REAL x = d[j];
            REAL s = d_out * w[j];
            d[j] = ((x > 0) & (x < 1)) ? s : 0;
        }
    }
}

/* Units j0 to j1 of the gradients of one perspective of one position: the columns of
   its inputs += d (four vectors of d held in registers at a time), b1 += d, the output
   weights += d_out * act; and, unless g_psqt is NULL, the piece-square term's entries
   of its inputs += psqt_slope (here, not in a loop of its own, so that these scalar
   additions run while the vectors' wait for memory). */
KERNEL_TARGET static void KERNEL(scatter)(REAL* g_w1, REAL* g_b1, REAL* g_w2, const REAL* d,
                                          const REAL* act, REAL d_out, int hidden,
                                          const int16_t* inputs, int n, int j0, int j1,
                                          REAL* g_psqt, REAL psqt_slope) {
    if (g_psqt)
        for (int i = 0; i < n; i++)
            g_psqt[inputs[i]] += psqt_slope;
    for (int j = j0; j < j1; j++) {
        g_b1[j] += d[j];
        g_w2[j] += d_out * act[j];
    }
    int j = j0;
#if GC_FIT_VECTORS
    for (; j + 4 * LANES <= j1; j += 4 * LANES) {
        VEC d0 = *(const VEC*)(d + j), d1 = *(const VEC*)(d + j + LANES);
        VEC d2 = *(const VEC*)(d + j + 2 * LANES), d3 = *(const VEC*)(d + j + 3 * LANES);
        for (int i = 0; i < n; i++) {
            REAL* column = g_w1 + (ptrdiff_t)inputs[i] * hidden + j;
            *(VEC*)column += d0;
            *(VEC*)(column + LANES) += d1;
            *(VEC*)(column + 2 * LANES) += d2;
            *(VEC*)(column + 3 * LANES) += d3;
        }
    }
    for (; j + LANES <= j1; j += LANES) {
        VEC d0 = *(const VEC*)(d + j);
        for (int i = 0; i < n; i++)
            *(VEC*)(g_w1 + (ptrdiff_t)inputs[i] * hidden + j) += d0;
    }
#endif
    for (int i = 0; i < n; i++) {
        REAL* column = g_w1 + (ptrdiff_t)inputs[i] * hidden;
        for (int k = j; k < j1; k++)
            column[k] += d[k];
    }
}

/* Adam's step on values[0, n) (optimise/adam.py's adam_move, in REAL and in its
   order of operations), then the values clipped to [-top, top]. */
KERNEL_TARGET static void KERNEL(adam)(REAL* values, const REAL* gradient, REAL* m, REAL* v,
                                       ptrdiff_t n, REAL beta1, REAL keep1, REAL beta2, REAL keep2,
                                       REAL unbias1, REAL unbias2, REAL step, REAL epsilon, REAL top) {
    for (ptrdiff_t i = 0; i < n; i++) {
        REAL g = gradient[i];
        REAL mi = beta1 * m[i] + keep1 * g;
        REAL vi = beta2 * v[i] + keep2 * (g * g);
        m[i] = mi;
        v[i] = vi;
        REAL value = values[i] - step * (mi / unbias1) / (SQRT(vi / unbias2) + epsilon);
        values[i] = value < -top ? -top : (value > top ? top : value);
    }
}
