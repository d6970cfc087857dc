"""The random player: a uniformly random legal move from a seeded generator.

The baseline every other player must beat. Moves are drawn from the sorted move
list, so a seed gives the same game whatever order the generator lists moves in.
"""

from __future__ import annotations

import random


class RandomPlayer:
    def __init__(self, seed: int | None = None):
        self.name = "Random"
        self.rng = random.Random(seed)

    def new_game(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def clear_stop(self) -> None:
        pass

    def progress(self) -> int:
        return 0

    def think(self, board, seconds):
        return self.choose_move(board, None), None

    def choose_move(self, board, clock) -> str | None:
        moves = sorted(board.legal_moves())
        return self.rng.choice(moves) if moves else None
