"""The packages depend in one direction: parallel <- strength <- train <- the command layer.

`genchess/parallel/` (executors, the game job) is what measuring and evolving both
stand on, so it may import neither; `genchess/strength/` measures and may not
import the trainers; and nothing below the command layer imports the trainers
(`genchess/train/`): not the genomes (which read the trainers' run files
themselves), the engine, the protocols and their options, the players, the
position sets, the position fitness. The protocols (`genchess/protocols/`) drive
the engine facade and import nothing that plays games; one game (`genchess/game/`:
its loop, adjudication, PGN) stands below everything that plays games. Only the
command layer (`genchess/cli.py`, `genchess/plot.py`, the console scripts)
dispatches into the trainers.

Position sets are two layers in one package: reading and writing a set (EPD, the
packed form, the set in memory) stands below the fitness and imports nothing that
plays games; making a set plays them (the game workers, Stockfish) but still stands
below measuring, taking its openings and its engine processes from genchess.game as
the matches do. The fitness scores genomes on a set and neither measures nor makes
sets. The optimisers (`genchess/optimise/`) stand below
the trainers and beside the fitness: they know vectors and scores, not positions,
games or runs. Checked twice: every import statement in the source (including the
lazy ones inside functions), and what importing each module really loads in a fresh
interpreter (so an indirect path counts too).

Below everything, `genchess_core` (the Cython hot path) imports nothing of
`genchess`; beside everything, `scripts/` use GenChess and GenChess never uses
them (nor the tests).
"""

from __future__ import annotations

import ast
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import genchess

PACKAGE_DIR = Path(genchess.__file__).resolve().parent
REPOSITORY = Path(__file__).resolve().parents[1]   # (CI installs the package: scripts/ are only here)

# package or module -> packages it must never import, directly or through another module
FORBIDDEN = {
    "genchess.parallel": ("genchess.train", "genchess.strength"),
    "genchess.strength": ("genchess.train",),
    "genchess.genome": ("genchess.train",),
    "genchess.fitness": ("genchess.train", "genchess.strength", "genchess.position_sets.making",
                         "genchess.position_sets.run", "genchess.position_sets.cli"),
    # Making a set plays games but stands below measuring: the openings and the external
    # engines' processes it shares with the matches are genchess.game's.
    "genchess.position_sets": ("genchess.train", "genchess.strength"),
    "genchess.optimise": ("genchess.train", "genchess.strength", "genchess.parallel", "genchess.fitness",
                          "genchess.position_sets", "genchess.genome"),
    **{f"genchess.position_sets.{reading}": ("genchess.train", "genchess.strength", "genchess.parallel",
                                            "genchess.fitness", "genchess.position_sets.making",
                                            "genchess.position_sets.run")
       for reading in ("epd", "packed", "position_set", "records", "provenance")},
    "genchess.players": ("genchess.train",),
    "genchess.engine": ("genchess.train",),
    # The protocols drive the engine facade and nothing that plays or measures many
    # games: `genchess uci` loads what a GUI needs and no more.
    "genchess.protocols": ("genchess.train", "genchess.strength", "genchess.parallel", "genchess.game",
                           "genchess.position_sets", "genchess.fitness", "genchess.optimise",
                           "genchess.lab"),
    # One game (its loop, adjudication, PGN) stands below everything that plays games.
    "genchess.game": ("genchess.train", "genchess.strength", "genchess.parallel", "genchess.protocols",
                      "genchess.position_sets", "genchess.fitness", "genchess.optimise", "genchess.lab"),
    # Small modules every layer uses: the package's files, the console, the drawing.
    "genchess.files": ("genchess.train", "genchess.strength", "genchess.parallel"),
    "genchess.console": ("genchess.train", "genchess.strength", "genchess.parallel"),
    "genchess.drawing": ("genchess.train", "genchess.strength", "genchess.parallel"),
}


def modules_of(name: str) -> list[str]:
    """A package's modules (itself first), or a lone module."""
    path = PACKAGE_DIR / name.split(".", 1)[1]
    if not path.is_dir():
        return [name]
    return [name] + [f"{name}.{m.name}" for m in pkgutil.iter_modules([str(path)])]


def source_of(module: str) -> tuple[str, str]:
    """(source text, the package its relative imports start from) of a module."""
    relative = module.partition(".")[2].replace(".", "/")
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


def test_a_lazy_import_of_the_trainers_in_a_module_is_seen():
    # genchess/protocols/options.py once reached the trainers through a lazy import inside a
    # method (for the Genome option); that, or its relative spelling, fails the check.
    text, package = source_of("genchess.protocols.options")
    assert package == "genchess.protocols"
    source = text + ("\n\ndef set_genome_again(path):\n"
                     "    from genchess.train.registry import method\n"
                     "    from ..train import scaffold\n")
    bad = sorted(n for n in imported_names(source, package)
                 if breaks(n, FORBIDDEN["genchess.protocols"]))
    assert bad == ["genchess.train", "genchess.train.registry", "genchess.train.registry.method",
                   "genchess.train.scaffold"]
    assert not [n for n in imported_names(text, package) if breaks(n, FORBIDDEN["genchess.protocols"])]


def all_modules() -> list[str]:
    names = []
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, through any chain (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_no_two_modules_import_each_other():
    # A circle (config <-> registry, genes <-> kinds once) works only through a lazy
    # import, and then the order modules load in decides whether it breaks. A
    # package's own __init__ is left out: its modules import it to be found at all.
    modules = set(all_modules())
    graph = {m: {n for n in imported_names(*source_of(m)) if n in modules and n != m
                 and not m.startswith(n + ".")} for m in modules}
    assert import_cycles(graph) == []


def test_the_cycle_check_finds_a_circle_through_a_third_module():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


# ------------------------------------------------------------ genchess_core and scripts/

CORE_DIR = REPOSITORY / "genchess_core"
SCRIPTS_DIR = REPOSITORY / "scripts"
# An import of the Python layer in Cython or Python source: `import genchess`,
# `from genchess.x import`, `cimport genchess...` (genchess_core's own names do not
# match: the package name must end where `genchess` does).
GENCHESS_IMPORT = re.compile(r"^\s*(?:from\s+genchess(?:\.\S+)?\s+c?import|c?import\s+genchess(?:\.|\s|,|$))",
                             re.MULTILINE)


def core_sources() -> list[Path]:
    return sorted(p for p in CORE_DIR.iterdir() if p.suffix in (".pyx", ".pxd", ".pxi", ".py"))


def test_genchess_core_imports_nothing_of_genchess():
    # The hot path is what everything stands on: an import of the Python layer from
    # Cython would be a circle through the whole package (and Python objects near
    # the per-node code).
    sources = core_sources()
    assert any(p.suffix == ".pyx" for p in sources) and any(p.suffix == ".pxd" for p in sources)
    bad = [f"{p.name}: {m.group(0).strip()}" for p in sources
           for m in GENCHESS_IMPORT.finditer(p.read_text(encoding="utf-8"))]
    assert not bad, bad


def test_the_core_check_sees_every_spelling():
    source = ("from genchess.genome import Genome\n"
              "    import genchess.files\n"
              "import genchess\n"
              "from genchess cimport something\n"
              "from genchess_core.position cimport Position\n"
              "import genchess_core.board\n")
    assert [m.group(0).strip() for m in GENCHESS_IMPORT.finditer(source)] == [
        "from genchess.genome import", "import genchess.", "import genchess", "from genchess cimport"]


def test_genchess_never_imports_the_scripts_or_the_tests():
    # scripts/ are tools beside the product: they import genchess, never the reverse
    # (a clone's installed GenChess has no scripts/ beside it).
    scripts = [p for p in SCRIPTS_DIR.rglob("*.py")]
    assert any("genchess" in n for p in scripts
               for n in imported_names(p.read_text(encoding="utf-8"), "scripts"))
    for module in all_modules():
        bad = sorted(n for n in imported_names(*source_of(module))
                     if breaks(n, ("scripts", "tests", "conftest")))
        assert not bad, f"{module} imports {bad}"
    for path in core_sources():
        if path.suffix == ".py":
            bad = sorted(n for n in imported_names(path.read_text(encoding="utf-8"), "genchess_core")
                         if breaks(n, ("scripts", "tests")))
            assert not bad, f"{path.name} imports {bad}"
