"""Game chain files: a self-play set kept as its games, its positions derived when read.

A chain file (`.chains`, or `.chains.xz` compressed whole) is the header b"GCCHAIN1"
and one record per game: its start, its moves and each ply's search score
(genchess_core/chains.pyx has the record's layout and the replay). Kept this way a
position costs two to three bytes on disk where the packed format
(packed.py) spends 32, and the set keeps what positions alone lose: which
game each came from, in what order, how the game ended.

Reading gives the packed format's records, so everything that reads a packed set
reads a chain set: `read_chain_records` for the records (the network trainer holds
millions of them as one array), `load_positions` (position_set.py) for a
PositionSet. Which positions a game gives is the reader's rule, not the file's: the
first SKIP_PLIES plies after the start none, then every one that is not in check
and whose move is quiet. A damaged file (cut short, bit-flipped, not a chain file)
is refused with one line naming the file, the game and the byte.
"""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np

from genchess.files import write_atomically
from genchess.position_sets.epd import PositionSetError, read_whole

MAGIC = b"GCCHAIN1"
SUFFIXES = (".chains", ".chains.xz")
# xz's default preset: 9 and "extreme" gain under 1% on a chunk and take twice as long.
XZ_PRESET = 6


def is_chain_name(path: str | Path) -> bool:
    return str(path).endswith(SUFFIXES)


def is_chains(path: str | Path) -> bool:
    """Whether `path` holds a chain file (by its first bytes, xz or not)."""
    try:
        with _open(path) as f:
            return f.read(len(MAGIC)) == MAGIC
    except (OSError, EOFError, lzma.LZMAError):
        return False


def _open(path: str | Path, mode: str = "rb"):
    return lzma.open(path, mode) if str(path).endswith(".xz") else open(path, mode)


def read_chain_bytes(path: str | Path) -> bytes:
    """A chain file's records (its header checked and dropped); PositionSetError naming
    the file and what is wrong with it."""
    path = Path(path)
    data = read_whole(path, _open, (lzma.LZMAError, EOFError), "xz")
    if not data.startswith(MAGIC):
        raise PositionSetError(f"{path}: not a chain file (no {MAGIC.decode()} header)")
    return data[len(MAGIC):]


def chain_file_bytes(records: bytes, xz: bool) -> bytes:
    """A whole chain file of `records`: the header, compressed when asked (the same
    records, the same bytes: xz writes no name or time)."""
    data = MAGIC + records
    return lzma.compress(data, preset=XZ_PRESET) if xz else data


def write_chain_file(path: str | Path, records: bytes) -> None:
    """Write `records` as a chain file, whole or not at all (xz when the name ends in .xz)."""
    write_atomically(path, chain_file_bytes(records, str(path).endswith(".xz")))


def decode_records(path, data: bytes, skip_plies: int | None = None) -> tuple[np.ndarray, dict]:
    """(packed records [n] of packed.RECORD, counts) of chain records; PositionSetError
    naming `path` and the first game that cannot be read."""
    from genchess_core.chains import SKIP_PLIES, ChainError, decode_positions
    try:
        raw, counts = decode_positions(data, SKIP_PLIES if skip_plies is None else skip_plies)
    except ChainError as e:
        raise PositionSetError(f"{path}: {e}") from None
    from genchess.position_sets.packed import RECORD
    return raw.view(RECORD).reshape(-1), counts


def read_chain_records(path: str | Path, skip_plies: int | None = None) -> tuple[np.ndarray, dict]:
    """The positions a chain file keeps, as packed records, and the reading's counts."""
    return decode_records(path, read_chain_bytes(path), skip_plies)


def read_chain_games(path: str | Path) -> list[tuple]:
    """Every game of a chain file: (start FEN, chess960, result 0-2 from White's view,
    how it ended, moves in UCI, scores or None)."""
    from genchess_core.chains import ChainError, decode_games
    try:
        return decode_games(read_chain_bytes(path))
    except ChainError as e:
        raise PositionSetError(f"{path}: {e}") from None
