"""The gauntlet's rating fit on synthetic results with known ratings."""

import random

import pytest

from genchess.strength.stats import MatchStats
from genchess.strength.ratings import Opponent, expected_score, fit_rating


def test_even_score_against_one_opponent_is_its_rating():
    fit = fit_rating([Opponent("a", 1500, MatchStats(10, 20, 10))])
    assert fit.rating == pytest.approx(1500, abs=1e-6)
    assert fit.low < 1500 < fit.high and not fit.prior_draws


def test_score_against_one_opponent_inverts_the_logistic():
    # 3/4 of the points against 1600: 1600 + 400 log10(3).
    fit = fit_rating([Opponent("a", 1600, MatchStats(30, 0, 10))])
    assert fit.rating == pytest.approx(1600 + 190.8485, abs=1e-3)


def test_synthetic_ladder_recovers_the_true_rating():
    rng = random.Random(3)
    true = 1850
    hits = 0
    for trial in range(20):
        opponents = []
        for rating in (1400, 1600, 1800, 2000, 2200):
            e = expected_score(true, rating)
            w = d = l = 0
            for _ in range(60):
                u = rng.random()
                # 30% draws, wins and losses split to give expectation e.
                if u < e - 0.15:
                    w += 1
                elif u < e + 0.15:
                    d += 1
                else:
                    l += 1
            opponents.append(Opponent(str(rating), rating, MatchStats(w, d, l)))
        fit = fit_rating(opponents)
        assert abs(fit.rating - true) < 120
        assert 25 < fit.error < 100
        hits += fit.low <= true <= fit.high
    # A 95% interval covers the truth in most of 20 trials.
    assert hits >= 16


def test_perfect_score_stays_finite():
    fit = fit_rating([Opponent("a", 1400, MatchStats(10, 0, 0)), Opponent("b", 1500, MatchStats(6, 0, 0))])
    assert fit.prior_draws and 1500 < fit.rating < 2500
    with pytest.raises(ValueError):
        fit_rating([Opponent("a", 1400, MatchStats(0, 0, 0))])
