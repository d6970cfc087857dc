"""Speed of the Kendall-Whitwell material evaluation and of its evolution, in one run.

1. Nodes per second on `genchess bench`'s positions (bench.run_bench: a fixed
   depth, cleared hash table per position, the engine's usual search) for the
   full hand-set genome and for Kendall-Whitwell material genomes: the classical
   weights with a legal-move weight (two move generations per evaluation, the
   costly case) and without one (popcounts only). Target: material >= 3x.
   Also the study's own player (KENDALL_WHITWELL_FEATURES, quiescence cap 3).
2. Games per minute of the evolution at depth 3 with two worker processes: one
   generation of a fresh population in a scratch directory.

    python scripts/bench/bench_kw.py [--depth 5] [--population 20] [--workers 2]

A speed figure depends on what else runs on the machine: note the load.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from genchess.bench import run_bench
from genchess.engine import Engine
from genchess.genome import MaterialGenome, hand_set_genome
from genchess.train.kendall import KendallConfig, KendallTrainer
from genchess_core.searcher import KENDALL_WHITWELL_FEATURES

TARGET_RATIO = 3.0


def bench_nps(engine: Engine, depth: int) -> tuple[int, float]:
    nodes, seconds = run_bench(engine, depth, out=lambda line: None)
    return nodes, nodes / seconds if seconds > 0 else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=5, help="bench depth (default 5)")
    parser.add_argument("--population", type=int, default=20, help="population of the games-per-"
                        "minute generation (default 20: 38 games)")
    parser.add_argument("--game-depth", type=int, default=3, help="fixed depth of those games")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    players = [
        ("hand-set genome (Genetic Chess, full)", hand_set_genome(), None),
        ("material, legal-move weight 0.1", MaterialGenome(1, [1, 3, 3, 5, 9, 0, 0.1]), None),
        ("material, no legal-move weight", MaterialGenome(2, [1, 3, 3, 5, 9, 0, 0]), None),
        ("material 0.1, Kendall-Whitwell player", MaterialGenome(1, [1, 3, 3, 5, 9, 0, 0.1]),
         KENDALL_WHITWELL_FEATURES),
    ]
    print(f"\nbench positions to depth {args.depth}, engine search:")
    speeds = []
    for name, genome, features in players:
        engine = Engine(genome)
        if features is not None:
            engine.searcher.features = features
            engine.searcher.quiescence_cap = 3.0
        nodes, nps = bench_nps(engine, args.depth)
        speeds.append(nps)
        print(f"  {name:40} {nodes:10} nodes {nps:12,.0f} nodes/s  x{nps / speeds[0]:5.2f}")
    ratio = min(speeds[1:3]) / speeds[0]
    print(f"  material / default: at least x{ratio:.2f} (target x{TARGET_RATIO:g}): "
          f"{'met' if ratio >= TARGET_RATIO else 'NOT met'}")

    with tempfile.TemporaryDirectory() as scratch:
        config = KendallConfig(path="bench", population_file=Path(scratch) / "kw.txt",
                               population=args.population, generations=1, depth=args.game_depth,
                               seed=1, workers=args.workers, quiet=True)
        trainer = KendallTrainer(config, out=lambda line: None, progress=False)
        start = time.monotonic()
        trainer.run()
        wall = time.monotonic() - start
        games = trainer.games_this_run
    print(f"\nevolution: {games} games at depth {args.game_depth} with {args.workers} workers in "
          f"{wall:.1f} s: {games / wall * 60:.0f} games per minute")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
