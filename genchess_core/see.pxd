# Static exchange evaluation: the material balance of the capture sequence on one square.

from genchess_core.types cimport Move
from genchess_core.position cimport Position

cdef int see(const Position* p, Move m) noexcept nogil
cdef bint see_ge(const Position* p, Move m, int threshold) noexcept nogil
