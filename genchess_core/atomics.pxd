# What threads share without a lock, data-race free (atomics.h says how and why): the
# stop flag and the deadline that another thread sets mid-search, and the hash table's words.

from libc.stdint cimport uint64_t

cdef extern from "atomics.h" nogil:
    ctypedef int gc_shared_int
    ctypedef double gc_shared_double
    uint64_t load_word "gc_load_relaxed_u64"(const uint64_t* p)
    void store_word "gc_store_relaxed_u64"(uint64_t* p, uint64_t value)
