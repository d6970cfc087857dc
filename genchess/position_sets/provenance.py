"""Where a position set came from, in one line a network genome's lineage can carry.

Data made by network n trains network n + 1, so a genome should say which data it
learnt from and which evaluation labelled that data. `genchess positions` writes a
sidecar beside every file (`FILE.json`: the command, the recipe with the sha256 of
the genome that played and labelled the games); the data machine (`genchess
datagen`) keeps one recipe for a folder (`recipe.json`, the same sha256) and a
manifest of its chunks and their sha256 (`MANIFEST.json`). This reads what is there
and says it briefly; a set with none of them is named by its records alone.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from genchess.position_sets.position_set import SetList, set_parts


def makers(path: str | Path, chunks: int | None = None) -> list[str]:
    """`NAME sha256-prefix` of each genome that made the set's files (a folder's first
    `chunks` if given), in the order first met (from the sidecars' recipes; none where a
    file has no sidecar)."""
    if isinstance(path, SetList):       # each member's makers, as far as `chunks` reads
        found, left = [], chunks
        for member in path:
            if left is not None and left <= 0:
                break
            files = len(set_parts(member))
            found += makers(member, None if left is None or left >= files else left)
            left = None if left is None else left - files
        return list(dict.fromkeys(found))
    path = Path(path)
    found: list[str] = []
    folder_recipe = _json(path / "recipe.json") if path.is_dir() else {}
    if folder_recipe:
        found.append(f"{folder_recipe.get('genome', 'a genome')} "
                     f"{str(folder_recipe.get('genome_sha256', ''))[:12]}".strip())
    for file in set_parts(path, chunks):
        meta = _json(Path(f"{file}.json"))
        recipe, engine = meta.get("recipe") or {}, (meta.get("engines") or {}).get("genchess") or {}
        name = Path(str(engine.get("genome") or "genome")).name
        digest = str(recipe.get("genome_sha256") or "")[:12]
        if engine or digest:
            maker = f"{name} {digest}".strip()
            if maker not in found:
                found.append(maker)
    return found


def _json(path: Path) -> dict:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def manifest(path: str | Path) -> str | None:
    """`NAME sha256 PREFIX` of a folder's manifest file, None without one."""
    path = Path(path)
    if not path.is_dir():
        return None
    for file in sorted(path.iterdir()):
        if file.is_file() and file.name.lower().startswith("manifest"):
            return f"{file.name} sha256 {hashlib.sha256(file.read_bytes()).hexdigest()[:16]}"
    return None


def describe(path: str | Path, positions: int, fingerprint: str, chunks: int | None = None) -> str:
    """`set NAME (N positions, sha256 X; manifest ...; made by GENOME SHA, ...)`:
    `fingerprint` is the trainer's hash of the records it read (from the first `chunks`
    of the folder if given: the manifest then lists more chunks than were read)."""
    parts = [f"{positions} positions" + ("" if chunks is None else f" of chunks 1-{chunks}")
             + f", records {fingerprint}"]
    members = path if isinstance(path, SetList) else [path]
    listed = [m for m in map(manifest, members) if m]
    if listed:
        parts.append("manifest " + ", ".join(listed))
    made = makers(path, chunks)
    parts.append("made by " + ", ".join(made) if made else "maker unrecorded")
    name = path.name if isinstance(path, SetList) else Path(path).name
    return f"set {name} ({'; '.join(parts)})"
