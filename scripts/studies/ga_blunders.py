"""Blunder check against Stockfish, after Dehghani and Babamir's Table 4.

On the positions of genchess/data/real_games.epd (from three famous games), the GA
tree search and the full alpha-beta search each choose a move in --movetime ms
(same evaluation: the hand-set genome, or --genome). Debian's Stockfish scores each
move at a fixed depth (--sf-depth, restricted to that move) against its own best
move; a move more than --margin centipawns below the best is a blunder. Mates count
as +-100000 cp. Prints the table, the blunder count of each search, and how large
the GA's reservation tree grew (a tree that reaches --ga-nodes stops the GA early,
so more time cannot help it).

    nice -n 10 python scripts/studies/ga_blunders.py [--movetime 1000] [--sf-depth 14] [--level 1]
                                             [--genome FILE] [--ga-nodes N]

Needs Stockfish (apt-get install stockfish; looked for on PATH and in /usr/games).
"""

from __future__ import annotations

import argparse
import shutil
import sys

import chess
import chess.engine

from comparison_common import (DATA, add_engine_arguments, engine_from_arguments, epd_positions,
                               markdown_table)
from genchess.strength.engines import STARTUP_TIMEOUT
from genchess.timeman import Limits
from genchess_core import Board

MATE_CP = 100_000


def stockfish_path() -> str:
    path = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if path is None:
        sys.exit("ga_blunders: stockfish is not installed (apt-get install stockfish)")
    return path


def sf_value(sf, board: chess.Board, depth: int, move: chess.Move | None = None) -> tuple[int, chess.Move]:
    """Stockfish's value (cp, side to move's view) of its best move, or of `move`."""
    info = sf.analyse(board, chess.engine.Limit(depth=depth), root_moves=[move] if move else None)
    return info["score"].pov(board.turn).score(mate_score=MATE_CP), info["pv"][0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--movetime", type=int, default=1000, help="ms per move for both searches")
    parser.add_argument("--sf-depth", type=int, default=14)
    parser.add_argument("--margin", type=int, default=150, help="centipawns below best = blunder")
    parser.add_argument("--level", type=int, choices=(1, 2), default=1, help="the GA's GA Init Level")
    parser.add_argument("--epd", default=str(DATA / "real_games.epd"))
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    from pathlib import Path
    positions = epd_positions(Path(args.epd))
    searches = {"GA": engine_from_arguments(args, "ga", args.level),
                "alpha-beta": engine_from_arguments(args, "iterative")}
    rows, blunders, trees = [], {name: 0 for name in searches}, []
    path = stockfish_path()
    try:
        # A loaded machine can take longer than python-chess's 10 s to load Stockfish's net.
        stockfish = chess.engine.SimpleEngine.popen_uci(path, timeout=STARTUP_TIMEOUT)
    except (chess.engine.EngineError, TimeoutError) as error:
        sys.exit(f"ga_blunders: {path} did not start as a UCI engine "
                 f"within {STARTUP_TIMEOUT:.0f} s: {error or type(error).__name__}")
    with stockfish as sf:
        sf.configure({"Threads": 1, "Hash": 64})
        for fen, ops in positions:
            board = chess.Board(fen)
            best, best_move = sf_value(sf, board, args.sf_depth)
            row = [ops.get("id", fen), f"{board.san(best_move)} {best}"]
            for name, engine in searches.items():
                engine.new_game()
                engine.board = Board(fen)
                reports = []
                move = chess.Move.from_uci(engine.search(Limits(movetime=args.movetime),
                                                         reports.append).bestmove)
                if name == "GA":
                    trees.append(ga_tree(reports))
                value = best if move == best_move else sf_value(sf, board, args.sf_depth, move)[0]
                blunder = best - value > args.margin
                blunders[name] += blunder
                row.append(f"{board.san(move)} {value}" + (" **blunder**" if blunder else ""))
            rows.append(row)
            print(" | ".join(str(c) for c in row), file=sys.stderr, flush=True)
    print(markdown_table(["position", f"Stockfish d{args.sf_depth} best (cp)"]
                         + [f"{name} move (cp)" for name in searches], rows))
    print()
    print(markdown_table(["search", "positions", f"blunders (> {args.margin} cp below best)"],
                         [[name, len(positions), count] for name, count in blunders.items()]))
    if trees:
        sizes = sorted(size for size, _ in trees)
        full = sum(full for _, full in trees)
        print(f"\nGA reservation tree: median {sizes[len(sizes) // 2]:,} nodes, largest "
              f"{sizes[-1]:,}; the pool of {args.ga_nodes:,} nodes filled (and stopped the GA "
              f"before its time) in {full} of {len(trees)} positions")
    return 0


def ga_tree(reports) -> tuple[int, bool]:
    """The GA's tree size, and whether its pool filled, from its last report
    (`ga tree N branches B generations G [pool full]`)."""
    for info in reversed(reports):
        words = (info.string or "").split()
        if words[:2] == ["ga", "tree"]:
            return int(words[2]), words[-2:] == ["pool", "full"]
    return 0, False


if __name__ == "__main__":
    raise SystemExit(main())
