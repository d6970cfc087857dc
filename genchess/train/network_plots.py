"""The plots of a network run: the loss by epoch (training, held-out as floats and as
the quantised network the engine plays), the validation games' Elo and the
champion's gain. The method's registry entry names `plot_run`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from genchess.drawing import PlotError, pyplot, save
from genchess.train.champion import plot_champion_gain
from genchess.train.evolve_plots import VALIDATION_LINE, plot_validation

EPOCH_LINE = re.compile(r"epoch (\d+): loss (\S+) held-out (\S+) quantised (\S+)")


def read_network_records(path: Path):
    """(epoch rows [epoch, loss, held-out, quantised], validation rows [epoch, games,
    elo, low, high]) of a network run's records."""
    rows, checks = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := EPOCH_LINE.match(line):
            rows.append([float(x) for x in match.groups()])
        elif match := VALIDATION_LINE.match(line):
            checks.append([float(x) for x in match.groups()])
    return rows, checks


def plot_network_loss(plt, rows, out: Path) -> Path:
    epoch, loss, held, quantised = (list(column) for column in zip(*rows))
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.plot(epoch, loss, marker="o", ms=3, label="training (the epoch's minibatches)")
    ax.plot(epoch, held, marker="o", ms=3, label="held-out, float network")
    ax.plot(epoch, quantised, marker="o", ms=3, color="black", label="held-out, quantised (what plays)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss: mean (label - sigmoid(K cp / 400))^2")
    ax.set_title("Network training: the loss by epoch")
    ax.legend()
    return save(plt, fig, out / "loss.png")


def plot_run(path: Path, out: Path, warn=lambda line: print(line, file=sys.stderr)) -> list[Path]:
    """Every plot of a network run's records; PlotError when they cannot be read."""
    try:
        rows, checks = read_network_records(path)
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PlotError(f"cannot read {path} or write {out}: {e.strerror}") from None
    if not rows:
        raise PlotError(f"{path}: no epoch recorded yet")
    plt = pyplot()
    written = [plot_network_loss(plt, rows, out)]
    if checks:
        written.append(plot_validation(plt, checks, out, "epoch", "the default genome"))
    champion_plot = plot_champion_gain(plt, path, out)
    if champion_plot is not None:
        written.append(champion_plot)
    return written
