"""The network genome kind: its file, and its C evaluation against a reference.

The reference is written here from the model's definition (genchess/genome/network.py)
with python-chess reading the board, in Python integers: it shares no code with the
C evaluation, so the two agreeing says the C code computes the network it claims to.
"""

import random
from array import array

import chess
import numpy as np
import pytest

from genchess.genome import GenomeError, NetworkGenome, open_genome, parse_genome_text
from genchess.genome.network import INPUTS, KingLayout, weights_size
from genchess_core.board import Board
from genchess_core.eval_network import network_evaluations
from genchess_core.evaluate import evaluate_board

KINDS = {chess.PAWN: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4, chess.KING: 5}


# Two king layouts for the tests: Bullet's usual small mirrored one (the back rank's
# corner and centre, the second rank, the rest), and one without a mirror whose
# buckets split the board by files and ranks.
MIRRORED_4 = KingLayout.parse("mirrored, 0 0 1 1  2 2 2 2" + "  3 3 3 3" * 6)
PLAIN_3 = KingLayout.parse(" ".join(str(0 if s < 8 and s % 8 < 4 else 1 if s < 16 else 2) for s in range(64)))


def random_network(hidden=32, activation="screlu", seed=1, genome_id=7, psqt=False, buckets=1,
                   kings=KingLayout.NONE):
    """Random integer weights inside what the trainer's limits allow (and a
    piece-square term of up to about 1500 centipawns a piece); each output bucket
    and each king bucket its own weights."""
    rng = np.random.default_rng(seed)
    inputs = INPUTS * kings.buckets
    return NetworkGenome(genome_id, hidden, activation,
                         rng.integers(-300, 301, inputs * hidden).tolist(),
                         rng.integers(-100, 200, hidden).tolist(),
                         rng.integers(-127, 128, 2 * hidden * buckets).tolist(),
                         rng.integers(-20000, 20000, buckets).tolist(),
                         psqt=rng.integers(-60000, 60001, inputs).tolist() if psqt else None,
                         buckets=buckets, kings=kings)


def c_division(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def reference_bucket(net: NetworkGenome, board: chess.Board) -> int:
    """The output bucket, from the field's rule as Bullet's MaterialCount<N> writes
    it: (pieces - 2) / ceil(32 / N)."""
    return (len(board.piece_map()) - 2) // ((32 + net.buckets - 1) // net.buckets)


def reference_king(net: NetworkGenome, board: chess.Board, perspective: int) -> tuple[int, int]:
    """(first input of the side's king bucket, what its squares are XORed with), from
    the layout's table as the file states it: the side's king on its own seat, files
    e to h read mirrored when the layout is."""
    king = board.king(chess.WHITE if perspective == 0 else chess.BLACK) ^ (56 * perspective)
    mirrored = net.kings.mirrored and chess.square_file(king) >= 4
    return net.kings.table[king] * 768, 7 if mirrored else 0


def reference(net: NetworkGenome, board: chess.Board) -> int:
    """The evaluation from the side to move's view, internal units (10 a centipawn)."""
    us = 0 if board.turn == chess.WHITE else 1
    h = net.hidden
    bucket = reference_bucket(net, board)
    acc = [list(net.b1), list(net.b1)]
    linear = [0, 0]
    for square, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        for perspective in (0, 1):
            offset, flip = reference_king(net, board, perspective)
            index = offset + ((colour ^ perspective) * 6 + KINDS[piece.piece_type]) * 64 \
                + (square ^ (56 * perspective) ^ flip)
            column = net.w1[index * h:(index + 1) * h]
            acc[perspective] = [a + w for a, w in zip(acc[perspective], column)]
            if net.psqt is not None:
                linear[perspective] += net.psqt[index]
    total = 0
    for half, perspective in enumerate((us, us ^ 1)):
        for i in range(h):
            v = min(max(acc[perspective][i], 0), net.qa)
            w = net.w2[bucket * 2 * h + half * h + i]
            total += v * w * v if net.activation == "screlu" else v * w
    out = (c_division(total, net.qa) if net.activation == "screlu" else total) + net.b2[bucket]
    out += c_division(linear[us] - linear[us ^ 1], 2)
    units = c_division(out * net.scale * 10, net.qa * net.qb)
    return max(-300000, min(300000, units))


def random_positions(count, seed=3):
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(0, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


@pytest.mark.parametrize("kings", [MIRRORED_4, PLAIN_3], ids=["mirrored-4", "plain-3"])
@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_the_c_evaluation_is_the_network_with_king_buckets(activation, kings):
    net = random_network(activation=activation, seed=19, psqt=True, buckets=8, kings=kings)
    boards = random_positions(60, seed=23) + endgames(40, seed=29)
    for board in boards:
        assert evaluate_board(Board(board.fen()), net.pack()) == reference(net, board), board.fen()
    used = {reference_king(net, board, side)[0] // 768 for board in boards for side in (0, 1)}
    assert used == set(range(kings.buckets))


def test_a_mirrored_layout_reads_a_board_and_its_mirror_alike():
    """Mirrored a <-> h, a position without castling rights is the same position to
    a mirrored network, whichever side its kings stand on."""
    net = random_network(seed=31, psqt=True, kings=KingLayout.parse("mirrored" + " 0" * 32))
    plain = random_network(seed=31, psqt=True)
    differs = 0
    for board in endgames(40, seed=37):
        flipped = board.transform(chess.flip_horizontal)
        assert evaluate_board(Board(board.fen()), net.pack()) == evaluate_board(Board(flipped.fen()), net.pack())
        differs += evaluate_board(Board(board.fen()), plain.pack()) != evaluate_board(Board(flipped.fen()), plain.pack())
    assert differs > 30                     # without the mirror the two do differ


@pytest.mark.parametrize("buckets", [1, 8])
@pytest.mark.parametrize("psqt", [False, True], ids=["", "psqt"])
@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_the_c_evaluation_is_the_network(activation, psqt, buckets):
    net = random_network(activation=activation, seed=11, psqt=psqt, buckets=buckets)
    packed = net.pack()
    boards = random_positions(60) + endgames(20)
    for board in boards:
        assert evaluate_board(Board(board.fen()), packed) == reference(net, board), board.fen()
    used = {reference_bucket(net, board) for board in boards}
    assert len(used) == buckets or (buckets == 8 and len(used) >= 6), used


def endgames(count, seed=5):
    """Random legal positions with 3 to 12 pieces: the buckets a game's opening never reaches."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board(None)
        squares = rng.sample(range(64), rng.randrange(3, 13))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2:]:
            kind = rng.choice([chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN]
                              + ([chess.PAWN] if 8 <= square < 56 else []))
            board.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            boards.append(board)
    return boards


def test_each_bucket_reads_its_own_output_weights():
    """The same network with its buckets copied evaluates as the unbucketed one;
    change one bucket's weights and only the positions of that bucket change."""
    net = random_network(hidden=32, seed=17, psqt=True)
    copied = net.with_buckets(8)
    assert copied.architecture == "768x2 -> 32 -> 1x8, screlu, psqt"
    boards = random_positions(30, seed=7) + endgames(30, seed=8)
    plain = [evaluate_board(Board(b.fen()), net.pack()) for b in boards]
    assert [evaluate_board(Board(b.fen()), copied.pack()) for b in boards] == plain
    changed = copied.copy()
    changed.w2 = array("h", changed.w2[:2 * 32] + array("h", [0] * 64) + changed.w2[4 * 32:])
    changed.b2[1] += 5000
    after = [evaluate_board(Board(b.fen()), changed.pack()) for b in boards]
    in_bucket_1 = [reference_bucket(changed, b) == 1 for b in boards]
    assert any(in_bucket_1) and not all(in_bucket_1)
    for before, now, moved in zip(plain, after, in_bucket_1):
        assert (before != now) == moved


@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_the_baseline_and_the_chosen_loops_agree_with_the_reference(activation, tmp_path):
    """The loops are built for the baseline CPU and, on x86-64, for AVX2, one chosen
    when the module loads: both give the reference's numbers, with more units than
    one 128-unit block and a width that is not a multiple of the wider vectors."""
    import json
    import os
    import subprocess
    import sys
    from genchess_core.eval_network import KERNELS
    # The child runs outside the clone: from its root, `-c` would import the source
    # folder genchess_core (no built modules in a non-editable install) over the installed one.
    net = random_network(hidden=144, activation=activation, seed=13, psqt=True)
    boards = random_positions(30, seed=21)
    fens = [board.fen() for board in boards]
    chosen, _ = network_evaluations(net.pack(), fens)
    assert chosen == [reference(net, board) for board in boards]
    (tmp_path / "net.genome").write_text(net.to_text())
    script = ("import json, sys\n"
              "from genchess.genome import open_genome\n"
              "from genchess_core.eval_network import KERNELS, network_evaluations\n"
              "net = open_genome(sys.argv[1])\n"
              "print(json.dumps([KERNELS, network_evaluations(net.pack(), json.load(sys.stdin))[0]]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "net.genome")], input=json.dumps(fens),
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "GENCHESS_NETWORK_KERNELS": "baseline"})
    assert done.returncode == 0, done.stderr
    name, baseline = json.loads(done.stdout)
    assert name == "baseline" and KERNELS in ("baseline", "avx2")
    assert baseline == chosen


def test_a_network_sees_both_colours_alike():
    """A perspective network scores a position and its colour-flipped mirror the
    same for the side to move: it has no colour, only sides."""
    net = random_network(seed=5, psqt=True)
    packed = net.pack()
    for board in random_positions(40, seed=9):
        mirrored = board.mirror()
        assert evaluate_board(Board(board.fen()), packed) == evaluate_board(Board(mirrored.fen()), packed)


def test_the_incremental_accumulator_equals_a_fresh_one():
    """One accumulator carried through games (moves, take-backs, jumps to unrelated
    positions, promotions and castling among them) gives what a fresh one gives."""
    net = random_network(hidden=48, seed=2, psqt=True)
    rng = random.Random(4)
    fens = []
    for _ in range(6):
        board = chess.Board()
        for _ in range(120):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fens.append(board.fen())
            if rng.random() < 0.2 and len(board.move_stack) > 1:   # a take-back, as unmake
                board.pop()
                fens.append(board.fen())
    incremental, afresh = network_evaluations(net.pack(), fens)
    assert incremental == afresh
    assert len(set(afresh)) > len(afresh) // 2          # the positions do differ


@pytest.mark.parametrize("buckets, kings", [(1, KingLayout.NONE), (8, KingLayout.NONE), (8, MIRRORED_4),
                                            (1, PLAIN_3)], ids=["1", "8", "8-mirrored-4", "1-plain-3"])
def test_make_and_unmake_keep_the_accumulator_equal_to_a_fresh_one_and_the_reference(buckets, kings):
    """The core's make and unmake through games long enough to trade down through
    the buckets (captures, promotions, castling, en passant, take-backs, kings into
    other buckets and across the mirror): one accumulator carried along gives what a
    fresh one and the reference give."""
    from genchess_core.eval_network import network_evaluations_along
    net = random_network(hidden=48, seed=3, psqt=True, buckets=buckets, kings=kings)
    king_moves = 0
    rng = random.Random(12)
    buckets_seen = set()
    for game in range(4):
        board, shadow, steps, boards = Board(), chess.Board(), [], []
        while len(steps) < 400 and not shadow.is_game_over():
            moves = list(shadow.legal_moves)
            captures = [m for m in moves if shadow.is_capture(m) or m.promotion]
            move = rng.choice(captures if captures and rng.random() < 0.6 else moves)
            shadow.push(move)
            steps.append(move.uci())
            boards.append(shadow.copy())
            if rng.random() < 0.25:                     # unmade, then another tried
                shadow.pop()
                steps.append(None)
                boards.append(shadow.copy())
        incremental, afresh = network_evaluations_along(net.pack(), board, steps)
        assert incremental == afresh
        assert afresh == [reference(net, b) for b in boards]
        assert board.fen() == shadow.fen()
        buckets_seen |= {reference_bucket(net, b) for b in boards}
        keys = [[reference_king(net, b, side) for side in (0, 1)] for b in boards]
        king_moves += sum(a != b for a, b in zip(keys, keys[1:]))
    assert len(buckets_seen) == buckets
    assert (king_moves > 20) == (not kings.is_none)     # sides made afresh along the way


@pytest.mark.parametrize("buckets", [1, 8])
@pytest.mark.parametrize("psqt", [False, True], ids=["", "psqt"])
def test_the_file_reads_back_equal(tmp_path, psqt, buckets):
    net = random_network(hidden=16, activation="crelu", psqt=psqt, buckets=buckets)
    net.lineage = "set sample.gcpos, mentor labels, 3 epochs, seed 1"
    net.record = "none yet"
    net.search = {"rfp_margin": 90}
    path = tmp_path / "net.genome"
    path.write_text(net.to_text())
    back = open_genome(str(path))
    assert back == net
    assert back.to_text() == net.to_text()
    assert back.buckets == buckets and ("-> 1x8," in back.to_text()) == (buckets == 8)
    assert evaluate_board(Board(), back.pack()) == evaluate_board(Board(), net.pack())


@pytest.mark.parametrize("kings", [MIRRORED_4, PLAIN_3], ids=["mirrored-4", "plain-3"])
def test_a_file_with_king_buckets_reads_back_equal(tmp_path, kings):
    net = random_network(hidden=16, psqt=True, buckets=2, kings=kings)
    text = net.to_text()
    assert f"Kings: {kings.text()}" in text.splitlines()
    assert net.architecture.endswith(kings.describe())
    (tmp_path / "net.genome").write_text(text)
    back = open_genome(str(tmp_path / "net.genome"))
    assert back == net and back.kings == kings and back.to_text() == text
    board = chess.Board("r3k2r/pp3ppp/8/8/8/8/PP3PPP/R3K2R w KQkq - 0 1")
    assert evaluate_board(Board(board.fen()), back.pack()) == reference(net, board)


@pytest.mark.parametrize("text, message", [
    ("mirrored, 0 1 2", "expected mirrored, then 32 bucket numbers"),
    ("0 " * 63, "expected 64 bucket numbers"),
    ("0 " * 63 + "x", "expected 64 bucket numbers"),
    ("0 " * 62 + "2 2", "numbered 0 to K-1 with none left out, not [0, 2]"),
    (" ".join(str(s % 17) for s in range(64)), "at most 16 king buckets, not 17"),
])
def test_a_bad_king_layout_is_named_with_its_line(tmp_path, text, message):
    lines = block(random_network(hidden=16, kings=MIRRORED_4))
    lines = [f"Kings: {text}" if line.startswith("Kings:") else line for line in lines]
    (tmp_path / "net.genome").write_text("\n".join(lines))
    with pytest.raises(GenomeError) as caught:
        open_genome(str(tmp_path / "net.genome"))
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("Kings:"))
    assert f":{number}:" in str(caught.value) and message in str(caught.value)


def test_a_king_layout_the_weights_do_not_fit_is_refused(tmp_path):
    lines = block(random_network(hidden=16, kings=MIRRORED_4))
    (tmp_path / "net.genome").write_text("\n".join(l for l in lines if not l.startswith("Kings:")))
    with pytest.raises(GenomeError, match=f"has {weights_size(16)}"):
        open_genome(str(tmp_path / "net.genome"))


def test_a_file_from_before_buckets_reads_as_one_bucket():
    """The shipped default genome was written before buckets: `-> 1` and the old
    layout, which is one bucket's."""
    from genchess.genome import default_genome
    net = default_genome()
    assert net.buckets == 1 and "-> 1," in net.architecture and len(net.b2) == 1
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert evaluate_board(Board(board.fen()), net.pack()) == reference(net, board)


def test_from_float_quantises_as_the_engine_reads():
    rng = np.random.default_rng(0)
    w1, b1, w2 = rng.normal(0, 0.3, (INPUTS, 16)), rng.normal(0, 0.1, 16), rng.normal(0, 0.5, 32)
    net = NetworkGenome.from_float(1, w1, b1, w2, 0.05, "screlu")
    back_w1, back_b1, back_w2, back_b2 = net.float_weights()
    assert np.abs(back_w1 - w1).max() <= 0.5 / 255 + 1e-12
    assert back_w2.shape == (1, 32) and np.abs(back_w2[0] - w2).max() <= 0.5 / 64 + 1e-12
    assert back_b2[0] == pytest.approx(0.05, abs=1 / (255 * 64))
    bucketed = NetworkGenome.from_float(1, w1, b1, np.stack([w2, -w2, w2 / 2]), [0.05, -0.1, 0.2], "screlu")
    assert bucketed.buckets == 3 and np.allclose(bucketed.float_weights()[3], [0.05, -0.1, 0.2],
                                                 atol=1 / (255 * 64))
    assert np.abs(bucketed.float_weights()[2][1] + w2).max() <= 0.5 / 64 + 1e-12
    with pytest.raises(ValueError, match="does not fit"):
        NetworkGenome.from_float(1, w1 * 1000, b1, w2, 0.0, "screlu")
    psqt = rng.normal(0, 2.0, INPUTS)
    with_term = NetworkGenome.from_float(1, w1, b1, w2, 0.05, "screlu", psqt=psqt)
    assert np.abs(with_term.float_psqt() - psqt).max() <= 0.5 / (255 * 64) + 1e-12
    assert net.float_psqt() is None


def block(net: NetworkGenome) -> list[str]:
    return net.to_text().splitlines()


@pytest.mark.parametrize("change, message", [
    (lambda ls: [l.replace("-> 16 ->", "-> 17 ->") for l in ls], "multiple of 16"),
    (lambda ls: [l.replace(", crelu", ", tanh") for l in ls], "is not '768x2"),
    (lambda ls: [l.replace("qa 255", "qa 0") for l in ls], "positive whole numbers"),
    (lambda ls: [l for l in ls if not l.startswith("Quantisation")], "missing 'Quantisation:'"),
    (lambda ls: [l for l in ls if not l.startswith("Weights")], "expected 'Architecture:'"),
    (lambda ls: ls[:6] + ls[8:], "the file is cut"),
    (lambda ls: ls[:6] + ["!!!!" + ls[6][4:]] + ls[7:], "not base64"),
    (lambda ls: ls[:6] + [("B" if ls[6][0] == "A" else "A") + ls[6][1:]] + ls[7:], "do not match their sha256"),
    (lambda ls: [l.replace(f"{weights_size(16)} bytes", "99 bytes") for l in ls], f"has {weights_size(16)}"),
    (lambda ls: ls[:4] + ["Lineage: a", "Lineage: b"] + ls[4:], "duplicated 'lineage'"),
    (lambda ls: [l.replace(", crelu", ", crelu, psqt") for l in ls], f"has {weights_size(16, True)}"),
    (lambda ls: [l.replace("-> 1,", "-> 1x4,") for l in ls], f"has {weights_size(16, False, 4)}"),
    (lambda ls: [l.replace("-> 1,", "-> 1x17,") for l in ls], "17 output buckets; 1 to 16"),
])
def test_a_damaged_file_names_the_problem_and_the_line(change, message):
    net = random_network(hidden=16, activation="crelu")
    text = "\n".join(change(block(net))) + "\n"
    with pytest.raises(GenomeError, match=message) as caught:
        parse_genome_text(text, "nets/bad.genome")
    assert str(caught.value).startswith("nets/bad.genome:")


def test_a_network_plays_on_threads_and_at_fixed_depth_deterministically():
    from genchess_core.searcher import Searcher
    net = random_network(hidden=32, seed=21)
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    results = []
    for threads in (1, 1, 2):
        searcher = Searcher()
        searcher.set_genome(net.pack())
        searcher.set_threads(threads)
        result = searcher.search(Board(fen), max_depth=6)
        best = result["lines"][0][1][0]
        assert chess.Move.from_uci(best) in chess.Board(fen).legal_moves
        results.append((best, result["lines"][0][0], result["nodes"]))
        assert searcher.pawn_unit == 1000
    assert results[0] == results[1]             # one thread: the same search, node for node


def test_the_explanation_shows_each_piece_and_the_searched_total():
    from genchess.explain import explain, format_explanation
    from genchess_core.searcher import Searcher
    net = random_network(hidden=16, seed=8)
    board = chess.Board("r1bqk2r/ppp2ppp/2n2n2/3pp3/1bPP4/2N1PN2/PP3PPP/R1BQKB1R b KQkq - 1 6")
    searcher = Searcher()
    searcher.set_genome(net.pack())
    explanation = explain(net, Board(board.fen()))
    assert explanation.internal == searcher.evaluate(Board(board.fen()))
    rows = dict(explanation.rows)
    assert len(rows) == len(board.piece_map()) - 2 + 1          # kings have no row; the total
    without = board.copy()
    without.remove_piece_at(chess.C6)
    lost = reference(net, board) - reference(net, without)      # Black to move: White's view negates
    assert rows["black knight c6"] == (-lost / 10.0,)
    assert "network" in format_explanation(explanation)


def test_weights_that_could_overflow_the_integers_are_refused():
    net = random_network(hidden=16)
    w1 = list(net.w1)
    w1[3] = 2000                                    # 32 such pieces overflow 16 bits
    with pytest.raises(ValueError, match="hidden unit 3's weights can overflow"):
        NetworkGenome(1, 16, "screlu", w1, net.b1, net.w2, net.b2)
    w2 = list(net.w2)
    w2[0] = 200                                     # 200 * 255 does not fit 16 bits
    with pytest.raises(ValueError, match="output weight of 200"):
        NetworkGenome(1, 16, "screlu", net.w1, net.b1, w2, net.b2)


def test_a_network_plays_a_trainers_game_against_another_kind():
    """What the champion and validation matches send a worker: genome texts, either
    colour, through the plain-data result."""
    from genchess.genome import default_genome
    from genchess.parallel.worker import GameJob, play_job
    net = random_network(hidden=16, seed=4)
    for white, black in ((net, default_genome()), (default_genome(), net)):
        result = play_job(GameJob.between(white, black, depth=2))
        assert result.record.result in ("1-0", "0-1", "1/2-1/2")
        assert result.record.termination != "illegal move" and len(result.record.moves) > 0


def test_a_packed_network_that_fails_to_load_leaves_the_searcher_as_it_was():
    from genchess_core.searcher import Searcher
    net = random_network(hidden=16, seed=6)
    searcher = Searcher()
    searcher.set_genome(net.pack())
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    before = searcher.evaluate(board)
    for broken in ({"network_activation": "tanh"}, {"network_w1": net.w1[:-16]}, {"network_qa": 0}):
        with pytest.raises(ValueError):
            searcher.set_genome({**net.pack(), **broken})
        assert searcher.evaluate(board) == before
    from genchess.genome import levels_genome
    unified = levels_genome().pack()
    searcher.set_genome(unified)                    # another kind first, then a broken network
    with pytest.raises(ValueError):
        searcher.set_genome({**net.pack(), "network_hidden": 17})
    assert searcher.evaluate(board) == evaluate_board(board, unified)
    assert searcher.search(board, max_depth=3)["lines"]


@pytest.mark.parametrize("mode", ["iterative", "budget", "ga", "minimax"])
def test_a_network_plays_in_every_search_mode(mode):
    from genchess.engine import Engine
    from genchess.timeman import Limits
    engine = Engine(random_network(hidden=16, seed=12), search_mode=mode)
    result = engine.search(Limits(nodes=5000) if mode == "ga" else Limits(depth=3))
    assert chess.Move.from_uci(result.bestmove) in chess.Board().legal_moves
