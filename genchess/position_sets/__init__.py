"""Labelled position sets: what a Texel-style tuner or the network trainer learns from.

Two layers in one package. Reading and writing a set stands low, beside the genomes:
the EPD text form (epd.py), the packed form of 32 bytes a position (packed.py) and
the set in memory as numpy columns (position_set.py), which the position fitness
(genchess/fitness/) scores genomes on. Making a set stands above measuring, because it
plays games with GenChess and Stockfish: one game's positions sampled, resolved to
quiet ones and labelled (making.py), the run over many games with its journal,
resume and recipe (run.py), and the `genchess positions` command (cli.py).
tests/test_layering.py keeps the reading layer from importing the making one's needs.
"""

from .epd import MENTOR_CLAMP_CP, PositionSetError

__all__ = ["MENTOR_CLAMP_CP", "PositionSet", "PositionSetError", "load_positions", "pawn_unit"]


def __getattr__(name: str):
    # The set (numpy) loads when asked for: `genchess` builds its command line from
    # this package and must start without numpy (GUIs start engines often).
    if name in ("PositionSet", "load_positions", "pawn_unit"):
        from . import position_set
        return getattr(position_set, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
