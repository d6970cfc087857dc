"""Win, draw and loss chances from a score: what `UCI_ShowWDL` shows a GUI.

The model is Stockfish's (its `win_rate_model`): the side to move's chance to win a
position it scores `s` centipawns is 1 / (1 + exp((a - s) / b)), where a (the score at
which it wins half the time) and b (how fast the chance rises with the score) are cubic
polynomials in the material left on the board, so that a pawn up in a rook ending and a
pawn up with all the pieces on read as the different things they are. Its chance to lose
is the same curve at -s, and the rest is the draw.

The numbers are fitted to GenChess's own games (scripts/maintenance/fit_wdl.py, which writes
genchess/data/wdl.json and draws the fit and its check on held-out games:
docs/wdl.md). Reading them costs one small file, once, when the option is first
turned on.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache

from genchess.files import package_file

MATERIAL_VALUES = (1, 3, 3, 5, 9)       # pawn .. queen, as Stockfish counts material
MATERIAL_RANGE = (17, 78)               # the material the fit is read at is clamped here
MATERIAL_SCALE = 58                     # ... and divided by this (the polynomials' variable)


def material(fen: str) -> int:
    """Both sides' material in the position's placement: pawns 1, knights and bishops 3,
    rooks 5, queens 9 (78 at the start)."""
    placement = fen.split()[0].lower()
    return sum(placement.count(piece) * value for piece, value in zip("pnbrq", MATERIAL_VALUES))


def polynomial(coefficients, x: float) -> float:
    value = 0.0
    for c in coefficients:
        value = value * x + c
    return value


def win_chance(score_cp: float, material_count: float, a_coefficients, b_coefficients) -> float:
    """The side to move's chance to win at `score_cp` (its view), 0 .. 1."""
    m = min(max(material_count, MATERIAL_RANGE[0]), MATERIAL_RANGE[1]) / MATERIAL_SCALE
    a, b = polynomial(a_coefficients, m), polynomial(b_coefficients, m)
    x = (a - score_cp) / b
    return 1.0 / (1.0 + math.exp(x)) if x < 700 else 0.0


@lru_cache(maxsize=1)
def fitted() -> dict:
    """The shipped fit (genchess/data/wdl.json): its a and b coefficients and provenance."""
    return json.loads(package_file("data", "wdl.json").read_text(encoding="utf-8"))


def wdl(score_cp: int | None, mate: int | None, material_count: int) -> tuple[int, int, int]:
    """(win, draw, loss) in permille for the side to move, summing to 1000; a mate score
    is a certain result."""
    if mate is not None:
        return (1000, 0, 0) if mate > 0 else (0, 0, 1000)
    model = fitted()
    win = round(1000 * win_chance(score_cp, material_count, model["a"], model["b"]))
    loss = round(1000 * win_chance(-score_cp, material_count, model["a"], model["b"]))
    loss = min(loss, 1000 - win)        # a fit whose a is below zero somewhere: no negative draw
    return win, 1000 - win - loss, loss
