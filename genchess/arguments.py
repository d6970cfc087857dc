"""Command-line options that several `genchess` commands share, and those of
`genchess bench`: plain argparse, importing nothing else, so that both the `genchess`
command (cli.py) and the lab (genchess/lab/kinds.py, which checks a queued job with
the command's own parser) can build them without importing each other.
"""

import argparse


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, not {value}")
    return value


def add_engine_options(parser, suppress=False, default_genome="the shipped genomes/network.genome"):
    """Options of the playing engine; on subcommands they default to SUPPRESS so
    that `genchess --hash 64 uci` and `genchess uci --hash 64` both work.
    `default_genome` says in the help which genome runs without --genome."""
    default = (lambda value: argparse.SUPPRESS) if suppress else (lambda value: value)
    parser.add_argument("--genome", metavar="FILE", default=default(None),
                        help=f"genome file (default: {default_genome}); for a gene-pool "
                             "file the smallest living ID, else the last genome; for a Phoenix "
                             "chromosome database (SQLite) the best of the last generation")
    parser.add_argument("--genome-id", type=int, metavar="N", default=default(None),
                        help="load the genome with this ID")
    parser.add_argument("--search", choices=("iterative", "budget", "ga", "minimax"),  # engine.SEARCH_MODES, kept
                        default=default("iterative"),                     # import-free here
                        help="iterative deepening, the Look Ahead Gene's time budget, the GA tree "
                             "search (Dehghani-Babamir) or plain minimax")
    parser.add_argument("--ga-init-level", type=int, choices=(1, 2), default=default(1),
                        help="GA search's initial population: root moves (1) or two-ply branches (2)")
    parser.add_argument("--hash", type=positive, metavar="MB", default=default(16),
                        help="transposition table size in MB (default 16)")
    parser.add_argument("--threads", type=positive, metavar="N", default=default(1),
                        help="search threads (Lazy SMP; default 1). genchess bench: report the "
                             "speed and the time to the bench depth on N threads")
    parser.add_argument("--book", metavar="FILE", default=default(None),
                        help="play the opening from this Polyglot book (default: no book)")
    parser.add_argument("--log", metavar="FILE", default=default(None),
                        help="append every protocol line in and out, with timestamps, to FILE")


def add_player_option(parser, suppress=False):
    """--player: who plays behind the protocol (default: the genome engine); --tune: the
    search genes as UCI options."""
    parser.add_argument("--player", metavar="PLAYER", default=argparse.SUPPRESS if suppress else None,
                        help="random, turing, montecarlo or genetic[:FILE[:ID]] (default: genetic "
                             "with --genome)")
    parser.add_argument("--tune", action="store_true", default=argparse.SUPPRESS if suppress else False,
                        help="offer every search gene (the search's and the time manager's "
                             "numbers) as a UCI spin option, for external tuners")


def add_bench_arguments(p):
    """The options of `genchess bench` (also how `genchess lab add bench` reads them)."""
    # The defaults live in genchess.bench (DEFAULT_DEPTH, DEFAULT_RUNS), which this
    # module does not import at start-up: importing it loads the compiled core.
    p.add_argument("--depth", type=positive, help="search depth: iterative (default 8) and minimax "
                                                   "(default 3)")
    p.add_argument("--nodes", type=positive, metavar="N",
                   help="the node-budget searches' size per position: budget (its nodes a move, "
                        "default 20000) and ga (its tree, default 2000)")
    p.add_argument("--runs", type=positive, metavar="N",
                   help="passes over the positions; the fastest gives the speed (default 5)")
    add_engine_options(p, suppress=True, default_genome="the hand-set genomes/default.genome, "
                                                         "whatever the default genome is, so that "
                                                         "the signature does not move with it")
