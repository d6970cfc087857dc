"""What a dask cluster costs against local processes, for 1-second gene-pool games.

One invocation runs the same gene-pool configuration (1 second per side, pools
of 4, same seed) for the same wall time on three executors, in this order:
local processes (2), a dask LocalCluster of 1 worker, of 2 workers (one thread
each, as docs/cluster.md's `dask worker --nthreads 1`). Each prints games per minute
and the share of the workers' wall time spent searching (the rest: Python
between moves, pickling, scheduling, waiting for work). The overhead of the
cluster is the ratio of the 2-worker cluster to the 2 local processes on both
figures. A fourth run, one worker with two threads, measures what docs/cluster.md's
one-thread-per-worker advice is worth. Games vary in length, so games per minute is noisy over a short run;
the searching share is the steadier figure. The cluster's start-up is not
counted (the trainer's clock starts once it is connected).

Because timed games between random genomes vary in length from run to run, a
second measure gives the overhead on identical work: the same fixed-depth game
jobs (deterministic, so every executor plays exactly the same games) through
`executors.completed`, local processes against the 2-worker cluster. Usage:

    python scripts/bench/bench_cluster.py [--seconds 60] [--jobs 40]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    # Only a checkout without an install goes on sys.path, after the installed
    # GenChess would have been found: processes this one spawns inherit sys.path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from genchess.parallel import executors  # noqa: E402
from genchess.train.gene_pool import GenePoolTrainer  # noqa: E402
from genchess.train.registry import parse_config  # noqa: E402

CONFIG = """workers = {workers}
gene pool population = 4
gene pool count = 2
pool swap interval = 8
minimum game time = 1
maximum game time = 1
game time added per round = 0
oscillating time = no
run file = pool.txt
seed = 2024
time limit = {seconds} seconds
output volume = quiet
"""

SETUPS = [("local, 2 processes", None, 2), ("LocalCluster, 1 worker", "local:1", 1),
          ("LocalCluster, 2 workers", "local:2", 2), ("LocalCluster, 1 worker x 2 threads", "threads", 2)]


def measure(scheduler: str | None, workers: int, seconds: float) -> tuple[int, float, float]:
    """(games, wall seconds, searching share) of one run in a fresh directory."""
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as directory:
        cfg = Path(directory) / "bench.cfg"
        cfg.write_text(CONFIG.format(workers=workers, seconds=seconds))
        config = parse_config(cfg)
        config.pool_file = Path(directory) / "pool.txt"
        factory = None
        if scheduler == "threads":
            from distributed import LocalCluster

            cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                   dashboard_address=":0", host="127.0.0.1")
            factory = lambda n: executors.open_executor(cluster.scheduler_address, n,  # noqa: E731
                                                        out=lambda line: None)
        else:
            config.scheduler = scheduler
        trainer = GenePoolTrainer(config, out=lambda line: None, executor_factory=factory)
        started = [0.0]
        play_round = trainer.play_round

        def timed_round(executor, deadline):      # the clock starts with the first game
            started[0] = started[0] or time.monotonic()
            play_round(executor, deadline)

        trainer.play_round = timed_round
        try:
            if trainer.run() != 0:
                raise SystemExit(f"the {scheduler or 'local'} run failed")
        finally:
            if factory is not None:
                cluster.close()
        wall = time.monotonic() - started[0]
        return trainer.games_this_run, wall, trainer.search_seconds / (wall * workers)


def fixed_jobs(count: int):
    """`count` deterministic games: the hand-set genome against the material genome at
    depth 4 from the shipped openings, colours alternating."""
    from genchess.genome import hand_set_genome, load_genome
    from genchess.genome.genome_file import DEFAULT_GENOME_PATH
    from genchess.game.openings import read_start_positions
    from genchess.parallel.worker import GameJob

    a = hand_set_genome().to_text()
    b = load_genome(DEFAULT_GENOME_PATH.parent / "material.genome").to_text()
    fens = read_start_positions(Path(__file__).resolve().parents[2] / "genchess" / "data" / "openings.epd")
    return [GameJob(white_id=n, black_id=n + 1, white_genome=white, black_genome=black,
                    start_fen=fens[n // 2], depth=4)
            for n in range(count) for white, black in [(a, b) if n % 2 else (b, a)]]


def time_jobs(scheduler: str | None, jobs) -> float:
    """Wall seconds to play every job with two workers, after the workers are up."""
    from genchess.parallel.worker import play_job

    with executors.open_executor(scheduler, 2, out=lambda line: None) as executor:
        list(executors.completed(executor, play_job, fixed_jobs(2), in_flight=2))   # warm up
        started = time.monotonic()
        records = [r.record.moves for r in executors.completed(executor, play_job, jobs, in_flight=2)]
        wall = time.monotonic() - started
    assert len(records) == len(jobs)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="wall time of each run (default 60)")
    parser.add_argument("--jobs", type=int, default=40,
                        help="fixed-depth games for the identical-work measure (default 40; 0: skip)")
    args = parser.parse_args()
    results = {}
    print(f"{'executor':<36} {'games':>6} {'wall s':>7} {'games/min':>10} {'searching':>10}")
    for name, scheduler, workers in SETUPS:
        games, wall, share = measure(scheduler, workers, args.seconds)
        results[scheduler] = games / wall * 60, share
        print(f"{name:<36} {games:>6} {wall:>7.1f} {games / wall * 60:>10.1f} {share:>10.1%}",
              flush=True)
    local, cluster = results[None], results["local:2"]
    threads = results["threads"]
    print(f"1 worker x 2 threads / 2 workers x 1 thread: games per minute "
          f"{threads[0] / cluster[0]:.3f}, searching share {threads[1] / cluster[1]:.3f}")
    print(f"cluster (2 workers) / local (2 processes): games per minute {cluster[0] / local[0]:.3f}, "
          f"searching share {cluster[1] / local[1]:.3f} "
          f"(overhead {1 - cluster[1] / local[1]:+.1%} of searching time)")
    if args.jobs:
        jobs = fixed_jobs(args.jobs)
        local_wall, cluster_wall = time_jobs(None, jobs), time_jobs("local:2", jobs)
        print(f"identical work, {args.jobs} fixed-depth games on 2 workers: local {local_wall:.1f} s, "
              f"cluster {cluster_wall:.1f} s, cluster overhead {cluster_wall / local_wall - 1:+.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
