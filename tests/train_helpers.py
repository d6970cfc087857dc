"""Shared helpers for the gene-pool trainer tests: configs, commands, file checks.

The checks here read the trainer's files independently of genchess/train: PGN with
python-chess, Still Alive snapshots with a few lines of text handling, and the
evolution rules replayed from pool.py's documentation (not its code), so a test
that uses them fails when the files and the documented rules disagree.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import chess
import chess.pgn

from genchess.game import can_mate
from genchess.parallel.replay import board_end

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA = REPO_ROOT / "genchess" / "data"

# A small, fast configuration: every key written out, overridable by name.
BASE_CONFIG = {
    "workers": "2",
    "gene pool population": "4",
    "gene pool count": "2",
    "pool swap interval": "4",
    "minimum game time": "0.2",
    "maximum game time": "0.4",
    "game time added per round": "0.1",
    "oscillating time": "yes",
    "run file": "pool.txt",
    "seed": "11",
}
HEADERS = ("Round", "Pool", "WhiteID", "BlackID", "Result", "Termination", "Reason",
           "TimeControl", "Offspring", "Replaced")
RESULT_LINE = re.compile(r"(?:^|\s)(1-0|0-1|1/2-1/2)\n")


def config_text(base: dict[str, str] | None = None, **changes) -> str:
    """Config text from `base` (BASE_CONFIG); keyword names use _ for spaces, None drops a key."""
    values = dict(BASE_CONFIG if base is None else base)
    for name, value in changes.items():
        key = name.replace("_", " ")
        if value is None:
            values.pop(key, None)
        else:
            values[key] = str(value)
    return "".join(f"{key} = {value}\n" for key, value in values.items())


def write_config(path: Path, **changes) -> Path:
    path.write_text(config_text(**changes), encoding="utf-8")
    return path


# ------------------------------------------------------------------ commands

def _command(script: str, module: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """Run a console script of the venv, or `python -m module` with the repo on the path."""
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)       # the tests must see what a pipe really gets
    installed = Path(sys.executable).parent / script
    if installed.exists():
        return [str(installed), *args], env
    spec = importlib.util.find_spec("genchess")
    if spec is None or spec.origin is None or REPO_ROOT in Path(spec.origin).resolve().parents:
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + old if old else "")
    return [sys.executable, "-m", module, *args], env


def train_command(*args: str):
    return _command("genchess-train", "genchess.train.cli", *args)


def plot_command(*args: str):
    return _command("genchess-plot", "genchess.plot", *args)


def genchess_command(*args: str):
    return _command("genchess", "genchess", *args)


def certs_command(*args: str):
    return _command("genchess-cluster-certs", "genchess.parallel.certs", *args)


def run(argv_env, cwd: Path, timeout: float = 180, **kwargs) -> subprocess.CompletedProcess:
    argv, env = argv_env
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def _ctrl_c_as_in_a_terminal():
    """In the child: SIGINT and SIGTERM at their defaults, as for a command a user
    starts in a terminal. A pytest run started in the background (`pytest &`, a CI
    job) has SIGINT ignored, children inherit that, and the Ctrl-C tests would then
    see a process that, rightly, does not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Background:
    """A trainer process in its own session, its output collected by threads."""

    def __init__(self, argv_env, cwd: Path, unbuffered: bool = False):
        argv, env = argv_env
        if unbuffered:                      # for a process that will be killed -9
            env = {**env, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True,
                                     preexec_fn=_ctrl_c_as_in_a_terminal)
        self.stdout_lines: list[str] = []
        self.stderr_lines: list[str] = []
        self._threads = [threading.Thread(target=self._read, args=(self.proc.stdout, self.stdout_lines),
                                          daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr_lines),
                                          daemon=True)]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _read(stream, lines):
        for raw in iter(stream.readline, b""):
            lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def state(self) -> str | None:
        """The process state letter from /proc (R, S, T, Z...), None once reaped."""
        try:
            text = Path(f"/proc/{self.proc.pid}/stat").read_text()
        except OSError:
            return None
        return text.rsplit(")", 1)[1].split()[0]

    def wait(self, timeout: float) -> int:
        code = self.proc.wait(timeout)
        for thread in self._threads:
            thread.join(5)
        return code

    def output(self) -> str:
        return ("stdout:\n" + "\n".join(self.stdout_lines[-30:]) +
                "\nstderr:\n" + "\n".join(self.stderr_lines[-30:]))

    def kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            pass


def wait_for(condition, timeout: float, what: str, proc: Background | None = None,
             interval: float = 0.05):
    """Poll `condition` until true; fail with `what` (and the process output) on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if proc is not None and proc.proc.poll() is not None:
            value = condition()
            if value:
                return value
            raise AssertionError(f"process exited ({proc.proc.returncode}) while waiting for "
                                 f"{what}\n{proc.output()}")
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}"
                         + (f"\n{proc.output()}" if proc else ""))


def client_security(files):
    """dask's Security for a client holding the trainer's pair of certs.ClusterFiles."""
    import distributed
    cert, key = files.client
    return distributed.Security(tls_ca_file=str(files.ca), tls_client_cert=str(cert),
                                tls_client_key=str(key), require_encryption=True)


class DaskProcesses:
    """`dask scheduler` and `dask worker --nthreads 1 --nworkers N`, as docs/cluster.md
    starts them, each in its own session so a test can kill exactly one of them.
    With `tls` (a certs.ClusterFiles), both get the cluster's files and TLS options."""

    def __init__(self, directory: Path, workers: int = 2, tls=None):
        self.directory = directory
        self.file = directory / "scheduler.json"
        self.file.unlink(missing_ok=True)
        self.tls = tls
        options = []
        if tls is not None:
            cert, key = tls.cluster
            options = ["--tls-ca-file", str(tls.ca), "--tls-cert", str(cert), "--tls-key", str(key)]
        # (dask's HTTP pages listen even without a dashboard: on the loopback, any port)
        options += ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
        # cwd: not the repository, whose source tree (without the built core) would
        # shadow the installed GenChess for `python -m` in a clone installed without -e.
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True,
                 "cwd": directory}
        host = "tls://127.0.0.1" if tls is not None else "127.0.0.1"
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "dask", "scheduler", "--host", host, "--port", "0",
             "--scheduler-file", str(self.file), *options], **quiet)
        wait_for(lambda: self.file.exists() and self.file.stat().st_size, 60, "the scheduler file")
        time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]
        self.workers = subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", self.address, "--nthreads", "1",
             "--nworkers", str(workers), *options], **quiet)

    def client(self):
        import distributed
        security = client_security(self.tls) if self.tls is not None else None
        return distributed.Client(self.address, set_as_default=False, timeout=30, security=security)

    def close(self):
        for proc in (self.workers, self.scheduler):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(30)


# ------------------------------------------------------------------ reading the files

def count_game_starts(path: Path) -> int:
    try:
        return path.read_text(encoding="utf-8", errors="replace").count("[Event ")
    except FileNotFoundError:
        return 0


def complete_games_prefix(text: str) -> str:
    """The text up to the end of the last complete game (its result line)."""
    end = 0
    for match in RESULT_LINE.finditer(text):
        end = match.end()
    return text[:end]


def complete_pool_prefix(text: str) -> str:
    """The text up to the end of the last complete genome (END) or Still Alive line."""
    end = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        offset += len(line)
        if line.endswith("\n") and (line.strip() == "END" or line.startswith("Still Alive:")):
            end = offset
    return text[:end]


def read_pgn_games(path: Path) -> list[chess.pgn.Game]:
    """Every game of a PGN file, read with python-chess; fails on any reading error."""
    games = []
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            assert not game.errors, f"python-chess could not read game {len(games) + 1}: {game.errors}"
            games.append(game)
    return games


def read_pgn_text(text: str) -> list[chess.pgn.Game]:
    import io
    games = []
    f = io.StringIO(text)
    while (game := chess.pgn.read_game(f)) is not None:
        games.append(game)
    return games


def game_key(game: chess.pgn.Game) -> tuple:
    h = game.headers
    return (h["Round"], h["Pool"], h["WhiteID"], h["BlackID"], h["Offspring"])


def still_alive_snapshots(pool_text: str, pool_count: int) -> list[dict[int, list[int]]]:
    """Complete snapshots (Still Alive lines for pools 0..n-1 in a row), in order."""
    snapshots, current = [], {}
    for line in pool_text.splitlines():
        if not line.startswith("Still Alive:"):
            continue
        match = re.fullmatch(r"Still Alive: (\d+) : ([\d ]+)", line.strip())
        assert match, f"malformed Still Alive line {line!r}"
        pool, ids = int(match.group(1)), [int(i) for i in match.group(2).split()]
        if pool == 0:
            current = {}
        assert pool == len(current), f"Still Alive lines out of order at {line!r}"
        current[pool] = ids
        if len(current) == pool_count:
            snapshots.append(current)
            current = {}
    return snapshots


def genome_ids_in_order(pool_text: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^ID: (\d+)$", pool_text, re.M)]


# ------------------------------------------------------------------ the rules, replayed

class ReplayStats:
    def __init__(self):
        self.wins = self.losses = self.draws = self.games = 0


def documented_best(members, stats) -> int:
    """pool.py: most wins; ties: more games survived, then the lower ID."""
    return sorted(members, key=lambda i: (-stats[i].wins, -stats[i].games, i))[0]


def documented_weakest(members, stats) -> int:
    """pool.py: fewest wins among those who have played; ties: more losses, then more
    games, then the higher ID (everyone, if no one has played)."""
    played = [i for i in members if stats[i].games > 0] or list(members)
    return sorted(played, key=lambda i: (stats[i].wins, -stats[i].losses, -stats[i].games, -i))[0]


def replay_run(pool_text: str, games: list[chess.pgn.Game], population: int, pool_count: int,
               swap_interval: int) -> list[dict[int, list[int]]]:
    """Check every snapshot against the previous one, the round's games and the
    documented rules (offspring replaces the loser, a player of a drawn game after a
    draw, swaps of best over weakest when a multiple of the swap interval is crossed).
    Returns the snapshots."""
    snapshots = still_alive_snapshots(pool_text, pool_count)
    assert snapshots, "no complete Still Alive snapshot"
    by_round = defaultdict(list)
    for game in games:
        by_round[int(game.headers["Round"])].append(game)
    assert set(by_round) <= set(range(1, len(snapshots))), \
        f"games of rounds {sorted(set(by_round))} but {len(snapshots) - 1} rounds closed"
    stats = defaultdict(ReplayStats)
    played = 0
    for r in range(1, len(snapshots)):
        members = {p: list(ids) for p, ids in snapshots[r - 1].items()}
        before = played
        for game in by_round.get(r, []):
            h = game.headers
            pool, white, black = int(h["Pool"]), int(h["WhiteID"]), int(h["BlackID"])
            offspring, replaced = int(h["Offspring"]), int(h["Replaced"])
            where = f"round {r} pool {pool}: {white} vs {black} {h['Result']}"
            assert white in members[pool] and black in members[pool], f"{where}: not both alive"
            result = h["Result"]
            if result == "1-0":
                assert replaced == black, f"{where}: replaced {replaced}, not the loser"
                winner, loser = white, black
            elif result == "0-1":
                assert replaced == white, f"{where}: replaced {replaced}, not the loser"
                winner, loser = black, white
            else:
                assert result == "1/2-1/2", where
                assert replaced in (white, black), f"{where}: replaced {replaced}"
                winner = loser = None
            for player in (white, black):
                stats[player].games += 1
                if winner is None:
                    stats[player].draws += 1
            if winner is not None:
                stats[winner].wins += 1
                stats[loser].losses += 1
            members[pool][members[pool].index(replaced)] = offspring
            played += 1
        if pool_count > 1 and played // swap_interval > before // swap_interval:
            bests = [documented_best(members[p], stats) for p in range(pool_count)]
            for p, best in enumerate(bests):
                target = (p + 1) % pool_count
                if best in members[target]:
                    continue
                weakest = documented_weakest(members[target], stats)
                members[target][members[target].index(weakest)] = best
        assert members == snapshots[r], (f"after round {r}: replaying the games and the rules "
                                        f"gives {members}, the pool file says {snapshots[r]}")
        for p, ids in snapshots[r].items():
            assert len(ids) == population and len(set(ids)) == population, (r, p, ids)
    return snapshots


def check_run_files(pool_file: Path, population: int, pool_count: int, swap_interval: int,
                    fresh: bool = True):
    """The common checks of a run's files; returns (games, snapshots, genome ids)."""
    from genchess.genome import read_genome_file

    games_file = Path(str(pool_file) + "_games.txt")
    pool_text = pool_file.read_text(encoding="utf-8")
    genome_file = read_genome_file(pool_file)          # raises on any bad genome
    ids = [g.id for g in genome_file.genomes]
    assert ids == genome_ids_in_order(pool_text)
    assert len(ids) == len(set(ids)), "a genome ID appears twice"
    assert ids == sorted(ids), "genome IDs are not in order of birth"
    if fresh:
        assert ids == list(range(len(ids))), "IDs of an uninterrupted run are not consecutive"
    games = read_pgn_games(games_file)
    assert len(games) == count_game_starts(games_file), "python-chess did not read every game"
    id_set = set(ids)
    for game in games:
        h = game.headers
        missing = [k for k in HEADERS if k not in h]
        assert not missing, f"game headers lack {missing}: {dict(h)}"
        assert int(h["Offspring"]) in id_set, f"offspring {h['Offspring']} not in the pool file"
        assert h["White"] == f"GenChess {h['WhiteID']}" and h["Black"] == f"GenChess {h['BlackID']}"
        check_game_ending(game)
    offspring = [int(g.headers["Offspring"]) for g in games]
    assert len(offspring) == len(set(offspring)), "an offspring ID appears in two games"
    rounds = [int(g.headers["Round"]) for g in games]
    assert rounds == sorted(rounds), "rounds are not in order in the games file"
    snapshots = replay_run(pool_text, games, population, pool_count, swap_interval)
    return games, snapshots, ids


def check_game_ending(game: chess.pgn.Game) -> None:
    """The Termination header agrees with the final position (python-chess as oracle)."""
    h = game.headers
    board = game.end().board()
    assert int(h["PlyCount"]) == board.ply() - game.board().ply()
    termination, result = h["Termination"], h["Result"]
    where = f"{h['Round']}/{h['Pool']} {h['WhiteID']}-{h['BlackID']} {termination} {result}"
    if termination == "checkmate":
        assert board.is_checkmate(), where
        assert result == ("0-1" if board.turn == chess.WHITE else "1-0"), where
    elif termination == "stalemate":
        assert board.is_stalemate() and result == "1/2-1/2", where
    elif termination == "insufficient material":
        assert board.is_insufficient_material() and result == "1/2-1/2", where
    elif termination == "threefold repetition":
        assert board.can_claim_threefold_repetition() and result == "1/2-1/2", where
    elif termination == "fifty moves":
        assert board.can_claim_fifty_moves() and result == "1/2-1/2", where
    elif termination == "time forfeit":
        # The flag fell for the side to move, in a position where the game went on by
        # play_game's rules (board_end). Not python-chess's is_game_over(claim_draw=True):
        # that also counts a draw the mover could have claimed with its next move, which
        # a player who runs out of time never makes.
        end = board_end(board)
        assert end is None, f"{where}: the game was already over by {end}"
        opponent_can_mate = can_mate(board, white=board.turn != chess.WHITE)
        loses = "0-1" if board.turn == chess.WHITE else "1-0"
        assert result == (loses if opponent_can_mate else "1/2-1/2"), where
    else:
        assert termination in ("seventyfive moves", "fivefold repetition", "resignation",
                               "move limit"), where


def copy_run(source_dir: Path, target_dir: Path, name: str = "pool.txt") -> Path:
    target_dir.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "_games.txt"):
        shutil.copyfile(source_dir / (name + suffix), target_dir / (name + suffix))
    return target_dir / name


# ------------------------------------------------------------------ one short real run

_SHORT_RUN: dict[str, Path] = {}
SHORT_RUN_CONFIG = dict(time_limit="15 seconds", seed=5)


def short_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A short CLI run (2 pools of 4, 0.2-0.4 s games, 15 s), made once per session.

    The config lives in its own directory and the run's cwd is another, so the
    relative `run file` shows that it is relative to the current directory.
    Returns the run directory (pool.txt and pool.txt_games.txt) and the process."""
    if "dir" not in _SHORT_RUN:
        base = tmp_path_factory.mktemp("short_run")
        (base / "config").mkdir()
        run_dir = base / "run"
        run_dir.mkdir()
        cfg = write_config(base / "config" / "short.cfg", **SHORT_RUN_CONFIG)
        proc = run(train_command(str(cfg)), cwd=run_dir, timeout=240)
        _SHORT_RUN["dir"], _SHORT_RUN["proc"] = run_dir, proc
    return _SHORT_RUN["dir"], _SHORT_RUN["proc"]
