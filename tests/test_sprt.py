"""SPRT log-likelihood ratios against fastchess's published test values, and stopping."""

import random

import pytest

from genchess.strength.sprt import CONTINUE, H0, H1, Sprt, llr, parse_sprt
from genchess.strength.stats import MatchStats


def penta(ll, ld, wl, dd, wd, ww):
    return [ll, ld, wl + dd, wd, ww]


# fastchess app/tests/sprt_test.cpp: Stats(wins, losses, draws) and the six pair cells
# (LL, LD, WL, DD, WD, WW); expected LLRs to two decimals.
KNOWN = [
    ([36027, 68692, 36433], 0, 2, "normalized", 0.92),
    ([10650, 20431, 10871], -1.75, 0.25, "normalized", 2.30),
    ([0, 0, 4250], 0, 10, "normalized", 120.56),
    ([21184, 40708, 21404], 0.5, 2.5, "logistic", -1.57),
    ([57030, 106593, 57433], 0, 2, "logistic", -2.59),
    (penta(365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    (penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    (penta(0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
    (penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    (penta(871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
]


@pytest.mark.parametrize("counts, elo0, elo1, model, expected", KNOWN)
def test_llr_matches_fastchess(counts, elo0, elo1, model, expected):
    assert llr(counts, elo0, elo1, model) == pytest.approx(expected, rel=0.01, abs=0.006)


def test_bounds_from_alpha_beta():
    s = Sprt(0, 5, alpha=0.05, beta=0.05)
    assert s.lower == pytest.approx(-2.944439, abs=1e-6)      # ln(0.05 / 0.95)
    assert s.upper == pytest.approx(2.944439, abs=1e-6)
    s = Sprt(0, 5, alpha=0.01, beta=0.1)
    assert s.lower == pytest.approx(-2.2925, abs=1e-3)         # ln(0.1 / 0.99)
    assert s.upper == pytest.approx(4.4998, abs=1e-3)          # ln(0.9 / 0.01)


def test_logistic_trinomial_by_hand():
    # With the mean fixed, the MLE reweights p_i by 1 / (1 + x (a_i - m)); for
    # symmetric counts and symmetric hypotheses (-e, +e) the LLR is 0.
    assert llr([10, 20, 10], -10, 10, "logistic") == pytest.approx(0, abs=1e-9)
    assert llr([10, 20, 10], -10, 10, "normalized") == pytest.approx(0, abs=1e-9)
    # More wins than losses favour the higher hypothesis, and the more so the more games.
    assert 0 < llr([10, 20, 14], 0, 10) < llr([100, 200, 140], 0, 10)


def play_until_decision(true_elo, sprt, rng, max_pairs=5000):
    stats = MatchStats()
    p_win = 0.3
    # Draw ratio 0.4 and a win/loss split with the true Elo's expected score.
    from genchess.strength.stats import score_from_elo
    score = score_from_elo(true_elo)
    p_win = score - 0.2
    for _ in range(max_pairs):
        pair = []
        for _ in range(2):
            u = rng.random()
            pair.append(1.0 if u < p_win else 0.5 if u < p_win + 0.4 else 0.0)
        stats.add_pair(*pair)
        verdict = sprt.update(stats.pairs)
        if verdict != CONTINUE:
            return verdict, stats.games
    return CONTINUE, stats.games


def test_sprt_stops_at_the_right_bound_on_synthetic_results():
    rng = random.Random(7)
    verdict, games = play_until_decision(60, Sprt(0, 20), rng)
    assert verdict == H1 and games < 2000
    verdict, games = play_until_decision(-60, Sprt(0, 20), rng)
    assert verdict == H0 and games < 2000
    # A status once decided stays what update said.
    s = Sprt(0, 5)
    assert s.update([0, 0, 0, 0, 0]) == CONTINUE and s.last_llr == 0
    assert s.update([0, 0, 0, 0, 400]) == H1
    assert s.update([400, 0, 0, 0, 0]) == H0


def test_parse_sprt():
    s = parse_sprt(["elo0=0", "elo1=10", "alpha=0.1", "model=logistic"])
    assert (s.elo0, s.elo1, s.alpha, s.beta, s.model) == (0, 10, 0.1, 0.05, "logistic")
    for bad, words in [("elo2", ["elo2=3"]), ("not a number", ["elo1=x"]),
                       ("below", ["elo0=5", "elo1=0"]), ("model", ["model=bayes"]),
                       ("between 0 and 1", ["alpha=1.5"]), ("logistic", ["elo1=300"])]:
        with pytest.raises(ValueError, match=bad):
            parse_sprt(words)


def test_constrained_mle_meets_its_constraint_even_far_from_the_data():
    import itertools
    import math

    from genchess.strength.sprt import NELO_PER_T, mle_with_mean, mle_with_t
    from genchess.strength.stats import PAIR_SCORES, mean_and_variance

    for counts in itertools.product(range(3), repeat=5):
        p = [(c + 1e-3) / (sum(counts) + 5e-3) for c in counts]
        for elo in (-200, -20, 0, 10, 200):
            t = elo / NELO_PER_T * math.sqrt(2)
            mu, var, _ = mean_and_variance(mle_with_t(p, PAIR_SCORES, 0.5, t), PAIR_SCORES)
            assert (mu - 0.5) / math.sqrt(var) == pytest.approx(t, abs=1e-6), counts
            mu, _, _ = mean_and_variance(mle_with_mean(p, PAIR_SCORES, 0.52), PAIR_SCORES)
            assert mu == pytest.approx(0.52, abs=1e-9)
    # One lost pair is evidence against the higher hypothesis.
    assert llr([1, 0, 0, 0, 0], 0, 20) < 0 < llr([0, 0, 0, 0, 1], 0, 20)
