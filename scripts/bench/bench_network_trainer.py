"""The network trainer's speed: the C kernels against the numpy reference, in one run.

    python scripts/bench/bench_network_trainer.py [--positions SET] [--count 300000]
        [--hidden 128] [--buckets 1] [--batch 1024] [--threads N] [--rounds 3]

Both trainers train the same network (the same settings, labels and minibatches:
genchess/fitness/network_training.py gives them the same loop) for one epoch on the
same positions, taking turns round after round so that a change in the machine's load
falls on both alike; the report gives each one's positions a second (the epoch's
minibatches, the held-out scoring left out: median, slowest and fastest round) and the
ratio of the medians, the fast kernels on all threads and on one (their speed a core).
The positions are the first --count of the set (default: data/net1 if the clone has it,
else the shipped sample), mentor labels, flip files off. Run it on an idle machine
(scripts/README.md): a number from a loaded one is low and noisy.

How the threads wait for each other (once a minibatch) is OpenMP's, read
when the kernels load: GenChess sets OMP_WAIT_POLICY=passive unless it is set
(genchess_core/__init__.py); to compare, run the same command with GOMP_SPINCOUNT=N
(spin N rounds before sleeping; GNU OpenMP) or OMP_WAIT_POLICY=active in its
environment. The report names the setting it ran with.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    sys.path.insert(0, str(REPO))

_spec = importlib.util.spec_from_file_location("bench_builds", Path(__file__).with_name("bench_builds.py"))
bench_builds = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench_builds
_spec.loader.exec_module(bench_builds)


def default_set() -> Path:
    local = REPO / "data" / "net1"
    return local if local.is_dir() else REPO / "genchess" / "data" / "positions.epd.gz"


def epoch_rate(make_trainer) -> float:
    """Positions a second of one epoch's minibatches (the trainer made outside the
    clock, the held-out scoring left out)."""
    return make_trainer().train_epoch().positions_per_second


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=Path, default=None, help="a set file or folder (default: data/net1, "
                   "else the shipped sample)")
    p.add_argument("--count", type=int, default=300_000, help="positions to train on (default 300000)")
    p.add_argument("--hidden", type=int, default=128, help="hidden units a side (default 128)")
    p.add_argument("--buckets", type=int, default=1, help="output buckets (default 1)")
    p.add_argument("--batch", type=int, default=1024, help="minibatch (default 1024, the trainer's)")
    p.add_argument("--threads", type=int, default=None, help="the fast kernels' threads (default: the trainer's, "
                   "the cores up to the two that train at once)")
    p.add_argument("--rounds", type=int, default=3, help="epochs of each, taking turns (default 3)")
    args = p.parse_args(argv)

    import numpy as np
    from genchess.fitness.loss import Labels
    from genchess.fitness.network_training import NetworkSettings, NetworkTrainer, default_threads
    from genchess.position_sets.epd import PositionSetError
    from genchess.position_sets.records import PackedSet
    from genchess_core.network_fit import KERNELS

    path = args.positions or default_set()
    try:
        positions = PackedSet.load(path)
    except PositionSetError as e:
        print(f"bench_network_trainer: {e}", file=sys.stderr)
        return 2
    positions = positions.subset(np.flatnonzero(np.isfinite(positions.mentor))[:args.count])
    held_out = positions.subset(slice(0, 1000))
    try:
        settings = NetworkSettings(hidden=args.hidden, buckets=args.buckets, batch_size=args.batch, epochs=1)
    except ValueError as e:
        print(f"bench_network_trainer: {e}", file=sys.stderr)
        return 2
    labels = Labels("mentor", 1.0, 1.0)             # (K changes the numbers, not the work)
    threads = args.threads or default_threads()
    # (with one thread asked, or one core, the last run is the second's: the dict keeps one)
    runs = {"numpy (the reference), 1 core": lambda: NetworkTrainer(positions, held_out, labels, settings,
                                                                    kernels="numpy"),
            f"C kernels ({KERNELS}), 1 thread": lambda: NetworkTrainer(positions, held_out, labels, settings,
                                                                       threads=1),
            f"C kernels ({KERNELS}), {threads} thread{'s' if threads > 1 else ''}":
                lambda: NetworkTrainer(positions, held_out, labels, settings, threads=threads)}
    load = bench_builds.busy_cores()
    if load > 0.5:
        print(f"bench_network_trainer: warning: load average {load:.1f}: the machine is not idle, "
              "the speeds will be low and noisy", file=sys.stderr)
    rates = {name: [] for name in runs}
    for round_no in range(1, args.rounds + 1):
        for name, make in runs.items():
            rates[name].append(epoch_rate(make))
            print(f"round {round_no}/{args.rounds}: {name}: {bench_builds.spaced(rates[name][-1])} "
                  f"positions/s", flush=True)
    reference = statistics.median(next(iter(rates.values())))
    print(f"\nOne epoch of {len(positions)} positions of {path.name}, {args.hidden} units, {args.buckets} "
          f"bucket{'s' if args.buckets > 1 else ''}, batch {args.batch}, {args.rounds} rounds taking turns:\n\n"
          "| trainer | positions/s (median) | slowest, fastest | against numpy |\n|---|---|---|---|")
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"| {name} | {bench_builds.spaced(median)} | {bench_builds.spaced(min(values))}, "
              f"{bench_builds.spaced(max(values))} | **{median / reference:.2f}** |")
    print("\nThreads' waits: " + ", ".join(f"{name}={os.environ.get(name, 'unset')}"
                                         for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
