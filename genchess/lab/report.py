"""A finished job's report: one page to share, as fishtest's and OpenBench's tests
are shared: jobs/N/report.html, and the same as report.md for a repository, with
its figures (PNG, drawn with matplotlib as every GenChess plot is), the command,
the commit it ran on and the links to its files (the PGN of a match).

Written by the worker when a job is done, and by `genchess lab report ID`.
"""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

from genchess.lab import kinds

PIECES = ("knight", "bishop", "rook", "queen")     # a gene pool's medians, in this order


def write_report(queue, job) -> tuple[Path, Path]:
    """(report.html, report.md) of the job, written into its folder."""
    job_dir = queue.job_dir(job.id)
    job_dir.mkdir(parents=True, exist_ok=True)
    progress = kinds.progress(job, job_dir)
    figures = draw_figures(job, progress, job_dir)
    facts = _facts(job, progress)
    title = f"Job {job.id}: {job.kind}" + (f", {' vs '.join(progress['names'])}"
                                          if progress.get("names") else "")
    links = [(name, name) for name in ("gauntlet.md", "output.log") if (job_dir / name).exists()]
    pgn = kinds.games_file(job, job_dir)
    if job.kind in ("match", "gauntlet") and pgn.exists():
        # The PGN by its path from the report, wherever the job's --pgn put it.
        links.insert(0, (Path(os.path.relpath(pgn, job_dir)).as_posix(), progress.get("pgn", "games.pgn")))

    md = [f"# {title}", "", f"    {kinds.describe(job)}", ""]
    md += ["| | |", "|---|---|"] + [f"| {key} | {value} |" for key, value in facts]
    md += [""] + [f"![{alt}]({name})" for name, alt in figures]
    if progress.get("pentanomial"):
        md += ["", "Pentanomial (pairs scoring 0, 1/2, 1, 3/2, 2): "
               + " ".join(str(n) for n in progress["pentanomial"])]
    if progress.get("table"):
        md += ["", progress["table"]]
    md += ["", "Files: " + ", ".join(f"[{label}]({name})" for name, label in links)]
    markdown = job_dir / "report.md"
    markdown.write_text("\n".join(md) + "\n", encoding="utf-8")

    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                   for k, v in facts)
    images = "".join(f'<figure><img src="{html.escape(name)}" alt="{html.escape(alt)}">'
                     f"<figcaption>{html.escape(alt)}</figcaption></figure>" for name, alt in figures)
    extra = ""
    if progress.get("pentanomial"):
        extra += ("<p>Pentanomial (pairs scoring 0, &frac12;, 1, 1&frac12;, 2): "
                  + " ".join(str(n) for n in progress["pentanomial"]) + "</p>")
    if progress.get("table"):
        extra += f"<pre>{html.escape(progress['table'])}</pre>"
    files = " &middot; ".join(f'<a href="{html.escape(name)}">{html.escape(label)}</a>'
                              for name, label in links)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}}
th{{text-align:left;padding-right:1em}}img{{max-width:100%}}code{{background:#eee;padding:.2em}}</style>
</head><body><h1>{html.escape(title)}</h1>
<p><code>{html.escape(kinds.describe(job))}</code></p>
<table>{rows}</table>{extra}{images}<p>Files: {files}</p></body></html>
"""
    page_path = job_dir / "report.html"
    page_path.write_text(page, encoding="utf-8")
    return page_path, markdown


def _facts(job, progress: dict) -> list[tuple[str, str]]:
    facts = [("state", job.state), ("commit", job.commit_id or "unknown"),
             ("queued", _when(job.created)), ("started", _when(job.started)),
             ("finished", _when(job.finished)), ("running time", _duration(job.used)),
             ("attempts", str(job.attempts))]
    if job.kind == "match":
        elo = progress["elo"]
        facts += [("games", f"{progress['games']} of at most {progress['total']}"),
                  ("result", f"+{progress['wins']} ={progress['draws']} -{progress['losses']}"),
                  ("Elo", _elo_text(elo)), ("time control", progress["tc"])]
        if progress["sprt"]:
            s = progress["sprt"]
            facts += [("SPRT", f"[{s['elo0']:g}, {s['elo1']:g}] {s['model']}, LLR {s['llr']:+.2f} "
                               f"({s['lower']:+.2f}, {s['upper']:+.2f}): "
                               f"{'no decision' if s['status'] == 'continue' else s['status']}")]
    elif job.kind == "datagen":
        facts += [("positions", f"{progress['positions']:,}"), ("chunks", str(len(progress["chunks"]))),
                  ("folder", progress["folder"])]
    elif job.kind == "positions":
        facts += [("positions", f"{progress['positions']:,}"), ("games", str(progress["games"])),
                  ("set", progress["output"])]
    elif job.kind == "train":
        facts += [("method", progress["method"]), ("run file", progress["run_file"])]
        facts += _train_facts(progress)
    elif job.kind == "bench":
        facts += [("nodes searched", str(progress.get("nodes")))]
    return facts


def progress_line(job, progress: dict) -> str:
    """Where a job stands, in one line for `genchess lab status`: a match's games, score,
    Elo and SPRT; a data run's positions; a training's last epoch or generation; ''
    when its files say nothing yet (or cannot be read)."""
    if not progress or "error" in progress:
        return ""
    if job.kind == "match":
        if not progress["games"]:
            return ""
        line = (f"{progress['games']} of {progress['total']} games, +{progress['wins']} "
                f"={progress['draws']} -{progress['losses']}, Elo {_elo_text(progress['elo'])}")
        s = progress["sprt"]
        if s:
            line += (f", LLR {s['llr']:+.2f} ({s['lower']:+.2f}, {s['upper']:+.2f})"
                     + ("" if s["status"] == "continue" else f": {s['status']}"))
        return line
    if job.kind == "gauntlet":
        rows = progress["opponents"]
        return f"{sum(r['games'] for r in rows)} games against {len(rows)} opponents" if rows else ""
    if job.kind == "datagen":
        line = f"{progress['positions']:,} positions in {len(progress['chunks'])} chunks"
        current = progress["current"]
        if current:
            line += f", chunk {current['chunk']} at {current['positions']:,} ({current['per_hour']:,.0f} an hour)"
        return line
    if job.kind == "positions":
        return f"{progress['positions']:,} positions from {progress['games']} games" if progress["games"] else ""
    if job.kind == "train":
        if progress.get("losses"):
            last = progress["losses"][-1]
            held = "" if last["held_out"] is None else f", held-out {last['held_out']:.6f}"
            return f"epoch {last['step']:g}, loss {last['loss']:.6f}{held}"
        if progress.get("parameters", {}).get("iterations"):
            return f"iteration {progress['parameters']['iterations'][-1]['iteration']}"
        facts = [(name, value) for name, value in _train_facts(progress) if name != "champion SPRTs"]
        return ", ".join(f"{name} {value}" for name, value in facts[:2])
    if job.kind == "bench" and progress.get("nodes") is not None:
        return f"{progress['nodes']:,} nodes"
    return ""


def _train_facts(progress: dict) -> list[tuple[str, str]]:
    """A game-based training's last state, and its champion's promotions."""
    facts = []
    pools, population, generations = (progress.get(k) for k in ("pools", "population", "generations"))
    if pools and pools["rounds"]:
        last = pools["rounds"][-1]
        facts += [("rounds", str(last["round"])), ("games", str(pools["games"])),
                  ("genomes", str(pools["genomes"]))]
        facts += [(f"living medians, {'all pools' if pool == 'all' else 'pool ' + pool} (pawn = 1)",
                   ", ".join(f"{piece} {m:.2f}" for piece, m in zip(PIECES, medians)) or "-")
                  for pool, medians in last["medians"].items()]
    elif population and population["generations"]:
        last = population["generations"][-1]
        facts += [("generations", str(last["generation"])), ("games", str(population["games"])),
                  ("mean weights (pawn = 1)", ", ".join(f"{name} {'-' if w is None else f'{w:.2f}'}"
                                                        for name, w in zip(population["names"], last["mean"])))]
    elif generations:
        last = generations[-1]
        facts += [("generations", str(last["generation"])),
                  ("best fitness", f"{last['best_fitness']:.3f} (chromosome {last['best']})"),
                  ("mean fitness", f"{last['mean_fitness']:.3f}"), ("niches", str(last["niches"])),
                  ("games", str(sum(g["games"] for g in generations)))]
    promotions = (progress.get("champion") or {}).get("promotions")
    if promotions is not None:
        facts.append(("champion SPRTs", "; ".join(
            f"promotion {c['promotion']}: genome {c['genome']} at game {c['games']}, "
            f"{_elo_text(c)}" for c in promotions) or "no promotion"))
    return facts


def _elo_text(elo: dict) -> str:
    if elo["elo"] is None:
        return "none yet"
    interval = f" [{elo['low']:+.1f}, {elo['high']:+.1f}]" if elo["low"] is not None and \
        elo["high"] is not None else ""
    return f"{elo['elo']:+.1f}{interval} (95%)"


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def _when(value) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(value)) if value else "-"


def draw_figures(job, progress: dict, job_dir: Path) -> list[tuple[str, str]]:
    """The job's figures as PNG files in its folder: [(file name, caption)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figures = []

    def save(fig, name, caption):
        fig.tight_layout()
        fig.savefig(job_dir / name, dpi=90)
        plt.close(fig)
        figures.append((name, caption))

    def line(rows, x, columns, ylabel, name, caption):
        """One line a column of `rows` (dicts) against their `x`."""
        fig, ax = plt.subplots(figsize=(8, 4))
        for column, label in columns:
            ax.plot([r[x] for r in rows], [r[column] for r in rows], marker=".", label=label)
        ax.set_xlabel(x)
        ax.set_ylabel(ylabel)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize=8)
        save(fig, name, caption)

    series = progress.get("series") or []
    if job.kind == "match" and series:
        games = [p["games"] for p in series]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot(games, [p["elo"] if p["elo"] is not None else float("nan") for p in series], label="Elo")
        ax.fill_between(games, [p["low"] if p["low"] is not None else float("nan") for p in series],
                        [p["high"] if p["high"] is not None else float("nan") for p in series],
                        alpha=0.25, label="95% interval")
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xlabel("games")
        ax.set_ylabel("Elo")
        ax.legend()
        save(fig, "elo.png", "Elo with its 95% interval over the games")
        if progress.get("sprt"):
            s = progress["sprt"]
            fig, ax = plt.subplots(figsize=(8, 4))
            ax.plot(games, [p["llr"] for p in series], label="LLR")
            ax.axhline(s["upper"], color="green", ls="--", label="H1")
            ax.axhline(s["lower"], color="red", ls="--", label="H0")
            ax.set_xlabel("games")
            ax.set_ylabel("log-likelihood ratio")
            ax.legend()
            save(fig, "llr.png", "the SPRT's LLR over the games")
    elif job.kind == "train" and progress.get("pools", {}).get("rounds"):
        rounds = progress["pools"]["rounds"]
        fig, ax = plt.subplots(figsize=(8, 4))
        pools = list(rounds[-1]["medians"])
        several = len(pools) > 1
        for j, pool in enumerate(pools):          # as the page draws them: each pool thin and dashed
            shown = [r for r in rounds if r["medians"].get(pool)]
            own = several and pool != "all"
            for k, piece in enumerate(PIECES):
                ax.plot([r["round"] for r in shown], [r["medians"][pool][k] for r in shown], color=f"C{k}",
                        ls=(0, (2 + 3 * j, 3)) if own else "-", lw=0.8 if own else 2.5,
                        label=None if own else piece)
        ax.set_xlabel("round")
        ax.set_ylabel("median value (pawn = 1)" + ("; dashed: each pool" if several else ""))
        ax.legend(fontsize=8)
        save(fig, "piece_medians.png", "the living genomes' median piece values, round by round")
        line(rounds, "round", [("games", "games played")], "games", "games.png",
             "games played, round by round")
    elif job.kind == "train" and progress.get("population", {}).get("generations"):
        population = progress["population"]
        rows = [{"generation": g["generation"], **dict(zip(population["names"], g["mean"]))}
                for g in population["generations"]]
        line(rows, "generation", [(name, name) for name in population["names"]],
             "population's mean weight (pawn = 1)", "weights.png",
             "the population's mean material weights, generation by generation")
        line(population["generations"], "generation", [("games", "games played")], "games", "games.png",
             "games played, generation by generation")
    elif job.kind == "train" and progress.get("generations"):
        rows = progress["generations"]
        line(rows, "generation", [("best_fitness", "best"), ("mean_fitness", "mean")],
             "fitness (points per round-robin game)", "fitness.png",
             "the best and mean fitness, generation by generation")
        line(rows, "generation", [("niches", "niches")], "niches", "niches.png",
             "the niches, generation by generation")
    elif job.kind == "train" and progress.get("losses"):
        rows = progress["losses"]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot([r["step"] for r in rows], [r["loss"] for r in rows], label="training")
        ax.plot([r["step"] for r in rows], [r["held_out"] for r in rows], label="held-out")
        ax.set_xlabel("generation or epoch")
        ax.set_ylabel("loss")
        ax.legend()
        save(fig, "loss.png", "the training's losses")
    elif job.kind == "train" and progress.get("parameters", {}).get("iterations"):
        p = progress["parameters"]
        fig, ax = plt.subplots(figsize=(8, 4))
        its = [r["iteration"] for r in p["iterations"]]
        for i, name in enumerate(p["names"][:12]):
            start = p["start"][i] or 1      # each number as a share of its start: one axis for all
            ax.plot(its, [r["theta"][i] / start for r in p["iterations"]], label=name)
        ax.set_xlabel("iteration")
        ax.set_ylabel("value / its start")
        ax.legend(fontsize=7, ncol=2)
        save(fig, "parameters.png", "the tuned parameters over the iterations")
    elif job.kind == "datagen" and progress.get("chunks"):
        rows = progress["chunks"]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar(range(1, len(rows) + 1), [r["per_hour"] for r in rows])
        ax.set_xlabel("chunk")
        ax.set_ylabel("positions an hour")
        save(fig, "speed.png", "positions an hour, chunk by chunk")
    if job.kind == "train" and (progress.get("champion") or {}).get("gain"):
        # The champion's figure as `genchess plot` draws it, from the same file.
        from genchess.train.champion import plot_champion_gain
        plot_champion_gain(plt, Path(progress["run_file"]), job_dir)
        figures.append(("champion.png", "the champion's Elo gain, promotion by promotion (its SPRTs)"))
    if job.kind == "gauntlet" and (job_dir / "gauntlet.png").exists():
        figures.append(("gauntlet.png", "the gauntlet: the engine's rating against each opponent"))
    return figures
