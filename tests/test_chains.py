"""Game chains (genchess_core.chains, genchess.position_sets.chains): every kind of move
round trips, the positions a chain gives are the packed set's of the same games, and a
damaged chain is refused with the game and byte where it stops making sense."""

import lzma
import random

import chess
import numpy as np
import pytest

from genchess.genome import load_genome
from genchess.position_sets import packed
from genchess.position_sets.chains import (MAGIC, read_chain_games, read_chain_records,
                                           write_chain_file)
from genchess.position_sets.epd import PositionSetError, epd_line
from genchess.position_sets.making import PositionsJob, game_rng, opening_position, scored_positions
from genchess.position_sets.position_set import load_positions
from genchess_core import Board
from genchess_core.chains import (ChainError, decode_games, decode_positions, encode_game,
                                  move_codes)
from genchess_core.searcher import Searcher
from genchess_core.selfplay import play_game

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# (start, chess960, moves): every kind of move, each checked legal by python-chess below.
MOVE_KINDS = [
    # castling both ways, both sides
    ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", False, ["e1g1", "e8c8", "f1e1", "d8e8"]),
    ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", False, ["e1c1", "e8g8"]),
    # en passant, by White and by Black
    ("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1", False, ["d2d4", "e4d3"]),
    ("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", False, ["d7d5", "e5d6"]),
    # each promotion, quiet and capturing
    ("1n1n3k/P1P5/8/8/8/8/8/K7 w - - 0 1", False, ["a7a8q", "h8g7", "c7d8n", "g7f6"]),
    ("1n1n3k/P1P5/8/8/8/8/8/K7 w - - 0 1", False, ["a7b8r", "h8g7", "c7c8b", "g7f6"]),
    ("k7/8/8/8/8/8/p1p5/1N1N3K b - - 0 1", False, ["a2a1q", "h1g2", "c2d1n", "g2f3"]),
    ("k7/8/8/8/8/8/p1p5/1N1N3K b - - 0 1", False, ["a2b1r", "h1g2", "c2c1b", "g2f3"]),
    # Chess960: castling (king takes rook) where the king's own move to g1 is legal too,
    # then that king move in a game of its own, and castling queenside
    ("4k2r/5p2/8/8/8/8/5P2/5K1R w Kk - 0 1", True, ["f1h1", "e8h8"]),
    ("4k2r/5p2/8/8/8/8/5P2/5K1R w Kk - 0 1", True, ["f1g1", "e8f8"]),
    ("r4k2/3p4/8/8/8/8/3P4/R4K2 w Qq - 0 1", True, ["f1a1", "f8a8"]),
]


def python_chess_legal(start: str, chess960: bool, moves: list[str]) -> None:
    board = chess.Board(start, chess960=chess960)
    for move in moves:
        assert chess.Move.from_uci(move) in board.legal_moves, (start, move)
        board.push_uci(move)


@pytest.mark.parametrize("start, chess960, moves", MOVE_KINDS)
def test_every_kind_of_move_round_trips(start, chess960, moves):
    python_chess_legal(start, chess960, moves)
    board = Board(start, chess960=chess960)
    codes = move_codes(board, moves)
    scores = [random.Random(len(moves)).randint(-10000, 10000) for _ in moves]
    record = encode_game(board, codes, scores, 2, 8)
    [(fen, is960, result, termination, back, back_scores)] = decode_games(record)
    assert (fen, is960, result, termination) == (board.fen(), chess960, 2, 8)
    assert back == moves
    assert back_scores == scores


def test_the_chess960_castling_and_king_move_are_two_codes():
    board = Board("4k2r/5p2/8/8/8/8/5P2/5K1R w Kk - 0 1", chess960=True)
    castle, king = move_codes(board, ["f1h1"])[0], move_codes(board, ["f1g1"])[0]
    assert castle != king
    assert encode_game(board, [castle], None, 1, 0) != encode_game(board, [king], None, 1, 0)


def test_an_unscored_game_gives_no_positions_but_its_moves():
    board = Board(START)
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7"]
    record = encode_game(board, move_codes(board, moves), None, 1, 0)
    records, counts = decode_positions(record)
    assert len(records) == 0 and counts["unscored"] == 2
    assert decode_games(record)[0][4:] == (moves, None)


def test_an_illegal_move_cannot_be_encoded():
    board = Board(START)
    code = move_codes(Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), ["a1a8"])[0]
    with pytest.raises(ValueError, match="ply 1: move .* is not legal"):
        encode_game(board, [code], None, 1, 0)


@pytest.fixture(scope="module")
def played_games():
    """Four short self-play games of the network genome from varied starts."""
    genome = load_genome("genchess/genomes/network.genome")
    sides = [Searcher(8), Searcher(8)]
    for searcher in sides:
        searcher.set_genome(genome.pack())
    games = []
    for number in range(4):
        start = opening_position(START, (), 8, game_rng(3, number))
        games.append((start, play_game(*sides, Board(start), nodes=400)))
    return games


def record_of(start, game) -> bytes:
    result, termination, codes, scores, _ = game
    from genchess_core.selfplay import TERMINATIONS
    return encode_game(Board(start), codes, scores, ("0-1", "1/2-1/2", "1-0").index(result),
                       TERMINATIONS.index(termination))


def test_derived_positions_are_the_packed_sets_of_the_same_games(played_games):
    chain = b"".join(record_of(start, game) for start, game in played_games)
    records, counts = decode_positions(chain, 8)
    lines = []
    for number, (start, (result, _, codes, scores, _)) in enumerate(played_games):
        moves = decode_games(record_of(start, (result, "checkmate", codes, scores, None)))[0][4]
        assert len(moves) == len(codes)
        job = PositionsJob(number, "genchess", "genchess", start, (), skip_plies=8, per_game=10 ** 6)
        counter = __import__("collections").Counter()
        for fen, cp in scored_positions(start, moves, scores, job, random.Random(0), counter):
            lines.append(epd_line(fen, result, cp))
    assert counts["kept"] == len(lines) > 100
    fens = [" ".join(line.split()[:4]) for line in lines]
    results = [line.split('"')[1] for line in lines]
    ce = [int(line.split("ce ")[1].rstrip(";")) for line in lines]
    from genchess.position_sets.position_set import PositionSet
    expected = PositionSet.from_fens(fens, results, [c if f.split()[1] == "w" else -c
                                                     for f, c in zip(fens, ce)])
    assert records.tobytes() == packed.encode(expected)


def test_a_chain_file_reads_as_a_position_set(played_games, tmp_path):
    chain = b"".join(record_of(start, game) for start, game in played_games)
    path = tmp_path / "games.chains.xz"
    write_chain_file(path, chain)
    assert lzma.decompress(path.read_bytes()).startswith(MAGIC)
    records, counts = read_chain_records(path)
    positions = load_positions(path)
    assert len(positions) == counts["kept"] == len(records)
    assert packed.encode(positions) == records.tobytes()
    assert len(read_chain_games(path)) == 4
    # The same games, the same bytes: xz writes no name or time.
    again = tmp_path / "again.chains.xz"
    write_chain_file(again, chain)
    assert again.read_bytes() == path.read_bytes()


def test_a_folder_of_chunks_reads_as_one_set_each_position_once(played_games, tmp_path):
    chain = b"".join(record_of(start, game) for start, game in played_games)
    write_chain_file(tmp_path / "a-0001.chains.xz", chain)
    write_chain_file(tmp_path / "a-0002.chains.xz", chain)          # the same games again
    (tmp_path / "MANIFEST.json").write_text("[]")
    assert len(load_positions(tmp_path)) == len(load_positions(tmp_path / "a-0001.chains.xz").drop_duplicates())


# ------------------------------------------------------------------ damage

@pytest.fixture
def chain(played_games):
    return b"".join(record_of(start, game) for start, game in played_games[:2])


def test_a_chain_cut_short_names_the_game_and_its_byte(chain):
    with pytest.raises(ChainError, match=r"game 2 \(byte \d+\): (cut short|its scores are cut short)"):
        decode_positions(chain[:-3])


def test_a_record_that_does_not_start_with_its_tag(chain):
    with pytest.raises(ChainError, match=r"game 1 \(byte 0\): no record starts here"):
        decode_positions(b"\x00" + chain[1:])


def test_a_move_index_no_legal_move_has(chain):
    damaged = bytearray(chain)
    fen_length = damaged[2]
    moves_at = 3 + fen_length + 1 + (1 if damaged[3 + fen_length] & 0x80 else 0)
    damaged[moves_at] = 250
    with pytest.raises(ChainError, match=r"game 1 \(byte 0\): ply 1 plays move 250 of \d+ legal moves"):
        decode_positions(bytes(damaged))
    with pytest.raises(ChainError, match="ply 1 plays move 250"):
        decode_games(bytes(damaged))


def test_a_start_that_is_no_position(chain):
    damaged = bytearray(chain)
    damaged[3:6] = b"XYZ"
    with pytest.raises(ChainError, match=r"game 1 \(byte 0\): its start is no position"):
        decode_positions(bytes(damaged))


def test_a_damaged_file_is_one_line_naming_it(chain, tmp_path):
    path = tmp_path / "broken.chains.xz"
    write_chain_file(path, chain)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(PositionSetError, match=rf"{path}: not a readable xz file"):
        read_chain_records(path)
    plain = tmp_path / "plain.chains"
    plain.write_bytes(b"GCPOS\0" + chain)
    with pytest.raises(PositionSetError, match=rf"{plain}: not a chain file"):
        read_chain_records(plain)
    cut = tmp_path / "cut.chains"
    write_chain_file(cut, chain[:-3])
    with pytest.raises(PositionSetError, match=rf"{cut}: game 2 \(byte \d+\)"):
        load_positions(cut)


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def handmade_record(scores: list[int]) -> bytes:
    """A record written by the format's description, not by the encoder: White's
    first moves from the start, index by (from, to, kind) order, scored."""
    board = chess.Board()
    indices = []
    for uci in ("e2e4", "e7e5")[:len(scores)]:
        legal = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))
        indices.append(legal.index(chess.Move.from_uci(uci)))
        board.push_uci(uci)
    fen = START.encode()
    zigzag = [(cp + prev) * 2 if cp + prev >= 0 else -(cp + prev) * 2 - 1
              for cp, prev in zip(scores, [0] + scores)]
    return (bytes([0xC5, 1 << 1 | 128]) + varint(len(fen)) + fen + varint(len(indices))
            + bytes(indices) + b"".join(varint(z) for z in zigzag))


def test_a_record_written_by_the_description_reads():
    [(fen, _, result, _, moves, scores)] = decode_games(handmade_record([35, -20]))
    assert (fen, result, moves, scores) == (START, 1, ["e2e4", "e7e5"], [35, -20])


def test_scores_beyond_the_clamp_are_refused():
    with pytest.raises(ChainError, match=r"game 1 \(byte 0\): ply 1 has score 10001"):
        decode_positions(handmade_record([10001]), 0)


def test_records_are_32_byte_packed_records(played_games):
    records, _ = decode_positions(record_of(*played_games[0]))
    assert records.dtype == np.uint8 and records.shape[1] == packed.RECORD_SIZE
