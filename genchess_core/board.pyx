# Board: the Python face of the C position, for the protocol layer, players and tests.
#
# It is deliberately not on the hot path: it trades speed for a friendly API
# (UCI strings in and out, exceptions with clear messages). Search and perft run
# on the wrapped C struct without the GIL.
#
# Chess960 positions need no mode: any FEN with X-FEN or Shredder-FEN castling
# rights is played by the Chess960 rules, standard chess being one of its start
# positions. The `chess960` flag only chooses how castling is written: the king's
# move (e1g1) or king-takes-rook (e1h1), as python-chess and UCI_Chess960 have it.

from collections import namedtuple
from libc.stdlib cimport malloc, realloc, free

from genchess_core.types cimport *
from genchess_core.position cimport (Position, Undo, make_move, unmake_move, make_null,
                                     unmake_null, in_check, set_fen, get_fen, move_to_uci,
                                     compute_key, repetition_count, castling_text, shown,
                                     is_standard_castling)
from genchess_core.movegen cimport (generate_legal, game_status, perft, GEN_ALL,
                                    STATUS_ONGOING, STATUS_CHECKMATE, STATUS_STALEMATE,
                                    STATUS_INSUFFICIENT, STATUS_SEVENTYFIVE, STATUS_FIVEFOLD,
                                    STATUS_FIFTY, STATUS_THREEFOLD)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class FenError(ValueError):
    """A FEN that does not describe a legal chess position; the message names the field."""


class MoveError(ValueError):
    """A move string that is malformed or not legal in the current position."""


Outcome = namedtuple("Outcome", "termination result reason")
Outcome.__doc__ = """How the game stands: termination is None while the game goes on,
else one of checkmate, stalemate, insufficient_material, seventyfive_moves,
fivefold_repetition, fifty_moves, threefold_repetition (python-chess's names);
result is '1-0', '0-1', '1/2-1/2' or '*'; reason is a sentence for people."""

_DRAWS = {
    STATUS_STALEMATE: ("stalemate", "Stalemate"),
    STATUS_INSUFFICIENT: ("insufficient_material", "Draw by insufficient material"),
    STATUS_SEVENTYFIVE: ("seventyfive_moves", "Draw by the seventy-five-move rule"),
    STATUS_FIVEFOLD: ("fivefold_repetition", "Draw by fivefold repetition"),
    STATUS_FIFTY: ("fifty_moves", "Draw by the fifty-move rule"),
    STATUS_THREEFOLD: ("threefold_repetition", "Draw by repetition"),
}


cdef class Board:
    """A chess position with its move history: Board(), Board(fen) or Board(fen, chess960=True)
    (castling written king-takes-rook)."""

    def __cinit__(self, fen=None, chess960=False):
        self.capacity = 64
        self.n_played = 0
        self.undos = <Undo*>malloc(self.capacity * sizeof(Undo))
        self.played = <Move*>malloc(self.capacity * sizeof(Move))
        if not self.undos or not self.played:
            raise MemoryError()

    def __init__(self, fen=None, chess960=False):
        self.set_fen(STARTING_FEN if fen is None else fen)
        self.chess960 = chess960

    def __dealloc__(self):
        free(self.undos)
        free(self.played)

    def set_fen(self, fen):
        """Set up `fen` (6 fields, or 4 as in EPD); on error raise FenError and keep the position."""
        if not isinstance(fen, str):
            raise FenError(f"FEN must be a string, not {type(fen).__name__}")
        cdef bint chess960 = self.pos.chess960
        try:
            set_fen(&self.pos, fen)
        except ValueError as e:
            raise FenError(f"invalid FEN {shown(fen.strip(), 120)}: {e}") from None
        self.pos.chess960 = chess960
        self.n_played = 0

    def fen(self, shredder=False):
        """The position as FEN, castling rights in X-FEN (KQkq, a rook's file only
        where K or Q would name another rook), or in Shredder-FEN (HAha) if asked."""
        return get_fen(&self.pos, shredder)

    @property
    def chess960(self):
        """Whether castling is written king-takes-rook (e1h1) rather than as the king's move."""
        return bool(self.pos.chess960)

    @chess960.setter
    def chess960(self, value):
        self.pos.chess960 = bool(value)

    def copy(self):
        """An independent board with the same position and history (cheap: a struct copy)."""
        cdef Board b = Board.__new__(Board)
        b.pos = self.pos
        b._reserve(self.n_played)
        b.n_played = self.n_played
        for i in range(self.n_played):
            b.undos[i] = self.undos[i]
            b.played[i] = self.played[i]
        return b

    cdef _reserve(self, int n):
        cdef Undo* u
        cdef Move* m
        if n < self.capacity:
            return
        while self.capacity <= n:
            self.capacity *= 2
        u = <Undo*>realloc(self.undos, self.capacity * sizeof(Undo))
        if not u:
            raise MemoryError()
        self.undos = u
        m = <Move*>realloc(self.played, self.capacity * sizeof(Move))
        if not m:
            raise MemoryError()
        self.played = m

    @property
    def turn(self):
        """'w' or 'b'."""
        return "w" if self.pos.side == WHITE else "b"

    @property
    def key(self):
        """The Zobrist key (64-bit unsigned)."""
        return self.pos.key

    @property
    def halfmove_clock(self):
        return self.pos.halfmove

    @property
    def fullmove_number(self):
        return self.pos.fullmove

    @property
    def move_stack(self):
        """Moves played since the position was set, as UCI strings."""
        return [move_to_uci(&self.pos, self.played[i]) for i in range(self.n_played)]

    def legal_moves(self):
        """Legal moves as UCI strings (castling as e1g1, or e1h1 in Chess960 notation;
        promotions as e7e8q)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL)
        return [move_to_uci(&self.pos, moves[i]) for i in range(n)]

    def castling_moves(self):
        """The legal castling moves, as {'O-O': uci, 'O-O-O': uci} (a side only when legal)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL), i
        return {"O-O" if move_flags(moves[i]) == FLAG_KING_CASTLE else "O-O-O": move_to_uci(&self.pos, moves[i])
                for i in range(n) if move_is_castle(moves[i])}

    cdef Move _parse(self, uci) except? 0:
        """The legal move `uci` names. Castling is read as the notation writes it, and
        also as king-takes-rook in standard notation and as the king's move where the
        king and rook start on standard squares (in Chess960 notation too), as
        python-chess reads it."""
        cdef Move moves[MAX_MOVES]
        cdef int n, i
        if not isinstance(uci, str) or not _looks_like_uci(uci):
            raise MoveError(f"malformed move {shown(uci) if isinstance(uci, str) else type(uci).__name__}: expected UCI notation such as e2e4 or e7e8q")
        n = generate_legal(&self.pos, moves, GEN_ALL)
        for i in range(n):
            if move_to_uci(&self.pos, moves[i]) == uci:
                return moves[i]
        for i in range(n):
            if move_is_castle(moves[i]) and (
                    castling_text(&self.pos, moves[i], True) == uci
                    or (is_standard_castling(&self.pos, moves[i])
                        and castling_text(&self.pos, moves[i], False) == uci)):
                return moves[i]
        raise MoveError(f"illegal move {shown(uci)} in position {self.fen()}")

    def parse_uci(self, uci):
        """The legal move `uci` names, written as legal_moves() writes it (castling in
        this board's notation); raise MoveError if malformed or illegal."""
        return move_to_uci(&self.pos, self._parse(uci))

    def is_capture(self, uci):
        """Whether the legal move `uci` captures (en passant included); raise
        MoveError if malformed or illegal."""
        return bool(move_is_capture(self._parse(uci)))

    def push_uci(self, uci):
        """Play a move given in UCI notation; raise MoveError if malformed or illegal."""
        self._push(self._parse(uci))

    cdef _push(self, Move m):
        self._reserve(self.n_played + 1)
        make_move(&self.pos, m, &self.undos[self.n_played])
        self.played[self.n_played] = m
        self.n_played += 1

    def push_null(self):
        """Pass the move to the opponent (for tests of null-move make/unmake)."""
        if in_check(&self.pos):
            raise MoveError("a null move is not possible while in check")
        self._reserve(self.n_played + 1)
        make_null(&self.pos, &self.undos[self.n_played])
        self.played[self.n_played] = MOVE_NONE
        self.n_played += 1

    def pop(self):
        """Take back the last move and return it as UCI ('0000' for a null move)."""
        cdef Move m
        if self.n_played == 0:
            raise IndexError("pop from a board with no moves played")
        self.n_played -= 1
        m = self.played[self.n_played]
        if m == MOVE_NONE:
            unmake_null(&self.pos, &self.undos[self.n_played])
        else:
            unmake_move(&self.pos, m, &self.undos[self.n_played])
        # The move being taken back overwrote the ring slot of the position
        # KEY_HISTORY plies earlier; put that key back (undos[i].key is the key
        # before move i, i.e. at ply i) so repetition counts survive long games.
        if self.n_played + 1 >= KEY_HISTORY:
            self.pos.history[(self.n_played + 1) & (KEY_HISTORY - 1)] = \
                self.undos[self.n_played + 1 - KEY_HISTORY].key
        return move_to_uci(&self.pos, m)

    def is_check(self):
        return bool(in_check(&self.pos))

    def repetition_count(self):
        return repetition_count(&self.pos)

    def outcome(self, claim_draw=False):
        """The game status with its reason, as an Outcome; claim_draw also reports
        the draws that must be claimed (fifty moves, threefold repetition)."""
        cdef int s = game_status(&self.pos, claim_draw)
        if s == STATUS_ONGOING:
            return Outcome(None, "*", "Game in progress")
        if s == STATUS_CHECKMATE:
            if self.pos.side == WHITE:
                return Outcome("checkmate", "0-1", "Black mates")
            return Outcome("checkmate", "1-0", "White mates")
        termination, reason = _DRAWS[s]
        return Outcome(termination, "1/2-1/2", reason)

    def is_game_over(self, claim_draw=False):
        return game_status(&self.pos, claim_draw) != STATUS_ONGOING

    def verify_key(self):
        """True when the incrementally updated key equals one computed from scratch."""
        return compute_key(&self.pos) == self.pos.key

    def perft(self, int depth, bint bulk=True):
        """Leaf nodes at depth, ignoring draw rules; runs without the GIL."""
        cdef U64 nodes
        if depth < 0:
            raise ValueError("perft depth must be non-negative")
        with nogil:
            nodes = perft(&self.pos, depth, bulk)
        return nodes

    def divide(self, int depth):
        """[(uci, leaf count)] for each root move, sorted by move."""
        cdef Move moves[MAX_MOVES]
        cdef Undo u
        cdef int n, i
        cdef U64 count
        if depth < 1:
            raise ValueError("divide needs depth >= 1")
        n = generate_legal(&self.pos, moves, GEN_ALL)
        result = []
        for i in range(n):
            with nogil:
                make_move(&self.pos, moves[i], &u)
                count = perft(&self.pos, depth - 1, True)
                unmake_move(&self.pos, moves[i], &u)
            result.append((move_to_uci(&self.pos, moves[i]), count))
        return sorted(result)

    def __str__(self):
        rows = self.fen().split()[0].split("/")
        out = []
        for i, row in enumerate(rows):
            squares = "".join("." * int(c) if c.isdigit() else c for c in row)
            out.append(f"{8 - i} " + " ".join(squares))
        out.append("  a b c d e f g h")
        return "\n".join(out)

    def __repr__(self):
        return f"Board({self.fen()!r})"


def _looks_like_uci(str s):
    return (len(s) in (4, 5) and s[0] in "abcdefgh" and s[1] in "12345678"
            and s[2] in "abcdefgh" and s[3] in "12345678" and (len(s) == 4 or s[4] in "nbrq"))
