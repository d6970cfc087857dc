"""The network kind's float model, and its numpy gradient: the reference the fast
trainer is checked against.

The model is the one the engine's integer inference computes (and the contract
between the two: change one, change both):

- each side sees the board as its own: a piece of colour pc and kind k (P N B R Q K)
  on square sq is, for perspective c (0 White, 1 Black), input
  ((pc ^ c) * 6 + k) * 64 + (sq ^ (56 * c)): its own pieces first, ranks flipped
  for Black;
- one first layer for both sides: acc = b1 + the rows of W1 [768, H] of the
  perspective's pieces, for the side to move (us) and the other side (them);
- out = b2[b] + act(acc_us) . w2[b, :H] + act(acc_them) . w2[b, H:], act crelu
  (clip to [0, 1]) or screlu (crelu squared), b the output bucket of the pieces on
  the board (genome/network.py's output_bucket; 0 with one bucket), and out * SCALE
  centipawns for the side to move, negated for White's view when Black is to move;
- with the piece-square term, out also gains (us . P - them . P) / 2: a linear part
  that starts as the usual piece values (psqt_start), so the hidden layer need only
  learn what is not linear;
- with king buckets (genome/network.py's KingLayout), a perspective's inputs are
  offset by 768 times the bucket of its own king's square (on its own seat) and read
  with the files mirrored (square ^ 7) where the layout says so: W1 and P have 768 x K
  rows, K the layout's buckets.

So the evaluation of a position and of its colour-flipped mirror are the same
number for their side to move, with nothing learnt to make them so.

Trade-off: this is numpy and scipy, the first layer a sparse product forward and
back (dW1 = us^T d_acc_us + them^T d_acc_them) on one core, about 150,000 to 200,000
positions a second at H = 128, and its inputs a sparse matrix of the whole set (about
300 bytes a position). That is too slow and too big for tens of millions of
positions, which the Cython kernels (genchess_core/network_fit.pyx) train on instead;
this module stays as their reference, written from the model's definition with
library products whose correctness does not depend on ours (tests/test_network_fit.py
holds the two equal), and as the float model the trainer keeps and quantises.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from genchess.fitness.features import CHUNK, occupancy
from genchess.optimise.adam import adam_move
from genchess.fitness.loss import loss_and_slope
from genchess.genome.network import ACTIVATIONS, INPUTS, ORDER_VALUES, QB, KingLayout, output_bucket
from genchess.genome.network import SCALE as _SCALE

SCALE = float(_SCALE)                   # centipawns per unit of the output (the genome's)
W1_LIMIT = 1.98                         # |W1|, |b1| and |w2|: what the quantised engine's
W2_LIMIT = 127 / QB                     # int16 arithmetic holds without overflow (network.py's
                                        # check_ranges: 32 pieces' weights, activation x weight)
PSQT_LIMIT = 10.0                       # |P|: 4000 centipawns a piece, far above any piece's worth
LIMITS = {"w1": W1_LIMIT, "b1": W1_LIMIT, "w2": W2_LIMIT, "b2": math.inf, "psqt": PSQT_LIMIT}


def psqt_start(king_buckets: int = 1) -> np.ndarray:
    """The piece-square term's start: each piece its usual worth (ORDER_VALUES, the
    king none) on every square, its own side's pieces up, the enemy's down, in
    output units; the same in every king bucket."""
    worth = np.array(ORDER_VALUES) * 100.0 / float(_SCALE)
    return np.tile(np.concatenate([np.repeat(worth, 64), np.repeat(-worth, 64)]), king_buckets)


REVERSED_BITS = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)

# A Black perspective's input of a White-perspective index j is BLACK_VIEW[j]:
# colours swapped (own pieces first), ranks flipped.
_piece, _square = np.divmod(np.arange(INPUTS), 64)
BLACK_VIEW = (((_piece + 6) % 12) * 64 + (_square ^ 56)).astype(np.int32)


OWN_KING = slice(5 * 64, 6 * 64)        # a perspective's own king's inputs (its own seat)


def network_inputs(positions, kings: KingLayout = KingLayout.NONE) -> tuple[object, object]:
    """(us, them): scipy.sparse CSR float32 [n, 768K] with a 1 for each input of the
    side to move's perspective and of the other side's, K the king layout's buckets."""
    from scipy import sparse
    n = len(positions)
    inputs = INPUTS * kings.buckets
    table = np.array(kings.table, dtype=np.int32)
    flips = np.frombuffer(kings.flips(), dtype=np.uint8).astype(np.int32)
    parts = {"us": ([], []), "them": ([], [])}
    for start in range(0, n, CHUNK):
        white = occupancy(positions.pieces[start:start + CHUNK]).reshape(-1, INPUTS)
        black = white[:, BLACK_VIEW]            # (BLACK_VIEW is its own inverse)
        black_to_move = np.asarray(positions.side[start:start + CHUNK], dtype=bool)[:, None]
        for name, view in (("us", np.where(black_to_move, black, white)),
                           ("them", np.where(black_to_move, white, black))):
            king = np.argmax(view[:, OWN_KING], axis=1)         # the side's king, on its own seat
            rows, columns = np.nonzero(view)    # row-major: each row's inputs in order
            columns = table[king][rows] * INPUTS + (columns ^ flips[king][rows])
            order = np.lexsort((columns, rows))                 # each row's inputs in order again
            rows, columns = rows[order], columns[order]
            parts[name][0].append(np.bincount(rows, minlength=len(view)))
            parts[name][1].append(columns.astype(np.int32))
    matrices = []
    for name in ("us", "them"):
        counts, columns = parts[name]
        indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts + [np.zeros(0, int)]))])
        indices = np.concatenate(columns + [np.zeros(0, np.int32)])
        matrices.append(sparse.csr_matrix((np.ones(len(indices), dtype=np.float32), indices,
                                           indptr.astype(np.int64)), shape=(n, inputs)))
    return matrices[0], matrices[1]


def with_files_flipped(positions):
    """`positions` followed by those without castling rights mirrored a <-> h (the
    rules are symmetric there, so the labels hold)."""
    from genchess.position_sets.position_set import PositionSet
    flip = positions.subset(positions.castling == 0)
    as_bytes = np.ascontiguousarray(flip.pieces, dtype="<u8").view(np.uint8)    # a byte a rank
    pieces = REVERSED_BITS[as_bytes].view("<u8").reshape(flip.pieces.shape).astype(np.uint64)
    ep = np.where(flip.ep >= 0, flip.ep ^ 7, -1).astype(flip.ep.dtype)
    columns = [(positions.pieces, pieces), (positions.side, flip.side),
               (positions.castling, flip.castling), (positions.ep, ep),
               (positions.result, flip.result), (positions.mentor, flip.mentor)]
    return PositionSet(*(np.concatenate(pair) for pair in columns), source=positions.source)


def activate(x: np.ndarray, activation: str) -> tuple[np.ndarray, np.ndarray]:
    """(act(x), act'(x)); the derivative is 0 outside (0, 1), the usual subgradient."""
    clipped = np.clip(x, 0.0, 1.0)
    inside = (x > 0.0) & (x < 1.0)
    if activation == "crelu":
        return clipped, inside.astype(x.dtype)
    return clipped * clipped, np.where(inside, 2.0 * clipped, 0.0).astype(x.dtype)


@dataclass
class FloatNetwork:
    """The float model: w1 [768K, H], b1 [H], w2 [B, 2H], b2 [B] (B output buckets, K
    king buckets), and psqt [768K] or None; any float dtype, the inputs' dtype should match (float64
    for checks, float32 to train)."""
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    activation: str = "screlu"
    psqt: np.ndarray | None = None

    def __post_init__(self):
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, "
                             f"not {self.activation!r}")
        dtype = self.w1.dtype
        self.w2 = np.asarray(self.w2, dtype=dtype).reshape(-1, 2 * self.hidden)
        self.b2 = np.asarray(self.b2, dtype=dtype).reshape(-1)
        if len(self.b2) != len(self.w2):
            raise ValueError(f"{len(self.w2)} buckets of output weights but {len(self.b2)} biases")

    @property
    def hidden(self) -> int:
        return self.w1.shape[1]

    @property
    def buckets(self) -> int:
        return len(self.b2)

    @property
    def king_buckets(self) -> int:
        return self.w1.shape[0] // INPUTS

    @classmethod
    def initial(cls, hidden: int, activation: str = "screlu", seed: int = 0,
                dtype=np.float32, psqt: bool = False, buckets: int = 1, king_buckets: int = 1) -> FloatNetwork:
        """A small random network: each accumulator starts near 0.25 (inside the
        activation's slope, where every unit learns), the output near 0 (a few
        centipawns), so the first steps learn from the labels, not from noise."""
        if hidden < 1:
            raise ValueError(f"the hidden layer needs at least one unit, not {hidden}")
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, 1.0 / math.sqrt(INPUTS), (INPUTS * king_buckets, hidden))
        b1 = np.full(hidden, 0.25)
        w2 = rng.normal(0.0, 0.01, (buckets, 2 * hidden))
        return cls(w1.astype(dtype), b1.astype(dtype), w2.astype(dtype), np.zeros(buckets, dtype),
                   activation, psqt_start(king_buckets).astype(dtype) if psqt else None)

    def astype(self, dtype) -> FloatNetwork:
        return FloatNetwork(*(a.astype(dtype) for a in (self.w1, self.b1, self.w2, self.b2)),
                            self.activation, None if self.psqt is None else self.psqt.astype(dtype))

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name: what Adam moves."""
        arrays = {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}
        if self.psqt is not None:
            arrays["psqt"] = self.psqt
        return arrays

    def _buckets(self, us) -> np.ndarray:
        return output_bucket(np.diff(us.indptr), self.buckets)         # inputs = pieces

    def _linear(self, us, them):
        """The piece-square term's part of the output (0 without one)."""
        if self.psqt is None:
            return 0.0
        return 0.5 * (np.asarray(us @ self.psqt) - np.asarray(them @ self.psqt))

    def _hidden(self, us, them):
        acc_us = np.asarray(us @ self.w1) + self.b1
        acc_them = np.asarray(them @ self.w1) + self.b1
        return activate(acc_us, self.activation), activate(acc_them, self.activation)

    def _output(self, a_us, a_them, bucket, us, them):
        h = self.hidden
        w2 = self.w2[bucket]                                            # each row's bucket
        return ((a_us * w2[:, :h]).sum(axis=1) + (a_them * w2[:, h:]).sum(axis=1) + self.b2[bucket]
                + self._linear(us, them))

    def forward(self, us, them) -> np.ndarray:
        """out [n]: the side to move's score in units of SCALE centipawns."""
        (a_us, _), (a_them, _) = self._hidden(us, them)
        return self._output(a_us, a_them, self._buckets(us), us, them)

    def cp_white(self, us, them, side) -> np.ndarray:
        """Centipawns from White's view (side: 0 White to move, 1 Black)."""
        return self.forward(us, them) * SCALE * _white_sign(side)

    def loss_and_gradient(self, us, them, side, target, k) -> tuple[float, dict[str, np.ndarray]]:
        """The Texel loss against `target` at `k` (Labels.target, Labels.k) and its
        exact gradient by each array (arrays()' names), backpropagated through the
        sparse product."""
        (a_us, da_us), (a_them, da_them) = self._hidden(us, them)
        h = self.hidden
        bucket = self._buckets(us)
        out = self._output(a_us, a_them, bucket, us, them)
        sign = _white_sign(side)
        loss, slope = loss_and_slope(target, k, out * SCALE * sign)
        d_out = (slope * SCALE * sign).astype(self.w1.dtype)
        w2 = self.w2[bucket]
        d_acc_us = d_out[:, None] * w2[:, :h] * da_us
        d_acc_them = d_out[:, None] * w2[:, h:] * da_them
        g_w2 = np.zeros_like(self.w2)
        g_b2 = np.zeros_like(self.b2)
        for b in range(self.buckets):
            rows = bucket == b
            g_w2[b] = np.concatenate([d_out[rows] @ a_us[rows], d_out[rows] @ a_them[rows]])
            g_b2[b] = d_out[rows].sum()
        gradient = {"w1": np.asarray(us.T @ d_acc_us) + np.asarray(them.T @ d_acc_them),
                    "b1": d_acc_us.sum(axis=0) + d_acc_them.sum(axis=0), "w2": g_w2, "b2": g_b2}
        if self.psqt is not None:
            gradient["psqt"] = 0.5 * (np.asarray(us.T @ d_out) - np.asarray(them.T @ d_out))
        return loss, gradient

    def clip(self) -> None:
        """Keep the weights inside what the quantised engine holds (b2 is free)."""
        for name, array in self.arrays().items():
            np.clip(array, -LIMITS[name], LIMITS[name], out=array)


def _white_sign(side) -> np.ndarray:
    return 1.0 - 2.0 * np.asarray(side, dtype=np.float64)


class _Part:
    """A part of the set ready for the reference: its inputs, sides and labels."""

    def __init__(self, positions, labels, kings: KingLayout):
        self.us, self.them = network_inputs(positions, kings)
        self.side = np.asarray(positions.side)
        self.target, self.k = labels.target(positions.result, positions.mentor), labels.k

    def __len__(self) -> int:
        return self.us.shape[0]


class NumpyKernels:
    """The trainer's minibatch arithmetic in numpy and scipy (network_training.py's
    FastKernels is the other): the reference. Its inputs are built for the whole
    training part, with the flipped rows after the records as the trainer numbers them."""

    def __init__(self, train, held_out, labels, flip_files: bool, kings: KingLayout = KingLayout.NONE):
        positions = train.positions()
        self.train = _Part(with_files_flipped(positions) if flip_files else positions, labels, kings)
        self.held_out = _Part(held_out.positions(), labels, kings)

    def gradient(self, network: FloatNetwork, rows: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        part = self.train
        return network.loss_and_gradient(part.us[rows], part.them[rows], part.side[rows],
                                         part.target[rows], part.k)

    def train_batch(self, network: FloatNetwork, rows: np.ndarray, parameters, m, v, t: int,
                    rate: float) -> float:
        """The minibatch's gradient, then Adam's t-th step; its loss."""
        loss, gradient = self.gradient(network, rows)
        self.step(parameters, gradient, m, v, t, rate)
        return loss

    def step(self, parameters, gradient: dict, m, v, t: int, rate: float) -> None:
        """Adam's step (optimise/adam.py's adam_move) on every array, then the limits; the
        arrays are those of the trainer's FlatArrays, changed in place."""
        for name, array in parameters.arrays.items():
            move, m.arrays[name][...], v.arrays[name][...] = adam_move(
                gradient[name], m.arrays[name], v.arrays[name], t, rate)
            array -= move.astype(array.dtype, copy=False)
            np.clip(array, -LIMITS[name], LIMITS[name], out=array)

    def held_out_cp(self, network: FloatNetwork) -> np.ndarray:
        part = self.held_out
        if len(part) == 0:
            return np.zeros(0)
        return network.cp_white(part.us, part.them, part.side)
