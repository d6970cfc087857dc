"""The network kind's float model and its trainer (fitness/network_training.py): the
inputs against python-chess, the exact gradient against finite differences, the
mirror symmetry the perspectives give, learning on the shipped set, and exact resume."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from genchess.files import package_file
from genchess.fitness.loss import Labels, loss_and_slope
from genchess.fitness.network_training import (INPUTS, W1_LIMIT, W2_LIMIT, FloatNetwork,
                                               NetworkTrainer, load_network, network_inputs,
                                               with_files_flipped)
from genchess.fitness.scoring import fitted_labels
from genchess.position_sets.position_set import PositionSet, load_positions

FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/2P5/8/8/3k4/1q6/5K2/7Q b - - 0 1",          # Black to move, few pieces
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "QQ2k3/8/8/8/8/8/6pp/4K3 b - - 0 1",            # two White queens, pawns near promotion
]
RESULT_LABELS = Labels("result", 1.05)
MENTOR_LABELS = Labels("mentor", 1.05, 0.85)


def expected_inputs(board: chess.Board, perspective: int) -> list[int]:
    """The contract's inputs of one perspective, by hand."""
    inputs = []
    for square, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        kind = piece.piece_type - 1
        inputs.append(((colour ^ perspective) * 6 + kind) * 64 + (square ^ (56 * perspective)))
    return sorted(inputs)


def row(matrix, i: int) -> list[int]:
    return sorted(matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]].tolist())


def set_of(fens, results=None, mentor=None) -> PositionSet:
    return PositionSet.from_fens(fens, results or [0.5] * len(fens), mentor)


def random_network(hidden: int, activation: str, seed: int) -> FloatNetwork:
    """A float64 network with weights large enough that many units sit outside (0, 1)
    and the outputs spread over hundreds of centipawns."""
    rng = np.random.default_rng(seed)
    return FloatNetwork(rng.normal(0.0, 0.3, (INPUTS, hidden)), rng.normal(0.5, 0.5, hidden),
                        rng.normal(0.0, 0.5, 2 * hidden), float(rng.normal(0.0, 0.2)), activation)


@pytest.fixture(scope="module")
def shipped() -> PositionSet:
    return load_positions(package_file("data", "positions.epd.gz"))


def test_inputs_are_each_perspectives_pieces_from_its_own_side():
    positions = set_of(FENS)
    us, them = network_inputs(positions)
    assert us.shape == them.shape == (len(FENS), INPUTS)
    assert us.dtype == np.float32 and np.all(us.data == 1.0)
    for i, fen in enumerate(FENS):
        board = chess.Board(fen)
        mover = 0 if board.turn == chess.WHITE else 1
        assert row(us, i) == expected_inputs(board, mover), fen
        assert row(them, i) == expected_inputs(board, 1 - mover), fen
        assert len(row(us, i)) == len(board.piece_map())


def test_a_mirrored_position_has_the_same_inputs_and_the_perspectives_swap():
    boards = [chess.Board(fen) for fen in FENS]
    us, them = network_inputs(set_of([b.fen() for b in boards]))
    mirrored_us, mirrored_them = network_inputs(set_of([b.mirror().fen() for b in boards]))
    for i, board in enumerate(boards):
        # The side to move flips with the colours, so us and them stay...
        assert row(mirrored_us, i) == row(us, i) and row(mirrored_them, i) == row(them, i)
        # ...because White's view of a position is Black's view of its mirror.
        assert expected_inputs(board, 0) == expected_inputs(board.mirror(), 1)


def test_flipping_files_adds_the_positions_without_castling_rights_mirrored():
    positions = set_of(FENS, [1.0, 0.0, 0.5, 1.0, 0.0, 1.0], [10, None, -30, 500, None, 900])
    both = with_files_flipped(positions)
    kept = [i for i, fen in enumerate(FENS) if not chess.Board(fen).castling_rights]
    assert len(both) == len(FENS) + len(kept) and kept == [3, 5]
    for j, i in enumerate(kept):
        flipped = chess.Board(FENS[i]).transform(chess.flip_horizontal)
        assert both.fen(len(FENS) + j).split()[:2] == flipped.fen().split()[:2]
        assert both.result[len(FENS) + j] == positions.result[i]
        assert both.mentor[len(FENS) + j] == positions.mentor[i]
    assert both.fen(2) == positions.fen(2)


def test_inputs_are_built_in_chunks_without_seams(shipped, monkeypatch):
    from genchess.fitness import network_training
    part = shipped.subset(slice(0, 2500))
    whole = network_inputs(part)
    monkeypatch.setattr(network_training, "CHUNK", 700)
    chunked = network_inputs(part)
    for a, b in zip(whole, chunked):
        assert (a != b).nnz == 0


def numeric_gradient(network, us, them, side, labels, name, eps=1e-6) -> np.ndarray:
    target, k = labels

    def loss() -> float:
        return loss_and_slope(target, k, network.cp_white(us, them, side))[0]

    if name == "b2":
        original = network.b2
        network.b2 = original + eps
        up = loss()
        network.b2 = original - eps
        down = loss()
        network.b2 = original
        return np.array((up - down) / (2 * eps))
    array = getattr(network, name)
    result = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        original = array[index]
        array[index] = original + eps
        up = loss()
        array[index] = original - eps
        down = loss()
        array[index] = original
        result[index] = (up - down) / (2 * eps)
    return result


@pytest.mark.parametrize("activation", ["crelu", "screlu"])
@pytest.mark.parametrize("labels", [RESULT_LABELS, MENTOR_LABELS], ids=["result", "mentor"])
def test_the_gradient_is_exact(shipped, activation, labels):
    part = shipped.subset(slice(100, 120))
    us, them = (m.astype(np.float64) for m in network_inputs(part))
    network = random_network(4, activation, seed=5)
    parts = labels.target(part.result, part.mentor), labels.k
    loss, gradient = network.loss_and_gradient(us, them, part.side, *parts)
    assert loss == pytest.approx(loss_and_slope(*parts, network.cp_white(us, them, part.side))[0])
    acc = np.asarray(us @ network.w1) + network.b1
    assert np.any(acc < 0) and np.any(acc > 1) and np.any((acc > 0) & (acc < 1))
    for name in ("w1", "b1", "w2", "b2"):
        numeric = numeric_gradient(network, us, them, part.side, parts, name)
        assert np.any(gradient[name] != 0), name
        np.testing.assert_allclose(gradient[name], numeric, rtol=1e-4,
                                   atol=1e-7 * np.max(np.abs(numeric)), err_msg=name)


@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_the_gradient_with_the_piece_square_term_is_exact(shipped, activation):
    part = shipped.subset(slice(200, 220))
    us, them = (m.astype(np.float64) for m in network_inputs(part))
    network = random_network(4, activation, seed=6)
    network.psqt = np.random.default_rng(7).normal(0.0, 0.3, INPUTS)
    parts = MENTOR_LABELS.target(part.result, part.mentor), MENTOR_LABELS.k
    loss, gradient = network.loss_and_gradient(us, them, part.side, *parts)
    assert set(gradient) == {"w1", "b1", "w2", "b2", "psqt"}
    for name in gradient:
        numeric = numeric_gradient(network, us, them, part.side, parts, name)
        np.testing.assert_allclose(gradient[name], numeric, rtol=1e-4,
                                   atol=1e-7 * np.max(np.abs(numeric)), err_msg=name)
    assert np.count_nonzero(gradient["psqt"]) > 50          # the pieces on the boards move it


def test_the_piece_square_term_starts_as_material():
    """From the start a queen up is about nine pawns up, whatever the hidden layer says."""
    network = FloatNetwork.initial(16, "screlu", seed=1, dtype=np.float64, psqt=True)
    with_queen = PositionSet.from_fens(["4k3/8/8/8/8/8/8/3QK3 w - - 0 1"], [1.0])
    bare = PositionSet.from_fens(["4k3/8/8/8/8/8/8/4K3 w - - 0 1"], [0.5])
    gain = (network.cp_white(*network_inputs(with_queen), with_queen.side)
            - network.cp_white(*network_inputs(bare), bare.side))
    assert gain[0] == pytest.approx(950, abs=60)


@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_a_mirrored_position_scores_the_opposite_for_white(activation):
    boards = [chess.Board(fen) for fen in FENS]
    network = random_network(8, activation, seed=2)
    positions = set_of([b.fen() for b in boards])
    mirrored = set_of([b.mirror().fen() for b in boards])
    cp = network.cp_white(*network_inputs(positions), positions.side)
    cp_mirrored = network.cp_white(*network_inputs(mirrored), mirrored.side)
    assert np.std(cp) > 10
    np.testing.assert_allclose(cp_mirrored, -cp, rtol=1e-9, atol=1e-9)


def test_clip_keeps_the_weights_the_quantised_engine_holds():
    network = random_network(4, "screlu", seed=1)
    network.w1 *= 10
    network.b1 *= 10
    network.w2 *= 10
    network.b2 = 50.0
    network.clip()
    assert np.max(np.abs(network.w1)) == W1_LIMIT and np.max(np.abs(network.b1)) <= W1_LIMIT
    assert np.max(np.abs(network.w2)) == W2_LIMIT
    assert network.b2 == 50.0


def test_every_step_keeps_the_weights_inside_the_limits(shipped):
    trainer = small_trainer(shipped, learning_rate=1.0, epochs=1)
    trainer.run()
    network = trainer.network
    assert np.max(np.abs(network.w1)) == pytest.approx(W1_LIMIT)    # the rate pushed them there
    assert np.max(np.abs(network.w2)) == pytest.approx(W2_LIMIT)
    assert max(np.max(np.abs(network.w1)), np.max(np.abs(network.b1))) <= np.float32(W1_LIMIT)
    assert np.max(np.abs(network.w2)) <= np.float32(W2_LIMIT)


def test_the_initial_network_says_little():
    network = FloatNetwork.initial(64, "screlu", seed=0)
    positions = set_of(FENS)
    cp = network.cp_white(*network_inputs(positions), positions.side)
    assert np.max(np.abs(cp)) < 50
    assert np.array_equal(FloatNetwork.initial(64, "screlu", seed=0).w1, network.w1)
    assert not np.array_equal(FloatNetwork.initial(64, "screlu", seed=1).w1, network.w1)


def test_training_lowers_the_held_out_loss(shipped):
    part = shipped.subset(slice(0, 20_000))
    labels = fitted_labels(package_file("data", "positions.epd.gz"), part, "mentor")
    trainer = NetworkTrainer(part, labels, hidden=16, epochs=3, batch_size=256,
                             learning_rate=3e-3, progress=False)
    before = trainer.held_out_loss()
    history = trainer.run()
    assert [record.epoch for record in history] == [1, 2, 3]
    assert history[-1].held_out_loss < before - 0.005, (before, history)
    assert history[-1].train_loss < history[0].train_loss
    assert all(record.positions_per_second > 0 for record in history)


def small_trainer(shipped, **options) -> NetworkTrainer:
    part = shipped.subset(slice(20_000, 23_000))
    settings = dict(hidden=8, activation="crelu", epochs=2, batch_size=256, learning_rate=1e-2,
                    drop_at=0.5, seed=7, progress=False)
    settings.update(options)
    return NetworkTrainer(part, MENTOR_LABELS, **settings)


def state(trainer: NetworkTrainer) -> list[np.ndarray]:
    arrays = list(trainer.network.arrays().values())
    return arrays + [trainer.m[k] for k in sorted(trainer.m)] + [trainer.v[k] for k in sorted(trainer.v)]


def test_a_resumed_run_is_the_uninterrupted_run_bit_for_bit(shipped, tmp_path):
    straight = small_trainer(shipped)
    straight.run()
    again = small_trainer(shipped)
    again.run()
    assert all(np.array_equal(a, b) for a, b in zip(state(straight), state(again)))

    first = small_trainer(shipped)
    first.train_epoch()
    first.save(tmp_path / "state.npz")
    resumed = small_trainer(shipped)
    resumed.load(tmp_path / "state.npz")
    assert resumed.epoch == 1 and resumed.rate(2) == pytest.approx(3e-3)
    resumed.run()
    assert resumed.epoch == 2 and resumed.t == straight.t
    assert all(np.array_equal(a, b) for a, b in zip(state(straight), state(resumed)))
    assert ([(r.train_loss, r.held_out_loss) for r in resumed.history]
            == [(r.train_loss, r.held_out_loss) for r in straight.history])
    assert not np.array_equal(state(first)[0], state(straight)[0])     # the second epoch moved it
    network = load_network(tmp_path / "state.npz")
    assert np.array_equal(network.w1, first.network.w1) and network.activation == "crelu"


def test_flip_files_adds_to_the_training_part_only(shipped):
    plain, flipped = small_trainer(shipped), small_trainer(shipped, flip_files=True)
    train, _ = shipped.subset(slice(20_000, 23_000)).split(0.1, 7)
    assert len(flipped.train_part) == len(plain.train_part) + int(np.sum(train.castling == 0))
    assert len(flipped.held_out_part) == len(plain.held_out_part)
    assert (flipped.held_out_part.us != plain.held_out_part.us).nnz == 0


def test_the_progress_bar_changes_nothing(shipped):
    quiet, shown = small_trainer(shipped, epochs=1), small_trainer(shipped, epochs=1, progress=True)
    quiet.run()
    shown.run()
    assert all(np.array_equal(a, b) for a, b in zip(state(quiet), state(shown)))


def test_a_state_from_another_set_or_other_options_is_refused(shipped, tmp_path):
    trainer = small_trainer(shipped)
    trainer.save(tmp_path / "state.npz")
    with pytest.raises(ValueError, match="other options .*hidden"):
        small_trainer(shipped, hidden=4).load(tmp_path / "state.npz")
    other = NetworkTrainer(shipped.subset(slice(0, 500)), MENTOR_LABELS, hidden=8, progress=False)
    with pytest.raises(ValueError, match="another position set"):
        other.load(tmp_path / "state.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a state")
    with pytest.raises(ValueError, match="not a network trainer's state"):
        trainer.load(tmp_path / "junk.npz")
