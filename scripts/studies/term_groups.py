"""What each part of a unified genome's evaluation is worth on labelled positions.

Each term group of the unified kind (docs/unified.md: the tables, mobility, passed
pawns, pawn structure, threats, king safety, ...) is switched off in turn (its numbers
set to zero, everything else kept) and the genome's loss on the held-out part of a
labelled set is measured, as the positions tuner measures it. The rise in loss is
what the group contributes to predicting the labels: a hint of where the evaluation's
strength lies, never its Elo (games decide: `--write GROUP --out FILE` writes the
genome with that group off, for a match against the whole one).

    python scripts/studies/term_groups.py [--genome G] [--positions SET] [--labels mentor|result]
    python scripts/studies/term_groups.py --write threats --out no-threats.genome
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from genchess.fitness.scoring import PositionFitness, fitted_labels
from genchess.genome import GenomeError, UnifiedGenome, load_genome
from genchess.position_sets.position_set import PositionSetError, load_positions

REPO = Path(__file__).resolve().parents[2]
# The parts switched off, each a list of the kind's groups (unified.FAMILIES or TERMS names).
PARTS = {
    "piece-square tables": ["tables"],
    "mobility": ["mobility"],
    "passed pawns": ["passed"],
    "pawn structure": ["pawns"],
    "threats and hanging pieces": ["threats"],
    "king safety and castling": ["king safety"],
    "centre control": ["centre", "wide centre"],
    "bishop pair": ["bishop pair"],
    "rooks on open files": ["rook open file", "rook half-open file"],
    "outposts": ["outpost"],
    "tempo": ["tempo"],
}
MATERIAL_ONLY = "everything but material"


def switched_off(genome: UnifiedGenome, groups: list[str]) -> np.ndarray:
    """The genome's tuned numbers with these groups' numbers at zero."""
    vector = genome.numbers()
    vector[genome.number_spec().indices(groups)] = 0.0
    return vector


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--genome", default=str(REPO / "genchess" / "genomes" / "unified.genome"))
    parser.add_argument("--positions", default=str(REPO / "genchess" / "data" / "positions.epd.gz"))
    parser.add_argument("--labels", choices=("mentor", "result"), default="mentor")
    parser.add_argument("--write", metavar="PART", choices=list(PARTS),
                        help="write the genome with this part off (needs --out) instead of measuring")
    parser.add_argument("--out", help="the file --write writes")
    args = parser.parse_args(argv)
    try:
        genome = load_genome(args.genome)
    except GenomeError as e:
        sys.exit(f"term_groups: {e}")
    if not isinstance(genome, UnifiedGenome):
        sys.exit(f"term_groups: {args.genome}: a {genome.KIND if hasattr(genome, 'KIND') else 'genetic'} "
                 f"genome; the term groups are the unified kind's")
    if args.write:
        if not args.out:
            sys.exit("term_groups: --write needs --out FILE")
        off = genome.with_numbers(switched_off(genome, PARTS[args.write]), genome.id)
        Path(args.out).write_text(f"# {args.genome} with {args.write} off (scripts/studies/term_groups.py)\n"
                                  + off.to_text())
        print(f"wrote {args.out}")
        return 0
    try:
        positions = load_positions(args.positions)
    except (OSError, PositionSetError) as e:
        sys.exit(f"term_groups: {e}")
    for warning in positions.warnings[:5]:
        print(f"term_groups: skipped {warning}", file=sys.stderr)
    if len(positions) == 0:
        sys.exit(f"term_groups: {args.positions}: no usable positions")
    try:
        fitness = PositionFitness(genome, positions, fitted_labels(args.positions, positions, args.labels))
    except ValueError as e:         # no usable positions, or no mentor scores for mentor labels
        sys.exit(f"term_groups: {args.positions}: {e}")
    every_group = [g for g in genome.number_spec().groups
                   if g not in ("all", "mg", "eg", "material", "material mg", "material eg")]
    parts = {"nothing (the genome as it is)": [], **PARTS, MATERIAL_ONLY: every_group}
    vectors = np.array([switched_off(genome, groups) if groups else genome.numbers()
                        for groups in parts.values()])
    losses = fitness.losses(vectors, "held-out")
    whole = losses[0]
    print(f"{args.genome} on the held-out part of {args.positions} "
          f"({len(fitness.parts['held-out'])} positions, {args.labels} labels)")
    print()
    print("| switched off | numbers | held-out loss | rise |")
    print("|---|---:|---:|---:|")
    spec = genome.number_spec()
    for (name, groups), loss in zip(parts.items(), losses):
        count = len(spec.indices(groups)) if groups else 0
        print(f"| {name} | {count} | {loss:.6f} | {loss - whole:+.6f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
