"""Any computer player behind the UCI and xboard protocols (`--player turing`).

uci.py and xboard.py drive an Engine facade; PlayerEngine offers the same
methods and attributes over a player, so random, Turing and Monte Carlo can enter
a cutechess-cli tournament with no protocol code of their own. `go` thinks in a
thread (the protocol thread stays free for `isready` and `stop`), turning the
UCI limits into the seconds the player may use: movetime, or a share of the
clock (the engine's plan, timeman.allocate), or until `stop` for infinite and ponder searches.
`stop` makes the player return its best move so far at once. Options that only
mean something to the genome engine (hash size, MultiPV, search mode) are
accepted and ignored; loading a genome is refused with a clear message. The
genetic player needs no adapter: it is the Engine itself.
"""

from __future__ import annotations

import threading
import time

from genchess.engine import BackgroundSearch, Score, SearchResult
from genchess.players import PlayerSpecError, make_player, parse_spec
from genchess.timeman import ITERATION_GROWTH, Limits, allocate

UNTIMED_SECONDS = 1.0      # a `go depth N` or `go nodes N` means nothing to these players

def engine_for_player(spec: str, engine, seed: int | None = None):
    """The engine a protocol should drive for `--player SPEC`: `engine` itself (with
    the genome loaded) for genetic players, else a PlayerEngine."""
    kind, path, genome_id = parse_spec(spec)
    if kind == "human":
        raise PlayerSpecError("player 'human' cannot play through a protocol: "
                              "use genchess play for games at the terminal")
    if kind == "genetic":
        if path is not None:
            from genchess.players import load_player_genome
            engine.set_genome(load_player_genome(path, genome_id))
        return engine
    return PlayerEngine(make_player(spec, seed), move_overhead_ms=engine.move_overhead_ms)

class PlayerEngine(BackgroundSearch):
    def __init__(self, player, move_overhead_ms: int = 30):
        from genchess.genome import default_genome
        super().__init__()
        self.player = player
        # What GUIs and tournament tables show: which player stands behind GenChess.
        from genchess import __version__
        self.display_name = f"GenChess {__version__} ({player.name})"
        self.multipv = 1
        self.search_mode = "iterative"
        self.move_overhead_ms = move_overhead_ms
        self.genome = default_genome()
        packed = self.genome.pack()
        self.look_ahead = (packed["mean_game_length"], packed["game_length_uncertainty"])
        self.searcher = self                    # xboard asks searcher.progress()
        self._timer: threading.Timer | None = None
        self._started = 0.0

    # ---------------------------------------------------------------- setup

    def set_genome(self, genome) -> None:
        from genchess.genome import default_genome
        from genchess.protocols.options import OptionError
        if genome != default_genome():
            raise OptionError(f"the {self.player.name} player has no genome; "
                              f"use --player genetic to play a genome")
        self.genome = genome

    def set_hash(self, megabytes: int) -> None:
        pass

    def set_threads(self, threads: int) -> None:
        pass                                    # the players think on one thread

    def set_skill(self, skill: float) -> None:
        from genchess.levels import MAX_SKILL
        from genchess.protocols.options import OptionError
        if skill < MAX_SKILL:
            raise OptionError(f"the {self.player.name} player has no strength levels; "
                              f"they are the genome engine's (--player genetic)")

    def new_game(self) -> None:
        self.player.new_game()

    # ---------------------------------------------------------------- thinking

    def _arm(self) -> None:
        self.player.clear_stop()

    def stop(self) -> None:
        super().stop()
        self._cancel_timer()
        self.player.stop()

    def ponderhit(self, limits: Limits) -> None:
        """The pondered move was played: from now on, think for a normal move's time."""
        seconds = self.seconds_for(Limits(**{**limits.__dict__, "ponder": False}))
        self._cancel_timer()
        if seconds is not None:
            self._timer = threading.Timer(seconds, self.player.stop)
            self._timer.daemon = True
            self._timer.start()
        self._ponderhit.set()

    def wait(self) -> None:
        super().wait()
        self._cancel_timer()

    def progress(self):
        return self.player.progress(), 0

    def hashfull(self) -> int:
        return 0

    def seconds_for(self, limits: Limits) -> float | None:
        """Seconds the player may think; None: until stopped (or its own end)."""
        if limits.infinite or limits.ponder:
            return None
        overhead = max(self.move_overhead_ms, self.gui_lag.estimate_ms) / 1000
        if limits.movetime is not None:
            return max(limits.movetime / 1000 - overhead, 0.005)
        if limits.is_timed():
            white = self.board.turn == "w"
            if (limits.wtime if white else limits.btime) is None:
                return UNTIMED_SECONDS
            # The engine's clock plan, reserve and all (players.move_budget, made for
            # in-process games, let the clock sink to a few increments). A player
            # stops at its time, so it gets the move's target: what a search spends
            # on average, ITERATION_GROWTH times its soft limit.
            budget = allocate(limits, white, self.board.fullmove_number - 1, *self.look_ahead,
                              self.move_overhead_ms, self.gui_lag.estimate_ms)
            if limits.received is not None:
                budget = budget.after(time.monotonic() - limits.received)
            return max(min(budget.soft * ITERATION_GROWTH, budget.hard), 0.001)
        return UNTIMED_SECONDS

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _think(self, limits: Limits, on_info) -> SearchResult:
        board = self.board.copy()
        start = time.monotonic()
        move, info = None, None
        if board.legal_moves():
            move, info = self.player.think(board, self.seconds_for(limits))
        if info is not None and on_info is not None:
            on_info(info)
        elapsed = int((time.monotonic() - start) * 1000)
        return SearchResult(
            bestmove=move, ponder=None,
            score=info.score if info is not None and info.score is not None else Score(cp=0),
            depth=info.depth if info is not None else 1,
            nodes=info.nodes if info is not None else 1, time_ms=elapsed,
            pv=list(info.pv) if info is not None and info.pv else ([move] if move else []))
