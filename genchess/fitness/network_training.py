"""Training the network kind: a 768 -> 2H -> 1 perspective network by minibatch Adam.

The model is the one the engine's integer inference computes (and the contract
between the two: change one, change both):

- each side sees the board as its own: a piece of colour pc and kind k (P N B R Q K)
  on square sq is, for perspective c (0 White, 1 Black), input
  ((pc ^ c) * 6 + k) * 64 + (sq ^ (56 * c)): its own pieces first, ranks flipped
  for Black;
- one first layer for both sides: acc = b1 + the rows of W1 [768, H] of the
  perspective's pieces, for the side to move (us) and the other side (them);
- out = b2 + act(acc_us) . w2[:H] + act(acc_them) . w2[H:], act crelu (clip to
  [0, 1]) or screlu (crelu squared), and out * SCALE centipawns for the side to
  move, negated for White's view when Black is to move;
- with the piece-square term, out also gains (us . P - them . P) / 2: a linear part
  that starts as the usual piece values (psqt_start), so the hidden layer need only
  learn what is not linear.

So the evaluation of a position and of its colour-flipped mirror are the same
number for their side to move, with nothing learnt to make them so.

Trade-off: numpy and scipy only, no torch. The first layer is a sparse product
(about 30 inputs of 768 a side), forward and back (dW1 = us^T d_acc_us +
them^T d_acc_them), on one core: about 200,000 positions a CPU-second at H = 128
and 350,000 at H = 64 (measured on the 110k sample set, 2026-11-29), so tens of
epochs over a few million positions take an hour or two; a GPU trainer (bullet) is
the tool beyond that. On the sample set the network overfits within ten epochs
(H = 128: held-out mentor loss 0.016 against 0.006 on the training part):
`flip_files` adds the a <-> h mirror of each position without castling rights,
which brings it to 0.0150. The loss is loss.py's Texel loss on
cp from White's view, so the network learns the result, mentor or mix labels with
the K's every linear kind's tuner uses (fitness/scoring.py's fitted_labels).

Weights are clipped after every step to what the int16 quantisation holds (W1_LIMIT,
W2_LIMIT), so a trained float network quantises without overflow. The optimiser is
gradient.py's Adam step over the four arrays; the learning rate is multiplied by
`rate_drop` once, at the epoch `drop_at` of the way through the run. The whole state
(weights, moments, step count, the shuffling generator, epochs done, history) is
one .npz written atomically, so a run resumed after any epoch is the uninterrupted
run bit for bit.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

from genchess.files import write_atomically
from genchess.fitness.features import CHUNK, occupancy
from genchess.fitness.gradient import adam_move
from genchess.fitness.loss import Labels, loss_and_slope

from genchess.genome.network import ACTIVATIONS, INPUTS, ORDER_VALUES, QB
from genchess.genome.network import SCALE as _SCALE

SCALE = float(_SCALE)                   # centipawns per unit of the output (the genome's)
W1_LIMIT = 1.98                         # |W1|, |b1| and |w2|: what the quantised engine's
W2_LIMIT = 127 / QB                     # int16 arithmetic holds without overflow (network.py's
                                        # check_ranges: 32 pieces' weights, activation x weight)
PSQT_LIMIT = 10.0                       # |P|: 4000 centipawns a piece, far above any piece's worth
FORMAT = 1                              # the saved state's layout
STATE_ARRAYS = [prefix + name for name in ("w1", "b1", "w2", "b2") for prefix in ("", "m_", "v_")]


def psqt_start() -> np.ndarray:
    """The piece-square term's start: each piece its usual worth (ORDER_VALUES, the
    king none) on every square, its own side's pieces up, the enemy's down, in
    output units."""
    worth = np.array(ORDER_VALUES) * 100.0 / float(_SCALE)
    return np.concatenate([np.repeat(worth, 64), np.repeat(-worth, 64)])

REVERSED_BITS = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)

# A Black perspective's input of a White-perspective index j is BLACK_VIEW[j]:
# colours swapped (own pieces first), ranks flipped.
_piece, _square = np.divmod(np.arange(INPUTS), 64)
BLACK_VIEW = (((_piece + 6) % 12) * 64 + (_square ^ 56)).astype(np.int32)


def network_inputs(positions) -> tuple[object, object]:
    """(us, them): scipy.sparse CSR float32 [n, 768] with a 1 for each input of the
    side to move's perspective and of the other side's."""
    from scipy import sparse
    n = len(positions)
    parts = {"us": ([], []), "them": ([], [])}
    for start in range(0, n, CHUNK):
        white = occupancy(positions.pieces[start:start + CHUNK]).reshape(-1, INPUTS)
        black = white[:, BLACK_VIEW]            # (BLACK_VIEW is its own inverse)
        black_to_move = np.asarray(positions.side[start:start + CHUNK], dtype=bool)[:, None]
        for name, view in (("us", np.where(black_to_move, black, white)),
                           ("them", np.where(black_to_move, white, black))):
            rows, columns = np.nonzero(view)    # row-major: each row's inputs in order
            parts[name][0].append(np.bincount(rows, minlength=len(view)))
            parts[name][1].append(columns.astype(np.int32))
    matrices = []
    for name in ("us", "them"):
        counts, columns = parts[name]
        indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts + [np.zeros(0, int)]))])
        indices = np.concatenate(columns + [np.zeros(0, np.int32)])
        matrices.append(sparse.csr_matrix((np.ones(len(indices), dtype=np.float32), indices,
                                           indptr.astype(np.int64)), shape=(n, INPUTS)))
    return matrices[0], matrices[1]


def activate(x: np.ndarray, activation: str) -> tuple[np.ndarray, np.ndarray]:
    """(act(x), act'(x)); the derivative is 0 outside (0, 1), the usual subgradient."""
    clipped = np.clip(x, 0.0, 1.0)
    inside = (x > 0.0) & (x < 1.0)
    if activation == "crelu":
        return clipped, inside.astype(x.dtype)
    return clipped * clipped, np.where(inside, 2.0 * clipped, 0.0).astype(x.dtype)


@dataclass
class FloatNetwork:
    """The float model: w1 [768, H], b1 [H], w2 [2H], b2 (a float), and psqt [768]
    or None; any float dtype, the inputs' dtype should match (float64 for checks,
    float32 to train)."""
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    activation: str = "screlu"
    psqt: np.ndarray | None = None

    def __post_init__(self):
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, "
                             f"not {self.activation!r}")

    @property
    def hidden(self) -> int:
        return self.w1.shape[1]

    @classmethod
    def initial(cls, hidden: int, activation: str = "screlu", seed: int = 0,
                dtype=np.float32, psqt: bool = False) -> FloatNetwork:
        """A small random network: each accumulator starts near 0.25 (inside the
        activation's slope, where every unit learns), the output near 0 (a few
        centipawns), so the first steps learn from the labels, not from noise."""
        if hidden < 1:
            raise ValueError(f"the hidden layer needs at least one unit, not {hidden}")
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, 1.0 / math.sqrt(INPUTS), (INPUTS, hidden))
        b1 = np.full(hidden, 0.25)
        w2 = rng.normal(0.0, 0.01, 2 * hidden)
        return cls(w1.astype(dtype), b1.astype(dtype), w2.astype(dtype), 0.0, activation,
                   psqt_start().astype(dtype) if psqt else None)

    def astype(self, dtype) -> FloatNetwork:
        return FloatNetwork(self.w1.astype(dtype), self.b1.astype(dtype), self.w2.astype(dtype),
                            float(self.b2), self.activation,
                            None if self.psqt is None else self.psqt.astype(dtype))

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name (b2 as a 0-d array): what Adam moves."""
        arrays = {"w1": self.w1, "b1": self.b1, "w2": self.w2,
                  "b2": np.asarray(self.b2, dtype=self.w1.dtype)}
        if self.psqt is not None:
            arrays["psqt"] = self.psqt
        return arrays

    def _linear(self, us, them):
        """The piece-square term's part of the output (0 without one)."""
        if self.psqt is None:
            return 0.0
        return 0.5 * (np.asarray(us @ self.psqt) - np.asarray(them @ self.psqt))

    def _hidden(self, us, them):
        acc_us = np.asarray(us @ self.w1) + self.b1
        acc_them = np.asarray(them @ self.w1) + self.b1
        return activate(acc_us, self.activation), activate(acc_them, self.activation)

    def forward(self, us, them) -> np.ndarray:
        """out [n]: the side to move's score in units of SCALE centipawns."""
        (a_us, _), (a_them, _) = self._hidden(us, them)
        h = self.hidden
        return a_us @ self.w2[:h] + a_them @ self.w2[h:] + self.b2 + self._linear(us, them)

    def cp_white(self, us, them, side) -> np.ndarray:
        """Centipawns from White's view (side: 0 White to move, 1 Black)."""
        return self.forward(us, them) * SCALE * _white_sign(side)

    def loss_and_gradient(self, us, them, side, target, k) -> tuple[float, dict[str, np.ndarray]]:
        """The Texel loss against `target` at `k` (Labels.target, Labels.k) and its exact gradient by
        each array (arrays()' names), backpropagated through the sparse product."""
        (a_us, da_us), (a_them, da_them) = self._hidden(us, them)
        h = self.hidden
        out = a_us @ self.w2[:h] + a_them @ self.w2[h:] + self.b2 + self._linear(us, them)
        sign = _white_sign(side)
        loss, slope = loss_and_slope(target, k, out * SCALE * sign)
        d_out = (slope * SCALE * sign).astype(self.w1.dtype)
        d_acc_us = d_out[:, None] * self.w2[:h] * da_us
        d_acc_them = d_out[:, None] * self.w2[h:] * da_them
        gradient = {"w1": np.asarray(us.T @ d_acc_us) + np.asarray(them.T @ d_acc_them),
                    "b1": d_acc_us.sum(axis=0) + d_acc_them.sum(axis=0),
                    "w2": np.concatenate([d_out @ a_us, d_out @ a_them]),
                    "b2": np.asarray(d_out.sum())}
        if self.psqt is not None:
            gradient["psqt"] = 0.5 * (np.asarray(us.T @ d_out) - np.asarray(them.T @ d_out))
        return loss, gradient

    def clip(self) -> None:
        """Keep the weights inside what the quantised engine holds (b2 is free)."""
        np.clip(self.w1, -W1_LIMIT, W1_LIMIT, out=self.w1)
        np.clip(self.b1, -W1_LIMIT, W1_LIMIT, out=self.b1)
        np.clip(self.w2, -W2_LIMIT, W2_LIMIT, out=self.w2)
        if self.psqt is not None:
            np.clip(self.psqt, -PSQT_LIMIT, PSQT_LIMIT, out=self.psqt)


def _white_sign(side) -> np.ndarray:
    return 1.0 - 2.0 * np.asarray(side, dtype=np.float64)


@dataclass
class EpochRecord:
    epoch: int
    train_loss: float           # the mean of the epoch's minibatch losses
    held_out_loss: float        # after the epoch
    seconds: float
    positions_per_second: float
    rate: float                 # the learning rate of the epoch


@dataclass
class _Part:
    """A part of the set ready to train on: its inputs, sides and labels."""
    us: object
    them: object
    side: np.ndarray
    target: np.ndarray
    k: float

    def __len__(self) -> int:
        return self.us.shape[0]

    def rows(self, index) -> _Part:
        return _Part(self.us[index], self.them[index], self.side[index],
                     self.target[index], self.k)


def with_files_flipped(positions):
    """`positions` followed by those without castling rights mirrored a <-> h."""
    from genchess.position_sets.position_set import PositionSet
    flip = positions.subset(positions.castling == 0)
    as_bytes = np.ascontiguousarray(flip.pieces, dtype="<u8").view(np.uint8)    # a byte a rank
    pieces = REVERSED_BITS[as_bytes].view("<u8").reshape(flip.pieces.shape).astype(np.uint64)
    ep = np.where(flip.ep >= 0, flip.ep ^ 7, -1).astype(flip.ep.dtype)
    columns = [(positions.pieces, pieces), (positions.side, flip.side),
               (positions.castling, flip.castling), (positions.ep, ep),
               (positions.result, flip.result), (positions.mentor, flip.mentor)]
    return PositionSet(*(np.concatenate(pair) for pair in columns), source=positions.source)


def _prepared(positions, labels: Labels) -> _Part:
    us, them = network_inputs(positions)
    return _Part(us, them, np.asarray(positions.side), labels.target(positions.result, positions.mentor),
                 labels.k)


class NetworkTrainer:
    """Minibatch Adam on a FloatNetwork over the training part of `positions`
    (PositionSet.split by `held_out` and `seed`), against `labels`.

    An epoch is one pass over the training part in a fresh random order, in
    minibatches of `batch_size`; the learning rate is `learning_rate`, times
    `rate_drop` from epoch ceil(drop_at * epochs) + 1 on (a step schedule: the
    fast part finds the region, the slow part settles in it). After each epoch
    `history` gets an EpochRecord. With `flip_files` the training part also holds
    each of its positions without castling rights mirrored a <-> h (the rules are
    then symmetric, so the labels hold), nearly twice the positions for a small set
    (the held-out part stays as it is). Same set, labels and options: the same weights,
    bit for bit (in one process, or resumed from save() after any epoch)."""

    def __init__(self, positions, labels: Labels, hidden: int = 128, activation: str = "screlu",
                 epochs: int = 10, batch_size: int = 16384, learning_rate: float = 1e-3,
                 rate_drop: float = 0.3, drop_at: float = 0.75, seed: int = 0,
                 held_out: float = 0.1, flip_files: bool = False, progress: bool = True,
                 validation=None, psqt: bool = False):
        if epochs < 1 or batch_size < 1:
            raise ValueError("epochs and the batch size must be at least 1")
        if not 0.0 <= drop_at <= 1.0:
            raise ValueError(f"drop_at must be between 0 and 1, not {drop_at}")
        self.options = {"hidden": hidden, "activation": activation, "epochs": epochs,
                        "batch_size": batch_size, "learning_rate": learning_rate,
                        "rate_drop": rate_drop, "drop_at": drop_at, "seed": seed,
                        "held_out": held_out, "flip_files": flip_files, "psqt": psqt}
        self.progress = progress
        train, test = held_out_parts(positions, held_out, seed, validation)
        if flip_files:
            train = with_files_flipped(train)
        self.fingerprint = _fingerprint(positions) + ("" if validation is None else
                                                      " validated on " + _fingerprint(test))
        self.train_part, self.held_out_part = _prepared(train, labels), _prepared(test, labels)
        self.held_out_positions = test
        self.network = FloatNetwork.initial(hidden, activation, seed, psqt=psqt)
        arrays = self.network.arrays()
        self.m = {name: np.zeros_like(a) for name, a in arrays.items()}
        self.v = {name: np.zeros_like(a) for name, a in arrays.items()}
        self.t = 0
        self.epoch = 0
        self.history: list[EpochRecord] = []
        self.rng = np.random.default_rng(seed)

    def rate(self, epoch: int) -> float:
        """The learning rate of epoch `epoch` (from 1)."""
        o = self.options
        dropped = epoch > math.ceil(o["drop_at"] * o["epochs"])
        return o["learning_rate"] * (o["rate_drop"] if dropped else 1.0)

    def loss(self, part: _Part) -> float:
        if len(part) == 0:
            return math.nan
        cp = self.network.cp_white(part.us, part.them, part.side)
        return loss_and_slope(part.target, part.k, cp)[0]

    def held_out_loss(self) -> float:
        return self.loss(self.held_out_part)

    def train_epoch(self) -> EpochRecord:
        """One epoch of minibatch Adam; its record (also appended to history)."""
        started = time.perf_counter()
        epoch = self.epoch + 1
        rate = self.rate(epoch)
        batch = self.options["batch_size"]
        order = self.rng.permutation(len(self.train_part))
        losses = []
        bar = self._bar(epoch, len(order))
        for start in range(0, len(order), batch):
            rows = self.train_part.rows(order[start:start + batch])
            loss, gradient = self.network.loss_and_gradient(rows.us, rows.them, rows.side, rows.target, rows.k)
            losses.append(loss)
            self._step(gradient, rate)
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
        while self.epoch < self.options["epochs"]:
            self.train_epoch()
        return self.history

    def _step(self, gradient: dict[str, np.ndarray], rate: float) -> None:
        self.t += 1
        net = self.network
        for name, array in net.arrays().items():
            move, self.m[name], self.v[name] = adam_move(gradient[name], self.m[name],
                                                         self.v[name], self.t, rate)
            if name == "b2":
                net.b2 = float(array - move)
            else:
                array -= move.astype(array.dtype, copy=False)
        net.clip()

    def _bar(self, epoch: int, total: int):
        if not self.progress:
            return None
        from tqdm import tqdm
        return tqdm(total=total, desc=f"epoch {epoch}/{self.options['epochs']}", unit="pos",
                    unit_scale=True, leave=False, file=sys.stderr, disable=None)

    def save(self, path) -> None:
        """The whole state as one .npz, replaced atomically."""
        arrays = {}
        for name, array in self.network.arrays().items():
            arrays[name] = array
            arrays["m_" + name] = self.m[name]
            arrays["v_" + name] = self.v[name]
        meta = {"format": FORMAT, "options": self.options, "t": self.t, "epoch": self.epoch,
                "fingerprint": self.fingerprint, "rng": self.rng.bit_generator.state,
                "history": [record.__dict__ for record in self.history]}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.array(json.dumps(meta)), **arrays)
        write_atomically(path, buffer.getvalue())

    def load(self, path) -> None:
        """Take the state save() wrote, on the same set (ValueError, one line, if the
        file is not such a state or was trained on another set or with other options)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                stored = {name: data[name] for name in data.files}
            meta = json.loads(str(stored.pop("meta")))
            needed = STATE_ARRAYS + (["psqt", "m_psqt", "v_psqt"] if self.options["psqt"] else [])
            missing = [name for name in needed if name not in stored]
            if missing:
                raise KeyError(", ".join(missing))
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{path}: not a network trainer's state ({e})") from None
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: a trainer state of format {meta.get('format')}, not {FORMAT}")
        if meta["fingerprint"] != self.fingerprint:
            raise ValueError(f"{path}: trained on another position set")
        meta["options"].setdefault("psqt", False)          # a state from before the term
        if meta["options"] != self.options:
            changed = sorted(k for k in self.options if meta["options"].get(k) != self.options[k])
            raise ValueError(f"{path}: trained with other options ({', '.join(changed)})")
        self.network = _stored_network(stored, self.network.activation)
        for name in self.network.arrays():
            self.m[name], self.v[name] = stored["m_" + name], stored["v_" + name]
        self.t, self.epoch = int(meta["t"]), int(meta["epoch"])
        self.rng.bit_generator.state = meta["rng"]
        self.history = [EpochRecord(**record) for record in meta["history"]]


def load_network(path) -> FloatNetwork:
    """The float network in a trainer's saved state (for quantising it)."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        return _stored_network({name: data[name] for name in data.files}, meta["options"]["activation"])


def _stored_network(stored: dict, activation: str) -> FloatNetwork:
    return FloatNetwork(stored["w1"], stored["b1"], stored["w2"], float(stored["b2"]), activation,
                        stored.get("psqt"))


def held_out_parts(positions, held_out: float, seed: int, validation=None):
    """(training part, held-out part): a hashed share of `positions`, or with a
    `validation` set all of `positions` and the validation set without any position
    the training part holds. Positions of one game are alike and share its result,
    so a share of the same games' positions flatters a network that learns the games;
    a set from other games measures what it learned about chess (docs/network.md)."""
    if validation is None:
        return positions.split(held_out, seed)
    seen = np.isin(validation.hashes(), positions.hashes())
    return positions, validation.subset(~seen)


def _fingerprint(positions) -> str:
    """The set a state belongs to: a hash of its positions and labels, in order."""
    digest = hashlib.sha256()
    for column in (positions.pieces, positions.side, positions.result, positions.mentor):
        digest.update(np.ascontiguousarray(column).tobytes())
    return f"{len(positions)}:{digest.hexdigest()[:32]}"
