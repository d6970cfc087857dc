"""`genchess-train CONFIG`: run (or resume) the evolution the file's `method` names;
`genchess-train --export DATABASE` writes a chromosome out as a genome file."""

from __future__ import annotations

import argparse
import sys

from genchess.genome import GenomeError
from genchess.train.config import ConfigError, keys_help, parse_config


def run_gene_pool(config) -> int:
    from genchess.train.trainer import Trainer
    return Trainer(config).run()


def run_mnc(config) -> int:
    from genchess.train.mnc import MncTrainer
    return MncTrainer(config).run()


# The trainer of each config class (a method's builder returns one of these).
TRAINERS = {"TrainConfig": run_gene_pool, "MncConfig": run_mnc}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genchess-train",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evolve chess genomes. The configuration's method picks the evolution: gene "
                    "pools (the default: players are paired at random each round, every game's "
                    "two players mate, and the offspring replaces the loser) or multi-niche "
                    "crowding of piece-square tables (Phoenix). Starting again with the same "
                    "configuration resumes the run.",
        epilog=keys_help() + """

controls while running:
  Ctrl-Z  pause after the games in progress are finished and written (fg continues)
  Ctrl-C  stop at once; every finished game (gene pool) or generation (multi-niche
          crowding) is already on disk

files:
  <gene pool file>           every genome ever created, plus 'Still Alive' lines after each
                             round (genchess --genome FILE plays the smallest living ID)
  <gene pool file>_games.txt every game as PGN (round, pool, IDs, result, reason, time control)
  <chromosome database>      multi-niche crowding: every chromosome, SQLite (genchess --genome
                             DB plays the best of the last generation; --genome-id N another)
  genchess-plot <file>       draws what evolved (either kind of run)""")
    parser.add_argument("config", metavar="CONFIG", nargs="?",
                        help="configuration file (see the keys below)")
    parser.add_argument("--export", metavar="DATABASE",
                        help="write a chromosome of this chromosome database as a genome file "
                             "(instead of training)")
    parser.add_argument("--id", type=int, metavar="N",
                        help="with --export: the chromosome ID (default: the best of the last "
                             "complete generation)")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="with --export: the genome file to write (default: standard output)")
    return parser


def export(args) -> int:
    from genchess.genome.database import load_chromosome
    genome = load_chromosome(args.export, args.id)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(genome.to_text())
        print(f"wrote chromosome {genome.id} to {args.output}")
    else:
        sys.stdout.write(genome.to_text())
    return 0


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.config is None) == (args.export is None):
        parser.error("give a CONFIG file to train, or --export DATABASE")
    try:
        if args.export:
            return export(args)
        config = parse_config(args.config)
        return TRAINERS[type(config).__name__](config)
    except (ConfigError, GenomeError) as e:
        print(f"genchess-train: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into `head` and the reader went away: stop quietly.
        sys.stderr.close()
        return 1
    except OSError as e:
        print(f"genchess-train: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
