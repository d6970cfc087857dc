"""Drawing helpers every training run's plots share (matplotlib, off screen).

Each method draws its own run's plots (the registry entry's `plots`: gene_pool_plots,
mnc_plots, evolve_plots in genchess/train/), with these pieces: the Agg backend
loaded only when something is drawn, a figure saved and closed the same way,
piece-square tables as boards, the piece strengths of Genetic Chess genomes.
They sit below the trainers and the command layer alike, so that a method's plots
need not import `genchess plot`, the command that calls them.
"""

from __future__ import annotations

import math
from pathlib import Path

PIECES = ["P", "N", "B", "R", "Q", "K"]
PIECE_NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}


class PlotError(Exception):
    """A run that cannot be drawn (unreadable, not a run, nothing recorded yet); the
    command prints `<its name>: <message>` and exits 2."""


def pyplot():
    """matplotlib.pyplot on the off-screen Agg backend, imported only when drawing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def read_record_lines(path: Path, *patterns) -> list[list[list[float]]]:
    """The numbers of a run's record lines: for each regex in `patterns`, the groups
    of every line it matches, as floats, in file order. An unfinished last line (no
    newline yet: a run still writing as it is drawn) is left out; a matched line whose
    numbers do not read is a PlotError naming `path:line`. OSError is the caller's."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise PlotError(f"{path}:{line}: not text (byte {e.start} is not UTF-8)") from None
    found = [[] for _ in patterns]
    for number, line in enumerate(text[:text.rfind("\n") + 1].splitlines(), 1):
        for rows, pattern in zip(found, patterns):
            if match := pattern.match(line):
                try:
                    rows.append([float(x) for x in match.groups()])
                except ValueError:
                    raise PlotError(f"{path}:{number}: a number that does not read in "
                                    f"{line[:80]!r}") from None
                break
    return found


def panel_grid(plt, count: int, columns: int = 4):
    """A figure of `count` small panels, `columns` a row, the spare ones of the last row
    hidden: the figure and the panels in reading order."""
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 2.6 * rows), squeeze=False)
    panels = [ax for row in axes for ax in row]
    for ax in panels[count:]:
        ax.axis("off")
    return fig, panels[:count]


def rolling(values, window):
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def plot_piece_strengths(plt, genomes, out: Path) -> Path:
    ids = [g.id for g in genomes]
    values = [g.pack()["piece_values"] for g in genomes]
    window = max(5, len(ids) // 20)
    fig, ax = plt.subplots(figsize=(11, 6))
    for k, piece in enumerate(PIECES):
        series = [v[k] for v in values]
        dots = ax.scatter(ids, series, s=5, alpha=0.3)
        # The trend: a rolling median over consecutive genomes (robust to mutants).
        medians = [sorted(series[max(0, i - window + 1):i + 1])[len(series[max(0, i - window + 1):i + 1]) // 2]
                   for i in range(len(series))]
        ax.plot(ids, medians, color=dots.get_facecolor()[0][:3], lw=2, label=PIECE_NAMES[piece])
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("genome ID (order of birth)")
    ax.set_ylabel("normalised piece strength (army sums to 1)")
    ax.set_title(f"Piece strengths of every genome (lines: median of {window} consecutive genomes)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return save(plt, fig, out / "piece_strengths.png")


def draw_boards(plt, boards: list[tuple[str, list[int]]], columns: int, title: str, path: Path) -> Path:
    """Piece-square tables as 8x8 boards (White's side, rank 1 at the bottom), one
    colour scale for all, each square's number written on it."""
    import numpy as np
    rows = (len(boards) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.4 * rows), layout="constrained")
    limit = max(1, max(abs(v) for _, values in boards for v in values))
    for ax, (name, values) in zip(axes.flat, boards):
        board = np.array(values).reshape(8, 8)                          # row 0: rank 1
        image = ax.imshow(board, cmap="RdBu_r", vmin=-limit, vmax=limit, origin="lower")
        for r in range(8):
            for f in range(8):
                ax.text(f, r, str(board[r, f]), ha="center", va="center", fontsize=7)
        ax.set_xticks(range(8), list("abcdefgh"))
        ax.set_yticks(range(8), [str(r) for r in range(1, 9)])
        ax.set_title(name)
    fig.colorbar(image, ax=axes, shrink=0.8, label="centipawns (White's side)")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def phase_name(phase: str) -> str:
    return "middle game" if phase == "mg" else "end game"


def tables_title(genome, hosted: bool = False) -> str:
    """The title over a chromosome's tables. A hosted chromosome (Phoenix inside a unified
    genome) plays on its host's material, so its own, unused, is not named."""
    material = ("played inside its host genome, on the host's material and every other term" if hosted
                else f"material {' '.join(map(str, genome.material))}")
    return (f"Piece-square tables of chromosome {genome.id} ({material}; rook and queen use "
            f"their middle-game table in the end game)")


def plot_tables(plt, genome, out: Path, hosted: bool = False) -> Path:
    """The best chromosome's ten tables as boards."""
    from genchess.genome.pvt import TABLES
    boards = [(f"{piece} {phase_name(phase)}", genome.table(piece, phase)) for piece, phase in TABLES]
    return draw_boards(plt, boards, 5, tables_title(genome, hosted), out / "tables.png")
