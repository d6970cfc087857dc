"""Strength levels: GenChess playing like a weaker player, at a rating a person picks.

A level is one number, the skill, from 0 (weakest) to 20 (full strength), as
Stockfish's `Skill Level`. It weakens the engine in the two ways a weaker player
is weaker, and not by random blunders:

- **It sees less**: each move gets a node budget that halves every 2.5 skill steps
  below 20 (`nodes_for`), so the search is shallower and misses deeper tactics. The
  search keeps to a node limit exactly, so every skill's budget is its own (before
  2026-11-28 it looked at the limit every 1024 nodes, and skills 0 to 3 searched
  1024 or 2048 nodes whatever their budgets said).
- **It settles for a move that looks nearly as good**: the search keeps the best
  `LINES` moves (MultiPV) and the level draws one of them with a probability that
  falls with how much worse its score is, exp(-gap / temperature) (`choose`); the
  temperature grows as the skill falls, with the square of the distance from full
  strength, so the top levels mostly see less and the bottom ones also settle for
  worse moves. A move a pawn worse is rarely picked by a middling level and a move
  that drops a piece almost never; a mate is always taken.

`UCI_Elo` is mapped to a skill through `CALIBRATION`: skills whose ratings were
measured with `genchess gauntlet` on the Stockfish `UCI_Elo` ladder (the README's
anchor scale), interpolated linearly between measured points. The range of
`UCI_Elo` is the range that was measured: nothing outside it is guessed.
"""

from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass

MAX_SKILL = 20              # full strength: no node budget, no second-best moves
LINES = 4                   # moves a level chooses among (MultiPV)
NODES_AT_SKILL_0 = 1024     # the weakest level's nodes per move (about two plies)
SKILL_STEPS_PER_DOUBLING = 2.5   # skill 19 searches about 170,000 nodes a move
TEMPERATURE_AT_SKILL_0 = 200.0   # centipawns: a move two pawns worse is drawn e^-1 as often
# Below this temperature (skill 16 and up) a second-best move would almost never be
# drawn, and searching the other lines would only spend the node budget: one line.
MIN_CHOICE_TEMPERATURE = 10.0


@dataclass(frozen=True)
class Measured:
    """One skill's rating on the Stockfish ladder: a gauntlet's result."""
    skill: float
    elo: int
    interval: int           # half-width of the 95% interval
    games: int
    pgn: str                # under docs/matches/levels/
    # Below the ladder's lowest rung (1350) a rating is chained: fitted against
    # Stockfish 1350 and levels already measured, whose own intervals it inherits.
    chained: bool = False


# The calibration gauntlets: 10+0.1 against Stockfish's UCI_Elo levels with unified.genome
# (the default genome then; a level still plays it in place of today's default:
# genome_file.LEVELS_GENOME_PATH), game pairs, no adjudication (docs/play.md#strength-levels
# has the commands).
# Skills 0 and 2 lose nearly every game to Stockfish 1350, so they were rated against it
# and the measured levels (genchess/data/levels-gauntlet.cfg); skill 0 also against skill 2.
CALIBRATION: tuple[Measured, ...] = (
    Measured(skill=0, elo=1042, interval=108, games=80, pgn="skill-0.pgn.gz", chained=True),
    Measured(skill=2, elo=1264, interval=95, games=60, pgn="skill-2.pgn.gz", chained=True),
    Measured(skill=4, elo=1364, interval=129, games=24, pgn="skill-4.pgn.gz"),
    Measured(skill=7, elo=1552, interval=147, games=30, pgn="skill-7.pgn.gz"),
    Measured(skill=14, elo=1656, interval=104, games=50, pgn="skill-14.pgn.gz"),
    Measured(skill=16, elo=2070, interval=110, games=30, pgn="skill-16.pgn.gz"),
    Measured(skill=18, elo=2146, interval=117, games=30, pgn="skill-18.pgn.gz"),
)


def check_skill(skill: float) -> float:
    """`skill` if it is a level (0 to MAX_SKILL), else ValueError saying the range."""
    if not 0 <= skill <= MAX_SKILL:          # NaN fails too
        raise ValueError(f"must be from 0 to {MAX_SKILL}, not {skill:g}")
    return skill


def nodes_for(skill: float) -> int:
    """Nodes per move at this skill; 0 (no budget) at full strength."""
    if skill >= MAX_SKILL:
        return 0
    return round(NODES_AT_SKILL_0 * 2 ** (skill / SKILL_STEPS_PER_DOUBLING))


def temperature_for(skill: float) -> float:
    """The choice's temperature in centipawns; 0 (always the best move) at full strength."""
    return TEMPERATURE_AT_SKILL_0 * (max(MAX_SKILL - skill, 0.0) / MAX_SKILL) ** 2


def lines_for(skill: float) -> int:
    """Moves the level searches to choose among (MultiPV)."""
    return LINES if temperature_for(skill) >= MIN_CHOICE_TEMPERATURE else 1


def choose(lines: list[tuple[float, str]], temperature: float, rng: random.Random) -> int:
    """The index of the line to play among `lines` = [(score in centipawns, move)],
    best first. Mate scores are passed as large centipawn values, so a mate for the
    mover is always played and a line that is mated is never chosen."""
    if temperature <= 0 or len(lines) < 2:
        return 0
    best = lines[0][0]
    weights = [math.exp(-max(best - score, 0.0) / temperature) for score, _ in lines]
    return rng.choices(range(len(lines)), weights=weights)[0]


def elo_range() -> tuple[int, int] | None:
    """The UCI_Elo values a level can be set to: the measured range, or None before any
    calibration."""
    if len(CALIBRATION) < 2:
        return None
    elos = [point.elo for point in CALIBRATION]
    return min(elos), max(elos)


def skill_for_elo(elo: float) -> float:
    """The skill that plays at `elo`, interpolated between the two measured skills
    around it (CALIBRATION is increasing in both skill and rating)."""
    points = sorted(CALIBRATION, key=lambda point: point.elo)
    if len(points) < 2:
        raise ValueError("cannot be used: no strength levels are calibrated in this build")
    elos = [point.elo for point in points]
    if not elos[0] <= elo <= elos[-1]:
        raise ValueError(f"must be from {elos[0]} to {elos[-1]} (the measured levels), not {elo:g}")
    i = min(max(bisect.bisect_left(elos, elo), 1), len(points) - 1)
    low, high = points[i - 1], points[i]
    share = (elo - low.elo) / (high.elo - low.elo) if high.elo != low.elo else 0.0
    return low.skill + share * (high.skill - low.skill)
