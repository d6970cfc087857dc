"""Optimisers, one home for each, behind one interface (as pycma's and DEAP's):

    ask()        what to score next (a population; SPSA's pair of sides)
    tell(...)    what the scores were; the optimiser learns from them
    step(g)      (gradients) one move along a gradient: Adam
    state()      everything that resumes the run exactly, random streams included,
                 as a dict; Class.from_state(state) (or restore(state)) makes it again

Each optimiser's settings are one frozen dataclass with named fields, so a trainer
that chooses an optimiser says what each number is:

    evolution.py   CMA-ES (pycma, in each number's steps) and the project's genetic
                   algorithm, its operators plain functions (evolve, tune)
    adam.py        Adam, and minibatch epochs over an objective (evolve's adam; the
                   network trainer's step, whose fast twin is in genchess_core)
    spsa.py        SPSA, the games optimiser: fishtest's schedules (tune)
    schedules.py   learning-rate schedules (the network trainer's drop)

The losses these minimise are fitness/'s; the games they play are the trainers'.
This package imports neither: it stands below the trainers (tests/test_layering.py).
"""

from __future__ import annotations


def restore(state, np_state=None):
    """The optimiser a state() dict describes (its "optimiser" names the class). An
    older run's state holds the optimiser pickled whole instead: an Adam, a
    GeneticAlgorithm or an Spsa (train/records.py's read_state finds them under
    their new names) is taken as it is, and pycma's strategy is wrapped with the
    numpy generator state the run saved beside it (`np_state`)."""
    from genchess.optimise.adam import Adam
    from genchess.optimise.evolution import CmaEs, GeneticAlgorithm
    from genchess.optimise.spsa import Spsa
    if isinstance(state, (Adam, GeneticAlgorithm, Spsa)):
        return state
    if type(state).__name__ == "CMAEvolutionStrategy":
        return CmaEs.adopt(state, np_state)
    kinds = {cls.NAME: cls for cls in (Adam, CmaEs, GeneticAlgorithm, Spsa)}
    try:
        cls = kinds[state["optimiser"]]
    except (KeyError, TypeError):
        raise ValueError(f"not an optimiser's state (known: {', '.join(kinds)})") from None
    return cls.from_state(state)
