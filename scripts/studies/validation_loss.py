"""Each genome's loss on one labelled set, as the network trainer scores an epoch.

    python scripts/studies/validation_loss.py data/net2-validation GENOME [GENOME ...] [--wdl 0]

The set's positions are evaluated by the C evaluation (what plays), and the loss is the
trainer's: the Texel loss against the label that blends the game's result (weight
--wdl) and the set's own search scores, at the set's fitted K (its sidecar, fitted on
first use as a training run fits it). One set and one label for every genome, so the
numbers compare networks trained on different sets, or with different architectures,
on the games of one genome: a cheap screen to set beside games, never instead of them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="a labelled set (file or folder) with search scores")
    parser.add_argument("genomes", nargs="+", help="genome files")
    parser.add_argument("--wdl", type=float, default=0.0, help="the result's weight in the label (default 0)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.wdl <= 1.0:
        parser.error(f"--wdl must be from 0 to 1, not {args.wdl:g}")

    from genchess.fitness.scoring import fitted_labels
    from genchess.genome import GenomeError, load_genome
    from genchess.position_sets.position_set import PositionSetError
    from genchess.position_sets.records import PackedSet
    try:
        positions = PackedSet.load(args.set)
        labels = fitted_labels(args.set, positions, "mix", args.wdl)
        genomes = [(Path(name).name, load_genome(name)) for name in args.genomes]
    except (GenomeError, PositionSetError, OSError, ValueError) as e:
        print(f"validation_loss: {e}", file=sys.stderr)
        return 2
    print(f"{len(positions):,} positions of {args.set}, {labels.describe()} labels, K {labels.k:.4f}\n")
    print("| genome | loss |\n|---|---:|")
    for name, genome in genomes:
        cp = positions.evaluate_cp(genome)
        print(f"| {name} | {float(labels.loss(cp, positions.result, positions.mentor)):.6f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
