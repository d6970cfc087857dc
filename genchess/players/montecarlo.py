"""Pure Monte Carlo: for each legal move, random playouts to the end of the game
within the move's time, and the move with the best average result.

No tree, no evaluation, no chess knowledge beyond the rules: the playouts run in
genchess_core.playout (C, without the GIL, nothing allocated per playout, memory
constant whatever the time control: MonteCarlo.memory_bytes()). This module only
turns the clock into seconds and the statistics into a report.
"""

from __future__ import annotations

import math

from genchess.players import move_budget
from genchess_core.playout import MonteCarlo


def mean_to_cp(mean: float) -> int:
    """An average result in [-1, 1] as centipawns, through the logistic curve that
    maps 400 centipawns to a 10:1 expected-score ratio (Elo's), capped at 2000."""
    score = min(max((mean + 1) / 2, 1e-6), 1 - 1e-6)
    return max(-2000, min(2000, round(400 * math.log10(score / (1 - score)))))


class MonteCarloPlayer:
    def __init__(self, seed: int | None = None, on_info=None, default_seconds: float = 1.0):
        self.name = "MonteCarlo"
        self.searcher = MonteCarlo(seed if seed is not None else _fresh_seed())
        self.on_info = on_info
        self.default_seconds = default_seconds
        self.last_result: dict | None = None

    def new_game(self) -> None:
        pass

    def stop(self) -> None:
        self.searcher.stop()

    def clear_stop(self) -> None:
        self.searcher.clear_stop()

    def choose_move(self, board, clock) -> str | None:
        seconds = move_budget(clock, board.turn == "w", self.default_seconds)
        self.clear_stop()
        result = self.search(board, seconds)
        if self.on_info is not None:
            self.on_info(self.info(result))
        return result["move"]

    def think(self, board, seconds: float | None):
        """(move, Info) for the protocol adapter; call clear_stop() first."""
        result = self.search(board, seconds)
        return result["move"], self.info(result)

    def progress(self) -> int:
        return self.searcher.progress()[1]

    def search(self, board, seconds: float | None, max_playouts: int = 0) -> dict:
        """Playouts for `seconds` (None: until stop() or max_playouts)."""
        result = self.searcher.search(board, seconds or 0.0, max_playouts)
        self.last_result = result
        return result

    @staticmethod
    def info(result: dict):
        from genchess.engine import Info, Score
        t = max(result["time"], 1e-6)
        score = Score(mate=1) if result["mate"] else Score(cp=mean_to_cp(result["mean"]))
        return Info(depth=1, seldepth=1, nodes=result["plies"], time_ms=int(result["time"] * 1000),
                    nps=int(result["plies"] / t), hashfull=0, score=score,
                    pv=[result["move"]] if result["move"] else [])


def _fresh_seed() -> int:
    import os
    return int.from_bytes(os.urandom(8), "little")
