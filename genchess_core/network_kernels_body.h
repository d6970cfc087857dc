/* The bodies of network_kernels.h's loops, included once for each CPU target it builds
   them for: KERNEL_TARGET is the target attribute and KERNEL(name) the version's name.
   Each entry point is one call an evaluation (or two), its loops inlined inside it, so
   that choosing a version costs an indirect call, not a call a column. */

/* acc -= the columns of w1 for the inputs `removed`, += those for `added`. (Marking the
   pointers restrict made GCC 12's AVX2 version 2.5 times dearer in instructions under
   callgrind, so they are not.) */
KERNEL_TARGET static void KERNEL(update)(int16_t* acc, const int16_t* w1,
                                         int hidden, const int* added, int n_added,
                                         const int* removed, int n_removed) {
    for (int k = 0; k < n_removed; k++) {
        const int16_t* column = w1 + (ptrdiff_t)removed[k] * hidden;
        for (int i = 0; i < hidden; i++)
            acc[i] = (int16_t)(acc[i] - column[i]);
    }
    for (int k = 0; k < n_added; k++) {
        const int16_t* column = w1 + (ptrdiff_t)added[k] * hidden;
        for (int i = 0; i < hidden; i++)
            acc[i] = (int16_t)(acc[i] + column[i]);
    }
}

/* The sum of clip(acc, 0, qa) * w. The clip stays in 16 bits and the products are
   16-by-16-bit ones summed in 32 (vpmaddwd on x86): a wider clip would widen the
   whole loop to 32-bit lanes. */
KERNEL_TARGET static inline int64_t KERNEL(crelu_dot)(const int16_t* acc, const int16_t* w, int hidden, int qa) {
    const int16_t top = (int16_t)qa;
    int32_t total = 0;
    for (int i = 0; i < hidden; i++) {
        int16_t v = acc[i] < 0 ? 0 : acc[i];
        v = v > top ? top : v;
        total += v * w[i];
    }
    return total;
}

/* The sum of clip(acc, 0, qa)^2 * w. v * w fits 16 bits (255 * 127 at the trainer's
   limits) and (v * w) * v 32 bits, so the products are 16-by-16-bit ones, as above;
   128 of them fit a 32-bit sum, and the blocks add up in 64 bits. */
KERNEL_TARGET static inline int64_t KERNEL(screlu_dot)(const int16_t* acc, const int16_t* w, int hidden, int qa) {
    const int16_t top = (int16_t)qa;
    int64_t total = 0;
    for (int start = 0; start < hidden; start += 128) {
        int32_t block = 0;
        int end = start + 128 < hidden ? start + 128 : hidden;
        for (int i = start; i < end; i++) {
            int16_t v = acc[i] < 0 ? 0 : acc[i];
            v = v > top ? top : v;
            int16_t vw = (int16_t)(v * w[i]);
            block += vw * v;
        }
        total += block;
    }
    return total;
}

/* act(us) . w2[:hidden] + act(them) . w2[hidden:], the squared activation's sum
   divided by qa (truncated towards zero, as C divides). */
KERNEL_TARGET static int64_t KERNEL(hidden_output)(const int16_t* us, const int16_t* them,
                                                   const int16_t* w2, int hidden, int qa, int squared) {
    if (squared)
        return (KERNEL(screlu_dot)(us, w2, hidden, qa) + KERNEL(screlu_dot)(them, w2 + hidden, hidden, qa)) / qa;
    return KERNEL(crelu_dot)(us, w2, hidden, qa) + KERNEL(crelu_dot)(them, w2 + hidden, hidden, qa);
}
