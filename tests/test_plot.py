"""genchess-plot: the six PNGs of a run, the genome-only plots of a run without games,
one-line errors for unusable files, and promotion counting checked by python-chess."""

from __future__ import annotations

import statistics
import struct
from collections import Counter
from pathlib import Path
from random import Random

import chess
import chess.pgn
import pytest

from genchess.train.gene_pool_plots import living_piece_medians, piece_medians_table, promotion_counts
from genchess.train.records import read_games_file
from train_helpers import copy_run, plot_command, read_pgn_games, run, short_run

ALL_PLOTS = ["piece_strengths", "gene_priorities", "results", "endings", "game_lengths", "promotions"]
GENOME_PLOTS = ALL_PLOTS[:2]
NAMES = {chess.QUEEN: "Q", chess.ROOK: "R", chess.BISHOP: "B", chess.KNIGHT: "N"}


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    run_dir, proc = short_run(tmp_path_factory)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return run_dir


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG; fails unless the file is one (signature, IHDR, IEND)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR", path.name
    assert data[-8:-4] == b"IEND", f"{path.name} is truncated"
    return struct.unpack(">II", data[16:24])


def check_pngs(directory: Path, names: list[str]) -> None:
    assert sorted(p.name for p in directory.iterdir()) == sorted(f"{n}.png" for n in names)
    for name in names:
        path = directory / f"{name}.png"
        width, height = png_size(path)
        assert width >= 300 and height >= 200, (name, width, height)
        assert path.stat().st_size > 5000, (name, path.stat().st_size)


def oracle_promotions(games: list[chess.pgn.Game]) -> dict[str, Counter]:
    counts = {"White": Counter(), "Black": Counter()}
    for game in games:
        board = game.board()
        for move in game.mainline_moves():
            if move.promotion:
                counts["White" if board.turn == chess.WHITE else "Black"][NAMES[move.promotion]] += 1
            board.push(move)
    return counts


def oracle_medians_table(text: str) -> str:
    """The living genomes' median N, B, R, Q over P per pool and overall, read straight
    off the file's text (the last Still Alive line of each pool names the living)."""
    values, alive, current, in_piece = {}, {}, None, False
    for line in text.splitlines():
        if line.startswith("ID: "):
            current, in_piece = int(line[4:]), False
            values[current] = {}
        elif line.startswith("Name: "):
            in_piece = line == "Name: Piece Strength Gene"
        elif in_piece and line[1:3] == ": " and line[0] in "PNBRQK":
            values[current][line[0]] = float(line[3:])
        elif line.startswith("Still Alive:"):
            _, pool, ids = line.split(":")
            alive[int(pool)] = [int(i) for i in ids.split()]

    def row(name, ids):
        ratios = [values[i] for i in ids if values[i]["P"] > 0]
        cells = [f"{statistics.median(v[p] / v['P'] for v in ratios):.2f}" if ratios else "-"
                 for p in "NBRQ"]
        return f"| {name} | {len(ratios)} | " + " | ".join(cells) + " |"

    rows = [row(pool, ids) for pool, ids in sorted(alive.items())]
    if len(alive) > 1:
        rows.append(row("all", [i for ids in alive.values() for i in ids]))
    return "\n".join(rows)


def assert_one_line_error(proc, fragment: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("genchess-plot: "), proc.stderr
    assert fragment in lines[0], lines[0]


# ------------------------------------------------------------------ plots of a run

def test_six_plots_of_a_short_run(short, tmp_path):
    pool = copy_run(short, tmp_path / "run")
    before = pool.read_bytes(), Path(str(pool) + "_games.txt").read_bytes()
    out = tmp_path / "plots"
    proc = run(plot_command(str(pool), "--out", str(out)), cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" or "Traceback" not in proc.stderr
    check_pngs(out, ALL_PLOTS)
    for name in ALL_PLOTS:
        assert f"wrote {out / name}.png" in proc.stdout
    counts = oracle_promotions(read_pgn_games(Path(str(pool) + "_games.txt")))
    expected = ", ".join(f"{word} {counts['White'][p] + counts['Black'][p]}"
                         for p, word in zip("QRBN", ("queen", "rook", "bishop", "knight")))
    assert f"Promotions: {expected}" in proc.stdout
    assert oracle_medians_table(pool.read_text()) in proc.stdout
    # A reader only: the run's files are untouched, nothing else appears beside them.
    assert (pool.read_bytes(), Path(str(pool) + "_games.txt").read_bytes()) == before
    assert sorted(p.name for p in pool.parent.iterdir()) == ["pool.txt", "pool.txt_games.txt"]


def test_plots_skip_torn_tails_without_touching_the_files(short, tmp_path):
    pool = copy_run(short, tmp_path / "run")
    games_file = Path(str(pool) + "_games.txt")
    with open(pool, "a") as f:
        f.write("ID: 99999\nName: Piece Strength Gene\nB: 3")
    with open(games_file, "a") as f:
        f.write('[Event "GenChess gene pool"]\n[Result "1-0"]\n\n1. e4 e5 2. Q')
    before = pool.read_bytes(), games_file.read_bytes()
    out = tmp_path / "plots"
    proc = run(plot_command(str(pool), "--out", str(out)), cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stderr
    check_pngs(out, ALL_PLOTS)
    assert (pool.read_bytes(), games_file.read_bytes()) == before
    assert sorted(p.name for p in pool.parent.iterdir()) == ["pool.txt", "pool.txt_games.txt"]


@pytest.mark.parametrize("games", ["missing", "empty"])
def test_pool_without_games_gives_only_the_genome_plots(short, tmp_path, games):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    pool = run_dir / "pool.txt"
    pool.write_bytes((short / "pool.txt").read_bytes())
    if games == "empty":
        (run_dir / "pool.txt_games.txt").write_text("")
    proc = run(plot_command(str(pool)), cwd=tmp_path, timeout=240)      # default --out
    assert proc.returncode == 0, proc.stderr
    assert "no games yet" in proc.stdout
    check_pngs(run_dir / "pool.txt_plots", GENOME_PLOTS)


def test_missing_pool_file(tmp_path):
    proc = run(plot_command("nothing.txt", "--out", "plots"), cwd=tmp_path, timeout=120)
    assert_one_line_error(proc, "nothing.txt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"just some words\nno genomes here\n", b"\x89PNG\r\n\x1a\n\x00\xff\xfe",
                                     b"ID: 1\nName: Piece Strength Gene\nP: lots\nEND\n", b""],
                         ids=["text", "binary", "bad genome", "empty"])
def test_garbage_pool_file(tmp_path, content):
    (tmp_path / "pool.txt").write_bytes(content)
    proc = run(plot_command("pool.txt", "--out", "plots"), cwd=tmp_path, timeout=120)
    assert_one_line_error(proc, "pool.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.txt"]


RECORD_HEADERS = {"evolve": ("# GenChess evolve run: a test\n",
                             "generation 1: loss 0.1 held-out 0.1 mean 0.1 best-so-far {}\n"),
                  "network": ("# GenChess network run: a test\n",
                              "epoch 1: loss 0.1 held-out 0.1 quantised {}\n")}


@pytest.mark.parametrize("method", sorted(RECORD_HEADERS))
@pytest.mark.parametrize("body, where", [(b"\xff\xfe binary\n", ":2: not text"),
                                         ("record", ":2: a number that does not read")],
                         ids=["binary", "bad number"])
def test_garbage_records_name_their_line(tmp_path, capsys, method, body, where):
    """An evolve or network run's records with a line that is not text, or a record
    line whose numbers do not read: one line naming file:line, exit 2, nothing drawn."""
    from genchess.plot import main
    header, record = RECORD_HEADERS[method]
    path = tmp_path / "run.txt"
    path.write_bytes(header.encode() + (record.format("0.1x").encode() if body == "record" else body))
    assert main([str(path)], prog="genchess plot") == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"run.txt{where}" in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.txt"]


@pytest.mark.parametrize("method", sorted(RECORD_HEADERS))
def test_an_unfinished_last_record_is_left_out(tmp_path, method):
    """A run drawn while it writes: its last line, cut in a number, is not drawn."""
    from genchess.drawing import read_record_lines
    from genchess.genome.run_formats import EPOCH_LINE, GENERATION_LINE
    header, record = RECORD_HEADERS[method]
    path = tmp_path / "run.txt"
    path.write_text(header + record.format("0.05") + record.format("1e").rstrip("\n"))
    pattern = GENERATION_LINE if method == "evolve" else EPOCH_LINE
    [rows] = read_record_lines(path, pattern)
    assert len(rows) == 1 and rows[0][-1] == 0.05


# ------------------------------------------------------------------ promotion counting

HAND_MADE = """\
[Event "white queens, black knights"]
[SetUp "1"]
[FEN "4k3/P7/8/8/8/8/1p6/4K3 w - - 0 1"]
[Result "1/2-1/2"]

1. a8=Q+ Ke7 2. Kd2 b1=N+ {a comment that mentions h8=Q} 3. Kc2 Nd2 1/2-1/2

[Event "black to move first: a bishop, then a white rook"]
[SetUp "1"]
[FEN "4k3/6P1/8/8/8/8/p7/4K3 b - - 0 40"]
[Result "1/2-1/2"]

40... a1=B 41. g8=R+ Kd7 42. Rg7+ Kc6 1/2-1/2

[Event "capture with promotion and check"]
[SetUp "1"]
[FEN "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1"]
[Result "1-0"]

1. bxa8=Q+ Kd7 1-0

[Event "none at all"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

"""


def test_promotion_counts_of_a_hand_made_pgn(tmp_path):
    path = tmp_path / "hand.pgn"
    path.write_text(HAND_MADE)
    games, torn = read_games_file(path)
    assert torn is None and len(games) == 4
    counts = promotion_counts(games)
    assert counts["White"] == Counter({"Q": 2, "R": 1})
    assert counts["Black"] == Counter({"N": 1, "B": 1})
    # The hand-made games are legal and python-chess counts the same.
    pgn_games = read_pgn_games(path)
    assert all(not g.errors for g in pgn_games) and len(pgn_games) == 4
    assert oracle_promotions(pgn_games) == counts


def random_game(start_fen: str, rng: Random, max_plies: int = 120) -> chess.pgn.Game:
    board = chess.Board(start_fen)
    game = chess.pgn.Game()
    game.setup(board)
    node = game
    while not board.is_game_over() and board.ply() < max_plies:
        move = rng.choice(list(board.legal_moves))
        board.push(move)
        node = node.add_variation(move)
    game.headers["Result"] = board.result(claim_draw=True) if board.is_game_over() else "1/2-1/2"
    return game


def test_promotion_counts_match_python_chess_on_random_games(tmp_path):
    rng = Random(2718)
    starts = ["4k3/PPPP4/8/8/8/8/pppp4/4K3 w - - 0 1",
              "4k3/PPPP4/8/8/8/8/pppp4/4K3 b - - 0 30",
              "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
              chess.STARTING_FEN]
    games = [random_game(starts[n % len(starts)], rng) for n in range(80)]
    exporter = lambda g: g.accept(chess.pgn.StringExporter(headers=True, variations=False,
                                                           comments=False))
    path = tmp_path / "random.pgn"
    path.write_text("".join(exporter(g) + "\n\n" for g in games))
    read, torn = read_games_file(path)
    assert torn is None and len(read) == len(games)
    counts = promotion_counts(read)
    oracle = oracle_promotions(read_pgn_games(path))
    assert counts == oracle
    # The sample really exercises both colours and every piece.
    for colour in ("White", "Black"):
        assert set(oracle[colour]) == set("QRBN"), oracle


def test_promotion_counts_on_movetext_only():
    from genchess.train.records import GameHeaders
    games = [GameHeaders({"Result": "1-0"}, "1. e4 e5 12. h8=N g1=Q 13. f8=R+ 1-0"),
             GameHeaders({"Result": "*"}, "7... a1=R 8. b8=B *")]
    counts = promotion_counts(games)
    assert counts["White"] == Counter({"N": 1, "R": 1, "B": 1})
    assert counts["Black"] == Counter({"Q": 1, "R": 1})


# ------------------------------------------------------------------ living genomes' piece values

def pool_text(pieces: dict[int, tuple[float, float, float, float, float]], alive_lines: list[str]) -> str:
    """A pool file of hand-set genomes: ID -> (P, N, B, R, Q), king 4, the other genes
    the hand-set genome's, then the given Still Alive lines."""
    template = (Path(__file__).parent.parent / "genchess/genomes/default.genome").read_text()
    body = template.split("\n", 1)[1]          # everything after "ID: 0"
    records = []
    for genome_id, (p, n, b, r, q) in pieces.items():
        text = body.replace("B: 3.2\nK: 4\nN: 3\nP: 1\nQ: 9\nR: 5\n",
                            f"B: {b}\nK: 4\nN: {n}\nP: {p}\nQ: {q}\nR: {r}\n", 1)
        assert text != body or (p, n, b, r, q) == (1, 3, 3.2, 5, 9)
        records.append(f"ID: {genome_id}\n{text}")
    return "".join(records) + "".join(line + "\n" for line in alive_lines)


def test_living_piece_medians_count_only_the_living_with_a_positive_pawn(tmp_path):
    from genchess.genome import parse_genome_text
    pieces = {1: (1, 3, 3, 5, 9), 2: (2, 5, 7, 9, 20), 3: (1, 2, 2, 2, 2),
              4: (0, 3, 3, 5, 9),              # no pawn: no ratio, not counted
              5: (1, 100, 100, 100, 100),      # dead: only on an earlier Still Alive line
              6: (-1, 3, 3, 5, 9)}             # a negative pawn: not counted either
    text = pool_text(pieces, ["Still Alive: 0 : 1 5", "Still Alive: 1 : 2 3 6",
                              "Still Alive: 0 : 1 2 3 4"])
    pool_file = parse_genome_text(text, "pool.txt")
    rows = living_piece_medians(pool_file)
    # pool 0: genomes 1, 2, 3 (4 has no pawn); N ratios 3, 2.5, 2 -> 2.5; B 3, 3.5, 2 -> 3;
    # R 5, 4.5, 2 -> 4.5; Q 9, 10, 2 -> 9. Pool 1: genomes 2, 3 -> medians of two.
    assert rows[0] == ("0", 3, [2.5, 3.0, 4.5, 9.0])
    assert rows[1] == ("1", 2, [2.25, 2.75, 3.25, 6.0])
    # All pools: 1, 2, 3 from pool 0 and 2, 3 from pool 1 (each living entry counts).
    assert rows[2] == ("all", 5, [2.5, 3.0, 4.5, 9.0])
    table = piece_medians_table(pool_file)
    assert "| 0 | 3 | 2.50 | 3.00 | 4.50 | 9.00 |" in table
    assert table.splitlines()[-1] == "| all | 5 | 2.50 | 3.00 | 4.50 | 9.00 |"
    assert oracle_medians_table(text) in table


def test_piece_medians_of_one_pool_and_of_none():
    from genchess.genome import parse_genome_text
    one = parse_genome_text(pool_text({1: (1, 3, 3, 5, 9), 2: (0, 1, 1, 1, 1)},
                                      ["Still Alive: 0 : 1 2"]), "pool.txt")
    assert living_piece_medians(one) == [("0", 1, [3.0, 3.0, 5.0, 9.0])]     # no "all" row
    nobody = parse_genome_text(pool_text({1: (0, 3, 3, 5, 9)}, ["Still Alive: 0 : 1"]), "pool.txt")
    assert piece_medians_table(nobody).splitlines()[-1] == "| 0 | 0 | - | - | - | - |"
    assert piece_medians_table(parse_genome_text(pool_text({1: (1, 3, 3, 5, 9)}, []), "pool.txt")) == ""


def test_an_evolve_run_draws_its_best_genome_not_its_last_generation(tmp_path, capsys):
    from genchess.genome import load_genome
    from genchess.genome.genome_file import GENOMES_DIR
    from genchess.train.evolve_plots import run_best
    last = load_genome(GENOMES_DIR / "unified.genome")
    run = tmp_path / "run.txt"
    assert run_best(run, [last]) is last                  # no best file: the last generation's
    best = tmp_path / "run.txt_best.genome"
    best.write_text((GENOMES_DIR / "unified.genome").read_text().replace("ID: 5998", "ID: 41"))
    assert run_best(run, [last]).id == 41
    best.write_text("ID: 41\nKind: unified\nmaterial mg: 100 x\n")
    assert run_best(run, [last]) is last                  # unreadable: said, and the last drawn
    assert "run.txt_best.genome" in capsys.readouterr().err
