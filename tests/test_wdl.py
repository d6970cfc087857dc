"""Win/draw/loss chances (genchess.wdl) and UCI_ShowWDL."""

import chess
import chess.engine
import pytest

from genchess import wdl as model

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("material", [10, 17, 30, 45, 62, 78, 90])
def test_chances_are_permille_that_sum_to_1000(material):
    for cp in range(-2000, 2001, 37):
        win, draw, loss = model.wdl(cp, None, material)
        assert win + draw + loss == 1000
        assert min(win, draw, loss) >= 0


@pytest.mark.parametrize("material", [20, 50, 78])
def test_a_better_score_wins_more_and_loses_less(material):
    chances = [model.wdl(cp, None, material) for cp in range(-800, 801, 50)]
    wins = [c[0] for c in chances]
    losses = [c[2] for c in chances]
    assert wins == sorted(wins) and losses == sorted(losses, reverse=True)
    assert wins[0] < 100 < 900 < wins[-1]
    even = model.wdl(0, None, material)
    assert abs(even[0] - even[2]) <= 1               # the curve is the same at -s


def test_a_mate_is_certain():
    assert model.wdl(None, 3, 40) == (1000, 0, 0)
    assert model.wdl(None, -1, 40) == (0, 0, 1000)


def test_material_counts_both_sides():
    assert model.material(chess.STARTING_FEN) == 78
    assert model.material("4k3/8/8/8/8/8/8/4K3 w - - 0 1") == 0
    assert model.material("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1") == 10


def test_the_shipped_fit_says_where_it_comes_from():
    fit = model.fitted()
    assert len(fit["a"]) == 4 and len(fit["b"]) == 4
    assert fit["positions"]["train"] > 1000 and fit["positions"]["held_out"] > 100
    assert "fit_wdl.py" in fit["command"]


def test_uci_showwdl_adds_wdl_to_scored_info_lines(launcher):
    engine = launcher.genchess("uci")
    assert "UCI_ShowWDL" in engine.options
    board = chess.Board(KIWIPETE)
    plain = engine.analyse(board, chess.engine.Limit(depth=4))
    assert "wdl" not in plain
    engine.configure({"UCI_ShowWDL": True})
    shown = engine.analyse(board, chess.engine.Limit(depth=4))
    wdl = shown["wdl"]                           # python-chess parses `wdl W D L` into a PovWdl
    assert sum(wdl.relative) == 1000
    assert wdl.relative == chess.engine.Wdl(*model.wdl(shown["score"].relative.score(),
                                                       None, model.material(KIWIPETE)))
