"""The hash table and the evaluation caches on 2 MB pages (genchess_core/large_pages.h)
where Linux grants them: the table still starts empty and works at every size, and
on a kernel whose transparent huge pages are on ("always" or "madvise") a 64 MB table
really lies on huge pages (AnonHugePages in /proc/self/smaps_rollup grows by half of it or more)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from genchess.genome import load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess_core import Board
from genchess_core.searcher import Searcher

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
ROLLUP = Path("/proc/self/smaps_rollup")


def anon_huge_kb() -> int:
    return int(re.search(r"AnonHugePages:\s+(\d+) kB", ROLLUP.read_text()).group(1))


def thp_granted_on_request() -> bool:
    if not sys.platform.startswith("linux") or not THP.exists() or not ROLLUP.exists():
        return False
    return "[never]" not in THP.read_text()


@pytest.mark.parametrize("megabytes", [1, 3, 16, 64])
def test_a_new_table_of_any_size_is_empty_and_keeps_what_is_stored(megabytes):
    searcher = Searcher(megabytes)
    assert searcher.hashfull() == 0
    board = Board()
    assert searcher.probe(board) is None
    searcher.store(board, 77, 5)
    assert searcher.probe(board)[0] == 77 and searcher.probe(board)[2] == 5
    searcher.set_hash(megabytes * 2)                    # a resize gives a fresh, empty table
    assert searcher.probe(board) is None and searcher.hashfull() == 0


@pytest.mark.skipif(not thp_granted_on_request(),
                    reason="needs Linux with transparent huge pages not set to 'never'")
def test_a_64_mb_hash_table_lies_on_huge_pages():
    before = anon_huge_kb()
    searcher = Searcher(64)
    searcher.set_genome(load_genome(GENOMES_DIR / "unified.genome").pack())
    grown = anon_huge_kb() - before
    # Short of contiguous memory the kernel may leave some pages small, so half the
    # table is the bar; a build that does not ask for huge pages gets none here.
    assert grown >= 32 * 1024, f"only {grown} kB of the 64 MB table on huge pages"
    del searcher
