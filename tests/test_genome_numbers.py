"""Every genome kind as a vector of the numbers its evaluation depends on (numbers.py)."""

from __future__ import annotations

import numpy as np
import pytest

from genchess.genome import UnifiedGenome, load_genome
from genchess.genome.genome_file import GENOMES_DIR, hand_set_genome

KINDS = {
    "genetic": lambda: hand_set_genome(),
    "material": lambda: load_genome(GENOMES_DIR / "evolved.genome"),
    "pvt": lambda: load_genome(GENOMES_DIR / "pvt-textbook.genome"),
    "unified": lambda: UnifiedGenome.from_material(4, [100, 248, 272, 383, 823]),
}


@pytest.mark.parametrize("kind", KINDS)
def test_numbers_round_trip_and_keep_what_is_not_a_number(kind):
    genome = KINDS[kind]()
    spec = genome.number_spec()
    vector = genome.numbers()
    assert len(vector) == len(spec) == len(spec.names) == len(set(spec.names))
    again = genome.with_numbers(vector, genome.id)
    assert again == genome
    assert np.all(spec.lo <= vector) and np.all(vector <= spec.hi)
    assert set(spec.groups["all"]) == set(range(len(spec)))


@pytest.mark.parametrize("kind", KINDS)
def test_a_changed_vector_is_clipped_rounded_and_only_changes_numbers(kind):
    genome = KINDS[kind]()
    spec = genome.number_spec()
    pushed = genome.numbers() + 1e9                     # far above every bound
    child = genome.with_numbers(pushed, 99)
    assert child.id == 99
    assert np.array_equal(child.numbers(), spec.hi)
    assert child.KIND == genome.KIND and child.pack()          # still a genome the engine loads
    half = genome.with_numbers(genome.numbers() + 0.4 * spec.integer + 0.25, 5).numbers()
    whole = spec.integer
    assert np.array_equal(half[whole], np.round(half[whole]))


def test_the_unit_and_what_multiplies_zero_are_not_numbers():
    material = KINDS["material"]()
    assert "Pawn" not in material.number_spec().names and "King" not in material.number_spec().names
    assert material.with_numbers(material.numbers() * 0, 1).weights[0] == material.weights[0]
    pvt = KINDS["pvt"]()
    assert pvt.number_spec().names[-4:] == ("material knight", "material bishop", "material rook",
                                            "material queen")
    assert list(pvt.number_spec().groups["pawn mg"]) == list(range(64))
    genetic = KINDS["genetic"]()
    names = genetic.number_spec().names
    assert not any(name.startswith("Look Ahead Gene") for name in names)
    assert "Piece Strength Gene: P" not in names and "Total Force Gene: Priority" not in names
    assert genetic.number_spec().indices(["material"]).tolist() == [0, 1, 2, 3]
    unified = KINDS["unified"]()
    names = unified.number_spec().names
    assert "material mg pawn" not in names and "material eg pawn" in names
    assert len(names) == 2 * len(unified.mg) - 1 - 2 * 16          # the unit; pawns on ranks 1 and 8
    assert "pawn mg a1" not in names and "pawn eg h8" not in names and "pawn eg a2" in names
    assert unified.with_numbers(unified.numbers() * 0, 1).mg[0] == 100


def test_groups_select_and_unknown_groups_are_named():
    spec = KINDS["pvt"]().number_spec()
    assert len(spec.indices(["tables"])) == 640 and len(spec.indices(["material", "tables"])) == 644
    with pytest.raises(KeyError, match="unknown group 'pieces'"):
        spec.indices(["pieces"])
    spec = KINDS["unified"]().number_spec()
    assert len(spec.indices(["tables"])) == 2 * 6 * 64 - 32 and len(spec.indices(["pawn mg"])) == 48
    assert len(spec.indices(["material"])) == 9 and len(spec.indices(["eg"])) == len(spec) // 2 + 1
    assert set(spec.indices(["king safety"])) >= set(spec.indices(["king escape", "castling"]))
    assert len(spec.indices(["king"])) == 128                   # the king's tables


def test_a_genetic_vector_that_breaks_a_gene_rule_is_refused():
    genome = KINDS["genetic"]()
    vector = genome.numbers()
    vector[genome.number_spec().indices(["material"])] = 0.0      # with P untouched: still fine
    genome.with_numbers(vector, 2)
    zero_pawn = genome.copy()
    zero_pawn.gene("Piece Strength Gene").values["P"] = 0.0
    zero_pawn.gene("Piece Strength Gene").values["K"] = 0.0
    with pytest.raises(ValueError, match="all piece values are zero"):
        zero_pawn.with_numbers(vector, 3)


@pytest.mark.parametrize("code", [
    "import genchess.genome",
    # What `genchess` does before it answers a GUI: its whole command line, every
    # subcommand's options included (genchess positions lives beside the tuner).
    "from genchess.cli import build_parser; build_parser().parse_args(['uci'])",
])
def test_start_up_does_not_load_numpy(tmp_path, code):
    """Start-up: `genchess --genome FILE uci` reads genomes, and a tuner's numbers
    (numpy, a third of a second) must not be paid for there."""
    import subprocess
    import sys
    loaded = subprocess.run([sys.executable, "-c", f"import sys; {code}; print('numpy' in sys.modules)"],
                            capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert loaded == "False"
