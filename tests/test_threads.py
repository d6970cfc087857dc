"""A search on several threads (Lazy SMP): the same answers as one thread, every
thread stopped when the search stops, legal moves only, the lock-free hash table's
guard against torn entries, and the options that set the threads."""

from __future__ import annotations

import threading
import time

import chess
import pytest

from engine_helpers import assert_xboard_plays_a_legal_first_move, uci_session, xboard_session
from genchess.engine import Engine
from genchess.genome import load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess.protocols.options import MAX_THREADS
from genchess.timeman import Limits
from genchess_core import Board
from genchess_core.searcher import MATE_THRESHOLD, Searcher

MATES = [
    # (FEN, mate in N moves): two mates in 2 (test_uci checks them) and a mate in 3.
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3),
]


def searcher_with(threads: int) -> Searcher:
    searcher = Searcher()
    searcher.set_genome(load_genome(GENOMES_DIR / "evolved.genome").pack())
    searcher.set_threads(threads)
    return searcher


def helper_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("genchess-search-")]


@pytest.mark.parametrize("threads", [2, 4])
def test_every_thread_count_finds_the_mates_one_thread_finds(threads):
    for fen, moves in MATES:
        for searcher in (searcher_with(1), searcher_with(threads)):
            searcher.clear_stop()
            result = searcher.search(Board(fen), max_depth=2 * moves + 1)
            score, pv = result["lines"][0]
            assert score > MATE_THRESHOLD and (1_000_000_000 - score + 1) // 2 == moves, (fen, searcher.threads)
            board = chess.Board(fen)
            for move in pv:
                board.push_uci(move)                     # the whole line is legal
    assert not helper_threads()


def test_helpers_search_and_count_their_nodes():
    one, two = searcher_with(1), searcher_with(2)
    for searcher in (one, two):
        searcher.clear_stop()
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    alone = one.search(Board(fen), max_depth=7)
    helped = two.search(Board(fen), max_depth=7)
    # The helper searched too: more nodes than the main thread reached by itself.
    assert helped["nodes"] > 0 and two.progress()[0] == helped["nodes"]
    assert helped["depth"] == alone["depth"] == 7


def test_stop_ends_every_thread_at_once():
    searcher = searcher_with(4)
    searcher.clear_stop()
    result = {}
    worker = threading.Thread(target=lambda: result.update(searcher.search(Board())))
    worker.start()
    time.sleep(0.5)
    assert len(helper_threads()) == 3
    sent = time.monotonic()
    searcher.stop()
    worker.join(timeout=5)
    assert not worker.is_alive() and time.monotonic() - sent < 0.5
    assert not helper_threads()
    assert chess.Move.from_uci(result["lines"][0][1][0]) in chess.Board().legal_moves


def test_a_torn_hash_entry_is_a_miss():
    searcher = Searcher()
    board, other = Board(), Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    searcher.store(board, 123, 9)
    assert searcher.probe(board) == (123, None, 9, 3)
    searcher.store(other, -55, 4)
    searcher.tear_entry_for_tests(board, other)          # board's check, other's data
    assert searcher.probe(board) is None


def test_games_on_two_threads_are_legal():
    """Short self-play games with python-chess as the referee: every move the
    engine returns on two threads is legal."""
    engine = Engine(load_genome(GENOMES_DIR / "evolved.genome"))
    engine.set_threads(2)
    for game in range(4):
        board = chess.Board()
        engine.new_game()
        while not board.is_game_over(claim_draw=True) and board.ply() < 120:
            engine.set_position(chess.STARTING_FEN, [m.uci() for m in board.move_stack])
            move = chess.Move.from_uci(engine.search(Limits(movetime=15 + 10 * game)).bestmove)
            assert move in board.legal_moves, (board.fen(), move)
            board.push(move)
    assert not helper_threads()


def test_the_threads_option_is_checked():
    with uci_session() as engine:
        engine.send("uci")
        seen: list[str] = []
        engine.expect("uciok", seen=seen)
        assert f"option name Threads type spin default 1 min 1 max {MAX_THREADS}" in seen
        for bad, problem in (("0", "from 1 to"), (str(MAX_THREADS + 1), "from 1 to"), ("two", "whole number")):
            engine.send(f"setoption name Threads value {bad}")
            _, line = engine.expect("info string", timeout=5)
            assert "Threads" in line and problem in line, line
        engine.send(f"setoption name Threads value {MAX_THREADS}")
        engine.send("position startpos")
        engine.send("go movetime 300")
        _, best = engine.expect("bestmove", timeout=10)
        assert chess.Move.from_uci(best.split()[1]) in chess.Board().legal_moves


def test_xboard_cores():
    with xboard_session() as engine:
        engine.send("xboard")
        engine.send("protover 2")
        seen: list[str] = []
        _, last = engine.expect(lambda line: "done=1" in line, seen=seen)
        assert any("smp=1" in line for line in seen + [last]), seen + [last]
        engine.send("cores x")
        _, line = engine.expect("Error", timeout=5)
        assert "cores" in line
        engine.send(f"cores {MAX_THREADS + 8}")          # more than the machine: capped, no error
        assert_xboard_plays_a_legal_first_move(engine)


def test_matches_name_the_threads_of_a_genchess_side():
    from genchess.strength.engines import SpecError, make_match_player, parse_engine_spec
    spec = parse_engine_spec("genchess threads=2 name=Two")
    assert spec.threads == 2
    player = make_match_player(spec)
    assert player.engine.searcher.threads == 2
    for bad in ("threads=0", "threads=two"):
        with pytest.raises(SpecError, match="threads must be a whole number of at least 1"):
            parse_engine_spec(f"genchess {bad}")
