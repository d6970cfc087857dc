"""The unified genome: the three designs' evaluation terms in one tapered, linear form.

Every term (genchess_core/eval_unified.pyx says what each counts) has a middle-game
and an end-game number, whole centipawns; the evaluation blends the two sums by the
game phase. The terms come in named groups (`TERMS`, read from the C module so that
the file, the tuner and the evaluation share one layout): material, a table per
piece kind, mobility by safe squares per piece, passed pawns by rank, pawn
structure, threats by attacker and victim, king safety, the centre, castling
rights, the bishop pair, rooks on open files, outposts, tempo.

The pawn's middle-game material is the unit every evaluation is reported in
(centipawns), so a tuner leaves it alone (numbers.py); everything else evolves.

One number is for the search, not the evaluation: `Search pawn: N` (optional), how many of the evaluation's centipawns the search's margins (futility,
reverse futility, delta pruning, the aspiration window, the singular-extension
margin) take for a pawn. Without it they take the pawn's middle-game material.
Evolved tables can make a pawn on the board worth much less than that number, and
positions cannot see the margins, so games set it (docs/unified.md); tuners carry it
through unchanged.

File block (every group twice, middle game then end game; a table as a picture of
the board, rank 8 first, as the PVT kind writes it):

    ID: 1
    Kind: unified
    Search pawn: 60                      (optional)
    material mg: 100 248 272 383 823
    material eg: 100 248 272 383 823
    Table: pawn mg
       0    0    0    0    0    0    0    0
    ... (eight rows; six pieces, two phases)
    mobility knight mg: 0 0 0 0 0 0 0 0 0
    mobility knight eg: 0 0 0 0 0 0 0 0 0
    ...
    tempo mg: 0
    tempo eg: 0
    END
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from genchess_core.eval_unified import TERM_COUNT, TERMS

from .genes import time_management_defaults
from .kinds import GenomeError, quote, register_kind
from .search_genes import CarriesSearchGenes, pack_search, search_lines
from .pvt import EVAL_SCALE_CP, PIECE_KINDS, square_index, whole_numbers

if TYPE_CHECKING:                   # numpy loads only when a tuner asks (start-up)
    from .numbers import NumberSpec

PHASES = ("mg", "eg")
TABLE_GROUPS = PIECE_KINDS                      # the groups written as board pictures
GROUP = {name: (first, length) for name, first, length in TERMS}
TUNING_LIMIT = 500.0                            # |value| a tuner may give a term
SEARCH_PAWN_RANGE = (10, 1000)                  # centipawns a `Search pawn:` line may say
MATERIAL_LIMIT = 3000.0
SQUARES = [f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}" for sq in range(64)]
# What each group's entries stand for, for the tuner's number names (the rest: 0, 1, ...).
LABELS = {
    "material": PIECE_KINDS[:5], "hanging": PIECE_KINDS[:5],
    **{f"threat by {a}": PIECE_KINDS[:5] for a in PIECE_KINDS},
    **{g: [f"rank {r}" for r in range(2, 8)]
       for g in ("passed pawn", "passed blocked", "passed own king", "passed enemy king")},
    "king zone": PIECE_KINDS[1:5], "king shelter": ("one ahead", "two ahead"),
    "castling": ("king side", "queen side"), "outpost": ("knight", "bishop"),
    **{p: SQUARES for p in TABLE_GROUPS},
}
# The tuner's named groups of terms (`evolve = ...`), besides each TERMS group itself.
FAMILIES = {
    "tables": TABLE_GROUPS,
    "mobility": [g for g, _, _ in TERMS if g.startswith("mobility")],
    "passed": [g for g, _, _ in TERMS if g.startswith("passed")],
    "pawns": ["isolated pawn", "stacked pawn", "backward pawn", "pawn islands", "supported pawn",
              "pawn phalanx"],
    "threats": [g for g, _, _ in TERMS if g.startswith("threat")] + ["hanging"],
    "king safety": [g for g, _, _ in TERMS if g.startswith("king ")] + ["castling"],
}


def tunable(phase: str, term: int) -> bool:
    """Whether a tuner changes this number: not the unit (the pawn's middle-game
    material) and not a pawn on its first or last rank (no pawn stands there)."""
    pawn_square = term - GROUP["pawn"][0]
    if 0 <= pawn_square < 64 and pawn_square // 8 in (0, 7):
        return False
    return not (phase == "mg" and term == GROUP["material"][0])


# The numbers a tuner sees, in order: (phase, term index).
TUNED = [(phase, term) for phase in PHASES for term in range(TERM_COUNT) if tunable(phase, term)]
TUNED_INDEX = set(TUNED)


def entry_label(group: str, k: int) -> str:
    labels = LABELS.get(group)
    return labels[k] if labels else str(k)


@register_kind
class UnifiedGenome(CarriesSearchGenes):
    KIND = "unified"

    def __init__(self, genome_id: int, mg: Sequence[int], eg: Sequence[int],
                 search_pawn: int | None = None) -> None:
        if len(mg) != TERM_COUNT or len(eg) != TERM_COUNT:
            raise ValueError(f"a unified genome has {TERM_COUNT} numbers per phase")
        low, high = SEARCH_PAWN_RANGE
        if search_pawn is not None and not low <= search_pawn <= high:
            raise ValueError(f"search pawn {search_pawn} is outside {low} to {high}")
        self.id = int(genome_id)
        self.search: dict[str, int] = {}
        self.mg = tuple(int(v) for v in mg)
        self.eg = tuple(int(v) for v in eg)
        self.search_pawn = None if search_pawn is None else int(search_pawn)

    @classmethod
    def from_material(cls, genome_id: int, material: Sequence[int]) -> UnifiedGenome:
        """Material (pawn .. queen, centipawns) in both phases, every other number 0."""
        values = list(material) + [0] * (TERM_COUNT - 5)
        return cls(genome_id, values, values)

    def group(self, name: str, phase: str) -> tuple[int, ...]:
        first, length = GROUP[name]
        values = self.mg if phase == "mg" else self.eg
        return values[first:first + length]

    def hosting(self, chromosome) -> UnifiedGenome:
        """This genome with its piece-square tables replaced by a PVT chromosome's,
        under the chromosome's ID: Phoenix's tables evolved inside a whole evaluation,
        as the paper evolved them inside CuckooChess's. Every other number is this
        genome's (the chromosome's material is not used); the rook's and the queen's
        end-game tables are their middle-game ones, as the chromosome has them."""
        values = {"mg": list(self.mg), "eg": list(self.eg)}
        for piece in TABLE_GROUPS:
            first, length = GROUP[piece]
            for phase in PHASES:
                values[phase][first:first + length] = chromosome.table(piece, phase)
        return UnifiedGenome(chromosome.id, values["mg"], values["eg"],
                             self.search_pawn).with_search(self.search)

    # ------------------------------------------------------------ the file

    @classmethod
    def from_lines(cls, genome_id: int, lines: list[tuple[int, str]], path: str,
                   kind_line: int, end_line: int) -> UnifiedGenome:
        values = {"mg": [None] * TERM_COUNT, "eg": [None] * TERM_COUNT}
        seen: dict[str, int] = {}
        table: tuple[str, str] | None = None        # the open picture's (piece, phase)
        rows = 0
        search_pawn = None

        def close_table(n: int) -> None:
            if table is not None and rows < 8:
                raise GenomeError.at(path, n, f"unified genome: table '{' '.join(table)}' has "
                                              f"{rows} rows, not 8")

        def claim(name: str, n: int) -> None:
            if name in seen:
                raise GenomeError.at(path, n, f"unified genome: duplicated '{name}' "
                                              f"(first at line {seen[name]})")
            seen[name] = n

        for n, line in lines:
            if not line:
                continue
            key, colon, text = line.partition(":")
            key, text = " ".join(key.lower().split()), text.strip()
            if colon and key == "table":
                close_table(n)
                words = text.lower().split()
                if len(words) != 2 or words[0] not in TABLE_GROUPS or words[1] not in PHASES:
                    raise GenomeError.at(path, n, f"unified genome: unknown table {quote(text)} "
                                                  f"(a piece, {', '.join(TABLE_GROUPS)}, then mg or eg)")
                claim(f"table {words[0]} {words[1]}", n)
                table, rows = (words[0], words[1]), 0
                continue
            if colon and key == "search pawn":
                close_table(n)
                table = None
                claim(key, n)
                search_pawn = cls._search_pawn(text, path, n)
                continue
            if colon:
                close_table(n)
                table = None
                group, _, phase = key.rpartition(" ")
                if group not in GROUP or group in TABLE_GROUPS or phase not in PHASES:
                    raise GenomeError.at(path, n, f"unified genome: unknown term {quote(key)} "
                                                  f"(a group then mg or eg, e.g. 'bishop pair mg')")
                claim(key, n)
                first, length = GROUP[group]
                values[phase][first:first + length] = cls._numbers(text, length, path, n, key)
                continue
            if table is None:
                raise GenomeError.at(path, n, f"unified genome: expected '<term> mg: ...', "
                                              f"'<term> eg: ...' or 'Table: <piece> <mg|eg>', "
                                              f"got {quote(line)}")
            if rows == 8:
                raise GenomeError.at(path, n, f"unified genome: table '{' '.join(table)}' has more "
                                              f"than 8 rows")
            first, _ = GROUP[table[0]]
            for column, value in enumerate(cls._numbers(line, 8, path, n, "a table row")):
                values[table[1]][first + square_index(rows, column)] = value
            rows += 1
        close_table(end_line)
        missing = [f"'{group} {phase}'" for group, first, _ in TERMS for phase in PHASES
                   if values[phase][first] is None]
        if missing:
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise GenomeError.at(path, kind_line, f"unified genome {genome_id}: missing "
                                                  f"{', '.join(missing[:3])}{more}")
        return cls(genome_id, values["mg"], values["eg"], search_pawn)

    @staticmethod
    def _search_pawn(text: str, path: str, n: int) -> int:
        low, high = SEARCH_PAWN_RANGE
        (value,) = whole_numbers(text, 1, path, n, "unified genome: search pawn")
        if not low <= value <= high:
            raise GenomeError.at(path, n, f"unified genome: search pawn {value} is outside "
                                          f"{low} to {high} centipawns")
        return value

    @staticmethod
    def _numbers(text: str, count: int, path: str, n: int, what: str) -> list[int]:
        return whole_numbers(text, count, path, n, f"unified genome: {what}")

    def to_text(self) -> str:
        lines = [f"ID: {self.id}", f"Kind: {self.KIND}"]
        if self.search_pawn is not None:
            lines.append(f"Search pawn: {self.search_pawn}")
        for group, first, length in TERMS:
            for phase in PHASES:
                values = self.group(group, phase)
                if group in TABLE_GROUPS:
                    lines.append(f"Table: {group} {phase}")
                    lines += [" ".join(f"{values[square_index(row, c)]:4d}" for c in range(8))
                              for row in range(8)]
                else:
                    lines.append(f"{group} {phase}: " + " ".join(str(v) for v in values))
        return "\n".join(lines + search_lines(self.search) + ["END", "", ""])

    # ------------------------------------------------------------ the engine

    def pack(self) -> dict:
        params = time_management_defaults()
        params.update(kind=self.KIND, unified_mg=list(self.mg), unified_eg=list(self.eg),
                      eval_scale_cp=EVAL_SCALE_CP, pawn_unit=self.mg[0] * EVAL_SCALE_CP)
        if self.search_pawn is not None:
            params["search_pawn_unit"] = self.search_pawn * EVAL_SCALE_CP
        return pack_search(self.search, params)

    # ------------------------------------------------------------ the tuner

    def number_spec(self) -> NumberSpec:
        """Every number the evaluation can feel, middle-game numbers first, whole
        centipawns: all but the pawn's middle-game material (the unit) and the pawn
        table's first and last ranks (no pawn stands there)."""
        from .numbers import spec_from
        rows, groups = [], {}
        for phase in PHASES:
            phase_start = len(rows)
            for group, first, length in TERMS:
                members = []
                for k in range(length):
                    if (phase, first + k) not in TUNED_INDEX:
                        continue
                    limit = (0.0, MATERIAL_LIMIT) if group == "material" else (-TUNING_LIMIT, TUNING_LIMIT)
                    members.append(len(rows))
                    rows.append((f"{group} {phase} {entry_label(group, k)}", *limit,
                                 20.0 if group == "material" else 10.0, True))
                groups.setdefault(group, []).extend(members)
                groups[f"{group} {phase}"] = members
            groups[phase] = list(range(phase_start, len(rows)))
        for family, members in FAMILIES.items():
            groups[family] = sorted(i for g in members for i in groups[g])
        return spec_from(rows, groups)

    def numbers(self):
        import numpy as np
        values = {"mg": self.mg, "eg": self.eg}
        return np.array([values[phase][term] for phase, term in TUNED], dtype=float)

    def with_numbers(self, vector, genome_id: int) -> UnifiedGenome:
        vector = self.number_spec().legal(vector).astype(int)
        values = {"mg": list(self.mg), "eg": list(self.eg)}
        for (phase, term), value in zip(TUNED, vector):
            values[phase][term] = int(value)
        return UnifiedGenome(genome_id, values["mg"], values["eg"],
                             self.search_pawn).with_search(self.search)

    def copy(self, new_id: int | None = None) -> UnifiedGenome:
        return UnifiedGenome(self.id if new_id is None else new_id, self.mg, self.eg,
                             self.search_pawn).with_search(self.search)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, UnifiedGenome) and other.id == self.id
                and other.mg == self.mg and other.eg == self.eg
                and other.search_pawn == self.search_pawn and other.search == self.search)

    __hash__ = None

    def __repr__(self) -> str:
        return f"UnifiedGenome({self.id}, material mg={list(self.group('material', 'mg'))})"
