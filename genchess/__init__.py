"""GenChess: a chess engine that evolves."""

__version__ = "0.1.0"
