"""The two sides of a match: GenChess in-process or any external engine.

A side is spelled `genchess[:GENOME[:ID]]` (or any `genchess play` player:
`genetic...`, `turing`, `random`, `montecarlo`) or `uci:CMD` / `xboard:CMD`,
followed by `key=value` settings and, for external engines, extra arguments:

    genchess:pool.txt:517 search=budget hash=32 name=Evolved
    "uci:/usr/games/stockfish UCI_LimitStrength=true UCI_Elo=1500"
    xboard:fairymax
    "genchess tc=20+0.2 name=Double"       (its own time control: time odds)

GenChess sides play through game.EnginePlayer and the other players in the
worker's own process (no pipes, no startup). External engines become Players
too, driven by python-chess's `chess.engine` (a real, well-kept UCI and CECP
client), so the one game loop (game.play_game) with its real clock serves
both. An external engine that breaks a rule raises game.PlayerFailed and loses;
one that dies is started again for the next game; one still thinking after its
flag fell is killed, so no game waits on a hung engine.

A spec is a small frozen dataclass so that it travels to worker processes; each
worker keeps its players (and their processes) between games.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shlex
import subprocess
import threading
import warnings
from dataclasses import dataclass

from genchess.console import quoted, whole_number
from genchess.game import Clock, PlayerFailed, TimeExpired
from genchess.game.adjudication import score_cp
from genchess.game.external import find_command, quit_engine
from genchess.levels import MAX_SKILL, check_skill

STARTUP_TIMEOUT = 20.0      # seconds an engine has to answer uci / xboard
HANG_SECONDS = 60.0         # a fixed-nodes or fixed-depth move slower than this is a hang
KILL_AFTER_FLAG = 1.0       # seconds past a fallen flag before a thinking engine is killed
GENCHESS_KINDS = ("genchess", "genetic", "random", "turing", "montecarlo")
GENCHESS_SETTINGS = ("name", "search", "hash", "threads", "player", "ga_level", "skill", "tc")
MATCH_SETTINGS = ("name", "tc")         # the match's, not the engine's: an external engine's too

# asyncio's child watcher complains when an engine that failed to start is reaped
# after python-chess closed its loop, and python-chess logs slow feature lists;
# the failures themselves are reported properly, as one line.
warnings.filterwarnings("ignore", message=r"Loop .* that handles pid")
logging.getLogger("asyncio").setLevel(logging.ERROR)
logging.getLogger("chess.engine").setLevel(logging.ERROR)
START_ATTEMPTS = 3          # python-chess waits 2 s for xboard features: a loaded machine misses that


class SpecError(ValueError):
    """A side that names no engine, or an engine that cannot be started."""


class VariantError(SpecError):
    """An engine that runs but cannot play the match's variant (Chess960)."""


@dataclass(frozen=True)
class EngineSpec:
    text: str                           # as written, for messages
    kind: str                           # genchess, uci, xboard
    player: str = "genetic"             # genchess: a genchess play spelling
    argv: tuple[str, ...] = ()          # external: the command
    options: tuple[tuple[str, str], ...] = ()
    name: str = ""
    search: str = "iterative"
    hash_mb: int = 16
    threads: int = 1                    # search threads (Lazy SMP)
    ga_level: int = 1                   # the GA search's GA Init Level
    skill: float = MAX_SKILL            # strength level (genchess.levels); full strength
    needs_moves: bool = False           # xboard setboard=0: openings only as moves
    tc: str = ""                        # its own time control (time odds); "": the match's

    @property
    def external(self) -> bool:
        return self.kind in ("uci", "xboard")


def parse_engine_spec(text: str) -> EngineSpec:
    """The spec a side's spelling names; SpecError saying what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise SpecError(f"engine {quoted(text)}: {e}") from None
    if not words:
        raise SpecError("empty engine name: expected genchess[:GENOME[:ID]], uci:CMD or xboard:CMD")
    head, rest = words[0], words[1:]
    kind, colon, target = head.partition(":")
    kind = kind.lower()
    settings = [w.partition("=") for w in rest]
    if kind in ("uci", "xboard"):
        if not target:
            raise SpecError(f"engine {quoted(text)}: {kind}: needs a command after the colon")
        path = find_command(target)
        if path is None:
            raise SpecError(f"engine {quoted(text)}: command {quoted(target)} not found")
        args = tuple(w for w in rest if "=" not in w)
        options = tuple((k, v) for k, eq, v in settings if eq and k not in MATCH_SETTINGS)
        name = next((v for k, eq, v in settings if eq and k == "name"), "")
        tc = check_tc(text, next((v for k, eq, v in settings if eq and k == "tc"), ""))
        return EngineSpec(text, kind, argv=(path, *args), options=options, name=name, tc=tc)
    if kind not in GENCHESS_KINDS:
        raise SpecError(f"unknown engine {quoted(text)}: expected genchess[:GENOME[:ID]], uci:CMD, "
                        f"xboard:CMD or a genchess play player (turing, random, montecarlo)")
    values = {}
    for word, (key, eq, value) in zip(rest, settings):
        if not eq or key not in GENCHESS_SETTINGS:
            raise SpecError(f"engine {quoted(text)}: unknown setting {quoted(word)} (GenChess takes "
                            f"{', '.join(k + '=' for k in GENCHESS_SETTINGS)})")
        values[key] = value
    player = "genetic" + (colon + target if target else "") if kind == "genchess" else head
    player = values.get("player", player)
    from genchess.players import PlayerSpecError, parse_spec
    try:
        player_kind, _, _ = parse_spec(player)
    except PlayerSpecError as e:
        raise SpecError(f"engine {quoted(text)}: {e}") from None
    if player_kind == "human":
        raise SpecError(f"engine {quoted(text)}: a person cannot play a match (use genchess play)")
    from genchess.engine import SEARCH_MODES
    search = values.get("search", "iterative")
    if search not in SEARCH_MODES:
        raise SpecError(f"engine {quoted(text)}: search must be one of {', '.join(SEARCH_MODES)}, "
                        f"not {quoted(search)}")
    ga_level = values.get("ga_level", "1")
    if ga_level not in ("1", "2"):
        raise SpecError(f"engine {quoted(text)}: ga_level must be 1 or 2, not {quoted(ga_level)}")
    hash_text = values.get("hash", "16")
    hash_mb = whole_number(hash_text)
    if hash_mb is None or hash_mb < 1:
        raise SpecError(f"engine {quoted(text)}: hash must be a whole number of MB, not {quoted(hash_text)}")
    threads_text = values.get("threads", "1")
    threads = whole_number(threads_text)
    if threads is None or threads < 1:
        raise SpecError(f"engine {quoted(text)}: threads must be a whole number of at least 1, "
                        f"not {quoted(threads_text)}")
    skill_text = values.get("skill", str(MAX_SKILL))
    try:
        skill = check_skill(float(skill_text))
    except ValueError:
        raise SpecError(f"engine {quoted(text)}: skill must be a number from 0 to {MAX_SKILL}, "
                        f"not {quoted(skill_text)}") from None
    if skill < MAX_SKILL and player_kind != "genetic":
        raise SpecError(f"engine {quoted(text)}: skill is the genome engine's; {player_kind} has no levels")
    return EngineSpec(text, "genchess", player=player, name=values.get("name", ""),
                      search=search, hash_mb=hash_mb, threads=threads,
                      ga_level=int(ga_level), skill=skill, tc=check_tc(text, values.get("tc", "")))


def check_tc(text: str, tc: str) -> str:
    """An engine's own `tc=` (as `--tc` spells it), checked; SpecError saying what is wrong."""
    if tc:
        from genchess.game import TimeControl
        try:
            TimeControl.parse(tc)
        except ValueError as e:
            raise SpecError(f"engine {quoted(text)}: tc: {e}") from None
    return tc


# ------------------------------------------------------------------ players

def make_match_player(spec: EngineSpec, seed: int | None = None):
    """A game.Player for a spec (raises SpecError if a genome cannot be loaded)."""
    if spec.external:
        return ExternalPlayer(spec)
    from genchess.players import PlayerSpecError, load_player_genome, make_player, parse_spec
    kind, path, genome_id = parse_spec(spec.player)
    try:
        if kind != "genetic":
            player = make_player(spec.player, seed)
        else:
            from genchess.engine import Engine
            from genchess.game import EnginePlayer
            genome = load_player_genome(path, genome_id)
            engine = Engine(genome, hash_mb=spec.hash_mb, search_mode=spec.search, move_overhead_ms=10)
            engine.set_threads(spec.threads)
            engine.set_skill(spec.skill)
            engine.ga_init_level = spec.ga_level
            player = EnginePlayer(engine, "GenChess" if path is None else f"GenChess ({genome.id})")
    except PlayerSpecError as e:
        raise SpecError(f"engine {quoted(spec.text)}: {e}") from None
    if spec.name:
        player.name = spec.name
    return player


def _option_value(text: str):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def chess_board(board):
    """The python-chess board of a genchess_core Board, with its whole move
    history from the game's start (so repetitions count and an engine without
    setboard is sent only moves); a Chess960 board stays one, so python-chess tells
    the engine (UCI_Chess960, xboard's variant fischerandom)."""
    import chess

    moves = list(board.move_stack)
    root = board.copy()
    for _ in moves:
        root.pop()
    result = chess.Board(root.fen(), chess960=board.chess960)
    for move in moves:
        result.push_uci(move)
    return result


def chess_limit(clock: Clock | None, white: bool):
    import chess.engine

    if clock is None:
        return chess.engine.Limit(time=1.0)
    side = 0 if white else 1
    control = clock.control_of(side)
    if control.movetime is not None:
        return chess.engine.Limit(time=control.movetime)
    if control.nodes is not None:
        return chess.engine.Limit(nodes=control.nodes)
    if control.depth is not None:
        return chess.engine.Limit(depth=control.depth)
    return chess.engine.Limit(white_clock=max(clock.remaining[0], 0.0),
                              black_clock=max(clock.remaining[1], 0.0),
                              white_inc=clock.control_of(0).increment or None,
                              black_inc=clock.control_of(1).increment or None,
                              remaining_moves=clock.moves_to_go(side))


def start_engine(spec: EngineSpec):
    """A started python-chess SimpleEngine with the spec's options set."""
    import chess.engine

    from genchess.strength.setboard_wrapper import wrapped_command
    argv = list(spec.argv)
    if spec.needs_moves:
        argv = wrapped_command(argv)
    popen = chess.engine.SimpleEngine.popen_uci if spec.kind == "uci" else \
        chess.engine.SimpleEngine.popen_xboard
    for attempt in range(START_ATTEMPTS):
        try:
            engine = popen(argv, timeout=STARTUP_TIMEOUT, stderr=subprocess.DEVNULL)
            break
        except chess.engine.EngineError as e:
            # An xboard feature list cut short by python-chess's 2 s feature timeout
            # lacks ping; setboard=0 is the engine's own answer and is not retried.
            if "required feature: ping" not in str(e) or attempt + 1 == START_ATTEMPTS:
                raise
    try:
        if spec.options:
            engine.configure({k: _option_value(v) for k, v in spec.options})
    except BaseException:
        engine.close()
        raise
    return engine


def probe(spec: EngineSpec, chess960: bool = False, nodes: bool = False) -> EngineSpec:
    """Start an external engine once, in the main process, to find out before any
    game whether it runs, answers its protocol and takes its options; whether it
    needs its openings as moves; for Chess960, whether it plays it (UCI_Chess960,
    xboard's variant fischerandom, and positions set up); and, for a node count per
    move, whether it can keep to one (an xboard engine needs the nps feature).
    Returns the spec completed; SpecError if not."""
    if not spec.external:
        player = make_match_player(spec)    # loads the genome: a bad file fails here
        return dataclasses.replace(spec, name=player.name)
    import asyncio

    import chess.engine
    try:
        engine = start_engine(spec)
    except chess.engine.EngineError as e:
        if spec.kind == "xboard" and "setboard" in str(e) and not spec.needs_moves:
            if chess960:
                raise VariantError(f"engine {quoted(spec.text)} cannot set up positions (xboard "
                                   f"setboard=0), so it cannot play Chess960") from None
            return probe(dataclasses.replace(spec, needs_moves=True), chess960, nodes)
        raise SpecError(f"engine {quoted(spec.text)}: {e}") from None
    except (asyncio.TimeoutError, TimeoutError):
        raise SpecError(f"engine {quoted(spec.text)} did not answer {spec.kind} within "
                        f"{STARTUP_TIMEOUT:g} s") from None
    except (chess.engine.EngineTerminatedError, OSError) as e:
        raise SpecError(f"engine {quoted(spec.text)} could not be started or died at once: {e}") from None
    name = spec.name or engine.id.get("name") or os.path.basename(spec.argv[0])
    plays_chess960 = "UCI_Chess960" in engine.options if spec.kind == "uci" else \
        "fischerandom" in str(engine.protocol.features.get("variants", "")).split(",")
    counts_nodes = spec.kind == "uci" or bool(engine.protocol.features.get("nps"))
    quit_engine(engine)
    if nodes and not counts_nodes:
        raise SpecError(f"engine {quoted(spec.text)} cannot keep to a node count (xboard without the "
                        f"nps feature): give the match a clock or a depth")
    if chess960 and not plays_chess960:
        raise VariantError(f"engine {quoted(spec.text)} does not play Chess960 (it offers no "
                        + ("UCI_Chess960 option)" if spec.kind == "uci" else "variant fischerandom)"))
    return dataclasses.replace(spec, name=name)


class ExternalPlayer:
    """An external UCI or xboard engine as a game.Player."""

    def __init__(self, spec: EngineSpec):
        self.spec = spec
        self.name = spec.name or os.path.basename(spec.argv[0])
        self.engine = None
        self.game = None
        self.restarts = 0
        self._killed = False
        self.last_cp = None         # the last move's score, for adjudication

    def new_game(self) -> None:
        if self.engine is None:
            if self.game is not None:
                self.restarts += 1
            self.engine = start_engine(self.spec)
        self.game = object()

    def close(self) -> None:
        if self.engine is not None:
            quit_engine(self.engine)
            self.engine = None

    def _kill(self) -> None:
        self._killed = True
        try:
            os.kill(self.engine.transport.get_pid(), 9)
        except (OSError, AttributeError):
            pass

    def _lost(self) -> None:
        """The engine's state can no longer be trusted: start a fresh one next game."""
        engine, self.engine = self.engine, None
        if engine is not None:
            threading.Thread(target=quit_engine, args=(engine,), daemon=True).start()

    def choose_move(self, board, clock: Clock | None) -> str | None:
        import chess.engine

        white = board.turn == "w"
        limit = chess_limit(clock, white)
        control = clock.control_of(0 if white else 1) if clock is not None else None
        if control is None or control.nodes is not None or control.depth is not None:
            patience = HANG_SECONDS
        elif control.movetime is not None:
            patience = control.movetime + control.margin + KILL_AFTER_FLAG
        else:
            patience = clock.remaining[0 if white else 1] + control.margin + KILL_AFTER_FLAG
        self._killed = False
        timer = threading.Timer(patience, self._kill)
        timer.daemon = True
        timer.start()
        try:
            played = self.engine.play(chess_board(board), limit, game=self.game,
                                       info=chess.engine.INFO_SCORE)
        except chess.engine.EngineTerminatedError as e:
            self.engine = None
            if self._killed:
                if control is not None and not (control.nodes or control.depth):
                    raise TimeExpired() from None
                raise PlayerFailed("crash", f"{self.name} hung for {patience:.0f} s and was killed") from None
            raise PlayerFailed("crash", f"{self.name} crashed ({e})") from None
        except chess.engine.EngineError as e:
            self._lost()
            text = str(e)
            kind = "illegal move" if "illegal" in text.lower() else "protocol error"
            raise PlayerFailed(kind, f"{self.name}: {text}") from None
        except (TimeoutError, chess.engine.AnalysisComplete) as e:
            self._lost()
            raise PlayerFailed("crash", f"{self.name} did not answer: {e!r}") from None
        finally:
            timer.cancel()
        score = played.info.get("score")
        self.last_cp = None if score is None else \
            score_cp(score.relative.score(), score.relative.mate())
        if played.resigned:
            return None
        if played.move is None:
            self._lost()
            raise PlayerFailed("protocol error", f"{self.name} sent no move")
        return played.move.uci()


def describe_argv(spec: EngineSpec) -> str:
    return " ".join(shlex.quote(a) for a in spec.argv)
