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
The reading half (ChromosomeReader: opening, the schema check, the queries) is
genchess.genome.run_files, so that playing a database's chromosome loads no
trainer; this module adds the schema's creation and the writes.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from genchess.genome import PvtGenome
# The reading half (opening, the schema check, queries, the best chromosome) is the
# genome package's, so that `--genome DATABASE` loads no trainer; this module writes.
from genchess.genome.run_files import (SCHEMA_VERSION, ChromosomeReader, DatabaseError,
                                       GenerationSummary, is_sqlite_file, load_chromosome)

__all__ = ["ChromosomeDB", "DatabaseError", "Evaluation", "GenerationSummary", "is_sqlite_file",
           "load_chromosome"]

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


@dataclass
class Evaluation:
    chromosome: int
    fitness: float
    games: int
    niche: int


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


class ChromosomeDB(ChromosomeReader):
    def __init__(self, path: str | Path, create: bool = False, write: bool = False):
        """Open (or with create, make) a database. Readers change nothing in the
        file; a writer (write=True) switches it to WAL once it is known to be ours."""
        self.may_create, self.write = create, write
        super().__init__(path)

    def create_tables(self) -> None:
        with self.transaction():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self.conn.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))

    def opened(self, existed: bool) -> None:
        if self.write or not existed:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")

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

    # ------------------------------------------------------------ writing

    def set_meta(self, values: dict[str, object]) -> None:
        with self.transaction():
            self.conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                  [(k, str(v)) for k, v in values.items()])

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
