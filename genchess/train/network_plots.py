"""The plots of a network run: the loss by epoch (training, held-out as floats and as
the quantised network the engine plays), what the best network's first layer
learned (the strongest hidden units' weights as square maps, piece by piece), the
validation games' Elo and the champion's gain. The method's registry entry names
`plot_run`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from genchess.drawing import PlotError, pyplot, read_record_lines, save
from genchess.train.champion import plot_champion_gain
from genchess.genome.run_formats import EPOCH_LINE, VALIDATION_LINE
from genchess.train.evolve_plots import plot_validation


def read_network_records(path: Path):
    """(epoch rows [epoch, loss, held-out, quantised], validation rows [epoch, games,
    elo, low, high]) of a network run's records."""
    return read_record_lines(path, EPOCH_LINE, VALIDATION_LINE)


def _read_best(path: Path):
    from genchess.genome import GenomeError
    from genchess.genome.genome_file import load_genome
    try:
        return load_genome(path)
    except GenomeError as e:
        raise PlotError(str(e)) from None


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


STRONGEST_UNITS = 8
PIECE_LETTERS = "PNBRQK"


def strongest_units(w1, w2, count: int):
    """The hidden units that move the output most: each unit's output weights (both
    sides' halves, in the bucket that weighs it most) times the spread of its
    first-layer weights, largest first."""
    import numpy as np
    hidden = w1.shape[1]
    w2 = np.atleast_2d(w2)                  # [buckets, 2H]
    strength = (np.abs(w2[:, :hidden]) + np.abs(w2[:, hidden:])).max(axis=0) * w1.std(axis=0)
    return list(np.argsort(-strength)[:count])


def plot_first_layer(plt, genome, out: Path, count: int = STRONGEST_UNITS) -> Path:
    """The first layer of a network genome as square maps: a row for each of its
    strongest hidden units, a board for each of the twelve pieces (the side's own
    first), seen from the side whose accumulator it feeds (rank 1 at the bottom is
    that side's first rank), with its output weights (their mean over the buckets).
    Red raises the unit, blue lowers it; a pawn's first and last ranks, where no pawn
    stands, are blank."""
    import numpy as np
    w1, _, w2, _ = genome.float_weights()
    units = strongest_units(w1, w2, count)
    mean_w2 = w2.mean(axis=0)               # (over the output buckets)
    fig, axes = plt.subplots(len(units), 12, figsize=(1.45 * 12, 1.55 * len(units) + 0.8),
                             squeeze=False)
    for row, unit in enumerate(units):
        maps = w1[:, unit].reshape(12, 8, 8).copy()                     # [piece][rank][file]
        maps[0, [0, 7], :] = maps[6, [0, 7], :] = np.nan
        limit = max(1e-9, float(np.nanmax(np.abs(maps))))
        for piece in range(12):
            ax = axes[row, piece]
            ax.imshow(maps[piece], cmap="RdBu_r", vmin=-limit, vmax=limit, origin="lower")
            ax.set_xticks([])
            ax.set_yticks([])
            if row == 0:
                side = "own" if piece < 6 else "their"
                ax.set_title(f"{side} {PIECE_LETTERS[piece % 6]}", fontsize=9)
            if piece == 0:
                ax.set_ylabel(f"unit {unit}\nw2 {mean_w2[unit]:+.2f}/{mean_w2[unit + genome.hidden]:+.2f}",
                              fontsize=8)
    fig.suptitle(f"What the first layer learned: the {len(units)} strongest of {genome.hidden} "
                 f"hidden units ({genome.activation}), each row on its own colour scale "
                 f"(red raises the unit)", fontsize=10)
    return save(plt, fig, out / "first-layer.png")


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
    best = Path(f"{path}_best.genome")
    if best.exists():
        written.append(plot_first_layer(plt, _read_best(best), out))
    if checks:
        written.append(plot_validation(plt, checks, out, "epoch", "the default genome"))
    champion_plot = plot_champion_gain(plt, path, out)
    if champion_plot is not None:
        written.append(champion_plot)
    return written
