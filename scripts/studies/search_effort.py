"""Search effort by depth, after Kendall and Whitwell's Tables 1 and 2.

Nodes and seconds to reach depth 2, 3, 4, ... (iterative deepening, summed over
the middle-game positions of comparison_common.middle_game_fens) for minimax,
alpha-beta, alpha-beta with move ordering, minimax with quiescence, minimax with
a transposition table, and everything together (today's full search), each a mask
of the search's feature switches (genchess_core.searcher.FEATURE_NAMES). A
configuration stops at the first depth whose predicted time (last time times the
growth seen so far) is over --cap seconds: plain minimax at depth 6 would take
hours. Prints two markdown tables and writes docs/studies/search_effort.png.

    nice -n 10 python scripts/studies/search_effort.py [--positions 20] [--max-depth 6] [--cap 120]
"""

from __future__ import annotations

import argparse
import time

from comparison_common import markdown_table, middle_game_fens, pyplot, save_plot
from genchess.genome import hand_set_genome
from genchess_core import Board
from genchess_core.searcher import ALL_FEATURES, FEATURE_NAMES, Searcher

F = FEATURE_NAMES
CONFIGS = [
    ("minimax", 0),
    ("alpha-beta", F["alphabeta"]),
    ("alpha-beta + ordering", F["alphabeta"] | F["ordering"]),
    ("minimax + quiescence", F["quiescence"]),
    ("minimax + TT", F["tt"]),
    ("everything (full search)", ALL_FEATURES),
]


def effort(searcher: Searcher, fens: list[str], features: int, depth: int) -> tuple[int, float]:
    searcher.features = features
    nodes, seconds = 0, 0.0
    for fen in fens:
        searcher.clear()
        searcher.clear_stop()
        start = time.perf_counter()
        result = searcher.search(Board(fen), max_depth=depth)
        seconds += time.perf_counter() - start
        nodes += result["nodes"]
    return nodes, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--min-depth", type=int, default=2)
    parser.add_argument("--max-depth", type=int, default=6)
    parser.add_argument("--cap", type=float, default=120.0,
                        help="skip a depth predicted to take longer than this many seconds")
    args = parser.parse_args(argv)
    fens = middle_game_fens(args.positions)
    searcher = Searcher(64)
    searcher.set_genome(hand_set_genome().pack())
    depths = list(range(args.min_depth, args.max_depth + 1))
    table: dict[str, dict[int, tuple[int, float]]] = {}
    for name, features in CONFIGS:
        table[name] = {}
        last = growth = None
        for depth in depths:
            if last is not None and last * (growth or 30.0) > args.cap:
                break
            nodes, seconds = effort(searcher, fens, features, depth)
            table[name][depth] = (nodes, seconds)
            growth = seconds / last if last else None
            last = seconds
            print(f"{name:28s} depth {depth}: {nodes:>12,} nodes {seconds:8.2f} s", flush=True)
    headers = ["search"] + [f"depth {d}" for d in depths]
    print(f"\nNodes to depth, summed over {len(fens)} middle-game positions:\n")
    print(markdown_table(headers, [[name] + [f"{table[name][d][0]:,}" if d in table[name] else "-"
                                             for d in depths] for name, _ in CONFIGS]))
    print(f"\nSeconds to depth, summed over {len(fens)} positions (shared machine):\n")
    print(markdown_table(headers, [[name] + [f"{table[name][d][1]:.2f}" if d in table[name] else "-"
                                             for d in depths] for name, _ in CONFIGS]))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, _ in CONFIGS:
        ds = sorted(table[name])
        ax.plot(ds, [table[name][d][0] for d in ds], marker="o", label=name)
    ax.set_yscale("log")
    ax.set_xticks(depths)
    ax.set_xlabel("depth (plies)")
    ax.set_ylabel(f"nodes, sum over {len(fens)} positions")
    ax.set_title("Search effort by depth (after Kendall & Whitwell, Tables 1-2)")
    ax.legend(fontsize=8)
    print(f"\nwrote {save_plot(fig, 'search_effort.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
