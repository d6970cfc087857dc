"""Rewrite the machine paths out of committed PGNs' Opening tags and position sets' sidecars.

GenChess once recorded an opening as the `file:line` of the file it read, with the
file's absolute path, and a sidecar's genome and
openings the same way; genchess/files.display_path now writes the shipped files
by their place in the package and others relative to the working directory. This
script brings the files committed before that change to the same form, changing
nothing else:

- a PGN (`.pgn` or `.pgn.gz`): only `[Opening "..."]` lines. Every other line must
  come out byte for byte the same, and python-chess must read the same games from
  both (every header but Opening, the moves and the result), or the file is left
  as it was and the script fails.
- a sidecar (`*.json`): an absolute path inside a string. The JSON must read the
  same but for those strings.

A path into a genchess package (a clone's, an install's) becomes its package name
(`genchess/data/openings.epd`, `genchess/genomes/unified.genome`); any other one
becomes the file's name alone (a set's `-o` path: the set lies beside its sidecar).

    python scripts/dev/strip_machine_paths.py [--check] [FILE ...]

With no FILE: every tracked PGN and sidecar except those under SKIP, whose owner
rewrites them. `--check` changes nothing and exits 1 if a file would change.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import subprocess
import sys
from pathlib import Path

# A path a machine gave (the folders tests/test_no_machine_paths.py refuses).
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home|tmp)/[^\s\"',;]*")
OPENING_TAG = re.compile(r'^\[Opening "(.*)"\]$')
SKIP = ("data/net1/", "lab/net2/")          # the lead's to rewrite with their own runs


def relative(path: str) -> str:
    """A machine path as the records now write it (see the module docstring)."""
    before, found, inside = path.rpartition("/genchess/")
    if found and inside.split("/", 1)[0] in ("data", "genomes", "configs"):
        return "genchess/" + inside
    return path.rstrip("/").rsplit("/", 1)[-1]


def rewritten(text: str) -> str:
    return MACHINE_PATH.sub(lambda m: relative(m.group(0)), text)


def _read(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def _write(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        # mtime 0 and no name: the same text gives the same bytes on every machine.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as f:
            f.write(data)
        data = buffer.getvalue()
    path.write_bytes(data)


def _games(text: str) -> list[tuple]:
    import chess.pgn
    stream, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(stream)) is not None:
        headers = {k: v for k, v in game.headers.items() if k != "Opening"}
        games.append((headers, [m.uci() for m in game.mainline_moves()], game.headers.get("Result")))
    return games


def new_pgn(path: Path, text: str) -> str:
    lines = text.split("\n")
    out = [OPENING_TAG.sub(lambda m: f'[Opening "{rewritten(m.group(1))}"]', line) for line in lines]
    new = "\n".join(out)
    changed = [i for i, (a, b) in enumerate(zip(lines, out)) if a != b]
    if any(not OPENING_TAG.match(lines[i]) for i in changed):
        raise SystemExit(f"{path}: a line other than an Opening tag would change")
    if changed and _games(text) != _games(new):
        raise SystemExit(f"{path}: the games read differently after the rewrite")
    return new


def _same_but_paths(old, new, where: str) -> None:
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        for key in old:
            _same_but_paths(old[key], new[key], f"{where}.{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            _same_but_paths(a, b, f"{where}[{i}]")
    elif old != new and not (isinstance(old, str) and MACHINE_PATH.search(old)):
        raise SystemExit(f"{where}: changed though it held no machine path")


def new_sidecar(path: Path, text: str) -> str:
    new = rewritten(text)
    _same_but_paths(json.loads(text), json.loads(new), str(path))
    return new


def targets(root: Path) -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    return [root / name for name in names
            if not name.startswith(SKIP) and name.endswith((".pgn", ".pgn.gz", ".json"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; status 1 if a file would change")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[2]
    changed = 0
    for path in args.files or targets(root):
        text = _read(path)
        if not MACHINE_PATH.search(text):
            continue
        new = new_sidecar(path, text) if path.name.endswith(".json") else new_pgn(path, text)
        if new == text:
            continue
        changed += 1
        print(f"{'would rewrite' if args.check else 'rewrote'} {path.relative_to(root) if path.is_absolute() else path}")
        if not args.check:
            _write(path, new)
            if MACHINE_PATH.search(_read(path)) and path.name.endswith(".json"):
                print(f"  {path}: a path is left outside the rewritten strings", file=sys.stderr)
    print(f"{changed} file(s) {'to rewrite' if args.check else 'rewritten'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
