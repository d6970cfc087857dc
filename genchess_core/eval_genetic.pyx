# The Genetic Chess evaluation (a genome of kind genetic; evaluate.pyx routes to it).
#
# The genome is packed once into GeneticParams (priorities, exponents, normalised
# piece values and per-gene constants, with tables such as the pawn-advancement
# powers precomputed). Per position, the attack maps and both sides' legal-move
# counts and attacked squares (from bitboards, no move list) are computed once and
# shared by all genes, and the four pawn-structure genes come from a Searcher's
# pawn cache; a gene whose priority is zero costs nothing, so a material-only
# genome evaluates at the speed of a popcount.
# Each gene's raw score is scaled so that a typical position scores near 1; the
# side's score is sum(priority * sgn(S) * |S|^exponent) and the evaluation is the
# side to move's score minus the opponent's, in EVAL_SCALE units.

from libc.math cimport pow

from genchess_core.types cimport *
from genchess_core.bitboard cimport (AttackTables, attack_tables, bit, lsb, pop_lsb, popcount,
                                     rook_attacks, bishop_attacks, queen_attacks, square_distance,
                                     FILE_A, FILE_H, DARK_SQUARES)
from genchess_core.position cimport Position, king_square, side_attacks, pawn_structure_hash
from genchess_core.movegen cimport legal_count_given_danger
from genchess_core.board cimport Board

cdef const AttackTables* T = attack_tables()

cdef U64 DIST_RING[64][8]       # squares at king distance d from a square
cdef U64 FILE_MASK[8]
cdef U64 AHEAD[2][8]            # ranks strictly ahead of a rank, from a colour's side

GENE_PREFIXES = ("total_force", "freedom", "pawn_adv", "passed_pawn", "targeted", "sphere",
                 "confine", "king_protect", "castling", "islands", "stacked", "checkmate_material")


cdef void init_tables() noexcept nogil:
    cdef int sq, s2, f, r
    for sq in range(64):
        for f in range(8):
            DIST_RING[sq][f] = 0
        for s2 in range(64):
            DIST_RING[sq][square_distance(sq, s2)] |= bit(s2)
    for f in range(8):
        FILE_MASK[f] = FILE_A << f
    for r in range(8):
        AHEAD[WHITE][r] = 0
        AHEAD[BLACK][r] = 0
        for f in range(8):
            if f > r:
                AHEAD[WHITE][r] |= (<U64>0xFF) << (8 * f)
            if f < r:
                AHEAD[BLACK][r] |= (<U64>0xFF) << (8 * f)


init_tables()


cdef struct SideInfo:
    U64 attacks             # every square a piece of the side attacks (own pieces included)
    U64 attacks_no_king     # the same without the king's own attacks
    U64 attacks_xray_king   # attacks with the enemy king lifted off the board
    U64 legal_targets       # destinations of legal moves that attack (no pawn pushes, no castling)
    int n_legal


cdef inline U64 king_spread(U64 b) noexcept nogil:
    b |= ((b << 1) & ~FILE_A) | ((b >> 1) & ~FILE_H)
    return b | (b << 8) | (b >> 8)


cdef inline double weigh(double priority, double exponent, double s) noexcept nogil:
    if priority == 0.0 or s == 0.0:
        return 0.0
    if exponent == 1.0:
        return priority * s
    if s > 0.0:
        return priority * pow(s, exponent)
    return -priority * pow(-s, exponent)


cdef void compute_info(Position* p, const GeneticParams* e, SideInfo* info) noexcept nogil:
    cdef int c
    cdef bint need_legal = e.priority[G_FREEDOM] != 0.0 or e.priority[G_SPHERE] != 0.0
    cdef bint need_attacks = need_legal or e.priority[G_TARGETED] != 0.0 \
        or e.priority[G_KING_PROTECTION] != 0.0 or e.priority[G_CASTLING] != 0.0
    for c in range(2):
        info[c].attacks = 0
        info[c].attacks_no_king = 0
        info[c].attacks_xray_king = 0
        info[c].legal_targets = 0
        info[c].n_legal = 0
        if need_attacks:
            info[c].attacks_no_king = side_attacks(p, c, p.all, False)
            info[c].attacks = info[c].attacks_no_king | T.king[lsb(p.bb[c * 6 + KING])]
        # c's attacks, its king's included, with the other king lifted off the board:
        # the confinement gene's map, and the other side's danger map for its king
        # in the legal-move count below (one map for both).
        if e.priority[G_CONFINEMENT] != 0.0 or need_legal:
            info[c].attacks_xray_king = side_attacks(p, c, p.all ^ p.bb[(c ^ 1) * 6 + KING], True)
    if need_legal:
        for c in range(2):
            info[c].n_legal = legal_count_given_danger(p, c, info[c ^ 1].attacks_xray_king,
                                                       &info[c].legal_targets)


cdef void pawn_raw(const Position* p, const GeneticParams* e, int c, double* out) noexcept nogil:
    """The pawn-structure genes' raw scores for colour c: they read the pawns alone."""
    cdef int o = c ^ 1, k, sq, r, f, d, n, files, free_files, islands
    cdef U64 b, own_pawns = p.bb[c * 6 + PAWN], their_pawns = p.bb[o * 6 + PAWN]
    cdef double s
    if e.priority[G_PAWN_ADVANCEMENT] != 0.0:
        s = 0.0
        b = own_pawns
        while b:
            r = pop_lsb(&b) >> 3
            s += e.pawn_adv_table[r - 1 if c == WHITE else 6 - r]
        out[G_PAWN_ADVANCEMENT] = s / 8.0

    if e.priority[G_PASSED_PAWN] != 0.0:
        # Full credit for a passed pawn; partial credit per file ahead free of enemy pawns.
        s = 0.0
        b = own_pawns
        while b:
            sq = pop_lsb(&b)
            f = sq & 7
            files = 0
            free_files = 0
            for d in range(f - 1, f + 2):
                if 0 <= d < 8:
                    files += 1
                    if not (FILE_MASK[d] & AHEAD[c][sq >> 3] & their_pawns):
                        free_files += 1
            s += <double>free_files / files
        out[G_PASSED_PAWN] = s

    if e.priority[G_PAWN_ISLANDS] != 0.0:
        files = 0
        for f in range(8):
            if own_pawns & FILE_MASK[f]:
                files |= 1 << f
        islands = popcount(files & ~(files << 1))
        n = popcount(own_pawns)
        out[G_PAWN_ISLANDS] = (<double>n / islands) / 8.0 if islands else 0.0

    if e.priority[G_STACKED_PAWNS] != 0.0:
        n = 0
        for f in range(8):
            k = popcount(own_pawns & FILE_MASK[f])
            if k > 1:
                n += k - 1
        out[G_STACKED_PAWNS] = -n


cdef int PAWN_GENES[4]
PAWN_GENES[:] = [G_PAWN_ADVANCEMENT, G_PASSED_PAWN, G_PAWN_ISLANDS, G_STACKED_PAWNS]


cdef void pawn_terms(const Position* p, const GeneticParams* e, int c, double* out) noexcept nogil:
    """pawn_raw through the Searcher's pawn cache: the pawns move in few of the moves
    of a search, so most leaves find both colours' terms already computed (the same
    numbers, so the search is unchanged)."""
    cdef PawnEntry* entry
    cdef U64 white = p.bb[PAWN], black = p.bb[6 + PAWN]
    cdef double fresh[N_SCORING_GENES]
    cdef int k, g
    if e.pawn_cache == NULL:
        pawn_raw(p, e, c, out)
        return
    entry = &e.pawn_cache[pawn_structure_hash(p) >> (64 - PAWN_CACHE_BITS)]
    if not (entry.filled and entry.pawns[0] == white and entry.pawns[1] == black):
        for k in range(2):
            for g in range(4):
                fresh[PAWN_GENES[g]] = 0.0
            pawn_raw(p, e, k, fresh)
            for g in range(4):
                entry.raw[k][g] = fresh[PAWN_GENES[g]]
        entry.pawns[0] = white
        entry.pawns[1] = black
        entry.filled = 1
    for g in range(4):
        out[PAWN_GENES[g]] = entry.raw[c][g]


cdef void side_raw(const Position* p, const GeneticParams* e, const SideInfo* info, int c,
                   double* out) noexcept nogil:
    cdef int o = c ^ 1, k, d, ksq, their_ksq, friendly, enemy
    cdef U64 own = p.occ[c], legal_sq, illegal_sq, reach, visited, nb, lines, enemy_att
    cdef double s
    for k in range(N_SCORING_GENES):
        out[k] = 0.0

    if e.priority[G_TOTAL_FORCE] != 0.0:
        s = 0.0
        for k in range(KING):
            s += popcount(p.bb[c * 6 + k]) * e.piece_values[k]
        out[G_TOTAL_FORCE] = s

    out[G_FREEDOM] = info[c].n_legal / 20.0

    pawn_terms(p, e, c, out)

    if e.priority[G_TARGETED] != 0.0:
        s = 0.0
        for k in range(6):
            s += popcount(p.bb[o * 6 + k] & info[c].attacks) * e.piece_values[k]
        out[G_TARGETED] = s

    if e.priority[G_SPHERE] != 0.0:
        their_ksq = lsb(p.bb[o * 6 + KING])
        legal_sq = info[c].legal_targets
        illegal_sq = info[c].attacks & ~legal_sq
        s = 0.0
        for d in range(8):
            s += (e.sphere_legal_score * popcount(legal_sq & DIST_RING[their_ksq][d])
                  + e.sphere_illegal_score * popcount(illegal_sq & DIST_RING[their_ksq][d])) \
                 * (1.0 + e.sphere_king_target / (1.0 + d))
        out[G_SPHERE] = s / 64.0

    if e.priority[G_CONFINEMENT] != 0.0:
        # Flood-fill the king's reach by consecutive king steps onto squares that are
        # neither own-occupied nor attacked; count what stopped the flood.
        ksq = lsb(p.bb[c * 6 + KING])
        enemy_att = info[o].attacks_xray_king
        reach = bit(ksq)
        visited = reach
        friendly = 0
        enemy = 0
        for d in range(e.confine_max_distance):
            nb = king_spread(reach) & ~visited
            if not nb:
                break
            visited |= nb
            friendly += popcount(nb & own)
            enemy += popcount(nb & ~own & enemy_att)
            reach |= nb & ~own & ~enemy_att
        out[G_CONFINEMENT] = (e.confine_friendly * friendly + e.confine_enemy * enemy) / popcount(reach)

    if e.priority[G_KING_PROTECTION] != 0.0:
        # Squares an attacker could hit the king from (queen and knight lines) that
        # no own piece occupies or guards; fewer is safer.
        ksq = lsb(p.bb[c * 6 + KING])
        lines = (queen_attacks(T, ksq, p.all) | T.knight[ksq]) & ~own & ~info[c].attacks_no_king
        out[G_KING_PROTECTION] = -popcount(lines) / 8.0

    if e.priority[G_CASTLING] != 0.0:
        out[G_CASTLING] = castling_score(p, e, info, c)

    if e.priority[G_CHECKMATE_MATERIAL] != 0.0:
        out[G_CHECKMATE_MATERIAL] = 1.0 if can_mate(p, c) else 0.0


cdef double castling_score(const Position* p, const GeneticParams* e, const SideInfo* info,
                           int c) noexcept nogil:
    """A side that has castled gets that wing's preference. Before castling it gets
    the best wing's partial credit (at most three quarters of the preference),
    growing as the squares between king and rook empty and when the king's path is
    not attacked: the best option counts, not the sum, so that castling always
    scores more than keeping both rights."""
    cdef int base = 0 if c == WHITE else 56
    cdef int king = c * 6 + KING, rook = c * 6 + ROOK
    cdef U64 enemy_att = info[c ^ 1].attacks, between, path
    cdef double kingside = 0.0, queenside = 0.0
    # King on g1 with a rook on f1 (c1 or b1 with a rook on d1) looks castled.
    if p.board[base + 6] == king and p.board[base + 5] == rook:
        return e.castling_kingside
    if (p.board[base + 2] == king or p.board[base + 1] == king) and p.board[base + 3] == rook:
        return e.castling_queenside
    if p.castling & (WHITE_OO if c == WHITE else BLACK_OO):
        between = bit(base + 5) | bit(base + 6)
        path = between | bit(base + 4)
        kingside = e.castling_kingside * (0.5 * popcount(between & ~p.all) / 2.0
                                          + (0.25 if not (path & enemy_att) else 0.0))
    if p.castling & (WHITE_OOO if c == WHITE else BLACK_OOO):
        between = bit(base + 1) | bit(base + 2) | bit(base + 3)
        path = bit(base + 2) | bit(base + 3) | bit(base + 4)
        queenside = e.castling_queenside * (0.5 * popcount(between & ~p.all) / 3.0
                                            + (0.25 if not (path & enemy_att) else 0.0))
    return kingside if kingside > queenside else queenside


cdef bint can_mate(const Position* p, int c) noexcept nogil:
    """Enough material to mate a lone king: a pawn, rook or queen; bishops on both
    colours; bishop and knight; or three knights."""
    cdef U64 bishops = p.bb[c * 6 + BISHOP]
    cdef int knights = popcount(p.bb[c * 6 + KNIGHT])
    if p.bb[c * 6 + PAWN] | p.bb[c * 6 + ROOK] | p.bb[c * 6 + QUEEN]:
        return True
    if (bishops & DARK_SQUARES) and (bishops & ~DARK_SQUARES):
        return True
    if bishops and knights:
        return True
    return knights >= 3


cdef void raw_scores(Position* p, const GeneticParams* e, int color, double* out) noexcept nogil:
    cdef SideInfo info[2]
    compute_info(p, e, info)
    side_raw(p, e, info, color, out)


cdef int evaluate_genetic(Position* p, const GeneticParams* e) noexcept nogil:
    cdef SideInfo info[2]
    cdef double raw_us[N_SCORING_GENES]
    cdef double raw_them[N_SCORING_GENES]
    cdef double total = 0.0
    cdef int g
    compute_info(p, e, info)
    side_raw(p, e, info, p.side, raw_us)
    side_raw(p, e, info, p.side ^ 1, raw_them)
    for g in range(N_SCORING_GENES):
        total += weigh(e.priority[g], e.exponent[g], raw_us[g]) \
                 - weigh(e.priority[g], e.exponent[g], raw_them[g])
    total *= EVAL_SCALE
    if total > EVAL_LIMIT:
        return EVAL_LIMIT
    if total < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return <int>total


# ------------------------------------------------------------ load time (Python)

cdef int genetic_params(GeneticParams* e, dict packed) except -1:
    """Fill e from a genetic genome's pack() dict; runs once per genome load."""
    e.pawn_cache = NULL     # a Searcher attaches its own after packing
    try:
        values = [float(v) for v in packed["piece_values"]]
        if len(values) != 6:
            raise ValueError("piece_values needs 6 numbers")
        for k in range(6):
            e.piece_values[k] = values[k]
        for g, prefix in enumerate(GENE_PREFIXES):
            e.priority[g] = float(packed[f"{prefix}_priority"])
            e.exponent[g] = float(packed[f"{prefix}_exponent"])
        nonlinearity = float(packed["pawn_adv_nonlinearity"])
        for d in range(8):
            e.pawn_adv_table[d] = pow(d, 1.0 + nonlinearity) if d else 0.0
        e.sphere_legal_score = float(packed["sphere_legal_score"])
        e.sphere_illegal_score = float(packed["sphere_illegal_score"])
        e.sphere_king_target = float(packed["sphere_king_target"])
        e.confine_friendly = float(packed["confine_friendly"])
        e.confine_enemy = float(packed["confine_enemy"])
        e.confine_max_distance = int(packed["confine_max_distance"])
        e.castling_kingside = float(packed["castling_kingside"])
        e.castling_queenside = float(packed["castling_queenside"])
    except KeyError as missing:
        raise ValueError(f"packed genome lacks parameter {missing}") from None
    return 0


def gene_raw_scores(Board board, dict packed):
    """{'white': {gene prefix: raw score}, 'black': {...}}: each gene's S before weighing."""
    cdef GeneticParams e
    cdef double out[N_SCORING_GENES]
    genetic_params(&e, packed)
    result = {}
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        raw_scores(&board.pos, &e, color, out)
        result[name] = {prefix: out[g] for g, prefix in enumerate(GENE_PREFIXES)}
    return result
