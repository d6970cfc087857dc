"""The players of `genchess play` and of `genchess uci/xboard --player`.

A player is anything with `name`, `new_game()` and `choose_move(board, clock)`
(genchess.game.Player). This package adds, besides the genome-driven engine:
a human at the terminal, a uniformly random mover, Turing's 1948 paper machine
and a pure Monte Carlo player. `make_player` turns the command line's spelling
(`human`, `random`, `turing`, `montecarlo`, `genetic[:FILE[:ID]]`) into one, and
says clearly what is wrong with a bad spelling.
"""

from __future__ import annotations

import re

from genchess.console import quoted, whole_number

KINDS = ("human", "random", "turing", "montecarlo", "genetic")
UNTIMED_SECONDS = 1.0      # thinking time per move of a computer player in an untimed game
MOVE_OVERHEAD = 0.03       # seconds kept back per move for everything around the thinking


FILES = "abcdefgh"
SQUARE_NAMES = [FILES[sq % 8] + str(sq // 8 + 1) for sq in range(64)]
SQUARE_INDEX = {name: sq for sq, name in enumerate(SQUARE_NAMES)}


def placement(fen: str) -> list[str]:
    """The 64 squares (a1 = 0) of a FEN: a piece letter, or '.' when empty."""
    squares = ["."] * 64
    for row_index, row in enumerate(fen.split(" ", 1)[0].split("/")):
        sq = (7 - row_index) * 8
        for c in row:
            if c.isdigit():
                sq += int(c)
            else:
                squares[sq] = c
                sq += 1
    return squares


def castling_sides(board) -> dict[str, str]:
    """{uci: 'O-O' or 'O-O-O'} of the legal castling moves, in the board's spelling:
    in Chess960 the king may move one file or none, so its squares do not say."""
    return {uci: side for side, uci in board.castling_moves().items()}


def read_coordinates(board, text: str) -> str:
    """The legal move that coordinates `text` name, in the board's spelling: as
    Board.parse_uci reads them (castling as king-takes-rook, or as the king's move
    where king and rook stand on the standard squares), or castling written as the
    king's move from anywhere (b1g1: a king on b1 castling short) when that is no
    other king move. MoveError if none."""
    from genchess_core import MoveError
    try:
        return board.parse_uci(text)
    except MoveError:
        for side, uci in board.castling_moves().items():
            if text == uci[:2] + ("g" if side == "O-O" else "c") + uci[1]:
                return uci
        raise


class PlayerSpecError(ValueError):
    """A player spelling that names no player, or a genome that cannot be loaded."""


def parse_spec(spec: str) -> tuple[str, str | None, int | None]:
    """(kind, genome file, genome ID) of a player spelling; raise PlayerSpecError."""
    text = spec.strip()
    kind, colon, rest = text.partition(":")
    kind = kind.lower()
    if kind not in KINDS:
        raise PlayerSpecError(f"unknown player {quoted(spec, 60)}: expected one of human, random, turing, "
                              f"montecarlo, genetic[:FILE[:ID]]")
    if kind != "genetic":
        if colon:
            raise PlayerSpecError(f"player {kind!r} takes no options, not {':' + rest!r}")
        return kind, None, None
    if not colon:
        return kind, None, None
    if not rest.strip():
        raise PlayerSpecError(f"player {quoted(spec, 60)}: genetic: needs a genome file after the colon")
    path, genome_id = rest, None
    head, sep, tail = rest.rpartition(":")
    if sep and re.fullmatch(r"\s*-?[0-9]+\s*", tail):
        path, genome_id = head, whole_number(tail)
        if genome_id is None:
            raise PlayerSpecError(f"player {quoted(spec, 60)}: genome ID {quoted(tail)} is too large")
        if not path:
            raise PlayerSpecError(f"player {quoted(spec, 60)}: a genome ID needs a genome file before it")
    return kind, path, genome_id


def make_player(spec: str, seed: int | None = None, *, on_info=None, hash_mb: int = 16,
                human_io=None, untimed_seconds: float = UNTIMED_SECONDS):
    """The player a spelling names. `seed` makes random, turing and montecarlo
    reproducible; `on_info` receives engine Info reports (--show-thinking);
    `human_io` is the HumanIO a human player reads and writes through."""
    kind, path, genome_id = parse_spec(spec)
    if kind == "human":
        from genchess.players.human import HumanPlayer
        return HumanPlayer(human_io)
    if kind == "random":
        from genchess.players.random_player import RandomPlayer
        return RandomPlayer(seed)
    if kind == "turing":
        from genchess.players.turing import TuringPlayer
        return TuringPlayer(seed, on_info=on_info)
    if kind == "montecarlo":
        from genchess.players.montecarlo import MonteCarloPlayer
        return MonteCarloPlayer(seed, on_info=on_info, default_seconds=untimed_seconds)
    from genchess.engine import Engine
    from genchess.game import EnginePlayer
    genome = load_player_genome(path, genome_id)
    name = "GenChess" if path is None else f"GenChess ({genome.id})"
    player = EnginePlayer(Engine(genome, hash_mb=hash_mb), name=name, on_info=on_info)
    return GeneticPlayer(player, untimed_seconds)


def load_player_genome(path: str | None, genome_id: int | None):
    from genchess.genome import open_genome
    return open_genome(path, genome_id, error=PlayerSpecError)


class GeneticPlayer:
    """The genome-driven engine (game.EnginePlayer); in an untimed game it thinks
    a fixed time per move instead of EnginePlayer's fixed depth."""

    def __init__(self, player, untimed_seconds: float):
        self.player = player
        self.engine = player.engine
        self.name = player.name
        self.untimed_ms = int(untimed_seconds * 1000)

    def new_game(self) -> None:
        self.player.new_game()

    def stop(self) -> None:
        self.engine.stop()

    def choose_move(self, board, clock):
        self.player.movetime_ms = None if clock is not None else self.untimed_ms
        return self.player.choose_move(board, clock)


def move_budget(clock, white_to_move: bool, default: float | None) -> float | None:
    """Seconds to think about this move: a share of the time left (the moves to the
    next control, else 30), plus most of the increment, never more than half of
    what is left (90% with one move to go). `default` without a clock."""
    if clock is None:
        return default
    side = 0 if white_to_move else 1
    remaining = max(clock.remaining[side] - MOVE_OVERHEAD, 0.0)
    to_go = clock.moves_to_go(side)
    share = remaining / min(to_go, 30) if to_go else remaining / 30
    target = share + 0.8 * clock.control_of(side).increment
    cap = remaining * (0.9 if to_go == 1 else 0.5)
    return max(min(target, cap), 0.005)
