# Strictly legal move generation.
#
# Instead of generating pseudo-legal moves and testing each one after making it,
# the generator computes the checkers and the pinned pieces once per position and
# masks every piece's targets with them: a pinned piece may only move along its pin
# line, any move must capture the checker or block its line, and the king only
# steps to squares that are not attacked with the king itself lifted off the board.
# Only en passant, rare and awkward (the horizontal double pin), is checked by
# simulating the capture. This makes the leaf count of perft a plain list length,
# and in check the generator yields exactly the evasions.

from genchess_core.types cimport *
from genchess_core.bitboard cimport (AttackTables, attack_tables, bit, lsb, pop_lsb, popcount,
                                     rook_attacks, bishop_attacks, queen_attacks,
                                     RANK_1, RANK_8, FILE_A, FILE_H, DARK_SQUARES)
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, attackers_to,
                                     king_square, in_check, repetition_count, side_attacks,
                                     castle_king_to, castle_rook_to)

cdef const AttackTables* T = attack_tables()


cdef inline int add_targets(Move* moves, int n, int frm, U64 targets, U64 enemy) noexcept nogil:
    cdef int to
    while targets:
        to = pop_lsb(&targets)
        moves[n] = make_move_code(frm, to, FLAG_CAPTURE if enemy & bit(to) else FLAG_QUIET)
        n += 1
    return n


cdef inline int add_pawn_moves(Move* moves, int n, U64 targets, int delta, int flags,
                               bint with_promotions) noexcept nogil:
    """Moves for every pawn whose destination is in `targets`, coming from to - delta."""
    cdef int to, frm
    cdef U64 promo = targets & (RANK_1 | RANK_8)
    targets &= ~promo
    while targets:
        to = pop_lsb(&targets)
        moves[n] = make_move_code(to - delta, to, flags)
        n += 1
    if with_promotions:
        while promo:
            to = pop_lsb(&promo)
            frm = to - delta
            moves[n] = make_move_code(frm, to, flags | FLAG_PROMO | (QUEEN - KNIGHT))
            moves[n + 1] = make_move_code(frm, to, flags | FLAG_PROMO | (ROOK - KNIGHT))
            moves[n + 2] = make_move_code(frm, to, flags | FLAG_PROMO | (BISHOP - KNIGHT))
            moves[n + 3] = make_move_code(frm, to, flags | FLAG_PROMO | (KNIGHT - KNIGHT))
            n += 4
    return n


cdef inline U64 shift_up(U64 b, int color) noexcept nogil:
    return b << 8 if color == WHITE else b >> 8


cdef inline U64 pinned_pieces(const Position* p, int us, int ksq) noexcept nogil:
    """Pieces of `us` pinned to their king: an enemy slider on a line to the king
    with exactly one of our pieces between."""
    cdef int them = us ^ 1
    cdef U64 enemy = p.occ[them], pinned = 0, b, snipers
    snipers = (rook_attacks(T, ksq, enemy) & (p.bb[them * 6 + ROOK] | p.bb[them * 6 + QUEEN])) \
        | (bishop_attacks(T, ksq, enemy) & (p.bb[them * 6 + BISHOP] | p.bb[them * 6 + QUEEN]))
    while snipers:
        b = T.between[ksq][pop_lsb(&snipers)] & p.all
        if b and not (b & (b - 1)) and (b & p.occ[us]):
            pinned |= b
    return pinned


cdef int generate_legal(const Position* p, Move* moves, int kind) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1
    cdef int ksq = king_square(p, us), frm, to, up = 8 if us == WHITE else -8
    cdef int n = 0, right
    cdef U64 own = p.occ[us], enemy = p.occ[them], occ = p.all, empty = ~p.all
    cdef U64 checkers, pinned, b, targets, check_mask, free_pawns, pinned_pawns
    cdef U64 pushes, doubles, caps, third_rank, king_occ, pawn_bb
    cdef U64 kind_mask
    cdef bint want_quiets = kind != GEN_CAPTURES, want_captures = kind != GEN_QUIETS

    # What a non-king move may land on for this kind of generation.
    if kind == GEN_CAPTURES:
        kind_mask = enemy
    elif kind == GEN_QUIETS:
        kind_mask = empty
    else:
        kind_mask = ~own

    # King moves: never onto an attacked square (king lifted so sliders see through it).
    king_occ = occ ^ bit(ksq)
    b = T.king[ksq] & kind_mask
    while b:
        to = pop_lsb(&b)
        if not (attackers_to(p, to, king_occ) & enemy):
            moves[n] = make_move_code(ksq, to, FLAG_CAPTURE if enemy & bit(to) else FLAG_QUIET)
            n += 1

    checkers = attackers_to(p, ksq, occ) & enemy
    if checkers and (checkers & (checkers - 1)):
        return n                          # double check: only the king moves
    if checkers:
        check_mask = checkers | T.between[ksq][lsb(checkers)]
    else:
        check_mask = ~(<U64>0)
    pinned = pinned_pieces(p, us, ksq)

    targets = kind_mask & check_mask

    # Knights: a pinned knight can never move.
    b = p.bb[us * 6 + KNIGHT] & ~pinned
    while b:
        frm = pop_lsb(&b)
        n = add_targets(moves, n, frm, T.knight[frm] & targets, enemy)
    b = (p.bb[us * 6 + BISHOP] | p.bb[us * 6 + QUEEN])
    while b:
        frm = pop_lsb(&b)
        if pinned & bit(frm):
            n = add_targets(moves, n, frm, bishop_attacks(T, frm, occ) & targets & T.line[ksq][frm], enemy)
        else:
            n = add_targets(moves, n, frm, bishop_attacks(T, frm, occ) & targets, enemy)
    b = (p.bb[us * 6 + ROOK] | p.bb[us * 6 + QUEEN])
    while b:
        frm = pop_lsb(&b)
        if pinned & bit(frm):
            n = add_targets(moves, n, frm, rook_attacks(T, frm, occ) & targets & T.line[ksq][frm], enemy)
        else:
            n = add_targets(moves, n, frm, rook_attacks(T, frm, occ) & targets, enemy)

    # Pawns: all unpinned pawns at once by shifting; pinned ones square by square
    # (a pinned pawn can still move along its pin line).
    pawn_bb = p.bb[us * 6 + PAWN]
    free_pawns = pawn_bb & ~pinned
    pinned_pawns = pawn_bb & pinned
    third_rank = <U64>0xFF0000 if us == WHITE else <U64>0xFF0000000000
    pushes = shift_up(free_pawns, us) & empty
    doubles = shift_up(pushes & third_rank, us) & empty & check_mask
    pushes &= check_mask
    if want_quiets:
        n = add_pawn_moves(moves, n, pushes & ~(RANK_1 | RANK_8), up, FLAG_QUIET, False)
        n = add_pawn_moves(moves, n, doubles, 2 * up, FLAG_DOUBLE_PUSH, False)
    if want_captures:
        n = add_pawn_moves(moves, n, pushes & (RANK_1 | RANK_8), up, FLAG_QUIET, True)
        caps = shift_up(free_pawns & ~FILE_A, us) >> 1 & enemy & check_mask
        n = add_pawn_moves(moves, n, caps, up - 1, FLAG_CAPTURE, True)
        caps = shift_up(free_pawns & ~FILE_H, us) << 1 & enemy & check_mask
        n = add_pawn_moves(moves, n, caps, up + 1, FLAG_CAPTURE, True)
    while pinned_pawns:
        frm = pop_lsb(&pinned_pawns)
        b = shift_up(bit(frm), us) & empty
        pushes = (b | (shift_up(b & third_rank, us) & empty)) & check_mask & T.line[ksq][frm]
        caps = T.pawn[us][frm] & enemy & check_mask & T.line[ksq][frm]
        while pushes:
            to = pop_lsb(&pushes)
            if bit(to) & (RANK_1 | RANK_8):
                if want_captures:
                    n = add_pawn_moves(moves, n, bit(to), to - frm, FLAG_QUIET, True)
            elif want_quiets:
                n = add_pawn_moves(moves, n, bit(to), to - frm,
                                   FLAG_DOUBLE_PUSH if to - frm in (16, -16) else FLAG_QUIET, False)
        if want_captures:
            while caps:
                to = pop_lsb(&caps)
                n = add_pawn_moves(moves, n, bit(to), to - frm, FLAG_CAPTURE, True)

    # En passant: the position only carries an ep square when some capture is legal,
    # but which pawn may take still needs the simulated capture.
    if want_captures and p.ep != NO_SQ:
        b = T.pawn[them][p.ep] & pawn_bb
        while b:
            frm = pop_lsb(&b)
            to = p.ep - up           # the captured pawn
            king_occ = (occ ^ bit(frm) ^ bit(to)) | bit(p.ep)
            if not (attackers_to(p, ksq, king_occ) & enemy & ~bit(to)):
                moves[n] = make_move_code(frm, p.ep, FLAG_EP_CAPTURE)
                n += 1

    # Castling: not out of, through or into check, the paths empty (the position's masks).
    if want_quiets and not checkers and p.castling & (3 << (2 * us)):
        for right in range(2 * us, 2 * us + 2):
            if p.castling & (1 << right) and not (occ & p.castle_empty[right]) \
                    and castling_is_safe(p, right, them):
                moves[n] = make_move_code(ksq, castle_king_to(right), FLAG_KING_CASTLE + (right & 1))
                n += 1
    return n


cdef inline bint castling_is_safe(const Position* p, int right, int them) noexcept nogil:
    """No square the king crosses is attacked, nor its destination once the rook has
    moved. Only a Chess960 queen-side rook on the b-file can be what shields the
    destination (castle_recheck); every other right's destination is checked with
    the rest of its path, as standard chess needs."""
    cdef U64 path = p.castle_safe[right]
    cdef int to = castle_king_to(right)
    if p.castle_recheck & (1 << right):
        path &= ~bit(to)
        if attackers_to(p, to, (p.all ^ bit(p.castle_rook[right])) | bit(castle_rook_to(right))) \
                & p.occ[them]:
            return False
    while path:
        if attackers_to(p, pop_lsb(&path), p.all) & p.occ[them]:
            return False
    return True


cdef int generate_evasions(const Position* p, Move* moves) noexcept nogil:
    """In check the legal generator yields exactly the evasions; this name says so at call sites."""
    return generate_legal(p, moves, GEN_ALL)


cdef int legal_moves_as(Position* p, int c, Move* moves) noexcept nogil:
    """Legal moves of colour c as if it were c's turn, for mobility terms of the
    evaluation (the position is restored). For the side not to move, en passant
    is dropped and a "capture" of the checking king is not counted as a move."""
    cdef int side = p.side, ep = p.ep, n, i, kept = 0
    cdef U64 their_king = p.bb[(c ^ 1) * 6 + KING]
    if c != side:
        p.side = c
        p.ep = NO_SQ
    n = generate_legal(p, moves, GEN_ALL)
    p.side = side
    p.ep = ep
    for i in range(n):
        if not (bit(move_to(moves[i])) & their_king):
            moves[kept] = moves[i]
            kept += 1
    return kept


cdef int count_legal_as(Position* p, int c) noexcept nogil:
    """len(legal_moves_as(p, c)) without listing the moves: the mobility count of
    evaluations that need only the number (the material kind's legal-move term)."""
    cdef U64 unused
    return legal_count_and_targets(p, c, &unused)


cdef U64 attack_targets_of(const Position* p, const Move* moves, int n) noexcept nogil:
    """The squares `moves` land on, castling and pawn moves that do not capture left out:
    the legal squares a side attacks (the Genetic Chess sphere of influence)."""
    cdef int i, flags
    cdef U64 targets = 0
    for i in range(n):
        flags = move_flags(moves[i])
        if flags == FLAG_KING_CASTLE or flags == FLAG_QUEEN_CASTLE:
            continue
        if p.board[move_from(moves[i])] % 6 == PAWN and not (flags & FLAG_CAPTURE):
            continue
        targets |= bit(move_to(moves[i]))
    return targets


cdef int legal_count_and_targets(Position* p, int c, U64* attack_targets) noexcept nogil:
    """len(legal_moves_as(p, c)) and, in *attack_targets, attack_targets_of those moves,
    without listing them: popcounts and unions of each piece's target squares, about
    twice as fast as the list."""
    return legal_count_given_danger(p, c, side_attacks(p, c ^ 1, p.all ^ p.bb[c * 6 + KING], True),
                                    attack_targets)


cdef int legal_count_given_danger(Position* p, int c, U64 danger, U64* attack_targets) noexcept nogil:
    """legal_count_and_targets with the other side's attack map, its king's attacks
    included and c's king lifted off the board (`danger`), given: the evaluation has
    it already. The king's safe squares come from that map instead of a test per
    square; so do check and castling. In check it falls back to the generator (few
    positions, few moves)."""
    cdef Move moves[MAX_MOVES]
    cdef int them = c ^ 1, ksq = king_square(p, c), frm, to, n, up = 8 if c == WHITE else -8, right
    cdef U64 own = p.occ[c], occ = p.all, empty = ~p.all, their_king = p.bb[them * 6 + KING]
    cdef U64 enemy = p.occ[them] & ~their_king      # legal_moves_as never counts a king capture
    cdef U64 targets = ~own & ~their_king, pinned, b, pushes, caps, last = RANK_1 | RANK_8
    cdef U64 third_rank = <U64>0xFF0000 if c == WHITE else <U64>0xFF0000000000
    cdef U64 pawns = p.bb[c * 6 + PAWN], reach, hit
    if danger & bit(ksq):
        n = legal_moves_as(p, c, moves)
        attack_targets[0] = attack_targets_of(p, moves, n)
        return n
    reach = T.king[ksq] & targets & ~danger
    hit = reach
    n = popcount(reach)
    pinned = pinned_pieces(p, c, ksq)
    b = p.bb[c * 6 + KNIGHT] & ~pinned
    while b:
        reach = T.knight[pop_lsb(&b)] & targets
        hit |= reach
        n += popcount(reach)
    b = p.bb[c * 6 + BISHOP] | p.bb[c * 6 + QUEEN]
    while b:
        frm = pop_lsb(&b)
        reach = bishop_attacks(T, frm, occ) & targets & (T.line[ksq][frm] if pinned & bit(frm) else targets)
        hit |= reach
        n += popcount(reach)
    b = p.bb[c * 6 + ROOK] | p.bb[c * 6 + QUEEN]
    while b:
        frm = pop_lsb(&b)
        reach = rook_attacks(T, frm, occ) & targets & (T.line[ksq][frm] if pinned & bit(frm) else targets)
        hit |= reach
        n += popcount(reach)
    # Pawns: a promotion is four moves; only captures are attack targets.
    b = pawns & ~pinned
    pushes = shift_up(b, c) & empty
    n += popcount(pushes & ~last) + 4 * popcount(pushes & last)
    n += popcount(shift_up(pushes & third_rank, c) & empty)
    caps = (shift_up(b & ~FILE_A, c) >> 1) & enemy
    hit |= caps
    n += popcount(caps & ~last) + 4 * popcount(caps & last)
    caps = (shift_up(b & ~FILE_H, c) << 1) & enemy
    hit |= caps
    n += popcount(caps & ~last) + 4 * popcount(caps & last)
    b = pawns & pinned
    while b:
        frm = pop_lsb(&b)
        pushes = shift_up(bit(frm), c) & empty
        pushes = (pushes | (shift_up(pushes & third_rank, c) & empty)) & T.line[ksq][frm]
        caps = T.pawn[c][frm] & enemy & T.line[ksq][frm]
        hit |= caps
        n += popcount((pushes | caps) & ~last) + 4 * popcount((pushes | caps) & last)
    # En passant only for the side to move (legal_moves_as drops it for the other).
    if c == p.side and p.ep != NO_SQ:
        b = T.pawn[them][p.ep] & pawns
        while b:
            frm = pop_lsb(&b)
            to = p.ep - up
            if not (attackers_to(p, ksq, (occ ^ bit(frm) ^ bit(to)) | bit(p.ep)) & p.occ[them] & ~bit(to)):
                n += 1
                hit |= bit(p.ep)
    # Castling, out of check: the squares the king crosses are safe by the same map,
    # except where the rook's own move decides (castle_recheck: Chess960 only).
    if p.castling & (3 << (2 * c)):
        for right in range(2 * c, 2 * c + 2):
            if p.castling & (1 << right) and not (occ & p.castle_empty[right]) \
                    and not (danger & p.castle_safe[right]):
                n += not (p.castle_recheck & (1 << right)) or castling_is_safe(p, right, them)
    attack_targets[0] = hit
    return n


cdef bint has_legal_move(const Position* p) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return generate_legal(p, moves, GEN_ALL) > 0


cdef bint insufficient_material(const Position* p) noexcept nogil:
    """Neither side can mate by any series of legal moves (python-chess's definition):
    K v K, K+N v K, and kings with bishops all on squares of one colour."""
    cdef U64 bishops = p.bb[BISHOP] | p.bb[6 + BISHOP]
    if p.bb[PAWN] | p.bb[6 + PAWN] | p.bb[ROOK] | p.bb[6 + ROOK] | p.bb[QUEEN] | p.bb[6 + QUEEN]:
        return False
    if p.bb[KNIGHT] | p.bb[6 + KNIGHT]:
        return popcount(p.all) <= 3 and not bishops
    return not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES)


cdef int game_status(const Position* p, bint claim_draw) noexcept nogil:
    """The game's state in python-chess's order of precedence; the fifty-move and
    threefold draws only when `claim_draw` (they must be claimed)."""
    cdef bint any_move = has_legal_move(p)
    cdef int reps
    if not any_move and in_check(p):
        return STATUS_CHECKMATE
    if insufficient_material(p):
        return STATUS_INSUFFICIENT
    if not any_move:
        return STATUS_STALEMATE
    if p.halfmove >= 150:
        return STATUS_SEVENTYFIVE
    reps = repetition_count(p)
    if reps >= 5:
        return STATUS_FIVEFOLD
    if claim_draw:
        if p.halfmove >= 100:
            return STATUS_FIFTY
        if reps >= 3:
            return STATUS_THREEFOLD
    return STATUS_ONGOING


cdef U64 perft(Position* p, int depth, bint bulk) noexcept nogil:
    """Leaf nodes at `depth`. With `bulk` the last ply is counted from the move list
    (as Stockfish does); without it every leaf move is made and unmade."""
    cdef Move moves[MAX_MOVES]
    cdef Undo u
    cdef int n, i
    cdef U64 nodes = 0
    if depth <= 0:
        return 1
    n = generate_legal(p, moves, GEN_ALL)
    if bulk and depth == 1:
        return n
    for i in range(n):
        make_move(p, moves[i], &u)
        nodes += perft(p, depth - 1, bulk)
        unmake_move(p, moves[i], &u)
    return nodes
