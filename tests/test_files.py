"""genchess.files: the package's data found one way, and a file replaced whole."""

from __future__ import annotations

import re
from pathlib import Path

import genchess
from genchess.files import package_file, write_atomically

PACKAGE_DIR = Path(genchess.__file__).resolve().parent


def test_package_file_finds_what_ships():
    assert package_file("data", "openings.epd").is_file()
    assert package_file("genomes", "unified.genome").is_file()
    assert package_file("genomes") == PACKAGE_DIR / "genomes"


def test_no_module_counts_parents_of_its_own_file_to_find_the_data():
    # One way to find the package's data (importlib.resources, package_file): a
    # module that moves to another folder must not lose it.
    counting = re.compile(r"__file__\)\.resolve\(\)\.(parent|parents\[)")
    found = [str(p.relative_to(PACKAGE_DIR)) for p in PACKAGE_DIR.rglob("*.py")
             if counting.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_write_atomically_replaces_the_whole_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "champion.genome"
    path.write_text("old\n" * 100)
    write_atomically(path, "new\n")
    assert path.read_text() == "new\n"
    write_atomically(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    assert [p.name for p in tmp_path.iterdir()] == ["champion.genome"]
