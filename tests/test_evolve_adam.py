"""optimiser = adam in method = evolve: the exact gradient of a linear kind's loss,
minibatch Adam, exact resume, and the numbers no position touches frozen for every
optimiser. The tiny set of test_evolve.py (results drawn from a 1-3-3-5-9
evaluation's sigmoid) is the ground truth."""

from __future__ import annotations

import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from genchess.fitness.features import linear_features
from genchess.fitness.gradient import LinearTexel
from genchess.fitness.loss import Labels
from genchess.genome import load_genome, read_genomes
from genchess.genome.genome_file import GENOMES_DIR
from genchess.position_sets.position_set import PositionSet
from genchess.train import cli as train_cli
from genchess.train.registry import parse_config, trainer_for
from test_evolve import (generation_lines, labelled_set, run, without_comments,  # noqa: F401
                         write_config)
from test_fitness_features import random_positions


@pytest.fixture(scope="module")
def small_set() -> PositionSet:
    positions = random_positions(300, seed=3)
    rng = np.random.default_rng(1)
    return PositionSet(positions.pieces, positions.side, positions.castling, positions.ep,
                       positions.result, rng.normal(0, 300, len(positions)).astype(np.float32))


GENOMES = {"material": lambda: load_genome(GENOMES_DIR / "material-positions.genome"),
           "pvt": lambda: load_genome(GENOMES_DIR / "pvt-positions.genome"),
           "unified": lambda: load_genome(GENOMES_DIR / "unified.genome")}


@pytest.mark.parametrize("kind", sorted(GENOMES))
def test_the_linear_map_is_the_c_evaluation_before_its_rounding(small_set, kind):
    genome = GENOMES[kind]()
    features = linear_features(genome, small_set)
    linear = features.linear_map()
    cp = linear.matrix @ genome.numbers() + linear.offset
    exact = small_set.evaluate_cp(genome)
    assert np.max(np.abs(cp - exact)) < 1.0, kind       # C truncates to whole internal units
    assert np.std(exact) > 50                            # (and the evaluations differ)


@pytest.mark.parametrize("kind", sorted(GENOMES))
def test_the_gradient_is_exact(small_set, kind):
    """Against central differences of the objective itself, on numbers of each part
    of the genome, with both labels and the L2 term in the loss."""
    genome = GENOMES[kind]()
    spec = genome.number_spec()
    linear = linear_features(genome, small_set).linear_map()
    labels = Labels("mix", 1.1, 0.9, 0.3)
    evolving = np.flatnonzero(linear.touched() > 0)
    objective = LinearTexel(linear, labels, small_set.result, small_set.mentor, genome.numbers(),
                            evolving, spec.step, l2_weight=1e-4)
    x = np.random.default_rng(2).normal(0, 0.5, len(evolving))
    loss, gradient = objective.loss_and_gradient(x)
    h = 1e-4
    picked = np.random.default_rng(3).choice(len(evolving), min(12, len(evolving)), replace=False)
    for j in picked:
        e = np.zeros(len(x))
        e[j] = h
        numeric = (objective.loss_and_gradient(x + e)[0] - objective.loss_and_gradient(x - e)[0]) / (2 * h)
        assert numeric == pytest.approx(gradient[j], rel=1e-5, abs=1e-10), (kind, spec.names[evolving[j]])
    assert np.abs(gradient[picked]).max() > 1e-6


def test_adam_finds_the_usual_order_from_equal_weights(tmp_path, labelled_set):
    config = write_config(tmp_path, labelled_set, optimiser="adam", generations=8,
                          learning_rate=0.5, batch_size=256)
    assert run(config) == 0
    lines = generation_lines(tmp_path / "run.txt")
    first, last = (float(line.split()[3]) for line in (lines[0], lines[-1]))
    assert last < first - 0.01, (first, last)
    best = read_genomes(tmp_path / "run.txt_best.genome")[-1]
    pawn, knight, bishop, rook, queen = (best.weights[i] / best.weights[0] for i in range(5))
    assert pawn < knight and pawn < bishop and max(knight, bishop) < rook < queen, best.weights
    header = (tmp_path / "run.txt").read_text().splitlines()[0]
    assert "optimiser adam learning rate 0.5 batch 256; l2 1e-06;" in header, header


def test_a_resumed_adam_run_ends_exactly_as_an_uninterrupted_one(tmp_path, labelled_set):
    """Adam's moments, its step count and its shuffling generator go with the state."""
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    settings = dict(optimiser="adam", kind="pvt", batch_size=500)
    assert run(write_config(whole, labelled_set, generations=6, **settings)) == 0
    assert run(write_config(parts, labelled_set, generations=2, **settings)) == 0
    saved = (parts / "run.txt_state.pickle").read_bytes()
    assert run(write_config(parts, labelled_set, generations=4, **settings)) == 0
    (parts / "run.txt_state.pickle").write_bytes(saved)            # killed before its state
    assert pickle.loads(saved)["optimiser"]["t"] > 0
    assert run(write_config(parts, labelled_set, generations=6, **settings)) == 0
    assert generation_lines(parts / "run.txt") == generation_lines(whole / "run.txt")
    for name in ("run.txt_genomes.txt", "run.txt_best.genome"):
        assert without_comments(parts / name) == without_comments(whole / name), name


@pytest.mark.parametrize("optimiser", ["cma-es", "ga", "adam"])
def test_numbers_no_position_touches_are_frozen(tmp_path, labelled_set, optimiser):
    """A pawn never stands on the first or last rank: those 32 entries of a PVT genome
    end where they started, whatever the optimiser; the rest move."""
    start = load_genome(GENOMES_DIR / "pvt-positions.genome")
    names = start.number_spec().names
    edge = [i for i, name in enumerate(names) if name.startswith("pawn") and name[-1] in "18"]
    numbers = start.numbers()
    numbers[edge] = np.arange(len(edge)) - 10
    (tmp_path / "start.genome").write_text(start.with_numbers(numbers, 0).to_text())
    config = write_config(tmp_path, labelled_set, optimiser=optimiser, kind=None,
                          initial_genomes=tmp_path / "start.genome", generations=3, workers=1)
    # Scored in a thread: no worker process to start and fill for three generations.
    trainer = trainer_for(parse_config(config), out=lambda line: None, progress=False,
                          executor_factory=lambda workers: ThreadPoolExecutor(workers))
    assert trainer.run() == 0
    best = read_genomes(tmp_path / "run.txt_genomes.txt")[-1]
    assert len(edge) == 32 and np.array_equal(best.numbers()[edge], numbers[edge])
    assert len(np.flatnonzero(best.numbers() != numbers)) > 100
    header = (tmp_path / "run.txt").read_text().splitlines()[0]
    frozen = int(header.split(" untouched frozen")[0].rsplit(" ", 1)[1])
    assert frozen >= 32 and f"numbers {644 - frozen} (all, {frozen} untouched" in header, header


def test_the_l2_term_pulls_toward_zero(tmp_path, labelled_set):
    """The same adam run with a strong L2 weight ends with smaller tables."""
    sizes = {}
    for weight in ("0", "0.01"):
        directory = tmp_path / weight
        directory.mkdir()
        assert run(write_config(directory, labelled_set, optimiser="adam", kind="pvt",
                                generations=3, l2_weight=weight)) == 0
        sizes[weight] = np.abs(read_genomes(directory / "run.txt_best.genome")[-1].values).mean()
    assert sizes["0.01"] < 0.7 * sizes["0"], sizes


@pytest.mark.parametrize("changes, fragment", [
    (dict(optimiser="adam", kind="genetic"), "optimiser = adam needs a kind whose evaluation is "
     "linear in its numbers (material, pvt, unified), not genetic: use cma-es or ga"),
    (dict(l2_weight="0.001", kind="genetic"), "l2 weight needs a kind whose evaluation is linear"),
    (dict(optimiser="sgd"), "expected one of cma-es, ga, adam"),
    (dict(optimiser="adam", batch_size="0"), "batch size"),
    (dict(optimiser="adam", learning_rate="-1"), "learning rate"),
])
def test_bad_adam_configurations_are_one_line_and_write_nothing(tmp_path, labelled_set, capsys,
                                                               changes, fragment):
    config = write_config(tmp_path, labelled_set, **changes)
    assert train_cli.main([str(config)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cfg"]



def test_adam_validates_and_crowns_through_the_executor(tmp_path, labelled_set):
    """The gradients are this process's; the games still go through the executor."""
    config = write_config(tmp_path, labelled_set, optimiser="adam", generations=2,
                          validation_games=2, validation_interval=2, game_time=0.05,
                          champion_interval=2, champion_max_games=2, workers=1)
    assert run(config) == 0
    assert "validation 2: best vs start" in (tmp_path / "run.txt").read_text()
    assert (tmp_path / "run.txt_champion.genome").exists()
