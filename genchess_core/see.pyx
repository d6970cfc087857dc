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
        # X-rays: a slider behind the piece that just left now sees the square.
        if kind == PAWN or kind == BISHOP or kind == QUEEN:
            attackers |= bishop_attacks(T, to, occ) & diagonal
        if kind == ROOK or kind == QUEEN:
            attackers |= rook_attacks(T, to, occ) & straight
        attackers &= occ
        side ^= 1

    # Step 3. Back up: each recapturer only captures if that beats stopping.
    while d > 0:
        if gain[d] > -gain[d - 1]:
            gain[d - 1] = -gain[d]
        d -= 1
    return gain[0]


cdef bint see_at_least(const Position* p, Move m, int threshold) noexcept nogil:
    return see(p, m) >= threshold


def see_move(Board board, str uci):
    """SEE of a legal move given in UCI notation (for tests and tools)."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(&board.pos, moves, GEN_ALL), i
    for i in range(n):
        if move_to_uci(&board.pos, moves[i]) == uci:
            return see(&board.pos, moves[i])
    raise ValueError(f"illegal move {uci!r} in {board.fen()}")
