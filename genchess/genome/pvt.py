"""The PVT genome (Phoenix, Aralikatte and Srinivasaraghavan): positional value
tables, one number per piece kind, game phase and square.

The chromosome is the paper's 640 numbers: ten 64-square tables, pawn, knight,
bishop and king for the middle game and the end game, rook and queen for the
middle game only (Table I). The end game uses the rook's and the queen's
middle-game tables: pack() copies them into the end-game slots, so the C side
always sees twelve tables. Values are whole centipawns from White's side (a1 is
square 0); Black reads the same tables with the ranks mirrored.

Material is a switch: by default the standard values (pawn 100, knight 320,
bishop 330, rook 500, queen 900: Michniewski's Simplified Evaluation Function,
the values the textbook tables were written for) are fixed and only the tables
evolve, as in the paper; a trainer may evolve them as five extra genes
(`evolve material = yes`), and a genome file may always state its own.

Design trade-off: a table is written as a picture of the board, eight rows of
eight numbers with rank 8 first, as chess books print them, rather than as 64
`key: value` lines: a person can read and hand-edit a table, and a run's
evolved tables can be compared with the textbook ones by eye.

File block:

    ID: 3
    Kind: pvt
    Material: 100 320 330 500 900
    Table: pawn mg
      0   0   0   0   0   0   0   0
     50  50  50  50  50  50  50  50
    ... (eight rows per table, ten tables)
    END
"""

from __future__ import annotations

import re
from random import Random
from typing import TYPE_CHECKING, Sequence

from genchess.console import whole_number

from .genes import time_management_defaults
from .kinds import GenomeError, quote, register_kind
from .search_genes import CarriesSearchGenes, pack_search, search_lines

if TYPE_CHECKING:                   # numpy loads only when a tuner asks (start-up)
    from .numbers import NumberSpec

PIECE_KINDS = ("pawn", "knight", "bishop", "rook", "queen", "king")
# The chromosome's tables, in the paper's order (Table I).
TABLES = (("pawn", "mg"), ("knight", "mg"), ("bishop", "mg"), ("rook", "mg"), ("queen", "mg"),
          ("king", "mg"), ("pawn", "eg"), ("knight", "eg"), ("bishop", "eg"), ("king", "eg"))
TABLE_INDEX = {t: i for i, t in enumerate(TABLES)}
N_VALUES = 64 * len(TABLES)                     # 640
STANDARD_MATERIAL = (100, 320, 330, 500, 900)   # pawn .. queen, centipawns; the king is 0
EVAL_SCALE_CP = 10                              # internal evaluation units per centipawn
VALUE_LIMIT = 10000                             # |value| a file may hold (a hundred pawns)
TUNING_LIMIT = 500.0                            # |value| a tuner may give a table entry


def whole_numbers(text: str, count: int, path: str, n: int, what: str) -> list[int]:
    """`count` whole centipawn values from a genome file's line `n`, each within
    +-VALUE_LIMIT; GenomeError naming the file, the line and `what` otherwise."""
    words = text.split()
    if len(words) != count or not all(re.fullmatch(r"[+-]?[0-9]+", w) for w in words):
        raise GenomeError.at(path, n, f"{what} needs {count} whole number{'s' if count > 1 else ''}, "
                                      f"got {quote(text)}")
    numbers = [whole_number(w) for w in words]     # None: more digits than any limit
    if any(v is None or abs(v) > VALUE_LIMIT for v in numbers):
        raise GenomeError.at(path, n, f"{what}: values beyond +-{VALUE_LIMIT} centipawns")
    return numbers


def table_name(index: int) -> str:
    piece, phase = TABLES[index]
    return f"{piece} {phase}"


def square_index(row: int, column: int) -> int:
    """Square (a1 = 0) of the table picture's row (0: rank 8) and column (0: file a)."""
    return (7 - row) * 8 + column


@register_kind
class PvtGenome(CarriesSearchGenes):
    KIND = "pvt"

    def __init__(self, genome_id: int, values: Sequence[int],
                 material: Sequence[int] = STANDARD_MATERIAL) -> None:
        if len(values) != N_VALUES:
            raise ValueError(f"a PVT genome has {N_VALUES} table values, not {len(values)}")
        if len(material) != len(STANDARD_MATERIAL):
            raise ValueError(f"a PVT genome has {len(STANDARD_MATERIAL)} material values")
        self.id = int(genome_id)
        self.search: dict[str, int] = {}
        self.values = tuple(int(v) for v in values)
        self.material = tuple(int(v) for v in material)

    def table(self, piece: str, phase: str) -> tuple[int, ...]:
        """64 values, a1 = 0. Rook and queen have no end-game table: their
        middle-game table is returned, as the evaluation uses it."""
        index = TABLE_INDEX.get((piece, phase), TABLE_INDEX.get((piece, "mg")))
        return self.values[index * 64:(index + 1) * 64]

    @classmethod
    def from_lines(cls, genome_id: int, lines: list[tuple[int, str]], path: str,
                   kind_line: int, end_line: int) -> PvtGenome:
        values: list[int | None] = [None] * N_VALUES
        material = STANDARD_MATERIAL
        seen: dict[str, int] = {}
        current: int | None = None          # the open table's index
        rows = 0
        for n, line in lines:
            if not line:
                continue
            key, colon, text = line.partition(":")
            key, text = key.strip(), text.strip()
            if colon and key in ("Table", "Material"):
                if current is not None and rows < 8:
                    raise GenomeError.at(path, n, f"PVT genome: table '{table_name(current)}' "
                                                  f"has {rows} rows, not 8")
                current = None
                if key == "Material":
                    if "Material" in seen:
                        raise GenomeError.at(path, n, f"PVT genome: duplicated 'Material' "
                                                      f"(first at line {seen['Material']})")
                    material = tuple(cls._numbers(text, 5, path, n, "Material"))
                    if any(v < 0 for v in material):
                        raise GenomeError.at(path, n, "PVT genome: material values must be >= 0")
                    seen[key] = n
                    continue
                name = " ".join(text.lower().split())
                index = next((i for i in range(len(TABLES)) if table_name(i) == name), None)
                if index is None:
                    known = ", ".join(table_name(i) for i in range(len(TABLES)))
                    raise GenomeError.at(path, n, f"PVT genome: unknown table {quote(text)} (known: {known})")
                if f"Table: {name}" in seen:
                    raise GenomeError.at(path, n, f"PVT genome: duplicated table '{name}' "
                                                  f"(first at line {seen[f'Table: {name}']})")
                seen[f"Table: {name}"] = n
                current, rows = index, 0
                continue
            if current is None:
                raise GenomeError.at(path, n, f"PVT genome: expected 'Table: <piece> <mg|eg>' or "
                                              f"'Material:', got {quote(line)}")
            if rows == 8:
                raise GenomeError.at(path, n, f"PVT genome: table '{table_name(current)}' has more "
                                              f"than 8 rows")
            for column, value in enumerate(cls._numbers(line, 8, path, n, "a table row")):
                values[current * 64 + square_index(rows, column)] = value
            rows += 1
        if current is not None and rows < 8:
            raise GenomeError.at(path, lines[-1][0] if lines else kind_line,
                                 f"PVT genome: table '{table_name(current)}' has {rows} rows, not 8")
        missing = [f"'{table_name(i)}'" for i in range(len(TABLES)) if values[i * 64] is None]
        if missing:
            raise GenomeError.at(path, kind_line, f"PVT genome {genome_id}: missing table"
                                                  f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        return cls(genome_id, values, material)

    @staticmethod
    def _numbers(text: str, count: int, path: str, n: int, what: str) -> list[int]:
        return whole_numbers(text, count, path, n, f"PVT genome: {what}")

    @classmethod
    def random(cls, rng: Random, genome_id: int, low: int = -50, high: int = 50,
               material: Sequence[int] = STANDARD_MATERIAL) -> PvtGenome:
        """Every table value drawn uniformly from [low, high] centipawns."""
        return cls(genome_id, [rng.randint(low, high) for _ in range(N_VALUES)], material)

    def to_text(self) -> str:
        lines = [f"ID: {self.id}", f"Kind: {self.KIND}",
                 "Material: " + " ".join(str(v) for v in self.material)]
        for index in range(len(TABLES)):
            lines.append(f"Table: {table_name(index)}")
            for row in range(8):
                lines.append(" ".join(f"{self.values[index * 64 + square_index(row, c)]:4d}"
                                      for c in range(8)))
        return "\n".join(lines + search_lines(self.search) + ["END", "", ""])

    def pack(self) -> dict:
        # Twelve tables, per piece kind a middle-game and an end-game one; the
        # rook and the queen use their middle-game table in the end game too.
        tables: list[int] = []
        for piece in PIECE_KINDS:
            tables += self.table(piece, "mg") + self.table(piece, "eg")
        params = time_management_defaults()
        params.update(kind=self.KIND, pvt_tables=tables, pvt_material=list(self.material) + [0],
                      eval_scale_cp=EVAL_SCALE_CP, pawn_unit=self.material[0] * EVAL_SCALE_CP)
        return pack_search(self.search, params)

    def number_spec(self) -> NumberSpec:
        """The 640 table values, then the knight's to the queen's material (the
        pawn's is the unit); whole centipawns."""
        from .numbers import spec_from
        rows = [(f"{table_name(t)} {'abcdefgh'[sq % 8]}{sq // 8 + 1}", -TUNING_LIMIT, TUNING_LIMIT,
                 10.0, True) for t in range(len(TABLES)) for sq in range(64)]
        rows += [(f"material {piece}", 0.0, 3000.0, 20.0, True) for piece in PIECE_KINDS[1:5]]
        groups = {"tables": list(range(N_VALUES)), "material": list(range(N_VALUES, N_VALUES + 4))}
        groups.update({table_name(t): list(range(t * 64, (t + 1) * 64)) for t in range(len(TABLES))})
        return spec_from(rows, groups)

    def numbers(self):
        import numpy as np
        return np.array(self.values + self.material[1:], dtype=float)

    def with_numbers(self, vector, genome_id: int) -> PvtGenome:
        vector = self.number_spec().legal(vector).astype(int)
        return PvtGenome(genome_id, vector[:N_VALUES],
                         (self.material[0], *vector[N_VALUES:])).with_search(self.search)

    def copy(self, new_id: int | None = None) -> PvtGenome:
        return PvtGenome(self.id if new_id is None else new_id, self.values,
                         self.material).with_search(self.search)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PvtGenome) and other.id == self.id
                and other.values == self.values and other.material == self.material
                and other.search == self.search)

    __hash__ = None

    def __repr__(self) -> str:
        return f"PvtGenome({self.id}, material={list(self.material)})"
