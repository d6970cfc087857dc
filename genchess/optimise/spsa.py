"""SPSA: tuning numbers that only games can score, the way fishtest and OpenBench do.

Simultaneous perturbation stochastic approximation needs no gradient and no
position set: each iteration moves every free number at once by +-c_k (a coin per
number), plays theta + c_k * delta against theta - c_k * delta, and steps theta along
delta by how much the plus side won. Over many iterations the coins average out and
theta follows the gradient of the engine's strength. One game pair an iteration is
the noisiest estimate there is, which is why the schedules shrink both the
perturbation and the step as the run goes on.

The schedules are fishtest's, per number i over N iterations (k = 1 .. N):

    c_k = c_i / k**gamma                with c_i = c_end_i * N**gamma
    a_k = a_i / (A + k)**alpha          with a_i = r_end_i * c_end_i**2 * (A + N)**alpha
    theta_i += a_k / c_k * (wins - losses of the plus side) * delta_i

so that the last iteration perturbs by c_end and steps by r_end * c_end (per game
point) whatever N is. A is a share of N (OpenBench's A ratio, 0.1 by default); alpha
0.602 and gamma 0.101 are Spall's. Each number keeps to its bounds and may be frozen. A
whole number's perturbation never falls below half a unit (OpenBench's floor): below it,
both sides could round to the same value and theta would walk on games that compare
nothing. These are fishtest's and OpenBench's formulas term for term (fishtest's
spsa_workflow.py, OpenBench's spsa_utils.py); docs/tune.md sets them side by side.

The optimiser is plain data and pure functions apart from the loop that plays the
games: ask() draws an iteration's coins and its two sides, tell() steps theta by
their result, and `Spsa.state()` (JSON-ready) is everything a run needs to go on
exactly where it stopped, random stream included (Spsa.from_state makes it again).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
INTEGER_C_MIN = 0.5     # a whole number's smallest perturbation (OpenBench's floor)


@dataclass(frozen=True)
class SpsaParameter:
    """One number SPSA tunes: its start, bounds, perturbation and step at the end
    (c_end in the number's own units; r_end the learning rate, as OpenBench's). A whole
    number (`integer`) is played rounded, so its perturbation keeps to INTEGER_C_MIN."""
    name: str
    start: float
    lo: float
    hi: float
    c_end: float
    r_end: float = 0.002
    frozen: bool = False
    integer: bool = False

    def __post_init__(self):
        if not self.lo <= self.start <= self.hi:
            raise ValueError(f"{self.name}: start {self.start:g} is outside its bounds "
                             f"[{self.lo:g}, {self.hi:g}]")
        if not self.c_end > 0 or not self.r_end > 0:
            raise ValueError(f"{self.name}: c_end and r_end must be above zero")


@dataclass(frozen=True)
class SpsaSchedule:
    iterations: int
    a_ratio: float = A_RATIO
    alpha: float = ALPHA
    gamma: float = GAMMA

    @property
    def big_a(self) -> float:
        return self.a_ratio * self.iterations

    def c_k(self, parameter: SpsaParameter, k: int) -> float:
        """The perturbation at iteration k (1-based)."""
        c = parameter.c_end * self.iterations ** self.gamma / k ** self.gamma
        return max(c, INTEGER_C_MIN) if parameter.integer else c

    def a_k(self, parameter: SpsaParameter, k: int) -> float:
        a = parameter.r_end * parameter.c_end ** 2 * (self.big_a + self.iterations) ** self.alpha
        return a / (self.big_a + k) ** self.alpha


def clamp(value: float, parameter: SpsaParameter) -> float:
    return min(parameter.hi, max(parameter.lo, value))


@dataclass
class Spsa:
    """A run: the parameters, the schedule, theta and the iterations done."""
    NAME = "spsa"
    parameters: list[SpsaParameter]
    schedule: SpsaSchedule
    seed: int = 1
    theta: list[float] = field(default_factory=list)
    k: int = 0                          # iterations done
    rng_state: object = None

    def __post_init__(self):
        if not self.theta:
            self.theta = [p.start for p in self.parameters]
        self._rng = random.Random(self.seed)
        if self.rng_state is not None:
            self._rng.setstate(_as_state(self.rng_state))

    @property
    def done(self) -> bool:
        return self.k >= self.schedule.iterations

    def values(self) -> dict[str, float]:
        return {p.name: t for p, t in zip(self.parameters, self.theta)}

    def ask(self) -> tuple[list[int], dict[str, float], dict[str, float]]:
        """The next iteration's coins and its two sides (theta +- c_k delta, within
        bounds; frozen numbers stay put). Draws from the run's random stream."""
        k = self.k + 1
        delta = [0 if p.frozen else (1 if self._rng.random() < 0.5 else -1) for p in self.parameters]
        plus, minus = {}, {}
        for p, t, d in zip(self.parameters, self.theta, delta):
            c = self.schedule.c_k(p, k)
            plus[p.name] = clamp(t + c * d, p)
            minus[p.name] = clamp(t - c * d, p)
        return delta, plus, minus

    def tell(self, delta: list[int], result: float) -> None:
        """Step theta by one iteration's `result`: the plus side's wins minus losses."""
        k = self.k + 1
        for i, (p, d) in enumerate(zip(self.parameters, delta)):
            if d:
                step = self.schedule.a_k(p, k) / self.schedule.c_k(p, k) * result * d
                self.theta[i] = clamp(self.theta[i] + step, p)
        self.k = k

    def state(self) -> dict:
        """Everything that resumes the run exactly (JSON-ready)."""
        return {"optimiser": self.NAME, "parameters": [asdict(p) for p in self.parameters],
                "schedule": asdict(self.schedule), "theta": list(self.theta), "k": self.k,
                "seed": self.seed, "rng_state": _jsonable(self._rng.getstate())}

    @classmethod
    def from_state(cls, state: dict) -> Spsa:
        return cls([SpsaParameter(**p) for p in state["parameters"]], SpsaSchedule(**state["schedule"]),
                   seed=state["seed"], theta=list(state["theta"]), k=state["k"],
                   rng_state=state["rng_state"])


def _jsonable(state):
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _as_state(state):
    version, internal, gauss = state
    return (version, tuple(internal), gauss)
