/* network_fit_kernels_body.h for float and for double, for the CPU target that
   network_fit_kernels.h has set (KERNEL_TARGET, GC_FIT_TARGET). */

#define REAL float
#ifdef GC_FIT_WIDE
#define VEC gc_fit_wide_float
#define LANES 16
#else
#define VEC gc_fit_vec_float
#define IVEC gc_fit_ivec_float
#define LANES 8
#endif
#define SQRT sqrtf
#define KERNEL(name) GC_FIT_NAME(name, float, GC_FIT_TARGET)
#include "network_fit_kernels_body.h"
#undef REAL
#undef VEC
#undef IVEC
#undef LANES
#undef SQRT
#undef KERNEL

#define REAL double
#ifdef GC_FIT_WIDE
#define VEC gc_fit_wide_double
#define LANES 8
#else
#define VEC gc_fit_vec_double
#define IVEC gc_fit_ivec_double
#define LANES 4
#endif
#define SQRT sqrt
#define KERNEL(name) GC_FIT_NAME(name, double, GC_FIT_TARGET)
#include "network_fit_kernels_body.h"
#undef REAL
#undef VEC
#undef IVEC
#undef LANES
#undef SQRT
#undef KERNEL
