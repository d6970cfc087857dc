"""The installed package holds every module of the source tree.

CI installs GenChess without -e (`pip install ".[test]"`), so the tests import the copy in
site-packages. A subpackage the build leaves out (as genchess.optimise once was, when
pyproject.toml listed packages by hand) passes every test in an editable checkout and fails
every import in CI. This test compares the two trees; in an editable checkout they are the
same folder and it holds trivially.
"""

from pathlib import Path

import genchess
import genchess_core

SOURCE = Path(__file__).resolve().parents[1]


def modules_under(root: Path, patterns=("*.py",)):
    """The files matching patterns below root, relative to it."""
    return {path.relative_to(root) for pattern in patterns for path in root.rglob(pattern)
            if "__pycache__" not in path.parts}


def test_every_python_module_of_the_source_is_installed():
    source = modules_under(SOURCE / "genchess")
    installed = modules_under(Path(genchess.__file__).resolve().parent)
    assert len(source) > 50, "the source tree was not found beside the tests"
    missing = sorted(str(path) for path in source - installed)
    assert not missing, f"modules left out of the installed package: {missing}"


def test_every_subpackage_is_importable_from_the_installed_package():
    import importlib
    for init in sorted((SOURCE / "genchess").rglob("__init__.py")):
        name = ".".join(init.parent.relative_to(SOURCE).parts)
        importlib.import_module(name)


def test_the_cython_sources_and_package_data_are_installed():
    core = modules_under(SOURCE / "genchess_core", ("*.pyx", "*.pxd", "*.h"))
    installed_core = modules_under(Path(genchess_core.__file__).resolve().parent,
                                   ("*.pyx", "*.pxd", "*.h"))
    assert not sorted(map(str, core - installed_core))
    installed = Path(genchess.__file__).resolve().parent
    for folder, pattern in (("genomes", "*.genome"), ("lab/static", "*")):
        expected = {p.name for p in (SOURCE / "genchess" / folder).glob(pattern)}
        assert expected, f"genchess/{folder} is empty in the source"
        assert expected <= {p.name for p in (installed / folder).glob(pattern)}, folder
