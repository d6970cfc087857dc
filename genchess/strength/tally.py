"""The one accumulator of a match: PGN results in; W-D-L, game pairs, Elo and the SPRT out.

Every path that counts games counts them here: `genchess match` and the gauntlet
(runner.py), the trainers' champion, the Kendall-Whitwell study's round robin and
reference match, the scripts. A result is always a PGN result string ("1-0",
"0-1", "1/2-1/2"; anything else, an unfinished "*", counts as a draw, as
cutechess-cli does) plus which colour the counted engine had, so no caller keeps
its own table of points. Games that share an opening with colours reversed are a
game pair: give both the same `pair` key, in either order, and the pair is counted
pentanomially once its second game arrives (and only then fed to the SPRT, whose
pentanomial model needs whole pairs).
"""

from __future__ import annotations

from typing import Hashable

from genchess.strength.sprt import CONTINUE, Sprt
from genchess.strength.stats import MatchStats

# A game's points for White; Black gets the rest.
POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def white_points(result: str) -> float:
    """White's points for a PGN result; an unfinished game ("*") is half a point."""
    return POINTS.get(result, 0.5)


class Tally:
    """One engine's match: every game from its side, pairs once both games are in."""

    def __init__(self, sprt: Sprt | None = None):
        self.stats = MatchStats()
        self.sprt = sprt
        self._half_pairs: dict[Hashable, float] = {}    # pair key -> the first game's points

    def add(self, result: str, *, white: bool, pair: Hashable | None = None) -> bool:
        """Count one game: its PGN `result`, whether the counted engine had `white`,
        and the key of its game pair (None: a game outside pairs). Returns whether
        this game completed a pair."""
        points = white_points(result)
        mine = points if white else 1.0 - points
        self.stats.add_game(mine)
        if pair is None:
            return False
        if pair not in self._half_pairs:
            self._half_pairs[pair] = mine
            return False
        self.stats.count_pair(self._half_pairs.pop(pair), mine)
        if self.sprt is not None:
            self.sprt.update(self.stats.pairs)
        return True

    @property
    def verdict(self) -> str:
        """The SPRT's verdict so far (CONTINUE without an SPRT)."""
        return self.sprt.status() if self.sprt is not None else CONTINUE

    @property
    def games(self) -> int:
        return self.stats.games

    @property
    def pairs(self) -> list[int]:
        return self.stats.pairs
