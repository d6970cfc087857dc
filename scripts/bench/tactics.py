"""Tactical test suite: how many EPD best-move positions GenChess solves in a fixed time.

Each EPD line is `<4 FEN fields> bm <SAN> [<SAN> ...]; id "<name>";` (other
operations are ignored). The engine's UCI move is turned into SAN with
python-chess and compared with the bm list, check marks (+, #) and annotation
marks (!, ?) stripped on both sides. A line that cannot be used is reported with
its line number and skipped; it does not count in the total.

    python scripts/bench/tactics.py genchess/data/tactics.epd [--movetime MS] [--genome FILE]
                              [--search iterative|budget] [--limit N]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass

import chess

from genchess.engine import SEARCH_MODES, Engine
from genchess.genome import GenomeError, hand_set_genome, load_genome
from genchess.timeman import Limits


@dataclass
class Problem:
    line: int
    id: str
    fen: str
    best: list[str]


def strip_marks(san: str) -> str:
    return san.rstrip("+#!?")


def parse_epd_line(text: str) -> tuple[str, list[str], str | None]:
    """(FEN, bm moves as SAN, id or None) of one EPD line; ValueError saying what is wrong."""
    fields = text.split(None, 4)
    if len(fields) < 5:
        raise ValueError("expected 4 FEN fields followed by operations")
    fen = " ".join(fields[:4]) + " 0 1"
    try:
        board = chess.Board(fen)
    except ValueError as problem:
        raise ValueError(f"bad FEN: {problem}") from None
    ops: dict[str, str] = {}
    # Operations end with ';', but a quoted operand may itself hold a ';'.
    for match in re.finditer(r'\s*([A-Za-z_][\w]*)\s*((?:"[^"]*"|[^;"])*);', fields[4]):
        ops[match.group(1)] = match.group(2).strip()
    if "bm" not in ops:
        raise ValueError("no 'bm' operation")
    best = []
    for san in ops["bm"].split():
        try:
            move = board.parse_san(san)
        except ValueError:
            raise ValueError(f"bm move {san!r} is not legal in this position") from None
        # python-chess's own SAN, so that a differently disambiguated bm still matches.
        best.append(board.san(move))
    if not best:
        raise ValueError("empty 'bm' operation")
    epd_id = ops.get("id", "").strip('"') or None
    return fen, best, epd_id


def read_epd(path: str) -> list[Problem]:
    problems = []
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, start=1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            try:
                fen, best, epd_id = parse_epd_line(text)
            except ValueError as problem:
                print(f"{path}:{n}: skipped: {problem}", file=sys.stderr)
                continue
            problems.append(Problem(n, epd_id or f"line {n}", fen, best))
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Runtime: about N x MOVETIME (100 positions at the default 1000 ms: ~100 s).")
    parser.add_argument("epd", help="EPD file with bm operations, e.g. genchess/data/tactics.epd")
    parser.add_argument("--movetime", type=int, default=1000, metavar="MS",
                        help="search time per position (default 1000)")
    parser.add_argument("--genome", metavar="FILE", help="genome file (default: the hand-set genomes/default.genome)")
    parser.add_argument("--search", choices=SEARCH_MODES, default="iterative", help="search mode")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N positions")
    args = parser.parse_args()

    try:
        genome = load_genome(args.genome) if args.genome else hand_set_genome()
    except (OSError, GenomeError) as problem:
        sys.exit(f"cannot load genome: {problem}")
    try:
        problems = read_epd(args.epd)
    except OSError as problem:
        sys.exit(f"cannot read {args.epd}: {problem}")
    if args.limit is not None:
        problems = problems[:max(args.limit, 0)]
    if not problems:
        sys.exit(f"{args.epd}: no usable positions")

    engine = Engine(genome, search_mode=args.search)
    print(f"{len(problems)} positions, {args.movetime} ms each, genome {genome.id}, "
          f"{args.search} search; about {len(problems) * args.movetime / 1000:.1f} s\n")
    width = max(len(p.id) for p in problems)
    print(f"{'id':{width}}  {'expected':14} {'found':8} {'':4}  {'depth':>5}  score")
    solved = 0
    start = time.perf_counter()
    for p in problems:
        engine.new_game()
        engine.set_position(p.fen)
        result = engine.search(Limits(movetime=args.movetime))
        board = chess.Board(p.fen)
        found = board.san(chess.Move.from_uci(result.bestmove)) if result.bestmove else "(none)"
        ok = strip_marks(found) in {strip_marks(san) for san in p.best}
        solved += ok
        print(f"{p.id:{width}}  {' '.join(p.best):14} {found:8} {'ok' if ok else 'FAIL':4}  "
              f"{result.depth:5}  {result.score}", flush=True)
    elapsed = time.perf_counter() - start
    print(f"\nSolved: {solved}/{len(problems)} ({100 * solved / len(problems):.0f}%) "
          f"in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
