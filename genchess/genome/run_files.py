"""Opening a genome by the name a user gives: a genome file, or a trainer's run file.

`open_genome(path, genome_id)` is what every `--genome`, the protocols' `Genome`
option, the players and the measuring commands call: no path is the default
genome; a trainer's run file is the genome that run plays (below); any other file
is a genome file (genome_file.load_genome: its last genome, or the one with the ID).
A bare name that is no file here is a shipped genome's (`unified-retuned` or
`unified-retuned.genome`: genchess/genomes/unified-retuned.genome), so an installed
GenChess's genomes are named without knowing where pip put them.

The run files are read here, in the genome package, although the trainers write
them: reading a run's best genome is a few pure, read-only lines (a file's first
line, the Still Alive lines, a wins count, one SQL query), and keeping them here
lets the protocols, the players and the matches open any genome without loading a
trainer. The trainers import their files' formats from the genome package (each
method's record lines from run_formats, the chromosome database's schema version
and its reader from here, which the trainer's writer extends), never the other
way round.

    a gene pool or population file   the smallest ID still alive in any pool; in a
                                     file without Still Alive lines that has a games
                                     file beside it, the last genome with three wins
    an evolve run's records          <file>_best.genome (with an ID: that
                                     generation's best, <file>_genomes.txt)
    a tune or network run's records  <file>_best.genome
    a chromosome database (SQLite)   the fittest of the last complete generation,
                                     or the chromosome with the ID

Every failure, whatever the file, is a GenomeError whose message names the file.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from genchess.console import shortened, whole_number

from .genome_file import GENOMES_DIR, default_genome, load_genome, parse_genome_text, read_genome_file
from .kinds import GenomeError
from .genome import Genome
from .pvt import PvtGenome
from .run_formats import EVOLVE_HEADER, NETWORK_HEADER, TUNE_HEADER

SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_VERSION = 1                            # of the chromosome database (train/chromosome_db.py)
DATABASE_TABLES = ("schema_version", "meta", "chromosomes", "population", "generations")


def open_genome(path: str | Path | None, genome_id: int | None = None, error: type | None = None):
    """The genome `path` names (None: the default genome), by `genome_id` where the
    file holds several. Every failure is a GenomeError naming the file, or with
    `error` that exception, same message: the caller's own kind of error (a
    protocol's option error, a player spelling's error)."""
    try:
        if path is None:
            if genome_id is not None:
                raise GenomeError(f"genome ID {genome_id} needs a genome file")
            return default_genome()
        path = shipped_genome_path(path)
        for reader in (database_genome, run_file_genome):
            genome = reader(Path(path), genome_id)
            if genome is not None:
                return genome
        return load_genome(path, genome_id)
    except GenomeError as e:
        if error is None:
            raise
        raise error(str(e)) from None


def shipped_genomes() -> list[str]:
    """The names of the genomes GenChess ships, without `.genome`."""
    return sorted(p.stem for p in GENOMES_DIR.glob("*.genome"))


def shipped_genome_path(path: str | Path) -> Path:
    """`path` itself where it names a file (or a folder, or has one in it), else the
    shipped genome of that name; a name that is neither is refused with the shipped
    names, where a user most likely meant one of them."""
    path = Path(path)
    if path.exists() or len(path.parts) != 1:
        return path
    name = path.name.removesuffix(".genome")
    if name in shipped_genomes():
        return GENOMES_DIR / f"{name}.genome"
    raise GenomeError(f"cannot read genome file {path}: no such file, nor a shipped genome "
                      f"of that name ({', '.join(shipped_genomes())})")


# ------------------------------------------------------------------ gene pool, kendall, evolve

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
            genome_id = whole_number(tags.get(winner, "").rsplit(" ", 1)[-1])
            if genome_id is not None and genome_id >= 0:
                wins[genome_id] += 1
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


def run_file_genome(path: Path, genome_id: int | None):
    """The genome a gene pool, population, evolve or tune run file plays (see the module's
    table); None for any other file, and when an ID is asked for of a genome file:
    the genome loader answers those (and reports their errors)."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return None
    if first.startswith(EVOLVE_HEADER):
        if genome_id is None:
            return load_genome(Path(f"{path}_best.genome"))
        return load_genome(Path(f"{path}_genomes.txt"), genome_id)
    if first.startswith(TUNE_HEADER) or first.startswith(NETWORK_HEADER):
        return load_genome(Path(f"{path}_best.genome"))
    if genome_id is not None:
        return None
    try:
        genome_file = read_genome_file(path)
    except (GenomeError, OSError):
        return None
    alive = genome_file.alive
    if alive:
        return genome_file.find(min(min(ids) for ids in alive.values()))
    games_path = Path(f"{path}_games.txt")
    if games_path.exists():
        wins = count_wins(games_path)
        for genome in reversed(genome_file.genomes):
            if wins[genome.id] >= 3:
                return genome
    return None


# ------------------------------------------------------------------ multi-niche crowding

class DatabaseError(GenomeError):
    """A chromosome database that cannot be used; the message names the file."""


@dataclass
class GenerationSummary:
    generation: int
    best: int
    best_fitness: float
    mean_fitness: float
    niches: int
    games: int
    seconds: float


def is_sqlite_file(path: str | Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


class ChromosomeReader:
    """A chromosome database opened to read: it changes nothing in the file. The
    trainer's ChromosomeDB (train/chromosome_db.py) extends it with the writing."""

    may_create = False          # a writer may create the file (create_tables)

    def __init__(self, path: str | Path):
        self.path = Path(path)
        exists = self.path.exists() and self.path.stat().st_size > 0
        if not exists and not self.may_create:
            raise DatabaseError(f"{self.path}: no such chromosome database")
        if exists and not is_sqlite_file(self.path):
            raise DatabaseError(f"{self.path}: not a SQLite database (a chromosome database "
                                f"starts with the SQLite header)")
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None)
            if not exists:
                self.create_tables()
            self.check_schema()
            self.opened(exists)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as e:    # a damaged text cell: the latter
            raise DatabaseError(f"{self.path}: damaged or unreadable SQLite database "
                                f"({shortened(str(e))})") from None

    def create_tables(self) -> None:
        """A writer's: the schema of a new database."""
        raise NotImplementedError

    def opened(self, existed: bool) -> None:
        """A writer's: what it sets on the connection once the file is known to be ours."""

    def check_schema(self) -> None:
        names = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in names:
            raise DatabaseError(f"{self.path}: a SQLite database but not a GenChess chromosome "
                                f"database (no schema_version table)")
        row = self.conn.execute("SELECT version FROM schema_version").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            raise DatabaseError(f"{self.path}: chromosome database schema version "
                                f"{shortened(str(row[0]), 40) if row else 'missing'}, this GenChess reads version "
                                f"{SCHEMA_VERSION}")
        missing = set(DATABASE_TABLES) - names
        if missing:
            raise DatabaseError(f"{self.path}: chromosome database lacks table(s) "
                                f"{', '.join(sorted(missing))}")

    def close(self) -> None:
        self.conn.close()

    def query(self, sql: str, args=()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
            raise DatabaseError(f"{self.path}: damaged chromosome database ({shortened(str(e))})") from None

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM meta"))

    def last_complete_generation(self) -> int | None:
        return self.query("SELECT MAX(generation) FROM generations")[0][0]

    def members(self, generation: int) -> list[int]:
        return [r[0] for r in self.query("SELECT chromosome FROM population WHERE generation=? "
                                         "ORDER BY chromosome", (generation,))]

    def chromosome(self, chromosome_id: int) -> PvtGenome:
        rows = self.query("SELECT material, tables FROM chromosomes WHERE id=?", (chromosome_id,))
        if not rows:
            raise DatabaseError(f"{self.path}: no chromosome with ID {chromosome_id}")
        try:
            material = [int(v) for v in rows[0][0].split()]
            values = [int(v) for v in rows[0][1].split()]
            return PvtGenome(chromosome_id, values, material)
        except (ValueError, AttributeError) as e:
            raise DatabaseError(f"{self.path}: chromosome {chromosome_id} is damaged ({shortened(str(e))})") from None

    def host(self):
        """The genome whose evaluation hosts the chromosomes' tables (a run with
        `host genome = FILE`), or None: the chromosomes play as PVT genomes."""
        text = self.meta().get("host")
        if text is None:
            return None
        try:
            return parse_genome_text(text, f"{self.path} (its host genome)").genomes[0]
        except (GenomeError, IndexError) as e:
            raise DatabaseError(f"{self.path}: its host genome is damaged ({shortened(str(e))})") from None

    def player(self, chromosome_id: int):
        """What chromosome `chromosome_id` plays as: its PVT genome, or inside the host."""
        chromosome = self.chromosome(chromosome_id)
        host = self.host()
        return chromosome if host is None else host.hosting(chromosome)

    def parents(self, chromosome_id: int) -> tuple[int | None, int | None]:
        rows = self.query("SELECT parent_a, parent_b FROM chromosomes WHERE id=?", (chromosome_id,))
        return rows[0] if rows else (None, None)

    def next_id(self) -> int:
        return (self.query("SELECT MAX(id) FROM chromosomes")[0][0] or 0) + 1

    def history(self) -> list[GenerationSummary]:
        return [GenerationSummary(*row[:7]) for row in
                self.query("SELECT * FROM generations ORDER BY generation")]

    def best_id(self) -> int:
        """The fittest member of the last complete generation."""
        last = self.last_complete_generation()
        if last is None:
            raise DatabaseError(f"{self.path}: no complete generation yet (no chromosome has a fitness)")
        rows = self.query("SELECT chromosome FROM population WHERE generation=? AND fitness IS NOT NULL "
                          "ORDER BY fitness DESC, chromosome LIMIT 1", (last,))
        return rows[0][0]


def load_chromosome(path: str | Path, chromosome_id: int | None = None) -> Genome:
    """The chromosome to play with: by ID, or the best of the last complete generation
    (inside the run's host genome, if it had one)."""
    db = ChromosomeReader(path)
    try:
        return db.player(db.best_id() if chromosome_id is None else chromosome_id)
    finally:
        db.close()


def database_genome(path: Path, chromosome_id: int | None) -> Genome | None:
    """What `genchess --genome DATABASE [--genome-id N]` plays (load_chromosome);
    None for a file that is not an SQLite database."""
    if not is_sqlite_file(path):
        return None
    return load_chromosome(path, chromosome_id)
