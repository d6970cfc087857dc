"""The exact gradient of a linear kind's loss, and the L2 term every optimiser can add.

A linear kind's evaluation is cp = A v + b before C's rounding (features.LinearMap),
so the Texel loss has an exact gradient: A^T (d loss / d cp), one sparse product
back for the one forward, where CMA-ES needs a population of forwards to learn one
direction. LinearTexel is that objective; evolve's adam (optimise/adam.py) walks it
in minibatches.

The coordinates are the optimisers' (train/evolve.py): each evolving number in its
steps from the start, so one learning rate suits a table entry and a piece value.

The L2 term, weight * sum over the evolving numbers of (number / pawn)^2, pulls
toward zero what the positions do not hold in place: a number most positions touch
feels it against a data gradient thousands of times larger, one that few touch
settles near zero instead of wherever the noise of its few positions left it. Every
optimiser of evolve adds it to the loss it minimises (l2_penalty), so cma-es and ga
runs are regularised the same way when asked.
"""

from __future__ import annotations

import numpy as np

from genchess.fitness.loss import loss_and_slope


def l2_penalty(vectors: np.ndarray, pawn: float, weight: float) -> np.ndarray:
    """weight * sum of (number / pawn)^2 over the numbers of each row of `vectors`."""
    vectors = np.atleast_2d(vectors)
    if not weight:
        return np.zeros(len(vectors))
    return weight * np.sum((vectors / pawn) ** 2, axis=1)


class LinearTexel:
    """The objective Adam minimises: the Texel loss of cp = matrix x + offset (x the
    evolving numbers in steps from `origin`) plus the L2 term; its exact gradient."""

    def __init__(self, linear, labels, results, mentor, origin: np.ndarray, evolving: np.ndarray,
                 step: np.ndarray, l2_weight: float):
        from scipy import sparse
        self.matrix = (linear.matrix[:, evolving] @ sparse.diags(step[evolving])).tocsr()
        self.offset = linear.matrix @ origin + linear.offset
        self.target, self.k = labels.target(results, mentor), labels.k
        self.base, self.step = origin[evolving], step[evolving]
        self.pawn, self.l2_weight = linear.pawn, l2_weight

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def shuffled(self, order: np.ndarray) -> LinearTexel:
        """The same objective with its positions in `order` (minibatches are then slices)."""
        other = object.__new__(LinearTexel)
        other.__dict__.update(self.__dict__)
        other.matrix, other.offset = self.matrix[order], self.offset[order]
        other.target = self.target[order]
        return other

    def numbers(self, x: np.ndarray) -> np.ndarray:
        return self.base + x * self.step

    def loss_and_gradient(self, x: np.ndarray, rows: slice = slice(None)) -> tuple[float, np.ndarray]:
        """The objective on the positions `rows` and its gradient by x."""
        matrix = self.matrix[rows]
        loss, slope = loss_and_slope(self.target[rows], self.k, matrix @ x + self.offset[rows])
        gradient = matrix.T @ slope
        if self.l2_weight:
            numbers = self.numbers(x) / self.pawn
            loss += self.l2_weight * float(numbers @ numbers)
            gradient += 2.0 * self.l2_weight * numbers * self.step / self.pawn
        return loss, gradient
