"""Elo, interval, LOS, draw ratio and pentanomial arithmetic against hand-computed cases."""

import math

import pytest

from genchess.strength.stats import MatchStats, elo_from_score, format_elo, score_from_elo


def test_elo_and_score_are_inverse():
    assert elo_from_score(0.5) == 0
    # 3/4 of the points: 400 log10(3) = 190.85 Elo.
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    for elo in (-600, -35.5, 0, 12, 400):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_trinomial_elo_interval_by_hand():
    # 60 wins, 20 draws, 20 losses: score 0.7; per-game variance
    # 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.16, standard error sqrt(0.16/100) = 0.04,
    # 95% score interval 0.7 -+ 1.96*0.04 mapped through the logistic curve.
    s = MatchStats(wins=60, draws=20, losses=20)
    assert s.games == 100 and s.points == 70 and s.score == 0.7
    assert s.draw_ratio == 0.2
    e = s.elo()
    assert e.elo == pytest.approx(147.1907, abs=1e-3)
    assert e.low == pytest.approx(86.2250, abs=1e-3)
    assert e.high == pytest.approx(218.2518, abs=1e-3)
    assert e.stderr == pytest.approx(0.04)
    assert format_elo(e) == "+147.2 +- 66.0"


def test_los_by_hand():
    # 12 wins, 8 losses: Phi((12 - 8) / sqrt(12 + 8)) = 0.81445; draws change nothing.
    assert MatchStats(12, 0, 8).los() == pytest.approx(0.8144533, abs=1e-6)
    assert MatchStats(12, 50, 8).los() == pytest.approx(0.8144533, abs=1e-6)
    assert MatchStats(5, 3, 5).los() == 0.5
    assert MatchStats(0, 4, 0).los() == 0.5


def test_pentanomial_counts_and_interval_by_hand():
    s = MatchStats()
    # Pair totals from the first engine's side: 0, 1/2, 1/2, 1, 1, 1, 1, 1, 3/2, 3/2.
    for a, b in [(0, 0), (0.5, 0), (0, 0.5), (1, 0), (0, 1), (0.5, 0.5), (0.5, 0.5), (1, 0),
                 (1, 0.5), (0.5, 1)]:
        s.add_pair(a, b)
    assert s.pairs == [1, 2, 5, 2, 0]
    assert (s.wins, s.draws, s.losses) == (5, 8, 7)
    # Pair scores /2: mean 0.45, variance (0.2025 + 2*0.04 + 5*0.0025 + 2*0.09) / 10 = 0.0475.
    p = s.pentanomial_elo()
    assert p.score == pytest.approx(0.45)
    assert p.stderr == pytest.approx(math.sqrt(0.0475 / 10))
    assert p.elo == pytest.approx(-34.8601, abs=1e-3)
    assert p.low == pytest.approx(-135.0174, abs=1e-3)
    assert p.high == pytest.approx(59.7012, abs=1e-3)
    # Same score as the trinomial view, different (here wider) spread.
    assert s.elo().elo == pytest.approx(p.elo)
    summary = s.summary()
    assert summary["pentanomial"] == [1, 2, 5, 2, 0] and summary["games"] == 20


def test_perfect_score_prints_infinity():
    s = MatchStats(wins=4)
    assert s.elo().elo == math.inf
    assert format_elo(s.elo()) == "+inf"


def test_a_one_sided_interval_prints_its_finite_end():
    # 13-0-3: the score's upper 95% bound passes 1, so the interval's top is +inf;
    # the bottom is finite and must be shown (by hand: s = 0.8125, sd = sqrt(s(1-s)/16)
    # = 0.0976, low = 0.8125 - 1.96 * 0.0976 = 0.6212, Elo -400 log10(1/0.6212 - 1) = +86.1).
    s = MatchStats(wins=13, losses=3)
    e = s.elo()
    assert math.isinf(e.high) and math.isfinite(e.low)
    assert format_elo(e) == f"{e.elo:+.1f} ({e.low:+.1f} to +inf)"
    assert e.low == pytest.approx(86.1, abs=0.5)
