"""Labelled position sets in memory: the compact arrays a Texel-style tuner reads.

A set is columns, not objects: twelve bitboards and three small fields per
position (about 110 bytes with both labels), so a few hundred thousand positions
fit in tens of megabytes and the C evaluation (genchess_core.set_eval.evaluate_set)
walks them without the GIL. The file form is EPD, which other tuners read and
write too (for sets of millions, packed.py's form, 32 bytes a position):

    <placement> <side> <castling> <en passant> c9 "1-0"; ce 35;

Labels and views:
- `c9` is the game's result from White's view ("1-0", "1/2-1/2", "0-1"); `result`
  holds it as 1, 0.5, 0.
- `ce` is the mentor's score in centipawns from the SIDE TO MOVE's view, as EPD
  defines it (so other tools read our files right); `mentor` holds it from WHITE's
  view, converted on reading (NaN where a line has no `ce`). Our writer clamps
  mentor mates to +-MENTOR_CLAMP_CP.
- Evaluations (`evaluate`) are from White's view in the genome's internal units;
  `evaluate_cp` divides by the genome's pawn unit (Searcher.pawn_unit) for centipawns.

Reading keeps duplicates (a file means what it says); `drop_duplicates()` keeps the
first of each position. En-passant squares are kept only where a legal capture
exists, so positions that differ only by an unusable ep square count as equal.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genchess.console import quoted, whole_number
from genchess.position_sets import chains, packed
from genchess.position_sets.epd import (MENTOR_CLAMP_CP, RESULT_TEXT, RESULTS, PositionSetError, epd_line,
                                  open_text, parse_epd_line, position_key, read_keys)



@dataclass
class PositionSet:
    """Positions as columns (one row each):

    pieces   uint64 [n, 12]  bitboards, genchess_core's order colour * 6 + kind
                             (P N B R Q K white, then black), a1 = bit 0
    side     uint8           0 white to move, 1 black
    castling uint8           WHITE_OO 1 | WHITE_OOO 2 | BLACK_OO 4 | BLACK_OOO 8
    ep       int8            en-passant square 0-63, -1 none
    result   float32         the game's result, White's view: 1, 0.5, 0
    mentor   float32         the mentor's centipawns, White's view; NaN where missing
    """
    pieces: np.ndarray
    side: np.ndarray
    castling: np.ndarray
    ep: np.ndarray
    result: np.ndarray
    mentor: np.ndarray
    source: str = ""
    warnings: list[str] = field(default_factory=list)   # `file:line: problem` of skipped lines
    skipped: int = 0

    def __len__(self) -> int:
        return len(self.side)

    def __repr__(self) -> str:
        return (f"PositionSet({len(self)} positions, {int(np.isfinite(self.mentor).sum())} with "
                f"mentor scores, from {self.source or 'memory'!r})")

    @classmethod
    def from_fens(cls, fens: list[str], results, mentor=None, source: str = "") -> "PositionSet":
        """A set from FENs/EPD positions, results (1, 0.5, 0 or "1-0" ...) and optional
        mentor centipawns (White's view, None/NaN where missing). ValueError on a bad FEN."""
        from genchess_core.set_eval import parse_fens

        pieces, side, castling, ep, errors = parse_fens(list(fens))
        if errors:
            index, message = errors[0]
            raise ValueError(f"position {index}: {message}")
        result = np.array([RESULTS[r] if isinstance(r, str) else float(r) for r in results],
                          dtype=np.float32)
        if mentor is None:
            mentor_array = np.full(len(side), np.nan, dtype=np.float32)
        else:
            mentor_array = np.array([np.nan if m is None else m for m in mentor], dtype=np.float32)
        if not (len(result) == len(mentor_array) == len(side)):
            raise ValueError("fens, results and mentor must have one entry per position")
        return cls(pieces, side, castling, ep, result, mentor_array, source)

    def subset(self, indices) -> "PositionSet":
        """The positions at `indices` (an index array, a slice or a boolean mask)."""
        return PositionSet(self.pieces[indices], self.side[indices], self.castling[indices],
                           self.ep[indices], self.result[indices], self.mentor[indices], self.source)

    def hashes(self, seed: int = 0) -> np.ndarray:
        """A 64-bit hash of each position (pieces, side, castling, ep; not the labels),
        the same on every machine and for every order of the set."""
        return position_hashes(self.pieces, self.side, self.castling, self.ep, seed)

    def split(self, held_out: float = 0.1, seed: int = 0) -> tuple["PositionSet", "PositionSet"]:
        """(train, held-out): a position goes to the held-out part when its hash says
        so, so each position keeps its side when the set grows or is reordered."""
        if not 0.0 <= held_out <= 1.0:
            raise ValueError(f"held_out must be between 0 and 1, not {held_out}")
        fraction = (self.hashes(seed) >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        mask = fraction < held_out
        return self.subset(~mask), self.subset(mask)

    def drop_duplicates(self) -> "PositionSet":
        """The set with the first occurrence of each position only (labels not compared),
        found by the positions' 64-bit hashes: no collision in practice, and 37 times
        faster than comparing the rows (0.6 s against 22 s for 1.5M positions)."""
        _, first = np.unique(self.hashes(), return_index=True)
        return self.subset(np.sort(first))

    def fen(self, i: int) -> str:
        """Position `i` as a FEN (counters 0 1)."""
        from genchess_core.set_eval import set_fen_of
        return set_fen_of(np.ascontiguousarray(self.pieces[i]), int(self.side[i]),
                          int(self.castling[i]), int(self.ep[i]))

    def evaluate(self, genome) -> np.ndarray:
        """Every position's static evaluation under `genome` (a genome of any kind, or
        its pack() dict): int32, White's view, the genome's internal units."""
        from genchess_core.set_eval import evaluate_set
        packed = genome if isinstance(genome, dict) else genome.pack()
        return evaluate_set(np.ascontiguousarray(self.pieces), np.ascontiguousarray(self.side),
                            np.ascontiguousarray(self.castling), np.ascontiguousarray(self.ep), packed)

    def evaluate_cp(self, genome) -> np.ndarray:
        """evaluate() in centipawns (float64, White's view): internal units * 100 / pawn_unit."""
        packed = genome if isinstance(genome, dict) else genome.pack()
        return self.evaluate(packed) * (100.0 / pawn_unit(packed))

    def write(self, path: str | Path) -> None:
        """Write the set as EPD (gzipped when the name ends in .gz); `ce` where a
        mentor score is known, converted to the side to move's view. A name ending
        in .gcpos or .gcpos.gz is written packed instead (32 bytes a position,
        position_sets/packed.py)."""
        if packed.is_packed_name(path):
            packed.write_packed(self, path)
            return
        with open_text(path, "wt") as f:
            for i in range(len(self)):
                ce = None
                if np.isfinite(self.mentor[i]):
                    ce = int(round(float(self.mentor[i]))) * (1 if self.side[i] == 0 else -1)
                f.write(epd_line(self.fen(i), RESULT_TEXT[float(self.result[i])], ce) + "\n")


def pawn_unit(packed: dict) -> float:
    """Internal evaluation units per pawn of a packed genome (what the Searcher uses
    to report centipawns)."""
    from genchess_core.searcher import Searcher
    searcher = Searcher(1)
    searcher.set_genome(packed)
    return float(searcher.pawn_unit)


def position_hashes(pieces, side, castling, ep, seed: int = 0) -> np.ndarray:
    """PositionSet.hashes of these columns (also for sets held as packed records:
    records.record_hashes)."""
    with np.errstate(over="ignore"):
        h = np.full(len(side), _splitmix(np.uint64(seed & 0xFFFFFFFFFFFFFFFF)), dtype=np.uint64)
        columns = [pieces[:, k] for k in range(12)]
        flags = (side.astype(np.uint64) | (castling.astype(np.uint64) << np.uint64(8))
                 | ((ep.astype(np.int64) + 1).astype(np.uint64) << np.uint64(16)))
        for column in columns + [flags]:
            h = _splitmix(h ^ column)
    return h


def _splitmix(x):
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def load_positions(path: str | Path, max_warnings: int | None = None) -> PositionSet:
    """Read an EPD set (.epd, or .epd.gz) whose lines carry a `c9` result; `ce`
    optional (side to move's view in the file, White's view in the set). Lines
    that cannot be used are skipped, each named `file:line: problem` in
    `.warnings` (the first `max_warnings` of them, if given) and all counted in
    `.skipped`; duplicates are kept. Raises
    PositionSetError when the file cannot be read. A packed file (position_sets/packed.py,
    known by its header whatever its name) is read whole or refused, naming its
    first bad record: its records are not lines a reader could skip one by one; a chain
    file (chains.py) likewise, naming its first game that does not replay."""
    path = Path(path)
    if path.is_dir():
        return load_folder(path, max_warnings)
    if packed.is_packed(path):
        return PositionSet(*packed.read_packed(path), source=str(path))
    if chains.is_chain_name(path) or chains.is_chains(path):
        records, _ = chains.read_chain_records(path)
        return PositionSet(*packed.columns(records, path), source=str(path))
    fens: list[str] = []
    results: list[float] = []
    ce: list[float] = []
    lines: list[int] = []
    warnings: list[tuple[int, str]] = []
    skipped = 0

    def bad(number: int, problem: str) -> None:
        nonlocal skipped
        skipped += 1
        warnings.append((number, f"{path}:{number}: {problem}"))

    try:
        with open_text(path) as f:
            for number, line in enumerate(f, start=1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                try:
                    fen, ops = parse_epd_line(line)
                except ValueError as e:
                    bad(number, str(e))
                    continue
                if "c9" not in ops:
                    bad(number, "no c9 result")
                    continue
                if ops["c9"] not in RESULTS:
                    bad(number, f"c9 {quoted(ops['c9'])} is not 1-0, 1/2-1/2 or 0-1")
                    continue
                score = float("nan")
                if "ce" in ops:
                    ce_cp = whole_number(ops["ce"])
                    if ce_cp is None:
                        bad(number, f"ce {quoted(ops['ce'])} is not a whole number of centipawns")
                        continue
                    score = float(ce_cp)
                fens.append(fen)
                results.append(RESULTS[ops["c9"]])
                ce.append(score)
                lines.append(number)
    except FileNotFoundError:
        raise PositionSetError(f"{path}: no such position set") from None
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as e:
        raise PositionSetError(f"{path}: not a readable EPD text file ({e})") from None
    except OSError as e:
        raise PositionSetError(f"{path}: cannot read: {e.strerror or e}") from None

    from genchess_core.set_eval import parse_fens

    pieces, side, castling, ep, errors = parse_fens(fens)
    keep = np.ones(len(fens), dtype=bool)
    for index, message in errors:
        keep[index] = False
        bad(lines[index], message)
    mentor = np.array(ce, dtype=np.float32)
    mentor = np.where(side == 0, mentor, -mentor).astype(np.float32)   # to White's view
    positions = PositionSet(pieces[keep], side[keep], castling[keep], ep[keep],
                            np.array(results, dtype=np.float32)[keep], mentor[keep], str(path))
    positions.warnings = [text for _, text in sorted(warnings)][:max_warnings]
    positions.skipped = skipped
    return positions


SET_SUFFIXES = (".gcpos", ".gcpos.gz", ".epd", ".epd.gz") + chains.SUFFIXES


def set_files(folder: Path) -> list[Path]:
    """The position sets in `folder` (packed or EPD, gzipped or not), in name order."""
    return sorted(f for f in folder.iterdir() if f.is_file() and f.name.endswith(SET_SUFFIXES))


class SetList(tuple):
    """Several position sets read as one, in the order given (a config's `positions =
    data/net1, data/net2`): one generation's folder after another's, so a network trains
    on every generation's data while the newest folder still grows. Its parts are the
    first set's, then the second's; `chunks` counts across them."""

    def __new__(cls, paths):
        return super().__new__(cls, (Path(p) for p in paths))

    def __str__(self) -> str:
        return ", ".join(str(p) for p in self)

    @property
    def name(self) -> str:
        return " + ".join(p.name for p in self)


def set_parts(path: str | Path | SetList, chunks: int | None = None) -> list[Path]:
    """The files a set path stands for: the file itself, or a folder's sets in name order
    (a SetList: each member's in turn), only the first `chunks` of them if given. A folder
    the data machine is still growing gains chunks at the end, so its first N stay the same
    set (a run on them resumes)."""
    if isinstance(path, SetList):
        files = [f for member in path for f in set_parts(member)]
        where = f"{path}: hold"
    else:
        path = Path(path)
        if not path.is_dir():
            if chunks is not None:
                raise PositionSetError(f"{path}: 'chunks' reads the first chunks of a folder, "
                                       f"and this is one file")
            return [path]
        files = set_files(path)
        where = f"{path}: holds"
    if chunks is not None:
        if len(files) < chunks:
            raise PositionSetError(f"{where} {len(files)} chunks, and the first {chunks} "
                                   f"were asked for")
        files = files[:chunks]
    return files


def load_folder(folder: Path, max_warnings: int | None = None) -> PositionSet:
    """Every set in `folder` as one (a large set is made and kept as chunks, each a
    `genchess positions` run of its own): read in name order, a position that an
    earlier chunk holds already dropped, so adding a chunk never counts a position
    twice."""
    files = set_files(folder)
    if not files:
        raise PositionSetError(f"{folder}: a folder with no position set in it "
                               f"({', '.join(SET_SUFFIXES)})")
    parts = [load_positions(f, max_warnings) for f in files]
    whole = PositionSet(*(np.concatenate([getattr(part, name) for part in parts])
                          for name in ("pieces", "side", "castling", "ep", "result", "mentor")),
                        source=str(folder))
    whole = whole.drop_duplicates()
    whole.warnings = [w for part in parts for w in part.warnings][:max_warnings]
    whole.skipped = sum(part.skipped for part in parts)
    return whole


__all__ = ["MENTOR_CLAMP_CP", "PositionSet", "PositionSetError", "epd_line", "load_folder", "load_positions",
           "open_text", "parse_epd_line", "pawn_unit", "position_key", "read_keys", "SetList",
           "set_parts"]
