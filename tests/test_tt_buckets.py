"""TT Buckets (a trial behind the TT Buckets option): the hash table read as buckets of
four entries, one cache line each. A key may use any entry of its bucket (its own slot
with the low two bits cleared); a store takes the key's own entry, else the bucket's
entry worth least, depth - tt_age_weight x age in searches (empty entries first). Off,
one entry per slot exactly as before. Keys are planted directly (Searcher.store_key and
probe_key) so that four of them share one slot."""

from __future__ import annotations

import pytest

from genchess_core import Board
from genchess_core.search_gene_table import GENES
from genchess_core.searcher import FEATURE_NAMES, Searcher

from trial_helpers import (assert_a_mate_search_keeps_it_and_proves_the_mate, assert_option_sets_the_bit,
                           assert_two_threads_play_a_legal_move, trial_searcher)

TT_BUCKETS = FEATURE_NAMES["tt_buckets"]
BOUND_LOWER, BOUND_EXACT = 2, 3
AGE_WEIGHT = next(gene.default for gene in GENES if gene.name == "tt_age_weight")
BASE = 0x5DEECE66D2B7E151        # an arbitrary key; its slot is BASE & (entries - 1)


def searcher(buckets: bool) -> Searcher:
    return trial_searcher(TT_BUCKETS if buckets else 0)


def same_slot(s: Searcher, n: int) -> list[int]:
    """n keys with one slot (so one bucket): they differ above the table's index bits."""
    return [(BASE + i * s.hash_entries) % 2**64 for i in range(n)]


def found(s: Searcher, keys: list[int]) -> list[int | None]:
    """Each key's stored score (the tests store a key's index as its score), or None."""
    return [None if (hit := s.probe_key(k)) is None else hit[0] for k in keys]


def fill(s: Searcher, keys: list[int], depths: list[int]) -> None:
    for i, (key, depth) in enumerate(zip(keys, depths)):
        s.store_key(key, i, depth)


def test_the_trial_is_an_option_and_off_by_default():
    assert_option_sets_the_bit("TT Buckets", TT_BUCKETS)
    assert TT_BUCKETS == 1 << 35


@pytest.mark.parametrize("megabytes", [1, 3, 16, 100])
def test_the_table_is_whole_buckets_on_cache_lines(megabytes):
    s = Searcher(megabytes)
    n = s.hash_entries
    assert n % 4 == 0 and n & (n - 1) == 0 and n * 16 <= megabytes * 2**20
    assert s.hash_alignment == 0


def test_four_keys_of_one_slot_are_all_found_in_a_bucket_and_only_the_last_without():
    for buckets in (False, True):
        s = searcher(buckets)
        keys = same_slot(s, 4)
        fill(s, keys, [5, 5, 5, 5])
        if buckets:
            assert found(s, keys) == [0, 1, 2, 3]
        else:
            # One entry per slot: each store of an equal depth overwrote the one before.
            assert found(s, keys) == [None, None, None, 3]


def test_off_a_shallower_store_keeps_the_deeper_entry_of_its_slot_as_before():
    # The one-entry rule unchanged: another position's deeper entry of this search
    # stays and a shallower bound is not stored (an exact score would be); in a
    # bucket both are kept.
    for buckets, expected in ((False, [0, None]), (True, [0, 1])):
        s = searcher(buckets)
        keys = same_slot(s, 2)
        s.store_key(keys[0], 0, 10)
        s.store_key(keys[1], 1, 3, bound=BOUND_LOWER)
        assert found(s, keys) == expected


def test_a_full_bucket_gives_up_its_shallowest_entry_of_the_current_search():
    s = searcher(True)
    keys = same_slot(s, 5)
    fill(s, keys[:4], [10, 12, 3, 10])
    s.store_key(keys[4], 4, 1)        # shallower than all of them: it still takes a place
    assert found(s, keys) == [0, 1, None, 3, 4]


def test_an_old_deep_entry_gives_way_before_a_current_one():
    s = searcher(True)
    keys = same_slot(s, 5)
    s.store_key(keys[0], 0, 20)
    s.new_table_search()
    s.new_table_search()               # two searches old: worth 20 - 2 x AGE_WEIGHT
    assert 20 - 2 * AGE_WEIGHT < 10
    for i in (1, 2, 3):
        s.store_key(keys[i], i, 10)
    s.store_key(keys[4], 4, 1)
    assert found(s, keys) == [None, 1, 2, 3, 4]


def test_age_weighs_as_its_gene_says():
    # With the age weighing nothing, the deepest entry stays whatever its age, and the
    # first of the shallower current ones goes.
    s = searcher(True)
    s.set_tunables({"tt_age_weight": 0})
    keys = same_slot(s, 5)
    s.store_key(keys[0], 0, 20)
    s.new_table_search()
    s.new_table_search()
    for i in (1, 2, 3):
        s.store_key(keys[i], i, 10)
    s.store_key(keys[4], 4, 1)
    assert found(s, keys) == [0, None, 2, 3, 4]


def test_the_same_key_replaces_its_own_entry_and_keeps_its_move():
    s = searcher(True)
    keys = same_slot(s, 4)
    fill(s, keys, [10, 10, 10, 10])
    s.store_key(keys[1], 0, 12, move=0x0123)
    s.store_key(keys[2], 42, 1)                   # shallower, no move: still its own entry
    assert found(s, keys) == [0, 0, 42, 3]        # nothing else was evicted
    s.store_key(keys[1], 7, 2)                    # no move: the one it knew is kept
    assert s.probe_key(keys[1]) == (7, 0x0123, 2, BOUND_EXACT)


def test_a_bucket_keeps_the_entries_written_with_one_entry_per_slot():
    # Each key's slot is one of its bucket's entries: turning the trial on mid-game
    # loses nothing the table held, and the full key still decides every hit.
    s = searcher(False)
    keys = [(BASE & ~3) + j for j in range(4)]    # four slots of one bucket
    fill(s, keys, [6, 6, 6, 6])
    s.features = s.features | TT_BUCKETS
    assert found(s, keys) == [0, 1, 2, 3]
    assert s.probe_key(keys[0] + s.hash_entries) is None


def test_hashfull_counts_the_current_searchs_entries_in_both_layouts():
    for buckets, expected in ((False, 1), (True, 4)):
        s = searcher(buckets)
        keys = [i * s.hash_entries for i in range(1, 5)]      # all in slot 0, bucket 0
        fill(s, keys, [5, 5, 5, 5])
        assert s.hashfull() == expected         # permille of the first 1000 entries
        s.new_table_search()
        assert s.hashfull() == 0                # an earlier search's entries are not counted


def test_a_small_table_holds_more_of_a_search_in_buckets():
    # 1 MB (65,536 entries) and a search of 300,000 nodes: one entry per slot overwrites
    # where a bucket still had an empty entry, so the bucketed table ends fuller.
    board = Board("r1bqk2r/1pp1n1bp/p2p1n2/3P1pp1/2P1p3/1PN1PNP1/PB3PBP/R2QK2R b KQkq - 0 1")
    full = {}
    for buckets in (False, True):
        s = searcher(buckets)
        s.set_hash(1)
        result = s.search(board, node_limit=300_000)
        full[buckets] = result["hashfull"]
        assert 0 < full[buckets] <= 1000
        again = searcher(buckets)
        again.set_hash(1)
        assert again.search(board, node_limit=300_000)["nodes"] == result["nodes"]     # deterministic
    assert full[True] > full[False]


def test_a_mate_search_keeps_the_trial_and_proves_the_mate():
    # Buckets change where an entry lives, not what a score proves: sound for `go mate`.
    assert_a_mate_search_keeps_it_and_proves_the_mate(searcher(True), TT_BUCKETS)


def test_two_threads_with_the_trial_play_legal_moves():
    assert_two_threads_play_a_legal_move(
        "TT Buckets", "r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
