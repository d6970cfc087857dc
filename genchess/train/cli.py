"""`genchess train CONFIG` (or `genchess-train CONFIG`): run (or resume) the evolution
the file's `method` names; `--export DATABASE` writes a chromosome out as a genome
file. The two spellings share this parser: `genchess train` hands its arguments
here whole, under its own name."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from genchess.console import run_command
from genchess.genome import GenomeError
from genchess.train.config import ConfigError
from genchess.train.registry import DEFAULT_METHOD, keys_help, methods, parse_config, trainer_for


# switch, config key, what: spelled as dask's own scheduler and worker options.
TLS_SWITCHES = (("--tls-ca-file", "tls ca file", "the cluster's CA certificate (DIR/ca.pem)"),
                ("--tls-cert", "tls cert", "the trainer's certificate (DIR/client.pem)"),
                ("--tls-key", "tls key", "the trainer's private key (DIR/client-key.pem)"))


def build_parser(prog: str = "genchess-train") -> argparse.ArgumentParser:
    every = methods()
    described = ". ".join(f"{m.name}{' (the default)' if m.name == DEFAULT_METHOD else ''}: "
                          f"{m.summary}" for m in every)
    files = "\n".join(textwrap.fill(f"{m.name}: {m.files}", 92, initial_indent="  ",
                                    subsequent_indent="      ") for m in every)
    parser = argparse.ArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"Evolve chess genomes; the configuration's method picks the evolution. "
                    f"{described}. Starting again with the same configuration resumes the run.",
        epilog=keys_help() + f"""

controls while running:
  Ctrl-Z  (gene pool) pause after the games in progress are finished and written (fg continues)
  Ctrl-C  stop at once; every finished game (gene pool, kendall-whitwell), generation
          (multi-niche crowding, evolve) or iteration (tune) is already on disk

files:
{files}
  every method, with 'champion interval': <run file>_champion.genome and _champion.txt
  genchess plot <file> draws what evolved (any kind of run)""")
    parser.add_argument("config", metavar="CONFIG", nargs="?",
                        help="configuration file (see the keys below)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="play the games on a dask.distributed cluster: tls://HOST:PORT of a "
                             "running dask scheduler started with TLS (with the three --tls "
                             "files), tcp://HOST:PORT of one without (on a trusted machine only), "
                             "or local:N for N worker processes on this machine (overrides the "
                             "scheduler key; needs pip install \"genchess[cluster]\")")
    for switch, key, what in TLS_SWITCHES:
        parser.add_argument(switch, metavar="FILE", type=Path,
                            help=f"{what} for a tls:// scheduler, from genchess-cluster-certs "
                                 f"DIR (overrides the key {key})")
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
    from genchess.train.chromosome_db import load_chromosome
    genome = load_chromosome(args.export, args.id)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(genome.to_text())
        print(f"wrote chromosome {genome.id} to {args.output}")
    else:
        sys.stdout.write(genome.to_text())
    return 0


def main(argv=None, prog: str = "genchess-train") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if (args.config is None) == (args.export is None):
        parser.error("give a CONFIG file to train, or --export DATABASE")
    from genchess.parallel.executors import ClusterError, parse_scheduler

    def body() -> int:
        if args.export:
            return export(args)
        config = parse_config(args.config)
        if args.scheduler is not None:
            try:
                config.scheduler = parse_scheduler(args.scheduler)
            except ValueError as e:
                raise ConfigError(f"--scheduler: {e}") from None
        for switch, _, _ in TLS_SWITCHES:
            attribute = switch[2:].replace("-", "_")        # the key's attribute too
            if getattr(args, attribute) is not None:
                setattr(config, attribute, getattr(args, attribute))
        return trainer_for(config).run()

    return run_command(prog, body, (ConfigError, GenomeError, ClusterError))


if __name__ == "__main__":
    sys.exit(main())
