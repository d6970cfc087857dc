"""xboard / CECP version 2: GenChess in xboard, WinBoard, Cute Chess and cutechess-cli.

Unlike UCI, CECP keeps the game in the engine: the engine tracks whose side it
plays, the clocks and the moves, and answers a user move with its own when it is
its turn. This module is that state machine; the thinking itself is the same
engine facade UCI uses. Errors get the replies the specification asks for
(`Illegal move: X`, `Error (...): X`) and leave the game as it was.

Chess960 is CECP's variant `fischerandom`: castling is sent as O-O and O-O-O, as
the specification asks, and read in every form a GUI may use (O-O, the king's
move, king-takes-rook); `new` returns to the variant `normal`.
"""

from __future__ import annotations

import signal

from genchess import __version__
from genchess.engine import SEARCH_MODES, Engine, Info, SearchResult
from genchess.players import castling_sides, read_coordinates
from genchess.protocols.channel import Channel
from genchess.protocols.options import ELO_RANGE, SPINS, OptionError, Settings, TRIALS

BOOK_DEPTH = SPINS["Book Depth"]
from genchess.timeman import Limits
from genchess_core import STARTING_FEN, FenError, MoveError

MATE_SCORE_XBOARD = 100000      # mate in N is reported as 100000 + N, mated as -100000 - N

# Commands we accept and ignore: they inform, but change nothing we use.
IGNORED = {"accepted", "rejected", "random", "computer", "name", "rating", "ics", "draw",
           "hint", "bk", "egtpath", "xboard", "pause", "resume"}

VARIANTS = ("normal", "fischerandom")
CASTLING_WORDS = {"O-O": "O-O", "O-O-O": "O-O-O", "0-0": "O-O", "0-0-0": "O-O-O"}


class XboardError(ValueError):
    """A malformed or unusable command; reported as `Error (reason): command`."""


def finite_number(text: str, lo: float, hi: float) -> float:
    """A number from lo to hi (clamped), or XboardError for nan, inf and non-numbers."""
    try:
        value = float(text)
    except ValueError:
        raise XboardError(f"bad number {text[:40]!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise XboardError(f"bad number {text[:40]!r}")
    return min(max(value, lo), hi)


def parse_base_minutes(text: str) -> float:
    """`level` BASE: minutes, or MIN:SEC."""
    if ":" in text:
        minutes, _, seconds = text.partition(":")
        return finite_number(minutes, 0, 10**5) + finite_number(seconds, 0, 59) / 60
    return finite_number(text, 0, 10**5)


def format_thinking(info: Info, pv: list[str]) -> str | None:
    """CECP's thinking line for `info`, with its principal variation written as `pv`."""
    if not info.depth or info.score is None:
        return None
    if info.score.mate is not None:
        mate = info.score.mate
        score = MATE_SCORE_XBOARD + mate if mate > 0 else -MATE_SCORE_XBOARD + mate
    else:
        score = info.score.cp
    return f"{info.depth} {score} {info.time_ms // 10} {info.nodes} {' '.join(pv)}"


class XboardProtocol:
    def __init__(self, engine: Engine, settings: Settings, channel: Channel):
        self.engine = engine
        self.settings = settings
        self.channel = channel
        self.force = False
        self.engine_white = False          # the side the engine plays (when not in force mode)
        self.post = True
        self.ponder = False
        self.analyzing = False
        self.thinking = False              # searching for our own move (not pondering/analysing)
        self.pending_pongs: list[str] = []
        self.moves_per_control = 0
        self.base_ms = 5 * 60 * 1000
        self.increment_ms = 0
        self.seconds_per_move: float | None = None
        self.depth_limit: int | None = None
        self.own_time_ms: int | None = None
        self.opp_time_ms: int | None = None
        self.time_is_fresh = False         # a `time` came since our last search started
        self.game_over = False

    def send(self, line: str) -> None:
        self.channel.send(line)

    def run(self, first_line: str | None = None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # xboard sends SIGINT; we declared sigint=0
        self.channel.serve(self.handle, first_line)
        self.halt()

    def handle(self, line: str) -> bool:
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        try:
            if command in IGNORED:
                return True
            handler = {"?": self.cmd_move_now, ".": self.cmd_status}.get(command)
            if handler is None and command.isidentifier():
                handler = getattr(self, "cmd_" + command, None)
            if handler is not None:
                handler(args)
            elif self._looks_like_move(command) and not args:
                self.user_move(command)          # bare moves, for usermove-less interfaces
            else:
                self.send(f"Error (unknown command): {line[:200]}")
        except XboardError as e:
            self.send(f"Error ({e}): {line[:200]}")
        except OptionError as e:
            self.send(f"Error ({e}): {line[:200]}")
        except Exception as e:                   # never a traceback on the protocol
            self.send(f"Error (internal: {type(e).__name__}: {e}): {line[:200]}")
        return True

    @staticmethod
    def _looks_like_move(text: str) -> bool:
        return text in CASTLING_WORDS or len(text) in (4, 5) and text[0] in "abcdefgh" \
            and text[1] in "12345678" and text[2] in "abcdefgh" and text[3] in "12345678"

    def cecp_moves(self, moves: list[str]) -> list[str]:
        """Moves from the current position (UCI, the engine's notation) as CECP writes
        them: in fischerandom castling is O-O or O-O-O, the rest as they are."""
        if not self.engine.chess960:
            return moves
        board = self.engine.board.copy()
        written = []
        for move in moves:
            written.append(castling_sides(board).get(move, move))
            try:
                board.push_uci(move)
            except MoveError:
                return written + moves[len(written):]
        return written

    def read_move(self, text: str) -> str:
        """A move as a GUI sends it, as the engine's UCI: coordinates (castling as
        king-takes-rook or, where it is no other king move, as the king's move) or
        O-O / O-O-O; MoveError if it is no legal move."""
        board = self.engine.board
        if text in CASTLING_WORDS:
            castling = board.castling_moves()
            if CASTLING_WORDS[text] not in castling:
                raise MoveError(f"no legal {text} here")
            return castling[CASTLING_WORDS[text]]
        return read_coordinates(board, text)

    @staticmethod
    def _centiseconds(text: str) -> int:
        return int(finite_number(text, 0, 10**8))

    # ------------------------------------------------------------- searching

    def halt(self) -> None:
        """Stop any search (thinking, pondering, analysing) and wait for it; a move
        being thought about is dropped, not played (only `?` plays it at once)."""
        self.thinking = False
        self.engine.stop()
        self.engine.wait()

    def engine_to_move(self) -> bool:
        return (self.engine.board.turn == "w") == self.engine_white

    def maybe_think(self) -> None:
        """Start thinking if it is our move and we are not in force mode."""
        if self.force or self.analyzing or self.game_over or not self.engine_to_move():
            return
        if not self.engine.board.legal_moves():
            self.game_over = True
            return
        limits = self.search_limits()
        self.thinking = True
        self.engine.go(limits, on_info=self.on_info, on_bestmove=self.on_bestmove)

    def search_limits(self) -> Limits:
        # The clock runs from the line that made it our move (usermove, go, ...).
        limits = Limits(depth=self.depth_limit, received=self.channel.received)
        if self.seconds_per_move is not None:
            limits.movetime = int(self.seconds_per_move * 1000)
            return limits
        own = self.own_time_ms if self.own_time_ms is not None else self.base_ms
        opp = self.opp_time_ms if self.opp_time_ms is not None else self.base_ms
        white = self.engine.board.turn == "w"
        limits.wtime, limits.btime = (own, opp) if white else (opp, own)
        limits.winc = limits.binc = self.increment_ms
        # A clock remembered from an earlier `time` (or the base) says nothing of the lag.
        limits.clock_is_fresh, self.time_is_fresh = self.time_is_fresh, False
        if self.moves_per_control:
            done = (self.engine.board.fullmove_number - 1) % self.moves_per_control
            limits.movestogo = self.moves_per_control - done
        return limits

    def on_info(self, info: Info) -> None:
        if self.post:
            line = format_thinking(info, self.cecp_moves(info.pv))
            if line:
                self.send(line)

    def on_bestmove(self, result: SearchResult) -> None:
        """Runs in the search thread: play our move, claim a finished game, then pongs."""
        if self.thinking and result.bestmove is not None and not self.force:
            move = self.cecp_moves([result.bestmove])[0]
            self.engine.board.push_uci(result.bestmove)
            self.send(f"move {move}")
            self.claim_if_over()
        self.thinking = False
        self.flush_pongs()

    def claim_if_over(self) -> None:
        outcome = self.engine.board.outcome(claim_draw=True)
        if outcome.termination is not None:
            self.game_over = True
            self.send(f"{outcome.result} {{{outcome.reason}}}")

    def flush_pongs(self) -> None:
        while self.pending_pongs:
            self.send(f"pong {self.pending_pongs.pop(0)}")

    def start_pondering(self) -> None:
        # Think on the opponent's time about the position they must answer: it
        # fills the hash table with what our next search will need.
        if self.ponder and not self.force and not self.game_over and not self.engine_to_move() \
                and self.engine.board.legal_moves():
            self.engine.go(Limits(infinite=True))

    def restart_analysis(self) -> None:
        self.halt()
        if self.analyzing and self.engine.board.legal_moves():
            self.engine.go(Limits(infinite=True), on_info=self.on_info)

    # ------------------------------------------------------------- commands

    def cmd_protover(self, args):
        features = [
            "ping=1", "setboard=1", "usermove=1", "playother=1", "time=1", "draw=0", "sigint=0",
            "sigterm=0", "reuse=1", "analyze=1", "colors=0", "name=1", "memory=1", "san=0",
            "pause=0", "nps=0", "debug=1", "smp=1", f'variants="{",".join(VARIANTS)}"',
            f'myname="{getattr(self.engine, "display_name", f"GenChess {__version__}")}"',
            'option="Genome -file <default>"', 'option="Genome ID -string <none>"',
            'option="Search -combo *' + " /// ".join(SEARCH_MODES) + '"',
            'option="GA Init Level -spin 1 1 2"',
            'option="GA Nodes -spin {0.default} {0.lo} {0.hi}"'.format(SPINS["GA Nodes"]),
            'option="Hash -spin 16 1 4096"', 'option="Move Overhead -spin 30 0 5000"',
            'option="Book File -file "', f'option="Book Depth -spin {BOOK_DEPTH.default} '
            f'{BOOK_DEPTH.lo} {BOOK_DEPTH.hi}"',
            'option="Skill Level -spin {0.default} {0.lo} {0.hi}"'.format(SPINS["Skill Level"]),
            *(f'option="{name} -check 0"' for name in TRIALS),
        ]
        if ELO_RANGE is not None:    # the names UCI GUIs know, as Fairy-Stockfish offers them in CECP
            features += ['option="UCI_LimitStrength -check 0"',
                         'option="UCI_Elo -spin {0.default} {0.lo} {0.hi}"'.format(SPINS["UCI_Elo"])]
        self.send("feature " + " ".join(features) + " done=1")

    def cmd_new(self, args):
        self.halt()
        self.analyzing = False
        self.engine.set_chess960(False)               # CECP: `new` resets the variant to normal
        self.engine.set_position(STARTING_FEN)
        self.engine.new_game()
        self.force = False
        self.engine_white = False
        self.depth_limit = None
        self.seconds_per_move = None
        self.game_over = False

    def cmd_variant(self, args):
        """`variant fischerandom` (Chess960: castling as O-O and O-O-O) or `normal`;
        the position comes next, by setboard."""
        if not args or args[0] not in VARIANTS:
            raise XboardError(f"variant {' '.join(args)[:40]!r} is not played here "
                              f"(variants: {', '.join(VARIANTS)})")
        self.halt()
        self.engine.set_chess960(args[0] == "fischerandom")

    def cmd_force(self, args):
        self.halt()
        self.force = True

    def cmd_go(self, args):
        self.halt()
        self.force = False
        self.analyzing = False
        self.engine_white = self.engine.board.turn == "w"
        self.maybe_think()

    def cmd_playother(self, args):
        self.halt()
        self.force = False
        self.engine_white = self.engine.board.turn != "w"
        self.start_pondering()

    def cmd_white(self, args):
        self.halt()
        self._set_turn("w")
        self.engine_white = False

    def cmd_black(self, args):
        self.halt()
        self._set_turn("b")
        self.engine_white = True

    def _set_turn(self, turn: str) -> None:
        fields = self.engine.board.fen().split()
        if fields[1] != turn:
            fields[1], fields[3] = turn, "-"
            try:
                self.engine.set_position(" ".join(fields))
            except FenError as e:
                raise XboardError(f"cannot give the move to that side: {e}") from None

    def cmd_usermove(self, args):
        if len(args) != 1:
            raise XboardError("usermove takes one move")
        self.user_move(args[0])

    def user_move(self, move: str) -> None:
        if self.thinking:
            # A move while we think on our own move is out of turn: refuse it.
            self.send(f"Illegal move (not your turn): {move}")
            return
        self.halt()                              # stop pondering or analysing
        try:
            self.engine.board.push_uci(self.read_move(move))
        except MoveError:
            self.send(f"Illegal move: {move}")
            if self.analyzing:
                self.restart_analysis()
            return
        if self.analyzing:
            self.restart_analysis()
            return
        if self.engine.board.is_game_over(claim_draw=False):
            self.game_over = True
            return
        self.maybe_think()

    def cmd_setboard(self, args):
        self.halt()
        fen = " ".join(args)
        try:
            self.engine.set_position(fen)
        except FenError as e:
            self.send(f"tellusererror Illegal position: {e}")
            raise XboardError("illegal position") from None
        self.game_over = False
        if self.analyzing:
            self.restart_analysis()

    def cmd_level(self, args):
        if len(args) != 3:
            raise XboardError("level takes MPS BASE INC")
        if any(arg.lstrip().startswith("-") for arg in args):
            raise XboardError("level values must not be negative")
        mps = int(finite_number(args[0], 0, 10_000))
        increment = finite_number(args[2], 0, 10**5)
        self.moves_per_control = mps
        self.base_ms = int(parse_base_minutes(args[1]) * 60_000)
        self.increment_ms = int(increment * 1000)
        self.seconds_per_move = None

    def cmd_st(self, args):
        if not args:
            raise XboardError("st takes a number of seconds")
        seconds = finite_number(args[0], 0, 10**6)
        if seconds <= 0:
            raise XboardError("st must be positive")
        self.seconds_per_move = seconds

    def cmd_sd(self, args):
        try:
            depth = int(args[0])
        except (ValueError, IndexError):
            raise XboardError("sd takes a whole number") from None
        if depth < 1:
            raise XboardError("sd must be at least 1")
        self.depth_limit = min(depth, 126)

    def cmd_time(self, args):
        if not args:
            raise XboardError("time takes centiseconds")
        self.own_time_ms = self._centiseconds(args[0]) * 10
        self.time_is_fresh = True

    def cmd_otim(self, args):
        if not args:
            raise XboardError("otim takes centiseconds")
        self.opp_time_ms = self._centiseconds(args[0]) * 10

    def cmd_ping(self, args):
        token = args[0] if args else ""
        if self.thinking:
            self.pending_pongs.append(token)     # answered after our move, as CECP requires
        else:
            self.send(f"pong {token}")

    def cmd_result(self, args):
        self.halt()
        self.game_over = True

    def cmd_undo(self, args):
        self._take_back(1)

    def cmd_remove(self, args):
        self._take_back(2)

    def _take_back(self, plies: int) -> None:
        self.halt()
        if len(self.engine.board.move_stack) < plies:
            raise XboardError("no move to take back")
        for _ in range(plies):
            self.engine.board.pop()
        self.game_over = False
        if self.analyzing:
            self.restart_analysis()

    def cmd_hard(self, args):
        self.ponder = True

    def cmd_easy(self, args):
        self.ponder = False
        if not self.thinking and not self.analyzing:
            self.halt()

    def cmd_post(self, args):
        self.post = True

    def cmd_nopost(self, args):
        self.post = False

    def cmd_move_now(self, args):
        if self.thinking:
            self.engine.stop()

    def cmd_analyze(self, args):
        self.halt()
        self.analyzing = True
        self.restart_analysis()

    def cmd_exit(self, args):
        if self.analyzing:
            self.analyzing = False
            self.halt()

    def cmd_status(self, args):
        if self.analyzing:
            nodes, _ = self.engine.searcher.progress()
            self.send(f"stat01: 0 {nodes} 0 0 0")

    def cmd_cores(self, args):
        """CECP's `cores N` (with feature smp=1): search on at most N threads, and never
        more than the machine has."""
        try:
            cores = int(args[0])
        except (ValueError, IndexError):
            raise XboardError("cores takes a number of cores") from None
        self.halt()
        self.settings.set_threads(str(max(1, min(cores, SPINS["Threads"].hi))))

    def cmd_memory(self, args):
        try:
            megabytes = int(args[0])
        except (ValueError, IndexError):
            raise XboardError("memory takes megabytes") from None
        self.halt()
        self.settings.set_hash(str(max(1, min(megabytes, 4096))))

    def cmd_option(self, args):
        text = " ".join(args)
        name, _, value = text.partition("=")
        setter = self.settings.setter(name)
        if setter is None:
            raise XboardError(f"unknown option {name.strip()!r}")
        self.halt()
        setter(value)
