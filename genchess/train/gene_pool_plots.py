"""The plots of a gene pool run (and of a Kendall-Whitwell population file, which has
the same form): what evolved and how the games went.

Reads the pool file and its games file (the torn tail of a running or killed run
is skipped, never touched) and writes PNG files: piece strengths and gene
priorities against genome ID, who won over the run, how games ended (log-log),
game lengths with the Look Ahead Gene's log-normal model fitted, promotions and
the champion's gain; and prints the living genomes' median piece values, pool by
pool, as a markdown table. The gene pool's registry entry names `plot_run`.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from pathlib import Path

from genchess.drawing import (PIECE_NAMES, PlotError, plot_piece_strengths, pyplot, rolling,
                              save)
from genchess.genome import GenomeError, StillAlive
from genchess.train.champion import plot_champion_gain
from genchess.train.records import genomes_by_id, read_complete_genomes, read_games_file

PROMOTION = re.compile(r"=([QRBN])")


def living_piece_medians(pool_file) -> list[tuple[str, int, list[float]]]:
    """The living genomes' median knight, bishop, rook and queen values with the pawn
    as 1, pool by pool and then over all pools: [(pool, genomes counted, [N, B, R, Q])].
    Living means named on a pool's last Still Alive line. A genome whose pawn is worth
    nothing or less has no such ratio and is left out of the count."""
    return _piece_medians({g.id: g for g in pool_file.genomes}, pool_file.alive)


def _piece_medians(by_id, alive: dict[int, tuple[int, ...]]) -> list[tuple[str, int, list[float]]]:
    rows, everyone = [], []
    for pool, ids in sorted(alive.items()):
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


def alive_snapshots(pool_file) -> list[dict[int, tuple[int, ...]]]:
    """Who was alive after each round (a gene pool's, from the start's; a
    Kendall-Whitwell file's generations, likewise): {pool: IDs} per snapshot. The
    trainers write a snapshot's Still Alive lines together, so consecutive lines are
    one snapshot."""
    snapshots, current = [], None
    for record in pool_file.records:
        if isinstance(record, StillAlive):
            if current is None:
                current = {}
                snapshots.append(current)
            current[record.pool] = record.ids
        else:
            current = None
    return snapshots


def rounds_over_time(pool: Path) -> dict:
    """A gene pool file over its rounds, for a live view: per snapshot (round 0 the
    start) the games played by its end and each pool's (and all pools') living
    median knight, bishop, rook and queen (pawn = 1); and the games played so far."""
    pool_file, games = _read_pool_and_games(pool)
    by_id = {g.id: g for g in pool_file.genomes}
    played = Counter(game.get_int("Round") or 0 for game in games)
    rows, total = [], 0
    for number, alive in enumerate(alive_snapshots(pool_file)):
        total += played.get(number, 0)
        rows.append({"round": number, "games": total,
                     "medians": {name: medians for name, _, medians in _piece_medians(by_id, alive)}})
    return {"rounds": rows, "games": len(games), "genomes": len(by_id)}


def generations_over_time(population: Path) -> dict:
    """A Kendall-Whitwell population file over its generations, for a live view: per
    generation (0 the start) the games played by its end and the population's mean of
    each tuned material weight with the mean pawn as 1, as the trainer prints it (None
    once the mean pawn is not positive); and the games played so far."""
    import numpy as np
    from genchess.genome import MaterialGenome
    from genchess.genome.material import WEIGHT_NAMES
    from genchess.train.kendall import average_weights, scaled_to_pawn
    pool_file, games = _read_pool_and_games(population)
    by_id = {g.id: g for g in pool_file.genomes}
    played = Counter(game.get_int("Generation") or 0 for game in games)
    rows, total = [], 0
    for number, alive in enumerate(alive_snapshots(pool_file)):
        mean = average_weights(np.array([by_id[i].weights for ids in alive.values() for i in ids]))
        scaled = scaled_to_pawn(mean, mean[0]) / 100
        total += played.get(number, 0)
        rows.append({"generation": number, "games": total,
                     "mean": [None if np.isnan(scaled[i]) else float(scaled[i]) for i in MaterialGenome.TUNED]})
    return {"names": [WEIGHT_NAMES[i] for i in MaterialGenome.TUNED], "generations": rows,
            "games": len(games)}


def _read_pool_and_games(pool: Path):
    """The pool (or population) file and its games, as plot_run reads them."""
    try:
        return read_complete_genomes(pool), read_games_file(Path(str(pool) + "_games.txt"))[0]
    except GenomeError as e:
        raise PlotError(str(e)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise PlotError(f"cannot read {pool}: {getattr(e, 'strerror', e)}") from None


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


def plot_run(pool: Path, out: Path, warn=None) -> list[Path]:
    """Every plot of a gene pool (or population) file; PlotError when it cannot be read."""
    pool_file, games = _read_pool_and_games(pool)
    genomes = genomes_by_id(pool_file)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PlotError(f"cannot write {out}: {e.strerror}") from None
    plt = pyplot()
    written = [plot_piece_strengths(plt, genomes, out), plot_priorities(plt, genomes, out)]
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
    return written
