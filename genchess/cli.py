"""The `genchess` command: one entry point, one subcommand per job.

Subcommands parse their own arguments and turn every user error (bad FEN, bad
number) into one line on stderr and exit status 2, never a traceback.
"""

import argparse
import sys
import time

from genchess import __version__


def _depth(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, not {text!r}") from None
    if not 0 <= value <= 20:
        raise argparse.ArgumentTypeError(f"depth must be between 0 and 20, not {value}")
    return value


def cmd_perft(args):
    from genchess_core import Board, FenError

    try:
        board = Board(args.fen) if args.fen else Board()
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


def build_parser():
    parser = argparse.ArgumentParser(
        prog="genchess",
        description="GenChess: a chess engine whose evaluation is an evolved genome.")
    parser.add_argument("--version", action="version", version=f"GenChess {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("perft", help="count the leaf nodes of the legal move tree",
                       description="Count leaf nodes to DEPTH (draw rules ignored), "
                                   "as Stockfish's `go perft` does.")
    p.add_argument("depth", type=_depth, metavar="DEPTH", help="plies to search (0-20)")
    p.add_argument("--fen", help="start position (default: the standard start)")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(func=cmd_perft)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
