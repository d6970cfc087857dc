"""What the tests of scripts/ share: running a script as a user would, and a small
labelled set cut from the shipped one."""

import gzip
import importlib.util
import subprocess
import sys
from pathlib import Path

from train_helpers import REPO_ROOT

SCRIPTS = REPO_ROOT / "scripts"
SHIPPED_SET = REPO_ROOT / "genchess" / "data" / "positions.epd.gz"


def run_script(name: str, *args, cwd=None, timeout: int = 600) -> subprocess.CompletedProcess:
    """scripts/NAME (`studies/pawn_worth.py`: the folder too) with these arguments, in
    a fresh interpreter (in `cwd` if given); output captured."""
    return subprocess.run([sys.executable, str(SCRIPTS / name), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def load_script(script) -> object:
    """A script (scripts/NAME as run_script names it, or an absolute path) imported as a
    module, for tests of its functions. It is registered in sys.modules under its stem,
    where dataclasses look their module up."""
    path = Path(script) if Path(script).is_absolute() else SCRIPTS / script
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def small_set(tmp_path, count: int = 2000):
    """The shipped set's first `count` positions (results and mentor scores) as a file."""
    path = tmp_path / "small.epd"
    with gzip.open(SHIPPED_SET, "rt") as f:
        path.write_text("".join(line for _, line in zip(range(count), f)))
    return path
