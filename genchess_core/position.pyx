# Position state, make/unmake, Zobrist hashing and FEN.
#
# make/unmake update the twelve piece bitboards, the mailbox and the Zobrist key
# incrementally and save only what cannot be recomputed (castling, en passant,
# clocks, key, captured piece) in a small Undo record, so search never copies a
# position. The en-passant square is stored, hashed and printed only when an
# en-passant capture is actually legal: that makes the key and the FEN functions
# of the position alone (as FIDE's repetition rule and python-chess see it), so
# transpositions that differ only in a useless ep square share a key.
#
# Castling follows the Chess960 rules, standard chess being the case of a king on
# e1 with rooks on a1 and h1. Where each right's rook stands, which squares must
# be empty or safe and which squares lose a right when touched are worked out once
# per position by set_fen (set_castling) and kept in the Position, so make_move,
# the generator and perft read masks instead of branching on the variant, and
# standard chess runs the same number of tests as with fixed tables.

from genchess_core.types cimport *
from genchess_core.bitboard cimport (AttackTables, attack_tables, bit, lsb, pop_lsb,
                                     popcount, rook_attacks, bishop_attacks, FILE_A, FILE_H)

cdef const AttackTables* T = attack_tables()

cdef U64 Z_PIECE[12][64]
cdef U64 Z_CASTLING[16]
cdef U64 Z_EP[8]
cdef U64 Z_SIDE

PIECE_LETTERS = "PNBRQKpnbrqk"
FILES = "abcdefgh"


cdef void init_zobrist() noexcept nogil:
    global Z_SIDE
    cdef U64 s = 0x2545F4914F6CDD1DULL
    cdef int i, j
    for i in range(12):
        for j in range(64):
            s ^= s >> 12; s ^= s << 25; s ^= s >> 27
            Z_PIECE[i][j] = s * 2685821657736338717ULL
    for i in range(16):
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27
        Z_CASTLING[i] = s * 2685821657736338717ULL
    Z_CASTLING[0] = 0
    for i in range(8):
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27
        Z_EP[i] = s * 2685821657736338717ULL
    s ^= s >> 12; s ^= s << 25; s ^= s >> 27
    Z_SIDE = s * 2685821657736338717ULL


init_zobrist()


cdef inline void put_piece(Position* p, int pc, int sq) noexcept nogil:
    p.bb[pc] |= bit(sq)
    p.occ[pc // 6] |= bit(sq)
    p.board[sq] = pc
    p.key ^= Z_PIECE[pc][sq]


cdef inline void remove_piece(Position* p, int pc, int sq) noexcept nogil:
    p.bb[pc] &= ~bit(sq)
    p.occ[pc // 6] &= ~bit(sq)
    p.board[sq] = NO_PIECE
    p.key ^= Z_PIECE[pc][sq]


cdef inline void shift_piece(Position* p, int pc, int frm, int to) noexcept nogil:
    cdef U64 ft = bit(frm) | bit(to)
    p.bb[pc] ^= ft
    p.occ[pc // 6] ^= ft
    p.board[frm] = NO_PIECE
    p.board[to] = pc
    p.key ^= Z_PIECE[pc][frm] ^ Z_PIECE[pc][to]


cdef U64 attackers_to(const Position* p, int sq, U64 occ) noexcept nogil:
    """Pieces of both colours attacking sq, with sliders seeing through `occ`."""
    return ((T.pawn[WHITE][sq] & p.bb[6 + PAWN])
            | (T.pawn[BLACK][sq] & p.bb[PAWN])
            | (T.knight[sq] & (p.bb[KNIGHT] | p.bb[6 + KNIGHT]))
            | (T.king[sq] & (p.bb[KING] | p.bb[6 + KING]))
            | (rook_attacks(T, sq, occ) & (p.bb[ROOK] | p.bb[6 + ROOK] | p.bb[QUEEN] | p.bb[6 + QUEEN]))
            | (bishop_attacks(T, sq, occ) & (p.bb[BISHOP] | p.bb[6 + BISHOP] | p.bb[QUEEN] | p.bb[6 + QUEEN])))


cdef U64 side_attacks(const Position* p, int c, U64 occ, bint with_king) noexcept nogil:
    """Every square a piece of colour c attacks, sliders seeing through `occ`."""
    cdef U64 att, b
    cdef U64 pawns = p.bb[c * 6 + PAWN]
    if c == WHITE:
        att = ((pawns << 7) & ~FILE_H) | ((pawns << 9) & ~FILE_A)
    else:
        att = ((pawns >> 9) & ~FILE_H) | ((pawns >> 7) & ~FILE_A)
    b = p.bb[c * 6 + KNIGHT]
    while b:
        att |= T.knight[pop_lsb(&b)]
    b = p.bb[c * 6 + BISHOP] | p.bb[c * 6 + QUEEN]
    while b:
        att |= bishop_attacks(T, pop_lsb(&b), occ)
    b = p.bb[c * 6 + ROOK] | p.bb[c * 6 + QUEEN]
    while b:
        att |= rook_attacks(T, pop_lsb(&b), occ)
    if with_king:
        att |= T.king[lsb(p.bb[c * 6 + KING])]
    return att


cdef int king_square(const Position* p, int color) noexcept nogil:
    return lsb(p.bb[color * 6 + KING])


cdef bint in_check(const Position* p) noexcept nogil:
    return (attackers_to(p, king_square(p, p.side), p.all) & p.occ[p.side ^ 1]) != 0


cdef bint ep_capture_is_legal(const Position* p, int ep) noexcept nogil:
    """True when the side to move has a legal capture en passant onto `ep`."""
    cdef int us = p.side, them = p.side ^ 1
    cdef int victim = ep - 8 if us == WHITE else ep + 8
    cdef U64 capturers = T.pawn[them][ep] & p.bb[us * 6 + PAWN]
    cdef int ksq = king_square(p, us), frm
    cdef U64 occ
    while capturers:
        frm = pop_lsb(&capturers)
        # Remove both pawns and place ours on ep: this also catches the pin along
        # the rank where both pawns leave the king's line at once.
        occ = (p.all ^ bit(frm) ^ bit(victim)) | bit(ep)
        if not (attackers_to(p, ksq, occ) & p.occ[them] & ~bit(victim)):
            return True
    return False


cdef void castle_pieces(Position* p, int us, int frm, int to, int right) noexcept nogil:
    """Castling's king and rook moves. Both are lifted before either is placed: in
    Chess960 the king may land on its rook's square or stay where it is, and the rook
    on the king's square. Apart from make_move, whose every other move then compiles
    as it did before Chess960 (the four inlined piece updates here cost the common
    path about 35 instructions a move in perft when they sat in it)."""
    remove_piece(p, us * 6 + KING, frm)
    remove_piece(p, us * 6 + ROOK, p.castle_rook[right])
    put_piece(p, us * 6 + KING, to)
    put_piece(p, us * 6 + ROOK, castle_rook_to(right))


cdef void make_move(Position* p, Move m, Undo* u) noexcept nogil:
    cdef int us = p.side, them = p.side ^ 1
    cdef int frm = move_from(m), to = move_to(m), flags = move_flags(m)
    cdef int pc = p.board[frm], captured = NO_PIECE, ep
    u.key = p.key
    u.castling = p.castling
    u.ep = p.ep
    u.halfmove = p.halfmove
    if p.ep != NO_SQ:
        p.key ^= Z_EP[p.ep & 7]
        p.ep = NO_SQ
    p.halfmove += 1
    if flags == FLAG_EP_CAPTURE:
        captured = them * 6 + PAWN
        remove_piece(p, captured, to - 8 if us == WHITE else to + 8)
        p.halfmove = 0
    elif flags & FLAG_CAPTURE:
        captured = p.board[to]
        remove_piece(p, captured, to)
        p.halfmove = 0
    u.captured = captured
    if flags & FLAG_PROMO:
        remove_piece(p, pc, frm)
        put_piece(p, us * 6 + move_promo_kind(m), to)
    elif move_is_castle(m):
        castle_pieces(p, us, frm, to, castle_right(us, flags))
    else:
        shift_piece(p, pc, frm, to)
    if pc % 6 == PAWN:
        p.halfmove = 0
        if flags == FLAG_DOUBLE_PUSH:
            ep = (frm + to) >> 1
            if T.pawn[us][ep] & p.bb[them * 6 + PAWN]:
                # Decide legality from the opponent's point of view.
                p.side = them
                p.all = p.occ[0] | p.occ[1]
                if ep_capture_is_legal(p, ep):
                    p.ep = ep
                    p.key ^= Z_EP[ep & 7]
                p.side = us
    if p.castling:
        p.key ^= Z_CASTLING[p.castling]
        p.castling &= p.castle_keep[frm] & p.castle_keep[to]
        p.key ^= Z_CASTLING[p.castling]
    p.all = p.occ[0] | p.occ[1]
    p.side = them
    p.key ^= Z_SIDE
    if us == BLACK:
        p.fullmove += 1
    p.game_ply += 1
    p.history[p.game_ply & (KEY_HISTORY - 1)] = p.key


cdef void unmake_move(Position* p, Move m, const Undo* u) noexcept nogil:
    cdef int them = p.side, us = p.side ^ 1
    cdef int frm = move_from(m), to = move_to(m), flags = move_flags(m)
    cdef int pc = p.board[to], right
    cdef U64 key = u.key
    if flags & FLAG_PROMO:
        remove_piece(p, pc, to)
        put_piece(p, us * 6 + PAWN, frm)
    elif move_is_castle(m):
        right = castle_right(us, flags)
        remove_piece(p, us * 6 + KING, to)
        remove_piece(p, us * 6 + ROOK, castle_rook_to(right))
        put_piece(p, us * 6 + KING, frm)
        put_piece(p, us * 6 + ROOK, p.castle_rook[right])
    else:
        shift_piece(p, pc, to, frm)
    if flags == FLAG_EP_CAPTURE:
        put_piece(p, u.captured, to - 8 if us == WHITE else to + 8)
    elif u.captured != NO_PIECE:
        put_piece(p, u.captured, to)
    p.all = p.occ[0] | p.occ[1]
    p.side = us
    p.castling = u.castling
    p.ep = u.ep
    p.halfmove = u.halfmove
    p.key = key
    if us == BLACK:
        p.fullmove -= 1
    p.game_ply -= 1


cdef void make_null(Position* p, Undo* u) noexcept nogil:
    u.key = p.key
    u.castling = p.castling
    u.ep = p.ep
    u.halfmove = p.halfmove
    u.captured = NO_PIECE
    if p.ep != NO_SQ:
        p.key ^= Z_EP[p.ep & 7]
        p.ep = NO_SQ
    # A null move is irreversible for repetition purposes: no cycle may run through it.
    p.halfmove = 0
    p.side ^= 1
    p.key ^= Z_SIDE
    p.game_ply += 1
    p.history[p.game_ply & (KEY_HISTORY - 1)] = p.key


cdef void unmake_null(Position* p, const Undo* u) noexcept nogil:
    p.side ^= 1
    p.key = u.key
    p.ep = u.ep
    p.halfmove = u.halfmove
    p.game_ply -= 1


cdef int repetition_count(const Position* p) noexcept nogil:
    """How often the current position has occurred (1 = first time).

    Only positions since the last irreversible move can repeat, so the search
    looks back halfmove plies (capped by the ring size and the known history)."""
    cdef int n = 1, i = 4
    cdef int limit = p.halfmove
    if limit > p.game_ply:
        limit = p.game_ply
    if limit > KEY_HISTORY - 1:
        limit = KEY_HISTORY - 1
    while i <= limit:
        if p.history[(p.game_ply - i) & (KEY_HISTORY - 1)] == p.key:
            n += 1
        i += 2
    return n


cdef U64 compute_key(const Position* p) noexcept nogil:
    cdef U64 k = 0
    cdef int sq
    for sq in range(64):
        if p.board[sq] != NO_PIECE:
            k ^= Z_PIECE[p.board[sq]][sq]
    k ^= Z_CASTLING[p.castling]
    if p.ep != NO_SQ:
        k ^= Z_EP[p.ep & 7]
    if p.side == BLACK:
        k ^= Z_SIDE
    return k


cdef void set_castling(Position* p, const int* rook_squares) noexcept nogil:
    """Give p the castling rights whose rooks stand on rook_squares[right] (NO_SQ:
    no such right) and work out their masks; p's pieces must be in place, each
    right's king and rook on their first rank."""
    cdef int r, color, king, rook, king_to, sq
    for sq in range(64):
        p.castle_keep[sq] = 15
    p.castling = 0
    p.castle_recheck = 0
    for r in range(4):
        rook = rook_squares[r]
        p.castle_rook[r] = rook
        p.castle_empty[r] = 0
        p.castle_safe[r] = 0
        if rook == NO_SQ:
            continue
        color = r >> 1
        king = king_square(p, color)
        king_to = castle_king_to(r)
        p.castling |= 1 << r
        p.castle_empty[r] = (T.between[king][king_to] | bit(king_to) | T.between[rook][castle_rook_to(r)]
                             | bit(castle_rook_to(r))) & ~(bit(king) | bit(rook))
        p.castle_safe[r] = (T.between[king][king_to] | bit(king_to)) & ~bit(king)
        p.castle_keep[king] &= ~(3 << (2 * color))
        p.castle_keep[rook] &= ~(1 << r)
        # Whether the king's destination is attacked changes with the rook's move
        # only when a queen-side rook leaves b1: that uncovers c1 to a piece on a1.
        # Every other line through the rook's squares to the destination also runs
        # through the king's own square, so the king would be in check already.
        if r & 1 and (rook & 7) == 1:
            p.castle_recheck |= 1 << r


cdef int outermost_rook(const Position* p, int right) noexcept nogil:
    """The rook of the right's colour furthest from its king on the right's side,
    on their first rank (what X-FEN's K, Q, k and q name), else NO_SQ."""
    cdef int color = right >> 1, king = king_square(p, color), sq
    cdef int step = -1 if right & 1 else 1
    cdef int edge = color * 56 + (0 if right & 1 else 7)
    if king >> 3 != color * 7:
        return NO_SQ
    sq = edge
    while sq != king:
        if p.board[sq] == color * 6 + ROOK:
            return sq
        sq -= step
    return NO_SQ


cdef void castling_from_rights(Position* p) noexcept nogil:
    """set_castling for the rights in p.castling, each with its outermost rook
    (X-FEN's reading of KQkq); a right without one is dropped."""
    cdef int rooks[4]
    cdef int r
    for r in range(4):
        rooks[r] = outermost_rook(p, r) if p.castling & (1 << r) else NO_SQ
    set_castling(p, rooks)


# ---------------------------------------------------------------- FEN (not hot)

def square_name(int sq):
    return FILES[sq & 7] + str((sq >> 3) + 1)


cdef str move_to_uci(const Position* p, Move m):
    """UCI text of a move of p (or of a position after it in the same game):
    castling as the king's move (e1g1) in standard notation when the king and
    rook start on standard squares, otherwise, and always in Chess960 mode
    (p.chess960), as king-takes-rook (e1h1), as python-chess writes it."""
    if m == MOVE_NONE:
        return "0000"
    if move_is_castle(m):
        return castling_text(p, m, p.chess960 or not is_standard_castling(p, m))
    s = square_name(move_from(m)) + square_name(move_to(m))
    if move_is_promotion(m):
        s += "nbrq"[move_promo_kind(m) - KNIGHT]
    return s


cdef int castling_rook_of(const Position* p, Move m):
    """The rook square of castling move m (white castles on rank 1, black on rank 8)."""
    return p.castle_rook[castle_right(0 if move_from(m) < 32 else 1, move_flags(m))]


cdef bint is_standard_castling(const Position* p, Move m):
    """King from the e-file with a rook from the a- or h-file: castling standard
    notation can write as the king's two-square move."""
    return (move_from(m) & 7) == 4 and (castling_rook_of(p, m) & 7) in (0, 7)


cdef str castling_text(const Position* p, Move m, bint king_takes_rook):
    """A castling move as king-takes-rook (e1h1) or as the king's move (e1g1)."""
    if king_takes_rook:
        return square_name(move_from(m)) + square_name(castling_rook_of(p, m))
    return square_name(move_from(m)) + square_name(move_to(m))


cdef str shown(str text, int limit=40):
    """A FEN, a field of one or a move for an error message: its repr, cut to `limit`
    characters, so that a runaway one (a fuzzer's, a broken GUI's) does not make a
    runaway message."""
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")


cdef int parse_square(str s) except -2:
    if len(s) == 2 and s[0] in FILES and s[1] in "12345678":
        return FILES.index(s[0]) + 8 * (int(s[1]) - 1)
    return -1


cdef int parse_counter(str text, str what, int minimum) except -1:
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"{what} must be a non-negative integer, not {shown(text)}")
    if len(text) > 6:
        raise ValueError(f"{what} {shown(text)} is too large (at most 999999)")
    return max(int(text), minimum)


cdef int parse_castling(Position* q, str text) except -1:
    """Set q's castling rights from a FEN field, q's pieces in place: X-FEN (K, Q,
    k, q: the outermost rook on that side of the king; a file letter for another
    rook) or Shredder-FEN (the rooks' files, HAha), standard chess being the case
    of a king on e1 and rooks on a1 and h1."""
    cdef int rooks[4]
    cdef int r, color, king, sq
    rooks[:] = [NO_SQ] * 4
    named = [""] * 4
    if text != "-":
        for ch in text:
            if not (ch in "KQkq" or ch.lower() in FILES):
                raise ValueError(f"castling rights: bad character {ch!r} in {shown(text)} "
                                 "(expected K, Q, k, q, a rook's file A-H or a-h, or -)")
            if text.count(ch) > 1:
                raise ValueError(f"castling rights: {ch!r} repeated in {shown(text)}")
            color = WHITE if ch.isupper() else BLACK
            name = "white" if color == WHITE else "black"
            first = 1 if color == WHITE else 8
            king = king_square(q, color)
            if king >> 3 != first - 1:
                raise ValueError(f"castling right {ch!r}: the {name} king is on {square_name(king)}, "
                                 f"not on rank {first}")
            if ch in "KQkq":
                r = color * 2 + (ch in "Qq")
                sq = outermost_rook(q, r)
                if sq == NO_SQ:
                    raise ValueError(f"castling right {ch!r}: no {name} rook on the "
                                     f"{'queen' if r & 1 else 'king'} side of the king on "
                                     f"{square_name(king)}")
            else:
                sq = (first - 1) * 8 + FILES.index(ch.lower())
                if q.board[sq] != color * 6 + ROOK:
                    raise ValueError(f"castling right {ch!r}: no {name} rook on {square_name(sq)}")
                r = color * 2 + ((sq & 7) < (king & 7))
            if rooks[r] == sq:
                raise ValueError(f"castling rights {shown(text)}: {named[r]!r} and {ch!r} both name "
                                 f"the {name} rook on {square_name(sq)}")
            if rooks[r] != NO_SQ:
                raise ValueError(f"castling rights {shown(text)}: {named[r]!r} and {ch!r} are both "
                                 f"{name}'s {'queen' if r & 1 else 'king'}-side right "
                                 f"(rooks on {square_name(rooks[r])} and {square_name(sq)})")
            rooks[r] = sq
            named[r] = ch
    set_castling(q, rooks)
    return 0


cdef int promoted_pieces(const Position* q, int color) noexcept nogil:
    """How many of a side's pieces are beyond the starting ones (a queen, two rooks,
    bishops, knights): promoted pawns, if a game reached the position."""
    cdef int extra = 0
    extra += max(0, popcount(q.bb[color * 6 + KNIGHT]) - 2)
    extra += max(0, popcount(q.bb[color * 6 + BISHOP]) - 2)
    extra += max(0, popcount(q.bb[color * 6 + ROOK]) - 2)
    extra += max(0, popcount(q.bb[color * 6 + QUEEN]) - 1)
    return extra


cdef bint reachable_army(const Position* q, int color) noexcept nogil:
    """A side's army must be one a game can reach: at most 8 pawns, and no more
    promoted pieces than pawns missing. Why it matters beyond the rules: move lists
    are MAX_MOVES (256) long, room for the 218 moves a reachable position can have;
    sixteen queens would have some 400 and overrun the array."""
    cdef int pawns = popcount(q.bb[color * 6 + PAWN])
    return pawns <= 8 and promoted_pieces(q, color) <= 8 - pawns


cdef int check_material(const Position* q, int color, str name) except -1:
    """reachable_army, or a ValueError saying why not."""
    cdef int pawns = popcount(q.bb[color * 6 + PAWN])
    if pawns > 8:
        raise ValueError(f"piece placement: {name} has {pawns} pawns; at most 8")
    if not reachable_army(q, color):
        raise ValueError(f"piece placement: {name} has {promoted_pieces(q, color)} pieces beyond "
                         f"the starting ones but only {8 - pawns} pawns missing to have promoted")
    return 0


cdef int set_fen(Position* p, str fen) except -1:
    """Parse `fen` into p; on any error raise ValueError naming the field and leave p untouched."""
    cdef Position q
    cdef int sq, rank, file_, pc, color, n, ep
    fields = fen.split()
    if len(fields) not in (4, 6):
        raise ValueError(f"FEN has {len(fields)} fields; expected 6 "
                         "(placement, side, castling, en passant, halfmove clock, fullmove number) "
                         "or 4 without the counters")
    q.bb[:] = [0] * 12
    q.occ[0] = q.occ[1] = 0
    for sq in range(64):
        q.board[sq] = NO_PIECE
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(f"piece placement has {len(ranks)} ranks; expected 8")
    for i, text in enumerate(ranks):
        rank = 7 - i
        file_ = 0
        previous = ""
        for ch in text:
            if ch in "12345678":
                if previous in "12345678" and previous:
                    raise ValueError(f"piece placement: two digits in a row in rank {rank + 1} "
                                     f"({shown(text)}); write the empty squares as one digit")
                file_ += ord(ch) - ord("0")
            elif ch in PIECE_LETTERS:
                if file_ < 8:
                    pc = PIECE_LETTERS.index(ch)
                    q.bb[pc] |= bit(rank * 8 + file_)
                    q.occ[pc // 6] |= bit(rank * 8 + file_)
                    q.board[rank * 8 + file_] = pc
                file_ += 1
            else:
                raise ValueError(f"piece placement: bad character {ch!r} in rank {rank + 1} "
                                 f"(expected a piece letter from {PIECE_LETTERS} or a digit 1-8)")
            previous = ch
        if file_ != 8:
            raise ValueError(f"piece placement: rank {rank + 1} ({shown(text)}) has {file_} squares; expected 8")
    q.all = q.occ[0] | q.occ[1]
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        n = popcount(q.bb[color * 6 + KING])
        if n != 1:
            raise ValueError(f"piece placement: {name} has {n} kings; expected exactly 1")
    pawns = (q.bb[PAWN] | q.bb[6 + PAWN]) & 0xFF000000000000FFULL
    if pawns:
        raise ValueError(f"piece placement: pawn on {square_name(lsb(pawns))}; "
                         "pawns cannot stand on the first or last rank")
    if fields[1] not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {shown(fields[1])}")
    q.side = WHITE if fields[1] == "w" else BLACK
    parse_castling(&q, fields[2])
    q.ep = NO_SQ
    if fields[3] != "-":
        ep = parse_square(fields[3])
        if ep < 0:
            raise ValueError(f"en-passant square {shown(fields[3])} is not a square name like e3 or -")
        ep_rank = 5 if q.side == WHITE else 2
        pushed = ep - 8 if q.side == WHITE else ep + 8      # where the double-pushed pawn stands
        origin = ep + 8 if q.side == WHITE else ep - 8      # where it came from
        if ep >> 3 != ep_rank:
            raise ValueError(f"en-passant square {shown(fields[3])} is impossible: with "
                             f"{'white' if q.side == WHITE else 'black'} to move it must be on rank "
                             f"{ep_rank + 1}")
        if q.board[pushed] != (q.side ^ 1) * 6 + PAWN or q.board[ep] != NO_PIECE or q.board[origin] != NO_PIECE:
            raise ValueError(f"en-passant square {shown(fields[3])} is impossible: no pawn can just "
                             f"have moved two squares past it")
        q.ep = ep
    if len(fields) == 6:
        q.halfmove = parse_counter(fields[4], "halfmove clock", 0)
        q.fullmove = parse_counter(fields[5], "fullmove number", 1)
    else:
        q.halfmove = 0
        q.fullmove = 1
    # Last, so that a FEN's fields are checked in order before its armies are weighed.
    check_material(&q, WHITE, "white")
    check_material(&q, BLACK, "black")
    q.side ^= 1
    if in_check(&q):
        q.side ^= 1
        raise ValueError(f"the side not to move ({'white' if q.side == BLACK else 'black'}) is in check")
    q.side ^= 1
    if q.ep != NO_SQ and not ep_capture_is_legal(&q, q.ep):
        q.ep = NO_SQ            # a legal-looking but unusable ep square is dropped
    q.chess960 = False          # notation is the Board's to choose
    q.key = compute_key(&q)
    q.game_ply = 0
    q.history[0] = q.key
    p[0] = q
    return 0


cdef str castling_field(const Position* p, bint shredder):
    """X-FEN: K, Q, k, q for the outermost rook of a side, the rook's file for another
    (standard chess has only KQkq); Shredder-FEN: always the files (HAha)."""
    cdef int r
    letters = []
    for r in range(4):
        if p.castling & (1 << r):
            if shredder or p.castle_rook[r] != outermost_rook(p, r):
                letter = FILES[p.castle_rook[r] & 7]
            else:
                letter = "q" if r & 1 else "k"
            letters.append(letter.upper() if r < 2 else letter)
    return "".join(letters) or "-"


cdef str get_fen(const Position* p, bint shredder=False):
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file_ in range(8):
            pc = p.board[rank * 8 + file_]
            if pc == NO_PIECE:
                empty += 1
            else:
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_LETTERS[pc]
        if empty:
            row += str(empty)
        rows.append(row)
    ep = square_name(p.ep) if p.ep != NO_SQ else "-"
    return (f"{'/'.join(rows)} {'w' if p.side == WHITE else 'b'} {castling_field(p, shredder)} {ep} "
            f"{p.halfmove} {p.fullmove}")
