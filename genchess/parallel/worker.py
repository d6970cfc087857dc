"""One game in a worker process: the unit of work the trainer hands to an executor.

Jobs and results are small plain dataclasses (genomes of any kind travel as
their file text; a game has a clock, or a fixed depth or node count per move) so any
`concurrent.futures.Executor` can run them (executors.py: a local process pool or
a dask.distributed cluster, which pickles them to its workers); results come
back as JSON (plain.py, where these types are registered), never as pickles. Each worker
process keeps its two engines between games; only their genomes change.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass

from genchess.engine import Engine
from genchess.game import EnginePlayer, GameRecord, TimeControl, play_game
from genchess.genome import parse_genome_text
from genchess.parallel.plain import plain_type
from genchess_core.searcher import ALL_FEATURES

HASH_MB = 8
MOVE_OVERHEAD_MS = 5      # in-process games lose no time to pipes or GUIs

# Per thread, not per process: an executor may run several games in one process's
# threads (a thread pool, dask), and an engine plays one game at a time.
_local = threading.local()


@plain_type
@dataclass(kw_only=True)
class GameJob:
    """One game; keyword-only, since most of its fields are numbers that a position
    would let slip into one another. `GameJob.between(white, black, ...)` is a game
    between two genomes."""
    white_id: int
    black_id: int
    white_genome: str           # the genomes' file text: any kind, and cheap to pickle
    black_genome: str
    start_fen: str | None = None        # None: the standard start position
    round: int = 0              # where the trainer's records put the game (-1: a champion game)
    pool: int = 0
    seconds: float = 0.0        # per side, on a clock; unused with a fixed depth
    search_mode: str = "iterative"
    increment: float = 0.0      # seconds added per move
    depth: int | None = None    # a fixed depth per move and no clock (deterministic players)
    features: int = ALL_FEATURES        # the search's heuristics (e.g. KENDALL_WHITWELL_FEATURES)
    quiescence_cap: float = 0.0         # quiescence ends at this many times the depth; 0: never
    nodes: int | None = None    # a fixed node count per move and no clock (deterministic players)
    chess960: bool = False      # played by Chess960's rules: castling written king-takes-rook

    @classmethod
    def between(cls, white, black, **settings) -> GameJob:
        """A game of genome `white` against genome `black` (any kind), the rest of the
        job (start, clock or depth, search) given by keyword."""
        return cls(white_id=white.id, black_id=black.id, white_genome=white.to_text(),
                   black_genome=black.to_text(), **settings)


@plain_type
@dataclass
class GameResult:
    job: GameJob
    record: GameRecord
    search_seconds: float       # wall time the two engines spent choosing moves


plain_type(GameRecord)        # (a GameResult's record)


def init_worker() -> None:
    # The trainer process decides about Ctrl-C and Ctrl-Z; a worker must neither
    # die mid-game nor freeze with its clock running.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTSTP"):
        signal.signal(signal.SIGTSTP, signal.SIG_IGN)


def engines_for(mode: str) -> tuple[Engine, Engine]:
    engines = _local.__dict__.setdefault("engines", {})
    if mode not in engines:
        engines[mode] = tuple(Engine(hash_mb=HASH_MB, search_mode=mode,
                                     move_overhead_ms=MOVE_OVERHEAD_MS) for _ in range(2))
    return engines[mode]


def play_job(job: GameJob, on_score=None) -> GameResult:
    white_engine, black_engine = engines_for(job.search_mode)
    for engine, text in ((white_engine, job.white_genome), (black_engine, job.black_genome)):
        # Engines are reused between jobs: every job sets its whole search configuration.
        engine.set_genome(parse_genome_text(text).genomes[0])
        engine.searcher.features = job.features
        engine.searcher.quiescence_cap = job.quiescence_cap
    white = EnginePlayer(white_engine, f"GenChess {job.white_id}", depth=job.depth, nodes=job.nodes)
    black = EnginePlayer(black_engine, f"GenChess {job.black_id}", depth=job.depth, nodes=job.nodes)
    spent = [0.0]

    def on_move(board, move, used, clock):
        spent[0] += used
        if on_score is not None:        # the mover's search score, centipawns (the set maker's labels)
            on_score((black if board.turn == "w" else white).last_cp)

    control = None if job.depth or job.nodes else TimeControl(job.seconds, job.increment)
    record = play_game(white, black, job.start_fen, control, on_move=on_move, chess960=job.chess960)
    return GameResult(job, record, spent[0])
