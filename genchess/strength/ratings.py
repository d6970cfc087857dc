"""One engine's rating from its results against opponents of known rating.

Maximum likelihood on the logistic model, as Ordo and BayesElo fit a player
against anchors: each game's expected score against an opponent rated r is
E(R) = 1 / (1 + 10^((r - R) / 400)), and R maximises
sum_j [S_j log E_j + (n_j - S_j) log(1 - E_j)] (a draw counts as half a win and
half a loss, Ordo's convention). Newton's method converges in a few steps since
the log-likelihood is concave in R.

The 95% interval uses the sandwich (robust) variance: the curvature of the
log-likelihood (what a pure win/loss model expects) corrected by the observed
spread of the game scores, so that many draws, which make results less noisy
than wins and losses would, narrow the interval as they should.

A perfect or zero score has no finite maximum; like BayesElo's prior of virtual
draws, one virtual draw against each opponent keeps the fit finite, and the
result says that it was needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from genchess.strength.stats import Z95, MatchStats

K = math.log(10.0) / 400.0       # d/dR of the logistic's exponent


@dataclass(frozen=True)
class Opponent:
    """Results of the engine (from its side) against one opponent of known `rating`."""
    name: str
    rating: float
    results: MatchStats


@dataclass(frozen=True)
class RatingFit:
    rating: float
    low: float
    high: float
    games: int
    prior_draws: bool           # a perfect or zero score needed the virtual draws

    @property
    def error(self) -> float:
        return (self.high - self.low) / 2


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def fit_rating(opponents: list[Opponent]) -> RatingFit:
    """The maximum-likelihood rating and its 95% interval; ValueError without games."""
    played = [o.results for o in opponents if o.results.games]
    if not played:
        raise ValueError("no games to fit a rating to")
    total = sum(r.points for r in played)
    games = sum(r.games for r in played)
    prior = total <= 0 or total >= games
    extra = 1 if prior else 0
    cells = [(o.rating, o.results.points + extra / 2, o.results.games + extra, o.results)
             for o in opponents if o.results.games]
    weights = sum(n for _, _, n, _ in cells)
    rating = sum(r * n for r, _, n, _ in cells) / weights
    for _ in range(100):
        gradient = sum(points - n * expected_score(rating, r) for r, points, n, _ in cells) * K
        curvature = sum(n * expected_score(rating, r) * (1 - expected_score(rating, r))
                        for r, _, n, _ in cells) * K * K
        step = max(min(gradient / curvature, 400.0), -400.0)   # damped far from the answer
        rating += step
        if abs(step) < 1e-9:
            break
    information = sum(n * expected_score(rating, r) * (1 - expected_score(rating, r))
                      for r, _, n, _ in cells) * K * K
    # Observed squared deviations of single game scores from their expectation.
    spread = 0.0
    for r, _, _, o in cells:
        e = expected_score(rating, r)
        spread += o.wins * (1 - e) ** 2 + o.draws * (0.5 - e) ** 2 + o.losses * e ** 2
    if prior:
        spread += sum((0.5 - expected_score(rating, r)) ** 2 for r, _, _, _ in cells)
    variance = spread * K * K / information ** 2
    # With all games drawn against equal opposition the spread is 0: fall back to
    # the model's own variance so the interval never collapses to a point.
    if variance <= 0:
        variance = 1.0 / information
    error = Z95 * math.sqrt(variance)
    return RatingFit(rating, rating - error, rating + error, games, prior)
