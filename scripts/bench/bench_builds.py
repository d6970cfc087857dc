"""Nodes per second of `genchess bench` in two or more builds, in one run.

    python scripts/bench/bench_builds.py OLD NEW [MORE ...] [--depth 8] [--rounds 3] [--genome FILE]
    python scripts/bench/bench_builds.py OLD NEW --instructions [--depth 6] [--perft 5]

Each revision (a commit or branch) is checked out and built as scripts/dev/sprt_builds.py
does it (in ~/.cache/genchess-builds, reused across runs). Then every build runs
`genchess bench` once per round, the builds taking turns, so that a change in the
machine's load falls on all of them alike. The report gives each build's node count
(its bench signature), the median nodes per second with the slowest and fastest
round, and the speed relative to the first build. The first build is the peer the
others are measured against: a speed-up is a ratio, never a stopwatch reading.

Run it on an idle machine: a match on the same cores halves every figure, and
unevenly. The run warns when the load average says the cores are busy.

`--instructions` counts instead of timing, for a machine that is not idle: each build's
bench (and, with `--perft D`, its `genchess perft D` from the start position) runs once
under valgrind's callgrind, and again at depth 1, whose count (Python's start-up, the
genome's loading) is taken off; what is left, divided by the nodes, is the build's
instructions per node. Instruction counts repeat exactly whatever else the machine does;
they miss what a cache miss or a mispredicted branch costs, so a ratio of them is a
floor on a slow-down, not the speed itself.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SPRT_BUILDS = Path(__file__).resolve().parents[1] / "dev" / "sprt_builds.py"
_spec = importlib.util.spec_from_file_location("sprt_builds", SPRT_BUILDS)
sprt_builds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sprt_builds)

NODES = re.compile(r"^Nodes searched\s*:\s*(\d+)\s*$", re.M)
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
SPEED = re.compile(r"^Nodes/second\s*:\s*(\d+)\s*$", re.M)


class BenchOutputError(Exception):
    """`genchess bench` printed no node count or speed: the build is broken."""


@dataclass
class BuildResult:
    rev: str
    commit: str
    nodes: int = 0
    speeds: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.speeds)


def parse_bench(output: str) -> tuple[int, int]:
    """The node count and nodes per second from `genchess bench`'s summary."""
    nodes, speed = NODES.search(output), SPEED.search(output)
    if not nodes or not speed:
        tail = output.strip().splitlines()[-1:] or ["(no output)"]
        raise BenchOutputError(f"no 'Nodes searched' and 'Nodes/second' lines in the bench output: {tail[0]}")
    return int(nodes.group(1)), int(speed.group(1))


def bench_command(tree: Path, depth: int, bench_help: str, genome: Path | None = None) -> list[str]:
    """The build's own wrapper (made by sprt_builds.prepare) runs its `python -m
    genchess bench`. A build whose bench makes several passes and reports the
    fastest (`--runs`) is asked for one, so that every build's round is one pass
    and no build's figure is a best-of-N against another's single reading."""
    command = [str(tree / "genchess-uci"), "bench", "--depth", str(depth)]
    if "--runs" in bench_help:
        command += ["--runs", "1"]
    if genome is not None:
        command += ["--genome", str(genome)]
    return command


def run_bench(tree: Path, depth: int, genome: Path | None = None) -> tuple[int, int]:
    bench_help = subprocess.run([str(tree / "genchess-uci"), "bench", "--help"],
                                capture_output=True, text=True).stdout
    done = subprocess.run(bench_command(tree, depth, bench_help, genome), capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchOutputError(f"genchess bench in {tree} exited with {done.returncode}: "
                               f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return parse_bench(done.stdout)


def instructions(command: list[str]) -> tuple[int, int]:
    """The node count `command` prints and the instructions callgrind counted in it."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          capture_output=True, text=True)
    nodes, counted = NODES.search(done.stdout), COLLECTED.search(done.stderr)
    if done.returncode != 0 or not nodes or not counted:
        raise BenchOutputError(f"{' '.join(command[:3])} under callgrind exited with {done.returncode}: "
                               f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return int(nodes.group(1)), int(counted.group(1))


def instructions_per_node(commands: tuple[list[str], list[str]]) -> tuple[int, float]:
    """(nodes, instructions per node) of the first command, less the second's counts
    (the same command at depth 1: start-up and loading)."""
    (nodes, total), (base_nodes, base) = instructions(commands[0]), instructions(commands[1])
    return nodes, (total - base) / max(nodes - base_nodes, 1)


def count_report(tree_results: dict[str, list[tuple[str, int, float]]], labels: list[str]) -> str:
    """A markdown table of instructions per node, one row per build and command."""
    lines = ["Instructions per node under callgrind (start-up taken off), builds in turn:", "",
             "| build | " + " | ".join(f"{label}: nodes | instructions/node | relative" for label in labels) + " |",
             "|---|" + "---|---|---|" * len(labels)]
    firsts = next(iter(tree_results.values()))
    for rev, rows in tree_results.items():
        cells = [f"{nodes} | {per_node:.1f} | **{per_node / first[2]:.3f}**"
                 for (_, nodes, per_node), first in zip(rows, firsts)]
        lines.append(f"| {rev} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def spaced(n: float) -> str:
    """1218160 as 1 218 160, the way docs/studies/search-elo.md writes speeds."""
    return f"{n:,.0f}".replace(",", " ")


def report(results: list[BuildResult], depth: int, rounds: int, genome: Path | None = None) -> str:
    """A markdown table: one row per build, speed relative to the first."""
    first = results[0].median
    with_genome = f" --genome {genome.name}" if genome is not None else ""
    lines = [f"`genchess bench --depth {depth}{with_genome}`, {rounds} rounds, builds taking turns:", "",
             "| build | nodes | nodes/s (median) | slowest, fastest | relative |",
             "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.rev} ({r.commit[:7]}) | {r.nodes} | {spaced(r.median)} | "
                     f"{spaced(min(r.speeds))}, {spaced(max(r.speeds))} | **{r.median / first:.2f}** |")
    return "\n".join(lines)


def busy_cores() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("revs", nargs="+", metavar="REV", help="commits or branches; the first is the peer")
    p.add_argument("--depth", type=int, default=8, help="bench depth (default 8)")
    p.add_argument("--rounds", type=int, default=3, help="bench runs per build (default 3)")
    p.add_argument("--builds", type=Path, default=sprt_builds.DEFAULT_BUILDS,
                   help=f"worktrees (default {sprt_builds.DEFAULT_BUILDS})")
    p.add_argument("--genome", type=Path, help="bench every build with this genome file "
                   "(default: each build's hand-set genome)")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions per node under callgrind instead of timing (any load)")
    p.add_argument("--perft", type=int, metavar="D",
                   help="with --instructions: also `genchess perft D` from the start position")
    args = p.parse_args(argv)
    if len(args.revs) < 2:
        print("bench_builds: give two revisions or more: the first is the one the others are "
              "measured against", file=sys.stderr)
        return 2
    if args.depth < 1 or args.rounds < 1:
        print("bench_builds: --depth and --rounds must be 1 or more", file=sys.stderr)
        return 2
    if args.genome is not None:
        if not args.genome.is_file():
            print(f"bench_builds: --genome {args.genome}: no such file", file=sys.stderr)
            return 2
        args.genome = args.genome.resolve()         # the builds run in their own trees
    try:
        results = [BuildResult(rev, sprt_builds.resolve(rev)) for rev in args.revs]
        trees = [sprt_builds.prepare(r.commit, args.builds) for r in results]
    except sprt_builds.BuildError as e:
        print(f"bench_builds: {e}", file=sys.stderr)
        return 2
    if args.instructions:
        return count_instructions(args, results, trees)
    load = busy_cores()
    if load > 0.5:
        print(f"bench_builds: warning: load average {load:.1f}: the machine is not idle, "
              "the speeds will be low and noisy", file=sys.stderr)
    try:
        for round_no in range(1, args.rounds + 1):
            for r, tree in zip(results, trees):
                nodes, speed = run_bench(tree, args.depth, args.genome)
                r.nodes = nodes
                r.speeds.append(speed)
                print(f"round {round_no}/{args.rounds}: {r.rev}: {nodes} nodes, {spaced(speed)} nodes/s", flush=True)
    except BenchOutputError as e:
        print(f"bench_builds: {e}", file=sys.stderr)
        return 2
    print()
    print(report(results, args.depth, args.rounds, args.genome))
    return 0


def count_instructions(args, results: list[BuildResult], trees: list[Path]) -> int:
    """`--instructions`: each build's bench (and perft) under callgrind, once."""
    labels = [f"bench --depth {args.depth}"] + ([f"perft {args.perft}"] if args.perft else [])
    table: dict[str, list[tuple[str, int, float]]] = {}
    try:
        for r, tree in zip(results, trees):
            bench_help = subprocess.run([str(tree / "genchess-uci"), "bench", "--help"],
                                        capture_output=True, text=True).stdout
            pairs = [(bench_command(tree, args.depth, bench_help, args.genome),
                      bench_command(tree, 1, bench_help, args.genome))]
            if args.perft:
                pairs.append(([str(tree / "genchess-uci"), "perft", str(args.perft)],
                              [str(tree / "genchess-uci"), "perft", "1"]))
            rows = []
            for label, pair in zip(labels, pairs):
                nodes, per_node = instructions_per_node(pair)
                rows.append((label, nodes, per_node))
                print(f"{r.rev}: {label}: {nodes} nodes, {per_node:.1f} instructions/node", flush=True)
            table[f"{r.rev} ({r.commit[:7]})"] = rows
    except (BenchOutputError, FileNotFoundError) as e:
        print(f"bench_builds: {e}", file=sys.stderr)
        return 2
    print()
    print(count_report(table, labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
