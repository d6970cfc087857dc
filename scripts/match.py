"""A match between two players, with the score, an Elo estimate and its error bars.

    python scripts/match.py genetic:pool.txt genetic --games 40 --time 2 --increment 0.05
    python scripts/match.py genetic:pool.txt:517 "genetic:pool.txt:0-31" --games 40

Players are `genchess play` spellings. The second may name a range of genome IDs
(`genetic:FILE:A-B`): the games then cycle through those opponents (e.g. all the
initial random genomes of a gene pool). Colours alternate; each opening of the
EPD file (default: genchess/data/openings.epd if present, else the start
position) is played once with each colour. Games run in-process on a real clock.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    # Only a checkout without an install goes on sys.path, after the installed
    # GenChess would have been found: processes this one spawns inherit sys.path.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genchess.match import TimeControl, play_game  # noqa: E402
from genchess.players import PlayerSpecError, make_player  # noqa: E402
from genchess.strength.stats import MatchStats, elo_with_interval  # noqa: E402

DEFAULT_OPENINGS = Path(__file__).resolve().parents[1] / "genchess" / "data" / "openings.epd"


def expand(spec: str) -> list[str]:
    """`genetic:FILE:A-B` -> one spelling per ID; anything else as it is."""
    parts = spec.split(":")
    if len(parts) == 3 and "-" in parts[2]:
        lo, hi = (int(x) for x in parts[2].split("-"))
        return [f"{parts[0]}:{parts[1]}:{i}" for i in range(lo, hi + 1)]
    return [spec]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player")
    parser.add_argument("opponent")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=2.0, help="seconds per side (default 2)")
    parser.add_argument("--increment", type=float, default=0.05)
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS) if DEFAULT_OPENINGS.exists() else None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--depth", type=int, help="engines search this fixed depth per move, no "
                        "clock (on a loaded machine clocks measure the load, not the engines)")
    args = parser.parse_args()
    try:
        player = make_player(args.player, args.seed)
        opponents = [make_player(s, args.seed + i + 1) for i, s in enumerate(expand(args.opponent))]
    except PlayerSpecError as e:
        print(f"match: {e}", file=sys.stderr)
        return 2
    openings = [None]
    if args.openings:
        openings = [" ".join(line.split()[:4]) for line in Path(args.openings).read_text().splitlines()
                    if line.strip()]
    control = TimeControl(args.time, args.increment)
    if args.depth:
        control = None
        for p in [player, *opponents]:
            if hasattr(p, "untimed_ms"):    # genome players: the depth decides, not a move time
                p.player.depth, p.untimed_ms = args.depth, 10 ** 9
    stats = MatchStats()
    for game in range(args.games):
        opponent = opponents[game % len(opponents)]
        fen = openings[(game // 2) % len(openings)]
        white, black = (player, opponent) if game % 2 == 0 else (opponent, player)
        record = play_game(white, black, fen, control)
        score = {"1-0": 1.0, "0-1": 0.0}.get(record.result, 0.5)
        stats.add_game(score if white is player else 1 - score)
        print(f"game {game + 1:3}: {record.white} - {record.black} {record.result} ({record.reason})",
              flush=True)
    print(f"\n{args.player} vs {args.opponent}: +{stats.wins} ={stats.draws} -{stats.losses}, "
          f"score {stats.score:.1%}, Elo {elo_with_interval(stats.elo())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
