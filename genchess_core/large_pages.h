/* The tables the search probes at random places (the hash table, the evaluation
   and pawn caches), on 2 MB pages where the system grants them. With 4 KB pages
   almost every probe of a 16 MB table also misses the TLB and waits for a page
   walk; one 2 MB page covers 512 times as much. Stockfish does the same
   (aligned_large_pages_alloc).

   Linux: 2 MB-aligned memory with madvise(MADV_HUGEPAGE), which the kernel's
   default transparent-huge-page setting ("madvise") honours; refused, the pages
   stay 4 KB and nothing else changes. Elsewhere: aligned to a 64-byte cache line.
   Memory comes back zeroed, as from calloc; free it with gc_large_free. */
#ifndef GENCHESS_LARGE_PAGES_H
#define GENCHESS_LARGE_PAGES_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#define GC_LARGE_PAGE ((size_t)2 * 1024 * 1024)

static inline void* gc_large_calloc(size_t n, size_t size) {
    void* p = NULL;
    size_t bytes;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    bytes = n * size;
    if (bytes > SIZE_MAX - GC_LARGE_PAGE)
        return NULL;
    /* Whole pages, so no other allocation shares the last one. */
    bytes = (bytes + GC_LARGE_PAGE - 1) / GC_LARGE_PAGE * GC_LARGE_PAGE;
    if (bytes == 0 || posix_memalign(&p, GC_LARGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

static inline void gc_large_free(void* p) { free(p); }
#else
/* Elsewhere at least a cache line's alignment: the hash table's buckets (tt.pyx) are
   64 bytes and should each be one line. Windows frees aligned memory its own way. */
#define GC_LINE 64
#if defined(_WIN32)
#include <malloc.h>
static inline void* gc_aligned(size_t bytes) { return _aligned_malloc(bytes, GC_LINE); }
static inline void gc_large_free(void* p) { _aligned_free(p); }
#else
static inline void* gc_aligned(size_t bytes) {
    void* p = NULL;
    return posix_memalign(&p, GC_LINE, bytes) == 0 ? p : NULL;
}
static inline void gc_large_free(void* p) { free(p); }
#endif

static inline void* gc_large_calloc(size_t n, size_t size) {
    void* p;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    p = gc_aligned(n * size != 0 ? n * size : 1);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}
#endif
#endif
