"""FEN in and out, and the errors of set_fen and push_uci.

Every bad FEN must raise FenError (a ValueError) whose message names the field or
the problem, and must leave the board exactly as it was. Good FENs round-trip, with
the one normalisation python-chess also makes: an en-passant square is printed only
when an en-passant capture is legal.
"""

import random

import chess
import pytest

from genchess_core import Board, FenError, MoveError, STARTING_FEN

SEED = 4242
PLACEMENT = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ROOKS = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"

BAD_FENS = [
    # (id, FEN, fragment the message must contain)
    ("3-fields", f"{PLACEMENT} w KQkq", "FEN has 3 fields; expected 6"),
    ("5-fields", f"{PLACEMENT} w KQkq - 0", "FEN has 5 fields; expected 6"),
    ("7-fields", f"{PLACEMENT} w KQkq - 0 1 x", "FEN has 7 fields; expected 6"),
    ("empty", "", "FEN has 0 fields"),
    ("bad-piece-letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
     "piece placement: bad character 'X' in rank 1"),
    ("bad-digit-9", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "'9' in rank 6"),
    ("rank-of-7", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
     "piece placement: rank 1 ('RNBQKBN') has 7 squares; expected 8"),
    ("rank-of-9", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
     "piece placement: rank 1 ('RNBQKBNRR') has 9 squares; expected 8"),
    ("rank-of-9-digits", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN2 w Qkq - 0 1",
     "rank 1 ('RNBQKBN2') has 9 squares"),
    ("digits-in-a-row", "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "two digits in a row in rank 6"),
    ("7-ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "piece placement has 7 ranks; expected 8"),
    ("9-ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "piece placement has 9 ranks; expected 8"),
    ("no-white-king", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
     "white has 0 kings; expected exactly 1"),
    ("two-black-kings", "rnbkkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
     "black has 2 kings; expected exactly 1"),
    ("pawn-on-rank-1", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn on a1; pawns cannot stand"),
    ("black-pawn-on-rank-1", "4k3/8/8/8/8/8/8/4K2p w - - 0 1", "pawn on h1"),
    ("pawn-on-rank-8", "4k2P/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on h8; pawns cannot stand"),
    ("side-x", f"{PLACEMENT} x KQkq - 0 1", "side to move must be 'w' or 'b', not 'x'"),
    ("side-upper", f"{PLACEMENT} W KQkq - 0 1", "side to move must be 'w' or 'b', not 'W'"),
    ("castling-bad-char", f"{PLACEMENT} w KQxq - 0 1",
     "castling rights: bad character 'x' in 'KQxq'"),
    ("castling-dash-mixed", f"{PLACEMENT} w K- - 0 1", "castling rights: bad character '-'"),
    ("castling-repeated", f"{PLACEMENT} w KQkk - 0 1", "castling rights: 'k' repeated in 'KQkk'"),
    ("castling-K-no-rook", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
     "castling right 'K': no white rook on the king side of the king on e1"),
    ("castling-q-king-left-rank-8", "r6r/4k3/8/8/8/8/8/R3K2R w KQq - 0 1",
     "castling right 'q': the black king is on e7, not on rank 8"),
    ("castling-Q-rook-is-bishop", "r3k2r/8/8/8/8/8/8/B3K2R w KQkq - 0 1",
     "castling right 'Q': no white rook on the queen side"),
    ("ep-e9", f"{PLACEMENT} w KQkq e9 0 1", "en-passant square 'e9' is not a square name"),
    ("ep-z3", f"{PLACEMENT} w KQkq z3 0 1", "en-passant square 'z3' is not a square name"),
    ("ep-one-char", f"{PLACEMENT} w KQkq e 0 1", "en-passant square 'e' is not a square name"),
    ("ep-wrong-rank-white", f"{PLACEMENT} w KQkq e3 0 1",
     "en-passant square 'e3' is impossible: with white to move it must be on rank 6"),
    ("ep-wrong-rank-black", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1",
     "en-passant square 'e6' is impossible: with black to move it must be on rank 3"),
    ("ep-no-pawn", f"{PLACEMENT} w KQkq d6 0 1",
     "en-passant square 'd6' is impossible: no pawn can just have moved two squares past it"),
    ("ep-origin-occupied", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1",
     "en-passant square 'e3' is impossible: no pawn can just have moved"),
    ("ep-square-occupied", "rnbqkbnr/pppp1ppp/8/8/4P3/4p3/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
     "en-passant square 'e3' is impossible: no pawn can just have moved"),
    ("ep-own-pawn", "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR b KQkq d3 0 1",
     "en-passant square 'd3' is impossible: no pawn can just have moved"),
    ("side-not-to-move-in-check", "4k3/8/8/8/8/8/4r3/4K3 b - - 0 1",
     "the side not to move (white) is in check"),
    ("side-not-to-move-in-check-black", "4k3/8/8/1B6/8/8/8/4K3 w - - 0 1",
     "the side not to move (black) is in check"),
    ("halfmove-x", f"{PLACEMENT} w KQkq - x 1",
     "halfmove clock must be a non-negative integer, not 'x'"),
    ("halfmove-negative", f"{PLACEMENT} w KQkq - -1 1",
     "halfmove clock must be a non-negative integer, not '-1'"),
    ("halfmove-float", f"{PLACEMENT} w KQkq - 1.5 1", "halfmove clock must be"),
    ("fullmove-abc", f"{PLACEMENT} w KQkq - 0 abc",
     "fullmove number must be a non-negative integer, not 'abc'"),
    ("fullmove-non-ascii-digit", f"{PLACEMENT} w KQkq - 0 \u0661", "fullmove number must be"),
]


@pytest.mark.parametrize("fen,fragment", [c[1:] for c in BAD_FENS], ids=[c[0] for c in BAD_FENS])
def test_bad_fen_raises_fen_error_naming_the_problem(fen, fragment):
    with pytest.raises(FenError) as error:
        Board(fen)
    assert isinstance(error.value, ValueError)
    assert fragment in str(error.value)


@pytest.mark.parametrize("fen", [c[1] for c in BAD_FENS], ids=[c[0] for c in BAD_FENS])
def test_failed_set_fen_leaves_the_board_unchanged(fen):
    board = Board(KIWIPETE)
    board.push_uci("e1g1")
    board.push_uci("e8c8")
    before = (board.fen(), board.key, board.move_stack, sorted(board.legal_moves()),
              board.repetition_count())
    with pytest.raises(FenError):
        board.set_fen(fen)
    assert (board.fen(), board.key, board.move_stack, sorted(board.legal_moves()),
            board.repetition_count()) == before
    assert board.verify_key()
    assert board.pop() == "e8c8"             # the history survived too
    assert board.pop() == "e1g1"
    assert board.fen() == KIWIPETE


@pytest.mark.parametrize("value", [None, 12, b"8/8/8/8/8/8/8/8 w - - 0 1"])
def test_set_fen_with_a_non_string_raises_fen_error(value):
    board = Board()
    with pytest.raises(FenError, match="FEN must be a string"):
        board.set_fen(value)
    assert board.fen() == STARTING_FEN


@pytest.mark.parametrize("fen,field", [
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999", "fullmove number"),
    ("4k3/8/8/8/8/8/8/4K3 w - - 99999999999 1", "halfmove clock"),
])
def test_huge_counters_are_accepted_or_a_fen_error(fen, field):
    # python-chess accepts any size; refusing is fine too, but only as a FenError
    # that names the field (not an OverflowError from the C int conversion).
    try:
        board = Board(fen)
    except FenError as e:
        assert field in str(e)
    else:
        assert board.fen() == fen


def test_four_field_fen_gets_default_counters():
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R b Kq -")
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1"
    assert board.halfmove_clock == 0 and board.fullmove_number == 1 and board.turn == "b"
    assert board.key == Board("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1").key
    with_ep = Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6")
    assert with_ep.fen() == "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1"


def test_whitespace_around_fields_is_tolerated():
    assert Board(f"  {STARTING_FEN}  ").fen() == STARTING_FEN
    assert Board(STARTING_FEN.replace(" ", "   ")).fen() == STARTING_FEN


def test_counters_round_trip():
    for fen in ["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "4k3/8/8/8/8/8/8/4K2R b K - 99 1",
                "4k3/8/8/8/8/8/8/4K2R w K - 149 300", "4k3/8/8/8/8/8/8/4K2R w K - 1000 1000"]:
        board = Board(fen)
        assert board.fen() == fen
        assert int(fen.split()[4]) == board.halfmove_clock
        assert int(fen.split()[5]) == board.fullmove_number


def test_fullmove_zero_reads_as_one_like_python_chess():
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 0"
    assert Board(fen).fen() == chess.Board(fen).fen() == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"


def round_trip_failures(fens):
    bad = []
    for fen in fens:
        expected = chess.Board(fen).fen()            # legal ep only, counters added
        got = Board(fen).fen()
        if got != expected:
            bad.append(f"{fen}: ours {got}, python-chess {expected}")
        if len(fen.split()) == 6 and fen == expected and Board(got).fen() != fen:
            bad.append(f"{fen}: not a fixed point")
    return bad


def test_round_trip_of_suite_and_opening_positions(perftsuite_fens, opening_fens):
    fens = perftsuite_fens + opening_fens
    assert len(fens) > 300
    bad = round_trip_failures(fens)
    assert not bad, f"{len(bad)} of {len(fens)}:\n" + "\n".join(bad[:10])
    six = [f for f in perftsuite_fens if len(f.split()) == 6 and f == chess.Board(f).fen()]
    assert len(six) > 100
    assert all(Board(f).fen() == f for f in six)


def test_round_trip_of_positions_from_random_play(perftsuite_fens, opening_fens):
    rng = random.Random(SEED)
    starts = [STARTING_FEN] * 10 + rng.sample(perftsuite_fens, 30) + rng.sample(opening_fens, 30)
    fens = []
    for start in starts:
        board = chess.Board(start)
        for _ in range(rng.randint(10, 120)):
            moves = sorted(board.legal_moves, key=chess.Move.uci)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m) or m.promotion]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
            fens.append(board.fen())
    assert len(fens) > 2000
    assert sum(f.split()[3] != "-" for f in fens) > 0, "no legal en-passant square in the sample"
    bad = round_trip_failures(fens)
    assert not bad, f"{len(bad)} of {len(fens)}:\n" + "\n".join(bad[:10])
    assert all(Board(f).fen() == f for f in fens)


@pytest.mark.parametrize("fen,expected_ep", [
    # e4 with no black pawn beside it: nothing can take.
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "-"),
    # exd6 would open the fifth rank between Ka5 and Rh5.
    ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", "-"),
    # ...d5 uncovered Bc8's check on Kh3, and exd6 does not answer it.
    ("2b1k3/8/8/3pP3/8/7K/8/8 w - d6 0 2", "-"),
    # The pawn that just moved gives check and exd6 takes it: legal.
    ("4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 2", "d6"),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "f6"),
    ("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2", "d3"),
])
def test_en_passant_square_is_kept_only_when_a_capture_is_legal(fen, expected_ep):
    board = Board(fen)
    assert board.fen().split()[3] == expected_ep
    assert board.fen() == chess.Board(fen).fen()
    fields = fen.split()
    without = Board(" ".join(fields[:3] + ["-"] + fields[4:]))
    if expected_ep == "-":
        assert board.key == without.key
        assert not any(m[2:4] == fields[3] for m in board.legal_moves())
    else:
        assert board.key != without.key
        assert any(m[2:4] == expected_ep for m in board.legal_moves())


# ------------------------------------------------------------------ push_uci errors

@pytest.mark.parametrize("move", ["e2", "e2e4x", "", "e7e8k", 12, None, "E2E4", "e2e4 ", "i2i4",
                                  "e0e1", "e2-e4", "0000", "e7e8Q"])
def test_malformed_move_raises_move_error_and_changes_nothing(move):
    board = Board(KIWIPETE)
    board.push_uci("a2a3")
    before = (board.fen(), board.key, board.move_stack)
    with pytest.raises(MoveError, match="malformed move"):
        board.push_uci(move)
    assert (board.fen(), board.key, board.move_stack) == before
    assert issubclass(MoveError, ValueError)


@pytest.mark.parametrize("fen,move", [
    (STARTING_FEN, "e2e5"),
    (STARTING_FEN, "e7e5"),                   # the other side's move
    (STARTING_FEN, "e1g1"),                   # castling through pieces
    (STARTING_FEN, "a1a1"),
    (STARTING_FEN, "e2e4q"),                  # promotion suffix on a plain move
    ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8"),   # promotion without a piece
    (KIWIPETE, "e1c1q"),
    ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "e1d2"),   # the king steps along the rook's rank
    ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", "e5d6"),  # en passant that exposes the king
])
def test_illegal_move_raises_move_error_and_changes_nothing(fen, move):
    board = Board(fen)
    before = (board.fen(), board.key, board.move_stack, sorted(board.legal_moves()))
    assert move not in board.legal_moves()
    with pytest.raises(MoveError, match="illegal move"):
        board.push_uci(move)
    assert (board.fen(), board.key, board.move_stack, sorted(board.legal_moves())) == before


# ------------------------------------------------------------------ castling rights in the FEN

@pytest.mark.parametrize("fen,moves,rights", [
    (ROOKS, "e1e2", "kq"),                    # king moves: both white rights go
    (ROOKS, "e1f1 e8d8 f1e1", "-"),           # ... and do not come back
    (ROOKS, "h1h2", "Qkq"),
    (ROOKS, "h1h2 a8b8 h2h1", "Qk"),          # a rook coming home does not restore them
    (ROOKS, "a1a2", "Kkq"),
    (ROOKS, "e1g1", "kq"),                    # castling uses them up
    (ROOKS, "e1c1 e8g8", "-"),
    (ROOKS, "a1a8", "Kk"),                    # rook takes rook: both queen sides go
    (ROOKS, "h1h8", "Qq"),
    (ROOKS, "e1d1 e8e7", "-"),
    ("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1", "g2h1", "Qkq"),     # bishop takes the h1 rook
    ("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", "b7a8q", "KQk"),    # promotion takes the a8 rook
    (ROOKS, "a1b1 h8h1", "q"),                # rook takes the h1 rook, leaving h8
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "g1f3 g8f6 e2e3 e7e6 f1e2 f8e7 e1g1 e8g8", "-"),
])
def test_castling_rights_are_lost_when_king_or_rook_moves_or_rook_is_taken(fen, moves, rights):
    board = Board(fen)
    oracle = chess.Board(fen)
    for uci in moves.split():
        board.push_uci(uci)
        oracle.push_uci(uci)
    assert board.fen().split()[2] == rights
    assert board.fen() == oracle.fen()
    assert board.key == Board(board.fen()).key
