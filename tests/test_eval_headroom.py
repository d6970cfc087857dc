"""scripts/studies/eval_headroom.py: static evaluations against the labels, beside Stockfish's own."""

import shutil

import pytest

from script_helpers import run_script, small_set
from train_helpers import REPO_ROOT

GENOMES = REPO_ROOT / "genchess" / "genomes"


def table(output: str) -> dict[str, list[float]]:
    rows = [line for line in output.splitlines() if line.startswith("| ") and "evaluation |" not in line]
    return {cells[0]: [float(c) for c in cells[1:]] for cells in
            ([c.strip() for c in row.strip("|").split("|")] for row in rows)}


def stockfish():
    return shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


@pytest.mark.skipif(stockfish() is None, reason="needs Stockfish (apt-get install stockfish)")
def test_stockfish_nnue_knows_more_than_its_classical_evaluation_and_the_shipped_genome_beats_material(tmp_path):
    done = run_script("studies/eval_headroom.py", "--positions", small_set(tmp_path, 3000),
                      "--genome", GENOMES / "unified.genome", "--genome", GENOMES / "evolved.genome")
    assert done.returncode == 0, done.stderr
    rows = table(done.stdout)
    assert set(rows) == {"unified.genome", "evolved.genome", "Stockfish classical (static)",
                         "Stockfish NNUE (static)"}
    for own, scale, best, result in rows.values():
        assert 0 < best <= own + 1e-9 < 0.25 and scale > 0 and 0 < result < 0.25
    assert rows["Stockfish NNUE (static)"][2] < rows["Stockfish classical (static)"][2]
    assert rows["unified.genome"][2] < rows["evolved.genome"][2]


def test_without_stockfish_the_genomes_alone_and_bad_input_is_one_line(tmp_path):
    positions = small_set(tmp_path, 1000)
    done = run_script("studies/eval_headroom.py", "--positions", positions, "--genome", GENOMES / "evolved.genome",
                      "--stockfish", tmp_path / "no-such-engine")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "no-such-engine" in done.stderr
    results_only = tmp_path / "results.epd"
    results_only.write_text("".join(line.split(" ce ")[0].rstrip(";") + ";\n"
                                    for line in positions.read_text().splitlines()))
    done = run_script("studies/eval_headroom.py", "--positions", results_only)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "--mentor" in done.stderr
    bad = tmp_path / "bad.genome"
    bad.write_text("ID: 1\nKind: unified\nmaterial mg: x\nEND\n")
    done = run_script("studies/eval_headroom.py", "--positions", positions, "--genome", bad)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "bad.genome:3" in done.stderr
