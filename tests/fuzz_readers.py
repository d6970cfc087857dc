"""Every reader of outside input, the inputs made for it, and the property it must keep.

A reader is what turns something a user, a GUI or an old file hands GenChess into
values: a FEN, an EPD set, a PGN, a genome file of any kind, a trainer's or a
gauntlet's config, an opening book, a player or engine spelling, a time control, a
trainer's state file, a UCI or xboard command stream. The property is the same for
all: a correct result, or the reader's own error type with a message of one line
that names the problem (and, for a file, the file). Never another exception (a
traceback for the user), a hang, or a crash of the core.

Inputs are mostly real samples (shipped genomes, configs, EPD and PGN files) put
through a few random edits (a line dropped or doubled, a number made huge, negative,
non-finite or written in other digits, bytes that are not UTF-8, a NUL, a very long
line), so that the fuzzing gets past the first check of each reader; a share are
plain random text or bytes. tests/test_fuzz_readers.py runs a few of each with
hypothesis; scripts/dev/fuzz.py runs them for as long as it is given.

Design trade-off: one table of readers (READERS) that the quick test and the long
script share, each reader a small function that raises Failure when the property
breaks, instead of a test per reader: a new reader is one row, and both runs see it.
"""

from __future__ import annotations

import gzip
import io
import pickle
import re
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA = REPO_ROOT / "genchess" / "data"
GENOMES = REPO_ROOT / "genchess" / "genomes"
MAX_MESSAGE = 1000          # characters: an error message longer than this is not one clear line


class Failure(Exception):
    """The property broke: what happened, for a reproducer; `signature` groups
    failures of one cause (an exception type and where it was raised)."""

    def __init__(self, problem: str, signature: str):
        super().__init__(problem)
        self.signature = signature


# ------------------------------------------------------------------ inputs

# What a number in an input may become: the edges of every integer type, a number
# with more digits than Python's int() converts (4300), non-finite values, digits
# of other scripts (int() reads Arabic-Indic digits, str.isdigit() also passes
# superscripts that int() refuses), underscores int() accepts.
EXTREME_NUMBERS = [
    "0", "-0", "-1", "1e309", "-1e309", "nan", "inf", "-inf", "1e-320", "0.5", "-0.5",
    "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775808",
    "18446744073709551616", str(10 ** 40), "9" * 5000, "-" + "9" * 5000, "1" + "0" * 4400,
    "\u0661\u0662", "\u00b2", "\uff13", "1_000", "0x10", " 7 ", "+5", "--5", "1.", ".",
]
# Text that breaks lines, decoders and naive parsers.
JUNK = [
    "\x00", "\r", "\n", "\r\n", "\t", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\ufeff",
    "\udcff", "#", ";", ":", "=", "/", "\"", "{", "}", "[", "]", "(", ")", "%", "\\",
    "\u00e9", "\U0001f600", " " * 50, "x" * 5000,
]
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _sample(path: Path, limit: int = 6000) -> bytes:
    """The start of a sample file (uncompressed), cut at a line end."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        data = f.read(limit)
    cut = data.rfind(b"\n")
    return data[: cut + 1] if cut > 0 else data


@st.composite
def edited(draw, samples: list[bytes], max_edits: int = 4) -> bytes:
    """One of `samples` with up to `max_edits` random edits."""
    data = draw(st.sampled_from(samples))
    for _ in range(draw(st.integers(0, max_edits))):
        lines = data.split(b"\n")
        kind = draw(st.sampled_from(["number", "number", "junk", "drop line", "double line",
                                     "swap lines", "cut", "bytes", "splice token", "case"]))
        if kind == "number":
            text = data.decode("utf-8", "surrogateescape")
            spots = list(NUMBER.finditer(text))
            if spots:
                spot = draw(st.sampled_from(spots))
                new = draw(st.sampled_from(EXTREME_NUMBERS))
                text = text[: spot.start()] + new + text[spot.end():]
                data = text.encode("utf-8", "surrogateescape")
            continue
        if kind == "junk":
            at = draw(st.integers(0, len(data)))
            junk = draw(st.sampled_from(JUNK)).encode("utf-8", "surrogatepass")
            data = data[:at] + junk + data[at:]
        elif kind == "drop line" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = b"\n".join(lines)
        elif kind == "double line" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif kind == "swap lines" and len(lines) > 1:
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif kind == "cut":
            data = data[: draw(st.integers(0, len(data)))]
        elif kind == "bytes":
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
        elif kind == "splice token":
            tokens = data.split()
            if tokens:
                at = draw(st.integers(0, len(data)))
                data = data[:at] + b" " + draw(st.sampled_from(tokens)) + data[at:]
        elif kind == "case":
            data = data.swapcase() if draw(st.booleans()) else data.upper()
    return data


def file_inputs(samples: list[bytes]) -> st.SearchStrategy[bytes]:
    """A file's bytes: mostly an edited sample, sometimes random text or bytes."""
    return st.one_of(
        edited(samples), edited(samples), edited(samples), edited(samples),
        st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.binary(max_size=200))


def text_inputs(samples: list[str]) -> st.SearchStrategy[str]:
    """A line of text: an edited sample, or random text."""
    encoded = [s.encode() for s in samples]
    return st.one_of(
        edited(encoded, 3).map(lambda b: b.decode("utf-8", "surrogateescape")),
        edited(encoded, 3).map(lambda b: b.decode("utf-8", "surrogateescape")),
        st.text(max_size=80))


@st.composite
def placements(draw) -> str:
    """A FEN from a random board: any pieces anywhere (crowds of queens included),
    random side, castling and en-passant fields; legal or not."""
    pieces = draw(st.sampled_from(["", "Q", "QQ", "QQQQ", "Rq", "PpNnBbRrQq"]))
    squares = draw(st.lists(st.sampled_from(list(".........PNBRQpnbrq" + pieces * 3)),
                            min_size=64, max_size=64))
    squares[draw(st.integers(0, 63))] = "K"
    squares[draw(st.integers(0, 63))] = "k"
    ranks = []
    for r in range(8):
        row = "".join(squares[r * 8: r * 8 + 8])
        ranks.append(re.sub(r"\.+", lambda m: str(len(m.group())), row))
    castling = draw(st.sampled_from(["-", "KQkq", "K", "q", "Hb", "AHah", "Kk", "E"]))
    ep = draw(st.sampled_from(["-", "-", "e3", "d6", "a3", "h6", "e4"]))
    side = draw(st.sampled_from("wb"))
    return f"{'/'.join(ranks)} {side} {castling} {ep} {draw(st.integers(0, 120))} {draw(st.integers(1, 90))}"


# ------------------------------------------------------------------ the property

def one_line_problem(message: str, where: str | None) -> str | None:
    """What is wrong with an error message as a user would see it, or None."""
    if not message.strip():
        return "an empty message"
    if len(message.splitlines()) != 1:
        return "a message of more than one line"
    if len(message) > MAX_MESSAGE:
        return f"a message of {len(message)} characters"
    if where is not None and where not in message:
        return f"a message that does not name {where}"
    return None


_heard: list[str] | None = None     # Reader.messages: every message checked, in order


def expect_message(message: str, where: str | None = None) -> None:
    """Failure unless `message` is one clear line (naming `where` if given)."""
    if _heard is not None:
        _heard.append(message)
    problem = one_line_problem(message, where)
    if problem:
        raise Failure(f"{problem}: {message[:300]!r}", f"message: {problem.split(' of ')[0]}")


def unexpected(e: BaseException) -> Failure:
    """A Failure for an exception the reader should never let out: its type and where."""
    frames = traceback.extract_tb(e.__traceback__)
    own = [f for f in frames if "genchess" in f.filename] or frames
    place = f"{Path(own[-1].filename).name}:{own[-1].lineno}" if own else "?"
    text = str(e)
    return Failure(f"{type(e).__name__} at {place}: {text[:300]}", f"{type(e).__name__} at {place}")


@dataclass(frozen=True)
class Reader:
    name: str
    inputs: Callable[[], st.SearchStrategy]     # built when first used (samples read then)
    read: Callable                              # (input, where) -> None; Failure if wrong
    errors: tuple[type, ...]                    # the reader's own errors
    suffix: str | None = None                   # a file reader: the input is written to a file
    names_file: bool = True                     # a file reader's errors name the file

    def check(self, data, workdir: Path) -> None:
        """Run the reader on `data`; Failure if the property breaks."""
        target, where = data, None
        if self.suffix is not None:
            target = workdir / f"input{self.suffix}"
            target.write_bytes(data)
            where = target.name if self.names_file else None
        try:
            self.read(target)
        except Failure:
            raise
        except self.errors as e:
            expect_message(str(e), where)
        except (Exception, RecursionError) as e:
            raise unexpected(e) from None

    def messages(self, data, workdir: Path) -> list[str]:
        """check(), and every error or warning the reader gave on the way (each one
        clear line, or Failure): what a case that names its error asserts on."""
        global _heard
        _heard = []
        try:
            self.check(data, workdir)
            return _heard
        finally:
            _heard = None


# ------------------------------------------------------------------ the readers

def _lines_of(path: Path, keep=lambda line: True, limit: int = 40) -> list[str]:
    text = _sample(path, 20000).decode()
    return [line for line in text.splitlines() if line.strip() and keep(line)][:limit]


def fen_samples() -> list[str]:
    fens = [line.split(";")[0].strip() for line in _lines_of(REPO_ROOT / "tests" / "data" / "perftsuite.epd")]
    fens += [line.split(";")[0].strip() for line in _lines_of(REPO_ROOT / "tests" / "data" / "perft960.epd", limit=10)]
    fens += [" ".join(line.split()[:4]) for line in _lines_of(DATA / "openings.epd", limit=20)]
    return fens


def read_fen(text: str) -> None:
    """Board(fen): FenError, or a position that reads back equal and whose legal moves
    are python-chess's (where python-chess calls the position valid)."""
    import chess

    from genchess_core import Board
    board = Board(text, chess960=True)
    fen = board.fen()
    again = Board(fen, chess960=True)
    if again.fen() != fen:
        raise Failure(f"{text!r} reads as {fen!r}, which reads back as {again.fen()!r}", "fen: round trip")
    try:
        oracle = chess.Board(fen, chess960=True)
    except ValueError:
        return
    if oracle.is_valid() and set(board.legal_moves()) != {m.uci() for m in oracle.legal_moves}:
        raise Failure(f"{fen!r}: legal moves {sorted(board.legal_moves())} but python-chess has "
                      f"{sorted(m.uci() for m in oracle.legal_moves)}", "fen: legal moves")


def read_moves(text: str) -> None:
    """Moves pushed one by one on the start position: MoveError, or python-chess's move."""
    import chess

    from genchess_core import Board
    board, oracle = Board(), chess.Board()
    for word in text.split(" "):
        board.push_uci(word)
        oracle.push_uci(word)
        if board.fen() != oracle.fen(en_passant="legal"):
            raise Failure(f"{text!r}: {board.fen()} but python-chess has {oracle.fen()}", "moves: position")


def epd_samples() -> list[bytes]:
    return [_sample(DATA / "positions.epd.gz", 3000), _sample(DATA / "tactics.epd", 3000),
            _sample(DATA / "real_games.epd", 3000)]


def read_epd_set(path: Path) -> None:
    from genchess.position_sets.position_set import load_positions
    positions = load_positions(path)
    for warning in positions.warnings:
        expect_message(warning, path.name)
    if len(positions) and not positions.fen(0):
        raise Failure("an empty FEN in a loaded set", "epd: empty fen")


def read_epd_gz(path: Path) -> None:
    read_epd_set(path)


_PACKED: list[bytes] = []


def packed_samples() -> list[bytes]:
    """A small set in the packed format (.gcpos), from the shipped set's first lines."""
    if not _PACKED:
        import tempfile

        from genchess.position_sets.position_set import load_positions
        folder = Path(tempfile.mkdtemp(prefix="fuzz-packed-"))
        (folder / "small.epd").write_bytes(_sample(DATA / "positions.epd.gz", 1500))
        load_positions(folder / "small.epd").write(folder / "small.gcpos")
        _PACKED.append((folder / "small.gcpos").read_bytes())
    return _PACKED


def read_packed_set(path: Path) -> None:
    """A packed set: PositionSetError, or positions the FEN reader takes too (what a
    packed file holds must be what an EPD line could say) and the core evaluates."""
    from genchess.genome import hand_set_genome
    from genchess.position_sets.position_set import load_positions
    from genchess_core import Board, FenError
    positions = load_positions(path)
    for i in range(len(positions)):
        try:
            Board(positions.fen(i))
        except FenError as e:
            raise Failure(f"record {i} reads, but as a FEN the core refuses: {e}", "packed: FEN refused") from None
    positions.evaluate(hand_set_genome())


def opening_samples() -> list[bytes]:
    return [_sample(DATA / "openings.epd", 2000), _sample(DATA / "openings_moves.txt", 2000),
            b"e2e4 e7e5\n# a comment\nd2d4 d7d5 c2c4\n",
            b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n"]


def _check_openings(path: Path, chess960: bool) -> None:
    from genchess.game.openings import OpeningError, read_openings
    from genchess_core import Board
    problems: list[str] = []
    try:
        openings = read_openings(path, on_error=problems.append, chess960=chess960)
    finally:
        for problem in problems:
            expect_message(problem, path.name)
    for opening in openings:
        Board(opening.position, chess960=opening.chess960)
    try:
        read_openings(path, chess960=chess960)
    except OpeningError as e:
        expect_message(str(e), path.name)


def read_opening_file(path: Path) -> None:
    _check_openings(path, chess960=False)
    _check_openings(path, chess960=True)


def pgn_samples() -> list[bytes]:
    matches = REPO_ROOT / "docs" / "matches"
    return [_sample(matches / "final-vs-baseline-sprt.pgn.gz", 3000),
            _sample(matches / "evolved-gauntlet.pgn.gz", 3000),
            b'[Event "x"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[Result "1-0"]\n\n'
            b'1. e4 Kd7 2. e5 {a comment} Ke6 (2... Kc6) 1-0\n\n'
            b'[Event "960"]\n[Variant "Chess960"]\n[FEN "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"]\n'
            b'[Result "0-1"]\n\n9. g3 Nd7 0-1\n']


def read_pgn_openings(path: Path) -> None:
    _check_openings(path, chess960=False)


def read_pgn_for_positions(path: Path) -> None:
    """The position maker's PGN reader never raises: each game is usable (and its
    moves replay on GenChess's board) or a one-line problem naming the file."""
    from genchess.position_sets.run import read_pgn_games
    from genchess_core import Board, FenError
    for where, game in read_pgn_games(path):
        expect_message(where, path.name)
        if isinstance(game, str):
            expect_message(game)
            continue
        start, moves, _, chess960 = game
        try:
            board = Board(start, chess960=chess960)
        except FenError:            # the maker skips such a game, naming it (python-chess
            continue                # accepts armies no game can reach)
        for move in moves:
            board.push_uci(move)


_RUNNER = None


def read_match_pgn(path: Path) -> None:
    """`genchess match --resume`: the PGN's games counted, or one ResumeError."""
    global _RUNNER
    from genchess.game import TimeControl
    from genchess.strength.engines import parse_engine_spec
    from genchess.game.openings import read_openings
    from genchess.strength.runner import MatchRunner
    if _RUNNER is None:
        specs = (parse_engine_spec("genchess name=GenChess"), parse_engine_spec("genchess name=Baseline"))
        _RUNNER = (specs, read_openings(DATA / "openings.epd"))
    specs, openings = _RUNNER
    runner = MatchRunner(specs, TimeControl.parse("10+0.1"), openings, 40, 1, out=lambda line: None)
    runner.resume(path)


def read_games_file(path: Path) -> None:
    """A gene pool's or Kendall-Whitwell's games file: its games and their numbers,
    and the wins counted from it when a pool file's genome is chosen."""
    from genchess.genome.run_files import count_wins
    from genchess.train.records import read_games_file as read
    games, _ = read(path)
    for game in games:
        for key in game.headers:
            game.get_int(key)
    count_wins(path)


def genome_samples() -> list[bytes]:
    samples = [_sample(path, 8000) for path in sorted(GENOMES.glob("*.genome"))]
    samples += [_sample(path, 8000) for path in sorted((REPO_ROOT / "docs" / "studies" / "runs").glob("*.genome"))]
    # Search genes on two kinds, and a trainer's Still Alive line.
    samples.append(samples[0].replace(b"\nEND", b"\nSearch rfp_margin: 95\nSearch lmr_base: 80\nEND", 1))
    samples.append(_sample(GENOMES / "material.genome").replace(b"\nEND", b"\nSearch time_growth: 180\nEND", 1)
                   + b"Still Alive: 0 : 0\n")
    samples.append(network_sample())
    return samples


def network_sample() -> bytes:
    """A whole small network genome: its header, and weights under their sha256."""
    import random
    from genchess.genome import NetworkGenome
    rng, h = random.Random(1), 16
    net = NetworkGenome(1, h, "screlu", [rng.randrange(-300, 301) for _ in range(768 * h)],
                        [rng.randrange(-100, 200) for _ in range(h)],
                        [rng.randrange(-127, 128) for _ in range(2 * h)], 500,
                        lineage="random weights, for the fuzzer")
    return net.to_text().encode()


_SEARCHER = None


def read_genome(path: Path) -> None:
    """open_genome: GenomeError, or a genome that writes back as itself and loads
    into the core's evaluation."""
    global _SEARCHER
    from genchess.genome import open_genome
    from genchess.genome.genome_file import parse_genome_text
    from genchess_core.searcher import Searcher
    genome = open_genome(path)
    again = parse_genome_text(genome.to_text()).genomes[-1]
    if again != genome:
        raise Failure(f"{path.name} does not read back as it wrote", "genome: round trip")
    if _SEARCHER is None:
        _SEARCHER = Searcher(1)
    _SEARCHER.set_genome(genome.pack())


def config_samples() -> list[bytes]:
    paths = sorted((REPO_ROOT / "genchess" / "train" / "examples").glob("*.cfg"))
    paths += sorted((REPO_ROOT / "docs" / "studies" / "runs").glob("*.cfg"))
    return [_sample(path) for path in paths]


def read_trainer_config(path: Path) -> None:
    from genchess.train.registry import parse_config
    parse_config(path)


def gauntlet_samples() -> list[bytes]:
    return [_sample(DATA / "gauntlet.cfg"), _sample(DATA / "levels-gauntlet.cfg")]


def read_gauntlet_config(path: Path) -> None:
    from genchess.strength.gauntlet import parse_gauntlet
    parse_gauntlet(path)


def book_samples() -> list[bytes]:
    return [(REPO_ROOT / "tests" / "data" / "tiny-book.bin").read_bytes()]


def read_book(path: Path) -> None:
    """A Polyglot book: BookError, or moves that are legal where the book gives them."""
    import random

    import chess

    from genchess.book import Book
    book = Book(path, rng=random.Random(1))
    try:
        for fen in (chess.STARTING_FEN, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"):
            move = book.choose(fen)
            if move is not None and chess.Move.from_uci(move) not in chess.Board(fen).legal_moves:
                raise Failure(f"book move {move} is illegal in {fen}", "book: illegal move")
        chess.Board(book.random_line(random.Random(2), 12))
    finally:
        book.close()


_DATABASE: list[bytes] = []


def database_sample() -> bytes:
    """A Phoenix run's chromosome database (SQLite): two chromosomes, one generation played."""
    if not _DATABASE:
        import tempfile

        from genchess.genome import open_genome
        from genchess.genome.run_files import GenerationSummary
        from genchess.train.chromosome_db import ChromosomeDB, Evaluation
        path = Path(tempfile.mkdtemp(prefix="fuzz-db-")) / "run.db"
        first = open_genome(GENOMES / "pvt-textbook.genome")
        genomes = [first.copy(new_id=0), first.copy(new_id=1)]
        db = ChromosomeDB(path, create=True)
        db.write_first_population(genomes)
        db.commit_generation(GenerationSummary(0, 1, 2.0, 1.5, 1, 2, 1.0),
                             [Evaluation(0, 1.0, 1, 0), Evaluation(1, 2.0, 1, 0)], [], [0, 1])
        db.close()
        _DATABASE.append(path.read_bytes())
    return _DATABASE[0]


def flipped_bytes(samples: Callable[[], list[bytes]]) -> st.SearchStrategy[bytes]:
    """A binary file damaged as disks and copies damage one: bytes changed, cut short,
    or a part of it repeated; now and then random bytes."""
    @st.composite
    def flipped(draw):
        data = bytearray(draw(st.sampled_from(samples())))
        for _ in range(draw(st.integers(1, 12))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        if draw(st.booleans()):
            data = data[: draw(st.integers(0, len(data)))]
        return bytes(data)
    return st.one_of(flipped(), flipped(), flipped(), st.binary(max_size=64),
                     st.integers(1, 8).map(lambda n: samples()[0][:16] * n))


def read_database(path: Path) -> None:
    """A chromosome database as `--genome`: its fittest chromosome, loaded into the core."""
    read_genome(path)


PLAYER_SPECS = ["human", "random", "turing", "montecarlo", "genetic", "genetic:unified.genome",
                "genetic:pool.txt:12", "genetic:c:\\genomes\\a.genome:3"]
ENGINE_SPECS = ["genchess", "genchess:evolved.genome:2 name=Evolved search=budget",
                "genchess hash=16 threads=2 skill=10", "turing", "random ga_level=2",
                "uci:stockfish name=SF Threads=1", "xboard:fairymax", "genchess player=montecarlo",
                "'genchess' name=\"two words\""]
TIME_CONTROLS = ["10+0.1", "40/60+0", "st=0.5", "movetime=1", "nodes=1000", "depth=3", "60", "0:10+1"]


def read_player_spec(text: str) -> None:
    from genchess.players import parse_spec
    parse_spec(text)


def read_engine_spec(text: str) -> None:
    from genchess.strength.engines import parse_engine_spec
    parse_engine_spec(text)


def read_time_control(text: str) -> None:
    from genchess.game import TimeControl
    try:
        TimeControl.parse(text)
    except ValueError as e:         # its documented error: ValueError naming the control
        expect_message(str(e))
        if not str(e).startswith("time control"):
            raise Failure(f"{str(e)[:300]!r} does not name the time control", "time control: message")


ADJUDICATIONS = ["movecount=3 score=400 | movenumber=34 movecount=8 score=20", "movecount=5 score=600 |",
                 "| movenumber=40 movecount=10 score=10"]


def read_adjudication(text: str) -> None:
    """`--resign WORDS | --draw WORDS`: an Adjudication, or its documented ValueError
    naming the option."""
    from genchess.game.adjudication import Adjudication
    resign, _, draw = text.partition("|")
    try:
        Adjudication.from_options(resign.split() or None, draw.split() or None)
    except ValueError as e:
        expect_message(str(e))
        if not str(e).startswith(("--resign", "--draw")):
            raise Failure(f"{str(e)[:300]!r} does not name the option", "adjudication: message")


def read_mentor(text: str) -> None:
    """`genchess positions --mentor depth=N|nodes=N`."""
    import argparse

    from genchess.position_sets.run import parse_mentor
    try:
        parse_mentor(text)
    except argparse.ArgumentTypeError as e:
        expect_message(str(e))


def state_samples() -> list[bytes]:
    import random

    import numpy as np
    state = {"iteration": 3, "generation": 3, "numbers": 5, "evolving": [0, 1, 2],
             "theta": [1.5, 2.0], "optimiser": {"sigma": 0.3, "mean": np.arange(3.0)},
             "last_record": "x", "np_state": np.random.default_rng(1).bit_generator.state,
             "rng": random.Random(1).getstate()}
    return [pickle.dumps(state), pickle.dumps(state, protocol=2)]


@st.composite
def state_inputs(draw) -> bytes:
    """A trainer's state file torn or damaged as a disk or a copy damages one: cut
    short, bytes flipped, or another file altogether (never a crafted pickle)."""
    data = bytearray(draw(st.sampled_from(state_samples())))
    kind = draw(st.sampled_from(["cut", "flip", "other"]))
    if kind == "cut":
        return bytes(data[: draw(st.integers(0, len(data) - 1))])
    if kind == "flip":
        for _ in range(draw(st.integers(1, 4))):
            data[draw(st.integers(0, len(data) - 1))] ^= 1 << draw(st.integers(0, 7))
        return bytes(data)
    return draw(st.sampled_from([b"", b"\x80\x04N.", pickle.dumps([1, 2]), pickle.dumps({"iteration": 1}),
                                 b"# GenChess evolve run\n", b"\x00" * 100]))


def read_state_file(path: Path) -> None:
    from genchess.train.records import read_state
    read_state(path, ("iteration", "numbers"))


# ------------------------------------------------------------------ protocols, in this process

UCI_COMMANDS = [
    "uci", "isready", "ucinewgame", "debug on", "position startpos",
    "position startpos moves e2e4 e7e5 g1f3", "position fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 moves e2e4",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "go depth 2", "go nodes 500", "go movetime 10", "go wtime 100 btime 100 winc 10 binc 10",
    "go mate 1", "go depth 1 searchmoves e2e4 d2d4", "go infinite", "go ponder wtime 200 btime 200",
    "ponderhit", "stop", "eval", "setoption name MultiPV value 2", "setoption name Hash value 1",
    "setoption name Clear Hash", "setoption name Move Overhead value 10",
    "setoption name Search value budget", "setoption name UCI_ShowWDL value true",
    "setoption name Skill Level value 5", "setoption name UCI_Chess960 value true",
    "setoption name Genome value <default>", "setoption name Book File value nonexistent.bin",
    "register later",
]
XBOARD_COMMANDS = [
    "xboard", "protover 2", "new", "force", "go", "playother", "white", "black", "usermove e2e4",
    "e7e5", "usermove g1f3", "setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "level 40 0:05 0",
    "level 0 1 0", "st 0.02", "sd 2", "time 300", "otim 300", "ping 3", "undo", "remove", "hard",
    "easy", "post", "nopost", "?", "analyze", ".", "exit", "memory 4", "option Hash=2",
    "option Search=budget", "result 1-0 {x}", "draw", "name Someone", "rating 2000 1500",
    "variant fischerandom", "variant normal", "hint", "bk", "cores 1", "edit", "#", "c", "Pe4", "sm",
]
# Lines a stream must not hold: they would end it, answer its check for it, or make
# the engine allocate gigabytes (a real GUI's settings, but not a test's).
_FORBIDDEN_FIRST = {"quit", "isready", "ping", "pong"}
_BIG = re.compile(r"(hash|memory|threads|cores)\D*([0-9]{3,}|[0-9]*[2-9][0-9])", re.I)


@st.composite
def command_stream(draw, commands: list[str]) -> bytes:
    """A stream of commands: real ones, edited ones, random bytes, a NUL, a very long line."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["real", "real", "edited", "edited", "bytes", "long"]))
        if kind == "real":
            line = draw(st.sampled_from(commands)).encode()
        elif kind == "edited":
            line = draw(edited([c.encode() for c in commands], 2))
        elif kind == "bytes":
            line = draw(st.binary(max_size=40))
        else:
            line = draw(st.sampled_from([b"x" * 200_000, b"position startpos moves " + b"e2e4 e7e5 " * 30_000,
                                         b"go " + b"9" * 5000, b"\x00" * 1000]))
        lines.append(line)
    text = b"\n".join(lines)
    kept = []
    for line in text.replace(b"\r", b"\n").split(b"\n"):
        words = line.decode("utf-8", "replace").replace("\x00", "").split()
        if words and (words[0].lower() in _FORBIDDEN_FIRST or _BIG.search(" ".join(words))):
            continue
        kept.append(line)
    return b"\n".join(kept) + b"\n"


_ENGINES: dict = {}


def _run_protocol(data: bytes, protocol_name: str, check_line: str, answer: str) -> None:
    """Feed `data` and then `check_line` to a protocol handler in this process (input
    read as the real process reads stdin); it must answer `answer`, report no
    internal error, and end when its input ends."""
    from engine_helpers import Lines
    from genchess.protocols.channel import Channel
    from genchess.engine import Engine
    from genchess.protocols.options import Settings
    from genchess.protocols.uci import UciProtocol
    from genchess.protocols.xboard import XboardProtocol
    if protocol_name not in _ENGINES:
        _ENGINES[protocol_name] = Engine(hash_mb=1)
    engine = _ENGINES[protocol_name]
    engine.stop()
    engine.wait()
    stream = io.TextIOWrapper(io.BytesIO(data + check_line.encode() + b"\n"),
                              encoding="utf-8", errors="replace", newline=None)
    out = Lines()
    cls = UciProtocol if protocol_name == "uci" else XboardProtocol
    protocol = cls(engine, Settings(engine), Channel(inp=stream, out=out))
    if protocol_name == "xboard":
        protocol.run = lambda: (protocol.channel.serve(protocol.handle), protocol.halt())
    runner = threading.Thread(target=protocol.run, daemon=True)
    runner.start()
    runner.join(timeout=30)
    if runner.is_alive():
        engine.stop()
        raise Failure("the protocol did not finish its input within 30 s", f"{protocol_name}: hang")
    # What each handler says of an exception it did not expect (it goes on, but a bug).
    internal = [line for line in out.lines
                if "internal error on" in line or line.startswith("Error (internal") or "Traceback" in line]
    if internal:
        raise Failure(f"{internal[0][:300]}", f"{protocol_name}: {internal[0][:80]}")
    if answer not in out.lines:
        raise Failure(f"{check_line!r} was not answered {answer!r}; last lines {out.lines[-5:]}",
                      f"{protocol_name}: no answer")


def read_uci_stream(data: bytes) -> None:
    _run_protocol(data, "uci", "isready", "readyok")


def read_xboard_stream(data: bytes) -> None:
    _run_protocol(data, "xboard", "ping 777", "pong 777")


# ------------------------------------------------------------------ protocols, the real process

def _run_process(data: bytes, mode: str, check_line: str, answer: str) -> None:
    """`genchess MODE` fed `data`, then `check_line` and quit: it must answer `answer`,
    say no internal error, leave no traceback and exit with status 0 (not killed by
    a signal: a crash of the core)."""
    import subprocess

    from engine_helpers import genchess_command
    argv, env = genchess_command(mode)
    try:
        proc = subprocess.run(argv, input=data + f"\n{check_line}\nquit\n".encode(), env=env,
                              capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise Failure(f"genchess {mode} did not answer and quit within 60 s", f"{mode} process: hang") from None
    out = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0:
        raise Failure(f"genchess {mode} exited with status {proc.returncode}: "
                      f"{proc.stderr.decode('utf-8', 'replace')[-300:]}", f"{mode} process: status {proc.returncode}")
    if b"Traceback" in proc.stderr:
        raise Failure(proc.stderr.decode("utf-8", "replace")[-300:], f"{mode} process: traceback")
    internal = [line for line in out if "internal error on" in line or line.startswith("Error (internal")]
    if internal:
        raise Failure(internal[0][:300], f"{mode} process: {internal[0][:80]}")
    if answer not in out:
        raise Failure(f"{check_line!r} was not answered {answer!r}; last lines {out[-5:]}", f"{mode} process: no answer")


def read_uci_process(data: bytes) -> None:
    _run_process(b"uci\n" + data, "uci", "isready", "readyok")


def read_xboard_process(data: bytes) -> None:
    _run_process(b"xboard\nprotover 2\n" + data, "xboard", "?\nping 777", "pong 777")


# ------------------------------------------------------------------ the table

def readers() -> dict[str, Reader]:
    """Every reader by name (its error types imported now)."""
    from genchess.book import BookError
    from genchess.genome import GenomeError
    from genchess.players import PlayerSpecError
    from genchess.position_sets.position_set import PositionSetError
    from genchess.strength.engines import SpecError
    from genchess.strength.gauntlet import GauntletError
    from genchess.game.openings import OpeningError
    from genchess.strength.runner import ResumeError
    from genchess.train.config import ConfigError
    from genchess_core.board import FenError, MoveError
    table = [
        Reader("fen", lambda: st.one_of(text_inputs(fen_samples()), placements()), read_fen, (FenError,)),
        Reader("moves", lambda: text_inputs(["e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1",
                                             "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7",
                                             "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 c7c6 a2a4 e7e5 d4e5 a5e5"]),
               read_moves, (MoveError,)),
        Reader("epd", lambda: file_inputs(epd_samples()), read_epd_set, (PositionSetError,), ".epd"),
        Reader("epd-gz", lambda: file_inputs(epd_samples()).map(
            lambda b: gzip.compress(b) if b[:1] != b"\x00" else b), read_epd_gz, (PositionSetError,), ".epd.gz"),
        Reader("packed", lambda: flipped_bytes(packed_samples), read_packed_set, (PositionSetError,), ".gcpos"),
        Reader("packed-gz", lambda: flipped_bytes(packed_samples).map(gzip.compress), read_packed_set,
               (PositionSetError,), ".gcpos.gz"),
        Reader("openings", lambda: file_inputs(opening_samples()), read_opening_file, (OpeningError,), ".epd"),
        Reader("openings-pgn", lambda: file_inputs(pgn_samples()), read_pgn_openings, (OpeningError,), ".pgn"),
        Reader("pgn-positions", lambda: file_inputs(pgn_samples()), read_pgn_for_positions, (), ".pgn"),
        Reader("pgn-resume", lambda: file_inputs(pgn_samples()), read_match_pgn, (ResumeError,), ".pgn"),
        Reader("games-file", lambda: file_inputs(pgn_samples()), read_games_file, (ConfigError,), ".txt"),
        Reader("genome", lambda: file_inputs(genome_samples()), read_genome, (GenomeError,), ".genome"),
        Reader("trainer-config", lambda: file_inputs(config_samples()), read_trainer_config,
               (ConfigError,), ".cfg"),
        Reader("gauntlet-config", lambda: file_inputs(gauntlet_samples()), read_gauntlet_config,
               (GauntletError,), ".cfg"),
        Reader("book", lambda: flipped_bytes(book_samples), read_book, (BookError,), ".bin"),
        Reader("chromosome-db", lambda: flipped_bytes(lambda: [database_sample()]), read_database,
               (GenomeError,), ".db"),
        Reader("state-file", state_inputs, read_state_file, (ConfigError,), ".pickle"),
        Reader("player-spec", lambda: text_inputs(PLAYER_SPECS), read_player_spec, (PlayerSpecError,)),
        Reader("engine-spec", lambda: text_inputs(ENGINE_SPECS), read_engine_spec, (SpecError,)),
        Reader("time-control", lambda: text_inputs(TIME_CONTROLS), read_time_control, ()),
        Reader("adjudication", lambda: text_inputs(ADJUDICATIONS), read_adjudication, ()),
        Reader("mentor", lambda: text_inputs(["depth=8", "nodes=20000", "depth=1"]), read_mentor, ()),
        Reader("uci", lambda: command_stream(UCI_COMMANDS), read_uci_stream, ()),
        Reader("xboard", lambda: command_stream(XBOARD_COMMANDS), read_xboard_stream, ()),
        Reader("uci-process", lambda: command_stream(UCI_COMMANDS), read_uci_process, ()),
        Reader("xboard-process", lambda: command_stream(XBOARD_COMMANDS), read_xboard_process, ()),
    ]
    return {reader.name: reader for reader in table}
