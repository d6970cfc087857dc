"""The network trainer's fast kernels (genchess_core/network_fit.pyx) against the numpy
reference (fitness/network_model.py): the inputs decoded from the packed records, the
loss and its gradient of a minibatch, the weights after Adam's steps, the held-out
evaluations, in float64 and in float32.

Tolerances. In float64 the two differ only by the order of their sums (the reference
sums through scipy's sparse products and BLAS, the kernels position by position in
fixed lanes): some thirty rounding errors of 1e-16 relative, so 1e-12 of the largest
number is a thousand-fold margin, and any wrong term (a missed input, a bucket's
weights read for another) is thousands of times larger. In float32 (what trains) a
rounding error is 6e-8 relative and a gradient's element sums up to 2 x 64 x 32 terms,
so 1e-5 of the largest element (about 170 units in the last place) bounds it with room;
Adam then divides each step by the gradient's own scale, so an element whose gradient
is at the rounding level can step either way: after steps the float32 weights are held
to 1e-3 of how far the steps moved them, as a whole (L2), not element by element.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from genchess.files import package_file
from genchess.fitness.loss import Labels
from genchess.fitness.network_model import network_inputs, with_files_flipped
from genchess.fitness.network_training import NetworkSettings, NetworkTrainer, training_parts
from genchess.position_sets.position_set import load_positions
from genchess.position_sets.records import PackedSet

# Bullet's usual small mirrored layout: the back rank's corner and centre, the second
# rank, the rest (from each side's own seat).
MIRRORED_4 = "mirrored, 0 0 1 1 2 2 2 2" + " 3 3 3 3" * 6

LABELS = {"result": Labels("result", 1.05), "mentor": Labels("mentor", 1.05, 0.85),
          "mix": Labels("mix", 1.05, 0.85, 0.3)}


@pytest.fixture(scope="module")
def shipped() -> PackedSet:
    # Two stretches of the shipped set: middle games and, further on, endgames, so that
    # eight output buckets all see positions.
    positions = load_positions(package_file("data", "positions.epd.gz"))
    return PackedSet.from_positions(positions.subset(np.r_[0:1500, 60_000:61_500]))


def trainers(shipped, dtype, labels="mix", **options):
    settings = dict(hidden=24, activation="screlu", epochs=2, batch_size=200, learning_rate=1e-2,
                    buckets=8, psqt=True, flip_files=True, seed=3)
    settings.update(options)
    train, held_out = training_parts(shipped, 0.1, 3)
    return [NetworkTrainer(train, held_out, LABELS[labels], NetworkSettings(**settings), kernels=kernels,
                           dtype=dtype, threads=2) for kernels in ("fast", "numpy")]


def gradients(trainer, rows):
    loss, gradient = trainer.kernels.gradient(trainer.network, rows)
    arrays = gradient.arrays if hasattr(gradient, "arrays") else gradient
    return loss, {name: array.copy() for name, array in arrays.items()}


@pytest.mark.parametrize("kings", ["", MIRRORED_4, " ".join(str(s // 16) for s in range(64))],
                         ids=["none", "mirrored-4", "plain-4"])
def test_the_records_decode_to_the_references_inputs(shipped, kings):
    """Every record's inputs (and its mirror a <-> h) for the side to move and the
    other side, decoded in C, are network_inputs' of the same positions, with and
    without king buckets."""
    from genchess_core.network_fit import Workspace, inputs_of
    layout = NetworkSettings(kings=kings).king_layout
    workspace = Workspace(16, 1, 1, bytes(layout.table), layout.flips())
    positions = shipped.positions()
    flipped = with_files_flipped(positions)
    us, them = network_inputs(flipped, layout)
    assert us.shape[1] == 768 * layout.buckets
    records = np.ascontiguousarray(shipped.records).view(np.uint8).reshape(-1, 32)
    without_castling = np.flatnonzero(positions.castling == 0)
    assert 0 < len(without_castling) < len(positions)
    rows = [(row, False, row) for row in range(len(positions))]
    rows += [(record, True, len(positions) + k) for k, record in enumerate(without_castling)]
    for record, flip, row in rows:
        decoded_us, decoded_them = inputs_of(workspace, records, record, flip)
        assert sorted(decoded_us) == us.indices[us.indptr[row]:us.indptr[row + 1]].tolist()
        assert sorted(decoded_them) == them.indices[them.indptr[row]:them.indptr[row + 1]].tolist()


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("activation, psqt, buckets, kings", [
    ("screlu", True, 8, ""), ("crelu", False, 1, ""), ("crelu", True, 3, ""), ("screlu", False, 1, ""),
    ("screlu", True, 8, MIRRORED_4)])
def test_float64_loss_and_gradient_equal_the_reference(shipped, labels, activation, psqt, buckets, kings):
    fast, reference = trainers(shipped, np.float64, labels, activation=activation, psqt=psqt,
                               buckets=buckets, kings=kings)
    rng = np.random.default_rng(5)
    # Rows from all of the training part and its flipped copies, more than one of the
    # kernels' blocks of positions, and a weight large enough that units leave (0, 1).
    for network in (fast.network, reference.network):
        network.w1 *= 8
    rows = rng.permutation(fast.rows).astype(np.uint32)[:2500]
    assert np.any(rows >= len(fast.train))
    loss, gradient = gradients(fast, rows)
    expected_loss, expected = gradients(reference, rows)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    assert set(gradient) == set(expected) == ({"w1", "b1", "w2", "b2"} | ({"psqt"} if psqt else set()))
    for name in expected:
        assert np.count_nonzero(expected[name]) > 0, name
        np.testing.assert_allclose(gradient[name], expected[name], rtol=0,
                                   atol=1e-12 * np.abs(expected[name]).max(), err_msg=name)
    if buckets == 8:
        assert np.all(np.any(expected["w2"] != 0, axis=1))          # every bucket had positions
    if kings:
        by_king_bucket = np.abs(expected["w1"]).reshape(4, 768, -1).sum(axis=(1, 2))
        assert np.all(by_king_bucket > 0), by_king_bucket           # and every king bucket
    np.testing.assert_allclose(fast.kernels.held_out_cp(fast.network),
                               reference.kernels.held_out_cp(reference.network), rtol=1e-12, atol=1e-9)


def test_float64_weights_after_epochs_of_adam_equal_the_reference(shipped):
    fast, reference = trainers(shipped, np.float64)
    fast.run()
    reference.run()
    assert fast.t == reference.t > 20
    for name, expected in reference.network.arrays().items():
        np.testing.assert_allclose(fast.network.arrays()[name], expected, rtol=0, atol=1e-9, err_msg=name)
    for mine, theirs in zip(fast.moments, reference.moments):
        np.testing.assert_allclose(mine.vector, theirs.vector, rtol=1e-9, atol=1e-15)
    assert [r.train_loss for r in fast.history] == pytest.approx([r.train_loss for r in reference.history],
                                                                  rel=1e-12)
    assert [r.held_out_loss for r in fast.history] == pytest.approx(
        [r.held_out_loss for r in reference.history], rel=1e-12)


def test_float32_results_equal_the_reference_within_rounding(shipped):
    fast, reference = trainers(shipped, np.float32)
    start = fast.parameters.vector.copy()
    rows = np.arange(fast.rows, dtype=np.uint32)[::-1][:1000].copy()
    loss, gradient = gradients(fast, rows)
    expected_loss, expected = gradients(reference, rows)
    assert loss == pytest.approx(expected_loss, rel=1e-6)
    for name in expected:
        np.testing.assert_allclose(gradient[name], expected[name], rtol=0,
                                   atol=1e-5 * np.abs(expected[name]).max(), err_msg=name)
    fast.train_epoch()
    reference.train_epoch()
    moved = np.linalg.norm(reference.parameters.vector - start)
    assert moved > 0.1
    assert np.linalg.norm(fast.parameters.vector - reference.parameters.vector) < 1e-3 * moved
    assert fast.history[0].train_loss == pytest.approx(reference.history[0].train_loss, rel=1e-5)
    assert fast.history[0].held_out_loss == pytest.approx(reference.history[0].held_out_loss, rel=1e-5)


def test_the_baseline_and_the_chosen_loops_give_the_same_weights(shipped, tmp_path):
    """The kernels are built for the x86-64 baseline and for AVX2, one chosen when the
    module loads: both train to the same weights bit for bit (their sums run in the
    same lanes), so a run resumes exactly on another CPU."""
    from genchess_core.network_fit import KERNELS
    (tmp_path / "set.gcpos").write_bytes(b"GCPOS\0\x01\x00\x20\x00" + bytes(6) + shipped.records.tobytes())
    script = ("import json, sys\n"
              "from genchess.fitness.loss import Labels\n"
              "from genchess.fitness.network_training import NetworkSettings, NetworkTrainer, training_parts\n"
              "from genchess.position_sets.records import PackedSet\n"
              "from genchess_core.network_fit import KERNELS\n"
              "train, held = training_parts(PackedSet.load(sys.argv[1]), 0.1, 3)\n"
              "trainer = NetworkTrainer(train, held, Labels('mix', 1.05, 0.85, 0.3), NetworkSettings(\n"
              "    hidden=40, buckets=8, epochs=1, batch_size=300, flip_files=True, seed=2))\n"
              "trainer.run()\n"
              "print(json.dumps([KERNELS, trainer.parameters.vector.tobytes().hex()]))\n")
    runs = {}
    for choice in ("baseline", "chosen"):
        env = {**os.environ, "GENCHESS_NETWORK_KERNELS": choice}
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "set.gcpos")], capture_output=True,
                              text=True, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        runs[choice] = json.loads(done.stdout)
    assert runs["baseline"][0] == "baseline" and runs["chosen"][0] == KERNELS
    assert runs["baseline"][1] == runs["chosen"][1]


def test_rows_outside_the_set_are_refused():
    from genchess_core.network_fit import check_rows
    records = np.zeros((3, 32), dtype=np.uint8)
    check_rows(records, np.array([0, 2, 3], dtype=np.uint32), np.array([1], dtype=np.uint32))
    with pytest.raises(ValueError, match="row 4 of 4"):
        check_rows(records, np.array([4], dtype=np.uint32), np.array([1], dtype=np.uint32))
    with pytest.raises(ValueError, match="flipped row 0 names record 3 of 3"):
        check_rows(records, np.zeros(0, dtype=np.uint32), np.array([3], dtype=np.uint32))
