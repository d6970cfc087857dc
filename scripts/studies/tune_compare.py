"""Two or more tune runs of the same numbers side by side, by games played.

Issue 51's third measurement spends SPSA's game budget on a population (CMA-ES or the
GA) instead, and asks which one moves the numbers and which one gains Elo. The Elo is
the SPRT's to say; this script says the first half. For each run file (method = tune)
it reads every number's path and puts it on one scale, the number's step from its start
(a step moves the engine by about 2-3 Elo, docs/search-genes.md), against games played,
since an SPSA iteration plays one game pair and a population's generation one pair a
genome. It writes:

  OUT.md   a table: each number's start and where each run left it, in its own unit
           and in steps, the largest moves first; then each run's games, iterations and
           distance from the start in steps (the length of the whole move)
  OUT.png  a panel per number: its path in steps against games, a line per run

    python scripts/studies/tune_compare.py tune-search.txt tune-search-cma.txt [--out tune-compare]

The runs must tune the same numbers from the same start; a run still going is read as
far as it has got. Numbers that are not search genes (a genome's own, tuned by name)
have no step in the registry and are shown in their own unit only.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from genchess.drawing import PlotError, panel_grid, pyplot, save
from genchess.genome.search_genes import search_genes
from genchess.genome.run_formats import read_tune_records as read_records


@dataclass
class TuneRun:
    """What a run file says: its optimiser, numbers and path, iteration by iteration."""
    path: Path
    optimiser: str
    names: list[str]
    start: list[float]
    games: list[int]            # games played by the end of each iteration
    thetas: list[list[float]]   # the numbers after each iteration

    @property
    def label(self) -> str:
        return f"{self.optimiser} ({self.path.name})"

    @property
    def end(self) -> list[float]:
        return self.thetas[-1]


def read_run(path: Path) -> TuneRun:
    """A tune run file; SystemExit with one line naming the file when it is not one or
    has no iteration yet."""
    try:
        header, iterations = read_records(path)
    except OSError as e:
        raise SystemExit(f"tune_compare: cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise SystemExit(f"tune_compare: {e}") from None
    if not iterations:
        raise SystemExit(f"tune_compare: {path}: no iteration recorded yet")
    games, played = [], 0
    for record in iterations:
        played += len(record["games"])
        games.append(played)
    return TuneRun(path, header["optimiser"], header["numbers"], [float(s) for s in header["start"]],
                   games, [r["theta"] for r in iterations])


def check_comparable(runs: list[TuneRun]) -> None:
    first = runs[0]
    for run in runs[1:]:
        if run.names != first.names:
            raise SystemExit(f"tune_compare: {run.path} tunes other numbers than {first.path}")
        if run.start != first.start:
            moved = next(n for n, a, b in zip(first.names, first.start, run.start) if a != b)
            raise SystemExit(f"tune_compare: {run.path} starts {moved} elsewhere than {first.path}")


def steps_of(names: list[str]) -> list[float | None]:
    """Each number's step, or None for a number that is not a search gene."""
    genes = search_genes()
    return [float(genes[n].step) if n in genes else None for n in names]


def in_steps(value: float, start: float, step: float | None) -> float | None:
    return None if step is None else (value - start) / step


def distance(run: TuneRun, steps: list[float | None]) -> float:
    """How far a run's numbers ended from the start, in steps (search genes only)."""
    return math.sqrt(sum(((e - s) / step) ** 2 for e, s, step in zip(run.end, run.start, steps)
                         if step is not None))


def table(runs: list[TuneRun]) -> str:
    names, start, steps = runs[0].names, runs[0].start, steps_of(runs[0].names)
    moves = [[in_steps(e, s, step) for e, s, step in zip(run.end, start, steps)] for run in runs]

    def largest(i):
        return max((abs(m[i]) for m in moves if m[i] is not None), default=0.0)

    lines = ["| number | start | " + " | ".join(run.label for run in runs) + " |",
             "|---|---:|" + "---:|" * len(runs)]
    for i in sorted(range(len(names)), key=lambda i: (-largest(i), i)):
        cells = []
        for run, move in zip(runs, moves):
            shown = f"{run.end[i]:.2f}"
            cells.append(shown if move[i] is None else f"{shown} ({move[i]:+.2f})")
        lines.append(f"| `{names[i]}` | {start[i]:g} | " + " | ".join(cells) + " |")
    lines += ["", "| run | optimiser | iterations | games | distance from the start, in steps |",
              "|---|---|---:|---:|---:|"]
    for run in runs:
        lines.append(f"| `{run.path.name}` | {run.optimiser} | {len(run.thetas)} | "
                     f"{run.games[-1]} | {distance(run, steps):.2f} |")
    return ("Each number where each run left it, and in brackets its move in steps "
            "(a step is about 2-3 Elo); the largest moves first.\n\n" + "\n".join(lines) + "\n")


def plot(runs: list[TuneRun], out: Path) -> Path:
    names, start, steps = runs[0].names, runs[0].start, steps_of(runs[0].names)
    plt = pyplot()
    fig, panels = panel_grid(plt, len(names))
    for i, (name, ax) in enumerate(zip(names, panels)):
        for run in runs:
            path = [in_steps(theta[i], start[i], steps[i]) if steps[i] else theta[i] for theta in run.thetas]
            ax.plot([0] + run.games, [0.0 if steps[i] else start[i]] + path, lw=1.1, label=run.optimiser)
        ax.axhline(0 if steps[i] else start[i], color="grey", ls="--", lw=0.8)
        ax.set_title(name + ("" if steps[i] else " (own unit)"), fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    panels[0].legend(fontsize=8)
    fig.suptitle("each number's move from its start, in steps (about 2-3 Elo each), by games played")
    fig.supxlabel("games played")
    return save(plt, fig, out.with_suffix(".png"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="tune run files (method = tune's `run file`)")
    parser.add_argument("--out", type=Path, default=Path("tune-compare"),
                        help="OUT.md and OUT.png (default: tune-compare)")
    args = parser.parse_args(argv)
    runs = [read_run(path) for path in args.runs]
    check_comparable(runs)
    text = table(runs)
    try:
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
        picture = plot(runs, args.out)
    except OSError as e:
        raise SystemExit(f"tune_compare: cannot write {args.out}: {e.strerror}") from None
    except PlotError as e:
        raise SystemExit(f"tune_compare: {e}") from None
    print(text)
    print(f"wrote {args.out.with_suffix('.md')} and {picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
