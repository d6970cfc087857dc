/* The network evaluation's per-node loops (eval_network.pyx): adding and taking away
   inputs' columns of an accumulator, and the activations' dot products with the output
   weights.

   They are plain loops the compiler vectorises. A release build targets the x86-64
   baseline (16-byte SSE2 vectors), which every CPU runs. With GCC or clang on x86-64
   the loops are built a second time for AVX2 (32-byte vectors), and gc_choose_kernels
   picks that version once, when the module loads, if the CPU has AVX2: a 128-unit
   network then costs fewer instructions a node than the unified evaluation instead of
   15% more, with no CPU-specific build (docs/network.md). GENCHESS_NETWORK_KERNELS=
   baseline in the environment keeps the baseline loops (the tests compare the two).
   Elsewhere the loops are built once. */
#ifndef GENCHESS_NETWORK_KERNELS_H
#define GENCHESS_NETWORK_KERNELS_H
#include <stddef.h>
#include <stdint.h>

#define KERNEL_TARGET
#define KERNEL(name) gc_##name##_baseline
#include "network_kernels_body.h"
#undef KERNEL_TARGET
#undef KERNEL

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define GC_HAVE_AVX2_KERNELS 1
#define KERNEL_TARGET __attribute__((target("avx2")))
#define KERNEL(name) gc_##name##_avx2
#include "network_kernels_body.h"
#undef KERNEL_TARGET
#undef KERNEL
#else
#define GC_HAVE_AVX2_KERNELS 0
#endif

typedef struct {
    void (*update)(int16_t* acc, const int16_t* w1, int hidden, const int* added, int n_added,
                   const int* removed, int n_removed);
    int64_t (*hidden_output)(const int16_t* us, const int16_t* them, const int16_t* w2,
                             int hidden, int qa, int squared);
    const char* name;
} gc_network_kernels;

static gc_network_kernels gc_kernels = {gc_update_baseline, gc_hidden_output_baseline, "baseline"};

/* Use the AVX2 loops if allowed and this CPU has AVX2; the name of the version chosen. */
static const char* gc_choose_kernels(int allow_avx2) {
#if GC_HAVE_AVX2_KERNELS
    __builtin_cpu_init();
    if (allow_avx2 && __builtin_cpu_supports("avx2")) {
        gc_network_kernels avx2 = {gc_update_avx2, gc_hidden_output_avx2, "avx2"};
        gc_kernels = avx2;
    }
#else
    (void)allow_avx2;
#endif
    return gc_kernels.name;
}

#endif
