"""Every search gene, declared once: its name, default, bounds, SPSA step and what it sets.

A search gene is a number of the search (a margin, a reduction, a depth limit) or of the
time manager that a genome may set (`Search rfp_margin: 95`) and a games tuner may move.
Each is one row of GENES below and is written nowhere else, as Stockfish's `TUNE()` and
Viridithas's parameter table do it: the rest is made from the table.

- The C struct the search reads (`SearchParams`, one int field per gene of the search):
  setup.py runs this file before Cython compiles and it writes `search_params.pxi`, which
  search.pxd includes. Cython's own conversion between a dict and a struct fills and
  reads the struct, so no setter lists the genes either.
- The checks of a genome's `Search` lines and of `Searcher.set_tunables`, the time
  manager's defaults, and the UCI spin options of `genchess uci --tune`: they read GENES.
- The table in docs/search-genes.md: `python genchess_core/search_gene_table.py --docs
  docs/search-genes.md` rewrites it; tests/test_search_gene_table.py keeps the table, the
  compiled struct, the code that reads each gene and the docs in step.

This file is plain Python with no imports from the package, so that setup.py can run it
from a clean clone before anything is built. A default is what every SPRT of the search
was measured with (docs/studies/search-elo.md); the step is how far a games tuner moves
the gene at the end of a run (SPSA's c_end, about 2 to 3 Elo either way). Margins are in
percent of the genome's pawn, reductions in plies, unless the row says otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

SEARCH = "search"           # read by the C search (genchess_core/search.pyx, movepick.pxd)
TIME = "time_factors"       # read by the time manager (genchess/timeman.py)


class Gene(NamedTuple):
    name: str               # the struct field, the genome's `Search <name>:` key, the UCI option
    default: int
    lo: int
    hi: int
    step: int
    part: str               # SEARCH or TIME: who reads it (and the key a genome packs it under)
    what: str               # what it sets, for the docs' table and the struct's comments
    # The trial (genchess/protocols/options.py's TRIALS) whose step reads the gene, while
    # that step waits for its SPRT; "" once the step is in FEATURES_ALL. A tune of every
    # gene freezes a trial's genes (genchess/train/examples/tune-search-all.cfg): with its
    # feature off in the tune's games they would move by chance alone.
    trial: str = ""


GENES = (
    Gene("iir_min_depth", 4, 2, 10, 1, SEARCH, "step 7, internal iterative reduction: from this "
         "depth on, a node the hash table knows nothing of is searched a ply shallower"),
    Gene("rfp_max_depth", 6, 1, 12, 1, SEARCH, "step 9, reverse futility pruning: acts this close "
         "to the leaves"),
    Gene("rfp_margin", 90, 30, 250, 8, SEARCH, "step 9: the margin per ply of depth left, in "
         "percent of a pawn"),
    Gene("futility_max_depth", 3, 1, 8, 1, SEARCH, "steps 10 and 16, futility pruning: this close "
         "to the leaves"),
    Gene("futility_margin", 100, 30, 250, 8, SEARCH, "step 10: margin per ply, percent of a pawn"),
    Gene("futility_base", 100, 0, 300, 10, SEARCH, "step 10: and this much more, percent of a pawn"),
    Gene("null_min_depth", 3, 1, 8, 1, SEARCH, "step 11, null-move pruning: from this depth on"),
    Gene("null_reduction", 2, 1, 5, 1, SEARCH, "step 11: the null move's search is this many plies "
         "shallower (beyond the move itself)"),
    Gene("null_deep_depth", 6, 3, 12, 1, SEARCH, "step 11: from this depth on ..."),
    Gene("null_deep_reduction", 3, 1, 6, 1, SEARCH, "step 11: ... this many"),
    Gene("null_verify_min_depth", 4, 1, 16, 1, SEARCH, "step 11a, the zugzwang guard (a trial "
         "behind the Null Verify option): from this depth on a null move's cut is verified by a "
         "search R plies shallower without one", trial="Null Verify"),
    Gene("singular_min_depth", 7, 4, 12, 1, SEARCH, "step 14, singular extensions: from this depth on"),
    Gene("singular_tt_gap", 3, 1, 6, 1, SEARCH, "step 14: where the hash move was searched at most "
         "this much shallower"),
    Gene("singular_margin", 2, 0, 20, 1, SEARCH, "step 14: how much worse every other move must be, "
         "per ply, percent of a pawn"),
    Gene("singular_divisor", 2, 1, 4, 1, SEARCH, "step 14: the others are searched to (depth - 1) / this"),
    Gene("singular_double_margin", 20, 0, 100, 4, SEARCH, "step 14, double extensions (a trial behind "
         "the Double Singular option): away from the PV, a hash move whose others stay this much "
         "below the singular margin, percent of a pawn, is extended twice ...", trial="Double Singular"),
    Gene("singular_double_max", 6, 1, 16, 1, SEARCH, "step 14: ... while fewer than this many moves "
         "above the node on its line were", trial="Double Singular"),
    Gene("probcut_min_depth", 5, 3, 10, 1, SEARCH, "step 11b, ProbCut (a trial behind the ProbCut "
         "option): from this depth on", trial="ProbCut"),
    Gene("probcut_margin", 100, 30, 300, 10, SEARCH, "step 11b: a capture must beat beta by this "
         "much, percent of a pawn ...", trial="ProbCut"),
    Gene("probcut_reduction", 3, 2, 6, 1, SEARCH, "step 11b: ... in a search this many plies "
         "shallower (beyond the move itself)", trial="ProbCut"),
    Gene("lmp_max_depth", 3, 1, 8, 1, SEARCH, "step 16, late-move pruning: this close to the leaves"),
    Gene("lmp_base", 3, 1, 12, 1, SEARCH, "step 16: after this + depth^2 quiet moves"),
    Gene("history_prune_max_depth", 3, 1, 8, 1, SEARCH, "step 16, history pruning (a trial behind "
         "the History Pruning option): this close to the leaves ...", trial="History Pruning"),
    Gene("history_prune_margin", 2048, 256, 8192, 256, SEARCH, "step 16: ... a quiet move whose "
         "history and continuation histories add up to less than minus this per ply is skipped "
         "(each within +-16384)", trial="History Pruning"),
    Gene("see_prune_max_depth", 6, 1, 12, 1, SEARCH, "step 16, SEE pruning (a trial behind the SEE "
         "Pruning option): this close to the leaves ...", trial="SEE Pruning"),
    Gene("see_capture_margin", 90, 20, 300, 8, SEARCH, "step 16: ... a capture is skipped if it "
         "loses more than this per ply left by SEE, SEE's centipawns ...", trial="SEE Pruning"),
    Gene("see_quiet_margin", 25, 5, 100, 3, SEARCH, "step 16: ... and a quiet move if it loses more "
         "than this times the plies left squared", trial="SEE Pruning"),
    Gene("lmr_min_depth", 3, 2, 6, 1, SEARCH, "step 17, late-move reductions: from this depth on"),
    Gene("lmr_min_move", 3, 1, 8, 1, SEARCH, "step 17: for moves after this many"),
    Gene("lmr_base", 75, 0, 200, 8, SEARCH, "step 17: the table's base reduction, hundredths of a ply"),
    Gene("lmr_divisor", 225, 100, 500, 15, SEARCH, "step 17: ln(depth) ln(move) divided by this "
         "(hundredths), added to the base"),
    Gene("lmr_history_step", 8192, 2048, 32768, 600, SEARCH, "step 17: a ply less (more) reduction "
         "per this much history above (below) zero"),
    Gene("lmr_history_plies", 2, 0, 4, 1, SEARCH, "step 17: ... up to this many plies either way"),
    Gene("lmr_min_plies_left", 1, 0, 3, 1, SEARCH, "step 17: a reduced search still looks this many "
         "plies ahead"),
    Gene("rule50_divisor", 200, 120, 1000, 25, SEARCH, "step 8 and step Q4, fifty-move scaling (a "
         "trial behind the Rule50 Scaling option): the search's static evaluation is scaled by "
         "(this - the halfmove clock) / this", trial="Rule50 Scaling"),
    Gene("correction_material_weight", 40, 0, 200, 8, SEARCH, "step 8, correction history (a trial "
         "behind the Correction History option): the search's static evaluation adds this percent "
         "of the material table's entry ...", trial="Correction History"),
    Gene("correction_non_pawn_weight", 30, 0, 200, 8, SEARCH, "step 8: ... and this percent of each "
         "side's non-pawn table's entry", trial="Correction History"),
    Gene("correction_max_weight", 16, 2, 64, 2, SEARCH, "step 19, correction history: after a search "
         "to depth d, each entry moves min(d + 1, this) / 256 of the error the search found ...",
         trial="Correction History"),
    Gene("correction_limit", 200, 50, 800, 25, SEARCH, "step 19: ... and never past this, percent of "
         "the genome's pawn", trial="Correction History"),
    Gene("delta_margin", 200, 50, 600, 15, SEARCH, "step Q7, delta pruning in quiescence: a capture "
         "must bring the node this near alpha, percent of a pawn"),
    Gene("aspiration_min_depth", 5, 2, 10, 1, SEARCH, "aspiration windows at the root from this "
         "iteration on"),
    Gene("aspiration_width", 25, 5, 100, 3, SEARCH, "their first half-width, percent of a pawn"),
    Gene("aspiration_max_pawns", 16, 2, 64, 2, SEARCH, "a window wider than this many pawns opens fully"),
    Gene("history_bonus_quadratic", 16, 0, 64, 2, SEARCH, "step 18: a cutoff at depth d adds "
         "min(quadratic d^2 + linear (d - 1), max) to its quiet move's history"),
    Gene("history_bonus_linear", 128, 0, 512, 16, SEARCH, "step 18: the linear part"),
    Gene("history_bonus_max", 1600, 400, 4000, 100, SEARCH, "step 18: the most one cutoff adds"),
    Gene("capture_history_mvv", 2048, 256, 8192, 256, SEARCH, "step 13, capture history (a trial "
         "behind the Capture History option): a capture is ordered by this times its victim's "
         "worth in pawns (the ordering's table), plus its capture history (within +-16384)",
         trial="Capture History"),
    Gene("cont_history1_weight", 200, 100, 400, 12, SEARCH, "step 13, continuation history by plies "
         "(a trial behind the Cont History Plies option): a quiet move's continuation history "
         "after the last move counts this many percent in its order (its history and the other "
         "continuation histories 100)", trial="Cont History Plies"),
    Gene("tt_age_weight", 8, 0, 32, 1, SEARCH, "the hash table's buckets (a trial behind the TT "
         "Buckets option): an entry's worth when another position needs its place is its depth "
         "less this many plies per search since it was written (Stockfish 8, Ethereal 4)",
         trial="TT Buckets"),
    Gene("time_min_moves", 8, 2, 30, 1, TIME, "the time manager never plans for fewer moves than "
         "this (unless the control ends sooner)"),
    Gene("time_growth", 200, 100, 400, 10, TIME, "a move's soft limit is its target time divided by "
         "this (percent): no new iteration starts after it"),
    Gene("time_hard_ratio", 300, 150, 600, 20, TIME, "a search is stopped at this many times its "
         "target (percent), within the clock's caps"),
    # The soft limit scaled after each iteration (a trial behind the Time Scaling option,
    # timeman.SoftScaling): by the product of three factors, never past the hard limit.
    Gene("tm_stability_base", 130, 80, 250, 6, TIME, "time scaling: the soft limit's factor when the "
         "best move has just changed (percent)", trial="Time Scaling"),
    Gene("tm_stability_step", 8, 0, 30, 2, TIME, "time scaling: ... less this much for each "
         "iteration the best move has stayed the same (percent)", trial="Time Scaling"),
    Gene("tm_stability_max", 6, 1, 15, 1, TIME, "time scaling: ... counting at most this many "
         "iterations", trial="Time Scaling"),
    Gene("tm_nodes_base", 120, 100, 200, 5, TIME, "time scaling: the node factor is (this - the "
         "best move's share of the root's nodes) ..., both in percent", trial="Time Scaling"),
    Gene("tm_nodes_scale", 200, 50, 400, 10, TIME, "time scaling: ... times this (percent) ...",
         trial="Time Scaling"),
    Gene("tm_nodes_min", 50, 20, 100, 4, TIME, "time scaling: ... and never below this (percent)",
         trial="Time Scaling"),
    Gene("tm_drop_scale", 60, 0, 200, 6, TIME, "time scaling: this many percent more time per pawn "
         "the score fell below the mean of the two iterations before ...", trial="Time Scaling"),
    Gene("tm_drop_max", 100, 0, 200, 8, TIME, "time scaling: ... and at most this many percent more",
         trial="Time Scaling"),
)

GENERATED_PXI = "search_params.pxi"
DOCS_BEGIN = "<!-- search genes: the table below is made from genchess_core/search_gene_table.py -->"
DOCS_END = "<!-- search genes: end of the table -->"


def genes_of(part: str) -> tuple[Gene, ...]:
    return tuple(gene for gene in GENES if gene.part == part)


def struct_pxi() -> str:
    """The SearchParams struct, one int field per gene of the search, in the table's order."""
    lines = ["# Made from search_gene_table.py by setup.py when the core is built: do not edit,",
             "# edit the table. Every number of the search that games may tune, set once per genome.",
             "",
             "cdef struct SearchParams:"]
    lines += [f"    int {gene.name}    # {gene.what}" for gene in genes_of(SEARCH)]
    return "\n".join(lines) + "\n"


def write_struct_pxi(directory: Path) -> bool:
    """Write the struct's include into `directory` if it differs from what is there (an
    unchanged file keeps its time, so Cython does not rebuild every module that cimports
    search.pxd); whether it was written."""
    path = Path(directory) / GENERATED_PXI
    text = struct_pxi()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def docs_table() -> str:
    """The docs' table of every gene (docs/search-genes.md), between its two markers."""
    rows = ["| gene | default | bounds | step | only with the option | what it sets |",
            "|---|---:|---|---:|---|---|"]
    rows += [f"| `{g.name}` | {g.default} | {g.lo} to {g.hi} | {g.step} | {g.trial} | {g.what} |"
             for g in GENES]
    return "\n".join([DOCS_BEGIN, *rows, DOCS_END])


def with_docs_table(text: str) -> str:
    """`text` (a page holding both markers) with the table between them made anew."""
    begin, end = text.find(DOCS_BEGIN), text.find(DOCS_END)
    if begin < 0 or end < begin:
        raise ValueError(f"the page has no '{DOCS_BEGIN}' ... '{DOCS_END}' pair to put the table between")
    return text[:begin] + docs_table() + text[end + len(DOCS_END):]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--docs":
        print("usage: python genchess_core/search_gene_table.py --docs docs/search-genes.md", file=sys.stderr)
        return 2
    page = Path(argv[1])
    try:
        page.write_text(with_docs_table(page.read_text(encoding="utf-8")), encoding="utf-8")
    except (OSError, ValueError) as e:
        print(f"search_gene_table: {page}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
