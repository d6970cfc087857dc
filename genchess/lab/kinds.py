"""The kinds of lab job: what each one checks when it is queued, the command line it
runs, and what its own files say about its progress.

A job is its kind and its command's arguments (a list of words, kept as JSON, never
a shell string), checked when queued by the command's own parser and its own checks,
so a job that is queued is one the command would have started, and the messages
are the command's. Each kind resumes the way its command already does, from files
of its own: a match or gauntlet from its PGN (--pgn FILE --resume: the PGN in the
job's folder, or the file the job names with its own --pgn), a training from its run
file (the same config resumes it), a data machine from its folder, a position set from
its journal (--resume). The lab adds nothing of its own to how a run resumes.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

HOUR = 3600.0


class JobError(Exception):
    """A job the command would refuse: its one line, as the command says it."""


@dataclass(frozen=True)
class Kind:
    name: str
    command: str            # the `genchess` command it runs
    timed: bool             # games on a clock, or a speed: never shares the cores
    time_limit: float       # seconds of running before a job is taken for hung
    summary: str


KINDS = {k.name: k for k in (
    Kind("match", "match", True, 72 * HOUR, "a match or an SPRT (the genchess match arguments)"),
    Kind("gauntlet", "gauntlet", True, 72 * HOUR, "a gauntlet (the genchess gauntlet arguments)"),
    Kind("bench", "bench", True, 1 * HOUR, "a benchmark (the genchess bench arguments)"),
    Kind("train", "train", False, 7 * 24 * HOUR, "a training or a tune: a genchess train config"),
    Kind("positions", "positions", False, 7 * 24 * HOUR,
         "a position set (the genchess positions arguments)"),
    Kind("datagen", "datagen", False, 30 * 24 * HOUR,
         "a data machine run (the genchess datagen arguments)"),
)}

# Options the lab gives a kind itself, so that the run resumes and the job's files are
# where the lab reads them. A match's or gauntlet's --pgn is the user's to give: the
# job then plays into that file (a paused SPRT's games kept in a lab folder under git,
# say, so that a queue made again anywhere continues it); without one its PGN is the
# job's folder's games.pgn.
LAB_OWNED = {"match": ("--resume", "--json"), "gauntlet": ("--resume",), "datagen": ("--verify",)}


def parse(kind: str, argv: list[str]) -> argparse.Namespace:
    """The arguments as the command's own parser reads them; its errors are its own
    (usage and one line, status 2), raised as SystemExit as argparse does."""
    return command_parser(KINDS[kind].command).parse_args(argv)


def command_parser(command: str) -> argparse.ArgumentParser:
    """`genchess COMMAND`'s parser, built by the functions that build it for the
    command itself (its prog too, so its messages are the command's)."""
    if command == "train":
        from genchess.train.cli import build_parser
        return build_parser("genchess train")
    from genchess.arguments import add_bench_arguments
    from genchess.position_sets.cli import add_positions_arguments
    from genchess.position_sets.datagen_cli import add_datagen_arguments
    from genchess.strength.cli import add_match_arguments
    from genchess.strength.gauntlet import add_gauntlet_arguments
    parser = argparse.ArgumentParser(prog=f"genchess {command}")
    {"match": add_match_arguments, "gauntlet": add_gauntlet_arguments, "bench": add_bench_arguments,
     "positions": add_positions_arguments, "datagen": add_datagen_arguments}[command](parser)
    return parser


def check(kind: str, argv: list[str], cwd: Path) -> dict:
    """The job's arguments once the command's checks pass in `cwd` (where it will
    run): {"argv": [...]} and, for a training, its config's text (the job runs the
    config as it was when queued). JobError with the command's message if not."""
    if kind not in KINDS:
        raise JobError(f"no job kind {kind!r}: expected one of {', '.join(KINDS)}")
    for word in LAB_OWNED.get(kind, ()):
        if any(a == word or a.startswith(word + "=") for a in argv):
            raise JobError(f"genchess lab add {kind}: leave out {word}: the lab keeps the job's "
                           f"files in its folder and resumes it itself")
    args = parse(kind, argv)
    with _working_directory(cwd):
        return CHECKS[kind](args, argv)


@contextlib.contextmanager
def _working_directory(path: Path):
    """Inside `path` (contextlib.chdir is Python 3.11's; the project runs on 3.10)."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _as_the_command_says(command: str, errors, check) -> None:
    """check(), its user errors raised as the command prints them."""
    try:
        check()
    except errors as e:
        raise JobError(f"genchess {command}: {e}") from None


def _check_match(args, argv):
    from genchess.strength.cli import UsageError, prepare_match
    from genchess.strength.runner import MatchRunner, ResumeError

    def check():
        control, sprt, games, _, specs, openings, adjudication = prepare_match(args)
        if args.pgn:        # the games already in the job's own PGN must be this match's
            runner = MatchRunner((specs[0], specs[1]), control, openings, games, 1, sprt,
                                 adjudication=adjudication)
            try:
                runner.resume(args.pgn)
            except ResumeError as e:
                raise UsageError(str(e)) from None
    _as_the_command_says("match", UsageError, check)
    return {"argv": argv}


def _check_gauntlet(args, argv):
    from genchess.strength.cli import UsageError
    from genchess.strength.gauntlet import prepare_gauntlet

    def check():
        if args.games is not None and args.games < 1:     # as cmd_gauntlet checks first
            raise UsageError(f"--games must be at least 1, not {args.games}")
        prepare_gauntlet(args, out=lambda line: None)
    _as_the_command_says("gauntlet", UsageError, check)
    return {"argv": argv}


def _check_bench(args, argv):
    return {"argv": argv}


def _check_positions(args, argv):
    from genchess.position_sets.run import PositionsRun, UsageError
    _as_the_command_says("positions", UsageError, lambda: PositionsRun(args))
    return {"argv": argv}


def _check_datagen(args, argv):
    from genchess.position_sets.datagen_cli import UsageError, recipe_from
    _as_the_command_says("datagen", UsageError, lambda: recipe_from(args, Path(args.folder), write=False))
    return {"argv": argv}


def _check_train(args, argv):
    from genchess.genome import GenomeError
    from genchess.train.config import ConfigError
    from genchess.train.registry import parse_config
    if args.config is None or args.export is not None:
        raise JobError("genchess lab add train: give a CONFIG file to train (a job trains; "
                       "--export is a command of its own)")
    _as_the_command_says("train", (ConfigError, GenomeError), lambda: parse_config(args.config))
    path = Path(args.config)
    rest = list(argv)
    rest.remove(args.config)
    return {"argv": rest, "config": path.read_text(encoding="utf-8"), "config_name": path.name}


CHECKS = {"match": _check_match, "gauntlet": _check_gauntlet, "bench": _check_bench,
          "positions": _check_positions, "datagen": _check_datagen, "train": _check_train}


# ------------------------------------------------------------------ running

# The kinds whose command plays on a dask cluster when given --scheduler.
ON_A_CLUSTER = ("train", "positions", "datagen")


def command(job, job_dir: Path, scheduler: str | None = None) -> list[str]:
    """The `genchess` arguments that run (or resume) the job; `job_dir` absolute. With
    the worker's `scheduler`, an untimed job that names none plays on that cluster
    (a timed one stays on this machine's cores, where its clock is kept)."""
    argv = list(job.args["argv"])
    if scheduler and job.kind in ON_A_CLUSTER and not any(a.startswith("--scheduler") for a in argv):
        argv += ["--scheduler", scheduler]
    if job.kind in ("match", "gauntlet"):
        if option_value(argv, "--pgn") is None:
            argv += ["--pgn", str(job_dir / "games.pgn")]
        argv.append("--resume")
        if job.kind == "gauntlet" and "--out" not in argv:
            argv += ["--out", str(job_dir / "gauntlet")]
    elif job.kind == "positions" and "--resume" not in argv:
        argv.append("--resume")
    elif job.kind == "train":
        config = job_dir / job.args["config_name"]
        if not config.exists():
            config.write_text(job.args["config"], encoding="utf-8")
        argv = [str(config)] + argv
    return [KINDS[job.kind].command] + argv


def timed_cores(job) -> int | None:
    """The cores a timed job's clocks need: a match's or a gauntlet's --concurrency, its
    games at once on one thread each. None where the job takes the whole machine: a
    benchmark, or a match without --concurrency (it then plays on half the cores, and a
    clock beside other work is what the lab exists to avoid)."""
    argv = job.args["argv"]
    if job.kind not in ("match", "gauntlet"):
        return None
    engines = list(argv)            # the specs, and a gauntlet's config's opponents
    if job.kind == "gauntlet" and argv:
        try:
            engines.append((Path(job.cwd) / argv[0]).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return None
    if any(int(n) > 1 for text in engines for n in re.findall(r"threads=(\d+)", text, re.I)):
        return None                 # an engine of several threads takes the machine too
    return _whole_option(argv, "--concurrency") or None


def cores(job) -> int:
    """The cores an untimed job keeps busy: its own --workers (or the config's
    workers), else all of them, as the command itself would take."""
    every = os.cpu_count() or 1
    argv = job.args["argv"]
    if job.kind == "train":
        match = re.search(r"^\s*workers\s*=\s*(\d+)", job.args["config"], re.M)
        return min(int(match.group(1)), every) if match else every
    workers = _whole_option(argv, "--workers")
    return every if workers is None else min(workers, every)


def _whole_option(argv: list[str], name: str) -> int | None:
    """The whole number an option is given (`--name N` or `--name=N`), None without one."""
    value = option_value(argv, name)
    return int(value) if value is not None and value.isdigit() else None


def option_value(argv: list[str], name: str) -> str | None:
    """What an option is given (`--name VALUE` or `--name=VALUE`), None without one."""
    for i, word in enumerate(argv):
        if word == name and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(name + "="):
            return word[len(name) + 1:]
    return None


def games_file(job, job_dir: Path) -> Path:
    """A match's or gauntlet's PGN: the file its own --pgn names (from the folder where
    it was queued), else games.pgn in the job's folder."""
    own = option_value(job.args["argv"], "--pgn")
    return Path(job.cwd) / own if own else job_dir / "games.pgn"


def pgn_taken_by(queue, kind: str, argv: list[str], cwd: Path):
    """The unfinished job that already plays into the PGN this new job names with --pgn,
    or None: two runs appending to one file would mix their games."""
    from genchess.lab.queue import FINAL
    own = option_value(argv, "--pgn")
    if kind not in ("match", "gauntlet") or own is None:
        return None
    wanted = (cwd / own).resolve()
    return next((job for job in queue.jobs() if job.kind in ("match", "gauntlet")
                 and job.state not in FINAL
                 and games_file(job, queue.job_dir(job.id)).resolve() == wanted), None)


# ------------------------------------------------------------------ progress

_SEEN: dict[tuple, dict] = {}           # a match's progress by its PGN's size and time, a training's by its files
# A running training's last reading by its folder: (when, seconds it took, progress).
_LAST_READ: dict[str, tuple[float, float, dict]] = {}


def progress(job, job_dir: Path) -> dict:
    """What the job's own files say so far, for the page and the report: a dict of
    plain numbers and lists (JSON). Never raises on a file being written. A match's
    or gauntlet's is kept until its PGN changes, a training's until its run file's do:
    the page asks every two seconds, and a long SPRT's PGN holds thousands of games,
    a gene pool's file thousands of genomes. A running training whose files changed
    is read again only once ten times its last reading's time has passed, so that a
    long run's page costs its machine a tenth of a core at most."""
    try:
        key = None
        if job.kind in ("match", "gauntlet"):
            pgn = games_file(job, job_dir)
            stat = pgn.stat() if pgn.exists() else None
            key = (str(pgn.resolve()), job.kind, tuple(job.args["argv"]),
                   stat and (stat.st_size, stat.st_mtime_ns), (job_dir / "gauntlet.md").exists())
        elif job.kind == "train":
            files = _train_key(job, job_dir)
            key = files and (job.kind, job.id, str(job_dir.resolve()), job.args["config"], files)
            last = _LAST_READ.get(str(job_dir.resolve()))
            if key not in _SEEN and last and job.state == "running" and \
                    time.monotonic() - last[0] < 10 * last[1]:
                return last[2]
        if key is not None:
            if key not in _SEEN:
                if len(_SEEN) > 64:
                    _SEEN.clear()
                    _LAST_READ.clear()
                began = time.monotonic()
                _SEEN[key] = PROGRESS[job.kind](job, job_dir)
                if job.kind == "train":
                    _LAST_READ[str(job_dir.resolve())] = (began, time.monotonic() - began, _SEEN[key])
            return _SEEN[key]
        return PROGRESS[job.kind](job, job_dir)
    except (OSError, ValueError, KeyError) as e:
        return {"error": f"{type(e).__name__}: {e}"}


GAME_START = re.compile(r"^\[Event ", re.M)
TAG = re.compile(r'^\[(Round|White|Black|Result) "((?:[^"\\]|\\.)*)"\]', re.M)


def _pgn_games(path: Path):
    """(pair, game in pair, White, Black, Result) of every game in a match PGN, in the
    order they were written; an unfinished last game (no result at its end yet) is
    left out. The four tags are read with a regular expression, not python-chess: the
    page reads a running SPRT's PGN every two seconds, and a parser takes seconds for
    a few hundred games where this takes milliseconds for thousands."""
    from genchess.strength.runner import pair_and_game
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8", errors="replace")
    starts = [m.start() for m in GAME_START.finditer(text)] + [len(text)]
    games = []
    for begin, end in zip(starts, starts[1:]):
        block = text[begin:end]
        tags = dict(TAG.findall(block))
        result = tags.get("Result")
        if result not in ("1-0", "0-1", "1/2-1/2") or not block.rstrip().endswith(result):
            continue
        try:
            pair, game = pair_and_game(tags)
        except ValueError:
            continue
        games.append((pair, game, tags.get("White"), tags.get("Black"), result))
    return games


def _pgn_label(job) -> str:
    """The PGN's name as the page shows it: games.pgn, or the job's own file as given."""
    return option_value(job.args["argv"], "--pgn") or "games.pgn"


def _finite(x):
    """x, or None for what JSON cannot carry (an infinite bound, no estimate yet)."""
    return x if x == x and abs(x) != float("inf") else None


def _elo(estimate) -> dict:
    return {"elo": _finite(estimate.elo), "low": _finite(estimate.low), "high": _finite(estimate.high)}


def _match_progress(job, job_dir):
    from genchess.strength.sprt import parse_sprt
    from genchess.strength.tally import Tally
    args = parse(job.kind, job.args["argv"])
    sprt = parse_sprt(args.sprt) if args.sprt is not None else None
    tally = Tally(sprt)
    series, names = [], None
    for pair, game, white, black, result in _pgn_games(games_file(job, job_dir)):
        names = names or ((white, black) if game == 1 else (black, white))
        if tally.add(result, white=game == 1, pair=pair):
            point = {"games": tally.games, **_elo(tally.stats.pentanomial_elo())}
            if sprt is not None:
                point["llr"] = sprt.last_llr
            series.append(point)
    s = tally.stats
    total = args.games if args.games is not None else (20000 if sprt else 100)
    return {"games": s.games, "total": total, "wins": s.wins, "draws": s.draws, "losses": s.losses,
            "pentanomial": list(s.pairs), "names": list(names or args.engines),
            "elo": _elo(s.pentanomial_elo() if sum(s.pairs) else s.elo()),
            "sprt": sprt.as_dict() if sprt else None, "series": series, "pgn": _pgn_label(job),
            "tc": args.tc}


def _gauntlet_progress(job, job_dir):
    from genchess.strength.tally import Tally
    tallies: dict[str, Tally] = {}
    for pair, game, white, black, result in _pgn_games(games_file(job, job_dir)):
        opponent = black if game == 1 else white
        tallies.setdefault(opponent, Tally()).add(result, white=game == 1, pair=pair)
    rows = [{"opponent": name, "games": t.games, "wins": t.stats.wins, "draws": t.stats.draws,
             "losses": t.stats.losses, **_elo(t.stats.elo())} for name, t in tallies.items()]
    table = job_dir / "gauntlet.md"
    return {"opponents": rows, "pgn": _pgn_label(job),
            "table": table.read_text(encoding="utf-8") if table.exists() else None,
            "plot": "gauntlet.png" if (job_dir / "gauntlet.png").exists() else None}


def _datagen_progress(job, job_dir):
    from genchess.position_sets.datagen import read_manifest, resume_point
    args = parse(job.kind, job.args["argv"])
    folder = Path(job.cwd) / args.folder
    rows = read_manifest(folder)
    chunks = [{"chunk": r["chunk"], "positions": r["positions"], "games": r["games"],
               "seconds": r["seconds"], "per_hour": r["positions"] * HOUR / max(r["seconds"], 1e-9)}
              for r in rows]
    current = None
    journals = sorted(folder.glob("*.chains.journal"))
    if journals:
        games, _, counts, seconds = resume_point(journals[-1])
        positions = counts.get("positions", 0)
        current = {"chunk": journals[-1].name.replace(".chains.journal", ""), "games": games,
                   "positions": positions, "seconds": seconds,
                   "per_hour": positions * HOUR / max(seconds, 1e-9)}
    recipe = folder / "recipe.json"
    per_chunk = json.loads(recipe.read_text(encoding="utf-8"))["games_per_chunk"] if recipe.exists() else None
    return {"folder": str(folder), "chunks": chunks, "current": current, "games_per_chunk": per_chunk,
            "chunks_wanted": args.chunks,
            "positions": sum(c["positions"] for c in chunks) + (current["positions"] if current else 0)}


def _positions_progress(job, job_dir):
    args = parse(job.kind, job.args["argv"])
    out = Path(job.cwd) / args.output
    journal, sidecar = out.with_name(out.name + ".journal"), out.with_name(out.name + ".json")
    state = {}
    if journal.exists():
        for line in reversed(journal.read_text(encoding="utf-8").splitlines()[1:]):
            with contextlib.suppress(ValueError):
                state = json.loads(line)
                break
    elif sidecar.exists():
        state = json.loads(sidecar.read_text(encoding="utf-8")).get("progress", {})
    counts = state.get("counts", {})
    return {"output": str(out), "games": state.get("games", 0), "seconds": state.get("seconds", 0.0),
            "positions": counts.get("positions", counts.get("kept", 0)), "counts": counts,
            "finished": sidecar.exists() and not journal.exists()}


def run_file_keys() -> tuple[str, ...]:
    """The key every method's config names its run file by, then the old names a config
    may still use instead (train/config.py's RENAMED_KEYS, which loads them with a warning)."""
    from genchess.train.config import RENAMED_KEYS
    return ("run file",) + tuple(old for old, new in RENAMED_KEYS.items() if new == "run file")


def _train_entries(job) -> tuple[str, Path | None]:
    """(method, run file from the job's folder, or None when the config names none)."""
    from genchess.train.config import normal_method_name
    from genchess.train.registry import DEFAULT_METHOD
    entries = {}
    for line in job.args["config"].splitlines():
        line = line.split("#", 1)[0]
        if "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            entries[" ".join(key.lower().split())] = value
    method = normal_method_name(entries.get("method", DEFAULT_METHOD))
    name = next((entries[key] for key in run_file_keys() if entries.get(key)), None)
    return method, (Path(job.cwd) / name if name else None)


def _train_key(job, job_dir):
    """What a training's progress depends on: its run file and every file beside it
    named after it (games, champion, a database's journal), by size and time."""
    _, run_file = _train_entries(job)
    if run_file is None or not run_file.parent.is_dir():
        return None
    return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                        for p in run_file.parent.glob(glob.escape(run_file.name) + "*") if p.is_file()))


def _train_progress(job, job_dir):
    """A training's records, whichever method, read by the readers `genchess plot`
    uses: a tune's parameters by iteration; an evolve or network run's losses by
    generation or epoch and its validation games; a gene pool's games and median piece
    values by round; a Kendall-Whitwell population's mean weights by generation; a
    multi-niche crowding run's fitness and niches by generation; and every method's
    champion promotions (their SPRTs' estimates, chained into the champion's gain)."""
    method, run_file = _train_entries(job)
    result = {"method": method, "run_file": str(run_file or "")}
    if run_file is None or not run_file.exists():
        return result
    if method == "tune":
        from genchess.genome.run_formats import read_tune_records as read_records
        header, iterations = read_records(run_file)
        names = list(header["numbers"])
        result["parameters"] = {"names": names, "start": header["start"], "iterations": [
            {"iteration": r["iteration"], "theta": r.get("theta")} for r in iterations]}
        return result
    from genchess.drawing import PlotError
    from genchess.genome import GenomeError
    try:
        checks = []
        if method == "evolve":
            from genchess.train.evolve_plots import read_evolve_records
            rows, checks = read_evolve_records(run_file)
            result["losses"] = [{"step": r[0], "loss": r[1], "held_out": r[2]} for r in rows]
        elif method == "network":
            from genchess.train.network_plots import read_network_records
            rows, checks = read_network_records(run_file)
            result["losses"] = [{"step": r[0], "loss": r[1], "held_out": r[2]} for r in rows]
        elif method == "gene pool":
            from genchess.train.gene_pool_plots import rounds_over_time
            result["pools"] = rounds_over_time(run_file)
        elif method == "kendall-whitwell":
            from genchess.train.gene_pool_plots import generations_over_time
            result["population"] = generations_over_time(run_file)
        elif method == "multi-niche crowding":
            from genchess.genome.run_files import ChromosomeReader
            reader = ChromosomeReader(run_file)
            try:
                result["generations"] = [vars(h) for h in reader.history()]
            finally:
                reader.close()
    except (PlotError, GenomeError) as e:
        raise ValueError(str(e)) from None
    result["validation"] = [{"step": c[0], "games": c[1], "elo": _finite(c[2]), "low": _finite(c[3]),
                             "high": _finite(c[4])} for c in checks]
    from genchess.train.champion import champion_gain, history_path, read_history
    promotions = list(read_history(history_path(run_file)))
    games, gain, low, high = champion_gain(promotions)
    result["champion"] = {
        "promotions": [{"promotion": n, "genome": genome, "games": count, "elo": _finite(elo),
                        "low": _finite(lo), "high": _finite(hi)}
                       for n, genome, count, elo, lo, hi in promotions],
        "gain": [{"games": g, "gain": _finite(y), "low": _finite(a), "high": _finite(b)}
                 for g, y, a, b in zip(games, gain, low, high)] if promotions else []}
    return result


def _bench_progress(job, job_dir):
    log = job_dir / "output.log"
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    found = re.findall(r"Nodes searched:?\s*(\d+)", text)
    return {"nodes": int(found[-1]) if found else None}


PROGRESS = {"match": _match_progress, "gauntlet": _gauntlet_progress, "datagen": _datagen_progress,
            "positions": _positions_progress, "train": _train_progress, "bench": _bench_progress}


def describe(job) -> str:
    """The job as a command line a user could type (for the status and the report)."""
    import shlex
    argv = job.args["argv"]
    if job.kind == "train":
        argv = [job.args["config_name"]] + argv
    return shlex.join(["genchess", KINDS[job.kind].command, *argv])


def title(job) -> str:
    """The job in a few words, for the list of jobs: a match by its two sides' names and
    the options set on either side besides the genome (two trials' SPRTs of one build
    differ only there), and its own PGN; any other job by its command line."""
    if job.kind != "match":
        return describe(job)
    from genchess.strength.engines import SpecError, parse_engine_spec
    sides = []
    for text in parse(job.kind, job.args["argv"]).engines[:2]:
        try:
            spec = parse_engine_spec(text)
        except SpecError:
            sides.append(text)
            continue
        options = [f"{name}={value}" for name, value in spec.options if name.lower() != "genome"]
        sides.append((spec.name or text) + (f" [{', '.join(options)}]" if options else ""))
    own = option_value(job.args["argv"], "--pgn")
    return " vs ".join(sides) + (f" ({own})" if own else "")


def last_lines(path: Path, count: int = 20) -> str:
    """The end of a job's output (a failure's message): its last lines, progress
    bars' carriage returns resolved to what a terminal would show."""
    if not path.exists():
        return ""
    with open(path, "rb") as f:
        f.seek(0, io.SEEK_END)
        f.seek(max(0, f.tell() - 64 * 1024))
        text = f.read().decode("utf-8", errors="replace")
    lines = [line.rsplit("\r", 1)[-1] for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join([line for line in lines if line.strip()][-count:])
