"""The search's tunables (the search genes of search_gene_table, SearchParams): defaults
that search as the constants did, values that change the search, and bad values refused
whole."""

import chess
import pytest

from genchess.genome import default_genome, hand_set_genome
from genchess_core.board import Board
from genchess_core.search_gene_table import SEARCH, genes_of
from genchess_core.searcher import MATE_THRESHOLD, Searcher

FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
SEARCH_GENES = genes_of(SEARCH)
DEFAULTS = {gene.name: gene.default for gene in SEARCH_GENES}


def nodes(packed, tunables=None, depth=8, threads=1):
    searcher = Searcher(16)
    searcher.set_genome(packed)
    if tunables is not None:
        searcher.set_tunables(tunables)
    searcher.set_threads(threads)
    return searcher.search(Board(FEN), max_depth=depth)["nodes"]


def test_every_tunable_has_a_default_inside_its_bounds_and_a_step():
    names = [gene.name for gene in SEARCH_GENES]
    assert len(names) == len(set(names)) >= 25
    for name, default, lo, hi, step, *_ in SEARCH_GENES:
        assert lo <= default <= hi and 0 < step <= hi - lo, name


def test_the_defaults_said_out_loud_search_as_nothing_said():
    packed = hand_set_genome().pack()
    assert nodes(packed, DEFAULTS) == nodes(packed) == nodes({**packed, "search": DEFAULTS})


@pytest.mark.parametrize("name, value", [("rfp_margin", 150), ("lmr_base", 120), ("null_reduction", 3),
                                         ("history_bonus_max", 800), ("delta_margin", 400),
                                         ("aspiration_width", 10), ("futility_base", 0),
                                         ("null_min_depth", 1)])
def test_each_tunable_reaches_the_search(name, value):
    # Against the table's defaults ({}), not the genome's own block: the default genome
    # sets some of these itself, and only the one number may differ.
    packed = default_genome().pack()
    assert nodes(packed, {name: value}, depth=9) != nodes(packed, {}, depth=9)


def test_every_name_reaches_its_own_field():
    # One tunable at a time off its default: read back from the struct, only it moved.
    searcher = Searcher(16)
    searcher.set_genome(default_genome().pack())
    for name, default, lo, hi, *_ in SEARCH_GENES:
        value = hi if default != hi else lo
        searcher.set_tunables({name: value})
        assert searcher.thread_tunables(0) == {**DEFAULTS, name: value}, name


def test_a_genome_block_sets_them_for_every_thread_made_before_or_after():
    packed = {**default_genome().pack(), "search": {"lmr_base": 120, "rfp_margin": 60}}
    searcher = Searcher(16)
    searcher.set_threads(2)
    searcher.set_genome(packed)
    searcher.set_threads(3)          # a helper thread made after the genome loaded
    assert searcher.tunables == {"lmr_base": 120, "rfp_margin": 60}
    for i in range(3):
        assert searcher.thread_tunables(i) == {**DEFAULTS, "lmr_base": 120, "rfp_margin": 60}
    searcher.set_tunables({"null_reduction": 3})
    for i in range(3):
        assert searcher.thread_tunables(i) == {**DEFAULTS, "null_reduction": 3}


@pytest.mark.parametrize("values, message", [
    ({"lmr_bass": 100}, "unknown search tunable 'lmr_bass'"),
    ({"rfp_margin": 1000}, "rfp_margin must be a whole number from 30 to 250"),
    ({"lmp_base": 2.5}, "lmp_base must be a whole number"),
])
def test_a_bad_value_is_refused_and_changes_nothing(values, message):
    searcher = Searcher(16)
    searcher.set_genome(default_genome().pack())
    searcher.set_tunables({"lmr_base": 120})
    with pytest.raises(ValueError, match=message):
        searcher.set_tunables(values)
    assert searcher.tunables == {"lmr_base": 120}
    assert searcher.search(Board(FEN), max_depth=8)["nodes"] == nodes(default_genome().pack(),
                                                                     {"lmr_base": 120})


MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"   # Ra8#
EXTREME_FENS = [
    FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/8/8/8/8/5k2/8/5K1R w - - 0 1",        # a bare king: it may not pass, its rook side may
    "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",       # in check at the root
    MATE_IN_ONE,
]


@pytest.mark.parametrize("end", ["lo", "hi"])
def test_every_tunable_at_a_bound_at_once_still_searches_legally(end):
    # A genome may set any value within the bounds; at the edges a reduction can take
    # depth below zero (null_min_depth 1: depth 1 - 1 - R), which drops into quiescence.
    at = {gene.name: gene.lo if end == "lo" else gene.hi for gene in SEARCH_GENES}
    searcher = Searcher(16)
    searcher.set_genome(default_genome().pack())
    searcher.set_tunables(at)
    for fen in EXTREME_FENS:
        searcher.clear()
        result = searcher.search(Board(fen), max_depth=7)
        board = chess.Board(fen)
        pv = result["lines"][0][1]
        assert pv, fen
        for uci in pv:
            assert chess.Move.from_uci(uci) in board.legal_moves, (fen, pv)
            board.push_uci(uci)
        if fen == MATE_IN_ONE:
            assert pv[0] == "a1a8"


def test_a_mate_search_is_not_fooled_by_null_moves_near_the_leaves():
    # Ra6! and black, in zugzwang, is mated next move: null-move pruning from depth 2
    # (the shipped genome's null_min_depth) passes over it at every depth, so a search
    # for a mate drops null moves, and gives them back after.
    zugzwang_mate_in_2 = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"
    searcher = Searcher(16)
    searcher.set_genome(default_genome().pack())
    searcher.set_tunables({"null_min_depth": 2})
    features = searcher.features
    found = searcher.search(Board(zugzwang_mate_in_2), max_depth=5, mate=2)
    assert found["lines"][0][1][0] == "a1a6" and found["lines"][0][0] > MATE_THRESHOLD
    assert searcher.features == features
