"""Multi-niche crowding (Phoenix): evolving PVT chromosomes in one population.

Each generation, as in Aralikatte and Srinivasaraghavan's Phoenix:

    play a round robin; fitness = points per game (1 win, 0.5 draw, 0 loss)
        (with `positions = FILE`: no games; fitness = minus the Texel loss of the
        member's evaluation on that labelled set, genchess/fitness)
    for each individual A (in order, or in random order: a setting):
        M = the most similar to A of C_s individuals drawn with replacement
        child = mutate(crossover(A, M))
        draw C_f groups of s individuals; from each take the most similar to child;
        the least fit of those C_f dies and child takes its place
    stop after `generations`, or when the best chromosome stays the same
    for `unchanged generations`, or changes by less than `small change` (1%)
    for `small change generations` in a row

Choices the paper leaves open, and why:

- Similarity is phenotypic: the mean absolute difference, in centipawns, of the
  two players' static evaluations over the fixed positions of
  genchess/data/similarity.epd (openings, middle games and end games). It
  measures how differently two players judge positions, which is what makes
  them play differently; two chromosomes that differ only on squares a piece
  never stands on in those positions (a pawn on rank 1) count as the same, where
  a Hamming or Euclidean distance on the 640 numbers would call them far apart.
  A continuous distance is used rather than "how often the first-ranked move
  differs", because random tables disagree on almost every move, which would
  make every pair equally distant and the crowding blind.
- Fitness is points per game played, not the raw points, because with an odd
  population the round robin's byes give players different numbers of games.
- Crossover is table-wise uniform: each of the ten tables comes whole from
  either parent (with probability `crossover rate`, else the child copies A),
  so a table stays a coherent picture of where a piece belongs. Mutation adds a
  Gaussian step (`mutation size` centipawns) to `mutation squares` random
  squares, clamped to +-TABLE_LIMIT.
- The random first population has every table value uniform in [-50, 50]
  centipawns: the span of the textbook tables (a knight in the corner -50, a
  pawn on the seventh +50), large enough to matter, small enough never to
  outweigh a pawn of material, so random players do not give pieces away.
- A child's fitness, needed only if a later child of the same generation might
  replace it, is its parents' mean until the next round robin measures it.
- Niches are the clusters of the population under the similarity: two players
  closer than `niche radius` centipawns are in one niche (single linkage).
- The paper evolved its tables inside CuckooChess's whole evaluation. `host genome
  = FILE` (a unified genome) does the same here: each chromosome plays, and is
  judged similar, as the host with its twelve tables replaced by the chromosome's
  (the rook's and the queen's end-game tables are their middle-game ones) and every
  other number the host's. Without it a chromosome plays alone, as a PVT genome
  (material and tables only). The database keeps the host, so a chromosome loaded
  from it plays inside it.

Operators are plain functions, apart from the loop (`MncTrainer`), so each can be
tested alone and the loop reads like the pseudocode above. Games run in parallel
through a standard `concurrent.futures.Executor` (worker.py's game job), and the
chromosome database (chromosome_db.py) gets one transaction per
generation, so a killed run resumes from its last complete generation.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from genchess.files import package_file
from genchess.genome import Genome, GenomeError, UnifiedGenome, load_genome
from genchess.genome.pvt import N_VALUES, STANDARD_MATERIAL, TABLES, PvtGenome
from genchess.parallel.worker import GameJob
from genchess.strength.games import play_all
from genchess.strength.tally import white_points
from genchess.train.chromosome_db import (ChromosomeDB, DatabaseError, Evaluation,
                                          GenerationSummary, is_sqlite_file)
from genchess.train.config import (DEPTH, GAME_INCREMENT, GAME_TIME, GENERATIONS, POSITION_KEYS,
                                   CommonSettings, ConfigError, Key, PositionSettings, check_labels)
from genchess.train.registry import Method
from genchess.train.scaffold import Run

SIMILARITY_POSITIONS = package_file("data", "similarity.epd")
RANDOM_RANGE = (-50, 50)        # centipawns, the first population's table values
TABLE_LIMIT = 300               # centipawns, the most a mutation may push a value
MATERIAL_STEP = 0.05            # evolve material: a mutated value moves by this share at most
CHAMPION_OPENINGS = 100         # book lines drawn once for the champion's game pairs

MNC_KEYS = [
    Key("run file", "path", "the chromosome database: SQLite file of every chromosome (created, or resumed "
        "from its last complete generation)", "database"),
    Key("population", "int", "individuals", "population", 2),
    Key("games per player", "int", "round-robin games each player plays at least, per "
        "generation (population - 1 or more: a full round robin)", "games_per_player", 1),
    Key("selection size", "int", "C_s: individuals drawn to find A's most similar mate",
        "selection_size", 1),
    Key("replacement groups", "int", "C_f: groups drawn for replacement", "replacement_groups", 1),
    Key("replacement group size", "int", "s: individuals per replacement group",
        "replacement_group_size", 1),
    Key("random mating order", "bool", "yes: each generation's individuals mate in random order; "
        "no: in population order", "random_order"),
    Key("crossover rate", "float", "chance a child mixes its parents' tables", "crossover_rate", 0),
    Key("mutation squares", "int", "squares a child's mutation changes", "mutation_squares", 0),
    Key("mutation size", "float", "standard deviation of a mutation, centipawns", "mutation_size", 0),
    Key("evolve material", "bool", "yes: the five material values evolve too; no: standard values",
        "evolve_material"),
    Key("host genome", "file", "a unified genome whose evaluation plays each chromosome's tables "
        "in place of its own, every other number kept (default: none; the chromosomes play as "
        "PVT genomes)", "host_genome"),
    GENERATIONS,
    Key("unchanged generations", "int", "stop when the best chromosome is the same for this many "
        "generations", "unchanged_generations", 1),
    Key("small change", "float", "a change of the best chromosome below this share counts as "
        "small", "small_change", 0),
    Key("small change generations", "int", "stop after this many small changes in a row",
        "small_change_generations", 1),
    Key("niche radius", "float", "players closer than this (centipawns) share a niche",
        "niche_radius", 0),
    GAME_TIME,
    GAME_INCREMENT,
    DEPTH,
    Key("book file", "path", "Polyglot book to draw start positions from (instead of an "
        "opening file)", "book_file"),
    Key("book plies", "int", "half moves followed in the book", "book_plies", 1),
    *POSITION_KEYS,     # with positions = FILE: fitness is minus the Texel loss, no games
]


@dataclass
class MncConfig(PositionSettings, CommonSettings):
    path: str
    database: Path
    population: int = 20
    games_per_player: int = 3
    selection_size: int = 3
    replacement_groups: int = 3
    replacement_group_size: int = 3
    random_order: bool = False
    crossover_rate: float = 0.9
    mutation_squares: int = 4
    mutation_size: float = 15.0
    evolve_material: bool = False
    host_genome: Path | None = None
    generations: int = 1000
    unchanged_generations: int = 10
    small_change: float = 0.01
    small_change_generations: int = 20
    niche_radius: float = 50.0
    game_time: float = 2.0
    increment: float = 0.0
    depth: int | None = None
    book_file: Path | None = None
    book_plies: int = 8
    method = "multi-niche crowding"


def check_mnc(path: Path, values: dict[str, object], lines: dict[str, int]) -> None:
    check_labels(path, values, lines)
    if "host genome" in values:
        read_host(path, values["host genome"], lines["host genome"])
        for key, why in (("evolve material", "the host's material stays"),
                         ("positions", "a hosted chromosome is judged by games")):
            if values.get(key):
                raise ConfigError(f"{path}:{lines[key]}: {key}: not with a host genome "
                                  f"(line {lines['host genome']}): {why}")
    for key in ("crossover rate", "small change"):
        if key in values and values[key] > 1:
            raise ConfigError(f"{path}:{lines[key]}: {key}: must be at most 1, not {values[key]:g}")
    if "book file" in values:
        if "opening file" in values:
            raise ConfigError(f"{path}:{lines['book file']}: give a book file or an opening file, "
                              f"not both (opening file at line {lines['opening file']})")
        if values.get("variant") == "chess960":
            raise ConfigError(f"{path}:{lines['book file']}: a book's lines start from the standard "
                              f"position: no book with variant = chess960 (line {lines['variant']})")
        from genchess.book import Book, BookError
        try:
            Book(values["book file"]).close()
        except BookError as e:
            raise ConfigError(f"{path}:{lines['book file']}: {e}") from None


def read_host(path: Path, host: Path, line: int | None = None) -> UnifiedGenome:
    """The host genome a configuration names (at `line`): a unified genome, or a ConfigError."""
    where = f"{path}:{line}" if line else str(path)
    try:
        genome = load_genome(host)
    except GenomeError as e:
        raise ConfigError(f"{where}: host genome: {e}") from None
    if not isinstance(genome, UnifiedGenome):
        raise ConfigError(f"{where}: host genome: {host} is a {genome.KIND} genome; only a "
                          f"unified genome has piece-square tables to host a chromosome's")
    return genome


# ------------------------------------------------------------------ operators

def round_robin_pairs(n: int, games_per_player: int) -> list[tuple[int, int]]:
    """(white, black) index pairs: rounds of the circle method until every player
    has at least `games_per_player` games (a full round robin, then again with
    colours swapped, if more are asked for). With an odd n one player sits out
    each round."""
    players = list(range(n)) + ([-1] if n % 2 else [])
    m = len(players)
    rounds = []
    for r in range(m - 1):
        pairs = []
        for k in range(m // 2):
            a, b = players[k], players[m - 1 - k]
            if a >= 0 and b >= 0:
                pairs.append((a, b) if (r + k) % 2 == 0 else (b, a))
        rounds.append(pairs)
        players = [players[0]] + [players[-1]] + players[1:-1]
    games = [0] * n
    schedule: list[tuple[int, int]] = []
    cycle = 0
    while min(games) < games_per_player:
        for pairs in rounds:
            if min(games) >= games_per_player:
                break
            for white, black in pairs:
                schedule.append((white, black) if cycle % 2 == 0 else (black, white))
                games[white] += 1
                games[black] += 1
        cycle += 1
    return schedule


def round_robin_fitness(n: int, results: Sequence[tuple[int, int, str]]) -> tuple[list[float], list[int]]:
    """Fitness (points per game: 1 win, 0.5 draw, 0 loss) and games of each player,
    from (white, black, result) triples."""
    points = [0.0] * n
    games = [0] * n
    for white, black, result in results:
        points[white] += white_points(result)
        points[black] += 1.0 - white_points(result)
        games[white] += 1
        games[black] += 1
    return [p / g if g else 0.0 for p, g in zip(points, games)], games


def similarity_boards(path: Path = SIMILARITY_POSITIONS) -> list:
    from genchess_core import Board
    return [Board(line.split(";")[0].strip()) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def behaviour(genome: Genome, boards: list) -> np.ndarray:
    """A player's behaviour: its static evaluations of the fixed positions, in
    centipawns from White's side (the same positions for every player)."""
    from genchess_core.evaluate import evaluate_boards
    raw = np.array(evaluate_boards(boards, genome.pack()), dtype=float) / 10.0
    sides = np.array([1.0 if b.turn == "w" else -1.0 for b in boards])
    return raw * sides


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Phenotypic distance: mean absolute evaluation difference, centipawns (0: same play)."""
    return float(np.mean(np.abs(a - b)))


def crowding_selection(a: int, behaviours: Sequence[np.ndarray], c_s: int, rng: random.Random) -> int:
    """A's mate: the most similar to A of c_s others drawn at random with replacement."""
    others = [i for i in range(len(behaviours)) if i != a]
    drawn = [rng.choice(others) for _ in range(c_s)]
    return min(drawn, key=lambda i: distance(behaviours[a], behaviours[i]))


def crossover(a: PvtGenome, b: PvtGenome, rng: random.Random, rate: float,
              evolve_material: bool = False) -> tuple[list[int], list[int]]:
    """Table-wise uniform crossover: each table whole from a or b (with probability
    `rate`; otherwise the child copies a). Material likewise, value by value."""
    values, material = list(a.values), list(a.material)
    if rng.random() < rate:
        for t in range(len(TABLES)):
            if rng.random() < 0.5:
                values[t * 64:(t + 1) * 64] = b.values[t * 64:(t + 1) * 64]
        if evolve_material:
            material = [x if rng.random() < 0.5 else y for x, y in zip(a.material, b.material)]
    return values, material


def mutate(values: list[int], material: list[int], rng: random.Random, squares: int, size: float,
           evolve_material: bool = False) -> tuple[list[int], list[int]]:
    """Add a Gaussian step of `size` centipawns to `squares` random table values
    (clamped to +-TABLE_LIMIT); with evolve_material, also move one material value
    by up to MATERIAL_STEP of itself."""
    values = list(values)
    for _ in range(squares):
        i = rng.randrange(N_VALUES)
        values[i] = max(-TABLE_LIMIT, min(TABLE_LIMIT, round(values[i] + rng.gauss(0.0, size))))
    material = list(material)
    if evolve_material:
        k = rng.randrange(len(material))
        material[k] = max(1, round(material[k] * (1 + rng.uniform(-MATERIAL_STEP, MATERIAL_STEP))))
    return values, material


def replacement(child: np.ndarray, behaviours: Sequence[np.ndarray], fitness: Sequence[float],
                c_f: int, s: int, rng: random.Random) -> int:
    """Worst among the most similar: from each of c_f groups of s individuals drawn
    at random take the one most similar to the child; the least fit of those dies."""
    n = len(behaviours)
    candidates = []
    for _ in range(c_f):
        group = [rng.randrange(n) for _ in range(s)]
        candidates.append(min(group, key=lambda i: distance(child, behaviours[i])))
    return min(candidates, key=lambda i: fitness[i])


def niches(behaviours: Sequence[np.ndarray], radius: float) -> list[int]:
    """Niche label of each individual: connected groups of players closer than radius."""
    n = len(behaviours)
    labels = list(range(n))

    def root(i):
        while labels[i] != i:
            labels[i] = labels[labels[i]]
            i = labels[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if distance(behaviours[i], behaviours[j]) < radius:
                labels[root(i)] = root(j)
    roots = [root(i) for i in range(n)]
    order = {r: k for k, r in enumerate(dict.fromkeys(roots))}
    return [order[r] for r in roots]


def relative_change(old: Sequence[int], new: Sequence[int]) -> float:
    """How much the best chromosome changed: sum |new - old| / sum |old|."""
    return sum(abs(x - y) for x, y in zip(old, new)) / max(1, sum(abs(x) for x in old))


def stop_reason(best_ids: Sequence[int], best_values: Sequence[Sequence[int]], cfg: MncConfig) -> str | None:
    """Why to stop after the generations so far (one entry per generation), or None."""
    g = len(best_ids)
    if g >= cfg.generations:
        return f"reached the maximum of {cfg.generations} generations"
    n = cfg.unchanged_generations
    if g >= n and len(set(best_ids[-n:])) == 1:
        return f"the best chromosome ({best_ids[-1]}) was the same for {n} generations"
    n = cfg.small_change_generations
    if g > n and all(relative_change(best_values[k - 1], best_values[k]) < cfg.small_change
                     for k in range(g - n, g)):
        return (f"the best chromosome changed by less than {cfg.small_change:.0%} "
                f"for {n} generations")
    return None


# ------------------------------------------------------------------ the loop

def say(line: str) -> None:
    # Flushed: a run's console is often a log file someone is tailing.
    print(line, flush=True)


class MncTrainer(Run):
    def __init__(self, config: MncConfig, out=say, executor_factory=None, progress=True):
        super().__init__(config, out, executor_factory, progress)
        self.boards = similarity_boards()
        self.book = None
        if config.book_file:
            from genchess.book import Book
            self.book = Book(config.book_file)
        self.host = None if config.host_genome is None else read_host(config.path, config.host_genome)
        self.labels = None
        if config.positions is not None:
            from genchess.fitness.scoring import fitted_labels
            from genchess.position_sets.position_set import load_positions
            try:
                self.labels = fitted_labels(config.positions, load_positions(config.positions),
                                            config.labels, config.wdl)
            except ValueError as e:
                raise ConfigError(f"{config.path}: labels: {e} ({config.positions})") from None

    @property
    def run_file(self) -> Path:
        return self.config.database

    # ------------------------------------------------------------ state

    def open(self) -> None:
        cfg = self.config
        fresh = not (cfg.database.exists() and cfg.database.stat().st_size > 0)
        self.db = ChromosomeDB(cfg.database, create=fresh, write=True)
        meta = self.db.meta()
        if not fresh and meta.get("method") not in (None, "multi-niche crowding"):
            raise DatabaseError(f"{cfg.database}: a {meta['method']} database, not multi-niche crowding")
        last = self.db.last_complete_generation()
        members = self.db.members(0 if last is None else last + 1)
        if not members:
            self.seed = cfg.seed if cfg.seed is not None else random.SystemRandom().randrange(2**32)
            rng = random.Random(f"{self.seed}:init")
            material = STANDARD_MATERIAL
            genomes = [PvtGenome.random(rng, i + 1, *RANDOM_RANGE, material) for i in range(cfg.population)]
            meta = {"method": "multi-niche crowding", "seed": self.seed, "population": cfg.population}
            if self.host is not None:
                meta["host"] = self.host.to_text()
            self.db.set_meta(meta)
            self.db.write_first_population(genomes)
            self.generation = 0
            self.population = genomes
            inside = "" if self.host is None else f", playing inside {cfg.host_genome}'s evaluation"
            self.out(f"New population: {cfg.population} random PVT chromosomes in {cfg.database} "
                     f"(seed {self.seed}{inside})")
        else:
            if meta.get("host") != (None if self.host is None else self.host.to_text()):
                had = "no host genome" if meta.get("host") is None else "another host genome"
                asked = (f"host genome = {cfg.host_genome}" if self.host is not None
                         else "no host genome")
                raise DatabaseError(f"{cfg.database}: its chromosomes evolved with {had}, not with "
                                    f"{asked}: give the run's own host, or a new database")
            if len(members) != cfg.population:
                raise DatabaseError(f"{cfg.database}: holds a population of {len(members)} but the "
                                    f"configuration says population = {cfg.population}")
            self.seed = int(meta.get("seed", 0))
            self.generation = 0 if last is None else last + 1
            self.population = [self.db.chromosome(i) for i in members]
            self.out(f"Resuming {cfg.database} at generation {self.generation} "
                     f"(generations 0-{self.generation - 1} complete)" if last is not None else
                     f"Resuming {cfg.database} at generation 0")
        history = self.db.history()
        self.games_before = sum(h.games for h in history)
        self.best_ids = [h.best for h in history]
        self.best_values = [self.db.chromosome(i).values for i in self.best_ids]
        self.next_id = self.db.next_id()

    def player(self, chromosome: PvtGenome) -> Genome:
        """What a chromosome plays, and is judged similar, as."""
        return chromosome if self.host is None else self.host.hosting(chromosome)

    # ------------------------------------------------------------ one generation

    def start_position(self, rng: random.Random) -> str | None:
        if self.book is not None:
            return self.book.random_line(rng, self.config.book_plies)
        if self.openings:
            return rng.choice(self.openings)
        return None

    def play_round_robin(self, executor, rng: random.Random) -> tuple[list[float], list[int]]:
        cfg = self.config
        pop = self.population
        pairs = round_robin_pairs(len(pop), cfg.games_per_player)
        jobs = [self.job(self.player(pop[w]), self.player(pop[b]), self.start_position(rng), pool=0)
                for w, b in pairs]
        bar = self.progress_bar(f"generation {self.generation}", len(jobs)) if not cfg.quiet else None
        try:
            played = play_all(executor, jobs,
                              on_game=None if bar is None else lambda n, result: bar.update(1))
        finally:
            self.close_bar()
        return round_robin_fitness(len(pop), [(w, b, result.record.result)
                                              for (w, b), result in zip(pairs, played)])

    def score_on_positions(self, executor) -> list[float]:
        """fitness = positions: minus each member's Texel loss on the set (the niching,
        mating and replacement are the same)."""
        from genchess.fitness.scoring import ScoreJob, score_population
        cfg, template = self.config, self.population[0]
        vectors = np.array([g.numbers() for g in self.population])
        job = ScoreJob(str(cfg.positions), self.labels, cfg.held_out, template.to_text(), vectors,
                       ("train",))
        return [-float(loss) for loss in score_population(executor, self.workers, job)["train"]]

    def breed(self, fitness: list[float], behaviours: list[np.ndarray], rng: random.Random):
        """Mate every individual, place each child: the generation's MNC step. A
        slot whose individual a child replaced earlier in the loop mates as that
        child (the population changes as the loop goes, as in steady-state MNC)."""
        cfg = self.config
        pop = list(self.population)
        fit = list(fitness)
        behaviours = list(behaviours)
        order = list(range(len(pop)))
        if cfg.random_order:
            rng.shuffle(order)
        offspring = []
        for a in order:
            m = crowding_selection(a, behaviours, cfg.selection_size, rng)
            values, material = crossover(pop[a], pop[m], rng, cfg.crossover_rate, cfg.evolve_material)
            values, material = mutate(values, material, rng, cfg.mutation_squares, cfg.mutation_size,
                                      cfg.evolve_material)
            child = PvtGenome(self.next_id, values, material)
            self.next_id += 1
            child_behaviour = behaviour(self.player(child), self.boards)
            dead = replacement(child_behaviour, behaviours, fit, cfg.replacement_groups,
                               cfg.replacement_group_size, rng)
            offspring.append((child, (pop[a].id, pop[m].id)))
            pop[dead], behaviours[dead] = child, child_behaviour
            fit[dead] = (fit[a] + fit[m]) / 2
        return pop, offspring

    def step(self, executor, deadline) -> str | None:
        """One generation: its round robin runs whole (the database keeps whole
        generations), so the time limit is looked at between generations."""
        cfg = self.config
        start = time.monotonic()
        rng = random.Random(f"{self.seed}:{self.generation}")
        if cfg.positions is None:
            fitness, games = self.play_round_robin(executor, rng)
        else:
            fitness, games = self.score_on_positions(executor), [0] * len(self.population)
        behaviours = [behaviour(self.player(g), self.boards) for g in self.population]
        labels = niches(behaviours, cfg.niche_radius)
        best = max(range(len(fitness)), key=lambda i: (fitness[i], -self.population[i].id))
        next_pop, offspring = self.breed(fitness, behaviours, rng)
        seconds = time.monotonic() - start
        summary = GenerationSummary(self.generation, self.population[best].id, fitness[best],
                                    sum(fitness) / len(fitness), len(set(labels)), sum(games) // 2,
                                    seconds)
        evaluations = [Evaluation(g.id, f, n, niche)
                       for g, f, n, niche in zip(self.population, fitness, games, labels)]
        self.db.commit_generation(summary, evaluations, offspring, [g.id for g in next_pop])
        self.out(f"Generation {self.generation}: {summary.games} games in {seconds:.1f} s | best "
                 f"{summary.best} fitness {summary.best_fitness:.3f} | mean {summary.mean_fitness:.3f}"
                 f" | niches {summary.niches}")
        self.best_ids.append(summary.best)
        self.best_values.append(self.population[best].values)
        self.population = next_pop
        self.generation += 1
        self.games_this_run += summary.games
        return None

    def finished(self) -> str | None:
        return stop_reason(self.best_ids, self.best_values, self.config)

    def close(self) -> None:
        self.db.close()

    def on_disk(self) -> str:
        done = self.generation - 1
        kept = f"Generations 0 to {done} are" if done >= 0 else "No generation is complete yet; the first population is"
        return f"{kept} in {self.config.database}; run the same command to resume."

    def report(self, wall: float) -> None:
        if not self.best_ids:
            self.out("No generation was complete.")
        else:
            self.out(f"Best of the last generation: chromosome {self.best_ids[-1]} "
                     f"(genchess --genome {self.config.database})")

    # ------------------------------------------------------------ the champion

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        """The fittest of the last round robin (the first champion too: no one to beat)."""
        return (self.player(self.db.chromosome(self.best_ids[-1])),
                f"the fittest of generation {self.generation - 1}")

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        return self.job(white, black, fen, pool=-1)

    def job(self, white: Genome, black: Genome, fen: str | None, pool: int) -> GameJob:
        """A game of this generation at the run's clock (or fixed depth)."""
        cfg = self.config
        return GameJob.between(white, black, start_fen=fen, round=self.generation, pool=pool,
                               seconds=cfg.game_time, search_mode=cfg.search,
                               increment=cfg.increment, depth=cfg.depth, chess960=cfg.chess960)

    def champion_openings(self) -> list[str | None]:
        """The run's own start positions: book lines drawn once (the same for every
        challenge), the opening file, or the standard position."""
        if self.book is not None:
            rng = random.Random(f"{self.seed}:champion")
            return [self.book.random_line(rng, self.config.book_plies) for _ in range(CHAMPION_OPENINGS)]
        return self.openings or [None]


METHOD = Method(
    name="multi-niche crowding",
    summary="Phoenix's piece-square tables, mated with their most similar and replacing the worst "
            "of the most similar",
    plots="genchess.train.mnc_plots:plot_run", recognises=is_sqlite_file,
    keys=MNC_KEYS, config=MncConfig, trainer=MncTrainer, check=check_mnc,
    files="<run file>, every chromosome in SQLite (genchess --genome DB plays the best "
          "of the last generation; --genome-id N another)")
