"""Time scaling (a trial behind the Time Scaling option): after each iteration the soft
limit is scaled by how stable the best move is, by the share of the root's nodes it took
and by a falling score, never past the hard limit; `go movetime`, `go nodes` and `go
depth` stay exact.

The searches here run on a simulated clock: the searcher's `clock` reads its node count
at a fixed speed, so a search's time is its nodes and the tests do not depend on how busy
the machine is. The hard limit's abort inside an iteration reads the real clock; the
hard limits given are far beyond what these searches take on it."""

from __future__ import annotations

import chess
import pytest

from genchess.engine import Engine
from genchess.genome import default_genome, load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess.protocols.options import TRIALS, Settings
from genchess.timeman import TIME_DEFAULTS, Limits, SoftScaling
from genchess_core import Board
from genchess_core.searcher import FEATURE_NAMES, Searcher

TIME_SCALING = FEATURE_NAMES["time_scaling"]
NPS = 20_000                # the simulated clock's speed, nodes a second
REAL_HARD = 120.0           # the real clock's hard limit: never reached here
# The Scotch after 4...Nxd4: White recaptures with the queen, and every other move loses
# a knight.
RECAPTURE = "r1bqkbnr/pppp1ppp/8/8/3nP3/8/PPP2PPP/RNBQKB1R w KQkq - 0 5"
# Black takes the rook on f1 and, up to depth 6, thinks itself 3.5 pawns up; the seventh
# iteration finds White's attack and the score falls to 2 (genchess/data/tactics.epd's GC.050
# with White's combination on the board and Black to move, found by a scan for falls).
FALLING = "rn1q1rk1/5ppp/2p2b1B/pp2P3/8/2PB2Q1/P1P2PbP/R4RK1 b - - 0 1"
# The genome these positions and limits were found with (the default until 2026-12-07):
# another evaluation falls at another depth.
GENOME = load_genome(GENOMES_DIR / "network-5m.genome")


def simulated_searcher(features_on: bool) -> Searcher:
    searcher = Searcher(16)
    searcher.set_genome(GENOME.pack())
    searcher.clock = lambda: searcher.total_nodes() / NPS
    if features_on:
        searcher.features = searcher.features | TIME_SCALING
    return searcher


def timed_search(fen: str, soft: float, hard: float = REAL_HARD, scaling: bool = True,
                 factors: dict | None = None):
    """(result, the simulated time at the end of each iteration) of a search with a soft
    limit of `soft` simulated seconds and a hard one of `hard`: simulated for the scaled
    soft limit, real for the abort (far beyond these searches' real time)."""
    searcher = simulated_searcher(scaling)
    ends = []
    searcher.set_time_limits(soft, hard)
    result = searcher.search(Board(fen), soft_scale=SoftScaling(factors), keep_time_limits=True,
                             on_iteration=lambda info: ends.append(searcher.clock()))
    return result, ends


# ------------------------------------------------------------------ the factors alone

def test_a_stable_best_move_lowers_the_factor_iteration_by_iteration():
    scaling = SoftScaling()
    first = SoftScaling.SCALE_FROM_DEPTH
    # A new best move at every iteration until the first scaled one, then the same.
    factors = [scaling.after_iteration(depth, "e2e4" if depth >= first else f"move{depth}", 0.6, 0.3)
               for depth in range(1, first + TIME_DEFAULTS["tm_stability_max"] + 2)]
    assert factors[:first - 1] == [1.0] * (first - 1)
    scaled = factors[first - 1:]
    assert all(a > b for a, b in zip(scaled[:-1], scaled[1:-1]))
    assert scaled[-1] == scaled[-2]      # counted up to tm_stability_max iterations only


def test_a_new_best_move_restores_the_full_factor():
    scaling = SoftScaling()
    for depth in range(1, 9):
        settled = scaling.after_iteration(depth, "e2e4", 0.6, 0.3)
    changed = scaling.after_iteration(9, "d2d4", 0.6, 0.3)
    assert changed > settled and scaling.stable == 0


def test_a_larger_share_of_the_nodes_lowers_the_factor_down_to_its_floor():
    low, high, whole = SoftScaling(), SoftScaling(), SoftScaling({"tm_stability_step": 0})
    for depth in range(1, 8):
        a = low.after_iteration(depth, "e2e4", 0.4, 0.3)
        b = high.after_iteration(depth, "e2e4", 0.9, 0.3)
        c = whole.after_iteration(depth, "e2e4", 1.0, 0.3)
    assert b < a
    assert c == pytest.approx(TIME_DEFAULTS["tm_stability_base"] / 100 * TIME_DEFAULTS["tm_nodes_min"] / 100)


def test_a_falling_score_raises_the_factor_up_to_its_cap():
    steady, falling, collapsing = SoftScaling(), SoftScaling(), SoftScaling()
    for depth in range(1, 7):
        a = steady.after_iteration(depth, "e2e4", 0.6, 0.5)
        b = falling.after_iteration(depth, "e2e4", 0.6, 0.5 if depth < 6 else 0.0)
        c = collapsing.after_iteration(depth, "e2e4", 0.6, 0.5 if depth < 6 else -30.0)
    assert b == pytest.approx(a * (1 + 0.5 * TIME_DEFAULTS["tm_drop_scale"] / 100))
    assert c == pytest.approx(a * (1 + TIME_DEFAULTS["tm_drop_max"] / 100))
    rising = SoftScaling()
    for depth in range(1, 7):
        d = rising.after_iteration(depth, "e2e4", 0.6, 0.5 if depth < 6 else 3.0)
    assert d == pytest.approx(a)         # a rising score asks for no more time


def test_every_factor_comes_from_the_genes():
    genes = {"tm_stability_base": 100, "tm_stability_step": 0, "tm_nodes_base": 200,
             "tm_nodes_scale": 100, "tm_drop_scale": 0}
    scaling = SoftScaling(genes)
    for depth in range(1, 8):
        factor = scaling.after_iteration(depth, "e2e4", 0.5, -depth)
    assert factor == pytest.approx(1.5)  # (2 - 0.5) x 1, no stability or drop term


# ------------------------------------------------------------------ in the search

def test_an_obvious_recapture_stops_sooner_than_the_plain_soft_limit():
    plain, plain_ends = timed_search(RECAPTURE, soft=2.0, scaling=False)
    scaled, scaled_ends = timed_search(RECAPTURE, soft=2.0)
    assert plain["lines"][0][1][0] == scaled["lines"][0][1][0] == "d1d4"
    assert scaled["soft_scale"] < 1 and "soft_scale" not in plain
    assert scaled["nodes"] < plain["nodes"] and scaled["depth"] < plain["depth"]
    # Unscaled, the last iteration started before the soft limit; scaled, the search
    # started no iteration past the scaled one, which came sooner.
    assert plain_ends[-2] < 2.0 <= plain_ends[-1]
    assert scaled_ends[-2] < 2.0 and scaled_ends[-1] >= 2.0 * scaled["soft_scale"]


def test_a_falling_score_is_given_more_time():
    # The same search with the score's fall counted and not: the fall comes at depth 7,
    # and with it the search goes on to depth 8 where without it it stops.
    plain, _ = timed_search(FALLING, soft=0.28, factors={"tm_drop_scale": 0})
    drop, _ = timed_search(FALLING, soft=0.28)
    assert plain["depth"] == 7 and plain["lines"][0][1][0] == drop["lines"][0][1][0] == "g2f1"
    assert drop["nodes"] > plain["nodes"] and drop["depth"] > plain["depth"]


def test_the_scaled_soft_limit_never_passes_the_hard_limit():
    generous = {"tm_stability_base": 250, "tm_stability_step": 0, "tm_nodes_base": 250,
                "tm_nodes_scale": 300}
    soft, hard = 0.5, 0.8
    result, ends = timed_search(FALLING, soft=soft, hard=hard, factors=generous)
    assert result["soft_scale"] * soft > hard        # the factor alone would go past it
    assert any(end >= soft for end in ends[:-1])     # iterations did start past the soft limit ...
    assert all(end < hard for end in ends[:-1])      # ... but none past the hard one


# ------------------------------------------------------------------ what stays exact

class RecordingSearcher:
    """The engine's searcher, with the soft_scale each search was given recorded."""

    def __init__(self, searcher):
        self.searcher, self.scales = searcher, []

    def search(self, *args, **kwargs):
        self.scales.append(kwargs.get("soft_scale"))
        return self.searcher.search(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.searcher, name)


@pytest.fixture
def scaling_engine():
    engine = Engine(default_genome())
    Settings(engine).setter("Time Scaling")("true")
    assert engine.searcher.features & TIME_SCALING
    engine.searcher = RecordingSearcher(engine.searcher)
    return engine


def test_only_a_game_clock_is_scaled(scaling_engine):
    engine = scaling_engine
    engine.search(Limits(wtime=2000, btime=2000, winc=20, binc=20, depth=3))
    engine.search(Limits(wtime=2000, btime=2000, movestogo=5, depth=3))
    engine.search(Limits(movetime=50, depth=3))
    engine.search(Limits(nodes=3000))
    engine.search(Limits(depth=3))
    engine.search(Limits(wtime=2000, btime=2000, infinite=True, depth=3))
    scaled = [scale is not None for scale in engine.searcher.scales]
    assert scaled == [True, True, False, False, False, False]


def test_nodes_and_depth_stay_exact_with_time_scaling_on(scaling_engine):
    engine = scaling_engine
    assert engine.search(Limits(nodes=3000)).nodes == 3000
    assert engine.search(Limits(depth=7)).depth == 7


def test_the_option_turns_the_trial_on_and_off():
    engine = Engine(default_genome())
    settings = Settings(engine)
    for name, bit in TRIALS.items():
        assert not engine.searcher.features & bit          # off by default
        settings.setter(name.upper())("true")
        assert engine.searcher.features & bit
        settings.setter(name)("false")
        assert not engine.searcher.features & bit


@pytest.mark.parametrize("mode", ["iterative", "budget", "ga", "minimax"])
def test_every_search_mode_on_two_threads_plays_legal_moves_with_the_trials_on(mode):
    engine = Engine(default_genome(), search_mode=mode)
    settings = Settings(engine)
    for name in TRIALS:
        settings.setter(name)("true")
    engine.set_threads(2)
    board = chess.Board()
    for _ in range(6):
        engine.set_position(board.fen())
        result = engine.search(Limits(wtime=800, btime=800, winc=10, binc=10))
        move = chess.Move.from_uci(result.bestmove)
        assert move in board.legal_moves, (mode, board.fen(), result.bestmove)
        board.push(move)
