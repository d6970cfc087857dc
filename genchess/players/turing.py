"""Turing's paper machine (Turochamp, 1948; described in "Digital Computers Applied
to Games", 1953), played by the computer instead of by Turing with pencil and paper.

The machine looks at every move of its own and every reply, then follows only
"considerable" moves (captures worth following, recaptures, mates) until a "dead"
position, and values dead positions by the ratio of its material to the
opponent's (P=1, N=3, B=3.5, R=5, Q=10). The move with the greatest value wins;
among equal values the greatest position-play value (mobility, piece safety, king
mobility and safety, castling, pawn advancement and defence, check and mate
threats), and among equal position play a random choice. Position play is
computed only for the positions after the machine's own move, without analysis,
as the paper says.

Design trade-off: this is plain Python over genchess_core.Board. The tree is tiny
(two plies plus capture sequences, with alpha-beta cut-offs that never change the
chosen value), and the piece-level features the paper needs (defenders, per-piece
mobility) are simplest on a 64-square list parsed from the FEN. Only the move
list, legality and check/mate come from the C core.

Where the paper is ambiguous, what we chose:
- "Considerable" extension: a recapture is a capture on the square of the
  immediately preceding capture; "undefended" means no piece of the captured
  side attacks the square (x-rays not counted); the king as a capturer is never
  the "piece of lower value". A move giving checkmate is found by making each
  move that could give check (a geometric pre-filter) and testing for mate.
- Value of a non-dead position beyond the first two plies: the best of the
  considerable moves or of the position itself valued as dead (stand pat), as
  the paper says, unless every legal move is considerable. Plies 1 and 2 are
  full width without stand pat. Extensions stop at MAX_PLY (12) plies.
- Material ratio: the machine's total over the opponent's (kings not counted);
  both bare: 1; opponent bare: 1000 plus the machine's total. Checkmate is worth
  +-1e6 (less the plies to it, so faster mates are preferred); stalemate, dead
  draws, the fifty-move rule and repetitions inside the first two plies are worth
  1 (equal material), which the paper does not mention.
- Position play counts the machine's pieces and the opponent's king only, as
  written (nothing is subtracted for the opponent's pieces). Mobility (i) counts
  legal moves, captures twice; for the king (iii) castling excluded. King
  vulnerability (iv): the square root of the moves a queen would have on the
  king's square (captures twice, king lifted off the board), subtracted.
  Castling (v): +1 if any castling right remains, +1 if castling would be legal
  were it the machine's move, +1 if the move just made was castling (in Chess960
  by its rules: castling is no capture, though written king-takes-rook). Pawns (vi):
  0.2 per rank advanced from the starting rank; (vii) +0.3 if a piece other than
  a pawn defends it. Opponent's king: (ix) +0.5 if in check; (viii) +1 for the
  threat of mate, meaning the machine would have a mate in one if it could move
  again; not looked for while the opponent is in check (the move would be illegal
  to pass), where the check already scores.
- Ties after position play: a seeded random choice ("a choice may be made at
  random").
- Clock: the paper has none. The search stops at its deadline and plays the
  best root move fully examined (root moves are tried captures first).
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field

from genchess.players import SQUARE_INDEX, move_budget, placement

PIECE_VALUES = {"P": 1.0, "N": 3.0, "B": 3.5, "R": 5.0, "Q": 10.0, "K": 0.0}
MATE = 1e6
MAX_PLY = 12
EPS = 1e-7
CHECK_EVERY = 16

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _on_board(f, r):
    return 0 <= f < 8 and 0 <= r < 8


def _steps(deltas):
    table = []
    for sq in range(64):
        f, r = sq % 8, sq // 8
        table.append([(r + dr) * 8 + f + df for df, dr in deltas if _on_board(f + df, r + dr)])
    return table


def _rays(directions):
    table = []
    for sq in range(64):
        f, r = sq % 8, sq // 8
        rays = []
        for df, dr in directions:
            ray, x, y = [], f + df, r + dr
            while _on_board(x, y):
                ray.append(y * 8 + x)
                x, y = x + df, y + dr
            rays.append(ray)
        table.append(rays)
    return table


KNIGHT_STEPS = _steps(((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)))
KING_STEPS = _steps(ORTHOGONAL + DIAGONAL)
ROOK_RAYS = _rays(ORTHOGONAL)
BISHOP_RAYS = _rays(DIAGONAL)
QUEEN_RAYS = [a + b for a, b in zip(ROOK_RAYS, BISHOP_RAYS)]
# Squares from which a white (index 1) or black (index 0) pawn attacks sq.
PAWN_ATTACKERS = {True: _steps(((-1, -1), (1, -1))), False: _steps(((-1, 1), (1, 1)))}
SAME_LINE = [[(a % 8 == b % 8 or a // 8 == b // 8) and a != b for b in range(64)] for a in range(64)]
SAME_DIAGONAL = [[abs(a % 8 - b % 8) == abs(a // 8 - b // 8) and a != b for b in range(64)]
                 for a in range(64)]
KNIGHT_NEAR = [[b in KNIGHT_STEPS[a] for b in range(64)] for a in range(64)]

_UCI_CACHE: dict[str, tuple[int, int, str]] = {}


def parse_uci(move: str) -> tuple[int, int, str]:
    """(from, to, promotion letter upper or '') of a UCI move, cached."""
    parsed = _UCI_CACHE.get(move)
    if parsed is None:
        parsed = (SQUARE_INDEX[move[:2]], SQUARE_INDEX[move[2:4]], move[4:].upper())
        _UCI_CACHE[move] = parsed
    return parsed


def _own(piece: str, white: bool) -> bool:
    return piece != "." and piece.isupper() == white


def is_castling(arr: list[str], frm: int, to: int) -> bool:
    """Whether a legal move from frm to to castles, as Board writes castling: the
    king's move two files (king and rook on standard squares, standard notation) or
    the king taking its own rook (Chess960 notation, or any other castling)."""
    return arr[frm].upper() == "K" and (abs(frm % 8 - to % 8) == 2 or _own(arr[to], arr[frm].isupper()))


def takes(arr: list[str], frm: int, to: int) -> bool:
    """Whether a move from frm to to lands on an enemy piece (Chess960's castling,
    written king-takes-rook, lands on its own rook; en passant on no piece)."""
    return arr[to] != "." and arr[to].isupper() != arr[frm].isupper()


def victim_value(arr: list[str], move: str) -> float:
    """The value of the piece a move lands on, for ordering captures first."""
    frm, to, _ = parse_uci(move)
    return PIECE_VALUES[arr[to].upper()] if takes(arr, frm, to) else 0.0


def count_attackers(arr: list[str], sq: int, white: bool, pawns: bool = True,
                    stop_at: int = 99) -> int:
    """How many pieces of `white`'s colour attack `sq` (x-rays not counted)."""
    if white:
        p, n, b, r, q, k = "PNBRQK"
    else:
        p, n, b, r, q, k = "pnbrqk"
    count = 0
    if pawns:
        for s in PAWN_ATTACKERS[white][sq]:
            if arr[s] == p:
                count += 1
    for s in KNIGHT_STEPS[sq]:
        if arr[s] == n:
            count += 1
    for s in KING_STEPS[sq]:
        if arr[s] == k:
            count += 1
    if count >= stop_at:
        return count
    for ray in ROOK_RAYS[sq]:
        for s in ray:
            c = arr[s]
            if c != ".":
                if c == r or c == q:
                    count += 1
                break
    for ray in BISHOP_RAYS[sq]:
        for s in ray:
            c = arr[s]
            if c != ".":
                if c == b or c == q:
                    count += 1
                break
    return count


def attacked(arr: list[str], sq: int, by_white: bool) -> bool:
    return count_attackers(arr, sq, by_white, stop_at=1) > 0


def king_square(arr: list[str], white: bool) -> int:
    return arr.index("K" if white else "k")


def piece_targets(arr: list[str], sq: int, white: bool) -> list[int]:
    """Pseudo-legal destinations of the knight, bishop, rook, queen or king on sq."""
    kind = arr[sq].upper()
    enemy_king = "k" if white else "K"          # never a target: kings are not captured
    if kind == "N" or kind == "K":
        return [s for s in (KNIGHT_STEPS if kind == "N" else KING_STEPS)[sq]
                if not _own(arr[s], white) and arr[s] != enemy_king]
    rays = {"B": BISHOP_RAYS, "R": ROOK_RAYS, "Q": QUEEN_RAYS}[kind][sq]
    targets = []
    for ray in rays:
        for s in ray:
            c = arr[s]
            if c == ".":
                targets.append(s)
            else:
                if c.isupper() != white and c != enemy_king:
                    targets.append(s)
                break
    return targets


def weighted_mobility(arr: list[str], sq: int, white: bool, legal: bool = True) -> int:
    """Moves of the piece on sq, a capture counting as two; `legal` drops moves
    that leave the own king attacked."""
    count = 0
    own_king = arr[sq].upper() == "K"
    ksq = king_square(arr, white) if legal and not own_king else -1
    for to in piece_targets(arr, sq, white):
        if legal:
            after = arr[:]
            after[to] = after[sq]
            after[sq] = "."
            if attacked(after, to if own_king else ksq, not white):
                continue
        count += 2 if arr[to] != "." else 1
    return count


def castling_rooks(arr: list[str], castling: str, white: bool) -> list[int]:
    """The squares of the rooks `white` keeps a castling right with, from a FEN's
    castling field: K and Q the outermost rook on that side of the king (X-FEN, and
    standard chess), a file letter that file's rook (X-FEN and Shredder-FEN)."""
    rank = 0 if white else 56
    rook = "R" if white else "r"
    king = king_square(arr, white)
    if king // 8 != rank // 8:
        return []
    king_file = king % 8
    rooks = []
    for right in castling:
        if not right.isalpha() or right.isupper() != white:
            continue
        right = right.upper()
        if right == "K":
            files = [f for f in range(7, king_file, -1) if arr[rank + f] == rook][:1]
        elif right == "Q":
            files = [f for f in range(king_file) if arr[rank + f] == rook][:1]
        else:
            files = [f for f in [ord(right) - ord("A")] if arr[rank + f] == rook]
        rooks += [rank + f for f in files]
    return rooks


def can_castle_now(arr: list[str], castling: str, white: bool) -> bool:
    """Whether `white` could castle if it were its move: a right, and by Chess960's
    rules (standard chess's among them) the king not in check, every square the
    king and its rook cross or land on empty but for the two of them, and none
    the king crosses or lands on attacked once both have left their squares."""
    rank = 0 if white else 56
    for rook in castling_rooks(arr, castling, white):
        king = king_square(arr, white)
        short = rook > king
        king_to, rook_to = rank + (6 if short else 2), rank + (5 if short else 3)
        crossed = set(range(min(king, king_to), max(king, king_to) + 1)) | \
            set(range(min(rook, rook_to), max(rook, rook_to) + 1))
        if any(arr[s] != "." for s in crossed - {king, rook}):
            continue
        if attacked(arr, king, not white):
            continue
        lifted = arr[:]
        lifted[king] = lifted[rook] = "."
        if any(attacked(lifted, s, not white)
               for s in range(min(king, king_to), max(king, king_to) + 1)):
            continue
        return True
    return False


def material(arr: list[str], white: bool) -> tuple[float, float]:
    mine = theirs = 0.0
    for c in arr:
        if c != ".":
            if c.isupper() == white:
                mine += PIECE_VALUES[c.upper()]
            else:
                theirs += PIECE_VALUES[c.upper()]
    return mine, theirs


def material_ratio(arr: list[str], white: bool) -> float:
    mine, theirs = material(arr, white)
    if theirs == 0:
        return 1.0 if mine == 0 else 1000.0 + mine
    return mine / theirs


def could_give_check(arr: list[str], move: str, enemy_king: int) -> bool:
    """A cheap over-estimate: False only when the move certainly gives no check."""
    frm, to, promo = parse_uci(move)
    piece = arr[frm].upper()
    if piece == "K":
        return is_castling(arr, frm, to)            # castling: the rook may check
    if SAME_LINE[frm][enemy_king] or SAME_DIAGONAL[frm][enemy_king]:
        return True                                 # a discovered check is possible
    kind = promo or piece
    if kind == "P":
        return to in PAWN_ATTACKERS[arr[frm].isupper()][enemy_king] or frm % 8 != to % 8
    if kind == "N":
        return KNIGHT_NEAR[to][enemy_king]
    if kind == "B":
        return SAME_DIAGONAL[to][enemy_king]
    if kind == "R":
        return SAME_LINE[to][enemy_king]
    return SAME_LINE[to][enemy_king] or SAME_DIAGONAL[to][enemy_king]


def mating_moves(board, arr: list[str], moves: list[str]) -> list[str]:
    """The moves among `moves` that give checkmate."""
    enemy_king = king_square(arr, board.turn != "w")
    found = []
    for move in moves:
        if could_give_check(arr, move, enemy_king):
            board.push_uci(move)
            if board.is_check() and not board.legal_moves():
                found.append(move)
            board.pop()
    return found


def position_play(board, arr: list[str], white: bool, castled: bool) -> float:
    """Turing's position-play value of the position after the machine's move (the
    opponent to move), for the machine playing `white`."""
    score = 0.0
    castling = board.fen().split()[2]
    for sq, c in enumerate(arr):
        if not _own(c, white):
            continue
        kind = c.upper()
        if kind in "QRBN":
            score += math.sqrt(weighted_mobility(arr, sq, white))
            if kind != "Q":
                defenders = count_attackers(arr, sq, white, stop_at=2)
                score += (1.0 if defenders >= 1 else 0.0) + (0.5 if defenders >= 2 else 0.0)
        elif kind == "K":
            score += math.sqrt(weighted_mobility(arr, sq, white))
            as_queen = arr[:]
            as_queen[sq] = "Q" if white else "q"
            score -= math.sqrt(weighted_mobility(as_queen, sq, white, legal=False))
        else:
            rank = sq // 8
            score += 0.2 * ((rank - 1) if white else (6 - rank))
            if count_attackers(arr, sq, white, pawns=False, stop_at=1):
                score += 0.3
    if any(right.isalpha() and right.isupper() == white for right in castling):
        score += 1.0
        if can_castle_now(arr, castling, white):
            score += 1.0
    if castled:
        score += 1.0
    if board.is_check():
        score += 0.5
    else:
        fields = board.fen().split()
        fields[1] = "w" if white else "b"
        fields[3] = "-"
        try:
            from genchess_core import Board
            flipped = Board(" ".join(fields))
        except ValueError:
            flipped = None
        if flipped is not None and mating_moves(flipped, arr, flipped.legal_moves()):
            score += 1.0
    return score


class _OutOfTime(Exception):
    pass


@dataclass
class TuringResult:
    move: str | None
    value: float                  # material ratio for the machine (or +-MATE - plies)
    position_play: float
    pv: list[str] = field(default_factory=list)
    nodes: int = 0
    seldepth: int = 0
    time: float = 0.0
    complete: bool = True         # False when the clock cut the search short


class TuringPlayer:
    """Turing's machine as a player: choose_move(board, clock)."""

    def __init__(self, seed: int | None = None, on_info=None, default_seconds: float | None = None):
        self.name = "Turing"
        self.rng = random.Random(seed)
        self.on_info = on_info
        self.default_seconds = default_seconds   # untimed games: None = no limit
        self._stop = threading.Event()
        self.nodes = 0
        self.last_result: TuringResult | None = None

    def new_game(self) -> None:
        pass

    def stop(self) -> None:
        self._stop.set()

    def clear_stop(self) -> None:
        self._stop.clear()

    def progress(self) -> int:
        return self.nodes

    def choose_move(self, board, clock) -> str | None:
        seconds = move_budget(clock, board.turn == "w", self.default_seconds)
        self.clear_stop()
        result = self.search(board, seconds)
        if self.on_info is not None:
            self.on_info(self.info(result, board))
        return result.move

    def think(self, board, seconds: float | None):
        """(move, Info) for the protocol adapter; call clear_stop() first."""
        result = self.search(board, seconds)
        return result.move, self.info(result, board)

    def info(self, result: TuringResult, board):
        """The result as an engine Info (score in centipawns: the material
        difference that gives this ratio at the root's total material)."""
        from genchess.engine import Info, Score
        if abs(result.value) > MATE / 2:
            plies = MATE - abs(result.value)
            moves = int(plies + 1) // 2
            score = Score(mate=moves if result.value > 0 else -moves)
        else:
            mine, theirs = material(placement(board.fen()), board.turn == "w")
            r = result.value
            score = Score(cp=round(100 * (mine + theirs) * (r - 1) / (r + 1)))
        t = max(result.time, 1e-6)
        return Info(depth=2, seldepth=result.seldepth, nodes=result.nodes,
                    time_ms=int(result.time * 1000), nps=int(result.nodes / t), hashfull=0,
                    score=score, pv=list(result.pv))

    # ------------------------------------------------------------ the search

    def search(self, board, seconds: float | None = None) -> TuringResult:
        """Turing's choice for the side to move of `board` (left unchanged)."""
        board = board.copy()
        start = time.monotonic()
        self._deadline = start + seconds if seconds else None
        self.nodes = 0
        self._seldepth = 0
        moves = board.legal_moves()
        if not moves:
            return TuringResult(None, 0.0, 0.0, time=0.0)
        me = board.turn == "w"
        arr = placement(board.fen())
        # Captures first, biggest victim first: good cut-offs, and what a
        # clock-cut search has looked at is what matters most.
        moves.sort(key=lambda m: -victim_value(arr, m))
        values: dict[str, float] = {}
        replies: dict[str, str | None] = {}
        best = -math.inf
        complete = True
        try:
            for move in moves:
                frm, to, _ = parse_uci(move)
                capture_sq = to if takes(arr, frm, to) else None
                board.push_uci(move)
                try:
                    value, reply = self._after_own_move(board, me, best, capture_sq)
                finally:
                    board.pop()
                values[move], replies[move] = value, reply
                best = max(best, value)
        except _OutOfTime:
            complete = False
        if not values:
            # Not even one move examined: take the most valuable capture, else any.
            move = moves[0]
            return TuringResult(move, material_ratio(arr, me), 0.0, [move], self.nodes,
                                self._seldepth, time.monotonic() - start, False)
        tied = [m for m in values if values[m] == best]
        plays = {}
        for move in tied:
            # Position play breaks ties; past the deadline, the ties weighed so far
            # decide (the clock matters more than the last tie-break).
            if plays and self._deadline and time.monotonic() > self._deadline:
                break
            frm, to, _ = parse_uci(move)
            castled = is_castling(arr, frm, to)
            board.push_uci(move)
            plays[move] = position_play(board, placement(board.fen()), me, castled)
            board.pop()
        top = max(plays.values())
        choice = self.rng.choice(sorted(m for m in plays if plays[m] == top))
        pv = [choice] + ([replies[choice]] if replies[choice] else [])
        result = TuringResult(choice, best, top, pv, self.nodes, self._seldepth,
                              time.monotonic() - start, complete)
        self.last_result = result
        return result

    def _tick(self, ply: int) -> None:
        self.nodes += 1
        if ply > self._seldepth:
            self._seldepth = ply
        if self.nodes % CHECK_EVERY == 0:
            if self._stop.is_set() or (self._deadline and time.monotonic() > self._deadline):
                raise _OutOfTime

    def _terminal(self, board, moves, me: bool, ply: int) -> float | None:
        """The value of a finished game at this node, or None."""
        if not moves:
            if board.is_check():
                mated_me = (board.turn == "w") == me
                return -(MATE - ply) if mated_me else MATE - ply
            return 1.0
        return None

    def _after_own_move(self, board, me: bool, alpha: float, capture_sq):
        """Ply 1: every reply is considerable; the minimum over them (with a
        cut-off only when a reply is strictly below alpha, so ties stay exact)."""
        self._tick(1)
        moves = board.legal_moves()
        terminal = self._terminal(board, moves, me, 1)
        if terminal is not None:
            return terminal, None
        if board.outcome(claim_draw=True).termination is not None:
            return 1.0, None
        arr = placement(board.fen())
        moves.sort(key=lambda m: -victim_value(arr, m))
        worst, worst_reply = math.inf, None
        for move in moves:
            frm, to, _ = parse_uci(move)
            is_capture = takes(arr, frm, to) or (arr[frm].upper() == "P" and frm % 8 != to % 8)
            board.push_uci(move)
            try:
                value = self._after_reply(board, me, alpha - EPS, worst,
                                          to if is_capture else None)
            finally:
                board.pop()
            if value < worst:
                worst, worst_reply = value, move
                if worst < alpha:
                    break
        return worst, worst_reply

    def _after_reply(self, board, me: bool, alpha: float, beta: float, capture_sq) -> float:
        """Ply 2 position (the machine to move): dead positions are valued, others
        extended along considerable moves."""
        moves = board.legal_moves()
        terminal = self._terminal(board, moves, me, 2)
        if terminal is not None:
            self._tick(2)
            return terminal
        if board.outcome(claim_draw=True).termination is not None:
            self._tick(2)
            return 1.0
        return self._extend(board, moves, me, 2, alpha, beta, capture_sq)

    def _extend(self, board, moves, me: bool, ply: int, alpha: float, beta: float,
                capture_sq) -> float:
        """Minimax (alpha-beta, fail-soft) over considerable moves with stand pat."""
        self._tick(ply)
        arr = placement(board.fen())
        static = material_ratio(arr, me)
        if ply >= MAX_PLY:
            return static
        considerable = self._considerable(board, arr, moves, capture_sq)
        if not considerable:
            return static
        maximizing = (board.turn == "w") == me
        best = (-math.inf if maximizing else math.inf)
        if len(considerable) < len(moves):
            best = static           # standing pat: the position valued as if dead
            if maximizing:
                if best >= beta:
                    return best
                alpha = max(alpha, best)
            else:
                if best <= alpha:
                    return best
                beta = min(beta, best)
        for move in considerable:
            frm, to, _ = parse_uci(move)
            is_capture = takes(arr, frm, to) or (arr[frm].upper() == "P" and frm % 8 != to % 8)
            board.push_uci(move)
            try:
                replies = board.legal_moves()
                terminal = self._terminal(board, replies, me, ply + 1)
                if terminal is not None:
                    value = terminal
                else:
                    value = self._extend(board, replies, me, ply + 1, alpha, beta,
                                         to if is_capture else None)
            finally:
                board.pop()
            if maximizing:
                if value > best:
                    best = value
                if best > alpha:
                    alpha = best
            else:
                if value < best:
                    best = value
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    @staticmethod
    def _considerable(board, arr: list[str], moves: list[str], capture_sq) -> list[str]:
        """Turing's considerable moves beyond ply 2: recaptures, captures of
        undefended pieces, captures of a more valuable piece by a less valuable
        one, and moves that mate. Best victims first, mates first of all."""
        white = board.turn == "w"
        chosen = []
        defended: dict[int, bool] = {}
        for move in moves:
            frm, to, promo = parse_uci(move)
            mover = arr[frm].upper()
            victim = arr[to]
            victim_sq = to
            if victim == "." and mover == "P" and frm % 8 != to % 8:
                victim_sq = to - 8 if white else to + 8         # en passant
                victim = arr[victim_sq]
            if victim == "." or _own(victim, white):            # own: Chess960 castling
                continue
            value = PIECE_VALUES[victim.upper()]
            ok = to == capture_sq
            if not ok and mover != "K" and value > PIECE_VALUES[mover]:
                ok = True
            if not ok:
                if victim_sq not in defended:
                    defended[victim_sq] = count_attackers(arr, victim_sq, not white, stop_at=1) > 0
                ok = not defended[victim_sq]
            if ok:
                chosen.append((value, move))
        chosen.sort(key=lambda vm: -vm[0])
        captures = [m for _, m in chosen]
        mates = [m for m in mating_moves(board, arr, moves) if m not in captures]
        return mates + captures
