"""Training the network kind: minibatch Adam on network_model.py's float model, over
a set kept as its packed records.

The loop is written once, here: the epochs, the shuffled minibatches, the learning
rate's schedule (optimise/schedules.py), Adam's moments (its arithmetic is
optimise/adam.py's), the limits, the history and the saved state. What a
minibatch costs is a pair of kernels the loop is given, with one interface (a
minibatch's gradient and Adam's step, together as train_batch or apart, the
held-out evaluations):

- FastKernels, genchess_core/network_fit.pyx: C on every core, the inputs decoded
  from the 32-byte records as each minibatch needs them, so fifty million positions
  train in 1.6 GB of records (docs/studies/network-trainer.md has the speeds);
- network_model.NumpyKernels: numpy and scipy on one core, from a sparse matrix of
  the whole set: the reference, which tests/test_network_fit.py holds the fast
  kernels equal to, step by step.

Both get the same minibatches (the shuffle is the loop's), so a run differs between
them only by the order of float sums. The settings are one object, NetworkSettings,
whose defaults are the only ones (the `network` method's config keys take theirs
from it). Same set, labels and settings: the same weights, bit for bit, in one
process or resumed from save() after any epoch, with any number of threads (the
kernels split no sum between threads). The state is one .npz written atomically:
the weights, Adam's moments and step, the shuffling generator, epochs done, history.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from genchess.files import write_atomically
from genchess.fitness.loss import Labels
from genchess.fitness.network_model import LIMITS, SCALE, FloatNetwork, NumpyKernels
from genchess.genome.network import ACTIVATIONS, MAX_BUCKETS, KingLayout
from genchess.optimise.schedules import StepDrop
from genchess.parallel import usable_cpus

FORMAT = 2                              # the saved state's layout (1: before output buckets)
KERNELS = ("fast", "numpy")


@dataclass(frozen=True)
class NetworkSettings:
    """What a network run trains and how: the one place each default is written."""
    hidden: int = 128                   # units a side
    activation: str = "screlu"
    psqt: bool = True                   # the piece-square term (measured: docs/network.md)
    buckets: int = 1                    # output buckets by material
    kings: str = ""                     # the king buckets' layout (KingLayout's text; "": none)
    epochs: int = 20
    batch_size: int = 1024              # measured on the shipped set (docs/network.md)
    learning_rate: float = 1e-3
    rate_drop: float = 0.3              # the rate is multiplied by this once...
    drop_at: float = 0.75               # ...after this share of the epochs
    flip_files: bool = False            # also each position without castling rights mirrored
    seed: int = 0

    def __post_init__(self):
        problem = None
        if self.hidden < 1:
            problem = f"hidden must be at least 1, not {self.hidden}"
        elif self.activation not in ACTIVATIONS:
            problem = f"activation must be one of {', '.join(ACTIVATIONS)}, not {self.activation!r}"
        elif not 1 <= self.buckets <= MAX_BUCKETS:
            problem = f"buckets must be from 1 to {MAX_BUCKETS}, not {self.buckets}"
        elif self.kings and (layout_problem := _layout_problem(self.kings)):
            problem = f"kings: {layout_problem}"
        elif self.epochs < 1 or self.batch_size < 1:
            problem = "epochs and the batch size must be at least 1"
        elif not self.learning_rate > 0 or not 0 <= self.rate_drop <= 1:
            problem = f"the learning rate must be above 0 and rate_drop from 0 to 1, not " \
                      f"{self.learning_rate:g} and {self.rate_drop:g}"
        elif not 0.0 <= self.drop_at <= 1.0:
            problem = f"drop_at must be between 0 and 1, not {self.drop_at}"
        if problem:
            raise ValueError(problem)

    @property
    def king_layout(self) -> KingLayout:
        return KingLayout.parse(self.kings) if self.kings else KingLayout.NONE

    def rate(self, epoch: int) -> float:
        """The learning rate of epoch `epoch` (from 1): optimise/schedules.py's step drop."""
        return StepDrop(self.learning_rate, self.rate_drop, self.drop_at, self.epochs).rate(epoch)


def _layout_problem(text: str) -> str | None:
    try:
        KingLayout.parse(text)
    except ValueError as e:
        return str(e)
    return None


DEFAULTS = NetworkSettings()


def available_cores() -> int:
    return len(usable_cpus())


def default_threads() -> int:
    """The fast kernels' threads when a run names none: the cores, up to the threads
    that train at once (network_fit.TRAINING_THREADS)."""
    from genchess_core import network_fit
    return max(1, min(available_cores(), network_fit.TRAINING_THREADS))


class FlatArrays:
    """Named arrays that are views of one vector, so that one pass (Adam's step) moves
    them all. The vector starts a cache line (64 bytes): the kernels' threads split each
    array at whole lines for the parts' sum and Adam's step, so that no line is written
    by two of them."""

    def __init__(self, like: dict[str, np.ndarray]):
        dtype = next(iter(like.values())).dtype
        size = sum(a.size for a in like.values())
        raw = np.zeros(size + 64 // dtype.itemsize, dtype=dtype)
        first = (-raw.ctypes.data % 64) // dtype.itemsize
        self.vector = raw[first:first + size]
        self.arrays: dict[str, np.ndarray] = {}
        start = 0
        for name, array in like.items():
            self.arrays[name] = self.vector[start:start + array.size].reshape(array.shape)
            self.arrays[name][...] = array
            start += array.size
        self.ends = np.cumsum([a.size for a in like.values()]).astype(np.intp)


class FastKernels:
    """The minibatch arithmetic in genchess_core.network_fit, on `threads` threads."""

    def __init__(self, train, held_out, labels: Labels, flips: np.ndarray, settings: NetworkSettings,
                 threads: int):
        from genchess_core import network_fit
        self.fit = network_fit
        self.records, self.flips = _bytes(train.records), flips
        self.held_records = _bytes(held_out.records)
        self.held_rows = np.arange(len(held_out), dtype=np.uint32)
        self.no_flips = np.zeros(0, dtype=np.uint32)
        network_fit.check_rows(self.records, self.no_flips, flips)
        kings = settings.king_layout
        self.workspace = network_fit.Workspace(settings.hidden, settings.buckets, threads, bytes(kings.table),
                                               kings.flips())
        self.squared = settings.activation == "screlu"
        self.k, self.wdl, self.threads = labels.k, labels.wdl, threads
        self.gradients: FlatArrays | None = None
        self.limits: np.ndarray | None = None           # each array's, FlatArrays' order

    def _weights(self, network: FloatNetwork) -> list[np.ndarray]:
        psqt = network.psqt if network.psqt is not None else np.zeros(0, network.w1.dtype)
        return [network.w1, network.b1, network.w2, network.b2, psqt]

    def gradient(self, network: FloatNetwork, rows: np.ndarray) -> tuple[float, FlatArrays]:
        if self.gradients is None:
            self.gradients = FlatArrays(network.arrays())
        g = self.gradients.arrays
        loss = self.fit.gradient(self.workspace, self.records, self.flips, rows, *self._weights(network),
                                 g["w1"], g["b1"], g["w2"], g["b2"],
                                 g.get("psqt", np.zeros(0, network.w1.dtype)),
                                 self.squared, SCALE, self.k, self.wdl)
        return loss, self.gradients

    def train_batch(self, network: FloatNetwork, rows: np.ndarray, parameters: FlatArrays, m: FlatArrays,
                    v: FlatArrays, t: int, rate: float) -> float:
        """The minibatch's gradient and Adam's t-th step in one call (one parallel
        region), the network's arrays being `parameters`' views; the minibatch's loss."""
        if self.gradients is None:
            self.gradients = FlatArrays(network.arrays())
        if self.limits is None:
            self.limits = np.array([LIMITS[name] for name in parameters.arrays])
        return self.fit.train_batch(self.workspace, self.records, self.flips, rows, parameters.vector,
                                    self.gradients.vector, m.vector, v.vector, parameters.ends, self.limits,
                                    t, rate, self.squared, SCALE, self.k, self.wdl)

    def held_out_cp(self, network: FloatNetwork) -> np.ndarray:
        return self.fit.evaluate(self.workspace, self.held_records, self.no_flips, self.held_rows,
                                 *self._weights(network), self.squared, SCALE)


def _bytes(records: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(records).view(np.uint8).reshape(-1, records.dtype.itemsize)


@dataclass
class EpochRecord:
    epoch: int
    train_loss: float           # the mean of the epoch's minibatch losses
    held_out_loss: float        # after the epoch
    seconds: float
    positions_per_second: float
    rate: float                 # the learning rate of the epoch


def as_packed(positions):
    """A PackedSet of `positions` (a PackedSet already, or a PositionSet)."""
    from genchess.position_sets.records import PackedSet
    return positions if isinstance(positions, PackedSet) else PackedSet.from_positions(positions)


class NetworkTrainer:
    """Minibatch Adam on a FloatNetwork over `train` (a PackedSet, or a PositionSet),
    scored on `held_out` after each epoch, against `labels`.

    An epoch is one pass over the training rows in a fresh random order, in
    minibatches of settings.batch_size, at settings.rate(epoch); after each,
    `history` gets an EpochRecord. With flip_files the rows are the records and then
    each record without castling rights mirrored a <-> h (the rules are symmetric
    there, so the labels hold): nearly twice the positions for a small set, the
    held-out part as it is. Labels that need the mentor's score train on the
    positions that have one. `kernels` is "fast" or "numpy" (the reference), in
    float32 or, for checks, float64 (`dtype`)."""

    def __init__(self, train, held_out, labels: Labels, settings: NetworkSettings = DEFAULTS, *,
                 kernels: str = "fast", threads: int | None = None, dtype=np.float32,
                 progress: bool = False):
        if kernels not in KERNELS:
            raise ValueError(f"kernels must be one of {', '.join(KERNELS)}, not {kernels!r}")
        train, held_out = as_packed(train), as_packed(held_out)
        if labels.kind != "result":
            train = train.subset(np.isfinite(train.mentor))
            held_out = held_out.subset(np.isfinite(held_out.mentor))
        self.settings, self.labels, self.progress = settings, labels, progress
        self.train, self.held_out = train, held_out
        self.flips = (np.flatnonzero(train.castling == 0).astype(np.uint32) if settings.flip_files
                      else np.zeros(0, dtype=np.uint32))
        self.rows = len(train) + len(self.flips)
        if self.rows >= 2 ** 32:
            raise ValueError(f"{self.rows} training rows: the kernels number them in 32 bits")
        self.fingerprint = f"train {train.fingerprint()}, held out {held_out.fingerprint()}"
        self.identity = {"kernels": kernels, "dtype": np.dtype(dtype).name,
                         "labels": f"{labels.describe()} K {labels.k:.6f}"}
        network = FloatNetwork.initial(settings.hidden, settings.activation, settings.seed,
                                       dtype, settings.psqt, settings.buckets, settings.king_layout.buckets)
        # The weights and Adam's moments, each one vector (the network's arrays its views).
        self.parameters = FlatArrays(network.arrays())
        self.network = FloatNetwork(**self.parameters.arrays, activation=settings.activation)
        self.moments = [FlatArrays({name: np.zeros_like(a) for name, a in network.arrays().items()})
                        for _ in range(2)]
        self.m, self.v = (moments.arrays for moments in self.moments)
        self.t = 0
        self.epoch = 0
        self.history: list[EpochRecord] = []
        self.rng = np.random.default_rng(settings.seed)
        # Every core the kernels can use unless asked: since each thread trains whole
        # parts of a minibatch, two threads train 1.55 times as fast as one on this
        # project's two idle cores (1.66 at 256 units; docs/studies/network-trainer.md).
        self.threads = threads or default_threads()
        if kernels == "fast":
            self.kernels = FastKernels(train, held_out, labels, self.flips, settings, self.threads)
        else:
            self.kernels = NumpyKernels(train, held_out, labels, settings.flip_files, settings.king_layout)

    def held_out_loss(self) -> float:
        if len(self.held_out) == 0:
            return math.nan
        cp = self.kernels.held_out_cp(self.network)
        return float(self.labels.loss(cp, self.held_out.result, self.held_out.mentor))

    def train_epoch(self) -> EpochRecord:
        """One epoch of minibatch Adam; its record (also appended to history)."""
        started = time.perf_counter()
        epoch = self.epoch + 1
        rate = self.settings.rate(epoch)
        batch = self.settings.batch_size
        order = np.arange(self.rows, dtype=np.uint32)
        self.rng.shuffle(order)
        losses = []
        bar = self._bar(epoch, len(order))
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            self.t += 1
            losses.append(self.kernels.train_batch(self.network, rows, self.parameters, *self.moments,
                                                   self.t, rate))
            if bar is not None:
                bar.update(len(rows))
        if bar is not None:
            bar.close()
        train_seconds = time.perf_counter() - started
        record = EpochRecord(epoch, float(np.mean(losses)) if losses else math.nan,
                             self.held_out_loss(), time.perf_counter() - started,
                             len(order) / max(train_seconds, 1e-9), rate)
        self.epoch = epoch
        self.history.append(record)
        return record

    def run(self) -> list[EpochRecord]:
        """The epochs not yet done; the whole history."""
        while self.epoch < self.settings.epochs:
            self.train_epoch()
        return self.history

    def _bar(self, epoch: int, total: int):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=total, desc=f"epoch {epoch}/{self.settings.epochs}", unit="pos",
                    unit_scale=True, leave=False, file=sys.stderr, disable=None)

    # ------------------------------------------------------------ the state

    def save(self, path) -> None:
        """The whole state as one .npz, replaced atomically."""
        arrays = {}
        for name, array in self.network.arrays().items():
            arrays[name] = array
            arrays["m_" + name] = self.m[name]
            arrays["v_" + name] = self.v[name]
        meta = {"format": FORMAT, "settings": dataclasses.asdict(self.settings), **self.identity,
                "t": self.t, "epoch": self.epoch, "fingerprint": self.fingerprint,
                "rng": self.rng.bit_generator.state,
                "history": [record.__dict__ for record in self.history]}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.array(json.dumps(meta)), **arrays)
        write_atomically(path, buffer.getvalue())

    def load(self, path) -> None:
        """Take the state save() wrote, for the same set, labels and settings
        (ValueError, one line, if the file is not such a state or was made otherwise)."""
        needed = [prefix + name for name in self.network.arrays() for prefix in ("", "m_", "v_")]
        try:
            with np.load(path, allow_pickle=False) as data:
                stored = {name: data[name] for name in data.files}
            meta = json.loads(str(stored.pop("meta")))
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{path}: not a network trainer's state ({e})") from None
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: a trainer state of format {meta.get('format')} (a trainer before "
                             f"output buckets); this trainer resumes format {FORMAT}: start the run afresh "
                             f"or finish it with the GenChess that began it")
        missing = [name for name in needed if name not in stored]
        if missing:
            raise ValueError(f"{path}: not a network trainer's state (no {', '.join(missing)})")
        if meta["fingerprint"] != self.fingerprint:
            raise ValueError(f"{path}: trained on another position set")
        settings = dataclasses.asdict(self.settings)
        stored_settings = {"kings": "", **meta["settings"]}     # a state from before king buckets
        if stored_settings != settings:
            changed = sorted(k for k in settings if stored_settings.get(k) != settings[k])
            raise ValueError(f"{path}: trained with other options ({', '.join(changed)})")
        for key, value in self.identity.items():
            if meta.get(key) != value:
                raise ValueError(f"{path}: trained with {key} {meta.get(key)}, not {value}")
        for name, array in self.network.arrays().items():
            array[...] = stored[name]
            self.m[name][...], self.v[name][...] = stored["m_" + name], stored["v_" + name]
        self.t, self.epoch = int(meta["t"]), int(meta["epoch"])
        self.rng.bit_generator.state = meta["rng"]
        self.history = [EpochRecord(**record) for record in meta["history"]]


def load_network(path) -> FloatNetwork:
    """The float network in a trainer's saved state (for quantising it); a state of
    format 1 (one bucket, before 2026-12-06) reads too."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        settings = meta.get("settings") or meta["options"]
        return FloatNetwork(data["w1"], data["b1"], data["w2"], data["b2"], settings["activation"],
                            data["psqt"] if "psqt" in data.files else None)


def training_parts(positions, held_out: float, seed: int, validation=None):
    """(training part, held-out part) of a PackedSet: a hashed share of `positions`
    (PositionSet.split's), or with a `validation` set all of `positions` and the
    validation set without any position the training part holds. Positions of one
    game are alike and share its result, so a share of the same games' positions
    flatters a network that learns the games; a set from other games measures what
    it learned about chess (docs/network.md)."""
    positions = as_packed(positions)
    if validation is None:
        return positions.split(held_out, seed)
    validation = as_packed(validation)
    seen = np.isin(validation.hashes(), positions.hashes())
    return positions, validation.subset(~seen)
