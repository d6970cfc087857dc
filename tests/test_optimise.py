"""genchess.optimise: every optimiser's state() as a dict resumes it exactly, and the
states older runs pickled (the optimisers under the names they had before the
package) still resume. The trainers' own resume tests (test_evolve.py, test_tune.py,
test_evolve_adam.py) run the optimisers inside whole runs; these hold each one alone."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from genchess.optimise import restore
from genchess.optimise.adam import Adam, AdamSettings
from genchess.optimise.evolution import CmaSettings, GaSettings, GeneticAlgorithm
from genchess.optimise.schedules import StepDrop
from genchess.optimise.spsa import Spsa, SpsaParameter, SpsaSchedule
from genchess.train.config import ConfigError
from genchess.train.records import read_state

TARGET = np.array([1.5, -2.0, 0.5, 3.0])
LO, HI = np.full(4, -5.0), np.full(4, 5.0)


def loss(x) -> float:
    return float(np.sum((np.asarray(x) - TARGET) ** 2))


def ga() -> GeneticAlgorithm:
    return GeneticAlgorithm(4, GaSettings(population=10, sigma=1.0, mutation_rate=0.3, elite=1,
                                          tournament_size=2), 3, LO, HI)


def cma_es():
    pytest.importorskip("cma")
    from genchess.optimise.evolution import CmaEs
    return CmaEs(4, CmaSettings(population=6, sigma=1.0), 3, LO, HI)


def generations(optimiser, count: int):
    for _ in range(count):
        population = optimiser.ask()
        optimiser.tell(population, [loss(x) for x in population])
        np.random.random(7)          # something else drawing from numpy's global generator
    return optimiser


def through_pickle(state: dict) -> dict:
    return pickle.loads(pickle.dumps(state))


@pytest.mark.parametrize("make", [ga, cma_es], ids=["ga", "cma-es"])
def test_a_population_optimiser_resumed_from_its_state_ends_as_an_uninterrupted_one(make):
    whole = generations(make(), 12)
    first = generations(make(), 5)
    resumed = generations(restore(through_pickle(first.state())), 7)
    assert np.array_equal(np.asarray(whole.ask()), np.asarray(resumed.ask()))


def test_the_ga_learns_and_keeps_its_best():
    optimiser = ga()
    start = min(loss(x) for x in optimiser.ask())
    generations(optimiser, 40)
    assert min(loss(x) for x in optimiser.ask()) < start / 10


class Quadratic:
    """An objective of Adam's epoch(): rows of (a . x - b)^2."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __len__(self):
        return len(self.b)

    def shuffled(self, order):
        return Quadratic(self.a[order], self.b[order])

    def loss_and_gradient(self, x, rows):
        residual = self.a[rows] @ x - self.b[rows]
        return float(residual @ residual), 2.0 * self.a[rows].T @ residual


def test_adam_resumed_from_its_state_ends_as_an_uninterrupted_one_and_keeps_its_box():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(200, 4))
    objective = Quadratic(a, a @ np.array([1.0, -1.0, 0.5, 9.0]))     # the last beyond the box
    settings = AdamSettings(learning_rate=0.05, batch_size=32)
    whole = Adam(4, settings, 2, LO, HI)
    for _ in range(30):
        whole.epoch(objective)
    first = Adam(4, settings, 2, LO, HI)
    for _ in range(10):
        first.epoch(objective)
    resumed = restore(through_pickle(first.state()))
    for _ in range(20):
        resumed.epoch(objective)
    assert np.array_equal(whole.x, resumed.x) and resumed.t == whole.t
    assert whole.x[3] == HI[3]                       # it pushes against the box and stays in


def test_spsa_state_is_json_and_names_its_optimiser():
    spsa = Spsa([SpsaParameter("margin", 70.0, 0.0, 200.0, c_end=10.0)], SpsaSchedule(50), seed=4)
    state = spsa.state()
    assert state["optimiser"] == "spsa"
    again = restore(state)
    assert again.ask() == spsa.ask()


def test_the_step_drop():
    drop = StepDrop(learning_rate=1e-3, rate_drop=0.3, drop_at=0.75, epochs=20)
    assert [drop.rate(e) for e in (1, 15, 16, 20)] == pytest.approx([1e-3, 1e-3, 3e-4, 3e-4])


def test_a_state_that_is_no_optimisers_is_refused():
    with pytest.raises(ValueError, match="not an optimiser's state"):
        restore({"optimiser": "sgd"})


def test_an_older_runs_pickled_optimiser_is_read_under_its_new_name(tmp_path):
    # Before genchess/optimise/, evolve's state pickled its GeneticAlgorithm whole from
    # genchess.train.evolve (and tune's its Spsa from genchess.fitness.spsa). Protocol 0
    # names a class as text, so the old names can be written in.
    old = ga()
    generations(old, 3)
    spsa = Spsa([SpsaParameter("margin", 70.0, 0.0, 200.0, c_end=10.0)], SpsaSchedule(50), seed=4)
    data = pickle.dumps({"optimiser": old, "spsa": spsa}, protocol=0)
    data = data.replace(b"genchess.optimise.evolution", b"genchess.train.evolve")
    data = data.replace(b"genchess.optimise.spsa", b"genchess.fitness.spsa")
    assert b"genchess.train.evolve" in data and b"genchess.optimise" not in data
    path = tmp_path / "state.pickle"
    path.write_bytes(data)
    state = read_state(path, ("optimiser", "spsa"))
    resumed = restore(state["optimiser"])
    assert isinstance(resumed, GeneticAlgorithm)
    assert np.array_equal(generations(resumed, 4).ask(), generations(old, 4).ask())
    assert restore(state["spsa"]).ask() == spsa.ask()
    # Without the map the old name is a ConfigError, not a traceback.
    path.write_bytes(data.replace(b"genchess.train.evolve", b"genchess.train.nowhere"))
    with pytest.raises(ConfigError, match="cannot be read"):
        read_state(path, ("optimiser",))
