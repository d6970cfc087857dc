"""The plots of a tune run: every tuned number's path, iteration by iteration, and the
games' running score. The method's registry entry names `plot_run`.

Each number is drawn in its own panel on its own scale, with its start value and its
bounds, so a number that walked to a bound (the bounds may be too tight) or did not
move (its step may be too small for the games to feel) shows at a glance.
"""

from __future__ import annotations

import sys
from pathlib import Path

from genchess.drawing import PlotError, panel_grid, pyplot, rolling, save
from genchess.train.champion import plot_champion_gain


def plot_paths(plt, header: dict, iterations: list[dict], out: Path) -> Path:
    names, start, lo, hi = header["numbers"], header["start"], header["lo"], header["hi"]
    k = [r["iteration"] for r in iterations]
    fig, panels = panel_grid(plt, len(names))
    for i, (name, ax) in enumerate(zip(names, panels)):
        path = [r["theta"][i] for r in iterations]
        ax.plot(k, path, lw=1.2)
        ax.axhline(start[i], color="grey", ls="--", lw=0.8)
        ax.set_title(f"{name}: {start[i]:g} -> {path[-1]:.1f}", fontsize=9)
        span = hi[i] - lo[i]
        low = max(lo[i], min(min(path), start[i]) - 0.1 * span)
        high = min(hi[i], max(max(path), start[i]) + 0.1 * span)
        ax.set_ylim(low - 1e-9, high + 1e-9)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{header['optimiser']}: each tuned number by iteration (dashed: its start)")
    return save(plt, fig, out / "numbers.png")


def plot_results(plt, header: dict, iterations: list[dict], out: Path) -> Path:
    """SPSA: the plus side's result per iteration, averaged over a window (its mean is
    zero at a maximum). A population: the best genome's score against the start (the
    best of several noisy scores, so above zero even when none is better) and the
    population's mean score (below zero when the centre wanders somewhere weaker), and
    under them its spread (CMA-ES narrows it only as far as games tell its genomes apart)."""
    k = [r["iteration"] for r in iterations]
    if header["optimiser"] == "spsa":
        lines = {"plus side": [r["result"] for r in iterations]}
        label = "plus side's wins - losses"
    else:
        lines = {"best genome": [max(r["scores"]) for r in iterations],
                 "population's mean": [sum(r["scores"]) / len(r["scores"]) for r in iterations]}
        label = "wins - losses against the start"
    window = max(1, len(k) // 20)
    spread = [(r["iteration"], r["spread"]) for r in iterations if "spread" in r]
    if spread:
        fig, (ax, lower) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, height_ratios=[2, 1])
        lower.plot(*zip(*spread), lw=1.2, color="tab:green")
        lower.set_ylim(bottom=0)
        lower.set_xlabel("iteration")
        lower.set_ylabel("spread, in steps")
        lower.set_title("how widely each generation is drawn around its centre", fontsize=10)
        lower.grid(alpha=0.3)
    else:
        fig, ax = plt.subplots(figsize=(9, 4))
        ax.set_xlabel("iteration")
    for name, values in lines.items():
        ax.plot(k, rolling(values, window), lw=1.2, label=name)
    if len(lines) > 1:
        ax.legend(fontsize=9)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_ylabel(label)
    ax.set_title(f"{header['optimiser']}: {len(iterations[-1]['games'])} games an iteration, "
                 f"rolling mean of {window} iteration{'s' if window > 1 else ''}")
    ax.grid(alpha=0.3)
    return save(plt, fig, out / "results.png")


def plot_run(path: Path, out: Path, warn=lambda line: print(line, file=sys.stderr)) -> list[Path]:
    """Every plot of a tune run's records; PlotError when they cannot be read."""
    from genchess.genome.run_formats import read_tune_records as read_records
    try:
        header, iterations = read_records(path)
        out.mkdir(parents=True, exist_ok=True)
    except ValueError as e:
        raise PlotError(str(e)) from None
    except OSError as e:
        raise PlotError(f"cannot read {path} or write {out}: {e.strerror}") from None
    if not iterations:
        raise PlotError(f"{path}: no iteration recorded yet")
    plt = pyplot()
    written = [plot_paths(plt, header, iterations, out), plot_results(plt, header, iterations, out)]
    champion_plot = plot_champion_gain(plt, path, out)
    if champion_plot is not None:
        written.append(champion_plot)
    return written
