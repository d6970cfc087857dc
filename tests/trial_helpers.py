"""Shared helpers for the tests of the search's trials (steps behind an engine option,
off by default, waiting for their SPRT: genchess.protocols.options.TRIALS)."""

from __future__ import annotations

import chess

from genchess.engine import Engine
from genchess.genome import load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess.protocols.options import TRIALS, Settings
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.searcher import Searcher

# The genome the trials' positions and planted bounds were chosen with (the default until
# 2026-12-07): a node's verdict depends on the evaluation, so the tests name theirs.
TRIAL_GENOME = load_genome(GENOMES_DIR / "network-5m.genome")


def trial_searcher(bit: int) -> Searcher:
    """TRIAL_GENOME's searcher with feature `bit` turned on (0: none)."""
    s = Searcher(16)
    s.set_genome(TRIAL_GENOME.pack())
    s.features = s.features | bit
    return s


def assert_option_sets_the_bit(option: str, bit: int) -> None:
    """`option` is the trial behind `bit`: off in a new engine, on and off as set."""
    assert TRIALS[option] == bit
    engine = Engine(TRIAL_GENOME)
    assert not engine.searcher.features & bit
    Settings(engine).setter(option)("true")
    assert engine.searcher.features & bit
    Settings(engine).setter(option)("false")
    assert not engine.searcher.features & bit


def trial_engine(option: str, on: bool = True, threads: int = 1) -> Engine:
    """An engine with TRIAL_GENOME and the trial `option` set on (or off)."""
    engine = Engine(TRIAL_GENOME)
    Settings(engine).setter(option)("true" if on else "false")
    engine.set_threads(threads)
    return engine


def game_line(option: str, on: bool, fen: str, n_moves: int, skipped_by) -> tuple[int, list[str], int]:
    """`n_moves` moves of a game from `fen`, each searched to depth 8 by the engine that
    played the last (its statistics carried over, as in a game), with the trial `option`
    on or off: the nodes, the moves (each checked legal) and what skipped_by(searcher)
    counted after each search, added up."""
    engine = trial_engine(option, on)
    moves, nodes, skipped = [], 0, 0
    for _ in range(n_moves):
        engine.set_position(fen, moves)
        result = engine.search(Limits(depth=8))
        moves.append(result.bestmove)
        nodes += result.nodes
        skipped += skipped_by(engine.searcher)
    board = chess.Board(fen)
    for move in moves:
        assert chess.Move.from_uci(move) in board.legal_moves
        board.push_uci(move)
    return nodes, moves, skipped


def assert_two_threads_play_a_legal_move(option: str, fen: str) -> None:
    engine = trial_engine(option, threads=2)
    engine.set_position(fen)
    result = engine.search(Limits(depth=9))
    assert chess.Move.from_uci(result.bestmove) in chess.Board(fen).legal_moves


def mate_search_features(s: Searcher) -> list[int]:
    """Search a quiet mate in two (Ra6!) as a mate search (`go mate 2`) with `s`,
    assert it is found, and return the features each iteration searched with."""
    during = []
    result = s.search(Board("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"), mate=2,     # mate in 2: Ra6!
                      on_iteration=lambda info: during.append(s.features))
    assert result["lines"][0][1][0] == "a1a6"
    assert during
    return during


def assert_a_mate_search_turns_it_off_and_proves_the_mate(bit: int) -> None:
    """A mate search (a proof) runs without the trial behind `bit` (search.pxd's
    MATE_UNSOUND), gives it back after, and still finds a quiet mate in two."""
    s = trial_searcher(bit)
    assert not any(features & bit for features in mate_search_features(s))
    assert s.features & bit                     # given back after the search


def assert_a_mate_search_keeps_it_and_proves_the_mate(s: Searcher, bit: int) -> None:
    """A trial sound for a proof (not in MATE_UNSOUND) stays on through a mate search
    with `s` (a searcher with the trial on), which still finds the mate."""
    assert all(features & bit for features in mate_search_features(s))
