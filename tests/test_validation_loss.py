"""scripts/studies/validation_loss.py: genomes' losses on one set, as the network trainer scores an epoch."""

from script_helpers import run_script, small_set
from train_helpers import REPO_ROOT

GENOMES = REPO_ROOT / "genchess" / "genomes"


def losses(output: str) -> dict[str, float]:
    rows = [line for line in output.splitlines() if line.startswith("| ") and "| loss |" not in line]
    return {name.strip(): float(loss) for name, loss in (row.strip("|").split("|") for row in rows)}


def test_each_genome_gets_the_trainers_loss_and_the_network_beats_material(tmp_path):
    """The shipped set's labels are a searched evaluation: the default network is far
    nearer them than material alone (a sign or a side read wrong would put it far
    above), and each genome listed gets its own row, in order."""
    positions = small_set(tmp_path, 1500)
    done = run_script("studies/validation_loss.py", positions, GENOMES / "network.genome",
                      GENOMES / "default.genome", GENOMES / "material.genome")
    assert done.returncode == 0, done.stderr
    assert "1,500 positions" in done.stdout
    table = losses(done.stdout)
    assert list(table) == ["network.genome", "default.genome", "material.genome"]
    assert 0 < table["network.genome"] < 0.7 * table["material.genome"] < 0.2
    assert table["default.genome"] not in (table["network.genome"], table["material.genome"])


def test_a_bad_genome_or_set_is_one_line(tmp_path):
    positions = small_set(tmp_path, 200)
    bad = tmp_path / "bad.genome"
    bad.write_text("ID: 1\nKind: network\nEND\n")
    for args in ([positions, bad], [tmp_path / "missing.epd", GENOMES / "network.genome"]):
        done = run_script("studies/validation_loss.py", *args)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith("validation_loss: ") and "Traceback" not in done.stderr
    done = run_script("studies/validation_loss.py", positions, GENOMES / "network.genome", "--wdl", "2")
    assert done.returncode == 2 and "--wdl must be from 0 to 1" in done.stderr
