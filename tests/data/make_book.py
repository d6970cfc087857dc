"""Write tests/data/tiny-book.bin, a Polyglot book of a few opening moves.

python-chess reads Polyglot books but cannot write them; an entry is 16 bytes,
big-endian: the position's Zobrist key (chess.polyglot.zobrist_hash), the move
(to file, to rank, from file, from rank, promotion: 3 bits each from the
lowest), a weight and a learn value; entries are sorted by key.

    python tests/data/make_book.py
"""

import struct
from pathlib import Path

import chess
import chess.polyglot

# (moves leading to the position, book move, weight)
LINES = [
    ([], "e2e4", 3), ([], "d2d4", 1),
    (["e2e4"], "e7e5", 2), (["e2e4"], "c7c5", 1),
    (["d2d4"], "d7d5", 1), (["d2d4"], "g8f6", 1),
    (["e2e4", "e7e5"], "g1f3", 1),
    (["e2e4", "e7e5", "g1f3"], "b8c6", 1),
]


def encode(move: chess.Move) -> int:
    to, frm = move.to_square, move.from_square
    return (chess.square_file(to) | chess.square_rank(to) << 3 | chess.square_file(frm) << 6
            | chess.square_rank(frm) << 9)


def book_bytes() -> bytes:
    entries = []
    for moves, move, weight in LINES:
        board = chess.Board()
        for m in moves:
            board.push_uci(m)
        entries.append((chess.polyglot.zobrist_hash(board), encode(chess.Move.from_uci(move)), weight))
    return b"".join(struct.pack(">QHHI", key, move, weight, 0) for key, move, weight in sorted(entries))


if __name__ == "__main__":
    Path(__file__).with_name("tiny-book.bin").write_bytes(book_bytes())
