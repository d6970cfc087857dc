/* Bit tricks for 64-bit bitboards: compiler intrinsics where available
   (one instruction with -mpopcnt / -mbmi), a portable fallback elsewhere. */
#ifndef GENCHESS_BITOPS_H
#define GENCHESS_BITOPS_H
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
static inline int gc_popcount(uint64_t b) { return __builtin_popcountll(b); }
static inline int gc_lsb(uint64_t b) { return __builtin_ctzll(b); }
#elif defined(_MSC_VER) && defined(_M_X64)
#include <intrin.h>
static inline int gc_popcount(uint64_t b) { return (int)__popcnt64(b); }
static inline int gc_lsb(uint64_t b) { unsigned long i; _BitScanForward64(&i, b); return (int)i; }
#else
static inline int gc_popcount(uint64_t b) {
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
}
static inline int gc_lsb(uint64_t b) {
    /* De Bruijn multiplication on the isolated lowest bit. */
    static const int index64[64] = {
        0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6};
    return index64[((b & (0 - b)) * 0x03f79d71b4cb0a89ULL) >> 58];
}
#endif

/* Ask for the cache line holding addr ahead of its use (a hint; a no-op elsewhere). */
#if defined(__GNUC__) || defined(__clang__)
#define gc_prefetch(addr) __builtin_prefetch(addr)
#elif defined(_MSC_VER)
#include <xmmintrin.h>
#define gc_prefetch(addr) _mm_prefetch((const char*)(addr), _MM_HINT_T0)
#else
#define gc_prefetch(addr) ((void)(addr))
#endif

/* 64-bit masks as macros: C enums cannot portably hold them. */
#define GC_RANK_1 0x00000000000000FFULL
#define GC_RANK_8 0xFF00000000000000ULL
#define GC_FILE_A 0x0101010101010101ULL
#define GC_FILE_H 0x8080808080808080ULL
#define GC_DARK_SQUARES 0xAA55AA55AA55AA55ULL
#endif
