"""The position fitness's arithmetic: the sigmoid, the loss on hand-made sets, the K fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from genchess.fitness.loss import Labels, fit_k, sigmoid, squared_error


def test_sigmoid_is_the_expected_score_of_an_elo_like_lead():
    assert sigmoid(0, 1.0) == 0.5
    assert sigmoid(400, 1.0) == pytest.approx(10 / 11)         # 10^1 : 1
    assert sigmoid(-400, 1.0) == pytest.approx(1 / 11)
    assert sigmoid(200, 2.0) == pytest.approx(sigmoid(400, 1.0))


def test_loss_on_a_hand_made_set():
    # Three positions: a White win judged +400 at K=1 (predicted 10/11), a draw judged
    # level (predicted exactly), a Black win judged level (predicted 1/2).
    results = [1.0, 0.5, 0.0]
    cp = [400.0, 0.0, 0.0]
    expected = ((1 - 10 / 11) ** 2 + 0.0 + 0.25) / 3
    assert squared_error(results, cp, 1.0) == pytest.approx(expected)
    # Two genomes at once: columns; the second judges the lost game right at -400.
    both = np.array([[400.0, 400.0], [0.0, 0.0], [0.0, -400.0]])
    losses = squared_error(results, both, 1.0)
    assert losses[0] == pytest.approx(expected)
    assert losses[1] == pytest.approx(((1 - 10 / 11) ** 2 + (1 / 11) ** 2) / 3)
    assert squared_error([1.0, 0.0], [math.inf, -math.inf], 1.0) == 0.0


def test_the_k_fit_recovers_the_k_a_synthetic_set_was_drawn_with():
    rng = np.random.default_rng(3)
    cp = rng.normal(0.0, 250.0, 200_000)
    for true_k in (0.7, 1.3):
        win = rng.random(cp.size) < sigmoid(cp, true_k)
        results = win.astype(float)
        assert fit_k(cp, results) == pytest.approx(true_k, rel=0.03)


def test_labels_result_mentor_and_their_mix():
    results = np.array([1.0, 0.0])
    mentor = np.array([200.0, -200.0])
    cp = np.array([[200.0], [0.0]])
    on_results = Labels("result", k_result=1.0)
    on_mentor = Labels("mentor", k_result=1.0, k_mentor=1.0)
    mixed = Labels("mix", k_result=1.0, k_mentor=1.0, weight=0.25)
    r = on_results.loss(cp, results, mentor)[0]
    m = on_mentor.loss(cp, results, mentor)[0]
    assert m == pytest.approx((0.0 + (sigmoid(-200, 1.0) - 0.5) ** 2) / 2)
    assert mixed.loss(cp, results, mentor)[0] == pytest.approx(0.25 * r + 0.75 * m)
    with pytest.raises(ValueError, match="mentor scores"):
        Labels("mentor", k_result=1.0)
    with pytest.raises(ValueError, match="one of"):
        Labels("games", k_result=1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        Labels("mix", k_result=1.0, k_mentor=1.0, weight=2.0)
