"""One run scaffold: the frame every training method runs in.

A method (the gene pool, Kendall-Whitwell, multi-niche crowding, evolve) is a loop body:
it opens or resumes its files, plays one step (a round, a generation), says when
it has finished and which of its genomes is the best. Everything around that is
written once, here:

    connect the executor (local processes or a dask cluster) before any file is
        written, so a cluster that cannot be used leaves nothing behind
    open (or resume) the method's files
    until the method has finished or the time limit is reached:
        one step of the method
        every `champion interval` games: the champion's SPRT match
    Ctrl-C: held to a safe point between games, "Stopped. <what is on disk>", exit 130
    a lost scheduler or worker process: "Stopped: <why>. <what is on disk>", exit 1

Trade-off: the frame owns the loop, so a method cannot stop halfway through a step
on its own; each step ends at a point the method's files can be resumed from (a
method whose step is long, a generation, passes the deadline in and lets the step
cut itself short, resuming it next time).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from genchess.genome import Genome
from genchess.genome.run_formats import validation_line
from genchess.parallel import executors
from genchess.parallel.worker import GameJob
from genchess.train.config import ConfigError

TIME_LIMIT = "time limit"       # step()/finished() reason: the time limit cut the run


def start_positions(path: Path | None, chess960: bool = False) -> list[str] | None:
    """The FENs an opening file's games start from (EPD, PGN or moves: whatever
    `genchess match` reads), None without a file; a bad file is a ConfigError. In
    Chess960 without a file: the 960 start positions, in one fixed shuffled order
    (the methods draw from them with the run's seed, and the champion's game pairs
    walk them in that order, the same for every challenge and every run)."""
    from genchess.game.openings import (CHESS960_POSITIONS, OpeningError, chess960_fen,
                                        chess960_numbers, read_start_positions)
    if path is None:
        return [chess960_fen(n) for n in chess960_numbers(CHESS960_POSITIONS)] if chess960 else None
    try:
        return read_start_positions(path, chess960)
    except OpeningError as e:
        raise ConfigError(str(e)) from None


def cma_es(dimension: int, settings, seed: int, lo, hi):
    """optimise's CmaEs (settings a CmaSettings), or a ConfigError in one line when
    pycma is not installed: evolve and tune both offer it."""
    from genchess.optimise.evolution import CmaEs
    try:
        return CmaEs(dimension, settings, seed, lo, hi)
    except ImportError as e:
        raise ConfigError(str(e)) from None


class Run:
    """Base class of every method's trainer: the run frame around its loop body."""

    def __init__(self, config, out=print, executor_factory=None, progress: bool = True):
        self.config = config
        self.out = out
        # workers -> a context manager giving an executor (a plain Executor is one).
        self.executor_factory = executor_factory or (
            lambda workers: executors.open_executor(config.scheduler, workers, out=out,
                                                    tls=config.tls()))
        self.progress = progress
        self.seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
        self.openings = start_positions(config.opening_file, config.chess960)
        self.games_before = 0           # games in the run's files when this process began
        self.games_this_run = 0
        self.bar = None
        self.champion = None
        if config.champion is not None:
            from genchess.train.champion import Champion
            self.champion = Champion(self.run_file, config.champion, out)

    # ------------------------------------------------------------ what a method supplies

    @property
    def run_file(self) -> Path:
        """The file the run is known by; the champion's files go beside it."""
        raise NotImplementedError

    @property
    def workers(self) -> int:
        return self.config.workers

    @property
    def games_played(self) -> int:
        """Games of the whole run (resumed parts included): the champion's clock."""
        return self.games_before + self.games_this_run

    def open(self) -> None:
        """Create the run's files, or resume from them."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the run's files (every record is already flushed)."""

    def finished(self) -> str | None:
        """Why the run is complete (a stop rule), or None to go on."""
        return None

    def step(self, executor, deadline: float | None) -> str | None:
        """One round or generation; a reason to stop (TIME_LIMIT when the deadline
        cut it short), or None."""
        raise NotImplementedError

    def on_disk(self) -> str:
        """What a run stopped now keeps, and how to resume it (one sentence)."""
        raise NotImplementedError

    def done_this_run(self) -> str:
        """What this process did, for the time limit's line."""
        return f"{self.games_this_run} games"

    def report(self, wall: float) -> None:
        """The summary after a run that stopped normally."""

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        """The genome that challenges the champion now (first: the one crowned
        without a match, and why)."""
        raise NotImplementedError

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        """A champion-match game, played as the method plays its own games."""
        raise NotImplementedError

    def champion_openings(self) -> list[str | None]:
        """Where the champion's game pairs start (None: the standard position)."""
        return [None]

    # ------------------------------------------------------------ the frame

    def run(self) -> int:
        started = time.monotonic()
        try:
            with self.executor_factory(self.workers) as executor:
                self.open()
                try:
                    started = time.monotonic()
                    deadline = started + self.config.time_limit if self.config.time_limit else None
                    reason = self.finished()
                    while reason is None:
                        if deadline is not None and time.monotonic() >= deadline:
                            reason = TIME_LIMIT
                            break
                        reason = self.step(executor, deadline)
                        self.check_champion(executor)
                        reason = reason or self.finished()
                finally:
                    self.close()
        except KeyboardInterrupt:
            self.out(f"\nStopped. {self.on_disk()}")
            return 130
        except executors.ExecutorLost as e:
            self.out(f"Stopped: {e}. {self.on_disk()}")
            return 1
        if reason == TIME_LIMIT:
            self.out(f"Time limit reached after {self.done_this_run()} this run.")
        else:
            self.out(f"Stopped: {reason}.")
        self.report(time.monotonic() - started)
        return 0

    def check_champion(self, executor) -> None:
        """Every champion interval: crown the first champion, or let the method's
        candidate challenge the one there is."""
        champion = self.champion
        if champion is None or not champion.due(self.games_played):
            return
        first = champion.genome is None
        candidate, why = self.champion_candidate(first)
        if first:
            champion.crown(candidate, why)
        else:
            champion.challenge(executor, self.workers, candidate, self.champion_openings(),
                               self.champion_job, self.games_played)

    # ------------------------------------------------------------ console

    def progress_bar(self, description: str, total: int, unit: str = "game"):
        """A bar on the terminal while a step's games run (None when off or piped)."""
        if not self.progress:
            return None
        try:
            from tqdm import tqdm
        except ImportError:                 # the bar is a convenience, not a requirement
            return None
        self.bar = tqdm(total=total, desc=description, unit=unit, leave=False, file=sys.stderr,
                        disable=None)
        return self.bar

    def close_bar(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.bar = None

    def say(self, text: str) -> None:
        """A line during a step: above the progress bar when one is drawn."""
        if self.bar is not None and not self.bar.disable and self.out is print:
            self.bar.write(text)
        else:
            self.out(text)


class PositionFitnessRun(Run):
    """The frame of a method whose fitness is positions (evolve, network): it plays no
    games to learn, so its games are the validation matches (every `validation
    interval` steps, the best genome so far against a reference) and the champion's,
    both at the config's clock from the opening file or the shipped openings. The
    method says what a step is (`steps_done`) and supplies `records` (its run file),
    `validated` (the steps whose match is recorded) and the reference."""

    @property
    def steps_done(self) -> int:
        raise NotImplementedError

    def validate(self, executor, best: Genome, reference: Genome, reference_name: str,
                 step_name: str) -> None:
        from genchess.strength.games import play_pairs
        from genchess.strength.stats import format_elo
        cfg, g = self.config, self.steps_done
        if not cfg.validation_games or g % cfg.validation_interval or g in self.validated:
            return
        tally = play_pairs(executor, self.workers, best, reference, self.champion_openings(),
                           self.champion_job, cfg.validation_games)
        s = tally.stats
        estimate = s.pentanomial_elo() if sum(s.pairs) else s.elo()
        self.records.write(validation_line(g, reference_name, s, estimate))
        self.validated.add(g)
        self.say(f"validation after {step_name} {g}: best vs {reference_name} +{s.wins} ={s.draws} "
                 f"-{s.losses}, Elo {format_elo(estimate)}")

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        cfg = self.config
        return GameJob.between(white, black, start_fen=fen, round=self.steps_done, pool=-1,
                               seconds=cfg.game_time, search_mode=cfg.search,
                               increment=cfg.increment, chess960=cfg.chess960)

    def champion_openings(self) -> list[str | None]:
        if self.openings:
            return self.openings
        from genchess.files import package_file
        return start_positions(package_file("data", "openings.epd"))
