"""A full disk and a read-only run folder: one clear line, and the files as they were.

The faults are fakes at the one place GenChess writes its files' bytes and opens
them for writing (genchess.files.write_some, open_for_writing), limited to the
run's folder: a disk that fills up in the middle of a write (half the record
written, then ENOSPC), and a folder where nothing can be opened for writing
(EROFS). The real fault is tried too: a folder chmod 0o555, or as root (whom
chmod does not stop) a read-only bind mount in a private mount namespace. Each trainer's files are checked the way a user meets
the fault: exit status 2, one line on stderr that names the file and the
problem, no traceback, and every file byte for byte as it was before the write
that failed (no torn record, no temporary file left).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import genchess.files as files
from genchess import cli as genchess_cli
from genchess.train import cli as train_cli
from test_evolve import labelled_set  # noqa: F401 (the set evolve tunes on, a fixture)
from train_helpers import config_text, train_command, write_config

REAL_WRITE = files.write_some
REAL_OPEN = files.open_for_writing

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="tells the run folder's files by /proc/self/fd (Linux)")


def _path_of(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def without_temporaries(files_: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files_.items() if not name.endswith(".tmp")}


class FullDisk:
    """write_some on a disk that fills up at the `fail_at`-th write into `folder`:
    that write stores half its bytes, the rest and every later write in the folder
    fail with ENOSPC. `before` is the folder as it was when that write began."""

    def __init__(self, folder: Path, fail_at: int, only: str = ""):
        self.folder, self.fail_at = str(folder.resolve()), fail_at
        self.root = folder
        self.only = only                # count only writes into files whose name has this
        self.calls = 0
        self.full = False
        self.before: dict[str, bytes] | None = None

    def __call__(self, fd: int, data) -> int:
        if not _path_of(fd).startswith(self.folder + os.sep):
            return REAL_WRITE(fd, data)
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        if self.only not in os.path.basename(_path_of(fd)):
            return REAL_WRITE(fd, data)
        self.calls += 1
        if self.calls < self.fail_at:
            return REAL_WRITE(fd, data)
        self.before = contents(self.root)
        self.full = True
        half = len(data) // 2
        if half == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return REAL_WRITE(fd, bytes(data[:half]))


class ReadOnlyFolder:
    """open_for_writing in a folder mounted read-only: EROFS for every file in it."""

    def __init__(self, folder: Path):
        self.folder = str(folder.resolve())
        self.refused: list[str] = []

    def __call__(self, path, flags: int) -> int:
        if str(Path(path).resolve()).startswith(self.folder + os.sep):
            self.refused.append(str(path))
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return REAL_OPEN(path, flags)


def one_line(capsys, status: int, prog: str, problem: str) -> str:
    """The command's one line about the fault; checks how the command failed."""
    return one_line_of(capsys.readouterr().err, status, prog, problem)


def one_line_of(err: str, status: int, prog: str, problem: str) -> str:
    """one_line for a command run as a process: its stderr and exit status."""
    assert status == 2, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    match = re.fullmatch(rf"{re.escape(prog)}: (\S+): {re.escape(problem)}", line)
    assert match, line
    return match.group(1)


# ------------------------------------------------------------------ the two writers

@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_a_record_that_does_not_fit_is_cut_off_again_and_names_the_file(tmp_path, monkeypatch, fail_at):
    path = tmp_path / "records.txt"
    disk = FullDisk(tmp_path, fail_at)
    monkeypatch.setattr(files, "write_some", disk)
    with files.AppendFile(path) as out, pytest.raises(OSError) as raised:
        for n in range(5):
            out.write(f"record {n}: {'x' * 40}\n")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(path)
    assert contents(tmp_path) == disk.before
    assert path.read_text() == "".join(f"record {n}: {'x' * 40}\n" for n in range(fail_at - 1))


def test_a_file_replaced_whole_stays_the_old_one_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "state.pickle"
    files.write_atomically(path, b"old state")
    disk = FullDisk(tmp_path, 1)
    monkeypatch.setattr(files, "write_some", disk)
    with pytest.raises(OSError) as raised:
        files.write_atomically(path, b"new state, longer than the old one")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(path)
    assert contents(tmp_path) == {"state.pickle": b"old state"}
    monkeypatch.setattr(files, "write_some", REAL_WRITE)
    monkeypatch.setattr(files, "open_for_writing", ReadOnlyFolder(tmp_path))
    with pytest.raises(OSError) as raised:
        files.write_atomically(path, b"new state")
    assert raised.value.errno == errno.EROFS and raised.value.filename == str(path)
    with pytest.raises(OSError) as raised:
        files.append_record(tmp_path / "history.txt", "promotion 1\n")
    assert raised.value.filename == str(tmp_path / "history.txt")
    assert contents(tmp_path) == {"state.pickle": b"old state"}


# ------------------------------------------------------------------ the trainers

def gene_pool_config(folder: Path) -> Path:
    return write_config(folder / "run.cfg", time_limit="60 seconds", run_file=str(folder / "pool.txt"))


def evolve_config(folder: Path, labelled_set: Path, generations: int = 6, **changes) -> Path:
    base = {"method": "evolve", "run file": str(folder / "run.txt"), "positions": str(labelled_set),
            "kind": "material", "generations": str(generations), "seed": "5", "workers": "1",
            "output volume": "quiet"}
    path = folder / "run.cfg"
    path.write_text(config_text(base, **changes))
    return path


def tune_config(folder: Path) -> Path:
    base = {"method": "tune", "run file": str(folder / "run.txt"), "tune": "rfp_margin, lmr_base",
            "iterations": "4", "nodes": "120", "seed": "7", "workers": "1", "output volume": "quiet"}
    path = folder / "run.cfg"
    path.write_text(config_text(base))
    return path


def run_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("trainer, fail_at", [("gene pool", 1), ("gene pool", 4),
                                              ("evolve", 1), ("evolve", 2), ("evolve", 5), ("evolve", 9),
                                              ("tune", 1), ("tune", 3), ("tune", 6)])
def test_a_trainer_on_a_full_disk_says_which_file_in_one_line_and_leaves_its_files(
        tmp_path, monkeypatch, capsys, labelled_set, trainer, fail_at):
    folder = run_folder(tmp_path)
    monkeypatch.chdir(folder)
    cfg = {"gene pool": gene_pool_config, "tune": tune_config,
           "evolve": lambda f: evolve_config(f, labelled_set)}[trainer](folder)
    disk = FullDisk(folder, fail_at)
    monkeypatch.setattr(files, "write_some", disk)
    status = train_cli.main([str(cfg)])
    assert disk.before is not None, f"the run made fewer than {fail_at} writes"
    named = one_line(capsys, status, "genchess-train", "No space left on device")
    assert Path(named).parent == folder and not named.endswith(".tmp")
    after = contents(folder)
    assert after == without_temporaries(disk.before)


def test_a_champion_that_cannot_be_written_stops_the_run_with_its_files_as_they_were(
        tmp_path, monkeypatch, capsys):
    folder = run_folder(tmp_path)
    monkeypatch.chdir(folder)
    cfg = write_config(folder / "run.cfg", time_limit="60 seconds", champion_interval=2,
                       run_file=str(folder / "pool.txt"))
    disk = FullDisk(folder, 1, only="_champion")
    monkeypatch.setattr(files, "write_some", disk)
    status = train_cli.main([str(cfg)])
    assert disk.before is not None, "no champion was written"
    named = one_line(capsys, status, "genchess-train", "No space left on device")
    assert Path(named) == folder / "pool.txt_champion.genome"
    assert contents(folder) == without_temporaries(disk.before)


def test_positions_on_a_full_disk_say_which_file_and_resume_from_what_is_kept(
        tmp_path, monkeypatch, capsys):
    folder = run_folder(tmp_path)
    out = folder / "set.epd"
    play = ["positions", "--play", "genchess", "--games", "4", "--nodes", "300", "--workers", "1",
            "-o", str(out)]
    disk = FullDisk(folder, 4)
    monkeypatch.setattr(files, "write_some", disk)
    status = genchess_cli.main(play)
    named = one_line(capsys, status, "genchess positions", "No space left on device")
    assert Path(named).parent == folder
    assert contents(folder) == without_temporaries(disk.before)
    monkeypatch.setattr(files, "write_some", REAL_WRITE)
    assert genchess_cli.main(play + ["--resume"]) == 0
    capsys.readouterr()
    whole = tmp_path / "whole"
    whole.mkdir()
    assert genchess_cli.main(play[:-1] + [str(whole / "set.epd")]) == 0
    assert out.read_bytes() == (whole / "set.epd").read_bytes()


@pytest.mark.parametrize("trainer", ["gene pool", "evolve", "tune"])
def test_a_trainer_in_a_read_only_folder_says_so_in_one_line_and_writes_nothing(
        tmp_path, monkeypatch, capsys, labelled_set, trainer):
    folder = run_folder(tmp_path)
    monkeypatch.chdir(folder)
    cfg = {"gene pool": gene_pool_config, "tune": tune_config,
           "evolve": lambda f: evolve_config(f, labelled_set)}[trainer](folder)
    before = contents(folder)
    monkeypatch.setattr(files, "open_for_writing", ReadOnlyFolder(folder))
    named = one_line(capsys, train_cli.main([str(cfg)]), "genchess-train", "Read-only file system")
    assert Path(named).parent == folder
    assert contents(folder) == before


def test_resuming_a_run_in_a_folder_made_read_only_leaves_every_file_as_it_was(
        tmp_path, monkeypatch, capsys, labelled_set):
    folder = run_folder(tmp_path)
    assert train_cli.main([str(evolve_config(folder, labelled_set, generations=3))]) == 0
    capsys.readouterr()
    before = contents(folder)
    assert {"run.txt", "run.txt_state.pickle"} <= set(before), sorted(before)
    monkeypatch.setattr(files, "open_for_writing", ReadOnlyFolder(folder))
    cfg = evolve_config(folder, labelled_set, generations=6)
    before = contents(folder)
    named = one_line(capsys, train_cli.main([str(cfg)]), "genchess-train", "Read-only file system")
    assert Path(named).parent == folder
    assert contents(folder) == before


# Run in a private mount namespace (root only): the folder bind-mounted on itself and
# made read-only, then the command. Nothing outside the namespace sees the mount.
READ_ONLY_MOUNT = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'


def in_read_only_folder(folder: Path, argv: list[str], env=None) -> subprocess.CompletedProcess:
    """`argv` run with `folder` mounted read-only (unshare -m): what root meets on a
    read-only file system, which chmod cannot show it."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", READ_ONLY_MOUNT,
                           "sh", str(folder), *argv], env=env, capture_output=True, text=True, timeout=300)


def _read_only_mount_works(folder: Path) -> bool:
    if not shutil.which("unshare"):
        return False
    try:
        probe = in_read_only_folder(folder, ["sh", "-c", f'! touch "{folder}/probe"'])
    except OSError:
        return False
    return probe.returncode == 0 and not (folder / "probe").exists()


def test_a_run_folder_that_is_really_read_only_gives_one_line_and_leaves_the_files(
        tmp_path, capsys, labelled_set):
    """The real fault, not the fake: as a user a folder chmod 0o555, as root (whom
    chmod does not stop: CI, containers) a read-only bind mount of it in a private
    mount namespace."""
    folder = run_folder(tmp_path)
    assert train_cli.main([str(evolve_config(folder, labelled_set, generations=3))]) == 0
    cfg = evolve_config(folder, labelled_set, generations=6)
    capsys.readouterr()
    before = contents(folder)
    if os.name == "posix" and os.geteuid() == 0:
        if not _read_only_mount_works(folder):
            pytest.skip("root without a private mount namespace (unshare -m needs CAP_SYS_ADMIN)")
        argv, env = train_command(str(cfg))
        done = in_read_only_folder(folder, argv, env)
        named = one_line_of(done.stderr, done.returncode, "genchess-train", "Read-only file system")
    else:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        try:
            named = one_line(capsys, train_cli.main([str(cfg)]), "genchess-train", "Permission denied")
        finally:
            folder.chmod(0o755)
            for path in folder.iterdir():
                path.chmod(0o644)
    assert Path(named).parent == folder
    assert contents(folder) == before
