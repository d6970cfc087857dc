from genchess_core.types cimport Move
from genchess_core.position cimport Position, Undo

cdef class Board:
    cdef Position pos
    cdef Undo* undos
    cdef Move* played
    cdef int n_played
    cdef int capacity
    cdef _reserve(self, int n)
    cdef _push(self, Move m)
    cdef Move _parse(self, uci) except? 0
