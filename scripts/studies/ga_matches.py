"""The GA tree search in games, after Dehghani and Babamir's Fig. 33, Fig. 34 and Table 6.

`depth`: for each depth limit, a match of the GA (search mode `ga`) against plain
minimax (Fig. 33) and against the full alpha-beta search with PVS and null move
(Fig. 34) at that fixed depth, same evaluation on both sides (the hand-set genome, or
--genome).
Budgets are matched per depth before the match: the opponent's mean time for a
fixed-depth search over the middle-game positions (comparison_common) becomes
the GA's fixed time per move (never below --min-ms). Each opening is played twice,
colours swapped; a game still going at --max-plies is a draw. Prints a markdown
table (W/D/L and the GA's score %) and writes docs/studies/ga_vs_depth.png.

`levels`: the GA with initial population level 1 (root moves) against level 2
(two-ply branches), both at --movetime (Table 6), with level 2's Elo and its 95%
interval from the game pairs.

    nice -n 10 python scripts/studies/ga_matches.py depth [--games 20] [--minimax-depths 2 3 4]
                                                  [--alphabeta-depths 2 3 4 5 6 7]
    nice -n 10 python scripts/studies/ga_matches.py levels [--games 20] [--movetime 100]
    (both: [--genome FILE] [--ga-nodes N] [--verbose])
"""

from __future__ import annotations

import argparse
from pathlib import Path

from comparison_common import (add_engine_arguments, average_move_seconds, engine_from_arguments,
                               markdown_table, match, middle_game_fens, opening_fens, wdl, pyplot,
                               save_plot)
from genchess.game import EnginePlayer
from genchess.strength.stats import format_elo

OPPONENTS = {"minimax": "minimax", "alpha-beta (PVS, null move)": "iterative"}


def run_depths(args) -> int:
    starts = opening_fens(max(args.games // 2, 1))
    calibration = middle_game_fens(args.calibration_positions)
    depths = {"minimax": args.minimax_depths, "alpha-beta (PVS, null move)": args.alphabeta_depths}
    rows, curves = [], {}
    ga_engine = engine_from_arguments(args, "ga", args.level)
    for name, mode in OPPONENTS.items():
        curves[name] = []
        opponent_engine = engine_from_arguments(args, mode)
        for depth in depths[name]:
            seconds = average_move_seconds(opponent_engine, calibration, depth)
            movetime = max(int(seconds * 1000), args.min_ms)
            ga = EnginePlayer(ga_engine, name="GA", movetime_ms=movetime)
            opponent = EnginePlayer(opponent_engine, name=f"{mode}-d{depth}", depth=depth)
            print(f"GA ({movetime} ms/move) v {name} depth {depth}:", flush=True)
            score = match(ga, opponent, starts, args.max_plies,
                          progress=(lambda line: print(line, flush=True)) if args.verbose else None,
                          pgn=args.pgn)
            rows.append([name, depth, movetime, score.games, wdl(score), f"{100 * score.score:.1f}"])
            curves[name].append((depth, 100 * score.score))
            print(f"  GA W/D/L {wdl(score)}, {100 * score.score:.1f}%", flush=True)
    print()
    print(markdown_table(["opponent", "depth", "GA ms/move", "games", "GA W/D/L", "GA score %"], rows))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, points in curves.items():
        if points:
            ax.plot([d for d, _ in points], [p for _, p in points], marker="o", label=f"GA v {name}")
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 100)
    ax.set_xticks(sorted({d for points in curves.values() for d, _ in points}))
    ax.set_xlabel("opponent's depth limit (plies); GA given the opponent's mean time")
    ax.set_ylabel("GA score %")
    ax.set_title(f"GA tree search by depth (after Dehghani & Babamir, Figs 33-34), "
                 f"{2 * len(starts)} games a point", fontsize=9)
    ax.legend(fontsize=8)
    print(f"\nwrote {save_plot(fig, 'ga_vs_depth.png')}")
    return 0


def run_levels(args) -> int:
    starts = opening_fens(max(args.games // 2, 1))
    one = EnginePlayer(engine_from_arguments(args, "ga", 1), name="GA-level-1", movetime_ms=args.movetime)
    two = EnginePlayer(engine_from_arguments(args, "ga", 2), name="GA-level-2", movetime_ms=args.movetime)
    score = match(two, one, starts, args.max_plies,
                  progress=(lambda line: print(line, flush=True)) if args.verbose else None,
                  pgn=args.pgn)
    print(markdown_table(["match", "time per move", "games", "level 2 W/D/L", "level 2 score %",
                          "level 2 Elo (95%)", "pentanomial"],
                         [["level 2 v level 1", f"{args.movetime} ms", score.games, wdl(score),
                           f"{100 * score.score:.1f}", format_elo(score.pentanomial_elo()),
                           list(score.pairs)]]))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("depth", help="GA v minimax and v alpha-beta by depth (Figs 33-34)")
    p.add_argument("--minimax-depths", type=int, nargs="*", default=[2, 3, 4])
    p.add_argument("--alphabeta-depths", type=int, nargs="*", default=[2, 3, 4, 5, 6, 7])
    p.add_argument("--calibration-positions", type=int, default=8)
    p.add_argument("--min-ms", type=int, default=10, help="the GA's least time per move")
    p.add_argument("--level", type=int, choices=(1, 2), default=1, help="the GA's GA Init Level")
    p.set_defaults(run=run_depths)
    p = sub.add_parser("levels", help="GA Init Level 2 v level 1 (Table 6)")
    p.add_argument("--movetime", type=int, default=100, help="ms per move for both")
    p.set_defaults(run=run_levels)
    for p in sub.choices.values():
        p.add_argument("--games", type=int, default=20, help="games per match (even)")
        p.add_argument("--max-plies", type=int, default=200, help="a longer game is a draw")
        p.add_argument("--verbose", action="store_true", help="print every game")
        p.add_argument("--pgn", type=Path, help="append every game to this PGN file")
        add_engine_arguments(p)
    args = parser.parse_args(argv)
    if args.pgn is not None:
        try:    # found out now, not after the first game
            args.pgn.open("a", encoding="utf-8").close()
        except OSError as error:
            parser.error(f"--pgn {args.pgn}: {error.strerror}")
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
