# Game chains: a self-play set stored as its games, its positions derived when read.
#
# The positions of one game are a chain: each follows from the last by one move, so a
# game's start, its moves and the search's score at each ply hold every position the
# set keeps (in the spirit of Stockfish's binpack). A move is one byte, its index
# among the position's legal moves in a fixed order (from square, to square, then the
# move's kind, so that a Chess960 castling and a king move to the same square differ);
# a score is the difference from what the last ply's score predicts (the same
# evaluation from the other side), zigzag-varint coded, mostly one byte. Compressed
# (xz, genchess/position_chains.py), a position costs two to three bytes where the
# packed format spends 32 (10 gzipped).
#
# Reading replays each game with the legal move generator and writes the packed
# format's 32-byte record (genchess/fitness/packed.py) for every position the set
# keeps: after the first `skip_plies` plies, not in check, the move played quiet (no
# capture, no promotion) and scored. So a chain reads into exactly what the packed
# set of the same games holds (tests/test_chains.py keeps them equal), and a damaged
# chain is found where it stops making sense: a move index no legal move has, a
# record cut short, a start that is no position.
#
# A record, in order:
#   u8      0xC5, the record's tag (a reader out of step finds it at once)
#   u8      bit 0 Chess960; bits 1-2 the result from White's view (0 loss, 1 draw,
#           2 win); bits 3-6 how the game ended (selfplay.TERMINATIONS); bit 7 scored
#   varint  the start's FEN length, then the FEN (X-FEN castling for Chess960)
#   varint  plies
#   plies bytes: each move's index
#   if scored, plies zigzag varints: each score (centipawns, the mover's view) less
#           minus the previous ply's score (0 before the first)

from libc.stdint cimport uint8_t, uint16_t, int16_t, int64_t, uint64_t
from libc.string cimport memset, memcpy

import numpy as np

from genchess_core.types cimport *
from genchess_core.position cimport (Position, Undo, make_move, in_check, set_fen, get_fen,
                                     outermost_rook, move_to_uci)
from genchess_core.bitboard cimport lsb
from genchess_core.movegen cimport generate_legal, GEN_ALL
from genchess_core.board cimport Board

cdef enum:
    TAG = 0xC5
    PACKED_SIZE = 32            # the packed format's record
    CHESS960 = 1
    SCORED = 128
    SCORE_LIMIT = 10000         # selfplay's clamp

MAGIC = b"GCCHAIN1"
RECORD_TAG = TAG
RECORD_SIZE = PACKED_SIZE
FLAG_CHESS960 = CHESS960
FLAG_SCORED = SCORED
SKIP_PLIES = 8                  # the plies after a game's start no position is kept from


class ChainError(ValueError):
    """A chain that cannot be read: what and where (the game and its byte)."""


cdef inline uint16_t move_key(Move m) noexcept nogil:
    return <uint16_t>((move_from(m) << 10) | (move_to(m) << 4) | move_flags(m))


cdef int sorted_legal(Position* p, Move* moves) noexcept nogil:
    """The legal moves of `p` in the chains' order (insertion sort: some 35 moves)."""
    cdef int n = generate_legal(p, moves, GEN_ALL), i, j
    cdef Move m
    for i in range(1, n):
        m = moves[i]
        j = i - 1
        while j >= 0 and move_key(moves[j]) > move_key(m):
            moves[j + 1] = moves[j]
            j -= 1
        moves[j + 1] = m
    return n


cdef inline int put_varint(bytearray out, uint64_t value) except -1:
    while value >= 0x80:
        out.append(<uint8_t>(value & 0x7F) | 0x80)
        value >>= 7
    out.append(<uint8_t>value)
    return 0


cdef inline uint64_t zigzag(int64_t v) noexcept nogil:
    return <uint64_t>((v << 1) ^ (v >> 63))


cdef inline int64_t unzigzag(uint64_t u) noexcept nogil:
    return <int64_t>(u >> 1) ^ -<int64_t>(u & 1)


cdef inline int get_varint(const uint8_t* data, Py_ssize_t size, Py_ssize_t* at,
                           uint64_t* value) noexcept nogil:
    """0, or -1 if the varint runs past `size` or beyond 64 bits."""
    cdef uint64_t v = 0
    cdef int shift = 0
    cdef uint8_t b
    while True:
        if at[0] >= size or shift > 63:
            return -1
        b = data[at[0]]
        at[0] += 1
        v |= (<uint64_t>(b & 0x7F)) << shift
        if not b & 0x80:
            value[0] = v
            return 0
        shift += 7


def move_codes(Board start, ucis):
    """The Move codes of UCI moves played in turn from `start` (for games given as text:
    PGN, tests); MoveError at the first one that is not legal."""
    cdef Board board = start.copy()
    cdef Move m
    codes = []
    for uci in ucis:
        m = board._parse(uci)
        codes.append(m)
        board._push(m)
    return codes


def encode_game(Board start, moves, scores, int result, int termination):
    """One game's record: `moves` as Move codes (selfplay.play_game's) played from
    `start`, `scores` the mover's centipawns at each ply (None: an unscored game),
    `result` from White's view (0, 1, 2), `termination` an index of TERMINATIONS.
    ValueError if a move is not legal where it is played."""
    cdef Position pos = start.pos
    cdef Move legal[MAX_MOVES]
    cdef Undo u
    cdef int n, i, index
    cdef Move m
    cdef int64_t previous = 0
    if not 0 <= result <= 2 or not 0 <= termination <= 15:
        raise ValueError(f"result {result} or termination {termination} out of range")
    if scores is not None and len(scores) != len(moves):
        raise ValueError(f"{len(moves)} moves but {len(scores)} scores")
    out = bytearray([RECORD_TAG, (FLAG_CHESS960 if start.pos.chess960 else 0) | (result << 1)
                     | (termination << 3) | (FLAG_SCORED if scores is not None else 0)])
    fen = start.fen().encode("ascii")
    put_varint(out, len(fen))
    out += fen
    put_varint(out, len(moves))
    for i in range(len(moves)):
        m = moves[i]
        n = sorted_legal(&pos, legal)
        index = -1
        for j in range(n):
            if legal[j] == m:
                index = j
                break
        if index < 0:
            raise ValueError(f"ply {i + 1}: move {m} is not legal in {get_fen(&pos)}")
        out.append(index)
        make_move(&pos, m, &u)
    if scores is not None:
        for cp in scores:
            put_varint(out, zigzag(<int64_t>cp + previous))
            previous = cp
    return bytes(out)


cdef struct GameHeader:
    int flags
    Py_ssize_t fen_at
    Py_ssize_t fen_length
    Py_ssize_t moves_at
    Py_ssize_t plies


cdef int read_header(const uint8_t* data, Py_ssize_t size, Py_ssize_t* at, GameHeader* h) noexcept nogil:
    """Read a record's head; 0, or a problem code (1 tag, 2 cut short, 3 bad result or end)."""
    cdef uint64_t v
    if data[at[0]] != TAG:
        return 1
    if at[0] + 2 > size:
        return 2
    h.flags = data[at[0] + 1]
    at[0] += 2
    if ((h.flags >> 1) & 3) == 3 or ((h.flags >> 3) & 15) > 9:
        return 3
    if get_varint(data, size, at, &v) or v > 200 or at[0] + <Py_ssize_t>v > size:
        return 2
    h.fen_at, h.fen_length = at[0], <Py_ssize_t>v
    at[0] += h.fen_length
    if get_varint(data, size, at, &v) or at[0] + <Py_ssize_t>v > size:
        return 2
    h.plies = <Py_ssize_t>v
    h.moves_at = at[0]
    at[0] += h.plies
    return 0


HEADER_PROBLEMS = {1: "no record starts here (its tag is wrong)", 2: "cut short",
                   3: "a result or ending that does not exist"}


cdef object start_position(const uint8_t* data, GameHeader* h, Position* pos, Py_ssize_t game,
                           Py_ssize_t record_at):
    fen = (<bytes>data[h.fen_at:h.fen_at + h.fen_length]).decode("ascii", "replace")
    try:
        set_fen(pos, fen)
    except ValueError as e:
        raise ChainError(f"game {game + 1} (byte {record_at}): its start is no position "
                         f"({e})") from None
    pos.chess960 = h.flags & FLAG_CHESS960
    return fen


cdef void pack_record(const Position* p, int score_white, int result, uint8_t* out) noexcept nogil:
    """The packed format's 32 bytes for `p` (fitness/packed.py): occupancy, the pieces'
    nibbles in square order, side and castling (rights X-FEN calls K, Q, k, q only:
    the outermost rooks, as a packed set keeps them), en passant, score, result."""
    cdef U64 occ = p.all, b = p.all
    cdef int i = 0, sq, r, castling = 0
    memset(out, 0, PACKED_SIZE)
    memcpy(out, &occ, 8)            # little-endian hosts (x86-64, arm64)
    while b:
        sq = lsb(b)
        b &= b - 1
        if i & 1:
            out[8 + (i >> 1)] |= <uint8_t>(p.board[sq] << 4)
        else:
            out[8 + (i >> 1)] = <uint8_t>p.board[sq]
        i += 1
    for r in range(4):
        if p.castling & (1 << r) and p.castle_rook[r] == outermost_rook(p, r):
            castling |= 1 << r
    out[24] = <uint8_t>(p.side | (castling << 1))
    out[25] = <uint8_t>(<signed char>(p.ep if p.ep != NO_SQ else -1))
    out[26] = <uint8_t>(score_white & 0xFF)
    out[27] = <uint8_t>((score_white >> 8) & 0xFF)
    out[28] = <uint8_t>result


def decode_positions(const uint8_t[::1] data, int skip_plies=SKIP_PLIES):
    """The kept positions of every record in `data` (records only, no file header) as
    packed records (numpy uint8 [n, 32]), and counts (games, plies, kept, in_check,
    loud_move, unscored, castling_dropped). ChainError naming the game and byte of
    the first record that cannot be read."""
    cdef Py_ssize_t size = data.shape[0], at = 0, record_at, game = 0, ply, kept = 0
    cdef Py_ssize_t capacity = max(size // 2, 1)
    cdef GameHeader h
    cdef Position pos
    cdef Move legal[MAX_MOVES]
    cdef Undo u
    cdef Move m
    cdef int n, problem, index, result, score = 0, bad_ply = -1, r
    cdef uint64_t v
    cdef int64_t previous
    cdef Py_ssize_t score_at
    cdef long long in_check_count = 0, loud = 0, unscored = 0, dropped = 0, plies = 0
    cdef const uint8_t* raw = &data[0] if size else NULL
    out = np.empty((capacity, RECORD_SIZE), dtype=np.uint8)
    cdef uint8_t[:, ::1] records = out
    while at < size:
        record_at = at
        problem = read_header(raw, size, &at, &h)
        if problem:
            raise ChainError(f"game {game + 1} (byte {record_at}): {HEADER_PROBLEMS[problem]}")
        start_position(raw, &h, &pos, game, record_at)
        result = (h.flags >> 1) & 3
        score_at = at
        previous = 0
        bad_ply = -1
        problem = 0
        with nogil:
            for ply in range(h.plies):
                n = sorted_legal(&pos, legal)
                index = raw[h.moves_at + ply]
                if index >= n:
                    bad_ply = ply
                    break
                m = legal[index]
                if h.flags & SCORED:
                    if get_varint(raw, size, &at, &v):
                        problem = 2
                        break
                    score = <int>(unzigzag(v) - previous)
                    previous = score
                    if score < -SCORE_LIMIT or score > SCORE_LIMIT:
                        bad_ply = ply
                        problem = 4
                        break
                if ply >= skip_plies:
                    if in_check(&pos):
                        in_check_count += 1
                    elif move_is_capture(m) or move_is_promotion(m):
                        loud += 1
                    elif not h.flags & SCORED:
                        unscored += 1
                    else:
                        if kept == capacity:
                            with gil:
                                capacity *= 2
                                out = np.resize(out, (capacity, RECORD_SIZE))
                                records = out
                        for r in range(4):
                            if pos.castling & (1 << r) and pos.castle_rook[r] != outermost_rook(&pos, r):
                                dropped += 1
                                break
                        pack_record(&pos, score if pos.side == WHITE else -score, result,
                                    &records[kept, 0])
                        kept += 1
                make_move(&pos, m, &u)
            plies += h.plies
        if problem == 2:
            raise ChainError(f"game {game + 1} (byte {record_at}): its scores are cut short")
        if problem == 4:
            raise ChainError(f"game {game + 1} (byte {record_at}): ply {bad_ply + 1} has score "
                             f"{score}, beyond +-10000")
        if bad_ply >= 0:
            raise ChainError(f"game {game + 1} (byte {record_at}): ply {bad_ply + 1} plays move "
                             f"{raw[h.moves_at + bad_ply]} of {n} legal moves")
        game += 1
    counts = {"games": game, "plies": plies, "kept": kept, "in_check": in_check_count,
              "loud_move": loud, "unscored": unscored, "castling_dropped": dropped}
    return out[:kept].copy(), counts


def decode_games(const uint8_t[::1] data):
    """Every record of `data` as (start FEN, chess960, result 0-2, termination index,
    moves in UCI, scores or None): for converting a chain to other formats and for tests."""
    cdef Py_ssize_t size = data.shape[0], at = 0, record_at, game = 0, ply
    cdef GameHeader h
    cdef Position pos
    cdef Move legal[MAX_MOVES]
    cdef Undo u
    cdef int n, problem, index
    cdef uint64_t v
    cdef int64_t previous
    cdef const uint8_t* raw = &data[0] if size else NULL
    games = []
    while at < size:
        record_at = at
        problem = read_header(raw, size, &at, &h)
        if problem:
            raise ChainError(f"game {game + 1} (byte {record_at}): {HEADER_PROBLEMS[problem]}")
        fen = start_position(raw, &h, &pos, game, record_at)
        moves = []
        for ply in range(h.plies):
            n = sorted_legal(&pos, legal)
            index = raw[h.moves_at + ply]
            if index >= n:
                raise ChainError(f"game {game + 1} (byte {record_at}): ply {ply + 1} plays move "
                                 f"{index} of {n} legal moves")
            moves.append(move_to_uci(&pos, legal[index]))
            make_move(&pos, legal[index], &u)
        scores = None
        if h.flags & FLAG_SCORED:
            scores = []
            previous = 0
            for ply in range(h.plies):
                if get_varint(raw, size, &at, &v):
                    raise ChainError(f"game {game + 1} (byte {record_at}): its scores are cut short")
                previous = unzigzag(v) - previous
                scores.append(previous)
        games.append((fen, bool(h.flags & FLAG_CHESS960), (h.flags >> 1) & 3, (h.flags >> 3) & 15,
                      moves, scores))
        game += 1
    return games

