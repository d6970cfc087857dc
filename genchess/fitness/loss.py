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
- a mix: weight * the result loss + (1 - weight) * the mentor loss.

The loss is a mean of squares of numbers in [0, 1]: 0 is a perfect prediction,
0.25 a coin toss. Differences between genomes are small (the third decimal) and a
lower loss is a hint, never strength: games decide (the champion's SPRT).
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
    k_result: float             # K of the result loss (fitted with the reference genome)
    k_mentor: float = math.nan  # K_m of the mentor loss (fitted with the mentor's scores)
    weight: float = 1.0         # mix: the result loss's share

    def __post_init__(self):
        if self.kind not in LABELS:
            raise ValueError(f"labels must be one of {', '.join(LABELS)}, not {self.kind!r}")
        if self.kind != "result" and not math.isfinite(self.k_mentor):
            raise ValueError("mentor labels need a set with mentor scores (ce)")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"the mix weight must be between 0 and 1, not {self.weight:g}")

    def parts(self, results, mentor) -> list[tuple[float, float, np.ndarray]]:
        """(share, K, target) of each squared error the loss sums: the results
        with K, the mentor's expected results with K_m, or both."""
        parts = []
        if self.kind in ("result", "mix"):
            parts.append((1.0 if self.kind == "result" else self.weight, self.k_result,
                          np.asarray(results, dtype=float)))
        if self.kind in ("mentor", "mix"):
            parts.append((1.0 if self.kind == "mentor" else 1.0 - self.weight, self.k_mentor,
                          sigmoid(mentor, self.k_mentor)))
        return parts

    def loss(self, cp, results, mentor) -> np.ndarray:
        """One loss per genome (column of `cp`) against these labels."""
        return sum(share * squared_error(target, cp, k)
                   for share, k, target in self.parts(results, mentor))


def loss_and_slope(parts, cp: np.ndarray) -> tuple[float, np.ndarray]:
    """The loss of one evaluation `cp` [n] against `parts` (Labels.parts) and its
    exact derivative by each position's cp: with s = sigmoid(K cp / 400),
    d/dcp (t - s)^2 = 2 (s - t) s (1 - s) ln(10) K / 400, over n for the mean."""
    loss, slope = 0.0, np.zeros(len(cp))
    for share, k, target in parts:
        s = sigmoid(cp, k)
        loss += share * float(np.mean((target - s) ** 2))
        slope += share * 2.0 * (s - target) * s * (1.0 - s) * (math.log(10.0) * k / 400.0)
    return loss, slope / max(1, len(cp))
