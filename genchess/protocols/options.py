"""Engine settings shared by the command line, UCI `setoption` and xboard `option`.

Both protocols and the command line name the same handful of settings; keeping
their parsing and validation here means a value is checked the same way whichever
door it comes through, and a bad one always leaves the engine as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from genchess import levels
from genchess.book import DEFAULT_DEPTH as DEFAULT_BOOK_DEPTH, MAX_DEPTH as MAX_BOOK_DEPTH, Book, BookError
from genchess.engine import SEARCH_MODES, Engine
from genchess.genome import default_genome, open_genome
from genchess.genome.search_genes import search_genes
from genchess_core.gasearch import DEFAULT_POOL_NODES
from genchess_core.searcher import FEATURE_NAMES

DEFAULT_GENOME = "<default>"


class OptionError(ValueError):
    """A setting that cannot be applied; the message says which and why."""


@dataclass
class Spin:
    default: int
    lo: int
    hi: int


# Threads: one to the machine's cores (more threads than cores only slow a search down).
MAX_THREADS = max(1, os.cpu_count() or 1)

SPINS = {
    "Threads": Spin(1, 1, MAX_THREADS),
    "Hash": Spin(16, 1, 4096),
    "Move Overhead": Spin(30, 0, 5000),
    "MultiPV": Spin(1, 1, 10),
    "GA Init Level": Spin(1, 1, 2),                     # GA search: root moves or two-ply branches
    "GA Nodes": Spin(DEFAULT_POOL_NODES, 1000, 50_000_000),   # GA search: node pool (32 bytes each)
    "Book Depth": Spin(DEFAULT_BOOK_DEPTH, 1, MAX_BOOK_DEPTH),
    "Skill Level": Spin(levels.MAX_SKILL, 0, levels.MAX_SKILL),   # as Stockfish's: 20 is full strength
}
# UCI_Elo spans the ratings the levels were measured at (genchess.levels.CALIBRATION);
# the option is offered only once there are measurements to map it with.
ELO_RANGE = levels.elo_range()
if ELO_RANGE is not None:
    SPINS["UCI_Elo"] = Spin(ELO_RANGE[0], *ELO_RANGE)

# Trials: search steps waiting for their SPRT, off by default, each a check option that
# turns its feature bit on, so that an SPRT plays one build against itself with the
# option on one side (lab/README.md). A step that passes joins the search's defaults
# and leaves this table.
TRIALS = {
    "Time Scaling": FEATURE_NAMES["time_scaling"],     # the soft limit scaled by the iterations
    "ProbCut": FEATURE_NAMES["probcut"],               # a capture far above beta at reduced depth cuts
    "Capture History": FEATURE_NAMES["capture_history"],  # captures ordered by their own statistics
    "History Pruning": FEATURE_NAMES["history_pruning"],  # quiet moves with a bad history skipped
    "Double Singular": FEATURE_NAMES["double_singular"],  # double and negative singular extensions
    "Rule50 Scaling": FEATURE_NAMES["rule50_scaling"],    # the evaluation shrinks as the 50-move clock runs
    "Null Verify": FEATURE_NAMES["null_verify"],          # a null move's cut verified without one (zugzwang)
    "Cont History Plies": FEATURE_NAMES["cont_history_plies"],  # continuation history 1 ply back weighed
                                                                # on its own, and 4 plies back
    "TT Buckets": FEATURE_NAMES["tt_buckets"],            # the hash table in buckets of four, aged
    "Correction History": FEATURE_NAMES["correction_history"],  # the evaluation corrected by material, pieces
    "SEE Pruning": FEATURE_NAMES["see_pruning"],          # moves losing material by SEE skipped near the leaves
}


def parse_spin(name: str, text: str) -> int:
    spin = SPINS[name]
    try:
        value = int(text.strip())
    except ValueError:
        raise OptionError(f"{name} must be a whole number from {spin.lo} to {spin.hi}, "
                          f"not {text.strip()!r}") from None
    if not spin.lo <= value <= spin.hi:
        raise OptionError(f"{name} must be from {spin.lo} to {spin.hi}, not {value}")
    return value


def parse_check(name: str, text: str) -> bool:
    """A check option's value: true or false (xboard sends 1 or 0)."""
    value = text.strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise OptionError(f"{name} must be true or false, not {text.strip()!r}")


class Settings:
    """The engine's adjustable settings, applied to an Engine."""

    def __init__(self, engine: Engine, tune: bool = False):
        self.engine = engine
        self.tune = tune                # the search genes are options too (genchess uci --tune)
        self.genome_path = DEFAULT_GENOME
        self.genome_id: int | None = None
        self.ponder = False
        self.book_depth = DEFAULT_BOOK_DEPTH
        self.skill_level = levels.MAX_SKILL
        self.limit_strength = False
        self.uci_elo = ELO_RANGE[0] if ELO_RANGE else None
        self.show_wdl = False

    def setter(self, name: str):
        """The method that sets the option called `name` (either protocol's
        spelling, any case), or None for a name GenChess does not have."""
        method = {
            "hash": "set_hash", "threads": "set_threads", "move overhead": "set_move_overhead",
            "multipv": "set_multipv", "search": "set_search", "ponder": "set_ponder",
            "genome": "set_genome", "genome id": "set_genome_id",
            "ga init level": "set_ga_init_level", "ga nodes": "set_ga_nodes",
            "book file": "set_book", "book depth": "set_book_depth",
            "skill level": "set_skill_level", "uci_limitstrength": "set_limit_strength",
            "uci_elo": "set_uci_elo", "uci_chess960": "set_chess960", "uci_showwdl": "set_show_wdl",
        }.get(name.strip().lower())
        trial = next((bit for trial, bit in TRIALS.items() if trial.lower() == name.strip().lower()), None)
        if method is None and trial is not None:
            return lambda text: self.engine.set_feature(trial, parse_check(name.strip(), text))
        if method is None and self.tune:
            gene = name.strip().lower()
            if gene in search_genes():
                return lambda text: self.set_search_gene(gene, text)
        return getattr(self, method) if method else None

    def tuned_options(self):
        """The search genes as spin options (name, default, lo, hi) when tuning, else none."""
        if not self.tune:
            return []
        return [(gene.name, self.engine.genome.search.get(gene.name, gene.default), gene.lo, gene.hi)
                for gene in search_genes().values()]

    def set_search_gene(self, name: str, text: str) -> None:
        try:
            value = int(text.strip())
        except ValueError:
            raise OptionError(f"{name} must be a whole number, not {text.strip()!r}") from None
        try:
            self.engine.set_search_genes({name: value})
        except ValueError as e:
            raise OptionError(str(e)) from None

    def set_hash(self, text: str) -> None:
        megabytes = parse_spin("Hash", text)
        try:
            self.engine.set_hash(megabytes)
        except MemoryError as e:
            raise OptionError(str(e)) from None

    def set_threads(self, text: str) -> None:
        threads = parse_spin("Threads", text)
        try:
            self.engine.set_threads(threads)
        except MemoryError as e:
            raise OptionError(str(e)) from None

    def set_move_overhead(self, text: str) -> None:
        self.engine.move_overhead_ms = parse_spin("Move Overhead", text)

    def set_multipv(self, text: str) -> None:
        self.engine.multipv = parse_spin("MultiPV", text)

    def set_skill_level(self, text: str) -> None:
        self._apply_level(skill_level=parse_spin("Skill Level", text))

    def set_limit_strength(self, text: str) -> None:
        self._apply_level(limit_strength=parse_check("UCI_LimitStrength", text))

    def set_uci_elo(self, text: str) -> None:
        if ELO_RANGE is None:
            raise OptionError("UCI_Elo: no strength levels are calibrated in this build")
        self._apply_level(uci_elo=parse_spin("UCI_Elo", text))

    def _apply_level(self, **change) -> None:
        """Set the engine's level from the three options; UCI_LimitStrength with
        UCI_Elo wins over Skill Level, as in Stockfish. A player without levels
        refuses, and the options stay as they were."""
        values = {"skill_level": self.skill_level, "limit_strength": self.limit_strength,
                  "uci_elo": self.uci_elo, **change}
        if values["limit_strength"] and values["uci_elo"] is not None:
            skill = levels.skill_for_elo(values["uci_elo"])
        else:
            skill = values["skill_level"]
        self.engine.set_skill(skill)
        for name, value in values.items():
            setattr(self, name, value)

    def set_chess960(self, text: str) -> None:
        """Castling written king-takes-rook (e1h1), as UCI GUIs expect when they play
        Chess960; Chess960 positions themselves need no option."""
        self.engine.set_chess960(parse_check("UCI_Chess960", text))

    def set_ga_init_level(self, text: str) -> None:
        self.engine.ga_init_level = parse_spin("GA Init Level", text)

    def set_ga_nodes(self, text: str) -> None:
        self.engine.ga_nodes = parse_spin("GA Nodes", text)

    def set_book(self, path: str) -> None:
        """Play from a Polyglot book (empty: no book, the default)."""
        path = path.strip()
        if path in ("", "<empty>", "<none>"):
            self.engine.book = None
            return
        try:
            self.engine.book = Book(path, self.book_depth)
        except BookError as e:
            raise OptionError(str(e)) from None

    def set_book_depth(self, text: str) -> None:
        self.book_depth = parse_spin("Book Depth", text)
        if getattr(self.engine, "book", None) is not None:
            self.engine.book.depth = self.book_depth

    def set_search(self, text: str) -> None:
        mode = text.strip().lower()
        if mode not in SEARCH_MODES:
            raise OptionError(f"Search must be one of {', '.join(SEARCH_MODES)}, not {text.strip()!r}")
        self.engine.search_mode = mode

    def set_ponder(self, text: str) -> None:
        self.ponder = parse_check("Ponder", text)

    def set_show_wdl(self, text: str) -> None:
        self.show_wdl = parse_check("UCI_ShowWDL", text)

    def set_genome(self, path: str, genome_id: int | None = None) -> None:
        """Load a genome file (DEFAULT_GENOME or empty: the shipped default)."""
        path = path.strip()
        if not path or path == DEFAULT_GENOME:
            genome = default_genome()
            path = DEFAULT_GENOME
            genome_id = None
        else:
            genome = open_genome(path, genome_id, error=OptionError)
        self.engine.set_genome(genome)
        self.genome_path, self.genome_id = path, genome_id

    def set_genome_id(self, text: str) -> None:
        text = text.strip()
        if not text or text.lower() in ("none", "<none>"):
            genome_id = None
        else:
            try:
                genome_id = int(text)
            except ValueError:
                raise OptionError(f"Genome ID must be a whole number, not {text!r}") from None
        if self.genome_path == DEFAULT_GENOME:
            if genome_id is not None:
                raise OptionError("set Genome to a genome file before choosing a Genome ID")
            return
        self.set_genome(self.genome_path, genome_id)
