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
        assert (f"| `{gene.name}` | {gene.default} | {gene.lo} to {gene.hi} | {gene.step} | {gene.trial} "
                f"| {gene.what} |") in page


def test_the_docs_table_is_put_between_its_markers_and_only_there():
    stale = f"before\n{DOCS_BEGIN}\n| old | table |\n{DOCS_END}\nafter\n"
    assert with_docs_table(stale) == f"before\n{docs_table()}\nafter\n"
    with pytest.raises(ValueError, match="no '<!-- search genes"):
        with_docs_table("a page without the markers\n")


def test_each_default_and_each_shipped_genomes_value_lies_strictly_inside_its_bounds():
    # A tune starts where the default genome has a gene; at a bound, SPSA's minus side is
    # clamped and the gene can move one way only (null_min_depth's tuned 2 sat on the old
    # lower bound 2; the tuned singular_margin 1 sat on 1, singular_divisor's default 2
    # on 2). Where a bound is the gene's own limit (a depth below 1 is quiescence) the
    # value must stay off it too, or the gene cannot be tuned.
    from genchess.genome import read_genomes
    from genchess.genome.genome_file import GENOMES_DIR
    for gene in GENES:
        assert gene.lo < gene.default < gene.hi, gene.name
    shipped = {path.name: read_genomes(path)[-1].search for path in sorted(GENOMES_DIR.glob("*.genome"))}
    assert any(shipped.values())                    # the default genome sets some
    table = {gene.name: gene for gene in GENES}
    for name, search in shipped.items():
        for gene_name, value in search.items():
            gene = table[gene_name]
            assert gene.lo < value < gene.hi, f"{name}: {gene_name} {value} on or outside {gene.lo} to {gene.hi}"


def test_each_trials_genes_name_a_trial_waiting_for_its_sprt():
    # A trial that passes leaves options.TRIALS: its genes' `trial` must then be cleared,
    # so that the tune of every gene (tests/test_tune_search_all.py) tunes them.
    from genchess.protocols.options import TRIALS
    for gene in GENES:
        assert gene.trial == "" or gene.trial in TRIALS, (
            f"{gene.name}: its trial {gene.trial!r} is not among the options' TRIALS: clear it "
            f"(the step is in FEATURES_ALL) and take the gene out of tune-search-all.cfg's freeze")
        said = re.search(r"a trial behind the (.+?) option", gene.what)
        if said:
            assert gene.trial == said.group(1), gene.name
    assert {gene.trial for gene in GENES} - {""} <= set(TRIALS)
