"""The linear kinds' feature path gives the C evaluation's score exactly, and the
position fitness scores genomes of every kind on a set (fitness/scoring.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from genchess.fitness.features import linear_features
from genchess.fitness.loss import Labels
from genchess.fitness.scoring import PositionFitness
from genchess.genome import MaterialGenome, PvtGenome, UnifiedGenome, load_genome
from genchess.genome.genome_file import GENOMES_DIR, hand_set_genome
from genchess.position_sets.position_set import PositionSet
from genchess.train.evolve import blank_genome
from genchess_core import Board


def random_positions(count: int, seed: int) -> PositionSet:
    """Positions from random games (all phases: openings to bare endings), with
    random results, as a set."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = Board()
        for _ in range(rng.randrange(1, 160)):
            moves = board.legal_moves()
            if not moves or board.outcome(claim_draw=False).termination is not None:
                break
            board.push_uci(rng.choice(moves))
            if rng.random() < 0.15:
                fens.append(board.fen())
    fens = fens[:count]
    return PositionSet.from_fens(fens, [rng.choice([0.0, 0.5, 1.0]) for _ in fens])


@pytest.fixture(scope="module")
def positions():
    return random_positions(1500, seed=5)


def random_material(rng: random.Random, genome_id: int) -> MaterialGenome:
    return MaterialGenome(genome_id, [rng.uniform(-3, 12) for _ in range(7)],
                          centre_bonus=rng.choice([0.0, rng.uniform(-1, 1)]),
                          advanced_pawn_bonus=rng.choice([0.0, rng.uniform(-1, 1)]))


def random_pvt(rng: random.Random, genome_id: int) -> PvtGenome:
    return PvtGenome(genome_id, [rng.randint(-300, 300) for _ in range(640)],
                     [rng.randint(50, 150)] + [rng.randint(200, 1200) for _ in range(4)])


def random_unified(rng: random.Random, genome_id: int) -> UnifiedGenome:
    start = UnifiedGenome.from_material(genome_id, [rng.randint(50, 150)] + [rng.randint(200, 1200) for _ in range(4)])
    return start.with_numbers([v + rng.randint(-300, 300) for v in start.numbers()], genome_id)


@pytest.mark.parametrize("make", [random_material, random_pvt, random_unified],
                         ids=["material", "pvt", "unified"])
def test_the_feature_path_is_the_c_evaluation_exactly(positions, make):
    rng = random.Random(17)
    genomes = [make(rng, i) for i in range(6)]
    shipped = {"material": GENOMES_DIR / "evolved.genome", "pvt": GENOMES_DIR / "pvt-textbook.genome"}
    genomes.append(load_genome(shipped[genomes[0].KIND]) if genomes[0].KIND in shipped
                   else blank_genome(genomes[0].KIND))
    for template in (genomes[0], genomes[-1]):
        features = linear_features(template, positions)
        vectors = np.array([g.numbers() for g in genomes])
        scores = features.scores(vectors)
        for column, genome in enumerate(genomes):
            # The feature path varies only the numbers: the template's fixed parts
            # (the pawn, the bonuses) must be the genome's for the comparison.
            expected = positions.evaluate(template.with_numbers(genome.numbers(), 0))
            assert np.array_equal(scores[:, column], expected), (template.id, genome.id)


def test_every_kind_is_scored_and_a_better_evaluation_has_a_lower_loss(positions):
    """On a set whose results follow material, the material genome with standard
    values predicts them better than one with the knight and the queen swapped."""
    material = load_genome(GENOMES_DIR / "evolved.genome")
    cp = positions.evaluate_cp(MaterialGenome(0, [1, 3, 3, 5, 9, 0, 0]))
    results = (np.random.default_rng(1).random(len(positions)) < 1 / (1 + 10 ** (-cp / 400))) * 1.0
    labelled = PositionSet(positions.pieces, positions.side, positions.castling, positions.ep,
                           results.astype(np.float32), positions.mentor)
    fitness = PositionFitness(material, labelled, Labels("result", k_result=1.0))
    standard = material.with_numbers([3, 3, 5, 9, 0], 1).numbers()
    swapped = material.with_numbers([9, 3, 5, 3, 0], 2).numbers()
    train = fitness.losses(np.array([standard, swapped]))
    assert train[0] < train[1]
    assert len(fitness.parts["held-out"]) > 50 and np.all(fitness.losses(standard, "held-out") < 0.25)
    for genome in (hand_set_genome(), load_genome(GENOMES_DIR / "pvt-textbook.genome")):
        kind_fitness = PositionFitness(genome, labelled, Labels("result", k_result=1.0))
        losses = kind_fitness.losses(np.array([genome.numbers(), genome.numbers()]))
        assert losses[0] == losses[1] and 0.0 < losses[0] < 0.5
