"""Packed position sets: 32 bytes a position, for sets of millions.

EPD spends about 70 bytes of text on a labelled position and takes a FEN parser
to read; a packed file holds the same position and labels in 32 bytes and reads
straight into `PositionSet`'s columns with numpy, with no FEN to parse. The format (docs/positions.md#the-packed-format) is a header
and fixed-size records, little-endian, so a file can be appended to, cut at a
record boundary and concatenated after its header:

    header (16 bytes): b"GCPOS\\0", version u16 (1), record size u16 (32),
                       8 bytes reserved (0)
    record (32 bytes):
      0  u64   occupancy: bit s set where square s holds a piece (a1 = bit 0)
      8  16 B  the occupied squares' pieces in ascending square order, a nibble
               each (low nibble first): colour * 6 + kind, P N B R Q K = 0..5
     24  u8    bit 0: black to move; bits 1-4: castling (WHITE_OO 1, WHITE_OOO 2,
               BLACK_OO 4, BLACK_OOO 8, as PositionSet.castling)
     25  i8    en-passant square 0-63, -1 none
     26  i16   score in centipawns from White's view (the mentor's or the search's
               label), -32768 where there is none
     28  u8    the game's result from White's view: 0 loss, 1 draw, 2 win
     29  3 B   reserved (0)

A board holds at most 32 pieces, so sixteen bytes of nibbles always suffice. A
file gzipped whole (`.gz`) reads the same. Reading checks every record (piece
codes, one king a side, no pawn on the first or last rank, the flags and the
labels) and names the first bad one by its index and byte offset.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from genchess.position_sets.epd import MENTOR_CLAMP_CP, PACKED_SUFFIXES, PositionSetError, read_whole

MAGIC = b"GCPOS\0"
VERSION = 1
RECORD_SIZE = 32
HEADER = MAGIC + VERSION.to_bytes(2, "little") + RECORD_SIZE.to_bytes(2, "little") + bytes(6)
HEADER_SIZE = len(HEADER)           # 16
NO_SCORE = -32768
RECORD = np.dtype([("occupancy", "<u8"), ("pieces", "u1", 16), ("flags", "u1"), ("ep", "i1"),
                   ("score", "<i2"), ("result", "u1"), ("reserved", "u1", 3)])
assert RECORD.itemsize == RECORD_SIZE
CHUNK = 1 << 18                     # positions per numpy pass: bounded memory for any set
EMPTY = 15                          # a square's code while packing: no piece
_RANKS_1_AND_8 = np.uint64(0xFF000000000000FF)


def is_packed(path: str | Path) -> bool:
    """Whether `path` holds a packed set (by its first bytes, .gz or not)."""
    try:
        with _open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except (OSError, EOFError, gzip.BadGzipFile):
        return False


def is_packed_name(path: str | Path) -> bool:
    """Whether a set written to `path` is packed: its name ends in .gcpos(.gz)."""
    return str(path).endswith(PACKED_SUFFIXES)


def _open(path: str | Path, mode: str):
    return gzip.open(path, mode) if str(path).endswith(".gz") else open(path, mode)


def encode(positions) -> bytes:
    """The records of a PositionSet (or anything with its columns; no header). ValueError naming the first
    position that does not fit: more than 32 pieces, or two on one square."""
    out = []
    for start in range(0, len(positions), CHUNK):
        out.append(_encode_chunk(positions, start, min(start + CHUNK, len(positions))).tobytes())
    return b"".join(out)


def _encode_chunk(positions, start: int, stop: int) -> np.ndarray:
    n = stop - start
    pieces = np.ascontiguousarray(positions.pieces[start:stop], dtype="<u8")
    # (n, 12, 64) booleans: square s of piece p, a1 first.
    bits = np.unpackbits(pieces.view(np.uint8).reshape(n, 12, 8), axis=2, bitorder="little").astype(bool)
    counts = bits.sum(axis=1)
    if (counts > 1).any():
        row, square = np.argwhere(counts > 1)[0]
        raise ValueError(f"position {start + row}: two pieces on square {int(square)}")
    occupied = counts.astype(bool)
    many = occupied.sum(axis=1) > 32
    if many.any():
        row = int(np.argmax(many))
        raise ValueError(f"position {start + row}: {int(occupied[row].sum())} pieces; a packed "
                         f"record holds 32")
    code = np.where(occupied, bits.argmax(axis=1), EMPTY).astype(np.uint8)
    # The occupied squares first, each group in square order (a stable sort).
    order = np.argsort(~occupied, axis=1, kind="stable")[:, :32]
    nibbles = np.take_along_axis(code, order, axis=1)
    nibbles[nibbles == EMPTY] = 0
    records = np.zeros(n, dtype=RECORD)
    records["occupancy"] = np.bitwise_or.reduce(pieces, axis=1)
    records["pieces"] = nibbles[:, 0::2] | (nibbles[:, 1::2] << 4)
    records["flags"] = (positions.side[start:stop].astype(np.uint8) & 1) \
        | ((positions.castling[start:stop].astype(np.uint8) & 15) << 1)
    records["ep"] = positions.ep[start:stop]
    mentor = np.asarray(positions.mentor[start:stop], dtype=np.float64)
    score = np.clip(np.rint(np.nan_to_num(mentor, nan=0.0)), -MENTOR_CLAMP_CP, MENTOR_CLAMP_CP)
    records["score"] = np.where(np.isfinite(mentor), score, NO_SCORE).astype("<i2")
    records["result"] = np.rint(np.asarray(positions.result[start:stop], dtype=np.float64) * 2).astype(np.uint8)
    return records


def packed_bytes(positions, gz: bool = False) -> bytes:
    """A whole packed file of `positions`: the header and the records, gzipped
    when asked with a fixed header (the same positions, the same bytes)."""
    data = HEADER + encode(positions)
    return gzip.compress(data, mtime=0) if gz else data


def write_packed(positions, path: str | Path) -> None:
    """Write a PositionSet as a packed file (gzipped when the name ends in .gz)."""
    Path(path).write_bytes(packed_bytes(positions, gz=str(path).endswith(".gz")))


def read_packed(path: str | Path) -> tuple[np.ndarray, ...]:
    """A packed file's positions as PositionSet's columns (pieces, side, castling, ep,
    result, mentor); PositionSetError naming the file and the first bad record (by
    index and byte offset), or what is wrong with the header."""
    return columns(read_records(path), path)


def read_records(path: str | Path) -> np.ndarray:
    """A packed file's records as they are (its header and length checked, not yet its
    records: columns() and records.record_hashes check those)."""
    path = Path(path)
    data = read_whole(path, _open, (gzip.BadGzipFile, EOFError), "gzip")
    check_header(path, data[:HEADER_SIZE])
    body = len(data) - HEADER_SIZE
    if body % RECORD_SIZE:
        whole = body // RECORD_SIZE
        raise PositionSetError(f"{path}: truncated: {body % RECORD_SIZE} bytes after its {whole} whole "
                               f"records (a record is {RECORD_SIZE} bytes), at byte "
                               f"{HEADER_SIZE + whole * RECORD_SIZE}")
    return np.frombuffer(data, dtype=RECORD, offset=HEADER_SIZE)


def columns(records: np.ndarray, path) -> tuple[np.ndarray, ...]:
    """PositionSet's columns of packed records (decode, CHUNK records at a time: bounded
    memory for any set); PositionSetError naming `path` and the first bad record."""
    parts = [decode(records[start:start + CHUNK], path, start) for start in range(0, len(records), CHUNK)]
    if not parts:
        parts = [decode(records, path, 0)]
    return tuple(np.concatenate([c[k] for c in parts]) for k in range(6))


def check_header(path, header: bytes) -> None:
    if len(header) < HEADER_SIZE or not header.startswith(MAGIC):
        raise PositionSetError(f"{path}: not a packed position set (no GCPOS header)")
    version = int.from_bytes(header[6:8], "little")
    size = int.from_bytes(header[8:10], "little")
    if version != VERSION or size != RECORD_SIZE:
        raise PositionSetError(f"{path}: packed format version {version} with {size}-byte records; "
                               f"this GenChess reads version {VERSION} with {RECORD_SIZE}-byte records")


def decode(records: np.ndarray, path, first: int) -> tuple[np.ndarray, ...]:
    """(pieces, side, castling, ep, result, mentor) of records; PositionSetError at
    the first record that no legal position packs to."""
    n = len(records)

    def bad(mask: np.ndarray, problem: str) -> None:
        if mask.any():
            row = int(np.argmax(mask))
            index = first + row
            raise PositionSetError(f"{path}: record {index} (byte {HEADER_SIZE + index * RECORD_SIZE}): "
                                   f"{problem(row) if callable(problem) else problem}")

    occupancy = records["occupancy"].astype("<u8")
    occupied = np.unpackbits(occupancy.view(np.uint8).reshape(n, 8), axis=1, bitorder="little").astype(bool)
    count = occupied.sum(axis=1)
    bad(count > 32, lambda row: f"{int(count[row])} squares occupied; a record holds 32 pieces")
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = records["pieces"] & 15
    nibbles[:, 1::2] = records["pieces"] >> 4
    rows, squares = np.nonzero(occupied)        # row by row, squares ascending
    starts = np.cumsum(count) - count
    slot = np.arange(len(rows)) - starts[rows]  # each piece's place among its row's
    kinds = nibbles[rows, slot]
    bad(np.bincount(rows[kinds >= 12], minlength=n).astype(bool),
        lambda row: f"piece code {int(kinds[rows == row].max())} (codes are 0 to 11)")
    # Each (position, piece) bitboard is the OR of its squares' bits: sort by that
    # pair and OR each run.
    key = rows.astype(np.int64) * 12 + kinds
    order = np.argsort(key, kind="stable")
    key = key[order]
    bit = np.left_shift(np.uint64(1), squares[order].astype(np.uint64))
    runs = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    pieces = np.zeros(n * 12, dtype="<u8")
    if len(key):
        pieces[key[runs]] = np.bitwise_or.reduceat(bit, runs)
    pieces = pieces.reshape(n, 12)
    for king, colour in ((5, "white"), (11, "black")):
        kings = np.bincount(rows[kinds == king], minlength=n)
        bad(kings != 1, lambda row: f"{int(kings[row])} {colour} kings")
    pawns_on_edge = ((pieces[:, 0] | pieces[:, 6]) & _RANKS_1_AND_8) != 0
    bad(pawns_on_edge, "a pawn on the first or last rank")
    flags = records["flags"]
    bad(flags > 31, lambda row: f"flags {int(flags[row])} (bits 5-7 must be 0)")
    ep = records["ep"]
    bad((ep < -1) | (ep > 63), lambda row: f"en-passant square {int(ep[row])}")
    result = records["result"]
    bad(result > 2, lambda row: f"result {int(result[row])} (0, 1 or 2)")
    score = records["score"].astype(np.int32)
    bad((score != NO_SCORE) & (np.abs(score) > MENTOR_CLAMP_CP),
        lambda row: f"score {int(score[row])} (at most {MENTOR_CLAMP_CP} either way)")
    mentor = np.where(score == NO_SCORE, np.nan, score).astype(np.float32)
    side, castling, ep = (flags & 1).astype(np.uint8), (flags >> 1).astype(np.uint8), ep.astype(np.int8)
    # What numpy cannot see cheaply, the core checks as set_fen would (an EPD line
    # with the same position would be refused).
    from genchess_core.set_eval import first_unreachable
    found = first_unreachable(np.ascontiguousarray(pieces), side, castling, ep)
    if found is not None:
        bad(np.arange(n) == found[0], found[1])
    return pieces, side, castling, ep, (result.astype(np.float32) / 2).astype(np.float32), mentor
