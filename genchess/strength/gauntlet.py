"""`genchess gauntlet CONFIG`: one engine against rated opponents, one rating.

The engine plays a match against each opponent in turn (game pairs, real
clocks: the match runner), then one rating is fitted to all the results at once
(ratings.fit_rating, maximum likelihood on the logistic model) with its 95%
interval, and written as a markdown table and a PNG of score against opponent
rating with the fitted curve.

The config is `key = value` lines (engine, games, tc, openings, concurrency, pgn,
variant) and one `[opponent NAME]` section per opponent, each with `command` (an
engine spelling as `genchess match` takes it) and `rating` (a number, optionally
followed by how it was measured, or the word `unmeasured`). Opponents whose
command is not installed, or that cannot play the variant, are skipped with a
note; `unmeasured` ones are skipped unless --include-unmeasured (then their
rating is ignored in the fit: the point is printed, not fitted). See
genchess/data/gauntlet.cfg.

A gauntlet too long to play in one go continues with --resume: the games already
in its --pgn file count against their opponent (matched by the two engines'
names) and only the rest are played, so the final fit covers every game.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from genchess.console import quoted, whole_number


def _count(text: str) -> int:
    number = whole_number(text)
    if number is None:
        raise ValueError(text)
    return number


TOP_KEYS = {"engine": str, "games": _count, "tc": str, "openings": str, "concurrency": _count,
            "pgn": str, "variant": str}


class GauntletError(ValueError):
    """A config problem, `file:line: problem`."""


@dataclass
class Anchor:
    name: str
    command: str = ""
    rating: float | None = None         # None: unmeasured
    note: str = ""                      # what follows the rating: how it was measured
    line: int = 0


@dataclass
class GauntletConfig:
    path: Path
    settings: dict = field(default_factory=dict)
    anchors: list[Anchor] = field(default_factory=list)


def parse_gauntlet(path: str | Path) -> GauntletConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GauntletError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise GauntletError(f"{path}: cannot read: {e}") from None
    config = GauntletConfig(path)
    current: Anchor | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        section = re.fullmatch(r"\[\s*opponent\s+(.+?)\s*\]", line)
        if section:
            current = Anchor(section.group(1), line=n)
            if any(a.name == current.name for a in config.anchors):
                raise GauntletError(f"{path}:{n}: opponent {quoted(current.name)} appears twice")
            config.anchors.append(current)
            continue
        if line.startswith("["):
            raise GauntletError(f"{path}:{n}: expected [opponent NAME], got {quoted(line)}")
        key, eq, value = (part.strip() for part in line.partition("="))
        key = key.lower()
        if not eq:
            raise GauntletError(f"{path}:{n}: expected 'key = value', got {quoted(line)}")
        if current is None:
            if key not in TOP_KEYS:
                raise GauntletError(f"{path}:{n}: unknown key {quoted(key)} (expected "
                                    f"{', '.join(TOP_KEYS)} or an [opponent NAME] section)")
            try:
                config.settings[key] = TOP_KEYS[key](value)
            except ValueError:
                raise GauntletError(f"{path}:{n}: {key}: expected a whole number, not {quoted(value)}") from None
            if key == "variant":
                from genchess.game.openings import check_variant
                try:
                    config.settings[key] = check_variant(value)
                except ValueError as e:
                    raise GauntletError(f"{path}:{n}: variant: {e}") from None
        elif key == "command":
            current.command = value
        elif key == "rating":
            first, _, note = value.partition(" ")
            current.note = note.strip()
            if first.lower() == "unmeasured":
                current.rating = None
            else:
                try:
                    current.rating = float(first)
                except ValueError:
                    raise GauntletError(f"{path}:{n}: rating: expected a number or 'unmeasured', "
                                        f"not {quoted(first)}") from None
        else:
            raise GauntletError(f"{path}:{n}: unknown opponent key {quoted(key)} (expected command, rating)")
    for anchor in config.anchors:
        if not anchor.command:
            raise GauntletError(f"{path}:{anchor.line}: opponent {quoted(anchor.name)} has no command")
    if not config.anchors:
        raise GauntletError(f"{path}: no [opponent NAME] sections")
    return config


def markdown_table(engine: str, rows, fit) -> str:
    from genchess.strength.stats import format_elo
    lines = [f"Gauntlet of {engine}: rating {fit.rating:.0f} +- {fit.error:.0f} "
             f"(95%, {fit.games} games{', with virtual draws for a perfect score' if fit.prior_draws else ''})",
             "", "| opponent | rating | games | W | D | L | score | Elo difference (95%) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for anchor, stats in rows:
        rating = f"{anchor.rating:.0f}" if anchor.rating is not None else "unmeasured"
        # An opponent not yet played (a gauntlet stopped early) has no score to show.
        score, elo = (f"{stats.score:.3f}", format_elo(stats.elo())) if stats.games else ("-", "-")
        lines.append(f"| {anchor.name} | {rating} | {stats.games} | {stats.wins} | {stats.draws} | "
                     f"{stats.losses} | {score} | {elo} |")
    return "\n".join(lines) + "\n"


def plot(path: Path, engine: str, rows, fit) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from genchess.strength.ratings import expected_score
    rated = [(a, s) for a, s in rows if a.rating is not None and s.games]
    fig, ax = plt.subplots(figsize=(8, 5))
    xs = np.array([a.rating for a, _ in rated])
    ys = np.array([s.score for _, s in rated])
    errs = np.array([1.96 * s.elo().stderr for _, s in rated])
    bars = np.array([np.minimum(errs, ys), np.minimum(errs, 1 - ys)])     # kept within [0, 1]
    ax.errorbar(xs, ys, yerr=bars, fmt="o", capsize=3, label="score against opponent (95%)")
    # Above and below in turn: neighbouring rungs with the same score would overwrite.
    for i, ((a, _), x, y) in enumerate(zip(rated, xs, ys)):
        ax.annotate(a.name, (x, y), textcoords="offset points", xytext=(4, 4 if i % 2 == 0 else -12),
                    fontsize=8)
    lo, hi = min(list(xs) + [fit.rating]) - 300, max(list(xs) + [fit.rating]) + 300
    grid = np.linspace(lo, hi, 200)
    ax.plot(grid, [expected_score(fit.rating, r) for r in grid],
            label=f"fit: {fit.rating:.0f} +- {fit.error:.0f}")
    ax.fill_between(grid, [expected_score(fit.low, r) for r in grid],
                    [expected_score(fit.high, r) for r in grid], alpha=0.2, label="95% interval")
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.axvline(fit.rating, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("opponent rating")
    ax.set_ylabel(f"score of {engine}")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"Gauntlet: {engine}")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def prepare_gauntlet(args, out=print):
    """Every check of a gauntlet before its first game (the config read, the engine
    probed, the opponents to play chosen): (config, games, control, adjudication,
    chess960, engine, [(anchor, spec)]), or UsageError. `genchess lab add gauntlet`
    queues a gauntlet only if this passes."""
    from genchess.strength.cli import (UsageError, parse_adjudication, parse_control, parse_variant,
                                       probe_all)
    from genchess.strength.engines import SpecError, parse_engine_spec

    try:
        config = parse_gauntlet(args.config)
    except GauntletError as e:
        raise UsageError(str(e)) from None
    s = config.settings
    for key in ("tc", "openings", "concurrency", "pgn", "variant"):
        if getattr(args, key, None) is None and key in s:
            setattr(args, key, s[key])
    args.tc = args.tc or "10+0.1"
    if args.resume and not args.pgn:
        raise UsageError("--resume continues the gauntlet in a PGN file: give it with --pgn FILE "
                         "(or pgn = FILE in the config)")
    games = args.games or s.get("games", 20)
    engine_text = args.engine or s.get("engine", "genchess")
    control = parse_control(args)
    adjudication = parse_adjudication(args)
    chess960 = parse_variant(args)
    engine = probe_all([engine_text], chess960, control.nodes is not None)[0]
    todo = []
    for anchor in config.anchors:
        if args.opponents and not re.search(args.opponents, anchor.name):
            continue
        if anchor.rating is None and not args.include_unmeasured:
            out(f"skipping {anchor.name}: rating unmeasured (--include-unmeasured plays it)")
            continue
        try:
            spec = parse_engine_spec(anchor.command)
        except SpecError as e:
            if "not found" in str(e):
                out(f"skipping {anchor.name}: {e} (install it, e.g. apt-get install ...)")
                continue
            raise UsageError(f"{config.path}:{anchor.line}: {e}") from None
        todo.append((anchor, spec))
    if not todo:
        raise UsageError(f"{config.path}: no opponent to play (all skipped)")
    return config, games, control, adjudication, chess960, engine, todo


def run_gauntlet(args, out=print) -> int:
    from genchess.strength.cli import UsageError, load_openings
    from genchess.strength.ratings import Opponent, fit_rating
    from genchess.strength.runner import MatchRunner, ResumeError, describe_controls
    from genchess.strength.engines import SpecError, VariantError, probe

    config, games, control, adjudication, chess960, engine, todo = prepare_gauntlet(args, out)
    rows = []
    interrupted = False
    for anchor, spec in todo:
        try:
            opponent = probe(spec, chess960, control.nodes is not None)
        except VariantError as e:
            out(f"skipping {anchor.name}: {e}")
            continue
        except SpecError as e:
            raise UsageError(str(e)) from None
        openings = load_openings(args, [engine, opponent], games)
        runner = MatchRunner((engine, opponent), control, openings, games, args.concurrency,
                             None, args.pgn, out, event=f"GenChess gauntlet {config.path.name}",
                             adjudication=adjudication)
        out(f"--- {engine.name} vs {anchor.name} ({anchor.rating if anchor.rating is not None else 'unmeasured'}): "
            f"{games} games at {describe_controls(runner.controls, runner.names)}"
            + (", Chess960" if chess960 else ""))
        if args.resume:
            try:
                resumed = runner.resume(args.pgn, skip_other_pairings=True)
            except ResumeError as e:
                raise UsageError(str(e)) from None
            if resumed:
                s = runner.result.stats
                out(f"Resumed {resumed} games from {args.pgn}: +{s.wins} ={s.draws} -{s.losses}")
        result = runner.run()
        for line in result.summary_lines():
            out(line)
        rows.append((anchor, result.stats))
        if result.stopped == "interrupted":
            interrupted = True
            break
    fitted = [Opponent(a.name, a.rating, st) for a, st in rows if a.rating is not None]
    try:
        fit = fit_rating(fitted)
    except ValueError:
        out("no rated games: no rating")
        return 130 if interrupted else 1
    table = markdown_table(engine.name, rows, fit)
    # In the current folder, not beside the config: the shipped configs live in the
    # installed package, which is no place for a user's results (and may be read-only).
    stem = args.out or config.path.stem + "_gauntlet"
    Path(stem + ".md").write_text(table, encoding="utf-8")
    plot(Path(stem + ".png"), engine.name, rows, fit)
    out("")
    out(table)
    out(f"Table written to {stem}.md, plot to {stem}.png")
    return 130 if interrupted else 0


def add_gauntlet_arguments(p) -> None:
    from genchess.strength.cli import add_common_arguments
    p.add_argument("config", metavar="CONFIG", help="gauntlet config (see genchess/data/gauntlet.cfg)")
    p.add_argument("--engine", metavar="ENGINE", help="the engine to rate (default: the config's engine)")
    p.add_argument("--games", type=int, metavar="N", help="games against each opponent")
    p.add_argument("--opponents", metavar="REGEX", help="only opponents whose name matches")
    p.add_argument("--include-unmeasured", action="store_true",
                   help="also play opponents whose rating is unmeasured (not fitted)")
    p.add_argument("--out", metavar="PREFIX", help="write PREFIX.md and PREFIX.png "
                                                   "(default: the config's name without suffix + _gauntlet, "
                                                   "in the current folder)")
    p.add_argument("--resume", action="store_true",
                   help="continue the gauntlet in the --pgn file: the games already there against "
                        "each opponent count, only the rest are played (same --engine, --games, "
                        "openings, --seed and --tc)")
    add_common_arguments(p)
    p.set_defaults(tc=None)


def cmd_gauntlet(args) -> int:
    from genchess.strength.cli import UsageError
    try:
        if args.games is not None and args.games < 1:
            raise UsageError(f"--games must be at least 1, not {args.games}")
        return run_gauntlet(args, out=lambda line: print(line, flush=True))
    except UsageError as e:
        print(f"genchess gauntlet: {e}", file=sys.stderr)
        return 2
