"""Protocol storm: UCI commands arriving at every moment of a (threaded) search.

    python scripts/dev/protocol_storm.py --seconds 600               # ten minutes, Threads 1 and 2 in turn
    python scripts/dev/protocol_storm.py --seconds 60 --threads 2 --seed 7

A real `genchess uci` process gets rounds of commands: a position and a `go` (infinite,
movetime, depth, nodes, mate, a clock, or ponder), then after random delays of 0 to 50 ms
(0 often) a random run of `stop`, `ponderhit`, `isready`, `ucinewgame`, `setoption name
Threads value N`, `position ...` and `go ...`, and at the end of the round `stop` and
`isready`; at the end `quit`. What a tournament manager relies on is checked:

- every `go` the engine takes gets exactly one `bestmove`, legal in the position it was
  given (and its ponder move legal after it); a `go` or `position` sent while the engine
  searches is refused with an `info string` and changes nothing;
- no `bestmove` of an infinite or ponder search before its `stop` (or ponderhit), and
  every `bestmove` within --patience seconds of what ends its search (a stop, the time
  it was given); no search `info` line after its `bestmove`;
- `isready` answered within --patience seconds, always;
- after `quit` the process exits within two seconds with status 0 and nothing on stderr
  (no traceback), so no thread was left running.

A reply is tied to its command by `isready`: the protocol thread answers in order, and
every `go`, `position` and `setoption` is followed at once by `isready`, so what comes
before the matching `readyok` is that command's answer. Every round ends with `stop` and
a `readyok`, after which every search of the round has given its best move (`stop` waits
for it): rounds are checked one by one. The exit status is 1 on any failure.
tests/test_protocol_storm.py runs a short storm of each thread count.
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess

REPO_ROOT = Path(__file__).resolve().parents[2]

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITIONS = [
    # (the `position` arguments, a FEN python-chess starts from, moves)
    ("startpos", chess.STARTING_FEN, []),
    ("startpos moves e2e4 e7e5 g1f3 b8c6", chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3", "b8c6"]),
    (f"fen {KIWIPETE}", KIWIPETE, []),
    ("fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", []),
    ("fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", []),  # mate in 1
    ("fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", []),              # mated
]
SLOW_SEARCH = 10.0      # seconds a depth, nodes or mate search of the sizes below may take at most
STOPPERS = ("stop", "ucinewgame", "quit")


@dataclass
class Go:
    """A `go` as sent, and what should end it."""
    words: str
    sent: float
    position: tuple[str, list[str]]       # FEN and moves of the position it searches
    kind: str                             # infinite, ponder, timed (movetime or clock), sized
    seconds: float = 0.0                  # its time (timed), or its clock (ponder, after a ponderhit)
    accepted: bool | None = None
    ended: float | None = None            # when a stop, ucinewgame or quit was sent after it
    ponderhit: float | None = None


@dataclass
class Report:
    commands: int = 0
    rounds: int = 0
    gos: int = 0
    searches: int = 0                     # gos the engine took
    refused: int = 0                      # gos it refused because it was searching
    bestmoves: int = 0
    readyoks: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: "Report") -> None:
        for name in ("commands", "rounds", "gos", "searches", "refused", "bestmoves", "readyoks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures

    def summary(self) -> str:
        return (f"{self.rounds} rounds, {self.commands} commands, {self.gos} go ({self.searches} searched, "
                f"{self.refused} refused while searching), {self.bestmoves} bestmove, "
                f"{self.readyoks} readyok, {len(self.failures)} failures")


def genchess_command() -> tuple[list[str], dict[str, str]]:
    """`genchess uci` of this Python's GenChess, or of this checkout run as a module."""
    env = dict(os.environ)
    command = shutil.which("genchess", path=str(Path(sys.executable).parent))
    if command:
        return [command, "uci"], env
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return [sys.executable, "-m", "genchess", "uci"], env


class Process:
    """The engine; every line both ways with the time it was sent or read."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, text=True, bufsize=1)
        self.lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr),
                                               daemon=True)
        self._stderr_reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put(None)

    def send(self, line: str) -> float:
        sent = time.monotonic()
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass                    # it died: the reader says so
        return sent

    def read_until(self, test, timeout: float) -> tuple[list[tuple[float, str]], bool]:
        """The lines up to and including the first that passes `test`, and whether one did
        within `timeout` seconds (False also when the engine has exited)."""
        got, deadline = [], time.monotonic() + timeout
        while True:
            try:
                item = self.lines.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                return got, False
            if item is None:
                self.lines.put(None)
                return got, False
            got.append(item)
            if test(item[1]):
                return got, True

    def finish(self, timeout: float) -> tuple[int | None, float]:
        """Exit status (None: killed) and seconds to exit after `quit`."""
        sent = self.send("quit")
        try:
            self.proc.wait(timeout)
            code = self.proc.returncode
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        waited = time.monotonic() - sent
        self._stderr_reader.join(5)
        return code, waited


class Storm:
    def __init__(self, process: Process, rng: random.Random, max_threads: int, patience: float):
        self.process = process
        self.rng = rng
        self.max_threads = max_threads
        self.patience = patience
        self.position = (chess.STARTING_FEN, [])
        self.sent: list[tuple[float, str]] = []

    # ------------------------------------------------------------ what is sent

    def send(self, line: str, sync: bool = False) -> None:
        self.sent.append((self.process.send(line), line))
        if sync:
            self.sent.append((self.process.send("isready"), "isready"))

    def random_go(self) -> str:
        r = self.rng
        kind = r.choice(["infinite", "movetime", "depth", "nodes", "mate", "clock", "ponder"])
        if kind == "infinite":
            return "go infinite"
        if kind == "movetime":
            return f"go movetime {r.choice([0, 1, 5, 20, 50, 120])}"
        if kind == "depth":
            return f"go depth {r.randint(1, 5)}"
        if kind == "nodes":
            return f"go nodes {r.choice([1, 100, 5000, 30000])}"
        if kind == "mate":
            return f"go mate {r.randint(1, 2)}"
        clock = r.choice([50, 300, 1000, 2000])
        increment = r.choice([0, 10, 100])
        ponder = "ponder " if kind == "ponder" else ""
        return f"go {ponder}wtime {clock} btime {clock} winc {increment} binc {increment}"

    def random_command(self) -> tuple[str, bool]:
        r = self.rng.random()
        if r < 0.25:
            return "stop", False
        if r < 0.38:
            return "ponderhit", False
        if r < 0.50:
            return "isready", False
        if r < 0.58:
            return "ucinewgame", False
        if r < 0.68:
            threads = self.rng.randint(1, self.max_threads + (self.rng.random() < 0.2))
            return f"setoption name Threads value {threads}", True
        if r < 0.82:
            return "position " + self.rng.choice(POSITIONS)[0], True
        return self.random_go(), True

    def delay(self) -> None:
        if self.rng.random() >= 0.3:
            time.sleep(self.rng.uniform(0, 0.05))

    def round(self) -> Report:
        """One round, then its check."""
        self.sent = []
        self.send("position " + self.rng.choice(POSITIONS)[0], sync=True)
        self.send(self.random_go(), sync=True)
        for _ in range(self.rng.randint(0, 7)):
            if self.sent[-2][1].startswith("go ponder") and self.rng.random() < 0.3:
                self.send("ponderhit")      # at once: the ponderhit that beats the search's start
                continue
            self.delay()
            self.send(*self.random_command())
        self.delay()
        if self.rng.random() < 0.4:
            # Let the searches end by themselves: a stop only once they are overdue.
            time.sleep(min(max(self.natural_end() + self.patience + 0.1 - time.monotonic(), 0), 3.5))
        self.send("stop")
        self.send("isready")
        return self.check()

    def natural_end(self) -> float:
        """When the round's timed searches (and ponder searches after a ponderhit) must
        have ended by their own clocks, whichever of them the engine took."""
        ends, ponder = [0.0], None
        for sent, line in self.sent:
            words = line.split()
            if words[0] == "go":
                seconds = self.seconds_of(words)
                ponder = sent if self.kind_of(words) == "ponder" else None
                if self.kind_of(words) == "timed":
                    ends.append(sent + seconds)
            elif words[0] == "ponderhit" and ponder is not None:
                ends.append(sent + seconds)
                ponder = None
        return max(ends)

    # ------------------------------------------------------------ what came back

    def check(self) -> Report:
        report = Report(rounds=1, commands=len(self.sent))
        readies = [t for t, line in self.sent if line == "isready"]
        lines: list[tuple[float, str]] = []
        while report.readyoks < len(readies):
            # The last readyok comes after the round's stop, which waits for the search.
            got, ok = self.process.read_until(lambda line: line == "readyok",
                                              readies[report.readyoks] + self.patience
                                              - time.monotonic())
            lines += got
            if not ok:
                report.failures.append(self.failure(
                    f"isready {report.readyoks + 1} of the round unanswered within {self.patience} s "
                    f"(engine alive: {self.process.proc.poll() is None})", lines))
                return report
            report.readyoks += 1
            late = lines[-1][0] - readies[report.readyoks - 1]
            if late > self.patience:
                report.failures.append(self.failure(f"readyok after {late:.2f} s", lines))
        self.judge(lines, report)
        return report

    def judge(self, lines: list[tuple[float, str]], report: Report) -> None:
        # Each command's answer: the `info string` lines between its group's readyoks.
        answers: list[list[str]] = [[]]
        for _, line in lines:
            if line == "readyok":
                answers.append([])
            elif line.startswith("info string"):
                answers[-1].append(line)
        gos: list[Go] = []
        group = 0
        for sent, line in self.sent:
            if line == "isready":
                group += 1
                continue
            words = line.split()
            answer = " ".join(answers[group]) if group < len(answers) else ""
            if words[0] == "position":
                if "position ignored" not in answer:
                    spec = next(p for p in POSITIONS if p[0] == line[len("position "):])
                    self.position = (spec[1], spec[2])
            elif words[0] == "go":
                report.gos += 1
                go = Go(line, sent, self.position, kind=self.kind_of(words))
                go.seconds = self.seconds_of(words)
                go.accepted = "go ignored" not in answer
                if go.accepted:
                    report.searches += 1
                    gos.append(go)
                else:
                    report.refused += 1
            elif gos and (words[0] in STOPPERS) and gos[-1].ended is None:
                gos[-1].ended = sent
            elif gos and words[0] == "ponderhit" and gos[-1].kind == "ponder" \
                    and gos[-1].ponderhit is None and gos[-1].ended is None:
                gos[-1].ponderhit = sent
        bestmoves = [(t, line) for t, line in lines if line.startswith("bestmove")]
        report.bestmoves = len(bestmoves)
        if len(bestmoves) != len(gos):
            report.failures.append(self.failure(
                f"{len(gos)} searches but {len(bestmoves)} bestmove lines", lines))
        for go, (received, line) in zip(gos, bestmoves):
            problem = self.judge_bestmove(go, received, line)
            if problem:
                report.failures.append(self.failure(problem, lines))
        # No search info after a bestmove, until the next go.
        starts = [go.sent for go in gos]
        for received, line in lines:
            if line.startswith("info") and not line.startswith("info string"):
                k = sum(1 for s in starts if s <= received) - 1
                if 0 <= k < len(bestmoves) and bestmoves[k][0] < received:
                    report.failures.append(self.failure(f"info after its bestmove: {line[:80]}", lines))
                    break

    @staticmethod
    def kind_of(words: list[str]) -> str:
        if "infinite" in words:
            return "infinite"
        if "ponder" in words:
            return "ponder"
        if "movetime" in words or "wtime" in words:
            return "timed"
        return "sized"

    @staticmethod
    def seconds_of(words: list[str]) -> float:
        for key in ("movetime", "wtime"):
            if key in words:
                return int(words[words.index(key) + 1]) / 1000
        return 0.0

    def judge_bestmove(self, go: Go, received: float, line: str) -> str | None:
        fen, moves = go.position
        board = chess.Board(fen)
        for move in moves:
            board.push_uci(move)
        words = line.split()
        if len(words) < 2:
            return f"{go.words!r}: malformed {line!r}"
        if words[1] == "0000":
            if any(board.legal_moves):
                return f"{go.words!r}: bestmove 0000 where there are legal moves ({board.fen()})"
        else:
            try:
                move = chess.Move.from_uci(words[1])
            except ValueError:
                return f"{go.words!r}: unreadable {line!r}"
            if move not in board.legal_moves:
                return f"{go.words!r}: illegal {line!r} in {board.fen()}"
            if len(words) >= 4 and words[2] == "ponder":
                board.push(move)
                if chess.Move.from_uci(words[3]) not in board.legal_moves:
                    return f"{go.words!r}: illegal ponder move in {line!r}"
        # When the search had to end: what ended it, or its own limit.
        ends = []
        if go.ended is not None:
            ends.append(go.ended)
        if go.kind == "timed":
            ends.append(go.sent + go.seconds)
        elif go.kind == "sized":
            ends.append(go.sent + SLOW_SEARCH)
        elif go.kind == "ponder" and go.ponderhit is not None:
            ends.append(go.ponderhit + go.seconds)
        if go.kind in ("infinite", "ponder"):
            first = min([t for t in (go.ended, go.ponderhit) if t is not None], default=None)
            if first is None or received < first:
                return f"{go.words!r}: {line!r} before stop or ponderhit"
        if ends and received > min(ends) + self.patience:
            return f"{go.words!r}: {line!r} {received - min(ends):.2f} s after its search had to end"
        return None

    def failure(self, problem: str, lines: list[tuple[float, str]]) -> str:
        """The problem with the round's commands and the engine's last lines."""
        start = self.sent[0][0] if self.sent else 0.0
        shown = [f"  > {t - start:7.3f} {line}" for t, line in self.sent]
        shown += [f"  < {t - start:7.3f} {line[:100]}" for t, line in lines
                  if not line.startswith("info ") or line.startswith("info string")][-25:]
        return problem + "\n" + "\n".join(shown)


def engine_max_threads(process: Process) -> int | None:
    process.send("uci")
    lines, ok = process.read_until(lambda line: line == "uciok", 30)
    if not ok:
        return None
    for _, line in lines:
        if line.startswith("option name Threads "):
            return int(line.split()[-1])
    return 1


def storm(seconds: float, threads: int, seed: int, patience: float = 1.0,
          argv: list[str] | None = None, env: dict[str, str] | None = None) -> Report:
    """Rounds for `seconds` against one engine process starting on `threads` threads."""
    if argv is None:
        argv, env = genchess_command()
    process = Process(argv, env)
    report = Report()
    max_threads = engine_max_threads(process)
    if max_threads is None:
        report.failures.append("no uciok within 30 s: " + "".join(process.stderr)[-500:])
        process.finish(2)
        return report
    rng = random.Random(seed)
    run = Storm(process, rng, max_threads, patience)
    run.send(f"setoption name Threads value {min(threads, max_threads)}")
    end = time.monotonic() + seconds
    while time.monotonic() < end and len(report.failures) < 5:
        report.add(run.round())
        if process.proc.poll() is not None:
            report.failures.append(f"the engine exited with status {process.proc.returncode}")
            break
    code, waited = process.finish(timeout=2.0)
    if code is None:
        report.failures.append("no exit within 2 s of quit (killed)")
    elif code != 0:
        report.failures.append(f"exit status {code} after quit")
    stderr = "".join(process.stderr).strip()
    if stderr:
        report.failures.append("stderr:\n" + stderr[-3000:])
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=60.0,
                   help="how long to storm, shared among the thread counts (default 60)")
    p.add_argument("--threads", default="1,2",
                   help="the Threads values to storm, one engine process each, comma-separated (default 1,2)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--patience", type=float, default=1.0,
                   help="seconds an isready or an ended search may take to answer (default 1)")
    args = p.parse_args(argv)
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        print(f"protocol_storm: --threads wants whole numbers, not {args.threads!r}", file=sys.stderr)
        return 2
    total = Report()
    for i, threads in enumerate(thread_counts):
        report = storm(args.seconds / len(thread_counts), threads, args.seed + i, args.patience)
        print(f"Threads {threads}: {report.summary()}", flush=True)
        for failure in report.failures:
            print("FAIL " + failure, flush=True)
        total.add(report)
    print(f"in all: {total.summary()}")
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
