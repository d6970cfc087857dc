"""`genchess play` as a person uses it: scripted games through stdin, every kind of
bad entry, commands, clocks and moves per control, PGN output (read back with
python-chess), and command-line errors."""

from __future__ import annotations

import io
import os
import subprocess
import threading
import time

import chess
import chess.pgn
import pytest

from engine_helpers import genchess_command

from genchess.game import Clock, GameRecord, TimeControl
from genchess.play import draw_board, format_clock, pgn_text, player_seeds
from genchess.players import move_budget
from genchess.players.human import san
from genchess.players.random_player import RandomPlayer
from genchess.players.turing import TuringPlayer
from genchess_core import Board



def genchess(*args):
    # The installed command when there is one (CI), else the checkout: never the
    # uncompiled source tree in front of an installed package.
    return genchess_command(*args)


def play(*args, script="", timeout=120):
    command, env = genchess("play", *args)
    return subprocess.run(command, env=env, input=script, capture_output=True, text=True,
                          timeout=timeout)


def read_pgn(path):
    with open(path) as f:
        games = []
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                return games
            assert not game.errors, game.errors
            games.append(game)


def scripted_game(seed, human_white=True, start_fen=None, notation=None, max_plies=400):
    """The moves of a human (playing Turing's choices) against the random player of
    `genchess play --seed SEED`, and the lines the human types."""
    seeds = player_seeds(seed)
    opponent = RandomPlayer(seeds[1] if human_white else seeds[0])
    me = TuringPlayer(5)
    board = Board(start_fen) if start_fen else Board()
    lines, moves = [], []
    human_turn = "w" if human_white else "b"
    while board.outcome(claim_draw=True).termination is None and len(moves) < max_plies:
        if board.turn == human_turn:
            move = me.choose_move(board, None)
            lines.append(notation(board, move, len(lines)) if notation else san(board, move))
        else:
            move = opponent.choose_move(board, None)
        board.push_uci(move)
        moves.append(move)
    return lines, moves, board


def mixed_notation(board, move, i):
    """Every way a person may write a move, in turn."""
    text = san(board, move)
    return [text, move, move[:2] + "-" + move[2:], text.rstrip("+#"), " " + text + " "][i % 5]


# ------------------------------------------------------------------ whole games

def test_scripted_full_game_human_v_random(tmp_path):
    lines, moves, board = scripted_game(seed=7, notation=mixed_notation)
    pgn = tmp_path / "game.pgn"
    proc = play("human", "random", "--seed", "7", "--pgn", str(pgn), script="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    outcome = board.outcome(claim_draw=True)
    assert f"{outcome.reason}. Result: {outcome.result}" in proc.stdout
    assert "Traceback" not in proc.stderr and "Illegal" not in proc.stdout
    (game,) = read_pgn(pgn)
    assert [m.uci() for m in game.mainline_moves()] == moves
    assert game.headers["Result"] == outcome.result
    assert game.headers["White"] == "Human" and game.headers["Black"] == "Random"
    assert game.headers["Termination"] == "normal"
    replay = game.board()
    for move in game.mainline_moves():
        replay.push(move)
    assert replay.is_game_over(claim_draw=True)


def test_scripted_game_human_as_black_unicode_from_a_fen(tmp_path):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    lines, moves, board = scripted_game(seed=3, human_white=False, start_fen=fen)
    pgn = tmp_path / "black.pgn"
    proc = play("random", "human", "--seed", "3", "--fen", fen, "--unicode", "--pgn", str(pgn),
                script="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert "♚" in proc.stdout and "♙" in proc.stdout
    first_board = proc.stdout.split("\n\n")[1]
    assert first_board.splitlines()[2].startswith("1 |")           # flipped: black at the bottom
    assert "h g f e d c b a" in first_board
    (game,) = read_pgn(pgn)
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    assert [m.uci() for m in game.mainline_moves()] == moves


def test_bad_entries_change_nothing():
    """Each bad entry gets its message and the prompt again; the game then goes on
    exactly as without them."""
    lines, moves, board = scripted_game(seed=11, max_plies=12)
    bad = ["", "Zz9", "e9", "Ke2", "e2e5", "e7e5", "Nd2", "O-O", "e4=Q", "  ", "help", "moves",
           "board", "draw", "xyzzy 12"]
    script = [bad_line for bad_line in bad] + lines[:3] + ["quit"]
    proc = play("human", "random", "--seed", "11", script="\n".join(script) + "\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Malformed move 'Zz9'" in out and "Malformed move 'e9'" in out
    assert "Illegal move 'Ke2': no white king can move to e2" in out
    assert "Illegal move 'e2e5': the pawn on e2 cannot move to e5" in out
    assert "Illegal move 'e7e5': the pawn on e7 is not White's" in out
    assert "Ambiguous move 'Nd2'" not in out                 # only Nb1 can: not ambiguous...
    assert "Illegal move 'O-O': White cannot castle kingside now" in out
    assert "Illegal move 'e4=Q': a pawn only promotes on the last rank" in out
    assert "Commands: help" in out and "Legal moves: " in out
    assert "Random) declines the draw offer" in out
    assert "Malformed move 'xyzzy 12'" in out
    assert out.count("White (Human) to move: ") >= len(bad) - 2
    assert "Game abandoned: White quit. Result: *" in out
    # The moves after the bad entries are the moves of the undisturbed game.
    for text in lines[:3]:
        assert f" {text.strip()}   (" in out


def test_ambiguous_entry_lists_candidates():
    # Both knights can reach d2 after 1. d4 d5 2. Nf3 Nf6: Nd2 is ambiguous.
    fen = "rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3"
    proc = play("human", "random", "--fen", fen, "--seed", "1", script="Nd2\nNbd2\nquit\n")
    assert "Ambiguous move 'Nd2': it could be Nbd2, Nfd2." in proc.stdout
    assert "3. Nbd2" in proc.stdout


def test_resign_quit_and_end_of_input(tmp_path):
    pgn = tmp_path / "r.pgn"
    proc = play("human", "turing", "--seed", "1", "--pgn", str(pgn), script="e4\nresign\n")
    assert "White resigns. Result: 0-1" in proc.stdout
    proc = play("human", "random", "--seed", "1", "--pgn", str(pgn), script="")
    assert proc.returncode == 0 and "Game abandoned: input ended. Result: *" in proc.stdout
    proc = play("random", "human", "--seed", "1", "--pgn", str(pgn), script="quit\n")
    assert "Game abandoned: Black quit. Result: *" in proc.stdout
    games = read_pgn(pgn)
    assert [g.headers["Result"] for g in games] == ["0-1", "*", "*"]
    assert [g.headers["Termination"] for g in games] == ["normal", "abandoned", "abandoned"]


def test_human_v_human_draw_offers():
    proc = play("human", "human", script="e4\ne5\ndraw\nn\nNf3\ndraw\nyes\n")
    out = proc.stdout
    assert "White offers a draw. Black, accept? [y/n]" in out
    assert "Black offers a draw. White, accept? [y/n]" in out
    assert "Draw by agreement. Result: 1/2-1/2" in out
    assert "2. Nf3" in out


def test_computer_v_computer_with_thinking_and_pgn(tmp_path):
    pgn = tmp_path / "cc.pgn"
    proc = play("turing", "random", "--seed", "4", "--time", "20", "--increment", "0.1",
                "--show-thinking", "--pgn", str(pgn), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Turing thinks: depth 2 score" in proc.stdout
    (game,) = read_pgn(pgn)
    assert game.headers["TimeControl"] == "20+0.1"
    assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
    assert f"Result: {game.headers['Result']}" in proc.stdout

    # Same seed, same game: untimed, so that a loaded machine cannot cut a search short.
    untimed = tmp_path / "untimed.pgn"
    for _ in range(2):
        again = play("turing", "random", "--seed", "4", "--pgn", str(untimed), timeout=300)
        assert again.returncode == 0, again.stderr
    first, second = read_pgn(untimed)
    assert list(first.mainline_moves()) == list(second.mainline_moves())


def test_game_already_over_at_the_start():
    proc = play("human", "random", "--fen",
                "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", script="")
    assert "Black mates. Result: 0-1" in proc.stdout and "to move: " not in proc.stdout


# ------------------------------------------------------------------ clocks

def test_human_flag_falls_while_typing():
    command, env = genchess("play", "human", "random", "--time", "0.5")
    proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out = finish_silently(proc)                  # stdin stays open and silent
    assert "White forfeits on time. Result: 0-1" in out


def test_flag_fall_against_a_bare_king_is_a_draw():
    command, env = genchess("play", "human", "random", "--time", "0.3", "--fen",
                            "4k3/8/8/8/8/8/3P4/4K3 b - - 0 1")
    proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # Black (random) moves at once; then white thinks too long. Black cannot mate: a draw.
    out = finish_silently(proc)
    assert "Draw: White ran out of time but Black cannot mate. Result: 1/2-1/2" in out


def finish_silently(proc, timeout=30):
    """Wait for the game to end by itself with stdin open; its output."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        proc.stdin.close()
    return proc.stdout.read()


def slow_human(args, moves, pause):
    """Play `moves` as a person who thinks `pause` seconds after each prompt. The pause
    starts when the prompt is seen, not when the previous move was typed: on a loaded
    machine the program's start and its drawing would otherwise eat into (or, typed
    ahead, hide) the person's time."""
    command, env = genchess("play", *args)
    proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    seen = bytearray()
    prompts = threading.Semaphore(0)

    def read_output():
        while chunk := os.read(proc.stdout.fileno(), 4096):
            before = seen.count(b"(Human) to move:")
            seen.extend(chunk)
            for _ in range(seen.count(b"(Human) to move:") - before):
                prompts.release()
        prompts.release()                   # the end: nobody waits for ever

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()
    for move in moves:
        if not prompts.acquire(timeout=30) or proc.poll() is not None:
            break
        time.sleep(pause)
        try:
            proc.stdin.write(move.encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            break
    try:
        proc.stdin.write(b"quit\n")
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.wait(timeout=60)
    reader.join(timeout=10)
    return seen.decode()


def test_moves_per_control_tops_the_clock_up():
    # 1 s for every 2 moves; 0.3 s a move: without the top-up the flag falls by move 4,
    # with it each control keeps 0.4 s for the program's own work on a loaded machine.
    # A script from the same seed: random's replies are known in advance.
    lines, _, _ = scripted_game(seed=5, max_plies=8)
    out = slow_human(["human", "random", "--seed", "5", "--time", "1", "--moves", "2"],
                     lines[:4], pause=0.3)
    assert "forfeits" not in out and "Game abandoned" in out
    out = slow_human(["human", "random", "--seed", "5", "--time", "1"], lines[:4], pause=0.3)
    assert "White forfeits on time" in out


def test_clock_and_budget_rules():
    clock = Clock(TimeControl(10.0, 0.5, moves=2))
    assert clock.moves_to_go(0) == 2
    assert clock.punch(0, 3.0) and clock.remaining[0] == pytest.approx(7.5)
    assert clock.moves_to_go(0) == 1
    assert move_budget(clock, True, None) == pytest.approx(0.9 * (7.5 - 0.03))  # last move: most
    assert clock.punch(0, 3.0) and clock.remaining[0] == pytest.approx(15.0)   # + base
    assert not clock.punch(1, 10.5)                     # the flag falls
    plain = Clock(TimeControl(60.0, 1.0))
    assert move_budget(plain, True, None) == pytest.approx((60 - 0.03) / 30 + 0.8)
    plain.remaining[0] = 0.1
    assert move_budget(plain, True, None) <= 0.05
    assert move_budget(None, True, 1.5) == 1.5


def test_a_clock_with_time_odds_keeps_each_sides_own_control():
    clock = Clock(TimeControl(20.0, 0.2), black_control=TimeControl(10.0, 0.1, moves=40))
    assert clock.remaining == [20.0, 10.0]
    limits = clock.limits(True)
    assert (limits.wtime, limits.btime, limits.winc, limits.binc) == (20000, 10000, 200, 100)
    assert clock.moves_to_go(0) is None and clock.moves_to_go(1) == 40
    assert clock.limits(False).movestogo == 40
    assert clock.punch(0, 1.0) and clock.remaining[0] == pytest.approx(19.2)
    assert clock.punch(1, 1.0) and clock.remaining[1] == pytest.approx(9.1)
    assert move_budget(clock, False, None) == pytest.approx((9.1 - 0.03) / 30 + 0.08)
    per_move = Clock(TimeControl(10.0, 0.1), black_control=TimeControl.parse("nodes=500"))
    assert per_move.limits(False).nodes == 500 and per_move.limits(True).wtime == 10000
    assert per_move.punch(1, 100.0)                     # a node count has no flag to fall


# ------------------------------------------------------------------ drawing and PGN

def test_draw_board_shows_everything():
    board = Board("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5P2/PPPP2PP/RNBQKBNR w KQkq - 1 3")
    clock = Clock(TimeControl(300.0))
    clock.remaining = [61.25, 3725.0]
    text = draw_board(board, ("Human", "Turing"), clock, "2... Qh4+")
    assert "White: Human" in text and "Black: Turing" in text
    assert "1:01.2" in text and "1:02:05" in text
    assert "Move 3, White to move; last move 2... Qh4+; CHECK" in text
    assert text.splitlines()[2].startswith("8 | r n b . k b n r | 8")
    assert format_clock(59.96) == "1:00.0" and format_clock(-1) == "0:00.0"


def test_pgn_text_is_read_by_python_chess():
    fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40"
    record = GameRecord(fen, ["e8d7", "e2e4", "d7e6"], "*", "abandoned", "Game {abandoned}",
                        "GenChess (12)", "Turing", "60+1", [10.0, 20.0])
    text = pgn_text(record, seed=9)
    game = chess.pgn.read_game(io.StringIO(text))
    assert not game.errors
    assert game.headers["White"] == "GenChess (12)" and game.headers["Black"] == "Turing"
    assert game.headers["Result"] == "*" and "{Game (abandoned)} *" in text
    assert game.headers["FEN"] == fen and game.headers["Termination"] == "abandoned"
    assert [m.uci() for m in game.mainline_moves()] == record.moves
    assert "40... Kd7 41. e4 Ke6" in pgn_text(record)


# ------------------------------------------------------------------ command-line errors

@pytest.mark.parametrize("args, words", [
    (["human", "stockfish"], ["unknown player 'stockfish'"]),
    (["human", "genetic:/no/such.genome"], ["cannot read genome file"]),
    (["human", "random", "--fen", "not a fen"], ["invalid FEN"]),
    (["human", "random", "--moves", "40"], ["need --time"]),
    (["human", "random", "--time", "0"], ["--time must be positive"]),
    (["human", "random", "--pgn", "/no/such/dir/x.pgn"], ["cannot write PGN file"]),
])
def test_errors_are_one_line_and_exit_2(args, words):
    proc = play(*args, script="")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize("args", [["human"], ["human", "random", "--time", "x"],
                                  ["human", "random", "--time", "-1"],
                                  ["human", "random", "--moves", "0", "--time", "5"]])
def test_argument_errors_exit_2_without_traceback(args):
    proc = play(*args, script="")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
