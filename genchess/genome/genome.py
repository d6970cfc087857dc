"""A genome: one gene of every class, with the evolutionary operators and packing.

Design trade-off: a genome is a plain ordered list of gene objects (one per class
in GENE_CLASSES) rather than a flat vector of numbers. Operators then work gene by
gene, as in the Genetic Chess design (mutation changes a few whole genes, crossover
inherits whole genes), and each gene keeps its own ranges and mutation rule; a
flat vector would suit numpy statistics better but would lose those per-gene rules.
Nothing here runs during search: `pack` flattens the genome once, at load time.
"""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING, Iterable

from .genes import GENE_CLASSES, GENES_BY_NAME, PIECE_STEP, Gene, PieceStrengthGene, Value
from .kinds import GenomeError, quote
from .search_genes import CarriesSearchGenes, pack_search, search_lines
from .material import EVAL_SCALE

if TYPE_CHECKING:                   # numpy loads only when a tuner asks (start-up)
    from .numbers import NumberSpec


class Genome(CarriesSearchGenes):
    KIND = "genetic"

    def __init__(self, genome_id: int, genes: Iterable[Gene] | None = None) -> None:
        """A genome with `genes` (one of each class, any order), or every gene's defaults."""
        self.id = int(genome_id)
        self.search: dict[str, int] = {}
        if genes is None:
            genes = [cls() for cls in GENE_CLASSES]
        by_class: dict[type[Gene], Gene] = {}
        for gene in genes:
            if type(gene) not in GENE_CLASSES or type(gene) in by_class:
                raise ValueError(f"unexpected or repeated gene {type(gene).__name__}")
            by_class[type(gene)] = gene
        missing = [cls.NAME for cls in GENE_CLASSES if cls not in by_class]
        if missing:
            raise ValueError(f"genome {self.id}: missing genes {missing}")
        self.genes: list[Gene] = [by_class[cls] for cls in GENE_CLASSES]

    def gene(self, which: type[Gene] | str) -> Gene:
        """The gene of a class, or of a file name such as 'Piece Strength Gene'."""
        cls = GENES_BY_NAME[which] if isinstance(which, str) else which
        return self.genes[GENE_CLASSES.index(cls)]

    @classmethod
    def from_lines(cls, genome_id: int, lines: list[tuple[int, str]], path: str, kind_line: int,
                   end_line: int) -> Genome:
        """Build from a block's lines: one paragraph per gene, `Name: <gene>` then its
        `key: value` lines, a blank line between genes; every gene exactly once."""
        genes: dict[type[Gene], Gene] = {}
        gene_lines: dict[type[Gene], int] = {}
        gene: type[Gene] | None = None      # the open gene
        items: dict[str, tuple[str, int]] = {}

        def close_gene() -> None:
            nonlocal gene
            if gene is not None:
                genes[gene] = gene.read(items, path, gene_lines[gene])
                gene = None

        for n, line in lines:
            key, colon, rest = line.partition(":")
            key, rest = key.strip(), rest.strip()
            if not line:
                close_gene()
            elif colon and key == "Name":
                close_gene()
                gene = GENES_BY_NAME.get(rest)
                if gene is None:
                    raise GenomeError.at(path, n, f"unknown gene {quote(rest)}")
                if gene in gene_lines:
                    raise GenomeError.at(path, n, f"duplicated gene {quote(rest)} (first at line {gene_lines[gene]})")
                gene_lines[gene], items = n, {}
            elif not colon:
                raise GenomeError.at(path, n, f"expected 'key: value', got {quote(line)}")
            elif gene is None:
                raise GenomeError.at(path, n, f"expected 'Name:' or END, got {quote(line)}")
            elif key in items:
                raise GenomeError.at(path, n, f"{gene.NAME}: duplicated key {quote(key)} (first at line {items[key][1]})")
            else:
                items[key] = (rest, n)
        close_gene()
        missing = [f"'{c.NAME}'" for c in GENE_CLASSES if c not in genes]
        if missing:
            which = "gene" if len(missing) == 1 else "genes"
            raise GenomeError.at(path, end_line, f"genome {genome_id}: missing {which} {', '.join(missing)}")
        return cls(genome_id, genes.values())

    @classmethod
    def random(cls, rng: Random, genome_id: int) -> Genome:
        return cls(genome_id, [gene_class.random(rng) for gene_class in GENE_CLASSES])

    def mutate(self, rng: Random, mean_changes: float = 2.0, piece_step: float = PIECE_STEP) -> int:
        """Mutate each gene with probability mean_changes / len(genes); return how many.
        `piece_step` is the Piece Strength Gene's step, a share of the mean piece value."""
        chance = min(1.0, mean_changes / len(self.genes))
        changed = 0
        for gene in self.genes:
            if rng.random() < chance:
                if isinstance(gene, PieceStrengthGene):
                    gene.mutate(rng, piece_step)
                else:
                    gene.mutate(rng)
                changed += 1
        return changed

    @staticmethod
    def crossover(a: Genome, b: Genome, rng: Random, new_id: int) -> Genome:
        """A child taking a copy of each gene from `a` or `b` with probability 1/2."""
        return Genome(new_id, [(ga if rng.random() < 0.5 else gb).copy() for ga, gb in zip(a.genes, b.genes)])

    # Left out of the numbers a tuner changes (numbers.py): the clock's gene, which
    # the evaluation never reads, and the three numbers whose changes only rescale
    # the evaluation against its own pawn unit (the pawn's value, the king's, which
    # both sides always have, and Total Force's priority).
    UNTUNED = {"Look Ahead Gene": None, "Piece Strength Gene": ("P", "K"), "Total Force Gene": ("Priority",)}

    def _tuned(self) -> list[tuple[Gene, Value]]:
        tuned = []
        for gene in self.genes:
            left_out = self.UNTUNED.get(gene.NAME, ())
            if left_out is None:
                continue
            tuned += [(gene, v) for v in gene.VALUES if v.key not in left_out]
        return tuned

    def number_spec(self) -> NumberSpec:
        """Every evaluation value of every gene, in file order; a group per gene and
        "material" for the Piece Strength Gene."""
        from .numbers import spec_from
        tuned = self._tuned()
        rows, groups = [], {}
        for i, (gene, value) in enumerate(tuned):
            rows.append((f"{gene.NAME}: {value.key}", value.lo, value.hi,
                         1.0 if value.integer else value.step, value.integer))
            groups.setdefault(gene.NAME, []).append(i)
        groups["material"] = groups["Piece Strength Gene"]
        return spec_from(rows, groups)

    def numbers(self):
        import numpy as np
        return np.array([gene.values[value.key] for gene, value in self._tuned()])

    def with_numbers(self, vector, genome_id: int) -> Genome:
        """A copy with these numbers; ValueError if a gene's rule refuses them."""
        child = self.copy(genome_id)
        for (gene, value), number in zip(child._tuned(), self.number_spec().legal(vector)):
            gene.values[value.key] = float(number) + 0.0
        for gene in child.genes:
            problem = gene.check(gene.values)
            if problem:
                raise ValueError(f"{gene.NAME}: {problem}")
        return child

    def copy(self, new_id: int | None = None) -> Genome:
        return Genome(self.id if new_id is None else new_id,
                      [gene.copy() for gene in self.genes]).with_search(self.search)

    def pack(self) -> dict:
        """The flat parameter dict for the C evaluation: every key in PACK_KEYS, and
        `pawn_unit`, what a pawn is worth in internal units (the search's margins and
        its centipawn reports), as every kind says it."""
        params: dict = {}
        for gene in self.genes:
            gene.pack(params)
        params["pawn_unit"] = params["total_force_priority"] * params["piece_values"][0] * EVAL_SCALE
        return pack_search(self.search, params)

    def to_text(self) -> str:
        lines = [f"ID: {self.id}"]
        for gene in self.genes:
            lines += gene.write() + [""]
        return "\n".join(lines + search_lines(self.search) + ["END", "", ""])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Genome) and other.id == self.id and other.genes == self.genes
                and other.search == self.search)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return f"Genome({self.id})"
