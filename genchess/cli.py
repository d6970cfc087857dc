"""The `genchess` command: one entry point, one subcommand per job.

Subcommands parse their own arguments and turn every user error (bad FEN, bad
number) into one line on stderr and exit status 2, never a traceback.
"""

import argparse
import sys
import time

from genchess import __version__
from genchess.arguments import add_bench_arguments, add_engine_options, add_player_option
from genchess.arguments import positive as _positive
from genchess.console import reader_gone


def _depth(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, not {text!r}") from None
    if not 0 <= value <= 20:
        raise argparse.ArgumentTypeError(f"depth must be between 0 and 20, not {value}")
    return value


def read_perft_suite(path):
    """[(line number, FEN, {depth: leaf count})] of an EPD perft suite, lines as
    `FEN ;D1 20 ;D2 400` (tests/data/perftsuite.epd, tests/data/perft960.epd), `#`
    lines and blank lines skipped; ValueError naming the file and line otherwise."""
    from genchess_core import Board, FenError

    cases = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            fen, *items = line.split(";")
            try:
                Board(fen.strip())
                counts = {}
                for item in items:
                    depth, count = item.split()
                    if depth[:1] != "D":
                        raise ValueError
                    counts[int(depth[1:])] = int(count)
            except FenError as e:
                raise ValueError(f"{path}:{number}: {e}") from None
            except ValueError:
                raise ValueError(f"{path}:{number}: expected FEN ;D1 COUNT ;D2 COUNT ..., "
                                 f"not {line.strip()[:80]!r}") from None
            cases.append((number, fen.strip(), counts))
    return cases


def perft_suite(args):
    """Check every count of a perft suite up to DEPTH; status 1 on any mismatch."""
    from genchess_core import Board

    try:
        cases = read_perft_suite(args.suite)
    except OSError as e:
        print(f"genchess perft: cannot read {args.suite}: {e.strerror}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"genchess perft: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    checked = failed = nodes = 0
    for number, fen, counts in cases:
        board = Board(fen)
        for depth in sorted(d for d in counts if d <= args.depth):
            got = board.perft(depth)
            nodes += got
            checked += 1
            if got != counts[depth]:
                failed += 1
                print(f"{args.suite}:{number}: depth {depth}: {got} nodes, expected "
                      f"{counts[depth]} ({fen})")
    elapsed = time.perf_counter() - start
    print(f"{len(cases)} positions, {checked} counts to depth {args.depth}: "
          + (f"{failed} wrong" if failed else "all match"))
    print(f"Nodes searched: {nodes}")
    print(f"Time: {elapsed * 1000:.1f} ms")
    return 1 if failed else 0


def cmd_perft(args):
    from genchess_core import Board, FenError

    if args.suite is not None:
        if args.fen is not None or args.divide:
            print("genchess perft: --suite checks a file of positions; it takes no --fen or --divide",
                  file=sys.stderr)
            return 2
        return perft_suite(args)
    try:
        # `--fen ""` is a FEN, and an empty one is bad (as python-chess has it);
        # only leaving the option out means the start position.
        board = Board(args.fen, chess960=args.chess960) if args.fen is not None \
            else Board(chess960=args.chess960)
    except FenError as e:
        print(f"genchess perft: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        nodes = 0
        for move, count in board.divide(args.depth):
            print(f"{move}: {count}")
            nodes += count
        print()
    else:
        nodes = board.perft(args.depth)
    elapsed = time.perf_counter() - start
    print(f"Nodes searched: {nodes}")
    nps = nodes / elapsed if elapsed > 0 else 0.0
    print(f"Time: {elapsed * 1000:.1f} ms, {nps / 1e6:.1f} million nodes per second")
    return 0


def cmd_eval(args):
    from genchess_core import Board, FenError
    from genchess.explain import explain, format_explanation

    genome = load_genome_or_exit(args.genome, args.genome_id, "genchess eval")
    try:
        board = Board(args.fen) if args.fen != "startpos" else Board()
    except FenError as e:
        print(f"genchess eval: {e}", file=sys.stderr)
        return 2
    from genchess.genome.genome_file import DEFAULT_GENOME_PATH
    name = args.genome or f"the default genome ({DEFAULT_GENOME_PATH.name})"
    print(format_explanation(explain(genome, board),
                         f"{board.fen()}\n{name}, kind {genome.KIND}\n"))
    return 0


def load_genome_or_exit(path, genome_id, prog):
    """The genome a user asked for, or one line on stderr and exit status 2."""
    from genchess.genome import GenomeError, open_genome

    if path is None and genome_id is not None:
        print(f"{prog}: --genome-id needs --genome FILE", file=sys.stderr)
        raise SystemExit(2)
    try:
        return open_genome(path, genome_id)
    except GenomeError as e:
        print(f"{prog}: {e}", file=sys.stderr)
    raise SystemExit(2)


def cmd_bench(args):
    from genchess.bench import (BUDGET_NODES, DEFAULT_DEPTH, DEFAULT_RUNS, GA_POOL_NODES, MINIMAX_DEPTH,
                                run_bench, run_threads_bench)
    from genchess.engine import Engine

    mode = getattr(args, "search", None) or "iterative"
    # Each mode's bench searches to the size that mode stops at (genchess.bench): a depth
    # for the iterative search and minimax, a node count for the budget search and the GA.
    sized_by_nodes = mode in ("budget", "ga")
    if sized_by_nodes and args.depth is not None:
        return _bench_usage(f"the {mode} search has no depth to stop at; give its size with --nodes N")
    if not sized_by_nodes and args.nodes is not None:
        return _bench_usage(f"--nodes sizes the budget and GA searches; the {mode} search stops at --depth")
    if sized_by_nodes and args.threads > 1:
        return _bench_usage(f"the {mode} search runs on one thread; --threads is for iterative and minimax")
    if args.genome is None and args.genome_id is None:
        # The reference workload: the hand-set genome has every gene on, and the
        # signature must not move when the default genome is replaced by a newer
        # evolved one. Only search and evaluation code change it.
        from genchess.genome import hand_set_genome
        genome = hand_set_genome()
    else:
        genome = load_genome_or_exit(args.genome, args.genome_id, "genchess bench")
    engine = Engine(genome, hash_mb=args.hash, search_mode=mode)
    depth = None
    if mode == "budget":
        engine.budget_nodes = args.nodes or BUDGET_NODES
    elif mode == "ga":
        engine.ga_nodes = args.nodes or GA_POOL_NODES
        engine.ga_init_level = getattr(args, "ga_init_level", 1)
    else:
        depth = args.depth or (MINIMAX_DEPTH if mode == "minimax" else DEFAULT_DEPTH)
    if args.threads > 1:
        run_threads_bench(engine, args.threads, depth, args.runs or DEFAULT_RUNS)
    else:
        run_bench(engine, depth, args.runs or DEFAULT_RUNS)
    return 0


def _bench_usage(problem: str) -> int:
    print(f"genchess bench: {problem}", file=sys.stderr)
    return 2


def cmd_protocol(args):
    """Speak UCI or CECP on stdin/stdout; with no protocol given, the first command decides."""
    from genchess.protocols.channel import Channel
    from genchess.engine import Engine
    from genchess.protocols.options import MAX_THREADS, Settings

    genome = load_genome_or_exit(args.genome, args.genome_id, "genchess")
    try:
        channel = Channel(log_path=args.log)
    except OSError as e:
        print(f"genchess: cannot open log file {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    engine = Engine(genome, hash_mb=args.hash, search_mode=args.search)
    engine.set_threads(min(args.threads, MAX_THREADS))
    engine.ga_init_level = getattr(args, "ga_init_level", 1)
    if getattr(args, "player", None):
        from genchess.players import PlayerSpecError
        from genchess.players.adapter import engine_for_player
        try:
            engine = engine_for_player(args.player, engine)
        except PlayerSpecError as e:
            print(f"genchess: {e}", file=sys.stderr)
            return 2
    settings = Settings(engine, tune=getattr(args, "tune", False))
    if args.book:
        from genchess.protocols.options import OptionError
        try:
            settings.set_book(args.book)
        except OptionError as e:
            print(f"genchess: {e}", file=sys.stderr)
            return 2
    if args.genome:
        settings.genome_path, settings.genome_id = args.genome, args.genome_id
    protocol = getattr(args, "protocol", None)
    first = None
    if protocol is None:
        if sys.stdin.isatty():
            print(f"GenChess {__version__}: send 'uci' or 'xboard' (genchess --help for more)",
                  file=sys.stderr)
        while protocol is None:
            first = channel.readline()
            if first is None:
                return 0
            word = first.strip().split(" ")[0] if first.strip() else ""
            if word in ("uci", "xboard"):
                protocol = word
            elif word == "quit":
                return 0
            elif word:
                channel.send(f"Error (unknown command): {first[:200]}: send uci or xboard first")
    if protocol == "uci":
        from genchess.protocols.uci import UciProtocol
        UciProtocol(engine, settings, channel).run(first)
    else:
        from genchess.protocols.xboard import XboardProtocol
        XboardProtocol(engine, settings, channel).run(None)
    channel.close()
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="genchess",
        description="GenChess: a chess engine whose evaluation is an evolved genome.")
    parser.add_argument("--version", action="version", version=f"GenChess {__version__}")
    add_engine_options(parser)
    add_player_option(parser)
    parser.set_defaults(func=cmd_protocol)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for name, what in (("uci", "UCI"), ("xboard", "xboard/CECP 2")):
        p = sub.add_parser(name, help=f"speak {what} on stdin/stdout (for GUIs and tournaments)",
                           description=f"Speak {what} on standard input and output.")
        add_engine_options(p, suppress=True)
        add_player_option(p, suppress=True)
        p.set_defaults(func=cmd_protocol, protocol=name)

    p = sub.add_parser("perft", help="count the leaf nodes of the legal move tree",
                       description="Count leaf nodes to DEPTH (draw rules ignored), "
                                   "as Stockfish's `go perft` does.")
    p.add_argument("depth", type=_depth, metavar="DEPTH", help="plies to search (0-20)")
    p.add_argument("--fen", help="start position (default: the standard start); Chess960 "
                                 "castling rights in X-FEN (KQkq, or a rook's file) or "
                                 "Shredder-FEN (HAha)")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.add_argument("--chess960", action="store_true",
                   help="write castling as king-takes-rook (e1h1) in --divide, as UCI_Chess960 does")
    p.add_argument("--suite", metavar="FILE",
                   help="check every count up to DEPTH of a perft suite (lines `FEN ;D1 N ;D2 N`), "
                        "such as tests/data/perftsuite.epd or the Chess960 suite "
                        "tests/data/perft960.epd; exit status 1 on a wrong count")
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("eval", help="a position's static evaluation, term by term",
                       description="Print the genome's static evaluation of FEN term by term, "
                                   "as its kind builds it (the unified kind: each term group's "
                                   "middle-game and end-game value, the phase and the tapered "
                                   "total), and the total the search uses.")
    p.add_argument("fen", nargs="?", default="startpos", metavar="FEN",
                   help="the position (default: the start position)")
    add_engine_options(p, suppress=True)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("bench", help="search fixed positions to a fixed depth (speed and signature)",
                       description="Search 32 fixed positions to a fixed depth from a cleared hash "
                                   "table; the node count is the engine's deterministic signature. "
                                   "Without --genome it uses the hand-set genomes/default.genome "
                                   "(every gene on), whatever the default genome is. The positions "
                                   "are searched several times over; the time and speed reported "
                                   "are the fastest pass's, with the spread of all of them. "
                                   "--search benches another mode, each to the size it stops at "
                                   "by itself: minimax to a depth, budget and ga to a node count.")
    add_bench_arguments(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("play", help="play a game at the terminal (people and/or computers)",
                       description="Play a game between two players, each one of human, random, "
                                   "turing, montecarlo or genetic[:FILE[:ID]].")
    p.add_argument("white", metavar="WHITE", help="the white player")
    p.add_argument("black", metavar="BLACK", help="the black player")
    p.add_argument("--time", type=_seconds, metavar="SECONDS", help="time per side (default: untimed)")
    p.add_argument("--increment", type=_seconds, metavar="SECONDS", help="seconds added per move")
    p.add_argument("--moves", type=_positive, metavar="N", help="moves per time control")
    p.add_argument("--fen", help="start position (default: the standard start)")
    p.add_argument("--variant", metavar="VARIANT",
                   help="standard (the default) or chess960: the game starts from one of "
                        "Chess960's 960 start positions, chosen by --seed (or --position, or "
                        "--fen), castling by Chess960's rules")
    p.add_argument("--position", type=int, metavar="N",
                   help="play Chess960 from its start position number N (0-959; 518 is the "
                        "standard start)")
    p.add_argument("--pgn", metavar="FILE", help="append the game to this PGN file")
    p.add_argument("--show-thinking", action="store_true",
                   help="print each computer move's depth, score and principal variation")
    p.add_argument("--seed", type=int, metavar="N", help="seed for the random choices")
    p.add_argument("--elo", type=int, metavar="N",
                   help="the genetic player plays at this rating (the calibrated range is in "
                        "docs/play.md)")
    p.add_argument("--skill", type=float, metavar="S",
                   help="the genetic player's strength level, 0 (weakest) to 20 (full strength)")
    p.add_argument("--unicode", action="store_true", help="draw the pieces with chess symbols")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("match", help="play a match between two engines: Elo, LOS, SPRT",
                       description="Play game pairs (each opening with both colours) between two "
                                   "engines with real clocks; print W/D/L, Elo with its 95% "
                                   "interval, LOS, pentanomial counts, and SPRT if asked.")
    from genchess.strength.cli import add_match_arguments
    add_match_arguments(p)
    p.set_defaults(func=_cmd_match)

    p = sub.add_parser("gauntlet", help="rate an engine against reference engines of known rating",
                       description="Play an engine against every opponent of a gauntlet config, "
                                   "fit one rating with its 95% interval, write a table and a plot.")
    from genchess.strength.gauntlet import add_gauntlet_arguments
    add_gauntlet_arguments(p)
    p.set_defaults(func=_cmd_gauntlet)

    p = sub.add_parser("positions", help="make a labelled position set from games (for tuning)",
                       description="Sample positions from games (PGN files, and/or GenChess or "
                                   "Stockfish self-play at a fixed node count), resolve each to the "
                                   "quiet position at the end of GenChess's quiescence search, and "
                                   "write them as EPD labelled with the game's result (c9) and, with "
                                   "--mentor, Stockfish's score (ce). Resumable; see FILE.json for "
                                   "how a set was made.")
    from genchess.position_sets.cli import add_positions_arguments
    add_positions_arguments(p)
    p.set_defaults(func=_cmd_positions)

    p = sub.add_parser("datagen", help="the data machine: self-play chunks of game chains for "
                                       "training a network, resumable, without end",
                       description="Play the default genome (or --genome) against itself and keep "
                                   "each game's moves and search scores as compact chain chunks in "
                                   "DIR, with a manifest; the same command resumes or grows the set "
                                   "after Ctrl-C, kill -9 or a reboot (docs/datagen.md).")
    from genchess.position_sets.datagen_cli import add_datagen_arguments
    add_datagen_arguments(p)
    p.set_defaults(func=_cmd_datagen)

    # The trainers' commands and the lab parse their own arguments (the one parser each,
    # shared with genchess-train and genchess-plot); main() hands them everything after
    # the command word, so that their options reach them whole.
    for name, what in (("train", "evolve genomes: run or resume the method a config file "
                                 "names (genchess train --help)"),
                       ("plot", "draw PNG plots of what a training run evolved "
                                "(genchess plot --help)"),
                       ("lab", "a persistent queue of long runs, its worker and its live page "
                               "(genchess lab --help)")):
        p = sub.add_parser(name, help=what, add_help=False)
        p.add_argument("arguments", nargs=argparse.REMAINDER)
        p.set_defaults(func=lambda args, name=name: TRAINER_COMMANDS[name](args.arguments))

    p = sub.add_parser("selftest", help="check the rules and the players (no pytest needed)",
                       description="A quick built-in check of move generation, the rules and the "
                                   "players; exits non-zero on any failure.")
    p.set_defaults(func=_cmd_selftest)
    return parser


def _cmd_datagen(args):
    from genchess.position_sets.datagen_cli import cmd_datagen
    return cmd_datagen(args)


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds of at least 0, not {text}")
    return value


def _cmd_play(args):
    from genchess.play import cmd_play
    return cmd_play(args)


def _cmd_match(args):
    from genchess.strength.cli import cmd_match
    return cmd_match(args)


def _cmd_gauntlet(args):
    from genchess.strength.gauntlet import cmd_gauntlet
    return cmd_gauntlet(args)


def _cmd_positions(args):
    from genchess.position_sets.cli import cmd_positions
    return cmd_positions(args)


def _cmd_selftest(args):
    from genchess.selftest import run_selftest
    return run_selftest()


def _cmd_train(argv):
    from genchess.train.cli import main as train_main
    return train_main(argv, prog="genchess train")


def _cmd_plot(argv):
    from genchess.plot import main as plot_main
    return plot_main(argv, prog="genchess plot")


def _cmd_lab(argv):
    from genchess.lab.cli import main as lab_main
    return lab_main(argv)


# Commands with a parser of their own (their options would be taken for genchess's).
TRAINER_COMMANDS = {"train": _cmd_train, "plot": _cmd_plot, "lab": _cmd_lab}



def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in TRAINER_COMMANDS:
        # Straight to the command's own parser: argparse would take the options of
        # `genchess train --export DB` for its own.
        return TRAINER_COMMANDS[argv[0]](argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()          # as in console.run_command: a reader gone away shows here
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return reader_gone()


if __name__ == "__main__":
    sys.exit(main())
