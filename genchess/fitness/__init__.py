"""Fitness from positions, shared by every evaluation kind: labelled position sets
(EPD text: epd.py; in memory: positions.py) and how they are made from games (making.py, cli.py: the `genchess
positions` command); the Texel loss and its K (loss.py); the linear kinds'
features, which score a whole population with one product (features.py); and the
scoring of genomes on a set, in-process or through a trainer's executor
(scoring.py); gradient descent on a linear kind's exact gradient (gradient.py). Trainers that score genomes by games do not need this package.
"""

from .epd import MENTOR_CLAMP_CP, PositionSetError

__all__ = ["MENTOR_CLAMP_CP", "PositionSet", "PositionSetError", "load_positions", "pawn_unit"]


def __getattr__(name: str):
    # The set (numpy) loads when asked for: `genchess` builds its command line from
    # this package and must start without numpy (GUIs start engines often).
    if name in ("PositionSet", "load_positions", "pawn_unit"):
        from . import positions
        return getattr(positions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
