"""The strength of a Phoenix run along the way: the best chromosome of every Nth
generation plays a match against a reference genome (the textbook tables).

    python scripts/studies/phoenix_checkpoints.py phoenix.db --every 100 \\
        --against genchess/genomes/pvt-textbook.genome --games 40 --tc 10+0.1 --out checkpoints

For each generation g that is a multiple of --every (0 is the random start) and the
last complete one, the best chromosome of generation g (the run's `generations` table)
plays `genchess match` with game pairs; the games go to OUT-gen<g>.pgn, and a match already there is resumed,
so the script can be stopped and run again. Writes OUT.md (a table) and OUT.png (Elo
against generation with 95% intervals; a match lost or won in every game at its
one-sided bound). Run it while the evolution is stopped or on a quiet machine: the
matches are timed.

    python scripts/studies/phoenix_checkpoints.py phoenix.db --every 200 --loss [--limit 3000]

`--loss` plays no games: it scores the same checkpoints by the mentor loss on the held-out
positions of the labelled set (as scripts/studies/eval_headroom.py does; lower is better)
and prints a markdown table. For a run inside a host genome it scores the host beside them
three ways: with its own tables, with no tables, and with --against's tables (a PVT genome),
so that a run's tables can be set against the evaluation they replaced.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def checkpoints(database: Path, every: int) -> list[tuple[int, int]]:
    """(generation, best chromosome) for every `every`th complete generation and the last."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT generation, best FROM generations ORDER BY generation").fetchall()
    except sqlite3.Error as e:
        raise SystemExit(f"{database}: not a Phoenix chromosome database ({e})") from None
    if not rows:
        raise SystemExit(f"{database}: no complete generation yet")
    chosen = [(g, best) for g, best in rows if g % every == 0]
    if not chosen or chosen[-1][0] != rows[-1][0]:
        chosen.append(rows[-1])
    return chosen


def play(database: Path, generation: int, chromosome: int, against: str, args) -> dict:
    pgn = Path(f"{args.out}-gen{generation}.pgn")
    command = [sys.executable, "-m", "genchess", "match",
               f"genchess:{database}:{chromosome} name=Phoenix-gen{generation}",
               f"genchess:{against} name=Reference", "--games", str(args.games),
               "--tc", args.tc, "--pgn", str(pgn), "--json"]
    if args.concurrency:
        command += ["--concurrency", str(args.concurrency)]
    if pgn.exists():
        command.append("--resume")
    print(f"generation {generation}: chromosome {chromosome} against {against}", flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the match of generation {generation} stopped (exit {done.returncode})")
    return json.loads(done.stdout)


def mentor_losses(database: Path, chosen: list[tuple[int, int]], against: str, positions_path: str,
                  limit: int) -> list[tuple[str, float]]:
    """(what, mentor loss) for the references (a hosted run) and each checkpoint's best."""
    import numpy as np
    from eval_headroom import scored_positions        # this folder's study of the same loss
    from genchess.fitness.loss import squared_error
    from genchess.genome import GenomeError, PvtGenome, load_genome
    from genchess.genome.pvt import N_VALUES
    from genchess.genome.run_files import ChromosomeReader
    from genchess.position_sets.position_set import PositionSetError
    try:
        held_out, target, labels = scored_positions(positions_path, limit)
        reader = ChromosomeReader(database)
        host = reader.host()
        reference = load_genome(against)
    except (GenomeError, PositionSetError, OSError) as e:
        raise SystemExit(f"phoenix_checkpoints: {e}") from None

    def loss(genome) -> float:
        cp = held_out.evaluate_cp(genome)
        known = np.isfinite(cp)
        return float(squared_error(target[known], cp[known], labels.k_mentor))

    rows = []
    if host is not None:
        rows.append(("the host genome, its own tables", loss(host)))
        rows.append(("the host genome, no tables", loss(host.hosting(PvtGenome(0, [0] * N_VALUES)))))
        if reference.KIND == "pvt":
            rows.append((f"the host genome, {Path(against).name}'s tables", loss(host.hosting(reference))))
    for generation, chromosome in chosen:
        rows.append((f"generation {generation}'s best (chromosome {chromosome})",
                     loss(reader.player(chromosome))))
    reader.close()
    return rows


def shown_elo(result: dict) -> tuple[float, float, float, bool]:
    """(Elo, low, high, bounded): the pentanomial estimate where there are pairs; for
    a match won or lost in every game, its one-sided bound (bounded = True)."""
    from genchess.strength.stats import perfect_score_bound
    games, score = result["games"], result["score"]
    if score in (0.0, 1.0):
        bound = perfect_score_bound(games) * (1 if score == 1.0 else -1)
        return bound, bound, bound, True
    prefix = "penta_elo" if result["pairs"] else "elo"
    return result[prefix], result[f"{prefix}_low"], result[f"{prefix}_high"], False


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path, help="a Phoenix run's chromosome database")
    parser.add_argument("--every", type=int, default=100, help="generations between matches")
    parser.add_argument("--against", default="genchess/genomes/pvt-textbook.genome")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--out", default="checkpoints", help="OUT.md, OUT.png, OUT-gen<g>.pgn")
    parser.add_argument("--loss", action="store_true", help="score the checkpoints by the mentor "
                        "loss on held-out positions instead of games")
    parser.add_argument("--positions", default=str(REPO / "genchess" / "data" / "positions.epd.gz"),
                        help="the labelled set for --loss")
    parser.add_argument("--limit", type=int, default=3000, help="held-out positions for --loss (0: all)")
    args = parser.parse_args(argv)
    if args.every < 1 or args.games < 2:
        parser.error("--every must be at least 1 and --games at least 2")
    if args.loss:
        rows = mentor_losses(args.database, checkpoints(args.database, args.every), args.against,
                             args.positions, args.limit)
        print(f"| {args.database} | mentor loss |\n|---|---:|")
        for what, value in rows:
            print(f"| {what} | {value:.4f} |")
        return 0

    rows = []
    for generation, chromosome in checkpoints(args.database, args.every):
        result = play(args.database, generation, chromosome, args.against, args)
        rows.append((generation, chromosome, result, *shown_elo(result)))

    lines = [f"# {args.database}: the best chromosome against {args.against}", "",
             f"{args.games} games a match at {args.tc}, game pairs.", "",
             "| generation | chromosome | W-D-L | Elo (95%) |", "|---:|---:|---|---|"]
    for generation, chromosome, r, elo, low, high, bounded in rows:
        if bounded:
            shown = f"{'at least' if elo > 0 else 'at most'} {elo:+.0f} (one-sided)"
        elif math.isfinite(low) and math.isfinite(high):
            shown = f"{elo:+.0f} ({low:+.0f} to {high:+.0f})"
        else:
            shown = f"{elo:+.0f}"
        lines.append(f"| {generation} | {chromosome} | {r['wins']}-{r['draws']}-{r['losses']} | {shown} |")
    Path(f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5))
    for generation, _, _, elo, low, high, bounded in rows:
        if bounded:
            ax.plot([generation], [elo], "^" if elo > 0 else "v", color="C0", ms=9)
        else:
            low = low if math.isfinite(low) else elo - 400
            high = high if math.isfinite(high) else elo + 400
            ax.errorbar([generation], [elo], yerr=[[elo - low], [high - elo]], fmt="o",
                        color="C0", capsize=4)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("generation")
    ax.set_ylabel(f"Elo against {Path(args.against).name}")
    ax.set_title(f"The best chromosome along the run ({args.games} games at {args.tc}; "
                 "triangles: one-sided bound)")
    fig.tight_layout()
    fig.savefig(f"{args.out}.png", dpi=100)
    print(f"wrote {args.out}.md and {args.out}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
