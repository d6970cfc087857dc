"""Reading and writing genome files, the format of the Genetic Chess design.

A file holds genomes, each a block from `ID: n` to `END` (`#` lines are comments),
and, in files a trainer writes, `Still Alive: <pool> : <id> <id> ...` lines; the
last such line of each pool is current. A block may name its evaluation kind on
the line after `ID:` (`Kind: material`); without one it is a Genetic Chess genome
(`Name:` paragraphs of `key: value` lines). Whatever the kind, the framing is read
here and the block's lines by the kind's class (kinds.py), so every kind is read,
and reports its errors, the same way.

Design trade-off: the parser is strict and stops at the first problem with a
`path:line: problem` message, instead of skipping what it does not understand.
A typo in a hand-edited genome then fails loudly rather than silently playing
with a default value. The file is kept as an ordered list of records (genomes and
Still Alive lines), so a file we wrote is written back byte for byte.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from genchess.files import package_file

from .genome import Genome
from .kinds import GenomeError, kind_class, quote
from .search_genes import is_search_line, read_search_line

GENOMES_DIR = package_file("genomes")
# The hand-set Genetic Chess genome: every gene on, the reference workload of
# `genchess bench` and the genome the search's changes are measured with.
HAND_SET_GENOME_PATH = GENOMES_DIR / "default.genome"
# What GenChess plays when no genome is named: the network trained on its two
# predecessors' own games (network-5m.genome's and network-9m.genome's), which beat the
# last of them by SPRT at 10+0.1 and held the gauntlet against engines no one here wrote
# (docs/network.md).
DEFAULT_GENOME_PATH = GENOMES_DIR / "network.genome"
# What the strength levels play in place of the default genome: their ratings
# (levels.CALIBRATION) were measured with it, and a stronger evaluation searching the same
# node budgets would play above the rating each level names.
LEVELS_GENOME_PATH = GENOMES_DIR / "unified.genome"


@dataclass
class StillAlive:
    pool: int
    ids: tuple[int, ...]
    line: int = field(default=0, compare=False)

    def to_text(self) -> str:
        return f"Still Alive: {self.pool} : {' '.join(map(str, self.ids))}\n"


@dataclass
class GenomeFile:
    path: str
    records: list[Genome | StillAlive]

    @property
    def genomes(self) -> list[Genome]:
        """Every genome in file order, whatever its kind."""
        return [r for r in self.records if not isinstance(r, StillAlive)]

    @property
    def alive(self) -> dict[int, tuple[int, ...]]:
        """IDs still alive in each pool, from the last Still Alive line of the pool."""
        return {r.pool: r.ids for r in self.records if isinstance(r, StillAlive)}

    def find(self, genome_id: int) -> Genome | None:
        return next((g for g in self.genomes if g.id == genome_id), None)

    def to_text(self) -> str:
        return "".join(r.to_text() for r in self.records)


class _Parser:
    """Line-by-line state machine for the file's framing, the same for every kind:
    outside a genome, or inside one collecting its block for its kind's class."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.records: list[Genome | StillAlive] = []
        self.id_lines: dict[int, int] = {}  # genome ID -> line of its ID:
        self.genome_id: int | None = None  # the open genome, None when outside
        self.kind: type = Genome           # the open genome's class (no Kind: line: Genetic Chess)
        self.kind_line = 0                 # its Kind: line, else its ID: line
        self.block: list[tuple[int, str]] = []
        self.search: dict[str, int] = {}    # the open genome's search genes (any kind)

    def error(self, line: int | None, problem: str) -> GenomeError:
        return GenomeError.at(self.path, line, problem)

    def feed(self, n: int, line: str) -> None:
        key, colon, rest = line.partition(":")
        key, rest = key.strip(), rest.strip()
        if self.genome_id is None:
            if not line or line.lstrip().startswith("#"):    # comments between genomes
                return
            if colon and key == "ID":
                self.open_genome(n, rest)
            elif colon and key == "Still Alive":
                self.still_alive(n, rest)
            else:
                raise self.error(n, f"text outside a genome: {quote(line)}")
        elif colon and key in ("ID", "Still Alive"):
            raise self.error(n, f"genome {self.genome_id} has no END before this '{key}:' line")
        elif colon and key == "Kind":
            if self.kind_line != self.id_lines[self.genome_id] or any(text for _, text in self.block):
                raise self.error(n, "'Kind:' must come right after 'ID:'")
            self.kind, self.kind_line = kind_class(rest, self.path, n), n
        elif line == "END":
            genome = self.kind.from_lines(self.genome_id, self.block, self.path, self.kind_line, n)
            genome.search = self.search
            self.records.append(genome)
            self.genome_id = None
        elif colon and is_search_line(key):
            read_search_line(key, rest, self.path, n, self.search)
        else:
            self.block.append((n, line))

    def open_genome(self, n: int, text: str) -> None:
        if not re.fullmatch(r"[0-9]{1,18}", text):
            raise self.error(n, f"ID must be a non-negative integer (at most 18 digits), got {quote(text)}")
        genome_id = int(text)
        if genome_id in self.id_lines:
            raise self.error(n, f"duplicated genome ID {genome_id} (first at line {self.id_lines[genome_id]})")
        self.id_lines[genome_id] = n
        self.genome_id, self.kind, self.kind_line, self.block = genome_id, Genome, n, []
        self.search = {}

    def still_alive(self, n: int, text: str) -> None:
        match = re.fullmatch(r"([0-9]{1,18})\s*:\s*([0-9]{1,18}(?:\s+[0-9]{1,18})*)", text)
        if not match:
            raise self.error(n, f"expected 'Still Alive: <pool> : <id> <id> ...', got {quote(text)}")
        ids = tuple(int(i) for i in match.group(2).split())
        self.records.append(StillAlive(int(match.group(1)), ids, n))

    def finish(self, last_line: int) -> GenomeFile:
        if self.genome_id is not None:
            raise self.error(last_line, f"genome {self.genome_id} has no END (end of file)")
        if not self.id_lines:
            raise self.error(None, "no genomes in file")
        # Checked at the end: what matters is that the file holds every listed genome.
        for record in self.records:
            if isinstance(record, StillAlive):
                unknown = [i for i in record.ids if i not in self.id_lines]
                if unknown:
                    raise self.error(record.line, f"Still Alive lists ID {unknown[0]}, which is not in the file")
        return GenomeFile(self.path, self.records)


def parse_genome_text(text: str, path: str = "<text>") -> GenomeFile:
    """Parse the text of a genome file; `path` is only used in error messages."""
    parser = _Parser(path)
    n = 0
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line.startswith("#"):        # comments: a hand-written genome cites its source
            parser.feed(n, line)
    return parser.finish(n)


def read_genome_file(path: str | Path) -> GenomeFile:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise GenomeError.at(str(path), None, "not a UTF-8 text file") from None
    except OSError as e:
        raise GenomeError(f"cannot read genome file {path}: {e.strerror}") from None
    return parse_genome_text(text, str(path))


def read_genomes(path: str | Path) -> list[Genome]:
    return read_genome_file(path).genomes


def load_genome(path: str | Path, genome_id: int | None = None) -> Genome:
    """A genome of a genome file: the one with that ID, else the file's last.

    (What `--genome` plays from a trainer's run file, a gene pool or a chromosome
    database, is run_files.open_genome's to say.)
    Every failure, an unreadable file included, is a GenomeError naming the file."""
    genome_file = read_genome_file(path)
    if genome_id is None:
        return genome_file.genomes[-1]
    genome = genome_file.find(genome_id)
    if genome is None:
        raise GenomeError.at(str(path), None, f"no genome with ID {genome_id}")
    return genome


def write_genome(genome: Genome, fileobj: IO[str]) -> None:
    # Flushed per record: trainer files are append-only and must survive a kill.
    fileobj.write(genome.to_text())
    fileobj.flush()


def write_still_alive(pool: int, ids: list[int], fileobj: IO[str]) -> None:
    if not ids:
        raise ValueError("a Still Alive line needs at least one ID")
    fileobj.write(StillAlive(pool, tuple(ids)).to_text())
    fileobj.flush()


def default_genome() -> Genome:
    """What GenChess plays when no genome is named (a fresh copy on every call)."""
    return load_genome(DEFAULT_GENOME_PATH)


# The default genome read once, for comparisons only (never handed out: genomes are mutable).
_shipped_default = functools.cache(default_genome)


def is_default_genome(genome: Genome) -> bool:
    """Whether `genome` is the shipped default (however it was named: by default or by path)."""
    return genome == _shipped_default()


def levels_genome() -> Genome:
    """What a strength level plays when the default genome is chosen (a fresh copy)."""
    return load_genome(LEVELS_GENOME_PATH)


def hand_set_genome() -> Genome:
    """The hand-set Genetic Chess genome, genomes/default.genome (a fresh copy)."""
    return load_genome(HAND_SET_GENOME_PATH)
