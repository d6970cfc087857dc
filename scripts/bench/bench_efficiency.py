"""Search efficiency beside Ethereal's and Stockfish's: speed, depth for the time, and how soon
each finds the move its own deep search plays.

Every engine (GenChess with the default genome over UCI, Ethereal 12 and Stockfish
15.1 from Debian, one thread and 64 MB of hash each) searches each of the bench
positions (genchess.bench.BENCH_POSITIONS) once for --deep seconds from a new game
(a cleared hash), and every `info` line is kept: depth, time, nodes, best move. From
them, per engine:

- nodes a second over the whole search;
- the depth reached at 0.1, 0.4 and 1.6 seconds (a 10+0.1 game thinks some 0.3 s a
  move): how deep each engine sees for the same time;
- the effective branching factor, (nodes to depth d / nodes to depth d - 2) ** 0.5,
  the median over positions and depths in the last half of the search;
- time to the deep move: when the best move became, and stayed, the move the engine
  plays after --deep seconds (the median over positions): how soon the search settles
  on what more time would not change.

A node is what each engine counts (all of them count quiescence nodes), so nodes a
second compares the cost of a node, and time to the deep move what the search does
with them. Depths differ in meaning between engines (reductions and extensions
differ): compare depths of one engine across the time points, and times across engines.

    python scripts/bench/bench_efficiency.py [--deep 4] [--positions 16]

Run it on an idle machine: a stopwatch per engine, one engine at a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys

import chess
import chess.engine

from genchess.bench import BENCH_POSITIONS

HASH_MB = 64
TIME_POINTS = (0.1, 0.4, 1.6)


def engines() -> list[tuple[str, list[str]]]:
    found = [("GenChess (network.genome)", [sys.executable, "-m", "genchess", "uci"])]
    for name, binary in (("Ethereal 12", "ethereal-chess"), ("Stockfish 15.1", "stockfish")):
        path = shutil.which(binary) or shutil.which(binary, path="/usr/games")
        if path is None:
            print(f"bench_efficiency: {binary} not found (apt-get install {binary}); left out")
        else:
            found.append((name, [path]))
    return found


def search(engine: chess.engine.SimpleEngine, fen: str, seconds: float) -> list[dict]:
    """The info lines with a depth and a PV of one search of `fen` from a new game."""
    lines = []
    board = chess.Board(fen)
    with engine.analysis(board, chess.engine.Limit(time=seconds), game=object()) as analysis:
        for info in analysis:
            # Ethereal sends some lines with an empty PV (a fail-low report): no move to read.
            if "depth" in info and info.get("pv") and info.get("time") is not None:
                lines.append({"depth": info["depth"], "time": info["time"], "nodes": info.get("nodes", 0),
                              "move": info["pv"][0]})
    return lines


def measures(lines: list[dict]) -> dict:
    deep_move = lines[-1]["move"]
    settled = next((line["time"] for i, line in enumerate(lines)
                    if all(later["move"] == deep_move for later in lines[i:])), lines[-1]["time"])
    by_depth: dict[int, dict] = {}
    for line in lines:                          # the last line of each depth
        by_depth[line["depth"]] = line
    depths = sorted(by_depth)
    ebf = [(by_depth[d]["nodes"] / by_depth[d - 2]["nodes"]) ** 0.5 for d in depths[len(depths) // 2:]
           if d - 2 in by_depth and by_depth[d - 2]["nodes"] > 0]
    reached = {t: max([line["depth"] for line in lines if line["time"] <= t], default=0) for t in TIME_POINTS}
    last = lines[-1]
    return {"nps": last["nodes"] / max(last["time"], 1e-9), "settled": settled, "ebf": ebf,
            "reached": reached, "from_start": all(line["move"] == deep_move for line in lines)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deep", type=float, default=4.0, help="seconds of each search (default 4)")
    parser.add_argument("--positions", type=int, default=len(BENCH_POSITIONS),
                        help=f"the first N bench positions (default all {len(BENCH_POSITIONS)})")
    args = parser.parse_args()
    fens = BENCH_POSITIONS[:args.positions]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{len(fens)} positions, {args.deep} s each, one thread, {HASH_MB} MB")
    rows = []
    for name, command in engines():
        with chess.engine.SimpleEngine.popen_uci(command) as engine:
            engine.configure({"Threads": 1, "Hash": HASH_MB})
            results = [measures(search(engine, fen, args.deep)) for fen in fens]
        rows.append((name, results))
        print(f"  {name}: done", flush=True)
    # Time to the deep move: in many positions every engine has it from its first
    # iteration, so the median alone reads 0; the share that had it from the start and
    # the mean over all positions say how often and how long the rest took.
    print(f"\n| engine | nodes a second | depth at {' / '.join(f'{t} s' for t in TIME_POINTS)} "
          f"| branching factor | time to the deep move (median, mean) | deep move from the first iteration |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, results in rows:
        nps = statistics.median(r["nps"] for r in results)
        depths = " / ".join(f"{statistics.median(r['reached'][t] for r in results):g}" for t in TIME_POINTS)
        ebf = statistics.median(x for r in results for x in r["ebf"]) if any(r["ebf"] for r in results) else 0
        settled = statistics.median(r["settled"] for r in results)
        mean_settled = statistics.fmean(r["settled"] for r in results)
        from_start = sum(r["from_start"] for r in results)
        print(f"| {name} | {nps:,.0f} | {depths} | {ebf:.2f} | {settled:.2f} s, {mean_settled:.2f} s "
              f"| {from_start} of {len(results)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
