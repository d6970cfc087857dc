"""How fast the position fitness scores genomes, against how fast games do.

1. Positions scored per second, per genome kind, on a labelled set: a population of
   `--population` genomes (the shipped genome of the kind with its numbers jittered)
   scored on the whole set, in this process, the best of `--repeats` runs. The
   linear kinds (material, pvt) go through their features (one product for the
   population, features.py), the Genetic Chess kind through the C evaluation, genome
   by genome; the features' one-off extraction time is printed beside them.
2. Beside it, in the same run: games per hour of the trainers' game fitness, 1-second
   games (`--game-time`, plus 0.01 s a move, as the quick start's) through the real
   local process pool with `--workers` processes for `--seconds` of wall time, and the
   genome evaluations per hour that makes at Phoenix's rate (each genome at least 3
   games a generation: 1.5 games per genome evaluated).
3. The ratio: genome evaluations per hour, positions against games.

    python scripts/bench/bench_fitness.py [--set genchess/data/positions.epd.gz] [--population 24]
                                    [--repeats 3] [--seconds 60] [--workers 2]

Figures depend on the machine's load: run it alone and say what else was running.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    sys.path.insert(0, str(REPO))

from genchess.fitness.loss import Labels  # noqa: E402
from genchess.fitness.scoring import PositionFitness  # noqa: E402
from genchess.genome import load_genome  # noqa: E402
from genchess.genome.genome_file import GENOMES_DIR, hand_set_genome  # noqa: E402
from genchess.position_sets.position_set import load_positions  # noqa: E402

SHIPPED = {"material": lambda: load_genome(GENOMES_DIR / "evolved.genome"),
           "pvt": lambda: load_genome(GENOMES_DIR / "pvt-textbook.genome"),
           "genetic": hand_set_genome}


def positions_per_second(kind: str, positions, population: int, repeats: int) -> tuple[float, float]:
    """(positions scored per second, seconds to build the features) for one kind."""
    template = SHIPPED[kind]()
    spec = template.number_spec()
    rng = np.random.default_rng(1)
    vectors = spec.legal(template.numbers() + rng.normal(0, 1, (population, len(spec))) * spec.step)
    started = time.perf_counter()
    fitness = PositionFitness(template, positions, Labels("result", k_result=1.0), held_out=0.0)
    built = time.perf_counter() - started
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        fitness.losses(vectors)
        best = min(best, time.perf_counter() - started)
    return population * len(fitness.parts["train"]) / best, built


def games_per_hour(seconds: float, game_time: float, workers: int) -> float:
    from genchess.parallel import executors
    from genchess.parallel.worker import GameJob, play_job
    from genchess.game.openings import read_start_positions
    genome = SHIPPED["material"]().to_text()
    fens = read_start_positions(REPO / "genchess" / "data" / "openings.epd")
    jobs = (GameJob(white_id=1, black_id=2, white_genome=genome, black_genome=genome,
                    start_fen=fens[n % len(fens)], seconds=game_time, increment=0.01)
            for n in range(10**6))
    done = 0
    with executors.open_executor(None, workers) as executor:
        started = time.monotonic()
        running = {executor.submit(play_job, next(jobs)) for _ in range(workers)}
        while True:
            finished, running = executors.wait_first(running)
            done += len(finished)
            elapsed = time.monotonic() - started
            if elapsed >= seconds:
                break
            running |= {executor.submit(play_job, next(jobs)) for _ in finished}
    return done / elapsed * 3600.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(REPO / "genchess" / "data" / "positions.epd.gz"))
    parser.add_argument("--population", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game-time", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    positions = load_positions(args.set)
    print(f"set: {args.set}, {len(positions)} positions; population {args.population}")
    print(f"{'kind':<10}{'positions/s':>14}{'genomes/h':>14}{'features built':>16}")
    per_hour = {}
    for kind in ("material", "pvt", "genetic"):
        rate, built = positions_per_second(kind, positions, args.population, args.repeats)
        per_hour[kind] = rate / len(positions) * 3600
        print(f"{kind:<10}{rate:>14,.0f}{per_hour[kind]:>14,.0f}{built:>14.1f} s")
    games = games_per_hour(args.seconds, args.game_time, args.workers)
    evaluations = games / 1.5
    print(f"games: {games:,.0f} {args.game_time:g}+0.01 games an hour on {args.workers} workers "
          f"= {evaluations:,.0f} genome evaluations an hour (1.5 games each, Phoenix's rate)")
    for kind, rate in per_hour.items():
        print(f"ratio {kind}: {rate / evaluations:,.0f}x as many genome evaluations an hour "
              f"on positions (one process) as by games ({args.workers} processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
