"""`genchess match` and `genchess gauntlet`: the command lines over the runner.

Everything is checked before the first game (engines started once and asked
their protocol, openings read and checked line by line, the time control and
SPRT settings parsed): bad input is one line on stderr and exit status 2. With
--json the progress lines go to stderr and only the JSON result to stdout.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys

from genchess.files import package_file
from genchess.strength.sprt import Sprt

DATA = package_file("data")
DEFAULT_OPENINGS = DATA / "openings.epd"
DEFAULT_MOVE_OPENINGS = DATA / "openings_moves.txt"    # for engines without setboard
SPRT_MAX_GAMES = 20000


class UsageError(Exception):
    """Bad input: printed as one line, exit status 2."""


def add_match_arguments(p) -> None:
    p.add_argument("engines", nargs=2, metavar="ENGINE",
                   help="genchess[:GENOME[:ID]] [search=MODE ga_level=1|2 hash=MB threads=N skill=0..20 name=N player=turing], "
                        "or 'uci:CMD [ARGS] [OPTION=VALUE...]' / 'xboard:CMD ...' (quote it); "
                        "any side may add tc=TC, its own time control (time odds)")
    p.add_argument("--games", type=int, metavar="N",
                   help=f"games to play (default 100; with --sprt, at most {SPRT_MAX_GAMES})")
    add_common_arguments(p)
    p.add_argument("--sprt", nargs="*", metavar="KEY=VALUE",
                   help=f"stop at a decision: elo0={Sprt.elo0:g} elo1={Sprt.elo1:g} "
                        f"alpha={Sprt.alpha:g} beta={Sprt.beta:g} model=normalized|logistic "
                        f"(the defaults; give any to change it)")
    p.add_argument("--resume", action="store_true",
                   help="continue the match in the --pgn file: its games count, only the rest "
                        "are played (same engines, openings, --seed and --tc)")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def add_common_arguments(p) -> None:
    p.add_argument("--tc", default="10+0.1", metavar="TC",
                   help="base+inc, moves/base(+inc), st=SECONDS per move, nodes=N or depth=N "
                        "(default 10+0.1)")
    p.add_argument("--timemargin", type=float, default=0.0, metavar="MS",
                   help="milliseconds a move may overrun the clock before it is lost (default 0)")
    p.add_argument("--openings", metavar="FILE",
                   help="EPD positions, a PGN file (first --plies plies) or lines of UCI moves "
                        "(default: genchess/data/openings.epd; its move list for engines that "
                        "cannot set up positions)")
    p.add_argument("--plies", type=int, default=8, metavar="N", help="plies of each PGN opening (default 8)")
    p.add_argument("--variant", metavar="VARIANT",
                   help="standard (the default) or chess960: each game pair starts from one of "
                        "Chess960's 960 start positions, chosen by --seed (or from the --openings "
                        "file's positions, played by Chess960's rules)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="shuffle the openings with this seed (chess960: choose the start positions)")
    p.add_argument("--concurrency", type=int, metavar="N",
                   help="games at once (default: half the cores)")
    p.add_argument("--pgn", metavar="FILE", help="append every game to this PGN file")
    p.add_argument("--resign", nargs="+", metavar="KEY=VALUE",
                   help="adjudicate a loss when a side's own score is SCORE cp or more below zero "
                        "for COUNT moves in a row: movecount=COUNT score=SCORE (cutechess's; "
                        "fishtest uses movecount=3 score=400)")
    p.add_argument("--draw", nargs="+", metavar="KEY=VALUE",
                   help="adjudicate a draw from full move NUMBER on when both scores stay within "
                        "SCORE cp of zero for COUNT moves each: movenumber=NUMBER movecount=COUNT "
                        "score=SCORE (fishtest: movenumber=34 movecount=8 score=20)")


def parse_control(args):
    from genchess.game import TimeControl
    try:
        control = TimeControl.parse(args.tc)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not (args.timemargin >= 0 and math.isfinite(args.timemargin)):
        raise UsageError(f"--timemargin must be a number of milliseconds of at least 0, not {args.timemargin:g}")
    control.margin = args.timemargin / 1000
    return control


def parse_adjudication(args):
    """The --resign and --draw rules, or None when neither is given."""
    from genchess.game.adjudication import Adjudication
    try:
        rules = Adjudication.from_options(getattr(args, "resign", None), getattr(args, "draw", None))
    except ValueError as e:
        raise UsageError(str(e)) from None
    return rules if rules.active else None


def parse_variant(args) -> bool:
    """Whether the games are Chess960 (--variant, or the gauntlet config's variant)."""
    from genchess.game.openings import check_variant
    try:
        return check_variant(args.variant or "standard") == "chess960"
    except ValueError as e:
        raise UsageError(f"--variant: {e}") from None


def check_common(args) -> None:
    if args.concurrency is not None and args.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, not {args.concurrency}")
    if args.plies < 0:
        raise UsageError(f"--plies must not be negative, not {args.plies}")
    if args.pgn:
        # Writable, found by opening it to append; a file made only to find that out is
        # removed, so that a check (genchess lab add) leaves nothing behind.
        existed = os.path.exists(args.pgn)
        try:
            open(args.pgn, "a", encoding="utf-8").close()
        except OSError as e:
            raise UsageError(f"cannot write PGN file {args.pgn}: {e.strerror}") from None
        if not existed:
            os.remove(args.pgn)


def load_openings(args, specs, games: int):
    """The openings of a match of `games` games for these engines; engines that
    cannot set up positions get the shipped move-list openings unless a file was
    given. In Chess960 without a file: one start position per game pair (all 960
    at most), chosen by --seed (0 without one, so that --resume finds the same)."""
    from genchess.game.openings import OpeningError, chess960_openings, read_openings
    chess960 = parse_variant(args)
    if chess960 and not args.openings:
        return chess960_openings((games + 1) // 2, args.seed if args.seed is not None else 0)
    needs_moves = [s for s in specs if s.needs_moves]
    path = args.openings or (DEFAULT_MOVE_OPENINGS if needs_moves else DEFAULT_OPENINGS)
    try:
        openings = read_openings(path, args.plies, chess960=chess960)
    except OpeningError as e:
        raise UsageError(str(e)) from None
    for spec in needs_moves:
        bad = next((o for o in openings if not o.from_start), None)
        if bad is not None:
            raise UsageError(f"{bad.source}: engine {spec.text!r} cannot set up positions (xboard "
                             f"setboard=0): give it openings as moves, a PGN or a file of UCI "
                             f"move lines such as {DEFAULT_MOVE_OPENINGS}")
    if args.seed is not None:
        random.Random(args.seed).shuffle(openings)
    return openings


def probe_all(texts, chess960: bool = False, nodes: bool = False):
    from genchess.game import TimeControl
    from genchess.strength.engines import SpecError, parse_engine_spec, probe
    specs = []
    for text in texts:
        try:
            spec = parse_engine_spec(text)
            # An engine with its own tc= plays at that, whatever the match's --tc.
            own_nodes = TimeControl.parse(spec.tc).nodes is not None if spec.tc else nodes
            specs.append(probe(spec, chess960, own_nodes))
        except SpecError as e:
            raise UsageError(str(e)) from None
    return specs


def cmd_match(args) -> int:
    prog = "genchess match"
    try:
        return run_match(args)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


def prepare_match(args):
    """Every check of a match before its first game (the engines probed, the openings
    read): (control, sprt, games, chess960, specs, openings, adjudication), or
    UsageError. `genchess lab add match` queues a match only if this passes."""
    from genchess.strength.sprt import parse_sprt

    control = parse_control(args)
    check_common(args)
    sprt = None
    if args.sprt is not None:                   # `--sprt` alone: the defaults
        try:
            sprt = parse_sprt(args.sprt)
        except ValueError as e:
            raise UsageError(str(e)) from None
    games = args.games if args.games is not None else (SPRT_MAX_GAMES if sprt else 100)
    if games < 1:
        raise UsageError(f"--games must be at least 1, not {games}")
    if args.resume and not args.pgn:
        raise UsageError("--resume continues the match in a PGN file: give it with --pgn FILE")
    chess960 = parse_variant(args)
    specs = probe_all(args.engines, chess960, control.nodes is not None)
    openings = load_openings(args, specs, games)
    return control, sprt, games, chess960, specs, openings, parse_adjudication(args)


def run_match(args) -> int:
    from genchess.strength.runner import MatchRunner, ResumeError, describe_controls

    control, sprt, games, chess960, specs, openings, adjudication = prepare_match(args)
    out = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else \
        (lambda line: print(line, flush=True))
    runner = MatchRunner((specs[0], specs[1]), control, openings, games, args.concurrency, sprt,
                         args.pgn, out, adjudication=adjudication)
    out(f"Match {runner.names[0]} vs {runner.names[1]}: {games} games at "
        f"{describe_controls(runner.controls, runner.names)}, "
        f"{len(openings)} {'Chess960 ' if chess960 else ''}openings, {runner.concurrency} at once"
        + (f", SPRT [{sprt.elo0:g}, {sprt.elo1:g}]" if sprt else "")
        + (f", adjudication: {adjudication.describe()}" if adjudication else ""))
    if args.resume:
        try:
            resumed = runner.resume(args.pgn)
        except ResumeError as e:
            raise UsageError(str(e)) from None
        s = runner.result.stats
        out(f"Resumed {resumed} games from {args.pgn}: {runner.names[0]} +{s.wins} ={s.draws} "
            f"-{s.losses}" + (f"; SPRT: {sprt.describe()}" if sprt and sum(s.pairs) else ""))
    result = runner.run()
    for line in result.summary_lines():
        out(line)
    if args.pgn:
        out(f"Games appended to {args.pgn}")
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, default=_json_number))
    return 130 if result.stopped == "interrupted" else (1 if result.stopped.startswith("a game failed") else 0)


def _json_number(value):
    return str(value)
