# Zeroed memory on 2 MB pages where the system grants them (large_pages.h): for the
# tables the search probes at random places.

cdef extern from "large_pages.h" nogil:
    void* gc_large_calloc(size_t n, size_t size)
    void gc_large_free(void* p)
