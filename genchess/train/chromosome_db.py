"""The chromosome database of a Phoenix run (SQLite, stdlib sqlite3).

Every PVT chromosome ever created is a row of `chromosomes` (ID, generation of
birth, parents, material and the 640 table values as text, created-at, and its
latest fitness, games and niche); `population` says who lived in each generation
and how each member scored there; `generations` holds one summary row per
finished generation. The trainer writes a whole generation (fitness of the
members, the offspring, the next population, the summary) in ONE transaction
in WAL mode, so a kill at any instant loses at most the generation in progress:
a generation is complete exactly when its `generations` row exists, and the
next population is already stored with it.

Design trade-off: SQLite rather than the append-only text files of the gene
pool, because a Phoenix run is a table (640 numbers per chromosome, thousands
of chromosomes) that the engine, the exporter and the plots query by ID and by
generation; atomic transactions give resume for free. The values are stored as
text (space-separated integers) so the file stays readable with the sqlite3
shell. Every problem with the file (not SQLite, not ours, newer schema, damaged)
is a GenomeError naming the path, so every command reports it in one line.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from genchess.genome import GenomeError, PvtGenome

SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE chromosomes (
    id INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,        -- born in
    parent_a INTEGER, parent_b INTEGER, -- NULL for the random first population
    material TEXT NOT NULL,             -- 5 integers, pawn .. queen
    tables TEXT NOT NULL,               -- 640 integers, PvtGenome.values order
    created_at TEXT NOT NULL,
    fitness REAL, games INTEGER, niche INTEGER   -- of its latest evaluation
);
CREATE TABLE population (
    generation INTEGER NOT NULL,
    chromosome INTEGER NOT NULL REFERENCES chromosomes(id),
    fitness REAL, games INTEGER, niche INTEGER,  -- NULL until the generation is played
    PRIMARY KEY (generation, chromosome)
);
CREATE TABLE generations (
    generation INTEGER PRIMARY KEY,
    best INTEGER NOT NULL, best_fitness REAL NOT NULL, mean_fitness REAL NOT NULL,
    niches INTEGER NOT NULL, games INTEGER NOT NULL, seconds REAL NOT NULL,
    finished_at TEXT NOT NULL
);
"""


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


@dataclass
class Evaluation:
    chromosome: int
    fitness: float
    games: int
    niche: int


def is_sqlite_file(path: str | Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


class ChromosomeDB:
    def __init__(self, path: str | Path, create: bool = False, write: bool = False):
        """Open (or with create, make) a database. Readers change nothing in the
        file; a writer (write=True) switches it to WAL once it is known to be ours."""
        self.path = Path(path)
        exists = self.path.exists() and self.path.stat().st_size > 0
        if not exists and not create:
            raise DatabaseError(f"{self.path}: no such chromosome database")
        if exists and not is_sqlite_file(self.path):
            raise DatabaseError(f"{self.path}: not a SQLite database (a chromosome database "
                                f"starts with the SQLite header)")
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None)
            if not exists:
                with self.transaction():
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            self.conn.execute(statement)
                    self.conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))
            self.check_schema()
            if write or not exists:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{self.path}: damaged or unreadable SQLite database ({e})") from None

    def check_schema(self) -> None:
        names = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in names:
            raise DatabaseError(f"{self.path}: a SQLite database but not a GenChess chromosome "
                                f"database (no schema_version table)")
        row = self.conn.execute("SELECT version FROM schema_version").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            raise DatabaseError(f"{self.path}: chromosome database schema version "
                                f"{row[0] if row else 'missing'}, this GenChess reads version "
                                f"{SCHEMA_VERSION}")
        missing = {"meta", "chromosomes", "population", "generations"} - names
        if missing:
            raise DatabaseError(f"{self.path}: chromosome database lacks table(s) "
                                f"{', '.join(sorted(missing))}")

    def close(self) -> None:
        self.conn.close()

    def transaction(self):
        db = self

        class _Transaction:
            def __enter__(self):
                try:
                    db.conn.execute("BEGIN IMMEDIATE")
                except sqlite3.Error as e:      # e.g. another run holds the database
                    raise DatabaseError(f"{db.path}: cannot write ({e})") from None

            def __exit__(self, kind, value, tb):
                try:
                    db.conn.execute("COMMIT" if kind is None else "ROLLBACK")
                except sqlite3.Error as e:
                    raise DatabaseError(f"{db.path}: cannot write ({e})") from None
                if kind is not None and issubclass(kind, sqlite3.Error):
                    raise DatabaseError(f"{db.path}: cannot write ({value})") from None
                return False

        return _Transaction()

    def query(self, sql: str, args=()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"{self.path}: damaged chromosome database ({e})") from None

    # ------------------------------------------------------------ writing

    def set_meta(self, values: dict[str, object]) -> None:
        with self.transaction():
            self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                  [(k, str(v)) for k, v in values.items()])

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM meta"))

    def _insert(self, genome: PvtGenome, generation: int, parents: tuple[int | None, int | None]):
        self.conn.execute(
            "INSERT INTO chromosomes (id, generation, parent_a, parent_b, material, tables, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (genome.id, generation, parents[0], parents[1], " ".join(map(str, genome.material)),
             " ".join(map(str, genome.values)), now()))

    def write_first_population(self, genomes: list[PvtGenome]) -> None:
        """Generation 0, not yet played: one transaction."""
        with self.transaction():
            for genome in genomes:
                self._insert(genome, 0, (None, None))
                self.conn.execute("INSERT INTO population (generation, chromosome) VALUES (0, ?)",
                                  (genome.id,))

    def commit_generation(self, summary: GenerationSummary, evaluations: list[Evaluation],
                          offspring: list[tuple[PvtGenome, tuple[int, int]]],
                          next_members: list[int]) -> None:
        """Everything one generation produced, in one transaction."""
        g = summary.generation
        with self.transaction():
            for e in evaluations:
                self.conn.execute("UPDATE population SET fitness=?, games=?, niche=? "
                                  "WHERE generation=? AND chromosome=?",
                                  (e.fitness, e.games, e.niche, g, e.chromosome))
                self.conn.execute("UPDATE chromosomes SET fitness=?, games=?, niche=? WHERE id=?",
                                  (e.fitness, e.games, e.niche, e.chromosome))
            for genome, parents in offspring:
                self._insert(genome, g + 1, parents)
            self.conn.executemany("INSERT INTO population (generation, chromosome) VALUES (?, ?)",
                                  [(g + 1, i) for i in next_members])
            self.conn.execute("INSERT INTO generations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                              (g, summary.best, summary.best_fitness, summary.mean_fitness,
                               summary.niches, summary.games, summary.seconds, now()))

    # ------------------------------------------------------------ reading

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
            raise DatabaseError(f"{self.path}: chromosome {chromosome_id} is damaged ({e})") from None

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


def load_chromosome(path: str | Path, chromosome_id: int | None = None) -> PvtGenome:
    """The chromosome to play with: by ID, or the best of the last complete generation."""
    db = ChromosomeDB(path)
    try:
        return db.chromosome(db.best_id() if chromosome_id is None else chromosome_id)
    finally:
        db.close()


def best_genome(path: Path, chromosome_id: int | None) -> PvtGenome | None:
    """What `genchess --genome DATABASE [--genome-id N]` plays (load_chromosome);
    None for a file that is not an SQLite database (not this method's)."""
    if not is_sqlite_file(path):
        return None
    return load_chromosome(path, chromosome_id)
