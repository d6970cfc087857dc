"""Speed of the GA tree search (search mode `ga`) against the alpha-beta search, in one run.

Each of the first `--positions` `genchess bench` positions is searched for
`--movetime` seconds by the GA at init level 1 and at level 2, and by the
iterative alpha-beta search, all with the hand-set genome (default.genome) and a fresh engine.
Printed per mode, over all positions: branches inserted into the reservation
tree per second, tree nodes grown per second, and moves made per second (the
`nodes` of the UCI info: for the GA most are replays of branches from the root
and capture searches on new leaves), with the alpha-beta search's nodes per
second as the peer and the ratio of the two.

    python scripts/bench/bench_ga.py [--positions 8] [--movetime 2]

Run it on a quiet machine; the figures scale with what else is running.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    # Only a checkout without an install goes on sys.path, after the installed
    # GenChess would have been found: processes this one spawns inherit sys.path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from genchess.bench import BENCH_POSITIONS  # noqa: E402
from genchess.engine import Engine  # noqa: E402
from genchess.timeman import Limits  # noqa: E402

GA_STRING = re.compile(r"ga tree (\d+) branches (\d+) generations (\d+)")


def measure(mode: str, level: int, fens: list[str], movetime: float) -> dict[str, float]:
    """Totals over the positions: seconds, moves made, and for the GA tree nodes,
    branches and generations (from its last report)."""
    totals = {"seconds": 0.0, "nodes": 0, "tree": 0, "branches": 0, "generations": 0}
    for fen in fens:
        engine = Engine(search_mode=mode)
        engine.ga_init_level = level
        engine.set_position(fen)
        last = []
        result = engine.search(Limits(movetime=int(movetime * 1000)), on_info=last.append)
        totals["seconds"] += result.time_ms / 1000
        totals["nodes"] += result.nodes
        found = [GA_STRING.search(info.string) for info in last if info.string]
        if found and found[-1]:
            tree, branches, generations = (int(x) for x in found[-1].groups())
            totals["tree"] += tree
            totals["branches"] += branches
            totals["generations"] += generations
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=8, help="bench positions searched (default 8)")
    parser.add_argument("--movetime", type=float, default=2.0, help="seconds per search (default 2)")
    args = parser.parse_args()
    if args.positions < 1 or not args.movetime > 0:
        parser.error(f"--positions must be at least 1 and --movetime above 0 "
                     f"(got {args.positions} and {args.movetime:g})")
    fens = BENCH_POSITIONS[:args.positions]
    print(f"{len(fens)} bench positions, {args.movetime:g} s each, hand-set genome")
    print(f"{'search':<22} {'branches/s':>11} {'tree nodes/s':>13} {'moves made/s':>13} {'generations':>12}")
    rates = {}
    for name, mode, level in (("ga, init level 1", "ga", 1), ("ga, init level 2", "ga", 2),
                              ("alpha-beta (iterative)", "iterative", 1)):
        t = measure(mode, level, fens, args.movetime)
        seconds = max(t["seconds"], 1e-9)
        rates[name] = t["nodes"] / seconds
        if mode == "ga":
            print(f"{name:<22} {t['branches'] / seconds:>11,.0f} {t['tree'] / seconds:>13,.0f} "
                  f"{rates[name]:>13,.0f} {t['generations']:>12,}", flush=True)
        else:
            print(f"{name:<22} {'-':>11} {'-':>13} {rates[name]:>13,.0f} {'-':>12}", flush=True)
    peer = rates["alpha-beta (iterative)"]
    for name in ("ga, init level 1", "ga, init level 2"):
        print(f"{name} / alpha-beta, moves made per second: {rates[name] / peer:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
