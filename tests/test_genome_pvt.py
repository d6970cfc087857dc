"""The PVT kind (Phoenix): table layout in the file, material plus tapered tables
in C, colour symmetry, move ordering by table values, loading everywhere."""

import random
from pathlib import Path

import chess
import pytest

from genchess.engine import Engine
from genchess.genome import GenomeError, PvtGenome, load_genome, parse_genome_text
from genchess.genome.pvt import N_VALUES, STANDARD_MATERIAL, TABLES, TABLE_INDEX
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.evaluate import evaluate_board
from genchess_core.searcher import ALL_FEATURES, FEATURE_NAMES

TEXTBOOK = Path(__file__).resolve().parents[1] / "genchess" / "genomes" / "pvt-textbook.genome"
KINDS = {chess.PAWN: "pawn", chess.KNIGHT: "knight", chess.BISHOP: "bishop", chess.ROOK: "rook",
         chess.QUEEN: "queen", chess.KING: "king"}
MATERIAL = {chess.PAWN: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}


def random_pvt(seed, material=STANDARD_MATERIAL):
    return PvtGenome.random(random.Random(seed), 1, -60, 60, material)


def reference_eval(genome: PvtGenome, board: chess.Board) -> float:
    """Centipawns, side to move's view, computed independently with python-chess."""
    mg = eg = 0
    phase = 0
    for square, piece in board.piece_map().items():
        sign = 1 if piece.color == chess.WHITE else -1
        sq = square if piece.color == chess.WHITE else chess.square_mirror(square)
        material = genome.material[MATERIAL[piece.piece_type]] if piece.piece_type in MATERIAL else 0
        mg += sign * (material + genome.table(KINDS[piece.piece_type], "mg")[sq])
        eg += sign * (material + genome.table(KINDS[piece.piece_type], "eg")[sq])
        phase += {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}.get(piece.piece_type, 0)
    phase = min(phase, 24)
    score = (mg * phase + eg * (24 - phase)) / 24
    return score if board.turn == chess.WHITE else -score


def test_textbook_genome_reads_and_round_trips():
    genome = load_genome(TEXTBOOK)
    assert isinstance(genome, PvtGenome) and genome.material == (100, 320, 330, 500, 900)
    # Row 2 of the picture is rank 7: the pawn's +50 row; the first row is rank 8.
    assert genome.table("pawn", "mg")[chess.E7] == 50 and genome.table("pawn", "mg")[chess.E2] == -20
    assert genome.table("knight", "mg")[chess.A1] == -50 and genome.table("king", "mg")[chess.G1] == 30
    assert parse_genome_text(genome.to_text()).genomes[0] == genome
    assert len(genome.values) == N_VALUES == 640 and len(TABLES) == 10


def test_rook_and_queen_use_their_middle_game_table_in_the_end_game():
    genome = random_pvt(3)
    assert genome.table("rook", "eg") == genome.table("rook", "mg")
    assert genome.table("queen", "eg") == genome.table("queen", "mg")
    assert ("rook", "eg") not in TABLE_INDEX


def block(tables: dict[str, list[str]], material="") -> str:
    lines = ["ID: 4", "Kind: pvt"] + ([material] if material else [])
    for name, rows in tables.items():
        lines += [f"Table: {name}"] + rows
    return "\n".join(lines + ["END", ""])


FLAT = ["0 0 0 0 0 0 0 0"] * 8
ALL_FLAT = {f"{p} {ph}": FLAT for p, ph in TABLES}


@pytest.mark.parametrize("text, where, problem", [
    (block({**ALL_FLAT, "pawn mg": FLAT[:7]}), 11, "table 'pawn mg' has 7 rows"),
    (block({**ALL_FLAT, "pawn mg": FLAT[:7] + ["0 0 0 x 0 0 0 0"]}), 11, "a table row needs 8 whole numbers"),
    (block({**ALL_FLAT, "pawn mg": FLAT[:7] + ["0 0 0 0 0 0 0"]}), 11, "a table row needs 8 whole numbers"),
    (block({"pawn mg": FLAT}), 2, "missing tables 'knight mg'"),
    (block({**ALL_FLAT, "rook eg": FLAT}), 93, "unknown table 'rook eg'"),
    (block(ALL_FLAT, "Material: 100 320 330 500"), 3, "Material needs 5 whole numbers"),
    (block(ALL_FLAT, "Material: 100 320 330 500 -9"), 3, "material values must be >= 0"),
    ("ID: 4\nKind: pvt\n1 2 3\nEND\n", 3, "expected 'Table: <piece> <mg|eg>'"),
    (block(ALL_FLAT).replace("Table: knight mg", "Table: pawn mg"), 12, "duplicated table 'pawn mg'"),
])
def test_bad_pvt_blocks_name_the_line(text, where, problem):
    with pytest.raises(GenomeError, match=f"f.genome:{where}: .*{problem}"):
        parse_genome_text(text, "f.genome")


def test_evaluation_is_material_plus_tapered_tables(opening_fens):
    rng = random.Random(11)
    genome = random_pvt(5, material=(90, 300, 310, 480, 950))
    packed = genome.pack()
    for fen in rng.sample(opening_fens, 30):
        board = chess.Board(fen)
        for _ in range(rng.randrange(0, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        expected = reference_eval(genome, board) * 10
        assert evaluate_board(Board(board.fen()), packed) == pytest.approx(expected, abs=10)


def test_kings_and_pawns_only_use_the_end_game_tables():
    values = [0] * N_VALUES
    eg_pawn = TABLE_INDEX[("pawn", "eg")] * 64
    eg_king = TABLE_INDEX[("king", "eg")] * 64
    values[eg_pawn + chess.D5] = 70
    values[eg_king + chess.E4] = 25
    mg_pawn = TABLE_INDEX[("pawn", "mg")] * 64
    values[mg_pawn + chess.D5] = -500           # would dominate if the middle game counted
    packed = PvtGenome(1, values).pack()
    # White: K e4, P d5; Black: K e8. Only kings and pawns: phase 0, end game only.
    assert evaluate_board(Board("4k3/8/8/3P4/4K3/8/8/8 w - - 0 1"), packed) == (100 + 70 + 25) * 10
    # With every piece on the board (phase 24) the same pawn counts its middle-game value.
    full = "rnbqkbnr/pppppppp/8/3P4/8/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1"
    assert evaluate_board(Board(full), packed) == -500 * 10      # material is level


def test_colour_flip_symmetry(opening_fens):
    genome = random_pvt(9)
    packed = genome.pack()
    for fen in opening_fens[:40]:
        board = chess.Board(fen)
        mirrored = board.mirror()
        assert evaluate_board(Board(board.fen()), packed) == evaluate_board(Board(mirrored.fen()), packed)


def test_engine_searches_a_pvt_genome_and_reports_centipawns():
    engine = Engine(load_genome(TEXTBOOK))
    engine.set_position("4k3/8/8/8/8/8/3q4/3QK3 w - - 0 1", [])
    result = engine.search(Limits(depth=4))
    assert result.bestmove in ("d1d2", "e1d2")       # either takes the queen
    assert result.score.cp is not None and 700 < result.score.cp < 1300


def test_quiet_moves_are_ordered_by_their_destination_table():
    """Moving 200 centipawns from the knight's material into every square of its
    tables leaves every evaluation unchanged but puts knight moves first among
    the quiet moves: the searches agree on the score and differ in their trees."""
    base = random_pvt(21)
    shifted_values = list(base.values)
    for phase in ("mg", "eg"):
        start = TABLE_INDEX[("knight", phase)] * 64
        for sq in range(64):
            shifted_values[start + sq] += 200
    material = list(base.material)
    material[1] -= 200
    shifted = PvtGenome(1, shifted_values, material)
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    assert evaluate_board(Board(fen), base.pack()) == evaluate_board(Board(fen), shifted.pack())
    # Late-move reductions and late-move pruning decide by a move's place in the order,
    # so with them another order is another tree and may be another score: compare the
    # searches without them (the rest of the search gives the same score either way).
    by_place = FEATURE_NAMES["lmr"] | FEATURE_NAMES["lmp"]
    results = []
    for genome in (base, shifted):
        engine = Engine(genome)
        engine.searcher.features = ALL_FEATURES & ~by_place
        engine.set_position(fen, [])
        results.append(engine.search(Limits(depth=5)))
    assert results[0].score == results[1].score
    assert results[0].nodes != results[1].nodes


def test_genchess_plays_a_pvt_genome_over_uci():
    from engine_helpers import genchess_command
    import chess.engine
    argv, env = genchess_command("--genome", str(TEXTBOOK), "uci")
    with chess.engine.SimpleEngine.popen_uci(argv, env=env) as engine:
        result = engine.play(chess.Board(), chess.engine.Limit(depth=4))
        assert result.move in chess.Board().legal_moves
