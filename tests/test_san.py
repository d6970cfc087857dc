"""SAN written and read by genchess.players.human, against python-chess as the oracle,
and every kind of bad entry a person can type."""

import random

import chess
import pytest

from genchess.players.human import MoveInputError, parse_move, san, san_line, san_moves
from genchess_core import Board

START = chess.STARTING_FEN


def random_positions(fens, count, seed, max_plies=60):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board(rng.choice(fens))
        for _ in range(rng.randrange(max_plies)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push_uci(rng.choice(sorted(moves)))
        out.append(board.fen())
    return out


def test_san_of_every_move_matches_python_chess(perftsuite_fens, opening_fens):
    positions = perftsuite_fens + random_positions(perftsuite_fens + opening_fens, 300, seed=11)
    checked = 0
    for fen in positions:
        board, oracle = Board(fen), chess.Board(fen)
        for move, text in san_moves(board).items():
            assert text == oracle.san(chess.Move.from_uci(move)), fen
            checked += 1
    assert checked > 5_000


def test_san_read_back_and_lenient_forms_match_python_chess(perftsuite_fens, opening_fens):
    for fen in random_positions(perftsuite_fens + opening_fens, 150, seed=12):
        board, oracle = Board(fen), chess.Board(fen)
        for move, text in san_moves(board).items():
            assert parse_move(board, text) == move
            assert parse_move(board, text.rstrip("+#")) == move        # check marks optional
            assert parse_move(board, move) == move                      # coordinates
            assert parse_move(board, move[:2] + "-" + move[2:]) == move
            assert oracle.parse_san(text).uci() == move
        assert board.fen() == fen                                       # reading changes nothing


def test_san_line_and_single_move():
    board = Board()
    assert san_line(board, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]) == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    assert san(board, "g1f3") == "Nf3"
    assert board.move_stack == []
    with pytest.raises(ValueError):
        san(board, "e2e5")


@pytest.mark.parametrize("fen, text, uci", [
    # disambiguation by file, by rank, by both
    ("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1", "Nbd2", "b1d2"),
    ("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1", "Ngf3", "g1f3"),
    ("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1", "Nc3", "b1c3"),           # only one knight can
    ("4k3/R7/8/8/8/8/8/R3K3 w - - 0 1", "R1a4", "a1a4"),
    ("4k3/R7/8/8/8/8/8/R3K3 w - - 0 1", "R7a4", "a7a4"),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Qh4e1", "h4e1"),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Qh4-e1", "h4e1"),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Q1e1", "h1e1"),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Qee1", "e4e1"),
    (START, "Ng1-f3", "g1f3"),
    # promotion in every spelling
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8=Q", "e7e8q"),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8Q", "e7e8q"),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8=n", "e7e8n"),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8(R)", "e7e8r"),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8q", "e7e8q"),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7-e8=B", "e7e8b"),
    ("3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "exd8=Q+", "e7d8q"),
    # castling, with zeros, lower case, check marks
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1g1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0", "e1g1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "o-o-o", "e1c1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "O-O-O", "e8c8"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "e1g1"),
    ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "O-O+", "e1g1"),
    # check and mate marks, annotations, en passant
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "Qxf7#", "h5f7"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "Qxf7+", "h5f7"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "Qxf7!!", "h5f7"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "Qf7", "h5f7"),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "exf6", "e5f6"),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "exf6 e.p.", "e5f6"),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "ef6", "e5f6"),
    # lower-case piece letters; b is a pawn first, a bishop when no pawn can
    (START, "nf3", "g1f3"),
    ("4k3/8/8/8/8/3p4/2P5/2B1K3 w - - 0 1", "cxd3", "c2d3"),
    ("4k3/8/8/8/8/8/8/1B2K3 w - - 0 1", "bc2", "b1c2"),
    ("4k3/8/8/2p5/1P6/8/8/4K3 w - - 0 1", "bc5", "b4c5"),
    (START, "e2e4", "e2e4"),
    (START, "  e4  ", "e2e4"),
])
def test_parse_accepts(fen, text, uci):
    board = Board(fen)
    assert parse_move(board, text) == uci
    assert board.fen() == Board(fen).fen()


@pytest.mark.parametrize("fen, text, kind, words", [
    (START, "", "malformed", ["Malformed"]),
    (START, "Zz9", "malformed", ["Malformed", "Zz9"]),
    (START, "e9", "malformed", ["Malformed"]),
    (START, "Nf", "malformed", ["Malformed"]),
    (START, "hello world", "malformed", ["Malformed"]),
    (START, "e2e4e6", "malformed", ["Malformed"]),
    (START, "e5", "illegal", ["Illegal", "pawn", "e5"]),
    (START, "Ke2", "illegal", ["Illegal", "king", "e2"]),
    (START, "Nf4", "illegal", ["Illegal", "knight", "f4"]),
    (START, "e2e5", "illegal", ["Illegal", "pawn on e2 cannot move to e5"]),
    (START, "e3e4", "illegal", ["Illegal", "no piece on e3"]),
    (START, "e7e5", "illegal", ["Illegal", "not White's"]),
    (START, "O-O", "illegal", ["Illegal", "castle kingside"]),
    (START, "e4=Q", "illegal", ["Illegal", "promotes on the last rank"]),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "Qd2", "illegal", ["white has no queen"]),
    ("rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR b KQkq - 0 2", "d4", "illegal", ["Illegal"]),
    # a pawn capture written without its file: refused with the right spelling
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "d5", "illegal", ["exd5"]),
    # in check: said so
    ("rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3", "a6", "illegal",
     ["Illegal", "Black is in check"]),
    ("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", "O-O", "illegal", ["cannot castle", "in check"]),
])
def test_parse_refuses_with_a_reason(fen, text, kind, words):
    board = Board(fen)
    with pytest.raises(MoveInputError) as info:
        parse_move(board, text)
    assert info.value.kind == kind
    for word in words:
        assert word in str(info.value)
    assert board.fen() == Board(fen).fen()


@pytest.mark.parametrize("fen, text, candidates", [
    ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", ["Nbd2", "Nfd2"]),
    ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nxd2", ["Nbd2", "Nfd2"]),
    ("4k3/R7/8/8/8/8/8/R3K3 w - - 0 1", "Ra4", ["R1a4", "R7a4"]),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Qe1", ["Q1e1", "Qee1", "Qh4e1"]),
    ("2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1", "Qhe1", ["Q1e1", "Qh4e1"]),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7e8", ["e8=B", "e8=N", "e8=Q", "e8=R"]),
    ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8", ["e8=B", "e8=N", "e8=Q", "e8=R"]),
    ("3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "exd8", ["exd8=B+", "exd8=N", "exd8=Q+", "exd8=R+"]),
])
def test_ambiguous_entries_list_the_candidates(fen, text, candidates):
    board = Board(fen)
    with pytest.raises(MoveInputError) as info:
        parse_move(board, text)
    assert info.value.kind == "ambiguous"
    assert "Ambiguous" in str(info.value)
    assert [c.rstrip("+#") for c in info.value.candidates] == [c.rstrip("+#") for c in candidates]
    for candidate in candidates:
        assert candidate.rstrip("+#") in str(info.value)


def test_no_move_when_the_game_is_over():
    board = Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    with pytest.raises(MoveInputError) as info:
        parse_move(board, "e4")
    assert "no legal move" in str(info.value)
