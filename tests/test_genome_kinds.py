"""Evaluation kinds: a genome file's `Kind:` chooses the genome class and the C
scoring function; the material kind (Kendall-Whitwell) as the second kind."""

import random
from pathlib import Path

import chess
import pytest

from genchess.engine import Engine
from genchess.genome import GenomeError, MaterialGenome, hand_set_genome, parse_genome_text
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.evaluate import evaluate_board

CLASSICAL = "ID: 7\nKind: material\nPawn: 1\nKnight: 3\nBishop: 3.25\nRook: 5\nQueen: 9\nKing: 0\nLegal Move: 0.1\nEND\n"


def material(weights=(0,) * 7, **bonuses):
    return MaterialGenome(1, weights, **bonuses)


def test_material_block_round_trips_and_mixes_with_genetic_genomes():
    genome = parse_genome_text(CLASSICAL).genomes[0]
    assert isinstance(genome, MaterialGenome) and genome.weights[2] == 3.25
    assert parse_genome_text(genome.to_text()).genomes[0] == genome
    mixed = parse_genome_text(hand_set_genome().to_text() + genome.copy(new_id=8).to_text())
    assert [g.KIND for g in mixed.genomes] == ["genetic", "material"]
    explicit = hand_set_genome().to_text().replace("\n", "\nKind: genetic\n", 1)
    assert parse_genome_text(explicit).genomes[0] == hand_set_genome()


@pytest.mark.parametrize("text, where, problem", [
    ("ID: 1\nKind: materia\nEND\n", 2, "unknown genome kind 'materia'"),
    ("ID: 1\nKind: material\nPawn: x\nEND\n", 3, "not a finite number"),
    ("ID: 1\nKind: material\nPawn: inf\nEND\n", 3, "not a finite number"),
    ("ID: 1\nKind: material\nPawn: 1\nEND\n", 2, "missing 'Knight'"),
    ("ID: 1\nKind: material\nPawn: 1\nPawn: 2\nEND\n", 4, "duplicated key 'Pawn'"),
    ("ID: 1\nKind: material\nElephant: 1\nEND\n", 3, "unknown key 'Elephant'"),
    ("ID: 1\nKind: material\nPawn 1\nEND\n", 3, "expected 'key: value'"),
    ("ID: 1\nName: Look Ahead Gene\nKind: material\nEND\n", 3, "'Kind:' must come right after 'ID:'"),
    ("ID: 1\nKind: material\nPawn: 1\nID: 2\n", 4, "no END"),
])
def test_bad_material_blocks_name_the_line(text, where, problem):
    with pytest.raises(GenomeError, match=f"f.genome:{where}: .*{problem}"):
        parse_genome_text(text, "f.genome")


def side_counts(board: chess.Board, colour: bool):
    counts = [len(board.pieces(kind, colour)) for kind in chess.PIECE_TYPES]
    as_side = board.copy(stack=False)
    as_side.turn = colour
    as_side.ep_square = None
    counts.append(sum(1 for m in as_side.legal_moves if as_side.piece_type_at(m.to_square) != chess.KING))
    return counts


def test_material_evaluation_is_the_weighted_count_difference(opening_fens):
    rng = random.Random(5)
    for fen in rng.sample(opening_fens, 40):
        board = chess.Board(fen)
        for _ in range(rng.randrange(0, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        weights = [rng.uniform(-3, 12) for _ in range(7)]
        us, them = side_counts(board, board.turn), side_counts(board, not board.turn)
        expected = sum(w * (a - b) for w, a, b in zip(weights, us, them)) * 1000
        assert evaluate_board(Board(board.fen()), material(weights).pack()) == pytest.approx(expected, abs=1)


def test_fixed_bonuses_centre_control_and_advanced_passed_pawns():
    centre = material(centre_bonus=1).pack()
    assert evaluate_board(Board("4k3/8/8/8/8/2N5/8/4K3 w - - 0 1"), centre) == 2000      # Nc3: d5, e4
    assert evaluate_board(Board("4k3/8/8/8/8/2N5/8/4K3 b - - 0 1"), centre) == -2000
    advanced = material(advanced_pawn_bonus=1).pack()
    assert evaluate_board(Board("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"), advanced) == 1000    # d5, passed
    assert evaluate_board(Board("4k3/2p5/8/3P4/8/8/8/4K3 w - - 0 1"), advanced) == 0     # c7 stops it
    assert evaluate_board(Board("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1"), advanced) == 0       # d4: not yet
    assert evaluate_board(Board("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"), advanced) == -1000   # black d2


def test_engine_plays_a_material_genome_and_reports_pawns_by_its_own_weight():
    engine = Engine(parse_genome_text(CLASSICAL).genomes[0])
    engine.set_position("4k3/8/8/8/8/8/3q4/3QK3 w - - 0 1", [])
    result = engine.search(Limits(depth=3))
    assert result.bestmove == "d1d2"               # takes the queen
    assert result.score.cp is not None and result.score.cp > 500


def test_genchess_loads_a_material_genome_file(tmp_path):
    from engine_helpers import genchess_command
    import chess.engine
    path = tmp_path / "kw.genome"
    path.write_text(CLASSICAL)
    argv, env = genchess_command("--genome", str(path), "uci")
    with chess.engine.SimpleEngine.popen_uci(argv, env=env) as engine:
        result = engine.play(chess.Board(), chess.engine.Limit(depth=3))
        assert result.move in chess.Board().legal_moves


def test_legal_move_term_counts_like_python_chess_in_every_kind_of_position(perftsuite_fens):
    """The legal-move count (counted, not listed) on positions with checks, pins,
    en passant, castling and promotions, for the side to move and the other."""
    rng = random.Random(12)
    count_only = material((0, 0, 0, 0, 0, 0, 1)).pack()
    checked = 0
    for fen in perftsuite_fens:
        board = chess.Board(fen)
        for _ in range(6):
            if not board.is_valid() or board.is_game_over():
                break
            us, them = side_counts(board, board.turn)[6], side_counts(board, not board.turn)[6]
            assert evaluate_board(Board(board.fen()), count_only) == (us - them) * 1000, board.fen()
            checked += 1
            board.push(rng.choice(list(board.legal_moves)))
    assert checked > 400


SHIPPED = sorted((Path(__file__).resolve().parents[1] / "genchess" / "genomes").glob("*.genome"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_genome_loads_and_takes_a_hanging_queen(path):
    from genchess.genome import load_genome
    engine = Engine(load_genome(path))
    engine.set_position("4k3/8/8/8/3q4/8/8/3Q2K1 w - - 0 1", [])
    assert engine.search(Limits(depth=3)).bestmove == "d1d4"


def test_the_evolved_genome_ships():
    assert "evolved.genome" in [p.name for p in SHIPPED]
