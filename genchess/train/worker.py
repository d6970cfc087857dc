"""One game in a worker process: the unit of work the trainer hands to an executor.

Jobs and results are small plain dataclasses (genomes of any kind travel as
their file text; a game has a clock or a fixed depth per move) so any
`concurrent.futures.Executor` can run them: a local process pool today, a cluster
executor (e.g. dask.distributed's `Client.get_executor()`) tomorrow. Each worker
process keeps its two engines between games; only their genomes change.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass

from genchess.engine import Engine
from genchess.genome import parse_genome_text
from genchess.match import EnginePlayer, GameRecord, TimeControl, play_game

HASH_MB = 8
MOVE_OVERHEAD_MS = 5      # in-process games lose no time to pipes or GUIs

# Per thread, not per process: an executor may run several games in one process's
# threads (a thread pool, dask), and an engine plays one game at a time.
_local = threading.local()


@dataclass
class GameJob:
    round: int
    pool: int
    white_id: int
    black_id: int
    white_genome: str
    black_genome: str
    start_fen: str | None
    seconds: float              # per side; unused when depth is set
    search_mode: str
    increment: float = 0.0      # seconds added per move
    depth: int | None = None    # fixed search depth per move instead of a clock


@dataclass
class GameResult:
    job: GameJob
    record: GameRecord
    search_seconds: float       # wall time the two engines spent choosing moves


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


def play_job(job: GameJob) -> GameResult:
    white_engine, black_engine = engines_for(job.search_mode)
    white_engine.set_genome(parse_genome_text(job.white_genome).genomes[0])
    black_engine.set_genome(parse_genome_text(job.black_genome).genomes[0])
    white = EnginePlayer(white_engine, f"GenChess {job.white_id}", depth=job.depth)
    black = EnginePlayer(black_engine, f"GenChess {job.black_id}", depth=job.depth)
    spent = [0.0]

    def on_move(board, move, used, clock):
        spent[0] += used

    control = None if job.depth else TimeControl(job.seconds, job.increment)
    record = play_game(white, black, job.start_fen, control, on_move=on_move)
    return GameResult(job, record, spent[0])
