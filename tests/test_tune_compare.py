"""scripts/studies/tune_compare.py: tune runs of the same numbers side by side, in steps,
by games played."""

import json

import pytest

from script_helpers import load_script, run_script

SCRIPT = "studies/tune_compare.py"
NAMES = ["rfp_margin", "iir_min_depth"]       # steps 8 and 1 in the registry
START = [90, 4]


def write_run(path, optimiser, thetas, games_each, names=NAMES, start=START):
    lines = [{"record": "tune", "optimiser": optimiser, "iterations": len(thetas), "seed": 1,
              "numbers": names, "start": start, "lo": [0, 1], "hi": [400, 10]}]
    for k, theta in enumerate(thetas, 1):
        record = {"iteration": k, "games": ["1-0", "0-1"] * (games_each // 2), "theta": theta}
        if optimiser == "spsa":
            record["result"] = 0
        else:
            record["scores"] = [0] * (games_each // 2)
        lines.append(record)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_two_runs_are_compared_in_steps_by_games_played(tmp_path):
    write_run(tmp_path / "spsa.txt", "spsa", [[94, 4], [98, 3.5]], 2)               # +1 step, -0.5 step
    write_run(tmp_path / "cma.txt", "cma-es", [[74, 6]], 16)                       # -2 steps, +2 steps
    done = run_script(SCRIPT, "spsa.txt", "cma.txt", "--out", "cmp", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / "cmp.md").read_text()
    assert "| `rfp_margin` | 90 | 98.00 (+1.00) | 74.00 (-2.00) |" in table
    assert "| `iir_min_depth` | 4 | 3.50 (-0.50) | 6.00 (+2.00) |" in table
    # rfp_margin's largest move (2 steps) ties iir_min_depth's; the registry's order breaks it
    assert table.index("`rfp_margin`") < table.index("`iir_min_depth`")
    assert "| `spsa.txt` | spsa | 2 | 4 | 1.12 |" in table            # sqrt(1 + 0.25)
    assert "| `cma.txt` | cma-es | 1 | 16 | 2.83 |" in table          # sqrt(4 + 4)
    assert (tmp_path / "cmp.png").read_bytes()[:4] == b"\x89PNG"


def test_the_largest_move_comes_first():
    script = load_script(SCRIPT)
    run = script.TuneRun(script.Path("a.txt"), "spsa", NAMES, [90.0, 4.0], [2], [[91, 7]])
    rows = [line for line in script.table([run]).splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `iir_min_depth`")                 # +3 steps before +0.125


@pytest.mark.parametrize("second, message", [
    (lambda p: write_run(p, "cma-es", [[90, 4]], 16, names=["rfp_margin", "lmp_base"]), "tunes other numbers"),
    (lambda p: write_run(p, "cma-es", [[90, 4]], 16, start=[90, 5]), "starts iir_min_depth elsewhere"),
    (lambda p: p.write_text("ID: 0\n"), "not a tune run's records"),
    (lambda p: write_run(p, "cma-es", [], 16), "no iteration recorded yet"),
])
def test_runs_that_cannot_be_compared_get_one_line(tmp_path, second, message):
    write_run(tmp_path / "a.txt", "spsa", [[94, 4]], 2)
    second(tmp_path / "b.txt")
    done = run_script(SCRIPT, "a.txt", "b.txt", cwd=tmp_path)
    assert done.returncode != 0
    assert message in done.stderr and "b.txt" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "tune-compare.md").exists()
