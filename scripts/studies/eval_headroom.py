"""How much a static evaluation knows, beside Stockfish's own static evaluations.

On the held-out part of a labelled set (the positions tuner's split), each evaluator's
static score of every position is compared with the labels as the tuner compares them
(the Texel loss, fitness/loss.py): the genomes given, and Stockfish's classical
(hand-made) and NNUE evaluations from its `eval` command. Each is scored at its own
scale and at its best scale (the factor that fits the mentor's scores best), so an
evaluation is not blamed for counting in other units. The gap between a genome and
Stockfish's classical evaluation is what a better hand-made-style evaluation could
still learn; to NNUE, what a static evaluation can know at all.

    python scripts/studies/eval_headroom.py [--genome G ...] [--positions SET] [--limit N] [--stockfish PATH]
    python scripts/studies/eval_headroom.py --positions data/selfplay-validation --whole ...

`--whole` scores every position of the set instead of its held-out tenth: for a set of
other games kept for validation (data/selfplay-validation), where a share of the training
set would flatter whatever learned from it.

Needs Stockfish 15.1 or earlier (its `eval` command prints both evaluations;
apt-get install stockfish). Without it, the genomes alone.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from genchess.fitness.loss import fit_k, sigmoid, squared_error
from genchess.fitness.scoring import fitted_labels
from genchess.genome import GenomeError, load_genome
from genchess.position_sets.position_set import PositionSetError, load_positions

REPO = Path(__file__).resolve().parents[2]
GENOMES = REPO / "genchess" / "genomes"
DEFAULT_GENOMES = [GENOMES / "unified.genome", GENOMES / "evolved.genome", GENOMES / "default.genome"]
EVAL_LINE = re.compile(r"^(Classical|NNUE|Final) evaluation\s+([+-]?[0-9.]+) \(white side\)")


def stockfish_evaluations(path: str, fens: list[str]) -> dict[str, np.ndarray]:
    """Stockfish's classical and NNUE static evaluations (cp, White's view) of each FEN;
    NaN where it gives none (in check)."""
    found = {"Classical": np.full(len(fens), np.nan), "NNUE": np.full(len(fens), np.nan)}
    script = "".join(f"position fen {fen}\neval\n" for fen in fens) + "quit\n"
    done = subprocess.run([path], input=script, capture_output=True, text=True, timeout=3600)
    index = -1
    for line in done.stdout.splitlines():
        if line.startswith("Final evaluation"):        # the last line of each position's report
            index += 1
            continue
        match = EVAL_LINE.match(line)
        if match and match.group(1) in found and index + 1 < len(fens):
            found[match.group(1)][index + 1] = 100.0 * float(match.group(2))
    if index + 1 != len(fens):
        sys.exit(f"eval_headroom: {path} answered {index + 1} of {len(fens)} eval commands")
    return found


def scored_positions(path: str, limit: int = 0, whole: bool = False):
    """(positions, mentor targets, labels): the set's positions with mentor scores that a
    study scores, its held-out tenth (or all of it, `whole`), the first `limit` of them."""
    positions = load_positions(path)
    positions = positions.subset(np.isfinite(positions.mentor))
    if len(positions) < 20:
        raise PositionSetError(f"{path}: {len(positions)} positions with mentor scores; "
                               f"needs a set made with --mentor")
    labels = fitted_labels(path, positions, "mentor")
    held_out = positions if whole else positions.split(0.1)[1]
    if limit:
        held_out = held_out.subset(np.arange(min(limit, len(held_out))))
    return held_out, sigmoid(held_out.mentor, labels.k_mentor), labels


def scored(cp: np.ndarray, results: np.ndarray, target: np.ndarray, k_mentor: float,
           k_result: float) -> tuple[float, float, float, float]:
    """(mentor loss at its own scale, best scale, mentor loss then, result loss at its best K)."""
    best_k = fit_k(cp, target)
    return (float(squared_error(target, cp, k_mentor)), best_k / k_mentor,
            float(squared_error(target, cp, best_k)), float(squared_error(results, cp, fit_k(cp, results))))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--genome", action="append", help="a genome to score (repeat; default: "
                        "unified.genome, evolved.genome and the hand-set default.genome)")
    parser.add_argument("--positions", default=str(REPO / "genchess" / "data" / "positions.epd.gz"))
    parser.add_argument("--limit", type=int, default=0, help="score only the first N held-out positions")
    parser.add_argument("--whole", action="store_true", help="score every position of the set, not "
                        "its held-out tenth (a set of other games kept for validation)")
    parser.add_argument("--stockfish", help="Stockfish to ask (default: on PATH or in /usr/games)")
    args = parser.parse_args(argv)
    try:
        genomes = {Path(g).name: load_genome(g) for g in (args.genome or DEFAULT_GENOMES)}
        held_out, target, labels = scored_positions(args.positions, args.limit, args.whole)
    except (GenomeError, PositionSetError, OSError) as e:
        sys.exit(f"eval_headroom: {e}")
    evaluators = {name: held_out.evaluate_cp(genome) for name, genome in genomes.items()}
    stockfish = args.stockfish or shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if args.stockfish and not shutil.which(args.stockfish):
        sys.exit(f"eval_headroom: --stockfish {args.stockfish}: not an executable")
    if stockfish:
        sf = stockfish_evaluations(stockfish, [held_out.fen(i) for i in range(len(held_out))])
        evaluators["Stockfish classical (static)"] = sf["Classical"]
        evaluators["Stockfish NNUE (static)"] = sf["NNUE"]
    else:
        print("eval_headroom: no Stockfish found; the genomes alone", file=sys.stderr)
    known = np.all([np.isfinite(cp) for cp in evaluators.values()], axis=0)
    print(f"{int(known.sum())} {'' if args.whole else 'held-out '}positions of {args.positions} "
          f"(mentor: the set's search scores; K_m {labels.k_mentor:g}); lower is better, 0.25 a coin toss")
    print()
    print("| evaluation | mentor loss | best scale | mentor loss at best scale | result loss at best K |")
    print("|---|---:|---:|---:|---:|")
    for name, cp in evaluators.items():
        own, scale, best, result = scored(cp[known], held_out.result[known], target[known],
                                          labels.k_mentor, labels.k_result)
        print(f"| {name} | {own:.6f} | {scale:.2f} | {best:.6f} | {result:.6f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
