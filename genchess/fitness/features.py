"""Linear kinds' features: a whole population scored on a set with one product.

A material genome's evaluation and a PVT genome's are linear in their numbers
(genome/numbers.py): White's view of a position is a fixed function of (features of
the position) . (the genome's numbers). The features are extracted once per set,
and then every genome of a population costs one row of a matrix product instead
of a pass of the C evaluation over the set. The final steps of the C evaluation
(the scale, PVT's tapering division, truncation to whole internal units) are
applied exactly as C applies them, so the feature path gives the C evaluation's
score bit for bit (tests/test_fitness_features.py checks it on random positions):
the loss a tuner minimises is the loss of the evaluation the engine plays.

- material (eval_material.pyx): sum over piece kinds and the legal-move count of
  weight * (White's count - Black's), plus the two fixed bonuses, times the scale,
  truncated. Features: nine differences per position, summed in C's order.
- pvt (eval_pvt.pyx): per piece, material + the table value of its square (Black's
  squares mirrored, signs negated) in the middle and the end game, blended by the
  game phase: (mg * phase + eg * (24 - phase)) * scale / 24, truncated. Features:
  one sparse row per position, already tapered, over the 644 numbers and the pawn's
  (fixed) material.

- unified (eval_unified.pyx): every term's count (White's minus Black's) as the C
  evaluation records it with its counting accumulator (unified_trace), tapered into a
  middle-game column (count * phase) and an end-game column (count * (24 - phase));
  then the scale and the division by 24, as for pvt. Features: one sparse row per
  position over the 1110 numbers.

Kinds that are not linear (the Genetic Chess genes) have no features here; they are
scored by the C evaluation itself (PositionSet.evaluate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genchess.genome import MaterialGenome, PvtGenome, UnifiedGenome
from genchess.genome.pvt import (EVAL_SCALE_CP, N_VALUES, PIECE_KINDS, TABLE_INDEX)

PHASE_MAX = 24                          # eval_pvt.pxd: N, B = 1, R = 2, Q = 4, capped
PHASE_WEIGHT = np.array([0, 1, 1, 2, 4, 0])
CLAMP = 500_000_000                     # eval_material.pyx clamps its total here
CHUNK = 50_000                          # positions unpacked at a time (memory: 768 bytes each)


def c_division(numerator: np.ndarray, denominator: int) -> np.ndarray:
    """Integer division truncated towards zero, as C's `/` (cdivision) does."""
    quotient = np.abs(numerator) // denominator
    return np.where(numerator < 0, -quotient, quotient)


def occupancy(pieces: np.ndarray) -> np.ndarray:
    """bool [n, 12, 64]: which square each of the twelve pieces stands on."""
    as_bytes = np.ascontiguousarray(pieces, dtype="<u8").view(np.uint8).reshape(len(pieces), 12, 8)
    return np.unpackbits(as_bytes, axis=2, bitorder="little").astype(bool)


@dataclass
class LinearMap:
    """A linear kind's evaluation before C's rounding, in centipawns:
    cp = matrix @ numbers + offset (matrix [positions, numbers], the numbers in
    number_spec's order; the offset is what the fixed numbers, the unit among them,
    add). The C evaluation truncates this to whole internal units, so the two differ
    by less than a centipawn; the gradient of a loss is taken on this form, where it
    exists (fitness/gradient.py). `pawn` is the unit in the numbers' own terms."""
    matrix: object              # scipy.sparse csr_matrix
    offset: np.ndarray
    pawn: float

    def __post_init__(self):
        self.matrix = self.matrix.tocsr()
        self.matrix.eliminate_zeros()       # White's and Black's counts that cancel

    def touched(self) -> np.ndarray:
        """[numbers] how many positions each number moves the evaluation of."""
        return np.bincount(self.matrix.indices, minlength=self.matrix.shape[1])


class MaterialFeatures:
    """The nine White-minus-Black counts of every position, in C's summing order:
    pawn .. king, legal moves, centre squares attacked, advanced passed pawns."""

    def __init__(self, template: MaterialGenome, positions):
        from genchess_core.set_eval import material_counts
        self.template = template
        self.counts = material_counts(np.ascontiguousarray(positions.pieces),
                                      np.ascontiguousarray(positions.side),
                                      np.ascontiguousarray(positions.castling),
                                      np.ascontiguousarray(positions.ep)).astype(np.float64)

    def weights(self, vectors: np.ndarray) -> np.ndarray:
        """[P, 9]: each genome's weights in the counts' order (fixed ones included)."""
        t = self.template
        full = np.tile(np.array(t.weights + (t.centre_bonus, t.advanced_pawn_bonus)), (len(vectors), 1))
        full[:, list(MaterialGenome.TUNED)] = vectors
        return full

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """[n, P] int64: the C evaluation of every position under every genome."""
        weights = self.weights(np.atleast_2d(vectors))
        total = np.zeros((len(self.counts), len(weights)))
        for k in range(weights.shape[1]):           # C's order, one term at a time
            total += self.counts[:, k:k + 1] * weights[None, :, k]
        total *= float(self.template.pack()["eval_scale"])
        return np.trunc(np.clip(total, -CLAMP, CLAMP)).astype(np.int64)

    def pawn_units(self, vectors: np.ndarray) -> np.ndarray:
        scale = float(self.template.pack()["eval_scale"])
        return np.full(len(np.atleast_2d(vectors)), self.template.weights[0] * scale)

    def linear_map(self) -> LinearMap:
        from scipy import sparse
        t = self.template
        fixed = np.array(t.weights + (t.centre_bonus, t.advanced_pawn_bonus))
        tuned = list(MaterialGenome.TUNED)
        fixed[tuned] = 0.0
        per_cp = 100.0 / t.weights[0]               # the scale cancels: cp = counts . w / pawn
        return LinearMap(sparse.csr_matrix(self.counts[:, tuned] * per_cp),
                         self.counts @ fixed * per_cp, float(t.weights[0]))


class PvtFeatures:
    """One tapered sparse row per position over the genome's numbers (640 table
    values, knight .. queen material) and a last column for the pawn's material."""

    def __init__(self, template: PvtGenome, positions):
        from scipy import sparse
        self.template = template
        empty = np.zeros(0, dtype=np.int64)
        rows, cols, data = [empty], [empty], [empty]       # (an empty set has no rows)
        n = len(positions)
        for start in range(0, n, CHUNK):
            on = occupancy(positions.pieces[start:start + CHUNK])      # [m, 12, 64]
            counts = on.sum(axis=2)
            phase = np.minimum(PHASE_MAX, (counts[:, :6] + counts[:, 6:]) @ PHASE_WEIGHT)
            for piece in range(12):
                kind, white = piece % 6, piece < 6
                sign = 1 if white else -1
                index, square = np.nonzero(on[:, piece, :])
                if not white:
                    square = square ^ 56                # Black reads White's table mirrored
                row = start + index
                mg, eg = phase[index], PHASE_MAX - phase[index]
                name = PIECE_KINDS[kind]
                mg_table = TABLE_INDEX[(name, "mg")]
                eg_table = TABLE_INDEX.get((name, "eg"), mg_table)
                # Table values: the middle-game table weighs phase, the end-game one
                # 24 - phase (rook and queen read their one table in both).
                for table, weight in ((mg_table, mg), (eg_table, eg)):
                    rows.append(row)
                    cols.append(table * 64 + square)
                    data.append(sign * weight)
                # Material counts in both phases: weight phase + (24 - phase) = 24.
                # (The king's material is 0.)
                if kind != 5:
                    rows.append(row)
                    cols.append(np.full(len(row), self.material_column(kind)))
                    data.append(np.full(len(row), sign * PHASE_MAX))
        width = N_VALUES + 5                        # numbers, then the pawn's material
        self.matrix = sparse.csr_matrix(
            (np.concatenate(data).astype(np.float64), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n, width))
        self.matrix.sum_duplicates()

    @staticmethod
    def material_column(kind: int) -> int:
        """Knight .. queen: their numbers, after the tables; the pawn: the last column."""
        return N_VALUES + 4 if kind == 0 else N_VALUES + kind - 1

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """[n, P] int64: the C evaluation of every position under every genome."""
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        theta = np.column_stack([vectors, np.full(len(vectors), float(self.template.material[0]))])
        tapered = self.matrix @ theta.T           # exact: whole numbers far below 2^53
        return c_division(np.rint(tapered).astype(np.int64) * EVAL_SCALE_CP, PHASE_MAX)

    def pawn_units(self, vectors: np.ndarray) -> np.ndarray:
        return np.full(len(np.atleast_2d(vectors)), float(self.template.material[0] * EVAL_SCALE_CP))

    def linear_map(self) -> LinearMap:
        pawn = float(self.template.material[0])
        per_cp = 100.0 / (PHASE_MAX * pawn)
        return LinearMap(self.matrix[:, :N_VALUES + 4] * per_cp,
                         np.asarray(self.matrix[:, N_VALUES + 4].todense()).ravel() * pawn * per_cp, pawn)


class UnifiedFeatures:
    """One tapered sparse row per position: a column per term and phase (all the
    middle-game numbers, then the end-game ones, as UnifiedGenome lays them out)."""

    def __init__(self, template: UnifiedGenome, positions):
        from scipy import sparse
        from genchess_core.eval_unified import TERM_COUNT
        from genchess_core.set_eval import unified_counts
        self.template = template
        rows, terms, counts, phases = unified_counts(
            np.ascontiguousarray(positions.pieces), np.ascontiguousarray(positions.side),
            np.ascontiguousarray(positions.castling), np.ascontiguousarray(positions.ep),
            template.pack())
        counts = counts.astype(np.float64)
        phase = phases.astype(np.float64)[rows]
        self.matrix = sparse.csr_matrix(
            (np.concatenate([counts * phase, counts * (PHASE_MAX - phase)]),
             (np.concatenate([rows, rows]), np.concatenate([terms, terms + TERM_COUNT]))),
            shape=(len(positions), 2 * TERM_COUNT))

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """[n, P] int64: the C evaluation of every position under every genome."""
        from genchess.genome.unified import TUNED
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        # The numbers leave some out (the unit, pawn squares no pawn stands on):
        # every genome has the template's there.
        theta = np.tile(np.array(self.template.mg + self.template.eg, dtype=np.float64), (len(vectors), 1))
        columns = [term + (0 if phase == "mg" else len(self.template.mg)) for phase, term in TUNED]
        theta[:, columns] = vectors
        tapered = self.matrix @ theta.T           # exact: whole numbers far below 2^53
        return c_division(np.rint(tapered).astype(np.int64) * EVAL_SCALE_CP, PHASE_MAX)

    def pawn_units(self, vectors: np.ndarray) -> np.ndarray:
        return np.full(len(np.atleast_2d(vectors)), float(self.template.mg[0] * EVAL_SCALE_CP))

    def linear_map(self) -> LinearMap:
        from genchess.genome.unified import TUNED
        t = self.template
        pawn = float(t.mg[0])
        per_cp = 100.0 / (PHASE_MAX * pawn)
        columns = [term + (0 if phase == "mg" else len(t.mg)) for phase, term in TUNED]
        fixed = np.array(t.mg + t.eg, dtype=np.float64)
        fixed[columns] = 0.0
        matrix = self.matrix.tocsc()[:, columns].tocsr() * per_cp
        return LinearMap(matrix, self.matrix @ fixed * per_cp, pawn)


FEATURES = {MaterialGenome.KIND: MaterialFeatures, PvtGenome.KIND: PvtFeatures,
            UnifiedGenome.KIND: UnifiedFeatures}


def linear_features(template, positions):
    """The features of `positions` for genomes of `template`'s kind, or None when the
    kind is not linear (score it with the C evaluation)."""
    kind = FEATURES.get(template.KIND)
    return kind(template, positions) if kind is not None else None
