"""The set maker's run (`genchess positions`): the games in order, the journal, resume, the recipe.

The run is a list of numbered games (the PGN files' games first, then the games
to play, in the order asked), handed to the executor, and written back in game
order, so the file is the same whatever order the workers finish in. After each
game its positions are appended and flushed, and a journal line records how many
games are done and the file's length then. An interrupted run (Ctrl-C, kill -9)
keeps every position written; `--resume` truncates the file to the journal's last
length (a torn tail goes), reads back the positions already written for the
de-duplication, and plays on from the next game. A `.gz` output is written plain
(`<output>.part`) while running and compressed once at the end with a fixed
header, so a resumed run and an uninterrupted one end with the same bytes; a packed
output (`.gcpos`, `.gcpos.gz`) likewise, converted once at the end. The
sidecar `<output>.json` (the recipe: how the set was made) says how the set was
made; the journal is removed then. What one game gives (playing, sampling,
resolving, labelling) is making.py's; the command's arguments are cli.py's.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import shlex
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

from genchess.console import quoted, shortened, whole_number
from genchess.files import AppendFile, display_path, package_file, write_atomically
from genchess.position_sets.epd import (GAME_LABEL, MENTOR_CLAMP_CP, PACKED_SUFFIXES, PositionSetError, epd_line,
                                  read_keys)

PROG = "genchess positions"
DEFAULT_OPENINGS = package_file("data", "openings.epd")
# The shipped openings by their place in the package, not where it is installed, so a set
# made in one clone or install resumes or grows in another.
SHIPPED_OPENINGS = "genchess/data/openings.epd"
MENTORS = ("stockfish", "genchess")     # who may score the positions (--mentor)


class UsageError(Exception):
    """A bad argument or input file: one line on stderr, exit status 2."""


def shipped_openings_name(path: str | None) -> str | None:
    """SHIPPED_OPENINGS for the shipped openings file wherever it is (any clone's or
    install's genchess/data/openings.epd), else the path relative to the working
    directory (files.display_path): a recipe names no folder of the machine."""
    if path is not None and (path == SHIPPED_OPENINGS or path.replace("\\", "/").endswith("/" + SHIPPED_OPENINGS)):
        return SHIPPED_OPENINGS
    return None if path is None else display_path(path)


def command_text(argv: list[str]) -> str:
    """The command as the sidecar records it: `genchess` and its arguments, an absolute
    path among them written as files.display_path writes it."""
    def named(arg: str) -> str:
        option, eq, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
        return option + eq + display_path(value) if os.path.isabs(value) else arg
    return shlex.join(["genchess"] + [named(arg) for arg in argv])


def parse_mentor(text: str) -> tuple[str, str, int]:
    """("stockfish" or "genchess", "depth" or "nodes", N) from `[ENGINE:]depth=N|nodes=N`
    (Stockfish when no engine is named), or GAME_LABEL from `genchess:game`."""
    engine, colon, limit = text.strip().lower().rpartition(":")
    engine = engine if colon else "stockfish"
    if engine == "genchess" and limit == "game":
        return GAME_LABEL
    key, eq, value = limit.partition("=")
    number = whole_number(value)
    if engine not in MENTORS or not eq or key not in ("depth", "nodes") or number is None \
            or not 1 <= number <= 999_999_999:
        raise argparse.ArgumentTypeError(f"expected depth=N or nodes=N (N at least 1), after "
                                         f"genchess: for GenChess's own search (or genchess:game), "
                                         f"not {quoted(text)}")
    return engine, key, number


def mentor_text(mentor: tuple[str, str, int]) -> str:
    """The recipe's spelling: `depth=10` for Stockfish (as sets made before GenChess
    could label its own), `genchess:nodes=5000` for GenChess, `genchess:game`."""
    if tuple(mentor) == GAME_LABEL:
        return "genchess:game"
    limit = f"{mentor[1]}={mentor[2]}"
    return limit if mentor[0] == "stockfish" else f"{mentor[0]}:{limit}"


class PositionsRun:
    def __init__(self, args):
        self.args = args
        self.started = time.monotonic()
        self.out = Path(args.output)
        # A packed set (.gcpos, position_sets/packed.py) is made as EPD text like a .gz one
        # and converted once at the end, so resuming reads and cuts lines either way.
        self.packed = str(self.out).endswith(PACKED_SUFFIXES)
        self.gz = self.out.suffix == ".gz" and not self.packed
        self.work = self.out.with_name(self.out.name + ".part") if self.gz or self.packed else self.out
        self.journal = self.out.with_name(self.out.name + ".journal")
        self.sidecar = self.out.with_name(self.out.name + ".json")
        self.warnings = 0
        self.fitted = (None, {})     # (positions, the tuner's fits) of a finished run being resumed
        if args.mentor is not None and not isinstance(args.mentor, tuple):
            try:
                args.mentor = parse_mentor(args.mentor)
            except argparse.ArgumentTypeError as e:
                raise UsageError(f"--mentor: {e}") from None
        from genchess.game.openings import check_variant
        try:
            self.chess960 = check_variant(args.variant) == "chess960"
        except ValueError as e:
            raise UsageError(f"--variant: {e}") from None
        # Chess960 without a file: the 960 start positions themselves.
        self.openings = args.openings if args.openings is not None else \
            None if self.chess960 else str(DEFAULT_OPENINGS)
        self.plays = self._plays()
        if not self.plays and not args.pgn:
            raise UsageError("nothing to do: give --pgn FILE ... and/or --play ENGINE --games N")
        for path in args.pgn:
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such PGN file")
        if args.mentor and tuple(args.mentor) == GAME_LABEL and (args.pgn or any(play[0] != "genchess" for play in self.plays)):
            raise UsageError("--mentor genchess:game labels GenChess's own self-play games with "
                             "their search's scores: use it with --play genchess alone")
        self.genome_path, self.genome_text, self.genome_name = self._genome()
        self.stockfish = None
        if (args.mentor and args.mentor[0] == "stockfish") or any(play[0] == "stockfish" for play in self.plays):
            self.stockfish = self._stockfish()
        self.jobs, self.bad_games = self._jobs()
        self.recipe = self._recipe()

    # ---------------------------------------------------------- inputs

    def _plays(self) -> list[tuple[str, int, int, int]]:
        """(engine, games, nodes, depth) for each --play: a fixed node count per move, or
        with --depth a fixed depth (nodes 0 then)."""
        args = self.args
        if not args.play:
            if args.games or args.nodes or args.depth:
                raise UsageError("--games, --nodes and --depth need --play genchess or --play stockfish")
            return []
        if args.nodes and args.depth:
            raise UsageError("--nodes and --depth: the games are played at one kind of limit, give one")
        plays = []
        for name, values, default in (("--games", args.games, None), ("--nodes", args.nodes, 0),
                                      ("--depth", args.depth, 0)):
            if len(values) not in (0, 1, len(args.play)):
                raise UsageError(f"{name} is given {len(values)} times for {len(args.play)} --play: "
                                 f"give it once, or once per --play")
            if not values and default is None:
                raise UsageError("--play needs --games N")
        for i, engine in enumerate(args.play):
            games = args.games[i] if len(args.games) > 1 else args.games[0]
            if args.depth:
                plays.append((engine, games, 0, args.depth[i] if len(args.depth) > 1 else args.depth[0]))
                continue
            nodes = (args.nodes[i] if len(args.nodes) > 1 else args.nodes[0]) if args.nodes \
                else (5000 if engine == "genchess" else 20000)
            plays.append((engine, games, nodes, 0))
        return plays

    def _genome(self):
        from genchess.genome import GenomeError, default_genome, open_genome, write_genome
        from genchess.genome.genome_file import DEFAULT_GENOME_PATH
        path = getattr(self.args, "genome", None)
        if path is None:
            # The engine's default: a set's sidecar names it, and the recipe holds its
            # sha256, so a set made before the default changed is still remade exactly
            # by naming its genome (--genome).
            genome, name = default_genome(), f"genchess/genomes/{DEFAULT_GENOME_PATH.name} (the default)"
        else:
            try:
                genome = open_genome(path)          # any --genome: a file, a run, a shipped name
            except GenomeError as e:
                raise UsageError(str(e)) from None
            except OSError as e:
                raise UsageError(f"cannot read genome file {path}: {e.strerror}") from None
            name = display_path(path) if os.path.isfile(path) else str(path)
        text = io.StringIO()
        write_genome(genome, text)
        return path, text.getvalue(), name

    def _stockfish(self) -> dict:
        import chess.engine

        from genchess.game.external import find_command
        path = self.args.stockfish
        found = find_command(path)
        if not found:
            raise UsageError(f"no stockfish binary {path!r} (install Debian's stockfish package, "
                             f"or give --stockfish PATH)")
        try:
            engine = chess.engine.SimpleEngine.popen_uci(found)
        except (OSError, chess.engine.EngineError) as e:
            raise UsageError(f"cannot start {found}: {e}") from None
        try:
            name = engine.id.get("name", "Stockfish")
        finally:
            engine.quit()
        return {"path": found, "name": name}

    def _jobs(self):
        from genchess.position_sets.making import PositionsJob
        from genchess.game.openings import (CHESS960_POSITIONS, OpeningError, chess960_openings,
                                            read_openings)
        from genchess_core import Board, FenError
        args = self.args
        jobs: list[PositionsJob] = []
        bad = 0
        common = dict(genome=self.genome_text, seed=args.seed, skip_plies=args.skip_plies,
                      per_game=args.per_game, mentor=args.mentor,
                      stockfish=self.stockfish["path"] if self.stockfish else "stockfish")
        for path in args.pgn:
            for where, game in read_pgn_games(path):
                if isinstance(game, str):
                    bad += 1
                    self.warn(f"{where}: {game}; game skipped")
                    continue
                start, moves, result, chess960 = game
                try:
                    Board(start)
                except FenError as e:       # a variant start python-chess accepts and we do not
                    bad += 1
                    self.warn(f"{where}: {e}; game skipped")
                    continue
                jobs.append(PositionsJob(len(jobs), where, None, start, tuple(moves), result,
                                         chess960=chess960, **common))
        if self.plays:
            def bad_opening(message):
                nonlocal bad
                bad += 1
                self.warn(f"{message}; opening skipped")
            if self.openings is None:
                openings = chess960_openings(CHESS960_POSITIONS, args.seed)
            else:
                try:
                    openings = read_openings(self.openings, on_error=bad_opening, chess960=self.chess960)
                except OpeningError as e:
                    raise UsageError(str(e)) from None
            for engine, games, nodes, depth in self.plays:
                for _ in range(games):
                    opening = openings[len(jobs) % len(openings)]
                    jobs.append(PositionsJob(len(jobs), engine, engine, opening.fen, opening.moves,
                                             nodes=nodes, depth=depth, random_plies=args.random_plies,
                                             chess960=self.chess960, **common))
        return jobs, bad

    def _recipe(self) -> dict:
        """Everything that decides which positions the run writes."""
        args = self.args
        # Named only when it is Chess960, so a standard run's recipe is what it always was.
        variant = {"variant": "chess960"} if self.chess960 else {}
        return {
            "pgn": [str(p) for p in args.pgn],
            # A node count as it always was written, so older sets resume; a depth by name.
            "play": [[engine, games, {"depth": depth} if depth else nodes]
                     for engine, games, nodes, depth in self.plays],
            **variant,
            "openings": shipped_openings_name(self.openings) if self.plays else None,
            "random_plies": args.random_plies,
            "seed": args.seed,
            "skip_plies": args.skip_plies,
            "per_game": args.per_game,
            "mentor": mentor_text(args.mentor) if args.mentor else None,
            "genome_sha256": hashlib.sha256(self.genome_text.encode()).hexdigest(),
        }

    def _mentor_lineage(self) -> dict | None:
        """Who scored the positions, and how (the sidecar's `mentor`)."""
        from genchess.position_sets.making import MENTOR_HASH_MB, STOCKFISH_HASH_MB
        mentor = self.args.mentor
        if not mentor:
            return None
        if tuple(mentor) == GAME_LABEL:
            import genchess
            return {"engine": f"GenChess {genchess.__version__}", "genome": self.genome_name,
                    "limit": self.recipe["mentor"], "threads": 1,
                    "scores": "the search's own, at the game's node count, for the move it played "
                              "(positions whose move is quiet and that are not in check)",
                    "view": "White" if self.packed else "side to move", "clamp_cp": MENTOR_CLAMP_CP}
        if mentor[0] == "genchess":
            import genchess
            engine = {"engine": f"GenChess {genchess.__version__}", "genome": self.genome_name,
                      "hash_mb": MENTOR_HASH_MB}
        else:
            engine = {"engine": self.stockfish["name"], "hash_mb": STOCKFISH_HASH_MB}
        return {**engine, "limit": self.recipe["mentor"], "threads": 1, "hash_cleared": "before each position",
                "view": "White" if self.packed else "side to move", "clamp_cp": MENTOR_CLAMP_CP}

    def warn(self, message: str) -> None:
        self.warnings += 1
        print(f"{PROG}: {message}", file=sys.stderr)

    # ---------------------------------------------------------- resuming

    def _start(self):
        """(games done, cumulative counts, seconds before this run resumed) and the open
        work file, positioned at its end."""
        if not self.args.resume:
            for path in (self.out, self.work, self.journal):
                if path.exists():
                    raise UsageError(f"{path} exists: add --resume to continue that run, or remove it")
            self.new_journal({"recipe": self.recipe})
            return 0, Counter(), 0.0, set()
        state = None
        if self.journal.exists():
            lines = self.journal.read_text(encoding="utf-8").splitlines()
            try:
                recipe = json.loads(lines[0])["recipe"]
            except (IndexError, ValueError, KeyError):
                raise UsageError(f"{self.journal}: not a positions journal") from None
            for line in reversed(lines[1:]):
                try:
                    state = json.loads(line)
                    break
                except ValueError:          # a torn last line
                    continue
            state = state or {"games": 0, "offset": 0, "counts": {}, "seconds": 0.0}
            if not self.work.exists():
                if state["offset"]:
                    raise UsageError(f"{self.work} is missing: the journal says {state['games']} "
                                     f"games were written to it")
                self.work.touch()
        elif self.sidecar.exists() and self.out.exists():
            # A finished run, grown with more games.
            try:
                meta = json.loads(self.sidecar.read_text(encoding="utf-8"))
                recipe, state = meta["recipe"], meta["progress"]
                self.fitted = (meta.get("positions"), meta.get("fitted") or {})
            except (ValueError, KeyError):
                raise UsageError(f"{self.sidecar}: not a positions sidecar") from None
            if self.gz:
                with gzip.open(self.out, "rb") as src, open(self.work, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            elif self.packed:
                from genchess.position_sets.position_set import load_positions
                try:
                    load_positions(self.out).write(self.work)
                except PositionSetError as e:
                    raise UsageError(str(e)) from None
            state["offset"] = self.work.stat().st_size
            self.new_journal({"recipe": recipe}, state)
        else:
            for path in (self.out, self.work):
                if path.exists():
                    raise UsageError(f"{path} exists but has no journal or sidecar to resume from")
            self.new_journal({"recipe": self.recipe})
            return 0, Counter(), 0.0, set()
        self._check_recipe(recipe, state["games"])
        with open(self.work, "r+b") as f:
            f.truncate(state["offset"])
        keys = set(read_keys(self.work))
        return state["games"], Counter(state["counts"]), float(state["seconds"]), keys

    def new_journal(self, *lines: dict) -> None:
        """Start the journal whole or not at all: a journal cut inside its first line (the
        recipe) would leave a run that --resume refuses."""
        write_atomically(self.journal, "".join(json.dumps(line) + "\n" for line in lines))

    def _check_recipe(self, old: dict, done: int) -> None:
        new = self.recipe
        if old.get("openings"):             # older sets named the shipped file by its full path
            old = {**old, "openings": shipped_openings_name(old["openings"])}
        if old == new:
            return
        # Growing the last source (more games of the last --play) keeps every game's number.
        grown = (old.get("play") and new["play"] and old["play"][:-1] == new["play"][:-1]
                 and old["play"][-1][0::2] == new["play"][-1][0::2]
                 and {**old, "play": None} == {**new, "play": None})
        if grown and done <= len(self.jobs):
            return
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise UsageError(f"--resume needs the arguments of the run it continues; these differ: "
                         f"{', '.join(changed)} (only the last --play's --games may grow)")

    # ---------------------------------------------------------- running

    def run(self) -> int:
        from genchess.parallel.executors import ClusterError, ExecutorLost, completed, open_executor
        try:
            done, counts, seconds_before, keys = self._start()
        except UsageError as e:
            print(f"{PROG}: {e}", file=sys.stderr)
            return 2
        self.counts = counts
        self.seconds_before = seconds_before
        self.positions_before = counts["positions"]     # (positions an hour: this run's own)
        self.keys = keys
        todo = self.jobs[done:]
        self.next_game = done
        self.waiting = {}
        progress = _progress(len(self.jobs), done)
        interrupted = lost = None
        # Each game's positions are one record of the work file, and its journal line
        # one of the journal: a write that fails leaves both as they were.
        work = AppendFile(self.work)
        journal = AppendFile(self.journal)
        try:
            from genchess.position_sets.making import run_job
            if todo:
                workers = self.args.workers
                with open_executor(self.args.scheduler, workers, out=lambda m: print(m, file=sys.stderr)) as ex:
                    for result in completed(ex, run_job, todo, in_flight=2 * workers,
                                            key=lambda job: job.number):
                        self.waiting[result.number] = result
                        self._write_ready(work, journal, progress)
        except KeyboardInterrupt:
            interrupted = True
        except ClusterError as e:
            print(f"{PROG}: {e}", file=sys.stderr)
            return 2
        except ExecutorLost as e:
            lost = str(e)
        finally:
            work.close()
            journal.close()
            progress.close()
        if interrupted or lost:
            why = lost or "interrupted"
            print(f"{PROG}: {why}: {self.next_game} of {len(self.jobs)} games done, "
                  f"{self.counts['positions']} positions kept in {self.work}; the same command "
                  f"with --resume continues", file=sys.stderr)
            return 130 if interrupted else 1
        self._finish()
        return 0

    def _write_ready(self, work, journal, progress) -> None:
        while self.next_game in self.waiting:
            result = self.waiting.pop(self.next_game)
            c = self.counts
            c["games"] += 1
            c[f"games_{result.engine or 'pgn'}"] += 1
            c[f"results {result.result}"] += 1
            c["plies"] += result.plies
            c.update(result.counts)
            lines = []
            for fen, ce in result.positions:
                if fen in self.keys:
                    c["duplicates"] += 1
                    continue
                self.keys.add(fen)
                lines.append(epd_line(fen, result.result, ce) + "\n")
                c["positions"] += 1
            work.write("".join(lines))
            self.next_game += 1
            state = {"games": self.next_game, "offset": work.tell(), "counts": dict(c),
                     "seconds": round(self.seconds_before + time.monotonic() - self.started, 1)}
            journal.write(json.dumps(state) + "\n")
            progress.update(1)
            hours = max(time.monotonic() - self.started, 1e-9) / 3600
            progress.set_postfix(positions=c["positions"],
                                 per_hour=f"{(c['positions'] - self.positions_before) / hours:,.0f}",
                                 refresh=False)

    def _finish(self) -> None:
        # Killed anywhere in here, the run resumes: the set is written (a .gz one renamed
        # into place whole) and the sidecar replaced whole while the journal is there to
        # redo them; the journal goes before the work file (without a journal, --resume
        # grows the finished set), so no moment leaves a journal naming a removed file.
        seconds = self.seconds_before + time.monotonic() - self.started
        if self.gz:
            raw = io.BytesIO()
            with open(self.work, "rb") as src:
                # mtime 0 and no name: the same positions give the same bytes.
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
                    shutil.copyfileobj(src, dst)
            write_atomically(self.out, raw.getvalue())      # whole, or not at all
        elif self.packed:
            from genchess.position_sets import packed
            from genchess.position_sets.position_set import load_positions
            write_atomically(self.out, packed.packed_bytes(load_positions(self.work),
                                                           gz=self.out.suffix == ".gz"))
        state = {"games": self.next_game, "offset": None, "counts": dict(self.counts),
                 "seconds": round(seconds, 1)}
        write_atomically(self.sidecar, json.dumps(self._lineage(state), indent=2) + "\n")
        self.journal.unlink()
        if self.gz or self.packed:
            self.work.unlink()
        c = self.counts
        skipped = {k: v for k, v in sorted(c.items())
                   if k in ("in_check", "loud_move", "duplicates", "openings_ended") or
                   (k.startswith("resolved_") and k != "resolved_quiet")}
        print(f"{PROG}: {c['positions']} positions from {c['games']} games in {seconds:.0f} s "
              f"({c['positions'] * 3600 / max(seconds, 1e-9):,.0f} an hour) -> {self.out} (skipped: "
              + (", ".join(f"{k.replace('resolved_', '')} {v}" for k, v in skipped.items()) or "none")
              + (f"; {self.bad_games} bad PGN games or openings" if self.bad_games else "") + ")")
        if c["castling_dropped"]:
            print(f"{PROG}: {c['castling_dropped']} positions lost a castling right: one named by "
                  f"its rook's file (a Chess960 rook with another rook of its side further out), "
                  f"which a packed position set would read as the outer rook's", file=sys.stderr)

    def _lineage(self, state: dict) -> dict:
        import genchess
        args = self.args
        c = self.counts
        engines = {}
        for engine, games, nodes, depth in self.plays:
            limit = {"depth_per_move": depth} if depth else {"nodes_per_move": nodes}
            if engine == "genchess":
                engines["genchess"] = {"version": genchess.__version__, "genome": self.genome_name,
                                       **limit, "games": games}
            else:
                engines["stockfish"] = {"version": self.stockfish["name"], "path": self.stockfish["path"],
                                        **limit, "threads": 1, "games": games}
        return {
            "format": (("packed, 32 bytes a position (docs/positions.md#the-packed-format): the "
                        "game's result and the mentor's score in centipawns, both from White's view"
                        if self.packed else
                        "EPD: four FEN fields, c9 the game's result from White's view"
                        + ("; ce the mentor's score in centipawns from the SIDE TO MOVE's view "
                           "(EPD's convention)" if args.mentor else ""))
                       + (f", mates and beyond clamped to +-{MENTOR_CLAMP_CP}" if args.mentor else "")),
            "command": command_text(sys.argv[1:]) if sys.argv else "",
            "recipe": self.recipe,
            "engines": engines,
            "resolution": {"by": f"GenChess {genchess.__version__} quiescence search",
                           "genome": self.genome_name},
            "mentor": self._mentor_lineage(),
            "games": {"total": c["games"], "plies": c["plies"],
                      "by_source": {k[len("games_"):]: v for k, v in c.items() if k.startswith("games_")},
                      "results": {k[len("results "):]: v for k, v in c.items() if k.startswith("results ")}},
            "positions": c["positions"],
            "skipped": {"in_check": c["in_check"], "duplicates": c["duplicates"],
                        **({"loud_move": c["loud_move"]} if c["loud_move"] else {}),
                        "bad_pgn_games_or_openings": self.bad_games,
                        **{k.replace("resolved_", "resolution_"): v for k, v in c.items()
                           if k.startswith("resolved_") and k != "resolved_quiet"}},
            "sampled": c["sampled"],
            **({"castling_rights_dropped": c["castling_dropped"]} if c["castling_dropped"] else {}),
            "seconds": state["seconds"],
            "progress": state,
            # The tuner's fits (K per label kind) hold only for the set they were fitted on.
            "fitted": self.fitted[1] if self.fitted[0] == c["positions"] else {},
        }


def _progress(total: int, done: int):
    from tqdm import tqdm
    return tqdm(total=total, initial=done, unit="game", disable=None, file=sys.stderr,
                dynamic_ncols=True, desc="positions")


def read_pgn_games(path):
    """(where, (start fen, uci moves, result, Chess960 or not)) for each game of a PGN
    file, or (where, problem) for a game that cannot be used."""
    import logging

    import chess.pgn
    # python-chess logs each bad move besides recording it in game.errors: said once, here.
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    with open(path, encoding="utf-8", errors="replace") as f:
        number = 0
        while True:
            try:
                game = chess.pgn.read_game(f)
            except (ValueError, UnicodeDecodeError) as e:
                number += 1
                yield f"{path}: game {number}", f"unreadable ({shortened(str(e))})"
                continue
            if game is None:
                return
            number += 1
            where = f"{path}: game {number}"
            if game.errors:           # python-chess's message quotes the bad text whole
                yield where, shortened(str(game.errors[0]))
                continue
            result = game.headers.get("Result", "*")
            if result not in ("1-0", "0-1", "1/2-1/2"):
                yield where, f"no result (Result {quoted(result)})"
                continue
            try:
                board = game.board()
                start = board.fen()
                moves = [move.uci() for move in game.mainline_moves()]
            except ValueError as e:
                yield where, f"bad position ({shortened(str(e))})"
                continue
            if "0000" in moves:             # python-chess reads `--` as a pass; chess has none
                yield where, f"a null move (--) at ply {moves.index('0000') + 1}"
                continue
            yield where, (start, moves, result, board.chess960)
