"""Gradient descent on positions: Adam over a linear kind's numbers.

A linear kind's evaluation is cp = A v + b before C's rounding (features.LinearMap),
so the Texel loss has an exact gradient: A^T (d loss / d cp), one sparse product
back for the one forward, where CMA-ES needs a population of forwards to learn one
direction. The optimiser is Adam (Kingma and Ba, 2015) on minibatches of the
shuffled training part: many small steps a pass instead of one, each scaled per
number by its own gradient's history, so a table entry that few positions touch
moves as fast as the material once it is touched at all.

The coordinates are CMA-ES's (train/evolve.py): each evolving number in its steps
from the start, so one learning rate suits a table entry and a piece value; the
bounds are a box, kept by clipping after each step.

The L2 term, weight * sum over the evolving numbers of (number / pawn)^2, pulls
toward zero what the positions do not hold in place: a number most positions touch
feels it against a data gradient thousands of times larger, one that few touch
settles near zero instead of wherever the noise of its few positions left it. Every
optimiser of evolve adds it to the loss it minimises (l2_penalty), so cma-es and ga
runs are regularised the same way when asked.

Exact resume: the state is the numbers, both moments, the step count and the
shuffling generator, pickled whole with the run; an epoch is the unit of work, so
a resumed run repeats the same epochs with the same batches.
"""

from __future__ import annotations

import numpy as np

from genchess.fitness.loss import loss_and_slope

BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8        # Adam's published defaults


def adam_move(gradient: np.ndarray, m: np.ndarray, v: np.ndarray, t: int,
              rate: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(move, m, v): Adam's t-th step (t from 1) for `gradient` with the moments
    m and v so far; the numbers go to numbers - move."""
    m = BETA1 * m + (1.0 - BETA1) * gradient
    v = BETA2 * v + (1.0 - BETA2) * gradient * gradient
    m_hat = m / (1.0 - BETA1 ** t)
    v_hat = v / (1.0 - BETA2 ** t)
    return rate * m_hat / (np.sqrt(v_hat) + EPSILON), m, v


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


class Adam:
    """Minibatch Adam over x in [lo, hi] (the bounds in steps), from x = 0."""

    def __init__(self, dimension: int, rate: float, batch: int, seed: int,
                 lo: np.ndarray, hi: np.ndarray):
        self.rate, self.batch = rate, batch
        self.lo, self.hi = lo, hi
        self.x = np.zeros(dimension)
        self.m = np.zeros(dimension)            # the moments: mean gradient, mean square
        self.v = np.zeros(dimension)
        self.t = 0                              # steps taken (their bias correction)
        self.rng = np.random.default_rng(seed)

    def epoch(self, objective: LinearTexel) -> float:
        """One pass over the objective's positions in a fresh random order; the mean
        of the minibatches' objectives."""
        shuffled = objective.shuffled(self.rng.permutation(len(objective)))
        losses = []
        for start in range(0, len(shuffled), self.batch):
            loss, gradient = shuffled.loss_and_gradient(self.x, slice(start, start + self.batch))
            losses.append(loss)
            self.t += 1
            move, self.m, self.v = adam_move(gradient, self.m, self.v, self.t, self.rate)
            self.x = np.clip(self.x - move, self.lo, self.hi)
        return float(np.mean(losses)) if losses else 0.0
