# The unified evaluation (`Kind: unified`): the terms of the three evaluation designs
# in one tapered form that is linear in its numbers.
#
#   Kendall-Whitwell: material; the legal-move term as mobility.
#   Phoenix: piece-square tables, now all six pieces in both phases.
#   Genetic Chess's scoring genes, each as linear terms: Total Force (material),
#   Freedom to Move (mobility by piece, on safe squares), Pawn Advancement and
#   Passed Pawn (the pawn table; passed pawns by rank, blocked, king distances),
#   Opponent Pieces Targeted (threats by attacker and victim, hanging pieces),
#   Sphere of Influence (the enemy king's zone, the centre), King Confinement and
#   King Protection (the king's safe squares, pawn shelter, open files), Castling
#   Possible, Pawn Islands, Stacked Pawns; and the usual bishop pair, rooks on
#   open files, isolated, backward, supported and phalanx pawns, outposts, tempo.
#
# Each term counts something White has minus the same for Black (tempo: +1 with
# White to move, -1 with Black); the position's score is
#
#   (sum mg[t] * count[t] * phase + sum eg[t] * count[t] * (24 - phase)) * scale / 24
#
# with the PVT kind's phase (non-pawn material, knight = bishop = 1, rook 2, queen
# 4, capped at 24), truncated as C truncates. Because the score is linear in the
# numbers, a tuner scores a whole population on a position set with one sparse
# product over the counts (`unified_trace`, the same code with a counting
# accumulator: fitness/features.py), and a test keeps the two equal.
#
# Per node it is attack maps from the bitboards (no move generation, unlike the
# Genetic Chess genes' legal-move counts); the pawn-only terms come from a
# Searcher's pawn cache and whole evaluations from its evaluation cache.

from genchess_core.types cimport *
from genchess_core.bitboard cimport (AttackTables, attack_tables, bit, lsb, pop_lsb, popcount,
                                     rook_attacks, bishop_attacks, square_distance, FILE_A, FILE_H)
from genchess_core.position cimport Position, pawn_structure_hash
from genchess_core.eval_pvt cimport pvt_phase, PHASE_MAX

cdef const AttackTables* T = attack_tables()

TERMS = (
    # (group name, first index, length): the genome file's names, in index order.
    ("material", T_MATERIAL, 5),
    ("pawn", T_TABLE + 0 * 64, 64), ("knight", T_TABLE + 1 * 64, 64),
    ("bishop", T_TABLE + 2 * 64, 64), ("rook", T_TABLE + 3 * 64, 64),
    ("queen", T_TABLE + 4 * 64, 64), ("king", T_TABLE + 5 * 64, 64),
    ("mobility knight", T_MOB_KNIGHT, 9), ("mobility bishop", T_MOB_BISHOP, 14),
    ("mobility rook", T_MOB_ROOK, 15), ("mobility queen", T_MOB_QUEEN, 28),
    ("passed pawn", T_PASSED, 6), ("passed blocked", T_PASSED_BLOCKED, 6),
    ("passed own king", T_PASSED_OWN_KING, 6), ("passed enemy king", T_PASSED_ENEMY_KING, 6),
    ("isolated pawn", T_ISOLATED, 1), ("stacked pawn", T_STACKED, 1),
    ("backward pawn", T_BACKWARD, 1), ("pawn islands", T_ISLANDS, 1),
    ("supported pawn", T_SUPPORTED, 1), ("pawn phalanx", T_PHALANX, 1),
    ("threat by pawn", T_THREAT + 0 * 5, 5), ("threat by knight", T_THREAT + 1 * 5, 5),
    ("threat by bishop", T_THREAT + 2 * 5, 5), ("threat by rook", T_THREAT + 3 * 5, 5),
    ("threat by queen", T_THREAT + 4 * 5, 5), ("threat by king", T_THREAT + 5 * 5, 5),
    ("hanging", T_HANGING, 5),
    ("king zone", T_KING_ZONE, 4), ("king attackers", T_KING_ATTACKERS, 8),
    ("king shelter", T_SHELTER, 2), ("king open file", T_KING_OPEN, 1),
    ("king enemy open file", T_KING_ENEMY_OPEN, 1), ("king escape", T_KING_ESCAPE, 9),
    ("centre", T_CENTRE, 1), ("wide centre", T_WIDE_CENTRE, 1),
    ("castling", T_CASTLING, 2), ("bishop pair", T_BISHOP_PAIR, 1),
    ("rook open file", T_ROOK_OPEN, 1), ("rook half-open file", T_ROOK_HALF_OPEN, 1),
    ("outpost", T_OUTPOST, 2), ("tempo", T_TEMPO, 1),
)
TERM_COUNT = N_TERMS

cdef U64 FILE_MASK[8]
cdef U64 ADJACENT_FILES[8]          # the files either side of a file
cdef U64 FRONT_SPAN[2][64]          # a pawn's file and both neighbours, every rank ahead
cdef U64 FRONT_ADJACENT[2][64]      # the neighbour files only, every rank ahead
cdef U64 SUPPORT_SPAN[2][64]        # the neighbour files, on the pawn's rank and behind
cdef U64 SHELTER[2][2][64]          # [colour][one, two ranks ahead][king square], three files
cdef U64 CENTRE = 0
cdef U64 WIDE_CENTRE = 0


cdef void init_tables() noexcept nogil:
    global CENTRE, WIDE_CENTRE
    cdef int f, sq, s2, c, r, r2, f2, d
    for f in range(8):
        FILE_MASK[f] = FILE_A << f
    for f in range(8):
        ADJACENT_FILES[f] = (FILE_MASK[f - 1] if f > 0 else 0) | (FILE_MASK[f + 1] if f < 7 else 0)
    for c in range(2):
        for sq in range(64):
            FRONT_SPAN[c][sq] = 0
            FRONT_ADJACENT[c][sq] = 0
            SUPPORT_SPAN[c][sq] = 0
            SHELTER[c][0][sq] = 0
            SHELTER[c][1][sq] = 0
            r, f = sq >> 3, sq & 7
            for s2 in range(64):
                r2, f2 = s2 >> 3, s2 & 7
                if f2 < f - 1 or f2 > f + 1:
                    continue
                d = r2 - r if c == WHITE else r - r2        # ranks ahead, from c's side
                if d > 0:
                    FRONT_SPAN[c][sq] |= bit(s2)
                    if f2 != f:
                        FRONT_ADJACENT[c][sq] |= bit(s2)
                    if d <= 2:
                        SHELTER[c][d - 1][sq] |= bit(s2)
                elif f2 != f:
                    SUPPORT_SPAN[c][sq] |= bit(s2)
    CENTRE = bit(27) | bit(28) | bit(35) | bit(36)          # d4 e4 d5 e5
    for r in range(2, 6):
        for f in range(2, 6):
            WIDE_CENTRE |= bit(r * 8 + f)
    WIDE_CENTRE &= ~CENTRE


init_tables()


# ------------------------------------------------------------ the accumulator

# Two accumulators, and every function below compiled for each (a fused type): the
# evaluation's sums alone, and the tracer's that also counts each term. The same
# code thus gives the score the search uses and the features the tuner uses, and
# the search pays nothing for the counting.

cdef struct EvalAcc:
    int mg
    int eg

cdef struct TraceAcc:
    int mg
    int eg
    int* trace              # the counts per term


ctypedef fused Acc:
    EvalAcc
    TraceAcc


cdef inline void add(Acc* a, const UnifiedParams* u, int term, int count) noexcept nogil:
    a.mg += count * u.mg[term]
    a.eg += count * u.eg[term]
    if Acc is TraceAcc:
        a.trace[term] += count


cdef inline int relative_rank(int c, int sq) noexcept nogil:
    return (sq >> 3) if c == WHITE else 7 - (sq >> 3)


cdef inline U64 pawn_attacks(U64 pawns, int c) noexcept nogil:
    if c == WHITE:
        return ((pawns << 9) & ~FILE_A) | ((pawns << 7) & ~FILE_H)
    return ((pawns >> 7) & ~FILE_A) | ((pawns >> 9) & ~FILE_H)


# ------------------------------------------------------------ pawn structure

cdef U64 pawn_terms(const Position* p, const UnifiedParams* u, Acc* a, int c) noexcept nogil:
    """The terms that read the pawns alone, for colour c; returns c's passed pawns."""
    cdef int o = c ^ 1, sign = 1 if c == WHITE else -1, sq, f, files = 0, n
    cdef U64 own = p.bb[c * 6 + PAWN], their = p.bb[o * 6 + PAWN], b = own, passed = 0
    cdef U64 their_attacks = pawn_attacks(their, o), stop
    while b:
        sq = pop_lsb(&b)
        f = sq & 7
        files |= 1 << f
        if not (own & ADJACENT_FILES[f]):
            add(a, u, T_ISOLATED, sign)
        elif not (own & SUPPORT_SPAN[c][sq]):
            # No pawn of its own can come level to guard it, and an enemy pawn guards
            # the square in front of it.
            stop = bit(sq + 8) if c == WHITE else bit(sq - 8)
            if stop & their_attacks:
                add(a, u, T_BACKWARD, sign)
        if not (their & FRONT_SPAN[c][sq]):
            passed |= bit(sq)
            add(a, u, T_PASSED + relative_rank(c, sq) - 1, sign)
    for f in range(8):
        n = popcount(own & FILE_MASK[f])
        if n > 1:
            add(a, u, T_STACKED, sign * (n - 1))
    add(a, u, T_ISLANDS, sign * popcount(files & ~(files << 1)))
    add(a, u, T_SUPPORTED, sign * popcount(own & pawn_attacks(own, c)))
    add(a, u, T_PHALANX, sign * popcount(own & (((own << 1) & ~FILE_A) | ((own >> 1) & ~FILE_H))))
    return passed


cdef void cached_pawn_terms(const Position* p, const UnifiedParams* u, Acc* a,
                            UnifiedPawnEntry* cache, U64* passed) noexcept nogil:
    """Both colours' pawn terms, through the Searcher's pawn cache when there is one
    and the evaluation is not tracing counts: the pawns move in few moves of a
    search, so most nodes find their pawn terms already summed (the same numbers)."""
    cdef U64 white = p.bb[PAWN], black = p.bb[6 + PAWN]
    cdef UnifiedPawnEntry* entry
    cdef EvalAcc fresh
    if Acc is TraceAcc or cache == NULL:
        passed[WHITE] = pawn_terms(p, u, a, WHITE)
        passed[BLACK] = pawn_terms(p, u, a, BLACK)
        return
    entry = &cache[pawn_structure_hash(p) >> (64 - UNIFIED_PAWN_CACHE_BITS)]
    if not (entry.filled and entry.pawns[0] == white and entry.pawns[1] == black):
        fresh.mg = 0
        fresh.eg = 0
        entry.passed[WHITE] = pawn_terms(p, u, &fresh, WHITE)
        entry.passed[BLACK] = pawn_terms(p, u, &fresh, BLACK)
        entry.mg = fresh.mg
        entry.eg = fresh.eg
        entry.pawns[0] = white
        entry.pawns[1] = black
        entry.filled = 1
    a.mg += entry.mg
    a.eg += entry.eg
    passed[WHITE] = entry.passed[WHITE]
    passed[BLACK] = entry.passed[BLACK]


# ------------------------------------------------------------ pieces

cdef struct SideMaps:
    U64 by_kind[6]          # squares attacked by the side's pieces of each kind
    U64 all                 # squares attacked by any of its pieces
    U64 zone                # the side's king and the squares around it
    int king


cdef void start_maps(const Position* p, int c, SideMaps* m) noexcept nogil:
    """What the other side's piece walk needs first: pawn attacks, the king's zone."""
    cdef int k
    for k in range(6):
        m.by_kind[k] = 0
    m.by_kind[PAWN] = pawn_attacks(p.bb[c * 6 + PAWN], c)
    m.king = lsb(p.bb[c * 6 + KING])
    m.by_kind[KING] = T.king[m.king]
    m.zone = T.king[m.king] | bit(m.king)


cdef void piece_walk(const Position* p, const UnifiedParams* u, Acc* a, int c, SideMaps* own_maps,
                     const SideMaps* their_maps) noexcept nogil:
    """c's knights to queens, one attack lookup each: mobility on safe squares (not
    own-occupied, not attacked by an enemy pawn), the enemy king's zone, rooks on
    open files, outposts; fills own_maps with the attacks by kind."""
    cdef int o = c ^ 1, sign = 1 if c == WHITE else -1, k, sq, attackers = 0
    cdef U64 b, att, safe_area = ~p.occ[c] & ~their_maps.by_kind[PAWN]
    cdef U64 own_pawns = p.bb[c * 6 + PAWN], their_pawns = p.bb[o * 6 + PAWN]
    cdef int zone_squares[6]
    cdef int mobility_base[6]
    mobility_base[KNIGHT] = T_MOB_KNIGHT
    mobility_base[BISHOP] = T_MOB_BISHOP
    mobility_base[ROOK] = T_MOB_ROOK
    mobility_base[QUEEN] = T_MOB_QUEEN
    for k in range(KNIGHT, KING):
        zone_squares[k] = 0
        b = p.bb[c * 6 + k]
        while b:
            sq = pop_lsb(&b)
            if k == KNIGHT:
                att = T.knight[sq]
            elif k == BISHOP:
                att = bishop_attacks(T, sq, p.all)
            elif k == ROOK:
                att = rook_attacks(T, sq, p.all)
            else:
                att = rook_attacks(T, sq, p.all) | bishop_attacks(T, sq, p.all)
            own_maps.by_kind[k] |= att
            add(a, u, mobility_base[k] + popcount(att & safe_area), sign)
            if att & their_maps.zone:
                attackers += 1
                zone_squares[k] += popcount(att & their_maps.zone)
            if k == ROOK and not (own_pawns & FILE_MASK[sq & 7]):
                add(a, u, T_ROOK_OPEN if not (their_pawns & FILE_MASK[sq & 7]) else T_ROOK_HALF_OPEN, sign)
            if (k == KNIGHT or k == BISHOP) and 3 <= relative_rank(c, sq) <= 5 \
                    and (own_maps.by_kind[PAWN] & bit(sq)) and not (their_pawns & FRONT_ADJACENT[c][sq]):
                add(a, u, T_OUTPOST + k - KNIGHT, sign)
    for k in range(KNIGHT, KING):
        if zone_squares[k]:
            add(a, u, T_KING_ZONE + k - KNIGHT, sign * zone_squares[k])
    add(a, u, T_KING_ATTACKERS + (attackers if attackers < 7 else 7), sign)
    own_maps.all = 0
    for k in range(6):
        own_maps.all |= own_maps.by_kind[k]


cdef void side_terms(const Position* p, const UnifiedParams* u, Acc* a, int c,
                     const SideMaps* own_maps, const SideMaps* their_maps, U64 passed) noexcept nogil:
    """The terms that need both sides' whole attack maps."""
    cdef int o = c ^ 1, sign = 1 if c == WHITE else -1, k, v, sq, n, rank, stop
    cdef U64 b, victims
    cdef U64 own_pawns = p.bb[c * 6 + PAWN], their_pawns = p.bb[o * 6 + PAWN]

    # Threats: each enemy piece by the kinds of c's pieces that attack it; hanging
    # when nothing of the enemy's guards it.
    for v in range(KING):
        victims = p.bb[o * 6 + v]
        if not victims:
            continue
        for k in range(6):
            n = popcount(victims & own_maps.by_kind[k])
            if n:
                add(a, u, T_THREAT + k * 5 + v, sign * n)
        n = popcount(victims & own_maps.all & ~their_maps.all)
        if n:
            add(a, u, T_HANGING + v, sign * n)

    # c's own king: shelter, open files, room to move.
    sq = own_maps.king
    add(a, u, T_SHELTER, sign * popcount(own_pawns & SHELTER[c][0][sq]))
    add(a, u, T_SHELTER + 1, sign * popcount(own_pawns & SHELTER[c][1][sq]))
    if not (own_pawns & FILE_MASK[sq & 7]):
        add(a, u, T_KING_OPEN, sign)
    if not (their_pawns & FILE_MASK[sq & 7]):
        add(a, u, T_KING_ENEMY_OPEN, sign)
    add(a, u, T_KING_ESCAPE + popcount(T.king[sq] & ~p.occ[c] & ~their_maps.all), sign)

    add(a, u, T_CENTRE, sign * popcount(own_maps.all & CENTRE))
    add(a, u, T_WIDE_CENTRE, sign * popcount(own_maps.all & WIDE_CENTRE))
    if p.castling & (WHITE_OO if c == WHITE else BLACK_OO):
        add(a, u, T_CASTLING, sign)
    if p.castling & (WHITE_OOO if c == WHITE else BLACK_OOO):
        add(a, u, T_CASTLING + 1, sign)
    if popcount(p.bb[c * 6 + BISHOP]) >= 2:
        add(a, u, T_BISHOP_PAIR, sign)

    # Passed pawns: what stands in front of them and how far the kings are.
    b = passed
    while b:
        sq = pop_lsb(&b)
        rank = relative_rank(c, sq) - 1
        stop = sq + 8 if c == WHITE else sq - 8
        if p.all & bit(stop):
            add(a, u, T_PASSED_BLOCKED + rank, sign)
        add(a, u, T_PASSED_OWN_KING + rank, sign * square_distance(own_maps.king, stop))
        add(a, u, T_PASSED_ENEMY_KING + rank, sign * square_distance(their_maps.king, stop))


# ------------------------------------------------------------ the evaluation

cdef int unified_score(Position* p, const UnifiedParams* u, Acc* a, UnifiedPawnEntry* cache) noexcept nogil:
    """White's view, internal units."""
    cdef int pc, sq, phase = pvt_phase(p)
    cdef U64 b
    cdef U64 passed[2]
    cdef SideMaps maps[2]
    for pc in range(12):
        b = p.bb[pc]
        if Acc is EvalAcc:
            while b:
                sq = pop_lsb(&b)
                a.mg += u.psq_mg[pc][sq]
                a.eg += u.psq_eg[pc][sq]
        else:
            # The same sums, term by term: material, then the square (Black's mirrored).
            while b:
                sq = pop_lsb(&b)
                if pc % 6 != KING:
                    add(a, u, T_MATERIAL + pc % 6, 1 if pc < 6 else -1)
                add(a, u, T_TABLE + (pc % 6) * 64 + (sq if pc < 6 else sq ^ 56), 1 if pc < 6 else -1)
    cached_pawn_terms(p, u, a, cache, passed)
    start_maps(p, WHITE, &maps[WHITE])
    start_maps(p, BLACK, &maps[BLACK])
    piece_walk(p, u, a, WHITE, &maps[WHITE], &maps[BLACK])
    piece_walk(p, u, a, BLACK, &maps[BLACK], &maps[WHITE])
    side_terms(p, u, a, WHITE, &maps[WHITE], &maps[BLACK], passed[WHITE])
    side_terms(p, u, a, BLACK, &maps[BLACK], &maps[WHITE], passed[BLACK])
    add(a, u, T_TEMPO, 1 if p.side == WHITE else -1)
    return (a.mg * phase + a.eg * (PHASE_MAX - phase)) * u.scale // PHASE_MAX


cdef int evaluate_unified(Position* p, const UnifiedParams* u, UnifiedPawnEntry* cache) noexcept nogil:
    """The side to move's view, internal units."""
    cdef EvalAcc a
    a.mg = 0
    a.eg = 0
    cdef int score = unified_score(p, u, &a, cache)
    return score if p.side == WHITE else -score


cdef void unified_trace(Position* p, const UnifiedParams* u, int* counts) noexcept nogil:
    """Add each term's count in `p` (White's minus Black's) to counts[N_TERMS]:
    the tuner's features. The evaluation is these counts weighed by the numbers."""
    cdef TraceAcc a
    a.mg = 0
    a.eg = 0
    a.trace = counts
    unified_score(p, u, &a, NULL)


# ------------------------------------------------------------ load time (Python)

cdef int unified_params(UnifiedParams* u, dict packed) except -1:
    """Fill u from a unified genome's pack() dict (`unified_mg`, `unified_eg`: N_TERMS
    whole centipawns each); once per genome load."""
    mg = [int(v) for v in packed["unified_mg"]]
    eg = [int(v) for v in packed["unified_eg"]]
    if len(mg) != N_TERMS or len(eg) != N_TERMS:
        raise ValueError(f"unified_mg and unified_eg need {N_TERMS} values each")
    u.scale = int(packed["eval_scale_cp"])
    for t in range(N_TERMS):
        u.mg[t] = mg[t]
        u.eg[t] = eg[t]
    for kind in range(6):
        for sq in range(64):
            material_mg = mg[T_MATERIAL + kind] if kind != KING else 0
            material_eg = eg[T_MATERIAL + kind] if kind != KING else 0
            # Black's table is White's seen from the other side: rank mirrored.
            u.psq_mg[kind][sq] = material_mg + mg[T_TABLE + kind * 64 + sq]
            u.psq_eg[kind][sq] = material_eg + eg[T_TABLE + kind * 64 + sq]
            u.psq_mg[6 + kind][sq ^ 56] = -u.psq_mg[kind][sq]
            u.psq_eg[6 + kind][sq ^ 56] = -u.psq_eg[kind][sq]
    return 0
