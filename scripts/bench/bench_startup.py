"""Start-up time of `genchess uci` against Stockfish, in one run.

A GUI or tournament manager starts the engine, sends `uci` and waits for
`uciok`; a slow start delays every game and can make cutechess-cli give up.
Both engines are timed the same way, from process start to the `uciok` line,
each run a fresh process, alternating between them so that a change in machine
load hits both. The target for GenChess is a median under 0.5 s. Usage:

    python scripts/bench/bench_startup.py [-n RUNS] [--stockfish PATH]
"""

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TARGET_MEDIAN = 0.5


def genchess_command() -> tuple[list[str], dict]:
    """`genchess uci`: the console script next to this Python, else `python -m genchess`
    with the repository on PYTHONPATH when it is not installed."""
    env = dict(os.environ)
    script = Path(sys.executable).parent / "genchess"
    if script.exists():
        return [str(script), "uci"], env
    spec = importlib.util.find_spec("genchess")
    if spec is None or spec.origin is None or REPO_ROOT in Path(spec.origin).resolve().parents:
        old = env.get("PYTHONPATH")
        env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + old if old else "")
    return [sys.executable, "-m", "genchess", "uci"], env


def time_to_uciok(argv: list[str], env: dict | None = None, timeout: float = 30.0) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
    try:
        proc.stdin.write("uci\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.strip() == "uciok":
                return time.perf_counter() - start
            if time.perf_counter() - start > timeout:
                break
        raise RuntimeError(f"{argv[0]} gave no uciok (exit code {proc.poll()})")
    finally:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
        except OSError:
            pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def summary(name: str, times: list[float]) -> str:
    return (f"{name:<10} min {min(times):.3f} s   median {statistics.median(times):.3f} s   "
            f"max {max(times):.3f} s   ({len(times)} runs)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--runs", type=int, default=10, help="starts of each engine (default 10)")
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or shutil.which(
        "stockfish", path="/usr/games"), help="Stockfish binary (default: from PATH or /usr/games)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    argv, env = genchess_command()
    print(f"GenChess:  {' '.join(argv)}")
    print(f"Stockfish: {args.stockfish or 'not found (apt-get install stockfish)'}")
    time_to_uciok(argv, env)                       # warm the page cache and .pyc files once
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(time_to_uciok(argv, env))
        if args.stockfish:
            theirs.append(time_to_uciok([args.stockfish]))
    print(summary("GenChess", ours))
    if theirs:
        print(summary("Stockfish", theirs))
        ratio = statistics.median(ours) / statistics.median(theirs)
        print(f"median ratio GenChess / Stockfish: {ratio:.1f}x")
    median = statistics.median(ours)
    verdict = "meets" if median < TARGET_MEDIAN else "MISSES"
    print(f"GenChess median {median:.3f} s {verdict} the target of {TARGET_MEDIAN} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
