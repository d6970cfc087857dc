"""Genome files, genes and evolutionary operators (pure Python, no engine needed)."""

import math
from random import Random

import pytest

from genchess.genome import (
    GENE_CLASSES,
    PACK_KEYS,
    Genome,
    GenomeError,
    hand_set_genome,
    load_genome,
    parse_genome_text,
    read_genome_file,
    read_genomes,
    write_genome,
    write_still_alive,
)
from genchess.genome.genome_file import HAND_SET_GENOME_PATH

# Written out here, not taken from the code, so a renamed or dropped key fails.
EXPECTED_PACK_KEYS = {
    "piece_values",
    "mean_game_length", "game_length_uncertainty",
    "spec_just_captured", "spec_can_capture", "spec_recapture", "spec_default",
    "total_force_priority", "total_force_exponent",
    "freedom_priority", "freedom_exponent",
    "pawn_adv_priority", "pawn_adv_exponent", "pawn_adv_nonlinearity",
    "passed_pawn_priority", "passed_pawn_exponent",
    "targeted_priority", "targeted_exponent",
    "sphere_priority", "sphere_exponent",
    "sphere_legal_score", "sphere_illegal_score", "sphere_king_target",
    "confine_priority", "confine_exponent",
    "confine_friendly", "confine_enemy", "confine_max_distance",
    "king_protect_priority", "king_protect_exponent",
    "castling_priority", "castling_exponent", "castling_kingside", "castling_queenside",
    "islands_priority", "islands_exponent",
    "stacked_priority", "stacked_exponent",
    "checkmate_material_priority", "checkmate_material_exponent",
}
NON_NEGATIVE_PREFIXES = ("total_force", "sphere", "confine", "castling")
ARMY = (8, 2, 2, 2, 1, 1)


def assert_in_range(genome):
    for gene in genome.genes:
        for spec in gene.VALUES:
            value = gene.values[spec.key]
            assert spec.lo <= value <= spec.hi, (gene.NAME, spec.key, value)
            if spec.integer:
                assert value == int(value), (gene.NAME, spec.key, value)


def genome_lines(genome_id=1):
    return Genome(genome_id).to_text().splitlines()


def index_of(lines, text, start=0):
    return lines.index(text, start)


def write_lines(tmp_path, lines, name="bad.genome"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


# --- round trips ---------------------------------------------------------------

def test_default_genome_file_round_trips_and_matches_table_defaults():
    text = HAND_SET_GENOME_PATH.read_text()
    genome = hand_set_genome()
    assert genome.to_text() == text
    assert parse_genome_text(text).genomes == [genome]
    # The gene tables document the same hand-set values as the shipped file.
    assert genome == Genome(0)


def test_random_genomes_round_trip():
    rng = Random(7)
    for genome_id in range(100):
        genome = Genome.random(rng, genome_id)
        for _ in range(genome_id % 5):
            genome.mutate(rng)
        text = genome.to_text()
        (again,) = parse_genome_text(text).genomes
        assert again == genome
        assert again.to_text() == text


def test_pool_file_round_trips_through_writers(tmp_path):
    rng = Random(3)
    path = tmp_path / "pool.txt"
    with open(path, "w") as out:
        for genome_id in range(4):
            write_genome(Genome.random(rng, genome_id), out)
        write_still_alive(0, [0, 1], out)
        write_still_alive(1, [2, 3], out)
        write_genome(Genome.random(rng, 4), out)
        write_still_alive(0, [4, 1], out)
    text = path.read_text()
    genome_file = read_genome_file(path)
    assert genome_file.to_text() == text
    assert [g.id for g in genome_file.genomes] == [0, 1, 2, 3, 4]
    assert genome_file.alive == {0: (4, 1), 1: (2, 3)}


HAND_WRITTEN = """\
ID: 27514
Name: Piece Strength Gene
B: 7.7799
K: 3.8987212345678
N: 3.1
P: 1
Q: 9.2
R: 5.1

Name: Look Ahead Gene
Game Length Uncertainty: 0.51267
Mean Game Length: 28.7295
Speculation Constant Can Capture: 1.25
Speculation Constant Default: 0.9
Speculation Constant Just Captured: 2
Speculation Constant Recapture: 1.5

"""


def test_hand_written_values_read_exactly_and_write_back_identically():
    rest = Genome(0).to_text().split("Name: Total Force Gene", 1)[1]
    text = HAND_WRITTEN + "Name: Total Force Gene" + rest
    (genome,) = parse_genome_text(text).genomes
    assert genome.id == 27514
    assert genome.gene("Piece Strength Gene").values["B"] == 7.7799
    assert genome.gene("Look Ahead Gene").values["Mean Game Length"] == 28.7295
    assert genome.gene("Piece Strength Gene").values["K"] == 3.8987212345678  # more than 6 digits survive
    assert genome.to_text() == text


def test_genes_in_any_order_and_tolerant_whitespace():
    lines = genome_lines(5)
    first = index_of(lines, "Name: Piece Strength Gene")
    block = lines[first:first + 8]  # name, six values, blank
    moved = [lines[0]] + lines[first + 8:-2] + block + ["END"]
    moved = ["  " + line + " \r" for line in moved]
    (genome,) = parse_genome_text("\n".join(moved)).genomes
    assert genome == Genome(5)


# --- rejected files ------------------------------------------------------------

def replace(text, new):
    def edit(lines):
        i = index_of(lines, text)
        lines[i] = new
        return lines, i + 1
    return edit


def delete(text):
    def edit(lines):
        i = index_of(lines, text)
        name = max(j for j in range(i) if lines[j].startswith("Name:"))
        del lines[i]
        return lines, name + 1
    return edit


def insert_after(text, new):
    def edit(lines):
        i = index_of(lines, text)
        lines.insert(i + 1, new)
        return lines, i + 2
    return edit


def drop_gene(name):
    def edit(lines):
        i = index_of(lines, f"Name: {name}")
        end = index_of(lines, "", i)
        del lines[i:end + 1]
        return lines, index_of(lines, "END") + 1
    return edit


def repeat_gene(name):
    def edit(lines):
        i = index_of(lines, f"Name: {name}")
        block = lines[i:index_of(lines, "", i) + 1]
        end = index_of(lines, "END")
        lines[end:end] = block
        return lines, end + 1
    return edit


def remove_end(lines):
    del lines[index_of(lines, "END"):]
    return lines, len(lines)


def id_before_end(lines):
    del lines[index_of(lines, "END"):]
    second = genome_lines(2)
    return lines + second, len(lines) + 1


def duplicated_id(lines):
    return lines + genome_lines(1), len(lines) + 1


def text_after_end(lines):
    return lines + ["Name: Piece Strength Gene"], len(lines) + 1


BAD_FILES = [
    ("unknown gene", replace("Name: Passed Pawn Gene", "Name: Pased Pawn Gene"), "unknown gene 'Pased Pawn Gene'"),
    ("missing key", delete("Q: 9"), "Piece Strength Gene: missing key 'Q'"),
    ("duplicated key", insert_after("Q: 9", "Q: 8"), "Piece Strength Gene: duplicated key 'Q'"),
    ("unknown key", insert_after("Q: 9", "X: 1"), "Piece Strength Gene: unknown key 'X'"),
    ("duplicated gene", repeat_gene("Look Ahead Gene"), "duplicated gene 'Look Ahead Gene'"),
    ("missing gene", drop_gene("Castling Possible Gene"), "missing gene 'Castling Possible Gene'"),
    ("not a number", replace("Q: 9", "Q: abc"), "Piece Strength Gene: value for 'Q' is not a number: 'abc'"),
    ("empty value", replace("Q: 9", "Q:"), "value for 'Q' is not a number: ''"),
    ("nan", replace("Q: 9", "Q: nan"), "value for 'Q' is not a finite number: 'nan'"),
    ("inf", replace("Q: 9", "Q: -inf"), "value for 'Q' is not a finite number: '-inf'"),
    ("above range", replace("Q: 9", "Q: 250"), "value for 'Q' is out of range [-100, 100]: 250"),
    ("negative priority in a >=0 gene", replace("Priority: 100", "Priority: -1"), "Total Force Gene: value for 'Priority' is out of range [0, 1000]"),
    ("exponent range", replace("Exponent: 1", "Exponent: 0"), "value for 'Exponent' is out of range"),
    ("fractional integer", replace("Maximum Distance: 3", "Maximum Distance: 2.5"), "value for 'Maximum Distance' is not a whole number"),
    ("missing END at end of file", remove_end, "genome 1 has no END"),
    ("new ID before END", id_before_end, "genome 1 has no END before this 'ID:' line"),
    ("text after END", text_after_end, "text outside a genome: 'Name: Piece Strength Gene'"),
    ("text before ID", lambda lines: (["hello"] + lines, 1), "text outside a genome: 'hello'"),
    ("value before Name", insert_after("ID: 1", "P: 1"), "expected 'Name:' or END"),
    ("line without colon", replace("Q: 9", "Q 9"), "expected 'key: value', got 'Q 9'"),
    ("bad ID", replace("ID: 1", "ID: one"), "ID must be a non-negative integer"),
    ("duplicated ID", duplicated_id, "duplicated genome ID 1 (first at line 1)"),
    ("bad Still Alive", lambda lines: (lines + ["Still Alive: 0 1 2"], len(lines) + 1), "expected 'Still Alive: <pool> : <id> <id> ...'"),
    ("Still Alive of unknown ID", lambda lines: (lines + ["Still Alive: 0 : 1 9"], len(lines) + 1), "Still Alive lists ID 9"),
]


@pytest.mark.parametrize("edit, problem", [case[1:] for case in BAD_FILES], ids=[case[0] for case in BAD_FILES])
def test_bad_file_is_rejected_with_path_and_line(tmp_path, edit, problem):
    lines, line = edit(genome_lines(1))
    path = write_lines(tmp_path, lines)
    with pytest.raises(GenomeError) as caught:
        read_genomes(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert problem in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_all_zero_piece_values_rejected(tmp_path):
    lines = genome_lines(1)
    name = index_of(lines, "Name: Piece Strength Gene")
    for i in range(name + 1, name + 7):
        lines[i] = lines[i].split(":")[0] + ": 0"
    path = write_lines(tmp_path, lines)
    with pytest.raises(GenomeError, match=rf"^.*bad\.genome:{name + 1}: Piece Strength Gene: all piece values are zero$"):
        read_genomes(path)


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file_rejected(tmp_path, text):
    path = tmp_path / "empty.genome"
    path.write_text(text)
    with pytest.raises(GenomeError) as caught:
        read_genomes(path)
    assert str(caught.value) == f"{path}: no genomes in file"


def test_missing_id_rejected(tmp_path):
    path = write_lines(tmp_path, genome_lines(3) + genome_lines(5), "two.genome")
    with pytest.raises(GenomeError) as caught:
        load_genome(path, 7)
    assert str(caught.value) == f"{path}: no genome with ID 7"


# --- choosing the genome to play ------------------------------------------------

def write_genomes(path, ids, rng=None):
    rng = rng or Random(11)
    with open(path, "w") as out:
        for genome_id in ids:
            write_genome(Genome.random(rng, genome_id), out)


def test_load_by_id_and_last_by_default(tmp_path):
    path = tmp_path / "several.genome"
    write_genomes(path, [4, 9, 2])
    genomes = read_genomes(path)
    assert load_genome(path, 9) == genomes[1]
    assert load_genome(path) == genomes[2]


# --- random genomes, mutation, crossover ------------------------------------------

def test_random_genomes_are_in_range_and_varied():
    rng = Random(1)
    genomes = [Genome.random(rng, i) for i in range(300)]
    for genome in genomes:
        assert_in_range(genome)
    for cls in GENE_CLASSES:
        for spec in cls.VALUES:
            seen = {g.gene(cls).values[spec.key] for g in genomes}
            assert len(seen) > (5 if spec.integer else 250), (cls.NAME, spec.key)


def test_mutation_changes_about_two_genes_and_stays_in_range():
    rng = Random(2024)
    genome = Genome.random(rng, 1)
    counts = []
    for _ in range(2000):
        before = genome.copy()
        changed = genome.mutate(rng)
        differing = sum(a != b for a, b in zip(before.genes, genome.genes))
        assert changed == differing
        assert_in_range(genome)
        counts.append(changed)
    assert 1.8 <= sum(counts) / len(counts) <= 2.2
    assert max(counts) > 3 and min(counts) == 0


@pytest.mark.parametrize("cls", GENE_CLASSES, ids=lambda cls: cls.NAME)
def test_gene_mutation_changes_exactly_one_value(cls):
    rng = Random(5)
    gene = cls.random(rng)
    touched = set()
    for _ in range(300):
        before = dict(gene.values)
        key = gene.mutate(rng)
        changed = [k for k in before if before[k] != gene.values[k]]
        assert changed == [key]
        touched.add(key)
        for spec in gene.VALUES:
            if spec.integer:
                assert abs(gene.values[spec.key] - before[spec.key]) in (0, 1)
    assert touched == {spec.key for spec in cls.VALUES}


def test_non_negative_priorities_stay_non_negative_under_mutation():
    rng = Random(9)
    genome = Genome(1)
    for cls in GENE_CLASSES:
        if "Priority" in genome.gene(cls).values and cls.spec("Priority").lo == 0:
            genome.gene(cls).values["Priority"] = 0.0  # start on the edge
    for _ in range(3000):
        genome.mutate(rng, mean_changes=6.0)
        params = genome.pack()
        for prefix in NON_NEGATIVE_PREFIXES:
            assert params[f"{prefix}_priority"] >= 0
    # Other priorities can go negative: the range is really two-sided there.
    assert any(Genome.random(Random(s), 1).pack()["freedom_priority"] < 0 for s in range(20))


def test_crossover_takes_each_gene_from_a_parent_about_half_each():
    rng = Random(77)
    a, b = Genome.random(rng, 1), Genome.random(rng, 2)
    assert all(ga != gb for ga, gb in zip(a.genes, b.genes))
    from_a = total = 0
    for new_id in range(3, 303):
        child = Genome.crossover(a, b, rng, new_id)
        assert child.id == new_id
        for gc, ga, gb in zip(child.genes, a.genes, b.genes):
            assert gc == ga or gc == gb
            assert gc is not ga and gc is not gb
            from_a += gc == ga
            total += 1
    assert 0.45 <= from_a / total <= 0.55
    # Deep copies: mutating the child leaves both parents untouched.
    a_text, b_text = a.to_text(), b.to_text()
    for _ in range(50):
        child.mutate(rng)
    assert (a.to_text(), b.to_text()) == (a_text, b_text)


# --- packing --------------------------------------------------------------------

def test_pack_has_every_key_numeric():
    assert set(PACK_KEYS) == EXPECTED_PACK_KEYS
    rng = Random(4)
    for genome in [hand_set_genome()] + [Genome.random(rng, i) for i in range(50)]:
        params = genome.pack()
        assert set(params) == EXPECTED_PACK_KEYS | {"pawn_unit"}
        for key, value in params.items():
            values = value if key == "piece_values" else [value]
            for v in values:
                assert type(v) in (int, float) and math.isfinite(v), (key, v)
        assert len(params["piece_values"]) == 6
        assert isinstance(params["confine_max_distance"], int)


def test_piece_values_are_normalised_over_the_starting_army():
    params = hand_set_genome().pack()
    p, n, b, r, q, k = params["piece_values"]
    assert math.isclose(8 * p + 2 * n + 2 * b + 2 * r + q + k, 1.0)
    assert math.isclose(n / p, 3.0) and math.isclose(q / p, 9.0)

    rng = Random(6)
    for i in range(50):
        genome = Genome.random(rng, i)
        params = genome.pack()
        army = sum(c * abs(v) for c, v in zip(ARMY, params["piece_values"]))
        assert math.isclose(army, 1.0)
        doubled = genome.copy()
        for key in doubled.gene("Piece Strength Gene").values:
            doubled.gene("Piece Strength Gene").values[key] *= 2
        assert doubled != genome
        doubled_params = doubled.pack()
        assert doubled_params.keys() == params.keys()
        for key in params:
            assert doubled_params[key] == pytest.approx(params[key], rel=1e-12)


def test_pack_refuses_all_zero_piece_values():
    genome = Genome(1)
    genome.gene("Piece Strength Gene").values.update(dict.fromkeys("PNBRQK", 0.0))
    with pytest.raises(ValueError, match="all piece values are zero"):
        genome.pack()


def test_default_genome_is_sensible_for_play():
    genome = hand_set_genome()
    params = genome.pack()
    priorities = {k: v for k, v in params.items() if k.endswith("_priority")}
    assert max(priorities, key=priorities.get) == "total_force_priority"
    assert all(v > 0 for v in priorities.values())
    assert all(v == 1 for k, v in params.items() if k.endswith("_exponent"))
    assert 30 <= params["mean_game_length"] <= 60
    assert hand_set_genome() is not hand_set_genome()  # fresh object each call
