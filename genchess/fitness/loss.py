"""The position fitness: how well an evaluation predicts a labelled set.

Texel's loss, for the quiet positions of a set (position_sets/position_set.py):

    loss = mean over positions of (label - sigmoid(K * cp / 400))^2,
    sigmoid(x) = 1 / (1 + 10^-x)

with cp the evaluation from White's view in centipawns (the genome's own pawn
unit). Two labels, and a mix of them:

- `result`: the game's result, 1, 1/2 or 0 for White. K is the set's: fitted once,
  with a reference genome's evaluations, so that its sigmoid predicts the results
  best (Texel's method), and then fixed while the genome changes.
- `mentor`: a strong engine's score, as the expected result it stands for,
  sigmoid(K_m * mentor / 400), K_m fitted so that the mentor's own scores predict
  the results best; the genome is scored with the same K_m, so it learns the
  mentor's scale (David-Tabibi, Koppel and Netanyahu's mentor-assisted evolution).
- `mix`: the two blended into one label with the WDL weight lambda (`wdl`), as
  every network trainer of the field does (Bullet's `wdl`, 0.1 to 0.5 in the
  engines it trains): label = wdl * result + (1 - wdl) * sigmoid(K_m * mentor / 400),
  scored with the mentor's K_m. wdl = 0 is the mentor's label, 1 the result alone
  at the mentor's scale.

The loss is a mean of squares of numbers in [0, 1]: 0 is a perfect prediction,
0.25 a coin toss. Differences between genomes are small (the third decimal) and a
lower loss is a hint, never strength: games decide (the champion's SPRT).

Until 2026-12-06 a mix weighed two losses (the result's at K, the mentor's at K_m)
instead of blending the labels; with K = K_m the two differ by a constant and have
the same gradient, and K and K_m of a set are close (docs/positions.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

LABELS = ("result", "mentor", "mix")


def sigmoid(cp, k: float):
    """The expected score for White at `cp` centipawns, 1 / (1 + 10^(-k cp / 400))."""
    return 1.0 / (1.0 + np.power(10.0, -k * np.asarray(cp, dtype=float) / 400.0))


def squared_error(labels, cp, k: float) -> np.ndarray:
    """Mean squared error of the sigmoid of `cp` (positions along the first axis,
    genomes along the second if any) against `labels`: one loss per genome."""
    cp = np.asarray(cp, dtype=float)
    labels = np.asarray(labels, dtype=float)
    if cp.ndim == 2:
        labels = labels[:, None]
    return np.mean((labels - sigmoid(cp, k)) ** 2, axis=0)


def fit_k(cp, results, lo: float = 0.05, hi: float = 10.0, tolerance: float = 1e-5) -> float:
    """The K with the least squared error of sigmoid(K cp / 400) against `results`
    (golden-section search: the error is unimodal in K for any set worth tuning on)."""
    cp = np.asarray(cp, dtype=float)
    results = np.asarray(results, dtype=float)
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = squared_error(results, cp, c), squared_error(results, cp, d)
    while b - a > tolerance:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = squared_error(results, cp, c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = squared_error(results, cp, d)
    return (a + b) / 2.0


@dataclass(frozen=True)
class Labels:
    """What a set's evaluations are scored against: the label kind and its constants."""
    kind: str                   # result, mentor or mix
    k_result: float             # K of the result label (fitted with the reference genome)
    k_mentor: float = math.nan  # K_m of the mentor's label (fitted with the mentor's scores)
    wdl: float | None = None    # the result's weight in the label: 1 result, 0 mentor, mix's own

    def __post_init__(self):
        if self.kind not in LABELS:
            raise ValueError(f"labels must be one of {', '.join(LABELS)}, not {self.kind!r}")
        if self.kind != "result" and not math.isfinite(self.k_mentor):
            raise ValueError("mentor labels need a set with mentor scores (ce)")
        if self.kind == "mix":
            if self.wdl is None or not 0.0 <= self.wdl <= 1.0:
                raise ValueError(f"mixed labels need a wdl between 0 and 1, not {self.wdl}")
        else:
            object.__setattr__(self, "wdl", 1.0 if self.kind == "result" else 0.0)

    @property
    def k(self) -> float:
        """The K an evaluation is scored with: the result's for result labels, the
        mentor's (the label's own scale) for the others."""
        return self.k_result if self.kind == "result" else self.k_mentor

    def target(self, results, mentor) -> np.ndarray:
        """Each position's label, an expected score for White in [0, 1]."""
        results = np.asarray(results, dtype=float)
        if self.kind == "result":
            return results
        expected = sigmoid(mentor, self.k_mentor)
        return expected if self.wdl == 0.0 else self.wdl * results + (1.0 - self.wdl) * expected

    def describe(self) -> str:
        """`mentor`, `result` or `mix wdl 0.25`: as run files and lineages say it."""
        return f"mix wdl {self.wdl:g}" if self.kind == "mix" else self.kind

    def loss(self, cp, results, mentor) -> np.ndarray:
        """One loss per genome (column of `cp`) against these labels."""
        return squared_error(self.target(results, mentor), cp, self.k)


def loss_and_slope(target: np.ndarray, k: float, cp: np.ndarray) -> tuple[float, np.ndarray]:
    """The loss of one evaluation `cp` [n] against `target` (Labels.target) at `k`,
    and its exact derivative by each position's cp: with s = sigmoid(K cp / 400),
    d/dcp (t - s)^2 = 2 (s - t) s (1 - s) ln(10) K / 400, over n for the mean."""
    s = sigmoid(cp, k)
    loss = float(np.mean((target - s) ** 2)) if len(cp) else 0.0
    slope = 2.0 * (s - target) * s * (1.0 - s) * (math.log(10.0) * k / 400.0)
    return loss, slope / max(1, len(cp))
