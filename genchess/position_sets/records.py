"""A set held as packed records: the compact form for tens of millions of positions.

PositionSet keeps twelve bitboards a position (about 110 bytes with its labels): right
for the tuners' C evaluation of a few million, too much for the network trainer's fifty
million. Here a set is one numpy array of the packed format's 32-byte records
(packed.RECORD: occupancy, the pieces' nibbles, side, castling, en passant, score,
result), read from any set file or folder, checked record by record as packed.decode
checks them, each position once. `record_hashes` gives PositionSet.hashes for the same
positions, so a position falls on the same side of a held-out split however it is held.

PackedSet is such an array with what the trainer asks of a set: its columns (side,
castling, result, mentor) read off the records, subsets, the held-out split, a
fingerprint of the records, and the C evaluation of every position, decoded to a
PositionSet a chunk at a time (the network trainer's kernels decode the records
themselves, genchess_core/network_fit.pyx).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from genchess.position_sets import chains, packed
from genchess.position_sets.epd import PositionSetError
from genchess.position_sets.position_set import PositionSet, SetList, load_positions, position_hashes, set_parts


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


def load_records(path: str | Path | SetList, chunks: int | None = None) -> np.ndarray:
    """A set file, a folder of them (read in name order) or a SetList of either (its
    first `chunks` files if given) as one record array, each position once (its first
    record kept) and every record checked."""
    files = set_parts(path, chunks)
    if not files:
        raise PositionSetError(f"{path}: a folder with no position set in it")
    parts = [read_records(f) for f in files]
    records = np.concatenate(parts) if len(parts) > 1 else parts[0]
    hashes = np.concatenate([record_hashes(part, f) for part, f in zip(parts, files)])
    _, first = np.unique(hashes, return_index=True)
    return records[np.sort(first)]


class PackedSet:
    """Positions as packed records (`records`, packed.RECORD [n]) and where they came from."""

    def __init__(self, records: np.ndarray, source: str = ""):
        if records.dtype != packed.RECORD:
            raise ValueError(f"records of dtype {records.dtype}, not the packed record")
        self.records, self.source = records, source

    @classmethod
    def load(cls, path: str | Path | SetList, chunks: int | None = None) -> PackedSet:
        """load_records(path, chunks): each position once, every record checked."""
        return cls(load_records(path, chunks), str(path))

    @classmethod
    def from_positions(cls, positions: PositionSet) -> PackedSet:
        return cls(np.frombuffer(packed.encode(positions), dtype=packed.RECORD), positions.source)

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return f"PackedSet({len(self)} positions from {self.source or 'memory'!r})"

    def subset(self, index) -> PackedSet:
        return PackedSet(self.records[index], self.source)

    @property
    def side(self) -> np.ndarray:
        return (self.records["flags"] & 1).astype(np.uint8)

    @property
    def castling(self) -> np.ndarray:
        return (self.records["flags"] >> 1).astype(np.uint8)

    @property
    def result(self) -> np.ndarray:
        """The game's result, White's view (1, 0.5, 0), as PositionSet.result."""
        return (self.records["result"].astype(np.float32) / 2).astype(np.float32)

    @property
    def mentor(self) -> np.ndarray:
        """The mentor's centipawns, White's view, NaN where none: as PositionSet.mentor."""
        score = self.records["score"]
        return np.where(score == packed.NO_SCORE, np.nan, score).astype(np.float32)

    def positions(self, index=slice(None)) -> PositionSet:
        """The records `index` decoded (a part small enough: a chunk at a time)."""
        return PositionSet(*packed.columns(self.records[index], self.source), source=self.source)

    def hashes(self, seed: int = 0) -> np.ndarray:
        return record_hashes(self.records, self.source, seed)

    def split(self, held_out: float = 0.1, seed: int = 0) -> tuple[PackedSet, PackedSet]:
        """(train, held-out), the positions PositionSet.split would put in each."""
        if not 0.0 <= held_out <= 1.0:
            raise ValueError(f"held_out must be between 0 and 1, not {held_out}")
        mask = (self.hashes(seed) >> np.uint64(11)).astype(np.float64) / float(1 << 53) < held_out
        return self.subset(~mask), self.subset(mask)

    def fingerprint(self) -> str:
        """The records and their labels, in order: `positions:sha256 prefix`."""
        digest = hashlib.sha256()
        for start in range(0, len(self), packed.CHUNK):
            digest.update(np.ascontiguousarray(self.records[start:start + packed.CHUNK]).tobytes())
        return f"{len(self)}:{digest.hexdigest()[:32]}"

    def evaluate_cp(self, genome) -> np.ndarray:
        """PositionSet.evaluate_cp of every record, a chunk decoded at a time."""
        packed_genome = genome if isinstance(genome, dict) else genome.pack()
        parts = [self.positions(slice(start, start + packed.CHUNK)).evaluate_cp(packed_genome)
                 for start in range(0, len(self), packed.CHUNK)]
        return np.concatenate(parts) if parts else np.zeros(0)
