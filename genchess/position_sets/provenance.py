"""Where a position set came from, in one line a network genome's lineage can carry.

Data made by network n trains network n + 1, so a genome should say which data it
learnt from and which evaluation labelled that data. The set maker writes a sidecar
beside every file (`FILE.json`: the command, the recipe with the sha256 of the
genome that played and labelled the games); a folder of chunks may also hold a
manifest (`MANIFEST*` or `manifest*`: the chunks and their sha256). This reads what
is there and says it briefly; a set without either is named by its files alone.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from genchess.position_sets.position_set import set_files


def makers(path: str | Path) -> list[str]:
    """`NAME sha256-prefix` of each genome that made the set's files, in the order
    first met (from the sidecars' recipes; none where a file has no sidecar)."""
    path = Path(path)
    found: list[str] = []
    for file in set_files(path) if path.is_dir() else [path]:
        try:
            meta = json.loads(Path(f"{file}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(meta, dict):
            continue
        recipe, engine = meta.get("recipe") or {}, (meta.get("engines") or {}).get("genchess") or {}
        name = Path(str(engine.get("genome") or "genome")).name
        digest = str(recipe.get("genome_sha256") or "")[:12]
        if engine or digest:
            maker = f"{name} {digest}".strip()
            if maker not in found:
                found.append(maker)
    return found


def manifest(path: str | Path) -> str | None:
    """`NAME sha256 PREFIX` of a folder's manifest file, None without one."""
    path = Path(path)
    if not path.is_dir():
        return None
    for file in sorted(path.iterdir()):
        if file.is_file() and file.name.lower().startswith("manifest"):
            return f"{file.name} sha256 {hashlib.sha256(file.read_bytes()).hexdigest()[:16]}"
    return None


def describe(path: str | Path, positions: int, fingerprint: str) -> str:
    """`set NAME (N positions, sha256 X; manifest ...; made by GENOME SHA, ...)`:
    `fingerprint` is the trainer's hash of the records it read."""
    parts = [f"{positions} positions, records {fingerprint}"]
    listed = manifest(path)
    if listed:
        parts.append(f"manifest {listed}")
    made = makers(path)
    parts.append("made by " + ", ".join(made) if made else "maker unrecorded")
    return f"set {Path(path).name} ({'; '.join(parts)})"
