"""scripts/studies/term_groups.py: each part of a unified genome switched off, its loss on positions."""

from genchess.genome import UnifiedGenome, load_genome
from genchess.genome.unified import GROUP
from script_helpers import run_script, small_set
from train_helpers import REPO_ROOT

UNIFIED = REPO_ROOT / "genchess" / "genomes" / "unified.genome"


def rises(output: str) -> dict[str, float]:
    rows = [line for line in output.splitlines() if line.startswith("| ") and "switched off" not in line]
    return {cells[0]: float(cells[3]) for cells in
            ([c.strip() for c in row.strip("|").split("|")] for row in rows)}


def test_the_shipped_genome_needs_its_tables_and_a_material_genome_loses_nothing(tmp_path):
    positions = small_set(tmp_path)
    done = run_script("studies/term_groups.py", "--genome", UNIFIED, "--positions", positions)
    assert done.returncode == 0, done.stderr
    found = rises(done.stdout)
    assert found["nothing (the genome as it is)"] == 0
    assert found["piece-square tables"] > 0 and found["everything but material"] > found["piece-square tables"]
    material = tmp_path / "material.genome"
    material.write_text(UnifiedGenome.from_material(1, [100, 300, 300, 500, 900]).to_text())
    done = run_script("studies/term_groups.py", "--genome", material, "--positions", positions)
    assert done.returncode == 0, done.stderr
    assert set(rises(done.stdout).values()) == {0.0}         # nothing to switch off


def test_write_switches_one_part_off_and_keeps_the_rest(tmp_path):
    out = tmp_path / "no-threats.genome"
    done = run_script("studies/term_groups.py", "--write", "threats and hanging pieces", "--out", out)
    assert done.returncode == 0, done.stderr
    whole, off = load_genome(UNIFIED), load_genome(out)
    threats = {g for g in GROUP if g.startswith("threat") or g == "hanging"}
    for group in GROUP:
        for phase in ("mg", "eg"):
            if group in threats:
                assert set(off.group(group, phase)) == {0}
            else:
                assert off.group(group, phase) == whole.group(group, phase), group


def test_a_genome_of_another_kind_or_a_bad_set_is_one_line(tmp_path):
    done = run_script("studies/term_groups.py", "--genome", REPO_ROOT / "genchess" / "genomes" / "evolved.genome")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "unified" in done.stderr
    bad = tmp_path / "bad.epd"
    bad.write_text("this is not a position\n")
    done = run_script("studies/term_groups.py", "--positions", bad)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "bad.epd" in done.stderr
    done = run_script("studies/term_groups.py", "--write", "tempo")
    assert done.returncode != 0 and "--out" in done.stderr
