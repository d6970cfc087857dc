"""A match between two engines: game pairs in parallel, results as they come.

Each opening is played twice with colours reversed (a game pair), the first
engine White in the pair's first game. Games are jobs for a standard
`concurrent.futures` executor (a process pool by default, as the trainer's),
whose workers keep their players, and so their engine processes, between
games; no more jobs are in flight than there are workers, so an SPRT verdict
or Ctrl-C stops the match after at most that many unfinished games, which are
simply not counted. Every finished game goes to the PGN file at once, so a
match stopped any way can resume from it (`resume()`): an SPRT too long to
play in one go goes on where it stopped, as one sequential test.

Statistics are from the first engine's side: every game as it finishes, every
pair once both its games are in (pentanomial counts, SPRT on pairs).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from genchess.console import quoted, shortened
from genchess.game import GameRecord, TimeControl, play_game
from genchess.game.adjudication import Adjudication
from genchess.game.openings import Opening
from genchess.parallel import executors
from genchess.strength.engines import EngineSpec, make_match_player
from genchess.strength.sprt import CONTINUE, Sprt
from genchess.strength.stats import MatchStats, format_elo
from genchess.strength.tally import Tally

MAX_PLIES = 1000            # a game still going after this is a draw

_local = threading.local()


@dataclass
class MatchJob:
    number: int                 # 0-based game number
    engines: tuple[EngineSpec, EngineSpec]
    opening: Opening
    controls: tuple[TimeControl, TimeControl]       # each engine's, in the engines' order
    max_plies: int = MAX_PLIES
    adjudication: Adjudication | None = None

    @property
    def pair(self) -> int:
        return self.number // 2

    @property
    def first_is_white(self) -> bool:
        return self.number % 2 == 0


def _players(engines: tuple[EngineSpec, EngineSpec]):
    """This worker's players for the two sides, started once and kept."""
    cache = _local.__dict__.setdefault("players", {})
    players = []
    for slot, spec in enumerate(engines):
        key = (slot, spec)
        if key not in cache:
            cache[key] = make_match_player(spec)
            close = getattr(cache[key], "close", None)
            if close is not None:
                _close_at_exit(close)
        players.append(cache[key])
    return players


def _close_at_exit(close) -> None:
    # multiprocessing runs its own finalizers (not atexit) when a worker ends.
    from multiprocessing import util
    util.Finalize(None, close, exitpriority=10)


def play_match_job(job: MatchJob) -> tuple[MatchJob, GameRecord]:
    first, second = _players(job.engines)
    white, black = (first, second) if job.first_is_white else (second, first)
    white_control, black_control = job.controls if job.first_is_white else job.controls[::-1]
    record = play_game(white, black, job.opening.fen, white_control, max_plies=job.max_plies,
                       opening_moves=job.opening.moves, adjudication=job.adjudication,
                       chess960=job.opening.chess960, black_control=black_control)
    return job, record


def engine_control(spec: EngineSpec, control: TimeControl) -> TimeControl:
    """The engine's own time control (its `tc=`, with the match's margin), else the match's."""
    if not spec.tc:
        return control
    own = TimeControl.parse(spec.tc)
    own.margin = control.margin
    return own


def describe_controls(controls: tuple[TimeControl, TimeControl], names: tuple[str, str]) -> str:
    """`10+0.1`, or with time odds `20+0.2 (A) against 10+0.1 (B)`."""
    first, second = (c.spelling() for c in controls)
    return first if first == second else f"{first} ({names[0]}) against {second} ({names[1]})"


def default_concurrency() -> int:
    """Games at once: half the cores, so each of the two engines has one."""
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass
class MatchResult:
    names: tuple[str, str]
    tally: Tally = field(default_factory=Tally)
    terminations: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)     # (name, termination) of losses by rule
    stopped: str = ""               # why the match ended early: an SPRT verdict, interrupted
    records: list[GameRecord] = field(default_factory=list)

    @property
    def stats(self) -> MatchStats:
        return self.tally.stats

    @property
    def sprt(self) -> Sprt | None:
        return self.tally.sprt

    def as_dict(self) -> dict:
        return {"engines": list(self.names), **self.stats.summary(),
                "sprt": self.sprt.as_dict() if self.sprt else None,
                "terminations": dict(self.terminations),
                "failures": [{"engine": n, "termination": t, "count": c}
                             for (n, t), c in sorted(self.failures.items())],
                "stopped": self.stopped or None}

    def summary_lines(self) -> list[str]:
        s = self.stats
        a, b = self.names
        lines = [f"Score of {a} vs {b}: {s.wins} - {s.losses} - {s.draws}  [{s.score:.3f}] "
                 f"{s.games} games"]
        if s.games:
            lines.append(f"Elo difference: {format_elo(s.elo())} (95%), LOS: {s.los():.1%}, "
                         f"draw ratio: {s.draw_ratio:.1%}")
        if sum(s.pairs):
            lines.append(f"Pentanomial [LL, LD, WL+DD, WD, WW]: {s.pairs}, "
                         f"Elo {format_elo(s.pentanomial_elo())} (95%)")
        if self.sprt is not None:
            verdict = {"H0": "H0 accepted", "H1": "H1 accepted"}.get(self.sprt.status(), "no decision")
            lines.append(f"SPRT: {self.sprt.describe()}: {verdict}")
        if self.failures:
            lines.append("Lost by rule: " + ", ".join(f"{n} {t} x{c}"
                                                      for (n, t), c in sorted(self.failures.items())))
        if self.stopped:
            lines.append(f"Stopped: {self.stopped}")
        return lines


RULE_LOSSES = ("time forfeit", "illegal move", "crash", "protocol error")


class ResumeError(Exception):
    """The PGN file cannot be continued by this match (other engines or openings)."""


class MatchRunner:
    def __init__(self, engines: tuple[EngineSpec, EngineSpec], control: TimeControl,
                 openings: list[Opening], games: int, concurrency: int | None = None,
                 sprt: Sprt | None = None, pgn_path: str | None = None,
                 out: Callable[[str], None] = print, event: str = "GenChess match",
                 executor_factory=None, max_plies: int = MAX_PLIES,
                 adjudication: Adjudication | None = None):
        self.engines = engines
        self.control = control
        self.controls = (engine_control(engines[0], control), engine_control(engines[1], control))
        self.openings = openings
        self.games = games
        self.concurrency = concurrency or default_concurrency()
        self.sprt = sprt
        self.pgn_path = pgn_path
        self.out = out
        self.event = event
        self.max_plies = max_plies
        self.adjudication = adjudication
        self.executor_factory = executor_factory or executors.local_process_pool
        names = [spec.name or spec.text for spec in engines]
        if names[0] == names[1]:
            names = [f"{names[0]} (1)", f"{names[1]} (2)"]
        self.names = (names[0], names[1])
        self.engines = tuple(_named(spec, name) for spec, name in zip(engines, names))
        self.result = MatchResult(self.names, Tally(sprt))
        self._done: set[int] = set()        # game numbers already played (resumed)

    def opening_of(self, number: int) -> Opening:
        return self.openings[(number // 2) % len(self.openings)]

    def jobs(self):
        for number in range(self.games):
            if number not in self._done:
                yield MatchJob(number, self.engines, self.opening_of(number), self.controls,
                               self.max_plies, self.adjudication)

    def resume(self, pgn_path, skip_other_pairings: bool = False) -> int:
        """Count the games of this match already in `pgn_path` (by their Round tags,
        "pair.game") as if just played, so that run() plays only the rest; return
        how many. Games of other engines, openings or time controls are an error:
        resuming must continue the same experiment, never mix two. A gauntlet's
        PGN holds one match per opponent: with `skip_other_pairings`, games between
        other engines are passed over (the same two engines still must agree)."""
        import chess.pgn

        games: dict[int, tuple] = {}        # number -> (result, termination, (White, Black))
        try:
            handle = open(pgn_path, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise ResumeError(f"cannot read {pgn_path}: {e.strerror}") from None
        with handle:
            index = 0
            while (headers := chess.pgn.read_headers(handle)) is not None:
                index += 1
                where = f"{pgn_path}, game {index}"
                try:
                    pair, game = pair_and_game(headers)
                except ValueError as e:
                    raise ResumeError(f"{where}: {e}") from None
                if skip_other_pairings and \
                        {headers.get("White"), headers.get("Black")} != set(self.names):
                    continue
                number = (pair - 1) * 2 + (game - 1)
                if pair < 1 or game not in (1, 2) or number >= self.games:
                    raise ResumeError(f"{where}: Round {shortened(headers['Round'], 40)} is outside this "
                                      f"match of {self.games} games")
                first, second = self.names if game == 1 else self.names[::-1]
                if (headers.get("White"), headers.get("Black")) != (first, second):
                    raise ResumeError(f"{where}: {shortened(str(headers.get('White')), 60)} - {shortened(str(headers.get('Black')), 60)}, "
                                      f"but this match plays {first} - {second} there (name the "
                                      f"engines as before)")
                variant = "Chess960" if self.opening_of(number).chess960 else "standard"
                if headers.get("Variant", "standard").lower() != variant.lower():
                    raise ResumeError(f"{where}: Variant {shortened(headers.get('Variant', 'standard'), 40)}, but "
                                      f"this match plays {variant} (give the same --variant)")
                # Openings by file name and line: the same file read from another
                # checkout (another directory) is the same opening.
                opening = self.opening_of(number).source or "-"
                if _file_and_line(headers.get("Opening", "-")) != _file_and_line(opening):
                    raise ResumeError(f"{where}: opening {shortened(str(headers.get('Opening')), 80)}, but this match "
                                      f"plays {opening} there (give the same --openings and --seed)")
                first_control, second_control = (c.describe() for c in self.controls)
                white_control, black_control = (first_control, second_control) if game == 1 else \
                    (second_control, first_control)
                # A game without the tags (another tool's) is taken as this match's.
                played = tuple(headers.get(f"{side}TimeControl", headers.get("TimeControl", control))
                               for side, control in (("White", white_control), ("Black", black_control)))
                if played != (white_control, black_control):
                    raise ResumeError(f"{where}: time controls {shortened(played[0], 40)} (White) and "
                                      f"{shortened(played[1], 40)} (Black), but this match plays "
                                      f"{white_control} and {black_control} there")
                games[number] = (headers.get("Result", "*"), headers.get("Termination", ""),
                                 (headers["White"], headers["Black"]))
        for number in sorted(games):
            self._count(number, *games[number])
        self._done = set(games)
        return len(games)

    def run(self) -> MatchResult:
        """Play the match; Ctrl-C ends it with the games so far (result.stopped says)."""
        executor = self.executor_factory(min(self.concurrency, self.games))
        pending = self.jobs()
        running: set[cf.Future] = set()
        exhausted = False
        try:
            with executors.ctrl_c_at_safe_points():      # stop between games, never inside one
                while True:
                    while not exhausted and not self.result.stopped and len(running) < self.concurrency:
                        job = next(pending, None)
                        if job is None:
                            exhausted = True
                            break
                        running.add(executor.submit(play_match_job, job))
                    if not running:
                        break
                    done, running = executors.wait_first(running)
                    for future in done:
                        try:
                            job, record = future.result()
                        except Exception as e:          # a bug in a player, a worker killed
                            self.result.stopped = f"a game failed: {type(e).__name__}: {e}"
                            continue
                        if record.termination == "crash" and executors.ctrl_c_pending():
                            # The stop went to the engines too (Ctrl-C in a terminal, a
                            # signal to the process group): an engine that died with it
                            # did not lose, its game was cut off. Left out, so --resume
                            # plays it again.
                            continue
                        self.record(job, record)
                    if self.result.stopped:
                        break
        except KeyboardInterrupt:
            self.result.stopped = "interrupted"
        finally:
            if self.result.stopped:
                executors.stop_now(executor)
            else:
                executor.shutdown(wait=True)
        return self.result

    def record(self, job: MatchJob, record: GameRecord) -> None:
        from genchess.game.pgn import pgn_text

        self.result.records.append(record)
        if self.pgn_path:
            tags = {"Round": f"{job.pair + 1}.{job.number % 2 + 1}",
                    "Opening": job.opening.source or "-", "Termination": record.termination}
            # Opened for each game, not held for the match: a PGN under git that a
            # checkout or stash replaces while a long SPRT runs gets the next game, where
            # a held handle would write on into the replaced (deleted) file unseen.
            with open(self.pgn_path, "a", encoding="utf-8") as pgn:
                pgn.write(pgn_text(record, event=self.event, tags=tags))
        pair_done = self._count(job.number, record.result, record.termination,
                                (record.white, record.black))
        s = self.result.stats
        self.out(f"Game {s.games}/{self.games} (pair {job.pair + 1}): {record.white} - "
                 f"{record.black} {record.result} ({record.reason}), {len(record.moves)} plies | "
                 f"{self.names[0]}: +{s.wins} ={s.draws} -{s.losses}")
        if pair_done and self.sprt is not None:
            self.out(f"SPRT: {self.sprt.describe()}")

    def _count(self, number: int, result_text: str, termination: str, players) -> bool:
        """Add game `number` (its PGN result; players = (White, Black)) to the
        tally (games 2k and 2k+1 are pair k, the first engine White in the first)
        and note how it ended; return whether that completed its pair."""
        result = self.result
        result.terminations[termination] += 1
        if termination in RULE_LOSSES and result_text != "1/2-1/2":
            white, black = players
            result.failures[(white if result_text == "0-1" else black, termination)] += 1
        pair_done = result.tally.add(result_text, white=number % 2 == 0, pair=number // 2)
        if pair_done and result.tally.verdict != CONTINUE:
            result.stopped = f"SPRT accepted {result.tally.verdict} after {result.stats.games} games"
        return pair_done


def pair_and_game(headers) -> tuple[int, int]:
    """A `genchess match` game's pair and its game in the pair (1 or 2), from its PGN
    Round tag "pair.game"; ValueError saying what the tag holds instead."""
    try:
        pair, game = (int(x) for x in headers.get("Round", "").split("."))
    except ValueError:
        raise ValueError(f"Round {quoted(headers.get('Round', ''))} is not 'pair.game' as genchess "
                         f"match writes it") from None
    return pair, game


def _file_and_line(source: str) -> str:
    """`dir/openings.epd:12` -> `openings.epd:12`."""
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def _named(spec: EngineSpec, name: str) -> EngineSpec:
    import dataclasses
    return dataclasses.replace(spec, name=name)
