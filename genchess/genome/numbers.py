"""A genome's numbers as one vector: what an optimiser (a GA, CMA-ES) changes.

Every kind says which of its numbers the evaluation depends on (`NumberSpec`: names,
bounds, a typical step, whole or not, named groups), reads them off a genome
(`numbers()`) and makes a genome from a vector (`with_numbers()`), so a tuner
evolves any kind the same way, all numbers or only some groups ("material",
"tables"...). What the evaluation does not depend on stays out: a Genetic Chess
genome's Look Ahead Gene (it spends the clock), the material genome's king weight
(both sides always have one king). The pawn is the unit every evaluation is
reported in (centipawns = evaluation / pawn unit * 100), so a kind's pawn value is
not among its numbers: moving it would only rescale everything else.

Design trade-off: one flat float vector per genome, whatever the kind, rather than
operators per kind: the optimisers are then the same code for 7 weights and for
645 table entries, at the price of a conversion per genome (cheap: no search runs
between two conversions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class NumberSpec:
    names: tuple[str, ...]
    lo: np.ndarray                  # bounds: a vector is clipped into them
    hi: np.ndarray
    step: np.ndarray                # a typical change: mutation size, CMA-ES's first sigma
    integer: np.ndarray             # whole numbers (rounded after every change)
    groups: dict[str, np.ndarray] = field(default_factory=dict)     # name -> indices

    def __post_init__(self):
        self.groups.setdefault("all", np.arange(len(self.names)))

    def __len__(self) -> int:
        return len(self.names)

    def indices(self, groups: list[str]) -> np.ndarray:
        """The indices of the named groups, in order; KeyError naming a bad group."""
        unknown = [g for g in groups if g not in self.groups]
        if unknown:
            raise KeyError(f"unknown group {unknown[0]!r} (groups: {', '.join(self.groups)})")
        return np.unique(np.concatenate([self.groups[g] for g in groups]))

    def legal(self, vector: np.ndarray) -> np.ndarray:
        """`vector` clipped into the bounds, whole numbers rounded (any leading shape)."""
        vector = np.clip(np.asarray(vector, dtype=float), self.lo, self.hi)
        return np.where(self.integer, np.round(vector), vector)


def spec_from(entries: list[tuple[str, float, float, float, bool]], groups: dict[str, list[int]]
              ) -> NumberSpec:
    """A NumberSpec from (name, lo, hi, step, integer) rows and group index lists."""
    names, lo, hi, step, integer = zip(*entries)
    return NumberSpec(tuple(names), np.array(lo, float), np.array(hi, float),
                      np.array(step, float), np.array(integer, bool),
                      {name: np.array(ix, int) for name, ix in groups.items()})
