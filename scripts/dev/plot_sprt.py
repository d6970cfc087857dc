"""How an SPRT got where it is: its LLR and Elo game pair by game pair, from the
match's PGN (as `genchess match --pgn` writes it, plain or gzipped; a running
match's file too), drawn as a PNG and summed up as a markdown table.

    python scripts/dev/plot_sprt.py MATCH.pgn [--engine NAME] [--sprt elo0=0 elo1=10]
                                [--out MATCH.png]

Games count in the order they finished (the file's order) and a pair counts once
both its games are in, as the match counted them, so the last row is what the
match printed last. The engine is the one that plays White in the first game of a
pair (the match's first engine) unless --engine names the other; games between other
engines (a gauntlet's file) are passed over. The SPRT is the project's [0, 10]
unless --sprt says otherwise, in `genchess match --sprt`'s words.
"""

from __future__ import annotations

import argparse
import gzip
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from genchess.strength.runner import pair_and_game
from genchess.strength.sprt import Sprt, parse_sprt
from genchess.strength.stats import EloEstimate, format_elo
from genchess.strength.tally import Tally


class MatchFileError(ValueError):
    """The PGN is not a `genchess match` file this script can follow."""


@dataclass(frozen=True)
class Point:
    """The match after one more completed pair."""
    games: int
    wins: int
    draws: int
    losses: int
    estimate: EloEstimate   # from the pairs (pentanomial), as the match prints it
    llr: float


@dataclass(frozen=True)
class Trajectory:
    engine: str
    opponent: str
    sprt: Sprt
    points: list[Point]


def _open(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    return opener(path, "rt", encoding="utf-8", errors="replace")


def read_trajectory(path: Path, sprt: Sprt, engine: str | None = None) -> Trajectory:
    """Replay the results of `path` into a Tally, noting the match after every pair."""
    import chess.pgn

    tally = Tally(sprt)
    points: list[Point] = []
    players: tuple[str, str] | None = None
    try:
        with _open(path) as handle:
            index = 0
            while (headers := chess.pgn.read_headers(handle)) is not None:
                index += 1
                where = f"{path}, game {index}"
                white, black = headers.get("White", "?"), headers.get("Black", "?")
                try:
                    pair, game = pair_and_game(headers)
                except ValueError as e:
                    raise MatchFileError(f"{where}: {e}, so its game pairs are unknown") from None
                if players is None:
                    if engine is not None and engine not in (white, black):
                        continue
                    first = white if game == 1 else black
                    second = black if game == 1 else white
                    players = (first, second) if engine in (None, first) else (second, first)
                if {white, black} != set(players):
                    continue
                if tally.add(headers.get("Result", "*"), white=white == players[0], pair=pair):
                    s = tally.stats
                    points.append(Point(s.games, s.wins, s.draws, s.losses, s.pentanomial_elo(),
                                        sprt.last_llr))
    except FileNotFoundError:
        raise MatchFileError(f"{path}: no such file") from None
    except (OSError, EOFError) as e:
        raise MatchFileError(f"{path}: cannot read it ({e})") from None
    if players is None:
        raise MatchFileError(f"{path}: no games" + (f" of {engine}" if engine else ""))
    return Trajectory(players[0], players[1], sprt, points)


def checkpoints(points: list[Point], rows: int = 10) -> list[Point]:
    """About `rows` evenly spaced points, always the last."""
    if not points:
        return []
    step = max(1, len(points) // rows)
    chosen = points[step - 1::step]
    if chosen[-1] is not points[-1]:
        chosen.append(points[-1])
    return chosen


def markdown_table(trajectory: Trajectory) -> str:
    sprt = trajectory.sprt
    lines = [f"{trajectory.engine} vs {trajectory.opponent}, SPRT [{sprt.elo0:g}, {sprt.elo1:g}] "
             f"{sprt.model} (LLR bounds {sprt.lower:+.2f}, {sprt.upper:+.2f}):", "",
             "| games | W-D-L | Elo (pairs, 95%) | LLR |", "|---:|---:|---:|---:|"]
    for p in checkpoints(trajectory.points):
        lines.append(f"| {p.games} | +{p.wins} ={p.draws} -{p.losses} | "
                     f"{format_elo(p.estimate)} | {p.llr:+.2f} |")
    return "\n".join(lines)


def plot(trajectory: Trajectory, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sprt, points = trajectory.sprt, trajectory.points
    games = [p.games for p in points]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 6.5),
                                      gridspec_kw={"height_ratios": [3, 2]})
    top.plot(games, [p.llr for p in points], color="C0", label="LLR")
    top.axhline(sprt.upper, color="C2", linestyle="--",
                label=f"{sprt.upper:+.2f}: H1 accepted ({sprt.elo1:g} Elo)")
    top.axhline(sprt.lower, color="C3", linestyle="--",
                label=f"{sprt.lower:+.2f}: H0 accepted ({sprt.elo0:g} Elo)")
    top.set_ylim(min(sprt.lower, min(p.llr for p in points)) - 0.3,
                 max(sprt.upper, max(p.llr for p in points)) + 0.3)
    top.set_ylabel("log-likelihood ratio")
    top.legend(loc="center right", fontsize=8)
    top.grid(alpha=0.3)
    last = points[-1]
    top.set_title(f"{trajectory.engine} vs {trajectory.opponent}: SPRT [{sprt.elo0:g}, {sprt.elo1:g}] "
                  f"{sprt.model}, {last.games} games\n+{last.wins} ={last.draws} -{last.losses}, "
                  f"{format_elo(last.estimate)} Elo, LLR {last.llr:+.2f}", fontsize=10)
    # A perfect score so far (the first pair won twice) has no finite Elo: left out.
    def finite(values):
        return [v if math.isfinite(v) else math.nan for v in values]

    estimates = [p.estimate for p in points]
    bottom.fill_between(games, finite(e.low for e in estimates), finite(e.high for e in estimates),
                        color="C0", alpha=0.2, label="95% interval")
    bottom.plot(games, finite(e.elo for e in estimates), color="C0", label="Elo from game pairs")
    bottom.axhline(0, color="black", linewidth=0.8)
    # The interval of the first few pairs is hundreds of Elo wide: show where it settles.
    settled = [v for p in points if p.games >= games[-1] / 10
               for v in (p.estimate.low, p.estimate.high) if math.isfinite(v)]
    if settled:
        bottom.set_ylim(min(min(settled), 0) - 5, max(max(settled), 0) + 5)
    bottom.set_ylabel("Elo")
    bottom.set_xlabel("games")
    bottom.legend(loc="lower right", fontsize=8)
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pgn", type=Path, help="the match's PGN file (.pgn or .pgn.gz)")
    p.add_argument("--engine", help="the engine whose side is counted (default: the match's "
                                    "first engine)")
    p.add_argument("--sprt", nargs="+", metavar="KEY=VALUE", default=[],
                   help="the SPRT, as genchess match takes it (default elo0=0 elo1=10)")
    p.add_argument("--out", type=Path, help="the PNG to write (default: beside the PGN, "
                                            "named after it)")
    args = p.parse_args(argv)
    try:
        sprt = parse_sprt(args.sprt)
    except ValueError as e:
        print(f"plot_sprt.py: {e}", file=sys.stderr)
        return 2
    try:
        trajectory = read_trajectory(args.pgn, sprt, args.engine)
    except MatchFileError as e:
        print(f"plot_sprt.py: {e}", file=sys.stderr)
        return 1
    if not trajectory.points:
        print(f"plot_sprt.py: {args.pgn}: no complete game pair yet", file=sys.stderr)
        return 1
    out = args.out or args.pgn.with_name(args.pgn.name.removesuffix(".gz").removesuffix(".pgn")
                                         + ".png")
    plot(trajectory, out)
    print(markdown_table(trajectory))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
