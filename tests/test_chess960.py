"""Chess960 in the core: castling by the Chess960 rules, its notation and its FENs.

Checked three ways: the published perft suite (tests/data/perft960.epd, itself
checked against python-chess first); the core against python-chess's Chess960 board
on positions reached by random play from random start positions, and on random
castling set-ups built to reach the rules' corners (a rook or queen on the back rank
behind the castling rook, the king or the rook already on its castling square, the
rook next to the king); and hand-written cases for both notations, X-FEN and
Shredder-FEN, and the messages of FENs that cannot be Chess960 positions.
"""

import random
from pathlib import Path

import chess
import pytest

from genchess.cli import read_perft_suite
from genchess_core import Board, FenError, MoveError
from genchess_core.evaluate import mobility_terms

SUITE = Path(__file__).resolve().parent / "data" / "perft960.epd"
CASES = read_perft_suite(SUITE)
DEFAULT_NODE_CAP = 400_000       # per count: depths 1-3 of every line, depth 4 of some
SEED = 960


def python_chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


# ------------------------------------------------------------------ the perft suite

def test_the_suite_has_960_positions_to_depth_6():
    assert len(CASES) == 960
    assert all(sorted(counts) == [1, 2, 3, 4, 5, 6] for _, _, counts in CASES)


def test_the_suite_agrees_with_python_chess():
    # The data is only trusted because an independent generator agrees with it:
    # depth 1 everywhere, depth 2 on every fourth line (a few seconds).
    for number, fen, counts in CASES:
        board = chess.Board(fen, chess960=True)
        assert board.legal_moves.count() == counts[1], f"line {number}"
        if number % 4 == 0:
            assert python_chess_perft(board, 2) == counts[2], f"line {number}"


def case_id(case):
    return f"line{case[0]}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_perft960(case):
    number, fen, counts = case
    board = Board(fen)
    for depth, count in sorted(counts.items()):
        if count <= DEFAULT_NODE_CAP:
            assert board.perft(depth) == count, f"depth {depth}"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_perft960_deep(case):
    number, fen, counts = case
    board = Board(fen)
    for depth, count in sorted(counts.items()):
        if count > DEFAULT_NODE_CAP:
            assert board.perft(depth) == count, f"depth {depth}"


@pytest.mark.parametrize("case", CASES[::96], ids=case_id)
def test_perft960_making_every_leaf(case):
    # Without bulk counting every castling is made and unmade: same tree, and the
    # position comes back whole.
    number, fen, counts = case
    board = Board(fen)
    assert board.perft(3, bulk=False) == counts[3]
    assert board.fen(shredder=True) == Board(fen).fen(shredder=True)
    assert board.verify_key()


# ------------------------------------------------------------------ against python-chess

def compare(ours, theirs, where):
    """Legal moves in both notations, FEN both ways, check, key and the evaluation's
    counting path; returns the legal moves in Chess960 notation."""
    ours.chess960 = True
    moves = ours.legal_moves()
    assert sorted(moves) == sorted(theirs.uci(m, chess960=True) for m in theirs.legal_moves), where
    ours.chess960 = False
    assert sorted(ours.legal_moves()) == sorted(theirs.uci(m, chess960=False)
                                                for m in theirs.legal_moves), where
    ours.chess960 = True
    assert ours.fen() == theirs.fen(), where
    assert ours.fen(shredder=True) == theirs.fen(shredder=True), where
    assert ours.is_check() == theirs.is_check(), where
    assert ours.verify_key(), where
    for color in (0, 1):
        (fast, fast_targets), (listed, listed_targets) = mobility_terms(ours, color)
        assert (fast, fast_targets) == (listed, listed_targets), f"{where}, colour {color}"
    return moves


def test_random_play_from_random_start_positions_matches_python_chess():
    rng = random.Random(SEED)
    positions = castlings = 0
    for game in range(100):
        theirs = chess.Board.from_chess960_pos(rng.randrange(960))
        ours = Board(theirs.fen(), chess960=True)
        for ply in range(70):
            where = f"game {game} ply {ply}: {theirs.fen()}"
            moves = compare(ours, theirs, where)
            positions += 1
            if not moves:
                break
            castles = [m for m in theirs.legal_moves if theirs.is_castling(m)]
            captures = [m for m in theirs.legal_moves if theirs.is_capture(m)]
            if castles and rng.random() < 0.7:
                move = rng.choice(castles)
                castlings += 1
            elif captures and rng.random() < 0.5:
                move = rng.choice(captures)
            else:
                move = rng.choice(list(theirs.legal_moves))
            fen_before = ours.fen(shredder=True)
            ours.push_uci(theirs.uci(move))
            ours.pop()
            assert ours.fen(shredder=True) == fen_before, where
            ours.push_uci(theirs.uci(move))
            theirs.push(move)
            if theirs.is_game_over():
                break
    assert positions > 5000
    assert castlings > 60           # the test must reach castling to be worth anything


def random_castling_setup(rng):
    """A position with castling rights on both sides for both colours where possible,
    kings and rooks anywhere on their first ranks, and a few other pieces, many of
    them on the first and last ranks where they can attack or block castling."""
    board = chess.Board(None, chess960=True)
    for color, rank in ((chess.WHITE, 0), (chess.BLACK, 7)):
        king_file = rng.randrange(1, 7)
        board.set_piece_at(chess.square(king_file, rank), chess.Piece(chess.KING, color))
        for files in (range(0, king_file), range(king_file + 1, 8)):
            if rng.random() < 0.85:
                board.set_piece_at(chess.square(rng.choice(files), rank), chess.Piece(chess.ROOK, color))
    for _ in range(rng.randrange(1, 6)):
        rank = rng.choice([0, 0, 7, 7, rng.randrange(8)])
        square = chess.square(rng.randrange(8), rank)
        if board.piece_at(square) is None:
            kind = rng.choice([chess.QUEEN, chess.ROOK, chess.ROOK, chess.BISHOP, chess.KNIGHT])
            board.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
    board.turn = rng.random() < 0.5
    board.castling_rights = board.rooks & (chess.BB_RANK_1 | chess.BB_RANK_8)
    board.castling_rights = board.clean_castling_rights()
    return board


def test_random_castling_setups_match_python_chess():
    rng = random.Random(SEED + 1)
    checked = castles = refused = 0
    while checked < 3000:
        theirs = random_castling_setup(rng)
        if not theirs.is_valid():
            continue
        ours = Board(theirs.fen(shredder=True), chess960=True)
        where = theirs.fen(shredder=True)
        compare(ours, theirs, where)
        checked += 1
        legal = [m for m in theirs.legal_moves if theirs.is_castling(m)]
        castles += len(legal)
        refused += bin(theirs.clean_castling_rights() & theirs.occupied_co[theirs.turn]).count("1") - len(legal)
        for move in legal:
            ours.push_uci(theirs.uci(move))
            theirs.push(move)
            compare(ours, theirs, f"{where} after {move}")
            theirs.pop()
            ours.pop()
    assert castles > 1000 and refused > 1000


# ------------------------------------------------------------------ castling by hand

# (what, FEN, castling in Chess960 notation, in standard notation, FEN after)
CASTLINGS = [
    ("white O-O-O, king on b1", "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
     "b1a1", "b1a1", "rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 1 1"),
    ("black O-O, king on b8", "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R b HAha - 0 1",
     "b8h8", "b8h8", "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQ - 1 2"),
    ("white O-O, king already on g1", "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w Hh - 0 1",
     "g1h1", "g1h1", "6kr/pppppppp/8/8/8/8/PPPPPPPP/5RK1 b k - 1 1"),
    ("black O-O, king already on g8", "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR b Hh - 0 1",
     "g8h8", "g8h8", "5rk1/pppppppp/8/8/8/8/PPPPPPPP/6KR w K - 1 2"),
    ("white O-O-O, king already on c1", "2k4r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R w HAh - 0 1",
     "c1a1", "c1a1", "2k4r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b k - 1 1"),
    ("white O-O, rook next to the king on f1", "4k3/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1",
     "e1f1", "e1f1", "4k3/pppppppp/8/8/8/8/PPPPPPPP/5RK1 b - - 1 1"),
    ("white O-O, the king lands on its rook's square", "4k3/8/8/8/8/8/8/4K1R1 w G - 0 1",
     "e1g1", "e1g1", "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"),
    ("black O-O-O, rook and king swap", "2rk4/8/8/8/8/8/8/4K3 b c - 0 1",
     "d8c8", "d8c8", "2kr4/8/8/8/8/8/8/4K3 w - - 1 2"),
    ("standard O-O", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
     "e1h1", "e1g1", "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"),
    ("standard O-O-O for black", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
     "e8a8", "e8c8", "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2"),
]


@pytest.mark.parametrize("what,fen,chess960_uci,standard_uci,after", CASTLINGS,
                         ids=[c[0] for c in CASTLINGS])
def test_castling_in_both_notations(what, fen, chess960_uci, standard_uci, after):
    theirs = chess.Board(fen, chess960=True)
    theirs.push_uci(chess960_uci)
    assert theirs.fen() == after                       # the case is right by python-chess
    for chess960, written in ((True, chess960_uci), (False, standard_uci)):
        board = Board(fen, chess960=chess960)
        assert written in board.legal_moves()
        side = "O-O" if board.castling_moves().get("O-O") == written else "O-O-O"
        assert board.castling_moves()[side] == written
        board.push_uci(written)
        assert board.fen() == after
        assert board.move_stack == [written]
        assert board.pop() == written
        assert board.fen() == Board(fen).fen()


def test_standard_notation_reads_king_takes_rook_too_and_chess960_reads_e1g1():
    # As python-chess reads them: both spellings of a standard castling in either mode.
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    for chess960 in (False, True):
        for spelling in ("e1g1", "e1h1"):
            board = Board(fen, chess960=chess960)
            assert board.parse_uci(spelling) == ("e1h1" if chess960 else "e1g1")
            board.push_uci(spelling)
            assert board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"


def test_a_chess960_castling_is_not_read_as_the_kings_move():
    # King b1 to c1 is also a plain king move here: only king-takes-rook castles.
    board = Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1")
    board.push_uci("b1c1")
    assert board.fen() == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R b kq - 1 1"
    board = Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1")
    with pytest.raises(MoveError, match="illegal move 'b1g1'"):
        board.push_uci("b1g1")


@pytest.mark.parametrize("fen,castling", [
    # A queen on a1 behind the castling rook on b1: with the rook gone to d1 it
    # would attack the king on c1, whether the king comes from d1 or stands there.
    ("1r2k3/8/8/8/8/8/8/qR1K4 w B - 0 1", []),
    ("4k3/8/8/8/8/8/8/qRK4R w HB - 0 1", ["c1h1"]),
    ("1r2k3/8/8/8/8/8/8/1R1K4 w B - 0 1", ["d1b1"]),
    # Black, with a white rook on a8; and the black king's own rook there harmless.
    ("Rr1k4/8/8/8/8/8/8/4K3 b b - 0 1", []),
    ("Rrk5/8/8/8/8/8/8/4K3 b b - 0 1", []),
    ("rr1k4/8/8/8/8/8/8/4K3 b b - 0 1", ["d8b8"]),
    ("1rk5/8/8/8/8/8/8/4K3 b b - 0 1", ["c8b8"]),
], ids=["white-king-d1", "white-king-on-c1", "white-free", "black-king-d8", "black-king-on-c8",
        "black-own-rook-behind", "black-free"])
def test_the_rook_leaving_b1_uncovers_the_kings_destination(fen, castling):
    theirs = chess.Board(fen, chess960=True)
    board = Board(fen, chess960=True)
    compare(board, theirs, fen)
    assert sorted(board.castling_moves().values()) == castling


# ------------------------------------------------------------------ FEN

@pytest.mark.parametrize("given,xfen,shredder", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "KQkq", "HAha"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", "KQkq", "HAha"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "KQkq", "HFhf"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9", "KQkq", "HFhf"),
    # A rook beyond the castling rook on its side: X-FEN names the inner one by its file.
    ("rk3r1r/8/8/8/8/8/8/RK3R1R w FAfa - 0 1", "FQfq", "FAfa"),
    ("rk3r1r/8/8/8/8/8/8/RK3R1R w FQfq - 0 1", "FQfq", "FAfa"),
    ("rk3r1r/8/8/8/8/8/8/RK3R1R w Kk - 0 1", "Kk", "Hh"),
    ("1r2k1rr/8/8/8/8/8/8/RR2KR1R w BFbg - 0 1", "FBgq", "FBgb"),
    ("4k3/8/8/8/8/8/8/4K1R1 w G - 0 1", "K", "G"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "-", "-"),
])
def test_fen_round_trips_in_x_fen_and_shredder_fen(given, xfen, shredder):
    board = Board(given)
    theirs = chess.Board(given, chess960=True)
    assert board.fen().split()[2] == xfen
    assert board.fen(shredder=True).split()[2] == shredder
    assert board.fen() == theirs.fen()
    assert board.fen(shredder=True) == theirs.fen(shredder=True)
    for fen in (board.fen(), board.fen(shredder=True)):
        assert Board(fen).fen(shredder=True) == board.fen(shredder=True)
        assert Board(fen).key == board.key


@pytest.mark.parametrize("fen,message", [
    ("rk5r/8/8/8/8/8/8/RK5R w C - 0 1", "castling right 'C': no white rook on c1"),
    ("rk5r/8/8/8/8/8/8/RK5R w B - 0 1", "castling right 'B': no white rook on b1"),
    ("1k5r/8/8/8/8/8/8/1K5R w Q - 0 1",
     "castling right 'Q': no white rook on the queen side of the king on b1"),
    ("rk6/8/8/8/8/8/8/RK6 b k - 0 1",
     "castling right 'k': no black rook on the king side of the king on b8"),
    ("r3k2r/8/8/8/8/8/4K3/R6R w H - 0 1", "castling right 'H': the white king is on e2, not on rank 1"),
    ("r6r/4k3/8/8/8/8/8/R3K2R w a - 0 1", "castling right 'a': the black king is on e7, not on rank 8"),
    ("r3k2r/8/8/8/8/8/8/RR2K2R w BA - 0 1",
     "castling rights 'BA': 'B' and 'A' are both white's queen-side right (rooks on b1 and a1)"),
    ("r3k2r/8/8/8/8/8/8/R3K1RR w KG - 0 1",
     "castling rights 'KG': 'K' and 'G' are both white's king-side right (rooks on h1 and g1)"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w HK - 0 1",
     "castling rights 'HK': 'H' and 'K' both name the white rook on h1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkqI - 0 1", "castling rights: bad character 'I'"),
])
def test_bad_chess960_fens_get_one_line_naming_the_problem(fen, message):
    with pytest.raises(FenError) as error:
        Board(fen)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
