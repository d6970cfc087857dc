"""Fit the win/draw/loss model UCI_ShowWDL reports (genchess/protocols/wdl.py) to GenChess's games.

    python scripts/maintenance/fit_wdl.py GAMES.pgn[.gz] ... [--nodes 10000] [--per-game 12]
        [--scores SCORES.csv] [--out genchess/data/wdl.json] [--plots docs]

Positions are sampled from every game (`--per-game` of them, from the 8th ply on, drawn
with a seed per game, so a run is the same every time), scored by GenChess with its
default genome at a fixed node count from a cleared hash table (what a GUI's `info
score` says of such a position), and labelled with the game's result from the side to
move's view. Game pairs whose pair number is a multiple of five are held out of the fit
and only used to check it. The scores are kept in SCORES.csv as they are made, so an
interrupted run goes on where it stopped with the same command.

The fit maximises the likelihood of the results under Stockfish's model: a win with
1 / (1 + exp((a(m) - s) / b(m))), a loss with the same at -s, a draw with the rest; a
and b cubic in the material m. It writes the coefficients with their provenance, a
plot of the fit by material, and the held-out check: predicted against observed
chances in bins, with their mean absolute error.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gzip
import json
import math
import random
import sys
from pathlib import Path

import chess.pgn
import numpy as np

from genchess.protocols.wdl import MATERIAL_RANGE, MATERIAL_SCALE, material

HELD_OUT_EVERY = 5          # pairs whose number is a multiple of this are held out
FIRST_PLY = 8               # the opening book's positions are not the games' own
POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
MATE_CP = 100_000           # a mate score, in centipawns for the fit (it is left out)


def _open(path: Path):
    return gzip.open(path, "rt", encoding="utf-8", errors="replace") if path.suffix == ".gz" \
        else open(path, encoding="utf-8", errors="replace")


def sample(paths: list[Path], per_game: int):
    """(fen, outcome for the side to move, material, held out?) of sampled positions."""
    rows = []
    for path in paths:
        with _open(path) as f:
            number = 0
            while (game := chess.pgn.read_game(f)) is not None:
                number += 1
                result = POINTS.get(game.headers.get("Result"))
                if result is None:
                    continue
                try:
                    pair = int(game.headers.get("Round", "").split(".")[0])
                except ValueError:
                    pair = number
                board = game.board()
                fens = []
                for ply, move in enumerate(game.mainline_moves()):
                    board.push(move)
                    if ply + 1 >= FIRST_PLY and not board.is_game_over():
                        fens.append(board.fen())
                rng = random.Random(f"{path.name}:{number}")
                for fen in sorted(rng.sample(fens, min(per_game, len(fens))), key=fens.index):
                    white = fen.split()[1] == "w"
                    rows.append((fen, result if white else 1.0 - result, material(fen),
                                 pair % HELD_OUT_EVERY == 0))
    return rows


def score_positions(rows, nodes: int, scores_path: Path) -> list[float]:
    """GenChess's score (centipawns, side to move) of every row, from SCORES.csv as far
    as it goes and by search for the rest (appended as they come)."""
    from tqdm import tqdm
    from genchess.engine import Engine
    from genchess.timeman import Limits

    done = []
    if scores_path.exists():
        with open(scores_path, newline="") as f:
            for record in csv.reader(f):
                if len(record) == 2:            # a torn last line is scored again
                    done.append((record[0], float(record[1])))
    for (fen, *_), (kept, _) in zip(rows, done):
        if fen != kept:
            sys.exit(f"fit_wdl: {scores_path} was made from other games or settings "
                     f"(row {fen!r} against {kept!r}); remove it or name another --scores")
    scores = [s for _, s in done[:len(rows)]]
    engine = Engine()
    with open(scores_path, "a", newline="") as f, \
            tqdm(total=len(rows), initial=len(scores), unit="position", file=sys.stderr) as bar:
        writer = csv.writer(f)
        for fen, *_ in rows[len(scores):]:
            engine.new_game()
            engine.set_position(fen, [])
            score = engine.search(Limits(nodes=nodes)).score
            cp = score.cp if score.mate is None else math.copysign(MATE_CP, score.mate)
            writer.writerow([fen, cp])
            f.flush()
            scores.append(float(cp))
            bar.update()
    return scores


def win_chances(params, score, m):
    a = np.polyval(params[:4], m)
    b = np.polyval(params[4:], m)
    return 1.0 / (1.0 + np.exp(np.clip((a - score) / b, -500, 500)))


def chances(params, score, mat):
    m = np.clip(mat, *MATERIAL_RANGE) / MATERIAL_SCALE
    win, loss = win_chances(params, score, m), win_chances(params, -score, m)
    return win, np.clip(1.0 - win - loss, 0.0, 1.0), loss


def negative_log_likelihood(params, score, mat, outcome):
    win, draw, loss = chances(params, score, mat)
    p = np.where(outcome == 1.0, win, np.where(outcome == 0.0, loss, draw))
    return -np.mean(np.log(np.clip(p, 1e-9, 1.0)))


def fit(score, mat, outcome):
    from scipy.optimize import minimize
    start = np.array([0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 0.0, 80.0])
    best = minimize(negative_log_likelihood, start, args=(score, mat, outcome), method="Nelder-Mead",
                    options={"maxiter": 40_000, "maxfev": 40_000, "xatol": 1e-4, "fatol": 1e-9})
    best = minimize(negative_log_likelihood, best.x, args=(score, mat, outcome), method="BFGS")
    return best.x, best.fun


def calibration(params, score, mat, outcome, bins=10):
    """Per result (win, draw, loss): [(mean predicted, observed share, count)] by bins of
    the predicted chance, and the count-weighted mean absolute error over all bins."""
    predicted = chances(params, score, mat)
    table, errors, weights = {}, [], []
    for name, p, happened in zip(("win", "draw", "loss"), predicted,
                                 (outcome == 1.0, outcome == 0.5, outcome == 0.0)):
        edges = np.linspace(0, 1, bins + 1)
        which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
        rows = []
        for k in range(bins):
            inside = which == k
            if inside.sum() == 0:
                continue
            rows.append((float(p[inside].mean()), float(happened[inside].mean()), int(inside.sum())))
            errors.append(abs(rows[-1][0] - rows[-1][1]))
            weights.append(rows[-1][2])
        table[name] = rows
    return table, float(np.average(errors, weights=weights))


def plot_fit(params, score, mat, outcome, path: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = [(17, 30), (31, 45), (46, 62), (63, 78)]
    fig, axes = plt.subplots(1, len(groups), figsize=(16, 4.2), sharey=True)
    grid = np.linspace(-600, 600, 241)
    for ax, (low, high) in zip(axes, groups):
        inside = (mat >= low) & (mat <= high) & (np.abs(score) < 1000)
        centre = float(np.mean(mat[inside])) if inside.any() else (low + high) / 2
        edges = np.arange(-600, 625, 50)
        mids, shares = [], {"win": [], "draw": [], "loss": []}
        for lo, hi in zip(edges[:-1], edges[1:]):
            cell = inside & (score >= lo) & (score < hi)
            if cell.sum() < 20:
                continue
            mids.append((lo + hi) / 2)
            for name, value in (("win", 1.0), ("draw", 0.5), ("loss", 0.0)):
                shares[name].append(float(np.mean(outcome[cell] == value)))
        model = chances(params, grid, np.full_like(grid, centre))
        for (name, colour), curve in zip((("win", "tab:green"), ("draw", "tab:gray"), ("loss", "tab:red")),
                                         model):
            ax.plot(grid, curve, color=colour, label=f"{name} (model)")
            ax.scatter(mids, shares[name], color=colour, s=14, alpha=0.7)
        ax.set_title(f"material {low}-{high} ({int(inside.sum())} positions)")
        ax.set_xlabel("GenChess score, centipawns (side to move)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of games")
    axes[0].legend(loc="center left", fontsize=8)
    fig.suptitle("Win, draw and loss by score and material: the fitted model (lines) "
                 "and the training games (dots, 50 cp bins)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_calibration(table, error, count, path: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--", label="perfect")
    for name, colour in (("win", "tab:green"), ("draw", "tab:gray"), ("loss", "tab:red")):
        rows = table[name]
        ax.plot([r[0] for r in rows], [r[1] for r in rows], marker="o", color=colour, label=name)
    ax.set_xlabel("predicted chance")
    ax.set_ylabel("observed share in held-out games")
    ax.set_title(f"WDL calibration on {count} held-out positions\n"
                 f"mean absolute error {100 * error:.1f} percentage points")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def default_genome_name() -> str:
    """The file name of the genome the scores come from (the engine's default)."""
    from genchess.genome.genome_file import DEFAULT_GENOME_PATH
    return DEFAULT_GENOME_PATH.name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=Path, help="games (PGN, plain or gzipped)")
    parser.add_argument("--nodes", type=int, default=10_000, help="nodes per scored position")
    parser.add_argument("--per-game", type=int, default=12, help="positions sampled per game")
    parser.add_argument("--scores", type=Path, default=Path("wdl-scores.csv"),
                        help="where the scores are kept (resumes from it)")
    parser.add_argument("--out", type=Path, default=Path("genchess/data/wdl.json"))
    parser.add_argument("--plots", type=Path, default=Path("docs"), help="folder for the PNGs")
    args = parser.parse_args(argv)
    for path in args.pgn:
        if not path.is_file():
            parser.error(f"no such file: {path}")
    rows = sample(args.pgn, args.per_game)
    if not rows:
        parser.error("no finished games in the PGN files")
    scores = np.array(score_positions(rows, args.nodes, args.scores))
    mat = np.array([r[2] for r in rows], dtype=float)
    outcome = np.array([r[1] for r in rows])
    held = np.array([r[3] for r in rows])
    usable = np.abs(scores) < MATE_CP                 # mate scores are certain: not fitted
    train, test = usable & ~held, usable & held
    params, loss = fit(scores[train], mat[train], outcome[train])
    table, error = calibration(params, scores[test], mat[test], outcome[test])
    held_loss = negative_log_likelihood(params, scores[test], mat[test], outcome[test])
    args.plots.mkdir(parents=True, exist_ok=True)
    plot_fit(params, scores[train], mat[train], outcome[train], args.plots / "wdl-fit.png")
    plot_calibration(table, error, int(test.sum()), args.plots / "wdl-calibration.png")
    model = {
        "a": [round(float(x), 6) for x in params[:4]],
        "b": [round(float(x), 6) for x in params[4:]],
        "games": [str(p) for p in args.pgn],
        "genome": f"{default_genome_name()} (the default), scoring from a cleared hash table",
        "date": datetime.date.today().isoformat(),
        "positions": {"train": int(train.sum()), "held_out": int(test.sum())},
        "nodes": args.nodes,
        "per_game": args.per_game,
        "log_loss": {"train": round(float(loss), 5), "held_out": round(float(held_loss), 5)},
        "held_out_mean_absolute_error": round(error, 5),
        "command": "python scripts/maintenance/fit_wdl.py " + " ".join(str(p) for p in args.pgn)
                   + f" --nodes {args.nodes} --per-game {args.per_game}",
    }
    args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(f"{train.sum()} positions fitted, {test.sum()} held out; log loss {loss:.4f} "
          f"(held out {held_loss:.4f}); held-out calibration error {100 * error:.2f} points")
    print("a:", model["a"])
    print("b:", model["b"])
    for name, rows_ in table.items():
        print(f"{name:5}: " + "  ".join(f"{p:.2f}->{o:.2f} ({n})" for p, o, n in rows_))
    return 0


if __name__ == "__main__":
    sys.exit(main())
