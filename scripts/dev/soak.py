"""Soak: the trainers' runs killed at random moments, resumed, and checked after every kill.

    python scripts/dev/soak.py --minutes 20                 # every kind, local processes and dask
    python scripts/dev/soak.py --minutes 5 --kinds evolve --executors local --seed 7
    python scripts/dev/soak.py --quick                      # a few kills of each kind, about a minute

Three kinds of run, each kept small: a gene-pool run (`genchess train`, method gene pool,
short clocked games), an evolve run (method evolve: CMA-ES on positions, with validation
games) and a positions run (`genchess positions --play genchess`, a fixed node count, a
gzipped set). Each runs on local worker processes and on a loopback dask cluster (a `dask
scheduler` and `dask worker` this script starts and stops). A trial starts a run in its own
process group and then, at random moments, either kills the whole group (kill -9) or kills
one worker process (kill -9: the trainer's own pool process, or a dask worker, which its
nanny restarts); whenever the run has stopped it is resumed with the same command
(`--resume` for positions) until it ends by itself. Trials follow one another, kind by
kind and executor by executor in turn: each once, then on until the minutes are used.

What is checked, from the files alone, every time the run stops:
- every file parses: genomes (the whole file, a torn last record aside), PGN games with
  python-chess, the evolve state's pickle and genome files, the positions journal, set
  and sidecar; no game, generation or position appears twice;
- the run continues from its last consistent state: what the stopped run had written
  completely is still there, unchanged, in front of what the resumed run writes, and
  the resumed run says it starts where the files end (the gene pool's game count, the
  evolve state's generation);
and when a trial's run has ended:
- gene pool (clocked games, so the results are chance): every game and every Still Alive
  snapshot replayed by the design's rules; the founders, the pairings and every
  offspring equal to what the run's seed gives for the recorded results; a round cut
  short only where a run stopped;
- evolve and positions (deterministic at a seed): the files equal to those of one
  uninterrupted run on local processes (evolve's generation lines without their
  seconds, its genomes, its best genome; the positions set byte for byte, its counts),
  each validation match recorded once.

The figures per kind and executor: trials, kills of the process group, kills of a
worker, resumes, checks, failures; exit status 1 on any failure, whose files are kept
(their folder is printed). tests/test_soak.py runs --quick and, marked slow, a few minutes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import itertools
import json
import os
import pickle
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

REPO_ROOT = Path(__file__).resolve().parents[2]
SHIPPED_SET = REPO_ROOT / "genchess" / "data" / "positions.epd.gz"
EXECUTORS = ("local", "dask")
RESULT_LINE = re.compile(r"(?:^|\s)(1-0|0-1|1/2-1/2)\n")
LAUNCH_TIMEOUT = 300            # seconds a launch may take before the trial counts it hung
WORKER_STOP_SECONDS = 20        # a local run whose worker was killed stops within this


# ------------------------------------------------------------------ processes

def parent_of(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def descendants(root: int) -> list[int]:
    """Every living process below `root` in the process tree."""
    by_parent = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            parent = parent_of(int(entry.name))
            if parent is not None:
                by_parent[parent].append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in by_parent.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def is_helper_process(pid: int) -> bool:
    """multiprocessing's resource tracker or fork server: not a worker that plays games."""
    line = " ".join(command_line(pid))
    return "resource_tracker" in line or "forkserver" in line


def local_workers(trainer: int) -> list[int]:
    """A trainer's worker processes: its children (forked: the same command line)."""
    own = command_line(trainer)
    return [pid for pid in descendants(trainer)
            if command_line(pid) == own and not is_helper_process(pid)]


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


class LoopbackCluster:
    """`dask scheduler` and `dask worker --nworkers N` on 127.0.0.1, as docs/cluster.md
    starts them, each in its own session; its worker processes can be killed one by one
    (each worker's nanny starts another)."""

    def __init__(self, directory: Path, workers: int):
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.count = workers
        self.killed = 0                 # worker processes killed, each restarted by its nanny
        scheduler_file = directory / "scheduler.json"
        scheduler_file.unlink(missing_ok=True)
        self.logs = [open(directory / f"{name}.log", "ab") for name in ("scheduler", "workers")]
        web = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
        self.scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host",
                                           "127.0.0.1", "--port", "0", "--scheduler-file",
                                           str(scheduler_file), *web], cwd=directory,
                                          stdout=self.logs[0], stderr=subprocess.STDOUT,
                                          start_new_session=True)
        self.workers = None
        deadline = time.monotonic() + 60
        while not (scheduler_file.exists() and scheduler_file.stat().st_size):
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                self.close()
                raise RuntimeError("the dask scheduler did not start")
            time.sleep(0.1)
        time.sleep(0.2)
        self.address = json.loads(scheduler_file.read_text())["address"]
        self.workers = subprocess.Popen([sys.executable, "-m", "dask", "worker", self.address,
                                         "--nthreads", "1", "--nworkers", str(workers),
                                         "--local-directory", str(directory), *web],
                                        cwd=directory, stdout=self.logs[1], stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.wait_for_workers()

    def worker_pids(self) -> list[int]:
        # The nannies live in the `dask worker` process; each worker is a process below it.
        return [pid for pid in descendants(self.workers.pid) if not is_helper_process(pid)]

    def wait_for_workers(self, timeout: float = 60) -> bool:
        """Wait until every worker (the first ones, and one for each killed) has registered
        with the scheduler: a worker killed before that is not restarted by its nanny."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            registered = text_of(self.directory / "workers.log").count("Registered to:")
            if registered >= self.count + self.killed and len(self.worker_pids()) >= self.count:
                return True
            time.sleep(0.2)
        return False

    def close(self) -> None:
        for proc in (self.workers, self.scheduler):
            if proc is not None:
                kill_group(proc)
        for log in self.logs:
            log.close()


# ------------------------------------------------------------------ figures

@dataclass
class Figures:
    trials: int = 0
    kills: int = 0                  # the run's whole process group, kill -9
    worker_kills: int = 0
    resumes: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        for name in ("trials", "kills", "worker_kills", "resumes", "checks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures


# ------------------------------------------------------------------ reading files

def text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def complete_prefix(text: str, is_end) -> str:
    """`text` up to the end of its last complete record: the last line (with its
    newline) for which is_end(line) holds."""
    end = offset = 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        if line.endswith("\n") and is_end(line.rstrip("\n")):
            end = offset
    return text[:end]


def complete_lines(text: str) -> str:
    return complete_prefix(text, lambda line: True)


def complete_genomes(text: str) -> str:
    return complete_prefix(text, lambda line: line.strip() == "END" or line.startswith("Still Alive:"))


def complete_games(text: str) -> str:
    end = 0
    for match in RESULT_LINE.finditer(text):
        end = match.end()
    return text[:end]


def pgn_games(text: str, problems: list[str], where: str) -> list[chess.pgn.Game]:
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        if game.errors:
            problems.append(f"{where}: game {len(games) + 1} does not read: {game.errors[0]}")
        games.append(game)
    if len(games) != text.count("[Event "):
        problems.append(f"{where}: {text.count('[Event ')} games begin, {len(games)} read")
    return games


def parse_genomes(text: str, problems: list[str], where: str):
    from genchess.genome import GenomeError, GenomeFile, parse_genome_text
    if not text.strip():
        return GenomeFile(where, [])
    try:
        return parse_genome_text(text, where)
    except GenomeError as e:
        problems.append(f"{where}: {e}")
        return None


def without_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("#"))


def must_continue(before: str, after: str, where: str, problems: list[str]) -> None:
    """What a stopped run had written completely is still at the head of the file."""
    if not after.startswith(before):
        at = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
        problems.append(f"{where}: the {len(before)} characters the stopped run had written "
                        f"completely were changed at character {at} ({len(after)} now)")


# ------------------------------------------------------------------ the three kinds

class Kind:
    """One kind of run: how to start and resume it, and what its files must show."""

    name = ""
    deterministic = False           # compared with an uninterrupted run's files

    def __init__(self, base: Path, seed: int, workers: int, quick: bool):
        self.base, self.seed, self.workers, self.quick = base, seed, workers, quick
        self.measured: float | None = None      # seconds of the uninterrupted run

    def prepare(self, directory: Path) -> None:
        """Write what the run needs before its first start (a configuration)."""

    def argv(self, directory: Path, scheduler: str | None, resume: bool) -> list[str]:
        raise NotImplementedError

    def seconds(self) -> float:
        """Roughly how long one uninterrupted launch takes (kills fall within it)."""
        raise NotImplementedError

    def after_stop(self, directory: Path, problems: list[str]) -> dict:
        """Check the files of a stopped run; what the next resume must continue from."""
        raise NotImplementedError

    def continues(self, before: dict, now: dict, log: str, problems: list[str]) -> None:
        """Check that the run resumed (its output `log`) from `before`."""

    def final(self, directory: Path, reference: Path | None, launches: int,
              problems: list[str]) -> None:
        """Check a finished run's files (against an uninterrupted run's, if deterministic)."""
        raise NotImplementedError


def train_argv(config: Path, scheduler: str | None) -> list[str]:
    return [sys.executable, "-m", "genchess.train.cli", str(config),
            *(["--scheduler", scheduler] if scheduler else [])]


class GenePool(Kind):
    name = "gene pool"
    POPULATION, POOLS, SWAP = 4, 2, 4

    @property
    def limit(self) -> float:
        return 2.5 if self.quick else 8

    def prepare(self, directory):
        (directory / "run.cfg").write_text(
            f"workers = {self.workers}\ngene pool population = {self.POPULATION}\n"
            f"gene pool count = {self.POOLS}\npool swap interval = {self.SWAP}\n"
            "minimum game time = 0.05\nmaximum game time = 0.1\ngame time added per round = 0.01\n"
            "oscillating time = yes\nrun file = pool.txt\noutput volume = quiet\n"
            f"time limit = {self.limit:g} seconds\nseed = {self.seed}\n")

    def argv(self, directory, scheduler, resume):
        return train_argv(directory / "run.cfg", scheduler)

    def seconds(self):
        return self.limit + 2

    def after_stop(self, directory, problems):
        pool = complete_genomes(text_of(directory / "pool.txt"))
        games_text = complete_games(text_of(directory / "pool.txt_games.txt"))
        parsed = parse_genomes(pool, problems, "pool.txt")
        ids = {g.id for g in parsed.genomes} if parsed else set()
        games = pgn_games(games_text, problems, "pool.txt_games.txt")
        keys = [tuple(g.headers.get(k) for k in ("Round", "Pool", "WhiteID", "BlackID")) for g in games]
        if len(keys) != len(set(keys)):
            problems.append(f"pool.txt_games.txt: a game recorded twice: "
                            f"{[k for k, n in Counter(keys).items() if n > 1][:3]}")
        offspring = [g.headers.get("Offspring") for g in games]
        if len(offspring) != len(set(offspring)):
            problems.append("pool.txt_games.txt: an offspring born in two games")
        missing = [o for o in offspring if not o or int(o) not in ids]
        if parsed and missing:
            problems.append(f"pool.txt_games.txt: offspring {missing[:3]} not in pool.txt")
        return {"pool": pool, "games": games_text, "count": len(games)}

    def continues(self, before, now, log, problems):
        must_continue(before["pool"], now["pool"], "pool.txt", problems)
        must_continue(before["games"], now["games"], "pool.txt_games.txt", problems)
        said = re.search(r"^Resuming pool\.txt: round \d+, (\d+) games", log, re.M)
        if said and int(said.group(1)) != before["count"]:
            problems.append(f"resumed saying {said.group(1)} games; the files held {before['count']}")
        if "New gene pool" in log and before["count"]:
            problems.append(f"started afresh over {before['count']} games")

    def final(self, directory, reference, launches, problems):
        replay_gene_pool(directory / "pool.txt", self.seed, self.POPULATION, self.POOLS, self.SWAP,
                         launches, problems)


class Evolve(Kind):
    name = "evolve"
    deterministic = True

    @property
    def generations(self) -> int:
        return 12 if self.quick else 60

    def prepare(self, directory):
        labelled = self.base / "set.epd"
        if not labelled.exists():           # the shipped set's first positions, shared
            with gzip.open(SHIPPED_SET, "rt") as f:
                labelled.write_text("".join(line for _, line in zip(range(2000), f)))
        (directory / "run.cfg").write_text(
            f"method = evolve\nrun file = run.txt\npositions = {labelled}\nkind = material\n"
            f"optimiser = cma-es\ngenerations = {self.generations}\nseed = {self.seed}\n"
            f"workers = {self.workers}\noutput volume = quiet\nvalidation games = 2\n"
            "validation interval = 4\ngame time = 0.03\ngame increment = 0\n")

    def argv(self, directory, scheduler, resume):
        return train_argv(directory / "run.cfg", scheduler)

    def seconds(self):
        return self.measured or 20

    def after_stop(self, directory, problems):
        from genchess.genome import GenomeError, load_genome
        state_path = directory / "run.txt_state.pickle"
        state = None
        if state_path.exists():
            try:
                state = pickle.loads(state_path.read_bytes())["generation"]
            except Exception as e:          # any way a torn pickle fails
                problems.append(f"{state_path.name}: does not load: {e!r}")
        for name in ("run.txt_start.genome", "run.txt_best.genome"):
            if (directory / name).exists():
                try:
                    load_genome(directory / name)
                except GenomeError as e:
                    problems.append(f"{name}: {e}")
        genomes_text = complete_genomes(text_of(directory / "run.txt_genomes.txt"))
        parsed = parse_genomes(genomes_text, problems, "run.txt_genomes.txt")
        genome_ids = [g.id for g in parsed.genomes] if parsed else []
        records = complete_lines(text_of(directory / "run.txt"))
        lines = records.splitlines()
        if lines and not lines[0].startswith("# GenChess evolve run:"):
            problems.append(f"run.txt: the first line is not the header: {lines[0][:60]!r}")
        if sum(line.startswith("# GenChess evolve run:") for line in lines) > 1:
            problems.append("run.txt: the header is written twice")
        generations = [int(line.split()[1].rstrip(":")) for line in lines if line.startswith("generation ")]
        validations = [int(line.split()[1].rstrip(":")) for line in lines if line.startswith("validation ")]
        for what, numbers in (("generation lines", generations), ("genomes", genome_ids)):
            if numbers != list(range(1, len(numbers) + 1)):
                problems.append(f"{what} are not 1, 2, 3, ...: {numbers[-5:]}")
        if len(validations) != len(set(validations)):
            problems.append(f"run.txt: a validation match recorded twice: {validations}")
        if state is None and (generations or genome_ids):
            problems.append("records without the state that resumes them")
        elif state is not None:
            for what, numbers in (("generation lines", generations), ("genomes", genome_ids)):
                if not state <= len(numbers) <= state + 1:
                    problems.append(f"{len(numbers)} {what} for a state after generation {state}")
        return {"state": state, "records": records, "genomes": genomes_text}

    def continues(self, before, now, log, problems):
        must_continue(before["records"], now["records"], "run.txt", problems)
        must_continue(before["genomes"], now["genomes"], "run.txt_genomes.txt", problems)
        said = re.search(r"^(Resuming|New) evolve run .*generation (\d+)$", log, re.M)
        if said and int(said.group(2)) != (before["state"] or 0):
            problems.append(f"resumed at generation {said.group(2)}; the state was after "
                            f"generation {before['state']}")

    def final(self, directory, reference, launches, problems):
        def generation_lines(folder):
            return [line.rsplit(" seconds ", 1)[0] for line in text_of(folder / "run.txt").splitlines()
                    if line.startswith("generation ")]

        def validations(folder):
            return [line.split()[1] for line in text_of(folder / "run.txt").splitlines()
                    if line.startswith("validation ")]

        if generation_lines(directory) != generation_lines(reference):
            ours, theirs = generation_lines(directory), generation_lines(reference)
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            problems.append(f"run.txt: {len(ours)} generation lines against {len(theirs)} "
                            f"uninterrupted, first different: {first + 1}")
        if validations(directory) != validations(reference):
            problems.append(f"run.txt: validation matches {validations(directory)} against "
                            f"{validations(reference)} uninterrupted")
        for name in ("run.txt_genomes.txt", "run.txt_best.genome", "run.txt_start.genome"):
            if without_comments(text_of(directory / name)) != without_comments(text_of(reference / name)):
                problems.append(f"{name} differs from the uninterrupted run's")


class Positions(Kind):
    name = "positions"
    deterministic = True

    @property
    def games(self) -> int:
        return 3 if self.quick else 10

    def argv(self, directory, scheduler, resume):
        return [sys.executable, "-m", "genchess", "positions", "--play", "genchess",
                "--games", str(self.games), "--nodes", "300", "--per-game", "4",
                "--seed", str(self.seed), "--workers", str(self.workers), "-o", str(directory / "set.epd.gz"),
                *(["--scheduler", scheduler] if scheduler else []), *(["--resume"] if resume else [])]

    def seconds(self):
        return self.measured or 15

    def after_stop(self, directory, problems):
        out, work = directory / "set.epd.gz", directory / "set.epd.gz.part"
        journal, sidecar = directory / "set.epd.gz.journal", directory / "set.epd.gz.json"
        if not journal.exists():
            if not sidecar.exists():            # stopped before it began: nothing to check
                return {"written": "", "games": 0}
            try:
                meta = json.loads(sidecar.read_text())
                written = gzip.decompress(out.read_bytes()).decode()
            except (OSError, ValueError, EOFError) as e:
                problems.append(f"a finished set that does not read: {e!r}")
                return {"written": "", "games": 0}
            self.check_set(written, meta["positions"], "set.epd.gz", problems)
            return {"written": written, "games": meta["progress"]["games"]}
        lines = journal.read_text().splitlines(keepends=True)
        states = []
        for n, line in enumerate(lines[1:], start=2):
            try:
                states.append(json.loads(line))
            except ValueError:
                if n != len(lines) or line.endswith("\n"):
                    problems.append(f"{journal.name}:{n}: does not read, and is not a torn last line")
        try:
            json.loads(lines[0])["recipe"]
        except (IndexError, ValueError, KeyError):
            problems.append(f"{journal.name}: its first line is not the recipe")
        games = [s["games"] for s in states]
        if games and games != list(range(games[0], games[0] + len(games))):
            problems.append(f"{journal.name}: games done go {games[-5:]}, not one by one")
        last = states[-1] if states else {"offset": 0, "games": 0, "counts": {}}
        data = work.read_bytes() if work.exists() else b""
        if len(data) < last["offset"]:
            problems.append(f"{work.name}: {len(data)} bytes, the journal says {last['offset']} were written")
        written = data[:last["offset"]].decode(errors="replace")
        self.check_set(written, last["counts"].get("positions", 0), work.name, problems)
        return {"written": written, "games": last["games"]}

    @staticmethod
    def check_set(text: str, positions: int, where: str, problems: list[str]) -> None:
        lines = text.splitlines()
        if len(lines) != positions:
            problems.append(f"{where}: {len(lines)} positions, the run counted {positions}")
        keys = [" ".join(line.split()[:4]) for line in lines]
        if len(keys) != len(set(keys)):
            problems.append(f"{where}: a position written twice")
        for n, line in enumerate(lines, start=1):
            try:
                chess.Board(keys[n - 1] + " 0 1")
                assert re.search(r'c9 "(1-0|0-1|1/2-1/2)";$', line)
            except (ValueError, AssertionError):
                problems.append(f"{where}:{n}: not a labelled EPD position: {line[:60]!r}")
                break

    def continues(self, before, now, log, problems):
        must_continue(before["written"], now["written"], "the set", problems)
        if now["games"] < before["games"]:
            problems.append(f"{now['games']} games done after a resume from {before['games']}")

    def final(self, directory, reference, launches, problems):
        for name in ("set.epd.gz.journal", "set.epd.gz.part"):
            if (directory / name).exists():
                problems.append(f"{name} left behind by a finished run")
        if (directory / "set.epd.gz").read_bytes() != (reference / "set.epd.gz").read_bytes():
            problems.append("set.epd.gz differs from the uninterrupted run's")
        ours, theirs = (json.loads(text_of(d / "set.epd.gz.json") or "{}") for d in (directory, reference))
        counts = [(m.get("progress") or {}).get("counts") for m in (ours, theirs)]
        if counts[0] != counts[1]:
            problems.append(f"the sidecar's counts {counts[0]} against {counts[1]} uninterrupted")


KINDS = {"gene-pool": GenePool, "evolve": Evolve, "positions": Positions}


# ------------------------------------------------------------------ the gene pool replayed

def replay_gene_pool(pool_file: Path, seed: int, population: int, pool_count: int, swap: int,
                     launches: int, problems: list[str]) -> None:
    """The whole run checked against the design's rules and the seed: founders, pairings,
    results, offspring and who they replace, swaps, every Still Alive snapshot."""
    from genchess.genome import Genome
    from genchess.genome.genes import PIECE_STEP
    text = text_of(pool_file)
    if complete_genomes(text) != text:
        problems.append("pool.txt: a torn record at the end of a finished run")
    parsed = parse_genomes(complete_genomes(text), problems, "pool.txt")
    games = pgn_games(complete_games(text_of(Path(f"{pool_file}_games.txt"))), problems, "pool.txt_games.txt")
    if parsed is None:
        return
    genomes = {g.id: g for g in parsed.genomes}
    rng = random.Random(f"{seed}:init")
    for i in range(population * pool_count):
        if i not in genomes or Genome.random(rng, i).to_text() != genomes[i].to_text():
            problems.append(f"founder {i} is not what seed {seed} gives")
            return
    snapshots, current = [], {}
    for line in text.splitlines():
        if match := re.fullmatch(r"Still Alive: (\d+) : ([\d ]+)", line.strip()):
            pool = int(match.group(1))
            current = {} if pool == 0 else current
            current[pool] = [int(i) for i in match.group(2).split()]
            if len(current) == pool_count:
                snapshots.append(current)
                current = {}
    by_round = defaultdict(list)
    for game in games:
        by_round[int(game.headers["Round"])].append(game)
    if set(by_round) - set(range(1, len(snapshots))):
        problems.append(f"games of rounds {sorted(by_round)[-3:]} but {len(snapshots) - 1} rounds closed")
        return
    wins, losses, played_games = Counter(), Counter(), Counter()
    played, short_rounds = 0, 0
    for r in range(1, len(snapshots)):
        members = {p: list(ids) for p, ids in snapshots[r - 1].items()}
        pairing_rng = random.Random(f"{seed}:round:{r}")
        pairs = set()
        for p in range(pool_count):
            ids = list(members[p])
            pairing_rng.shuffle(ids)
            pairs |= {(p, ids[i], ids[i + 1]) for i in range(0, len(ids) - 1, 2)}
        before = played
        for game in by_round.get(r, []):
            h = game.headers
            pool, white, black = int(h["Pool"]), int(h["WhiteID"]), int(h["BlackID"])
            child_id, replaced, result = int(h["Offspring"]), int(h["Replaced"]), h["Result"]
            where = f"round {r} pool {pool}: {white} vs {black} ({result})"
            if (pool, white, black) not in pairs:
                problems.append(f"{where}: not a pairing seed {seed} gives for the round")
                return
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
            mating = random.Random(f"{seed}:mate:{r}:{pool}:{white}:{black}")
            child = Genome.crossover(genomes[white], genomes[black], mating, child_id)
            child.mutate(mating, piece_step=PIECE_STEP)
            loser = black if score == 1 else white if score == 0 else mating.choice((white, black))
            if child_id not in genomes or child.to_text() != genomes[child_id].to_text():
                problems.append(f"{where}: offspring {child_id} is not its parents' by the seed")
                return
            if replaced != loser:
                problems.append(f"{where}: {replaced} replaced, not {loser}")
                return
            for player, points in ((white, score), (black, 1 - score)):
                played_games[player] += 1
                wins[player] += points == 1
                losses[player] += points == 0
            members[pool][members[pool].index(replaced)] = child_id
            played += 1
        short_rounds += played - before < population // 2 * pool_count
        if pool_count > 1 and played // swap > before // swap:
            def rank_best(i):
                return (-wins[i], -played_games[i], i)

            def rank_weakest(i):
                return (wins[i], -losses[i], -played_games[i], -i)
            bests = [min(members[p], key=rank_best) for p in range(pool_count)]
            for p, best in enumerate(bests):
                target = members[(p + 1) % pool_count]
                if best not in target:
                    weakest = min([i for i in target if played_games[i]] or target, key=rank_weakest)
                    target[target.index(weakest)] = best
        if members != snapshots[r]:
            problems.append(f"after round {r} the games and the rules give {members}, "
                            f"pool.txt says {snapshots[r]}")
            return
    if short_rounds > launches:
        problems.append(f"{short_rounds} rounds cut short by {launches} launches")


# ------------------------------------------------------------------ trials

class Trial:
    """One run of a kind from nothing to its end, killed on the way by `plan`."""

    def __init__(self, kind: Kind, directory: Path, cluster: LoopbackCluster | None,
                 reference: Path | None, rng: random.Random, plan: list[str], figures: Figures):
        self.kind, self.directory, self.cluster = kind, directory, cluster
        self.reference, self.rng, self.plan, self.figures = reference, rng, plan, figures
        self.quick = kind.quick
        self.launches = 0
        self.proc: subprocess.Popen | None = None
        self.log: Path | None = None
        self.problems: list[str] = []

    def launch(self, resume: bool) -> None:
        self.launches += 1
        self.log = self.directory / f"launch-{self.launches:02d}.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        scheduler = self.cluster.address if self.cluster else None
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(self.kind.argv(self.directory, scheduler, resume),
                                         cwd=self.directory, env=env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)

    def fail(self, problem: str) -> None:
        self.problems.append(problem)

    def wait(self, seconds: float) -> int | None:
        try:
            return self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            return None

    def kill_a_worker(self) -> bool:
        """Kill one worker process (waiting for one to be there while the run lives)."""
        if self.cluster is not None and not self.cluster.wait_for_workers(30):
            return False                # (one killed before it registered would stay dead)
        deadline = time.monotonic() + 10
        while not (pids := self.cluster.worker_pids() if self.cluster else local_workers(self.proc.pid)):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        try:
            os.kill(self.rng.choice(pids), signal.SIGKILL)
        except ProcessLookupError:
            return False
        self.figures.worker_kills += 1
        if self.cluster is not None:
            self.cluster.killed += 1
        return True

    def run(self) -> None:
        self.directory.mkdir(parents=True)
        self.kind.prepare(self.directory)
        self.launch(resume=False)
        before = None
        while True:
            code = None
            action = self.plan.pop(0) if self.plan else None
            if action is None:
                code = self.wait(LAUNCH_TIMEOUT)
                if code is None:
                    kill_group(self.proc)
                    self.fail(f"launch {self.launches} did not end within {LAUNCH_TIMEOUT} s")
                    return
            else:
                # (quick: early enough that the kill comes before the run's end)
                code = self.wait(self.rng.uniform(0.05, self.kind.seconds() * (0.5 if self.quick else 1)))
                if code is None and action == "group":
                    kill_group(self.proc)
                    self.figures.kills += 1
                    code = -signal.SIGKILL
                elif code is None and self.kill_a_worker() and self.cluster is None:
                    code = self.wait(WORKER_STOP_SECONDS)
                if code is None:
                    continue                    # the run goes on: the next kill, or its end
            before = self.stopped(code, before)
            if code == 0 or self.problems:
                break
            self.figures.resumes += 1
            self.launch(resume=True)
        if code == 0 and not self.problems:
            self.figures.checks += 1
            self.kind.final(self.directory, self.reference, self.launches, self.problems)

    def stopped(self, code: int, before: dict | None) -> dict:
        """Checks after the run stopped however it did; the state to resume from."""
        log = self.log.read_text(errors="replace")
        if code not in (0, 1, -signal.SIGKILL):
            self.fail(f"launch {self.launches} exited with {code}: {log.strip()[-300:]}")
        if code == 1 and "Stopped:" not in log and "worker" not in log:
            self.fail(f"launch {self.launches} exited with 1 without saying why: {log.strip()[-300:]}")
        if "Traceback" in log:
            self.fail(f"launch {self.launches} printed a traceback: {log[log.index('Traceback'):][:500]}")
        self.figures.checks += 1
        now = self.kind.after_stop(self.directory, self.problems)
        if before is not None:
            self.figures.checks += 1
            self.kind.continues(before, now, log, self.problems)
        return now


def random_plan(rng: random.Random) -> list[str]:
    """Up to four kills, each of the whole run (kill -9 to its group) or of one worker."""
    return [rng.choice(("group", "group", "worker")) for _ in range(rng.randint(1, 4))]


def reference_run(kind: Kind, directory: Path, figures: Figures) -> Path | None:
    """An uninterrupted run on local processes, to compare the killed runs' files with."""
    directory.mkdir(parents=True)
    kind.prepare(directory)
    started = time.monotonic()
    done = subprocess.run(kind.argv(directory, None, False), cwd=directory, capture_output=True,
                          text=True, timeout=LAUNCH_TIMEOUT * 2)
    if done.returncode != 0:
        figures.failures.append(f"{kind.name}: the uninterrupted run exited with {done.returncode}: "
                                f"{(done.stdout + done.stderr).strip()[-300:]}")
        return None
    kind.measured = time.monotonic() - started
    return directory


def soak(args, out=print) -> dict[tuple[str, str], Figures]:
    rng = random.Random(args.seed)
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="genchess-soak-"))
    base.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.minutes * 60
    kinds = [KINDS[name](base, args.seed, args.workers, args.quick) for name in args.kinds]
    figures = {(kind.name, executor): Figures() for kind in kinds for executor in args.executors}
    references = {}
    for kind in kinds:
        if kind.deterministic:
            references[kind.name] = reference_run(kind, base / f"{kind.name.replace(' ', '-')}-reference",
                                                  figures[kind.name, args.executors[0]])
    cluster = LoopbackCluster(base / "cluster", args.workers) if "dask" in args.executors else None
    try:
        # Every kind on every executor once, then on in turn until the minutes are used.
        cells = [(kind, executor) for kind in kinds for executor in args.executors
                 if not kind.deterministic or references[kind.name] is not None]
        for trial, (kind, executor) in enumerate(itertools.cycle(cells), start=1):
            if trial > len(cells) and (args.quick or time.monotonic() >= deadline):
                break
            plan = ["group", "worker"] if args.quick else random_plan(rng)
            cell = figures[kind.name, executor]
            if executor == "dask" and not cluster.wait_for_workers(60):
                cell.failures.append("the loopback cluster lost its workers; started anew")
                cluster.close()
                cluster = LoopbackCluster(base / f"cluster-{trial}", args.workers)
            directory = base / f"trial-{trial:03d}-{kind.name.replace(' ', '-')}-{executor}"
            run = Trial(kind, directory, cluster if executor == "dask" else None,
                        references.get(kind.name), random.Random(rng.random()), plan, cell)
            run.run()
            cell.trials += 1
            cell.failures += [f"{directory.name}: {p}" for p in run.problems]
            if not run.problems:
                shutil.rmtree(directory, ignore_errors=True)
    finally:
        if cluster is not None:
            cluster.close()
    failed = any(f.failures for f in figures.values())
    if not failed and not args.dir:
        shutil.rmtree(base, ignore_errors=True)
    elif failed:
        out(f"The files of the failed trials are kept in {base}")
    return figures


def report(figures: dict[tuple[str, str], Figures], out=print) -> int:
    out(f"{'kind':<10} {'executor':<9} {'trials':>6} {'kills':>6} {'worker kills':>12} "
        f"{'resumes':>8} {'checks':>7} {'failures':>9}")
    by_kind: dict[str, Figures] = {}
    for (kind, executor), f in figures.items():
        by_kind.setdefault(kind, Figures()).add(f)
        out(f"{kind:<10} {executor:<9} {f.trials:>6} {f.kills:>6} {f.worker_kills:>12} "
            f"{f.resumes:>8} {f.checks:>7} {len(f.failures):>9}")
    total = Figures()
    for kind, f in by_kind.items():
        total.add(f)
        out(f"{kind:<10} {'all':<9} {f.trials:>6} {f.kills:>6} {f.worker_kills:>12} "
            f"{f.resumes:>8} {f.checks:>7} {len(f.failures):>9}")
    out(f"total: {total.trials} trials, {total.kills} kills, {total.worker_kills} worker kills, "
        f"{total.resumes} resumes, {total.checks} checks, {len(total.failures)} failures")
    for failure in total.failures:
        out(f"FAILED {failure}")
    return 1 if total.failures else 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=20,
                   help="how long to go on starting trials (the last one is finished; default 20)")
    p.add_argument("--quick", action="store_true",
                   help="one trial of each kind on local processes, killed once whole and once "
                        "in a worker (about a minute)")
    p.add_argument("--kinds", default=",".join(KINDS),
                   help=f"which runs, separated by commas: {', '.join(KINDS)} (default: all)")
    p.add_argument("--executors", default=",".join(EXECUTORS),
                   help="local, dask or both (default), separated by commas")
    p.add_argument("--workers", type=int, default=1, help="worker processes of every run (default 1)")
    p.add_argument("--seed", type=int, default=1, help="seed of the runs and of the kills (default 1)")
    p.add_argument("--dir", help="keep every file here (default: a temporary folder, removed "
                                 "unless a trial failed)")
    args = p.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    args.executors = [e.strip() for e in args.executors.split(",") if e.strip()]
    if args.quick:
        args.executors = ["local"]
    for name, given, known in (("--kinds", args.kinds, KINDS), ("--executors", args.executors, EXECUTORS)):
        if not given or set(given) - set(known):
            p.error(f"{name}: expected some of {', '.join(known)}, not {','.join(given)!r}")
    if args.workers < 1:
        p.error("--workers: at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    figures = soak(args)
    code = report(figures)
    print(f"{time.monotonic() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
