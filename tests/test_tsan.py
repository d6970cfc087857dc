"""ThreadSanitizer over the threaded search, in the suite: no data race between the
search threads but those scripts/dev/tsan.supp judges benign, each with its reason.

Slow (`pytest -m slow`): the core is built again with GENCHESS_TSAN=1 in a copy of
the sources (about 5 minutes on one core), then scripts/dev/tsan_check.py runs the
bench on two threads and a protocol storm under it. GENCHESS_TSAN_BUILD=DIR uses a
checkout already built so instead (docs/building.md). The control: with no
suppressions the same check reports the benign race it otherwise suppresses, so
ThreadSanitizer is really watching.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TSAN_CHECK = REPO / "scripts" / "dev" / "tsan_check.py"
SOURCES = ("setup.py", "pyproject.toml", "README.md", "genchess", "genchess_core")

pytestmark = pytest.mark.slow


def _libtsan() -> str | None:
    if not sys.platform.startswith("linux") or not shutil.which("gcc"):
        return None
    path = subprocess.run(["gcc", "-print-file-name=libtsan.so"], capture_output=True, text=True).stdout.strip()
    return path if path and Path(path).is_file() else None


@pytest.fixture(scope="module")
def tsan_build(tmp_path_factory) -> Path:
    if os.environ.get("GENCHESS_TSAN_BUILD"):
        return Path(os.environ["GENCHESS_TSAN_BUILD"])
    if _libtsan() is None:
        pytest.skip("needs Linux and gcc's ThreadSanitizer runtime (libtsan.so)")
    folder = tmp_path_factory.mktemp("tsan-build")
    listed = subprocess.run(["git", "ls-files", *SOURCES], cwd=REPO, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("copies the sources by git ls-files: not a git checkout")
    for name in listed.stdout.splitlines():
        if name.endswith(".epd.gz") or not (REPO / name).is_file():
            continue                    # (the position set: not read by bench or uci)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, folder / name)
    built = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"], cwd=folder,
                           env={**os.environ, "GENCHESS_TSAN": "1"}, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return folder


def tsan_check(build: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TSAN_CHECK), str(build), *args], capture_output=True,
                          text=True, timeout=900)


def test_no_race_but_those_judged_benign(tsan_build):
    done = tsan_check(tsan_build, "--depth", "5", "--storm-seconds", "10")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "== ThreadSanitizer: 0 reports" in done.stdout and " 0 failures" in done.stdout, done.stdout


def test_without_suppressions_the_check_reports_a_race(tsan_build, tmp_path):
    none = tmp_path / "none.supp"
    none.write_text("")
    done = tsan_check(tsan_build, "--depth", "5", "--storm-seconds", "0", "--suppressions", str(none))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SUMMARY: ThreadSanitizer: data race" in done.stdout, done.stdout
