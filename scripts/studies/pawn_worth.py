"""What a pawn on the board is worth to a genome's evaluation, by game phase.

Search margins (futility, reverse futility, delta pruning, the aspiration window,
singular extensions) count in pawns of the evaluation. An evolved evaluation may
value a pawn on the board far from its material number: its pawn table can take
much of it back. This script measures it: over the positions of a set, each pawn
in turn is taken off the board and the evaluation's drop (for the pawn's side) is
averaged, by game phase (pieces other than pawns and kings on the board: 14 at the
start). The middle game is where the margins do their work; a unified genome's
`Search pawn:` line is the number to set from it (docs/unified.md).

    python scripts/studies/pawn_worth.py [--genome FILE] [--positions FILE.epd[.gz]] [--limit N]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
from pathlib import Path

import chess

from genchess.genome import GenomeError, load_genome
from genchess.position_sets.position_set import pawn_unit
from genchess_core import Board
from genchess_core.evaluate import evaluate_boards

REPO = Path(__file__).resolve().parents[2]
PHASES = [("opening and middle game (11-14 pieces)", 11, 14), ("middle game (7-10)", 7, 10),
          ("late middle game (3-6)", 3, 6), ("end game (0-2)", 0, 2)]


def read_fens(path: Path, limit: int) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    fens = []
    with opener(path, "rt") as f:
        for n, line in enumerate(f, start=1):
            fields = line.split()
            if len(fields) < 4 or line.startswith("#"):
                continue
            try:
                fens.append(chess.Board(" ".join(fields[:4])).fen())
            except ValueError as e:
                sys.exit(f"pawn_worth: {path}:{n}: not a position ({e})")
            if len(fens) >= limit:
                break
    return fens


def pawn_drops(fen: str, packed: dict, unit: float) -> tuple[int, list[float]]:
    """(pieces on the board, the evaluation's drop in pawns of `unit` for each pawn taken off)."""
    board = chess.Board(fen)
    pieces = sum(1 for p in board.piece_map().values() if p.piece_type not in (chess.PAWN, chess.KING))
    without = []
    for square in board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK):
        other = board.copy(stack=False)
        colour = other.remove_piece_at(square).color
        other.turn = colour                              # the evaluation from the pawn's side
        other.ep_square = None
        if other.is_valid():
            without.append((colour, other))
    if not without:
        return pieces, []
    sides = {colour: board.copy(stack=False) for colour, _ in without}
    for colour, b in sides.items():
        b.turn, b.ep_square = colour, None
    values = evaluate_boards([Board(b.fen()) for _, b in without], packed)
    bases = dict(zip(sides, evaluate_boards([Board(b.fen()) for b in sides.values()], packed)))
    return pieces, [(bases[colour] - v) / unit for (colour, _), v in zip(without, values)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--genome", default=str(REPO / "genchess" / "genomes" / "unified.genome"))
    parser.add_argument("--positions", default=str(REPO / "genchess" / "data" / "positions.epd.gz"))
    parser.add_argument("--limit", type=int, default=5000, help="positions read (default 5000)")
    args = parser.parse_args(argv)
    try:
        genome = load_genome(args.genome)
    except GenomeError as e:
        sys.exit(f"pawn_worth: {e}")
    packed = genome.pack()
    unit = pawn_unit(packed)                    # every kind's unit, as the search reads it
    drops = {name: [] for name, _, _ in PHASES}
    for fen in read_fens(Path(args.positions), args.limit):
        pieces, values = pawn_drops(fen, packed, unit)
        for name, low, high in PHASES:
            if low <= pieces <= high:
                drops[name] += values
    print(f"A pawn taken off the board, in pawns of the genome's unit ({unit / 10:g} cp): "
          f"{args.genome}")
    print()
    print("| phase | pawns taken off | mean drop | median drop |")
    print("|---|---:|---:|---:|")
    for name, values in drops.items():
        if values:
            print(f"| {name} | {len(values)} | {statistics.fmean(values):.2f} | "
                  f"{statistics.median(values):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
