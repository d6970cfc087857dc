"""SPRT of one build of GenChess against another, the way each search change is tested.

    python scripts/dev/sprt_builds.py OLD NEW [--elo0 0 --elo1 10] [--tc 10+0.1] [--pgn FILE] [--resume]
    python scripts/dev/sprt_builds.py OLD NEW1 NEW2 ... --pgn-dir DIR [--resume]

OLD and NEW are git revisions (commits, branches). Each gets a detached git worktree
under --builds (default ~/.cache/genchess-builds/<commit>) with its Cython core
compiled in place, and a wrapper script that starts that build's `python -m genchess`
from its own directory, so the two builds never import each other's code. Both play
the hand-set genome (genomes/default.genome of the OLD build), or the genome file
`--genome FILE` names (a search change for the shipped genome is tested with it), over UCI, through
`genchess match` with strict clocks, game pairs and the SPRT, and fishtest's score
adjudication (`--resign movecount=3 score=400 --draw movenumber=34 movecount=8
score=20`; `--no-adjudication` plays every game out); `--resume` continues a match
from its PGN (an SPRT of hundreds of games may be stopped and resumed many times). docs/studies/search-elo.md
records the results. With `--lab` the builds are made and the match is queued in the
lab (`genchess lab add match ...`, docs/lab.md) instead of played at once: the lab's
worker plays it on a core of its own when its turn comes, into the --pgn file, so that
games already there count and a queue made again continues it.

With more than two revisions the script runs a chain of stacked steps: NEW1
against OLD, then NEW2 against NEW1 if NEW1 passed (H1), and so on, stopping at
the first step that does not pass (that one is dropped and the next rebased by
hand). Each pair's games go to DIR/sprt-<NEW>.pgn; --resume continues each pair
from its PGN where one exists, so a chain resumes too.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
try:
    from genchess.game.adjudication import FISHTEST
except ImportError:
    # Run from a checkout with no GenChess installed. Only then is the checkout put
    # on sys.path: an installed GenChess must win, because processes this one
    # spawns (dask's workers, under the tests) inherit sys.path, and the checkout's
    # genchess_core has no compiled modules unless it was built in place.
    sys.path.insert(0, str(REPO))
    from genchess.game.adjudication import FISHTEST
BUILT_STAMP = ".genchess-built"    # written in a worktree once its build has finished
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
    # A build counts as done only once it finished: one interrupted half-way (a machine
    # shut down, a killed chain) leaves some modules compiled, some missing or cut
    # short, and is built again from scratch (--force: a cut-short file looks new).
    stamp = tree / BUILT_STAMP
    if not stamp.exists():
        if importlib.util.find_spec("Cython") is None:
            # pip's editable install builds in an isolated environment, so Cython need not be here.
            raise BuildError(f"building {commit[:12]} needs Cython in {sys.executable}: "
                             "pip install Cython setuptools")
        out(f"building {commit[:12]} (a few minutes)")
        done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "--force"],
                              cwd=tree, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"building {commit[:12]} failed: {done.stderr.strip().splitlines()[-1:]}")
        stamp.write_text(f"{sys.executable}\n")
    wrapper = tree / "genchess-uci"
    wrapper.write_text(f"#!/bin/sh\ncd {shlex.quote(str(tree))} && PYTHONPATH={shlex.quote(str(tree))} "
                       f"exec {shlex.quote(sys.executable)} -m genchess \"$@\"\n")
    wrapper.chmod(0o755)
    return tree


def match_command(old: Path, new: Path, names: tuple[str, str], args, pgn=None, resume=False) -> list[str]:
    genome = args.genome or old / "genchess" / "genomes" / "default.genome"
    side = lambda tree, name: f"uci:{tree / 'genchess-uci'} Genome={genome} name={name}"  # noqa: E731
    # The new side's engine options: a trial's check option turned on (one build against
    # itself), quoted because option names have spaces.
    new_side = " ".join([side(new, names[1]), *(shlex.quote(option) for option in args.new_option)])
    command = [sys.executable, "-m", "genchess", "match", new_side, side(old, names[0]),
               "--tc", args.tc, "--sprt", f"elo0={args.elo0:g}", f"elo1={args.elo1:g}",
               "--games", str(args.games), "--concurrency", str(args.concurrency)]
    if args.adjudication:
        rules = FISHTEST
        command += ["--resign", f"movecount={rules.resign_moves}", f"score={rules.resign_score}",
                    "--draw", f"movenumber={rules.draw_from_move}", f"movecount={rules.draw_moves}",
                    f"score={rules.draw_score}"]
    if pgn:
        command += ["--pgn", str(pgn)]
        if resume:
            command.append("--resume")
    return command


def run_match(command: list[str]) -> str:
    """Run a match, its output passed through; the SPRT's verdict: H1, H0 or none."""
    verdict = "none"
    with subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True, bufsize=1) as match:
        for line in match.stdout:
            print(line, end="", flush=True)
            if line.startswith("Stopped: SPRT accepted H1"):
                verdict = "H1"
            elif line.startswith("Stopped: SPRT accepted H0"):
                verdict = "H0"
    return verdict


def chain_pgn(directory: Path, rev: str) -> Path:
    return directory / ("sprt-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in rev) + ".pgn")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old", help="the parent build: a commit or branch")
    p.add_argument("new", help="the build with the change")
    p.add_argument("more", nargs="*", help="further stacked steps: each against the one before, "
                   "once that one has passed")
    p.add_argument("--elo0", type=float, default=0.0)
    p.add_argument("--elo1", type=float, default=10.0)
    p.add_argument("--tc", default="10+0.1")
    p.add_argument("--games", type=int, default=3000, help="at most this many games (default 3000)")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--no-adjudication", dest="adjudication", action="store_false",
                   help="play every game to its end (default: fishtest's resign and draw adjudication)")
    p.add_argument("--pgn", help="PGN file of the games (needed for --resume)")
    p.add_argument("--resume", action="store_true", help="continue the match in --pgn (a chain: "
                   "each pair whose PGN exists in --pgn-dir)")
    p.add_argument("--pgn-dir", type=Path, help="a chain's PGN files, one per pair: DIR/sprt-NEW.pgn")
    p.add_argument("--builds", type=Path, default=DEFAULT_BUILDS, help=f"worktrees (default {DEFAULT_BUILDS})")
    p.add_argument("--genome", type=Path, metavar="FILE", help="the genome file both builds play "
                   "(default: the old build's hand-set genomes/default.genome)")
    p.add_argument("--new-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a UCI option of the new side's engine, e.g. 'Time Scaling=true' (a trial "
                   "turned on: OLD and NEW may then be the same revision); repeatable")
    p.add_argument("--lab", action="store_true",
                   help="make the builds and queue the match in the lab (genchess lab add match, "
                   "lab/ of the repository) instead of playing it; it plays into --pgn")
    p.add_argument("--priority", type=int, metavar="N",
                   help="with --lab: the job's priority (genchess lab add --priority; higher first)")
    p.add_argument("--dry-run", action="store_true", help="print the match command, build nothing")
    args = p.parse_args(argv)
    revs = [args.old, args.new, *args.more]
    try:
        for option in args.new_option:
            if "=" not in option or not option.partition("=")[0].strip():
                raise BuildError(f"--new-option {option!r}: expected NAME=VALUE, e.g. 'Time Scaling=true'")
        if len(revs) > 2:
            if args.pgn or not args.pgn_dir:
                raise BuildError("a chain of steps writes one PGN per pair: give --pgn-dir DIR, not --pgn")
        elif args.pgn_dir:
            raise BuildError("--pgn-dir is for a chain of three or more revisions; one pair takes --pgn FILE")
        elif args.resume and not args.pgn:
            raise BuildError("--resume continues the match in a PGN file: give it with --pgn FILE")
        if args.priority is not None and not args.lab:
            raise BuildError("--priority orders the lab's queue: it goes with --lab")
        if args.lab and (len(revs) > 2 or not args.pgn):
            raise BuildError("--lab queues one pair's match, which plays into a PGN file of its own: "
                             "give two revisions and --pgn FILE")
        commits = [resolve(rev) for rev in revs]
        if args.genome:
            # Read here, so a wrong file is one line now, not every game's error later;
            # absolute, because each build's engine runs in its own worktree.
            from genchess.genome import GenomeError, read_genome_file
            try:
                read_genome_file(args.genome)
            except GenomeError as e:
                raise BuildError(str(e)) from None
            args.genome = args.genome.resolve()
    except BuildError as e:
        print(f"sprt_builds: {e}", file=sys.stderr)
        return 2
    for i in range(1, len(revs)):
        old_commit, new_commit = commits[i - 1], commits[i]
        names = (f"old-{old_commit[:8]}", f"new-{new_commit[:8]}")
        if args.new_option and old_commit == new_commit:
            names = (f"off-{old_commit[:8]}", f"on-{new_commit[:8]}")
        if len(revs) > 2:
            pgn = chain_pgn(args.pgn_dir, revs[i])
            resume = args.resume and pgn.exists()
        else:
            pgn, resume = args.pgn, args.resume
        try:
            if args.dry_run:
                trees = (args.builds / old_commit[:12], args.builds / new_commit[:12])
            else:
                trees = (prepare(old_commit, args.builds), prepare(new_commit, args.builds))
        except BuildError as e:
            print(f"sprt_builds: {e}", file=sys.stderr)
            return 2
        command = match_command(trees[0], trees[1], names, args, pgn, resume and not args.lab)
        if args.lab:        # the lab resumes a job itself: it owns --resume
            priority = [] if args.priority is None else ["--priority", str(args.priority)]
            command = [sys.executable, "-m", "genchess", "lab", "add", *priority, *command[3:]]
        print(shlex.join(command), flush=True)
        if args.dry_run:
            continue
        if pgn:         # the match runs from the repository root, where a relative --pgn is
            (REPO / pgn).parent.mkdir(parents=True, exist_ok=True)
        if len(revs) == 2:
            return subprocess.run(command, cwd=REPO).returncode
        verdict = run_match(command)
        if verdict != "H1":
            what = "H0 accepted" if verdict == "H0" else "no decision"
            print(f"sprt_builds: {revs[i]} against {revs[i - 1]}: {what}; the chain stops here "
                  f"(drop the step and rebase the next onto {revs[i - 1]})", flush=True)
            return 1
        print(f"sprt_builds: {revs[i]} passed against {revs[i - 1]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
