"""Chess960 over both protocols: UCI with UCI_Chess960, CECP's variant fischerandom.

Raw lines check what each notation writes and reads: castling as the king's move or
king-takes-rook in UCI, O-O and O-O-O in CECP (whose input also takes the king's move
and king-takes-rook). Games go through python-chess's clients, which set UCI_Chess960
or send `variant fischerandom` themselves for a Chess960 board, and through
cutechess-cli and fastchess (skipped when they are absent), GenChess over UCI against
GenChess over xboard, as a tournament would play them.
"""

from __future__ import annotations

import io
import random
import subprocess

import chess
import chess.engine
import chess.pgn
import pytest

from engine_helpers import (PROTOCOL_LOGS, Lines, RawEngine, genchess_command, tournament,
                            tournament_manager, uci_session, xboard_session)
from genchess.protocols.channel import Channel
from genchess.engine import Engine
from genchess.protocols.options import Settings
from genchess.protocols.xboard import XboardProtocol

# Castling is White's only legal move here (g1h1: the king stays, the rook goes to
# f1), and Black's in the mirror; neither is a standard castling.
ONLY_WHITE_CASTLES = "k4r2/8/8/8/8/7p/7P/6KR w H - 0 1"
ONLY_BLACK_CASTLES = "6kr/7p/7P/8/8/8/8/K4R2 b h - 0 1"
ITALIAN = ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5"]     # both sides may castle next
KING_ON_B1 = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"


def only_move(fen: str) -> chess.Move:
    board = chess.Board(fen, chess960=True)
    moves = list(board.legal_moves)
    assert len(moves) == 1 and board.is_castling(moves[0]), moves
    return moves[0]


def test_the_forced_positions_force_castling():
    assert chess.Board(ONLY_WHITE_CASTLES, chess960=True).uci(only_move(ONLY_WHITE_CASTLES)) == "g1h1"
    assert chess.Board(ONLY_BLACK_CASTLES, chess960=True).uci(only_move(ONLY_BLACK_CASTLES)) == "g8h8"


# ------------------------------------------------------------------ UCI

def bestmove(engine: RawEngine, go: str = "go depth 3") -> str:
    engine.send(go)
    _, line = engine.expect("bestmove", timeout=30)
    return line.split()[1]


@pytest.mark.parametrize("chess960", [False, True])
def test_uci_writes_castling_in_the_chosen_notation(chess960):
    with uci_session() as engine:
        engine.send(f"setoption name UCI_Chess960 value {str(chess960).lower()}")
        # Standard castling: e1g1, or e1h1 with UCI_Chess960; searchmoves read either.
        engine.send(f"position startpos moves {' '.join(ITALIAN)}")
        for spelling in ("e1g1", "e1h1"):
            assert bestmove(engine, f"go depth 3 searchmoves {spelling}") == \
                ("e1h1" if chess960 else "e1g1")
        # A Chess960 castling is king-takes-rook in both notations.
        engine.send(f"position fen {ONLY_WHITE_CASTLES}")
        assert bestmove(engine) == "g1h1"
        engine.send(f"position fen {ONLY_BLACK_CASTLES}")
        assert bestmove(engine) == "g8h8"


@pytest.mark.parametrize("chess960,white,black", [
    (False, "e1g1", "e8g8"), (False, "e1h1", "e8h8"), (True, "e1h1", "e8h8"), (True, "e1g1", "e8g8")])
def test_uci_reads_both_spellings_of_standard_castling(chess960, white, black):
    with uci_session() as engine:
        engine.send(f"setoption name UCI_Chess960 value {str(chess960).lower()}")
        engine.send(f"position startpos moves {' '.join(ITALIAN)} {white}")
        assert bestmove(engine, "go depth 2 searchmoves e8g8 e8h8") == ("e8h8" if chess960 else "e8g8")
        # f1e1, then f8e8, are legal only with both rooks castled to the f-file.
        engine.send(f"position startpos moves {' '.join(ITALIAN)} {white} {black} f1e1")
        assert bestmove(engine, "go depth 2 searchmoves f8e8") == "f8e8"


# (FEN, the castling king-takes-rook, a reply, then a move of the castled side that is
# legal only if the castling was made as it should be)
NEIGHBOURS = [
    ("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "e1f1", "e8d8", "g1h1"),      # the rook stays on f1
    ("2rk4/8/8/8/8/8/8/4K3 b c - 0 1", "d8c8", "e1f1", "d8d1"),      # king and rook swap
    ("4k3/8/8/8/8/8/8/R1K5 w A - 0 1", "c1a1", "e8e7", "d1d8"),      # the king stays on c1
]
NEIGHBOUR_IDS = ["rook-on-f1", "rook-next-to-king", "king-on-c1"]


@pytest.mark.parametrize("fen,castling,reply,then", NEIGHBOURS, ids=NEIGHBOUR_IDS)
def test_uci_castles_with_the_rook_beside_the_king_or_the_king_in_place(fen, castling, reply, then):
    board = chess.Board(fen, chess960=True)
    assert chess.Move.from_uci(then) not in board.legal_moves
    board.push_uci(castling)
    board.push_uci(reply)
    assert chess.Move.from_uci(then) in board.legal_moves
    with uci_session() as engine:
        engine.send("setoption name UCI_Chess960 value true")
        engine.send(f"position fen {fen}")
        assert bestmove(engine, f"go depth 2 searchmoves {castling}") == castling
        engine.send(f"position fen {fen} moves {castling} {reply}")
        assert bestmove(engine, f"go depth 2 searchmoves {then}") == then


def test_uci_plays_a_chess960_position_given_in_x_fen_or_shredder_fen():
    board = chess.Board(KING_ON_B1, chess960=True)
    with uci_session() as engine:
        engine.send("setoption name UCI_Chess960 value true")
        assert board.fen() != board.fen(shredder=True)
        for fen in (board.fen(), board.fen(shredder=True)):
            engine.send(f"position fen {fen} moves b1h1 b8a8")     # both castle
            # f1e1 is legal only with White's rook castled to f1 (an illegal
            # searchmove would be dropped and any move played).
            assert bestmove(engine, "go depth 2 searchmoves f1e1") == "f1e1"


def test_uci_bad_chess960_fen_is_named_and_keeps_the_position():
    with uci_session() as engine:
        engine.send("setoption name UCI_Chess960 value true")
        engine.send(f"position fen {ONLY_WHITE_CASTLES}")
        engine.send("position fen rk5r/8/8/8/8/8/8/RK5R w C - 0 1")
        _, line = engine.expect("info string", timeout=10)
        assert "castling right 'C': no white rook on c1" in line
        assert bestmove(engine) == "g1h1"


def test_uci_game_through_python_chess_from_chess960_positions(launcher):
    """python-chess sets UCI_Chess960 for a Chess960 board and sends Shredder-FENs and
    king-takes-rook moves; every castling that becomes legal is made the only root move."""
    engine = launcher.genchess("uci")
    rng = random.Random(960)
    castlings = []
    for start in rng.sample(range(960), 2):
        board = chess.Board.from_chess960_pos(start)
        while not board.is_game_over() and board.ply() < 60:
            castles = [m for m in board.legal_moves if board.is_castling(m)]
            result = engine.play(board, chess.engine.Limit(depth=2), root_moves=castles or None)
            assert result.move in board.legal_moves
            if castles:
                assert result.move in castles
                castlings.append(board.uci(result.move))
            board.push(result.move)
    assert len(castlings) >= 2
    log = PROTOCOL_LOGS[engine].read_text()
    assert "setoption name UCI_Chess960 value true" in log
    for uci in castlings:                     # written king-takes-rook, as python-chess reads it
        assert f"<< bestmove {uci}" in log


# ------------------------------------------------------------------ xboard

def in_process_xboard(*commands: str) -> tuple[XboardProtocol, Lines]:
    engine = Engine()
    out = Lines()
    xboard = XboardProtocol(engine, Settings(engine), Channel(io.StringIO(""), out))
    for line in ("xboard", "protover 2", "new", *commands):
        xboard.handle(line)
    return xboard, out


@pytest.mark.parametrize("fen,written", [(ONLY_WHITE_CASTLES, "O-O"), (ONLY_BLACK_CASTLES, "O-O")])
def test_xboard_fischerandom_writes_castling_as_o_o(fen, written):
    with xboard_session() as engine:
        for line in ("new", "variant fischerandom", "force", f"setboard {fen}", "sd 2", "go"):
            engine.send(line)
        _, line = engine.expect("move ", timeout=20)
        assert line == f"move {written}"
        # In the normal variant the same castling is written king-takes-rook.
        for line in ("new", "force", f"setboard {fen}", "sd 2", "go"):
            engine.send(line)
        _, line = engine.expect("move ", timeout=20)
        assert line == f"move {chess.Board(fen, chess960=True).uci(only_move(fen))}"


@pytest.mark.parametrize("sent,meant", [
    ("O-O", "b1h1"), ("0-0", "b1h1"), ("b1h1", "b1h1"),
    ("b1g1", "b1h1"),                     # the king's move
    ("O-O-O", "b1a1"), ("0-0-0", "b1a1"), ("b1a1", "b1a1"),
    ("b1c1", "b1c1"),                     # the king's move to c1 is also a plain king move: that
])
def test_xboard_fischerandom_reads_every_castling_form(sent, meant):
    xboard, out = in_process_xboard("variant fischerandom", "force", f"setboard {KING_ON_B1}",
                                    f"usermove {sent}")
    assert not [line for line in out.lines if line.startswith(("Illegal", "Error"))], out.lines
    expected = chess.Board(KING_ON_B1, chess960=True)
    expected.push_uci(meant)
    assert xboard.engine.board.fen() == expected.fen()


@pytest.mark.parametrize("fen,castling,reply,then", NEIGHBOURS, ids=NEIGHBOUR_IDS)
def test_xboard_castles_with_the_rook_beside_the_king_or_the_king_in_place(fen, castling, reply, then):
    expected = chess.Board(fen, chess960=True)
    written = "O-O" if expected.is_kingside_castling(expected.parse_uci(castling)) else "O-O-O"
    for move in (castling, reply, then):
        expected.push_uci(move)
    for sent in (written, castling):
        xboard, out = in_process_xboard("variant fischerandom", "force", f"setboard {fen}")
        assert xboard.cecp_moves([castling, reply]) == [written, reply]
        for move in (sent, reply, then):
            xboard.handle(f"usermove {move}")
        assert not [line for line in out.lines if line.startswith(("Illegal", "Error"))], out.lines
        assert xboard.engine.board.fen() == expected.fen()


@pytest.mark.parametrize("sent", ["O-O", "O-O-O", "b1g1", "b1h1"])
def test_xboard_refuses_a_castling_that_is_not_legal(sent):
    blocked = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RKN3NR w HAha - 0 1"
    xboard, out = in_process_xboard("variant fischerandom", "force", f"setboard {blocked}",
                                    f"usermove {sent}")
    assert out.lines[-1] == f"Illegal move: {sent}"
    assert xboard.engine.board.fen() == chess.Board(blocked, chess960=True).fen()


def test_xboard_thinking_output_writes_castling_in_the_pv_as_o_o():
    xboard, out = in_process_xboard("variant fischerandom", "force", f"setboard {KING_ON_B1}")
    assert xboard.cecp_moves(["b1a1", "b8h8", "a2a3"]) == ["O-O-O", "O-O", "a2a3"]
    xboard.handle("new")                                       # back to the normal variant
    assert not xboard.engine.chess960
    xboard.handle(f"setboard {KING_ON_B1}")
    assert xboard.cecp_moves(["b1a1", "b8h8"]) == ["b1a1", "b8h8"]


def test_xboard_refuses_other_variants_and_keeps_the_game():
    xboard, out = in_process_xboard("variant fischerandom", "variant crazyhouse")
    assert out.lines[-1].startswith("Error (variant 'crazyhouse' is not played here")
    assert xboard.engine.chess960


def test_xboard_game_through_python_chess_from_chess960_positions(launcher):
    """python-chess sends `variant fischerandom`, a Shredder-FEN by setboard and castling
    as O-O; the game's moves are replayed to GenChess before each of its moves."""
    engine = launcher.genchess("xboard")
    rng = random.Random(961)
    board = chess.Board(ONLY_WHITE_CASTLES, chess960=True)
    assert engine.play(board, chess.engine.Limit(depth=2)).move == only_move(ONLY_WHITE_CASTLES)
    castled = 0
    for start in rng.sample(range(960), 2):
        board = chess.Board.from_chess960_pos(start)
        while not board.is_game_over() and board.ply() < 50:
            castles = [m for m in board.legal_moves if board.is_castling(m)]
            if castles:                       # we castle; GenChess reads it as O-O or O-O-O
                board.push(rng.choice(castles))
                castled += 1
                continue
            result = engine.play(board, chess.engine.Limit(depth=2))
            assert result.move in board.legal_moves
            board.push(result.move)
    assert castled >= 2


# ------------------------------------------------------------------ tournament managers

def replay_chess960_games(pgn_text: str) -> int:
    """Replays every game of a PGN with python-chess; how many there were."""
    games = 0
    pgn = io.StringIO(pgn_text)
    while (game := chess.pgn.read_game(pgn)) is not None:
        assert game.board().chess960, game.headers
        assert not game.errors, game.errors
        games += 1
    return games


def test_cutechess_fischerandom_uci_against_xboard(tmp_path):
    cutechess = tournament_manager("cutechess-cli")
    genchess, env = genchess_command()
    engines = []
    for name, protocol in (("GenChess-UCI", "uci"), ("GenChess-xboard", "xboard")):
        engines += ["-engine", f"name={name}", f"cmd={genchess[0]}",
                    *[f"arg={a}" for a in genchess[1:]], f"arg={protocol}", f"proto={protocol}"]
    command = [cutechess, "-variant", "fischerandom", *engines, "-each", "tc=0/1+0.01", "timemargin=100",
               "-maxmoves", "40", "-games", "2", "-pgnout", str(tmp_path / "games.pgn")]
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    output = proc.stdout + proc.stderr
    tm = tournament()
    assert proc.returncode == 0 and not tm.warnings(output), output[-3000:]
    games = tm.parse_games(output)
    assert len(games) == 2 and all(game.fault is None for game in games), output[-3000:]
    assert replay_chess960_games((tmp_path / "games.pgn").read_text()) == 2


def test_fastchess_fischerandom_game(tmp_path):
    fastchess = tournament_manager("fastchess")
    genchess, env = genchess_command("uci")
    openings = tmp_path / "chess960.epd"
    openings.write_text("".join(chess.Board.from_chess960_pos(n).fen(shredder=True).rsplit(" ", 2)[0]
                                + "\n" for n in (0, 959)))
    engines = []
    for name in ("GenChess-1", "GenChess-2"):
        engines += ["-engine", f"cmd={genchess[0]}", f'args={" ".join(genchess[1:])}', f"name={name}"]
    command = [fastchess, "-variant", "fischerandom", *engines, "-each", "tc=1+0.01",
               "-openings", f"file={openings}", "format=epd", "order=sequential",
               "-maxmoves", "40", "-rounds", "1", "-games", "2",
               "-pgnout", f"file={tmp_path / 'games.pgn'}"]
    # In its own directory: fastchess leaves its config.json (for resuming) where it runs.
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "Games: 2," in output, output[-3000:]
    assert not any(word in output.lower() for word in
                   ("illegal", "loses on time", "disconnect", "stall", "crash")), output[-3000:]
    assert replay_chess960_games((tmp_path / "games.pgn").read_text()) == 2
