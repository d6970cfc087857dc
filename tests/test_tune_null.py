"""scripts/studies/tune_null.py: how far a tune's optimiser moves its numbers when the
games say nothing, beside how far the run moved them."""

import json

import numpy as np
import pytest

from genchess.optimise.spsa import SpsaParameter, SpsaSchedule
from genchess.genome import open_genome
from genchess.train.tune import tuned_numbers

from script_helpers import load_script, run_script
from train_helpers import REPO_ROOT

EXAMPLES = REPO_ROOT / "genchess" / "train" / "examples"

SCRIPT = "studies/tune_null.py"
NAMES = ["rfp_margin", "lmr_divisor"]       # far from their bounds at these run lengths


def write_tune(directory, optimiser="spsa", iterations=200, games=("1-0", "1/2-1/2"),
               moved=0.0, names=NAMES, config_names=NAMES, **settings):
    """A configuration and a run file by hand: `iterations` records whose games repeat
    `games`, the numbers ending `moved` steps above their start."""
    numbers = tuned_numbers(open_genome(None), names, [])
    settings = {"method": "tune", "run file": "run.txt", "tune": ", ".join(config_names),
                "optimiser": optimiser, "iterations": settings.pop("config_iterations", iterations),
                **settings}
    (directory / "run.cfg").write_text("".join(f"{k} = {v}\n" for k, v in settings.items()))
    per_iteration = 2 if optimiser == "spsa" else 2 * int(settings.get("population", 8))
    lines = [{"record": "tune", "optimiser": optimiser, "iterations": iterations, "seed": 1,
              "numbers": names, "start": [n.start for n in numbers],
              "lo": [n.lo for n in numbers], "hi": [n.hi for n in numbers]}]
    for k in range(1, iterations + 1):
        record = {"iteration": k, "games": [games[i % len(games)] for i in range(per_iteration)],
                  "theta": [n.start + moved * n.step for n in numbers]}
        if optimiser == "spsa":
            record["result"] = 0
        else:
            record.update(scores=[0] * (per_iteration // 2), spread=1.0)
        lines.append(record)
    (directory / "run.txt").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return directory / "run.cfg"


def test_spsa_replayed_on_coin_tosses_walks_as_its_schedule_says(tmp_path, monkeypatch):
    """Half White's wins, half draws: a pair's points have mean 0 and variance 2 x 1/4,
    so each number's walk has a standard deviation of sqrt(sum_k (a_k / c_k)^2 x 1/2)
    in its own units: the replays' root mean square must come out at that."""
    monkeypatch.chdir(tmp_path)                     # where the run file is, as a user runs it
    script = load_script(SCRIPT)
    config = write_tune(tmp_path, iterations=200)
    study = script.study(config, repeats=400)
    schedule = SpsaSchedule(200)
    unit = SpsaParameter("x", 0, -1, 1, c_end=1.0)          # c_end of one step: moves in steps
    expected = np.sqrt(sum((schedule.a_k(unit, k) / schedule.c_k(unit, k)) ** 2 for k in range(1, 201)) / 2)
    assert study.typical == pytest.approx([expected, expected], rel=0.15)
    assert study.distance == 0 and (study.as_far() == 1).all()


def test_games_that_always_go_to_white_move_spsa_nowhere(tmp_path, monkeypatch):
    """Each pair then scores 1 - 1: no replay may move a number at all."""
    monkeypatch.chdir(tmp_path)
    script = load_script(SCRIPT)
    study = script.study(write_tune(tmp_path, iterations=50, games=("1-0",)), repeats=5)
    assert not study.null_moves.any()


def test_a_population_run_beside_chance_table_and_picture(tmp_path):
    config = write_tune(tmp_path, optimiser="cma-es", iterations=12, moved=3.0, population=4)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = run_script(SCRIPT, config.name, "--repeats", "20", "--out", "null", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / "null.md").read_text()
    assert "## `run.txt` (cma-es, 12 iterations, 96 games)" in table
    assert "| `rfp_margin` | +3.00 |" in table and "| `lmr_divisor` | +3.00 |" in table
    assert "Distance from the start: **4.24** steps" in table          # sqrt(9 + 9)
    assert "Spread at the end: 1.00 steps" in table
    assert (tmp_path / "null.png").read_bytes()[:4] == b"\x89PNG"
    # the replays read the run and write nothing of it; the same command says the same
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before} == before
    assert set(p.name for p in tmp_path.iterdir()) == set(before) | {"null.md", "null.png"}
    again = run_script(SCRIPT, config.name, "--repeats", "20", "--out", "again", cwd=tmp_path)
    assert (tmp_path / "again.md").read_text() == table, again.stderr


@pytest.mark.parametrize("setup, message", [
    (lambda d: (d / "run.cfg").write_text((EXAMPLES / "kendall-whitwell.cfg").read_text()), "not tune"),
    (lambda d: (write_tune(d), (d / "run.txt").unlink()), "cannot read its run file run.txt"),
    (lambda d: write_tune(d, config_names=["rfp_margin"]), "run.txt is not run.cfg's run"),
    (lambda d: write_tune(d, iterations=0, config_iterations=10), "no iteration recorded yet"),
    (lambda d: (write_tune(d), (d / "run.txt").write_text("ID: 0\n")), "run.txt"),
])
def test_what_cannot_be_replayed_gets_one_line(tmp_path, setup, message):
    setup(tmp_path)
    done = run_script(SCRIPT, "run.cfg", "--repeats", "3", cwd=tmp_path)
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "tune-null.md").exists()
