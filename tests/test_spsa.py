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


@pytest.mark.parametrize("iterations", [4000, 8000])
def test_the_schedule_is_fishtests_formula_at_the_first_and_last_iteration(iterations):
    # fishtest (server/fishtest/spsa_workflow.py) and OpenBench (create_workload.py),
    # written out again here: c = c_end N^gamma, a = r_end c_end^2 (A + N)^alpha with
    # A = 0.1 N, then at iteration k c_k = c / k^gamma, R_k = a / (A + k)^alpha / c_k^2,
    # and theta moves by R_k c_k per game point.
    p = SpsaParameter("margin", 90.0, 30.0, 250.0, c_end=8.0, r_end=0.002)
    schedule = SpsaSchedule(iterations=iterations)
    big_a = 0.1 * iterations
    c, a = 8.0 * iterations ** 0.101, 0.002 * 8.0 ** 2 * (big_a + iterations) ** 0.602
    for k in (1, iterations):
        c_k = c / k ** 0.101
        r_k = a / (big_a + k) ** 0.602 / c_k ** 2
        assert math.isclose(schedule.c_k(p, k), c_k)
        assert math.isclose(schedule.a_k(p, k) / schedule.c_k(p, k), r_k * c_k)
    # the first iteration perturbs by N^gamma steps (2.31 for 4000) and steps by
    # ((A + N) / (A + 1))^alpha / N^gamma times the last step (1.83 for 4000)
    assert math.isclose(schedule.c_k(p, 1) / p.c_end, iterations ** 0.101)
    first, last = (schedule.a_k(p, k) / schedule.c_k(p, k) for k in (1, iterations))
    assert math.isclose(first / last, ((big_a + iterations) / (big_a + 1)) ** 0.602 / iterations ** 0.101)


def test_a_whole_numbers_perturbation_never_falls_below_half_a_unit():
    # OpenBench's floor: with c_end 0.25 a depth would otherwise be perturbed by less than
    # half a ply at the end, and both sides could round to the same depth.
    depth = SpsaParameter("depth", 3.0, 1.0, 8.0, c_end=0.25, integer=True)
    share = SpsaParameter("share", 0.3, 0.0, 1.0, c_end=0.25)
    schedule = SpsaSchedule(iterations=4000)
    assert schedule.c_k(depth, 4000) == 0.5 and math.isclose(schedule.c_k(share, 4000), 0.25)
    assert schedule.c_k(depth, 1) == schedule.c_k(share, 1) > 0.5     # above the floor, unchanged
    spsa = Spsa([depth], schedule, seed=2)
    spsa.k = 3999
    _, plus, minus = spsa.ask()
    assert abs(plus["depth"] - minus["depth"]) == 1.0


def test_drift_and_chance_of_a_run_as_docs_tune_md_gives_them():
    # docs/tune.md: a gene whose slope is g Elo a step moves about 0.0196 N r_end g steps
    # (0.157 g in the first run's 4000 iterations), and chance about 0.205 steps.
    p = SpsaParameter("x", 0.0, -1e9, 1e9, c_end=1.0, r_end=0.002)
    pair_slope = 4 * math.log(10) / 400 * 0.25        # wins minus losses a pair, per Elo
    for iterations, drift, chance in ((4000, 0.157, 0.205), (8000, 0.313, 0.290)):
        s = SpsaSchedule(iterations)
        moved = sum(s.a_k(p, k) / s.c_k(p, k) * pair_slope * 2 * s.c_k(p, k) for k in range(1, iterations + 1))
        noise = 1.05 * math.sqrt(sum((s.a_k(p, k) / s.c_k(p, k)) ** 2 for k in range(1, iterations + 1)))
        assert math.isclose(moved, drift, abs_tol=0.002) and math.isclose(noise, chance, abs_tol=0.002)
        assert math.isclose(moved, 0.0196 * iterations * 0.002, rel_tol=0.01)
