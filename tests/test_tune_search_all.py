"""The re-tune of every search gene (genchess/train/examples/tune-search-all.cfg): it loads,
tunes every gene that is no trial's, freezes exactly the trials' genes, and keeps the
schedule the docs give it. A new gene, or a trial that enters FEATURES_ALL, fails here
until the configuration says what to do with its genes."""

from __future__ import annotations

from genchess.genome.genome_file import default_genome
from genchess.genome.search_genes import search_genes
from genchess.optimise.spsa import A_RATIO, ALPHA, GAMMA
from genchess.train.registry import parse_config
from genchess.train.tune import TuneConfig, tuned_numbers
from train_helpers import REPO_ROOT

CONFIG = REPO_ROOT / "genchess" / "train" / "examples" / "tune-search-all.cfg"


def loaded():
    config = parse_config(CONFIG)
    assert isinstance(config, TuneConfig)
    return config, tuned_numbers(default_genome(), config.tune, config.freeze)


def test_every_gene_that_is_no_trials_is_tuned_and_every_trials_gene_frozen():
    config, numbers = loaded()
    genes = search_genes()
    tuned = {n.name for n in numbers if n.name not in config.freeze}
    trials = {name for name, gene in genes.items() if gene.trial}
    assert all(n.gene for n in numbers) and {n.name for n in numbers} == set(genes)
    missing = sorted(set(genes) - trials - tuned)
    assert not missing, f"tune-search-all.cfg does not tune {missing}: genes of no trial, frozen or left out"
    assert set(config.freeze) == trials, (
        f"tune-search-all.cfg's freeze must be exactly the trials' genes: "
        f"{sorted(trials - set(config.freeze))} missing, {sorted(set(config.freeze) - trials)} of no trial")
    assert len(tuned) >= 33


def test_it_plays_a_clock_with_fishtests_schedule_and_the_budget_its_comment_gives():
    config, _ = loaded()
    assert config.optimiser == "spsa" and config.nodes == 0           # the time genes need a clock
    assert (config.game_time, config.increment) == (2, 0.02)
    assert (config.generations, config.pairs, config.c_end, config.r_end) == (8000, 1, 1.0, 0.002)
    assert (config.a_ratio, config.alpha, config.gamma) == (A_RATIO, ALPHA, GAMMA)
    text = CONFIG.read_text(encoding="utf-8")
    assert "16,000 games" in text and f"run file = {config.run_file}" in text
    assert f"genchess match genchess:{config.run_file}_best.genome genchess:{config.run_file}_start.genome" in text
