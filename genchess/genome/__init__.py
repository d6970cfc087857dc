"""Genomes of GenChess: one module per evaluation kind (Genetic Chess genes: genes.py
and genome.py; Kendall-Whitwell material weights: material.py; Phoenix piece-square
tables: pvt.py; the three designs' terms in one tapered form: unified.py; a
perspective network trained by gradients: network.py), the
registry of kinds and the one GenomeError (kinds.py), the genome file format every
kind shares (genome_file.py), and `open_genome` (run_files.py), the one way every
command, protocol and player opens a genome by name: a genome file or a trainer's
run file, whose reading (read-only) is here too, so that opening a genome never
loads a trainer. Pure Python; a genome's `pack()` is the only thing the C engine
sees, once per loaded genome.
"""

from .genes import GENE_CLASSES, GENES_BY_NAME, PACK_KEYS, Gene, Value
from .genome import Genome
from .kinds import GENOME_KINDS, GenomeError, register_kind
from .material import MaterialGenome
from .pvt import PvtGenome
from .unified import UnifiedGenome
from .network import NetworkGenome
from .genome_file import (
    GenomeFile,
    StillAlive,
    default_genome,
    hand_set_genome,
    is_default_genome,
    levels_genome,
    load_genome,
    parse_genome_text,
    read_genome_file,
    read_genomes,
    write_genome,
    write_still_alive,
)
from .run_files import open_genome

__all__ = [
    "GENE_CLASSES",
    "GENES_BY_NAME",
    "GENOME_KINDS",
    "MaterialGenome",
    "NetworkGenome",
    "PvtGenome",
    "UnifiedGenome",
    "register_kind",
    "PACK_KEYS",
    "Gene",
    "Genome",
    "GenomeError",
    "GenomeFile",
    "StillAlive",
    "Value",
    "default_genome",
    "is_default_genome",
    "levels_genome",
    "hand_set_genome",
    "load_genome",
    "open_genome",
    "parse_genome_text",
    "read_genome_file",
    "read_genomes",
    "write_genome",
    "write_still_alive",
]

register_kind(Genome)
