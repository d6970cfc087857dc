"""scripts/studies/phoenix_checkpoints.py: the best chromosome of every Nth generation of a
Phoenix run against a reference genome, a table and a plot."""

import subprocess
import sys

from script_helpers import load_script, run_script
from train_helpers import REPO_ROOT, config_text, run, train_command

SCRIPT = REPO_ROOT / "scripts" / "studies" / "phoenix_checkpoints.py"


def test_the_best_of_every_nth_generation_plays_and_a_rerun_resumes(tmp_path):
    base = {"method": "multi-niche crowding", "run file": "run.db",
            "population": "4", "games per player": "1", "depth": "1",
            "generations": "3", "seed": "3"}
    (tmp_path / "run.cfg").write_text(config_text(base))
    proc = run(train_command("run.cfg"), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [g for g, _ in load_script(SCRIPT).checkpoints(tmp_path / "run.db", 2)] == [0, 2]     # the random start, then every 2nd
    textbook = REPO_ROOT / "genchess" / "genomes" / "pvt-textbook.genome"
    command = [sys.executable, str(SCRIPT), "run.db", "--every", "2", "--against", str(textbook),
               "--games", "2", "--tc", "depth=1", "--concurrency", "1", "--out", "cp"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / "cp.md").read_text()
    assert "| 0 |" in table and "| 2 |" in table
    assert (tmp_path / "cp.png").read_bytes()[:4] == b"\x89PNG"
    games = (tmp_path / "cp-gen2.pgn").read_text().count("[Event ")
    assert games == 2
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "cp-gen2.pgn").read_text().count("[Event ") == games   # resumed, none replayed


def test_a_perfect_score_is_shown_at_its_one_sided_bound():
    script = load_script(SCRIPT)
    result = {"games": 40, "score": 0.0, "pairs": 20}
    elo, low, high, bounded = script.shown_elo(result)
    assert bounded and elo == low == high and -420 < elo < -390


def test_a_file_that_is_not_a_database_gets_one_line(tmp_path):
    (tmp_path / "run.db").write_text("not a database\n")
    done = run_script("studies/phoenix_checkpoints.py", "run.db", cwd=tmp_path, timeout=60)
    assert done.returncode == 1 and "run.db: not a Phoenix chromosome database" in done.stderr
    assert "Traceback" not in done.stderr


def test_loss_scores_a_hosted_runs_checkpoints_beside_its_host(tmp_path):
    host = REPO_ROOT / "genchess" / "genomes" / "unified.genome"
    base = {"method": "multi-niche crowding", "run file": "run.db", "population": "4",
            "games per player": "1", "depth": "1", "generations": "3", "seed": "3",
            "host genome": str(host)}
    (tmp_path / "run.cfg").write_text(config_text(base))
    proc = run(train_command("run.cfg"), cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    textbook = REPO_ROOT / "genchess" / "genomes" / "pvt-textbook.genome"
    positions = REPO_ROOT / "genchess" / "data" / "positions.epd.gz"
    done = subprocess.run([sys.executable, str(SCRIPT), "run.db", "--every", "2", "--loss", "--limit", "300",
                           "--against", str(textbook), "--positions", str(positions)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    losses = {line.split(" | ")[0].lstrip("| "): float(line.split(" | ")[1].rstrip(" |"))
              for line in done.stdout.splitlines() if line.startswith("| ") and "mentor loss" not in line}
    assert set(losses) >= {"the host genome, its own tables", "the host genome, no tables",
                           "the host genome, pvt-textbook.genome's tables"}
    assert sum(name.startswith("generation ") for name in losses) == 2        # 0 and 2
    # The host's own, tuned tables evaluate better than none; random tables, worse.
    assert losses["the host genome, its own tables"] < losses["the host genome, no tables"]
    assert losses["the host genome, no tables"] < losses[next(n for n in losses if n.startswith("generation 0"))]
