"""What an evaluation costs: `genchess bench` with two or more genomes, in one run.

    python scripts/bench/bench_genomes.py PEER.genome OTHER.genome [MORE ...] [--depth 8] [--rounds 3]
    python scripts/bench/bench_genomes.py PEER.genome OTHER.genome --instructions [--depth 6]

The same build (the installed genchess) benches each genome in turn, round after
round, so that a change in the machine's load falls on all of them alike; the
report gives each genome's nodes per second (median, slowest and fastest round)
relative to the first genome, the peer. Different evaluations search different
trees, so the node counts differ too; the speed is per node.

`--instructions` counts instead of timing, for a machine that is not idle: each
genome's bench runs once under valgrind's callgrind and again at depth 1 (start-up
and loading, taken off), as scripts/bench/bench_builds.py counts builds.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("bench_builds", Path(__file__).with_name("bench_builds.py"))
bench_builds = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench_builds          # (its dataclasses look their module up)
_spec.loader.exec_module(bench_builds)


def bench_command(genome: Path, depth: int) -> list[str]:
    return [sys.executable, "-m", "genchess", "bench", "--depth", str(depth), "--runs", "1",
            "--genome", str(genome)]


def timed(genome: Path, depth: int) -> tuple[int, int]:
    done = subprocess.run(bench_command(genome, depth), capture_output=True, text=True)
    if done.returncode != 0:
        raise bench_builds.BenchOutputError(f"genchess bench --genome {genome.name} exited with "
                                            f"{done.returncode}: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return bench_builds.parse_bench(done.stdout)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("genomes", nargs="+", type=Path, metavar="GENOME", help="genome files; the first is the peer")
    p.add_argument("--depth", type=int, default=8, help="bench depth (default 8)")
    p.add_argument("--rounds", type=int, default=3, help="bench runs per genome (default 3)")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions per node under callgrind instead of timing (any load)")
    args = p.parse_args(argv)
    missing = [g for g in args.genomes if not g.is_file()]
    if len(args.genomes) < 2 or missing:
        print("bench_genomes: give two genome files or more, the first the peer"
              + (f" ({missing[0]}: no such file)" if missing else ""), file=sys.stderr)
        return 2
    try:
        if args.instructions:
            rows = [(g, *bench_builds.instructions_per_node((bench_command(g, args.depth), bench_command(g, 1))))
                    for g in args.genomes]
            print(f"Instructions per node of `genchess bench --depth {args.depth}` under callgrind "
                  "(start-up taken off):\n\n| genome | nodes | instructions/node | relative |\n|---|---|---|---|")
            for genome, nodes, per_node in rows:
                print(f"| {genome.name} | {nodes} | {per_node:.1f} | **{per_node / rows[0][2]:.3f}** |")
            return 0
        load = bench_builds.busy_cores()
        if load > 0.5:
            print(f"bench_genomes: warning: load average {load:.1f}: the machine is not idle, "
                  "the speeds will be low and noisy", file=sys.stderr)
        speeds = {g: [] for g in args.genomes}
        nodes = {}
        for round_no in range(1, args.rounds + 1):
            for genome in args.genomes:
                nodes[genome], speed = timed(genome, args.depth)
                speeds[genome].append(speed)
                print(f"round {round_no}/{args.rounds}: {genome.name}: {nodes[genome]} nodes, "
                      f"{bench_builds.spaced(speed)} nodes/s", flush=True)
    except bench_builds.BenchOutputError as e:
        print(f"bench_genomes: {e}", file=sys.stderr)
        return 1
    first = statistics.median(speeds[args.genomes[0]])
    print(f"\n`genchess bench --depth {args.depth}`, {args.rounds} rounds, genomes taking turns:\n\n"
          "| genome | nodes | nodes/s (median) | slowest, fastest | relative |\n|---|---|---|---|---|")
    for genome in args.genomes:
        s = speeds[genome]
        print(f"| {genome.name} | {nodes[genome]} | {bench_builds.spaced(statistics.median(s))} | "
              f"{bench_builds.spaced(min(s))}, {bench_builds.spaced(max(s))} | "
              f"**{statistics.median(s) / first:.2f}** |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
