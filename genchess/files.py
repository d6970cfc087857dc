"""Files every layer handles alike: the package's own data, and a file replaced whole.

`package_file` finds what ships inside GenChess (genomes/, data/, the example
configurations) through importlib.resources, the one way, instead of each module
counting parents of its own `__file__`: a module that moves still finds the data.
`write_atomically` replaces a file so that a reader, or a crash at any instant,
sees the old file or the new one whole (a champion, a run's best genome, an
optimiser's state, a position set's fitted K).

Trade-off: package_file gives a real `Path`, which the callers need (they print
it, pass it to the engine, compare it), so GenChess must be installed as files,
as it always is (an editable install or a wheel unpacked by pip), not run from a
zip archive.
"""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path


def package_file(*parts: str) -> Path:
    """The path of a file (or folder) shipped in the genchess package, e.g.
    package_file("data", "openings.epd")."""
    place = importlib.resources.files("genchess")
    for part in parts:
        place = place / part
    return Path(str(place))


def write_atomically(path: Path, data: str | bytes) -> None:
    """Replace `path` by `data` (text is written as UTF-8) so that a reader (or a
    crash) sees the old file or the new one, whole."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    try:
        directory = os.open(path.parent or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)                 # the rename itself survives a power cut
    finally:
        os.close(directory)
