"""The sequential probability ratio test: stop a match as soon as it has decided.

H0 says the first engine is `elo0` stronger, H1 says `elo1`; the log-likelihood
ratio (LLR) of the results grows towards +log((1-beta)/alpha) under H1 and
towards log(beta/(1-alpha)) under H0, and the match stops when it crosses
either bound. This is the generalised SPRT of fishtest and fastchess: each
hypothesis is the distribution of game (or pair) scores that fits the observed
frequencies best (maximum likelihood) while having the hypothesised Elo, and
the LLR compares the two. Two ways to state the Elo:

- `normalized` (the default, as fishtest and fastchess): normalised Elo, the
  score's distance from 1/2 in standard deviations, times 800/ln 10. It does not
  depend on the draw ratio, so bounds mean the same at any time control.
- `logistic`: the classic Elo, fixing the expected score.

Results are trinomial (L, D, W counts) for unpaired games and pentanomial
(LL, LD, WL+DD, WD, WW) for game pairs. A tiny count is added to every cell so
that an empty one does not make the likelihood degenerate (as fishtest does).

Both maximum-likelihood problems reduce to one equation in one unknown (the
Lagrange multiplier of the constraint), solved here by bisection: exact, no
derivatives, no scipy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from genchess.strength.stats import PAIR_SCORES, mean_and_variance, score_from_elo

NELO_PER_T = 800.0 / math.log(10.0)     # normalised Elo per unit of (score - 1/2) / sigma
# The damped fixed-point iteration of mle_with_t is checked to meet its constraint
# for every small count vector up to this normalised Elo; SPRT bounds in practice
# are a few Elo. Wider hypotheses must use the logistic model.
MAX_NORMALIZED_ELO = 200.0
REGULARIZE = 1e-3                       # added to every cell's count
MODELS = ("normalized", "logistic")
CONTINUE, H0, H1 = "continue", "H0", "H1"


def _values(counts) -> tuple[float, ...]:
    if len(counts) == 3:
        return (0.0, 0.5, 1.0)
    if len(counts) == 5:
        return PAIR_SCORES
    raise ValueError(f"expected 3 (trinomial) or 5 (pentanomial) counts, not {len(counts)}")


def _solve_multiplier(p, v) -> float:
    """The x with sum p_i v_i / (1 + x v_i) = 0 and every 1 + x v_i > 0: the left
    side falls strictly in x from +inf to -inf between the poles, so bisection
    finds it. Only bisection midpoints are returned, never a pole itself, which
    matters when the data lie far from the hypothesis and the root hugs a pole."""
    if max(v) <= 0 or min(v) >= 0:
        # The constraint cannot be met by reweighting (all the mass on one side).
        return 0.0
    lo, hi = -1.0 / max(v), -1.0 / min(v)
    inside = None
    for _ in range(2000):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        inside = mid
        f = sum(pi * vi / (1.0 + mid * vi) for pi, vi in zip(p, v))
        if f > 0:
            lo = mid
        elif f < 0:
            hi = mid
        else:
            break
    return inside if inside is not None else (lo + hi) / 2


def _reweight(p, v) -> list[float]:
    x = _solve_multiplier(p, v)
    q = [pi / (1.0 + x * vi) for pi, vi in zip(p, v)]
    total = sum(q)
    return [qi / total for qi in q]


def mle_with_mean(p, values, mean: float) -> list[float]:
    """The distribution on `values` nearest `p` (maximum likelihood) with this mean."""
    return _reweight(p, [a - mean for a in values])


def mle_with_t(p, values, ref: float, t: float) -> list[float]:
    """The distribution nearest `p` with (mean - ref) / sigma = t.

    Stationarity of the Lagrangian gives q_i = p_i / (1 + x v_i) with
    v_i = (a_i - ref) - t sigma (1 + ((a_i - mu) / sigma)^2) / 2, where mu and
    sigma are q's own: iterate to the fixed point from the uniform distribution.
    Far from the data (a large t against lopsided results) the plain iteration
    overshoots and cycles, so each step is damped, more the longer it takes."""
    q = [1.0 / len(p)] * len(p)
    damping = 1.0
    for step in range(3000):
        mu, var, _ = mean_and_variance(q, values)
        sigma = math.sqrt(max(var, 1e-300))
        v = [(a - ref) - t * sigma * (1.0 + ((a - mu) / sigma) ** 2) / 2 for a in values]
        new = _reweight(p, v)
        change = max(abs(a - b) for a, b in zip(new, q))
        if change < 1e-13:
            return new
        if step in (50, 300, 1000):
            damping /= 2
        q = [damping * b + (1 - damping) * a for a, b in zip(q, new)]
    return q


def llr(counts, elo0: float, elo1: float, model: str = "normalized") -> float:
    """The log-likelihood ratio of H1 (elo1) against H0 (elo0) for these counts
    (3: L, D, W; 5: pairs LL .. WW, from the first engine's side)."""
    values = _values(counts)
    if sum(counts) == 0:
        return 0.0
    regular = [c + REGULARIZE for c in counts]
    n = sum(regular)
    p = [c / n for c in regular]
    if model == "logistic":
        q0 = mle_with_mean(p, values, score_from_elo(elo0))
        q1 = mle_with_mean(p, values, score_from_elo(elo1))
    elif model == "normalized":
        # A pair's mean score has sqrt(2) times less spread per game than one game:
        # normalised Elo is per game, so the pair's t is sqrt(2) times larger.
        scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
        q0 = mle_with_t(p, values, 0.5, elo0 / NELO_PER_T * scale)
        q1 = mle_with_t(p, values, 0.5, elo1 / NELO_PER_T * scale)
    else:
        raise ValueError(f"unknown SPRT model {model!r}: expected one of {', '.join(MODELS)}")
    return n * sum(pi * (math.log(b) - math.log(a)) for pi, a, b in zip(p, q0, q1))


@dataclass
class Sprt:
    """An SPRT in progress: feed it the counts so far, ask it what to do. The default
    bounds [0, 10] are the project's: every search step and genome was gated by them,
    and the trainers' champion uses them too."""
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"
    last_llr: float = 0.0

    def __post_init__(self):
        if self.model not in MODELS:
            raise ValueError(f"unknown SPRT model {self.model!r}: expected one of {', '.join(MODELS)}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("SPRT alpha and beta must be between 0 and 1")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NORMALIZED_ELO:
            raise ValueError(f"SPRT bounds beyond +-{MAX_NORMALIZED_ELO:g} normalized Elo are not "
                             f"supported: use model=logistic for such wide hypotheses")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def update(self, counts) -> str:
        """The LLR of these counts (trinomial or pentanomial) and the verdict."""
        self.last_llr = llr(counts, self.elo0, self.elo1, self.model)
        return self.status()

    def status(self) -> str:
        if self.last_llr >= self.upper:
            return H1
        if self.last_llr <= self.lower:
            return H0
        return CONTINUE

    def describe(self) -> str:
        return (f"LLR {self.last_llr:+.2f} ({self.lower:+.2f}, {self.upper:+.2f}) "
                f"[{self.elo0:g}, {self.elo1:g}] {self.model}")

    def as_dict(self) -> dict:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "llr": self.last_llr, "lower": self.lower,
                "upper": self.upper, "status": self.status()}


def parse_sprt(words: list[str]) -> Sprt:
    """`elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized` (any subset, any order);
    ValueError naming the bad word."""
    values: dict[str, object] = {}
    for word in words:
        key, eq, text = word.partition("=")
        key = key.strip().lower()
        if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise ValueError(f"bad SPRT setting {word!r}: expected elo0=, elo1=, alpha=, beta= or model=")
        if key == "model":
            values[key] = text.strip().lower()
            continue
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"bad SPRT setting {word!r}: {text!r} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"bad SPRT setting {word!r}: not a finite number")
        values[key] = number
    return Sprt(**values)
