"""Reading, writing and choosing genomes in Genetic Chess genome files.

A file holds genomes (`ID: n`, `Name:` blocks of `key: value` lines separated by
blank lines, `END`; `#` lines are comments) and, in gene-pool files written by a
trainer, `Still Alive: <pool> : <id> <id> ...` lines; the last such line of each
pool is current. A
genome of another evaluation kind names it on the line after `ID:` (`Kind:
material`) and its block, up to `END`, is read by that kind's class (kinds.py).

Design trade-off: the parser is strict and stops at the first problem with a
`path:line: problem` message, instead of skipping what it does not understand.
A typo in a hand-edited genome then fails loudly rather than silently playing
with a default value. The file is kept as an ordered list of records (genomes and
Still Alive lines), so a file we wrote is written back byte for byte.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .genes import GENE_CLASSES, GENES_BY_NAME, Gene, GenomeError, quote
from .database import is_sqlite_file, load_chromosome
from .genome import Genome
from .kinds import kind_class

GENOMES_DIR = Path(__file__).resolve().parent.parent / "genomes"
# The hand-set Genetic Chess genome: every gene on, the reference workload of
# `genchess bench` and the genome the search's changes are measured with.
HAND_SET_GENOME_PATH = GENOMES_DIR / "default.genome"
# What GenChess plays when no genome is named: the evolved genome, which beat the
# hand-set one by SPRT at 10+0.1 (docs/strength.md, "The evolved genome").
DEFAULT_GENOME_PATH = GENOMES_DIR / "evolved.genome"


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
    """Line-by-line state machine: outside a genome, inside one, inside a gene."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.records: list[Genome | StillAlive] = []
        self.id_lines: dict[int, int] = {}  # genome ID -> line of its ID:
        self.genome_id: int | None = None  # the open genome, None when outside
        self.genes: dict[type[Gene], Gene] = {}
        self.gene_lines: dict[type[Gene], int] = {}
        self.gene_class: type[Gene] | None = None  # the open gene
        self.gene_line = 0
        self.items: dict[str, tuple[str, int]] = {}
        self.kind: type | None = None  # the open genome's class when not Genetic Chess
        self.kind_line = 0
        self.kind_lines: list[tuple[int, str]] = []

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
            return
        if colon and key == "Kind" and not self.genes and self.gene_class is None and self.kind is None:
            cls = kind_class(rest, self.path, n)
            if cls is not Genome:
                self.kind, self.kind_line, self.kind_lines = cls, n, []
        elif self.kind is not None:
            self.feed_kind(n, line, key, colon)
        elif not line:
            self.close_gene()
        elif line == "END":
            self.close_gene()
            self.close_genome(n)
        elif colon and key in ("ID", "Still Alive"):
            raise self.error(n, f"genome {self.genome_id} has no END before this '{key}:' line")
        elif colon and key == "Kind":
            raise self.error(n, "'Kind:' must come right after 'ID:'")
        elif colon and key == "Name":
            self.close_gene()
            self.open_gene(n, rest)
        elif not colon:
            raise self.error(n, f"expected 'key: value', got {quote(line)}")
        elif self.gene_class is None:
            raise self.error(n, f"expected 'Name:' or END, got {quote(line)}")
        elif key in self.items:
            first = self.items[key][1]
            raise self.error(n, f"{self.gene_class.NAME}: duplicated key '{key}' (first at line {first})")
        else:
            self.items[key] = (rest, n)

    def feed_kind(self, n: int, line: str, key: str, colon: str) -> None:
        """A line of a genome of another kind: kept for its class until END."""
        if line == "END":
            self.records.append(self.kind.from_lines(self.genome_id, self.kind_lines, self.path, self.kind_line))
            self.genome_id, self.kind = None, None
        elif colon and key in ("ID", "Still Alive", "Kind"):
            raise self.error(n, f"genome {self.genome_id} has no END before this '{key}:' line")
        else:
            self.kind_lines.append((n, line))

    def open_genome(self, n: int, text: str) -> None:
        if not re.fullmatch(r"[0-9]+", text):
            raise self.error(n, f"ID must be a non-negative integer, got {quote(text)}")
        genome_id = int(text)
        if genome_id in self.id_lines:
            raise self.error(n, f"duplicated genome ID {genome_id} (first at line {self.id_lines[genome_id]})")
        self.id_lines[genome_id] = n
        self.genome_id = genome_id
        self.genes, self.gene_lines = {}, {}

    def open_gene(self, n: int, name: str) -> None:
        cls = GENES_BY_NAME.get(name)
        if cls is None:
            raise self.error(n, f"unknown gene {quote(name)}")
        if cls in self.gene_lines:
            raise self.error(n, f"duplicated gene '{name}' (first at line {self.gene_lines[cls]})")
        self.gene_class, self.gene_line, self.items = cls, n, {}
        self.gene_lines[cls] = n

    def close_gene(self) -> None:
        if self.gene_class is not None:
            self.genes[self.gene_class] = self.gene_class.read(self.items, self.path, self.gene_line)
            self.gene_class = None

    def close_genome(self, n: int) -> None:
        missing = [f"'{cls.NAME}'" for cls in GENE_CLASSES if cls not in self.genes]
        if missing:
            genes = "gene" if len(missing) == 1 else "genes"
            raise self.error(n, f"genome {self.genome_id}: missing {genes} {', '.join(missing)}")
        self.records.append(Genome(self.genome_id, self.genes.values()))
        self.genome_id = None

    def still_alive(self, n: int, text: str) -> None:
        match = re.fullmatch(r"([0-9]+)\s*:\s*([0-9]+(?:\s+[0-9]+)*)", text)
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
    return parse_genome_text(text, str(path))


def read_genomes(path: str | Path) -> list[Genome]:
    return read_genome_file(path).genomes


def count_wins(games_path: str | Path) -> Counter:
    """Wins per genome ID in a PGN file, the ID being the last word of a player's name.

    Only the White, Black and Result tags are read, so the movetext can be anything.
    A player whose name does not end in a number is not a genome and is ignored.
    """
    wins: Counter = Counter()
    tags: dict[str, str] = {}

    def end_of_tags() -> None:
        winner = {"1-0": "White", "0-1": "Black"}.get(tags.get("Result", ""))
        if winner:
            last_word = tags.get(winner, "").rsplit(" ", 1)[-1]
            if last_word.isdigit():
                wins[int(last_word)] += 1
        tags.clear()

    # A game's tags are a run of consecutive `[Tag "value"]` lines; the first other
    # line (blank or movetext) ends the run.
    for line in Path(games_path).read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.fullmatch(r'\s*\[(\w+)\s+"(.*)"\]\s*', line)
        if match:
            tags[match.group(1)] = match.group(2)
        elif tags:
            end_of_tags()
    if tags:
        end_of_tags()
    return wins


def load_genome(path: str | Path, genome_id: int | None = None) -> Genome:
    """The genome to play with from a genome file.

    A SQLite file is a Phoenix chromosome database (database.py): the chromosome
    with that ID, or the best of the last complete generation. With an ID: that
    genome. Without: in a gene-pool file, the smallest ID still
    alive in any pool; else, if `<path>_games.txt` exists, the last genome in the
    file with at least three wins there; else the last genome in the file.
    """
    if is_sqlite_file(path):
        return load_chromosome(path, genome_id)
    genome_file = read_genome_file(path)
    if genome_id is not None:
        genome = genome_file.find(genome_id)
        if genome is None:
            raise GenomeError.at(str(path), None, f"no genome with ID {genome_id}")
        return genome
    alive = genome_file.alive
    if alive:
        return genome_file.find(min(min(ids) for ids in alive.values()))
    games_path = Path(f"{path}_games.txt")
    if games_path.exists():
        wins = count_wins(games_path)
        for genome in reversed(genome_file.genomes):
            if wins[genome.id] >= 3:
                return genome
    return genome_file.genomes[-1]


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


def hand_set_genome() -> Genome:
    """The hand-set Genetic Chess genome, genomes/default.genome (a fresh copy)."""
    return load_genome(HAND_SET_GENOME_PATH)
