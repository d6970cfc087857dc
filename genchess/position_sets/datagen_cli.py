"""`genchess datagen DIR`: the data machine's command: its options, the set's recipe, the run.

The options and their checks, and the recipe a folder is made by (recipe.json: the
first run writes it from the options and DEFAULTS, every later run is held to it);
the machine itself is datagen.py. Nothing here imports numpy or the core at start-up,
since `genchess` builds its whole command line on every start.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict
from pathlib import Path

from genchess.files import write_atomically

RECIPE = "recipe.json"
RECIPE_GENOME = "recipe.genome"


class UsageError(Exception):
    """A bad option or a folder that cannot be run: one line, status 2."""


RECIPE_OPTIONS = ("genome", "nodes", "soft_nodes", "depth", "random_plies", "chess960", "games_per_chunk",
                  "seed", "win_adjudication", "draw_adjudication", "max_plies", "name")
# A new set's recipe where the command names none: the measured one (docs/datagen.md).
DEFAULTS = {"soft_nodes": 2500, "nodes": 100000, "depth": 0, "random_plies": 8, "chess960": 0.1,
            "games_per_chunk": 5000, "seed": 1, "win_adjudication": (1000, 4),
            "draw_adjudication": (10, 12, 80), "max_plies": 600}


def add_datagen_arguments(p) -> None:
    from genchess.console import at_least
    count_type, positive_type = at_least(0), at_least(1)
    p.add_argument("folder", metavar="DIR", help="the set's folder: made on the first run, grown "
                   "(or resumed) by every later one")
    p.add_argument("--genome", metavar="FILE", help="the genome that plays and labels (default: "
                   "the default genome); kept in DIR as recipe.genome")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--soft-nodes", metavar="N", type=positive_type,
                       help=f"no new iteration once a move's search has spent N nodes (default "
                            f"{DEFAULTS['soft_nodes']})")
    limit.add_argument("--depth", metavar="N", type=positive_type, help="a fixed depth a move")
    p.add_argument("--nodes", metavar="N", type=positive_type,
                   help="a hard node limit a move (alone: the old recipe's limit; with --soft-nodes: "
                        "a cap)")
    p.add_argument("--random-plies", metavar="N", type=count_type,
                   help=f"random legal plies after each opening (default {DEFAULTS['random_plies']})")
    p.add_argument("--chess960", metavar="SHARE", type=_share,
                   help=f"the share of games from Chess960's 960 start positions (default "
                        f"{DEFAULTS['chess960']})")
    p.add_argument("--games-per-chunk", metavar="N", type=positive_type,
                   help=f"games in a chunk (default {DEFAULTS['games_per_chunk']})")
    p.add_argument("--seed", type=int, help=f"of the openings and random plies (default {DEFAULTS['seed']})")
    p.add_argument("--win-adjudication", metavar=("CP", "PLIES"), nargs=2, type=count_type,
                   help="a game whose scores are all beyond CP for PLIES plies, one side's way, is that "
                        "side's (default %d %d; 0 0: never)" % DEFAULTS["win_adjudication"])
    p.add_argument("--draw-adjudication", metavar=("CP", "PLIES", "FROM"), nargs=3, type=count_type,
                   help="a game whose scores are all within CP of 0 for PLIES plies from ply FROM on is "
                        "a draw (default %d %d %d; 0 0 0: never)" % DEFAULTS["draw_adjudication"])
    p.add_argument("--max-plies", metavar="N", type=positive_type,
                   help=f"a game still going after N plies is a draw (default {DEFAULTS['max_plies']})")
    p.add_argument("--name", help="the chunks' file name prefix (default: DIR's name)")
    p.add_argument("--chunks", metavar="N", type=positive_type,
                   help="stop when DIR holds N finished chunks (default: go on until Ctrl-C or a "
                        "file DIR/STOP, which ends the run after the chunk being made)")
    p.add_argument("--workers", metavar="N", type=positive_type, help="local worker processes "
                   "(default: one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="play on a dask cluster: tcp://HOST:PORT or local:N")
    p.add_argument("--verify", action="store_true",
                   help="check every finished chunk against the manifest (sha256, readable), print the "
                        "chunks as a table, and stop")


def _share(text: str) -> float:
    import argparse
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share from 0 to 1, not {text!r}")
    return value


def recipe_from(args, folder: Path, write: bool = True):
    """The folder's recipe and genome text: recipe.json's when there is one (an option
    that says otherwise is refused), else one made from the options and defaults,
    written with the genome into the folder (unless `write` is false: `genchess lab
    add datagen` checks a run before it is queued and leaves the folder alone)."""
    given = {k: getattr(args, k) for k in RECIPE_OPTIONS if getattr(args, k, None) is not None}
    recipe_path, genome_path = folder / RECIPE, folder / RECIPE_GENOME
    from genchess.position_sets.datagen import Recipe
    if recipe_path.exists():
        try:
            recipe = Recipe(**json.loads(recipe_path.read_text(encoding="utf-8")))
            genome_text = genome_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"{genome_path}: missing: the set's genome is kept there") from None
        except (ValueError, TypeError) as e:
            raise UsageError(f"{recipe_path}: not a data machine recipe ({e})") from None
        if hashlib.sha256(genome_text.encode()).hexdigest() != recipe.genome_sha256:
            raise UsageError(f"{genome_path}: not the genome the recipe names (its sha256 differs)")
        new, _ = _recipe(given, folder, check_genome=False)
        changed = [k for k in given if k != "genome" and _recipe_field(new, k) != _recipe_field(recipe, k)]
        if "genome" in given:
            text = _genome_text(given["genome"])
            if hashlib.sha256(text.encode()).hexdigest() != recipe.genome_sha256:
                changed.append("genome")
        if changed:
            raise UsageError(f"{folder} is made by its recipe ({recipe.describe()}); these options "
                             f"differ from it: {', '.join('--' + k.replace('_', '-') for k in changed)}. "
                             f"Another recipe is another set: give it another folder")
        return recipe, genome_text
    recipe, genome_text = _recipe(given, folder)
    if not write:
        return recipe, genome_text
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(genome_path, genome_text)
    write_atomically(recipe_path, json.dumps(asdict(recipe), indent=1) + "\n")
    return recipe, genome_text


def _recipe_field(recipe, option: str):
    if option == "win_adjudication":
        return (recipe.win_cp, recipe.win_plies)
    if option == "draw_adjudication":
        return (recipe.draw_cp, recipe.draw_plies, recipe.draw_from)
    return getattr(recipe, option)


def _genome_text(path: str | None) -> str:
    import io
    from genchess.genome import GenomeError, default_genome, open_genome, write_genome
    try:
        genome = default_genome() if path is None else open_genome(path)
    except GenomeError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot read genome file {path}: {e.strerror}") from None
    text = io.StringIO()
    write_genome(genome, text)
    return text.getvalue()


def _recipe(given: dict, folder: Path, check_genome: bool = True):
    from genchess.files import display_path
    from genchess.genome.genome_file import DEFAULT_GENOME_PATH
    from genchess.position_sets.datagen import Recipe
    options = {**DEFAULTS, **given}
    if "depth" in given or ("nodes" in given and "soft_nodes" not in given):
        options["soft_nodes"] = 0           # a depth, or the old recipe's hard limit alone
    genome_text = _genome_text(given.get("genome")) if check_genome else ""
    win_cp, win_plies = options["win_adjudication"]
    draw_cp, draw_plies, draw_from = options["draw_adjudication"]
    if (win_cp == 0) != (win_plies == 0) or (draw_plies == 0) != (draw_cp == 0 and draw_from == 0):
        raise UsageError("--win-adjudication CP PLIES and --draw-adjudication CP PLIES FROM: "
                         "PLIES at least 1, or all 0 for none")
    recipe = Recipe(name=options.get("name") or folder.resolve().name,
                    genome_sha256=hashlib.sha256(genome_text.encode()).hexdigest(),
                    genome=(display_path(given["genome"]) if given.get("genome")
                            else f"the default genome ({DEFAULT_GENOME_PATH.name})"),
                    nodes=options["nodes"], soft_nodes=options["soft_nodes"], depth=options["depth"],
                    random_plies=options["random_plies"], chess960=options["chess960"],
                    games_per_chunk=options["games_per_chunk"], seed=options["seed"],
                    win_cp=win_cp, win_plies=max(win_plies, 1),
                    draw_cp=draw_cp if draw_plies else -1, draw_plies=max(draw_plies, 1),
                    draw_from=draw_from, max_plies=options["max_plies"])
    return recipe, genome_text


def cmd_datagen(args) -> int:
    import os
    from genchess.console import run_command
    from genchess.parallel.faults import ClusterError
    from genchess.position_sets.datagen import (PROG, DataMachine, DataMachineError, manifest_table,
                                                read_manifest, verify)
    from genchess.position_sets.epd import PositionSetError

    def body() -> int:
        folder = Path(args.folder)
        if args.verify:
            problems = verify(folder)
            for line in problems:
                print(f"{PROG}: {line}", file=sys.stderr)
            if not problems:
                print(manifest_table(read_manifest(folder)))
                print(f"{PROG}: {folder}: {len(read_manifest(folder))} chunks, each as the manifest says",
                      file=sys.stderr)
            return 1 if problems else 0
        recipe, genome_text = recipe_from(args, folder)
        machine = DataMachine(folder, recipe, genome_text, args.chunks, args.workers or os.cpu_count() or 1,
                              args.scheduler)
        print(f"{PROG}: {folder}: {len(machine.manifest)} chunks made; recipe: {recipe.describe()}",
              file=sys.stderr)
        try:
            return machine.run()
        except KeyboardInterrupt:
            return 130

    return run_command(PROG, body, (UsageError, DataMachineError, PositionSetError, ClusterError))
