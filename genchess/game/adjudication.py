"""Ending a decided game early on the engines' own scores, as cutechess-cli does.

A match between engines spends much of its time on games whose result is no
longer in doubt: a side several pawns down plays on to mate, a dead-level
ending shuffles to the fifty-move rule. Tournament managers end such games on
the scores the engines report with their moves, and fishtest's SPRTs run with
`-resign movecount=3 score=400 -draw movenumber=34 movecount=8 score=20`:

- resign: a side whose own score is SCORE centipawns or more below zero (or
  that sees itself mated) for MOVECOUNT of its moves in a row loses;
- draw: from full move MOVENUMBER on, when both sides' scores stay within
  SCORE centipawns of zero for MOVECOUNT moves each in a row, the game is drawn.

A move without a score (a player that reports none) breaks both runs. The
options are spelled as cutechess's, e.g. `--resign movecount=3 score=400`.
"""

from __future__ import annotations

from dataclasses import dataclass

from genchess.console import quoted, whole_number

MATE_CP = 100_000           # a mate score, in centipawns, for the comparisons here


@dataclass(frozen=True)
class Adjudication:
    resign_moves: int = 0       # 0: no resign adjudication
    resign_score: int = 400
    draw_from_move: int = 0
    draw_moves: int = 0         # 0: no draw adjudication
    draw_score: int = 20

    @property
    def active(self) -> bool:
        return bool(self.resign_moves or self.draw_moves)

    @classmethod
    def from_options(cls, resign: list[str] | None, draw: list[str] | None) -> "Adjudication":
        """From `--resign movecount=N score=CP` and `--draw movenumber=N movecount=N
        score=CP` (either may be None); ValueError naming the faulty word."""
        fields = {}
        if resign is not None:
            values = _options("--resign", resign, {"movecount": 1, "score": 0}, {"movecount", "score"})
            fields.update(resign_moves=values["movecount"], resign_score=values["score"])
        if draw is not None:
            values = _options("--draw", draw, {"movenumber": 0, "movecount": 1, "score": 0},
                              {"movenumber", "movecount", "score"})
            fields.update(draw_from_move=values["movenumber"], draw_moves=values["movecount"],
                          draw_score=values["score"])
        return cls(**fields)

    def describe(self) -> str:
        return ", ".join(self._rules()) or "none"

    def options(self) -> str:
        """The command-line spelling that `from_options` reads back: `--resign ... --draw ...`."""
        return " ".join(f"--{rule}" for rule in self._rules())

    def _rules(self) -> list[str]:
        rules = []
        if self.resign_moves:
            rules.append(f"resign movecount={self.resign_moves} score={self.resign_score}")
        if self.draw_moves:
            rules.append(f"draw movenumber={self.draw_from_move} movecount={self.draw_moves} "
                         f"score={self.draw_score}")
        return rules


FISHTEST = Adjudication(resign_moves=3, resign_score=400, draw_from_move=34, draw_moves=8, draw_score=20)


def _options(flag: str, words: list[str], minimum: dict[str, int], required: set[str]) -> dict[str, int]:
    values = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or key not in minimum:
            raise ValueError(f"{flag}: {quoted(word)} is not one of " + ", ".join(f"{k}=N" for k in minimum))
        number = whole_number(value)
        if number is None or number < minimum[key]:
            raise ValueError(f"{flag}: {key} must be a whole number of at least {minimum[key]}, "
                             f"not {quoted(value)}")
        values[key] = number
    missing = sorted(required - values.keys())
    if missing:
        raise ValueError(f"{flag}: give " + " and ".join(f"{k}=N" for k in missing))
    return values


def score_cp(cp: int | None, mate: int | None) -> int | None:
    """A score as centipawns for the comparisons here: mates as +-MATE_CP
    (`mate` > 0: the mover mates; < 0 or 0: it is mated), None if neither."""
    if mate is not None:
        return MATE_CP if mate > 0 else -MATE_CP
    return cp


class Adjudicator:
    """Follows one game's scores; `update` after every move says when to end it."""

    def __init__(self, rules: Adjudication):
        self.rules = rules
        self.losing_run = [0, 0]    # moves in a row each side saw itself lost
        self.quiet_run = 0          # plies in a row both sides saw a level game

    def update(self, side: int, cp: int | None, fullmove: int) -> tuple[str, str] | None:
        """After `side` (0 white, 1 black) moved in full move `fullmove` with score
        `cp` (its own view, None if unknown): (result, reason) to end the game, or None."""
        rules = self.rules
        mover = "White" if side == 0 else "Black"
        if rules.resign_moves:
            lost = cp is not None and cp <= -rules.resign_score
            self.losing_run[side] = self.losing_run[side] + 1 if lost else 0
            if self.losing_run[side] >= rules.resign_moves:
                return ("0-1" if side == 0 else "1-0",
                        f"{mover} loses by adjudication: its score was -{rules.resign_score / 100:g} "
                        f"pawns or worse for {rules.resign_moves} moves")
        if rules.draw_moves:
            level = cp is not None and fullmove >= rules.draw_from_move and abs(cp) <= rules.draw_score
            self.quiet_run = self.quiet_run + 1 if level else 0
            if self.quiet_run >= 2 * rules.draw_moves:
                return ("1/2-1/2", f"Draw by adjudication: both scores within {rules.draw_score} "
                                   f"centipawns of zero for {rules.draw_moves} moves")
        return None
