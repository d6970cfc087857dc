"""SPRT of one build of GenChess against another, the way each search change is tested.

    python scripts/sprt_builds.py OLD NEW [--elo0 0 --elo1 10] [--tc 10+0.1] [--pgn FILE] [--resume]

OLD and NEW are git revisions (commits, branches). Each gets a detached git worktree
under --builds (default ~/.cache/genchess-builds/<commit>) with its Cython core
compiled in place, and a wrapper script that starts that build's `python -m genchess`
from its own directory, so the two builds never import each other's code. Both play
the hand-set genome (genomes/default.genome of the OLD build) over UCI, through
`genchess match` with strict clocks, game pairs and the SPRT, and fishtest's score
adjudication (`--resign movecount=3 score=400 --draw movenumber=34 movecount=8
score=20`; `--no-adjudication` plays every game out); `--resume` continues a match
from its PGN (an SPRT of hundreds of games spans sittings). docs/search-elo.md
records the results.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from genchess.adjudication import FISHTEST  # noqa: E402
DEFAULT_BUILDS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "genchess-builds"


class BuildError(Exception):
    """A revision that cannot be checked out or built: one line, exit status 2."""


def resolve(rev: str) -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"{rev!r} is not a commit of {REPO}")
    return done.stdout.strip()


def prepare(commit: str, builds: Path, out=print) -> Path:
    """The worktree of `commit`, built, with its `genchess-uci` wrapper; made if missing."""
    tree = builds / commit[:12]
    if not (tree / "setup.py").exists():
        builds.mkdir(parents=True, exist_ok=True)
        out(f"checking out {commit[:12]} in {tree}")
        done = subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"git worktree add {tree}: {done.stderr.strip()}")
    if not list((tree / "genchess_core").glob("search*.so")) and not list((tree / "genchess_core").glob("search*.pyd")):
        out(f"building {commit[:12]} (a few minutes)")
        done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tree,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"building {commit[:12]} failed: {done.stderr.strip().splitlines()[-1:]}")
    wrapper = tree / "genchess-uci"
    wrapper.write_text(f"#!/bin/sh\ncd {shlex.quote(str(tree))} && PYTHONPATH={shlex.quote(str(tree))} "
                       f"exec {shlex.quote(sys.executable)} -m genchess \"$@\"\n")
    wrapper.chmod(0o755)
    return tree


def match_command(old: Path, new: Path, names: tuple[str, str], args) -> list[str]:
    genome = old / "genchess" / "genomes" / "default.genome"
    side = lambda tree, name: f"uci:{tree / 'genchess-uci'} Genome={genome} name={name}"  # noqa: E731
    command = [sys.executable, "-m", "genchess", "match", side(new, names[1]), side(old, names[0]),
               "--tc", args.tc, "--sprt", f"elo0={args.elo0:g}", f"elo1={args.elo1:g}",
               "--games", str(args.games), "--concurrency", str(args.concurrency)]
    if args.adjudication:
        rules = FISHTEST
        command += ["--resign", f"movecount={rules.resign_moves}", f"score={rules.resign_score}",
                    "--draw", f"movenumber={rules.draw_from_move}", f"movecount={rules.draw_moves}",
                    f"score={rules.draw_score}"]
    if args.pgn:
        command += ["--pgn", args.pgn]
    if args.resume:
        command.append("--resume")
    return command


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", help="the parent build: a commit or branch")
    p.add_argument("new", help="the build with the change")
    p.add_argument("--elo0", type=float, default=0.0)
    p.add_argument("--elo1", type=float, default=10.0)
    p.add_argument("--tc", default="10+0.1")
    p.add_argument("--games", type=int, default=3000, help="at most this many games (default 3000)")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--no-adjudication", dest="adjudication", action="store_false",
                   help="play every game to its end (default: fishtest's resign and draw adjudication)")
    p.add_argument("--pgn", help="PGN file of the games (needed for --resume)")
    p.add_argument("--resume", action="store_true", help="continue the match in --pgn")
    p.add_argument("--builds", type=Path, default=DEFAULT_BUILDS, help=f"worktrees (default {DEFAULT_BUILDS})")
    p.add_argument("--dry-run", action="store_true", help="print the match command, build nothing")
    args = p.parse_args(argv)
    try:
        if args.resume and not args.pgn:
            raise BuildError("--resume continues the match in a PGN file: give it with --pgn FILE")
        old_commit, new_commit = resolve(args.old), resolve(args.new)
        names = (f"old-{old_commit[:8]}", f"new-{new_commit[:8]}")
        if args.dry_run:
            trees = (args.builds / old_commit[:12], args.builds / new_commit[:12])
        else:
            trees = (prepare(old_commit, args.builds), prepare(new_commit, args.builds))
    except BuildError as e:
        print(f"sprt_builds: {e}", file=sys.stderr)
        return 2
    command = match_command(trees[0], trees[1], names, args)
    print(shlex.join(command), flush=True)
    if args.dry_run:
        return 0
    return subprocess.run(command, cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
