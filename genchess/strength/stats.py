"""Match statistics: W/D/L and game pairs to score, Elo with its 95% interval, LOS.

The conventions are fishtest's and fastchess's, so that a GenChess result reads
like one from those tools. Elo is the logistic difference whose expected score is
the observed one; its interval maps the score's normal 95% interval through the
same curve (so it is not symmetric). Games played as pairs (one opening, colours
reversed) are also counted pentanomially, by the pair's total (0, 1/2, 1, 3/2,
2 points): a pair's two games share an opening and so are correlated, and the
variance of the pair scores is the honest one, usually smaller than the
trinomial estimate, which treats every game as independent. Only the standard
library: a normal quantile and erf are all this needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)          # 1.959964...
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's points / 2, for LL, LD, WL+DD, WD, WW


def elo_from_score(score: float) -> float:
    """The logistic Elo difference whose expected score is `score` (+-inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def mean_and_variance(counts, values) -> tuple[float, float, int]:
    """Mean and (population) variance of `values` weighted by `counts`, and the count."""
    n = sum(counts)
    if n == 0:
        return 0.5, 0.0, 0
    mean = sum(c * v for c, v in zip(counts, values)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    return mean, var, n


@dataclass(frozen=True)
class EloEstimate:
    elo: float
    low: float              # the 95% interval
    high: float
    score: float
    stderr: float           # of the mean score (per game, or per pair's half point)

    @property
    def error(self) -> float:
        """Half the interval's width, the `+-` that tools print."""
        return (self.high - self.low) / 2


def perfect_score_bound(games: int) -> float:
    """The one-sided 95% lower bound on the Elo of a side that won all `games`: the
    score p with p ** games = 2.5%. A perfect score has no finite estimate, but this
    bound is finite (and the mirror image bounds a side that lost them all)."""
    return elo_from_score(0.025 ** (1 / games))


def elo_estimate(counts, values) -> EloEstimate:
    mean, var, n = mean_and_variance(counts, values)
    stderr = math.sqrt(var / n) if n else 0.0
    return EloEstimate(elo_from_score(mean), elo_from_score(mean - Z95 * stderr),
                       elo_from_score(mean + Z95 * stderr), mean, stderr)


@dataclass
class MatchStats:
    """Results from the first engine's point of view; `pairs` counts game pairs by
    the first engine's points in the pair: [LL, LD, WL+DD, WD, WW]."""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])

    def add_game(self, score: float) -> None:
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def add_pair(self, first: float, second: float) -> None:
        """Both games of a pair, as games and as a pair."""
        self.add_game(first)
        self.add_game(second)
        self.count_pair(first, second)

    def count_pair(self, first: float, second: float) -> None:
        """A pair whose games were already added one by one as they finished."""
        self.pairs[round((first + second) * 2)] += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.5

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else 0.0

    @property
    def trinomial(self) -> list[int]:
        return [self.losses, self.draws, self.wins]

    def elo(self) -> EloEstimate:
        """From the games as if independent."""
        return elo_estimate(self.trinomial, (0.0, 0.5, 1.0))

    def pentanomial_elo(self) -> EloEstimate:
        """From the game pairs: the same score, the pairs' variance."""
        return elo_estimate(self.pairs, PAIR_SCORES)

    def los(self) -> float:
        """Likelihood of superiority: the chance the first engine is the stronger,
        from wins and losses only (draws say nothing about who is stronger)."""
        decisive = self.wins + self.losses
        if decisive == 0:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))

    def summary(self) -> dict:
        elo, penta = self.elo(), self.pentanomial_elo()
        return {
            "games": self.games, "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score": self.score, "elo": elo.elo, "elo_low": elo.low, "elo_high": elo.high,
            "los": self.los(), "draw_ratio": self.draw_ratio,
            "pairs": sum(self.pairs), "pentanomial": list(self.pairs),
            "penta_elo": penta.elo, "penta_elo_low": penta.low, "penta_elo_high": penta.high,
        }


def format_elo(estimate: EloEstimate) -> str:
    """`+35.2 +- 20.1` (half the 95% interval; `inf` for a perfect score). When
    one end of the interval is infinite (13 wins in 16 games), the interval
    itself, `+254.7 (+75.3 to +inf)`: a bare `+- inf` would hide the finite end."""
    if not math.isfinite(estimate.elo):
        return f"{estimate.elo:+.0f}"
    error = estimate.error
    if math.isfinite(error):
        return f"{estimate.elo:+.1f} +- {error:.1f}"
    return f"{estimate.elo:+.1f} ({estimate.low:+.1f} to {estimate.high:+.1f})"


def elo_with_interval(estimate: EloEstimate) -> str:
    """`+35 (95% interval +10 to +61)`: the interval itself, which is not symmetric."""
    return f"{estimate.elo:+.0f} (95% interval {estimate.low:+.0f} to {estimate.high:+.0f})"
