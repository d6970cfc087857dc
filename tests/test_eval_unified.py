"""The unified evaluation kind: each term on hand-made positions, colour-flip
symmetry, tapering, the search's caches, and the genome file."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from genchess.genome import GenomeError, UnifiedGenome, load_genome, parse_genome_text
from genchess.genome.genome_file import GENOMES_DIR
from genchess.genome.unified import GROUP, TERMS
from genchess.position_sets.position_set import PositionSet
from genchess_core import Board
from genchess_core.eval_unified import TERM_COUNT
from genchess_core.evaluate import evaluate_board
from genchess_core.searcher import FEATURE_NAMES, Searcher
from genchess_core.set_eval import unified_counts

MATERIAL = [100, 300, 310, 500, 900]


def counts(fen: str) -> dict[str, list[int]]:
    """Every term group's counts in `fen` (White's minus Black's), by group name."""
    s = PositionSet.from_fens([fen], [0.5])
    _, terms, values, _ = unified_counts(s.pieces, s.side, s.castling, s.ep,
                                         UnifiedGenome.from_material(0, MATERIAL).pack())
    flat = np.zeros(TERM_COUNT, dtype=int)
    flat[terms] = values
    return {name: list(flat[first:first + length]) for name, first, length in TERMS}


def random_unified(rng: np.random.Generator, genome_id: int) -> UnifiedGenome:
    start = UnifiedGenome.from_material(genome_id, MATERIAL)
    return start.with_numbers(start.numbers() + rng.integers(-60, 61, len(start.numbers())), genome_id)


def random_fens(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    fens = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randrange(1, 140)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < 0.2:
                fens.append(board.fen())
    return fens[:count]


# ------------------------------------------------------------ the layout

def test_the_groups_tile_the_numbers_in_order():
    position = 0
    for name, first, length in TERMS:
        assert first == position, name
        position += length
    assert position == TERM_COUNT and len(GROUP) == len(TERMS)


# ------------------------------------------------------------ each term by hand

def test_material_and_tables_count_pieces_on_their_squares():
    c = counts("3k4/8/8/8/8/8/8/RN2K3 w - - 0 1")
    assert c["material"] == [0, 1, 0, 1, 0]
    assert c["rook"][0] == 1 and c["knight"][1] == 1 and c["king"][4] == 1   # a1, b1, e1
    assert c["king"][59 ^ 56] == -1                                          # d8, read as d1
    assert c["tempo"] == [1]
    assert counts("4k3/8/8/8/8/8/8/4K3 b - - 0 1")["tempo"] == [-1]


def test_a_passed_pawn_scores_by_its_rank_and_what_stops_it():
    c = counts("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1")                      # d5: rank 5
    assert c["passed pawn"] == [0, 0, 0, 1, 0, 0]
    assert c["passed blocked"] == [0] * 6
    assert c["passed own king"][3] == 5 and c["passed enemy king"][3] == 2   # e1, e8 to d6
    blocked = counts("4k3/8/3n4/3P4/8/8/8/4K3 w - - 0 1")
    assert blocked["passed blocked"][3] == 1
    # An enemy pawn ahead on a neighbouring file: not passed.
    assert counts("4k3/4p3/8/3P4/8/8/8/4K3 w - - 0 1")["passed pawn"] == [0] * 6
    # Black's pawn on d4 is on its fifth rank: it counts against White.
    assert counts("4k3/8/8/8/3p4/8/8/4K3 w - - 0 1")["passed pawn"] == [0, 0, 0, -1, 0, 0]


def test_pawn_structure():
    # White: doubled c-pawns (c2, c3), isolated a-pawn, e4-f4 phalanx, g3 supporting f4.
    c = counts("4k3/8/8/8/4PP2/2P3P1/P1P5/4K3 w - - 0 1")
    assert c["stacked pawn"] == [1]
    assert c["isolated pawn"] == [3]               # a2 and both c-pawns: no pawn on b or d
    assert c["pawn phalanx"] == [2]
    assert c["supported pawn"] == [1]
    assert c["pawn islands"] == [3]                # a, c, e-g
    # d3 cannot be guarded by a pawn of its own (c, e pawns are ahead) and e5 guards d4.
    assert counts("4k3/8/8/4p3/2P1P3/3P4/8/4K3 w - - 0 1")["backward pawn"] == [1]


def test_open_files_bishop_pair_and_outposts():
    c = counts("4k3/p7/8/3N4/4P3/8/8/R1B1KB1R w - - 0 1")
    assert c["rook open file"] == [1]              # h1: no pawn on the h-file
    assert c["rook half-open file"] == [1]         # a1: only Black's a7 pawn on the a-file
    assert c["bishop pair"] == [1]
    assert c["outpost"] == [1, 0]                  # d5, guarded by e4, no black c/e pawn can chase it


def test_threats_hanging_and_mobility():
    # A white knight on e5 attacks the black rook on d7 and the queen on f7 (neither guarded
    # by anything but the king on e8, which guards both).
    c = counts("4k3/3r1q2/8/4N3/8/8/8/4K3 w - - 0 1")
    assert c["threat by knight"] == [0, 0, 0, 1, 1]
    assert c["hanging"][3:] == [0, 0]
    hanging = counts("7k/3r4/8/4N3/8/8/8/4K3 w - - 0 1")
    assert hanging["hanging"] == [0, 0, 0, 1, 0]
    lone = counts("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    assert lone["mobility knight"][2] == 1         # a1: b3, c2


def test_king_safety_and_castling():
    assert counts("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")["castling"] == [0, 0]
    c = counts("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQ - 0 1")
    assert c["castling"] == [1, 1]
    assert c["king shelter"] == [0, 0]             # three pawns one rank ahead, each side
    c = counts("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1")
    assert c["king shelter"] == [3, 0]
    assert c["king enemy open file"] == [1]        # no black pawn on the g-file; g2 faces Black's king
    c = counts("6k1/5ppp/8/8/8/8/5P1P/6K1 w - - 0 1")
    assert c["king open file"] == [1]


# ------------------------------------------------------------ properties

@pytest.fixture(scope="module")
def fens():
    return random_fens(400, seed=11)


def test_colour_flip_symmetry(fens):
    rng = np.random.default_rng(3)
    for genome in [random_unified(rng, i) for i in range(3)]:
        packed = genome.pack()
        broken = [fen for fen in fens if evaluate_board(Board(fen), packed)
                  != evaluate_board(Board(chess.Board(fen).mirror().fen()), packed)]
        assert not broken, broken[:3]


def test_pawn_endings_read_the_end_game_numbers_alone():
    genome = UnifiedGenome.from_material(0, MATERIAL)
    mg, eg = list(genome.mg), list(genome.eg)
    mg[GROUP["material"][0]], eg[GROUP["material"][0]] = 100, 130
    genome = UnifiedGenome(0, mg, eg)
    # One pawn up, nothing else on the board: 130 centipawns, 10 units each.
    assert evaluate_board(Board("4k3/8/8/8/8/8/P7/4K3 w - - 0 1"), genome.pack()) == 1300
    # Both queens on (phase 8 of 24): a third middle game.
    assert evaluate_board(Board("3qk3/8/8/8/8/8/P7/3QK3 w - - 0 1"), genome.pack()) \
        == (100 * 8 + 130 * 16) * 10 // 24


def test_the_searchers_caches_give_the_same_evaluation(fens):
    genome = random_unified(np.random.default_rng(5), 1)
    searcher = Searcher()
    searcher.set_genome(genome.pack())
    for _ in range(2):                             # the second pass reads the caches
        for fen in fens:
            assert searcher.evaluate(Board(fen)) == evaluate_board(Board(fen), genome.pack()), fen


def test_the_search_plays_a_unified_genome():
    searcher = Searcher()
    searcher.set_genome(UnifiedGenome.from_material(0, MATERIAL).pack())
    board = Board("4k3/8/8/8/8/8/3q4/3QK3 w - - 0 1")     # the queen is taken
    result = searcher.search(board, max_depth=4)
    assert result["lines"][0][1][0] in ("d1d2", "e1d2") and result["lines"][0][0] > 500


# ------------------------------------------------------------ the file

def test_the_file_reads_back_equal():
    genome = random_unified(np.random.default_rng(7), 9)
    again = parse_genome_text(genome.to_text()).genomes[0]
    assert again == genome


def block(genome: UnifiedGenome) -> list[str]:
    return genome.to_text().splitlines()


def with_search_pawn(lines: list[str], text: str) -> list[str]:
    return lines[:2] + [f"Search pawn: {text}"] + lines[2:]


def test_the_search_pawn_reads_back_and_tuners_carry_it():
    genome = UnifiedGenome.from_material(4, MATERIAL)
    assert genome.search_pawn is None and "Search pawn" not in genome.to_text()
    again = parse_genome_text("\n".join(with_search_pawn(block(genome), "60")) + "\n").genomes[0]
    assert again.search_pawn == 60 and again.to_text().splitlines()[2] == "Search pawn: 60"
    assert parse_genome_text(again.to_text()).genomes[0] == again
    assert again != genome                                    # same numbers, another search
    assert again.with_numbers(again.numbers(), 5).search_pawn == 60
    assert again.copy(6).search_pawn == 60


def test_the_search_pawn_moves_the_margins_not_the_scores_shown():
    # Same evaluation, a smaller pawn for the margins: the search prunes more (fewer
    # nodes to the same depth), while scores are still shown in the genome's unit.
    genome = random_unified(np.random.default_rng(3), 1)
    narrow = UnifiedGenome(1, genome.mg, genome.eg, search_pawn=40)
    board = Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9")
    nodes, units = {}, {}
    for name, g in (("unit", genome), ("narrow", narrow)):
        searcher = Searcher()
        searcher.set_genome(g.pack())
        nodes[name] = searcher.search(board, max_depth=7)["nodes"]
        units[name] = searcher.pawn_unit
    assert units["unit"] == units["narrow"] == genome.mg[0] * 10
    assert nodes["narrow"] < nodes["unit"]


# Alpha-beta, move ordering, quiescence, the hash table, PVS and delta pruning: nothing
# else that counts in pawns, so the delta margin is the only thing `Search pawn` moves.
DELTA_ONLY = (FEATURE_NAMES["alphabeta"] | FEATURE_NAMES["ordering"] | FEATURE_NAMES["quiescence"]
              | FEATURE_NAMES["tt"] | FEATURE_NAMES["pvs"] | FEATURE_NAMES["delta"])


@pytest.mark.parametrize("fen", [
    "2Rb4/3Pk3/8/p1N1r2p/1p5P/1P6/5K2/8 b - - 0 1",
    "3b4/3Pk3/2R5/p1Nr3p/1p5P/1P6/5K2/8 b - - 0 1",
])
def test_the_search_pawn_moves_the_delta_margin_not_what_a_victim_is_worth(fen):
    # Delta pruning once counted the captured piece in the margins' pawn too, so a
    # small `Search pawn` made a rook look like a fraction of one and pruned the
    # captures that decide these positions (scores 1700 units apart at depth 3).
    shipped = load_genome(GENOMES_DIR / "unified.genome")
    tiny = UnifiedGenome(shipped.id, shipped.mg, shipped.eg, search_pawn=10)
    results = []
    for genome in (shipped, tiny):
        searcher = Searcher()
        searcher.set_genome(genome.pack())
        searcher.features = DELTA_ONLY
        best_score, best_line = searcher.search(Board(fen), max_depth=3)["lines"][0]
        results.append((best_score, best_line[0]))
    assert results[0] == results[1]


@pytest.mark.parametrize("change, message", [
    (lambda lines: [l for l in lines if not l.startswith("bishop pair eg")],
     "missing 'bishop pair eg'"),
    (lambda lines: [l.replace("tempo mg: 0", "tempo mg: x") for l in lines],
     "tempo mg needs 1 whole number, got 'x'"),
    (lambda lines: [l for i, l in enumerate(lines) if i != lines.index("Table: knight mg") + 3],
     "table 'knight mg' has 7 rows, not 8"),
    (lambda lines: [l.replace("mobility rook mg:", "mobility castle mg:") for l in lines],
     "unknown term 'mobility castle mg'"),
    (lambda lines: [l.replace("material mg: 100", "material mg: 100 7") for l in lines],
     "material mg needs 5 whole numbers"),
    (lambda lines: with_search_pawn(lines, "5"), "search pawn 5 is outside 10 to 1000 centipawns"),
    (lambda lines: with_search_pawn(lines, "sixty"), "search pawn needs 1 whole number, got 'sixty'"),
    (lambda lines: with_search_pawn(with_search_pawn(lines, "50"), "60"),
     "duplicated 'search pawn'"),
])
def test_bad_files_are_named_with_their_line(change, message):
    lines = change(block(UnifiedGenome.from_material(3, MATERIAL)))
    with pytest.raises(GenomeError, match=r"^x\.genome:\d+: .*" + message.replace("(", r"\(")):
        parse_genome_text("\n".join(lines) + "\n", "x.genome")
