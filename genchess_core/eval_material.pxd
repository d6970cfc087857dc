# Kendall-Whitwell material evaluation: seven weights over piece and mobility counts.

from genchess_core.position cimport Position

cdef enum:
    N_MATERIAL_WEIGHTS = 7      # pawn, knight, bishop, rook, queen, king, legal move
    W_LEGAL_MOVE = 6

cdef struct MaterialParams:
    double weight[7]
    double centre_bonus         # per centre square (d4 e4 d5 e5) attacked, fixed, 0 by default
    double advanced_pawn_bonus  # per passed pawn on its fifth rank or beyond, fixed, 0 by default
    double scale                # internal units per unit of weighted count

cdef int evaluate_material(Position* p, const MaterialParams* m) noexcept nogil
cdef void material_features(Position* p, int* diff) noexcept nogil
cdef int material_params(MaterialParams* m, dict packed) except -1
