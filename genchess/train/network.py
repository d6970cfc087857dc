"""Method `network`: a network genome trained by gradients on a labelled position set.

A generation is an epoch of minibatch Adam (fitness/network_training.py) over the
set's training part; after each, the float network is quantised into the genome the
engine plays (genome/network.py) and scored on the held-out part twice: as floats
and through the C evaluation itself, so the records show what quantisation costs.
The epoch with the lowest held-out loss of the quantised network is the best
genome, which `genchess --genome RUN_FILE` plays. Validation games (the best against
the default genome) and the champion's SPRT are the scaffold's, as for every method:
a loss is a hint, games decide.

Files: the run file (a header line, then one line per epoch and per validation
match), <run file>_state.npz (the trainer's whole state: weights, Adam's moments,
the shuffling generator; resumed exactly after any epoch), <run file>_best.genome
(the lowest held-out loss) and <run file>_last.genome (the latest epoch).
A kill between an epoch's line and the state replays that epoch, bit for bit the
same, without writing its line twice.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

from genchess.files import write_atomically
from genchess.genome import Genome, GenomeError, NetworkGenome, default_genome, load_genome
from genchess.fitness.network_training import DEFAULTS, NetworkSettings
from genchess.genome.network import ACTIVATIONS, HIDDEN_RANGE, MAX_BUCKETS, architecture_text
from genchess.genome.run_formats import (epoch_line, epoch_losses, is_network_records, network_header,
                                         validated_steps)
from genchess.train.config import (GAME_INCREMENT, GAME_TIME, POSITION_KEYS,
                                   CommonSettings, ConfigError, Key, PositionSettings, check_labels)
from genchess.train.records import AppendFile, set_aside, split_complete
from genchess.train.registry import Method
from genchess.train.scaffold import PositionFitnessRun

NETWORK_KEYS = [
    Key("run file", "path", "the run's records; <file>_state.npz and <file>_best.genome beside "
        "it; an existing run is resumed", "run_file"),
    *(key.with_kind("sets", "labelled position set (packed .gcpos(.gz), the data machine's "
                    "chains, EPD), a folder of them read as one set, or several of either "
                    "separated by commas, read as one in that order (data/net1, data/net2: "
                    "every generation's data)") if key.name == "positions" else key
      for key in POSITION_KEYS),
    Key("chunks", "int", "read only the first N sets of a 'positions' folder, in name order (of "
        "several, counted across them in order): a folder the data machine is still growing "
        "gains chunks at the end, so the run reads, and resumes on, the same positions (default: "
        "every set)", "chunks", 1),
    Key("hidden", "int", "hidden units per side (a multiple of 16, 16 to 1024; 128, 256 and 512 "
        "as the data allows)", "hidden", HIDDEN_RANGE[0], hi=HIDDEN_RANGE[1]),
    Key("activation", "choice", "crelu (clipped to [0, 1]) or screlu (that, squared)", "activation",
        choices=ACTIVATIONS),
    Key("output buckets", "int", "output layers by the pieces on the board: bucket (pieces - 2) / "
        f"ceil(32 / buckets), 1 to {MAX_BUCKETS} (8 as the field's networks)", "buckets", 1,
        hi=MAX_BUCKETS),
    Key("kings", "kings", "king buckets of the first layer: 'mirrored,' then 32 bucket numbers "
        "(a side's king on files a to d, rank 1 first, from its own seat; on e to h the board is "
        "read mirrored), or 64 numbers a1 to h8 (default: none, one bucket)", "kings"),
    Key("threads", "int", "threads of the trainer's kernels (default: the cores, up to two, the "
        "threads that train at once; two train 1.55 times as fast as one: "
        "docs/studies/network-trainer.md)", "threads", 1),
    Key("epochs", "int", "passes over the training part (before: generations)", "generations", 1),
    Key("learning rate", "float", "Adam's step", "learning_rate", 0),
    Key("batch size", "int", "positions a step", "batch_size", 1),
    Key("rate drop", "float", "the learning rate is multiplied by this once, at 'drop at' of "
        "the epochs", "rate_drop", 0, hi=1),
    Key("drop at", "float", "the share of the epochs after which the rate drops", "drop_at", 0, hi=1),
    Key("validation positions", "set", "a set (or folder) from other games on which the held-out "
        "loss is measured, instead of a 'held out' share of the positions: the positions of one "
        "game are alike, so a share of the same games flatters a network", "validation"),
    Key("psqt", "bool", "a piece-square term beside the hidden layer (Stockfish's PSQT): a "
        "linear part that starts as the usual piece values, so the hidden layer learns what is "
        "not linear (measured: docs/network.md)", "psqt"),
    Key("flip files", "bool", "also train on each position without castling rights mirrored "
        "a <-> h (nearly twice the positions for a small set)", "flip_files"),
    Key("search genes", "path", "a genome whose search genes (its 'Search' lines, tuned by games) "
        "the trained network carries, so it plays the search of the genome it is to replace "
        "(default: the default genome's)", "search_genes"),
    Key("validation games", "int", "every validation interval, the best network so far plays "
        "this many games against the default genome (0: none)", "validation_games", 0),
    Key("validation interval", "int", "epochs between validation matches (also the champion's "
        "clock: champion interval counts epochs here)", "validation_interval", 1),
    GAME_TIME.with_help("seconds per side in validation and champion games"),
    GAME_INCREMENT.with_help("seconds added per move in those games"),
]


@dataclass
class NetworkConfig(PositionSettings, CommonSettings):
    """The trainer's own defaults are NetworkSettings' (written there once)."""
    path: str
    run_file: Path
    hidden: int = DEFAULTS.hidden
    activation: str = DEFAULTS.activation
    buckets: int = DEFAULTS.buckets
    kings: str = DEFAULTS.kings
    generations: int = DEFAULTS.epochs
    learning_rate: float = DEFAULTS.learning_rate
    batch_size: int = DEFAULTS.batch_size
    rate_drop: float = DEFAULTS.rate_drop
    drop_at: float = DEFAULTS.drop_at
    flip_files: bool = DEFAULTS.flip_files
    psqt: bool = DEFAULTS.psqt
    chunks: int | None = None         # every set in the positions folder
    threads: int | None = None        # the trainer's default (network_training.default_threads)
    validation: Path | None = None
    search_genes: Path | None = None  # None: the default genome's
    validation_games: int = 0
    validation_interval: int = 5
    game_time: float = 1.0
    increment: float = 0.01
    method = "network"

    def companion(self, suffix: str) -> Path:
        return Path(f"{self.run_file}{suffix}")

    def trainer_settings(self, seed: int) -> NetworkSettings:
        return NetworkSettings(hidden=self.hidden, activation=self.activation, psqt=self.psqt,
                               buckets=self.buckets, kings=self.kings, epochs=self.generations,
                               batch_size=self.batch_size, learning_rate=self.learning_rate,
                               rate_drop=self.rate_drop, drop_at=self.drop_at,
                               flip_files=self.flip_files, seed=seed)


def check_network(path: Path, values: dict[str, object], lines: dict[str, int]) -> None:
    if "positions" not in values:
        raise ConfigError(f"{path}: missing key: positions (the labelled set to train on)")
    hidden = values.get("hidden", DEFAULTS.hidden)
    if hidden % 16:
        raise ConfigError(f"{path}:{lines['hidden']}: hidden must be a multiple of 16, not {hidden}")
    chunks = values.get("chunks")
    if chunks is not None:
        from genchess.position_sets.position_set import PositionSetError, set_parts
        try:
            set_parts(values["positions"], chunks)
        except (PositionSetError, OSError) as e:
            raise ConfigError(f"{path}:{lines['chunks']}: {e}") from None
    check_labels(path, values, lines)


class NetworkRun(PositionFitnessRun):
    def __init__(self, config: NetworkConfig, out=print, executor_factory=None, progress=True):
        super().__init__(config, out, executor_factory, progress)
        from genchess.fitness.network_training import NetworkTrainer, training_parts
        from genchess.fitness.scoring import fitted_labels
        from genchess.position_sets.records import PackedSet
        cfg = config
        positions = PackedSet.load(cfg.positions, cfg.chunks)
        validation = None if cfg.validation is None else PackedSet.load(cfg.validation)
        try:
            self.labels = fitted_labels(cfg.positions, positions, cfg.labels, cfg.wdl, cfg.chunks)
            train, held_out = training_parts(positions, cfg.held_out, self.seed, validation)
            self.trainer = NetworkTrainer(train, held_out, self.labels, cfg.trainer_settings(self.seed),
                                          threads=cfg.threads, progress=progress and not cfg.quiet)
        except ValueError as e:
            raise ConfigError(f"{cfg.path}: {e} ({cfg.positions})") from None
        self.held_out_set = self.trainer.held_out       # what the engine's loss is scored on
        self.set_size = len(positions)
        self.set_fingerprint = positions.fingerprint()
        self.opponent = default_genome()
        try:
            self.search_source = (self.opponent if cfg.search_genes is None
                                  else load_genome(cfg.search_genes))
        except GenomeError as e:
            raise ConfigError(f"{cfg.path}: search genes: {e}") from None
        self.best_loss = math.inf
        self.validated: set[int] = set()
        self.written = 0

    @property
    def run_file(self) -> Path:
        return self.config.run_file

    @property
    def games_played(self) -> int:
        """The champion's clock here: epochs (the method plays no games to train)."""
        return self.trainer.epoch

    @property
    def steps_done(self) -> int:
        return self.trainer.epoch

    # ------------------------------------------------------------ files

    def open(self) -> None:
        cfg = self.config
        state = cfg.companion("_state.npz")
        if state.exists():
            try:
                self.trainer.load(state)
            except ValueError as e:
                raise ConfigError(str(e)) from None
            self.read_records()
        elif cfg.run_file.exists() and cfg.run_file.stat().st_size:
            raise ConfigError(f"{cfg.run_file}: holds records but {state} is missing: not "
                              f"resumable (move the records away to start afresh)")
        self.first_epoch = self.trainer.epoch
        has_header = cfg.run_file.exists() and cfg.run_file.stat().st_size > 0
        self.records = AppendFile(cfg.run_file)
        if not has_header:
            self.records.write(self.header())
        self.bar = self.progress_bar("network", cfg.generations, unit="epoch")
        if self.bar is not None:
            self.bar.update(self.trainer.epoch)
        self.out(f"{'Resuming' if self.trainer.epoch else 'New'} network run {cfg.run_file}: "
                 f"{self.architecture()}, {self.set_size} positions "
                 f"({self.labels.describe()} labels), epoch {self.trainer.epoch} of {cfg.generations}, "
                 f"{self.trainer.threads} thread{'s' if self.trainer.threads > 1 else ''}")

    def architecture(self) -> str:
        cfg = self.config
        text = architecture_text(cfg.hidden, cfg.activation, cfg.psqt, cfg.buckets)
        kings = self.trainer.settings.king_layout
        return text if kings.is_none else f"{text}, {kings.describe()}"

    def held_out_name(self) -> str:
        if self.config.validation is None:
            return f"held out {self.config.held_out:g}"
        return f"validated on {self.config.validation} ({len(self.held_out_set)})"

    def header(self) -> str:
        cfg = self.config
        return network_header(self.architecture(), cfg.positions, self.set_size, self.held_out_name(),
                              self.labels, cfg.generations, cfg.learning_rate, cfg.rate_drop, cfg.drop_at,
                              cfg.batch_size, cfg.flip_files, self.seed)

    def read_records(self) -> None:
        """After a resume: cut a torn last line, and learn what the records already
        hold (epochs written, validations played, the best quantised loss)."""
        path = self.config.run_file
        if not path.exists():
            return
        good, torn = split_complete(path, path.read_text(encoding="utf-8"), lambda line: True)
        if torn is not None:
            self.out(f"warning: {torn.describe()}")
            set_aside(torn)
        lines = path.read_text(encoding="utf-8").splitlines()
        for epoch, quantised in epoch_losses(lines):
            self.written = max(self.written, epoch)
            if epoch <= self.trainer.epoch:
                self.best_loss = min(self.best_loss, quantised)
        self.validated |= validated_steps(lines)

    def close(self) -> None:
        self.close_bar()
        self.records.close()

    # ------------------------------------------------------------ one epoch

    def finished(self) -> str | None:
        if self.trainer.epoch >= self.config.generations:
            return f"{self.config.generations} epochs done"
        return None

    def genome(self) -> NetworkGenome:
        """The network as the engine plays it: quantised, the trainer's numbers rounded,
        with the search genes of the genome it is to replace."""
        net = self.trainer.network
        return NetworkGenome.from_float(self.trainer.epoch, net.w1, net.b1, net.w2, net.b2,
                                        net.activation, psqt=net.psqt,
                                        kings=self.trainer.settings.king_layout).with_search(self.search_source.search)

    def lineage(self, loss: float) -> str:
        """Which data (and what made it) and how: data made by network n trains n + 1."""
        from genchess.position_sets import provenance
        cfg = self.config
        return (f"{provenance.describe(cfg.positions, self.set_size, self.set_fingerprint, cfg.chunks)}, "
                f"{self.labels.describe()} labels, {self.trainer.epoch} epochs, batch "
                f"{cfg.batch_size}, learning rate {cfg.learning_rate:g}, seed {self.seed}, "
                f"held-out loss {loss:.6f}"
                + f", search genes of {'the default genome' if cfg.search_genes is None else Path(cfg.search_genes).name}"
                + ("" if cfg.validation is None else f" on {Path(cfg.validation).name}"))

    def step(self, executor, deadline) -> str | None:
        started = time.monotonic()
        record = self.trainer.train_epoch()
        genome = self.genome()
        cp = self.held_out_set.evaluate_cp(genome)          # the C evaluation: what plays
        self.quantised_loss = float(self.labels.loss(cp, self.held_out_set.result, self.held_out_set.mentor))
        genome.lineage = self.lineage(self.quantised_loss)
        e = self.trainer.epoch
        if e > self.written:
            self.records.write(epoch_line(e, record.train_loss, record.held_out_loss, self.quantised_loss,
                                          record.rate, record.positions_per_second,
                                          time.monotonic() - started))
            self.written = e
        if self.quantised_loss < self.best_loss:
            self.best_loss = self.quantised_loss
            write_atomically(self.config.companion("_best.genome"),
                             f"# GenChess network: the lowest held-out loss of {self.config.run_file} "
                             f"after epoch {e}\n" + genome.to_text())
        # The last epoch too: a held-out set from other games can prefer an early epoch
        # that games then rank below the last (docs/studies/network-generations.md).
        write_atomically(self.config.companion("_last.genome"),
                         f"# GenChess network: the last epoch of {self.config.run_file} "
                         f"(epoch {e})\n" + genome.to_text())
        self.validate(executor)
        self.trainer.save(self.config.companion("_state.npz"))
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{record.train_loss:.5f}", held_out=f"{self.quantised_loss:.5f}")
        self.say(f"epoch {e}/{self.config.generations}: loss {record.train_loss:.6f}, held-out "
                 f"{record.held_out_loss:.6f} (quantised {self.quantised_loss:.6f}), "
                 f"{record.positions_per_second:.0f} positions/s, {time.monotonic() - started:.1f} s")
        return None

    def best_genome(self) -> Genome:
        try:
            return load_genome(self.config.companion("_best.genome"))
        except GenomeError as e:
            raise ConfigError(str(e)) from None

    # ------------------------------------------------------------ games decide

    def validate(self, executor) -> None:
        super().validate(executor, self.best_genome(), self.opponent, "default", "epoch")

    def champion_candidate(self, first: bool) -> tuple[Genome, str]:
        if first:
            return self.opponent, "the default genome"
        return self.best_genome(), f"the lowest held-out loss after epoch {self.trainer.epoch}"

    # ------------------------------------------------------------ ends

    def on_disk(self) -> str:
        return (f"Epochs 1 to {self.trainer.epoch} are in {self.config.run_file}; run the same "
                f"command to resume.")

    def done_this_run(self) -> str:
        return f"{self.trainer.epoch - self.first_epoch} epochs"

    def report(self, wall: float) -> None:
        cfg = self.config
        self.out(f"Best held-out loss {self.best_loss:.6f} (quantised) after {self.trainer.epoch} "
                 f"epochs: {cfg.companion('_best.genome')} (genchess --genome plays it). Games "
                 f"decide: genchess match genchess:{cfg.companion('_best.genome')} genchess "
                 f"--tc 10+0.1 --sprt")


METHOD = Method(
    name="network",
    summary="a network genome (768x2 -> H -> 1, or 1xB output buckets) trained by minibatch Adam on a labelled position "
            "set, validated by games",
    plots="genchess.train.network_plots:plot_run", recognises=is_network_records,
    keys=NETWORK_KEYS, config=NetworkConfig, trainer=NetworkRun, check=check_network,
    files="<run file> (losses per epoch, validation matches), <run file>_best.genome (genchess "
          "--genome plays it), <run file>_last.genome (the latest epoch's), <run file>_state.npz "
          "(the trainer's state)")
