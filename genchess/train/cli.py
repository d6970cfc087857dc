"""`genchess-train CONFIG`: run (or resume) a gene-pool evolution."""

from __future__ import annotations

import argparse
import sys

from genchess.genome import GenomeError
from genchess.train.config import ConfigError, keys_help, parse_config


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genchess-train",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Evolve chess genomes in gene pools: players are paired at random each "
                    "round, every game's two players mate, and the offspring replaces the loser. "
                    "Starting again with an existing gene pool file resumes the run.",
        epilog=keys_help() + """

controls while running:
  Ctrl-Z  pause after the games in progress are finished and written (fg continues)
  Ctrl-C  stop at once; every finished game is already on disk

files:
  <gene pool file>           every genome ever created, plus 'Still Alive' lines after each
                             round (genchess --genome FILE plays the smallest living ID)
  <gene pool file>_games.txt every game as PGN (round, pool, IDs, result, reason, time control)
  genchess-plot <gene pool file> draws what evolved""")
    parser.add_argument("config", metavar="CONFIG", help="configuration file (see the keys below)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="play the games on a dask.distributed cluster: tcp://HOST:PORT of a "
                             "running dask scheduler, or local:N for N worker processes on this "
                             "machine (overrides the scheduler key; needs pip install "
                             "\"genchess[cluster]\")")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from genchess.train.executors import ClusterError, parse_scheduler
    from genchess.train.trainer import Trainer

    try:
        config = parse_config(args.config)
        if args.scheduler is not None:
            try:
                config.scheduler = parse_scheduler(args.scheduler)
            except ValueError as e:
                raise ConfigError(f"--scheduler: {e}") from None
        trainer = Trainer(config)
        return trainer.run()
    except (ConfigError, GenomeError, ClusterError) as e:
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
