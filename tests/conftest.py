"""Shared test data: the FENs of ../shared/data/perftsuite.epd and openings.epd."""

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _epd_fens(name):
    """The position of each line as a FEN: 6 fields when the line has counters, else 4."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.fail(f"test data {path} is missing (it lives in the shared data directory)")
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
