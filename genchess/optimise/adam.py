"""Adam (Kingma and Ba, 2015): steps scaled per number by its own gradient's history.

adam_move is the arithmetic, written once for Python: evolve's minibatch Adam below
and the network trainer's numpy reference (fitness/network_model.py) both step with
it; the network trainer's fast kernels (genchess_core/network_fit.pyx) do the same
sums in C, with these constants.

Adam below moves a vector x inside a box [lo, hi] (clipped after each step) from
x = 0: evolve's coordinates, each number in its steps from the start, so that one
learning rate suits a table entry and a piece value. An epoch is one pass over an
objective's positions in a fresh random order, in minibatches: many small steps a
pass instead of one. The objective is anything with len(), shuffled(order) and
loss_and_gradient(x, rows) (fitness/gradient.py's LinearTexel).

Exact resume: state() holds the numbers, both moments, the step count and the
shuffling generator; an epoch is the unit of work, so a resumed run repeats the
same epochs with the same batches.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

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


@dataclass(frozen=True)
class AdamSettings:
    learning_rate: float            # the largest step, in x's units
    batch_size: int                 # positions a step (epoch())


class Adam:
    """Minibatch Adam over x in [lo, hi] (the bounds in steps), from x = 0."""

    NAME = "adam"

    def __init__(self, dimension: int, settings: AdamSettings, seed: int,
                 lo: np.ndarray, hi: np.ndarray):
        # (The attributes keep the names a pickled Adam of an older run has.)
        self.rate, self.batch = settings.learning_rate, settings.batch_size
        self.lo, self.hi = lo, hi
        self.x = np.zeros(dimension)
        self.m = np.zeros(dimension)            # the moments: mean gradient, mean square
        self.v = np.zeros(dimension)
        self.t = 0                              # steps taken (their bias correction)
        self.rng = np.random.default_rng(seed)

    @property
    def settings(self) -> AdamSettings:
        return AdamSettings(self.rate, self.batch)

    def step(self, gradient: np.ndarray) -> None:
        """One step along -gradient, kept in the box."""
        self.t += 1
        move, self.m, self.v = adam_move(gradient, self.m, self.v, self.t, self.rate)
        self.x = np.clip(self.x - move, self.lo, self.hi)

    def epoch(self, objective) -> float:
        """One pass over the objective's positions in a fresh random order; the mean
        of the minibatches' objectives."""
        shuffled = objective.shuffled(self.rng.permutation(len(objective)))
        losses = []
        for start in range(0, len(shuffled), self.batch):
            loss, gradient = shuffled.loss_and_gradient(self.x, slice(start, start + self.batch))
            losses.append(loss)
            self.step(gradient)
        return float(np.mean(losses)) if losses else 0.0

    def state(self) -> dict:
        return {"optimiser": self.NAME, "settings": asdict(self.settings), "lo": self.lo,
                "hi": self.hi, "x": self.x, "m": self.m, "v": self.v, "t": self.t,
                "rng": self.rng.bit_generator.state}

    @classmethod
    def from_state(cls, state: dict) -> Adam:
        adam = cls(len(state["x"]), AdamSettings(**state["settings"]), 0, state["lo"], state["hi"])
        adam.x, adam.m, adam.v, adam.t = state["x"], state["m"], state["v"], state["t"]
        adam.rng.bit_generator.state = state["rng"]
        return adam
