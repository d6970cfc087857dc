"""No committed file carries a path of the machine that made it, and what GenChess
writes now carries none: a PGN's Opening tag names the shipped openings by their
place in the package and another file relative to where the command ran.

Paths under the folders below are where a machine kept a clone, a venv or a
scratch run; a reader of the repository has none of them. A file is scanned as
text (a `.gz` one decompressed); a binary one (a NUL in its first bytes: packed
position sets, numpy states) holds no paths to scan.
"""

import gzip
import re
import subprocess
from pathlib import Path

import pytest

from engine_helpers import genchess_command

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("work", "root", "home", "tmp")
# Built from FOLDERS so that this file holds no such path itself.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:" + "|".join(FOLDERS) + r")/[^\s\"']*")


def _text(path: Path) -> str | None:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        if b"\0" in f.read(4096):
            return None
        f.seek(0)
        return f.read().decode("utf-8", "replace")


def test_no_tracked_file_carries_a_machine_path():
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if names.returncode != 0:
        pytest.skip("not a git checkout")
    found = []
    for name in names.stdout.splitlines():
        path = REPO / name
        if not path.is_file():           # deleted in the work tree, not yet committed
            continue
        text = _text(path)
        if text is not None and (match := MACHINE_PATH.search(text)):
            found.append(f"{name}: {match.group(0)}")
    assert not found, ("machine paths (rewrite PGNs and sidecars with "
                       "scripts/dev/strip_machine_paths.py):\n" + "\n".join(found))


def test_the_pattern_finds_what_it_is_for():
    """The scan above can fail: each folder is found, a relative or URL path is not."""
    for folder in FOLDERS:
        assert MACHINE_PATH.search(f'[Opening "/{folder}/me/genchess/data/openings.epd:3"]')
    for fine in ("scripts/tmp/x", "https://example.org/home/page", "genchess/data/openings.epd:3"):
        assert not MACHINE_PATH.search(fine), fine


def test_a_new_match_pgn_names_its_openings_without_machine_paths(tmp_path):
    own = tmp_path / "mine" / "openings.epd"
    own.parent.mkdir()
    own.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    tags = {}
    for label, extra in (("shipped", ()), ("own", ("--openings", str(own)))):
        pgn = tmp_path / f"{label}.pgn"
        argv, env = genchess_command("match", "genchess", "genchess", "--games", "2", "--tc", "depth=1",
                                     "--concurrency", "1", "--pgn", str(pgn), *extra)
        done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        tags[label] = re.findall(r'\[Opening "([^"]*)"\]', pgn.read_text())
    assert len(tags["shipped"]) == 2 and all(re.fullmatch(r"genchess/data/openings\.epd:\d+", t)
                                             for t in tags["shipped"]), tags
    assert tags["own"] == ["mine/openings.epd:1"] * 2, tags


def test_a_sidecar_names_its_files_without_machine_paths(tmp_path, monkeypatch):
    """What `genchess positions` writes in a set's sidecar: the command with an absolute
    path as display_path writes it, the shipped openings by their package name from
    any install."""
    from genchess.files import display_path, package_file
    from genchess.position_sets.run import SHIPPED_OPENINGS, command_text, shipped_openings_name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sets").mkdir()
    out, genome = tmp_path / "sets" / "mine.epd.gz", package_file("genomes", "unified.genome")
    assert command_text(["positions", "--games", "10", "-o", str(out), f"--genome={genome}"]) == \
        "genchess positions --games 10 -o sets/mine.epd.gz --genome=genchess/genomes/unified.genome"
    assert display_path(package_file("data", "openings.epd")) == SHIPPED_OPENINGS
    assert shipped_openings_name("/opt/venv/lib/python3.11/site-packages/" + SHIPPED_OPENINGS) == SHIPPED_OPENINGS
    assert shipped_openings_name(str(tmp_path / "sets" / "own.epd")) == "sets/own.epd"
    assert not MACHINE_PATH.search(command_text(["positions", "-o", str(out)]))
