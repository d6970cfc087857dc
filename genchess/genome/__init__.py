"""Genomes of GenChess: the Genetic Chess genome file format, genes, and the
evolutionary operators. Pure Python; `Genome.pack()` is the only thing the C
engine sees, once per loaded genome.
"""

from .genes import GENE_CLASSES, GENES_BY_NAME, PACK_KEYS, Gene, GenomeError, Value
from .genome import Genome
from .genome_file import (
    GenomeFile,
    StillAlive,
    count_wins,
    default_genome,
    load_genome,
    parse_genome_text,
    read_genome_file,
    read_genomes,
    write_genome,
    write_still_alive,
)

__all__ = [
    "GENE_CLASSES",
    "GENES_BY_NAME",
    "PACK_KEYS",
    "Gene",
    "Genome",
    "GenomeError",
    "GenomeFile",
    "StillAlive",
    "Value",
    "count_wins",
    "default_genome",
    "load_genome",
    "parse_genome_text",
    "read_genome_file",
    "read_genomes",
    "write_genome",
    "write_still_alive",
]
