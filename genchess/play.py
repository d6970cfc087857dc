"""`genchess play WHITE BLACK`: a game at the terminal between any two players.

Every game runs through game.play_game, the one game loop the trainers use too,
with the board drawn from its on_move hook. A person's resignation, draw offer,
quit, Ctrl-D and a flag falling while they type reach it as the player's return
value (None) or exceptions (GameEnded, TimeExpired).

Output is plain lines: the board (ASCII or, with --unicode, chess symbols) after
every move with the side to move, the last move, the clocks and any check; then
the result with its reason. --pgn appends the game to a PGN file.
"""

from __future__ import annotations

import os
import random
import sys

from genchess import __version__, levels
from genchess.game import Clock, GameRecord, TimeControl, play_game
from genchess.game.openings import check_variant, chess960_fen, chess960_numbers, needs_chess960
from genchess.game.pgn import pgn_text
from genchess.players import PlayerSpecError, make_player, parse_spec
from genchess.players.human import HumanIO, HumanPlayer, QuitGame, san, san_line
from genchess_core import Board, FenError

UNICODE_PIECES = dict(zip("KQRBNPkqrbnp", "♔♕♖♗♘♙♚♛♜♝♞♟"))


def format_clock(seconds: float) -> str:
    seconds = round(max(seconds, 0.0), 1)
    minutes, rest = divmod(seconds, 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return f"{int(hours)}:{int(minutes):02d}:{int(rest):02d}"
    return f"{int(minutes)}:{rest:04.1f}"


def draw_board(board: Board, names: tuple[str, str], clock: Clock | None = None,
               last_move: str | None = None, unicode: bool = False, flip: bool = False) -> str:
    """The board as text, white at the bottom unless `flip`, with the players and
    clocks beside their home ranks and a status line under it."""
    rows = board.fen().split()[0].split("/")          # rank 8 first
    grid = []
    for row in rows:
        squares = []
        for c in row:
            if c.isdigit():
                squares += ["·" if unicode else "."] * int(c)
            else:
                squares.append(UNICODE_PIECES[c] if unicode else c)
        grid.append(squares)
    ranks = list(range(8, 0, -1))
    files = "abcdefgh"
    if flip:
        grid = [list(reversed(r)) for r in reversed(grid)]
        ranks.reverse()
        files = files[::-1]
    label = "    " + " ".join(files)
    side_text = {}
    for side, name in enumerate(names):
        colour = "White" if side == 0 else "Black"
        text = f"{colour}: {name}"
        if clock is not None:
            text = f"{text:<22} {format_clock(clock.remaining[side])}"
        side_text[side] = text
    top, bottom = (0, 1) if flip else (1, 0)
    lines = [label, "  +-----------------+"]
    for i, (rank, squares) in enumerate(zip(ranks, grid)):
        line = f"{rank} | {' '.join(squares)} | {rank}"
        if i == 0:
            line += "    " + side_text[top]
        elif i == 7:
            line += "    " + side_text[bottom]
        lines.append(line)
    lines += ["  +-----------------+", label]
    status = f"Move {board.fullmove_number}, {'White' if board.turn == 'w' else 'Black'} to move"
    if last_move:
        status += f"; last move {last_move}"
    if board.is_check():
        status += "; CHECK"
    lines.append(status)
    return "\n".join(lines)


def numbered(fullmove: int, white: bool, san_text: str) -> str:
    return f"{fullmove}. {san_text}" if white else f"{fullmove}... {san_text}"


# ------------------------------------------------------------------ the command

def start_variant(args, seed: int) -> tuple[bool, int | None]:
    """(Chess960 or not, the Chess960 start position's number or None) of --variant,
    --position and --fen: --position implies Chess960, which without it or a FEN
    starts from a position the game's seed chooses, and so does a FEN whose castling
    rights only Chess960 has. ValueError saying what is wrong."""
    try:
        variant = check_variant(args.variant) if args.variant is not None else None
    except ValueError as e:
        raise ValueError(f"--variant: {e}") from None
    if args.position is not None:
        if variant == "standard":
            raise ValueError("--position numbers a Chess960 start position: it needs --variant chess960")
        if args.fen is not None:
            raise ValueError("give --position or --fen, not both")
        try:
            chess960_fen(args.position)
        except ValueError as e:
            raise ValueError(f"--position: {e}") from None
        return True, args.position
    if variant == "chess960" and args.fen is None:
        return True, chess960_numbers(1, seed)[0]
    if variant is None and args.fen is not None:
        try:
            return needs_chess960(Board(args.fen).fen()), None     # a Chess960 FEN is Chess960
        except FenError:
            return False, None                                      # said by the caller
    return variant == "chess960", None


def player_seeds(seed: int) -> tuple[int, int]:
    """The seeds of the white and the black player for a game's --seed."""
    rng = random.Random(seed)
    return rng.getrandbits(63), rng.getrandbits(63)


class _Thinking:
    """Collects a computer player's last report of a move, printed after the move."""

    def __init__(self):
        self.last = None

    def __call__(self, info):
        if info.depth and info.pv:
            self.last = info

    def take(self):
        info, self.last = self.last, None
        return info


def cmd_play(args) -> int:
    prog = "genchess play"

    def fail(message: str) -> int:
        print(f"{prog}: {message}", file=sys.stderr)
        return 2

    # Validate everything before anything is printed or played.
    try:
        kinds = [parse_spec(spec)[0] for spec in (args.white, args.black)]
    except PlayerSpecError as e:
        return fail(str(e))
    skill = None
    if args.elo is not None or args.skill is not None:
        if "genetic" not in kinds:
            return fail("--elo and --skill set the level of a genetic player, and neither player is one")
        if args.elo is not None:
            try:
                skill = levels.skill_for_elo(args.elo)
            except ValueError as e:
                return fail(f"--elo {e}")
        else:
            try:
                skill = levels.check_skill(args.skill)
            except ValueError as e:
                return fail(f"--skill {e}")
    if args.time is None and (args.increment or args.moves):
        return fail("--increment and --moves need --time")
    if args.time is not None and not args.time > 0:
        return fail(f"--time must be positive, not {args.time:g}")
    if args.increment is not None and args.increment < 0:
        return fail(f"--increment must not be negative, not {args.increment:g}")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    try:
        chess960, number = start_variant(args, seed)
        start = Board(args.fen if args.fen is not None else
                      chess960_fen(number) if number is not None else None, chess960=chess960)
    except (ValueError, FenError) as e:
        return fail(str(e))
    pgn_file = None
    if args.pgn:
        try:
            pgn_file = open(args.pgn, "a", encoding="utf-8")
        except OSError as e:
            return fail(f"cannot write PGN file {args.pgn}: {e.strerror}")
    seeds = player_seeds(seed)
    io = HumanIO()
    thinking = (_Thinking(), _Thinking())
    try:
        players = [make_player(spec, seeds[side], human_io=io,
                               on_info=thinking[side] if args.show_thinking else None)
                   for side, spec in enumerate((args.white, args.black))]
    except PlayerSpecError as e:
        if pgn_file:
            pgn_file.close()
        return fail(str(e))
    if skill is not None:
        level_name = f"Elo {args.elo}" if args.elo is not None else f"skill {skill:g}"
        for side, (kind, player) in enumerate(zip(kinds, players)):
            if kind == "genetic":
                player.engine.set_skill(skill)
                player.engine.level_rng.seed(seeds[side])     # the game's seed replays its choices
                player.name = f"{player.name} ({level_name})"
    control = TimeControl(args.time, args.increment or 0.0, args.moves or 0) if args.time else None
    names = (players[0].name, players[1].name)
    humans = [kind == "human" for kind in kinds]
    flip = humans[1] and not humans[0]
    unicode = args.unicode

    def show(board, clock, last):
        io.write(draw_board(board, names, clock, last, unicode=unicode, flip=flip))

    # A draw offered to a computer is declined; to a person, the person is asked.
    for side, player in enumerate(players):
        if isinstance(player, HumanPlayer):
            other = players[1 - side]

            def offer(board, other=other, side=side):
                colour, other_colour = ("White", "Black") if side == 0 else ("Black", "White")
                if not isinstance(other, HumanPlayer):
                    io.write(f"{other_colour} ({other.name}) declines the draw offer.")
                    return False
                io.write(f"{colour} offers a draw. {other_colour}, accept? [y/n] ", end="")
                answer = io.readline()
                if answer is None:
                    raise QuitGame("input ended")
                return answer.strip().lower() in ("y", "yes")
            player.on_draw_offer = offer

    header = f"GenChess {__version__}: {names[0]} (White) v {names[1]} (Black)"
    header += f", {control.describe()} seconds" if control else ", untimed"
    if chess960:
        header += f", Chess960 position {number}" if number is not None else ", Chess960"
    header += f", seed {seed}"
    io.write(header)
    if any(humans):
        io.write("Enter moves as e4, Nf3, O-O, e8=Q or e2e4; 'help' lists the commands.")
    state = {"clock": Clock(control) if control else None, "board": start.copy(), "last": None}
    io.write()
    show(start, state["clock"], None)

    for player in players:
        if isinstance(player, HumanPlayer):
            player.on_board = lambda: show(state["board"], state["clock"], state["last"])

    def on_move(board, move, used, clock):
        before = state["board"]
        text = numbered(before.fullmove_number, before.turn == "w", san(before, move))
        side = 0 if before.turn == "w" else 1
        state["clock"] = clock
        state["board"] = board.copy()
        state["last"] = text
        io.write()
        info = thinking[side].take()
        if info is not None:
            score = str(info.score) if info.score is not None else "-"
            io.write(f"  {names[side]} thinks: depth {info.depth} score {score} "
                     f"time {info.time_ms / 1000:.2f}s nodes {info.nodes} pv "
                     + " ".join(san_line(before, info.pv[:12]) if _legal_line(before, info.pv[:12])
                                else info.pv[:12]))
        io.write(f"{text}   ({used:.1f}s)")
        show(board, state["clock"], text)

    interrupted = False
    try:
        record = play_game(players[0], players[1], start.fen(), control, on_move, chess960=chess960)
    except KeyboardInterrupt:
        interrupted = True
        board = state["board"]
        moves = board.move_stack
        record = GameRecord(start.fen(), moves, "*", "abandoned", "Game abandoned: interrupted",
                            names[0], names[1], control.describe() if control else "-",
                            list(state["clock"].remaining) if state["clock"] else [],
                            chess960=chess960)
    io.write()
    io.write(f"Game over: {record.reason}. Result: {record.result}")
    if pgn_file is not None:
        try:
            pgn_file.write(pgn_text(record, seed=seed))
            pgn_file.close()
            io.write(f"PGN appended to {args.pgn}")
        except OSError as e:
            print(f"{prog}: cannot write PGN file {args.pgn}: {e.strerror}", file=sys.stderr)
            return 1
    return 130 if interrupted else 0


def _legal_line(board: Board, moves: list[str]) -> bool:
    work = board.copy()
    for move in moves:
        if move not in work.legal_moves():
            return False
        work.push_uci(move)
    return True
