"""Files every layer handles alike: the package's own data, and a file replaced whole.

`package_file` finds what ships inside GenChess (genomes/, data/, the example
configurations) through importlib.resources, the one way, instead of each module
counting parents of its own `__file__`: a module that moves still finds the data.
`write_atomically` replaces a file so that a reader, or a crash at any instant,
sees the old file or the new one whole (a champion, a run's best genome, an
optimiser's state, a position set's fitted K); `AppendFile` adds whole records to
an append-only one (a trainer's run files). Both fail cleanly: a write that
fails (a full disk, a read-only folder) leaves the file as it was (no torn
record, no temporary file) and raises an OSError that names the file, which
console.run_command reports in one line. Every byte goes through `write_some`.

Trade-off: package_file gives a real `Path`, which the callers need (they print
it, pass it to the engine, compare it), so GenChess must be installed as files,
as it always is (an editable install or a wheel unpacked by pip), not run from a
zip archive.
"""

from __future__ import annotations

import contextlib
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


def display_path(path: str | os.PathLike) -> str:
    """How a file is named in what GenChess records (a PGN's Opening tag, a position
    set's sidecar): a file shipped in the package by its place there
    (`genchess/data/openings.epd:12` reads the same from every clone and install),
    any other file relative to the working directory, so that no record carries the
    folders of the machine that made it."""
    text = os.fspath(path)
    absolute = os.path.abspath(text)
    package = os.path.abspath(str(package_file()))
    try:
        if os.path.commonpath([absolute, package]) == package:
            return "genchess/" + Path(os.path.relpath(absolute, package)).as_posix()
        return Path(os.path.relpath(absolute)).as_posix() if os.path.isabs(text) else Path(text).as_posix()
    except ValueError:                  # another drive (Windows): no relative path exists
        return text


def write_some(fd: int, data) -> int:
    """os.write: how GenChess writes its files' bytes (a test's full disk replaces it)."""
    return os.write(fd, data)


def open_for_writing(path: Path, flags: int) -> int:
    """os.open for writing, as a new file gets it from open() (a test's read-only
    folder replaces it)."""
    return os.open(path, os.O_WRONLY | flags, 0o666)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[write_some(fd, view):]


def _naming(error: OSError, path: Path) -> OSError:
    """`error` naming `path`, the file the user knows, not a temporary one."""
    return type(error)(error.errno, error.strerror or str(error), str(path))


def write_atomically(path: Path, data: str | bytes) -> None:
    """Replace `path` by `data` (text is written as UTF-8) so that a reader (or a
    crash) sees the old file or the new one, whole; OSError naming `path` if it
    cannot be written, the old file untouched."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        fd = open_for_writing(temporary, os.O_CREAT | os.O_TRUNC)
    except OSError as e:
        raise _naming(e, path) from None
    try:
        try:
            _write_all(fd, data.encode("utf-8") if isinstance(data, str) else data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise _naming(e, path) from None
    try:
        directory = os.open(path.parent or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)                 # the rename itself survives a power cut
    finally:
        os.close(directory)


class AppendFile:
    """An append-only file to which each record is added whole with one call, or
    not at all: a write cut short (a full disk) is cut off again, and the OSError
    names the file. Unbuffered: a record is on its way to the disk when write()
    returns, as a flush() after each would put it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd = open_for_writing(self.path, os.O_CREAT | os.O_APPEND)

    def write(self, text: str | bytes) -> None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        end = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            _write_all(self.fd, data)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, end)
            raise _naming(e, self.path) from None

    def tell(self) -> int:
        return os.lseek(self.fd, 0, os.SEEK_END)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "AppendFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def append_record(path: Path, text: str) -> None:
    """Add one record to an append-only file, whole or not at all (AppendFile)."""
    with AppendFile(path) as f:
        f.write(text)
