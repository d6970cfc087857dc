"""Scripts given a wrong file answer in one line that names it, never a traceback."""

import pytest

from script_helpers import run_script


@pytest.mark.parametrize("script, args, message", [
    ("bench/bench_kinds.py", ["--unified", "{junk}"], "junk.genome:1: text outside a genome"),
    ("maintenance/plot_levels.py", ["{tmp}/levels.txt"], "levels.txt: the plot is a PNG file"),
])
def test_a_wrong_file_is_one_line(tmp_path, script, args, message):
    junk = tmp_path / "junk.genome"
    junk.write_text("junk\n")
    done = run_script(script, *(a.format(junk=junk, tmp=tmp_path) for a in args), cwd=tmp_path)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "levels.txt").exists()
