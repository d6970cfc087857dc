"""What checking a returned game costs against playing it (parallel/replay.py).

GameExecutor replays every game a worker sends back with python-chess before the
trainer records it. This plays timed games between random genomes as a gene-pool
trainer does (play_job, `--seconds` per side, no increment) in this process, one
after another, and times result_problem on each: the replay's cost per game and
per ply, and as a share of the game's own wall time. Then a long game: the
longest of 50 between random movers (hundreds of plies, most of them reversible,
which is what makes the repetition check work). The check runs on the trainer, not the workers, on a thread of its own;
the share says how much of one core the trainer spends checking per core of
games. Usage:

    python scripts/bench/bench_replay.py [--games 20] [--seconds 0.5]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from genchess.genome import Genome  # noqa: E402
from genchess.game import play_game  # noqa: E402
from genchess.parallel.replay import record_problem, result_problem  # noqa: E402
from genchess.parallel.worker import GameJob, play_job  # noqa: E402
from genchess.players.random_player import RandomPlayer  # noqa: E402


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=0.5, help="per side (default 0.5)")
    args = parser.parse_args()
    rng = random.Random(1)
    checks, plies, shares = [], [], []
    for n in range(args.games):
        white, black = Genome.random(rng, 2 * n), Genome.random(rng, 2 * n + 1)
        job = GameJob.between(white, black, round=1, seconds=args.seconds)
        result, game_seconds = timed(play_job, job)
        problem, check_seconds = timed(result_problem, result, job)
        assert problem is None, problem
        checks.append(check_seconds)
        plies.append(len(result.record.moves))
        shares.append(check_seconds / game_seconds)
    print(f"{args.games} games of {args.seconds:g} s per side, {statistics.mean(plies):.0f} plies on "
          f"average (longest {max(plies)}):")
    print(f"  check per game: median {1000 * statistics.median(checks):.2f} ms, "
          f"longest {1000 * max(checks):.2f} ms; {1e6 * sum(checks) / sum(plies):.0f} us per ply")
    print(f"  share of the game's wall time: median {100 * statistics.median(shares):.2f}%, "
          f"largest {100 * max(shares):.2f}%")
    record = max((play_game(RandomPlayer(2 * n), RandomPlayer(2 * n + 1)) for n in range(50)),
                 key=lambda r: len(r.moves))
    problem, seconds = timed(record_problem, record, timed=False)
    assert problem is None, problem
    print(f"  a long game, the longest of 50 between random movers ({len(record.moves)} plies, "
          f"{record.termination}): {1000 * seconds:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
