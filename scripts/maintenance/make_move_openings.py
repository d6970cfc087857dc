"""Write genchess/data/openings_moves.txt: balanced opening lines as UCI moves.

    python scripts/maintenance/make_move_openings.py [--count 100] [--plies 8] [--depth 12]

Engines that cannot set up a position (xboard setboard=0, Fairy-Max) need their
openings as moves from the start. Each line is a random legal walk of --plies
plies (seeded), kept only if Stockfish at --depth scores it within 50 centipawns
(apt-get install stockfish). The file is reproducible from the seed.
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

import chess
import chess.engine

OUT = Path(__file__).resolve().parents[2] / "genchess" / "data" / "openings_moves.txt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--plies", type=int, default=8)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    path = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if path is None:
        raise SystemExit("stockfish not found (apt-get install stockfish)")
    rng = random.Random(args.seed)
    lines, seen = [], set()
    with chess.engine.SimpleEngine.popen_uci(path) as engine:
        while len(lines) < args.count:
            board = chess.Board()
            for _ in range(args.plies):
                board.push(rng.choice(list(board.legal_moves)))
            key = board.epd()
            if board.is_game_over() or key in seen:
                continue
            seen.add(key)
            score = engine.analyse(board, chess.engine.Limit(depth=args.depth))["score"].white()
            if score.is_mate() or abs(score.score()) > 50:
                continue
            lines.append(" ".join(m.uci() for m in board.move_stack))
    OUT.write_text("# Balanced openings as UCI moves from the start (scripts/maintenance/make_move_openings.py)\n"
                   + "\n".join(lines) + "\n")
    print(f"{len(lines)} lines written to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
