"""`genchess-plot FILE`: pictures of what evolved in a gene-pool run or a Phoenix
(multi-niche crowding) chromosome database.

Reads the pool file and its games file (the torn tail of a running or killed
run is skipped, never touched) and writes PNG files: piece strengths and gene
priorities against genome ID, who won over the run, how games ended (log-log),
game lengths with the Look Ahead Gene's log-normal model fitted, and promotions; and
prints the living genomes' median piece values, pool by pool, as a markdown table.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

from genchess.genome import GenomeError
from genchess.train.records import is_pool_record_end, read_games_file, split_complete

PIECES = ["P", "N", "B", "R", "Q", "K"]
PIECE_NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}
PROMOTION = re.compile(r"=([QRBN])")


def load_pool_file(path: Path):
    """The pool file's complete records (a torn tail skipped) as a GenomeFile."""
    from genchess.genome import parse_genome_text

    text = path.read_text(encoding="utf-8")
    good, _ = split_complete(path, text, is_pool_record_end)
    return parse_genome_text(good, str(path))


def genomes_by_id(pool_file):
    """The file's genomes in order of birth (ID)."""
    return sorted(pool_file.genomes, key=lambda g: g.id)


def load_genomes(path: Path):
    return genomes_by_id(load_pool_file(path))


def living_piece_medians(pool_file) -> list[tuple[str, int, list[float]]]:
    """The living genomes' median knight, bishop, rook and queen values with the pawn
    as 1, pool by pool and then over all pools: [(pool, genomes counted, [N, B, R, Q])].
    Living means named on a pool's last Still Alive line. A genome whose pawn is worth
    nothing or less has no such ratio and is left out of the count."""
    by_id = {g.id: g for g in pool_file.genomes}
    rows, everyone = [], []
    for pool, ids in sorted(pool_file.alive.items()):
        ratios = []
        for genome_id in ids:
            values = by_id[genome_id].pack()["piece_values"]
            if values[0] > 0:
                ratios.append([value / values[0] for value in values[1:5]])
        everyone += ratios
        rows.append((str(pool), ratios))
    if len(rows) > 1:
        rows.append(("all", everyone))
    return [(name, len(ratios), [statistics.median(r[k] for r in ratios) for k in range(4)]
             if ratios else []) for name, ratios in rows]


def piece_medians_table(pool_file) -> str:
    """living_piece_medians as a markdown table, or '' for a file with no Still Alive line."""
    rows = living_piece_medians(pool_file)
    if not rows:
        return ""
    lines = ["Living genomes' median piece values (pawn = 1):", "",
             "| pool | genomes | knight | bishop | rook | queen |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, count, medians in rows:
        cells = [f"{m:.2f}" for m in medians] if medians else ["-"] * 4
        lines.append(f"| {name} | {count} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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


def plot_priorities(plt, genomes, out: Path) -> Path:
    packed = [g.pack() for g in genomes]
    keys = [k for k in packed[0] if k.endswith("_priority")]
    ids = [g.id for g in genomes]
    cols = 4
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(14, 3 * rows), sharex=True)
    for ax, key in zip(axes.flat, keys):
        ax.scatter(ids, [p[key] for p in packed], s=4, alpha=0.5)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(key.replace("_priority", "").replace("_", " "), fontsize=10)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.supxlabel("genome ID")
    fig.supylabel("priority")
    fig.suptitle("Gene priorities of every genome")
    return save(plt, fig, out / "gene_priorities.png")


def plot_results(plt, games, out: Path) -> Path:
    results = [g.headers.get("Result") for g in games]
    window = max(10, len(results) // 50)
    fig, ax = plt.subplots(figsize=(10, 5))
    for result, label in (("1-0", "white wins"), ("0-1", "black wins"), ("1/2-1/2", "draws")):
        ax.plot(range(1, len(results) + 1), rolling([r == result for r in results], window), label=label)
    ax.set_ylim(0, 1)
    ax.set_xlabel("game number")
    ax.set_ylabel(f"share of the last {window} games")
    ax.set_title("Who won over the run")
    ax.legend()
    return save(plt, fig, out / "results.png")


def plot_endings(plt, games, out: Path) -> Path:
    endings = [g.headers.get("Termination", "unknown") for g in games]
    fig, ax = plt.subplots(figsize=(10, 6))
    for ending in sorted(set(endings)):
        counts, n, xs, ys = 0, 0, [], []
        for n, e in enumerate(endings, start=1):
            if e == ending:
                counts += 1
                xs.append(n)
                ys.append(counts)
        ax.plot(xs, ys, marker=".", ms=3, label=f"{ending} ({counts})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("game number")
    ax.set_ylabel("games ended this way so far")
    ax.set_title("How games ended (log-log)")
    ax.legend(fontsize=8)
    return save(plt, fig, out / "endings.png")


def plot_lengths(plt, games, out: Path) -> Path:
    lengths = [max(1, (int(g.headers.get("PlyCount", "0")) + 1) // 2) for g in games]
    logs = [math.log(n) for n in lengths]
    mu = sum(logs) / len(logs)
    sigma = math.sqrt(sum((x - mu) ** 2 for x in logs) / max(1, len(logs) - 1)) or 1e-3
    fig, ax = plt.subplots(figsize=(10, 5))
    bins = min(50, max(10, len(set(lengths))))
    ax.hist(lengths, bins=bins, density=True, alpha=0.6, label=f"{len(lengths)} games")
    top = max(lengths)
    xs = [0.5 + i * top / 300 for i in range(301)]
    pdf = [math.exp(-(math.log(x) - mu) ** 2 / (2 * sigma ** 2)) / (x * sigma * math.sqrt(2 * math.pi))
           for x in xs]
    mean = math.exp(mu + sigma ** 2 / 2)
    ax.plot(xs, pdf, lw=2, label=f"log-normal fit: mean {mean:.1f} moves, spread {sigma:.2f}")
    ax.set_xlabel("game length (moves)")
    ax.set_ylabel("density")
    ax.set_title("Game lengths and the Look Ahead Gene's log-normal model")
    ax.legend()
    return save(plt, fig, out / "game_lengths.png")


def promotion_counts(games) -> dict[str, Counter]:
    counts = {"White": Counter(), "Black": Counter()}
    for game in games:
        # Move numbers tell whose move it is: "12." is White's, "12..." or the
        # token after White's move is Black's.
        tokens = re.sub(r"\{[^}]*\}", " ", game.movetext).split()
        white = True
        for token in tokens:
            if re.fullmatch(r"\d+\.", token):
                white = True
                continue
            if re.fullmatch(r"\d+\.\.\.", token):
                white = False
                continue
            if token in ("1-0", "0-1", "1/2-1/2", "*"):
                break
            match = PROMOTION.search(token)
            if match:
                counts["White" if white else "Black"][match.group(1)] += 1
            white = not white
    return counts


def plot_promotions(plt, games, out: Path) -> Path:
    counts = promotion_counts(games)
    rows = [[PIECE_NAMES[p], counts["White"][p], counts["Black"][p], counts["White"][p] + counts["Black"][p]]
            for p in "QRBN"]
    fig, ax = plt.subplots(figsize=(6, 2.5))
    ax.axis("off")
    table = ax.table(cellText=rows, colLabels=["promoted to", "by white", "by black", "total"],
                     loc="center", cellLoc="center")
    table.scale(1, 1.6)
    ax.set_title(f"Promotions in {len(games)} games")
    return save(plt, fig, out / "promotions.png")


# ------------------------------------------------------------------ Phoenix runs

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


def plot_tables(plt, genome, out: Path) -> Path:
    """The best chromosome's ten tables as boards."""
    from genchess.genome.pvt import TABLES
    boards = [(f"{piece} {phase_name(phase)}", genome.table(piece, phase)) for piece, phase in TABLES]
    return draw_boards(plt, boards, 5, f"Piece-square tables of chromosome {genome.id} (material "
                       f"{' '.join(map(str, genome.material))}; rook and queen use their "
                       f"middle-game table in the end game)", out / "tables.png")


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


def plot_database(path: Path, out: Path) -> int:
    """genchess-plot on a Phoenix chromosome database."""
    from genchess.genome.run_files import ChromosomeReader
    try:
        db = ChromosomeReader(path)
        history = db.history()
        best = db.chromosome(db.best_id())
        db.close()
        out.mkdir(parents=True, exist_ok=True)
    except GenomeError as e:
        print(f"genchess-plot: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"genchess-plot: cannot write {out}: {e.strerror}", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for written in (plot_tables(plt, best, out), plot_fitness(plt, history, out),
                    plot_niches(plt, history, out)):
        print(f"wrote {written}")
    return 0


EVOLVE_LINE = re.compile(r"generation (\d+): loss (\S+) held-out (\S+) mean (\S+) best-so-far (\S+)")
VALIDATION_LINE = re.compile(r"validation (\d+): .* games (\d+) elo (\S+) low (\S+) high (\S+)")


def read_evolve_records(path: Path):
    """(generation rows [g, loss, held-out, mean, best-so-far], validation rows
    [g, games, elo, low, high]) of an evolve run's records."""
    rows, checks = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := EVOLVE_LINE.match(line):
            rows.append([float(x) for x in match.groups()])
        elif match := VALIDATION_LINE.match(line):
            checks.append([float(x) for x in match.groups()])
    return rows, checks


def plot_evolve_loss(plt, rows, out: Path) -> Path:
    g, loss, held, mean, best = (list(column) for column in zip(*rows))
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.plot(g, mean, color="lightgrey", lw=1, label="population mean")
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


def plot_validation(plt, checks, out: Path) -> Path:
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
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo of the best genome over the start genome")
    ax.set_title(f"Validation games against the start genome ({int(games[0])} a match; "
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


def run_best(path: Path, genomes: list):
    """The genome an evolve run's numbers are drawn from: its best, `<run>_best.genome`
    (the lowest training loss, what `--genome` plays), not the last generation's best,
    which the optimiser may since have left; the last generation's where there is no
    best file (a run copied without it) or it cannot be read (said in one line)."""
    from genchess.genome import load_genome
    best = Path(f"{path}_best.genome")
    if not best.exists():
        return genomes[-1]
    try:
        return load_genome(best)
    except GenomeError as e:
        print(f"genchess-plot: {e}; drawing the last generation's best instead", file=sys.stderr)
        return genomes[-1]


def plot_evolve(path: Path, out: Path) -> int:
    """genchess-plot on an evolve run's records."""
    try:
        rows, checks = read_evolve_records(path)
        genomes_path = Path(f"{path}_genomes.txt")
        genomes = load_genomes(genomes_path) if genomes_path.exists() else []
        out.mkdir(parents=True, exist_ok=True)
    except GenomeError as e:
        print(f"genchess-plot: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"genchess-plot: cannot read {path} or write {out}: {e.strerror}", file=sys.stderr)
        return 2
    if not rows:
        print(f"genchess-plot: {path}: no generation recorded yet", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = [plot_evolve_loss(plt, rows, out)]
    if checks:
        written.append(plot_validation(plt, checks, out))
    if genomes:
        kind = genomes[-1].KIND
        if kind == "material":
            written.append(plot_weights(plt, genomes, out))
        elif kind == "pvt":
            written += [plot_material(plt, genomes, out), plot_tables(plt, run_best(path, genomes), out)]
        elif kind == "unified":
            written += [plot_material(plt, genomes, out), *plot_unified(plt, run_best(path, genomes), out)]
        else:
            written.append(plot_piece_strengths(plt, genomes, out))
    from genchess.train.champion import plot_champion_gain
    champion_plot = plot_champion_gain(plt, path, out)
    if champion_plot is not None:
        written.append(champion_plot)
    for name in written:
        print(f"wrote {name}")
    return 0


def save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="genchess-plot",
        description="Draw PNG plots of what evolved: for a gene-pool file, piece strengths, gene "
                    "priorities and game statistics; for a Phoenix chromosome database, the best "
                    "chromosome's tables as boards, fitness and niches against generation; for an "
                    "evolve run, the training and held-out loss, the validation games' Elo and "
                    "what evolved (weights, tables or piece strengths).")
    parser.add_argument("pool_file", metavar="FILE", help="the gene pool file or chromosome database of a run")
    parser.add_argument("--out", metavar="DIR", help="where to write the PNG files "
                        "(default: POOLFILE_plots beside the pool file)")
    args = parser.parse_args(argv)
    pool = Path(args.pool_file)
    out = Path(args.out) if args.out else Path(str(pool) + "_plots")
    from genchess.genome.run_files import EVOLVE_HEADER, is_sqlite_file
    if is_sqlite_file(pool):
        return plot_database(pool, out)
    try:
        with open(pool, encoding="utf-8", errors="replace") as f:
            if f.readline().startswith(EVOLVE_HEADER):
                return plot_evolve(pool, out)
    except OSError:
        pass                        # reported below, as for any run file
    try:
        pool_file = load_pool_file(pool)
        genomes = genomes_by_id(pool_file)
        games, _ = read_games_file(Path(str(pool) + "_games.txt"))
        out.mkdir(parents=True, exist_ok=True)
    except GenomeError as e:
        print(f"genchess-plot: {e}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"genchess-plot: cannot read {pool}: {getattr(e, 'strerror', e)}", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = [plot_piece_strengths(plt, genomes, out), plot_priorities(plt, genomes, out)]
    from genchess.train.champion import plot_champion_gain
    champion_plot = plot_champion_gain(plt, pool, out)
    if champion_plot is not None:
        written.append(champion_plot)
    if games:
        written += [plot_results(plt, games, out), plot_endings(plt, games, out),
                    plot_lengths(plt, games, out), plot_promotions(plt, games, out)]
        counts = promotion_counts(games)
        print("Promotions: " + ", ".join(
            f"{PIECE_NAMES[p]} {counts['White'][p] + counts['Black'][p]}" for p in "QRBN"))
    else:
        print(f"no games yet in {pool}_games.txt: only the genome plots")
    table = piece_medians_table(pool_file)
    if table:
        print(table)
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
