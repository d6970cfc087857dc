"""The data machine (`genchess datagen DIR`): self-play chunks of game chains, made without end.

A set is a folder that holds everything needed to read it, grow it and say how it
was made:

    recipe.json     how every game is played (written by the first run; every later
                    run of the folder plays by it, and refuses options that differ)
    recipe.genome   the genome that plays and labels, as it was (its sha256 in the
                    recipe): the set names the network that made it
    MANIFEST.json   a row per finished chunk: file, games, plies, positions, bytes,
                    sha256, seconds, commit, date
    NAME-0001.chains.xz ...   the finished chunks (chains.py), `games per chunk`
                    games each
    NAME-00NN.chains.part, .journal   the chunk being made

Each game is played in C (genchess_core/selfplay.pyx) from an opening and a few
random plies, both drawn from a generator keyed by (seed, chunk, game), and the
search is deterministic at a node count or depth from a cleared table: a game is
the same on any worker, in any order, however often the run stops. That is what
makes a cluster run (`--scheduler`) the local run's bytes and a resumed chunk the
uninterrupted one's. Workers play batches of consecutive games; the run writes
their records to the chunk's `.part` in game order, each batch's records and then a
journal line (games, bytes, seconds), so after Ctrl-C, kill -9 or a reboot the same
command cuts the part back to its last journal line and plays on. A finished chunk
is compressed whole into place, then its manifest row written, then its part
removed: a stop between any two of these is finished by the next run.

A record from a worker is read back (every move replayed legal) before it is kept,
so a broken or hostile worker cannot put a game into the set that does not replay.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

from genchess.files import AppendFile, package_file, write_atomically
from genchess.parallel.plain import plain_type
from genchess.position_sets.chains import read_chain_bytes, write_chain_file
from genchess.position_sets.epd import PositionSetError

PROG = "genchess datagen"
MANIFEST = "MANIFEST.json"
STOP_FILE = "STOP"
FORMAT = 1
BATCH = 8                       # games a worker plays per job: a few seconds of work
HASH_MB = 8                     # each side's table, as the trainers' games have
SHIPPED_OPENINGS = "genchess/data/openings.epd"
_local = threading.local()


class DataMachineError(Exception):
    """A set folder that cannot be run as it is (a damaged manifest, a part shorter than
    its journal): one line naming the file, status 2."""


@dataclass
class Recipe:
    """Everything that decides the games of a set (recipe.json)."""
    name: str
    genome_sha256: str
    genome: str                     # where the genome came from (a file name or "the default")
    nodes: int = 0                  # hard node limit a move (0: none)
    soft_nodes: int = 0             # no new iteration past this many nodes (0: none)
    depth: int = 0                  # the deepest iteration (0: none)
    random_plies: int = 8
    chess960: float = 0.0           # the share of games from Chess960's start positions
    openings: str = SHIPPED_OPENINGS
    games_per_chunk: int = 5000
    seed: int = 0
    win_cp: int = 0                 # win adjudication: all scores beyond this ...
    win_plies: int = 1              # ... for this many plies in a row (win_cp 0: none)
    draw_cp: int = -1               # draw adjudication: all scores within this ...
    draw_plies: int = 1             # ... for this many plies in a row ...
    draw_from: int = 0              # ... from this ply on (draw_cp -1: none)
    max_plies: int = 600            # a game still going then is a draw
    hash_mb: int = HASH_MB
    format: int = FORMAT

    def limits(self) -> dict:
        return {"nodes": self.nodes, "soft_nodes": self.soft_nodes, "depth": self.depth}

    def describe(self) -> str:
        limit = (f"{self.soft_nodes} soft nodes" if self.soft_nodes else
                 f"depth {self.depth}" if self.depth else f"{self.nodes} nodes")
        if self.soft_nodes and self.nodes:
            limit += f" ({self.nodes} hard)"
        return (f"{self.genome}, {limit} a move, {self.random_plies} random plies"
                + (f", {self.chess960:.0%} Chess960" if self.chess960 else "")
                + (f", wins adjudicated at {self.win_cp} cp for {self.win_plies} plies" if self.win_cp else "")
                + (f", draws at {self.draw_cp} cp for {self.draw_plies} plies from ply {self.draw_from}"
                   if self.draw_cp >= 0 else ""))


@dataclass
class GamesJob:
    """Games [first, first + count) of chunk `chunk`, played by `recipe` with `genome`."""
    recipe: dict
    genome: str                     # the genome file's text
    chunk: int
    first: int
    count: int


@plain_type
@dataclass
class GamesResult:
    chunk: int
    first: int
    records: list                   # each game's chain record, base64 (a worker speaks JSON)
    counts: dict = field(default_factory=dict)
    seconds: float = 0.0


# ------------------------------------------------------------------ one batch, on a worker

def game_rng(seed: int, chunk: int, game: int) -> random.Random:
    return random.Random(f"genchess-datagen:{seed}:{chunk}:{game}")


def start_of(recipe: Recipe, chunk: int, game: int, openings) -> tuple[str, bool] | None:
    """(start FEN, chess960) of a game: an opening (Chess960's start positions for the
    recipe's share of the games) and the recipe's random plies, or None if the game
    ends on the way there."""
    from genchess.position_sets.making import opening_position
    from genchess.game.openings import CHESS960_POSITIONS, chess960_fen
    rng = game_rng(recipe.seed, chunk, game)
    if recipe.chess960 and rng.random() < recipe.chess960:
        fen, moves, chess960 = chess960_fen(rng.randrange(CHESS960_POSITIONS)), (), True
    else:
        opening = openings[rng.randrange(len(openings))]
        fen, moves, chess960 = opening.fen, opening.moves, False
    start = opening_position(fen, moves, recipe.random_plies, rng, chess960)
    return None if start is None else (start, chess960)


def _worker_state(genome_text: str, recipe: Recipe):
    """This worker's two Searchers for `genome_text` (made once) and the openings."""
    key = hashlib.sha256(genome_text.encode()).hexdigest()
    state = getattr(_local, "datagen", None)
    if state is None or state[0] != key or state[1] != recipe.hash_mb:
        from genchess.genome import parse_genome_text
        from genchess_core.searcher import Searcher
        packed = parse_genome_text(genome_text).genomes[0].pack()
        searchers = []
        for _ in range(2):
            searcher = Searcher(recipe.hash_mb)
            searcher.set_genome(packed)
            searchers.append(searcher)
        state = (key, recipe.hash_mb, searchers)
        _local.datagen = state
    openings = getattr(_local, "openings", None)
    if openings is None or openings[0] != recipe.openings:
        from genchess.files import package_file
        from genchess.game.openings import read_openings
        path = package_file("data", "openings.epd") if recipe.openings == SHIPPED_OPENINGS else recipe.openings
        openings = (recipe.openings, read_openings(path))
        _local.openings = openings
    return state[2], openings[1]


def play_games(job: GamesJob) -> GamesResult:
    """Play a batch of a chunk's games; their chain records and counts."""
    from genchess_core import Board
    from genchess_core.chains import encode_game
    from genchess_core.selfplay import TERMINATIONS, play_game
    t0 = time.perf_counter()
    recipe = Recipe(**job.recipe)
    (white, black), openings = _worker_state(job.genome, recipe)
    records, counts = [], {}

    def count(key, n=1):
        counts[key] = counts.get(key, 0) + n

    for game in range(job.first, job.first + job.count):
        start = start_of(recipe, job.chunk, game, openings)
        if start is None:           # the random plies ended the game: an empty record
            records.append("")
            count("openings_ended")
            continue
        fen, chess960 = start
        board = Board(fen, chess960=chess960)
        result, termination, moves, scores, nodes = play_game(
            white, black, board, **recipe.limits(), win_cp=recipe.win_cp, win_plies=recipe.win_plies,
            draw_cp=recipe.draw_cp, draw_plies=recipe.draw_plies, draw_from=recipe.draw_from,
            max_plies=recipe.max_plies)
        record = encode_game(board, moves, scores, ("0-1", "1/2-1/2", "1-0").index(result),
                             TERMINATIONS.index(termination))
        records.append(base64.b64encode(record).decode("ascii"))
        count("games")
        count("chess960_games", chess960)
        count("plies", len(moves))
        count("nodes", sum(nodes))
        count(f"results {result}")
        count(f"ended by {termination}")
    return GamesResult(job.chunk, job.first, records, counts, time.perf_counter() - t0)


# ------------------------------------------------------------------ the run

def git_commit() -> str:
    """The commit of the code making the set (short), or "" outside a checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=package_file(), timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


class DataMachine:
    """One folder's run: chunks after the last finished one, until `chunks` are done
    (None: until stopped) or a STOP file appears between chunks."""

    def __init__(self, folder: Path, recipe: Recipe, genome_text: str, chunks: int | None,
                 workers: int, scheduler: str | None, progress: bool = True):
        self.folder = folder
        self.recipe = recipe
        self.genome_text = genome_text
        self.chunks = chunks
        self.workers = workers
        self.scheduler = scheduler
        self.progress = progress
        self.manifest = read_manifest(folder)

    def chunk_path(self, chunk: int, suffix: str = ".chains.xz") -> Path:
        return self.folder / f"{self.recipe.name}-{chunk:04d}{suffix}"

    def next_chunk(self) -> int:
        return len(self.manifest) + 1

    def run(self) -> int:
        from genchess.parallel.executors import ExecutorLost, open_executor
        with open_executor(self.scheduler, self.workers, out=lambda m: print(m, file=sys.stderr)) as ex:
            self.remove_leftovers()
            while self.chunks is None or len(self.manifest) < self.chunks:
                stop = self.folder / STOP_FILE
                if stop.exists():
                    stop.unlink()
                    print(f"{PROG}: {stop} found: stopped after {len(self.manifest)} chunks",
                          file=sys.stderr)
                    return 0
                try:
                    self.make_chunk(ex, self.next_chunk())
                except ExecutorLost as e:
                    print(f"{PROG}: {e}; the same command resumes the chunk", file=sys.stderr)
                    return 1
        return 0

    def remove_leftovers(self) -> None:
        """A finished chunk's part and journal that a stop left behind (after its
        manifest row was written)."""
        for row in self.manifest:
            for suffix in (".chains.journal", ".chains.part"):
                Path(self.folder / row["chunk"].replace(".chains.xz", suffix)).unlink(missing_ok=True)

    def make_chunk(self, executor, chunk: int) -> None:
        from genchess.parallel.executors import completed
        final, part, journal_path = (self.chunk_path(chunk), self.chunk_path(chunk, ".chains.part"),
                                     self.chunk_path(chunk, ".chains.journal"))
        games, offset, counts, seconds = resume_point(journal_path)
        if part.exists() and part.stat().st_size < offset or not part.exists() and offset:
            raise DataMachineError(f"{part} is shorter than its journal says ({offset} bytes): remove "
                             f"{journal_path.name} and {part.name} to make chunk {chunk} again")
        if games < self.recipe.games_per_chunk or not final.exists():
            with open(part, "r+b" if part.exists() else "wb") as f:
                f.truncate(offset)
        if games >= self.recipe.games_per_chunk:       # stopped while finishing it
            if not final.exists():
                write_chain_file(final, part.read_bytes())
            return self.finish_chunk(chunk, counts, seconds)
        started = time.monotonic()
        jobs = [GamesJob(asdict(self.recipe), self.genome_text, chunk, first,
                         min(BATCH, self.recipe.games_per_chunk - first))
                for first in range(games, self.recipe.games_per_chunk, BATCH)]
        waiting: dict[int, GamesResult] = {}
        bar = self._bar(chunk, games)
        work, journal = AppendFile(part), AppendFile(journal_path)
        try:
            for result in completed(executor, play_games, jobs, in_flight=2 * max(self.workers, 1),
                                    key=lambda job: job.first):
                waiting[result.first] = result
                while games in waiting:
                    batch = waiting.pop(games)
                    records = b"".join(checked_records(batch, part))
                    work.write(records)
                    for key, n in batch.counts.items():
                        counts[key] = counts.get(key, 0) + n
                    counts["positions"] = counts.get("positions", 0) + count_positions(records, part)
                    games += len(batch.records)
                    elapsed = seconds + time.monotonic() - started
                    journal.write(json.dumps({"games": games, "offset": work.tell(), "counts": counts,
                                              "seconds": round(elapsed, 1)}) + "\n")
                    if bar is not None:
                        bar.update(len(batch.records))
                        bar.set_postfix(positions=counts["positions"],
                                        per_hour=f"{counts['positions'] * 3600 / max(elapsed, 1e-9):,.0f}",
                                        refresh=False)
        except KeyboardInterrupt:
            print(f"\n{PROG}: interrupted in chunk {chunk} after {games} of "
                  f"{self.recipe.games_per_chunk} games; `{PROG} {self.folder}` resumes it",
                  file=sys.stderr)
            raise
        finally:
            work.close()
            journal.close()
            if bar is not None:
                bar.close()
        write_chain_file(final, part.read_bytes())
        self.finish_chunk(chunk, counts, seconds + time.monotonic() - started)

    def finish_chunk(self, chunk: int, counts: dict, seconds: float) -> None:
        final = self.chunk_path(chunk)
        data = final.read_bytes()
        row = {"chunk": final.name, "games": counts.get("games", 0), "plies": counts.get("plies", 0),
               "positions": counts.get("positions", 0), "bytes": len(data),
               "sha256": hashlib.sha256(data).hexdigest(), "seconds": round(seconds, 1),
               "commit": git_commit(), "date": date.today().isoformat(), "counts": counts}
        self.manifest = [r for r in self.manifest if r["chunk"] != final.name] + [row]
        write_atomically(self.folder / MANIFEST, json.dumps(self.manifest, indent=1) + "\n")
        for suffix in (".chains.journal", ".chains.part"):
            self.chunk_path(chunk, suffix).unlink(missing_ok=True)
        print(f"{PROG}: {final.name}: {row['positions']:,} positions from {row['games']} games in "
              f"{seconds:,.0f} s ({row['positions'] * 3600 / max(seconds, 1e-9):,.0f} an hour), "
              f"{row['bytes'] / max(row['positions'], 1):.2f} bytes a position", file=sys.stderr)

    def _bar(self, chunk: int, done: int):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=self.recipe.games_per_chunk, initial=done, unit="game", file=sys.stderr,
                    desc=f"chunk {chunk}", dynamic_ncols=True, disable=None)


def checked_records(batch: GamesResult, part: Path) -> list[bytes]:
    """A batch's records, each replayed (PositionSetError if one does not)."""
    from genchess_core.chains import ChainError, decode_games
    records = []
    for i, text in enumerate(batch.records):
        record = base64.b64decode(text.encode("ascii"), validate=True) if text else b""
        try:
            decode_games(record)
        except ChainError as e:
            raise PositionSetError(f"{part}: game {batch.first + i} came back unreadable from its "
                                   f"worker ({e}); nothing of it was kept") from None
        records.append(record)
    return records


def count_positions(records: bytes, part: Path) -> int:
    from genchess.position_sets.chains import decode_records
    return len(decode_records(part, records)[0])


def resume_point(journal: Path) -> tuple[int, int, dict, float]:
    """(games done, the part's length then, counts, seconds) from a chunk's journal; a
    torn last line (a kill mid-write) is passed over."""
    if not journal.exists():
        return 0, 0, {}, 0.0
    for line in reversed(journal.read_text(encoding="utf-8").splitlines()):
        try:
            state = json.loads(line)
            return (int(state["games"]), int(state["offset"]), dict(state.get("counts", {})),
                    float(state.get("seconds", 0.0)))
        except (ValueError, KeyError, TypeError):
            continue
    return 0, 0, {}, 0.0


def read_manifest(folder: Path) -> list[dict]:
    path = folder / MANIFEST
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "chunk" in r for r in rows):
            raise ValueError("not a list of chunk rows")
    except ValueError as e:
        raise DataMachineError(f"{path}: not a data machine manifest ({e})") from None
    return rows


def verify(folder: Path) -> list[str]:
    """The problems of a set's finished chunks against its manifest (sha256, size,
    readable): one line each, empty when all is well."""
    problems = []
    for row in read_manifest(folder):
        path = folder / row["chunk"]
        if not path.exists():
            problems.append(f"{path}: missing (the manifest lists it)")
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != row.get("sha256"):
            problems.append(f"{path}: its sha256 is not the manifest's: the file was changed or damaged")
            continue
        try:
            read_chain_bytes(path)
        except PositionSetError as e:
            problems.append(str(e))
    return problems


def manifest_table(rows: list[dict]) -> str:
    """The manifest as a markdown table, a row a chunk and the total (data/README.md's)."""
    lines = ["| chunk | positions | games | plies a game | seconds | positions an hour | bytes a position "
             "| commit | made |", "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['chunk']} | {r['positions']:,} | {r['games']:,} | {r['plies'] / max(r['games'], 1):.1f} "
                     f"| {r['seconds']:,.0f} | {r['positions'] * 3600 / max(r['seconds'], 1e-9):,.0f} "
                     f"| {r['bytes'] / max(r['positions'], 1):.2f} | {r['commit']} | {r['date']} |")
    positions, seconds = sum(r["positions"] for r in rows), sum(r["seconds"] for r in rows)
    lines.append(f"| **{len(rows)} chunks** | **{positions:,}** | {sum(r['games'] for r in rows):,} | "
                 f"| {seconds:,.0f} | {positions * 3600 / max(seconds, 1e-9):,.0f} "
                 f"| {sum(r['bytes'] for r in rows) / max(positions, 1):.2f} | | |")
    return "\n".join(lines)

