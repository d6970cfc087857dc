"""Fuzzing both protocols: a seeded stream of junk and half-real commands to one process.

The stream mixes random bytes (NUL, invalid UTF-8), truncated and mutated real
commands (shuffled or dropped tokens, huge, negative and non-finite numbers),
empty lines and a couple of 1 MB lines. Every ~50 lines a sync command
(`isready` / `ping N`) must be answered: that is what a GUI relies on to know
the engine is alive. Searches are kept short (small depths and movetimes, and a
`stop` / `force` every ~20 lines) so they do not pile up. The run goes on after
a missed answer where it can, so one run shows every kind of failure.
"""

from __future__ import annotations

import random
import re

import pytest

from engine_helpers import RawEngine

SEEDS = [20240611, 7, 1234]
LINES = 3000
SYNC_EVERY = (40, 60)
CALM_EVERY = (15, 25)
SYNC_TIMEOUT = 15.0

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
PROMOTION = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"
STALEMATE = "7k/8/6QK/8/8/8/8/8 b - - 0 1"
MATED = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"

UCI_CORPUS = [
    "uci", "ucinewgame", "debug on", "debug off", "register later",
    "position startpos", "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    f"position fen {KIWIPETE}", f"position fen {KIWIPETE} moves e1g1 e8c8",
    f"position fen {ENDGAME} moves b4b1", f"position fen {PROMOTION} moves b2a1q",
    f"position fen {STALEMATE}", f"position fen {MATED}",
    "go depth 1", "go depth 2", "go depth 3", "go movetime 20", "go movetime 50",
    "go nodes 2000", "go mate 1", "go wtime 300 btime 300 winc 10 binc 10",
    "go wtime 500 btime 400 movestogo 3", "go depth 2 searchmoves e2e4 d2d4 g1f3",
    "go infinite", "go ponder wtime 500 btime 500", "ponderhit", "stop",
    "setoption name MultiPV value 2", "setoption name MultiPV value 1",
    "setoption name Hash value 2", "setoption name Clear Hash",
    "setoption name Move Overhead value 10", "setoption name Search value budget",
    "setoption name Search value iterative", "setoption name Ponder value true",
    "setoption name Genome value <default>", "setoption name Genome ID value <none>",
]

XBOARD_CORPUS = [
    "xboard", "protover 2", "new", "force", "go", "playother", "white", "black",
    "usermove e2e4", "usermove e7e5", "usermove g1f3", "usermove b8c6", "usermove d2d4",
    "e2e4", "d7d5", "usermove e7e8q", f"setboard {KIWIPETE}", f"setboard {ENDGAME}",
    f"setboard {PROMOTION}", f"setboard {STALEMATE}", "level 40 0:05 0", "level 0 0:02 0.1",
    "level 0 1 0", "st 0.05", "st 0.02", "sd 1", "sd 2", "sd 3", "time 500", "otim 500",
    "ping 7", "result 1-0 {White mates}", "result 1/2-1/2 {Draw}", "undo", "remove",
    "hard", "easy", "post", "nopost", "?", "analyze", ".", "exit", "memory 8",
    "option Hash=4", "option Search=budget", "option Search=iterative",
    "option Move Overhead=5", "option Genome=<default>", "draw", "name Somebody",
    "rating 2000 1500", "computer", "accepted ping", "rejected sigterm", "random",
    "variant normal", "bk", "hint", "cores 1", "pause", "resume", "edit", "#",
]

HUGE = ["99999999999999999999", "-99999999999999999999", "2147483648", "-2147483649",
        "3000000000", "4294967296",
        "18446744073709551616", "1e309", "-1e309", "nan", "inf", "-inf", "0", "-1", "-0",
        "0.0000001", "1e-300", str(10 ** 40)]


def _mutate(rng: random.Random, corpus: list[str]) -> bytes:
    """One fuzz line (may contain \\r, which the engine reads as a line break)."""
    kind = rng.random()
    base = rng.choice(corpus)
    tokens = base.split()
    if kind < 0.12:                                    # random bytes
        n = rng.choice([0, 1, 2, 5, 20, 100, 400])
        alphabet = bytes(b for b in range(256) if b != 0x0A)
        return bytes(rng.choice(alphabet) for _ in range(n))
    if kind < 0.17:                                    # invalid UTF-8 and NULs inside a command
        junk = rng.choice([b"\xff\xfe", b"\xc3\x28", b"\x00", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
        raw = base.encode()
        cut = rng.randrange(len(raw) + 1)
        return raw[:cut] + junk + raw[cut:]
    if kind < 0.27:                                    # truncated
        return base[:rng.randrange(len(base) + 1)].encode()
    if kind < 0.37:                                    # shuffled tokens
        rng.shuffle(tokens)
        return " ".join(tokens).encode()
    if kind < 0.47:                                    # dropped tokens
        kept = [t for t in tokens if rng.random() > 0.3]
        return " ".join(kept).encode()
    if kind < 0.62:                                    # numbers replaced by extreme ones
        out = [rng.choice(HUGE) if re.fullmatch(r"-?[\d.:]+", t) and rng.random() < 0.7 else t
               for t in tokens]
        if not any(re.fullmatch(r"-?[\d.:]+", t) for t in tokens):
            out.insert(rng.randrange(len(out) + 1), rng.choice(HUGE))
        return " ".join(out).encode()
    if kind < 0.67:                                    # tokens from other commands
        other = rng.choice(corpus).split()
        return " ".join(tokens + other[rng.randrange(len(other)):]).encode()
    if kind < 0.72:                                    # empty and blank lines
        return rng.choice([b"", b" ", b"\t", b"   \t  ", b"\r", b"\x0b\x0c"])
    if kind < 0.76:                                    # odd spacing and case
        spaced = rng.choice(["  ", "\t", " \t "]).join(tokens)
        return (spaced.upper() if rng.random() < 0.5 else spaced).encode()
    return base.encode()                               # a real command


def _pieces(line: bytes) -> list[list[str]]:
    """The commands the engine will see in `line`, tokenised as the engine does."""
    text = line.decode("utf-8", "replace").replace("\x00", "")
    return [piece.split() for piece in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _acceptable(line: bytes, forbidden: set[str]) -> bool:
    """False for lines that would end the run (`quit`) or answer our syncs for us,
    and for ones that would allocate gigabytes of hash."""
    for tokens in _pieces(line):
        if tokens and tokens[0] in forbidden:
            return False
        text = " ".join(tokens).lower()
        if ("hash" in text or (tokens and tokens[0] == "memory")) and \
                any(t.lstrip("-").isdigit() and int(t) > 64 for t in re.findall(r"-?\d+", text)):
            return False
    return True


def fuzz_stream(corpus: list[str], seed: int, count: int, forbidden: set[str]) -> list[bytes]:
    rng = random.Random(seed)
    lines: list[bytes] = []
    while len(lines) < count:
        line = _mutate(rng, corpus)
        if _acceptable(line, forbidden):
            lines.append(line)
    # Two 1 MB lines: plain junk, and a command whose move list never ends.
    lines.insert(rng.randrange(len(lines)), b"x" * (1 << 20))
    lines.insert(rng.randrange(len(lines)), (" ".join(["e2e4", "e7e5"] * 110_000)).encode()[: 1 << 20])
    return lines


UCI_OUTPUT = re.compile(r"^(id (name|author) |option name |uciok$|readyok$|info |bestmove )")
BESTMOVE = re.compile(r"^bestmove (0000|[a-h][1-8][a-h][1-8][qrbn]?)( ponder [a-h][1-8][a-h][1-8][qrbn]?)?$")
XBOARD_OUTPUT = re.compile(
    r"^(feature |move [a-h][1-8][a-h][1-8][qrbn]?$|pong |Illegal move|Error \(|tellusererror |"
    r"\d+ -?\d+ \d+ \d+( |$)|stat01: |1-0 \{|0-1 \{|1/2-1/2 \{|#)")


def run_fuzz(engine: RawEngine, lines: list[bytes], seed: int, sync: str, answer: str,
             calm: list[str], output_format: re.Pattern) -> list[str]:
    """Send the lines with syncs in between; return the problems found."""
    rng = random.Random(seed + 1)
    problems: list[str] = []
    next_sync = rng.randint(*SYNC_EVERY)
    next_calm = rng.randint(*CALM_EVERY)
    token = 100_000
    received: list[str] = []
    syncs = 0

    def do_sync(tag: str) -> bool:
        nonlocal token, syncs
        token += 1
        syncs += 1
        command = sync.format(token)
        expected = answer.format(token)
        engine.send(command)
        seen: list[str] = []
        try:
            engine.expect(lambda line: line == expected, timeout=SYNC_TIMEOUT, seen=seen)
            received.extend(seen)
            return True
        except pytest.fail.Exception:
            received.extend(seen)
            problems.append(f"{tag}: `{command}` not answered within {SYNC_TIMEOUT} s; "
                            f"transcript tail:\n{engine.tail(30)}")
            return False

    for i, line in enumerate(lines, 1):
        engine.send(line)
        if i >= next_calm:
            for command in calm:
                engine.send(command)
            next_calm = i + rng.randint(*CALM_EVERY)
        if i >= next_sync:
            next_sync = i + rng.randint(*SYNC_EVERY)
            if not engine.alive():
                problems.append(f"engine died (code {engine.proc.poll()}) by line {i}:\n{engine.tail(30)}")
                break
            if not do_sync(f"line {i}"):
                # Try to recover, so that the rest of the stream still gets tested.
                for command in calm:
                    engine.send(command)
                if not do_sync(f"line {i}, after {calm}"):
                    problems.append("engine stopped answering; fuzz run abandoned")
                    break
    else:
        for command in calm:
            engine.send(command)
        do_sync("end")
    received.extend(engine.drain(quiet=0.5))
    code = engine.close()
    if code != 0:
        problems.append(f"exit code {code} after quit")
    if "Traceback" in engine.stderr:
        problems.append(f"traceback on stderr:\n{engine.stderr[-4000:]}")
    for text in received:
        if "Traceback" in text:
            problems.append(f"traceback on stdout: {text!r}")
        if not output_format.match(text):
            problems.append(f"unexpected output line: {text[:200]!r}")
        if text.startswith("bestmove") and not BESTMOVE.match(text):
            problems.append(f"malformed bestmove: {text!r}")
    internal = sorted({text[:160] for text in received if "internal" in text})
    print(f"{len(lines)} lines, {syncs} syncs, {len(received)} lines received")
    if internal:
        print("internal errors reported on the protocol (caught, but unexpected):")
        for text in internal:
            print("  ", text)
    return problems


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_uci(seed):
    lines = fuzz_stream(UCI_CORPUS, seed, LINES, forbidden={"quit", "isready"})
    engine = RawEngine.genchess("uci")
    engine.send("uci")
    engine.expect("uciok", timeout=20)
    problems = run_fuzz(engine, lines, seed, sync="isready", answer="readyok",
                        calm=["stop"], output_format=UCI_OUTPUT)
    assert not problems, "\n\n".join(problems[:10])


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_xboard(seed):
    lines = fuzz_stream(XBOARD_CORPUS, seed + 7, LINES, forbidden={"quit"})
    engine = RawEngine.genchess("xboard")
    engine.send("xboard")
    engine.send("protover 2")
    engine.expect(lambda line: line.startswith("feature") and "done=1" in line, timeout=20)
    # `?` first: a ping during our own thinking is answered after the move.
    problems = run_fuzz(engine, lines, seed + 7, sync="?\nping {}", answer="pong {}",
                        calm=["force"], output_format=XBOARD_OUTPUT)
    assert not problems, "\n\n".join(problems[:10])


def test_fuzz_plain_command_first_line():
    """Plain `genchess`: junk before the protocol word gets an error, then uci works."""
    engine = RawEngine.genchess()
    rng = random.Random(SEEDS[0] + 3)
    for _ in range(50):
        line = _mutate(rng, UCI_CORPUS + XBOARD_CORPUS)
        if _acceptable(line, {"quit", "uci", "xboard"}):
            engine.send(line)
    engine.send("uci")
    engine.expect("uciok", timeout=20)
    engine.send("isready")
    engine.expect("readyok", timeout=10)
    engine.close()
    assert engine.proc.returncode == 0
    assert "Traceback" not in engine.stderr, engine.stderr[-2000:]
