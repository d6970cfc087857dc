"""The plots of a multi-niche crowding run (Phoenix's chromosome database): the best
chromosome's tables as boards, fitness and niches against generation. The method's
registry entry names `plot_run`.
"""

from __future__ import annotations

from pathlib import Path

from genchess.drawing import PlotError, plot_tables, pyplot, save
from genchess.genome import GenomeError
from genchess.genome.run_files import ChromosomeReader


def plot_fitness(plt, history, out: Path) -> Path:
    fig, ax = plt.subplots(figsize=(10, 5))
    gens = [h.generation for h in history]
    ax.plot(gens, [h.best_fitness for h in history], label="best", marker=".")
    ax.plot(gens, [h.mean_fitness for h in history], label="mean", marker=".")
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness (points per round-robin game)")
    ax.set_ylim(0, 1.05)
    # With equal games per player a round robin is zero-sum: the mean is 0.5 by
    # construction, and moves only when byes give players different game counts.
    ax.set_title("Fitness against generation (the round robin's mean is 0.5 when all play "
                 "equally often)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend()
    return save(plt, fig, out / "fitness.png")


def plot_niches(plt, history, out: Path) -> Path:
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.plot([h.generation for h in history], [h.niches for h in history], marker=".", color="tab:green")
    ax.set_xlabel("generation")
    ax.set_ylabel("niches")
    ax.set_ylim(bottom=0)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title("Niches (clusters under the phenotypic similarity) against generation")
    return save(plt, fig, out / "niches.png")


def plot_run(path: Path, out: Path, warn=None) -> list[Path]:
    """Every plot of a chromosome database; PlotError when it cannot be read."""
    try:
        db = ChromosomeReader(path)
        history = db.history()
        best = db.chromosome(db.best_id())
        hosted = db.host() is not None
        db.close()
        out.mkdir(parents=True, exist_ok=True)
    except GenomeError as e:
        raise PlotError(str(e)) from None
    except OSError as e:
        raise PlotError(f"cannot write {out}: {e.strerror}") from None
    plt = pyplot()
    return [plot_tables(plt, best, out, hosted), plot_fitness(plt, history, out),
            plot_niches(plt, history, out)]
