"""SPSA (genchess.optimise.spsa): fishtest's schedules, convergence on a noisy game-like
objective, bounds and freezing, and a resumed run equal to an uninterrupted one."""

import json
import math
import random

import pytest

from genchess.optimise.spsa import Spsa, SpsaParameter, SpsaSchedule

OPTIMUM = {"margin": 130.0, "depth": 4.0, "share": 0.7}
# Elo lost per squared unit away from the optimum, and where each number starts.
CURVATURE = {"margin": 40 / 60.0 ** 2, "depth": 40 / 3.0 ** 2, "share": 40 / 0.4 ** 2}
PARAMETERS = [
    SpsaParameter("margin", 70.0, 0.0, 400.0, c_end=10.0, r_end=0.005),
    SpsaParameter("depth", 7.0, 1.0, 12.0, c_end=0.5, r_end=0.005),
    SpsaParameter("share", 0.3, 0.0, 1.0, c_end=0.06, r_end=0.005),
]


def elo(values):
    return -sum(CURVATURE[n] * (v - OPTIMUM[n]) ** 2 for n, v in values.items())


def game_pair(plus, minus, rng):
    """Wins minus losses of `plus` over two games, draws at chess's usual rate."""
    expected = 1 / (1 + 10 ** ((elo(minus) - elo(plus)) / 400))
    result = 0
    for _ in range(2):
        draw = 0.4
        u = rng.random()
        if u < expected - draw / 2:
            result += 1
        elif u > expected + draw / 2:
            result -= 1
    return result


def run(spsa, until, seed=99):
    while spsa.k < until:
        delta, plus, minus = spsa.ask()
        spsa.tell(delta, game_pair(plus, minus, random.Random(seed * 100_000 + spsa.k)))
    return spsa


def test_the_schedules_end_at_c_end_and_r_end():
    schedule = SpsaSchedule(iterations=5000)
    p = PARAMETERS[0]
    assert math.isclose(schedule.c_k(p, 5000), p.c_end)
    assert schedule.c_k(p, 1) > schedule.c_k(p, 100) > schedule.c_k(p, 5000)
    # the last step per game point: r_end * c_end (a_k / c_k at k = N)
    assert math.isclose(schedule.a_k(p, 5000) / schedule.c_k(p, 5000), p.r_end * p.c_end)
    assert math.isclose(schedule.big_a, 500)


def test_spsa_climbs_a_noisy_game_objective():
    spsa = run(Spsa(PARAMETERS, SpsaSchedule(iterations=6000), seed=3), 6000)
    start = elo({p.name: p.start for p in PARAMETERS})
    end = elo(spsa.values())
    assert start < -100
    assert end > start / 5, (spsa.values(), end)       # four fifths of the loss recovered
    for p in PARAMETERS:
        assert abs(spsa.values()[p.name] - OPTIMUM[p.name]) < abs(p.start - OPTIMUM[p.name])


def test_bounds_hold_and_a_frozen_number_never_moves():
    frozen = [SpsaParameter("margin", 70.0, 60.0, 80.0, c_end=10.0),
              SpsaParameter("depth", 7.0, 1.0, 12.0, c_end=0.5, frozen=True),
              SpsaParameter("share", 0.3, 0.0, 1.0, c_end=0.06)]
    spsa = Spsa(frozen, SpsaSchedule(iterations=800), seed=5)
    while not spsa.done:
        delta, plus, minus = spsa.ask()
        assert 60.0 <= plus["margin"] <= 80.0 and 60.0 <= minus["margin"] <= 80.0
        assert plus["depth"] == minus["depth"] == 7.0
        spsa.tell(delta, game_pair(plus, minus, random.Random(spsa.k)))
    assert 60.0 <= spsa.values()["margin"] <= 80.0
    assert spsa.values()["depth"] == 7.0


def test_a_resumed_run_equals_an_uninterrupted_one():
    schedule = SpsaSchedule(iterations=600)
    whole = run(Spsa(PARAMETERS, schedule, seed=11), 600)
    first = run(Spsa(PARAMETERS, schedule, seed=11), 250)
    saved = json.loads(json.dumps(first.state()))             # as a run file keeps it
    resumed = run(Spsa.from_state(saved), 600)
    assert resumed.theta == whole.theta and resumed.k == whole.k == 600


def test_a_start_outside_the_bounds_is_refused():
    with pytest.raises(ValueError, match="outside its bounds"):
        SpsaParameter("margin", 500.0, 0.0, 400.0, c_end=10.0)
