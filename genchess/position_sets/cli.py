"""`genchess positions`: make a labelled position set from games.

The command's arguments and their checks; the run itself (games in order, the
journal, resume, the recipe in the sidecar) is run.py, one game's work
is making.py.
"""

from __future__ import annotations

import argparse
import os
import sys

from genchess.console import at_least, run_command
from genchess.position_sets.epd import MENTOR_CLAMP_CP
from genchess.position_sets.run import PROG, PositionsRun, UsageError

ENGINES = ("genchess", "stockfish")


def add_positions_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="the set to write (EPD; gzipped when the name ends in .gz); a sidecar "
                        "FILE.json says how it was made")
    p.add_argument("--pgn", metavar="FILE", nargs="+", action="extend", default=[],
                   help="take games from these PGN files (any: a user's, the trainers' "
                        "*_games.txt, genchess match's)")
    p.add_argument("--play", metavar="ENGINE", choices=ENGINES, action="append", default=[],
                   help="play games: genchess or stockfish self-play (repeat for a mix; each "
                        "--play takes the --games and --nodes (or --depth) given in the same order)")
    p.add_argument("--games", metavar="N", type=_count, action="append", default=[],
                   help="games to play for each --play (one value serves them all)")
    p.add_argument("--nodes", metavar="N", type=_positive, action="append", default=[],
                   help="nodes per move for each --play (default: genchess 5000, stockfish 20000)")
    p.add_argument("--depth", metavar="N", type=_positive, action="append", default=[],
                   help="instead of --nodes, a fixed depth per move for each --play: with "
                        "--mentor genchess:game, labels as close to a deeper search as a node "
                        "count's for about 30%% fewer nodes (docs/network.md)")
    p.add_argument("--genome", metavar="FILE", default=argparse.SUPPRESS,
                   help="genome of GenChess's games and of the quiescence search that resolves "
                        "every position (default: the default genome, genomes/network.genome)")
    p.add_argument("--openings", metavar="FILE",
                   help="start positions of the games played (EPD, PGN or UCI moves; default: "
                        "genchess/data/openings.epd)")
    p.add_argument("--variant", metavar="VARIANT", default="standard",
                   help="standard (the default) or chess960: the games played start from "
                        "Chess960's 960 start positions in an order --seed chooses (or from "
                        "--openings, played by Chess960's rules)")
    p.add_argument("--random-plies", metavar="N", type=_count, default=2,
                   help="random legal plies after each opening, so games do not repeat (default 2); "
                        "keep it even: with an odd number one side makes one random move more, and "
                        "wins far less (3 gave 0-1 in 55%% of games, 1-0 in 31%%)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the random plies and the sampling; each game's randomness is "
                        "keyed by (seed, game number) (default 0)")
    p.add_argument("--skip-plies", metavar="N", type=_count, default=8,
                   help="plies after the opening (or the PGN game's start) never sampled (default 8)")
    p.add_argument("--per-game", metavar="N", type=_positive, default=8,
                   help="positions sampled per game, spread over it (default 8)")
    p.add_argument("--mentor", metavar="LIMIT",
                   help="score each position with Stockfish (depth=N or nodes=N) or with GenChess's "
                        "own search and genome (genchess:depth=N or genchess:nodes=N), or (genchess:game, "
                        "with --play genchess) keep the positions of GenChess's games whose played move "
                        "is quiet, scored by the search that chose it, at no extra cost; ce, clamped "
                        f"to +-{MENTOR_CLAMP_CP} cp")
    p.add_argument("--stockfish", metavar="PATH", default="stockfish",
                   help="the Stockfish binary (default: stockfish on PATH, then /usr/games/stockfish)")
    p.add_argument("--workers", metavar="N", type=_positive, default=os.cpu_count() or 1,
                   help="worker processes (default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the games on a dask cluster: tcp://HOST:PORT or local:N")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run (or grow a finished one) with the same "
                        "arguments; without it an existing output is refused")
    p.error = _one_line_error


def _one_line_error(message: str):
    """argparse's error without the usage block: one line, exit status 2."""
    print(f"{PROG}: {message}", file=sys.stderr)
    raise SystemExit(2)


_positive, _count = at_least(1), at_least(0)


# ------------------------------------------------------------------ the command

def cmd_positions(args) -> int:
    try:
        run = PositionsRun(args)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    # A file that cannot be written (a full disk, a read-only folder): one line.
    return run_command(PROG, run.run, (UsageError,))
