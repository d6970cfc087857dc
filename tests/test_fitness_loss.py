"""The position fitness's arithmetic: the sigmoid, the loss on hand-made sets, the K fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from genchess.fitness.loss import Labels, fit_k, loss_and_slope, sigmoid, squared_error


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


def test_labels_result_mentor_and_their_blend():
    results = np.array([1.0, 0.0])
    mentor = np.array([200.0, -200.0])
    cp = np.array([[200.0], [0.0]])
    on_results = Labels("result", k_result=1.0)
    on_mentor = Labels("mentor", k_result=1.3, k_mentor=1.0)
    mixed = Labels("mix", k_result=1.3, k_mentor=1.0, wdl=0.25)
    assert (on_results.wdl, on_mentor.wdl, mixed.wdl) == (1.0, 0.0, 0.25)
    assert on_results.loss(cp, results, mentor)[0] == pytest.approx(((1 - 10 ** 0.5 / (1 + 10 ** 0.5)) ** 2
                                                                     + 0.25) / 2)
    m = on_mentor.loss(cp, results, mentor)[0]
    assert m == pytest.approx((0.0 + (sigmoid(-200, 1.0) - 0.5) ** 2) / 2)
    # The blend is of the labels, at the mentor's K (not K = 1.3): a White win
    # judged +200 by the mentor is labelled 0.25 + 0.75 * 0.760, a Black win at -200
    # 0.75 * 0.240.
    expected_label = 1.0 / (1.0 + 10 ** -0.5)
    labels = [0.25 + 0.75 * expected_label, 0.75 * (1 - expected_label)]
    assert np.allclose(mixed.target(results, mentor), labels)
    assert mixed.loss(cp, results, mentor)[0] == pytest.approx(
        ((labels[0] - expected_label) ** 2 + (labels[1] - 0.5) ** 2) / 2)
    assert mixed.describe() == "mix wdl 0.25" and on_mentor.describe() == "mentor"
    with pytest.raises(ValueError, match="mentor scores"):
        Labels("mentor", k_result=1.0)
    with pytest.raises(ValueError, match="one of"):
        Labels("games", k_result=1.0)
    with pytest.raises(ValueError, match="wdl between 0 and 1, not 2.0"):
        Labels("mix", k_result=1.0, k_mentor=1.0, wdl=2.0)
    with pytest.raises(ValueError, match="wdl between 0 and 1, not None"):
        Labels("mix", k_result=1.0, k_mentor=1.0)


def test_the_slope_is_the_derivative_of_the_loss():
    rng = np.random.default_rng(4)
    cp, target = rng.normal(0, 300, 50), rng.random(50)
    loss, slope = loss_and_slope(target, 0.9, cp)
    assert loss == pytest.approx(squared_error(target, cp, 0.9))
    h = 1e-4
    for i in (0, 17, 49):
        up, down = cp.copy(), cp.copy()
        up[i] += h
        down[i] -= h
        numeric = (squared_error(target, up, 0.9) - squared_error(target, down, 0.9)) / (2 * h)
        assert slope[i] == pytest.approx(numeric, rel=1e-6)
