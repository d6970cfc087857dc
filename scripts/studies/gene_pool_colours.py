"""Does the gene pool's game loop favour a colour? Random genomes in game pairs.

A gene-pool run reports how white and black fared, and one run's split can come from
the genomes it happened to breed (one founder's lineage playing itself) as much as
from chess. This script removes the genomes: it draws pairs of random genomes as the
pool does and lets each pair play twice with colours swapped, through the trainers'
own game job (genchess.parallel.worker.play_job: the same engines, clock and rules),
so any excess for one colour is the game loop's, the clock's or the search's.

    python scripts/studies/gene_pool_colours.py [--pairs 300] [--seconds 1 | --nodes 4000] [--seed 1]

prints white's and black's wins as it goes and white's share of the decisive games
with its 95% interval; 50% inside the interval: no colour is favoured.
"""

from __future__ import annotations

import argparse
import math
import random

from genchess.genome import Genome
from genchess.parallel.worker import GameJob, play_job
from genchess.strength.stats import Z95


def white_share(white_wins: int, black_wins: int) -> str:
    decisive = white_wins + black_wins
    if decisive == 0:
        return "no decisive games"
    p = white_wins / decisive
    half_width = Z95 * math.sqrt(p * (1 - p) / decisive)
    return (f"white's share of {decisive} decisive games {100 * p:.1f}% "
            f"(95%: {100 * (p - half_width):.1f}% to {100 * (p + half_width):.1f}%)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=300, help="genome pairs, two games each")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--seconds", type=float, default=1.0, help="seconds a side, no increment")
    limit.add_argument("--nodes", type=int, help="a fixed node count a move instead of a clock")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.pairs < 1 or (args.nodes is not None and args.nodes < 1) or args.seconds <= 0:
        parser.error("--pairs, --nodes and --seconds must be positive")
    rng = random.Random(args.seed)
    results = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
    for n in range(args.pairs):
        one, two = Genome.random(rng, 2 * n), Genome.random(rng, 2 * n + 1)
        for white, black in ((one, two), (two, one)):
            job = GameJob.between(white, black, seconds=0.0 if args.nodes else args.seconds,
                                  nodes=args.nodes)
            results[play_job(job).record.result] += 1
        if (n + 1) % 20 == 0 or n + 1 == args.pairs:
            print(f"{2 * (n + 1)} games: white {results['1-0']}, black {results['0-1']}, "
                  f"draws {results['1/2-1/2']}", flush=True)
    print(white_share(results["1-0"], results["0-1"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
