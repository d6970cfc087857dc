"""The plots of an evolve run: the training and held-out loss, the validation games'
Elo, what evolved (a material genome's weights, a table kind's piece values, the
best genome's tables and terms, or a Genetic Chess genome's piece strengths) and
the champion's gain. The method's registry entry names `plot_run`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from genchess.drawing import (PIECE_NAMES, PIECES, PlotError, draw_boards, phase_name,
                              plot_piece_strengths, plot_tables, pyplot, read_record_lines, save)
from genchess.genome import GenomeError, load_genome
from genchess.genome.run_formats import GENERATION_LINE, VALIDATION_LINE
from genchess.train.champion import plot_champion_gain
from genchess.train.records import genomes_by_id, read_complete_genomes



def read_evolve_records(path: Path):
    """(generation rows [g, loss, held-out, mean, best-so-far], validation rows
    [g, games, elo, low, high]) of an evolve run's records."""
    return read_record_lines(path, GENERATION_LINE, VALIDATION_LINE)


def plot_evolve_loss(plt, rows, out: Path) -> Path:
    g, loss, held, mean, best = (list(column) for column in zip(*rows))
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.plot(g, mean, color="lightgrey", lw=1, label="population mean (adam: the epoch's minibatches)")
    ax.plot(g, loss, lw=1, alpha=0.7, label="generation's best (training)")
    ax.plot(g, held, lw=1, alpha=0.7, label="generation's best (held-out)")
    ax.plot(g, best, color="black", lw=2, label="best so far (training)")
    low = min(min(loss), min(held), min(best))
    ax.set_ylim(low - 0.002, max(max(loss[len(loss) // 10:] or loss), max(held)) + 0.002)
    ax.set_xlabel("generation")
    ax.set_ylabel("loss: mean (result - sigmoid(K cp / 400))^2")
    ax.set_title("Position fitness: training and held-out loss")
    ax.legend()
    return save(plt, fig, out / "loss.png")


def plot_validation(plt, checks, out: Path, step: str = "generation",
                    against: str = "the start genome") -> Path:
    import numpy as np
    from genchess.strength.stats import perfect_score_bound
    g, games, elo, low, high = (np.array(column) for column in zip(*checks))
    fig, ax = plt.subplots(figsize=(9, 5))
    measured = np.isfinite(elo)
    shown, low, high = elo[measured], low[measured], high[measured]
    finite_low = np.where(np.isfinite(low), low, shown - 400)
    finite_high = np.where(np.isfinite(high), high, shown + 400)
    ax.errorbar(g[measured], shown, capsize=4, fmt="o",
                yerr=[shown - finite_low, finite_high - shown])
    # A match won (or lost) in every game has no finite estimate; its one-sided 95% bound does.
    for x, n, e in zip(g[~measured], games[~measured], elo[~measured]):
        bound = perfect_score_bound(int(n)) * (1 if e > 0 else -1)
        ax.plot([x], [bound], "^" if e > 0 else "v", color="C0", ms=9)
        ax.annotate(f"{'won' if e > 0 else 'lost'} all {int(n)}: {bound:+.0f} or "
                    f"{'more' if e > 0 else 'less'}", (x, bound), textcoords="offset points",
                    xytext=(-30, -16 if e > 0 else 10), fontsize=8)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel(step)
    ax.set_ylabel(f"Elo of the best genome over {against}")
    ax.set_title(f"Validation games against {against} ({int(games[0])} a match; "
                 "95% intervals)")
    return save(plt, fig, out / "validation.png")


def plot_weights(plt, genomes, out: Path) -> Path:
    """A material genome's tuned weights in pawns, generation by generation."""
    from genchess.genome.material import WEIGHT_NAMES
    from genchess.genome import MaterialGenome
    ids = [g.id for g in genomes]
    fig, ax = plt.subplots(figsize=(9, 5))
    for i in MaterialGenome.TUNED:
        ax.plot(ids, [g.weights[i] / g.weights[0] for g in genomes], label=WEIGHT_NAMES[i])
    ax.set_xlabel("generation")
    ax.set_ylabel("weight / pawn weight")
    ax.set_title("Material weights of each generation's best genome (pawn = 1)")
    ax.legend()
    return save(plt, fig, out / "weights.png")


def material_series(genomes) -> dict[str, list[tuple[int, ...]]]:
    """Each phase's material of each genome, in centipawns ({"": ...} for one phase)."""
    if genomes[-1].KIND == "unified":
        return {"middle game": [g.group("material", "mg") for g in genomes],
                "end game": [g.group("material", "eg") for g in genomes]}
    return {"": [g.material for g in genomes]}


def plot_material(plt, genomes, out: Path) -> Path:
    """A table kind's piece values, generation by generation, in pawns: the first thing
    a reader checks of an evaluation learned from nothing."""
    ids = [g.id for g in genomes]
    fig, ax = plt.subplots(figsize=(9, 5))
    for (phase, values), style in zip(material_series(genomes).items(), ("-", "--")):
        unit = values[-1][0] if phase == "" else 100     # the pawn (unified: its mg value, 100)
        for k in range(1, 5):
            ax.plot(ids, [v[k] / unit for v in values], style, color=f"C{k}",
                    label=f"{PIECE_NAMES[PIECES[k]]} {phase}".rstrip())
        if phase == "end game":
            ax.plot(ids, [v[0] / unit for v in values], style, color="C0", label="pawn end game")
    for usual in (1, 3, 5, 9):               # a guide for the eye, not a target of the run
        ax.axhline(usual, color="grey", lw=0.5, ls=":")
    ax.set_xlabel("generation")
    ax.set_ylabel("value in pawns")
    ax.set_title("Piece values of each generation's best genome (dotted: the usual 1, 3, 5, 9)")
    ax.legend(fontsize=8, ncol=2)
    return save(plt, fig, out / "material.png")


def plot_unified(plt, genome, out: Path) -> list[Path]:
    """A unified genome: its twelve tables as boards (tables.png) and every other term
    group, middle game against end game (terms.png)."""
    from genchess.genome.unified import PHASES, TABLE_GROUPS, TERMS, entry_label
    boards = [(f"{piece} {phase_name(phase)}", genome.group(piece, phase))
              for piece in TABLE_GROUPS for phase in PHASES]
    tables = draw_boards(plt, boards, 4, f"Piece-square tables of unified genome {genome.id} "
                         f"(centipawns on top of material)", out / "tables.png")
    groups = [(name, length) for name, _, length in TERMS if name not in TABLE_GROUPS]
    vectors = [(name, length) for name, length in groups if length > 1]
    scalars = [name for name, length in groups if length == 1]
    columns = 4
    rows = (len(vectors) + 1 + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.9 * rows), layout="constrained")
    for ax, (name, length) in zip(axes.flat, vectors):
        for phase, colour in zip(PHASES, ("tab:blue", "tab:orange")):
            ax.plot(range(length), genome.group(name, phase), marker=".", color=colour,
                    label=phase_name(phase))
        labels = [entry_label(name, k) for k in range(length)]
        step = max(1, length // 8)
        ax.set_xticks(range(0, length, step), labels[::step], fontsize=7)
        ax.axhline(0, color="grey", linewidth=0.5)
        ax.set_title(name, fontsize=9)
    ax = axes.flat[len(vectors)]
    y = range(len(scalars))
    ax.barh([v - 0.2 for v in y], [genome.group(n, "mg")[0] for n in scalars], height=0.4,
            color="tab:blue", label="middle game")
    ax.barh([v + 0.2 for v in y], [genome.group(n, "eg")[0] for n in scalars], height=0.4,
            color="tab:orange", label="end game")
    ax.set_yticks(list(y), scalars, fontsize=7)
    ax.axvline(0, color="grey", linewidth=0.5)
    ax.set_title("single terms", fontsize=9)
    ax.legend(fontsize=7)
    for extra in list(axes.flat)[len(vectors) + 1:]:
        extra.axis("off")
    fig.suptitle(f"Unified genome {genome.id}: every term but the tables, centipawns per count "
                 f"(White's minus Black's)")
    fig.savefig(out / "terms.png", dpi=100)
    plt.close(fig)
    return [tables, out / "terms.png"]


def run_best(path: Path, genomes: list, warn=lambda line: print(line, file=sys.stderr)):
    """The genome an evolve run's numbers are drawn from: its best, `<run>_best.genome`
    (the lowest training loss, what `--genome` plays), not the last generation's best,
    which the optimiser may since have left; the last generation's where there is no
    best file (a run copied without it) or it cannot be read (said in one line)."""
    best = Path(f"{path}_best.genome")
    if not best.exists():
        return genomes[-1]
    try:
        return load_genome(best)
    except GenomeError as e:
        warn(f"{e}; drawing the last generation's best instead")
        return genomes[-1]


def plot_run(path: Path, out: Path, warn=lambda line: print(line, file=sys.stderr)) -> list[Path]:
    """Every plot of an evolve run's records; PlotError when they cannot be read.
    `warn` gets a line about a best genome that cannot be read (the last
    generation's is drawn instead)."""
    try:
        rows, checks = read_evolve_records(path)
        genomes_path = Path(f"{path}_genomes.txt")
        genomes = genomes_by_id(read_complete_genomes(genomes_path)) if genomes_path.exists() else []
        out.mkdir(parents=True, exist_ok=True)
    except GenomeError as e:
        raise PlotError(str(e)) from None
    except OSError as e:
        raise PlotError(f"cannot read {path} or write {out}: {e.strerror}") from None
    if not rows:
        raise PlotError(f"{path}: no generation recorded yet")
    plt = pyplot()
    written = [plot_evolve_loss(plt, rows, out)]
    if checks:
        written.append(plot_validation(plt, checks, out))
    if genomes:
        kind = genomes[-1].KIND
        if kind == "material":
            written.append(plot_weights(plt, genomes, out))
        elif kind == "pvt":
            written += [plot_material(plt, genomes, out), plot_tables(plt, run_best(path, genomes, warn), out)]
        elif kind == "unified":
            written += [plot_material(plt, genomes, out), *plot_unified(plt, run_best(path, genomes, warn), out)]
        else:
            written.append(plot_piece_strengths(plt, genomes, out))
    champion_plot = plot_champion_gain(plt, path, out)
    if champion_plot is not None:
        written.append(champion_plot)
    return written
