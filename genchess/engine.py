"""The engine facade: one object the protocols, the players and the trainers drive.

It holds the current position (a Board), the genome and a Searcher. `go()`
returns at once and searches in a thread whose C search releases the GIL, so the
protocol thread stays free to answer `isready` and `stop`; `search()` is the
synchronous form the trainers use. Every search ends in exactly one legal best
move (None only when there is no legal move), whatever stops it.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from genchess import levels
from genchess.genome import Genome, hand_set_genome, is_default_genome, levels_genome
from genchess.genome.search_genes import search_genes
from genchess.timeman import GuiLag, Limits, SoftScaling, allocate
from genchess_core import Board, STARTING_FEN
from genchess_core.gasearch import DEFAULT_POOL_NODES, ga_search
from genchess_core.searcher import MATE, MATE_THRESHOLD, Searcher

# The `Search` option's values. Engine._search_mode_for decides which one a search
# runs and which function runs it: Searcher.search for the alpha-beta modes,
# gasearch.ga_search for the GA.
SEARCH_MODES = ("iterative", "budget", "ga", "minimax")
DEFAULT_NPS = 300_000      # budget mode's speed guess before the first move is measured
DEFAULT_BUDGET_NODES = 1_000_000   # budget mode's nodes for a `go` without a clock or node count


@dataclass
class Score:
    """A score as UCI reports it: centipawns, or mate in `mate` moves (negative: mated)."""
    cp: int | None = None
    mate: int | None = None

    @classmethod
    def from_internal(cls, score: int, pawn_unit: float) -> "Score":
        if abs(score) > MATE_THRESHOLD:
            plies = MATE - abs(score)
            moves = (plies + 1) // 2
            return cls(mate=moves if score > 0 else -moves)
        return cls(cp=round(score * 100 / pawn_unit))

    def __str__(self):
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"


@dataclass
class Info:
    """One search report; `pv` empty for the once-a-second progress reports."""
    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    nps: int
    hashfull: int
    multipv: int = 1
    score: Score | None = None
    pv: list[str] = field(default_factory=list)
    string: str = ""        # mode-specific detail (the GA's tree size and generations)


@dataclass
class SearchResult:
    bestmove: str | None
    ponder: str | None
    score: Score
    depth: int
    nodes: int
    time_ms: int
    pv: list[str]


class BackgroundSearch:
    """What the protocols need of anything that thinks: a position, one search at a
    time in a background thread, and exactly one best move per `go`, delivered even
    if the thinking fails. Subclasses say how to think (`_think`), how to arm and
    halt it (`_arm`, `stop`) and what a ponder hit means (`ponderhit`)."""

    def __init__(self):
        self.board = Board()
        # Castling written king-takes-rook (UCI_Chess960, xboard's fischerandom). The
        # rules need no switch: a Chess960 FEN is played by the Chess960 rules anyway.
        self.chess960 = False
        self._thread: threading.Thread | None = None
        self._stop_requested = threading.Event()
        self._ponderhit = threading.Event()
        # Set once the best move is handed over: from then on the engine is idle
        # even if its thread has not quite exited (a GUI may answer at once).
        self._delivered = threading.Event()
        # Learnt from the GUI's clock move by move; kept across games (same GUI).
        self.gui_lag = GuiLag()

    def set_position(self, fen: str | None = None, moves=()) -> None:
        """Set the position; on a bad FEN or move raise FenError/MoveError and keep the old one."""
        if self.is_searching():
            raise RuntimeError("set_position while searching")
        # None means the start position; an empty FEN is a bad FEN, not a default.
        board = Board(STARTING_FEN if fen is None or fen == "startpos" else fen, chess960=self.chess960)
        for move in moves:
            board.push_uci(move)
        self.wait()
        self.board = board

    def set_chess960(self, on: bool) -> None:
        """Write (and first read) castling as king-takes-rook, e1h1, or as the king's move, e1g1."""
        self.chess960 = on
        self.board.chess960 = on

    def go(self, limits: Limits, on_info: Callable[[Info], None] | None = None,
           on_bestmove: Callable[[SearchResult], None] | None = None) -> None:
        """Start thinking in the background; on_bestmove is called exactly once.

        For `infinite` and `ponder` searches the best move waits for stop() (or
        ponderhit() and the clock), as UCI requires."""
        self.wait()
        self._stop_requested.clear()
        self._ponderhit.clear()
        self._delivered.clear()
        self._arm()
        self._thread = threading.Thread(target=self._run, args=(limits, on_info, on_bestmove),
                                        name="genchess-search", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop_requested.set()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def is_searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._delivered.is_set()

    def _arm(self) -> None:
        """Make ready for a new search (clear the thinker's own stop flag)."""

    def _think(self, limits: Limits, on_info) -> SearchResult:
        raise NotImplementedError

    def _run(self, limits, on_info, on_bestmove):
        board = self.board
        ply = 2 * (board.fullmove_number - 1) + (board.turn == "b")
        self.gui_lag.search_started(limits, ply, board.turn == "w")
        try:
            result = self._think(limits, on_info)
        except Exception:
            # Whatever went wrong, the GUI is owed a move: any legal one.
            legal = self.board.legal_moves()
            result = SearchResult(legal[0] if legal else None, None, Score(cp=0), 0, 0, 0,
                                  legal[:1])
        if limits.infinite or limits.ponder:
            # UCI: no bestmove before `stop` (or, when pondering, before ponderhit ends it).
            while not self._stop_requested.is_set() and not (limits.ponder and self._ponderhit.is_set()):
                self._stop_requested.wait(0.05)
        self._delivered.set()
        if on_bestmove is not None:
            on_bestmove(result)
        self.gui_lag.move_sent(time.monotonic())


class Engine(BackgroundSearch):
    def __init__(self, genome: Genome | None = None, hash_mb: int = 16,
                 search_mode: str = "iterative", move_overhead_ms: int = 30):
        super().__init__()
        self.searcher = Searcher(hash_mb)
        self.search_mode = search_mode
        self.move_overhead_ms = move_overhead_ms
        self.multipv = 1
        self.ga_init_level = 1              # GA mode: root moves (1) or two-ply branches (2)
        self.ga_nodes = DEFAULT_POOL_NODES   # GA mode: node pool size
        self.nps_estimate = DEFAULT_NPS
        self.budget_nodes = DEFAULT_BUDGET_NODES  # budget mode's nodes when no clock or count says
        self.book = None            # a genchess.book.Book: asked once per move, before searching
        # A ponderhit's time limits and a search's own are set under this lock: a
        # ponderhit can arrive before the search thread has armed its clock, and the
        # search must then keep the ponderhit's limits, not think on without any.
        self._clock = threading.Lock()
        self.skill: float = levels.MAX_SKILL     # strength level (genchess.levels); 20: full strength
        self.level_rng = random.Random()         # a level's choice among its best moves
        self.genome: Genome
        # Without a genome, the library's engine is the hand-set Genetic Chess one
        # (benchmarks and tests depend on it); the command line and the protocols
        # name the default genome (genome_file.DEFAULT_GENOME_PATH) themselves.
        self.chosen_genome: Genome           # what the caller named; self.genome is what plays
        self.set_genome(genome or hand_set_genome())

    # ---------------------------------------------------------------- setup

    def set_genome(self, genome: Genome) -> None:
        """Play `genome`; at a strength level the default genome hands over to the
        genome the levels were calibrated with (genome_file.LEVELS_GENOME_PATH)."""
        self.chosen_genome = genome
        if self.skill < levels.MAX_SKILL and is_default_genome(genome):
            genome = levels_genome()
        self.genome = genome
        packed = genome.pack()
        self.look_ahead = (packed["mean_game_length"], packed["game_length_uncertainty"])
        self.time_factors = packed.get("time_factors", {})
        self.searcher.set_genome(packed)

    def set_search_genes(self, values: dict[str, int]) -> None:
        """Play the genome with these search genes changed (`genchess uci --tune`);
        ValueError naming a gene that does not exist or a value out of its bounds."""
        genes = search_genes()
        for name, value in values.items():
            gene = genes.get(name)
            if gene is None:
                raise ValueError(f"unknown search gene {name!r}")
            if not gene.lo <= value <= gene.hi:
                raise ValueError(f"{name} must be from {gene.lo} to {gene.hi}, not {value}")
        self.set_genome(self.genome.copy().with_search({**self.genome.search, **values}))

    def set_feature(self, bit: int, on: bool) -> None:
        """Turn one of the search's feature bits on or off (a trial's engine option)."""
        features = self.searcher.features
        self.searcher.features = features | bit if on else features & ~bit

    def set_hash(self, megabytes: int) -> None:
        self.searcher.set_hash(megabytes)

    def set_threads(self, threads: int) -> None:
        """Search on this many threads (Lazy SMP); the GA and budget searches use one."""
        self.searcher.set_threads(threads)

    def set_skill(self, skill: float) -> None:
        """Play at this strength level (0 to 20; 20, the default, is full strength)."""
        try:
            skill = levels.check_skill(skill)
        except ValueError as e:
            raise ValueError(f"skill {e}") from None
        at_level, self.skill = self.skill < levels.MAX_SKILL, skill
        if (skill < levels.MAX_SKILL) != at_level and is_default_genome(self.chosen_genome):
            self.set_genome(self.chosen_genome)

    def new_game(self) -> None:
        self.searcher.clear()
        self.nps_estimate = DEFAULT_NPS

    # ---------------------------------------------------------------- searching

    def stop(self) -> None:
        super().stop()
        self.searcher.stop()

    def ponderhit(self, limits: Limits) -> None:
        """The opponent played the pondered move: continue as a normal timed search."""
        # The clock runs from now (the ponderhit), not from the `go ponder`.
        budget = self._budget(Limits(**{**limits.__dict__, "ponder": False, "received": None}))
        with self._clock:
            self.searcher.set_time_limits(budget.soft, budget.hard)
            self._ponderhit.set()

    def search(self, limits: Limits, on_info: Callable[[Info], None] | None = None) -> SearchResult:
        """Search the current position synchronously (trainers, players, tests)."""
        self._stop_requested.clear()
        self.searcher.clear_stop()
        return self._search(limits, on_info)

    # ---------------------------------------------------------------- internals

    def _search_mode_for(self, limits: Limits) -> str:
        """The search mode this search runs: the chosen one unless the limits ask
        for what it cannot do, then iterative deepening."""
        mode = self.search_mode
        if mode == "budget" and (limits.depth is not None or limits.infinite or limits.ponder
                                 or limits.mate):
            return "iterative"      # a budget has no depth, and analysis runs until stopped
        if mode == "ga" and (limits.depth is not None or limits.mate):
            return "iterative"      # the GA tree has no depth to stop at
        return mode

    def _budget(self, limits: Limits):
        moves_played = self.board.fullmove_number - 1
        mean, spread = self.look_ahead
        return allocate(limits, self.board.turn == "w", moves_played, mean, spread,
                        self.move_overhead_ms, self.gui_lag.estimate_ms, self.time_factors)

    def _arm(self) -> None:
        self.searcher.clear_stop()

    def _think(self, limits, on_info) -> SearchResult:
        done = threading.Event()
        reporter = None
        if on_info is not None:
            reporter = threading.Thread(target=self._progress_reports, args=(done, on_info),
                                        name="genchess-progress", daemon=True)
            reporter.start()
        try:
            return self._search(limits, on_info)
        finally:
            done.set()
            if reporter is not None:
                reporter.join()     # no progress line after the best move, no thread left

    def _progress_reports(self, done: threading.Event, on_info):
        start = time.monotonic()
        while not done.wait(1.0):
            nodes, seldepth = self.searcher.progress()
            elapsed = time.monotonic() - start
            on_info(Info(depth=0, seldepth=seldepth, nodes=nodes, time_ms=int(elapsed * 1000),
                         nps=int(nodes / elapsed) if elapsed > 0 else 0,
                         hashfull=self.searcher.hashfull()))

    def _search(self, limits: Limits, on_info) -> SearchResult:
        board = self.board
        if self.book is not None and not (limits.infinite or limits.ponder):
            move = self.book.choose(board.fen())
            if move is not None:
                move = board.parse_uci(move)     # castling in this board's notation
                return SearchResult(move, None, Score(cp=0), 0, 0, 0, [move])
        budget = self._budget(limits)
        if limits.received is not None:
            budget = budget.after(time.monotonic() - limits.received)
        mode = self._search_mode_for(limits)
        budget_nodes = 0.0
        if mode == "budget":
            if limits.nodes:
                budget_nodes = float(limits.nodes)
            elif budget.soft:
                budget_nodes = budget.soft * self.nps_estimate
            else:
                budget_nodes = float(self.budget_nodes)
        pawn_unit = self.searcher.pawn_unit
        node_limit = max(limits.nodes, 1) if limits.nodes is not None else 0
        multipv = self.multipv
        # A strength level sees fewer nodes and keeps its best few moves to choose
        # from; analysis (infinite) stays at full strength.
        level = self.skill < levels.MAX_SKILL and not limits.infinite
        if level:
            level_nodes = levels.nodes_for(self.skill)
            node_limit = min(node_limit, level_nodes) if node_limit else level_nodes
            multipv = max(multipv, levels.lines_for(self.skill))

        reported = {"nodes": None}

        def report(raw):
            if on_info is None:
                return
            reported["nodes"] = raw["nodes"]
            t = raw["time"]
            for i, (score, pv) in enumerate(raw["lines"][:self.multipv], start=1):
                on_info(Info(depth=raw["depth"], seldepth=raw["seldepth"], nodes=raw["nodes"],
                             time_ms=int(t * 1000), nps=int(raw["nodes"] / t) if t > 0 else 0,
                             hashfull=raw["hashfull"], multipv=i,
                             score=Score.from_internal(score, pawn_unit), pv=pv,
                             string=raw.get("string", "")))

        searchmoves = limits.searchmoves or None
        with self._clock:
            if not (limits.ponder and self._ponderhit.is_set()):
                self.searcher.set_time_limits(budget.soft, budget.hard)
        if mode == "ga":
            raw = ga_search(self.searcher, board, node_limit, searchmoves=searchmoves,
                            level=self.ga_init_level, pool_nodes=self.ga_nodes, on_iteration=report,
                            keep_time_limits=True)
        else:
            # Only a soft limit planned from a game clock is a guess worth scaling: `go
            # movetime` and the node and depth limits mean exactly what they say.
            clocked = mode == "iterative" and limits.is_timed() and limits.movetime is None \
                and not limits.infinite
            raw = self.searcher.search(
                board, max_depth=max(limits.depth, 1) if limits.depth is not None
                else (2 * limits.mate + 1 if limits.mate else 126),
                node_limit=node_limit, searchmoves=searchmoves, multipv=multipv, mode=mode,
                budget_nodes=budget_nodes, mate=limits.mate or 0, on_iteration=report,
                keep_time_limits=True, soft_scale=SoftScaling(self.time_factors) if clocked else None)
        if reported["nodes"] is not None and raw["nodes"] != reported["nodes"] and raw["depth"]:
            # Stopped inside an iteration (a node limit, the clock, `stop`): the last
            # line again with every node searched, so that a GUI's count is the search's.
            report(raw)
        if raw["time"] > 0.05 and raw["nodes"] > 1000:
            self.nps_estimate = raw["nodes"] / raw["time"]
        score, pv = raw["lines"][0] if raw["lines"] else (0, [])
        if level and len(raw["lines"]) > 1:
            score, pv = self._level_choice(raw["lines"], pawn_unit)
        return SearchResult(bestmove=pv[0] if pv else None, ponder=pv[1] if len(pv) > 1 else None,
                            score=Score.from_internal(score, pawn_unit), depth=raw["depth"],
                            nodes=raw["nodes"], time_ms=int(raw["time"] * 1000), pv=pv)

    def _level_choice(self, lines, pawn_unit: float):
        """The line a strength level plays among the search's best lines (each move
        once: a stopped iteration's lines are completed from the previous one's)."""
        seen, distinct = set(), []
        for score, pv in lines:
            if pv and pv[0] not in seen:
                seen.add(pv[0])
                distinct.append((score, pv))
        distinct.sort(key=lambda line: -line[0])
        scored = [(score * 100 / pawn_unit, pv[0]) for score, pv in distinct]
        return distinct[levels.choose(scored, levels.temperature_for(self.skill), self.level_rng)]
