"""The one table of search genes (genchess_core/search_gene_table.py) and what is made from
it agree: the compiled struct the search reads, the code that reads each gene, and the
docs' table. (The genome files and `uci --tune` read the table itself:
tests/test_search_genes.py.)"""

import re
from pathlib import Path

import pytest

from genchess_core.search_gene_table import (DOCS_BEGIN, DOCS_END, GENES, SEARCH, TIME, docs_table,
                                             genes_of, struct_pxi, with_docs_table)
from genchess_core.searcher import Searcher

ROOT = Path(__file__).resolve().parents[1]
SEARCH_SOURCES = ("genchess_core/search.pyx", "genchess_core/movepick.pxd")


def source(*paths: str) -> str:
    return "\n".join((ROOT / path).read_text(encoding="utf-8") for path in paths)


def test_each_gene_once_with_a_default_inside_its_bounds_and_a_step():
    names = [gene.name for gene in GENES]
    assert len(names) == len(set(names))
    for gene in GENES:
        assert gene.part in (SEARCH, TIME), gene.name
        assert gene.lo <= gene.default <= gene.hi and 0 < gene.step <= gene.hi - gene.lo, gene.name
        assert re.fullmatch(r"[a-z][a-z0-9_]*", gene.name) and "|" not in gene.what, gene.name


def test_the_compiled_struct_is_the_tables_search_genes_in_order_with_their_defaults():
    # A core built before a row was added, removed or changed fails here: rebuild it.
    assert Searcher(16).thread_tunables(0) == {gene.name: gene.default for gene in genes_of(SEARCH)}
    assert list(Searcher(16).thread_tunables(0)) == [gene.name for gene in genes_of(SEARCH)]


def test_the_struct_include_declares_every_search_gene_and_nothing_else():
    fields = re.findall(r"^    int (\w+)", struct_pxi(), re.M)
    assert fields == [gene.name for gene in genes_of(SEARCH)]


def test_every_gene_is_read_by_its_part_and_the_search_reads_no_other():
    search = source(*SEARCH_SOURCES)
    read = set(re.findall(r"\bsp\.(\w+)", search))
    assert read == {gene.name for gene in genes_of(SEARCH)}, "a gene nothing reads, or a field no row declares"
    timeman = source("genchess/timeman.py")
    for gene in genes_of(TIME):
        assert f'factors["{gene.name}"]' in timeman, gene.name


def test_the_docs_table_is_made_from_the_table():
    page = (ROOT / "docs" / "search-genes.md").read_text(encoding="utf-8")
    assert docs_table() in page, ("docs/search-genes.md's table is out of date: run "
                                  "python genchess_core/search_gene_table.py --docs docs/search-genes.md")
    assert page.count(DOCS_BEGIN) == page.count(DOCS_END) == 1
    for gene in GENES:
        assert f"| `{gene.name}` | {gene.default} | {gene.lo} to {gene.hi} | {gene.step} | {gene.what} |" in page


def test_the_docs_table_is_put_between_its_markers_and_only_there():
    stale = f"before\n{DOCS_BEGIN}\n| old | table |\n{DOCS_END}\nafter\n"
    assert with_docs_table(stale) == f"before\n{docs_table()}\nafter\n"
    with pytest.raises(ValueError, match="no '<!-- search genes"):
        with_docs_table("a page without the markers\n")
