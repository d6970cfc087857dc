"""Evolution on positions (method = evolve): any genome kind tuned on a labelled set.

Each generation the optimiser proposes a population of number vectors of the start
genome (genome/numbers.py: all its numbers, or the groups `evolve` names), the
run's executor scores them on the set's training part (fitness/scoring.py: the
Texel loss; one matrix product per population for the linear kinds), and the
optimiser learns from the losses:

    cma-es   CMA-ES (pycma) in coordinates scaled by each number's step, so one sigma
             suits table entries and piece values alike; with more than 100 numbers
             the covariance is diagonal (optimise/evolution.py)
    ga       the project's own genetic algorithm (optimise/evolution.py):
             tournament selection, uniform crossover, Gaussian mutation of a share
             of the numbers, the best kept (elitism)
    adam     gradient descent (optimise/adam.py on fitness/gradient.py's exact
             gradient): a generation is an epoch of minibatch Adam; linear kinds
             only (material, pvt, unified), scored in this process

Numbers no training position touches (a linear kind's feature column that is zero
on the whole training part) are frozen at their start value for every optimiser:
no loss can tell the optimiser where they belong, so an evolving one only drifts.
`l2 weight` adds weight * sum of (number / pawn)^2 to the loss every optimiser
minimises, which holds the numbers few positions touch near zero.

The loss proposes, games decide: every `validation interval` generations the best
genome so far plays `validation games` against the start genome (game pairs, Elo
with its interval in the records), and with `champion interval` the best genome
challenges the SPRT-gated champion every that many generations, as in every
method.

Files (append-only, except the two that are replaced whole and atomically):
  <run file>               a header, then a line per generation (losses, seconds)
                           and per validation match
  <run file>_genomes.txt   each generation's best genome (ID = generation)
  <run file>_best.genome   the lowest training loss so far: genchess --genome plays it
  <run file>_start.genome  the start genome (what validation games play against)
  <run file>_state.pickle  the run's state: the optimiser's whole state (its state()
                           dict, random streams included), the best so far
A run stopped any way resumes from its state: the generation being scored is
scored again, the same way, so a resumed run ends exactly as an uninterrupted one,
and what a killed run had already written for that generation (its line, its genome,
its validation match: each file counted on its own) is not written twice. The state
is saved before the first record, so a run stopped in its first generation resumes too.
"""

from __future__ import annotations

import math
import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genchess.files import write_atomically
from genchess.genome import (Genome, GenomeError, MaterialGenome, PvtGenome, UnifiedGenome,
                             hand_set_genome, load_genome, open_genome)
from genchess.genome.genome_file import GENOMES_DIR
from genchess.genome.pvt import N_VALUES, STANDARD_MATERIAL
from genchess.train.config import (GAME_INCREMENT, GAME_TIME, GENERATIONS, POSITION_KEYS,
                                   CommonSettings, ConfigError, Key, PositionSettings, check_labels)
from genchess.genome.run_formats import (evolve_header, generation_line, generations_written,
                                         is_evolve_records, validated_steps)
from genchess.optimise import restore
from genchess.optimise.adam import Adam, AdamSettings
from genchess.optimise.evolution import CmaSettings, GaSettings, GeneticAlgorithm
from genchess.train.records import (AppendFile, is_pool_record_end, read_complete_genomes, read_state,
                                    set_aside, split_complete)
from genchess.train.registry import Method
from genchess.train.scaffold import PositionFitnessRun, cma_es

OPTIMISERS = ("cma-es", "ga", "adam")
STARTS = ("given", "zero", "random")
KINDS = ("material", "pvt", "genetic", "unified")
GA_POPULATION = 32              # the ga's genomes a generation unless given
ADAM_L2 = 1e-6                  # adam's l2 weight unless given (measured: docs/positions.md)
RANDOM_SPAN = 5.0               # start = random: each number within +-5 of its steps

EVOLVE_KEYS = [
    Key("run file", "path", "the run's records; <file>_genomes.txt, <file>_best.genome and "
        "<file>_state.pickle beside it; an existing run is resumed", "run_file"),
    Key("initial genomes", "file", "the start genome (a genome file's last genome, or a "
        "trainer's run file: what genchess --genome plays from it)", "initial_genomes"),
    Key("kind", "choice", "without initial genomes, start from this kind's blank genome: "
        "material (every piece weight equal, no mobility), pvt (zero tables, standard "
        "material), genetic (the hand-set genome) or unified (material alone)", "kind", choices=KINDS),
    Key("start", "choice", "the first numbers: given (the start genome's), zero, or random "
        "(each within five steps of the start genome's)", "start", choices=STARTS),
    Key("evolve", "words", "which numbers evolve: all, or groups separated by commas "
        "(material, tables, mobility, a table such as 'pawn mg', a gene's name)", "evolve"),
    Key("optimiser", "choice", "cma-es (pycma), ga (the project's genetic algorithm) or adam "
        "(gradient descent, a generation an epoch; material, pvt and unified genomes)",
        "optimiser", choices=OPTIMISERS),
    Key("population", "int", "genomes a generation (0: CMA-ES's own default, 4 + 3 ln n; "
        "32 for the ga)", "population", 0),
    GENERATIONS.with_help("stop after this many generations (adam: epochs)"),
    Key("sigma", "float", "the first step, in each number's steps (CMA-ES's sigma0; the ga's "
        "mutation size)", "sigma", 0),
    Key("mutation rate", "float", "ga: the share of a child's numbers that mutate",
        "mutation_rate", 0, hi=1),
    Key("tournament size", "int", "ga: genomes drawn to pick each parent", "tournament_size", 1),
    Key("elite", "int", "ga: the best genomes copied into the next generation unchanged",
        "elite", 0),
    Key("learning rate", "float", "adam: the largest step, in each number's steps",
        "learning_rate", 0),
    Key("batch size", "int", "adam: positions a step", "batch_size", 1),
    Key("l2 weight", "float", "the weight of sum (number / pawn)^2 added to the loss, which "
        f"holds numbers few positions touch near zero (default: {ADAM_L2:g} for adam, 0 for "
        "cma-es and ga)", "l2_weight", 0),
    *POSITION_KEYS,
    Key("validation games", "int", "every validation interval, the best genome so far plays "
        "this many games against the start genome (0: none)", "validation_games", 0),
    Key("validation interval", "int", "generations between validation matches (also the "
        "champion's games' clock: champion interval counts generations here)",
        "validation_interval", 1),
    GAME_TIME.with_help("seconds per side in validation and champion games"),
    GAME_INCREMENT.with_help("seconds added per move in those games"),
]


@dataclass
class EvolveConfig(PositionSettings, CommonSettings):
    path: str
    run_file: Path
    initial_genomes: Path | None = None
    kind: str | None = None
    start: str = "given"
    evolve: list[str] = field(default_factory=lambda: ["all"])
    optimiser: str = "cma-es"
    population: int = 0
    generations: int = 300
    sigma: float = 1.0
    mutation_rate: float = 0.05
    tournament_size: int = 3
    elite: int = 1
    learning_rate: float = 0.1
    batch_size: int = 2048
    l2_weight: float | None = None
    validation_games: int = 0
    validation_interval: int = 10
    game_time: float = 1.0
    increment: float = 0.01
    method = "evolve"

    def companion(self, suffix: str) -> Path:
        return Path(f"{self.run_file}{suffix}")

    @property
    def l2(self) -> float:
        if self.l2_weight is not None:
            return self.l2_weight
        return ADAM_L2 if self.optimiser == "adam" else 0.0


def check_evolve(path: Path, values: dict[str, object], lines: dict[str, int]) -> None:
    if "positions" not in values:
        raise ConfigError(f"{path}: missing key: positions (the labelled set to evolve on)")
    if ("initial genomes" in values) == ("kind" in values):
        where = lines.get("kind") or lines.get("initial genomes")
        raise ConfigError(f"{path}{':' + str(where) if where else ''}: give the start genome "
                          f"(initial genomes = FILE) or a kind to start blank (kind = "
                          f"{' | '.join(KINDS)}), one of the two")
    check_labels(path, values, lines)


def blank_genome(kind: str):
    """The start genome of `kind = ...`: every piece equal, zero tables, hand-set genes,
    or for the unified kind material alone (GenChess's own, material-positions.genome,
    tuned on positions from equal weights) with every other number zero."""
    if kind == "material":
        return MaterialGenome(0, [1.0] * 6 + [0.0])
    if kind == "pvt":
        return PvtGenome(0, [0] * N_VALUES, STANDARD_MATERIAL)
    if kind == "unified":
        weights = load_genome(GENOMES_DIR / "material-positions.genome").weights
        return UnifiedGenome.from_material(0, [round(100 * w / weights[0]) for w in weights[:5]])
    return hand_set_genome().copy(0)


# ------------------------------------------------------------------ the run

class EvolveTrainer(PositionFitnessRun):
    def __init__(self, config: EvolveConfig, out=print, executor_factory=None, progress=True):
        self.generation = 0                         # generations complete
        super().__init__(config, out, executor_factory, progress)
        from genchess.fitness.scoring import fitted_labels
        from genchess.position_sets.position_set import load_positions
        cfg = config
        self.start_genome = self.read_start()
        self.spec = self.start_genome.number_spec()
        # Linear kinds score any vector exactly (fitness/features.py): draws are scored
        # unrounded (see step). The others make a genome of each, rounding as they must.
        from genchess.fitness.features import FEATURES
        self.smooth = self.start_genome.KIND in FEATURES
        try:
            self.evolving = self.spec.indices(cfg.evolve)
        except KeyError as e:
            raise ConfigError(f"{cfg.path}: evolve: {e.args[0]}") from None
        positions = load_positions(cfg.positions)
        for warning in positions.warnings[:5]:
            out(f"warning: {warning}")
        try:
            self.labels = fitted_labels(cfg.positions, positions, cfg.labels, cfg.wdl)
        except ValueError as e:
            raise ConfigError(f"{cfg.path}: labels: {e} ({cfg.positions})") from None
        self.set_size = len(positions)
        self.frozen = self.freeze_untouched(positions)

    def freeze_untouched(self, positions) -> int:
        """Drop from the evolving numbers those no training position touches; keep
        what the gradient needs (adam) and the pawn the L2 term is counted in. The
        number frozen."""
        from genchess.fitness.scoring import PositionFitness
        cfg = self.config
        self.fitness = self.linear = self.pawn = None
        if not self.smooth:
            if cfg.optimiser == "adam" or cfg.l2:
                raise ConfigError(f"{cfg.path}: {'optimiser = adam' if cfg.optimiser == 'adam' else 'l2 weight'} "
                                  f"needs a kind whose evaluation is linear in its numbers "
                                  f"(material, pvt, unified), not {self.start_genome.KIND}: "
                                  f"use cma-es or ga")
            return 0
        fitness = PositionFitness(self.start_genome, positions, self.labels, cfg.held_out)
        linear = fitness.features["train"].linear_map()
        touched = linear.touched()[self.evolving] > 0
        self.evolving = self.evolving[touched]
        self.pawn = linear.pawn
        if cfg.optimiser == "adam":         # gradients and scores in this process
            self.fitness, self.linear = fitness, linear
        return int((~touched).sum())

    @property
    def run_file(self) -> Path:
        return self.config.run_file

    @property
    def games_played(self) -> int:
        """The champion's clock here: generations (the method plays no games to evolve)."""
        return self.generation

    @property
    def steps_done(self) -> int:
        return self.generation

    def read_start(self):
        cfg = self.config
        if cfg.kind is not None:
            return blank_genome(cfg.kind)
        try:
            return open_genome(cfg.initial_genomes).copy(0)
        except GenomeError as e:
            raise ConfigError(f"initial genomes: {e}") from None

    # ------------------------------------------------------------ vectors

    def full(self, scaled: np.ndarray, whole: bool = True) -> np.ndarray:
        """Number vectors from the optimiser's (in steps from the start, evolving numbers
        only), inside the bounds; whole numbers rounded unless `whole` is False."""
        scaled = np.atleast_2d(scaled)
        vectors = np.tile(self.origin, (len(scaled), 1))
        vectors[:, self.evolving] += scaled * self.spec.step[self.evolving]
        if whole:
            return self.spec.legal(vectors)
        return np.clip(vectors, self.spec.lo, self.spec.hi)

    def first_numbers(self) -> np.ndarray:
        cfg, spec = self.config, self.spec
        numbers = self.start_genome.numbers()
        if cfg.start == "zero":
            numbers[self.evolving] = 0.0
        elif cfg.start == "random":
            rng = np.random.default_rng(self.seed)
            numbers[self.evolving] += rng.uniform(-RANDOM_SPAN, RANDOM_SPAN, len(self.evolving)) \
                * spec.step[self.evolving]
        return spec.legal(numbers)

    def new_optimiser(self):
        cfg, spec, ix = self.config, self.spec, self.evolving
        lo = (spec.lo[ix] - self.origin[ix]) / spec.step[ix]
        hi = (spec.hi[ix] - self.origin[ix]) / spec.step[ix]
        if cfg.optimiser == "adam":
            return Adam(len(ix), AdamSettings(cfg.learning_rate, cfg.batch_size), self.seed, lo, hi)
        if cfg.optimiser == "ga":
            return GeneticAlgorithm(len(ix), GaSettings(cfg.population or GA_POPULATION, cfg.sigma,
                                                        cfg.mutation_rate, cfg.elite, cfg.tournament_size),
                                    self.seed, lo, hi)
        return cma_es(len(ix), CmaSettings(cfg.population, cfg.sigma), self.seed, lo, hi)

    # ------------------------------------------------------------ files

    def open(self) -> None:
        cfg = self.config
        state_path = cfg.companion("_state.pickle")
        if state_path.exists():
            self.resume(state_path)
        else:
            if cfg.run_file.exists() and cfg.run_file.stat().st_size:
                raise ConfigError(f"{cfg.run_file}: holds records but {state_path} is missing: "
                                  f"not resumable (move the records away to start afresh)")
            self.origin = self.first_numbers()
            self.optimiser = self.new_optimiser()
            self.best = self.origin.copy()
            self.best_loss = math.inf
            self.written = 0                        # generations already in the records
            self.genomes_written = 0                # ... and in the genomes file
            self.validated: set[int] = set()
            self.start_genome = self.start_genome.with_numbers(self.origin, 0)
            write_atomically(cfg.companion("_start.genome"),
                             f"# GenChess evolve: the start genome of {cfg.run_file}\n"
                             + self.start_genome.to_text())
            # Before the first record: records without a state could not be resumed,
            # and a run stopped in its first generation would have to be thrown away.
            self.save_state()
        self.first_generation = self.generation
        if self.linear is not None:
            from genchess.fitness.gradient import LinearTexel
            train = self.fitness.parts["train"]
            self.objective = LinearTexel(self.linear, self.labels, train.result, train.mentor,
                                         self.origin, self.evolving, self.spec.step, cfg.l2)
        has_header = cfg.run_file.exists() and cfg.run_file.stat().st_size > 0
        self.records = AppendFile(cfg.run_file)
        self.genomes_out = AppendFile(cfg.companion("_genomes.txt"))
        if not has_header:
            self.records.write(self.header())
        self.bar = self.progress_bar("evolve", cfg.generations, unit="generation")
        if self.bar is not None:
            self.bar.update(self.generation)
        self.out(f"{'Resuming' if self.generation else 'New'} evolve run {cfg.run_file}: "
                 f"{self.start_genome.KIND} genome, {len(self.evolving)} numbers, "
                 f"{cfg.optimiser}, {self.set_size} positions (K {self.labels.k_result:.3f}), "
                 f"generation {self.generation}"
                 + (f"; {self.frozen} numbers no position touches are frozen" if self.frozen else ""))

    def header(self) -> str:
        cfg = self.config
        optimiser = cfg.optimiser + (f" learning rate {cfg.learning_rate:g} batch {cfg.batch_size}"
                                     if cfg.optimiser == "adam" else "")
        return evolve_header(self.start_genome.KIND, len(self.evolving), cfg.evolve, self.frozen, optimiser,
                             cfg.l2, cfg.positions, self.set_size, cfg.held_out, self.labels, cfg.start,
                             self.seed)

    def resume(self, state_path: Path) -> None:
        cfg = self.config
        state = read_state(state_path, ("numbers", "evolving", "generation", "origin", "optimiser",
                                        "best", "best_loss", "seed", "validated"))
        if state["numbers"] != len(self.spec) or list(state["evolving"]) != list(self.evolving):
            raise ConfigError(f"{state_path}: a run of {state['numbers']} numbers "
                              f"({len(state['evolving'])} evolving), not this configuration's")
        for key in ("generation", "origin", "best", "best_loss", "seed", "validated"):
            setattr(self, key, state[key])
        # (A state of an older run keeps numpy's generator beside pycma's strategy.)
        self.optimiser = restore(state["optimiser"], state.get("np_state"))
        self.start_genome = self.start_genome.with_numbers(self.origin, 0)
        # What a killed run wrote after its last state: cut a torn tail, and count what
        # each file already holds so that the replay writes none of it again. The files
        # are counted apart: a kill between a generation's line and its genome leaves
        # the one without the other.
        for path, is_end in ((cfg.run_file, lambda line: True),
                             (cfg.companion("_genomes.txt"), is_pool_record_end)):
            if path.exists():
                text = path.read_text(encoding="utf-8")
                good, torn = split_complete(path, text, is_end)
                if torn is not None:
                    self.out(f"warning: {torn.describe()}")
                    set_aside(torn)
        lines = cfg.run_file.read_text(encoding="utf-8").splitlines() if cfg.run_file.exists() else []
        self.written = generations_written(lines)
        # A validation match recorded after the last state was saved is not played again.
        self.validated |= validated_steps(lines)
        genomes = cfg.companion("_genomes.txt")
        self.genomes_written = 0
        if genomes.exists() and genomes.read_text(encoding="utf-8").strip():   # (created empty)
            self.genomes_written = max(g.id for g in read_complete_genomes(genomes).genomes)

    def save_state(self) -> None:
        state = {"generation": self.generation, "origin": self.origin,
                 "optimiser": self.optimiser.state(), "best": self.best, "best_loss": self.best_loss,
                 "seed": self.seed, "validated": self.validated,
                 "numbers": len(self.spec), "evolving": list(self.evolving)}
        write_atomically(self.config.companion("_state.pickle"), pickle.dumps(state))

    def close(self) -> None:
        self.close_bar()
        self.records.close()
        self.genomes_out.close()

    # ------------------------------------------------------------ one generation

    def finished(self) -> str | None:
        if self.generation >= self.config.generations:
            return f"{self.config.generations} generations done"
        return None

    def score(self, executor, vectors: np.ndarray, parts=("train",)) -> dict[str, np.ndarray]:
        from genchess.fitness.scoring import ScoreJob, score_population
        cfg = self.config
        job = ScoreJob(str(cfg.positions), self.labels, cfg.held_out, self.start_genome.to_text(),
                       vectors, parts)
        return score_population(executor, self.workers, job)

    def penalty(self, vectors: np.ndarray) -> np.ndarray:
        """The L2 term of each vector (zero without l2 weight)."""
        from genchess.fitness.gradient import l2_penalty
        if self.pawn is None:
            return np.zeros(len(np.atleast_2d(vectors)))
        return l2_penalty(np.atleast_2d(vectors)[:, self.evolving], self.pawn, self.config.l2)

    def propose(self, executor) -> tuple[np.ndarray, float]:
        """One generation of the optimiser: its best vector (unrounded) and the
        generation's mean objective (a population's, or adam's minibatches')."""
        if self.config.optimiser == "adam":
            mean = self.optimiser.epoch(self.objective)
            return self.full(self.optimiser.x, whole=False)[0], mean
        scaled = np.asarray(self.optimiser.ask())
        # Linear kinds are scored as drawn, between whole numbers too: rounded, a step
        # smaller than half a unit changes nothing, the landscape is flat steps and
        # CMA-ES's step size collapses on them. The generation's best is then rounded
        # into a genome and scored again: its losses are what the records report.
        vectors = self.full(scaled, whole=not self.smooth)
        losses = self.score(executor, vectors)["train"] + self.penalty(vectors)
        self.optimiser.tell(list(scaled), list(losses))
        return vectors[int(np.argmin(losses))], float(np.mean(losses))

    def step(self, executor, deadline) -> str | None:
        started = time.monotonic()
        proposed, mean = self.propose(executor)
        best = self.spec.legal(proposed)
        if self.fitness is not None:
            scored = {part: self.fitness.losses(best[None, :], part) for part in ("train", "held-out")}
        else:
            scored = self.score(executor, best[None, :], ("train", "held-out"))
        loss, held = float(scored["train"][0]), float(scored["held-out"][0])
        # The best so far by what the optimiser minimises: the loss and the L2 term.
        objective = loss + float(self.penalty(best)[0])
        improved = objective < self.best_loss
        if improved:
            self.best, self.best_loss = best, objective
        self.generation += 1
        g = self.generation
        if g > self.written:
            self.records.write(generation_line(g, loss, held, mean, self.best_loss,
                                               time.monotonic() - started))
            self.written = g
        if g > self.genomes_written:
            self.genomes_out.write(self.start_genome.with_numbers(best, g).to_text())
            self.genomes_written = g
        if improved:
            write_atomically(self.config.companion("_best.genome"), self.best_text())
        self.validate(executor)
        self.save_state()
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.5f}", held_out=f"{held:.5f}")
        if not self.config.quiet or g % 10 == 0:
            # The best is ranked by what the optimiser minimises; with an L2 term that is
            # more than the loss beside it, and the line says so.
            l2 = " (loss + L2 term)" if self.config.l2 else ""
            self.say(f"generation {g}/{self.config.generations}: loss {loss:.6f} "
                     f"(held-out {held:.6f}), best {self.best_loss:.6f}{l2}, "
                     f"{time.monotonic() - started:.1f} s")
        return None

    def best_genome(self, genome_id: int | None = None) -> Genome:
        return self.start_genome.with_numbers(self.best, self.generation if genome_id is None else genome_id)

    def best_text(self) -> str:
        cfg = self.config
        l2 = f" (with the L2 term, weight {cfg.l2:g})" if cfg.l2 else ""
        lines = [f"GenChess evolve: the lowest training loss{l2} of {cfg.run_file} after generation "
                 f"{self.generation}: {self.best_loss:.7f}",
                 f"positions {cfg.positions}, labels {self.labels.kind}, optimiser {cfg.optimiser}, "
                 f"numbers {', '.join(cfg.evolve)}, start {cfg.start}, seed {self.seed}"]
        return "".join(f"# {line}\n" for line in lines) + self.best_genome().to_text()

    # ------------------------------------------------------------ games decide

    def validate(self, executor) -> None:
        super().validate(executor, self.best_genome(), self.start_genome, "start", "generation")

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        if first:
            return self.start_genome, "the start genome"
        return self.best_genome(), f"the lowest loss after generation {self.generation}"

    # ------------------------------------------------------------ ends

    def on_disk(self) -> str:
        return (f"Generations 1 to {self.generation} are in {self.config.run_file}; run the same "
                f"command to resume.")

    def done_this_run(self) -> str:
        return f"{self.generation - self.first_generation} generations"

    def report(self, wall: float) -> None:
        cfg = self.config
        self.out(f"Best training loss {self.best_loss:.6f} after {self.generation} generations: "
                 f"{cfg.companion('_best.genome')} (genchess --genome plays it). Games decide: "
                 f"genchess match genchess:{cfg.companion('_best.genome')} "
                 f"genchess:{cfg.companion('_start.genome')} --tc 10+0.1 --sprt")


METHOD = Method(
    name="evolve",
    summary="any genome kind's numbers tuned on a labelled position set (the Texel loss) by "
            "CMA-ES, a genetic algorithm or (linear kinds) Adam, validated by games",
    plots="genchess.train.evolve_plots:plot_run", recognises=is_evolve_records,
    keys=EVOLVE_KEYS, config=EvolveConfig, trainer=EvolveTrainer, check=check_evolve,
    files="<run file> (losses per generation, validation matches), <run file>_genomes.txt "
          "(each generation's best), <run file>_best.genome (genchess --genome plays it), "
          "<run file>_start.genome, <run file>_state.pickle (the optimiser's state)")
