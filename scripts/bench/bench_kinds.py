"""Speed of each evaluation kind: search nodes per second against the full hand-set
genome, and games per minute of the multi-niche crowding (PVT) trainer.

1. Every `genchess bench` position is searched to the same fixed depth from a
   cleared hash table with a genome of each kind (material: evolved.genome; pvt:
   pvt-textbook.genome; unified: --unified FILE, default the material-only start of
   `kind = unified`) and with default.genome, in this process; nodes per second over
   all positions, and each kind's ratio to default.genome (targets: PVT at least
   3x, unified at least 2x). Node counts differ (different evaluations make
   different trees), which is why the rate is compared, not the time.
2. One generation of the trainer (a round robin of `--population` random
   chromosomes, three games each, `--game-time` seconds per side) through the
   real process pool with `--workers` processes, into a temporary database:
   games per minute of wall time.

    python scripts/bench/bench_kinds.py [--depth 6] [--repeats 5] [--unified FILE] [--population 8]
                                  [--game-time 1] [--workers 2] [--no-trainer]

Figures depend on the machine's load: say what else was running when you quote them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from genchess.bench import run_bench
from genchess.engine import Engine
from genchess.genome import Genome, GenomeError, hand_set_genome, load_genome
from genchess.train.evolve import blank_genome
from genchess.train.mnc import MncConfig, MncTrainer

GENOMES = Path(__file__).resolve().parents[2] / "genchess" / "genomes"
TARGETS = {"pvt": 3.0, "unified": 2.0}


def search_speed(depth: int, repeats: int, unified: Genome) -> None:
    """Best of `repeats` interleaved runs each: on a loaded machine the fastest run
    is the one least disturbed by other processes."""
    genomes = {"material": load_genome(GENOMES / "evolved.genome"),
               "pvt": load_genome(GENOMES / "pvt-textbook.genome"),
               "unified": unified,
               "default.genome": hand_set_genome()}
    engines = {name: Engine(genome, search_mode="iterative") for name, genome in genomes.items()}
    best: dict[str, tuple[int, float]] = {}
    for _ in range(repeats):
        for name, engine in engines.items():
            nodes, seconds = run_bench(engine, depth, runs=1, out=lambda *a: None)
            if name not in best or seconds < best[name][1]:
                best[name] = (nodes, seconds)
    rates = {}
    for name, (nodes, seconds) in best.items():
        rates[name] = nodes / seconds
        print(f"{name:16} {nodes:10d} nodes in {seconds:6.2f} s = {rates[name]:10.0f} nodes/s "
              f"(best of {repeats})")
    for name in ("material", "pvt", "unified"):
        target = f" (target >= {TARGETS[name]:g}x)" if name in TARGETS else ""
        print(f"{name} / default.genome nodes per second: {rates[name] / rates['default.genome']:.2f}x{target}")


def trainer_speed(population: int, game_time: float, workers: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = MncConfig(path="bench", database=Path(tmp) / "bench.db", population=population,
                           games_per_player=3, game_time=game_time, increment=game_time / 50,
                           generations=1, workers=workers, seed=1, quiet=True)
        lines = []
        start = time.monotonic()
        MncTrainer(config, out=lines.append).run()
        seconds = time.monotonic() - start
    games = population * 3 // 2
    print(f"trainer: {games} games ({population} players, {game_time:g} s per side, {workers} workers) "
          f"in {seconds:.1f} s = {games * 60 / seconds:.1f} games per minute")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--population", type=int, default=8)
    parser.add_argument("--game-time", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--unified", metavar="FILE", help="the unified genome to time (default: "
                        "material alone, the start of kind = unified)")
    parser.add_argument("--no-trainer", action="store_true", help="skip the trainer's games")
    args = parser.parse_args()
    try:
        unified = load_genome(args.unified) if args.unified else blank_genome("unified")
    except GenomeError as e:
        sys.exit(f"bench_kinds: {e}")
    search_speed(args.depth, args.repeats, unified)
    if not args.no_trainer:
        trainer_speed(args.population, args.game_time, args.workers)


if __name__ == "__main__":
    main()
