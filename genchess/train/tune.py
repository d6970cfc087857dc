"""Tuning by games (method = tune): the numbers only games can score, by SPSA or a population.

Positions can tune an evaluation; only games can tune a search. This method tunes a
genome's search genes (genome/search_genes.py: the search's margins, reductions and
depths, the time manager's factors) and, if asked, its evaluation numbers, with games
as the only fitness:

    spsa     (the default) each iteration plays `pairs` game pairs, theta + c_k delta
             against theta - c_k delta, and steps theta by the plus side's wins minus
             losses (optimise/spsa.py: fishtest's schedules, OpenBench's c_end and
             r_end per number, bounds, freezing)
    cma-es   a population every generation, each genome playing `pairs` game pairs
    ga       against the start genome, its score the fitness (optimise/evolution.py,
             in steps from the start): the games-only evolution of the seeds' designs,
             to compare with SPSA on the same game budget

Games are short (a fixed node count per move, deterministic, or a small clock); what a
tune finds is then decided at a long time control by an SPRT of the tuned genome
against the start genome (the command is printed at the end), and ships only on H1:
values tuned at very short controls often do not carry over.

Files (append-only, except the two replaced whole and atomically):
  <run file>               a JSON line per iteration: its game results and the numbers
                           (a population's also its spread, in steps)
  <run file>_start.genome  the start genome, which a resumed run goes on from
  <run file>_best.genome   the tuned numbers so far (SPSA's theta, a population's best or
                           mean), rounded where whole: what the final SPRT plays
  <run file>_state.pickle  the optimiser's whole state (its state() dict)
A run stopped any way resumes from its state; an iteration cut short is played again
from its start, so with fixed-node games a resumed run ends exactly as an uninterrupted one.
"""

from __future__ import annotations

import math
import pickle
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genchess.files import package_file, write_atomically
from genchess.game.adjudication import FISHTEST
from genchess.genome import Genome, GenomeError, open_genome
from genchess.genome.run_formats import (is_json_line, is_tune_records, iteration_line, read_tune_records,
                                         tune_header)
from genchess.genome.search_genes import search_genes
from genchess.optimise import restore
from genchess.optimise.evolution import CmaSettings, GaSettings, GeneticAlgorithm
from genchess.optimise.spsa import A_RATIO, ALPHA, GAMMA, Spsa, SpsaParameter, SpsaSchedule
from genchess.parallel.worker import GameJob
from genchess.strength.games import play_all
from genchess.strength.tally import white_points
from genchess.train.config import (GAME_INCREMENT, GAME_TIME, CommonSettings,
                                   ConfigError, Key)
from genchess.train.records import AppendFile, read_state, set_aside, split_complete
from genchess.train.registry import Method
from genchess.train.scaffold import Run, cma_es

OPTIMISERS = ("spsa", "cma-es", "ga")
R_END = 0.002                   # OpenBench's default learning rate at the end
# The ga's operators with game fitness, as the method has always run them (evolve's
# ga, on positions, takes them from its config keys instead).
GA_MUTATION_RATE = 0.3          # the share of a child's numbers that mutate
GA_ELITE = 1                    # the best genomes kept unchanged
GA_TOURNAMENT = 2               # genomes drawn to pick each parent

TUNE_KEYS = [
    Key("run file", "path", "the run's records; <file>_best.genome, <file>_start.genome and "
        "<file>_state.pickle beside it; an existing run is resumed", "run_file"),
    Key("initial genomes", "file", "the genome tuned (a genome file's last genome, or a "
        "trainer's run file; default: the default genome); a resumed run goes on from its "
        "own <file>_start.genome", "initial_genomes"),
    Key("tune", "words", "which numbers: search (every search gene), search gene names, or "
        "the genome's own groups (material, mobility, a table such as 'pawn mg'), separated "
        "by commas", "tune"),
    Key("freeze", "words", "numbers of those kept at their start values (names, commas)", "freeze"),
    Key("optimiser", "choice", "spsa, cma-es or ga", "optimiser", choices=OPTIMISERS),
    Key("iterations", "int", "spsa's game-pair rounds, or cma-es' and ga's generations (before: "
        "generations)", "generations", 1),
    Key("pairs", "int", "game pairs an spsa iteration plays, or each genome of a generation",
        "pairs", 1),
    Key("population", "int", "cma-es, ga: genomes a generation", "population", 2),
    Key("nodes", "int", "a fixed node count per move (deterministic games); 0: the game clock",
        "nodes", 0),
    GAME_TIME.with_help("seconds per side per game, without nodes"),
    GAME_INCREMENT.with_help("seconds added per move, without nodes"),
    Key("a ratio", "float", "spsa: A as a share of the iterations", "a_ratio", 0),
    Key("alpha", "float", "spsa: how fast the step shrinks", "alpha", 0),
    Key("gamma", "float", "spsa: how fast the perturbation shrinks", "gamma", 0),
    Key("r end", "float", "spsa: the learning rate at the end (OpenBench's r_end)", "r_end", 0),
    Key("c end", "float", "spsa: each number's perturbation at the end, in its steps "
        "(about 2-3 Elo either way)", "c_end", 0),
    Key("sigma", "float", "cma-es, ga: the first step, in each number's steps", "sigma", 0),
]


@dataclass
class TuneConfig(CommonSettings):
    path: str
    run_file: Path
    initial_genomes: Path | None = None
    tune: list[str] = field(default_factory=lambda: ["search"])
    freeze: list[str] = field(default_factory=list)
    optimiser: str = "spsa"
    generations: int = 1000
    pairs: int = 1
    population: int = 8
    nodes: int = 5000
    game_time: float = 1.0
    increment: float = 0.01
    a_ratio: float = A_RATIO
    alpha: float = ALPHA
    gamma: float = GAMMA
    r_end: float = R_END
    c_end: float = 1.0
    sigma: float = 1.0
    method = "tune"

    def companion(self, suffix: str) -> Path:
        return Path(f"{self.run_file}{suffix}")


@dataclass(frozen=True)
class Number:
    """One number a tune moves: a search gene (by name) or one of the genome's own
    (its index in the genome's NumberSpec)."""
    name: str
    start: float
    lo: float
    hi: float
    step: float
    integer: bool
    gene: bool                  # a search gene, else an evaluation number
    index: int = -1             # evaluation numbers: where in genome.numbers()


def tuned_numbers(genome, names: list[str], freeze: list[str]) -> list[Number]:
    """The numbers `tune = ...` names, in order, with their start values; ValueError
    naming one that is neither a search gene nor a group of the genome's numbers."""
    genes = search_genes()
    chosen: list[Number] = []
    spec = None
    for name in names:
        if name == "search":
            picked = list(genes)
        elif name in genes:
            picked = [name]
        else:
            if not hasattr(genome, "number_spec"):
                raise ValueError(f"{name!r} is not a search gene, and a {genome.KIND} genome's "
                                 f"own numbers are trained on positions, not tuned by games")
            if spec is None:
                spec = genome.number_spec()
            if name not in spec.groups:
                raise ValueError(f"{name!r} is neither a search gene nor a group of the "
                                 f"{genome.KIND} genome's numbers")
            values = genome.numbers()
            for i in spec.groups[name]:
                chosen.append(Number(spec.names[i], float(values[i]), float(spec.lo[i]),
                                     float(spec.hi[i]), float(spec.step[i]), bool(spec.integer[i]),
                                     False, int(i)))
            continue
        for gene_name in picked:
            gene = genes[gene_name]
            chosen.append(Number(gene.name, float(genome.search.get(gene.name, gene.default)),
                                 gene.lo, gene.hi, gene.step, True, True))
    unique = list({n.name: n for n in chosen}.values())
    unknown = sorted(set(freeze) - {n.name for n in unique})
    if unknown:
        raise ValueError(f"freeze: {unknown[0]!r} is not among the tuned numbers")
    if not unique:
        raise ValueError("no numbers to tune")
    return unique


def side_points(results: list[str]) -> int:
    """Wins minus losses, over game pairs' PGN results, of the side that is White in the
    even games."""
    total = 0
    for n, result in enumerate(results):
        score = round(2 * white_points(result) - 1)
        total += score if n % 2 == 0 else -score
    return total


def genome_with(start, numbers: list[Number], values, genome_id: int):
    """`start` with the tuned numbers set to `values` (rounded where whole, halves up:
    Python's round() takes 2.5 and 1.5 both to 2, so theta 2 perturbed by SPSA's
    smallest half a unit would play the same value on both sides)."""
    values = [math.floor(v + 0.5) if n.integer else float(v) for n, v in zip(numbers, values)]
    genome = start.copy(genome_id)
    own = [(n, v) for n, v in zip(numbers, values) if not n.gene]
    if own:
        vector = start.numbers()
        for n, v in own:
            vector[n.index] = v
        genome = start.with_numbers(vector, genome_id)
    genes = {n.name: int(v) for n, v in zip(numbers, values) if n.gene}
    return genome.with_search({**start.search, **genes})


def check_tune(path: Path, values: dict, lines: dict) -> None:
    if values.get("optimiser", "spsa") != "spsa":
        for key in ("a ratio", "alpha", "gamma", "r end", "c end"):
            if key in values:
                raise ConfigError(f"{path}:{lines[key]}: {key} is spsa's, not "
                                  f"{values['optimiser']}'s")


class TuneTrainer(Run):
    def __init__(self, config: TuneConfig, out=print, executor_factory=None, progress=True):
        self.iteration = 0                          # iterations complete
        super().__init__(config, out, executor_factory, progress)
        # A resumed run goes on from its own start genome, whatever the configuration's
        # genome is today: the default genome may have changed since the run began.
        own_start, state = config.companion("_start.genome"), config.companion("_state.pickle")
        resuming = state.exists()
        if resuming and not own_start.exists():
            # The configured genome in its place could move the saved theta onto other numbers.
            raise ConfigError(f"{own_start}: missing, and {state} is there: not resumable (put "
                              f"the start genome back, or move the run's files away to start afresh)")
        try:
            self.start_genome = open_genome(own_start if resuming else config.initial_genomes).copy(0)
        except GenomeError as e:
            raise ConfigError(f"{'resuming: ' if resuming else 'initial genomes: '}{e}") from None
        try:
            self.numbers = tuned_numbers(self.start_genome, config.tune, config.freeze)
        except ValueError as e:
            raise ConfigError(f"{config.path}: tune: {e}") from None
        self.frozen = set(config.freeze)
        self.openings = self.openings or self.default_openings()

    @staticmethod
    def default_openings() -> list[str]:
        from genchess.train.scaffold import start_positions
        return start_positions(package_file("data", "openings.epd"))

    @property
    def run_file(self) -> Path:
        return self.config.run_file

    # ------------------------------------------------------------ the optimisers

    def new_optimiser(self):
        cfg = self.config
        if cfg.optimiser == "spsa":
            parameters = [SpsaParameter(n.name, n.start, n.lo, n.hi, c_end=cfg.c_end * n.step,
                                        r_end=cfg.r_end, frozen=n.name in self.frozen, integer=n.integer)
                          for n in self.numbers]
            return Spsa(parameters, SpsaSchedule(cfg.generations, cfg.a_ratio, cfg.alpha, cfg.gamma),
                        seed=self.seed)
        free = [n for n in self.numbers if n.name not in self.frozen]
        lo = np.array([(n.lo - n.start) / n.step for n in free])
        hi = np.array([(n.hi - n.start) / n.step for n in free])
        if cfg.optimiser == "ga":
            return GeneticAlgorithm(len(free), GaSettings(cfg.population, cfg.sigma, GA_MUTATION_RATE,
                                                          GA_ELITE, GA_TOURNAMENT), self.seed, lo, hi)
        return cma_es(len(free), CmaSettings(cfg.population, cfg.sigma), self.seed, lo, hi)

    def spread(self) -> float:
        """cma-es, ga: how widely the next generation is drawn around its centre, in steps
        (CMA-ES's median standard deviation, which it adapts; the GA's mutation, fixed).
        If games cannot tell the genomes apart, CMA-ES cannot narrow it."""
        return self.optimiser.spread()

    def values_of(self, scaled) -> list[float]:
        """cma-es, ga: every tuned number's value from a vector of the free ones, in steps
        from the start."""
        scaled = iter(scaled)
        return [n.start if n.name in self.frozen else min(n.hi, max(n.lo, n.start + next(scaled) * n.step))
                for n in self.numbers]

    def learn_pair(self, delta: list[int], result: int) -> None:
        """spsa: step theta by a pair's result (the plus side's wins minus losses)."""
        self.optimiser.tell(delta, result)
        self.theta = list(self.optimiser.theta)

    def learn_population(self, population, scores: list[int]) -> None:
        """cma-es, ga: tell the optimiser each genome's score; theta becomes CMA-ES's
        centre, or the GA's best genome (it has no centre)."""
        self.optimiser.tell(population, [-s for s in scores])
        centre = getattr(self.optimiser, "mean", None)
        self.theta = self.values_of(centre if centre is not None else population[int(np.argmax(scores))])

    # ------------------------------------------------------------ files

    def open(self) -> None:
        cfg = self.config
        state = cfg.companion("_state.pickle")
        if state.exists():
            saved = read_state(state, ("iteration", "optimiser", "theta", "last_record"))
            self.iteration, self.theta = saved["iteration"], saved["theta"]
            self.optimiser = restore(saved["optimiser"])
            last = saved["last_record"]
        else:
            last = None
            if cfg.run_file.exists() and cfg.run_file.stat().st_size:
                raise ConfigError(f"{cfg.run_file}: holds records but {state} is missing: not "
                                  f"resumable (move the records away to start afresh)")
            self.optimiser = self.new_optimiser()
            self.theta = [n.start for n in self.numbers]
            write_atomically(cfg.companion("_start.genome"),
                             f"# GenChess tune: the start genome of {cfg.run_file}\n"
                             + self.start_genome.to_text())
        self.first_iteration = self.iteration
        if cfg.run_file.exists():
            # A record torn by a kill goes to <run file>.torn (the state has it whole).
            _, torn = split_complete(cfg.run_file, cfg.run_file.read_text(encoding="utf-8", errors="replace"),
                                     is_json_line)
            if torn is not None:
                self.out(f"warning: {torn.describe()}")
                set_aside(torn)
        self.written = last_iteration(cfg.run_file)
        self.records = AppendFile(cfg.run_file)
        if self.iteration == 0 and not (cfg.run_file.exists() and cfg.run_file.stat().st_size):
            self.records.write(tune_header(cfg.optimiser, cfg.generations, self.seed, self.numbers))
        elif last is not None and self.written < self.iteration:
            # Killed between the state and its record: the state has the record.
            self.records.write(iteration_line(last))
            self.written = self.iteration
        self.bar = self.progress_bar("tune", cfg.generations, unit="iteration")
        if self.bar is not None:
            self.bar.update(self.iteration)
        self.out(f"{'Resuming' if self.iteration else 'New'} tune run {cfg.run_file}: "
                 f"{len(self.numbers)} numbers of a {self.start_genome.KIND} genome, {cfg.optimiser}, "
                 f"{'%d nodes a move' % cfg.nodes if cfg.nodes else f'{cfg.game_time:g}+{cfg.increment:g}'}, "
                 f"iteration {self.iteration} of {cfg.generations}")

    def save(self, record: dict) -> None:
        """The iteration's state first, then its record: a run killed between the two
        writes the record when it resumes (the state keeps it), so none is lost or doubled."""
        cfg = self.config
        write_atomically(cfg.companion("_state.pickle"),
                         pickle.dumps({"iteration": self.iteration, "optimiser": self.optimiser.state(),
                                       "theta": self.theta, "last_record": record}))
        write_atomically(cfg.companion("_best.genome"), self.best_text())
        if record["iteration"] > self.written:      # a restored older state: already there
            self.records.write(iteration_line(record))
            self.written = record["iteration"]

    def close(self) -> None:
        self.close_bar()

    def finished(self) -> str | None:
        if self.iteration >= self.config.generations:
            return f"{self.config.generations} iterations"
        return None

    # ------------------------------------------------------------ one iteration

    def job(self, white, black, fen) -> GameJob:
        cfg = self.config
        if cfg.nodes:
            return GameJob.between(white, black, start_fen=fen, round=self.iteration + 1,
                                   search_mode=cfg.search, nodes=cfg.nodes, chess960=cfg.chess960)
        return GameJob.between(white, black, start_fen=fen, round=self.iteration + 1,
                               seconds=cfg.game_time, increment=cfg.increment, search_mode=cfg.search,
                               chess960=cfg.chess960)

    def pair_jobs(self, a, b, rng: random.Random) -> list[GameJob]:
        """`pairs` game pairs of genome a against genome b, each pair from one opening."""
        jobs = []
        for _ in range(self.config.pairs):
            fen = rng.choice(self.openings)
            jobs += [self.job(a, b, fen), self.job(b, a, fen)]
        return jobs

    @staticmethod
    def points(results) -> int:
        """Wins minus losses of genome a over its pairs (a is White in the even games)."""
        return side_points([r.record.result for r in results])

    def step(self, executor, deadline) -> str | None:
        k = self.iteration + 1
        rng = random.Random(f"{self.seed}:{k}")             # the iteration's openings
        cfg = self.config
        if cfg.optimiser == "spsa":
            delta, plus, minus = self.optimiser.ask()
            plus_genome = genome_with(self.start_genome, self.numbers, [plus[n.name] for n in self.numbers], 1)
            minus_genome = genome_with(self.start_genome, self.numbers, [minus[n.name] for n in self.numbers], 2)
            results = play_all(executor, self.pair_jobs(plus_genome, minus_genome, rng))
            result = self.points(results)
            self.learn_pair(delta, result)
            record = {"iteration": k, "result": result, "games": [r.record.result for r in results]}
        else:
            population = self.optimiser.ask()
            genomes = [genome_with(self.start_genome, self.numbers, self.values_of(x), i + 1)
                       for i, x in enumerate(population)]
            jobs, where = [], []
            for i, genome in enumerate(genomes):
                pair = self.pair_jobs(genome, self.start_genome, random.Random(f"{self.seed}:{k}:{i}"))
                jobs += pair
                where += [i] * len(pair)
            results = play_all(executor, jobs)
            scores = [self.points([r for r, w in zip(results, where) if w == i])
                      for i in range(len(genomes))]
            self.learn_population(population, scores)
            record = {"iteration": k, "scores": scores, "spread": round(self.spread(), 4),
                      "games": [r.record.result for r in results]}
        self.games_this_run += len(results)
        self.iteration = k
        record["theta"] = [round(t, 4) for t in self.theta]
        self.save(record)
        if self.bar is not None:
            self.bar.update(1)
        return None

    # ------------------------------------------------------------ the genome it found

    def best_genome(self) -> Genome:
        return genome_with(self.start_genome, self.numbers, self.theta, self.iteration)

    def best_text(self) -> str:
        cfg = self.config
        moved = [f"{n.name} {n.start:g} -> {t:.1f}" for n, t in zip(self.numbers, self.theta)
                 if abs(t - n.start) >= 0.05]
        lines = [f"GenChess tune: {cfg.optimiser} after iteration {self.iteration} of {cfg.run_file}, "
                 f"seed {self.seed}, {'%d nodes a move' % cfg.nodes if cfg.nodes else f'{cfg.game_time:g}+{cfg.increment:g}'}",
                 "moved: " + (", ".join(moved) or "nothing yet")]
        return "".join(f"# {line}\n" for line in lines) + self.best_genome().to_text()

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        if first:
            return self.start_genome, "the start genome"
        return self.best_genome(), f"the tuned numbers after iteration {self.iteration}"

    def champion_job(self, white: Genome, black: Genome, fen: str | None) -> GameJob:
        return self.job(white, black, fen)

    def champion_openings(self) -> list[str | None]:
        return self.openings

    # ------------------------------------------------------------ ends

    def on_disk(self) -> str:
        return (f"Iterations 1 to {self.iteration} are in {self.config.run_file}; run the same "
                f"command to resume.")

    def done_this_run(self) -> str:
        return f"{self.iteration - self.first_iteration} iterations ({self.games_this_run} games)"

    def report(self, wall: float) -> None:
        cfg = self.config
        self.out(f"Tuned numbers after {self.iteration} iterations: {cfg.companion('_best.genome')}. "
                 f"Games decide, at a long time control: {sprt_command(cfg)}")


def sprt_command(cfg) -> str:
    """The match that decides a tune (docs/tune.md): the tuned genome against the start,
    SPRT [0, 5] at 10+0.1 with strict clocks, two games at once and fishtest's
    adjudication; `--resume` lets it stop and go on later."""
    pgn = Path(cfg.run_file).with_suffix("").as_posix() + "-sprt.pgn"
    return (f"genchess match genchess:{cfg.companion('_best.genome')} "
            f"genchess:{cfg.companion('_start.genome')} --tc 10+0.1 --sprt elo0=0 elo1=5 "
            f"--concurrency 2 {FISHTEST.options()} --pgn {pgn} --resume")


def last_iteration(path: Path) -> int:
    """The last iteration recorded in a resumed run's file (0 for none or an empty file);
    ConfigError when the file cannot be read as a tune run's, so that it is not appended to."""
    if not path.exists() or not path.stat().st_size:
        return 0
    try:
        _, iterations = read_tune_records(path)
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise ConfigError(f"{e}: not resumable (move the records away to start afresh)") from None
    return max((r["iteration"] for r in iterations), default=0)


METHOD = Method(
    name="tune",
    summary="search genes (and any kind's numbers) tuned by games: SPSA, or a CMA-ES or GA "
            "population with game fitness",
    plots="genchess.train.tune_plots:plot_run", recognises=is_tune_records,
    keys=TUNE_KEYS, config=TuneConfig, trainer=TuneTrainer, check=check_tune,
    files="<run file> (a JSON line per iteration: results and numbers), <run file>_best.genome "
          "(the tuned numbers: what the final SPRT plays), <run file>_start.genome, "
          "<run file>_state.pickle (the optimiser's state)")
