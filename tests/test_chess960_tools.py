"""Chess960 in GenChess's own tools: the 960 start positions by their Scharnagl
numbers, the players' castling (a person's entry in every spelling, SAN, Turing's
rules), `genchess match` and `genchess gauntlet --variant chess960` (GenChess
against itself and against Stockfish, resumed), `genchess play --position`, the
worker's replay of a Chess960 game, a trainer's run with `variant = chess960`
(resumed equal to an uninterrupted one), and bad values as one line. Every game
is read back by python-chess in Chess960 mode.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from engine_helpers import genchess_command, peer_engine
from genchess.game import play_game
from genchess.game.pgn import pgn_text
from genchess.parallel.replay import record_problem, result_problem
from genchess.parallel.worker import GameJob, GameResult, play_job
from genchess.players import make_player, placement
from genchess.players.human import MoveInputError, parse_move, san, san_moves
from genchess.players.turing import can_castle_now
from genchess.game.openings import (CHESS960_POSITIONS, OpeningError, check_variant, chess960_fen,
                                    chess960_numbers, chess960_openings, needs_chess960,
                                    read_openings)
from genchess_core import STARTING_FEN, Board
from train_helpers import config_text, run, train_command

FAKE_UCI = Path(__file__).parent / "data" / "fake_uci.py"
# King on b1 between its rooks on a1 and h1: O-O moves the king five files, O-O-O
# one (b1c1 is also a plain king step), so each spelling means one thing only.
CASTLES_BOTH = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"


def command(*args, script=None, timeout=300):
    argv, env = genchess_command(*args)
    return subprocess.run(argv, env=env, input=script, capture_output=True, text=True, timeout=timeout)


def pgn_games(path) -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            assert not game.errors, game.errors
            games.append(game)
    return games


def replayed_in_chess960(game: chess.pgn.Game) -> tuple[chess.Board, list[str]]:
    """The final position of a game replayed on python-chess's Chess960 board (every
    move checked legal), and the SAN of its castling moves."""
    assert game.headers["Variant"] == "Chess960"
    board = chess.Board(game.headers["FEN"], chess960=True)
    assert board.fen() == game.headers["FEN"]           # X-FEN castling rights, as written
    castles = []
    for move in game.mainline_moves():
        assert board.is_legal(move), (move, board.fen())
        if board.is_castling(move):
            castles.append(board.san(move).rstrip("+#"))
        board.push(move)
    return board, castles


# ------------------------------------------------------------------ the 960 positions

def test_the_scharnagl_numbering_is_python_chess_s_for_all_960():
    for number in range(CHESS960_POSITIONS):
        assert chess960_fen(number) == chess.Board.from_chess960_pos(number).fen(), number
    assert chess960_fen(518) == STARTING_FEN
    assert len({chess960_fen(n) for n in range(CHESS960_POSITIONS)}) == CHESS960_POSITIONS


@pytest.mark.parametrize("number", [-1, 960, True, 3.0, "5"])
def test_a_number_outside_0_to_959_is_refused(number):
    with pytest.raises(ValueError, match="numbered 0 to 959"):
        chess960_fen(number)


def test_a_seeded_choice_of_start_positions():
    assert chess960_numbers(20, seed=7) == chess960_numbers(20, seed=7)
    assert chess960_numbers(20, seed=7) != chess960_numbers(20, seed=8)
    assert chess960_numbers(5, seed=7) == chess960_numbers(20, seed=7)[:5]
    every = chess960_numbers(5000, seed=1)
    assert sorted(every) == list(range(CHESS960_POSITIONS))
    openings = chess960_openings(3, seed=2)
    assert [o.source for o in openings] == [f"Chess960 #{n}" for n in chess960_numbers(3, seed=2)]
    assert all(o.chess960 and o.fen == chess960_fen(int(o.source[10:])) for o in openings)
    assert check_variant(" Chess960 ") == "chess960"
    with pytest.raises(ValueError, match="unknown variant 'chess961': expected standard or chess960"):
        check_variant("chess961")


def test_opening_files_read_in_chess960_write_castling_king_takes_rook(tmp_path):
    lines = tmp_path / "moves.txt"
    lines.write_text("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1\n")
    (standard,) = read_openings(lines)
    (fischer,) = read_openings(lines, chess960=True)
    assert standard.moves[-1] == "e1g1" and fischer.moves[-1] == "e1h1" and fischer.chess960
    assert standard.position == fischer.position
    # A position only Chess960 can castle in is refused as standard chess, by its line.
    epd = tmp_path / "start.epd"
    epd.write_text("2k5/8/8/8/8/8/8/R3K2R w KQ -\n" + CASTLES_BOTH + "\n")
    with pytest.raises(OpeningError, match=f"{epd}:2: a Chess960 position .* give variant chess960"):
        read_openings(epd)
    assert [o.chess960 for o in read_openings(epd, chess960=True)] == [True, True]
    assert [needs_chess960(chess960_fen(n)) for n in (0, 518, 414)] == [True, False, False]


# ------------------------------------------------------------------ players

def test_a_person_castles_in_every_spelling():
    board = Board(CASTLES_BOTH, chess960=True)
    for text in ("O-O", "0-0", "o-o", "OO", "b1h1", "b1-h1", "b1g1", "O-O+"):
        assert parse_move(board, text) == "b1h1", text
    for text in ("O-O-O", "0-0-0", "b1a1"):
        assert parse_move(board, text) == "b1a1", text
    assert parse_move(board, "b1c1") == "b1c1"          # the king's step, not castling
    assert parse_move(board, "Kc1") == "b1c1"
    with pytest.raises(MoveInputError, match="no king matching"):
        parse_move(board, "Kh1")                        # castling is written O-O
    sans = san_moves(board)
    assert sans["b1h1"] == "O-O" and sans["b1a1"] == "O-O-O" and sans["b1c1"] == "Kc1"
    # The same position in standard notation: the same moves, the same SAN.
    plain = Board(CASTLES_BOTH)
    assert parse_move(plain, "O-O") == "b1h1" and san(plain, "b1a1") == "O-O-O"
    # Black, with the king beside its rook: O-O-O is the king's move b8c8 or b8a8.
    black = Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R b KQkq - 0 1", chess960=True)
    assert parse_move(black, "O-O-O") == parse_move(black, "b8a8") == "b8a8"


def test_a_person_cannot_castle_through_a_piece():
    board = Board("rkr5/pppppppp/8/8/8/8/PPPPPPPP/RKR5 w KQkq - 0 1", chess960=True)
    # O-O: the king goes to g1 and the c1 rook to f1, over empty squares; O-O-O is blocked
    # (the king lands on c1, where the other rook stands).
    assert parse_move(board, "O-O") == "b1c1"
    with pytest.raises(MoveInputError, match="White cannot castle queenside now"):
        parse_move(board, "O-O-O")


def test_a_person_s_chess960_game_through_genchess_play(tmp_path):
    """Castling typed four ways in four games; each is O-O in the PGN, read back by
    python-chess in Chess960 mode. The FEN's castling rights alone make it Chess960."""
    for spelling, variant in (("O-O", ["--variant", "chess960"]), ("0-0", []),
                              ("b1g1", ["--variant", "chess960"]), ("b1h1", [])):
        pgn = tmp_path / f"{spelling}.pgn"
        done = command("play", "human", "random", *variant, "--fen", CASTLES_BOTH,
                       "--seed", "3", "--pgn", str(pgn), script=f"{spelling}\nquit\n", timeout=60)
        assert done.returncode == 0 and "Illegal" not in done.stdout, done.stdout + done.stderr
        assert "1. O-O" in done.stdout
        (game,) = pgn_games(pgn)
        board, castles = replayed_in_chess960(game)
        assert castles == ["O-O"] and board.piece_at(chess.G1) == chess.Piece.from_symbol("K")
        assert board.piece_at(chess.F1) == chess.Piece.from_symbol("R")


def test_genchess_play_from_a_numbered_position():
    done = command("play", "random", "random", "--position", "0", "--seed", "1", timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Chess960 position 0" in done.stdout
    assert "8 | b b q n n r k r | 8" in done.stdout and "1 | B B Q N N R K R | 1" in done.stdout
    seeded = command("play", "random", "random", "--variant", "chess960", "--seed", "9", timeout=60)
    assert f"Chess960 position {chess960_numbers(1, 9)[0]}," in seeded.stdout


def test_turing_knows_when_chess960_castling_is_legal():
    """can_castle_now (castling legal were it the machine's move) against python-chess
    on random Chess960 positions, castling favoured so that rights and castled kings
    both occur."""
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for _ in range(300):
        board = chess.Board.from_chess960_pos(rng.randrange(CHESS960_POSITIONS))
        for _ in range(rng.randrange(0, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            castling = [m for m in moves if board.is_castling(m)]
            board.push(rng.choice(castling) if castling and rng.random() < 0.3 else rng.choice(moves))
        if board.is_game_over():
            continue
        fen = board.fen()
        legal = any(board.is_castling(m) for m in board.legal_moves)
        assert can_castle_now(placement(fen), fen.split()[2], board.turn == chess.WHITE) == legal, fen
        seen[legal] += 1
    assert seen[True] > 20 and seen[False] > 20


@pytest.mark.parametrize("spec", ["random", "turing", "montecarlo"])
def test_computer_players_play_chess960_games_python_chess_accepts(spec):
    players = [make_player(spec, seed, untimed_seconds=0.02) for seed in (1, 2)]
    # The Turing player's whole-width Python search takes some 12 s a game: one start
    # position for it (the castling rules it needs have their own test above).
    for number in (0,) if spec == "turing" else (0, 959, 321):
        record = play_game(*players, chess960_fen(number), max_plies=120, chess960=True)
        assert record.chess960 and record.start_fen == chess960_fen(number)
        assert record_problem(record, timed=False, max_plies=120) is None
        game = chess.pgn.read_game(__import__("io").StringIO(pgn_text(record)))
        replayed_in_chess960(game)


# ------------------------------------------------------------------ the game job and its replay

def test_a_chess960_game_job_is_replayed_in_chess960():
    from genchess.genome import default_genome
    genome = default_genome()
    job = GameJob.between(genome, genome, start_fen=CASTLES_BOTH, depth=1, chess960=True)
    result = play_job(job)
    record = result.record
    assert record.chess960 and result_problem(result, job) is None
    standard = GameJob.between(genome, genome, start_fen=CASTLES_BOTH, depth=1)
    assert result_problem(GameResult(standard, record, 0.0), standard) == \
        "the game is Chess960, but the job asked for standard chess"
    # White castles short and Black resigns: castling king-takes-rook, legal in Chess960...
    record.moves, record.result, record.termination = ["b1h1"], "1-0", "resignation"
    assert record_problem(record, timed=False) is None
    # ...and no move at all by the standard rules, which keep no right for a king on b1.
    record.chess960 = False
    assert record_problem(record, timed=False).startswith("ply 1 (b1h1) is illegal")


# ------------------------------------------------------------------ genchess match and gauntlet

def test_a_chess960_match_between_genchess_engines_and_its_resume(tmp_path):
    pgn = tmp_path / "m.pgn"
    first = command("match", "genchess", "genchess", "--variant", "chess960", "--games", "4",
                    "--tc", "depth=2", "--concurrency", "1", "--seed", "5", "--pgn", str(pgn))
    assert first.returncode == 0, first.stderr
    assert "2 Chess960 openings" in first.stdout
    again = command("match", "genchess", "genchess", "--variant", "chess960", "--games", "6",
                    "--tc", "depth=2", "--concurrency", "1", "--seed", "5", "--pgn", str(pgn),
                    "--resume")
    assert again.returncode == 0, again.stderr
    assert "Resumed 4 games" in again.stdout and "Game 6/6" in again.stdout
    games = pgn_games(pgn)
    assert [g.headers["Round"] for g in games] == ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"]
    numbers = chess960_numbers(3, seed=5)
    for i, game in enumerate(games):
        assert game.headers["FEN"] == chess960_fen(numbers[i // 2])        # a pair shares it
        assert game.headers["Opening"] == f"Chess960 #{numbers[i // 2]}"
        board, _ = replayed_in_chess960(game)
        outcome = board.outcome(claim_draw=True)
        assert outcome is None or outcome.result() == game.headers["Result"]
    # Resuming the same file as a standard match is refused, naming the variant.
    wrong = command("match", "genchess", "genchess", "--games", "6", "--tc", "depth=2",
                    "--pgn", str(pgn), "--resume")
    assert wrong.returncode == 2 and "Variant Chess960, but this match plays standard" in wrong.stderr


def test_a_chess960_match_against_stockfish(tmp_path):
    stockfish = peer_engine("stockfish")
    pgn = tmp_path / "sf.pgn"
    done = command("match", "genchess", f"uci:{stockfish} Threads=1 Hash=16 name=SF",
                   "--variant", "chess960", "--games", "4", "--tc", "nodes=2000",
                   "--concurrency", "1", "--seed", "11", "--pgn", str(pgn))
    assert done.returncode == 0, done.stderr
    games = pgn_games(pgn)
    assert len(games) == 4 and {g.headers["Black"] for g in games[::2]} == {"SF"}
    for game in games:
        assert game.headers["Termination"] not in ("rules infraction", "abandoned"), game
        replayed_in_chess960(game)


def test_an_engine_without_chess960_is_refused_or_skipped(tmp_path):
    fake = f"uci:{sys.executable} {FAKE_UCI} random"
    done = command("match", "genchess", fake, "--variant", "chess960", "--games", "2")
    assert done.returncode == 2 and "does not play Chess960 (it offers no UCI_Chess960 option)" \
        in done.stderr and len(done.stderr.strip().splitlines()) == 1
    config = tmp_path / "g.cfg"
    config.write_text(f"engine = genchess\ngames = 2\ntc = depth=1\nvariant = chess960\n\n"
                      f"[opponent fake]\ncommand = {fake}\nrating = 100\n\n"
                      f"[opponent random]\ncommand = random name=Random\nrating = 0\n")
    done = command("gauntlet", str(config), "--concurrency", "1", "--out", str(tmp_path / "out"),
                   "--pgn", str(tmp_path / "g.pgn"))
    assert done.returncode == 0, done.stderr + done.stdout
    assert "skipping fake: engine" in done.stdout and "does not play Chess960" in done.stdout
    games = pgn_games(tmp_path / "g.pgn")
    assert len(games) == 2
    for game in games:
        replayed_in_chess960(game)


# ------------------------------------------------------------------ a trainer

KW_960 = {"method": "kendall-whitwell", "run file": "kw.txt", "population": "6",
          "generations": "3", "depth": "3", "seed": "4", "workers": "2", "variant": "chess960"}


def kw_games(path) -> list[tuple]:
    return sorted((g.headers["Generation"], g.headers["Match"], g.headers["Game"],
                   g.headers["WhiteID"], g.headers["BlackID"], g.headers["FEN"],
                   g.headers["Result"], str(g.mainline_moves())) for g in pgn_games(path))


def test_a_chess960_trainer_run_resumes_as_the_uninterrupted_run(tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir()
    parts.mkdir()
    (whole / "kw.cfg").write_text(config_text(KW_960))
    done = run(train_command("kw.cfg"), cwd=whole, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    games = pgn_games(whole / "kw.txt_games.txt")
    assert len(games) == 3 * 2 * 5
    matches: dict[tuple, list] = {}
    for game in games:
        matches.setdefault((game.headers["Generation"], game.headers["Match"]), []).append(game)
    fens = set()
    for first, second in matches.values():      # a match's two games: one position, colours swapped
        assert first.headers["FEN"] == second.headers["FEN"]
        assert (first.headers["WhiteID"], first.headers["BlackID"]) == \
            (second.headers["BlackID"], second.headers["WhiteID"])
        fens.add(first.headers["FEN"])
        replayed_in_chess960(first)
    assert len(fens) > 5 and fens <= {chess960_fen(n) for n in range(CHESS960_POSITIONS)}
    # Cut short by a time limit, then run again without it: the same games and genomes.
    (parts / "kw.cfg").write_text(config_text(KW_960, time_limit="2 seconds"))
    cut = run(train_command("kw.cfg"), cwd=parts, timeout=300)
    assert cut.returncode == 0 and "Time limit reached" in cut.stdout, cut.stdout[-2000:]
    assert len(pgn_games(parts / "kw.txt_games.txt")) < len(games)
    (parts / "kw.cfg").write_text(config_text(KW_960))
    rest = run(train_command("kw.cfg"), cwd=parts, timeout=300)
    assert rest.returncode == 0 and "Resuming kw.txt" in rest.stdout, rest.stdout[-2000:]
    assert kw_games(parts / "kw.txt_games.txt") == kw_games(whole / "kw.txt_games.txt")
    assert (parts / "kw.txt").read_text() == (whole / "kw.txt").read_text()


# ------------------------------------------------------------------ position sets

def test_a_position_set_from_chess960_self_play_keeps_what_a_packed_set_can(tmp_path):
    from genchess.position_sets.making import packable_castling
    from genchess.position_sets.position_set import load_positions
    out = tmp_path / "set.epd"
    done = command("positions", "--play", "genchess", "--games", "4", "--nodes", "300",
                   "--variant", "chess960", "--workers", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    # Chess960 positions: castling rights kept by a king off e1 (no standard position has one).
    assert any(set(line.split()[2]) & set("KQ") and placement(line)[4] != "K" for line in lines)
    # Read back packed: every position is the one written, castling rights included.
    packed = load_positions(out)
    assert len(packed) == len(lines) and len(lines) > 10
    for i, line in enumerate(lines):
        assert packed.fen(i).split()[:4] == line.split()[:4]
    # A right named by its rook's file (another rook of its side further out) goes.
    named = Board("4k3/8/8/8/8/8/8/3K1R1R w F - 0 1").fen()
    assert named.split()[2] == "F" and packable_castling(named).split()[2] == "-"
    assert packable_castling(chess960_fen(0)) == chess960_fen(0)


# ------------------------------------------------------------------ bad values

@pytest.mark.parametrize("args, message", [
    (["train", "{cfg}"], "{cfg}:2: variant: expected one of standard, chess960, not 'chess961'"),
    (["play", "random", "random", "--position", "960"],
     "genchess play: --position: Chess960 start positions are numbered 0 to 959, not 960"),
    (["play", "random", "random", "--position", "5", "--variant", "standard"],
     "--position numbers a Chess960 start position: it needs --variant chess960"),
    (["play", "random", "random", "--variant", "chess961"],
     "genchess play: --variant: unknown variant 'chess961': expected standard or chess960"),
    (["match", "genchess", "genchess", "--variant", "chess961"],
     "genchess match: --variant: unknown variant 'chess961'"),
    (["gauntlet", "{gauntlet}"], "{gauntlet}:1: variant: unknown variant 'fischer'"),
])
def test_bad_values_are_one_line(tmp_path, args, message):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("method = kendall-whitwell\nvariant = chess961\n"
                   + config_text(KW_960, method=None, variant=None))
    gauntlet = tmp_path / "g.cfg"
    gauntlet.write_text("variant = fischer\n[opponent a]\ncommand = random\nrating = 0\n")
    names = {"cfg": cfg, "gauntlet": gauntlet}
    done = command(*[a.format(**names) for a in args], timeout=60)
    assert done.returncode == 2 and message.format(**names) in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
