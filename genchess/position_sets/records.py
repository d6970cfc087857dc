"""A set held as packed records: the compact form for tens of millions of positions.

PositionSet keeps twelve bitboards a position (about 110 bytes with its labels): right
for the tuners' C evaluation of a few million, too much for the network trainer's fifty
million. Here a set is one numpy array of the packed format's 32-byte records
(packed.RECORD: occupancy, the pieces' nibbles, side, castling, en passant, score,
result), read from any set file or folder, checked record by record as packed.decode
checks them, each position once. `record_hashes` gives PositionSet.hashes for the same
positions, so a position falls on the same side of a held-out split however it is held.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from genchess.position_sets import chains, packed
from genchess.position_sets.epd import PositionSetError
from genchess.position_sets.position_set import load_positions, position_hashes, set_files


def read_records(path: str | Path) -> np.ndarray:
    """The records of one set file (packed, chain or EPD), duplicates kept."""
    path = Path(path)
    if packed.is_packed(path):
        return packed.read_records(path)
    if chains.is_chain_name(path) or chains.is_chains(path):
        return chains.read_chain_records(path)[0]
    return np.frombuffer(packed.encode(load_positions(path)), dtype=packed.RECORD).copy()


def record_hashes(records: np.ndarray, path="records", seed: int = 0) -> np.ndarray:
    """PositionSet.hashes of the records' positions; PositionSetError naming `path` and
    the first record no legal position packs to (every record is checked here)."""
    hashes = np.empty(len(records), dtype=np.uint64)
    for start in range(0, len(records), packed.CHUNK):
        pieces, side, castling, ep, _, _ = packed.decode(records[start:start + packed.CHUNK], path, start)
        hashes[start:start + len(side)] = position_hashes(pieces, side, castling, ep, seed)
    return hashes


def load_records(path: str | Path) -> np.ndarray:
    """A set file or a folder of them (read in name order) as one record array, each
    position once (its first record kept) and every record checked."""
    path = Path(path)
    files = set_files(path) if path.is_dir() else [path]
    if not files:
        raise PositionSetError(f"{path}: a folder with no position set in it")
    parts = [read_records(f) for f in files]
    records = np.concatenate(parts) if len(parts) > 1 else parts[0]
    hashes = np.concatenate([record_hashes(part, f) for part, f in zip(parts, files)])
    _, first = np.unique(hashes, return_index=True)
    return records[np.sort(first)]
