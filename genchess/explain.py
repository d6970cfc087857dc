"""An evaluation a user can read: a genome's static evaluation of one position, term by term.

This is how a user sees what evolution taught a genome, position by position
(`genchess eval FEN`, and the UCI command `eval`). Each kind is explained the way its
evaluation is built, with the C evaluation's own arithmetic in its own order, so that
the total shown is the very number the search uses (tests/test_explain.py holds every
kind to that):

- unified: each term group's middle-game and end-game sum in the genome's
  centipawns (White's counts minus Black's, as the C evaluation's counting trace
  records them), the game phase and the tapered total;
- pvt (Phoenix): per piece kind its material and its table, in both phases, the phase
  and the tapered total;
- material (Kendall-Whitwell): each weighed count, White's minus Black's;
- genetic (Genetic Chess): each gene's weighed score for both sides;
- network: what each piece is worth to the evaluation, the evaluation with it minus
  without it (as Stockfish's `eval` shows its network's), and the whole evaluation:
  a network has no terms, and its pieces do not add up to the whole.

The trade-off: the C evaluation has no tracing branch that every node of a search
would pay for; this module recomputes the parts from the genome's numbers and the
counts the tuners' features already read, once per call, in Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

PHASE_MAX = 24              # eval_pvt.pxd: knight, bishop 1, rook 2, queen 4; capped
PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")


@dataclass
class Explanation:
    """One position's evaluation under one genome: `rows` of numbers under `columns`
    (each a name and the decimals it is shown with; White's view, centipawns of the
    genome), then the total as the search sees it."""
    kind: str
    columns: tuple[tuple[str, int], ...]
    rows: list[tuple[str, tuple[float, ...]]]
    internal: int               # side to move's view, internal units: Searcher.evaluate's number
    pawn_unit: float            # internal units per pawn of this genome
    white_to_move: bool
    notes: list[str] = field(default_factory=list)

    @property
    def pawns(self) -> float:
        """The evaluation in the genome's pawns, side to move's view (UCI's `score cp` / 100)."""
        return self.internal / self.pawn_unit

    @property
    def white_pawns(self) -> float:
        return self.pawns if self.white_to_move else -self.pawns


def c_division(numerator: int, denominator: int) -> int:
    """Integer division truncated towards zero, as the C core's `//` (cdivision)."""
    quotient = abs(numerator) // denominator
    return quotient if numerator >= 0 else -quotient


def _one_position(board):
    """The position arrays the C feature counters take, for one board."""
    import numpy as np
    from genchess_core.set_eval import parse_fens
    pieces, side, castling, ep, errors = parse_fens([board.fen()])
    if errors:
        raise ValueError(errors[0][1])
    return tuple(np.ascontiguousarray(a) for a in (pieces, side, castling, ep))


def _side_view(white: int, white_to_move: bool) -> int:
    return white if white_to_move else -white


def explain_unified(genome, board) -> Explanation:
    from genchess.genome.pvt import EVAL_SCALE_CP
    from genchess_core.eval_unified import TERMS
    from genchess_core.set_eval import unified_counts
    packed = genome.pack()
    _, terms, counts, phases = unified_counts(*_one_position(board), packed)
    count = dict(zip(terms.tolist(), counts.tolist()))
    phase = int(phases[0])
    rows, total_mg, total_eg = [], 0, 0
    for name, start, length in TERMS:
        mg = sum(count.get(t, 0) * genome.mg[t] for t in range(start, start + length))
        eg = sum(count.get(t, 0) * genome.eg[t] for t in range(start, start + length))
        total_mg += mg
        total_eg += eg
        if mg or eg:
            label = f"{name} squares" if name in PIECE_NAMES else name    # the piece's table
            rows.append((label, (mg, eg, (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX)))
    white = c_division((total_mg * phase + total_eg * (PHASE_MAX - phase)) * EVAL_SCALE_CP, PHASE_MAX)
    rows.append(("total", (total_mg, total_eg,
                           (total_mg * phase + total_eg * (PHASE_MAX - phase)) / PHASE_MAX)))
    silent = len(TERMS) - (len(rows) - 1)
    return Explanation(
        "unified", (("MG", 0), ("EG", 0), ("blended", 1)), rows, _side_view(white, board.turn == "w"),
        packed["pawn_unit"], board.turn == "w",
        [f"phase {phase} of {PHASE_MAX}: the middle game weighs {phase}/{PHASE_MAX}, "
         f"the end game {PHASE_MAX - phase}/{PHASE_MAX}",
         f"{silent} term groups count nothing here"])


def explain_pvt(genome, board) -> Explanation:
    packed = genome.pack()
    tables, material, scale = packed["pvt_tables"], packed["pvt_material"], packed["eval_scale_cp"]
    per_kind = {kind: [0, 0, 0, 0] for kind in range(6)}     # material mg, eg; table mg, eg
    phase = 0
    import chess
    for square, piece in chess.BaseBoard(board.fen().split()[0]).piece_map().items():
        kind, white = piece.piece_type - 1, piece.color
        sign = 1 if white else -1
        own = square if white else square ^ 56               # Black reads White's table mirrored
        entry = per_kind[kind]
        entry[0] += sign * material[kind]
        entry[1] += sign * material[kind]
        entry[2] += sign * tables[(kind * 2) * 64 + own]
        entry[3] += sign * tables[(kind * 2 + 1) * 64 + own]
        phase += (0, 1, 1, 2, 4, 0)[kind]
    phase = min(phase, PHASE_MAX)
    rows, total_mg, total_eg = [], 0, 0
    for kind, (mat_mg, mat_eg, tab_mg, tab_eg) in per_kind.items():
        for part, mg, eg in (("material", mat_mg, mat_eg), ("table", tab_mg, tab_eg)):
            total_mg += mg
            total_eg += eg
            if mg or eg:
                rows.append((f"{PIECE_NAMES[kind]} {part}",
                             (mg, eg, (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX)))
    rows.append(("total", (total_mg, total_eg,
                           (total_mg * phase + total_eg * (PHASE_MAX - phase)) / PHASE_MAX)))
    white = c_division((total_mg * phase + total_eg * (PHASE_MAX - phase)) * scale, PHASE_MAX)
    return Explanation("pvt", (("MG", 0), ("EG", 0), ("blended", 1)), rows, _side_view(white, board.turn == "w"),
                       packed["pawn_unit"], board.turn == "w",
                       [f"phase {phase} of {PHASE_MAX}: the middle game weighs {phase}/{PHASE_MAX}, "
                        f"the end game {PHASE_MAX - phase}/{PHASE_MAX}"])


MATERIAL_TERMS = PIECE_NAMES + ("legal moves", "centre squares attacked", "advanced passed pawns")


def explain_material(genome, board) -> Explanation:
    from genchess_core.set_eval import material_counts
    packed = genome.pack()
    counts = material_counts(*_one_position(board))[0].tolist()
    weights = list(packed["material_weights"]) + [packed["centre_bonus"], packed["advanced_pawn_bonus"]]
    white_to_move = board.turn == "w"
    sign = 1 if white_to_move else -1
    # eval_material.pyx: the side to move's counts minus the opponent's, weighed and
    # summed in this order (a zero weight adds nothing), scaled, truncated, clamped.
    total, rows = 0.0, []
    centipawns = 100.0 / weights[0] if weights[0] else math.nan    # the genome's pawn is its unit
    for name, weight, count in zip(MATERIAL_TERMS, weights, counts):
        if weight != 0.0:
            total += weight * (sign * count)
        if count and weight:
            rows.append((name, (count, weight, weight * count * centipawns)))
    total *= packed["eval_scale"]
    internal = max(-500_000_000, min(500_000_000, int(total)))
    rows.append(("total", (math.nan, math.nan, sum(w * c for w, c in zip(weights, counts)) * centipawns)))
    return Explanation("material", (("count", 0), ("weight", 3), ("centipawns", 1)), rows, internal,
                       packed["pawn_unit"], white_to_move,
                       ["counts are White's minus Black's; a weight times its count is the score, "
                        "in the genome's pawns (its pawn weight)"])


def weigh(priority: float, exponent: float, score: float) -> float:
    """A gene's weighed score, as eval_genetic.pyx's weigh (the same libm pow)."""
    if priority == 0.0 or score == 0.0:
        return 0.0
    if exponent == 1.0:
        return priority * score
    if score > 0.0:
        return priority * math.pow(score, exponent)
    return -priority * math.pow(-score, exponent)


GENE_NAMES = {
    "total_force": "Total Force Gene", "freedom": "Freedom to Move Gene",
    "pawn_adv": "Pawn Advancement Gene", "passed_pawn": "Passed Pawn Gene",
    "targeted": "Opponent Pieces Targeted Gene", "sphere": "Sphere of Influence Gene",
    "confine": "King Confinement Gene", "king_protect": "King Protection Gene",
    "castling": "Castling Possible Gene", "islands": "Pawn Islands Gene",
    "stacked": "Stacked Pawns Gene", "checkmate_material": "Checkmate Material Gene",
}


def explain_genetic(genome, board) -> Explanation:
    from genchess_core.eval_genetic import gene_raw_scores
    packed = genome.pack()
    raw = gene_raw_scores(board, packed)
    white_to_move = board.turn == "w"
    us, them = ("white", "black") if white_to_move else ("black", "white")
    rows, total = [], 0.0
    centipawns = 1000 * 100.0 / packed["pawn_unit"]     # weighed score -> the genome's centipawns
    for prefix, name in GENE_NAMES.items():
        priority, exponent = packed[f"{prefix}_priority"], packed[f"{prefix}_exponent"]
        white = weigh(priority, exponent, raw["white"][prefix])
        black = weigh(priority, exponent, raw["black"][prefix])
        # evaluate_genetic: the side to move's weighed score minus the opponent's, gene by gene.
        total += weigh(priority, exponent, raw[us][prefix]) - weigh(priority, exponent, raw[them][prefix])
        if white or black:
            rows.append((name, (white * centipawns, black * centipawns, (white - black) * centipawns)))
    rows.append(("total", (math.nan, math.nan, sum(row[1][2] for row in rows))))
    total *= 1000                   # EVAL_SCALE
    internal = int(max(-500_000_000, min(500_000_000, total)))
    return Explanation("genetic", (("White", 1), ("Black", 1), ("White - Black", 1)), rows, internal,
                       packed["pawn_unit"], white_to_move,
                       ["each gene's priority * sign(S) * |S|^exponent for each side (S its raw "
                        "score), in centipawns of the genome's pawn"])


def explain_network(genome, board) -> Explanation:
    from genchess_core.eval_network import network_piece_values
    packed = genome.pack()
    internal, values = network_piece_values(packed, board.fen())
    white_to_move = board.turn == "w"
    per_cp = packed["pawn_unit"] / 100.0
    rows = []
    for square, piece, value in values:
        white = value if white_to_move else -value
        name = f"{('white', 'black')[piece // 6]} {PIECE_NAMES[piece % 6]} {'abcdefgh'[square % 8]}{square // 8 + 1}"
        rows.append((name, (white / per_cp,)))
    rows.sort(key=lambda row: -abs(row[1][0]))
    rows.append(("total", (_side_view(internal, white_to_move) / per_cp,)))
    return Explanation("network", (("White's view", 1),), rows, internal, packed["pawn_unit"],
                       white_to_move,
                       [f"{genome.hidden}-unit {genome.activation} network: each piece's row is the "
                        "evaluation with it minus without it, centipawns; they need not add up to "
                        "the total"])


EXPLAINERS = {"unified": explain_unified, "pvt": explain_pvt, "material": explain_material,
              "genetic": explain_genetic, "network": explain_network}


def explain(genome, board) -> Explanation:
    """`board`'s static evaluation under `genome`, term by term (`board` is a
    genchess_core Board; its pieces and side to move are what is read)."""
    explainer = EXPLAINERS.get(genome.KIND)
    if explainer is None:
        raise ValueError(f"no explanation for genomes of kind {genome.KIND!r} yet")
    return explainer(genome, board)


def _number(value: float, digits: int) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ""
    return f"{value:+.{digits}f}"


def format_explanation(explanation: Explanation, title: str = "") -> str:
    """A markdown table, then the notes and the total as the search and UCI see it."""
    name_width = max(len("term"), *(len(name) for name, _ in explanation.rows))
    widths = [max(len(c), 9) for c, _ in explanation.columns]
    header = "| " + "term".ljust(name_width) + " | " + " | ".join(
        c.rjust(w) for (c, _), w in zip(explanation.columns, widths)) + " |"
    rule = "|" + "-" * (name_width + 2) + "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    lines = [title] if title else []
    lines += [header, rule]
    for name, values in explanation.rows:
        cells = " | ".join(_number(v, digits).rjust(w)
                           for v, (_, digits), w in zip(values, explanation.columns, widths))
        lines.append(f"| {name.ljust(name_width)} | {cells} |")
    lines.append("")
    lines += explanation.notes
    side = "White" if explanation.white_to_move else "Black"
    lines.append(f"Evaluation: {explanation.white_pawns:+.2f} pawns for White "
                 f"({explanation.pawns:+.2f} for {side}, to move; {explanation.internal} internal units)")
    return "\n".join(lines)
