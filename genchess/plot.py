"""`genchess plot RUN` (or `genchess-plot RUN`): pictures of what a training run evolved.

The command finds which method wrote the run file (the registry: a chromosome
database is multi-niche crowding's, an evolve run's records say so on their first
line, any other file is read as a gene pool file) and calls the plots that method's
registry entry names (genchess/train/*_plots.py), which draw with the shared helpers
of genchess.drawing. What it prints besides the PNG files (promotions, the living
genomes' piece values) is the method's. Every problem with the file is one line,
`<command>: problem`, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None, prog: str = "genchess-plot") -> int:
    """`genchess plot RUN` and `genchess-plot RUN` alike: `genchess plot` hands its
    arguments here whole, under its own name."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Draw PNG plots of what evolved: for a gene-pool file, piece strengths, gene "
                    "priorities and game statistics; for a Phoenix chromosome database, the best "
                    "chromosome's tables as boards, fitness and niches against generation; for an "
                    "evolve run, the training and held-out loss, the validation games' Elo and "
                    "what evolved (weights, tables or piece strengths).")
    parser.add_argument("pool_file", metavar="FILE", help="the gene pool file or chromosome database of a run")
    parser.add_argument("--out", metavar="DIR", help="where to write the PNG files "
                        "(default: POOLFILE_plots beside the pool file)")
    args = parser.parse_args(argv)
    run_file = Path(args.pool_file)
    out = Path(args.out) if args.out else Path(str(run_file) + "_plots")
    from genchess.drawing import PlotError
    from genchess.train.registry import method_of_run_file, plots_of
    try:
        written = plots_of(method_of_run_file(run_file))(
            run_file, out, warn=lambda line: print(f"{prog}: {line}", file=sys.stderr))
    except PlotError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
