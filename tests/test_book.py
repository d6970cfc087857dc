"""Polyglot opening books: weighted choice at the root, Book Depth, options on
both protocols and the command line, bad files, trainers' book openings."""

import random
from collections import Counter
from pathlib import Path

import chess
import chess.engine
import pytest

from engine_helpers import genchess_command
from genchess.book import Book, BookError
from genchess.engine import Engine
from genchess.protocols.options import OptionError, Settings
from genchess.timeman import Limits
from script_helpers import load_script

BOOK = Path(__file__).resolve().parent / "data" / "tiny-book.bin"


def test_the_shipped_test_book_is_what_its_script_writes():
    module = load_script(BOOK.with_name("make_book.py"))
    assert BOOK.read_bytes() == module.book_bytes()


def test_choice_is_weighted_and_only_from_the_book():
    book = Book(BOOK, rng=random.Random(1))
    counts = Counter(book.choose(chess.STARTING_FEN) for _ in range(400))
    assert set(counts) == {"e2e4", "d2d4"}
    assert 0.65 < counts["e2e4"] / 400 < 0.85            # weights 3 : 1
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert book.choose(after_e4.fen()) in ("e7e5", "c7c5")
    assert book.choose("4k3/8/8/8/8/8/8/4K3 w - - 0 1") is None      # not in the book


def test_book_depth_stops_using_the_book():
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    assert Book(BOOK, depth=2).choose(board.fen()) == "b8c6"          # move 2 of the game
    assert Book(BOOK, depth=1).choose(board.fen()) is None


def test_engine_plays_book_moves_without_searching_and_searches_after():
    engine = Engine()
    engine.book = Book(BOOK, rng=random.Random(3))
    engine.set_position(None, ["e2e4", "e7e5"])
    result = engine.search(Limits(depth=3))
    assert result.bestmove == "g1f3" and result.nodes == 0
    engine.set_position(None, ["e2e4", "e7e5", "d2d4"])                # out of book
    result = engine.search(Limits(depth=3))
    assert result.nodes > 0
    engine.set_position(None, [])
    assert engine.search(Limits(infinite=False, depth=2)).nodes == 0
    engine.book = None
    assert engine.search(Limits(depth=2)).nodes > 0                   # off by default


@pytest.mark.parametrize("content, problem", [
    (b"", "not a Polyglot book"),
    (b"x" * 17, "not a Polyglot book"),
])
def test_bad_book_files_are_reported(tmp_path, content, problem):
    path = tmp_path / "bad.bin"
    path.write_bytes(content)
    with pytest.raises(BookError, match=f"{path}: {problem}"):
        Book(path)
    with pytest.raises(BookError, match="cannot open book"):
        Book(tmp_path / "missing.bin")


def test_settings_book_file_and_depth():
    engine = Engine()
    settings = Settings(engine)
    settings.set_book_depth("3")
    settings.set_book(str(BOOK))
    assert engine.book is not None and engine.book.depth == 3
    with pytest.raises(OptionError, match="Book Depth must be from 1"):
        settings.set_book_depth("0")
    with pytest.raises(OptionError, match="not a Polyglot book"):
        settings.set_book(str(BOOK.with_name("make_book.py")))
    assert engine.book is not None                                     # a bad value changes nothing
    settings.set_book("")
    assert engine.book is None


def test_uci_book_option_and_command_line():
    argv, env = genchess_command("uci")
    with chess.engine.SimpleEngine.popen_uci(argv, env=env) as engine:
        assert "Book File" in engine.options and "Book Depth" in engine.options
        engine.configure({"Book File": str(BOOK)})
        result = engine.play(chess.Board(), chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        assert result.move.uci() in ("e2e4", "d2d4")
    argv, env = genchess_command("--book", str(BOOK), "xboard")
    with chess.engine.SimpleEngine.popen_xboard(argv, env=env) as engine:
        assert "Book" in engine.options          # python-chess keeps an xboard option's first word
        board = chess.Board()
        board.push_uci("d2d4")
        assert engine.play(board, chess.engine.Limit(depth=2)).move.uci() in ("d7d5", "g8f6")


def test_command_line_bad_book_is_one_line_and_status_2(tmp_path):
    import subprocess
    argv, env = genchess_command("--book", str(tmp_path / "nope.bin"), "uci")
    proc = subprocess.run(argv, env=env, input="quit\n", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "cannot open book" in proc.stderr


def test_random_line_follows_the_book():
    book = Book(BOOK)
    fens = {book.random_line(random.Random(seed), 8) for seed in range(20)}
    assert len(fens) > 1
    for fen in fens:
        assert chess.Board(fen).fullmove_number <= 3                   # the book is 3 moves deep
