"""Gene classes: each gene is a table of named values plus read/write/random/mutate/pack.

Design trade-off: every gene is described by a table of `Value`s (file key, C
parameter name, valid range, mutation size, default) and one generic `Gene` class
does read, write, random, mutate and pack from that table. Adding or retuning a
gene is then a few lines of data and all ranges live in one place; the price is
that a gene whose mutation or packing is structurally different (the Piece
Strength Gene) has to override a method instead of just declaring its own.

Numbers are written with Python's shortest round-tripping repr (whole numbers
without ".0"), so read(write(g)) == g exactly. To keep evolved files readable,
values made by `random` and `mutate` are rounded to 6 significant digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from random import Random
from typing import ClassVar

from .kinds import GenomeError, quote


@dataclass(frozen=True)
class Value:
    key: str  # key in the genome file
    param: str | None  # key in the packed C parameter dict (None: the gene packs itself)
    lo: float
    hi: float
    step: float  # stddev of the gaussian mutation step (ignored for integer values)
    default: float
    integer: bool = False

    def parse(self, text: str) -> float:
        """The value of `text`, or ValueError with a short reason."""
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"value for '{self.key}' is not a number: {quote(text)}") from None
        if not math.isfinite(value):
            raise ValueError(f"value for '{self.key}' is not a finite number: {quote(text)}")
        if self.integer and not value.is_integer():
            raise ValueError(f"value for '{self.key}' is not a whole number: {quote(text)}")
        if not self.lo <= value <= self.hi:
            raise ValueError(
                f"value for '{self.key}' is out of range "
                f"[{format_number(self.lo)}, {format_number(self.hi)}]: {text}"
            )
        return value + 0.0  # -0.0 -> 0.0, so a written "-0" never appears


def format_number(value: float) -> str:
    value = float(value)
    # Whole numbers are written as integers to match hand-written files ("P: 1");
    # the bound keeps huge floats from printing dozens of spurious digits.
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _round6(value: float) -> float:
    # Rounding to 6 significant digits is monotonic and leaves range bounds with
    # <= 6 digits unchanged, so a value inside the range stays inside it.
    return float(f"{value:.6g}") + 0.0


def _reflect(value: float, lo: float, hi: float) -> float:
    # Reflecting off the bounds instead of clipping keeps mutated values from
    # piling up exactly on the range limits.
    span = hi - lo
    if span <= 0:
        return lo
    offset = (value - lo) % (2 * span)
    return lo + (offset if offset <= span else 2 * span - offset)


class Gene:
    """A gene: values keyed by file key, in the ranges declared by `VALUES`."""

    NAME: ClassVar[str]
    VALUES: ClassVar[tuple[Value, ...]]

    def __init__(self, values: dict[str, float] | None = None) -> None:
        self.values = {v.key: float(v.default) for v in self.VALUES}
        for key, value in (values or {}).items():
            if key not in self.values:
                raise KeyError(f"{self.NAME} has no value '{key}'")
            self.values[key] = float(value)

    @classmethod
    def spec(cls, key: str) -> Value:
        return next(v for v in cls.VALUES if v.key == key)

    @classmethod
    def read(cls, items: dict[str, tuple[str, int]], path: str, name_line: int) -> Gene:
        """Build the gene from `{key: (text, line)}`; GenomeError on any bad entry."""
        table = {v.key: v for v in cls.VALUES}
        values = {}
        for key, (text, line) in sorted(items.items(), key=lambda item: item[1][1]):
            spec = table.get(key)
            if spec is None:
                raise GenomeError.at(path, line, f"{cls.NAME}: unknown key {quote(key)}")
            try:
                values[key] = spec.parse(text)
            except ValueError as problem:
                raise GenomeError.at(path, line, f"{cls.NAME}: {problem}") from None
        missing = [f"'{v.key}'" for v in cls.VALUES if v.key not in values]
        if missing:
            keys = "key" if len(missing) == 1 else "keys"
            raise GenomeError.at(path, name_line, f"{cls.NAME}: missing {keys} {', '.join(missing)}")
        problem = cls.check(values)
        if problem:
            raise GenomeError.at(path, name_line, f"{cls.NAME}: {problem}")
        return cls(values)

    @classmethod
    def check(cls, values: dict[str, float]) -> str | None:
        """A problem with the values as a whole, beyond the per-value ranges."""
        return None

    def write(self) -> list[str]:
        # Alphabetical key order, as in the files of the Genetic Chess design.
        return [f"Name: {self.NAME}"] + [
            f"{key}: {format_number(self.values[key])}" for key in sorted(self.values)
        ]

    @classmethod
    def random(cls, rng: Random) -> Gene:
        while True:
            values = {v.key: cls._random_value(v, rng) for v in cls.VALUES}
            if cls.check(values) is None:
                return cls(values)

    @staticmethod
    def _random_value(spec: Value, rng: Random) -> float:
        if spec.integer:
            return float(rng.randint(int(spec.lo), int(spec.hi)))
        return min(spec.hi, max(spec.lo, _round6(rng.uniform(spec.lo, spec.hi))))

    def mutate(self, rng: Random) -> str:
        """Change one value (a gaussian step, reflected into range); return its key."""
        spec = rng.choice(self.VALUES)
        self.values[spec.key] = self._changed(spec, self.values[spec.key], spec.step, rng)
        return spec.key

    def _changed(self, spec: Value, old: float, step: float, rng: Random) -> float:
        # Redraw until the value really changes (a step can round away or reflect
        # back onto the old value), so a mutated gene is always a different gene.
        for _ in range(1000):
            if spec.integer:
                new = _reflect(old + rng.choice((-1.0, 1.0)), spec.lo, spec.hi)
            else:
                new = _round6(_reflect(old + rng.gauss(0.0, step), spec.lo, spec.hi))
                new = min(spec.hi, max(spec.lo, new))
            if new != old and self.check({**self.values, spec.key: new}) is None:
                return new
        raise RuntimeError(f"{self.NAME}: cannot mutate '{spec.key}' from {old}")

    def copy(self) -> Gene:
        return type(self)(dict(self.values))

    @classmethod
    def pack_keys(cls) -> tuple[str, ...]:
        return tuple(v.param for v in cls.VALUES if v.param)

    def pack(self, params: dict) -> None:
        """Write this gene's slice of the flat C parameter dict."""
        for spec in self.VALUES:
            value = self.values[spec.key]
            params[spec.param] = int(value) if spec.integer else value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.values == self.values

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.values!r})"


# The Piece Strength Gene's mutation step, as a share of the mean absolute piece value:
# the design's program's pace, values near 1 to 9 stepped by about 1, a quarter of their
# mean. At a tenth (the default until 5ab25a8) five gene-pool pilots selected no piece
# values; at a quarter they did (docs/studies/reproduce-genetic-chess.md). A gene-pool run can
# set its own (`piece value mutation`).
PIECE_STEP = 0.25

# Piece order of the packed list; C indexes piece_values by piece type in this order.
PIECES = ("P", "N", "B", "R", "Q", "K")
ARMY = (8, 2, 2, 2, 1, 1)  # pieces of each type in the starting army


class PieceStrengthGene(Gene):
    """Relative piece values. Only ratios matter: pack divides by the starting army's
    total, so the evaluation never sees the overall scale that evolution drifts in.

    All-zero values have no ratios; they are rejected when read and never made by
    random or mutate (pack raises ValueError if one is built by hand).
    """

    NAME = "Piece Strength Gene"
    # step is relative: a fraction of the mean absolute piece value (see mutate).
    VALUES = tuple(
        Value(piece, None, -100.0, 100.0, PIECE_STEP, default)
        for piece, default in zip(PIECES, (1.0, 3.0, 3.2, 5.0, 9.0, 4.0))
    )

    @classmethod
    def check(cls, values: dict[str, float]) -> str | None:
        if all(values.get(piece, 0.0) == 0.0 for piece in PIECES):
            return "all piece values are zero"
        return None

    def mutate(self, rng: Random, step: float = PIECE_STEP) -> str:
        # The step scales with the current values: since only ratios matter, a fixed
        # absolute step would be huge or negligible depending on where scale drifted.
        spec = rng.choice(self.VALUES)
        scale = sum(abs(v) for v in self.values.values()) / len(PIECES)
        old = self.values[spec.key]
        self.values[spec.key] = self._changed(spec, old, step * scale, rng)
        return spec.key

    @classmethod
    def pack_keys(cls) -> tuple[str, ...]:
        return ("piece_values",)

    def pack(self, params: dict) -> None:
        raw = [self.values[piece] for piece in PIECES]
        total = sum(count * abs(value) for count, value in zip(ARMY, raw))
        if total == 0:
            raise ValueError(f"{self.NAME}: all piece values are zero")
        params["piece_values"] = [value / total for value in raw]


class LookAheadGene(Gene):
    """Time management: expected game length and how far to speculate past the
    time budget, depending on what kind of move is being searched."""

    NAME = "Look Ahead Gene"
    VALUES = (
        Value("Mean Game Length", "mean_game_length", 1.0, 400.0, 2.0, 40.0),
        Value("Game Length Uncertainty", "game_length_uncertainty", 0.01, 3.0, 0.05, 0.5),
        Value("Speculation Constant Just Captured", "spec_just_captured", 0.1, 10.0, 0.1, 1.0),
        Value("Speculation Constant Can Capture", "spec_can_capture", 0.1, 10.0, 0.1, 1.0),
        Value("Speculation Constant Recapture", "spec_recapture", 0.1, 10.0, 0.1, 1.0),
        Value("Speculation Constant Default", "spec_default", 0.1, 10.0, 0.1, 1.0),
    )


PRIORITY_LIMIT = 1000.0
PRIORITY_STEP = 5.0


def _scoring(prefix: str, priority: float, non_negative: bool, *extras: Value) -> tuple[Value, ...]:
    """Values of a board-scoring gene: Priority, Exponent, then the gene's extras.

    A gene marked non-negative gets a priority range starting at 0, so random and
    (reflecting) mutation keep it >= 0: its raw score already carries the sign.
    """
    lo = 0.0 if non_negative else -PRIORITY_LIMIT
    return (
        Value("Priority", f"{prefix}_priority", lo, PRIORITY_LIMIT, PRIORITY_STEP, priority),
        Value("Exponent", f"{prefix}_exponent", 0.1, 4.0, 0.1, 1.0),
    ) + extras


class TotalForceGene(Gene):
    NAME = "Total Force Gene"
    VALUES = _scoring("total_force", 100.0, True)


class FreedomToMoveGene(Gene):
    NAME = "Freedom To Move Gene"
    VALUES = _scoring("freedom", 1.5, False)


class PawnAdvancementGene(Gene):
    NAME = "Pawn Advancement Gene"
    VALUES = _scoring(
        "pawn_adv", 0.5, False,
        Value("Non-linearity", "pawn_adv_nonlinearity", -1.0, 3.0, 0.1, 0.5),
    )


class PassedPawnGene(Gene):
    NAME = "Passed Pawn Gene"
    VALUES = _scoring("passed_pawn", 1.5, False)


class OpponentPiecesTargetedGene(Gene):
    NAME = "Opponent Pieces Targeted Gene"
    VALUES = _scoring("targeted", 0.5, False)


class SphereOfInfluenceGene(Gene):
    NAME = "Sphere of Influence Gene"
    VALUES = _scoring(
        "sphere", 1.5, True,
        Value("Legal Square Score", "sphere_legal_score", -10.0, 10.0, 0.1, 1.0),
        Value("Illegal Square Score", "sphere_illegal_score", -10.0, 10.0, 0.1, 0.5),
        Value("King Target Factor", "sphere_king_target", 0.0, 10.0, 0.1, 1.0),
    )


class KingConfinementGene(Gene):
    NAME = "King Confinement Gene"
    VALUES = _scoring(
        "confine", 0.3, True,
        Value("Friendly Block Score", "confine_friendly", -10.0, 10.0, 0.1, 0.5),
        Value("Enemy Block Score", "confine_enemy", -10.0, 10.0, 0.1, -0.5),
        Value("Maximum Distance", "confine_max_distance", 0, 8, 1, 3, integer=True),
    )


class KingProtectionGene(Gene):
    NAME = "King Protection Gene"
    VALUES = _scoring("king_protect", 1.0, False)


class CastlingPossibleGene(Gene):
    NAME = "Castling Possible Gene"
    VALUES = _scoring(
        "castling", 2.0, True,
        Value("Kingside Preference", "castling_kingside", 0.0, 1.0, 0.05, 0.6),
        Value("Queenside Preference", "castling_queenside", 0.0, 1.0, 0.05, 0.4),
    )


class PawnIslandsGene(Gene):
    NAME = "Pawn Islands Gene"
    VALUES = _scoring("islands", 0.5, False)


class StackedPawnsGene(Gene):
    NAME = "Stacked Pawns Gene"
    VALUES = _scoring("stacked", 0.7, False)


class CheckmateMaterialGene(Gene):
    NAME = "Checkmate Material Gene"
    VALUES = _scoring("checkmate_material", 1.0, False)


# Every genome holds exactly one gene of each class, written in this order.
GENE_CLASSES: tuple[type[Gene], ...] = (
    PieceStrengthGene,
    LookAheadGene,
    TotalForceGene,
    FreedomToMoveGene,
    PawnAdvancementGene,
    PassedPawnGene,
    OpponentPiecesTargetedGene,
    SphereOfInfluenceGene,
    KingConfinementGene,
    KingProtectionGene,
    CastlingPossibleGene,
    PawnIslandsGene,
    StackedPawnsGene,
    CheckmateMaterialGene,
)

GENES_BY_NAME: dict[str, type[Gene]] = {cls.NAME: cls for cls in GENE_CLASSES}

PACK_KEYS: tuple[str, ...] = tuple(key for cls in GENE_CLASSES for key in cls.pack_keys())


def time_management_defaults() -> dict:
    """The default Look Ahead Gene's packed keys: how a kind without time genes
    spends its clock (the log-normal game-length model and budget speculation)."""
    params: dict = {}
    LookAheadGene().pack(params)
    return params
