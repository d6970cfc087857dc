"""Search speed of GenChess against sunfish, in one run: nodes per second and time to depth.

Every bench position (genchess.bench.BENCH_POSITIONS) is searched for the same
fixed time by GenChess with the hand-set genome (default.genome), by GenChess with the material-only
genome (genchess/genomes/material.genome: every scoring gene off except Total
Force, so the difference is the cost of the genome's evaluation terms), and by the
pure-Python engine sunfish (`pip install sunfish`). Each search starts from a
cleared hash table, and speed is wall-clock time around the search call, so both
engines pay for their own start-up. A "node" is what each engine counts: GenChess
counts search and quiescence nodes, sunfish counts calls of its `bound()` (which
also takes in its quiescence search), so the ratio compares like with like.
Time to depth 8 from the start position (hand-set genome) closes the report.

    python scripts/bench/bench_search.py [--movetime MS] [--no-sunfish]

With the default 500 ms the run takes about a minute (3 x 32 searches).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from genchess.bench import BENCH_POSITIONS
from genchess.engine import Engine
from genchess.genome import Genome, hand_set_genome, load_genome, write_genome
from genchess.timeman import Limits

MATERIAL_GENOME_PATH = Path(__file__).resolve().parents[2] / "genchess" / "genomes" / "material.genome"
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
TARGET_NPS = 500_000
TARGET_RATIO = 30.0


def material_genome() -> Genome:
    """Default genes with every scoring gene's Priority 0 except Total Force's."""
    genome = Genome(1)
    for gene in genome.genes:
        if "Priority" in gene.values and gene.NAME != "Total Force Gene":
            gene.values["Priority"] = 0.0
    return genome


# ---------------------------------------------------------------- GenChess

def genchess_search(engine: Engine, fen: str, movetime_ms: int) -> tuple[int, float]:
    engine.new_game()
    engine.set_position(fen)
    start = time.perf_counter()
    result = engine.search(Limits(movetime=movetime_ms))
    return result.nodes, time.perf_counter() - start


# ---------------------------------------------------------------- sunfish

def sunfish_position(sunfish, fen: str):
    """A sunfish Position from a FEN.

    sunfish keeps a 120-character board (10 columns: a padding space, files a-h,
    a newline; two padding rows above and below), always seen from the side to
    move, with an incremental piece-square score. A black-to-move position is
    built from White's side and rotated, which mirrors the board, swaps case and
    castling rights and negates the score, as sunfish's own moves do.
    """
    placement, color, castling, ep = fen.split()[:4]
    rows = [re.sub(r"\d", lambda m: "." * int(m.group()), row) for row in placement.split("/")]
    board = " " * 9 + "\n" + " " * 9 + "\n" + "".join(f" {row}\n" for row in rows) + (" " * 9 + "\n") * 2
    assert len(board) == 120, fen
    score = sum(sunfish.pst[p][i] for i, p in enumerate(board) if p.isupper())
    score -= sum(sunfish.pst[p.upper()][119 - i] for i, p in enumerate(board) if p.islower())
    # wc is (queen side, king side) of the side to move; bc is the opponent's seen
    # from the rotated board, where its king side is to the west.
    wc = ("Q" in castling, "K" in castling)
    bc = ("k" in castling, "q" in castling)
    pos = sunfish.Position(board, score, wc, bc, sunfish.parse(ep) if ep != "-" else 0, 0)
    return pos if color == "w" else pos.rotate()


def sunfish_search(sunfish, fen: str, movetime_ms: int) -> tuple[int, float]:
    searcher = sunfish.Searcher()
    start = time.perf_counter()
    pos = sunfish_position(sunfish, fen)
    # sunfish's deadline and soft limit are time.time() values; the deadline
    # raises Stop inside the search, the soft limit ends it between depths.
    searcher.deadline = searcher.soft = time.time() + movetime_ms / 1000
    try:
        for _ in searcher.search([pos]):
            if time.time() > searcher.deadline:
                break
    except sunfish.Stop:
        pass
    return searcher.nodes, time.perf_counter() - start


def import_sunfish():
    try:
        import sunfish
    except ImportError:
        return None
    if not all(hasattr(sunfish, name) for name in ("Position", "Searcher", "Stop", "pst", "parse")):
        print(f"sunfish at {sunfish.__file__} lacks the expected API; skipping it", file=sys.stderr)
        return None
    return sunfish


# ---------------------------------------------------------------- report

def nps(nodes: int, seconds: float) -> int:
    return int(nodes / seconds) if seconds > 0 else 0


def time_to_depth(depth: int) -> None:
    engine = Engine(hand_set_genome())
    engine.new_game()
    engine.set_position(START_FEN)
    print(f"\nTime to depth {depth}, start position, hand-set genome:")

    def on_info(info):
        if info.pv:
            print(f"  depth {info.depth:2}  {info.time_ms:6} ms  {info.nodes:10} nodes  "
                  f"{info.score}  pv {' '.join(info.pv[:6])}")

    start = time.perf_counter()
    result = engine.search(Limits(depth=depth), on_info=on_info)
    elapsed = time.perf_counter() - start
    print(f"Depth {result.depth} reached in {elapsed:.2f} s, {result.nodes} nodes "
          f"({nps(result.nodes, elapsed)} nps), best move {result.bestmove}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Runtime: about 3 x 32 x MOVETIME plus ~5 s "
                                            "(about a minute at the default 500 ms).")
    parser.add_argument("--movetime", type=int, default=500, metavar="MS",
                        help="time per position and engine (default 500)")
    parser.add_argument("--no-sunfish", action="store_true", help="leave sunfish out")
    parser.add_argument("--depth", type=int, default=8, help="depth of the time-to-depth test (default 8)")
    parser.add_argument("--write-material-genome", action="store_true",
                        help=f"(re)write {MATERIAL_GENOME_PATH.name} from its recipe and exit")
    args = parser.parse_args()

    if args.write_material_genome:
        with open(MATERIAL_GENOME_PATH, "w", encoding="utf-8") as f:
            write_genome(material_genome(), f)
        print(f"wrote {MATERIAL_GENOME_PATH}")
        return

    if MATERIAL_GENOME_PATH.exists():
        material = load_genome(MATERIAL_GENOME_PATH)
    else:
        print(f"{MATERIAL_GENOME_PATH} missing; using the same genome built in memory")
        material = material_genome()
    engines = [("default", Engine(hand_set_genome())), ("material", Engine(material))]

    sunfish = None if args.no_sunfish else import_sunfish()
    if sunfish is None and not args.no_sunfish:
        print("sunfish is not installed: `pip install sunfish` to compare with it "
              "(note: it pins python-chess; reinstall the project's python-chess after). "
              "Skipping its column.\n")

    header = f"{'#':>2}  {'default nps':>11}  {'material nps':>12}"
    if sunfish:
        header += f"  {'sunfish nps':>11}  {'def/sf':>7}  {'mat/sf':>7}"
    print(f"Fixed {args.movetime} ms per position, {len(BENCH_POSITIONS)} bench positions\n")
    print(header + "  FEN")
    totals = {"default": [0, 0.0], "material": [0, 0.0], "sunfish": [0, 0.0]}
    for i, fen in enumerate(BENCH_POSITIONS, start=1):
        row = {}
        for name, engine in engines:
            row[name] = genchess_search(engine, fen, args.movetime)
        if sunfish:
            row["sunfish"] = sunfish_search(sunfish, fen, args.movetime)
        for name, (nodes, seconds) in row.items():
            totals[name][0] += nodes
            totals[name][1] += seconds
        rate = {name: nps(*value) for name, value in row.items()}
        line = f"{i:2}  {rate['default']:11}  {rate['material']:12}"
        if sunfish:
            sf = max(rate["sunfish"], 1)
            line += f"  {rate['sunfish']:11}  {rate['default'] / sf:6.1f}x  {rate['material'] / sf:6.1f}x"
        print(line + f"  {fen}", flush=True)

    total = {name: nps(*value) for name, value in totals.items()}
    print()
    print(f"GenChess hand-set genome: {total['default']:9} nps  "
          f"({totals['default'][0]} nodes in {totals['default'][1]:.1f} s; target >= {TARGET_NPS})"
          f"  {'ok' if total['default'] >= TARGET_NPS else 'BELOW TARGET'}")
    print(f"GenChess material genome: {total['material']:9} nps  "
          f"({totals['material'][0]} nodes in {totals['material'][1]:.1f} s)")
    if sunfish:
        sf = max(total["sunfish"], 1)
        print(f"sunfish ({sunfish.version}) : {total['sunfish']:9} nps  "
              f"({totals['sunfish'][0]} nodes in {totals['sunfish'][1]:.1f} s)")
        ratio = total["default"] / sf
        print(f"Ratio default/sunfish   : {ratio:9.1f}x  (target >= {TARGET_RATIO:.0f}x)"
              f"  {'ok' if ratio >= TARGET_RATIO else 'BELOW TARGET'}")
        print(f"Ratio material/sunfish  : {total['material'] / sf:9.1f}x")

    time_to_depth(args.depth)


if __name__ == "__main__":
    main()
