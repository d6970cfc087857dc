"""Evolution: CMA-ES and the project's genetic algorithm, both ask/tell over vectors
in steps from a start (so one sigma suits table entries and piece values alike),
inside a box [lo, hi] of those steps.

    cma-es   pycma's CMAEvolutionStrategy; with more than `diagonal_above` numbers
             the covariance is diagonal (sep-CMA-ES: linear cost per generation,
             and faster progress in high dimension)
    ga       tournament selection, uniform crossover, Gaussian mutation of a share
             of the numbers, the best kept (elitism); the operators are plain
             functions apart from the loop that calls them, as in DEAP

Lower is better for both (tell them losses; a trainer that scores by points tells
their negatives). state() is everything a run needs to go on exactly: pycma draws
from numpy's global generator, so CmaEs keeps that generator's state as its own and
puts it in place around every ask and tell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class GaSettings:
    population: int                 # genomes a generation
    sigma: float                    # the mutation's size, in steps
    mutation_rate: float            # the share of a child's numbers that mutate
    elite: int                      # the best genomes copied into the next generation
    tournament_size: int            # genomes drawn to pick each parent


@dataclass(frozen=True)
class CmaSettings:
    population: int = 0             # 0: pycma's own default, 4 + 3 ln n
    sigma: float = 1.0              # the first step, in steps (CMA-ES's sigma0)
    diagonal_above: int = 100       # numbers: a diagonal covariance above this


# ------------------------------------------------------------------ the ga's operators

def tournament(rng: np.random.Generator, losses: np.ndarray, size: int) -> int:
    """The lowest loss of `size` genomes drawn with replacement."""
    drawn = rng.integers(0, len(losses), size)
    return int(drawn[np.argmin(losses[drawn])])


def uniform_crossover(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each number from either parent with equal chance."""
    return np.where(rng.random(len(a)) < 0.5, a, b)


def gaussian_mutation(rng: np.random.Generator, x: np.ndarray, rate: float, size: float) -> np.ndarray:
    """A share `rate` of the numbers (at least one) moved by N(0, size); x is in steps."""
    chosen = rng.random(len(x)) < rate
    chosen[rng.integers(len(x))] = True
    return x + chosen * rng.normal(0.0, size, len(x))


def next_generation(rng: np.random.Generator, population: np.ndarray, losses: np.ndarray,
                    settings: GaSettings) -> np.ndarray:
    """The ga's step: the `elite` best kept, the rest children of tournament winners."""
    order = np.argsort(losses, kind="stable")
    children = [population[i].copy() for i in order[:settings.elite]]
    while len(children) < settings.population:
        a = population[tournament(rng, losses, settings.tournament_size)]
        b = population[tournament(rng, losses, settings.tournament_size)]
        children.append(gaussian_mutation(rng, uniform_crossover(rng, a, b), settings.mutation_rate,
                                          settings.sigma))
    return np.array(children)


class GeneticAlgorithm:
    """ask/tell, like pycma's CMAEvolutionStrategy; the first population is the start
    (x = 0) and Gaussian draws around it."""

    NAME = "ga"

    def __init__(self, dimension: int, settings: GaSettings, seed: int, lo: np.ndarray, hi: np.ndarray):
        # (The attributes keep the names a pickled GeneticAlgorithm of an older run has.)
        self.rng = np.random.default_rng(seed)
        self.size, self.sigma, self.rate = settings.population, settings.sigma, settings.mutation_rate
        self.elite, self.tournament_size = settings.elite, settings.tournament_size
        self.lo, self.hi = lo, hi
        first = self.rng.normal(0.0, settings.sigma, (settings.population, dimension))
        first[0] = 0.0                              # the start itself
        self.population = np.clip(first, lo, hi)

    @property
    def settings(self) -> GaSettings:
        return GaSettings(self.size, self.sigma, self.rate, self.elite, self.tournament_size)

    def ask(self) -> np.ndarray:
        return self.population.copy()

    def tell(self, population, losses) -> None:
        children = next_generation(self.rng, np.asarray(population), np.asarray(losses), self.settings)
        self.population = np.clip(children, self.lo, self.hi)

    def spread(self) -> float:
        """How widely the next generation is drawn, in steps: the mutation's size (fixed)."""
        return float(self.sigma)

    def state(self) -> dict:
        return {"optimiser": self.NAME, "settings": asdict(self.settings), "lo": self.lo,
                "hi": self.hi, "population": self.population, "rng": self.rng.bit_generator.state}

    @classmethod
    def from_state(cls, state: dict) -> GeneticAlgorithm:
        ga = object.__new__(cls)
        settings = GaSettings(**state["settings"])
        ga.size, ga.sigma, ga.rate = settings.population, settings.sigma, settings.mutation_rate
        ga.elite, ga.tournament_size = settings.elite, settings.tournament_size
        ga.lo, ga.hi, ga.population = state["lo"], state["hi"], state["population"]
        ga.rng = np.random.default_rng()
        ga.rng.bit_generator.state = state["rng"]
        return ga


class CmaEs:
    """pycma's CMA-ES from x = 0, ask/tell, with numpy's global generator (which
    pycma draws from) kept as part of its state."""

    NAME = "cma-es"

    def __init__(self, dimension: int, settings: CmaSettings, seed: int, lo: np.ndarray, hi: np.ndarray):
        try:
            import cma
        except ImportError:
            raise ImportError('optimiser = cma-es needs pycma: pip install cma (or "genchess[tune]")') from None
        options = {"seed": seed % (2**31 - 1) + 1, "bounds": [list(lo), list(hi)], "verbose": -9,
                   "CMA_diagonal": dimension > settings.diagonal_above, "maxiter": 10**9}
        if settings.population:
            options["popsize"] = settings.population
        self.settings = settings
        self.es = cma.CMAEvolutionStrategy(np.zeros(dimension), settings.sigma, options)
        self.np_state = np.random.get_state()       # as pycma's seed left it

    @classmethod
    def adopt(cls, es, np_state=None) -> CmaEs:
        """A strategy that was pickled (by state(), or whole by an older run), with the
        generator state saved beside it, if any. pycma holds numpy's global generator
        by its bound `randn`, which pickling turns into a private copy as it was then:
        pointed back at the global one, which ask and tell set from np_state."""
        cma = object.__new__(cls)
        cma.settings, cma.es = None, es
        private = getattr(getattr(getattr(es, "sm", None), "randn", None), "__self__", None)
        if not isinstance(private, np.random.RandomState):
            private = None
        if np_state is None:
            # (tune's states before genchess/optimise/ kept none: the copy is the one.)
            np_state = private.get_state() if private is not None else np.random.get_state()
        if private is not None:
            # Its options and its sampler each hold the bound method.
            es.opts["randn"] = es.sm.randn = np.random.randn
        cma.np_state = np_state
        return cma

    def ask(self) -> list[np.ndarray]:
        np.random.set_state(self.np_state)
        population = self.es.ask()
        self.np_state = np.random.get_state()
        return population

    def tell(self, population, losses) -> None:
        np.random.set_state(self.np_state)
        self.es.tell(population, losses)
        self.np_state = np.random.get_state()

    @property
    def mean(self) -> np.ndarray:
        """The distribution's centre."""
        return self.es.mean

    def spread(self) -> float:
        """How widely the next generation is drawn, in steps: the median standard
        deviation, which CMA-ES adapts."""
        return float(np.median(self.es.result.stds))

    def state(self) -> dict:
        # pycma's strategy is pickled whole, as pycma itself recommends for a resume.
        return {"optimiser": self.NAME, "settings": asdict(self.settings) if self.settings else None,
                "es": self.es, "np_state": self.np_state}

    @classmethod
    def from_state(cls, state: dict) -> CmaEs:
        cma = cls.adopt(state["es"], state["np_state"])
        cma.settings = CmaSettings(**state["settings"]) if state["settings"] else None
        return cma
