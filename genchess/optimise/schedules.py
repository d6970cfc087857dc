"""Learning-rate schedules: what rate an epoch trains at.

One for now, the step drop the network trainer uses: the fast part finds the
region, the slow part settles in it. SPSA's gain sequences (c_k, a_k) are its own
(spsa.py): they are part of the method, not a choice beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class StepDrop:
    """`learning_rate` until `drop_at` of `epochs` are done, then `learning_rate * rate_drop`."""
    learning_rate: float
    rate_drop: float
    drop_at: float
    epochs: int

    def rate(self, epoch: int) -> float:
        """The learning rate of epoch `epoch` (from 1)."""
        dropped = epoch > math.ceil(self.drop_at * self.epochs)
        return self.learning_rate * (self.rate_drop if dropped else 1.0)
