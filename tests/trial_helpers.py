"""Shared helpers for the tests of the search's trials (steps behind an engine option,
off by default, waiting for their SPRT: genchess.protocols.options.TRIALS)."""

from __future__ import annotations

from genchess.engine import Engine
from genchess.genome import default_genome
from genchess.protocols.options import TRIALS, Settings
from genchess_core.searcher import Searcher


def trial_searcher(bit: int) -> Searcher:
    """The default genome's searcher with feature `bit` turned on (0: none)."""
    s = Searcher(16)
    s.set_genome(default_genome().pack())
    s.features = s.features | bit
    return s


def assert_option_sets_the_bit(option: str, bit: int) -> None:
    """`option` is the trial behind `bit`: off in a new engine, on and off as set."""
    assert TRIALS[option] == bit
    engine = Engine(default_genome())
    assert not engine.searcher.features & bit
    Settings(engine).setter(option)("true")
    assert engine.searcher.features & bit
    Settings(engine).setter(option)("false")
    assert not engine.searcher.features & bit
