"""Which search limit makes the better label: a fixed node count or a fixed depth?

Issue 50 asks the set's labels to come from GenChess's own search "at fixed nodes or
depth: measure which pays". A label is worth what it costs: this scores a sample of
held-out positions (other games than the training set's) at several node counts and
depths, each with a fresh hash as `--mentor genchess:...` does, and compares every label
with two references a label cannot see: the same genome's search at REFERENCE_NODES, and
Stockfish at a fixed depth. Distances are in expected score, sigmoid(K_m * cp / 400) with
each engine's K_m (the scale its scores were fitted to results with), as the mentor loss
is; cost is the mean and the 90th percentile of the
nodes searched. Run from the repository root:

    python scripts/studies/label_depth.py --positions 500 --genome genchess/genomes/unified.genome

It prints a markdown table; `--out FILE.json` keeps every score for another look.
"""
import argparse
import json
import multiprocessing
import shutil
import sys
from pathlib import Path

import numpy as np

NODE_LIMITS = (1250, 2500, 5000, 10000, 20000)
SOFT_NODE_LIMITS = (1000, 2000, 2500, 3000, 5000)    # no new iteration past N nodes (the data machine's)
DEPTH_LIMITS = (4, 5, 6, 7, 8)
REFERENCE_NODES = 400_000     # the reference search; --reference-nodes for a quick look
STOCKFISH_DEPTH = 16
K_MENTOR = 0.782067          # data/selfplay/fitted.json's k_mentor: GenChess's scores' scale
K_STOCKFISH = 0.8481         # genchess/data/positions.epd.gz.json's K_m: Stockfish's


def expected(cp, k: float = K_MENTOR) -> np.ndarray:
    from genchess.fitness.loss import sigmoid
    return sigmoid(np.asarray(cp, float), k)


def score_positions(task):
    """Every limit's (score in cp from the side to move's view, nodes) for each of these
    FENs, each from a cleared hash as a mentor's (making.fresh_search), and Stockfish's
    score at STOCKFISH_DEPTH (64 MB of hash, as the figures in docs/studies/network-first-generation.md were made)."""
    genome_path, fens, stockfish_path, reference_nodes = task
    import chess
    import chess.engine
    from genchess.genome import load_genome
    from genchess.position_sets.making import MENTOR_CLAMP_CP, fresh_search
    from genchess_core.searcher import Searcher

    searcher = Searcher(64)
    searcher.set_genome(load_genome(genome_path).pack())
    rows = []
    with chess.engine.SimpleEngine.popen_uci(stockfish_path) as stockfish:
        stockfish.configure({"Threads": 1, "Hash": 64})
        for fen in fens:
            row = {"fen": fen}
            for nodes in NODE_LIMITS:
                row[f"nodes={nodes}"] = fresh_search(searcher, fen, ("nodes", nodes))
            for depth in DEPTH_LIMITS:
                row[f"depth={depth}"] = fresh_search(searcher, fen, ("depth", depth))
            for nodes in SOFT_NODE_LIMITS:
                row[f"soft={nodes}"] = soft_search(searcher, fen, nodes)
            row["reference"] = fresh_search(searcher, fen, ("nodes", reference_nodes))
            info = stockfish.analyse(chess.Board(fen), chess.engine.Limit(depth=STOCKFISH_DEPTH),
                                     game=object())
            cp = info["score"].relative.score(mate_score=10 * MENTOR_CLAMP_CP)
            row["stockfish"] = (max(-MENTOR_CLAMP_CP, min(MENTOR_CLAMP_CP, cp)), info.get("nodes", 0))
            rows.append(row)
    return rows


def soft_search(searcher, fen: str, soft_nodes: int) -> tuple[int, int]:
    """fresh_search's (cp, nodes) at a soft node limit: no new iteration once `soft_nodes`
    are spent, as the data machine searches (genchess_core/selfplay.pyx), no hard cut."""
    from genchess.position_sets.making import MENTOR_CLAMP_CP
    from genchess_core import Board
    from genchess_core.searcher import MATE_THRESHOLD
    searcher.clear()
    searcher.clear_stop()
    found = searcher.search(Board(fen), soft_nodes=soft_nodes)
    score = found["lines"][0][0]
    if abs(score) > MATE_THRESHOLD:
        return (MENTOR_CLAMP_CP if score > 0 else -MENTOR_CLAMP_CP), found["nodes"]
    cp = round(score * 100 / searcher.pawn_unit)
    return max(-MENTOR_CLAMP_CP, min(MENTOR_CLAMP_CP, cp)), found["nodes"]


def report(rows, reference_nodes: int) -> str:
    reference = expected([r["reference"][0] for r in rows])
    stockfish = expected([r["stockfish"][0] for r in rows], K_STOCKFISH)
    lines = [f"| label | mean nodes | 90th percentile | RMS distance to {reference_nodes:,} nodes "
             f"| RMS distance to Stockfish depth {STOCKFISH_DEPTH} |",
             "|---|---:|---:|---:|---:|"]
    for name in ([f"nodes={n}" for n in NODE_LIMITS] + [f"depth={d}" for d in DEPTH_LIMITS]
                 + [f"soft={n}" for n in SOFT_NODE_LIMITS]):
        label = expected([r[name][0] for r in rows])
        nodes = np.array([r[name][1] for r in rows], float)
        lines.append(f"| {name} | {nodes.mean():,.0f} | {np.percentile(nodes, 90):,.0f} "
                     f"| {np.sqrt(np.mean((label - reference) ** 2)):.4f} "
                     f"| {np.sqrt(np.mean((label - stockfish) ** 2)):.4f} |")
    agreement = np.sqrt(np.mean((reference - stockfish) ** 2))
    lines.append(f"\n{len(rows)} positions; the {reference_nodes:,}-node search is "
                 f"{agreement:.4f} from Stockfish.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=500, help="how many to sample (default 500)")
    parser.add_argument("--genome", default="genchess/genomes/unified.genome",
                        help="the genome whose search labels (default: the self-play set's, unified.genome)")
    parser.add_argument("--set", default="data/selfplay-validation",
                        help="the positions to sample (a set or a folder of chunks)")
    parser.add_argument("--seed", type=int, default=1, help="of the sample (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--reference-nodes", type=int, default=REFERENCE_NODES,
                        help=f"nodes of the reference search (default {REFERENCE_NODES:,})")
    parser.add_argument("--stockfish", help="Stockfish to ask (default: on PATH or in /usr/games)")
    parser.add_argument("--out", help="keep every score in this JSON file")
    args = parser.parse_args(argv)

    from genchess.genome import GenomeError, load_genome
    from genchess.position_sets import PositionSetError, load_positions
    if args.stockfish:
        stockfish = shutil.which(args.stockfish)
        if stockfish is None:
            sys.exit(f"label_depth: --stockfish {args.stockfish}: not an executable")
    else:
        stockfish = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
        if stockfish is None:
            sys.exit("label_depth: needs Stockfish (apt-get install stockfish), the second reference")
    try:
        load_genome(args.genome)
        positions = load_positions(args.set)
    except (GenomeError, PositionSetError, OSError) as e:
        sys.exit(f"label_depth: {e}")
    if not 0 < args.positions <= len(positions):
        sys.exit(f"label_depth: --positions {args.positions}: {args.set} holds {len(positions)}")
    chosen = np.random.default_rng(args.seed).choice(len(positions), args.positions, replace=False)
    fens = [positions.fen(int(i)) for i in sorted(chosen)]
    workers = max(1, min(args.workers, len(fens)))
    tasks = [(args.genome, fens[w::workers], stockfish, args.reference_nodes) for w in range(workers)]
    with multiprocessing.Pool(workers) as pool:
        rows = [row for part in pool.map(score_positions, tasks) for row in part]
    if args.out:
        Path(args.out).write_text(json.dumps(rows))
    print(report(rows, args.reference_nodes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
