"""Shared helpers for the protocol tests: launching GenChess, a raw line driver,
the Fairy-Max wrapper and a game player that keeps a real clock.

The tests drive the engine exactly as a GUI does, through a separate process. In
CI that is the `genchess` console script of the venv running pytest; in place, it
is `python -m genchess` with the repository on PYTHONPATH. The raw driver reads
the engine's output in a thread and never blocks the test on a write, so a hung
or dead engine fails a test with a transcript instead of hanging the run.
"""

from __future__ import annotations

import datetime
import gc
import importlib.util
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import chess
import chess.engine
import pytest

from genchess.game.external import quit_engine

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA = REPO_ROOT / "genchess" / "data"      # openings and tactics users run too
TEST_DATA = REPO_ROOT / "tests" / "data"            # test-only data (the perft suite)



# ------------------------------------------------------------------ positions

def random_fens(count, seed=1, captures=0.5):
    """Varied legal positions (not in check, game not over) from random games that
    favour captures, so material is often en prise."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randrange(6, 140)):
            moves = list(board.legal_moves)
            if not moves:
                break
            takes = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(takes if takes and rng.random() < captures else moves))
        if not board.is_game_over() and not board.is_check():
            fens.append(board.fen())
    return fens

# ------------------------------------------------------------------ launching

def genchess_command(*args: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that run `genchess ARGS`."""
    env = dict(os.environ)
    script = Path(sys.executable).parent / "genchess"
    if script.exists():
        return [str(script), *args], env
    spec = importlib.util.find_spec("genchess")
    # Found nowhere, or only because the repository is on sys.path (cwd,
    # PYTHONPATH=.): the child needs the repository root on its own path.
    if spec is None or spec.origin is None or REPO_ROOT in Path(spec.origin).resolve().parents:
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + old if old else "")
    return [sys.executable, "-m", "genchess", *args], env


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """`genchess ARGS | head -0`: the command's stdout is a pipe whose reader has gone.
    stdout is buffered, as on most machines (PYTHONUNBUFFERED dropped), so short output
    breaks the pipe only when it is flushed."""
    command, env = genchess_command(*args)
    env.pop("PYTHONUNBUFFERED", None)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(command, env=env, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(write_end)


def peer_engine(name: str) -> str:
    """Path of a Debian engine, or skip the test saying how to install it."""
    path = shutil.which(name) or shutil.which(name, path="/usr/games")
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return path


def tournament():
    """genchess.strength.tournament_managers, the one place tests and scripts find
    cutechess-cli and fastchess and read their results."""
    from genchess.strength import tournament_managers
    return tournament_managers


def tournament_manager(name: str) -> str:
    """Path of cutechess-cli or fastchess, or skip the test saying why it is missing."""
    path, why = tournament().find_manager(name)
    if path is None:
        pytest.skip(why)
    return path


def opening_fens(count: int, seed: int) -> list[str]:
    """`count` positions of the shipped openings.epd, chosen by a seeded draw."""
    import random

    path = PACKAGE_DATA / "openings.epd"
    if not path.exists():
        pytest.fail(f"test data {path} is missing (it ships in genchess/data/)")
    fens = []
    for line in path.read_text().splitlines():
        fields = line.split(";")[0].split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]) + " 0 1")
    return random.Random(seed).sample(fens, count)


# ------------------------------------------------------------------ raw driver

class RawEngine:
    """A process spoken to line by line; every output line is timestamped."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None):
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, bufsize=0)
        self.lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self.transcript: list[str] = []           # "> sent" and "< received", for messages
        self.stderr_chunks: list[bytes] = []
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._lock = threading.Lock()
        self._readers = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._readers:
            thread.start()
        threading.Thread(target=self._write_stdin, daemon=True).start()

    @classmethod
    def genchess(cls, *args: str) -> "RawEngine":
        argv, env = genchess_command(*args)
        return cls(argv, env)

    def _read_stdout(self):
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._lock:
                self.transcript.append("< " + line[:300])
            self.lines.put((time.monotonic(), line))
        self.lines.put(None)

    def _read_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read(4096), b""):
            self.stderr_chunks.append(chunk)

    def _write_stdin(self):
        while True:
            data = self._outbox.get()
            if data is None:
                break
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    def send(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode()
        with self._lock:
            shown = data[:120].decode("utf-8", "replace")
            self.transcript.append("> " + shown + ("..." if len(data) > 120 else ""))
        self._outbox.put(data + b"\n")

    def tail(self, n: int = 40) -> str:
        with self._lock:
            return "\n".join(self.transcript[-n:])

    def expect(self, match: str | Callable[[str], bool], timeout: float = 10.0,
               seen: list[str] | None = None) -> tuple[float, str]:
        """Wait for a line that starts with `match` (or satisfies it); the lines
        before it go to `seen`. Fails with the transcript on timeout or exit."""
        test = match if callable(match) else (lambda line: line.startswith(match))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                item = self.lines.get(timeout=max(left, 0))
            except queue.Empty:
                pytest.fail(f"no line matching {match!r} within {timeout} s "
                            f"(alive: {self.alive()}); transcript tail:\n{self.tail()}"
                            f"\nstderr:\n{self.stderr[-2000:]}")
            if item is None:
                self.lines.put(None)
                pytest.fail(f"engine exited (code {self.proc.poll()}) while waiting for "
                            f"{match!r}; transcript tail:\n{self.tail()}\nstderr:\n{self.stderr[-2000:]}")
            stamp, line = item
            if test(line):
                return stamp, line
            if seen is not None:
                seen.append(line)

    def drain(self, quiet: float = 0.3, limit: float = 5.0) -> list[str]:
        """The lines that arrive until `quiet` seconds pass without one."""
        out = []
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                item = self.lines.get(timeout=quiet)
            except queue.Empty:
                break
            if item is None:
                self.lines.put(None)
                break
            out.append(item[1])
        return out

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, quit_command: str | None = "quit", timeout: float = 5.0) -> int | None:
        if self.alive() and quit_command is not None:
            self.send(quit_command)
        self._outbox.put(None)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for thread in self._readers:            # so that .stderr is complete
            thread.join(5)
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def uci_session(*args: str) -> RawEngine:
    """A GenChess in UCI mode that has answered `uci` with `uciok`."""
    engine = RawEngine.genchess("uci", *args)
    try:
        engine.send("uci")
        engine.expect("uciok", timeout=20)
    except BaseException:
        engine.close()
        raise
    return engine


class Lines:
    """A channel's output that a test can watch from another thread."""
    def __init__(self):
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.extend(text.splitlines())

    def flush(self) -> None:
        pass


def xboard_session(*args: str) -> RawEngine:
    """A GenChess in xboard mode after `xboard` / `protover 2` and its features."""
    engine = RawEngine.genchess("xboard", *args)
    try:
        engine.send("xboard")
        engine.send("protover 2")
        engine.expect(lambda line: line.startswith("feature") and "done=1" in line, timeout=20)
    except BaseException:
        engine.close()
        raise
    return engine



def assert_xboard_plays_a_legal_first_move(engine: RawEngine) -> None:
    """`new`, one second a move, `go`: the engine answers with a legal White move."""
    engine.send("new")
    engine.send("st 1")
    engine.send("go")
    _, move = engine.expect("move ", timeout=10)
    assert chess.Move.from_uci(move.split()[1]) in chess.Board().legal_moves


# ------------------------------------------------------------------ Fairy-Max

def fairymax_command(tmp_path: Path) -> list[str]:
    """Fairy-Max behind the package's setboard-rewriting wrapper (python-chess
    refuses engines that declare setboard=0); play it from the start position."""
    from genchess.strength.setboard_wrapper import wrapped_command
    return wrapped_command([peer_engine("fairymax")])


# ------------------------------------------------------------------ games

@dataclass
class Player:
    name: str
    engine: chess.engine.SimpleEngine
    ours: bool                         # GenChess: its flag falls and illegal moves fail the test


@dataclass
class GameRecord:
    white: str
    black: str
    start_fen: str
    result: str = "*"
    reason: str = ""
    moves: list[str] = field(default_factory=list)
    clock_left: dict[str, float] = field(default_factory=dict)   # by player name, at the end
    min_clock: dict[str, float] = field(default_factory=dict)    # lowest before an increment
    failure: str | None = None         # set when one of our engines broke a rule

    def score_for(self, name: str) -> float | None:
        if self.result == "1/2-1/2":
            return 0.5
        if self.result == "1-0":
            return 1.0 if name == self.white else 0.0
        if self.result == "0-1":
            return 1.0 if name == self.black else 0.0
        return None

    def summary(self) -> str:
        clocks = ", ".join(f"{k} {v:.2f}s" for k, v in self.min_clock.items())
        return (f"{self.white} - {self.black}: {self.result} ({self.reason}, "
                f"{len(self.moves)} plies; lowest clocks {clocks}) from {self.start_fen}")


# GenChess engines started by a Launcher, to the protocol log each one keeps (`--log`):
# when one loses on time, its own timestamps tell a slow engine from a slow harness.
PROTOCOL_LOGS: "weakref.WeakKeyDictionary[chess.engine.SimpleEngine, Path]" = weakref.WeakKeyDictionary()


def last_answer_ms(log: Path) -> float | None:
    """Milliseconds from the last `go` to the `bestmove` after it in a protocol log,
    by the engine's own clock (UCI); None if the log has no such pair."""
    from genchess.protocols.channel import LOG_STAMP_FORMAT
    go = answer = None
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        # genchess.protocols.channel writes "<23-character stamp> >> text" (>> in, << out).
        stamp, text = line[:23], line[24:]
        if text.startswith(">> go"):
            go, answer = stamp, None
        elif text.startswith("<< bestmove") and go is not None:
            answer = stamp
    if go is None or answer is None:
        return None
    go_at, answer_at = (datetime.datetime.strptime(s, LOG_STAMP_FORMAT) for s in (go, answer))
    return (answer_at - go_at).total_seconds() * 1000


class GcPauses:
    """Holds the harness's automatic garbage collection while active and counts the
    wall time of any collection that runs anyway: a pause of the harness's own would
    count against the engine's clock here, as a GUI's never does. (A full collection
    late in a long pytest run took 629 ms at 1 s + 0.1 s and flagged an engine that
    had answered in time.) The held collection runs after the timed window."""

    def __init__(self):
        self.seconds = 0.0
        self._started = None
        self._was_enabled = False

    def _callback(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.seconds += time.perf_counter() - self._started
            self._started = None

    def __enter__(self):
        self._was_enabled = gc.isenabled()
        gc.disable()
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._callback)
        if self._was_enabled:
            gc.enable()


def kill_after(engine: chess.engine.SimpleEngine, seconds: float) -> threading.Timer:
    """Kill a hung engine so that its pending play() raises instead of hanging."""
    def kill():
        try:
            os.kill(engine.transport.get_pid(), signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    timer = threading.Timer(seconds, kill)
    timer.daemon = True
    timer.start()
    return timer


def play_game(white: Player, black: Player, start_fen: str = chess.STARTING_FEN, *,
              base: float, inc: float = 0.0, moves_per_session: int | None = None,
              max_plies: int = 200) -> GameRecord:
    """Play one game with a clock kept here from wall time, like a GUI's.

    Each engine's clock loses the wall time its play() took; it flags when that
    is more than what was left. With `moves_per_session`, each side gets `base`
    again after every session of that many of its own moves. A game still going
    at max_plies is adjudicated a draw."""
    board = chess.Board(start_fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    clock = {chess.WHITE: base, chess.BLACK: base}
    done = {chess.WHITE: 0, chess.BLACK: 0}
    record = GameRecord(white.name, black.name, start_fen)
    record.min_clock = {white.name: base, black.name: base}
    game_id = object()
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            record.result = outcome.result()
            record.reason = outcome.termination.name.lower()
            break
        if len(board.move_stack) >= max_plies:
            record.result, record.reason = "1/2-1/2", f"adjudicated after {max_plies} plies"
            break
        side = board.turn
        player = players[side]
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=inc if inc else None, black_inc=inc if inc else None,
                                   clock_id=game_id)
        if moves_per_session:
            limit.remaining_moves = moves_per_session - done[side] % moves_per_session
        watchdog = kill_after(player.engine, clock[side] + 15)
        start = time.monotonic()
        try:
            with GcPauses() as gc_pauses:
                played = player.engine.play(board, limit, game=game_id)
        except chess.engine.EngineError as e:            # illegal move, protocol error
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = f"{player.name} broke the protocol: {e}"
            if player.ours:
                record.failure = record.reason
            break
        except chess.engine.EngineTerminatedError as e:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = f"{player.name} crashed or hung: {e}"
            if player.ours:
                record.failure = record.reason
            break
        finally:
            watchdog.cancel()
        elapsed = time.monotonic() - start
        clock[side] -= elapsed
        record.min_clock[player.name] = min(record.min_clock[player.name], clock[side])
        if clock[side] < 0:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = (f"{player.name} lost on time: took {elapsed:.3f} s with "
                             f"{clock[side] + elapsed:.3f} s left at ply {len(board.move_stack) + 1}"
                             f" ({explain_time_loss(player.engine, gc_pauses.seconds)})")
            if player.ours:
                record.failure = record.reason
            break
        if played.resigned:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = f"{player.name} resigned"
            break
        if played.move is None:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = f"{player.name} returned no move in {board.fen()}"
            if player.ours:
                record.failure = record.reason
            break
        # python-chess has checked legality already; check again, cheaply and explicitly.
        if played.move not in board.legal_moves:
            record.result = "0-1" if side == chess.WHITE else "1-0"
            record.reason = f"{player.name} played illegal {played.move} in {board.fen()}"
            if player.ours:
                record.failure = record.reason
            break
        board.push(played.move)
        record.moves.append(played.move.uci())
        clock[side] += inc
        done[side] += 1
        if moves_per_session and done[side] % moves_per_session == 0:
            clock[side] += base
    record.clock_left = {players[c].name: clock[c] for c in (chess.WHITE, chess.BLACK)}
    if record.failure is None:
        # Tell xboard engines the game is over (UCI engines are sent nothing).
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(record.result)
        for player in (white, black):
            try:
                player.engine.send_game_result(board, winner=winner)
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError):
                pass
    return record


def explain_time_loss(engine: chess.engine.SimpleEngine, gc_seconds: float) -> str:
    """Where a lost move's time went: the engine's own go-to-bestmove time, when it
    keeps a protocol log, and the harness's garbage-collection pauses meanwhile."""
    parts = []
    log = PROTOCOL_LOGS.get(engine)
    own = last_answer_ms(log) if log is not None else None
    if own is not None:
        parts.append(f"by its own log it answered in {own:.0f} ms")
    parts.append(f"the harness spent {gc_seconds * 1000:.0f} ms in garbage collection")
    return "; ".join(parts)


def tally(records: list[GameRecord], name: str) -> str:
    """`W/D/L` of player `name` over the records it took part in."""
    w = d = l = 0
    for r in records:
        s = r.score_for(name)
        if s == 1.0:
            w += 1
        elif s == 0.5:
            d += 1
        elif s == 0.0:
            l += 1
    return f"{name}: +{w} ={d} -{l}"


def run_match(ours: Player, theirs: Player, starts: list[str], *, base: float, inc: float = 0.0,
              moves_per_session: int | None = None, max_plies: int = 200) -> list[GameRecord]:
    """One game per start position, colours alternating (ours White in the first).
    Stops at the first game in which one of our engines broke a rule."""
    records = []
    for i, fen in enumerate(starts):
        white, black = (ours, theirs) if i % 2 == 0 else (theirs, ours)
        record = play_game(white, black, fen, base=base, inc=inc,
                           moves_per_session=moves_per_session, max_plies=max_plies)
        print(record.summary())
        records.append(record)
        if record.failure:
            break
    print(tally(records, ours.name))
    return records


class Launcher:
    """Starts python-chess engines with each one's stderr captured to a file.

    `close()` quits them all (killing what does not quit) and returns the
    problems found: a GenChess whose stderr holds a traceback, or that died."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.started: list[tuple[str, chess.engine.SimpleEngine, Path, bool]] = []

    def _stderr_file(self, name: str) -> Path:
        return self.tmp_path / f"stderr-{len(self.started)}-{name}.txt"

    def genchess(self, protocol: str, *args: str, name: str = "GenChess") -> chess.engine.SimpleEngine:
        log = self.tmp_path / f"protocol-{len(self.started)}-{name}.log"
        argv, env = genchess_command(protocol, *args, "--log", str(log))
        err = self._stderr_file(name)
        with open(err, "wb") as stderr:
            popen = (chess.engine.SimpleEngine.popen_uci if protocol == "uci"
                     else chess.engine.SimpleEngine.popen_xboard)
            engine = popen(argv, env=env, stderr=stderr, timeout=20)
        self.started.append((name, engine, err, True))
        PROTOCOL_LOGS[engine] = log
        return engine

    def peer(self, argv: list[str], protocol: str, name: str) -> chess.engine.SimpleEngine:
        err = self._stderr_file(name)
        with open(err, "wb") as stderr:
            popen = (chess.engine.SimpleEngine.popen_uci if protocol == "uci"
                     else chess.engine.SimpleEngine.popen_xboard)
            engine = popen(argv, stderr=stderr, timeout=20)
        self.started.append((name, engine, err, False))
        return engine

    def problems(self) -> list[str]:
        found = []
        for name, engine, err, ours in self.started:
            if not ours:
                continue
            text = err.read_text(errors="replace")
            if "Traceback" in text:
                found.append(f"{name} wrote a traceback on stderr:\n{text[-3000:]}")
        return found

    def close(self) -> list[str]:
        for name, engine, err, ours in self.started:
            quit_engine(engine)
        found = self.problems()
        self.started.clear()
        return found
