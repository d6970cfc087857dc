"""scripts/studies/pawn_worth.py: what a pawn on the board is worth to a genome's evaluation."""

from genchess.genome import UnifiedGenome
from script_helpers import run_script


def rows(output: str) -> dict[str, list[str]]:
    table = [line for line in output.splitlines() if line.startswith("| ") and "phase" not in line]
    return {cells[0]: cells[1:] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in table)}


def test_a_material_only_genome_loses_exactly_one_pawn_per_pawn(tmp_path):
    genome = tmp_path / "material.genome"
    genome.write_text(UnifiedGenome.from_material(1, [100, 300, 300, 500, 900]).to_text())
    done = run_script("studies/pawn_worth.py", "--genome", genome, "--limit", 200)
    assert done.returncode == 0, done.stderr
    found = rows(done.stdout)
    assert found and all(mean == median == "1.00" for _, mean, median in found.values())


def test_the_pawn_table_changes_what_a_pawn_is_worth(tmp_path):
    # Every pawn square worth -40 in both phases: a pawn on the board is 0.6 of a pawn.
    start = UnifiedGenome.from_material(1, [100, 300, 300, 500, 900])
    text = start.to_text().splitlines()
    for phase in ("mg", "eg"):
        first = text.index(f"Table: pawn {phase}") + 2           # ranks 7 to 2
        text[first:first + 6] = [" ".join(["-40"] * 8)] * 6
    genome = tmp_path / "table.genome"
    genome.write_text("\n".join(text) + "\n")
    done = run_script("studies/pawn_worth.py", "--genome", genome, "--limit", 100)
    assert done.returncode == 0, done.stderr
    assert {mean for _, mean, _ in rows(done.stdout).values()} == {"0.60"}


def test_bad_files_are_one_line(tmp_path):
    bad = tmp_path / "bad.genome"
    bad.write_text("ID: 1\nKind: unified\nmaterial mg: x\nEND\n")
    done = run_script("studies/pawn_worth.py", "--genome", bad)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "bad.genome:3" in done.stderr
    epd = tmp_path / "bad.epd"
    epd.write_text("not/a/fen w - - ;\n")
    done = run_script("studies/pawn_worth.py", "--positions", epd)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "bad.epd:1" in done.stderr
