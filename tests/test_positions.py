"""Labelled position sets: the EPD form, quiet resolution, the C evaluation of a
whole set, and `genchess positions` end to end (resume, bad input, Stockfish)."""

import gzip
import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import chess
import numpy as np
import pytest

from engine_helpers import genchess_command, peer_engine, random_fens
from genchess.genome import load_genome
from genchess.position_sets import PositionSet, load_positions, pawn_unit
from genchess.position_sets.making import game_rng, sample_positions
from genchess_core import Board
from genchess_core.quiet_resolution import resolve_quiet
from genchess_core.searcher import Searcher

GENOMES = sorted((Path(__file__).parents[1] / "genchess" / "genomes").glob("*.genome"))


def positions_cmd(*args, timeout=120):
    argv, env = genchess_command("positions", *args)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


# ------------------------------------------------------------------ the set on disk

@pytest.mark.parametrize("name", ["set.epd", "set.epd.gz"])
def test_epd_round_trip_keeps_results_and_mentor_views(tmp_path, name):
    fens = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",   # ep unusable: dropped
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",                       # ep usable: kept
            "8/8/8/8/8/8/k7/2K5 b - - 0 1"]
    original = PositionSet.from_fens(fens, ["1-0", "0-1", 0.5], [35.0, None, -120.0])
    path = tmp_path / name
    original.write(path)
    text = (gzip.open(path, "rt") if name.endswith(".gz") else open(path)).read().splitlines()
    # ce is the side to move's view in the file: black to move and +35 for White reads -35.
    assert text[0] == 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 "1-0"; ce -35;'
    assert text[1] == 'r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 c9 "0-1";'
    assert text[2] == '8/8/8/8/8/8/k7/2K5 b - - c9 "1/2-1/2"; ce 120;'
    loaded = load_positions(path)
    assert len(loaded) == 3 and loaded.skipped == 0
    for column in ("pieces", "side", "castling", "ep", "result"):
        assert np.array_equal(getattr(loaded, column), getattr(original, column)), column
    assert np.array_equal(loaded.mentor, original.mentor, equal_nan=True)
    assert list(loaded.ep) == [-1, 43, -1] and list(loaded.result) == [1.0, 0.0, 0.5]
    assert loaded.fen(1) == "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1"


def test_bad_epd_lines_are_named_and_skipped(tmp_path):
    path = tmp_path / "other.epd"
    path.write_text('8/8/8/8/8/8/k7/2K5 b - - c9 "1/2-1/2";\n'
                    "not a position\n"
                    '8/8/8/8/8/8/k7/2K5 b - - ce 10;\n'
                    '8/8/8/8/8/8/k7/2K5 b - - c9 "2-0";\n'
                    '8/8/8/8/8/8/k7/9K b - - c9 "1-0";\n'
                    '8/8/8/8/8/8/k7/2K5 b - - c9 "1-0"; ce x;\n'
                    '\n'
                    'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - id "a"; c9 "0-1"; ce 5;\n')
    positions = load_positions(path)
    assert len(positions) == 2 and positions.skipped == 5
    assert [w.split(": ")[0] for w in positions.warnings] == [f"{path}:{n}" for n in (2, 3, 4, 5, 6)]
    assert "no c9 result" in positions.warnings[1] and "'2-0'" in positions.warnings[2]
    assert positions.mentor[1] == 5.0 and positions.result[1] == 0.0


def test_duplicates_are_kept_on_reading_and_dropped_on_request(tmp_path):
    fen = "8/8/8/8/8/8/k7/2K5 b - - 0 1"
    positions = PositionSet.from_fens([fen, "8/8/8/8/8/8/k7/2K5 w - - 0 1", fen], [1, 0.5, 0])
    unique = positions.drop_duplicates()
    assert len(positions) == 3 and len(unique) == 2 and list(unique.result) == [1.0, 0.5]


def test_split_is_by_position_and_stable_when_the_set_grows():
    fens = random_fens(400, seed=3)
    whole = PositionSet.from_fens(fens, [0.5] * len(fens))
    train, held = whole.split(held_out=0.2, seed=7)
    assert len(train) + len(held) == len(whole) and 40 < len(held) < 120
    held_keys = set(held.hashes().tolist())
    part = whole.subset(np.arange(100, 300)[::-1])       # fewer, reordered
    _, part_held = part.split(held_out=0.2, seed=7)
    assert set(part_held.hashes().tolist()) == held_keys & set(part.hashes().tolist())
    assert whole.split(0.2, seed=8)[1].hashes().tolist() != held.hashes().tolist()


# ------------------------------------------------------------------ sampling and resolution

def test_sampling_skips_the_opening_plies_and_positions_in_check():
    game = chess.Board()
    rng = random.Random(5)
    moves = []
    while not game.is_game_over() and len(moves) < 120:
        move = rng.choice(list(game.legal_moves))
        game.push(move)
        moves.append(move.uci())
    start = chess.STARTING_FEN
    counts = Counter()
    chosen = sample_positions(start, moves, 10, 6, game_rng(0, 1), counts)
    replay = chess.Board()
    plies_of = {}
    for ply, move in enumerate(moves):
        plies_of.setdefault(" ".join(replay.fen().split()[:4]), ply)
        replay.push_uci(move)
    plies = [plies_of[" ".join(fen.split()[:4])] for fen in chosen]
    assert len(chosen) == 6 == counts["sampled"]
    assert all(p >= 10 for p in plies) and plies == sorted(plies)       # spread, in order
    assert not any(chess.Board(fen).is_check() for fen in chosen)
    assert chosen == sample_positions(start, moves, 10, 6, game_rng(0, 1), Counter())
    short = sample_positions(start, moves[:12], 10, 6, game_rng(0, 1), Counter())
    assert len(short) <= 2 and all(plies_of[" ".join(f.split()[:4])] >= 10 for f in short)


def test_resolve_quiet_reaches_a_quiet_position_with_the_quiescence_score():
    searcher = Searcher(1)
    searcher.set_genome(load_genome(GENOMES[0]).pack())
    statuses = Counter()
    for fen in random_fens(300, seed=11):
        board = Board(fen)
        resolution = resolve_quiet(searcher, board)
        statuses[resolution.status] += 1
        assert board.fen() == Board(fen).fen()                      # untouched
        if resolution.fen is None:
            continue
        leaf = Board(resolution.fen)
        assert not leaf.is_check()
        static = searcher.evaluate(leaf)
        # The score is the original position's quiescence value, and the quiet
        # position's static evaluation is that value (from the original side's view).
        assert (static if resolution.plies % 2 == 0 else -static) == resolution.score
        # Quiet: stand pat is its quiescence value (no capture raises the evaluation).
        again = resolve_quiet(searcher, leaf)
        assert again.status == "quiet" and again.plies == 0 and again.score == static
    assert statuses["quiet"] > 250, statuses
    assert sum(1 for s in statuses if s not in ("quiet", "draw", "mate", "unresolved")) == 0


def test_resolve_quiet_follows_a_capture_sequence():
    searcher = Searcher(1)
    searcher.set_genome(load_genome(GENOMES[0]).pack())
    # White's queen takes a hanging rook: quiescence must see it.
    resolution = resolve_quiet(searcher, Board("4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1"))
    assert resolution.status == "quiet" and resolution.plies >= 1
    assert resolution.fen.split()[0].count("r") == 0


# ------------------------------------------------------------------ the C evaluation of a set

@pytest.mark.parametrize("genome_path", GENOMES, ids=lambda p: p.stem)
def test_evaluate_set_equals_the_searchers_evaluation(genome_path):
    genome = load_genome(genome_path)
    packed = genome.pack()
    searcher = Searcher(1)
    searcher.set_genome(packed)
    fens = random_fens(200, seed=21)
    positions = PositionSet.from_fens(fens, [0.5] * len(fens))
    scores = positions.evaluate(genome)
    assert scores.dtype == np.int32
    expected = []
    for fen in fens:
        board = Board(fen)
        score = searcher.evaluate(board)
        expected.append(score if board.turn == "w" else -score)
    assert scores.tolist() == expected
    assert np.allclose(positions.evaluate_cp(packed), scores * 100.0 / searcher.pawn_unit)
    assert pawn_unit(packed) == searcher.pawn_unit


# ------------------------------------------------------------------ the command

def lines_of(path):
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        return f.read().splitlines()


PLAY = ["--play", "genchess", "--games", "4", "--nodes", "500", "--workers", "1"]


def test_play_genchess_end_to_end_and_a_killed_run_resumes_to_the_same_set(tmp_path):
    whole = tmp_path / "whole.epd.gz"
    done = positions_cmd(*PLAY, "-o", str(whole))
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "whole.epd.gz.json").read_text())
    lines = lines_of(whole)
    assert meta["positions"] == len(lines) > 12 and meta["games"]["total"] == 4
    assert meta["fitted"] == {} and "--nodes 500" in meta["command"]
    assert all(line.endswith(('c9 "1-0";', 'c9 "0-1";', 'c9 "1/2-1/2";')) for line in lines)
    assert len({" ".join(line.split()[:4]) for line in lines}) == len(lines)
    assert not (tmp_path / "whole.epd.gz.journal").exists()

    # Killed (kill -9) after its first game, with a torn line at the end of the file.
    cut = tmp_path / "cut.epd.gz"
    argv, env = genchess_command("positions", *PLAY, "-o", str(cut))
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = tmp_path / "cut.epd.gz.journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) >= 2:
            break
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert journal.exists(), "the run finished before it could be killed"
    part = tmp_path / "cut.epd.gz.part"
    written = lines_of(part)
    assert written == lines[:len(written)]
    with open(part, "a") as f:
        f.write("rnbqkbnr/pppp")            # a line torn by the kill
    with open(journal, "a") as f:
        f.write('{"games": 9, "off')
    again = positions_cmd(*PLAY, "-o", str(cut))
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = positions_cmd(*PLAY, "-o", str(cut), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert cut.read_bytes() == whole.read_bytes()
    assert not part.exists() and not journal.exists()

    # A finished run grows: 2 games, then the same command asking 4, equals 4 at once.
    grown = tmp_path / "grown.epd.gz"
    assert positions_cmd(*PLAY[:3], "2", *PLAY[4:], "-o", str(grown)).returncode == 0
    assert positions_cmd(*PLAY, "-o", str(grown), "--resume").returncode == 0
    assert grown.read_bytes() == whole.read_bytes()
    # ... and so does one made in another clone: the shipped openings are named by their
    # place in the package (older sets wrote the clone's full path: still read as such).
    elsewhere = tmp_path / "elsewhere.epd.gz"
    assert positions_cmd(*PLAY[:3], "2", *PLAY[4:], "-o", str(elsewhere)).returncode == 0
    sidecar = tmp_path / "elsewhere.epd.gz.json"
    meta = json.loads(sidecar.read_text())
    assert meta["recipe"]["openings"] == "genchess/data/openings.epd"
    meta["recipe"]["openings"] = "/another/clone/genchess/data/openings.epd"
    sidecar.write_text(json.dumps(meta))
    assert positions_cmd(*PLAY, "-o", str(elsewhere), "--resume").returncode == 0
    assert elsewhere.read_bytes() == whole.read_bytes()
    changed = positions_cmd(*PLAY, "--seed", "3", "-o", str(grown), "--resume")
    assert changed.returncode == 2 and "seed" in changed.stderr


def test_pgn_games_broken_ones_named_and_duplicates_dropped(tmp_path):
    good = ("[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 "
            "7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Re8 1-0\n\n")
    broken = "[Result \"0-1\"]\n\n1. e4 e5 2. Ke3 Nc6 0-1\n\n"
    pgn = tmp_path / "games.pgn"
    pgn.write_text(good + broken + good)
    out = tmp_path / "set.epd"
    # Every position of each game sampled: the third game's are all duplicates.
    done = positions_cmd("--pgn", str(pgn), "-o", str(out), "--workers", "1", "--per-game", "100")
    assert done.returncode == 0, done.stderr
    assert f"{pgn}: game 2: illegal san: 'Ke3'" in done.stderr
    assert "1 bad PGN games" in done.stdout
    meta = json.loads((tmp_path / "set.epd.json").read_text())
    assert meta["skipped"]["bad_pgn_games_or_openings"] == 1
    assert meta["games"]["total"] == 2
    assert meta["skipped"]["duplicates"] == meta["positions"] == len(lines_of(out)) > 0
    # Sampled from ply 8 on: never the first eight plies' positions.
    early = chess.Board()
    opening = set()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6".split():
        opening.add(" ".join(early.fen().split()[:4]))
        early.push_san(san)
    assert not opening & {" ".join(line.split()[:4]) for line in lines_of(out)}


@pytest.mark.parametrize("args, message", [
    (["--pgn", "/no/such.pgn"], "/no/such.pgn: no such PGN file"),
    (["--play", "genchess", "--games", "1", "--mentor", "depth=x"], "--mentor: expected depth=N"),
    (["--play", "genchess", "--games", "1", "--mentor", "time=3"], "--mentor: expected depth=N"),
    (["--play", "genchess", "--games", "1", "--mentor", "genchess:time=3"], "--mentor: expected depth=N"),
    (["--play", "genchess", "--games", "1", "--mentor", "crafty:depth=3"], "--mentor: expected depth=N"),
    (["--play", "genchess", "--games", "1", "--mentor", "nodes=" + "9" * 5000], "--mentor: expected depth=N"),
    (["--play", "stockfish", "--games", "1", "--stockfish", "/no/stockfish"], "no stockfish binary"),
    (["--play", "genchess", "--games", "x"], "--games: expected a whole number"),
    (["--play", "genchess", "--games", "1", "--genome", "/no/such.genome"], "cannot read genome"),
    (["--play", "genchess", "--games", "1", "--openings", "/no/such.epd"], "no such opening file"),
    ([], "nothing to do"),
])
def test_bad_input_is_one_line_status_2_and_writes_nothing(tmp_path, args, message):
    done = positions_cmd(*args, "-o", str(tmp_path / "set.epd"))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_stockfish_self_play_with_mentor_scores(tmp_path):
    peer_engine("stockfish")
    out = tmp_path / "sf.epd"
    done = positions_cmd("--play", "stockfish", "--games", "2", "--nodes", "2000",
                         "--mentor", "depth=6", "--workers", "2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "sf.epd.json").read_text())
    assert meta["mentor"]["view"] == "side to move" and meta["mentor"]["limit"] == "depth=6"
    assert meta["engines"]["stockfish"]["version"].startswith("Stockfish")
    lines = lines_of(out)
    assert lines and all(" ce " in line for line in lines)
    positions = load_positions(out)
    ce = np.array([int(line.split(" ce ")[1].rstrip(";")) for line in lines])
    assert np.array_equal(positions.mentor, np.where(positions.side == 0, ce, -ce))
    again = tmp_path / "again.epd"
    positions_cmd("--play", "stockfish", "--games", "2", "--nodes", "2000", "--mentor", "depth=6",
                  "--workers", "1", "-o", str(again))
    assert lines_of(again) == lines            # deterministic whatever the worker count


def test_genchess_scores_its_own_positions(tmp_path):
    """--mentor genchess:depth=N: each position's ce is what GenChess itself reports at
    that depth over UCI from a new game (its hash cleared), the same with any worker
    count, and a packed set keeps the same scores from White's view."""
    import chess
    import chess.engine
    from genchess.files import package_file
    genome = str(package_file("genomes", "unified.genome"))
    out = tmp_path / "own.epd"
    done = positions_cmd("--play", "genchess", "--games", "2", "--nodes", "1000", "--genome", genome,
                         "--mentor", "genchess:depth=4", "--workers", "2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "own.epd.json").read_text())
    assert meta["mentor"]["limit"] == "genchess:depth=4" and meta["mentor"]["engine"].startswith("GenChess")
    lines = lines_of(out)
    assert lines and all(" ce " in line for line in lines)
    argv, env = genchess_command("--genome", genome, "uci")
    engine = chess.engine.SimpleEngine.popen_uci(argv, env=env)
    try:
        for line in lines[:6]:
            info = engine.analyse(chess.Board(line.split(" c9 ")[0]), chess.engine.Limit(depth=4), game=object())
            expected = max(-10000, min(10000, info["score"].relative.score(mate_score=100000)))
            assert int(line.split(" ce ")[1].rstrip(";")) == expected, line
    finally:
        engine.quit()
    packed_out = tmp_path / "own.gcpos"
    positions_cmd("--play", "genchess", "--games", "2", "--nodes", "1000", "--genome", genome,
                  "--mentor", "genchess:depth=4", "--workers", "1", "-o", str(packed_out))
    assert json.loads((tmp_path / "own.gcpos.json").read_text())["mentor"]["view"] == "White"
    from_epd, from_packed = load_positions(out), load_positions(packed_out)
    assert np.array_equal(from_epd.mentor, from_packed.mentor)
    assert np.array_equal(from_epd.pieces, from_packed.pieces)


def test_game_labels_keep_the_quiet_moves_positions_with_their_own_scores():
    """--mentor genchess:game: a position is kept when its side is not in check and
    the move played from it is quiet; its label is that move's search score."""
    from collections import Counter
    from genchess.position_sets.making import PositionsJob, game_rng, scored_positions
    # 1.e4 d5 2.exd5 (a capture) Qxd5 (a capture) 3.Nc3 Qe5+ 4.Be2 (out of check) Bg4
    moves = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5", "f1e2", "c8g4"]
    scores = [10, -20, 30, -40, 50, -60, 70, 20000]
    job = PositionsJob(number=1, source="genchess", engine="genchess", start_fen=chess.STARTING_FEN,
                       moves=(), skip_plies=0, per_game=100)
    counts = Counter()
    kept = scored_positions(chess.STARTING_FEN, moves, scores, job, game_rng(0, 1), counts)
    board, expected = chess.Board(), []
    for move, score in zip(moves, scores):
        if not board.is_check() and not board.is_capture(chess.Move.from_uci(move)):
            expected.append((" ".join(board.fen().split()[:4]), max(-10000, min(10000, score))))
        board.push_uci(move)
    assert kept == expected
    assert [score for _, score in kept] == [10, -20, 50, -60, 10000]      # a mate's score clamped
    assert counts["loud_move"] == 2 and counts["in_check"] == 1


def game_labelled_sets(tmp_path, name: str, *play) -> list[list[str]]:
    """The set `--play genchess *play --mentor genchess:game` makes on one worker and on
    two (tmp_path/NAME-1.epd, NAME-2.epd), as lines."""
    from genchess.files import package_file
    genome = str(package_file("genomes", "unified.genome"))
    sets = []
    for workers in ("1", "2"):
        out = tmp_path / f"{name}-{workers}.epd"
        done = positions_cmd("--play", "genchess", *play, "--genome", genome, "--per-game", "200",
                             "--mentor", "genchess:game", "--workers", workers, "-o", str(out))
        assert done.returncode == 0, done.stderr
        sets.append(lines_of(out))
    return sets


def test_game_labels_make_a_set_from_genchess_games_alone(tmp_path):
    sets = game_labelled_sets(tmp_path, "game", "--games", "3", "--nodes", "800")
    assert sets[0] == sets[1] and len(sets[0]) > 3 * 20          # most of each game, any worker count
    for line in sets[0]:
        assert " ce " in line and not chess.Board(line.split(" c9 ")[0]).is_check(), line
    meta = json.loads((tmp_path / "game-1.epd.json").read_text())
    assert meta["mentor"]["limit"] == "genchess:game" and meta["skipped"]["loud_move"] > 0
    refused = positions_cmd("--play", "stockfish", "--games", "1", "--nodes", "100",
                            "--mentor", "genchess:game", "-o", str(tmp_path / "no.epd"))
    assert refused.returncode == 2 and "--play genchess alone" in refused.stderr


def test_games_at_a_fixed_depth_are_labelled_and_the_same_on_any_worker_count(tmp_path):
    sets = game_labelled_sets(tmp_path, "depth", "--games", "2", "--depth", "3")
    assert sets[0] == sets[1] and len(sets[0]) > 2 * 10
    meta = json.loads((tmp_path / "depth-1.epd.json").read_text())
    assert meta["recipe"]["play"] == [["genchess", 2, {"depth": 3}]], meta["recipe"]
    assert meta["engines"]["genchess"]["depth_per_move"] == 3 and "nodes_per_move" not in meta["engines"]["genchess"]
    at_nodes = game_labelled_sets(tmp_path, "nodes", "--games", "2", "--nodes", "800")
    assert at_nodes[0] != sets[0]
    both = positions_cmd("--play", "genchess", "--games", "1", "--nodes", "800", "--depth", "3",
                         "-o", str(tmp_path / "no.epd"))
    assert both.returncode == 2 and "--nodes and --depth" in both.stderr and "Traceback" not in both.stderr
    alone = positions_cmd("--depth", "3", "--pgn", str(tmp_path / "x.pgn"), "-o", str(tmp_path / "no.epd"))
    assert alone.returncode == 2 and "need --play" in alone.stderr
