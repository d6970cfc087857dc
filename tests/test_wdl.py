"""Win/draw/loss chances (genchess.protocols.wdl) and UCI_ShowWDL."""

import json
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest

from genchess.protocols import wdl as model

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
FIT = json.loads((Path(__file__).resolve().parents[1] / "genchess" / "data" / "wdl.json").read_text())


def independent_wdl(cp: int, fen: str) -> tuple[int, int, int]:
    """The chances computed apart from genchess.protocols.wdl, as Stockfish's win_rate_model
    defines them: material counted by python-chess (P 1, N B 3, R 5, Q 9), clamped to
    17..78 and divided by 58; a and b numpy's polyval of the shipped coefficients;
    win = 1 / (1 + e^((a - cp) / b)), loss the same at -cp, in permille."""
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    count = sum(values.get(piece.piece_type, 0) for piece in chess.Board(fen).piece_map().values())
    m = np.clip(count, 17, 78) / 58
    a, b = np.polyval(FIT["a"], m), np.polyval(FIT["b"], m)
    win, loss = (int(np.round(1000 / (1 + np.exp((a - s) / b)))) for s in (cp, -cp))
    loss = min(loss, 1000 - win)        # no negative draw chance, where a fit's a dips below 0
    return win, 1000 - win - loss, loss


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, KIWIPETE, "4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1",
                                 "r3k3/8/8/8/8/8/4P3/4K2R b - - 0 1", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"])
def test_chances_agree_with_an_independent_computation(fen):
    for cp in (-1500, -400, -120, -35, 0, 1, 35, 120, 400, 1500):
        assert model.wdl(cp, None, model.material(fen)) == independent_wdl(cp, fen), (fen, cp)


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
    assert tuple(wdl.relative) == independent_wdl(shown["score"].relative.score(), KIWIPETE)
