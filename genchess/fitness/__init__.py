"""Fitness from positions: labelled position sets (positions.py), how they are
made from games (making.py, the `genchess positions` command), shared by every
evaluation kind. Trainers that score genomes by games do not need this package.
"""

from .positions import (MENTOR_CLAMP_CP, PositionSet, PositionSetError, load_positions,
                        pawn_unit)

__all__ = ["MENTOR_CLAMP_CP", "PositionSet", "PositionSetError", "load_positions", "pawn_unit"]
