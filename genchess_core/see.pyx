# Static exchange evaluation (SEE).
#
# What a move wins if both sides then keep capturing on its square with their
# least valuable attacker, each free to stop when going on would lose: the
# classic swap list. Sliders behind a piece that has just captured join in
# (x-rays), a pawn capturing onto the last rank counts as a queen, en passant
# removes the pawn beside. Pins and checks are ignored, as in the strong
# engines' SEE: it is a cheap estimate for ordering and pruning, never a proof.
# Values are fixed centipawns, not the genome's: SEE only decides which captures
# deserve a search, and that must not change what a genome means.

from genchess_core.types cimport *
from genchess_core.bitboard cimport (AttackTables, attack_tables, bit, lsb, rook_attacks,
                                     bishop_attacks, RANK_1, RANK_8)
from genchess_core.position cimport Position, attackers_to, move_to_uci
from genchess_core.movegen cimport generate_legal, GEN_ALL
from genchess_core.board cimport Board

cdef const AttackTables* T = attack_tables()

cdef enum:
    MAX_EXCHANGE = 40       # 32 pieces can never make more captures on one square

# Centipawns per piece kind: pawn, knight, bishop, rook, queen, king.
cdef int SEE_VALUE[6]
SEE_VALUE[:] = [100, 320, 330, 500, 900, 20000]


cdef inline int least_valuable(const Position* p, U64 attackers, int side, int* kind) noexcept nogil:
    """Square of side's cheapest piece among attackers (its kind in *kind), or -1."""
    cdef int k
    cdef U64 b
    for k in range(6):
        b = attackers & p.bb[side * 6 + k]
        if b:
            kind[0] = k
            return lsb(b)
    return -1


cdef inline U64 uncovered(U64 attackers, int kind, int to, U64 occ, U64 diagonal,
                          U64 straight) noexcept nogil:
    """The attackers of `to` still on the board (occ) once a piece of `kind` has left
    for it: a slider behind the piece that just left now sees the square (x-rays)."""
    if kind == PAWN or kind == BISHOP or kind == QUEEN:
        attackers |= bishop_attacks(T, to, occ) & diagonal
    if kind == ROOK or kind == QUEEN:
        attackers |= rook_attacks(T, to, occ) & straight
    return attackers & occ


cdef int see(const Position* p, Move m) noexcept nogil:
    """The exchange's balance in centipawns for the side making move m."""
    cdef int gain[MAX_EXCHANGE]
    cdef int frm = move_from(m), to = move_to(m), side = p.side, kind, sq, d = 0, on_square
    cdef U64 occ = p.all, attackers
    cdef U64 diagonal = p.bb[BISHOP] | p.bb[6 + BISHOP] | p.bb[QUEEN] | p.bb[6 + QUEEN]
    cdef U64 straight = p.bb[ROOK] | p.bb[6 + ROOK] | p.bb[QUEEN] | p.bb[6 + QUEEN]
    cdef bint to_last_rank = (bit(to) & (RANK_1 | RANK_8)) != 0

    # Step 1. The move itself: what it takes, and what then stands on the square.
    if move_flags(m) == FLAG_EP_CAPTURE:
        gain[0] = SEE_VALUE[PAWN]
        occ ^= bit(to - 8 if side == WHITE else to + 8)
    else:
        # By the flag, not the square: a Chess960 castling king may land on its own rook.
        gain[0] = SEE_VALUE[p.board[to] % 6] if move_flags(m) & FLAG_CAPTURE else 0
    on_square = SEE_VALUE[p.board[frm] % 6]
    if move_is_promotion(m):
        gain[0] += SEE_VALUE[move_promo_kind(m)] - SEE_VALUE[PAWN]
        on_square = SEE_VALUE[move_promo_kind(m)]
    occ ^= bit(frm)
    attackers = attackers_to(p, to, occ) & occ
    side ^= 1

    # Step 2. Alternate captures with the cheapest attacker. gain[d] is what the
    # d-th recapturer has if the exchange stops right after its capture.
    while d + 1 < MAX_EXCHANGE:
        sq = least_valuable(p, attackers, side, &kind)
        if sq < 0:
            break
        d += 1
        gain[d] = on_square - gain[d - 1]
        on_square = SEE_VALUE[kind]
        if kind == PAWN and to_last_rank:
            gain[d] += SEE_VALUE[QUEEN] - SEE_VALUE[PAWN]
            on_square = SEE_VALUE[QUEEN]
        occ ^= bit(sq)
        attackers = uncovered(attackers, kind, to, occ, diagonal, straight)
        side ^= 1

    # Step 3. Back up: each recapturer only captures if that beats stopping.
    while d > 0:
        if gain[d] > -gain[d - 1]:
            gain[d - 1] = -gain[d]
        d -= 1
    return gain[0]


cdef bint see_ge(const Position* p, Move m, int threshold) noexcept nogil:
    """Whether see(p, m) >= threshold, answered without the whole exchange where its
    first captures already decide it (Stockfish's see_ge asks the same question).

    The exchange as see() plays it, each recapture by the cheapest attacker, each
    side free to stop: `balance` is the mover's result less the threshold if the
    exchange stopped now. A side takes only if the balance then lies on its side of
    zero (the mover's side is >= 0), since stopping before was already on the other
    side: if it does not, the side that took last keeps its verdict. And once a side's
    capture stays on its side of zero even after the other side takes the capturing
    piece back (promoting, if a pawn can), the other side cannot do better than stop:
    the verdict is that side's without looking further. The same swap values as
    see(), so the answer is see()'s to the centipawn (tests/test_see.py checks it on
    many positions)."""
    cdef int frm = move_from(m), to = move_to(m), side = p.side, kind, sq, balance, on_square
    cdef int promo_bonus
    cdef U64 occ = p.all, attackers, diagonal, straight
    cdef bint to_last_rank = (bit(to) & (RANK_1 | RANK_8)) != 0
    cdef bint mover = False         # whether `side`, about to take, is the side that made m
    # What a pawn taking on the last rank adds: the shortcut below must assume the
    # worst recapture, and on the last rank that may be one that promotes.
    promo_bonus = SEE_VALUE[QUEEN] - SEE_VALUE[PAWN] if to_last_rank else 0

    # Step 1. The move itself, as in see().
    if move_flags(m) == FLAG_EP_CAPTURE:
        balance = SEE_VALUE[PAWN]
        occ ^= bit(to - 8 if side == WHITE else to + 8)
    else:
        balance = SEE_VALUE[p.board[to] % 6] if move_flags(m) & FLAG_CAPTURE else 0
    on_square = SEE_VALUE[p.board[frm] % 6]
    if move_is_promotion(m):
        balance += SEE_VALUE[move_promo_kind(m)] - SEE_VALUE[PAWN]
        on_square = SEE_VALUE[move_promo_kind(m)]
    balance -= threshold
    # The opponent may simply not take back: below the threshold already, no.
    if balance < 0:
        return False
    # Still at it after losing the piece that moved: yes, with no attacker looked at.
    if balance - on_square - promo_bonus >= 0:
        return True

    # Step 2. The recaptures, cheapest attacker first, until one side's verdict holds.
    diagonal = p.bb[BISHOP] | p.bb[6 + BISHOP] | p.bb[QUEEN] | p.bb[6 + QUEEN]
    straight = p.bb[ROOK] | p.bb[6 + ROOK] | p.bb[QUEEN] | p.bb[6 + QUEEN]
    occ ^= bit(frm)
    attackers = attackers_to(p, to, occ) & occ
    side ^= 1
    while True:
        sq = least_valuable(p, attackers, side, &kind)
        if sq < 0:
            return not mover        # no recapture: the last capture's side has its verdict
        if kind == PAWN and to_last_rank:
            on_square += SEE_VALUE[QUEEN] - SEE_VALUE[PAWN]
        balance = balance + on_square if mover else balance - on_square
        on_square = SEE_VALUE[QUEEN] if kind == PAWN and to_last_rank else SEE_VALUE[kind]
        if (balance >= 0) != mover:
            return not mover        # taking does not turn the verdict: the side stops
        if ((balance - on_square - promo_bonus >= 0) if mover
                else (balance + on_square + promo_bonus < 0)):
            return mover            # the verdict holds even if the piece is taken back
        occ ^= bit(sq)
        attackers = uncovered(attackers, kind, to, occ, diagonal, straight)
        side ^= 1
        mover = not mover


def see_move(Board board, str uci):
    """SEE of a legal move given in UCI notation (for tests and tools)."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(&board.pos, moves, GEN_ALL), i
    for i in range(n):
        if move_to_uci(&board.pos, moves[i]) == uci:
            return see(&board.pos, moves[i])
    raise ValueError(f"illegal move {uci!r} in {board.fen()}")


def see_ge_moves(Board board, int threshold):
    """{uci: see_ge(move, threshold)} for every legal move (tests and tools), to set
    beside see_moves()."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(&board.pos, moves, GEN_ALL), i
    return {move_to_uci(&board.pos, moves[i]): see_ge(&board.pos, moves[i], threshold) for i in range(n)}


def see_moves(Board board):
    """{uci: SEE} for every legal move (tests and tools)."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(&board.pos, moves, GEN_ALL), i
    return {move_to_uci(&board.pos, moves[i]): see(&board.pos, moves[i]) for i in range(n)}
