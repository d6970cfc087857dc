"""`genchess bench`: a fixed search over fixed positions, the engine's signature.

Each position is searched to a fixed depth from a cleared hash table, so the total
node count depends only on the code and the genome: any change to search or
evaluation shows up in it (the number OpenBench-style testing compares). The
positions are openings, tactical middlegames and endgames from the project's
shared data, copied here so an installed engine carries them.

A pass over the positions takes about half a second, too short for one reading of
the speed to mean much on a machine doing other work: the bench makes several
passes, checks that they searched the same tree, and reports the fastest (the one
least disturbed) with the spread of the others.

Every search mode has a bench of its own, each position searched to the size that
mode stops at by itself, so that its node count is its code's signature too: the
iterative search and plain minimax to a depth (minimax to 3 by default: without
pruning each ply costs some thirty times the last), the budget search a node budget
per move (which it overshoots by however its passes fall), the GA search a tree of a
given size. None of them is stopped by a node limit, whose count would say nothing.
"""

from __future__ import annotations

import statistics
import time

from genchess.engine import Engine
from genchess.timeman import Limits

DEFAULT_DEPTH = 8
DEFAULT_RUNS = 5
MINIMAX_DEPTH = 3           # plain minimax's default bench depth (depth 4 takes 30 times as long)
# The sizes of the node-budget modes' benches, near the iterative bench's nodes:
BUDGET_NODES = 20_000       # the budget search's nodes a position (about 750,000 searched in all)
GA_POOL_NODES = 2_000       # the GA search's tree a position (about 2.6 million evaluations in all)


class BenchMismatch(RuntimeError):
    """Two passes of one bench searched different trees: the search is not deterministic."""


BENCH_POSITIONS = [
    'rnbqkbnr/pp1p1pp1/2p1p2p/8/2P5/5P1N/PP1PP1PP/RNBQKB1R w KQkq - 0 1',
    'rnbqkb1r/pp1ppp1p/2p3pn/8/8/P5P1/RPPPPP1P/1NBQKBNR w Kkq - 0 1',
    'rn1qkb1r/ppp1p1pp/3pbp1n/8/8/N3P3/PPPPKPPP/1RBQ1BNR w kq - 0 1',
    'r1bqkbnr/pppp2pp/n4p2/4p3/P4P2/8/1PPPP1PP/RNBQKBNR w KQkq - 0 1',
    'r1bqkbnr/1p1ppppp/2n5/p1p5/8/1PN3P1/P1PPPP1P/R1BQKBNR w KQkq - 0 1',
    'rnbqkb1r/1ppp1ppp/4p2n/p7/1P3P2/6P1/P1PPP2P/RNBQKBNR w KQkq - 0 1',
    'rnbqkbnr/1p1p1ppp/p1p1p3/5P2/3P4/8/PPP1P1PP/RNBQKBNR w KQkq - 0 1',
    'rnbqkbnr/pp1p1pp1/4p2p/2p5/3P1B2/N7/PPP1PPPP/R2QKBNR w KQkq - 0 1',
    'rn1qkbnr/pppbpp1p/3p2p1/8/Q1P4P/8/PP1PPPP1/RNB1KBNR w KQkq - 0 1',
    'rn1qkbnr/2p1pppp/pp1pb3/8/1P2N3/8/P1PPPPPP/RNBQKB1R w KQkq - 0 1',
    '4r1nk/p2b1q1p/1ppp4/3B1n2/5P2/P1N4P/1PP2Q2/1K1R4 w - - 0 1',
    'r3k1r1/2p1bp1p/4p2B/4P1P1/p1p5/3Q4/6P1/RR3K2 b q - 0 1',
    '1k6/1r6/1Q2p2p/P2pP1p1/3P2P1/r7/6K1/8 w - - 0 1',
    '8/2Q4p/2p1k1p1/p1P1Pr2/7P/2N3PK/7r/8 w - - 0 1',
    '8/5k2/p3p1p1/P7/3PB3/2p1b3/5P1P/5K2 w - - 0 1',
    '6r1/p1k1r3/1p1p3Q/1P1Rq2P/P1p2pB1/4nP2/6P1/4R1K1 b - - 0 1',
    '3q1b1r/1Q1pk1p1/2n1p1B1/1p1nP2p/3N2p1/8/NPP2PPP/5RK1 b - - 0 1',
    '1r3r1k/Q6p/1P1p2p1/3Bbq2/P1P1R3/5pP1/5P1P/4R1K1 b - - 0 1',
    'r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1',
    '8/6pp/b5k1/P1p2R2/P5P1/B6n/4p2P/4N1K1 w - - 0 1',
    'r1bk1b1r/ppp1n1p1/2np1pq1/3Np1Np/2BPP2P/1QP5/PP3PP1/R1B1K2R w KQ - 0 1',
    '8/5p2/6k1/8/4P2p/4K3/5P2/8 b - - 0 1',
    '1r1qk2r/p2b2pp/n1pbp3/Np1pQp1B/1P2n3/P3P3/2PP1PPP/RNB1K2R b KQk - 0 1',
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    'r3k2r/8/8/8/8/8/8/1R2K2R w Kkq - 0 1',
    '8/8/8/8/8/8/1k6/R3K3 b Q - 0 1',
    '8/8/4k3/3Nn3/3nN3/4K3/8/8 w - - 0 1',
    'k7/B7/1B6/1B6/8/8/8/K6b b - - 0 1',
    '8/3k4/3p4/8/3P4/3K4/8/8 w - - 0 1',
    'k7/8/6p1/8/8/7P/8/K7 w - - 0 1',
    '7k/8/8/1p6/P7/8/8/7K w - - 0 1',
    '8/Pk6/8/8/8/8/6Kp/8 w - - 0 1',
]


def bench_limits(engine: Engine, depth: int | None) -> Limits:
    """What each position is searched with in `engine`'s search mode: `depth` for the
    modes that have one; for the budget and GA searches no limit at all, so that they
    end at the size the engine was given (Engine.budget_nodes, Engine.ga_nodes)."""
    if getattr(engine, "search_mode", "iterative") in ("budget", "ga"):
        if depth is not None:
            raise ValueError(f"the {engine.search_mode} search has no depth to stop at")
        return Limits()
    return Limits(depth=depth)


def run_pass(engine: Engine, depth: int | None, out=None) -> tuple[list[int], float]:
    """Search every bench position once, to `depth` (bench_limits): the node count of
    each, and the seconds the searches took. With `out`, one line per position.

    The time is the searches' alone: clearing the hash table before each position
    (16 MB by default) is left out, as Stockfish's bench leaves out its clearing,
    so that nodes per second measure the search."""
    nodes = []
    elapsed = 0.0
    limits = bench_limits(engine, depth)
    for i, fen in enumerate(BENCH_POSITIONS, start=1):
        engine.new_game()
        engine.set_position(fen)
        start = time.perf_counter()
        result = engine.search(limits)
        elapsed += time.perf_counter() - start
        nodes.append(result.nodes)
        if out is not None:
            out(f"Position {i:2}/{len(BENCH_POSITIONS)}: {result.bestmove:6} {str(result.score):12} "
                f"nodes {result.nodes:9}  {fen}")
    return nodes, elapsed


def milliseconds(seconds: float) -> int:
    # As Stockfish: whole milliseconds, at least one, and nodes per second from them,
    # so that the summary's lines agree even for a bench of a few milliseconds.
    return max(1, round(seconds * 1000))


def nodes_per_second(nodes: int, seconds: float) -> int:
    return nodes * 1000 // milliseconds(seconds)


def run_bench(engine: Engine, depth: int | None = DEFAULT_DEPTH, runs: int = DEFAULT_RUNS,
              out=print) -> tuple[int, float]:
    """Search every bench position to `depth` (None in the budget and GA modes), `runs` times over; print the
    positions (first pass) and the Stockfish-style summary. Return the node count
    (the signature: one pass's, the same in every pass) and the fastest pass's
    seconds. Raise BenchMismatch if two passes searched different trees."""
    if runs < 1:
        raise ValueError(f"a bench needs at least one pass, not {runs}")
    first, fastest = run_pass(engine, depth, out)
    speeds = [nodes_per_second(sum(first), fastest)]
    for k in range(2, runs + 1):
        nodes, elapsed = run_pass(engine, depth)
        if nodes != first:
            i = next(i for i, (a, b) in enumerate(zip(first, nodes)) if a != b)
            raise BenchMismatch(f"pass {k} searched {nodes[i]} nodes in position {i + 1}, "
                                f"pass 1 {first[i]}: the search is not deterministic")
        speeds.append(nodes_per_second(sum(nodes), elapsed))
        fastest = min(fastest, elapsed)
    total_nodes = sum(first)
    out("")
    out("===========================")
    out(f"Total time (ms) : {milliseconds(fastest)}")
    out(f"Nodes searched  : {total_nodes}")
    out(f"Nodes/second    : {nodes_per_second(total_nodes, fastest)}")
    out(f"Passes          : {runs} (time and speed above: the fastest); nodes/second "
        f"min {min(speeds)}, median {round(statistics.median(speeds))}, max {max(speeds)}")
    return total_nodes, fastest


def run_threads_bench(engine: Engine, threads: int, depth: int = DEFAULT_DEPTH,
                      runs: int = DEFAULT_RUNS, out=print) -> dict[int, tuple[int, float]]:
    """The same positions to the same depth on one thread and on `threads`, passes
    interleaved (so that both see the same machine), the fastest pass of each:
    nodes per second and the time to reach the depth, and their ratios. A search on
    several threads is not deterministic: its node count is not a signature."""
    best: dict[int, tuple[int, float]] = {}
    for _ in range(runs):
        for n in (1, threads):
            engine.set_threads(n)
            nodes, elapsed = run_pass(engine, depth)
            if n not in best or elapsed < best[n][1]:
                best[n] = (sum(nodes), elapsed)
    engine.set_threads(1)
    out("===========================")
    for n, (nodes, seconds) in best.items():
        out(f"Threads {n:<8}: time to depth {depth} (ms) {milliseconds(seconds)}, nodes {nodes}, "
            f"nodes/second {nodes_per_second(nodes, seconds)}")
    (nodes_1, time_1), (nodes_n, time_n) = best[1], best[threads]
    out(f"Speed-up        : time to depth {time_1 / time_n:.2f}x, nodes/second "
        f"{nodes_per_second(nodes_n, time_n) / nodes_per_second(nodes_1, time_1):.2f}x "
        f"({threads} threads against 1, fastest of {runs} passes each)")
    return best
