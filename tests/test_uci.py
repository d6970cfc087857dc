"""UCI: GenChess driven the way a GUI drives it, through the `genchess` command.

Games and analysis go through python-chess's UCI client (the same client a
tournament manager built on python-chess uses), with a clock kept here from wall
time so that a time loss is a real one. The finer protocol points (isready while
searching, ponder, stop latency, bad input) use a raw line driver, so a failure
shows the exact lines sent and received. Timing asserts are generous: they catch
an engine that ignores a command, not one that is a few milliseconds slow.
"""

from __future__ import annotations

import random
import re
import time

import chess
import chess.engine
import pytest

from engine_helpers import (REPO_ROOT, Player, RawEngine, genchess_command, kill_after,
                            opening_fens, peer_engine, run_match, uci_session)

DEFAULT_GENOME = REPO_ROOT / "genchess" / "genomes" / "default.genome"

MATE_IN_2 = [
    # (FEN, first moves that mate in 2), checked with python-chess below.
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", {"a1a6"}),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", {"d5f6"}),
]
SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"]     # White mates with h5f7
CHECKMATED = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"
STALEMATED = "7k/8/6QK/8/8/8/8/8 b - - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (>>|<<) ")


def board_after(moves, fen=chess.STARTING_FEN) -> chess.Board:
    board = chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return board


def assert_legal_bestmove(line: str, board: chess.Board) -> chess.Move:
    """`bestmove X [ponder Y]` with X legal in board and Y legal after X."""
    words = line.split()
    assert words[0] == "bestmove" and len(words) in (2, 4), f"malformed: {line!r}"
    move = chess.Move.from_uci(words[1])
    assert move in board.legal_moves, f"{line!r} is illegal in {board.fen()}"
    if len(words) == 4:
        assert words[2] == "ponder", f"malformed: {line!r}"
        after = board.copy()
        after.push(move)
        assert chess.Move.from_uci(words[3]) in after.legal_moves, \
            f"ponder move of {line!r} is illegal after {move} in {board.fen()}"
    return move


def search_lines(engine: RawEngine, timeout: float = 20.0) -> tuple[list[str], str]:
    """The lines of one search up to its bestmove, and the bestmove line."""
    seen: list[str] = []
    _, best = engine.expect("bestmove", timeout=timeout, seen=seen)
    return seen, best


# ------------------------------------------------------------------ games

def test_mate_in_2_positions_are_what_the_tests_say():
    """Guard for MATE_IN_2: no mate in 1, and the listed first moves mate in 2."""
    def mates_in_one(board):
        for move in board.legal_moves:
            board.push(move)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return True
        return False

    for fen, keys in MATE_IN_2:
        board = chess.Board(fen)
        assert not mates_in_one(board)
        for key in keys:
            board.push_uci(key)
            replies = list(board.legal_moves)
            assert replies
            for reply in replies:
                board.push(reply)
                assert mates_in_one(board), (fen, key, reply)
                board.pop()
            board.pop()


def test_self_play_games(launcher):
    """Two games GenChess v GenChess at 1 s + 0.1 s from two openings, colours swapped, of at
    most 140 plies: by then the clock lives on its increment."""
    a = launcher.genchess("uci", name="GenChess-A")
    b = launcher.genchess("uci", name="GenChess-B")
    records = run_match(Player("GenChess-A", a, True), Player("GenChess-B", b, True),
                        opening_fens(2, seed=11), base=1.0, inc=0.1,
                        max_plies=140)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def _stockfish(launcher):
    sf = launcher.peer([peer_engine("stockfish")], "uci", "Stockfish")
    elo = sf.options["UCI_Elo"]
    sf.configure({"UCI_LimitStrength": True, "UCI_Elo": elo.min, "Threads": 1, "Hash": 16})
    return sf, elo.min


def test_games_against_stockfish(launcher):
    """Two games against Stockfish at its lowest UCI_Elo, 1 s + 0.1 s."""
    ours = launcher.genchess("uci")
    sf, elo = _stockfish(launcher)
    records = run_match(Player("GenChess", ours, True), Player(f"Stockfish-{elo}", sf, False),
                        opening_fens(2, seed=12), base=1.0, inc=0.1)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


def test_moves_per_session_game_against_stockfish(launcher):
    """One game at 20 moves in 6 s (repeating), which crosses a session boundary."""
    ours = launcher.genchess("uci")
    sf, elo = _stockfish(launcher)
    records = run_match(Player("GenChess", ours, True), Player(f"Stockfish-{elo}", sf, False),
                        [chess.STARTING_FEN], base=6.0, moves_per_session=20, max_plies=120)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_self_play_match_slow(launcher):
    a = launcher.genchess("uci", name="GenChess-A")
    b = launcher.genchess("uci", "--search", "budget", name="GenChess-B-budget")
    starts = [fen for fen in opening_fens(4, seed=21) for _ in range(2)]
    records = run_match(Player("GenChess-A", a, True), Player("GenChess-B-budget", b, True),
                        starts, base=2.0, inc=0.2, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_stockfish_match_slow(launcher):
    ours = launcher.genchess("uci")
    sf, elo = _stockfish(launcher)
    starts = [fen for fen in opening_fens(5, seed=22) for _ in range(2)]
    records = run_match(Player("GenChess", ours, True), Player(f"Stockfish-{elo}", sf, False),
                        starts, base=2.0, inc=0.1, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


@pytest.mark.slow
def test_moves_per_session_match_slow(launcher):
    ours = launcher.genchess("uci")
    sf, elo = _stockfish(launcher)
    starts = [fen for fen in opening_fens(2, seed=23) for _ in range(2)]
    records = run_match(Player("GenChess", ours, True), Player(f"Stockfish-{elo}", sf, False),
                        starts, base=20.0, moves_per_session=40, max_plies=300)
    assert all(r.failure is None for r in records), [r.summary() for r in records]


# ------------------------------------------------------------------ python-chess client

def test_identification_and_options(launcher):
    engine = launcher.genchess("uci")
    assert engine.id["name"].startswith("GenChess")
    options = engine.options
    assert options["Hash"].type == "spin"
    assert options["Clear Hash"].type == "button"
    assert options["Genome"].type == "string"
    assert options["Genome ID"].type == "string"
    assert options["Search"].type == "combo" and set(options["Search"].var) == {"iterative", "budget", "ga", "minimax"}
    assert options["Move Overhead"].type == "spin"
    assert options["Ponder"].type == "check"
    assert options["UCI_Chess960"].type == "check" and options["UCI_Chess960"].default is False
    assert (options["MultiPV"].min, options["MultiPV"].max) == (1, 10)
    engine.configure({"Hash": 8, "Move Overhead": 50, "Search": "budget", "Clear Hash": None})
    result = engine.play(chess.Board(), chess.engine.Limit(time=0.2))
    assert result.move in chess.Board().legal_moves


def test_analysis_then_stop(launcher):
    engine = launcher.genchess("uci")
    board = chess.Board(KIWIPETE)
    watchdog = kill_after(engine, 60)
    try:
        with engine.analysis(board) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 5 and "pv" in info:
                    break
            analysis.stop()
            best = analysis.wait()
            last = analysis.info
    finally:
        watchdog.cancel()
    assert last["depth"] >= 5
    assert isinstance(last["score"], chess.engine.PovScore)
    assert last["pv"] and last["pv"][0] in board.legal_moves
    for key in ("seldepth", "nodes", "nps", "time", "hashfull", "multipv"):
        assert key in last, f"info lacks {key}: {last}"
    assert best.move in board.legal_moves


@pytest.mark.parametrize("nodes", [1500, 20_000])
def test_go_nodes_searches_exactly_that_many_nodes(launcher, nodes):
    engine = launcher.genchess("uci")
    info = engine.analyse(chess.Board(KIWIPETE), chess.engine.Limit(nodes=nodes))
    assert info["nodes"] == nodes


def test_multipv_3_gives_three_distinct_first_moves(launcher):
    engine = launcher.genchess("uci")
    board = chess.Board()
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert len(infos) == 3
    firsts = [info["pv"][0] for info in infos]
    assert len(set(firsts)) == 3, firsts
    assert all(move in board.legal_moves for move in firsts)
    assert [info["multipv"] for info in infos] == [1, 2, 3]


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, KIWIPETE])
def test_multipv_lines_are_ordered_best_first(fen):
    """UCI: multipv 1 is the best line. Within one depth, the reported scores must
    not increase down the list, else the GUI shows a better line than the move played."""
    with uci_session() as engine:
        engine.send("setoption name MultiPV value 3")
        engine.send(f"position fen {fen}")
        engine.send("go depth 6")
        seen, best = search_lines(engine, timeout=60)
        by_depth: dict[int, list[tuple[int, int, str]]] = {}
        for line in seen:
            m = re.search(r"depth (\d+) .*multipv (\d+) score cp (-?\d+)", line)
            if m:
                by_depth.setdefault(int(m[1]), []).append((int(m[2]), int(m[3]), line))
        assert by_depth, seen
        for depth, lines in sorted(by_depth.items()):
            scores = [cp for _, cp, _ in sorted(lines)]
            assert scores == sorted(scores, reverse=True), \
                f"depth {depth}: multipv scores {scores} not best first:\n" + \
                "\n".join(text for _, _, text in sorted(lines)) + f"\n{best}"


def test_searchmoves_restricts_the_root(launcher):
    engine = launcher.genchess("uci")
    board = chess.Board()
    allowed = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h4")]
    result = engine.play(board, chess.engine.Limit(depth=5), root_moves=allowed)
    assert result.move in allowed
    # A root move that only a restriction explains: the mate-in-1 is excluded.
    board = board_after(SCHOLAR)
    allowed = [chess.Move.from_uci("a2a3")]
    result = engine.play(board, chess.engine.Limit(depth=4), root_moves=allowed)
    assert result.move == allowed[0]


def test_go_mate_2_reports_mate_2():
    with uci_session() as engine:
        for fen, keys in MATE_IN_2:
            engine.send(f"position fen {fen}")
            engine.send("go mate 2")
            seen, best = search_lines(engine)
            scored = [line for line in seen if " score " in line]
            assert scored, seen
            assert " score mate 2 " in scored[-1], scored[-1]
            move = assert_legal_bestmove(best, chess.Board(fen))
            assert move.uci() in keys, (fen, best)


# ------------------------------------------------------------------ searching and stopping

def test_isready_answered_while_searching_and_one_bestmove_after_stop():
    with uci_session() as engine:
        engine.send("position startpos")
        engine.send("go infinite")
        engine.expect("info depth", timeout=10)
        sent = time.monotonic()
        engine.send("isready")
        seen: list[str] = []
        stamp, _ = engine.expect("readyok", timeout=5, seen=seen)
        assert stamp - sent < 1.0, f"readyok took {stamp - sent:.2f} s"
        assert not any(line.startswith("bestmove") for line in seen), seen
        # Still searching after readyok: about 2.5 s gives progress reports.
        later = engine.drain(quiet=2.5, limit=2.5)
        assert not any(line.startswith("bestmove") for line in later), later
        progress = [line for line in seen + later
                    if line.startswith("info") and " depth " not in line and " nodes " in line]
        assert progress, f"no progress info without depth in {seen + later}"
        engine.send("stop")
        _, best = engine.expect("bestmove", timeout=5)
        assert_legal_bestmove(best, chess.Board())
        after = engine.drain(quiet=0.5)
        assert not any(line.startswith("bestmove") for line in after), f"second bestmove: {after}"
        engine.send("isready")
        engine.expect("readyok", timeout=5)


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, KIWIPETE])
def test_stop_latency(fen):
    with uci_session() as engine:
        latencies = []
        for _ in range(3):
            engine.send(f"position fen {fen}")
            engine.send("go infinite")
            engine.expect("info depth", timeout=10)
            time.sleep(0.5)
            sent = time.monotonic()
            engine.send("stop")
            stamp, best = engine.expect("bestmove", timeout=10)
            latencies.append(stamp - sent)
            assert_legal_bestmove(best, chess.Board(fen))
        print("stop latencies (s):", ", ".join(f"{t:.4f}" for t in latencies))
        assert max(latencies) < 0.5, latencies


def test_ponderhit_turns_ponder_into_a_timed_search():
    predicted = ["e2e4", "e7e5", "g1f3"]           # we ponder on Black's reply to g1f3
    with uci_session() as engine:
        engine.send("setoption name Ponder value true")
        engine.send("position startpos moves " + " ".join(predicted))
        engine.send("go ponder wtime 3000 btime 3000 winc 0 binc 0")
        engine.expect("info depth", timeout=10)
        early = engine.drain(quiet=0.5, limit=0.5)
        assert not any(line.startswith("bestmove") for line in early), \
            f"bestmove while pondering, before ponderhit: {early}"
        sent = time.monotonic()
        engine.send("ponderhit")
        stamp, best = engine.expect("bestmove", timeout=10)
        assert stamp - sent < 3.0, f"bestmove {stamp - sent:.2f} s after ponderhit with 3 s left"
        assert_legal_bestmove(best, board_after(predicted))
        assert not any(line.startswith("bestmove") for line in engine.drain(quiet=0.5))


def test_ponder_miss_stop_then_new_search():
    with uci_session() as engine:
        engine.send("position startpos moves e2e4 e7e5 g1f3")
        engine.send("go ponder wtime 3000 btime 3000")
        engine.expect("info depth", timeout=10)
        engine.send("stop")
        _, best = engine.expect("bestmove", timeout=5)
        assert_legal_bestmove(best, board_after(["e2e4", "e7e5", "g1f3"]))
        assert not any(line.startswith("bestmove") for line in engine.drain(quiet=0.5))
        # The opponent played something else: new position, normal search.
        engine.send("position startpos moves e2e4 e7e5 d2d4")
        engine.send("go wtime 3000 btime 3000")
        _, best = engine.expect("bestmove", timeout=10)
        assert_legal_bestmove(best, board_after(["e2e4", "e7e5", "d2d4"]))


@pytest.mark.parametrize("fen", [CHECKMATED, STALEMATED])
def test_bestmove_0000_without_legal_moves(fen):
    with uci_session() as engine:
        engine.send(f"position fen {fen}")
        engine.send("go depth 3")
        _, best = engine.expect("bestmove", timeout=10)
        assert best.strip() == "bestmove 0000"
        engine.send("go wtime 1000 btime 1000")
        _, best = engine.expect("bestmove", timeout=10)
        assert best.strip() == "bestmove 0000"
        engine.send("go infinite")
        early = engine.drain(quiet=0.3, limit=0.3)
        assert not any(line.startswith("bestmove") for line in early), \
            f"go infinite answered before stop: {early}"
        engine.send("stop")
        _, best = engine.expect("bestmove", timeout=5)
        assert best.strip() == "bestmove 0000"


# ------------------------------------------------------------------ bad input keeps the state

BAD_FENS = [
    "garbage",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",              # 7 ranks
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",     # 9 files
    "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",       # no black king
    "6k1/5ppp/8/8/8/8/8/r6K b - - 0 1",                             # side not to move in check
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",     # bad side
    "P6k/8/8/8/8/8/8/7K w - - 0 1",                                 # pawn on the last rank
]


@pytest.mark.parametrize("bad", BAD_FENS)
def test_bad_fen_keeps_previous_position(bad):
    with uci_session() as engine:
        engine.send("position startpos moves " + " ".join(SCHOLAR))
        engine.send(f"position fen {bad}")
        _, reply = engine.expect("info string", timeout=5)
        engine.send("go depth 2")
        seen, best = search_lines(engine)
        # Only the kept position explains this move: Qxf7 mates.
        assert assert_legal_bestmove(best, board_after(SCHOLAR)).uci() == "h5f7", (reply, best)


@pytest.mark.parametrize("moves", [SCHOLAR + ["e1e3"], SCHOLAR + ["e7e5"], SCHOLAR + ["zz"],
                                   SCHOLAR + ["h5f7", "a7a6"]])
def test_illegal_move_keeps_previous_position(moves):
    with uci_session() as engine:
        engine.send("position startpos moves " + " ".join(SCHOLAR))
        engine.send("position startpos moves " + " ".join(moves))
        engine.expect("info string", timeout=5)
        engine.send("go depth 2")
        _, best = search_lines(engine)
        assert assert_legal_bestmove(best, board_after(SCHOLAR)).uci() == "h5f7"


def random_game_moves(plies: int, seed: int) -> list[chess.Move]:
    """A legal game of `plies` random moves that never ends the game."""
    rng = random.Random(seed)
    board = chess.Board()
    while len(board.move_stack) < plies:
        moves = list(board.legal_moves)
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            if not board.is_game_over(claim_draw=False):
                break
            board.pop()
        else:
            raise AssertionError("random game got stuck")
    return board.move_stack


def test_very_long_position_command():
    moves = random_game_moves(400, seed=5)
    board = chess.Board()
    for move in moves:
        board.push(move)
    with uci_session() as engine:
        sent = time.monotonic()
        engine.send("position startpos moves " + " ".join(m.uci() for m in moves))
        engine.send("isready")
        engine.expect("readyok", timeout=10)
        engine.send("go depth 1")
        stamp, best = engine.expect("bestmove", timeout=10)
        assert stamp - sent < 2.0, f"400-ply position and depth 1 took {stamp - sent:.2f} s"
        assert_legal_bestmove(best, board)


def test_setoption_names_and_values_with_spaces(tmp_path):
    genome_dir = tmp_path / "my genomes"
    genome_dir.mkdir()
    good = genome_dir / "the default.genome"
    good.write_text(DEFAULT_GENOME.read_text())
    with uci_session() as engine:
        engine.send("setoption name Move Overhead value 100")
        engine.send("setoption name Clear Hash")
        engine.send(f"setoption name Genome value {good}")
        _, loaded = engine.expect("info string", timeout=10)
        assert str(good) in loaded and "loaded" in loaded, loaded
        engine.send("setoption name Genome ID value 0")
        _, loaded = engine.expect("info string", timeout=10)
        assert "loaded" in loaded, loaded
        engine.send("isready")
        seen: list[str] = []
        engine.expect("readyok", timeout=10, seen=seen)
        assert not seen, f"unexpected replies: {seen}"
        engine.send("position startpos")
        engine.send("go depth 2")
        _, best = engine.expect("bestmove", timeout=10)
        assert_legal_bestmove(best, chess.Board())


@pytest.mark.parametrize("command", [
    "setoption name Hash value 0",
    "setoption name Hash value lots",
    "setoption name MultiPV value 11",
    "setoption name Search value sideways",
    "setoption name Ponder value maybe",
    "setoption name No Such Option value 3",
    "setoption",
    "setoption value 3",
    "setoption name Genome ID value seven",
    "go depth 0",
    "go nodes",
    "go frobnicate",
    "go searchmoves e2e5",
    "position",
    "position sideways",
    "debug sometimes",
    "frobnicate the engine",
])
def test_bad_command_gets_info_string_and_changes_nothing(command):
    with uci_session() as engine:
        engine.send("position startpos moves " + " ".join(SCHOLAR))
        engine.send(command)
        _, reply = engine.expect("info string", timeout=5)
        # `stop` waits for any search to end, so no bestmove is left pending.
        engine.send("stop")
        engine.send("isready")
        engine.expect("readyok", timeout=5)
        engine.send("go depth 2")
        _, best = search_lines(engine)
        assert assert_legal_bestmove(best, board_after(SCHOLAR)).uci() == "h5f7", (reply, best)


def test_setoption_genome_bad_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad genome.txt"
    lines = DEFAULT_GENOME.read_text().splitlines()
    line_no = next(i for i, line in enumerate(lines, 1) if line.startswith("B:"))
    lines[line_no - 1] = "B: banana"
    bad.write_text("\n".join(lines) + "\n")
    with uci_session() as engine:
        engine.send(f"setoption name Genome value {bad}")
        _, reply = engine.expect("info string", timeout=10)
        assert f"{bad}:{line_no}" in reply, reply
        engine.send(f"setoption name Genome value {tmp_path / 'missing.genome'}")
        _, reply = engine.expect("info string", timeout=10)
        assert "missing.genome" in reply, reply
        engine.send("position startpos")
        engine.send("go depth 2")
        _, best = engine.expect("bestmove", timeout=10)
        assert_legal_bestmove(best, chess.Board())


def test_debug_ucinewgame_and_plain_command_picks_uci():
    engine = RawEngine.genchess()             # plain `genchess`: the first command decides
    with engine:
        engine.send("uci")
        engine.expect("uciok", timeout=20)
        engine.send("debug on")
        engine.send("debug off")
        engine.send("ucinewgame")
        engine.send("isready")
        seen: list[str] = []
        engine.expect("readyok", timeout=5, seen=seen)
        assert not seen, seen


@pytest.mark.parametrize("command", [
    "go depth 99999999999999999999",
    "go depth 2147483648",
    "go nodes 99999999999999999999999",
    "go mate 99999999999999999999",
])
def test_huge_go_numbers_are_answered(command):
    """A number too big for the C search must give an info string or a (clamped)
    search ending in bestmove, never a dead search thread and a traceback."""
    with uci_session() as engine:
        engine.send("position startpos")
        engine.send(command)
        replies = engine.drain(quiet=0.5, limit=1.0)
        engine.send("stop")
        engine.send("isready")
        seen: list[str] = []
        engine.expect("readyok", timeout=10, seen=seen)
        replies += seen + engine.drain(quiet=0.5)
        answered = [line for line in replies if line.startswith(("bestmove", "info string"))]
        assert answered, f"{command!r} got no bestmove and no info string; replies: {replies[-5:]}"
        engine.close()
        assert "Traceback" not in engine.stderr, engine.stderr[-2000:]


# ------------------------------------------------------------------ startup and logging

def _run_genchess(*args: str, stdin: str = "quit\n"):
    import subprocess
    argv, env = genchess_command(*args)
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, timeout=30)


def test_startup_with_bad_genome_exits_2_with_one_line(tmp_path):
    lines = DEFAULT_GENOME.read_text().splitlines()
    line_no = next(i for i, line in enumerate(lines, 1) if line.startswith("B:"))
    lines[line_no - 1] = "B: banana"
    bad = tmp_path / "bad.genome"
    bad.write_text("\n".join(lines) + "\n")
    junk = tmp_path / "junk.genome"
    junk.write_text("not a genome\n")
    cases = [
        (["uci", "--genome", str(bad)], f"{bad}:{line_no}"),
        (["--genome", str(bad), "xboard"], f"{bad}:{line_no}"),
        (["--genome", str(junk)], f"{junk}:1"),
        (["uci", "--genome", str(tmp_path / "missing.genome")], "missing.genome"),
        (["uci", "--genome", str(tmp_path)], str(tmp_path)),
        (["uci", "--genome", str(DEFAULT_GENOME), "--genome-id", "987654"], "987654"),
    ]
    for args, expected in cases:
        done = _run_genchess(*args, stdin="uci\nquit\n")
        err_lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, (args, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert len(err_lines) == 1, (args, done.stderr)
        assert expected in err_lines[0], (args, err_lines[0])
        assert "uciok" not in done.stdout, (args, done.stdout)


@pytest.mark.parametrize("args", [["uci", "--hash", "0"], ["uci", "--search", "sideways"],
                                  ["--hash", "lots", "uci"], ["uci", "--genome-id", "3"],
                                  ["uci", "--log", "/nonexistent-dir/x/log.txt"]])
def test_startup_with_bad_option_exits_2_without_traceback(args):
    done = _run_genchess(*args, stdin="uci\nquit\n")
    assert done.returncode == 2, (args, done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip(), "no explanation on stderr"
    assert "uciok" not in done.stdout


def test_log_file_records_both_directions_with_timestamps(tmp_path):
    log = tmp_path / "genchess.log"
    done = _run_genchess("uci", "--log", str(log),
                         stdin="uci\nisready\nposition startpos\ngo depth 2\nisready\nquit\n")
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    assert lines and all(LOG_LINE.match(line) for line in lines), lines[:5]
    received = [line.split(" ", 3)[3] for line in lines if " >> " in line]
    sent = [line.split(" ", 3)[3] for line in lines if " << " in line]
    assert received[:2] == ["uci", "isready"] and "quit" in received
    assert "uciok" in sent and "readyok" in sent
    assert "go depth 2" in received and any(line.startswith("bestmove") for line in sent)
