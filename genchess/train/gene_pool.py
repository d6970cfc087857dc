"""The gene pool (Genetic Chess, method = gene pool): rounds of games in parallel,
breeding, swaps, files, console.

Each round the players of every pool are paired at random and play one game with
a real clock; the two players then mate (pool.py) and the offspring replaces the
loser; every `pool swap interval` games each pool's best player is copied into the
next pool. Games are handed to the run's executor a few at a time (no more in
flight than there are workers) so that a pause, a stop or the time limit takes
effect after the games already running, and each result is written the moment it
arrives, once. Everything needed to resume lives in the two append-only files;
see records.py for how a killed run is picked up again.
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from genchess.game.pgn import pgn_text
from genchess.genome import Genome, GenomeError, parse_genome_text, read_genome_file
from genchess.genome.genes import PIECE_STEP
from genchess.genome.genome_file import StillAlive
from genchess.parallel import executors
from genchess.parallel.worker import GameJob, GameResult, play_job
from genchess.strength.tally import white_points
from genchess.train.config import CommonSettings, ConfigError, Key
from genchess.train.pool import Pools, game_time
from genchess.train.records import (AppendFile, is_pool_record_end, move_aside, read_games_file,
                                    read_pool_file, set_aside, split_complete)
from genchess.train.registry import Method
from genchess.train.scaffold import Run

WINNER_WORDS = {"1-0": "White", "0-1": "Black", "1/2-1/2": "Draw"}

GENE_POOL_KEYS = [
    Key("gene pool population", "int", "players in each pool (an even number)", "population", 2),
    Key("gene pool count", "int", "number of pools; every swap interval each pool's best "
        "player is copied into the next pool", "pool_count", 1),
    Key("pool swap interval", "int", "games between copying each pool's best player to the next pool",
        "swap_interval", 1),
    Key("minimum game time", "float", "seconds per side in the first round", "min_time", 0.01),
    Key("maximum game time", "float", "the most seconds per side a game gets", "max_time", 0.01),
    Key("game time added per round", "float", "seconds added to the game time after each round "
        "(each game's clock has no per-move increment)",
        "time_increment", 0),
    Key("oscillating time", "bool", "yes: rise to the maximum, then fall back to the minimum, "
        "and so on; no: rise to the maximum and stay there", "oscillating"),
    Key("run file", "path", "the gene pool file: genomes are written here, games to <file>_games.txt; an "
        "existing file is resumed", "pool_file"),
    Key("initial genomes", "file", "genome or gene pool file: the first population is copies of "
        "its genomes, each mutated, instead of random genomes", "initial_genomes"),
    Key("piece value mutation", "float", "how far a mutation moves one piece value, as a share of "
        "the mean piece value (the design's own program moves values near 1 to 9 by about 1)",
        "piece_step", 0.001, hi=10.0),
]


@dataclass
class GenePoolConfig(CommonSettings):
    path: str
    population: int
    pool_count: int
    swap_interval: int
    min_time: float
    max_time: float
    time_increment: float
    oscillating: bool
    pool_file: Path
    initial_genomes: Path | None = None
    piece_step: float = PIECE_STEP
    method = "gene pool"

    @property
    def games_file(self) -> Path:
        return Path(str(self.pool_file) + "_games.txt")



def check_gene_pool(path: Path, values: dict[str, object], lines: dict[str, int]) -> None:
    if values["gene pool population"] % 2:
        raise ConfigError(f"{path}:{lines['gene pool population']}: gene pool population must be "
                          f"even, so that every player has an opponent each round")
    if values["minimum game time"] > values["maximum game time"]:
        raise ConfigError(f"{path}:{lines['minimum game time']}: minimum game time is above the "
                          f"maximum game time (line {lines['maximum game time']})")


def job_key(job: GameJob) -> tuple[int, int, int, int]:
    """A game's identity: a pairing happens once per round and pool."""
    return job.round, job.pool, job.white_id, job.black_id


class PoolCounters:
    def __init__(self):
        self.results = Counter()

    def add(self, result: str):
        self.results[result] += 1

    @property
    def games(self):
        return sum(self.results.values())


class GenePoolTrainer(Run):
    def __init__(self, config: GenePoolConfig, out=print, executor_factory=None):
        super().__init__(config, out, executor_factory)
        self.pause_requested = False
        self.round = 0
        self.counters: list[PoolCounters] = []
        self.search_seconds = 0.0
        self.games_at_snapshot = 0

    @property
    def run_file(self) -> Path:
        return self.config.pool_file

    @property
    def games_played(self) -> int:
        return self.pools.games_played

    @property
    def workers(self) -> int:
        """A round has population / 2 games per pool at once at most: no more workers."""
        return max(1, min(self.config.workers, self.config.population // 2))

    # ------------------------------------------------------------ state

    def open(self) -> None:
        self.load_or_create()
        self.install_signals()

    def close(self) -> None:
        self.pool_out.close()
        self.games_out.close()

    def load_or_create(self) -> None:
        cfg = self.config
        if cfg.pool_file.exists() and cfg.pool_file.stat().st_size > 0:
            if self.never_started():
                return self.load_or_create()
            self.resume()
            return
        rng = random.Random(f"{self.seed}:init")
        self.pools = Pools.fresh(cfg.pool_count, cfg.population, rng, cfg.piece_step)
        if cfg.initial_genomes:
            try:
                seeds = read_genome_file(cfg.initial_genomes).genomes
            except GenomeError as e:
                raise ConfigError(f"initial genomes: {e}") from None
            self.pools.seed_from(seeds, rng)
        self.counters = [PoolCounters() for _ in range(cfg.pool_count)]
        self.pool_out = AppendFile(cfg.pool_file)
        self.games_out = AppendFile(cfg.games_file)
        for genome in self.pools.genomes.values():
            self.pool_out.write(genome.to_text())
        self.write_alive()
        founders = (f"mutated copies of {cfg.initial_genomes}" if cfg.initial_genomes
                    else "random genomes")
        self.out(f"New gene pool: {cfg.pool_count} pools of {cfg.population} {founders} "
                 f"in {cfg.pool_file} (seed {self.seed})")

    def never_started(self) -> bool:
        """A run killed while writing its first genomes, before any Still Alive line
        or game: set the fragment aside (nothing is deleted) and start afresh."""
        cfg = self.config
        text = cfg.pool_file.read_text(encoding="utf-8", errors="replace")
        if "Still Alive:" in text or (cfg.games_file.exists() and cfg.games_file.stat().st_size):
            return False
        try:
            # Only genomes (the last perhaps torn) qualify; anything else is not ours
            # to move: resume() then reports it and leaves it alone.
            good, _ = split_complete(cfg.pool_file, text, is_pool_record_end)
            parse_genome_text(good, str(cfg.pool_file))
        except GenomeError:
            return False
        aside = move_aside(cfg.pool_file, text)
        self.out(f"warning: {cfg.pool_file} holds genomes but no round was ever started "
                 f"(the run was stopped while creating them); moved them to {aside}, starting afresh")
        return True

    def resume(self) -> None:
        cfg = self.config
        state = read_pool_file(cfg.pool_file, cfg.pool_count)
        games, games_torn = read_games_file(cfg.games_file)
        for torn in (state.torn, games_torn):
            if torn is not None:
                self.out(f"warning: {torn.describe()}")
                set_aside(torn)
        if state.pools_seen and state.pools_seen != cfg.pool_count:
            raise ConfigError(f"{cfg.pool_file}: holds {state.pools_seen} pools but the "
                              f"configuration says gene pool count = {cfg.pool_count}")
        if not state.alive_history:
            raise ConfigError(f"{cfg.pool_file}: no complete set of 'Still Alive' lines for "
                              f"{cfg.pool_count} pools: not a gene pool file of this configuration "
                              f"(check gene pool count)")
        latest = state.alive_history[-1]
        if any(len(ids) != cfg.population for ids in latest.values()):
            raise ConfigError(f"{cfg.pool_file}: pools of {len(next(iter(latest.values())))} players "
                              f"but the configuration says gene pool population = {cfg.population}")
        members = [list(latest[p]) for p in range(cfg.pool_count)]
        self.pools = Pools(state.genomes, members, next_id=max(state.genomes) + 1,
                           piece_step=cfg.piece_step)
        for pool, ids in state.alive_history[0].items():
            for genome_id in ids:
                self.pools.stat(genome_id).birth_pool = pool
        self.counters = [PoolCounters() for _ in range(cfg.pool_count)]
        rounds_done = len(state.alive_history) - 1
        partial = []
        self.games_at_snapshot = 0
        for game in games:
            h = game.headers
            white, black, pool = h.get("WhiteID"), h.get("BlackID"), h.get("Pool")
            offspring, replaced = game.get_int("Offspring"), game.get_int("Replaced")
            if None in (white, black, pool, offspring, replaced) or h.get("Result") not in WINNER_WORDS:
                continue
            pool, white, black = int(pool), int(white), int(black)
            score = white_points(h["Result"])
            self.pools.stat(white).record(score)
            self.pools.stat(black).record(1 - score)
            self.pools.games_played += 1
            stats = self.pools.stat(offspring)
            stats.from_draw = score == 0.5
            stats.birth_pool = pool
            if 0 <= pool < cfg.pool_count:
                self.counters[pool].add(h["Result"])
            if (game.get_int("Round") or 0) > rounds_done:
                partial.append((pool, offspring, replaced))
            else:
                self.games_at_snapshot += 1
        # Games of a round cut short by a kill: their offspring replace the losers.
        for pool, offspring, replaced in partial:
            if replaced in self.pools.members[pool] and offspring in self.pools.genomes:
                self.pools.members[pool][self.pools.members[pool].index(replaced)] = offspring
        self.pool_out = AppendFile(cfg.pool_file)
        self.games_out = AppendFile(cfg.games_file)
        self.round = rounds_done
        if partial:
            self.round += 1
            for source, target, best, replaced in self.close_round():   # the interrupted round
                self.out(f"Pool swap: {best} copied from pool {source} into pool {target}, "
                         f"replacing {replaced}")
        self.out(f"Resuming {cfg.pool_file}: round {self.round}, {self.pools.games_played} games, "
                 f"{len(self.pools.genomes)} genomes, next ID {self.pools.next_id}")

    def write_alive(self) -> None:
        # One write for all pools, so a kill leaves a whole snapshot or a torn one.
        self.pool_out.write("".join(StillAlive(pool, tuple(ids)).to_text()
                                    for pool, ids in enumerate(self.pools.members)))
        self.games_at_snapshot = self.pools.games_played

    def close_round(self) -> list[tuple[int, int, int, int]]:
        """Pool swaps if a swap interval was crossed this round, then the snapshot."""
        cfg = self.config
        swaps = []
        if cfg.pool_count > 1 and \
                self.pools.games_played // cfg.swap_interval > self.games_at_snapshot // cfg.swap_interval:
            swaps = self.pools.swap()
        self.write_alive()
        return swaps

    # ------------------------------------------------------------ running

    def install_signals(self) -> None:
        if hasattr(signal, "SIGTSTP"):
            signal.signal(signal.SIGTSTP, self.on_pause)

    def on_pause(self, signum, frame) -> None:
        self.pause_requested = True
        self.out("Pausing after the games in progress (Ctrl-C stops at once)...")

    def step(self, executor, deadline) -> None:
        self.round += 1
        self.play_round(executor, deadline)

    def report(self, wall: float) -> None:
        if wall > 0 and self.games_this_run:
            share = self.search_seconds / (wall * self.workers)
            self.out(f"{self.games_this_run} games in {wall:.0f} s "
                     f"({self.games_this_run / wall * 60:.1f} games per minute); "
                     f"workers spent {share:.0%} of their time searching")

    # ------------------------------------------------------------ the champion

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        """The living genome with the most wins (then most games, then the lowest
        ID); first: the initial population's best by the same rule."""
        cfg = self.config

        def rank(i):
            return (-self.pools.stat(i).wins, -self.pools.stat(i).games, i)
        if first:
            initial = [i for i in self.pools.genomes if i < cfg.pool_count * cfg.population]
            return self.pools.genomes[min(initial, key=rank)], "best of the initial population"
        best = min((i for ids in self.pools.members for i in ids), key=rank)
        return self.pools.genomes[best], "most wins among the living"

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        cfg = self.config
        seconds = game_time(self.round - 1, cfg.min_time, cfg.max_time, cfg.time_increment,
                            cfg.oscillating)
        return GameJob.between(white, black, start_fen=fen, round=self.round, pool=-1,
                               seconds=seconds, search_mode=cfg.search, chess960=cfg.chess960)

    def champion_openings(self) -> list[str | None]:
        return self.openings or [None]

    def on_disk(self) -> str:
        played = self.pools.games_played if hasattr(self, "pools") else 0
        return (f"{played} games are safely in {self.config.games_file}; "
                f"run the same command to resume.")

    def jobs_for_round(self) -> list[GameJob]:
        cfg = self.config
        rng = random.Random(f"{self.seed}:round:{self.round}")
        seconds = game_time(self.round - 1, cfg.min_time, cfg.max_time, cfg.time_increment,
                            cfg.oscillating)
        jobs = []
        for pool in range(cfg.pool_count):
            for white, black in self.pools.pairings(pool, rng):
                fen = rng.choice(self.openings) if self.openings else None
                jobs.append(GameJob.between(self.pools.genomes[white], self.pools.genomes[black],
                                            start_fen=fen, round=self.round, pool=pool,
                                            seconds=seconds, search_mode=cfg.search,
                                            chess960=cfg.chess960))
        return jobs

    def play_round(self, executor, deadline) -> None:
        cfg = self.config
        round_start = time.monotonic()
        jobs = self.jobs_for_round()
        seconds = jobs[0].seconds if jobs else cfg.min_time
        lines: dict[int, list[str]] = {p: [] for p in range(cfg.pool_count)}
        matings: dict[int, list[str]] = {p: [] for p in range(cfg.pool_count)}

        def may_submit():
            stopping = deadline and time.monotonic() >= deadline
            return not (self.pause_requested or stopping)

        def on_idle():
            if self.pause_requested:
                self.pause()
                return True
            return False                        # stopping: the rest of the round is not played

        for result in executors.completed(executor, play_job, jobs, self.workers,
                                          may_submit=may_submit, on_idle=on_idle, key=job_key):
            self.record(result, lines, matings)
        self.end_round(seconds, time.monotonic() - round_start, lines, matings)

    def pause(self) -> None:
        self.out("Paused: every finished game is on disk. Type fg to continue.")
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSTOP)
        self.pause_requested = False
        self.out("Continuing.")

    def record(self, result: GameResult, lines, matings) -> None:
        job, rec = result.job, result.record
        score = white_points(rec.result)
        rng = random.Random(f"{self.seed}:mate:{job.round}:{job.pool}:{job.white_id}:{job.black_id}")
        child, loser = self.pools.breed(job.pool, job.white_id, job.black_id, score, rng)
        # Offspring first, then the game: a recorded game always finds its offspring.
        self.pool_out.write(child.to_text())
        # Termination keeps our own words (the plots and resume read them).
        tags = {
            "Site": str(self.config.pool_file), "Round": str(job.round),
            "Pool": str(job.pool), "WhiteID": str(job.white_id), "BlackID": str(job.black_id),
            "Termination": rec.termination, "Reason": rec.reason,
            "Offspring": str(child.id), "Replaced": str(loser),
        }
        self.games_out.write(pgn_text(rec, event="GenChess gene pool", tags=tags))
        self.pools.replace(job.pool, loser, child, from_draw=score == 0.5)
        if self.champion is not None:
            self.champion.note_birth(child.id, (job.white_id, job.black_id), job.round)
        self.counters[job.pool].add(rec.result)
        self.search_seconds += result.search_seconds
        self.games_this_run += 1
        line = f"{job.white_id} vs {job.black_id}: {WINNER_WORDS[rec.result]} ({rec.reason})"
        lines[job.pool].append(line)
        matings[job.pool].append(f"{job.white_id} x {job.black_id} -> {child.id} replaces {loser}")
        if not self.config.quiet:
            self.out(f"  pool {job.pool}: {line}")

    def end_round(self, seconds, elapsed, lines, matings) -> None:
        cfg = self.config
        swaps = self.close_round()
        for pool in range(cfg.pool_count):
            self.print_pool(pool, seconds, elapsed, lines[pool], matings[pool])
        for source, target, best, replaced in swaps:
            self.out(f"Pool swap: {best} (most wins in pool {source}) copied into pool {target}, "
                     f"replacing {replaced}")

    def print_pool(self, pool, seconds, elapsed, lines, matings) -> None:
        c = self.counters[pool]
        members = self.pools.members[pool]
        self.out("")
        self.out(f"Gene pool ID: {pool}  Gene pool size: {len(members)}  Round: {self.round}  "
                 f"Games: {c.games}  White wins: {c.results['1-0']}  Black wins: {c.results['0-1']}  "
                 f"Draws: {c.results['1/2-1/2']}  Game time: {seconds:.2f} s  "
                 f"Round time: {elapsed:.1f} s  File: {self.config.pool_file}")
        if self.config.quiet:
            return
        for line in lines:
            self.out(f"  {line}")
        for line in matings:
            self.out(f"  Mating {line}")
        self.out(f"  {'ID':>8}   {'Wins':>5} {'Streak':>6} {'Draws':>6} {'Streak':>6}")
        for genome_id in sorted(members):
            s = self.pools.stat(genome_id)
            mark = ("*" if s.from_draw else " ") + ("T" if self.pools.is_transferred(pool, genome_id) else " ")
            self.out(f"  {genome_id:>8}{mark} {s.wins:>5} {s.win_streak:>6} {s.draws:>6} {s.draw_streak:>6}")
        most = max(members, key=lambda i: (self.pools.stat(i).wins, -i))
        longest = max(members, key=lambda i: (self.pools.stat(i).games, -i))
        self.out(f"  Most wins: {self.pools.stat(most).wins} by ID {most}   "
                 f"Longest lived: {self.pools.stat(longest).games} by ID {longest}")


METHOD = Method(
    name="gene pool",
    summary="players are paired at random each round, every game's two players mate, and the "
            "offspring replaces the loser",
    plots="genchess.train.gene_pool_plots:plot_run",
    keys=GENE_POOL_KEYS, config=GenePoolConfig, trainer=GenePoolTrainer, check=check_gene_pool,
    files="<run file>, every genome ever created plus 'Still Alive' lines after each round "
          "(genchess --genome FILE plays the smallest living ID); <run file>_games.txt, "
          "every game as PGN")
