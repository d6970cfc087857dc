"""Fitness from positions, shared by every evaluation kind: labelled position sets
(positions.py) and how they are made from games (making.py, cli.py: the `genchess
positions` command); the Texel loss and its K (loss.py); the linear kinds'
features, which score a whole population with one product (features.py); and the
scoring of genomes on a set, in-process or through a trainer's executor
(scoring.py). Trainers that score genomes by games do not need this package.
"""

from .positions import (MENTOR_CLAMP_CP, PositionSet, PositionSetError, load_positions,
                        pawn_unit)

__all__ = ["MENTOR_CLAMP_CP", "PositionSet", "PositionSetError", "load_positions", "pawn_unit"]
