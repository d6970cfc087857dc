"""A person at the terminal: moves in standard algebraic notation or coordinates.

SAN is written and read here over Board.legal_moves() (python-chess is not a
runtime dependency): a move's SAN is built from the legal move list (piece letter,
the least disambiguation that makes it unique, x, =Q, + or #), and reading
matches what the person typed against the legal moves, so every message can say
exactly why an entry was refused: malformed, illegal (and why, as far as a
beginner needs) or ambiguous (with the candidates). Reading is lenient where no
ambiguity can arise: check marks and annotations are ignored, `0-0` means `O-O`,
piece letters may be lower case except `b` (a b-pawn move when one is legal), and
castling may also be typed in coordinates as the king's move or king-takes-rook
(in Chess960 too, where O-O is the king going to g1 and its rook to f1 from
wherever they stand).

Input goes through HumanIO, which reads whole lines from a file descriptor with a
timeout, so a running clock can flag a person who is still thinking.
"""

from __future__ import annotations

import os
import re
import select
import sys
import time

from genchess.players import SQUARE_INDEX, castling_sides, placement, read_coordinates
from genchess.game import GameEnded, TimeExpired  # noqa: F401  (TimeExpired: raised by HumanIO)
from genchess_core import MoveError

PIECE_NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}
HELP = """\
Enter a move in standard algebraic notation (e4, Nf3, exd5, Nbd2, O-O, O-O-O, e8=Q;
check marks optional) or in coordinates (e2e4, e2-e4, e7e8q).
Commands: help (this text), moves (list the legal moves), board (show the board),
          draw (offer a draw), resign, quit (stop the game; Ctrl-D also quits)."""

COORDINATE = re.compile(r"^([a-h][1-8])\s*[-x:]?\s*([a-h][1-8])\s*(?:=?\(?([qrbnQRBN])\)?)?$")
SAN = re.compile(r"^([NBRQK])?([a-h])?([1-8])?(x|:|-)?([a-h][1-8])(?:=?\(?([NBRQnbrq])\)?)?$")


class MoveInputError(ValueError):
    """An entry that is not a move here; `kind` is malformed, illegal or ambiguous."""

    def __init__(self, kind: str, message: str, candidates: list[str] | None = None):
        super().__init__(message)
        self.kind = kind
        self.candidates = candidates or []


# ------------------------------------------------------------------ SAN

def _san_body(arr, move: str, legal: list[str], castles: dict[str, str]) -> str:
    """SAN without the check mark."""
    if move in castles:
        return castles[move]
    frm = SQUARE_INDEX[move[:2]]
    piece = arr[frm].upper()
    capture = arr[SQUARE_INDEX[move[2:4]]] != "." or (piece == "P" and move[0] != move[2])
    if piece == "P":
        text = (move[0] + "x" if capture else "") + move[2:4]
        if len(move) == 5:
            text += "=" + move[4].upper()
        return text
    rivals = [m for m in legal if m[2:4] == move[2:4] and m[:2] != move[:2]
              and arr[SQUARE_INDEX[m[:2]]] == arr[frm] and m not in castles]
    disambiguation = ""
    if rivals:
        if all(m[0] != move[0] for m in rivals):
            disambiguation = move[0]
        elif all(m[1] != move[1] for m in rivals):
            disambiguation = move[1]
        else:
            disambiguation = move[:2]
    return piece + disambiguation + ("x" if capture else "") + move[2:4]


def _suffix(board, move: str) -> str:
    board.push_uci(move)
    try:
        if not board.is_check():
            return ""
        return "#" if not board.legal_moves() else "+"
    finally:
        board.pop()


def san(board, move: str) -> str:
    """The SAN of legal UCI `move` on `board` (left unchanged)."""
    legal = board.legal_moves()
    if move not in legal:
        raise ValueError(f"{move} is not legal in {board.fen()}")
    arr = placement(board.fen())
    return _san_body(arr, move, legal, castling_sides(board)) + _suffix(board, move)


def san_moves(board) -> dict[str, str]:
    """{uci: san} for every legal move."""
    legal = board.legal_moves()
    arr = placement(board.fen())
    castles = castling_sides(board)
    return {m: _san_body(arr, m, legal, castles) + _suffix(board, m) for m in legal}


def san_line(board, moves: list[str]) -> list[str]:
    """The SAN of each move of a line played from `board` (left unchanged)."""
    work = board.copy()
    out = []
    for move in moves:
        out.append(san(work, move))
        work.push_uci(move)
    return out


# ------------------------------------------------------------------ reading

def _side_name(board) -> str:
    return "White" if board.turn == "w" else "Black"


def _illegal(board, text: str, why: str) -> MoveInputError:
    note = f" ({_side_name(board)} is in check)" if board.is_check() else ""
    return MoveInputError("illegal", f"Illegal move {text!r}: {why}{note}.")


def _ambiguous(text: str, sans: list[str], what: str = "") -> MoveInputError:
    listed = ", ".join(sorted(sans))
    return MoveInputError("ambiguous", f"Ambiguous move {text!r}{what}: it could be {listed}.",
                          sorted(sans))


def parse_move(board, text: str) -> str:
    """The legal UCI move a person meant by `text`; raise MoveInputError."""
    raw = text.strip()
    entry = re.sub(r"(\s*(e\.p\.|ep))$", "", raw)
    entry = entry.rstrip("+#!? ")
    if not entry:
        raise MoveInputError("malformed", f"Malformed move {raw!r}: type a move such as e4, Nf3, "
                                          "O-O, e8=Q or e2e4 ('help' for more).")
    legal = board.legal_moves()
    if not legal:
        raise MoveInputError("illegal", "The game is over: there is no legal move.")
    arr = placement(board.fen())
    white = board.turn == "w"
    castles = castling_sides(board)
    sans = {m: _san_body(arr, m, legal, castles) for m in legal}

    castle = entry.replace("0", "O").replace("o", "O").replace(" ", "")
    if castle in ("O-O", "OO", "O-O-O", "OOO"):
        long = len(castle.replace("-", "")) == 3
        for move, side in castles.items():
            if (side == "O-O-O") == long:
                return move
        side = "queenside" if long else "kingside"
        raise _illegal(board, raw, f"{_side_name(board)} cannot castle {side} now")

    m = COORDINATE.match(entry)
    if m:
        return _match_coordinates(board, arr, legal, sans, raw, *m.groups())

    m = SAN.match(entry)
    if m is None and entry[:1] in "nrqk" and len(entry) > 1:
        m = SAN.match(entry[0].upper() + entry[1:])          # nf3 -> Nf3
    if m is None:
        raise MoveInputError("malformed", f"Malformed move {raw!r}: type a move such as e4, Nf3, "
                                          "exd5, O-O, e8=Q or e2e4 ('help' for more).")
    piece, from_file, from_rank, capture, dest, promo = m.groups()
    found = _san_candidates(arr, legal, castles, piece or "P", from_file, from_rank, dest, promo)
    if not found and piece is None and from_file == "b" and from_rank is None:
        # "bc4" / "bxc4" read as a b-pawn move first; a bishop move if no pawn can.
        bishop = _san_candidates(arr, legal, castles, "B", None, None, dest, promo)
        if bishop:
            found = bishop
            piece, from_file = "B", None
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        if {m[:4] for m in found} == {found[0][:4]}:
            raise _ambiguous(raw, [sans[m] for m in found], " needs a promotion piece")
        raise _ambiguous(raw, [sans[m] for m in found])
    raise _illegal(board, raw, _why_not(arr, legal, sans, white, piece or "P", from_file,
                                        from_rank, dest, promo))


def _san_candidates(arr, legal, castles, piece, from_file, from_rank, dest, promo) -> list[str]:
    found = []
    for move in legal:
        frm = SQUARE_INDEX[move[:2]]
        if arr[frm].upper() != piece or move[2:4] != dest:
            continue
        if move in castles:
            continue                      # castling is written O-O, not Kg1
        if from_file and move[0] != from_file:
            continue
        if from_rank and move[1] != from_rank:
            continue
        if piece == "P" and not from_file and move[0] != dest[0]:
            continue                      # a pawn capture must name its file
        if promo and move[4:] != promo.lower():
            continue
        if piece != "P" and promo:
            continue
        found.append(move)
    return found


def _why_not(arr, legal, sans, white, piece, from_file, from_rank, dest, promo) -> str:
    name = PIECE_NAMES[piece]
    colour = "white" if white else "black"
    own = piece if white else piece.lower()
    if own not in arr:
        return f"{colour} has no {name}"
    if piece == "P" and promo is not None and dest[1] not in "18":
        return "a pawn only promotes on the last rank"
    to_dest = [m for m in legal if m[2:4] == dest and arr[SQUARE_INDEX[m[:2]]].upper() == piece]
    if to_dest:
        hint = ", ".join(sorted({sans[m] for m in to_dest}))
        return f"no {name} matching that can go to {dest}; did you mean {hint}"
    return f"no {colour} {name} can move to {dest}"


def _match_coordinates(board, arr, legal, sans, raw, frm, to, promo) -> str:
    move = frm + to + (promo.lower() if promo else "")
    if move in legal:
        return move
    try:
        return read_coordinates(board, move)       # castling in the other spelling
    except MoveError:
        pass
    promotions = [m for m in legal if m[:4] == frm + to and len(m) == 5]
    if promotions and not promo:
        raise _ambiguous(raw, [sans[m] for m in promotions], " needs a promotion piece")
    piece = arr[SQUARE_INDEX[frm]]
    white = board.turn == "w"
    if piece == ".":
        why = f"there is no piece on {frm}"
    elif piece.isupper() != white:
        why = f"the {PIECE_NAMES[piece.upper()]} on {frm} is not {_side_name(board)}'s"
    elif promo and not promotions:
        why = f"the move {frm}{to} is not a promotion"
    else:
        why = f"the {PIECE_NAMES[piece.upper()]} on {frm} cannot move to {to}"
    raise _illegal(board, raw, why)


# ------------------------------------------------------------------ the terminal

class QuitGame(GameEnded):
    """The person quit (or input ended): the game stops unfinished."""

    def __init__(self, why: str):
        super().__init__("*", "abandoned", f"Game abandoned: {why}")


class DrawAgreed(GameEnded):
    """A draw offer was accepted."""

    def __init__(self):
        super().__init__("1/2-1/2", "agreement", "Draw by agreement")


class HumanIO:
    """Whole lines from a file descriptor, with a timeout; text out, flushed.

    Reading the descriptor directly (not through sys.stdin's buffer) is what
    makes the timeout honest: select() sees every byte that was typed."""

    def __init__(self, inp=None, out=None):
        self.inp = inp if inp is not None else sys.stdin
        self.out = out if out is not None else sys.stdout
        try:
            self.fd = self.inp.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.buffer = b""
        self.eof = False

    def write(self, text: str = "", end: str = "\n") -> None:
        try:
            self.out.write(text + end)
            self.out.flush()
        except (OSError, ValueError):
            pass

    def readline(self, timeout: float | None = None) -> str | None:
        """A line without its newline, or None at end of input; raise TimeExpired
        when `timeout` seconds pass first."""
        if self.fd is None:
            line = self.inp.readline()
            return line.rstrip("\r\n") if line else None
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if self.eof:
                if not self.buffer:
                    return None
                line, self.buffer = self.buffer, b""
                return line.decode("utf-8", "replace").rstrip("\r")
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                raise TimeExpired()
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self.eof = True
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace").rstrip("\r")


class HumanPlayer:
    """choose_move asks at the terminal; resign returns None; quit and end of input
    raise QuitGame; an accepted draw offer raises DrawAgreed; a flag falling while
    typing raises TimeExpired. `on_draw_offer(board) -> bool` answers offers (set
    by the game: computers decline, a human opponent is asked)."""

    def __init__(self, io: HumanIO | None = None, name: str = "Human"):
        self.name = name
        self.io = io or HumanIO()
        self.on_draw_offer = None
        self.on_board = None          # redraws the board on request

    def new_game(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def choose_move(self, board, clock) -> str | None:
        side = 0 if board.turn == "w" else 1
        start = time.monotonic()
        prompt = f"{_side_name(board)} ({self.name}) to move: "
        while True:
            timeout = None
            if clock is not None:
                timeout = max(clock.remaining[side] - (time.monotonic() - start), 0.0)
            self.io.write(prompt, end="")
            line = self.io.readline(timeout)
            if line is None:
                self.io.write()
                raise QuitGame("input ended")
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("help", "?", "h"):
                self.io.write(HELP)
            elif command in ("moves", "legal"):
                listed = sorted(san_moves(board).values())
                self.io.write("Legal moves: " + " ".join(listed))
            elif command == "board":
                if self.on_board is not None:
                    self.on_board()
            elif command == "resign":
                return None
            elif command in ("quit", "exit"):
                raise QuitGame(f"{_side_name(board)} quit")
            elif command in ("draw", "offer draw", "draw?"):
                if self.on_draw_offer is not None and self.on_draw_offer(board):
                    raise DrawAgreed()
            else:
                try:
                    return parse_move(board, text)
                except MoveInputError as e:
                    self.io.write(str(e))
