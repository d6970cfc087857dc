"""How long to think: the Look Ahead Gene's log-normal game-length model.

The gene holds a mean game length and a spread S. Game lengths are modelled as
log-normal with log-mean M = ln(mean) - S^2/2 (so the distribution's mean is the
gene's mean), and the moves still to come after n moves are the conditional
expectation E[L | L > n] - n. Over that many moves (or the moves to the next time
control, if fewer) the move gets an equal share of the remaining time plus the
increments those moves bring, less a reserve of a few move overheads that no plan
spends. The reserve is what keeps the clock from sinking, move after move, to where
a single stall of the machine loses on time.

The soft limit is when iterative deepening stops starting new iterations; the hard
limit aborts a search. Both leave the move overhead and a safety margin unused,
because losing on time is the one mistake a tournament never forgives. Both count
from the arrival of the command that started the search (`Limits.received`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from genchess_core.search_gene_table import TIME, genes_of


@dataclass
class Limits:
    """What a `go` asks for; times in milliseconds as in UCI, None when not given."""
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    searchmoves: list[str] = field(default_factory=list)
    # time.monotonic() when the command that started this search arrived: the GUI's
    # clock runs from then, not from when the search thread gets going.
    received: float | None = None
    # False when the clock is not the GUI's reading for this move but one remembered
    # from before (an xboard GUI that sent no `time`): no lag can be read off it.
    clock_is_fresh: bool = True

    def is_timed(self) -> bool:
        return self.wtime is not None or self.btime is not None


def expected_moves_left(moves_played: float, mean_game_length: float, uncertainty: float) -> float:
    """Moves expected still to come after `moves_played`, under the log-normal model."""
    s = max(uncertainty, 1e-6)
    m = math.log(max(mean_game_length, 1.0)) - s * s / 2
    if moves_played < 1:
        return math.exp(m + s * s / 2)
    ln_n = math.log(moves_played)
    # 1 + erf(x) == erfc(-x), which keeps its precision far into the tail where
    # 1 + erf(x) rounds to 0 (long games with a small spread).
    numerator = math.erfc(-(m + s * s - ln_n) / (s * math.sqrt(2)))
    denominator = math.erfc(-(m - ln_n) / (s * math.sqrt(2)))
    if denominator < 1e-300:
        # Beyond even erfc's range: E[L | L > n] ~ n (1 + s^2 / (ln n - m)).
        return moves_played * s * s / max(ln_n - m, 1e-9)
    return math.exp(m + s * s / 2) * numerator / denominator - moves_played


# The factors a genome may tune (its `Search time_...:` lines): rows of the genes' one
# table, genchess_core/search_gene_table.py, with their defaults, bounds and steps.
TIME_DEFAULTS = {gene.name: gene.default for gene in genes_of(TIME)}
# Never plan for fewer moves than this, unless the time control ends sooner.
MIN_DIVISOR = TIME_DEFAULTS["time_min_moves"]
# Held back from every plan: this many move overheads (300 ms at the default 30 ms).
# It is what a stall of the machine (up to 50-70 ms between `go` and `bestmove` on a
# loaded two-core box) is paid from when the clock runs low. Not a gene: it is what
# keeps a tuned genome from losing on time.
RESERVE_OVERHEADS = MIN_DIVISOR + 2
# And each planned move is charged this share of the overhead (7.5 ms at the default)
# for the time it costs outside the search: reading, replying, the GUI's own latency
# (2-7 ms measured on average). Without it the clock sinks with every move planned.
LATENCY_SHARE = 0.25
# An iteration costs about as much as all the ones before it together: a search whose
# soft limit was its target spent 1.7-2.1 times the target (measured on openings and
# endgames at 0.3-5 s clocks). The soft limit is therefore the target over this
# (time_growth, in percent), so that a move spends its target on average and the clock
# follows the plan. An iteration may run on to time_hard_ratio percent of the move's
# target before it is stopped.
ITERATION_GROWTH = TIME_DEFAULTS["time_growth"] / 100


@dataclass
class TimeBudget:
    soft: float | None      # seconds: start no new iteration after this
    hard: float | None      # seconds: abort the search at this

    def after(self, seconds: float) -> "TimeBudget":
        """The budget left once `seconds` of it have gone (reading, parsing, a thread
        start), keeping the same floors as allocate()."""
        if seconds <= 0:
            return self
        return TimeBudget(None if self.soft is None else max(self.soft - seconds, 0.001),
                          None if self.hard is None else max(self.hard - seconds, 0.002))


def allocate(limits: Limits, white_to_move: bool, moves_played: int, mean_game_length: float,
             uncertainty: float, overhead_ms: int, lag_ms: float = 0.0,
             factors: dict | None = None) -> TimeBudget:
    """Soft and hard time limits for one move; None means unlimited.

    `overhead_ms` is the configured Move Overhead, a safety margin; `lag_ms` is what the
    GUI's clock was measured to charge each move beyond the engine's own time (GuiLag),
    a real cost paid on every move to come, so the plan pays it in full. `factors` are a
    genome's time genes by name, the defaults where it says nothing."""
    factors = {**TIME_DEFAULTS, **(factors or {})}
    min_moves = factors["time_min_moves"]
    growth = factors["time_growth"] / 100
    hard_targets = factors["time_hard_ratio"] / 100
    if limits.infinite or limits.ponder:
        return TimeBudget(None, None)
    per_move_cost = max(LATENCY_SHARE * overhead_ms, lag_ms)
    overhead_ms = max(overhead_ms, lag_ms)
    if limits.movetime is not None:
        t = max(limits.movetime - overhead_ms, 1) / 1000
        return TimeBudget(t, t)
    remaining = limits.wtime if white_to_move else limits.btime
    if remaining is None:
        # Only the other clock given: assume both sides have the same time.
        remaining = limits.btime if white_to_move else limits.wtime
    if remaining is None:
        return TimeBudget(None, None)
    increment = (limits.winc if white_to_move else limits.binc) or 0
    usable = max(remaining - overhead_ms, 0)
    # The floor guards genomes whose model says the game is almost over (a small
    # spread long past the mean): without it one move could take half the clock.
    divisor = max(expected_moves_left(moves_played, mean_game_length, uncertainty), min_moves)
    if limits.movestogo:
        divisor = min(divisor, limits.movestogo)
    # Plan the next `divisor` moves with the increments they bring, minus the reserve.
    # Adding the whole increment on top of remaining / divisor instead spends more than
    # the increment on every move, so the clock sinks until the caps below bite, at a
    # few increments (40 ms at 1+0.01, about 200 ms at 10+0.1), where one scheduling
    # hiccup loses on time. With the reserve the clock settles near the reserve.
    planned = (remaining + increment * (divisor - 1)
               - overhead_ms * RESERVE_OVERHEADS - per_move_cost * divisor)
    target = max(planned, 0) / divisor
    # Never plan to spend more than a fraction of what is really left.
    # With one move left in the period the whole rest is this move's, yet a loaded
    # machine can stall a process for tens of milliseconds: keep a fifth in hand.
    cap = usable * (0.7 if limits.movestogo == 1 else 0.5)
    soft = min(target / growth, cap)
    hard = min(target * hard_targets, usable * 0.8 if limits.movestogo == 1 else usable * 0.6)
    # An aborted iteration may not eat into the reserve either, beyond the move's target.
    hard = min(hard, max(remaining - overhead_ms * RESERVE_OVERHEADS, target))
    hard = max(hard, soft)
    return TimeBudget(max(soft, 1) / 1000, max(hard, 2) / 1000)


class SoftScaling:
    """How much of its soft limit a clocked search should use, learned iteration by
    iteration (a trial: the search applies it only under its Time Scaling option).

    The soft limit is a guess made before the search knows anything about the move.
    After each iteration three signs say whether this move needs less or more:
    a best move that has stayed the same for several iterations will most likely be
    played anyway; one that took nearly all of the root's nodes had no rival worth
    searching; a score that has fallen since the last iterations means the search
    found trouble and needs time to find a way out. The factors multiply, as in
    Ethereal, Weiss, Stash and akimbo (their SPRTs: +20 to +57 Elo at short controls);
    the numbers are the genome's time genes (search_gene_table.py) so that games can
    tune them. The searcher keeps the product inside the hard limit.

    Shallow iterations say little (every move looks alike, they take a few nodes), so
    the factor stays 1 until SCALE_FROM_DEPTH."""

    SCALE_FROM_DEPTH = 5

    def __init__(self, factors: dict | None = None):
        factors = {**TIME_DEFAULTS, **(factors or {})}
        self.stability_base = factors["tm_stability_base"] / 100
        self.stability_step = factors["tm_stability_step"] / 100
        self.stability_max = factors["tm_stability_max"]
        self.nodes_base = factors["tm_nodes_base"] / 100
        self.nodes_scale = factors["tm_nodes_scale"] / 100
        self.nodes_min = factors["tm_nodes_min"] / 100
        self.drop_scale = factors["tm_drop_scale"] / 100
        self.drop_max = factors["tm_drop_max"] / 100
        self.best_move: str | None = None
        self.stable = 0                 # iterations the best move has stayed the same
        self.scores: list[float] = []   # each iteration's score, in pawns

    def after_iteration(self, depth: int, best_move: str, best_share: float, score_pawns: float) -> float:
        """The factor for the soft limit after a completed iteration to `depth` whose
        best move took `best_share` (0 to 1) of the root's nodes and scored
        `score_pawns` (clipped: a mate score is not a fall of a thousand pawns)."""
        self.stable = self.stable + 1 if best_move == self.best_move else 0
        self.best_move = best_move
        score = max(-20.0, min(20.0, score_pawns))
        earlier, self.scores = self.scores[-2:], self.scores + [score]
        if depth < self.SCALE_FROM_DEPTH:
            return 1.0
        stability = self.stability_base - self.stability_step * min(self.stable, self.stability_max)
        nodes = max((self.nodes_base - best_share) * self.nodes_scale, self.nodes_min)
        drop = (sum(earlier) / len(earlier) - score) if earlier else 0.0
        falling = 1 + min(max(drop, 0.0) * self.drop_scale, self.drop_max)
        return max(stability, 0.05) * nodes * falling


class GuiLag:
    """What the GUI's clock charges each move beyond the engine's own thinking.

    A GUI stops our clock when it reads our move, not when we write it, and it may be
    busy in between: xboard animates the move it has just sent before it reads the
    answer, about 75 ms a move at its default settings, all of it on our clock. At
    5+0.05 that is more than the increment, and a plan that counts only the Move
    Overhead loses on time around move 85. The clock itself tells us the truth: the
    time the GUI reports at our next move should be what we had, less what we spent,
    plus the increment; whatever is missing is the lag. The estimate is the median of
    the last few such samples, so a lasting lag counts at once and one stall of the
    machine does not cut the next dozen moves short.
    """

    SAMPLES = 5
    MIN_SAMPLES = 3
    # A sample below this (ms) means time was added (a new time control), not lag.
    TIME_ADDED = -50

    def __init__(self):
        self.samples: list[float] = []
        self._searching: tuple[int, int, int, float] | None = None  # ply, clock, inc, received
        self._last: tuple[int, int, int, float] | None = None       # ply, clock, inc, spent ms

    @property
    def estimate_ms(self) -> float:
        if len(self.samples) < self.MIN_SAMPLES:
            return 0.0
        ordered = sorted(self.samples)
        return ordered[len(ordered) // 2]

    def search_started(self, limits: Limits, ply: int, white_to_move: bool) -> None:
        """A search begins at `ply`: if it is a clocked move of ours sent by a GUI, learn
        from the clock of our previous one, if this is the move after it, and remember
        this one. Other searches neither learn nor forget: in-process games have no GUI,
        a ponder search's clock starts later, a clock the GUI did not send for this move
        tells nothing, and pondering between two moves must not hide the lag."""
        self._searching = None
        own = limits.wtime if white_to_move else limits.btime
        if own is None or limits.received is None or limits.infinite or limits.ponder \
                or limits.movetime is not None or not limits.clock_is_fresh:
            return
        increment = (limits.winc if white_to_move else limits.binc) or 0
        last, self._last = self._last, None
        if last is not None and ply == last[0] + 2:
            last_ply, clock, last_increment, spent_ms = last
            sample = clock - spent_ms + last_increment - own
            if sample >= self.TIME_ADDED:
                self.samples = (self.samples + [max(sample, 0.0)])[-self.SAMPLES:]
        self._searching = (ply, own, increment, limits.received)

    def move_sent(self, at: float) -> None:
        """The search's move went out at `at` (time.monotonic())."""
        if self._searching is not None:
            ply, clock, increment, received = self._searching
            self._last = (ply, clock, increment, (at - received) * 1000)
            self._searching = None
