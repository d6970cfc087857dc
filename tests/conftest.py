"""Test data shipped in the repository (tests/data/perftsuite.epd and
genchess/data/openings.epd) and the protocol tests' engine launcher."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIRS = (REPO_ROOT / "tests" / "data", REPO_ROOT / "genchess" / "data")


def _epd_fens(name):
    """The position of each line as a FEN: 6 fields when the line has counters, else 4."""
    path = next((d / name for d in DATA_DIRS if (d / name).exists()), DATA_DIRS[0] / name)
    if not path.exists():
        pytest.fail(f"test data {path} is missing (it ships in tests/data/ or genchess/data/)")
    fens = []
    for line in path.read_text().splitlines():
        fields = line.split(";")[0].split()
        if not fields:
            continue
        if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
            fens.append(" ".join(fields[:6]))
        else:
            fens.append(" ".join(fields[:4]))
    return fens


@pytest.fixture(scope="session")
def perftsuite_fens():
    return _epd_fens("perftsuite.epd")


@pytest.fixture(scope="session")
def opening_fens():
    return _epd_fens("openings.epd")


@pytest.fixture
def launcher(tmp_path):
    """Starts GenChess and peer engines; fails the test if one left a traceback or died."""
    from engine_helpers import Launcher
    launcher = Launcher(tmp_path)
    yield launcher
    problems = launcher.close()
    assert not problems, "\n".join(problems)
