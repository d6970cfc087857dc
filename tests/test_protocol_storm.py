"""UCI commands at every moment of a threaded search: exactly one legal bestmove per go
the engine takes, none early and none late, isready always answered, a clean exit on
quit and no thread left behind (scripts/dev/protocol_storm.py runs the long storm)."""

from __future__ import annotations

import queue
import random
import threading
import time

import chess

from engine_helpers import Lines, genchess_command, uci_session
from genchess.protocols.channel import Channel
from genchess.engine import Engine
from genchess.protocols.options import Settings
from genchess.protocols.uci import UciProtocol
from script_helpers import load_script

storm = load_script("dev/protocol_storm.py")


def test_a_short_storm_on_two_threads_and_on_one():
    argv, env = genchess_command("uci")
    total = storm.Report()
    for threads, seconds, seed in ((2, 14, 53), (1, 8, 54)):
        report = storm.storm(seconds, threads, seed, argv=argv, env=env)
        assert not report.failures, "\n\n".join(report.failures)
        assert report.searches >= 10 and report.bestmoves == report.searches, report.summary()
        total.add(report)
    # The storm did hit searches in flight: some gos came while one was running.
    assert total.refused > 0, total.summary()


def test_a_ponderhit_at_once_after_go_ponder_ends_the_search_by_the_clock():
    """The ponderhit may arrive before the search thread has set its clock; the search
    must then keep the ponderhit's limits, not think on until a stop."""
    with uci_session() as engine:
        engine.send("setoption name Threads value 2")
        for _ in range(8):
            engine.send("position startpos moves e2e4")
            engine.send("go ponder wtime 1000 btime 1000")
            engine.send("ponderhit")
            _, line = engine.expect("bestmove", timeout=3)
            board = chess.Board()
            board.push_uci("e2e4")
            assert chess.Move.from_uci(line.split()[1]) in board.legal_moves


class FeedInput:
    """stdin for a protocol run in this process: lines a test puts, blocking until one comes."""

    def __init__(self):
        self.queue: queue.Queue[str] = queue.Queue()

    def readline(self, limit: int = -1) -> str:
        return self.queue.get()


def test_quit_in_the_middle_of_anything_leaves_no_thread_running():
    """In this process: random commands, then quit at a random moment of a two-thread
    search; when the protocol returns, no search, helper or progress thread is left."""
    rng = random.Random(5)
    before = set(threading.enumerate())
    for trial in range(6):
        feed, out = FeedInput(), Lines()
        engine = Engine()
        protocol = UciProtocol(engine, Settings(engine), Channel(inp=feed, out=out))
        runner = threading.Thread(target=protocol.run)
        runner.start()
        feed.queue.put("setoption name Threads value 2\n")
        for _ in range(rng.randint(1, 8)):
            feed.queue.put(rng.choice(["go infinite", "go movetime 30", "go depth 4", "stop",
                                       "go ponder wtime 500 btime 500", "ponderhit", "ucinewgame",
                                       "position startpos moves d2d4", "isready"]) + "\n")
            time.sleep(rng.choice([0, 0, 0.01, 0.04]))
        feed.queue.put("quit\n")
        runner.join(timeout=5)
        assert not runner.is_alive(), out.lines[-10:]
        left = [t.name for t in threading.enumerate() if t not in before and t is not runner]
        assert not left, (trial, left, out.lines[-10:])
        assert not [line for line in out.lines if "internal error" in line], out.lines
