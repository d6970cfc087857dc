"""UCI: GenChess as seen by Arena, Cute Chess, cutechess-cli and python-chess.

The protocol thread only parses and answers; searches run in the engine's thread,
which prints `info` and the single `bestmove` of each `go`. A malformed command
gets an `info string` saying what was wrong and changes nothing, so a GUI's typo
never costs a game.
"""

from __future__ import annotations

from genchess import __version__
from genchess.engine import SEARCH_MODES, Engine, Info, SearchResult
from genchess.protocols.channel import Channel
from genchess.protocols.options import DEFAULT_GENOME, ELO_RANGE, SPINS, OptionError, Settings, TRIALS
from genchess.protocols.wdl import material, wdl
from genchess.timeman import Limits
from genchess_core import FenError, MoveError

GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")


class UciError(ValueError):
    """A command that cannot be carried out; reported as `info string`."""


# Clamps keep absurd numbers (a fuzzer's, a broken GUI's) inside what the search
# can hold; the result is still a search that ends in one bestmove.
GO_LIMITS = {"depth": (1, 126), "mate": (1, 60), "nodes": (1, 2**62), "movestogo": (1, 10_000),
             "movetime": (0, 10**9), "wtime": (0, 10**9), "btime": (0, 10**9),
             "winc": (0, 10**8), "binc": (0, 10**8)}


def parse_go(tokens: list[str], problems: list[str]) -> Limits:
    """Limits from `go` tokens; what cannot be used is skipped and described in
    `problems` (Stockfish ignores unknown words too): every go gets a bestmove."""
    limits = Limits()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in GO_INT_PARAMS:
            if i + 1 >= len(tokens):
                problems.append(f"go {word} needs a number")
                break
            try:
                value = int(tokens[i + 1])
            except ValueError:
                problems.append(f"go {word}: {tokens[i + 1][:40]!r} is not a whole number")
                i += 2
                continue
            lo, hi = GO_LIMITS[word]
            if not lo <= value <= hi:
                problems.append(f"go {word} {value}: using {min(max(value, lo), hi)}")
                value = min(max(value, lo), hi)
            setattr(limits, word, value)
            i += 2
        elif word == "infinite":
            limits.infinite = True
            i += 1
        elif word == "ponder":
            limits.ponder = True
            i += 1
        elif word == "searchmoves":
            i += 1
            while i < len(tokens) and tokens[i] not in GO_INT_PARAMS + ("infinite", "ponder"):
                limits.searchmoves.append(tokens[i])
                i += 1
        else:
            problems.append(f"go: unknown parameter {word[:40]!r} ignored")
            i += 1
    return limits


def format_info(info: Info, root_material: int | None = None) -> str:
    """An info line; with the root's material (UCI_ShowWDL on), the score's win,
    draw and loss chances in permille after it, as Stockfish writes them."""
    parts = ["info"]
    if info.depth:
        parts += ["depth", str(info.depth), "seldepth", str(info.seldepth), "multipv", str(info.multipv)]
    if info.score is not None:
        parts += ["score", str(info.score)]
        if root_material is not None:
            parts += ["wdl", *map(str, wdl(info.score.cp, info.score.mate, root_material))]
    parts += ["nodes", str(info.nodes), "nps", str(info.nps), "hashfull", str(info.hashfull),
              "time", str(info.time_ms)]
    if info.pv:
        parts += ["pv"] + info.pv
    if info.string:
        parts += ["string", info.string]     # UCI: the rest of the line
    return " ".join(parts)


class UciProtocol:
    def __init__(self, engine: Engine, settings: Settings, channel: Channel):
        self.engine = engine
        self.settings = settings
        self.channel = channel
        self.limits: Limits | None = None      # of the running `go`, for ponderhit
        self.root_material: int | None = None  # of the running `go`'s position, with UCI_ShowWDL
        self.debug = False

    def send(self, line: str) -> None:
        self.channel.send(line)

    def info_string(self, text: str) -> None:
        # One line, whatever the text holds: a newline would start a bogus command.
        self.send("info string " + " ".join(text.split()))

    def run(self, first_line: str | None = None) -> None:
        self.channel.serve(self.handle, first_line)
        self.engine.stop()
        self.engine.wait()

    def handle(self, line: str) -> bool:
        """Carry out one command; False when it was `quit`."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        handler = getattr(self, "cmd_" + command, None) if command.isidentifier() else None
        if handler is None:
            self.info_string(f"unknown command: {line[:200]}")
            return True
        try:
            handler(args)
        except (UciError, OptionError, FenError, MoveError) as e:
            self.info_string(str(e))
        except Exception as e:                       # never let a GUI see a traceback
            self.info_string(f"internal error on {line[:100]!r}: {type(e).__name__}: {e}")
        return True

    # ------------------------------------------------------------- commands

    def cmd_uci(self, args):
        self.send(f"id name {getattr(self.engine, 'display_name', f'GenChess {__version__}')}")
        self.send("id author the GenChess developers")
        for name, spin in SPINS.items():
            self.send(f"option name {name} type spin default {spin.default} min {spin.lo} max {spin.hi}")
        self.send("option name Clear Hash type button")
        self.send(f"option name Genome type string default {DEFAULT_GENOME}")
        self.send("option name Genome ID type string default <none>")
        self.send("option name Search type combo default iterative "
                  + " ".join(f"var {mode}" for mode in SEARCH_MODES))
        self.send("option name Ponder type check default false")
        self.send("option name UCI_Chess960 type check default false")
        self.send("option name UCI_ShowWDL type check default false")
        if ELO_RANGE is not None:
            self.send("option name UCI_LimitStrength type check default false")
        self.send("option name Book File type string default <empty>")
        for name in TRIALS:
            self.send(f"option name {name} type check default false")
        for name, default, lo, hi in self.settings.tuned_options():
            self.send(f"option name {name} type spin default {default} min {lo} max {hi}")
        self.send("uciok")

    def cmd_debug(self, args):
        if args and args[0] in ("on", "off"):
            self.debug = args[0] == "on"
        else:
            raise UciError("debug takes on or off")

    def cmd_isready(self, args):
        self.send("readyok")

    def cmd_register(self, args):
        pass

    def cmd_setoption(self, args):
        if not args or args[0] != "name":
            raise UciError("setoption needs: setoption name NAME [value VALUE]")
        words = args[1:]
        if "value" in words:
            cut = words.index("value")
            name, value = " ".join(words[:cut]), " ".join(words[cut + 1:])
        else:
            name, value = " ".join(words), ""
        key = name.lower()
        if key == "clear hash":
            self._require_idle(name)
            self.engine.new_game()
            return
        setter = self.settings.setter(name)
        if setter is None:
            raise UciError(f"unknown option {name!r}")
        self._require_idle(name)
        setter(value)
        if key.startswith("genome"):
            self.info_string(f"genome {self.engine.genome.id} loaded from {self.settings.genome_path}")

    def _require_idle(self, name):
        if self.engine.is_searching():
            raise UciError(f"option {name!r} not changed: the engine is searching (send stop first)")

    def cmd_ucinewgame(self, args):
        self.engine.stop()
        self.engine.wait()
        self.engine.new_game()

    def cmd_position(self, args):
        if not args:
            raise UciError("position needs startpos or fen")
        moves_at = args.index("moves") if "moves" in args else len(args)
        if args[0] == "startpos":
            fen = None
            if moves_at != 1:
                raise UciError(f"position startpos: unexpected {' '.join(args[1:moves_at])!r}")
        elif args[0] == "fen":
            fen = " ".join(args[1:moves_at])
        else:
            raise UciError(f"position: expected startpos or fen, not {args[0]!r}")
        if self.engine.is_searching():
            raise UciError("position ignored: the engine is searching (send stop first)")
        try:
            self.engine.set_position(fen, args[moves_at + 1:])
        except MoveError as e:
            raise UciError(f"position not changed: {e}") from None
        except FenError as e:
            raise UciError(f"position not changed: {e}") from None

    def cmd_eval(self, args):
        """Stockfish's `eval`: the current position's static evaluation, term by term
        (genchess.explain), as plain lines. Not a UCI command; for people at a terminal."""
        from genchess.explain import explain, format_explanation
        for line in format_explanation(explain(self.engine.genome, self.engine.board)).split("\n"):
            self.send(line)

    def cmd_go(self, args):
        if self.engine.is_searching():
            raise UciError("go ignored: already searching")
        problems: list[str] = []
        limits = parse_go(args, problems)
        limits.received = self.channel.received
        wanted, bad = [], []
        for move in limits.searchmoves:
            try:
                wanted.append(self.engine.board.parse_uci(move))    # castling in either spelling
            except MoveError:
                bad.append(move)
        if bad:
            problems.append(f"go searchmoves: not legal here, ignored: {' '.join(bad)[:200]}")
        limits.searchmoves = wanted
        for problem in problems:
            self.info_string(problem)
        self.limits = limits
        self.root_material = material(self.engine.board.fen()) if self.settings.show_wdl else None
        self.engine.go(limits, on_info=self.on_info, on_bestmove=self.on_bestmove)

    def on_info(self, info: Info) -> None:
        self.send(format_info(info, self.root_material))

    def on_bestmove(self, result: SearchResult) -> None:
        if result.bestmove is None:
            self.send("bestmove 0000")
        elif result.ponder:
            self.send(f"bestmove {result.bestmove} ponder {result.ponder}")
        else:
            self.send(f"bestmove {result.bestmove}")

    def cmd_stop(self, args):
        self.engine.stop()
        self.engine.wait()

    def cmd_ponderhit(self, args):
        if self.limits is None or not self.limits.ponder or not self.engine.is_searching():
            return
        self.engine.ponderhit(self.limits)
