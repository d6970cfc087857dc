/* The network trainer's loops over a hidden layer (network_fit.pyx): an accumulator
   summed from its inputs' columns, the activation and its dot product with the output
   weights, the slope back through the activation, the gradient's columns, Adam's step.

   As network_kernels.h does for the engine, the loops are built for the x86-64
   baseline (SSE2) and, with GCC or clang on x86-64, a second time for AVX2 (no FMA, so
   each product is rounded as the baseline rounds it), with GCC also for AVX-512 (below),
   and gc_choose_fit_kernels picks the widest version once, when the module loads, that
   the CPU has; all give the same numbers bit for bit (the body's sums run in fixed lanes).
   GENCHESS_NETWORK_KERNELS=baseline keeps the baseline. Each is built for float (the
   training) and double (the checks against the numpy reference). */
#ifndef GENCHESS_NETWORK_FIT_KERNELS_H
#define GENCHESS_NETWORK_FIT_KERNELS_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* GCC's and clang's vector types (32 bytes: one AVX2 register, two SSE2 ones), loaded
   and stored unaligned; other compilers build the plain loops alone. */
#if defined(__GNUC__) || defined(__clang__)
#define GC_FIT_VECTORS 1
typedef float gc_fit_vec_float __attribute__((vector_size(32), aligned(4)));
typedef double gc_fit_vec_double __attribute__((vector_size(32), aligned(8)));
typedef int32_t gc_fit_ivec_float __attribute__((vector_size(32)));  /* their comparisons' masks */
typedef int64_t gc_fit_ivec_double __attribute__((vector_size(32)));
#else
#define GC_FIT_VECTORS 0
#endif

#define GC_FIT_PASTE(name, precision, target) gc_fit_##name##_##precision##_##target
#define GC_FIT_NAME(name, precision, target) GC_FIT_PASTE(name, precision, target)

#define KERNEL_TARGET
#define GC_FIT_TARGET baseline
#include "network_fit_kernels_precisions.h"
#undef GC_FIT_TARGET
#undef KERNEL_TARGET

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define GC_HAVE_AVX2_FIT_KERNELS 1
#define KERNEL_TARGET __attribute__((target("avx2")))
#define GC_FIT_TARGET avx2
#include "network_fit_kernels_precisions.h"
#undef GC_FIT_TARGET
#undef KERNEL_TARGET
#else
#define GC_HAVE_AVX2_FIT_KERNELS 0
#endif

/* With GCC, a third time for AVX-512, the loops whose every number is a sum of its own
   (all but activate_dot, whose dot product the table takes from AVX2): 64-byte
   vectors, half the loads and stores of the first layer's columns (measured 12% off a
   one-thread epoch). AVX-512 brings FMA, and GCC would fuse a * b + c into one rounding
   where the other versions round twice: fp-contract=off keeps the same numbers (clang
   has no such attribute, so it builds no AVX-512 version). */
#if GC_HAVE_AVX2_FIT_KERNELS && !defined(__clang__)
#define GC_HAVE_AVX512_FIT_KERNELS 1
typedef float gc_fit_wide_float __attribute__((vector_size(64), aligned(4)));
typedef double gc_fit_wide_double __attribute__((vector_size(64), aligned(8)));
#define GC_FIT_WIDE
#define KERNEL_TARGET __attribute__((target("avx512f"), optimize("fp-contract=off")))
#define GC_FIT_TARGET avx512
#include "network_fit_kernels_precisions.h"
#undef GC_FIT_TARGET
#undef KERNEL_TARGET
#undef GC_FIT_WIDE
#else
#define GC_HAVE_AVX512_FIT_KERNELS 0
#endif

#define GC_FIT_KERNELS_STRUCT(REAL_T, suffix)                                                        \
    typedef struct {                                                                                \
        void (*accumulate)(REAL_T* acc, const REAL_T* w1, const REAL_T* b1, int hidden,             \
                           const int16_t* inputs, int n);                                           \
        REAL_T (*activate_dot)(const REAL_T* acc, REAL_T* act, const REAL_T* w, int hidden,         \
                               int squared);                                                        \
        void (*slope)(REAL_T* d, const REAL_T* w, REAL_T d_out, int hidden, int squared);           \
        void (*scatter)(REAL_T* g_w1, REAL_T* g_b1, REAL_T* g_w2, const REAL_T* d,                  \
                        const REAL_T* act, REAL_T d_out, int hidden, const int16_t* inputs, int n,  \
                        int j0, int j1, REAL_T* g_psqt, REAL_T psqt_slope);                         \
        void (*adam)(REAL_T* values, const REAL_T* gradient, REAL_T* m, REAL_T* v, ptrdiff_t n,     \
                     REAL_T beta1, REAL_T keep1, REAL_T beta2, REAL_T keep2, REAL_T unbias1,        \
                     REAL_T unbias2, REAL_T step, REAL_T epsilon, REAL_T top);                      \
    } gc_fit_kernels_##suffix;
GC_FIT_KERNELS_STRUCT(float, float)
GC_FIT_KERNELS_STRUCT(double, double)

#define GC_FIT_TABLE(suffix, version)                                                               \
    {gc_fit_accumulate_##suffix##_##version, gc_fit_activate_dot_##suffix##_##version,              \
     gc_fit_slope_##suffix##_##version, gc_fit_scatter_##suffix##_##version,                        \
     gc_fit_adam_##suffix##_##version}
/* The AVX-512 table: AVX-512's loops, with AVX2's activate_dot (it has no wide version). */
#define GC_FIT_TABLE_WIDE(suffix)                                                                   \
    {gc_fit_accumulate_##suffix##_avx512, gc_fit_activate_dot_##suffix##_avx2,                      \
     gc_fit_slope_##suffix##_avx512, gc_fit_scatter_##suffix##_avx512, gc_fit_adam_##suffix##_avx512}

static gc_fit_kernels_float gc_fit_float = GC_FIT_TABLE(float, baseline);
static gc_fit_kernels_double gc_fit_double = GC_FIT_TABLE(double, baseline);

/* Use the AVX2 loops (and AVX-512's where built) if allowed and this CPU has them; the
   name of the version chosen. */
static const char* gc_choose_fit_kernels(int allow_avx2) {
#if GC_HAVE_AVX2_FIT_KERNELS
    __builtin_cpu_init();
    if (allow_avx2 && __builtin_cpu_supports("avx2")) {
        gc_fit_kernels_float f = GC_FIT_TABLE(float, avx2);
        gc_fit_kernels_double d = GC_FIT_TABLE(double, avx2);
        gc_fit_float = f;
        gc_fit_double = d;
#if GC_HAVE_AVX512_FIT_KERNELS
        if (__builtin_cpu_supports("avx512f")) {
            gc_fit_kernels_float wide_f = GC_FIT_TABLE_WIDE(float);
            gc_fit_kernels_double wide_d = GC_FIT_TABLE_WIDE(double);
            gc_fit_float = wide_f;
            gc_fit_double = wide_d;
            return "avx512";
        }
#endif
        return "avx2";
    }
#else
    (void)allow_avx2;
#endif
    return "baseline";
}

/* The threads of a minibatch (network_fit.pyx): one parallel region a minibatch, in
   which each thread runs `part` with its number and the team's size, and waits for the
   others at gc_fit_barrier only where a phase reads what another thread wrote. Each
   wake-up of a waiting thread costs a system call and a scheduling (GenChess waits
   passively: genchess_core/__init__.py), so the fewer regions and barriers a
   minibatch, the less the second core loses to them. Without OpenMP, one thread. */
#ifdef _OPENMP
#include <omp.h>
#endif
typedef void (*gc_fit_part)(void* work, int thread, int threads);

static void gc_fit_parallel(gc_fit_part part, void* work, int threads) {
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
        part(work, omp_get_thread_num(), omp_get_num_threads());
        return;
    }
#endif
    part(work, 0, 1);
}

static void gc_fit_barrier(void) {
#ifdef _OPENMP
#pragma omp barrier
#endif
}

/* Ask for a cache line ahead of its use: the records of a shuffled minibatch are
   scattered over the whole set, each one a miss that the decoding waits for. */
#if defined(__GNUC__) || defined(__clang__)
#define gc_fit_prefetch(address) __builtin_prefetch(address)
#else
#define gc_fit_prefetch(address) ((void)(address))
#endif

#endif
