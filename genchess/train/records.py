"""The trainers' append-only run files: the gene pool file (and Kendall-Whitwell's
population file, of the same form), their games files, and the torn tail that
every append-only record shares (evolve's records too).

They are append-only and every record is written with one write() and flushed,
so a run killed at any instant (even kill -9) leaves complete records followed
by at most one torn record; a write that fails (a full disk) is cut off again,
leaving the file as it was (genchess.files.AppendFile). On resume the torn tail is detected, reported, moved
aside to `<file>.torn` (nothing is thrown away) and cut off, so the files stay
valid for the engine, the plotter and any PGN reader. Which genome a run file
plays (`genchess --genome FILE`) is read by genchess.genome.run_files, which
loads no trainer.

Order of writes for a finished game: the offspring's genome first, then the game.
A game in the games file therefore always finds its offspring in the pool file;
a genome whose game never got written is an orphan that simply never lived.
"""

from __future__ import annotations

import io
import pickle
import re
from dataclasses import dataclass
from pathlib import Path

from genchess.console import whole_number
# (AppendFile: each record whole or not at all, a failed write naming its file)
from genchess.files import AppendFile  # noqa: F401
from genchess.genome import Genome, GenomeFile, StillAlive, parse_genome_text
from genchess.train.config import ConfigError

HEADER = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


@dataclass
class TornTail:
    path: Path
    offset: int             # where the torn record starts
    text: str
    line: int

    def describe(self) -> str:
        first = self.text.strip().splitlines()[0] if self.text.strip() else "(blank)"
        return (f"{self.path}:{self.line}: the last record is incomplete (the run was stopped "
                f"while writing it: {first[:60]!r}); moved it to {self.path}.torn")


def split_complete(path: Path, text: str, is_end) -> tuple[str, TornTail | None]:
    """Cut `text` after the last line for which is_end(line) holds."""
    lines = text.splitlines(keepends=True)
    end = 0
    offset = 0
    good_bytes = 0
    for i, line in enumerate(lines):
        offset += len(line.encode("utf-8"))
        if is_end(line.rstrip("\r\n")) and line.endswith("\n"):
            end = i + 1
            good_bytes = offset
        elif end == i and not line.strip() and line.endswith("\n"):
            # Blank lines after a record belong to it (PGN needs the one between games).
            end = i + 1
            good_bytes = offset
    rest = "".join(lines[end:])
    if not rest.strip():
        return text, None
    return "".join(lines[:end]), TornTail(path, good_bytes, rest, end + 1)


def set_aside(torn: TornTail) -> None:
    """Move a torn tail to <file>.torn and truncate the file before it."""
    with open(str(torn.path) + ".torn", "a", encoding="utf-8") as aside:
        aside.write(torn.text if torn.text.endswith("\n") else torn.text + "\n")
    with open(torn.path, "r+b") as f:
        f.truncate(torn.offset)


def move_aside(path: Path, text: str) -> Path:
    """Append `text` (the whole file) to <path>.torn and remove the file: for a run
    stopped while writing its first records, which then starts afresh."""
    aside = Path(str(path) + ".torn")
    with open(aside, "a", encoding="utf-8") as f:
        f.write(text)
    path.unlink()
    return aside


def is_pool_record_end(line: str) -> bool:
    return line.strip() == "END" or line.startswith("Still Alive:")


def read_complete_genomes(path: Path) -> GenomeFile:
    """A pool or genomes file's complete records as a GenomeFile: a torn tail (a run
    writing it now, or killed while it did) is skipped, the file left untouched."""
    text = path.read_text(encoding="utf-8")
    good, _ = split_complete(path, text, is_pool_record_end)
    return parse_genome_text(good, str(path))


def genomes_by_id(genome_file: GenomeFile) -> list[Genome]:
    """The file's genomes in order of birth (ID)."""
    return sorted(genome_file.genomes, key=lambda g: g.id)


@dataclass
class PoolFileState:
    genomes: dict[int, Genome]
    alive_history: list[dict[int, tuple[int, ...]]]     # pool -> ids, one dict per complete round
    torn: TornTail | None = None
    pools_seen: int = 0                                 # 1 + the highest pool index in the file


def read_pool_file(path: Path, pool_count: int) -> PoolFileState:
    """Genomes and the round-by-round snapshots of who is alive.

    A snapshot is the Still Alive lines of pools 0 .. pool_count-1 in a row; one cut
    short by a kill (a pool 0 line comes again before the last pool's) is dropped,
    so the round it closed counts as interrupted and is replayed from the games file."""
    text = path.read_text(encoding="utf-8")
    good, torn = split_complete(path, text, is_pool_record_end)
    parsed = parse_genome_text(good, str(path))
    genomes = {g.id: g for g in parsed.genomes}
    history: list[dict[int, tuple[int, ...]]] = []
    current: dict[int, tuple[int, ...]] = {}
    pools_seen = 0
    for record in parsed.records:
        if not isinstance(record, StillAlive):      # a genome, of whatever kind
            continue
        pools_seen = max(pools_seen, record.pool + 1)
        if record.pool == 0:
            current = {}
        current[record.pool] = record.ids
        if len(current) == pool_count and sorted(current) == list(range(pool_count)):
            history.append(current)
            current = {}
    return PoolFileState(genomes, history, torn, pools_seen)


@dataclass
class GameHeaders:
    headers: dict[str, str]
    movetext: str = ""

    def get_int(self, key: str) -> int | None:
        return whole_number(self.headers.get(key, ""))


def read_games_file(path: Path) -> tuple[list[GameHeaders], TornTail | None]:
    """Headers of every complete game, and the torn tail if the last one is cut."""
    if not path.exists():
        return [], None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file (a games file of a run?)") from None

    def is_end(line):
        tokens = line.split()
        return bool(tokens) and not line.startswith("[") and tokens[-1] in RESULTS

    good, torn = split_complete(path, text, is_end)
    games: list[GameHeaders] = []
    headers: dict[str, str] = {}
    movetext: list[str] = []
    for line in good.splitlines():
        match = HEADER.match(line)
        if match:
            headers[match.group(1)] = match.group(2)
        elif line.strip():
            movetext.append(line)
            if is_end(line) and headers:
                games.append(GameHeaders(headers, " ".join(movetext)))
                headers, movetext = {}, []
    return games, torn


# Optimisers an older run's state pickled whole, under the names they had before
# genchess/optimise/ (2026-12): read under their new ones, so that such a run resumes.
MOVED_CLASSES = {
    ("genchess.train.evolve", "GeneticAlgorithm"): ("genchess.optimise.evolution", "GeneticAlgorithm"),
    ("genchess.fitness.gradient", "Adam"): ("genchess.optimise.adam", "Adam"),
    **{("genchess.fitness.spsa", name): ("genchess.optimise.spsa", name)
       for name in ("Spsa", "SpsaParameter", "SpsaSchedule")},
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        return super().find_class(*MOVED_CLASSES.get((module, name), (module, name)))


def read_state(path: Path, keys: tuple[str, ...]) -> dict:
    """A trainer's saved state (`<run file>_state.pickle`, written whole by
    write_atomically), which must hold `keys`. A torn, foreign or damaged file is a
    ConfigError naming it, whatever the unpickler tripped on: the records beside it
    are intact, only the resume is impossible."""
    try:
        state = _Unpickler(io.BytesIO(Path(path).read_bytes())).load()
    except OSError:
        raise
    except Exception as e:
        raise ConfigError(f"{path}: cannot be read ({type(e).__name__}); the records are "
                          f"intact, but the run cannot resume from it") from None
    missing = [key for key in keys if not isinstance(state, dict) or key not in state]
    if missing:
        raise ConfigError(f"{path}: not a state file of this run (no {missing[0]!r}); the "
                          f"records are intact, but the run cannot resume from it")
    return state
