"""Positions an hour on this machine: the data machine against the set maker it replaces, in one run.

Three pipelines make self-play positions labelled by the search that chose each move,
taking turns (A, B, C, A, B, C ...) so that what else the machine does falls on all
of them alike:

  A. the first self-play set's recipe (data/selfplay, 2026-11-29): `genchess positions
     --play genchess --nodes 5000 --random-plies 8 --per-game 400 --mentor genchess:game`
     with unified.genome, 32-byte packed records gzipped;
  B. the same command with the default genome (the network), what the set maker
     would give today;
  C. `genchess datagen` with its default recipe (the network, a soft node limit,
     adjudication, Chess960 openings in its share), game chains.

Each round plays --games games a pipeline on --workers processes and counts the
positions written and the wall time. It prints positions an hour, bytes a position on
disk, plies a game, and the ratios C/A and C/B. Label quality at each limit is the
study scripts/studies/label_depth.py's (docs/datagen.md).

    python scripts/bench/bench_datagen.py [--games 200] [--rounds 2] [--workers 2]

Run it on an idle machine: it is a stopwatch on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def genchess(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genchess", *args], cwd=REPO, capture_output=True,
                          text=True)


def old_pipeline(genome: str, games: int, workers: int, seed: int, out_dir: Path) -> dict:
    out = out_dir / f"positions-{Path(genome).stem}-{seed}.gcpos.gz"
    t0 = time.perf_counter()
    done = genchess("positions", "--play", "genchess", "--games", str(games), "--nodes", "5000",
                    "--random-plies", "8", "--per-game", "400", "--genome", genome,
                    "--mentor", "genchess:game", "--seed", str(seed), "--workers", str(workers),
                    "-o", str(out))
    seconds = time.perf_counter() - t0
    if done.returncode:
        sys.exit(f"bench_datagen: genchess positions failed: {done.stderr.strip()[-400:]}")
    sidecar = json.loads(Path(str(out) + ".json").read_text())
    return {"positions": sidecar["positions"], "plies": sidecar["games"]["plies"], "games": games,
            "seconds": seconds, "bytes": out.stat().st_size}


def data_machine(games: int, workers: int, seed: int, out_dir: Path) -> dict:
    folder = out_dir / f"machine-{seed}"
    t0 = time.perf_counter()
    done = genchess("datagen", str(folder), "--games-per-chunk", str(games), "--chunks", "1",
                    "--seed", str(seed), "--workers", str(workers))
    seconds = time.perf_counter() - t0
    if done.returncode:
        sys.exit(f"bench_datagen: genchess datagen failed: {done.stderr.strip()[-400:]}")
    [row] = json.loads((folder / "MANIFEST.json").read_text())
    return {"positions": row["positions"], "plies": row["plies"], "games": games, "seconds": seconds,
            "bytes": row["bytes"]}


def total(runs: list[dict]) -> dict:
    return {k: sum(r[k] for r in runs) for k in runs[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games a pipeline a round (default 200)")
    parser.add_argument("--rounds", type=int, default=2, help="turns of each pipeline (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.rounds} rounds of {args.games} games a pipeline on {args.workers} processes")
    pipelines = {
        "A. genchess positions, unified.genome (the first set's recipe)":
            lambda seed, d: old_pipeline("genchess/genomes/unified.genome", args.games, args.workers, seed, d),
        "B. genchess positions, network.genome":
            lambda seed, d: old_pipeline("genchess/genomes/network.genome", args.games, args.workers, seed, d),
        "C. genchess datagen, its default recipe":
            lambda seed, d: data_machine(args.games, args.workers, seed, d),
    }
    runs = {name: [] for name in pipelines}
    with tempfile.TemporaryDirectory(prefix="bench-datagen-") as scratch:
        for round_ in range(args.rounds):
            for name, run in pipelines.items():
                runs[name].append(run(1000 + round_, Path(scratch)))
                r = runs[name][-1]
                print(f"  round {round_ + 1}, {name[:2]} {r['positions']:,} positions in {r['seconds']:.1f} s",
                      flush=True)
    print("\n| pipeline | positions | plies a game | positions an hour | bytes a position |")
    print("|---|---:|---:|---:|---:|")
    rates = {}
    for name, results in runs.items():
        t = total(results)
        rates[name[0]] = t["positions"] * 3600 / t["seconds"]
        print(f"| {name} | {t['positions']:,} | {t['plies'] / t['games']:.1f} | {rates[name[0]]:,.0f} "
              f"| {t['bytes'] / t['positions']:.2f} |")
    print(f"\nC/A: {rates['C'] / rates['A']:.2f}x, C/B: {rates['C'] / rates['B']:.2f}x positions an hour")
    return 0


if __name__ == "__main__":
    sys.exit(main())
