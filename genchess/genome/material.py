"""The material genome (Kendall and Whitwell, 2001): seven weights, one per piece
kind and one per legal move, evaluated as sum W[y] * (N[y]_us - N[y]_them).

Design trade-off: the genome is a plain vector (a tuple of seven floats) rather
than gene objects, because the Kendall-Whitwell trainer works on the population
as a matrix (per-weight means and standard deviations drive its mutation). Any
finite weight is valid: that evolution's mutation can push a weight below zero,
and the paper's range [0, 12] is only where the initial population is drawn.
The two fixed bonuses are not evolved; they default to 0, as in the study's
re-implementation, and are written to the file so a run's setting travels with
its genomes.

File block:

    ID: 7
    Kind: material
    Pawn: 1
    Knight: 3
    Bishop: 3.25
    Rook: 5
    Queen: 9
    King: 0
    Legal Move: 0.1
    Centre Control Bonus: 0
    Advanced Pawn Bonus: 0
    END
"""

from __future__ import annotations

import math
from random import Random
from typing import TYPE_CHECKING, Sequence

from .genes import format_number, time_management_defaults
from .kinds import GenomeError, quote, register_kind
from .search_genes import CarriesSearchGenes, pack_search, search_lines

if TYPE_CHECKING:                   # numpy loads only when a tuner asks (start-up)
    from .numbers import NumberSpec

WEIGHT_NAMES = ("Pawn", "Knight", "Bishop", "Rook", "Queen", "King", "Legal Move")
BONUS_NAMES = ("Centre Control Bonus", "Advanced Pawn Bonus")
EVAL_SCALE = 1000       # internal evaluation units per unit of weighted count (as genchess_core)


@register_kind
class MaterialGenome(CarriesSearchGenes):
    KIND = "material"

    def __init__(self, genome_id: int, weights: Sequence[float],
                 centre_bonus: float = 0.0, advanced_pawn_bonus: float = 0.0) -> None:
        if len(weights) != len(WEIGHT_NAMES):
            raise ValueError(f"a material genome has {len(WEIGHT_NAMES)} weights, not {len(weights)}")
        self.id = int(genome_id)
        self.search: dict[str, int] = {}
        self.weights = tuple(float(w) + 0.0 for w in weights)
        self.centre_bonus = float(centre_bonus)
        self.advanced_pawn_bonus = float(advanced_pawn_bonus)

    @classmethod
    def from_lines(cls, genome_id: int, lines: list[tuple[int, str]], path: str,
                   kind_line: int, end_line: int) -> MaterialGenome:
        known = WEIGHT_NAMES + BONUS_NAMES
        values: dict[str, float] = {}
        seen: dict[str, int] = {}
        for n, line in lines:
            if not line:
                continue
            key, colon, text = line.partition(":")
            key, text = key.strip(), text.strip()
            if not colon:
                raise GenomeError.at(path, n, f"expected 'key: value', got {quote(line)}")
            if key not in known:
                raise GenomeError.at(path, n, f"material genome: unknown key {quote(key)} "
                                              f"(known: {', '.join(known)})")
            if key in seen:
                raise GenomeError.at(path, n, f"material genome: duplicated key '{key}' "
                                              f"(first at line {seen[key]})")
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise GenomeError.at(path, n, f"material genome: '{key}' is not a finite number: {quote(text)}")
            values[key], seen[key] = value, n
        missing = [f"'{k}'" for k in WEIGHT_NAMES if k not in values]
        if missing:
            raise GenomeError.at(path, kind_line, f"material genome {genome_id}: missing {', '.join(missing)}")
        return cls(genome_id, [values[k] for k in WEIGHT_NAMES],
                   values.get(BONUS_NAMES[0], 0.0), values.get(BONUS_NAMES[1], 0.0))

    @classmethod
    def random(cls, rng: Random, genome_id: int, low: float = 0.0, high: float = 12.0,
               **bonuses: float) -> MaterialGenome:
        """Weights drawn uniformly from [low, high] (the paper's initial population)."""
        return cls(genome_id, [rng.uniform(low, high) for _ in WEIGHT_NAMES], **bonuses)

    def to_text(self) -> str:
        lines = [f"ID: {self.id}", f"Kind: {self.KIND}"]
        lines += [f"{name}: {format_number(w)}" for name, w in zip(WEIGHT_NAMES, self.weights)]
        lines += [f"{BONUS_NAMES[0]}: {format_number(self.centre_bonus)}",
                  f"{BONUS_NAMES[1]}: {format_number(self.advanced_pawn_bonus)}"]
        return "\n".join(lines + search_lines(self.search) + ["END", "", ""])

    def pack(self) -> dict:
        params = time_management_defaults()
        params.update(kind=self.KIND, material_weights=list(self.weights),
                      centre_bonus=self.centre_bonus, advanced_pawn_bonus=self.advanced_pawn_bonus,
                      eval_scale=EVAL_SCALE, pawn_unit=self.weights[0] * EVAL_SCALE)
        return pack_search(self.search, params)

    # The weights a tuner changes (numbers.py): not the pawn (the unit) nor the
    # king (each side has one, so its weight multiplies zero).
    TUNED = (1, 2, 3, 4, 6)

    def number_spec(self) -> NumberSpec:
        """Knight to queen and the legal-move weight, bounds and steps in pawns."""
        from .numbers import spec_from
        pawn = abs(self.weights[0]) or 1.0
        rows = [(WEIGHT_NAMES[i], -100.0 * pawn, 100.0 * pawn,
                 (0.25 if i < 6 else 0.02) * pawn, False) for i in self.TUNED]
        return spec_from(rows, {"material": [0, 1, 2, 3], "mobility": [4]})

    def numbers(self):
        import numpy as np
        return np.array([self.weights[i] for i in self.TUNED])

    def with_numbers(self, vector, genome_id: int) -> MaterialGenome:
        weights = list(self.weights)
        for value, i in zip(self.number_spec().legal(vector), self.TUNED):
            weights[i] = float(value)
        return MaterialGenome(genome_id, weights, self.centre_bonus,
                              self.advanced_pawn_bonus).with_search(self.search)

    def copy(self, new_id: int | None = None) -> MaterialGenome:
        return MaterialGenome(self.id if new_id is None else new_id, self.weights,
                              self.centre_bonus, self.advanced_pawn_bonus).with_search(self.search)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MaterialGenome) and other.id == self.id
                and other.weights == self.weights and other.centre_bonus == self.centre_bonus
                and other.advanced_pawn_bonus == self.advanced_pawn_bonus and other.search == self.search)

    __hash__ = None  # mutable in spirit: trainers replace, never hash

    def __repr__(self) -> str:
        return f"MaterialGenome({self.id}, {list(self.weights)})"
