"""How long to think: the Look Ahead Gene's log-normal game-length model.

The gene holds a mean game length and a spread S. Game lengths are modelled as
log-normal with log-mean M = ln(mean) - S^2/2 (so the distribution's mean is the
gene's mean), and the moves still to come after n moves are the conditional
expectation E[L | L > n] - n. The move gets the remaining time divided by that
(or by the moves to the next time control, if fewer), plus the increment.

The soft limit is when iterative deepening stops starting new iterations; the hard
limit aborts a search. Both leave the move overhead and a safety margin unused,
because losing on time is the one mistake a tournament never forgives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


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


MIN_DIVISOR = 8     # never plan for fewer moves than this, unless the time control ends sooner


@dataclass
class TimeBudget:
    soft: float | None      # seconds: start no new iteration after this
    hard: float | None      # seconds: abort the search at this


def allocate(limits: Limits, white_to_move: bool, moves_played: int, mean_game_length: float,
             uncertainty: float, overhead_ms: int) -> TimeBudget:
    """Soft and hard time limits for one move; None means unlimited."""
    if limits.infinite or limits.ponder:
        return TimeBudget(None, None)
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
    divisor = max(expected_moves_left(moves_played, mean_game_length, uncertainty), MIN_DIVISOR)
    if limits.movestogo:
        divisor = min(divisor, limits.movestogo)
    target = remaining / divisor + increment
    # Never plan to spend more than a fraction of what is really left.
    # With one move left in the period the whole rest is this move's, yet a loaded
    # machine can stall a process for tens of milliseconds: keep a fifth in hand.
    cap = usable * (0.7 if limits.movestogo == 1 else 0.5)
    soft = min(target, cap)
    hard = min(target * 3, usable * 0.8 if limits.movestogo == 1 else usable * 0.6)
    hard = max(hard, soft)
    return TimeBudget(max(soft, 1) / 1000, max(hard, 2) / 1000)
