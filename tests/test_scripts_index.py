"""scripts/README.md is the index of the scripts: every script under scripts/ has its row in
its folder's section, with the command that runs it, and no row names a script that is gone.

A script moved, added or dropped without its row is a tool nobody finds, or a command
that fails; the index is checked here as the docs' links are in test_docs_links.py.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = REPO_ROOT / "scripts"

SECTION = re.compile(r"^## `(\w+)/`")
ROW = re.compile(r"^\| `(\w+\.py)` \|(.*)\|\s*$")


def index_rows(text: str) -> dict[str, str]:
    """folder/name.py -> the rest of its row, for every script row under a `## `folder/`` heading."""
    rows, folder = {}, None
    for line in text.splitlines():
        if heading := SECTION.match(line):
            folder = heading.group(1)
        elif (row := ROW.match(line)) and folder:
            rows[f"{folder}/{row.group(1)}"] = row.group(2)
    return rows


def test_every_script_has_a_row_and_every_row_a_script():
    on_disk = {str(p.relative_to(SCRIPTS)) for p in SCRIPTS.rglob("*.py")}
    assert not [p for p in on_disk if "/" not in p], "a script belongs in a folder by purpose"
    assert set(index_rows((SCRIPTS / "README.md").read_text())) == on_disk


def test_each_rows_command_runs_its_own_script():
    for script, rest in index_rows((SCRIPTS / "README.md").read_text()).items():
        commands = re.findall(r"python (scripts/\S+\.py)", rest)
        assert all(c == f"scripts/{script}" for c in commands), (script, commands)


def test_the_index_reader_sees_folders_rows_and_misses():
    text = ("## `bench/`: speed\n\n| script | what | command |\n|---|---|---|\n"
            "| `a.py` | A | `python scripts/bench/a.py` |\n\n## `dev/`: tools\n\n"
            "| `b.py` | B | `python scripts/bench/b.py` |\n")
    rows = index_rows(text)
    assert set(rows) == {"bench/a.py", "dev/b.py"}
    assert re.findall(r"python (scripts/\S+\.py)", rows["dev/b.py"]) != ["scripts/dev/b.py"]
