/* What the threads of a search (Lazy SMP) and the protocol thread share, made
   data-race free at no cost on the hot path.

   - gc_shared_int, gc_shared_double: a C11 atomic type for the stop flag and the
     hard deadline, which another thread writes (`stop`, a ponderhit) while a search
     reads them in its loop. A plain field may legally be read once and kept in a
     register; an atomic one is read afresh each time. Loads are plain moves on
     x86-64, and the rare stores (a stop, new limits) cost a fence.
   - gc_load_relaxed_u64, gc_store_relaxed_u64: the hash table's two words, read and
     written whole by any thread (tt.pyx). Relaxed order is enough: an entry is
     checked by its key XOR its data, never by the order its words arrive in; what
     the atomic access adds is that each word is read once, whole, and not re-read.
     Plain moves on x86-64.

   ThreadSanitizer (GENCHESS_TSAN=1, docs/building.md) knows these as atomic and
   reports only the races left. Compilers without C11 atomics (MSVC's C) get
   volatile accesses, which MSVC makes single, untorn moves on x64. */
#ifndef GENCHESS_ATOMICS_H
#define GENCHESS_ATOMICS_H
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
typedef _Atomic int gc_shared_int;
typedef _Atomic double gc_shared_double;
static inline uint64_t gc_load_relaxed_u64(const uint64_t* p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void gc_store_relaxed_u64(uint64_t* p, uint64_t value) {
    __atomic_store_n(p, value, __ATOMIC_RELAXED);
}
#else
typedef volatile int gc_shared_int;
typedef volatile double gc_shared_double;
static inline uint64_t gc_load_relaxed_u64(const uint64_t* p) {
    return *(const volatile uint64_t*)p;
}
static inline void gc_store_relaxed_u64(uint64_t* p, uint64_t value) {
    *(volatile uint64_t*)p = value;
}
#endif
#endif
