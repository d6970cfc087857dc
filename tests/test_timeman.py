"""Time management: the log-normal game-length model and the per-move allocation.

`expected_moves_left(n, mean, sigma)` is E[L | L > n] - n for a log-normal game
length L with log-mean ln(mean) - sigma^2/2. It is checked against a numeric
integration of that conditional expectation done here with numpy (in log space,
so the far tail does not underflow). `allocate` is checked for its fixed cases
(movetime, infinite, ponder) and, over thousands of seeded random clocks, for the
property a tournament cares about: the hard limit stays inside the clock.
"""

import math
import random

import numpy as np
import pytest

from genchess.timeman import (ITERATION_GROWTH, RESERVE_OVERHEADS, GuiLag, Limits, TimeBudget,
                              allocate, expected_moves_left)

SEED = 777


def integrated_moves_left(n, mean, sigma, points=50_001):
    """E[L | L > n] - n by the trapezoid rule over y = ln L ~ N(mu, sigma)."""
    mu = math.log(mean) - sigma * sigma / 2
    if n <= 0:
        lo = mu - 14 * sigma
        shift = 0.0
    else:
        lo = math.log(n)
        shift = lo
    hi = max(lo, mu + sigma * sigma) + 14 * sigma
    y = np.linspace(lo, hi, points)
    log_density = -((y - mu) ** 2) / (2 * sigma * sigma)
    log_weighted = (y - shift) + log_density      # L / e^shift times the density
    m1, m2 = log_weighted.max(), log_density.max()
    numerator = np.trapezoid(np.exp(log_weighted - m1), y)
    denominator = np.trapezoid(np.exp(log_density - m2), y)
    return math.exp(shift) * math.exp(m1 - m2) * numerator / denominator - max(n, 0)


def z_score(n, mean, sigma):
    """How many sigmas ln(n) lies above the log-mean (how deep into the tail n is)."""
    return (math.log(n) - (math.log(mean) - sigma * sigma / 2)) / sigma


# --------------------------------------------------------------------------- the model

def test_reference_integration_is_accurate():
    # Closed form for n = 0: E[L] = mean; and a closed-form value with erfc.
    assert integrated_moves_left(0, 40, 0.5) == pytest.approx(40, rel=1e-7)
    n, mean, s = 50, 40, 0.5
    mu = math.log(mean) - s * s / 2
    a = (mu + s * s - math.log(n)) / (s * math.sqrt(2))
    b = (mu - math.log(n)) / (s * math.sqrt(2))
    closed = mean * math.erfc(-a) / math.erfc(-b) - n
    assert integrated_moves_left(n, mean, s) == pytest.approx(closed, rel=1e-7)


@pytest.mark.parametrize("mean", [40, 80, 150])
@pytest.mark.parametrize("sigma", [0.1, 0.3, 0.5, 1.0, 2.0])
def test_expected_moves_left_matches_integration(mean, sigma):
    checked = 0
    for n in (1, 2, 5, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300):
        if z_score(n, mean, sigma) > 5:        # the far tail has its own test below
            continue
        assert expected_moves_left(n, mean, sigma) == pytest.approx(
            integrated_moves_left(n, mean, sigma), rel=1e-5), (n, mean, sigma)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("mean, sigma", [(1, 0.5), (40, 0.01), (40, 0.5), (200, 3.0)])
def test_no_moves_played_gives_the_mean(mean, sigma):
    assert expected_moves_left(0, mean, sigma) == pytest.approx(mean, rel=1e-12)


def test_expected_moves_left_far_past_the_mean_game_length():
    # Long games happen: a 40-move mean with a small spread, at move 60..300. The model's
    # answer is small but positive and smooth; 1 + erf(x) cancels catastrophically for
    # x below about -5.6, where the result jumps to 0 or several times the right value.
    wrong = []
    for mean in (20, 40, 80):
        for sigma in (0.05, 0.1, 0.2, 0.3):
            for n in range(mean + 5, 301, 10):
                got = expected_moves_left(n, mean, sigma)
                want = integrated_moves_left(n, mean, sigma)
                if not math.isclose(got, want, rel_tol=0.02):
                    wrong.append((n, mean, sigma, round(got, 4), round(want, 4)))
    assert not wrong, f"{len(wrong)} values off by more than 2%: {wrong[:8]}"


def test_expected_moves_left_stays_positive():
    bad = []
    for mean in (1, 5, 20, 40, 80, 200, 400):
        for sigma in (0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 3.0):
            for n in list(range(0, 100)) + list(range(100, 1001, 10)):
                value = expected_moves_left(n, mean, sigma)
                if not (value > 0 and math.isfinite(value)):
                    bad.append((n, mean, sigma, value))
    assert not bad, f"{len(bad)} non-positive values, e.g. {bad[:8]}"


@pytest.mark.parametrize("mean", [20, 40, 80])
@pytest.mark.parametrize("sigma", [0.1, 0.3, 0.5])
def test_expected_moves_left_decreases_during_a_typical_game(mean, sigma):
    # Over the expected game the remaining moves shrink, and stay positive. (Past the
    # mean a log-normal's mean residual life grows again: long games go on.)
    values = [expected_moves_left(n, mean, sigma) for n in range(0, mean + 1)]
    assert all(b <= a + 1e-9 for a, b in zip(values, values[1:]))
    assert values[0] == pytest.approx(mean)
    assert 0 < values[-1] < mean


def test_wider_spread_expects_a_longer_game_late():
    # At the mean game length, more uncertainty means more moves may still come.
    values = [expected_moves_left(40, 40, s) for s in (0.1, 0.3, 0.5, 1.0)]
    assert values == sorted(values)


# --------------------------------------------------------------------------- allocate

def budget(limits, white=True, played=10, mean=40.0, sigma=0.5, overhead=30):
    return allocate(limits, white, played, mean, sigma, overhead)


@pytest.mark.parametrize("movetime, overhead", [(200, 30), (1000, 0), (5000, 100), (31, 30)])
def test_movetime_gives_equal_soft_and_hard(movetime, overhead):
    result = budget(Limits(movetime=movetime, wtime=100_000, btime=100_000), overhead=overhead)
    expected = (movetime - overhead) / 1000
    assert result.soft == pytest.approx(expected) and result.hard == pytest.approx(expected)


@pytest.mark.parametrize("movetime", [0, 1, 10, 30])
def test_movetime_below_the_overhead_still_gives_a_positive_budget(movetime):
    result = budget(Limits(movetime=movetime), overhead=30)
    assert result.soft == result.hard
    assert 0 < result.hard <= 0.005


@pytest.mark.parametrize("limits", [
    Limits(infinite=True),
    Limits(ponder=True),
    Limits(infinite=True, wtime=1000, btime=1000),
    Limits(ponder=True, wtime=1000, btime=1000, movetime=500),
    Limits(),
    Limits(depth=5),
    Limits(nodes=1000),
])
def test_unlimited_searches_have_no_time_limit(limits):
    assert budget(limits) == TimeBudget(None, None)


def test_the_side_to_moves_clock_is_used():
    limits = Limits(wtime=60_000, btime=1_000)
    white, black = budget(limits, white=True), budget(limits, white=False)
    assert white.soft > black.soft and white.hard > black.hard
    assert black.hard < (1_000 - 30) / 1000


def _random_clock(rng):
    kind = rng.random()
    if kind < 0.25:
        remaining = rng.randint(-50, 60)                # nearly flagged, even negative
    elif kind < 0.5:
        remaining = rng.choice([10, 20, 31, 50, 100, 200, 500])
    else:
        remaining = int(10 ** rng.uniform(2, 7.5))
    increment = rng.choice([None, 0, rng.randint(1, 100), rng.randint(100, 30_000)])
    movestogo = rng.choice([None, None, 1, 1, 2, rng.randint(3, 60)])
    return remaining, increment, movestogo


def test_hard_limit_stays_inside_the_clock():
    rng = random.Random(SEED)
    failures = []
    for _ in range(5000):
        remaining, increment, movestogo = _random_clock(rng)
        white = rng.random() < 0.5
        overhead = rng.choice([0, 10, 30, 100])
        played = rng.randint(0, 250)
        mean, sigma = rng.uniform(1, 400), rng.uniform(0.01, 3.0)
        clock = {"wtime": remaining, "btime": rng.randint(0, 100_000)} if white else \
                {"btime": remaining, "wtime": rng.randint(0, 100_000)}
        inc = {"winc": increment, "binc": increment}
        limits = Limits(movestogo=movestogo, **clock, **inc)
        result = allocate(limits, white, played, mean, sigma, overhead)
        usable = remaining - overhead
        case = (remaining, increment, movestogo, white, overhead, played, mean, sigma, result)
        if result.soft is None or result.hard is None:
            failures.append(("unlimited", case))
            continue
        if not 0 < result.soft <= result.hard:
            failures.append(("order", case))
        # Below a few milliseconds nothing can be done; the floor is 2 ms.
        allowed = max(usable * (0.9 if movestogo == 1 else 0.6), 2) / 1000
        if result.hard > allowed + 1e-12:
            failures.append(("hard", case))
        if usable >= 5 and not result.hard * 1000 < usable:
            failures.append(("clock", case))
    assert not failures, f"{len(failures)} failures, e.g. {failures[:5]}"


@pytest.mark.parametrize("remaining", [10, 30, 100, 1000])
def test_tiny_clocks_get_tiny_budgets(remaining):
    for movestogo in (None, 1, 5):
        result = budget(Limits(wtime=remaining, btime=remaining, movestogo=movestogo), overhead=30)
        assert 0 < result.soft <= result.hard
        assert result.hard * 1000 <= max(remaining - 30, 2)


@pytest.mark.parametrize("remaining", [5_000, 60_000, 600_000])
def test_moves_to_go_before_the_control_gets_more_time(remaining):
    limits = dict(wtime=remaining, btime=remaining)
    free = budget(Limits(**limits), played=10)
    control = budget(Limits(movestogo=5, **limits), played=10)
    assert expected_moves_left(10, 40, 0.5) > 5
    assert control.soft > free.soft
    assert control.hard >= free.hard
    last = budget(Limits(movestogo=1, **limits), played=10)
    assert last.soft >= control.soft


def test_increment_and_more_time_never_shrink_the_budget():
    previous = None
    for remaining in (1_000, 5_000, 20_000, 100_000, 1_000_000):
        result = budget(Limits(wtime=remaining, btime=remaining))
        if previous is not None:
            assert result.soft >= previous.soft and result.hard >= previous.hard
        previous = result
        with_increment = budget(Limits(wtime=remaining, btime=remaining, winc=2000, binc=2000))
        assert with_increment.soft >= result.soft and with_increment.hard >= result.hard


def test_soft_limit_is_about_the_clock_over_the_moves_left():
    # 60 s, 40-move mean, no moves played: about 60/40 s per move, well under the caps;
    # the soft limit is that over the iteration growth (a move spends about twice it).
    result = budget(Limits(wtime=60_000, btime=60_000), played=0, sigma=0.5)
    assert result.soft * ITERATION_GROWTH == pytest.approx(60 / 40, rel=0.05)
    assert result.soft < result.hard <= 0.6 * (60_000 - 30) / 1000


def play_out_the_clock(base_ms, inc_ms, lag_ms, moves=150, overhead=30, lag_known=False):
    """The clock over `moves` moves when each spends what a search stopped at the soft
    limit spends (ITERATION_GROWTH times it, never past the hard limit) plus `lag_ms`
    outside the search, which the plan is told of when `lag_known` (GuiLag measured it).
    Returns the lowest the clock went before an increment."""
    remaining, lowest = float(base_ms), float(base_ms)
    for played in range(moves):
        limits = Limits(wtime=int(remaining), btime=int(remaining), winc=inc_ms, binc=inc_ms)
        b = allocate(limits, True, played, 40.0, 0.5, overhead, lag_ms if lag_known else 0.0)
        remaining -= min(b.soft * ITERATION_GROWTH, b.hard) * 1000 + lag_ms
        lowest = min(lowest, remaining)
        remaining += inc_ms
    return lowest


@pytest.mark.parametrize("base, inc", [(1_000, 10), (2_000, 20), (10_000, 100), (60_000, 600)])
@pytest.mark.parametrize("lag", [0, 5])
def test_the_clock_settles_near_the_reserve_not_at_a_few_increments(base, inc, lag):
    # Spending remaining / moves + the whole increment each move let the clock sink to
    # 40-100 ms, where one stall of the machine loses on time (a 10+0.1 game was lost
    # so at move 64). The plan keeps a reserve of RESERVE_OVERHEADS move overheads.
    lowest = play_out_the_clock(base, inc, lag)
    assert lowest >= 0.5 * 30 * RESERVE_OVERHEADS, lowest


def test_budget_after_a_delay_shrinks_but_keeps_its_floors():
    b = TimeBudget(0.5, 1.0)
    assert b.after(0.2) == TimeBudget(pytest.approx(0.3), pytest.approx(0.8))
    assert b.after(5.0) == TimeBudget(0.001, 0.002)
    assert b.after(-1.0) == b and TimeBudget(None, None).after(0.3) == TimeBudget(None, None)


# --------------------------------------------------------------------------- the GUI's lag

@pytest.mark.parametrize("base, inc", [(3_000, 100), (10_000, 100), (60_000, 600)])
def test_a_measured_gui_lag_is_paid_from_the_plan(base, inc):
    # xboard animates each move on our clock: 75 ms a move at its defaults. Counted as a
    # 30 ms overhead, a plan that spends its targets flags at 3+0.1 and 10+0.1 (by move
    # 29 and 52); paying the measured lag in full, the clock settles near the reserve.
    assert play_out_the_clock(base, inc, 75) < 0 or base >= 60_000
    lowest = play_out_the_clock(base, inc, 75, lag_known=True)
    assert lowest >= 0.5 * 75 * RESERVE_OVERHEADS, lowest


def test_a_lag_beyond_the_increment_is_survived_far_longer_when_known():
    # 5+0.05 with a 75 ms lag: the clock must fall 25 ms a move whatever the engine
    # does (the xboard test's old time control, lost at move 81 in CI). Knowing the lag,
    # the plan thinks less sooner and lasts more than twice as many moves.
    def moves_survived(lag_known):
        for moves in range(1, 400):
            if play_out_the_clock(5_000, 50, 75, moves=moves, lag_known=lag_known) < 0:
                return moves
        return 400
    assert moves_survived(False) < 45
    assert moves_survived(True) > 90


def test_no_measured_lag_leaves_the_plan_as_it_was():
    limits = Limits(wtime=10_000, btime=10_000, winc=100, binc=100)
    assert allocate(limits, True, 20, 40.0, 0.5, 30) == allocate(limits, True, 20, 40.0, 0.5, 30, 0.0)
    # A lag below the overhead's latency share (7.5 ms) changes nothing either.
    assert allocate(limits, True, 20, 40.0, 0.5, 30, 5.0) == allocate(limits, True, 20, 40.0, 0.5, 30)
    assert allocate(limits, True, 20, 40.0, 0.5, 30, 75.0).soft < allocate(limits, True, 20, 40.0, 0.5, 30).soft
    assert allocate(Limits(movetime=500), True, 0, 40.0, 0.5, 30, 75.0).hard == pytest.approx(0.425)


def gui_moves(lag: GuiLag, clocks, spent_ms=20.0, inc=100, first_ply=10, step=2, **extra):
    """Play our moves at plies first_ply, +step, ... with the GUI reporting `clocks`;
    each move is sent `spent_ms` after its command arrived."""
    for i, clock in enumerate(clocks):
        received = 1000.0 + i
        lag.search_started(Limits(wtime=clock, btime=clock, winc=inc, binc=inc,
                                  received=received, **extra), first_ply + step * i, True)
        lag.move_sent(received + spent_ms / 1000)


def test_gui_lag_learns_a_steady_lag_from_the_clock():
    lag = GuiLag()
    # Each move: 20 ms spent by us, 75 ms more charged by the GUI, 100 ms increment.
    clocks = [5000 + 5 * i for i in range(8)]      # 5000 - 20 - 75 + 100 = 5005
    gui_moves(lag, clocks[:3])
    assert lag.estimate_ms == 0.0                   # two samples: not yet trusted
    gui_moves(lag, clocks[3:], first_ply=16)
    assert lag.estimate_ms == pytest.approx(75.0)


def test_gui_lag_is_not_fooled_by_one_stall_or_rounding():
    lag = GuiLag()
    # xboard's centiseconds make each sample off by up to 10 ms; one move stalled 400 ms.
    charged = [80, 70, 75, 480, 72, 78, 75]
    clocks = [5000]
    for c in charged:
        clocks.append(clocks[-1] - 20 - c + 100)
    gui_moves(lag, clocks)
    assert 70 <= lag.estimate_ms <= 80, lag.samples


def test_gui_lag_takes_no_sample_across_gaps_new_controls_or_ponder_searches():
    lag = GuiLag()
    gui_moves(lag, [5000, 4900, 4800], step=4)              # not consecutive moves (takebacks)
    gui_moves(lag, [5000, 65000, 64900], first_ply=40)      # a new time control added a minute
    gui_moves(lag, [5000, 4900, 4800], first_ply=60, ponder=True)
    gui_moves(lag, [5000, 4900, 4800], first_ply=80, movetime=1000)
    lag.search_started(Limits(wtime=5000, btime=5000), 100, True)   # in-process: no GUI
    lag.move_sent(10.0)
    lag.search_started(Limits(wtime=4000, btime=4000), 102, True)
    # Only the move after the new control is an ordinary sample (65000 - 20 + 100 - 64900).
    assert lag.samples == [pytest.approx(180.0)], lag.samples


def test_gui_lag_still_learns_when_the_engine_ponders_between_its_moves():
    lag = GuiLag()
    clock = 5000.0
    for i in range(6):
        received = 1000.0 + i
        lag.search_started(Limits(wtime=int(clock), btime=5000, winc=100, binc=100,
                                  received=received), 2 * i, True)
        lag.move_sent(received + 0.020)
        # Pondering on the opponent's time, stopped by their move.
        lag.search_started(Limits(infinite=True, received=received + 0.03), 2 * i + 1, False)
        lag.move_sent(received + 0.5)
        clock += 100 - 20 - 60
    assert lag.estimate_ms == pytest.approx(60.0), lag.samples
