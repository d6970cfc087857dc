"""The network kind's float model (fitness/network_model.py) and its trainer
(fitness/network_training.py): the inputs against python-chess, the exact gradient
against finite differences, the mirror symmetry the perspectives give, learning on
the shipped set, exact resume, and the settings' checks. The fast kernels against
this reference: test_network_fit.py."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from genchess.files import package_file
from genchess.fitness.loss import Labels, loss_and_slope
from genchess.fitness.network_model import (INPUTS, W1_LIMIT, W2_LIMIT, FloatNetwork,
                                            network_inputs, with_files_flipped)
from genchess.fitness.network_training import (NetworkSettings, NetworkTrainer, load_network,
                                               training_parts)
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
MIXED_LABELS = Labels("mix", 1.05, 0.85, 0.3)


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


def random_network(hidden: int, activation: str, seed: int, buckets: int = 1) -> FloatNetwork:
    """A float64 network with weights large enough that many units sit outside (0, 1)
    and the outputs spread over hundreds of centipawns."""
    rng = np.random.default_rng(seed)
    return FloatNetwork(rng.normal(0.0, 0.3, (INPUTS, hidden)), rng.normal(0.5, 0.5, hidden),
                        rng.normal(0.0, 0.5, (buckets, 2 * hidden)), rng.normal(0.0, 0.2, buckets),
                        activation)


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
    from genchess.fitness import network_model
    part = shipped.subset(slice(0, 2500))
    whole = network_inputs(part)
    monkeypatch.setattr(network_model, "CHUNK", 700)
    chunked = network_inputs(part)
    for a, b in zip(whole, chunked):
        assert (a != b).nnz == 0


def numeric_gradient(network, us, them, side, labels, name, eps=1e-6) -> np.ndarray:
    target, k = labels

    def loss() -> float:
        return loss_and_slope(target, k, network.cp_white(us, them, side))[0]

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


@pytest.mark.parametrize("buckets", [1, 8])
@pytest.mark.parametrize("activation", ["crelu", "screlu"])
@pytest.mark.parametrize("labels", [RESULT_LABELS, MENTOR_LABELS, MIXED_LABELS], ids=["result", "mentor", "mix"])
def test_the_gradient_is_exact(shipped, activation, labels, buckets):
    part = shipped.subset(slice(100, 120) if buckets == 1 else np.r_[100:110, 60_000:60_010])
    us, them = (m.astype(np.float64) for m in network_inputs(part))
    network = random_network(4, activation, seed=5, buckets=buckets)
    parts = labels.target(part.result, part.mentor), labels.k
    loss, gradient = network.loss_and_gradient(us, them, part.side, *parts)
    assert loss == pytest.approx(loss_and_slope(*parts, network.cp_white(us, them, part.side))[0])
    acc = np.asarray(us @ network.w1) + network.b1
    assert np.any(acc < 0) and np.any(acc > 1) and np.any((acc > 0) & (acc < 1))
    if buckets > 1:             # the positions fall in more than one bucket, and only those learn
        assert 1 < np.count_nonzero(np.any(gradient["w2"] != 0, axis=1)) < buckets
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
    network.b2[:] = 50.0
    network.clip()
    assert np.max(np.abs(network.w1)) == W1_LIMIT and np.max(np.abs(network.b1)) <= W1_LIMIT
    assert np.max(np.abs(network.w2)) == W2_LIMIT
    assert network.b2[0] == 50.0


@pytest.mark.parametrize("kernels", ["fast", "numpy"])
def test_every_step_keeps_the_weights_inside_the_limits(shipped, kernels):
    trainer = small_trainer(shipped, learning_rate=1.0, epochs=1, kernels=kernels)
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


@pytest.mark.parametrize("buckets", [1, 8])
def test_training_lowers_the_held_out_loss(shipped, buckets):
    part = shipped.subset(slice(0, 20_000))
    labels = fitted_labels(package_file("data", "positions.epd.gz"), part, "mentor")
    train, held_out = training_parts(part, 0.1, 0)
    trainer = NetworkTrainer(train, held_out, labels, NetworkSettings(
        hidden=16, epochs=3, batch_size=256, learning_rate=3e-3, buckets=buckets, psqt=False))
    before = trainer.held_out_loss()
    history = trainer.run()
    assert [record.epoch for record in history] == [1, 2, 3]
    assert history[-1].held_out_loss < before - 0.005, (before, history)
    assert history[-1].train_loss < history[0].train_loss
    assert all(record.positions_per_second > 0 for record in history)


def small_trainer(shipped, kernels="fast", threads=None, part=slice(20_000, 23_000), **options) -> NetworkTrainer:
    settings = dict(hidden=8, activation="crelu", epochs=2, batch_size=256, learning_rate=1e-2,
                    drop_at=0.5, seed=7)
    settings.update(options)
    train, held_out = training_parts(shipped.subset(part), 0.1, 7)
    return NetworkTrainer(train, held_out, MENTOR_LABELS, NetworkSettings(**settings),
                          kernels=kernels, threads=threads)


def state(trainer: NetworkTrainer) -> list[np.ndarray]:
    return [trainer.parameters.vector] + [moments.vector for moments in trainer.moments]


@pytest.mark.parametrize("kernels", ["fast", "numpy"])
def test_a_resumed_run_is_the_uninterrupted_run_bit_for_bit(shipped, tmp_path, kernels):
    options = dict(kernels=kernels, buckets=4, flip_files=True, psqt=True)
    straight = small_trainer(shipped, **options)
    straight.run()
    again = small_trainer(shipped, **options)
    again.run()
    assert all(np.array_equal(a, b) for a, b in zip(state(straight), state(again)))

    first = small_trainer(shipped, **options)
    first.train_epoch()
    first.save(tmp_path / "state.npz")
    resumed = small_trainer(shipped, **options)
    resumed.load(tmp_path / "state.npz")
    assert resumed.epoch == 1 and resumed.settings.rate(2) == pytest.approx(3e-3)
    resumed.run()
    assert resumed.epoch == 2 and resumed.t == straight.t
    assert all(np.array_equal(a, b) for a, b in zip(state(straight), state(resumed)))
    assert ([(r.train_loss, r.held_out_loss) for r in resumed.history]
            == [(r.train_loss, r.held_out_loss) for r in straight.history])
    assert not np.array_equal(state(first)[0], state(straight)[0])     # the second epoch moved it
    network = load_network(tmp_path / "state.npz")
    assert np.array_equal(network.w1, first.network.w1) and network.activation == "crelu"
    assert network.w2.shape == (4, 16) and np.array_equal(network.b2, first.network.b2)


@pytest.mark.parametrize("threads", [2, 3])
def test_the_threads_change_nothing(shipped, threads):
    """The kernels' sums do not depend on the threads (each trains whole parts of a
    minibatch; a third only shares the parts' sum): one thread and more give the same
    weights bit for bit (so a run may resume on a machine with other cores)."""
    one = small_trainer(shipped, threads=1, buckets=2, flip_files=True, psqt=True, epochs=1)
    more = small_trainer(shipped, threads=threads, buckets=2, flip_files=True, psqt=True, epochs=1)
    one.run()
    more.run()
    assert all(np.array_equal(a, b) for a, b in zip(state(one), state(more)))


def test_the_default_threads_are_the_cores_that_train_at_once(shipped, monkeypatch):
    from genchess.fitness import network_training
    from genchess_core import network_fit
    assert network_fit.TRAINING_THREADS == 2
    for cores, expected in ((1, 1), (2, 2), (16, 2)):
        monkeypatch.setattr(network_training, "available_cores", lambda: cores)
        assert network_training.default_threads() == expected
    assert small_trainer(shipped).threads == 2


@pytest.mark.parametrize("kernels", ["fast", "numpy"])
def test_flip_files_adds_to_the_training_rows_only(shipped, kernels):
    plain, flipped = small_trainer(shipped, kernels=kernels), small_trainer(shipped, kernels=kernels,
                                                                           flip_files=True)
    train, _ = shipped.subset(slice(20_000, 23_000)).split(0.1, 7)
    assert plain.rows == len(train) and flipped.rows == len(train) + int(np.sum(train.castling == 0))
    assert len(flipped.held_out) == len(plain.held_out)
    assert flipped.held_out_loss() == plain.held_out_loss()


def test_the_progress_bar_changes_nothing(shipped):
    quiet, shown = small_trainer(shipped, epochs=1), small_trainer(shipped, epochs=1)
    shown.progress = True
    quiet.run()
    shown.run()
    assert all(np.array_equal(a, b) for a, b in zip(state(quiet), state(shown)))


def test_a_state_from_another_set_other_options_or_labels_is_refused(shipped, tmp_path):
    trainer = small_trainer(shipped)
    trainer.save(tmp_path / "state.npz")
    with pytest.raises(ValueError, match="other options .*hidden"):
        small_trainer(shipped, hidden=4).load(tmp_path / "state.npz")
    with pytest.raises(ValueError, match="trained on another position set"):
        small_trainer(shipped, part=slice(0, 500)).load(tmp_path / "state.npz")
    with pytest.raises(ValueError, match="trained with kernels fast, not numpy"):
        small_trainer(shipped, kernels="numpy").load(tmp_path / "state.npz")
    other_labels = small_trainer(shipped)
    other_labels.identity["labels"] = "mix wdl 0.25 K 0.850000"
    with pytest.raises(ValueError, match="trained with labels mentor K 0.850000, not mix wdl 0.25"):
        other_labels.load(tmp_path / "state.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a state")
    with pytest.raises(ValueError, match="not a network trainer's state"):
        trainer.load(tmp_path / "junk.npz")


@pytest.mark.parametrize("change, message", [
    (dict(hidden=0), "hidden must be at least 1, not 0"),
    (dict(activation="tanh"), "activation must be one of crelu, screlu, not 'tanh'"),
    (dict(buckets=17), "buckets must be from 1 to 16, not 17"),
    (dict(epochs=0), "epochs and the batch size must be at least 1"),
    (dict(learning_rate=0.0), "the learning rate must be above 0"),
    (dict(drop_at=1.5), "drop_at must be between 0 and 1, not 1.5"),
])
def test_bad_settings_are_one_line(change, message):
    with pytest.raises(ValueError, match=message) as caught:
        NetworkSettings(**change)
    assert "\n" not in str(caught.value)
