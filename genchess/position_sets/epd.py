"""EPD, the file form of a labelled position set, as text: one line per position,
the first four FEN fields and operations such as `c9 "1-0";` (the game's result,
White's view) and `ce 35;` (a score in centipawns, the side to move's view). What
reads and writes lines without building a set (position_set.py holds the set), so
that the command line can use it without loading numpy.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
RESULT_TEXT = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}
MENTOR_CLAMP_CP = 10000     # mentor scores (mates included) are clamped to +-this
GAME_LABEL = ("genchess", "game", 0)   # --mentor genchess:game: a game's own search scores its positions
# A set written under one of these names is packed (packed.py: 32 bytes a position),
# any other is EPD; named here so that the set maker knows without loading numpy.
PACKED_SUFFIXES = (".gcpos", ".gcpos.gz")
_OP = re.compile(r'\s*([A-Za-z][A-Za-z0-9_]*)(?:\s+("(?:[^"]*)"|[^;]*?))?\s*;')


class PositionSetError(ValueError):
    """A position set that cannot be read at all (missing, not text); one line."""


def epd_line(fen: str, result: str, ce: int | None = None) -> str:
    """One EPD line: the first four fields of `fen`, `c9` (White's view) and, if
    given, `ce` (centipawns, side to move's view)."""
    line = " ".join(fen.split()[:4]) + f' c9 "{result}";'
    if ce is not None:
        line += f" ce {int(ce)};"
    return line


def position_key(fen: str) -> str:
    """What makes two positions the same for a set: placement, side, castling, ep."""
    return " ".join(fen.split()[:4])


def parse_epd_line(line: str) -> tuple[str, dict[str, str]]:
    """(the four position fields, {opcode: operand}) of an EPD line; ValueError if it
    has fewer than four fields or an operation without its `;`."""
    fields = line.split(None, 4)
    if len(fields) < 4:
        raise ValueError(f"expected an EPD position (4 fields), got {line.strip()[:60]!r}")
    rest = fields[4] if len(fields) > 4 else ""
    ops: dict[str, str] = {}
    pos = 0
    while pos < len(rest):
        if rest[pos:].strip() == "":
            break
        match = _OP.match(rest, pos)
        if not match:
            raise ValueError(f"cannot read the operations {rest[pos:].strip()[:60]!r}")
        value = match.group(2) or ""
        ops[match.group(1)] = value[1:-1] if value.startswith('"') else value.strip()
        pos = match.end()
    return " ".join(fields[:4]), ops


def open_text(path: str | Path, mode: str = "rt"):
    """A text file, through gzip when its name ends in .gz."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def read_whole(path: Path, opener, unreadable: tuple[type, ...], compression: str) -> bytes:
    """All of a set file's bytes through `opener` (open, gzip.open, lzma.open, in "rb");
    PositionSetError naming the file when it is missing, not readable as `compression`
    (the `unreadable` errors), or cannot be read."""
    try:
        with opener(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise PositionSetError(f"{path}: no such position set") from None
    except unreadable as e:
        raise PositionSetError(f"{path}: not a readable {compression} file ({e})") from None
    except OSError as e:
        raise PositionSetError(f"{path}: cannot read: {e.strerror or e}") from None


def read_keys(path: str | Path) -> list[str]:
    """The position keys (position_key) of an EPD file's lines, in order; for
    de-duplicating against what an earlier run wrote."""
    with open_text(path) as f:
        return [position_key(line) for line in f if line.strip()]
