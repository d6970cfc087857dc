"""The players: spelling, legality everywhere, tactics (mate in one, a hanging queen),
Turing's evaluation pieces, Monte Carlo's time and memory, and the protocol adapter."""

from __future__ import annotations

import math
import os
import random
import subprocess
import threading
import time
import tracemalloc

import chess
import chess.engine
import pytest

from engine_helpers import genchess_command

from genchess.engine import Engine
from genchess.genome import hand_set_genome, write_genome
from genchess.game import Clock, TimeControl, play_game
from genchess.players import PlayerSpecError, make_player, move_budget, parse_spec, placement
from genchess.players.adapter import PlayerEngine, engine_for_player
from genchess.players.montecarlo import MonteCarloPlayer, mean_to_cp
from genchess.players.turing import (TuringPlayer, count_attackers, material_ratio, position_play,
                                     weighted_mobility)
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.playout import MonteCarlo


MATES_IN_ONE = [
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", {"h5f7"}),
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", {"a1a8"}),
    ("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", {"d8h4"}),
    ("7k/4P1pp/8/8/8/8/8/K7 w - - 0 1", {"e7e8q", "e7e8r"}),
    ("6k1/5ppp/8/8/8/8/1q3PPP/3R2K1 w - - 0 1", {"d1d8"}),
    ("6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", {"g5f7"}),
    ("k7/8/1K6/8/8/8/8/7R w - - 0 1", {"h1h8"}),
    ("3k4/R7/3K4/8/8/8/8/8 w - - 0 1", {"a7a8"}),
]

# A queen left where a lesser piece takes it for free.
HANGING_QUEENS = [
    ("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3", "f3h4"),
    ("rnbqkb1r/pppp1ppp/5n2/3Qp3/4P3/8/PPP2PPP/RNB1KBNR b KQkq - 0 3", "f6d5"),
    ("r1bqkbnr/ppp2ppp/2np4/4p1Q1/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 0 4", "d8g5"),
    ("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
]


def positions(count: int, seed: int, max_plies: int = 80) -> list[str]:
    """Positions of random games from the start, none finished."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board()
        for _ in range(rng.randrange(max_plies)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push_uci(rng.choice(sorted(moves)))
        if not board.is_game_over(claim_draw=True):
            out.append(board.fen())
    return out


# ------------------------------------------------------------------ spelling

@pytest.mark.parametrize("spec, parsed", [
    ("human", ("human", None, None)), ("Random", ("random", None, None)),
    ("turing", ("turing", None, None)), ("montecarlo", ("montecarlo", None, None)),
    ("genetic", ("genetic", None, None)), ("genetic:pool.txt", ("genetic", "pool.txt", None)),
    ("genetic:pool.txt:12", ("genetic", "pool.txt", 12)),
    ("genetic:dir:with:colons.txt", ("genetic", "dir:with:colons.txt", None)),
])
def test_parse_spec(spec, parsed):
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize("spec, words", [
    ("stockfish", ["unknown player", "human, random, turing"]),
    ("", ["unknown player"]),
    ("random:3", ["takes no options"]),
    ("genetic:", ["needs a genome file"]),
    ("genetic::4", ["genome ID needs a genome file"]),
])
def test_bad_spec(spec, words):
    with pytest.raises(PlayerSpecError) as info:
        make_player(spec)
    for word in words:
        assert word in str(info.value)


def test_genetic_player_loads_file_and_id(tmp_path):
    genome = hand_set_genome()
    other = genome.copy(new_id=genome.id + 7)
    other.mutate(random.Random(1), mean_changes=6)
    path = tmp_path / "two.genome"
    with open(path, "w") as f:
        write_genome(genome, f)
        write_genome(other, f)
    assert make_player(f"genetic:{path}:{genome.id}").engine.genome == genome
    assert make_player(f"genetic:{path}").engine.genome == other      # the last one
    with pytest.raises(PlayerSpecError, match="no genome with ID 999"):
        make_player(f"genetic:{path}:999")
    with pytest.raises(PlayerSpecError, match="cannot read genome file"):
        make_player(f"genetic:{tmp_path / 'missing.genome'}")
    bad = tmp_path / "bad.genome"
    bad.write_text("ID: x\nnonsense\n")
    with pytest.raises(PlayerSpecError, match="bad.genome"):
        make_player(f"genetic:{bad}")
    from genchess.genome import load_genome
    from genchess.genome.genome_file import GENOMES_DIR
    assert make_player("genetic:unified-retuned").engine.genome == \
        load_genome(GENOMES_DIR / "unified-retuned.genome")          # a shipped genome by name


# ------------------------------------------------------------------ legality

def test_random_player_is_uniform_legal_and_seeded():
    board = Board()
    counts = {}
    player = make_player("random", seed=5)
    for _ in range(4000):
        move = player.choose_move(board, None)
        counts[move] = counts.get(move, 0) + 1
    assert set(counts) == set(board.legal_moves())
    assert max(counts.values()) < 2.0 * min(counts.values())        # 20 moves, ~200 each
    a = [make_player("random", seed=9).choose_move(Board(fen), None) for fen in positions(30, 1)]
    b = [make_player("random", seed=9).choose_move(Board(fen), None) for fen in positions(30, 1)]
    assert a == b
    for fen in positions(300, 2):
        assert player.choose_move(Board(fen), None) in Board(fen).legal_moves()


@pytest.mark.parametrize("spec, count", [("turing", 60), ("montecarlo", 40), ("genetic", 25)])
def test_computer_players_always_legal(spec, count):
    player = make_player(spec, seed=3, untimed_seconds=0.03)
    for fen in positions(count, seed=hash(spec) % 1000):
        board = Board(fen)
        move = player.choose_move(board, Clock(TimeControl(3.0, 0.0)))
        assert move in board.legal_moves(), fen
        assert board.fen() == fen                      # the player left the board alone


def test_players_play_whole_games_legally():
    """play_game raises on an illegal move; every game must end by a rule."""
    control = TimeControl(2.0, 0.02)
    for white, black in (("turing", "random"), ("montecarlo", "turing")):
        record = play_game(make_player(white, seed=1), make_player(black, seed=2),
                           control=control, max_plies=120)
        assert record.result in ("1-0", "0-1", "1/2-1/2")
        assert record.termination != "time forfeit"


# ------------------------------------------------------------------ tactics

@pytest.mark.parametrize("spec", ["turing", "genetic", "montecarlo"])
@pytest.mark.parametrize("fen, mates", MATES_IN_ONE)
def test_mate_in_one(spec, fen, mates):
    player = make_player(spec, seed=1, untimed_seconds=0.2)
    assert player.choose_move(Board(fen), None) in mates


@pytest.mark.parametrize("spec", ["turing", "genetic"])
@pytest.mark.parametrize("fen, capture", HANGING_QUEENS)
def test_wins_a_hanging_queen(spec, fen, capture):
    board = Board(fen)
    assert capture in board.legal_moves()
    player = make_player(spec, seed=1, untimed_seconds=0.3)
    assert player.choose_move(board, None) == capture


def test_turing_declines_a_poisoned_capture_and_avoids_mate():
    # Qxb7?? is met by Rxb7... the queen is defended; Turing's capture rules see it.
    board = Board("1r2k3/1p6/8/8/8/8/8/1Q2K3 w - - 0 1")
    assert TuringPlayer(1).choose_move(board, None) != "b1b7"
    # Black must stop Qxf7#: Turing finds a defence (the mate is at ply 2).
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR b KQkq - 3 3")
    move = TuringPlayer(1).choose_move(board, None)
    board.push_uci(move)
    assert "f3f7" not in board.legal_moves() or not _mates(board, "f3f7")


def _mates(board, move):
    board.push_uci(move)
    mate = board.is_check() and not board.legal_moves()
    board.pop()
    return mate


# ------------------------------------------------------------------ Turing's pieces

def test_turing_material_ratio():
    assert material_ratio(placement(chess.STARTING_FEN), True) == 1.0
    arr = placement("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert material_ratio(arr, True) == 1005.0 and material_ratio(arr, False) == 0.0
    arr = placement("4k3/4p3/8/8/8/8/4P3/R2QK3 w - - 0 1")      # 16 v 1
    assert material_ratio(arr, True) == 16.0


def test_turing_mobility_counts_legal_moves_with_captures_twice():
    """The mailbox mobility agrees with the C move generator on random positions."""
    for fen in positions(150, seed=21):
        board, oracle = Board(fen), chess.Board(fen)
        arr = placement(fen)
        white = board.turn == "w"
        expected = 0
        for move in oracle.legal_moves:
            piece = oracle.piece_at(move.from_square)
            if piece.piece_type == chess.PAWN or oracle.is_castling(move):
                continue
            expected += 2 if oracle.is_capture(move) else 1
        got = sum(weighted_mobility(arr, sq, white) for sq, c in enumerate(arr)
                  if c != "." and c.isupper() == white and c.upper() != "P")
        assert got == expected, fen


def test_turing_defenders_match_python_chess():
    for fen in positions(80, seed=22):
        oracle = chess.Board(fen)
        arr = placement(fen)
        for sq in range(64):
            for white in (True, False):
                assert count_attackers(arr, sq, white) == len(oracle.attackers(white, sq)), (fen, sq)


def _play(fen, castled=False, board_class=None):
    board = Board(fen)
    if board_class is not None:
        board = board_class(board)
    return position_play(board, placement(fen), True, castled)


class _NoCheck:
    """A board that hides its check, to measure the check term alone."""

    def __init__(self, board):
        self.board = board

    def fen(self):
        return self.board.fen()

    def is_check(self):
        return False


def test_turing_position_play_terms():
    # (vi) a pawn one rank further: +0.2.
    assert _play("4k3/8/8/8/8/P7/8/7K b - - 0 1") - _play("4k3/8/8/8/8/8/P7/7K b - - 0 1") \
        == pytest.approx(0.2)
    # (vii) a pawn defended by a piece: +0.3; the rook's mobility (6 or 13 moves) and the
    # king's vulnerability (a queen on h1 would have 20 or 19 moves) change too.
    assert _play("4k3/8/8/8/8/8/P7/R6K b - - 0 1") - _play("4k3/8/8/8/8/8/P7/1R5K b - - 0 1") \
        == pytest.approx(0.3 + math.sqrt(6) - math.sqrt(13) - math.sqrt(20) + math.sqrt(19))
    # (v) castling rights kept and castling possible: +1 +1; castling just done: +1.
    with_rights = _play("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1")
    without = _play("r3k2r/8/8/8/8/8/8/R3K2R b kq - 0 1")
    assert with_rights - without == pytest.approx(2.0)
    assert _play("r3k2r/8/8/8/8/8/8/R3K2R b kq - 0 1", castled=True) - without == pytest.approx(1.0)
    blocked = _play("r3k2r/8/8/8/8/8/8/RN2K1NR b KQkq - 0 1")      # rights, but no castling now
    assert blocked - _play("r3k2r/8/8/8/8/8/8/RN2K1NR b kq - 0 1") == pytest.approx(1.0)
    # (viii) the threat of mate: +1 (a luft for black removes it, nothing else changes).
    assert _play("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1") - _play("6k1/5pp1/7p/8/8/8/8/R5K1 b - - 0 1") \
        == pytest.approx(1.0)
    # (ix) check: +0.5.
    fen = "3k4/8/8/8/8/8/8/3R2K1 b - - 0 1"
    assert _play(fen) - _play(fen, board_class=_NoCheck) == pytest.approx(0.5)
    # (i): the square root of a knight's four moves, off every line of its king.
    lone = _play("4k3/8/8/N7/8/8/8/7K b - - 0 1")
    assert lone - _play("4k3/8/8/8/8/8/8/7K b - - 0 1") == pytest.approx(2.0)
    # (ii): a knight defended once +1.0, twice +1.5 (by pawns c3 and e3, or c3 and g3).
    twice = _play("7k/8/8/8/3N4/2P1P3/8/7K b - - 0 1")
    once = _play("7k/8/8/8/3N4/2P3P1/8/7K b - - 0 1")
    alone = _play("7k/8/8/8/3N4/6P1/1P6/7K b - - 0 1")
    assert twice - once == pytest.approx(0.5)
    assert once - alone == pytest.approx(1.0 + 0.2)      # c3 is a rank further than b2
    # (iii), (iv): king mobility minus the queen-on-king-square vulnerability.
    assert _play("4k3/8/8/8/8/8/8/7K b - - 0 1") == pytest.approx(math.sqrt(3) - math.sqrt(21))


def test_turing_honours_its_deadline_and_stop():
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    player = TuringPlayer(1)
    start = time.monotonic()
    result = player.search(board, seconds=0.01)
    assert time.monotonic() - start < 2.0
    assert result.move in board.legal_moves()
    player.stop()
    result = player.search(board, None)             # a pending stop: best so far at once
    assert result.move in board.legal_moves()
    player.clear_stop()


def test_turing_reports_an_engine_info():
    infos = []
    player = make_player("turing", seed=1, on_info=infos.append)
    board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    player.choose_move(board, None)
    assert infos[-1].score.mate == 1 and infos[-1].pv[0] == "h5f7" and infos[-1].depth == 2


# ------------------------------------------------------------------ Monte Carlo

def test_montecarlo_keeps_to_its_time():
    player = MonteCarloPlayer(seed=1)
    board = Board()
    for seconds in (0.05, 0.3):
        start = time.monotonic()
        result = player.search(board, seconds)
        elapsed = time.monotonic() - start
        assert elapsed < seconds + 0.5
        assert result["playouts"] >= len(board.legal_moves())
    # With a clock: a share of what is left, and never most of it.
    clock = Clock(TimeControl(1.0, 0.0))
    clock.remaining = [0.4, 0.4]
    start = time.monotonic()
    player.choose_move(board, clock)
    assert time.monotonic() - start < 0.3
    assert move_budget(clock, True, None) <= 0.2


def test_montecarlo_memory_is_constant():
    """Nothing allocated per playout: the Python heap does not grow during a search
    and the process's resident memory does not grow with the time given."""
    player = MonteCarloPlayer(seed=2)
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    player.search(board, 0.05)                              # warm up
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    short = player.search(board, 0.1)
    long = player.search(board, 1.0)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert long["playouts"] > 3 * short["playouts"]
    assert grown < 64 * 1024
    assert MonteCarlo.memory_bytes() < 64 * 1024
    if os.path.exists("/proc/self/statm"):
        page = os.sysconf("SC_PAGE_SIZE")
        rss0 = int(open("/proc/self/statm").read().split()[1]) * page
        player.search(board, 1.0)
        rss1 = int(open("/proc/self/statm").read().split()[1]) * page
        assert rss1 - rss0 < 1024 * 1024


def test_montecarlo_is_seeded_and_stops_on_request():
    board = Board()
    a = MonteCarloPlayer(seed=4).search(board, None, max_playouts=400)
    b = MonteCarloPlayer(seed=4).search(board, None, max_playouts=400)
    assert a["moves"] == b["moves"] and a["playouts"] == 400
    player = MonteCarloPlayer(seed=5)
    timer = threading.Timer(0.2, player.stop)
    timer.start()
    start = time.monotonic()
    result = player.search(board, None)                     # until stopped
    assert time.monotonic() - start < 3.0
    assert result["move"] in board.legal_moves()
    player.clear_stop()


def test_montecarlo_prefers_winning_material():
    """With a queen to take for nothing, the average favours taking it."""
    board = Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1")
    assert MonteCarloPlayer(seed=1).search(board, 1.0)["move"] == "e4d5"


def test_mean_to_cp():
    assert mean_to_cp(0.0) == 0
    assert mean_to_cp(0.5) > 0 > mean_to_cp(-0.5)
    assert mean_to_cp(1.0) == 2000 and mean_to_cp(-1.0) == -2000


# ------------------------------------------------------------------ the protocol adapter

def test_adapter_go_stop_and_limits():
    engine = PlayerEngine(make_player("montecarlo", seed=1))
    done = threading.Event()
    results = []

    def on_bestmove(result):
        results.append(result)
        done.set()

    engine.set_position(None, ["e2e4", "e7e5"])
    engine.go(Limits(movetime=200), on_bestmove=on_bestmove)
    assert done.wait(5.0) and results[-1].bestmove in engine.board.legal_moves()
    done.clear()
    engine.go(Limits(infinite=True), on_bestmove=on_bestmove)
    time.sleep(0.3)
    assert engine.is_searching()
    assert engine.searcher.progress()[0] > 0          # xboard's `.` while analysing
    engine.stop()
    engine.wait()
    assert done.is_set() and results[-1].bestmove in engine.board.legal_moves()
    assert 0.01 < engine.seconds_for(Limits(wtime=3000, btime=3000, winc=100, binc=100)) < 1.0
    assert engine.seconds_for(Limits(wtime=60000, btime=60000, movestogo=1)) > 20
    # Genome options: the default is accepted, another is refused with a reason.
    from genchess.genome import default_genome
    engine.set_genome(default_genome())
    from genchess.protocols.options import OptionError
    other = hand_set_genome().copy(new_id=99)
    other.mutate(random.Random(2), mean_changes=8)
    with pytest.raises(OptionError, match="has no genome"):
        engine.set_genome(other)


def test_engine_for_player():
    engine = Engine()
    assert engine_for_player("genetic", engine) is engine
    assert isinstance(engine_for_player("turing", engine), PlayerEngine)
    with pytest.raises(PlayerSpecError, match="cannot play through a protocol"):
        engine_for_player("human", engine)


def genchess(*args):
    # The installed command when there is one (CI), else the checkout: never the
    # uncompiled source tree in front of an installed package.
    return genchess_command(*args)


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
@pytest.mark.parametrize("spec", ["turing", "montecarlo", "random"])
def test_players_behind_the_protocols(protocol, spec):
    command, env = genchess(protocol, "--player", spec)
    popen = chess.engine.SimpleEngine.popen_uci if protocol == "uci" else \
        chess.engine.SimpleEngine.popen_xboard
    with popen(command, env=env) as engine:
        board = chess.Board()
        for _ in range(6):
            limit = chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05, black_inc=0.05)
            result = engine.play(board, limit)
            assert result.move in board.legal_moves
            board.push(result.move)
        result = engine.play(chess.Board(MATES_IN_ONE[0][0]), chess.engine.Limit(time=0.3))
        if spec != "random":
            assert result.move.uci() == "h5f7"


def test_uci_infinite_then_stop_with_montecarlo():
    command, env = genchess("uci", "--player", "montecarlo")
    with chess.engine.SimpleEngine.popen_uci(command, env=env) as engine:
        with engine.analysis(chess.Board()) as analysis:
            time.sleep(0.5)
            analysis.stop()
            start = time.monotonic()
            best = analysis.wait()
            assert time.monotonic() - start < 2.0
        assert best.move in chess.Board().legal_moves


@pytest.mark.parametrize("args, words", [
    (["uci", "--player", "human"], ["cannot play through a protocol"]),
    (["xboard", "--player", "deep-blue"], ["unknown player"]),
    (["--player", "genetic:/no/such/file"], ["cannot read genome file"]),
])
def test_bad_player_option_is_one_line_and_exit_2(args, words):
    command, env = genchess(*args)
    proc = subprocess.run(command, env=env, input="quit\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0]
