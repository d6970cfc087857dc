"""The network genome: a small perspective network, trained on positions by gradients.

Each side sees the board from its own seat: 768 inputs (its own pieces, then the
enemy's, six kinds on 64 squares, ranks flipped for Black), one hidden layer of H
units whose weights both sides share, and one output from the two hidden layers,
the side to move's first (genchess_core/eval_network.pyx says how it is computed,
genchess/fitness/network_training.py how it is trained). The numbers are integers,
as the engine plays them: the first layer quantised by QA, the output weights by
QB, the output bias by QA * QB; the output times SCALE is centipawns.

The output layer may come in B buckets by material (`-> 1x8`): a position with n
pieces on the board is scored by bucket (n - 2) / ceil(32 / B) of the output
weights and bias, as Bullet's `MaterialCount<B>` output buckets, so an endgame
weighs the hidden units its own way; the first layer (the accumulators) is the
same for every bucket, so a bucketed network costs what an unbucketed one does.

The first layer may come in K buckets by the king's square (`Kings:`, Stockfish's
HalfKA in a small form, as Bullet's `ChessBucketsMirrored`): each side reads its
pieces through the columns of the bucket its own king stands in, 768 x K inputs, and
with `mirrored` a side whose king stands on files e to h sees the board mirrored
a <-> h first, so that 32 king squares span the table. The line gives the bucket of
each king square from the side's own seat (ranks flipped for Black), rank 1 first,
files a to d when mirrored (32 numbers) or a to h (64):

    Kings: mirrored, 0 0 1 1 2 2 2 2 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3

A king move into another bucket (or across the mirror) makes that side's
accumulator afresh; every other move updates it as before. Without the line: one
bucket, not mirrored, every file from before king buckets.

The file block is text that a person can read, then the weights, base64-encoded in
the same block, so a network genome is one self-contained text like every other
kind: it can be copied, kept in a trainer's run file, sent to a cluster worker and
named by `--genome` without a companion file to lose. The sha256 of the weights'
bytes is in the header, so a cut or edited file is found at load time.

    ID: 1
    Kind: network
    Architecture: 768x2 -> 128 -> 1x8, screlu, psqt
    Quantisation: qa 255, qb 64, scale 400
    Lineage: set data/selfplay.gcpos, mentor labels, 20 epochs, seed 1, held-out loss 0.0123
    Record: +25.3 +- 12.1 against unified.genome, 10+0.1, 2000 games
    Weights: 198402 bytes, sha256 5f0c...
    <base64 lines, 76 characters each>
    END

`Lineage:` and `Record:` are free text, optional, kept as written: what the
network was trained on and how, and what games said about it. The weights' bytes,
little-endian: W1 as int16 [768K][H] (each input's column of H numbers, king bucket by
king bucket), b1 int16 [H], w2 int16 [B][2H] (each bucket's side-to-move half first),
b2 int32 [B], and with `, psqt` the piece-square term P as int32 [768K], by qa * qb like
b2 (per king bucket too, as Stockfish's PSQT is a column of its feature transformer). With one
bucket (`-> 1`, every file from before buckets) that is the layout of old.

The piece-square term (Stockfish's PSQT) is a linear part beside the hidden layer:
each side sums P over its own inputs, and the output gains half the side to move's
sum minus half the other's. It starts as the usual piece values, so the network
knows material from its first step and the hidden layer learns what is not linear;
with a few million positions, what a small set can teach (docs/network.md).

The engine needs no numpy for this kind: the weights are Python `array`s, which
the C evaluation borrows through the buffer protocol.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import sys
from array import array

from .genes import time_management_defaults
from .kinds import GenomeError, quote, register_kind
from .pvt import EVAL_SCALE_CP
from .search_genes import CarriesSearchGenes, pack_search, search_lines

INPUTS = 768
ACTIVATIONS = ("crelu", "screlu")
QA, QB, SCALE = 255, 64, 400            # the quantisation the trainer writes (Bullet's usual)
HIDDEN_RANGE = (16, 1024)               # eval_network.pxd: NETWORK_MAX_HIDDEN; a multiple of 16
MAX_BUCKETS = 16                        # eval_network.pxd: NETWORK_MAX_BUCKETS
MAX_KING_BUCKETS = 16                   # eval_network.pxd: NETWORK_MAX_KING_BUCKETS
LINE_WIDTH = 76                         # base64 characters a line (MIME's)
# Piece worths for the search's capture ordering (pawns), which a network does not
# state: the usual ones.
ORDER_VALUES = (1.0, 3.2, 3.3, 5.0, 9.5, 0.0)

ARCHITECTURE = re.compile(r"768\s*x\s*2\s*->\s*([0-9]{1,5})\s*->\s*1(?:\s*x\s*([0-9]{1,3}))?\s*,"
                          r"\s*([a-z]+)(\s*,\s*psqt)?", re.I)
PSQT_LIMIT = 2 ** 25                    # |P|: 32 pieces' sum stays far inside int32
QUANTISATION = re.compile(r"qa\s+([0-9]{1,6})\s*,\s*qb\s+([0-9]{1,6})\s*,\s*scale\s+([0-9]{1,6})", re.I)
WEIGHTS = re.compile(r"([0-9]{1,12})\s+bytes\s*,\s*sha256\s+([0-9a-f]{64})", re.I)


def architecture_text(hidden: int, activation: str, psqt: bool, buckets: int = 1) -> str:
    """The file's `Architecture:` text (the trainer's records say it the same way)."""
    output = "1" if buckets == 1 else f"1x{buckets}"
    return f"768x2 -> {hidden} -> {output}, {activation}" + (", psqt" if psqt else "")


def weights_size(hidden: int, psqt: bool = False, buckets: int = 1, king_buckets: int = 1) -> int:
    """Bytes of the weights of a network with `hidden` units per side, `buckets`
    output buckets, `king_buckets` input buckets (and the piece-square term)."""
    inputs = INPUTS * king_buckets
    return 2 * (inputs * hidden + hidden + 2 * hidden * buckets) + 4 * buckets + (4 * inputs if psqt else 0)


class KingLayout:
    """The first layer's king buckets: `table[s]`, the bucket of a side's king on s
    (its own seat: ranks flipped for Black), and `mirrored`: a side whose king
    stands on files e to h reads its pieces mirrored a <-> h. NONE, one bucket and no
    mirror, is the network of old."""

    def __init__(self, table, mirrored: bool) -> None:
        table = tuple(int(b) for b in table)
        if len(table) != 64:
            raise ValueError(f"a king layout has a bucket for each of 64 squares, not {len(table)}")
        if mirrored and any(table[s] != table[s ^ 7] for s in range(64)):
            raise ValueError("a mirrored king layout gives a square and its mirror the same bucket")
        used = sorted(set(table))
        if used[0] != 0 or used != list(range(len(used))):
            raise ValueError(f"king buckets are numbered 0 to K-1 with none left out, not {used}")
        if len(used) > MAX_KING_BUCKETS:
            raise ValueError(f"at most {MAX_KING_BUCKETS} king buckets, not {len(used)}")
        self.table, self.mirrored = table, bool(mirrored)
        self.buckets = len(used)

    @classmethod
    def parse(cls, text: str) -> KingLayout:
        """From the `Kings:` text: `mirrored, ` and 32 numbers (files a to d, rank 1
        first), or 64 numbers (a1 to h8); ValueError, one line, otherwise."""
        words = text.replace(",", " ").split()
        mirrored = bool(words) and words[0].lower() == "mirrored"
        numbers = words[1:] if mirrored else words
        want = 32 if mirrored else 64
        if len(numbers) != want or not all(n.isdigit() for n in numbers):
            raise ValueError(f"expected {'mirrored, then ' if mirrored else ''}{want} bucket numbers "
                             f"(rank 1 first, files a to {'d' if mirrored else 'h'}), got {text.strip()!r}")
        values = [int(n) for n in numbers]
        if mirrored:
            table = [values[(s // 8) * 4 + min(s % 8, 7 - s % 8)] for s in range(64)]
        else:
            table = values
        return cls(table, mirrored)

    def text(self) -> str:
        if self.mirrored:
            return "mirrored, " + " ".join(str(self.table[r * 8 + f]) for r in range(8) for f in range(4))
        return " ".join(map(str, self.table))

    def describe(self) -> str:
        return f"{self.buckets} king bucket{'s' if self.buckets > 1 else ''}" + (", mirrored" if self.mirrored else "")

    @property
    def is_none(self) -> bool:
        return self.buckets == 1 and not self.mirrored

    def bucket(self, king: int) -> int:
        """The bucket of a side's king on `king` (its own seat)."""
        return self.table[king]

    def flip(self, king: int) -> int:
        """What a side's squares are XORed with: 7 (files mirrored) for a mirrored
        layout's king on files e to h, else 0."""
        return 7 if self.mirrored and king % 8 >= 4 else 0

    def flips(self) -> bytes:
        """flip() of each of the 64 squares: the table the C evaluation and trainer read."""
        return bytes(self.flip(s) for s in range(64))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KingLayout) and (other.table, other.mirrored) == (self.table, self.mirrored)

    def __hash__(self) -> int:
        return hash((self.table, self.mirrored))

    def __repr__(self) -> str:
        return f"KingLayout({self.text()!r})"


KingLayout.NONE = KingLayout([0] * 64, False)


def bucket_divisor(buckets: int) -> int:
    """Pieces a bucket spans: ceil(32 / buckets), so that 2 to 32 pieces fill them."""
    return -(-32 // buckets)


def output_bucket(pieces, buckets: int):
    """The output bucket of a position with `pieces` pieces on the board (a number or
    a numpy array): (pieces - 2) / ceil(32 / buckets), at most the last bucket."""
    bucket = (pieces - 2) // bucket_divisor(buckets)
    return min(bucket, buckets - 1) if isinstance(bucket, int) else bucket.clip(0, buckets - 1)


def check_buckets(buckets: int) -> None:
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"a network has 1 to {MAX_BUCKETS} output buckets, not {buckets}")


def int32s(data: bytes) -> array:
    values = array("i", data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def int16s(data: bytes) -> array:
    values = array("h", data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


@register_kind
class NetworkGenome(CarriesSearchGenes):
    KIND = "network"

    def __init__(self, genome_id: int, hidden: int, activation: str, w1, b1, w2, b2,
                 qa: int = QA, qb: int = QB, scale: int = SCALE,
                 lineage: str | None = None, record: str | None = None, psqt=None,
                 buckets: int = 1, kings: KingLayout = KingLayout.NONE) -> None:
        """w1 holds 768 x kings.buckets columns of H (flat), w2 `buckets` rows of 2H
        (flat), b2 one bias a bucket (a number with one bucket)."""
        low, high = HIDDEN_RANGE
        if not low <= hidden <= high or hidden % 16:
            raise ValueError(f"a network has a multiple of 16 from {low} to {high} hidden units, not {hidden}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r} ({', '.join(ACTIVATIONS)})")
        check_buckets(buckets)
        self.id = int(genome_id)
        self.search: dict[str, int] = {}
        self.hidden, self.activation, self.buckets = int(hidden), activation, int(buckets)
        self.kings = kings
        inputs = self.inputs
        self.qa, self.qb, self.scale = int(qa), int(qb), int(scale)
        self.w1, self.b1, self.w2 = array("h", w1), array("h", b1), array("h", w2)
        biases = list(b2) if hasattr(b2, "__len__") else [b2]
        if any(not -2 ** 31 <= int(b) < 2 ** 31 for b in biases):
            raise ValueError("an output bias must fit 32 bits")
        self.b2 = array("i", (int(b) for b in biases))
        if (len(self.w1), len(self.b1), len(self.w2), len(self.b2)) != (
                inputs * hidden, hidden, 2 * hidden * buckets, buckets):
            raise ValueError(f"weights do not fit {architecture_text(hidden, activation, False, buckets)}"
                             + ("" if kings.is_none else f" with {kings.describe()}"))
        self.psqt = None if psqt is None else array("i", psqt)
        if self.psqt is not None and len(self.psqt) != inputs:
            raise ValueError(f"the piece-square term has {inputs} numbers, not {len(self.psqt)}")
        self.check_ranges()
        self.lineage, self.record = lineage, record

    @property
    def inputs(self) -> int:
        """Inputs a side: 768 a king bucket."""
        return INPUTS * self.kings.buckets

    def check_ranges(self) -> None:
        """What the integer evaluation needs of the weights (the trainer's limits give
        it): an accumulator stays inside 16 bits whatever the position (a bias and 32
        pieces' largest weights), and an activation times an output weight fits 16 bits."""
        h = self.hidden
        for unit in range(h):
            worst = abs(self.b1[unit]) + 32 * max(map(abs, self.w1[unit::h]))
            if worst > 32767:
                raise ValueError(f"hidden unit {unit}'s weights can overflow its 16-bit sum "
                                 f"({worst} > 32767)")
        if max(map(abs, self.w2)) * self.qa > 32767:
            raise ValueError(f"an output weight of {max(map(abs, self.w2))} times qa {self.qa} "
                             f"does not fit 16 bits")
        if self.psqt is not None and max(map(abs, self.psqt)) > PSQT_LIMIT:
            raise ValueError(f"a piece-square number of {max(map(abs, self.psqt))} is above "
                             f"{PSQT_LIMIT}: the sums could overflow")

    # ------------------------------------------------------------ the weights

    def weights_bytes(self) -> bytes:
        parts = [self.w1, self.b1, self.w2, self.b2] + (
            [] if self.psqt is None else [self.psqt])
        if sys.byteorder == "big":
            parts = [array(p.typecode, p) for p in parts]
            for p in parts:
                p.byteswap()
        return b"".join(p.tobytes() for p in parts)

    @classmethod
    def from_weights_bytes(cls, genome_id: int, hidden: int, activation: str, data: bytes,
                           buckets: int = 1, kings: KingLayout = KingLayout.NONE, **header) -> NetworkGenome:
        h = hidden
        w1_end = 2 * INPUTS * kings.buckets * h
        b1_end = w1_end + 2 * h
        w2_end = b1_end + 4 * h * buckets
        b2_end = w2_end + 4 * buckets
        psqt = int32s(data[b2_end:]) if len(data) > b2_end else None
        return cls(genome_id, h, activation, int16s(data[:w1_end]), int16s(data[w1_end:b1_end]),
                   int16s(data[b1_end:w2_end]), int32s(data[w2_end:b2_end]), psqt=psqt,
                   buckets=buckets, kings=kings, **header)

    @classmethod
    def from_float(cls, genome_id: int, w1, b1, w2, b2, activation: str,
                   lineage: str | None = None, psqt=None, kings: KingLayout = KingLayout.NONE) -> NetworkGenome:
        """Quantise a trained float network (W1 [768K, H], b1 [H], w2 [B, 2H] or [2H],
        b2 [B] or a number, and the piece-square term P [768K] or None, K the king
        buckets of `kings`): what the trainer's weight limits keep inside int16 is
        rounded to whole steps."""
        import numpy as np
        w1, b1 = (np.asarray(a, dtype=np.float64) for a in (w1, b1))
        hidden = w1.shape[1]
        w2 = np.asarray(w2, dtype=np.float64).reshape(-1, 2 * hidden)
        b2 = np.asarray(b2, dtype=np.float64).reshape(-1)

        def quantised(values, factor: int, bits: int = 16) -> np.ndarray:
            q = np.rint(values * factor)
            limit = 2 ** (bits - 1) - 1
            if np.abs(q).max(initial=0) > limit:
                raise ValueError(f"a weight of {np.abs(values).max():g} does not fit {bits} bits by {factor}")
            return q.astype(np.int16 if bits == 16 else np.int64)

        return cls(genome_id, hidden, activation, quantised(w1, QA).ravel().tolist(),
                   quantised(b1, QA).tolist(), quantised(w2, QB).ravel().tolist(),
                   quantised(b2, QA * QB, 32).tolist(), lineage=lineage,
                   psqt=None if psqt is None else quantised(np.asarray(psqt, dtype=np.float64),
                                                           QA * QB, 32).tolist(),
                   buckets=len(b2), kings=kings)

    def float_weights(self):
        """(W1 [768K, H], b1 [H], w2 [B, 2H], b2 [B]) as floats, the quantisation
        undone: what the trainer starts from to train a network further."""
        import numpy as np
        return (np.array(self.w1, dtype=np.float64).reshape(self.inputs, self.hidden) / self.qa,
                np.array(self.b1, dtype=np.float64) / self.qa,
                np.array(self.w2, dtype=np.float64).reshape(self.buckets, 2 * self.hidden) / self.qb,
                np.array(self.b2, dtype=np.float64) / (self.qa * self.qb))

    def float_psqt(self):
        """The piece-square term P [768K] as floats (None without one)."""
        import numpy as np
        if self.psqt is None:
            return None
        return np.array(self.psqt, dtype=np.float64) / (self.qa * self.qb)

    @property
    def architecture(self) -> str:
        """The architecture in words: the `Architecture:` text, then the king buckets if any."""
        text = architecture_text(self.hidden, self.activation, self.psqt is not None, self.buckets)
        return text if self.kings.is_none else f"{text}, {self.kings.describe()}"

    def with_buckets(self, buckets: int) -> NetworkGenome:
        """The same network with its output layer copied into `buckets` buckets: it
        evaluates every position as this one does (a bucketed network's start, and
        its cost measured against the same network unbucketed)."""
        return NetworkGenome(self.id, self.hidden, self.activation, self.w1, self.b1,
                             self.w2 * buckets, self.b2 * buckets, self.qa, self.qb, self.scale,
                             self.lineage, self.record, self.psqt, buckets, self.kings).with_search(self.search)

    # ------------------------------------------------------------ the file

    @classmethod
    def from_lines(cls, genome_id: int, lines: list[tuple[int, str]], path: str,
                   kind_line: int, end_line: int) -> NetworkGenome:
        fields: dict[str, tuple[int, str]] = {}
        data_lines: list[tuple[int, str]] = []
        for n, line in lines:
            if not line:
                continue
            if "weights" in fields:
                data_lines.append((n, line))
                continue
            key, colon, text = line.partition(":")
            key = " ".join(key.lower().split())
            if not colon or key not in ("architecture", "kings", "quantisation", "lineage", "record", "weights"):
                raise GenomeError.at(path, n, f"network genome: expected 'Architecture:', 'Kings:', "
                                              f"'Quantisation:', 'Lineage:', 'Record:' or 'Weights:', "
                                              f"got {quote(line)}")
            if key in fields:
                raise GenomeError.at(path, n, f"network genome: duplicated '{key}' (first at line {fields[key][0]})")
            fields[key] = (n, text.strip())
        for key in ("architecture", "quantisation", "weights"):
            if key not in fields:
                raise GenomeError.at(path, kind_line, f"network genome {genome_id}: missing '{key.title()}:'")

        n, text = fields["architecture"]
        match = ARCHITECTURE.fullmatch(text)
        if not match or match.group(3).lower() not in ACTIVATIONS:
            raise GenomeError.at(path, n, f"network genome: architecture {quote(text)} is not "
                                          f"'768x2 -> H -> 1, crelu' or '..., screlu' ('-> 1xB' with B "
                                          f"output buckets; then ', psqt' if it has the piece-square term)")
        hidden, activation, psqt = int(match.group(1)), match.group(3).lower(), bool(match.group(4))
        buckets = int(match.group(2) or 1)
        low, high = HIDDEN_RANGE
        if not low <= hidden <= high or hidden % 16:
            raise GenomeError.at(path, n, f"network genome: {hidden} hidden units; a multiple of 16 "
                                          f"from {low} to {high}")
        if not 1 <= buckets <= MAX_BUCKETS:
            raise GenomeError.at(path, n, f"network genome: {buckets} output buckets; 1 to {MAX_BUCKETS}")
        kings = KingLayout.NONE
        if "kings" in fields:
            n, text = fields["kings"]
            try:
                kings = KingLayout.parse(text)
            except ValueError as problem:
                raise GenomeError.at(path, n, f"network genome: kings: {problem}") from None
        n, text = fields["quantisation"]
        match = QUANTISATION.fullmatch(text)
        if not match or 0 in (qa := int(match.group(1)), qb := int(match.group(2)), scale := int(match.group(3))):
            raise GenomeError.at(path, n, f"network genome: quantisation {quote(text)} is not "
                                          f"'qa A, qb B, scale S' with positive whole numbers")

        n, text = fields["weights"]
        match = WEIGHTS.fullmatch(text)
        if not match:
            raise GenomeError.at(path, n, f"network genome: expected 'Weights: <bytes> bytes, sha256 <hex>', "
                                          f"got {quote(text)}")
        size, digest = int(match.group(1)), match.group(2).lower()
        if size != weights_size(hidden, psqt, buckets, kings.buckets):
            raise GenomeError.at(path, n, f"network genome: {size} bytes of weights; its architecture "
                                          f"has {weights_size(hidden, psqt, buckets, kings.buckets)}")
        try:
            data = base64.b64decode("".join(line for _, line in data_lines), validate=True)
        except (binascii.Error, ValueError):
            bad = next((m for m, line in data_lines if not re.fullmatch(r"[A-Za-z0-9+/=]*", line)), n)
            raise GenomeError.at(path, bad, "network genome: the weights are not base64 text") from None
        if len(data) != size:
            raise GenomeError.at(path, end_line, f"network genome: the weights hold {len(data)} bytes, "
                                                 f"the header says {size} (the file is cut?)")
        if hashlib.sha256(data).hexdigest() != digest:
            raise GenomeError.at(path, n, "network genome: the weights do not match their sha256 "
                                          "(the file was changed or damaged)")
        try:
            return cls.from_weights_bytes(genome_id, hidden, activation, data, buckets, kings, qa=qa, qb=qb,
                                          scale=scale,
                                          lineage=fields.get("lineage", (0, None))[1],
                                          record=fields.get("record", (0, None))[1])
        except ValueError as problem:
            raise GenomeError.at(path, n, f"network genome: {problem}") from None

    def to_text(self) -> str:
        data = self.weights_bytes()
        encoded = base64.b64encode(data).decode("ascii")
        lines = [f"ID: {self.id}", f"Kind: {self.KIND}",
                 f"Architecture: {architecture_text(self.hidden, self.activation, self.psqt is not None, self.buckets)}"]
        if not self.kings.is_none:
            lines.append(f"Kings: {self.kings.text()}")
        lines.append(f"Quantisation: qa {self.qa}, qb {self.qb}, scale {self.scale}")
        if self.lineage:
            lines.append(f"Lineage: {self.lineage}")
        if self.record:
            lines.append(f"Record: {self.record}")
        lines += search_lines(self.search)
        lines.append(f"Weights: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
        lines += [encoded[i:i + LINE_WIDTH] for i in range(0, len(encoded), LINE_WIDTH)]
        return "\n".join(lines + ["END", "", ""])

    # ------------------------------------------------------------ the engine

    def pack(self) -> dict:
        params = time_management_defaults()
        params.update(kind=self.KIND, network_hidden=self.hidden, network_activation=self.activation,
                      network_buckets=self.buckets, network_king_buckets=self.kings.buckets,
                      network_king_table=bytes(self.kings.table),
                      network_king_flip=self.kings.flips(),
                      network_qa=self.qa, network_qb=self.qb, network_scale=self.scale,
                      network_w1=self.w1, network_b1=self.b1, network_w2=self.w2, network_b2=self.b2,
                      network_psqt=array("i") if self.psqt is None else self.psqt,
                      eval_scale_cp=EVAL_SCALE_CP, pawn_unit=100 * EVAL_SCALE_CP,
                      order_values=list(ORDER_VALUES))
        return pack_search(self.search, params)

    def copy(self, new_id: int | None = None) -> NetworkGenome:
        return NetworkGenome(self.id if new_id is None else new_id, self.hidden, self.activation,
                             self.w1, self.b1, self.w2, self.b2, self.qa, self.qb, self.scale,
                             self.lineage, self.record, self.psqt, self.buckets, self.kings).with_search(self.search)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, NetworkGenome) and other.id == self.id
                and (other.hidden, other.activation, other.buckets, other.qa, other.qb, other.scale, other.b2)
                == (self.hidden, self.activation, self.buckets, self.qa, self.qb, self.scale, self.b2)
                and other.w1 == self.w1 and other.b1 == self.b1 and other.w2 == self.w2
                and other.psqt == self.psqt and other.kings == self.kings
                and (other.lineage, other.record) == (self.lineage, self.record)
                and other.search == self.search)

    __hash__ = None

    def __repr__(self) -> str:
        return f"NetworkGenome({self.id}, {self.architecture})"
