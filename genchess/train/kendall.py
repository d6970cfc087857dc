"""Kendall and Whitwell's evolution of material weights (method = kendall-whitwell).

A population vector of mu material genomes (genome/material.py). A generation is
mu - 1 matches: the i-th pits the player at position i against one drawn
uniformly from positions i+1..mu; a match is two fixed-depth games, one with each
colour. The loser, if any, is replaced by a clone of the winner, and both players
are mutated, V[y] += (U(0,1) - 0.5) * R * sigma[y], with sigma the population's
standard deviation of each weight at that moment and R from the outcome table
(times a scaling factor). The vector is reversed after each generation. The
average player is the population mean.

The operators below (`judge`, `select_opponent`, `population_sigma`, `mutate`,
`clone_and_replace`, `reverse`, `average_weights`, `apply_match`) are plain
functions, tested one by one; `KendallTrainer` is the loop that calls them.

Design trade-off, parallelism: the paper's matches are sequential (a loser is
replaced before later matches meet it) and sigma is taken "at that moment", so
each match's mutation depends on every match before it. But a game depends only
on its two players, and the opponents are drawn from positions alone, so the
generation's pairs are known in advance. A match may therefore start as soon as
every earlier match that involves one of its two positions has been applied;
outcomes are applied strictly in match order. Games are deterministic (fixed
depth, fresh hash table), and every random draw comes from a generator keyed by
(run, generation, match), so the result is exactly the sequential definition's
for a given seed, however many workers play. On two cores this keeps both busy
with the two games of one match and the games of later, independent matches.

Files (append-only, one write and a flush per record, resumable after kill -9):
  <population file>            every genome ever made (a clone or a mutant gets a
                               new ID), then after each generation `Still Alive: 0 :`
                               with the IDs in vector order (generation 0: the start)
  <population file>_games.txt  every game as PGN: Generation, Match, Game, FirstID,
                               SecondID, WhiteID, BlackID
  <population file>_average.genome  the average player of each generation (ID =
                               generation), rewritten whole (derived, not a record)
A killed run resumes from the last complete generation, reusing the recorded
games of the interrupted one and replaying its outcomes: nothing is played twice.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genchess.files import write_atomically
from genchess.game.pgn import pgn_text
from genchess.genome import Genome, MaterialGenome
from genchess.genome.genome_file import StillAlive
from genchess.genome.material import WEIGHT_NAMES
from genchess.parallel import executors
from genchess.parallel.worker import GameJob, GameResult, play_job
from genchess.strength.tally import POINTS, white_points
from genchess.train.config import DEPTH, GENERATIONS, CommonSettings, ConfigError, Key
from genchess.train.records import (AppendFile, move_aside, read_games_file, read_pool_file,
                                    set_aside)
from genchess.train.registry import Method
from genchess.train.scaffold import TIME_LIMIT, Run
from genchess_core.searcher import KENDALL_WHITWELL_FEATURES

KENDALL_KEYS = [
    Key("run file", "path", "the population file: genomes and per-generation populations are written here, "
        "games to <file>_games.txt, average players to <file>_average.genome; an existing "
        "file is resumed", "population_file"),
    Key("population", "int", "players in the population vector, mu", "population", 2),
    GENERATIONS,
    Key("sigma threshold", "float", "stop once every weight's standard deviation is below "
        "this (0: never)", "sigma_threshold", 0),
    DEPTH.with_help("fixed search depth of every move, 1 to 8 (the study used 2 "
                        "to 5)"),
    Key("quiescence cap", "float", "capture search ends at this many times the depth",
        "quiescence_cap", 1),
    Key("scaling factor", "float", "multiplies every R of the mutation table", "scaling", 0),
    Key("initial minimum weight", "float", "initial weights are drawn uniformly from the "
        "minimum to the maximum", "init_low"),
    Key("initial maximum weight", "float", "the top of that range", "init_high"),
    Key("centre control bonus", "float", "fixed bonus per centre square attacked", "centre_bonus"),
    Key("advanced pawn bonus", "float", "fixed bonus per advanced passed pawn",
        "advanced_pawn_bonus"),
]
MAX_DEPTH = 8

# Outcome of a match from the winner's side -> (R of the winner, R of the loser).
R_TABLE = {"two wins": (0.0, 2.0), "win and draw": (0.2, 1.0), "even": (0.5, 0.5)}
OUTCOMES = tuple(R_TABLE)


@dataclass
class KendallConfig(CommonSettings):
    path: str
    population_file: Path
    population: int = 50
    generations: int = 15
    sigma_threshold: float = 0.0
    depth: int = 3
    quiescence_cap: float = 3.0
    scaling: float = 1.0
    init_low: float = 0.0
    init_high: float = 12.0
    centre_bonus: float = 0.0
    advanced_pawn_bonus: float = 0.0
    method = "kendall-whitwell"

    @property
    def games_file(self) -> Path:
        return Path(str(self.population_file) + "_games.txt")

    @property
    def average_file(self) -> Path:
        return Path(str(self.population_file) + "_average.genome")


def check_kendall(path: Path, values: dict[str, object], lines: dict[str, int]) -> None:
    if "search" in values:
        raise ConfigError(f"{path}:{lines['search']}: search: kendall-whitwell players search "
                          f"a fixed depth (set 'depth'), not iterative or budget")
    depth = values.get("depth", KendallConfig.depth)
    if depth > MAX_DEPTH:
        raise ConfigError(f"{path}:{lines['depth']}: depth: at most {MAX_DEPTH}, not {depth}")
    low = values.get("initial minimum weight", KendallConfig.init_low)
    high = values.get("initial maximum weight", KendallConfig.init_high)
    if low > high:
        where = lines.get("initial minimum weight") or lines["initial maximum weight"]
        raise ConfigError(f"{path}:{where}: initial minimum weight {low:g} is above the "
                          f"initial maximum weight {high:g}")


def kendall_job(config: KendallConfig, white: Genome, black: Genome, fen: str | None,
                **where) -> GameJob:
    """A game as the study plays it: both players at the run's fixed depth, with the
    paper's search heuristics and quiescence cap (`where`: the game's round and pool)."""
    return GameJob.between(white, black, start_fen=fen, depth=config.depth,
                           features=KENDALL_WHITWELL_FEATURES,
                           quiescence_cap=config.quiescence_cap, chess960=config.chess960, **where)


# ------------------------------------------------------------------ operators

@dataclass(frozen=True)
class Verdict:
    outcome: str                    # a key of R_TABLE
    winner: int | None              # 0: the first player, 1: the second, None: even
    r: tuple[float, float]          # R of the first and the second player, scaled


def judge(first_points: float, scaling: float = 1.0) -> Verdict:
    """The R table: the first player's points over the two games (0 to 2) decide
    the winner and each player's mutation factor R, times the scaling factor."""
    if first_points not in (0.0, 0.5, 1.0, 1.5, 2.0):
        raise ValueError(f"a two-game match gives 0, 0.5, 1, 1.5 or 2 points, not {first_points}")
    if first_points == 1.0:
        r = R_TABLE["even"]
        return Verdict("even", None, (r[0] * scaling, r[1] * scaling))
    outcome = "two wins" if first_points in (0.0, 2.0) else "win and draw"
    r_winner, r_loser = (x * scaling for x in R_TABLE[outcome])
    if first_points > 1.0:
        return Verdict(outcome, 0, (r_winner, r_loser))
    return Verdict(outcome, 1, (r_loser, r_winner))


def select_opponent(rng: random.Random, i: int, mu: int) -> int:
    """The i-th match's second player: uniform over the positions after i (0-based)."""
    return rng.randint(i + 1, mu - 1)


def generation_pairs(run_key: str, generation: int, mu: int) -> list[tuple[int, int]]:
    """Every match of a generation as (first, second) positions; a generator per
    match, so the pairs never depend on outcomes or on the order games finish."""
    return [(i, select_opponent(match_rng(run_key, generation, i, "opponent"), i, mu))
            for i in range(mu - 1)]


def match_rng(run_key: str, generation: int, match: int, purpose: str) -> random.Random:
    return random.Random(f"{run_key}:{generation}:{match}:{purpose}")


def population_sigma(weights: np.ndarray) -> np.ndarray:
    """Standard deviation of each weight over the population (divisor mu)."""
    return weights.std(axis=0)


def mutate(vector: np.ndarray, r: float, sigma: np.ndarray, rng: random.Random) -> np.ndarray:
    """V[y] + (U(0,1) - 0.5) * R * sigma[y]: each weight moves by at most R*sigma/2."""
    u = np.array([rng.random() for _ in range(len(vector))])
    return vector + (u - 0.5) * r * sigma


def clone_and_replace(weights: np.ndarray, winner: int, loser: int) -> None:
    """The loser is expelled; a copy of the winner takes its position."""
    weights[loser] = weights[winner].copy()


def reverse(members: list) -> list:
    """The next generation's vector: this one backwards."""
    return members[::-1]


def average_weights(weights: np.ndarray) -> np.ndarray:
    """The average player: the population mean of each weight."""
    return weights.mean(axis=0)


def apply_match(weights: np.ndarray, i: int, j: int, first_points: float, scaling: float,
                rng: random.Random) -> Verdict:
    """One match's outcome on the population matrix, in place: clone over the
    loser, then sigma of the population as it now stands, then mutate i and j."""
    verdict = judge(first_points, scaling)
    if verdict.winner is not None:
        winner, loser = (i, j) if verdict.winner == 0 else (j, i)
        clone_and_replace(weights, winner, loser)
    sigma = population_sigma(weights)
    weights[i] = mutate(weights[i], verdict.r[0], sigma, rng)
    weights[j] = mutate(weights[j], verdict.r[1], sigma, rng)
    return verdict


def scaled_to_pawn(values: np.ndarray, pawn_mean: float) -> np.ndarray:
    """Weights (or their spreads) with the mean pawn weight as 100, as the study
    reports them. Once the mean pawn weight is no longer positive (a divergent run,
    e.g. scaling factor 2) that scale does not exist: dividing by it would flip the
    sign of every weight and make spreads negative. Such a generation is NaN, which
    the plots leave as a gap and the console prints as nan."""
    if pawn_mean <= 1e-9:
        return np.full(np.shape(values), np.nan)
    return values * (100.0 / pawn_mean)


# ------------------------------------------------------------------ the loop

@dataclass
class Match:
    index: int
    first: MaterialGenome
    second: MaterialGenome
    fen: str | None
    results: dict[int, str]         # game number (1: first has White, 2: second) -> result

    @property
    def complete(self) -> bool:
        return len(self.results) == 2

    def first_points(self) -> float:
        return white_points(self.results[1]) + 1.0 - white_points(self.results[2])

    def players(self, game: int) -> tuple[MaterialGenome, MaterialGenome]:
        return (self.first, self.second) if game == 1 else (self.second, self.first)


class KendallTrainer(Run):
    def __init__(self, config: KendallConfig, out=print, executor_factory=None, progress=True):
        super().__init__(config, out, executor_factory, progress)
        self.generation = 0                 # generations complete
        self.members: list[MaterialGenome] = []
        self.history: list[list[MaterialGenome]] = []    # the vector after each generation
        self.known_ids: set[int] = set()
        self.written: dict[int, MaterialGenome] = {}    # genomes in the file when resumed
        self._run_key: str | None = None
        self.recorded: dict[tuple[int, int], tuple[str, int, int]] = {}   # (match, game) -> ...

    @property
    def run_file(self) -> Path:
        return self.config.population_file

    # ------------------------------------------------------------ state

    @property
    def run_key(self) -> str:
        """Keys every random draw after the start: a digest of the initial population,
        so the files alone decide the run (a resumed run needs no seed)."""
        if self._run_key is None:
            text = "".join(g.to_text() for g in self.history[0])
            self._run_key = hashlib.sha256(text.encode()).hexdigest()[:16]
        return self._run_key

    def new_id(self, generation: int, match: int, slot: int) -> int:
        """IDs tell where a genome was born: deterministic, so a replayed match
        recreates exactly the genomes the killed run may already have written."""
        mu = self.config.population
        return mu + 2 * ((generation - 1) * (mu - 1) + match) + slot

    def open(self) -> None:
        cfg = self.config
        if cfg.population_file.exists() and cfg.population_file.stat().st_size > 0:
            if not self.never_started():
                self.resume()
                return
        rng = random.Random(f"{self.seed}:init")
        self.members = [MaterialGenome.random(rng, n, cfg.init_low, cfg.init_high,
                                              centre_bonus=cfg.centre_bonus,
                                              advanced_pawn_bonus=cfg.advanced_pawn_bonus)
                        for n in range(cfg.population)]
        self.history = [list(self.members)]
        self.known_ids = {g.id for g in self.members}
        self.population_out = AppendFile(cfg.population_file)
        self.games_out = AppendFile(cfg.games_file)
        # One write: a kill leaves the whole start or a fragment never_started() sets aside.
        self.population_out.write("".join(g.to_text() for g in self.members) + self.snapshot_text())
        self.write_averages()
        self.out(f"New Kendall-Whitwell population: {cfg.population} random material genomes "
                 f"in {cfg.population_file} (seed {self.seed}, weights {cfg.init_low:g} to "
                 f"{cfg.init_high:g}, depth {cfg.depth}, scaling factor {cfg.scaling:g})")

    def never_started(self) -> bool:
        cfg = self.config
        text = cfg.population_file.read_text(encoding="utf-8", errors="replace")
        if "Still Alive:" in text:
            return False
        aside = move_aside(cfg.population_file, text)
        if cfg.games_file.exists() and not cfg.games_file.stat().st_size:
            cfg.games_file.unlink()
        self.out(f"warning: {cfg.population_file} was stopped while writing its first population; "
                 f"moved it to {aside}, starting afresh")
        return True

    def resume(self) -> None:
        cfg = self.config
        state = read_pool_file(cfg.population_file, 1)
        games, games_torn = read_games_file(cfg.games_file)
        for torn in (state.torn, games_torn):
            if torn is not None:
                self.out(f"warning: {torn.describe()}")
                set_aside(torn)
        if not state.alive_history or state.pools_seen != 1 or \
                not all(isinstance(g, MaterialGenome) for g in state.genomes.values()):
            raise ConfigError(f"{cfg.population_file}: not a Kendall-Whitwell population file "
                              f"(material genomes and one 'Still Alive: 0' line per generation)")
        self.history = [[state.genomes[i] for i in snap[0]] for snap in state.alive_history]
        if len(self.history[-1]) != cfg.population:
            raise ConfigError(f"{cfg.population_file}: a population of {len(self.history[-1])} but "
                              f"the configuration says population = {cfg.population}")
        self.written = state.genomes
        self.known_ids = set(state.genomes)
        self.games_before = len(games)
        self.generation = len(self.history) - 1
        self.members = list(self.history[-1])
        for game in games:
            h = game.headers
            match, number = game.get_int("Match"), game.get_int("Game")
            if game.get_int("Generation") == self.generation + 1 and h.get("Result") in POINTS \
                    and match is not None and number in (1, 2):
                self.recorded[(match - 1, number)] = (h["Result"], game.get_int("WhiteID"),
                                                      game.get_int("BlackID"))
        self.population_out = AppendFile(cfg.population_file)
        self.games_out = AppendFile(cfg.games_file)
        self.write_averages()
        self.out(f"Resuming {cfg.population_file}: {self.generation} generations done, "
                 f"{len(games)} games, {len(self.recorded)} of them in generation {self.generation + 1}")

    def snapshot_text(self) -> str:
        return StillAlive(0, tuple(g.id for g in self.members)).to_text()

    def weights(self, members=None) -> np.ndarray:
        return np.array([g.weights for g in (members or self.members)], dtype=float)

    def write_averages(self) -> None:
        """Every generation's average player, rewritten whole through a rename."""
        cfg = self.config
        text = "".join(MaterialGenome(n, average_weights(self.weights(members)), cfg.centre_bonus,
                                      cfg.advanced_pawn_bonus).to_text()
                       for n, members in enumerate(self.history))
        write_atomically(cfg.average_file, text)

    # ------------------------------------------------------------ running

    def close(self) -> None:
        self.population_out.close()
        self.games_out.close()

    def finished(self) -> str | None:
        cfg = self.config
        if self.generation >= cfg.generations:
            return f"{cfg.generations} generations done"
        if cfg.sigma_threshold > 0 and np.all(population_sigma(self.weights()) < cfg.sigma_threshold):
            return f"every weight's standard deviation is below {cfg.sigma_threshold:g}"
        return None

    def step(self, executor, deadline) -> str | None:
        return None if self.play_generation(executor, deadline) else TIME_LIMIT

    def on_disk(self) -> str:
        return (f"Every finished game is in {self.config.games_file}; run the same command "
                f"to resume.")

    def report(self, wall: float) -> None:
        if self.games_this_run and wall > 0:
            self.out(f"{self.games_this_run} games in {wall:.0f} s "
                     f"({self.games_this_run / wall * 60:.1f} games per minute)")
        if self.finished() is None:
            self.out(f"Run the same command to go on from generation {self.generation + 1}.")
        average = average_weights(self.weights())
        self.out(f"Average player after generation {self.generation} (pawn = 100): "
                 + ", ".join(f"{name} {v:.0f}" for name, v in
                             zip(WEIGHT_NAMES, scaled_to_pawn(average, average[0]))))
        self.out(f"  play it: genchess --genome {self.config.average_file} "
                 f"(the last genome, ID {self.generation}, is this generation's)")

    # ------------------------------------------------------------ the champion

    def average_player(self, generation: int) -> MaterialGenome:
        cfg = self.config
        return MaterialGenome(generation, average_weights(self.weights(self.history[generation])),
                              cfg.centre_bonus, cfg.advanced_pawn_bonus)

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        """The paper's output, the average player: generation 0's first, then the latest."""
        if first:
            return self.average_player(0), "the average player of the initial population"
        return self.average_player(self.generation), f"the average player of generation {self.generation}"

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        return kendall_job(self.config, white, black, fen, round=self.generation, pool=-1)

    def champion_openings(self) -> list[str | None]:
        return self.openings or [None]

    def game_job(self, match: Match, game: int, generation: int) -> GameJob:
        white, black = match.players(game)
        return kendall_job(self.config, white, black, match.fen, round=generation, pool=match.index)

    def play_generation(self, executor, deadline) -> bool:
        """Play and apply one generation; False if the time limit cut it short."""
        cfg = self.config
        generation = self.generation + 1
        pairs = generation_pairs(self.run_key, generation, cfg.population)
        matches: dict[int, Match] = {}
        ready: list[tuple[Match, int]] = []
        running: dict[cf.Future, tuple[Match, int]] = {}
        applied = 0
        outcomes: Counter = Counter()
        results: Counter = Counter()
        start = time.monotonic()
        bar = self.progress_bar(f"generation {generation}", 2 * len(pairs))
        try:
            while True:
                # Outcomes strictly in match order: the sequential definition.
                while applied < len(pairs) and applied in matches and matches[applied].complete:
                    outcomes[self.apply(generation, pairs, matches[applied]).outcome] += 1
                    applied += 1
                if applied == len(pairs):
                    break
                stopping = deadline is not None and time.monotonic() >= deadline
                if not stopping:
                    self.start_free_matches(generation, pairs, applied, matches, ready, bar, results)
                    while ready and len(running) < cfg.workers:
                        match, game = ready.pop(0)
                        job = self.game_job(match, game, generation)
                        running[executor.submit(play_job, job)] = (match, game)
                if applied in matches and matches[applied].complete:
                    continue                    # completed by games recorded before a kill
                if not running:
                    break                       # stopping, with every running game recorded
                done, _ = executors.wait_first(running)
                for future in done:
                    match, game = running.pop(future)
                    self.record_game(generation, match, game, future.result())
                    results[match.results[game]] += 1
                    if bar is not None:
                        bar.update(1)
        finally:
            self.close_bar()
        if applied < len(pairs):
            return False
        self.end_generation(generation, outcomes, results, time.monotonic() - start)
        return True

    def start_free_matches(self, generation, pairs, applied, matches, ready, bar, results) -> None:
        """Start every match whose two positions no earlier unapplied match touches:
        its players are then final, whatever the earlier outcomes are."""
        blocked: set[int] = set()
        for k in range(applied, len(pairs)):
            i, j = pairs[k]
            if k not in matches and i not in blocked and j not in blocked:
                rng = match_rng(self.run_key, generation, k, "opening")
                fen = rng.choice(self.openings) if self.openings else None
                match = matches[k] = Match(k, self.members[i], self.members[j], fen, {})
                for game in (1, 2):
                    if (k, game) in self.recorded:
                        result, white_id, black_id = self.recorded.pop((k, game))
                        white, black = match.players(game)
                        if (white_id, black_id) != (white.id, black.id):
                            raise ConfigError(
                                f"{self.config.games_file}: generation {generation} match {k + 1} "
                                f"game {game} was played by {white_id} and {black_id}, but this "
                                f"run's players there are {white.id} and {black.id} (was the "
                                f"configuration changed?)")
                        match.results[game] = result
                        results[result] += 1
                        if bar is not None:
                            bar.update(1)
                    else:
                        ready.append((match, game))
            blocked.update((i, j))

    def record_game(self, generation: int, match: Match, game: int, result: GameResult) -> None:
        rec = result.record
        white, black = match.players(game)
        tags = {"Site": str(self.config.population_file), "Round": f"{generation}.{match.index + 1}",
                "Generation": str(generation), "Match": str(match.index + 1), "Game": str(game),
                "FirstID": str(match.first.id), "SecondID": str(match.second.id),
                "WhiteID": str(white.id), "BlackID": str(black.id),
                "Depth": str(self.config.depth), "Termination": rec.termination, "Reason": rec.reason}
        self.games_out.write(pgn_text(rec, event="GenChess Kendall-Whitwell", tags=tags))
        match.results[game] = rec.result
        self.games_this_run += 1

    def apply(self, generation: int, pairs, match: Match) -> Verdict:
        cfg = self.config
        i, j = pairs[match.index]
        weights = self.weights()
        rng = match_rng(self.run_key, generation, match.index, "mutation")
        verdict = apply_match(weights, i, j, match.first_points(), cfg.scaling, rng)
        loser = None if verdict.winner is None else (j if verdict.winner == 0 else i)
        new = []
        for slot, position in enumerate((i, j)):
            if verdict.r[slot] > 0 or position == loser:
                genome = MaterialGenome(self.new_id(generation, match.index, slot), weights[position],
                                        cfg.centre_bonus, cfg.advanced_pawn_bonus)
                self.members[position] = genome
                if genome.id not in self.known_ids:
                    new.append(genome)
                    self.known_ids.add(genome.id)
                elif self.written.get(genome.id, genome).weights != genome.weights:
                    # A replayed match recreates what the killed run wrote, bit for bit,
                    # unless the configuration (scaling factor, depth...) changed.
                    raise ConfigError(f"{cfg.population_file}: genome {genome.id} differs from "
                                      f"its replay: was the configuration changed?")
        if new:
            self.population_out.write("".join(g.to_text() for g in new))
        if not cfg.quiet:
            self.say(f"  match {match.index + 1}: {match.first.id} vs {match.second.id}: "
                     f"{match.results[1]}, {match.results[2]} -> {verdict.outcome}"
                     + ("" if loser is None else f", {self.members[loser].id} replaces "
                        f"{(match.second if verdict.winner == 0 else match.first).id}"))
        return verdict

    def end_generation(self, generation, outcomes, results, elapsed) -> None:
        self.members = reverse(self.members)
        self.population_out.write(self.snapshot_text())
        self.history.append(list(self.members))
        self.generation = generation
        self.write_averages()
        weights = self.weights()
        mean, sigma = average_weights(weights), population_sigma(weights)
        self.out(f"Generation {generation}/{self.config.generations}: "
                 + ", ".join(f"{name} {outcomes[name]}" for name in OUTCOMES)
                 + f"; games: white wins {results['1-0']}, black wins {results['0-1']}, "
                   f"draws {results['1/2-1/2']}; {elapsed:.1f} s")
        header = "".join(f"{name:>11}" for name in WEIGHT_NAMES)
        self.out(f"  {'pawn = 100':<10}{header}")
        for label, values in (("mean", mean), ("sd", sigma)):
            self.out(f"  {label:<10}" + "".join(f"{v:>11.1f}" for v in scaled_to_pawn(values, mean[0])))


METHOD = Method(
    name="kendall-whitwell",
    summary="a population of material weights evolves by two-game matches of fixed-depth players, "
            "the loser replaced by a clone of the winner, mutation scaled by the population's spread",
    plots="genchess.train.gene_pool_plots:plot_run",
    keys=KENDALL_KEYS, config=KendallConfig, trainer=KendallTrainer, check=check_kendall,
    files="<run file>, <run file>_games.txt and <run file>_average.genome "
          "(the average player of each generation; genchess --genome plays the last); "
          "genchess-kw-study CONFIG runs the mutation study")
