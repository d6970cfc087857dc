"""Every reader of outside input keeps its property on random and damaged input: a
correct result, or its own error in one line naming the problem and the file; never
a traceback, a hang or a crash of the core (tests/fuzz_readers.py has the readers
and the property). A few cases of each here, with a fixed seed; scripts/dev/fuzz.py
runs them for as long as it is given. Below the sweep, each input the fuzzing found
a reader failing on, kept as an example."""

from __future__ import annotations

import gzip
import pickle
import re

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_readers import GENOMES, Failure, Reader, one_line_problem, readers

READERS = readers()
# Cases per reader: few, so that the whole sweep stays well under a minute; the
# protocols' cases run a search and are the dearest.
CASES = {"uci": 8, "xboard": 8, "uci-process": 3, "xboard-process": 3, "pgn-resume": 10, "genome": 12}


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_reader_gives_a_result_or_its_own_one_line_error(name, tmp_path):
    reader = READERS[name]

    @settings(max_examples=CASES.get(name, 15), deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(reader.inputs())
    def sweep(data):
        reader.check(data, tmp_path)

    sweep()


def test_the_property_catches_what_it_should(tmp_path):
    """The sweep can fail: a stray exception, a long or many-line message, a message
    that does not name the file."""
    assert one_line_problem("x.cfg:3: bad", "x.cfg") is None
    assert one_line_problem("bad\nworse", None) == "a message of more than one line"
    assert one_line_problem("9" * 5000, None).startswith("a message of 5000")
    assert one_line_problem("bad", "x.cfg") == "a message that does not name x.cfg"
    with pytest.raises(Failure, match="IndexError"):
        Reader("odd", lambda: None, lambda data: [][0], ()).check("x", tmp_path)


# ------------------------------------------------------------------ what the fuzzing found

HUGE = "9" * 5000       # more digits than int() converts


def check(name: str, data, tmp_path) -> list[str]:
    """The reader's property on `data`, and every error or warning it gave."""
    reader = READERS[name]
    return reader.messages(data.encode() if reader.suffix and isinstance(data, str) else data, tmp_path)


def refused(name: str, data, tmp_path, why: str) -> None:
    """The reader keeps its property on `data` and refuses it for the reason the case
    is named for (`why`, a regular expression), not for another or not at all."""
    messages = check(name, data, tmp_path)
    assert any(re.search(why, message) for message in messages), \
        f"{name}: expected an error matching {why!r}, got {[m[:200] for m in messages]}"


def test_an_army_no_game_can_reach_is_refused_before_its_moves_overrun_the_move_list():
    """Sixteen queens have 257 moves here: one more than a move list holds."""
    from genchess_core import Board, FenError
    with pytest.raises(FenError, match="pieces beyond the starting ones"):
        Board("QQQQQQnk/Q4Qnn/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1")
    with pytest.raises(FenError, match="9 pawns"):
        Board("4k3/8/8/8/8/1P6/PPPPPPPP/4K3 w - - 0 1")
    # The most moves a reachable position has: still read, and every one generated.
    assert len(Board("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1").legal_moves()) == 218


# Each runaway shown cut: the message quotes the start of it and "...".
@pytest.mark.parametrize("name, data, why", [
    ("moves", "e" + HUGE, r"malformed move 'e9+\.\.\.'"),          # a move of 5001 characters
    ("fen", f"rnbqkbnr/pp{HUGE}/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"invalid FEN .*piece placement"),
    ("fen", f"4k3/8/8/8/8/8/8/4K3 w {'K' * 3000} - 0 1", r"invalid FEN .*castling rights: 'K' rep"),
    ("time-control", f"st={HUGE}", r"'9+\.\.\.' is not a number of seconds"),
    ("openings", f"rnbqkbnr/pp{HUGE}/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
     r"input\.epd:1: invalid FEN 'rnbqkbnr/pp9+"),
    ("openings-pgn", f'[Event "x"]\n[FEN "4k3/8/8/8/8/8/4P3/{HUGE}"]\n[Result "1-0"]\n\n1-0\n',
     r"input\.pgn:1: game 1: invalid character in position part of fen"),
    ("pgn-positions", f'[Event "x"]\n[FEN "4k3/8/8/8/8/8/4P3/{HUGE}"]\n[Result "1-0"]\n\n1-0\n',
     r"^invalid character in position part of fen"),
    ("pgn-positions", f'[Event "x"]\n[Result "1{HUGE}"]\n\n1. e4 e5 1-0\n', r"no result \(Result '19+\.\.\.'\)"),
    ("pgn-resume", f'[Event "GenChess match"]\n[Round "{HUGE}"]\n[White "GenChess"]\n'
                   f'[Black "Baseline"]\n[Result "1-0"]\n\n1-0\n', r"game 1: Round '9+\.\.\.' is not 'pair\.game'"),
    ("trainer-config", f"method = evolve\nsigma = {HUGE}\n", r"input\.cfg:2: sigma: expected a finite number"),
    ("gauntlet-config", f"games = {HUGE}\n", r"input\.cfg:1: games: expected a whole number"),
    # A number int() reads but no bound admits (found by the fuzzer).
    ("genome", (GENOMES / "material.genome").read_text().replace("\nEND", f"\nSearch rfp_margin: {'9' * 1000}\nEND"),
     r"search gene rfp_margin: '9+\.\.\.' is outside 30 to 250"),
])
def test_a_runaway_input_gets_a_short_message(name, data, why, tmp_path):
    refused(name, data, tmp_path, why)


@pytest.mark.parametrize("name, data, why", [
    ("genome", f"ID: {HUGE}\nKind: material\nEND\n", r"input\.genome:1: ID must be a non-negative integer"),
    ("genome", (GENOMES / "material.genome").read_text() + f"Still Alive: 0 : 1 {HUGE}\n",
     r"expected 'Still Alive: <pool> : <id> <id> \.\.\.', got '0 : 1 9+\.\.\.'"),
    ("player-spec", f"genetic:pool.txt:{HUGE}", r"genome ID '9+\.\.\.' is too large"),
    ("engine-spec", f"genchess hash={HUGE}", r"hash must be a whole number of MB, not '9+\.\.\.'"),
    ("engine-spec", "genchess hash=\u00b2", "hash must be a whole number of MB, not '\u00b2'"),  # isdigit(), not int()
    ("engine-spec", "genchess threads=\u00b2", "threads must be a whole number of at least 1, not '\u00b2'"),
    ("time-control", "nodes=\u00b2", "time control 'nodes=\u00b2': nodes must be a whole number"),
    ("time-control", "\u00b2/60+1", "moves per period must be a whole number"),
    ("adjudication", "movecount=\u00b2 score=400 |", "--resign: movecount must be a whole number of at least 1, not '\u00b2'"),
    ("adjudication", f"| movenumber=1 movecount={HUGE} score=2", r"--draw: movecount must be a whole number .*'9+\.\.\.'"),
    ("mentor", "depth=\u00b2", "expected depth=N or nodes=N .*not 'depth=\u00b2'"),
    ("engine-spec", "xboard:./fairy\x00max", r"command '\./fairy\\x00max' not found"),  # os.access() raised on the NUL
])
def test_digits_int_cannot_read_are_an_error_of_the_reader(name, data, why, tmp_path):
    """int() refuses more than 4300 digits, and digits such as the superscript two
    that str.isdigit() lets through: a raw ValueError until these readers checked."""
    refused(name, data, tmp_path, why)


def test_a_number_with_too_many_digits_in_a_config_says_so(tmp_path):
    """Not Python's advice to raise its digit limit."""
    from genchess.train.config import ConfigError
    from genchess.train.registry import parse_config
    path = tmp_path / "run.cfg"
    path.write_text(f"seed = {HUGE}\n")
    with pytest.raises(ConfigError, match=r"run.cfg:1: seed: expected a whole number of at most 18 digits"):
        parse_config(path)


def test_a_games_file_that_is_not_text_or_holds_odd_numbers(tmp_path):
    from genchess.train.records import read_games_file
    refused("games-file", b"\xfe\xa3[Event \"x\"]\n", tmp_path, r"input\.txt: not a UTF-8 text file")
    odd = '[White "genome \u00b2"]\n[Black "genome 3"]\n[Result "1-0"]\n[Round "\u00b2"]\n\n1. e4 1-0\n'
    assert check("games-file", odd, tmp_path) == []
    # Read, with the superscript two not taken for a number.
    (game,), torn = read_games_file(tmp_path / "input.txt")
    assert torn is None and game.get_int("Round") is None and game.headers["Black"] == "genome 3"


def test_a_null_move_in_a_pgn_is_a_problem_of_that_game_not_a_move_to_play(tmp_path):
    from genchess.position_sets.run import read_pgn_games
    path = tmp_path / "null.pgn"
    path.write_text('[Event "x"]\n[Result "1-0"]\n\n1. e4 -- 2. d4 1-0\n')
    (where, problem), = read_pgn_games(path)
    assert problem == "a null move (--) at ply 2", problem
    refused("pgn-positions", path.read_bytes(), tmp_path, r"^a null move \(--\) at ply 2$")


@pytest.mark.parametrize("data", [
    pickle.dumps({"iteration": 1})[:-3],                 # torn
    pickle.dumps([1, 2]),                                # not a dict
    pickle.dumps({"numbers": 3}),                        # another run's
    gzip.compress(b"not a pickle"),
    b"",
])
def test_a_damaged_state_file_is_a_config_error_naming_it(data, tmp_path):
    from genchess.train.config import ConfigError
    from genchess.train.records import read_state
    path = tmp_path / "run_state.pickle"
    path.write_bytes(data)
    with pytest.raises(ConfigError, match="run_state.pickle"):
        read_state(path, ("iteration", "numbers"))
    refused("state-file", data, tmp_path, "input.pickle")


def test_a_damaged_position_set_line_gets_a_short_warning(tmp_path):
    data = f'4k3/8/8/8/8/8/4P3/4K3 w - - c9 "1{HUGE}";\n4k3/8/8/8/8/8/4P3/4K3 w - - c9 "1-0"; ce {HUGE};\n'
    refused("epd", data, tmp_path, r"input\.epd:1: c9 '19+\.\.\.' is not 1-0, 1/2-1/2 or 0-1")
    refused("epd", data, tmp_path, r"input\.epd:2: ce '9+\.\.\.' is not a whole number of centipawns")


@pytest.mark.parametrize("offset, byte, why", [
    (3310, 188, "can't decode byte 0xbc"),   # a text cell that is not UTF-8: sqlite3 raised UnicodeDecodeError
    (3558, 11, "malformed database schema"),  # a schema with a vertical tab: SQLite's message ran over two lines
])
def test_a_damaged_chromosome_database_is_a_genome_error(offset, byte, why, tmp_path):
    from fuzz_readers import database_sample
    data = bytearray(database_sample())
    data[offset] = byte
    refused("chromosome-db", bytes(data), tmp_path, r"input\.db: damaged or unreadable SQLite database \(.*" + why)


@pytest.mark.parametrize("piece, squares, problem", [
    (3, 1 << 12, "the side not to move is in check"),                 # the rook to e2: Black in check
    (4, 0xFFFF00, "an army no game reaches"),                          # sixteen white queens
])
def test_a_packed_set_holds_only_what_a_fen_could_say(piece, squares, problem, tmp_path):
    """The packed reader checked pieces and flags, not what set_fen checks; a crowd
    of queens would reach the move generator unchecked."""
    import numpy as np

    from genchess.position_sets.position_set import PositionSet, PositionSetError, load_positions
    positions = PositionSet.from_fens(["4k3/8/8/8/8/8/8/R3K3 w - - 0 1"] * 3, ["1-0"] * 3)
    positions.pieces[1, 3] = 0
    positions.pieces[1, piece] |= np.uint64(squares)
    positions.write(tmp_path / "set.gcpos")
    with pytest.raises(PositionSetError, match=f"set.gcpos: record 1 .*{problem}"):
        load_positions(tmp_path / "set.gcpos")
    refused("packed", (tmp_path / "set.gcpos").read_bytes(), tmp_path, f"input.gcpos: record 1 .*{problem}")


def test_found_in_the_long_run_a_table_number_a_gene_key_and_a_players_name(tmp_path):
    """A Phoenix table with a 5000-digit number (int() refused it), a Genetic Chess
    key of 5000 characters quoted whole, and a resumed match's White with a vertical
    tab (the message broke in two)."""
    pvt = (GENOMES / "pvt-textbook.genome").read_text()
    refused("genome", pvt.replace("  50   50   50", f"  {HUGE}   50   50", 1), tmp_path,
            r"input\.genome:13: PVT genome: a table row: values beyond \+-10000 centipawns")
    genetic = (GENOMES / "default.genome").read_text()
    refused("genome", genetic.replace("Speculation Constant", "Speculation Constant" + "x" * 5000, 1), tmp_path,
            r"unknown key 'Speculation Constantx+\.\.\.'")
    refused("pgn-resume", '[Event "GenChess match"]\n[Round "1.1"]\n[White "\x0bnew"]\n[Black "old"]\n'
                          '[Result "1-0"]\n\n1-0\n', tmp_path, r"game 1: new - old, but this match plays")
