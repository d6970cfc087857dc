"""The packages depend in one direction: parallel <- strength <- train <- the command layer.

`genchess/parallel/` (executors, the game job) is what measuring and evolving both
stand on, so it may import neither; `genchess/strength/` measures and may not
import the trainers; and nothing below the command layer imports the trainers
(`genchess/train/`): not the genomes (which read the trainers' run files
themselves), the engine, the protocols and their options, the players, the
position fitness. Only the command layer (`genchess/cli.py`, `genchess/plot.py`,
the console scripts) dispatches into the trainers. Checked twice: every import
statement in the source (including the lazy ones inside functions), and what
importing each module really loads in a fresh interpreter (so an indirect path
counts too).
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import genchess

PACKAGE_DIR = Path(genchess.__file__).resolve().parent

# package or module -> packages it must never import, directly or through another module
FORBIDDEN = {
    "genchess.parallel": ("genchess.train", "genchess.strength"),
    "genchess.strength": ("genchess.train",),
    "genchess.genome": ("genchess.train",),
    "genchess.fitness": ("genchess.train",),
    "genchess.players": ("genchess.train",),
    "genchess.engine": ("genchess.train",),
    "genchess.options": ("genchess.train",),
    "genchess.uci": ("genchess.train",),
    "genchess.xboard": ("genchess.train",),
}


def modules_of(name: str) -> list[str]:
    """A package's modules (itself first), or a lone module."""
    path = PACKAGE_DIR / name.split(".", 1)[1]
    if not path.is_dir():
        return [name]
    return [name] + [f"{name}.{m.name}" for m in pkgutil.iter_modules([str(path)])]


def source_of(module: str) -> tuple[str, str]:
    """(source text, the package its relative imports start from) of a module."""
    relative = module.split(".", 1)[1].replace(".", "/")
    path = PACKAGE_DIR / relative / "__init__.py"
    if not path.exists():
        path = PACKAGE_DIR / f"{relative}.py"
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    return path.read_text(encoding="utf-8"), package


def imported_names(source: str, package: str) -> set[str]:
    """Every module an import statement in `source` names, made absolute."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def breaks(name: str, forbidden: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_statement_points_up(package):
    for module in modules_of(package):
        bad = sorted(n for n in imported_names(*source_of(module)) if breaks(n, FORBIDDEN[package]))
        assert not bad, f"{module} imports {bad}"


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_importing_loads_nothing_above(package, tmp_path):
    modules = modules_of(package)
    code = ("import importlib, sys\n"
            f"for m in {modules!r}:\n"
            "    importlib.import_module(m)\n"
            "print('\\n'.join(sorted(sys.modules)))\n")
    # Run outside the repository: a clone's source tree (without the built core) on
    # sys.path would shadow the installed GenChess.
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=tmp_path).stdout.split()
    bad = [n for n in loaded if breaks(n, FORBIDDEN[package])]
    assert not bad, f"importing {package} loads {bad}"


def test_the_check_sees_every_spelling_of_an_upward_import():
    # The checks above must be able to fail: lazy, relative and plain imports that
    # point up are all seen; a name that only starts alike is not.
    source = ("import genchess.strength.stats\n"
              "def f():\n"
              "    from ..train import config\n"
              "from . import worker\n"
              "import genchess.trainers_notes\n")
    names = imported_names(source, "genchess.parallel")
    bad = sorted(n for n in names if breaks(n, FORBIDDEN["genchess.parallel"]))
    assert bad == ["genchess.strength.stats", "genchess.train", "genchess.train.config"]
    assert "genchess.parallel.worker" in names


def test_a_lazy_import_of_the_trainers_in_a_lone_module_is_seen():
    # genchess/options.py once reached the trainers through a lazy import inside a
    # method (for the Genome option); that, or its relative spelling, fails the check.
    text, package = source_of("genchess.options")
    assert package == "genchess"
    source = text + ("\n\ndef set_genome_again(path):\n"
                     "    from genchess.train.registry import method\n"
                     "    from .train import scaffold\n")
    bad = sorted(n for n in imported_names(source, package)
                 if breaks(n, FORBIDDEN["genchess.options"]))
    assert bad == ["genchess.train", "genchess.train.registry", "genchess.train.registry.method",
                   "genchess.train.scaffold"]
    assert not [n for n in imported_names(text, package) if breaks(n, FORBIDDEN["genchess.options"])]
