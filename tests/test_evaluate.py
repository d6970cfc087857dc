"""The genome-driven evaluation against its written definition.

Three kinds of check. Hand-built positions, one or more per gene, whose raw score
S was worked out on paper from the definition (the arithmetic is in the comments).
A reference evaluation written here on python-chess, straight from the same
definition, compared gene by gene on positions from the shared suites and seeded
random play, under the default and random genomes. And properties the weighing
must have: colour-flip symmetry, only ratios of piece strengths matter, a
material-only genome counts material, a gene with priority zero is inert, the
sign survives an exponent, and evaluations stay out of the mate range.

Hand positions use TEST_VALUES, written out below, not the shipped default genome,
so retuning the default genome does not change what these tests expect.
"""

import math
import random

import chess
import pytest

from genchess.genome import Genome, hand_set_genome
from genchess_core import Board
from genchess_core.eval_genetic import GENE_PREFIXES, gene_raw_scores
from genchess_core.evaluate import evaluate_board
from genchess_core.searcher import MATE_THRESHOLD

SEED = 20251122
EVAL_SCALE = 1000
EVAL_LIMIT = 500_000_000

GENE_NAMES = {
    "total_force": "Total Force Gene",
    "freedom": "Freedom To Move Gene",
    "pawn_adv": "Pawn Advancement Gene",
    "passed_pawn": "Passed Pawn Gene",
    "targeted": "Opponent Pieces Targeted Gene",
    "sphere": "Sphere of Influence Gene",
    "confine": "King Confinement Gene",
    "king_protect": "King Protection Gene",
    "castling": "Castling Possible Gene",
    "islands": "Pawn Islands Gene",
    "stacked": "Stacked Pawns Gene",
    "checkmate_material": "Checkmate Material Gene",
}

# Piece strengths P N B R Q K = 1 3 3 5 9 4: the starting army is worth
# 8 + 6 + 6 + 10 + 9 + 4 = 43, so a piece's normalised value is its strength / 43.
ARMY_TOTAL = 43
TEST_VALUES = {
    "Piece Strength Gene": {"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9, "K": 4},
    "Pawn Advancement Gene": {"Non-linearity": 0.5},
    "Sphere of Influence Gene": {"Legal Square Score": 1, "Illegal Square Score": 0.5,
                                 "King Target Factor": 1},
    "King Confinement Gene": {"Friendly Block Score": 0.5, "Enemy Block Score": -0.5,
                              "Maximum Distance": 3},
    "Castling Possible Gene": {"Kingside Preference": 0.6, "Queenside Preference": 0.4},
}


def make_genome(changes=None, priority=1.0, exponent=1.0, genome_id=1):
    """Genome(id) with every scoring gene at `priority`/`exponent`, TEST_VALUES, then `changes`
    ({gene name: {key: value}})."""
    genome = Genome(genome_id)
    for name in GENE_NAMES.values():
        genome.gene(name).values.update({"Priority": priority, "Exponent": exponent})
    for source in (TEST_VALUES, changes or {}):
        for name, values in source.items():
            genome.gene(name).values.update(values)
    return genome


def packed_with(changes=None, **kw):
    return make_genome(changes, **kw).pack()


def raw(fen, packed):
    return gene_raw_scores(Board(fen), packed)


# --------------------------------------------------------------------------- positions

def _random_play_positions(starts, count, rng, max_plies=80):
    """FENs reached by seeded random play from `starts` (every 3rd ply kept)."""
    out = []
    while len(out) < count:
        board = chess.Board(rng.choice(starts))
        for ply in range(rng.randint(4, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer captures now and then so that endgames are reached too.
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.4 else moves))
            if ply % 3 == 2:
                out.append(board.fen())
        out.append(board.fen())
    return out[:count]


@pytest.fixture(scope="module")
def positions(perftsuite_fens, opening_fens):
    """Suite and opening positions plus positions from seeded random play."""
    rng = random.Random(SEED)
    fens = list(perftsuite_fens) + list(opening_fens)
    return fens + _random_play_positions(fens, 200, rng)


@pytest.fixture(scope="module")
def sample(positions):
    """A smaller seeded sample for the slower reference comparison."""
    return random.Random(SEED + 1).sample(positions, 90)


def genomes_for_properties():
    rng = random.Random(SEED)
    return [hand_set_genome()] + [Genome.random(rng, i) for i in range(1, 5)]


GENOME_IDS = ["default"] + [f"random{i}" for i in range(1, 5)]


# --------------------------------------------------------------------------- reference

def _value(packed, piece_type):
    return packed["piece_values"][piece_type - 1]


def _as_mover(board, color):
    """The board with `color` to move; a foreign en-passant square is dropped."""
    b = board.copy(stack=False)
    if b.turn != color:
        b.turn = color
        b.ep_square = None
    return b


def _attacks(board, color, with_king=True):
    out = chess.SquareSet()
    for sq in chess.SquareSet(board.occupied_co[color]):
        if with_king or board.piece_type_at(sq) != chess.KING:
            out |= board.attacks(sq)
    return out


def _queen_lines(board, sq):
    out = set()
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
        f, r = chess.square_file(sq) + df, chess.square_rank(sq) + dr
        while 0 <= f < 8 and 0 <= r < 8:
            s = chess.square(f, r)
            out.add(s)
            if board.piece_at(s):
                break
            f, r = f + df, r + dr
    return out


def _castling(board, packed, color):
    """Castled: that wing's preference. Otherwise the better wing's partial credit."""
    rank = 0 if color == chess.WHITE else 7
    sq = lambda f: chess.square(f, rank)  # noqa: E731
    king, rook = chess.Piece(chess.KING, color), chess.Piece(chess.ROOK, color)
    enemy = _attacks(board, not color)
    ks, qs = packed["castling_kingside"], packed["castling_queenside"]
    if board.piece_at(sq(6)) == king and board.piece_at(sq(5)) == rook:
        return ks
    if (board.piece_at(sq(2)) == king or board.piece_at(sq(1)) == king) and board.piece_at(sq(3)) == rook:
        return qs
    kingside = queenside = 0.0
    if board.has_kingside_castling_rights(color):
        empty = sum(board.piece_at(sq(f)) is None for f in (5, 6))
        safe = not any(sq(f) in enemy for f in (4, 5, 6))
        kingside = ks * (0.5 * empty / 2 + (0.25 if safe else 0.0))
    if board.has_queenside_castling_rights(color):
        empty = sum(board.piece_at(sq(f)) is None for f in (1, 2, 3))
        safe = not any(sq(f) in enemy for f in (2, 3, 4))
        queenside = qs * (0.5 * empty / 3 + (0.25 if safe else 0.0))
    return max(kingside, queenside)


def _can_mate(board, color):
    if board.pieces(chess.PAWN, color) | board.pieces(chess.ROOK, color) | board.pieces(chess.QUEEN, color):
        return True
    bishops = board.pieces(chess.BISHOP, color)
    knights = len(board.pieces(chess.KNIGHT, color))
    if bishops & chess.BB_DARK_SQUARES and bishops & chess.BB_LIGHT_SQUARES:
        return True
    return bool(bishops and knights) or knights >= 3


def reference_raw(board, packed, color):
    """Every gene's raw score S for `color`, from the written definition."""
    them = not color
    own = chess.SquareSet(board.occupied_co[color])
    S = {}
    S["total_force"] = sum(len(board.pieces(pt, color)) * _value(packed, pt)
                           for pt in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))
    mover = _as_mover(board, color)
    # "Capturing" the king of a side in check is not a move (it only appears when
    # the side not to move is counted as if it were its turn).
    moves = [m for m in mover.legal_moves if m.to_square != board.king(them)]
    S["freedom"] = len(moves) / 20

    power = 1 + packed["pawn_adv_nonlinearity"]
    advanced = [chess.square_rank(sq) - 1 if color == chess.WHITE else 6 - chess.square_rank(sq)
                for sq in board.pieces(chess.PAWN, color)]
    S["pawn_adv"] = sum(a ** power for a in advanced if a) / 8

    enemy_pawns = board.pieces(chess.PAWN, them)
    s = 0.0
    for sq in board.pieces(chess.PAWN, color):
        f, r = chess.square_file(sq), chess.square_rank(sq)
        files = [d for d in (f - 1, f, f + 1) if 0 <= d < 8]
        ahead = lambda e: chess.square_rank(e) > r if color == chess.WHITE else chess.square_rank(e) < r  # noqa: E731
        free = sum(not any(chess.square_file(e) == d and ahead(e) for e in enemy_pawns) for d in files)
        s += free / len(files)
    S["passed_pawn"] = s

    attacked = _attacks(board, color)
    S["targeted"] = sum(_value(packed, board.piece_type_at(sq))
                        for sq in chess.SquareSet(board.occupied_co[them]) if sq in attacked)

    their_king = board.king(them)
    legal_targets = {m.to_square for m in moves
                     if not mover.is_castling(m)
                     and not (board.piece_type_at(m.from_square) == chess.PAWN
                              and chess.square_file(m.from_square) == chess.square_file(m.to_square))}
    s = 0.0
    for sq in chess.SQUARES:
        weight = 1 + packed["sphere_king_target"] / (1 + chess.square_distance(sq, their_king))
        if sq in legal_targets:
            s += packed["sphere_legal_score"] * weight
        elif sq in attacked:
            s += packed["sphere_illegal_score"] * weight
    S["sphere"] = s / 64

    king = board.king(color)
    lifted = board.copy(stack=False)
    lifted.remove_piece_at(king)
    enemy_attacks = _attacks(lifted, them)
    reach, visited, friendly, enemy = {king}, {king}, 0, 0
    for _ in range(packed["confine_max_distance"]):
        ring = {n for r_ in reach for n in chess.SquareSet(chess.BB_KING_ATTACKS[r_])} - visited
        if not ring:
            break
        visited |= ring
        friendly += sum(n in own for n in ring)
        enemy += sum(n not in own and n in enemy_attacks for n in ring)
        reach |= {n for n in ring if n not in own and n not in enemy_attacks}
    S["confine"] = (packed["confine_friendly"] * friendly + packed["confine_enemy"] * enemy) / len(reach)

    guarded = _attacks(board, color, with_king=False)
    lines = _queen_lines(board, king) | set(chess.SquareSet(chess.BB_KNIGHT_ATTACKS[king]))
    S["king_protect"] = -sum(sq not in own and sq not in guarded for sq in lines) / 8

    S["castling"] = _castling(board, packed, color)

    pawns = board.pieces(chess.PAWN, color)
    files = sorted({chess.square_file(p) for p in pawns})
    islands = sum(1 for i, f in enumerate(files) if i == 0 or files[i - 1] != f - 1)
    S["islands"] = len(pawns) / islands / 8 if islands else 0.0
    counts = [sum(chess.square_file(p) == f for p in pawns) for f in range(8)]
    S["stacked"] = -sum(max(0, c - 1) for c in counts)
    S["checkmate_material"] = 1.0 if _can_mate(board, color) else 0.0
    return S


def reference_evaluate(board, packed, skip=()):
    """Side to move's evaluation as a float (the engine truncates it to an int)."""
    def weigh(prefix, s):
        priority, exponent = packed[f"{prefix}_priority"], packed[f"{prefix}_exponent"]
        if priority == 0 or s == 0:
            return 0.0
        return priority * math.copysign(abs(s) ** exponent, s)

    us, them = reference_raw(board, packed, board.turn), reference_raw(board, packed, not board.turn)
    total = sum(weigh(g, us[g]) - weigh(g, them[g]) for g in GENE_PREFIXES if g not in skip)
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, total * EVAL_SCALE))


# --------------------------------------------------------------------------- hand-built positions

T = ARMY_TOTAL
HAND = [
    # Total Force: white P P R N = (1+1+5+3)/43; black Q = 9/43; kings excluded.
    ("total_force", "3qk3/8/8/8/8/8/3PP3/R3K1N1 w - - 0 1", None, 10 / T, 9 / T),
    # A negative strength: the army is still normalised by |values| (43), so N counts -3/43.
    ("total_force", "3qk3/8/8/8/8/8/3PP3/R3K1N1 w - - 0 1",
     {"Piece Strength Gene": {"N": -3}}, (1 + 1 + 5 - 3) / T, 9 / T),
    # Freedom: Ra1 has a2-a8 and b1-d1 (10), Ke1 has d1 d2 e2 f2 f1 (5): 15/20.
    # Black, not to move, counts its own 5 king moves as if it were its turn: 5/20.
    ("freedom", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", None, 15 / 20, 5 / 20),
    # With the queenside right, O-O-O is a 16th move.
    ("freedom", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", None, 16 / 20, 5 / 20),
    # Black to move with the e3 en-passant square: white's count ignores it (f3 f4 e5,
    # Kd1 Kd2 Ke2 Kf1 = 7); black has Kd8 Kf8 Kd7 Ke7 Kf7, d3 and dxe3 e.p. = 7.
    ("freedom", "4k3/8/8/8/3pP3/8/5P2/4K3 b - e3 0 1", None, 7 / 20, 7 / 20),
    # Pawn Advancement, non-linearity 0.5: white a7 (5 ranks) and e4 (2): (5^1.5 + 2^1.5)/8;
    # black d5 (2 ranks) and h7 (0): 2^1.5/8.
    ("pawn_adv", "4k3/P6p/8/3p4/4P3/8/8/4K3 w - - 0 1", None,
     (5 ** 1.5 + 2 ** 1.5) / 8, 2 ** 1.5 / 8),
    # The same with non-linearity 1 (squares): (25 + 4)/8 and 4/8.
    ("pawn_adv", "4k3/P6p/8/3p4/4P3/8/8/4K3 w - - 0 1",
     {"Pawn Advancement Gene": {"Non-linearity": 1}}, 29 / 8, 4 / 8),
    # ... and with non-linearity -1 every advanced pawn counts 1: 2/8 and 1/8.
    ("pawn_adv", "4k3/P6p/8/3p4/4P3/8/8/4K3 w - - 0 1",
     {"Pawn Advancement Gene": {"Non-linearity": -1}}, 2 / 8, 1 / 8),
    # Passed Pawn: white b2 sees c5 ahead on c (2/3), e2 is free (3/3), h2 on the edge (2/2),
    # d6 has c5 behind it (3/3): 11/3. Black c5: b2 ahead on b, d6 is behind: 2/3.
    ("passed_pawn", "4k3/8/3P4/2p5/8/8/1P2P2P/4K3 w - - 0 1", None, 11 / 3, 2 / 3),
    # Targeted: Rd1 hits Nd5 (3/43); Bb4 gives check, so black targets the king (4/43).
    ("targeted", "4k3/8/8/3n4/1b6/8/8/3RK3 w - - 0 1", None, 3 / T, 4 / T),
    # Sphere of Influence (king distances to the enemy king in brackets):
    # white legal non-push targets g1 (7), g2 (6), h2 (7); illegal: pawn attacks d3, f3 (5);
    # (9/8 + 8/7 + 9/8) + 0.5 * (7/6 + 7/6) = 383/84, over 64.
    # Black: a7 (7), b7 (6), b8 (7) all legal: 95/28, over 64.
    ("sphere", "k7/8/8/8/8/8/4P3/7K w - - 0 1", None, 383 / 84 / 64, 95 / 28 / 64),
    # Legal 2, illegal -1, king target 3: white 2*(11/8 + 10/7 + 11/8) - (3/2 + 3/2) = 75/14;
    # black 2*(11/8 + 10/7 + 11/8) = 117/14; both over 64.
    ("sphere", "k7/8/8/8/8/8/4P3/7K w - - 0 1",
     {"Sphere of Influence Gene": {"Legal Square Score": 2, "Illegal Square Score": -1,
                                   "King Target Factor": 3}}, 75 / 14 / 64, 117 / 14 / 64),
    # King Confinement from e1, 3 steps: step 1 meets own d2 e2 f2 (3 friendly), takes d1 f1;
    # step 2 takes c1 c2 g1 g2; step 3 meets b3 c3 d3 f3 g3 (rook's rank) and h1 h2 (its
    # file) = 7 enemy, takes b1 b2 and h3 (the undefended rook). Reach 10 squares:
    # (0.5*3 - 0.5*7)/10. Black's 3-step flood from e8 meets nothing: 0.
    ("confine", "4k3/8/8/8/8/7r/3PPP2/4K3 w - - 0 1", None, -0.2, 0.0),
    # One step with a rook checking along the first rank: d1 is attacked and f1 is attacked
    # through the lifted king (2 enemy); d2 e2 f2 are free: (-0.5*2)/4.
    ("confine", "4k3/8/8/8/8/8/8/r3K3 w - - 0 1",
     {"King Confinement Gene": {"Maximum Distance": 1}}, -0.25, 0.0),
    # Maximum distance 0: only the king's own square, nothing met.
    ("confine", "4k3/8/8/8/8/7r/3PPP2/4K3 w - - 0 1",
     {"King Confinement Gene": {"Maximum Distance": 0}}, 0.0, 0.0),
    # King Protection: from h1, a1-g1 (7) and the knight square f2 are open; h2 and g2 are own,
    # g3 is guarded by h2: -8/8. Black Ka8: rank 7, file 7, diagonal b7..g2 (6), b6 c7: -22/8.
    ("king_protect", "k7/8/8/8/8/8/6PP/7K w - - 0 1", None, -1.0, -22 / 8),
    # Castling: white O-O right, f1 empty and g1 not (1/2 emptied), e1 f1 g1 safe:
    # 0.6*(0.25 + 0.25) = 0.3; O-O-O right, b1 c1 d1 empty, d1 hit by Ba4: 0.4*(0.5 + 0) = 0.2;
    # the better wing counts. Black Kg8 + Rf8 looks castled: 0.6.
    ("castling", "5rk1/5p2/8/8/b7/8/8/R3K1NR w KQ - 0 1", None, 0.6 * 0.5, 0.6),
    # Castled kingside (white) and queenside with the king on b8 (black).
    ("castling", "1k1r4/8/8/8/8/8/8/5RK1 w - - 0 1", None, 0.6, 0.4),
    # King c8 + rook d8 is castled queenside; a king on g1 without the rook on f1 gets nothing.
    ("castling", "2kr4/8/8/8/8/8/8/6K1 w - - 0 1", None, 0.0, 0.4),
    # Every right, every square empty and safe: the better wing, 0.6*0.75, for both
    # (less than the 0.6 of having castled kingside, so castling pays).
    ("castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", None, 0.6 * 0.75, 0.6 * 0.75),
    # Pawn Islands: white a b | d | f g h: 6 pawns / 3 islands / 8; black c7 alone: 1/1/8.
    ("islands", "4k3/2p5/8/8/8/8/PP1P1PPP/4K3 w - - 0 1", None, 6 / 3 / 8, 1 / 8),
    ("islands", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", None, 0.0, 0.0),
    # Stacked Pawns: three on c (2 extra) and two on e (1 extra): -3; black a7: 0.
    ("stacked", "4k3/p7/8/8/2P5/2P1P3/2P1P3/4K3 w - - 0 1", None, -3.0, 0.0),
]


@pytest.mark.parametrize("gene, fen, changes, white, black", HAND,
                         ids=[f"{h[0]}-{i}" for i, h in enumerate(HAND)])
def test_gene_raw_score_on_hand_built_position(gene, fen, changes, white, black):
    scores = raw(fen, packed_with(changes))
    assert scores["white"][gene] == pytest.approx(white, abs=1e-12), "white"
    assert scores["black"][gene] == pytest.approx(black, abs=1e-12), "black"
    # The hand arithmetic and the reference implementation agree, too.
    board = chess.Board(fen)
    packed = packed_with(changes)
    assert reference_raw(board, packed, chess.WHITE)[gene] == pytest.approx(white, abs=1e-12)
    assert reference_raw(board, packed, chess.BLACK)[gene] == pytest.approx(black, abs=1e-12)


# White's material with Ke1 against a bare Ke8. Square colours: c1, e3 dark; f1 light.
MATING_MATERIAL = [
    ("", 0.0),
    ("N on b1", 0.0),
    ("N on b1, g1", 0.0),
    ("N on b1, g1, c3", 1.0),
    ("B on c1", 0.0),
    ("B on c1, e3", 0.0),           # both on dark squares
    ("B on c1, f1", 1.0),           # dark and light
    ("B on c1, N on b1", 1.0),
    ("P on a2", 1.0),
    ("R on a1", 1.0),
    ("Q on d1", 1.0),
]


def _white_army_fen(spec):
    board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    for part in filter(None, spec.split(", ")):
        words = part.split(" on ")
        if len(words) == 2:
            letter, squares = words
        else:
            squares = words[0]
        board.set_piece_at(chess.parse_square(squares), chess.Piece.from_symbol(letter))
    return board.fen()


@pytest.mark.parametrize("army, expected", MATING_MATERIAL, ids=[a or "bare king" for a, _ in MATING_MATERIAL])
def test_checkmate_material(army, expected):
    fen = _white_army_fen(army)
    scores = raw(fen, packed_with())
    assert scores["white"]["checkmate_material"] == expected
    assert scores["black"]["checkmate_material"] == 0.0


def test_checkmate_material_for_black_with_two_bishops_on_both_colours():
    scores = raw("2b1kb2/8/8/8/8/8/8/4K3 w - - 0 1", packed_with())
    assert scores["black"]["checkmate_material"] == 1.0
    assert scores["white"]["checkmate_material"] == 0.0


# --------------------------------------------------------------------------- against the reference

def _compare_with_reference(fens, genomes):
    mismatches = []
    for genome in genomes:
        packed = genome.pack()
        for fen in fens:
            board = chess.Board(fen)
            ours = raw(fen, packed)
            for color, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
                want = reference_raw(board, packed, color)
                for gene in GENE_PREFIXES:
                    if not math.isclose(ours[name][gene], want[gene], rel_tol=1e-9, abs_tol=1e-12):
                        mismatches.append((genome.id, fen, name, gene, ours[name][gene], want[gene]))
            value, expected = evaluate_board(Board(fen), packed), reference_evaluate(board, packed)
            # The engine truncates towards zero; allow for rounding in the last place.
            if abs(value - expected) > 1 + 1e-9 * abs(expected):
                mismatches.append((genome.id, fen, "eval", value, expected))
    return mismatches


def _reference_genomes(count):
    rng = random.Random(SEED + 2)
    # Priorities all non-zero so that every gene's raw score is really computed.
    return [make_genome(genome_id=0)] + [Genome.random(rng, i) for i in range(1, count)]


def test_gene_scores_and_evaluation_match_the_reference(sample):
    mismatches = _compare_with_reference(sample, _reference_genomes(3))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:5]}"


@pytest.mark.slow
def test_gene_scores_and_evaluation_match_the_reference_everywhere(positions):
    mismatches = _compare_with_reference(positions, _reference_genomes(6))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:5]}"


# --------------------------------------------------------------------------- properties

@pytest.mark.parametrize("genome", genomes_for_properties(), ids=GENOME_IDS)
def test_colour_flip_symmetry(genome, positions):
    packed = genome.pack()
    broken = []
    for fen in positions:
        flipped = chess.Board(fen).mirror().fen()
        a, b = evaluate_board(Board(fen), packed), evaluate_board(Board(flipped), packed)
        if a != b:
            broken.append((fen, flipped, a, b))
        ours, theirs = raw(fen, packed), raw(flipped, packed)
        for gene in GENE_PREFIXES:
            if not (math.isclose(ours["white"][gene], theirs["black"][gene], abs_tol=1e-12)
                    and math.isclose(ours["black"][gene], theirs["white"][gene], abs_tol=1e-12)):
                broken.append((fen, gene))
    assert not broken, f"{len(broken)} asymmetries, e.g. {broken[:5]}"


@pytest.mark.parametrize("genome", genomes_for_properties(), ids=GENOME_IDS)
def test_only_ratios_of_piece_strengths_matter(genome, positions):
    packed = genome.pack()
    values = packed["piece_values"]
    army = 8 * abs(values[0]) + sum(2 * abs(v) for v in values[1:4]) + abs(values[4]) + abs(values[5])
    assert army == pytest.approx(1.0)
    doubled, tenfold = genome.copy(), genome.copy()
    for key in "PNBRQK":
        doubled.gene("Piece Strength Gene").values[key] *= 2
        tenfold.gene("Piece Strength Gene").values[key] *= 10
    doubled, tenfold = doubled.pack(), tenfold.pack()
    for fen in positions[::3]:
        board = Board(fen)
        value = evaluate_board(board, packed)
        assert evaluate_board(board, doubled) == value, fen       # doubling is exact in binary
        assert abs(evaluate_board(board, tenfold) - value) <= 1, fen


def _material(board, packed, color):
    return sum(len(board.pieces(pt, color)) * packed["piece_values"][pt - 1]
               for pt in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN))


def _only(prefix, priority=1.0, exponent=1.0, changes=None):
    genome = make_genome(changes, priority=0.0)
    genome.gene(GENE_NAMES[prefix]).values.update({"Priority": priority, "Exponent": exponent})
    return genome.pack()


@pytest.mark.parametrize("exponent", [1.0, 2.0, 0.5])
def test_material_only_genome_scores_the_material_difference(exponent, positions):
    packed = _only("total_force", priority=100.0, exponent=exponent)
    for fen in positions:
        board = chess.Board(fen)
        us, them = _material(board, packed, board.turn), _material(board, packed, not board.turn)
        expected = 100.0 * (us ** exponent - them ** exponent) * EVAL_SCALE
        assert abs(evaluate_board(Board(fen), packed) - expected) <= 1, fen
        # Material does not care whose turn it is: the other side's view is the negation.
        board.turn = not board.turn
        board.ep_square = None
        if not board.is_valid():        # the side now not to move would be in check
            continue
        assert abs(evaluate_board(Board(board.fen()), packed) + expected) <= 1, fen


def test_material_only_genome_on_a_hand_position():
    # White R + P against black N: (5 + 1 - 3)/43 of a unit, times priority 100 and 1000.
    packed = _only("total_force", priority=100.0)
    value = evaluate_board(Board("4k3/8/8/3n4/8/8/4P3/R3K3 w - - 0 1"), packed)
    assert abs(value - 3 / 43 * 100 * EVAL_SCALE) <= 1
    value = evaluate_board(Board("4k3/8/8/3n4/8/8/4P3/R3K3 b - - 0 1"), packed)
    assert abs(value + 3 / 43 * 100 * EVAL_SCALE) <= 1


def test_sign_of_a_negative_raw_score_survives_the_exponent():
    # White has 3 stacked pawns (S = -3), black none. Priority 1, exponent 2:
    # white's term is -(3^2) = -9, so white to move sees -9000 and black +9000.
    packed = _only("stacked", exponent=2.0)
    assert evaluate_board(Board("4k3/p7/8/8/2P5/2P1P3/2P1P3/4K3 w - - 0 1"), packed) == -9000
    assert evaluate_board(Board("4k3/p7/8/8/2P5/2P1P3/2P1P3/4K3 b - - 0 1"), packed) == 9000
    # A negative priority turns the penalty into a bonus.
    packed = _only("stacked", priority=-1.0, exponent=2.0)
    assert evaluate_board(Board("4k3/p7/8/8/2P5/2P1P3/2P1P3/4K3 w - - 0 1"), packed) == 9000


def test_single_gene_evaluations_weigh_the_hand_scores():
    # King Protection alone, priority 2, exponent 3: white -(1)^3*2, black -(22/8)^3*2.
    packed = _only("king_protect", priority=2.0, exponent=3.0)
    value = evaluate_board(Board("k7/8/8/8/8/8/6PP/7K w - - 0 1"), packed)
    expected = (2 * -(1.0 ** 3) - 2 * -((22 / 8) ** 3)) * EVAL_SCALE
    assert abs(value - expected) <= 1


def test_zero_priority_genes_do_not_affect_the_result(positions):
    rng = random.Random(SEED + 3)
    fens = rng.sample(positions, 40)
    for trial in range(6):
        genome = Genome.random(rng, trial)
        silent = rng.sample(list(GENE_PREFIXES), 5)
        for prefix in silent:
            genome.gene(GENE_NAMES[prefix]).values["Priority"] = 0.0
        packed = genome.pack()
        # Scramble everything else the silent genes hold: exponents and extra constants.
        scrambled = genome.copy()
        for prefix in silent:
            gene = scrambled.gene(GENE_NAMES[prefix])
            for spec in gene.VALUES:
                if spec.key != "Priority":
                    gene.values[spec.key] = gene._random_value(spec, rng)
        scrambled = scrambled.pack()
        for fen in fens:
            board = Board(fen)
            value = evaluate_board(board, packed)
            assert evaluate_board(board, scrambled) == value, (fen, silent)
            expected = reference_evaluate(chess.Board(fen), packed, skip=silent)
            assert abs(value - expected) <= 1 + 1e-9 * abs(expected), (fen, silent)


def test_all_zero_priorities_evaluate_to_zero(positions):
    packed = make_genome(priority=0.0).pack()
    assert all(evaluate_board(Board(fen), packed) == 0 for fen in positions[::5])


def test_evaluation_is_clamped_below_the_mate_range(positions):
    # Maximal priorities and exponents push raw weighted sums far past the clamp.
    extreme = make_genome(priority=1000.0, exponent=4.0).pack()
    values = [evaluate_board(Board(fen), extreme) for fen in positions[::4]]
    assert all(abs(v) <= EVAL_LIMIT < MATE_THRESHOLD for v in values)
    # Eight pawns stacked on three files (no side has more than eight) with exponent 4 and
    # priority 1000: still far past the clamp.
    packed = _only("stacked", priority=1000.0, exponent=4.0)
    assert evaluate_board(Board("4k3/8/2P1P1P1/2P1P1P1/2P1P3/8/8/4K3 w - - 0 1"), packed) == -EVAL_LIMIT
    assert evaluate_board(Board("4k3/8/2P1P1P1/2P1P1P1/2P1P3/8/8/4K3 b - - 0 1"), packed) == EVAL_LIMIT


def test_evaluation_does_not_change_the_board(positions):
    packed = hand_set_genome().pack()
    for fen in positions[::7]:
        board = Board(fen)
        before, key, moves = board.fen(), board.key, sorted(board.legal_moves())
        evaluate_board(board, packed)
        gene_raw_scores(board, packed)
        assert board.fen() == before and board.key == key and sorted(board.legal_moves()) == moves


def test_mobility_counted_without_listing_agrees_with_the_move_list(positions):
    # The evaluation counts each side's legal moves and their attacked squares from
    # bitboards (pins, the king's danger map, promotions as four moves, en passant
    # for the side to move); it must agree exactly with the listed legal moves, for
    # both colours, in every suite, opening and random-play position.
    from genchess_core.evaluate import mobility_terms
    checked = 0
    for fen in positions:
        board = Board(fen)
        for color in (0, 1):
            fast, listed = mobility_terms(board, color)
            assert fast == listed, f"{fen}, {'white' if color == 0 else 'black'}: {fast} != {listed}"
            checked += 1
    assert checked >= 2 * 300


def test_the_searchers_evaluation_cache_returns_the_uncached_evaluation(positions):
    # The Searcher evaluates through a whole-position cache: every evaluation, the
    # first and the repeated, equals the direct one; a new genome starts afresh.
    from genchess.engine import Engine
    rng = random.Random(SEED + 7)
    first, second = hand_set_genome(), Genome.random(rng, 1)
    searcher = Engine(first).searcher
    sample = positions[:200]
    for _ in range(2):
        for fen in sample:
            assert searcher.evaluate(Board(fen)) == evaluate_board(Board(fen), first.pack())
    searcher.set_genome(second.pack())
    changed = 0
    for fen in sample:
        expected = evaluate_board(Board(fen), second.pack())
        assert searcher.evaluate(Board(fen)) == expected
        changed += expected != evaluate_board(Board(fen), first.pack())
    assert changed > len(sample) // 2       # the genomes really differ
