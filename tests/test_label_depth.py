"""scripts/studies/label_depth.py: labels at fixed nodes and at fixed depth against a deeper search."""

import shutil

import pytest

from script_helpers import run_script, small_set

STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


def rows(output: str) -> dict[str, list[float]]:
    table = [line for line in output.splitlines() if line.startswith("| ") and not line.startswith("| label")]
    return {cells[0]: [float(c.replace(",", "")) for c in cells[1:]] for cells in
            ([c.strip() for c in row.strip("|").split("|")] for row in table)}


@pytest.mark.skipif(STOCKFISH is None, reason="needs Stockfish (apt-get install stockfish)")
def test_each_limit_is_measured_and_the_reference_search_is_its_own_label(tmp_path):
    # With the reference at 20,000 nodes, the nodes=20000 label is the same search from a
    # cleared hash: distance 0 exactly. Depth labels cost more nodes the deeper they go.
    done = run_script("studies/label_depth.py", "--set", small_set(tmp_path, 200), "--positions", 4,
                      "--workers", 1, "--reference-nodes", 20000, "--out", tmp_path / "scores.json")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert list(table) == [f"nodes={n}" for n in (1250, 2500, 5000, 10000, 20000)] + \
        [f"depth={d}" for d in (4, 5, 6, 7, 8)] + [f"soft={n}" for n in (1000, 2000, 2500, 3000, 5000)]
    assert table["nodes=20000"][2] == 0.0
    for name, (mean, p90, to_reference, to_stockfish) in table.items():
        assert 0 < mean <= p90 * 1.0001 and 0 <= to_reference < 1 and 0 <= to_stockfish < 1
        if name.startswith("nodes="):
            assert mean <= int(name.split("=")[1])
    depths = [table[f"depth={d}"][0] for d in (4, 5, 6, 7, 8)]
    assert depths == sorted(depths)
    # A soft limit starts no iteration past N nodes: a larger one finishes the same
    # iterations and maybe more, never fewer.
    softs = [table[f"soft={n}"][0] for n in (1000, 2000, 2500, 3000, 5000)]
    assert softs == sorted(softs) and softs[0] < softs[-1]
    assert "4 positions" in done.stdout and (tmp_path / "scores.json").stat().st_size > 0


def test_bad_input_is_one_line(tmp_path):
    missing = run_script("studies/label_depth.py", "--set", tmp_path / "none.epd", "--stockfish", "true")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert "none.epd" in missing.stderr
    engine = run_script("studies/label_depth.py", "--stockfish", tmp_path / "no-engine")
    assert engine.returncode != 0 and "no-engine: not an executable" in engine.stderr
    too_many = run_script("studies/label_depth.py", "--set", small_set(tmp_path, 50), "--positions", 999,
                          "--stockfish", "true")
    assert too_many.returncode != 0 and "--positions 999" in too_many.stderr and "Traceback" not in too_many.stderr
