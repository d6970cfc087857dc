"""scripts/studies/gene_pool_drift.py: the founders of a gene-pool run's Piece Strength Genes,
against the same pools with coin-toss games, and the selection on piece values; and
scripts/studies/gene_pool_colours.py: whether the game loop favours a colour."""

import random
import subprocess
import sys

from genchess.genome import Genome
from script_helpers import load_script, run_script
from train_helpers import REPO_ROOT, run, train_command, write_config

SCRIPT = REPO_ROOT / "scripts" / "studies" / "gene_pool_drift.py"


def test_a_child_is_traced_to_the_parent_whose_piece_gene_it_carries():
    drift = load_script(SCRIPT)
    rng = random.Random(3)
    for n in range(200):
        white, black = Genome.random(rng, 0), Genome.random(rng, 1)
        child = Genome.crossover(white, black, rng, 2)
        carried = white if drift.piece_gene(child) == drift.piece_gene(white) else black
        child.mutate(rng)
        assert drift.inherited_from(child, white, black) is carried


def test_coin_runs_only_lose_founders_and_end_with_one():
    """Copies and pool swaps never make a new lineage, so the count of founders alive
    can only fall; with no selection one founder takes over, its pawn's sign a coin's."""
    drift = load_script(SCRIPT)
    negative = 0
    for seed in range(30):
        every, pawn = drift.coin_run(seed, pools=2, population=4, swap=4, draws=0.1, genomes=600)
        lineages = every[drift.GENE]
        counts = [alive for _, alive in lineages.snapshots]
        assert counts[0] <= 8 and counts == sorted(counts, reverse=True)
        assert lineages.fixed_at() is not None
        negative += pawn < 0
    assert 5 <= negative <= 25


def test_the_report_of_a_real_run(tmp_path):
    write_config(tmp_path / "run.cfg", time_limit="8 seconds", seed=5)
    proc = run(train_command(str(tmp_path / "run.cfg")), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    done = subprocess.run([sys.executable, str(SCRIPT), "pool.txt", "--runs", "20",
                           "--population", "4", "--swap", "4", "--out", "drift"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "drift.md").read_text()
    assert "| genomes born | founders' genes alive, this run |" in report
    assert "that side's score (95%)" in report and "Coin runs ending with a negative pawn" in report
    assert (tmp_path / "drift.png").read_bytes()[:4] == b"\x89PNG"
    assert "| Total Force Gene |" in report and "Coin runs, every gene pooled" in report
    every, genomes, _, founders = load_script(SCRIPT).real_run(tmp_path / "pool.txt")
    assert founders == 8 and len(genomes) > founders
    for lineages in every.values():
        assert all(1 <= alive <= founders for _, alive in lineages.snapshots)


def test_a_file_that_is_not_a_run_gets_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("not a pool\n")
    done = run_script("studies/gene_pool_drift.py", "notes.txt", cwd=tmp_path, timeout=60)
    assert done.returncode == 1 and "notes.txt: not a readable gene-pool run" in done.stderr
    assert "Traceback" not in done.stderr


# ------------------------------------------------------------ scripts/studies/gene_pool_colours.py

def test_the_colour_check_plays_every_pair_twice_and_reports_whites_share():
    done = run_script("studies/gene_pool_colours.py", "--pairs", 2, "--nodes", 300, "--seed", 3)
    assert done.returncode == 0, done.stderr
    *_, progress, share = done.stdout.strip().splitlines()
    counts = [int(word.rstrip(",")) for word in progress.split() if word.rstrip(",").isdigit()]
    games, white, black, draws = counts
    assert games == 4 and white + black + draws == 4
    if white + black:
        assert f"white's share of {white + black} decisive games" in share
        assert f"{100 * white / (white + black):.1f}%" in share
    else:
        assert share == "no decisive games"


def test_the_colour_check_refuses_a_non_positive_count_in_one_line():
    done = run_script("studies/gene_pool_colours.py", "--pairs", 0)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--pairs" in done.stderr.strip().splitlines()[-1]


def test_a_gene_the_games_select_sweeps_the_pools_before_the_genes_that_drift():
    """Games that the higher Total Force priority always wins carry one founder's Total
    Force Gene through the pools much sooner than the genes they ignore: the per-gene
    table's test for selection can tell the two apart."""
    drift = load_script(SCRIPT)

    def total_force(genome):
        return drift.gene_values(genome, "Total Force Gene")["Priority"]

    def stronger_total_force_wins(white, black, rng):
        return 1.0 if total_force(white) > total_force(black) else 0.0

    selected, drifting = [], []
    for seed in range(12):
        lineages, _ = drift.coin_run(seed, pools=2, population=8, swap=16, draws=0.0, genomes=1500,
                                     decide=stronger_total_force_wins)
        selected.append(lineages["Total Force Gene"].fixed_at() or 1500)
        drifting.append(lineages["Stacked Pawns Gene"].fixed_at() or 1500)
    assert sorted(selected)[6] * 2 < sorted(drifting)[6]


def test_the_gene_table_marks_when_each_gene_fixed_against_the_coin_runs():
    drift = load_script(SCRIPT)
    coin = [drift.coin_run(seed, pools=2, population=4, swap=4, draws=0.1, genomes=400)[0]
            for seed in range(10)]
    real = coin[0]
    last = Genome.random(random.Random(1), 99)
    for lineage in real.values():
        lineage.founder[99] = 0
    table = "\n".join(drift.gene_table(real, coin[1:], last))
    assert "| Total Force Gene |" in table and "| Look Ahead Gene |" in table
    assert "Coin runs, every gene pooled: fixed at a median of" in table
    assert "Rank correlation of a board-scoring gene's priority" in table
    rows = [line for line in table.splitlines() if line.startswith("| ") and "gene |" not in line]
    assert len(rows) == len(real)


def test_founders_copied_from_one_genome_are_flagged_as_untraceable():
    drift = load_script(SCRIPT)
    rng = random.Random(4)
    source = Genome.random(rng, 0)
    founders = {0: source, 1: source.copy(1), 2: Genome.random(rng, 2)}
    every = drift.every_gene(list(founders), [gene.NAME for gene in source.genes])
    assert drift.shared_founder_genes(every, founders) == [gene.NAME for gene in source.genes]
    distinct = {i: Genome.random(rng, i) for i in range(3)}
    assert drift.shared_founder_genes(drift.every_gene(list(distinct), list(every)), distinct) == []
