"""Search genes: the search's and the time manager's numbers, carried by any genome.

Genetic Chess treats search settings as genes (the Look Ahead Gene); here every
number the search reads (margins, reductions, depth limits, the aspiration window,
the history bonus) and the time manager's factors can be set by a genome of any
kind, one line each, anywhere in its block:

    Search rfp_margin: 95
    Search lmr_base: 80
    Search time_growth: 180

A genome without such lines plays exactly as before: the defaults are what every
SPRT of the search was measured with. Each gene has bounds and a step (about 2-3 Elo
either way), which is what a games tuner (SPSA, `method = spsa`) moves it by. Every
gene is one row of genchess_core/search_gene_table.py, and only there.

The lines are read by the file's framing (genome_file.py) for every kind alike, and
each kind writes them back and packs them: `search` for the search, `time_factors`
for the time manager.
"""

from __future__ import annotations

import difflib

from genchess_core.search_gene_table import GENES, SEARCH, TIME, Gene

from .kinds import GenomeError, quote

PREFIX = "Search "


def search_genes() -> dict[str, Gene]:
    """Every search gene by name, in the table's order (the search's, then the time
    manager's); each gene's `part` is the key a genome packs it under."""
    return {gene.name: gene for gene in GENES}


def is_search_line(key: str) -> bool:
    """A `Search <name>:` line that names a search gene (not the unified kind's own
    `Search pawn:`)."""
    return key.startswith(PREFIX) and key != "Search pawn"


def read_search_line(key: str, value: str, path: str, line: int, seen: dict[str, int]) -> None:
    """Add one `Search <name>: <value>` line to `seen`; GenomeError at path:line for an
    unknown name, a repeated one, or a value that is not a whole number in bounds."""
    name = key[len(PREFIX):].strip()
    genes = search_genes()
    gene = genes.get(name)
    if gene is None:
        close = difflib.get_close_matches(name, genes, n=1)
        hint = f"did you mean {close[0]}?" if close else "docs/search-genes.md lists them"
        raise GenomeError.at(path, line, f"unknown search gene {quote(name)} ({hint})")
    if name in seen:
        raise GenomeError.at(path, line, f"search gene {name} is given twice")
    try:
        number = int(value)
    except ValueError:
        raise GenomeError.at(path, line, f"search gene {name} needs a whole number, "
                                         f"got {quote(value)}") from None
    if not gene.lo <= number <= gene.hi:
        shown = number if abs(number) < 10 ** 18 else quote(value)     # (a runaway line: cut)
        raise GenomeError.at(path, line, f"search gene {name}: {shown} is outside "
                                         f"{gene.lo} to {gene.hi}")
    seen[name] = number


def search_lines(values: dict[str, int]) -> list[str]:
    """The genome file's lines for `values`, in the genes' order."""
    if not values:
        return []
    order = list(search_genes())
    return [f"{PREFIX}{name}: {values[name]}" for name in sorted(values, key=order.index)]


def pack_search(values: dict[str, int], params: dict) -> dict:
    """Add `values` to a pack() dict: the search's under `search`, the time manager's
    under `time_factors` (neither key when a genome sets none, so such a genome packs
    as it always did)."""
    if values:
        genes = search_genes()
        for part in (SEARCH, TIME):
            chosen = {n: v for n, v in values.items() if genes[n].part == part}
            if chosen:
                params[part] = chosen
    return params


class CarriesSearchGenes:
    """What every kind does with the search genes its file gives it (`self.search`,
    set by the file's reader or by a tuner): carry them into copies, write them back,
    pack them, compare them."""

    search: dict[str, int]

    def with_search(self, values: dict[str, int]):
        """This genome, its search genes set to `values`; returns itself."""
        self.search = dict(values)
        return self
