"""How far chance alone moves a tune's numbers: each run replayed with games that say nothing.

A tune's numbers move whether or not its games prefer anything: SPSA's theta takes a
random walk, a population's centre follows whichever genomes happened to win. So a move
means something only beside the move the same optimiser makes when every game is a coin
toss. For each configuration given (method = tune) this script reads the run file it
names, as far as the run has got, then replays the run's optimiser with the run's
settings REPEATS times from other seeds, for as many iterations as the run has played,
drawing every game's result from the run's own games (White's wins, draws and losses as
often as there) whatever the numbers are. It writes:

  OUT.md   per number: the run's move in steps, chance's typical move (the root mean
           square over the replays), the ratio, and the share of replays that moved it
           as far; per run: its distance from the start beside chance's (median and the
           middle 90%), the share of replays that went as far, and for a population its
           spread beside chance's
  OUT.png  per run: chance's distances with the run's marked, and each number's move
           over chance's typical move

    python scripts/studies/tune_null.py tune-search.cfg tune-search-cma.cfg [--repeats 100] [--out tune-null]

Run it where the tunes ran (a configuration's run file is read as `genchess train` reads
it). A move far beyond chance's says the games pushed that number; one within chance's
says nothing either way; where the number ends up better is still the SPRT's to say.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genchess.drawing import PlotError, pyplot, save
from genchess.train.config import ConfigError
from genchess.train.registry import parse_config
from genchess.genome.run_formats import read_tune_records as read_records
from genchess.train.tune import TuneTrainer, side_points

FIRST_SEED = 1_000_000                       # replays' seeds: well away from a run's own


@dataclass
class NullStudy:
    """One run and its replays, every move in steps from the start."""
    name: str
    optimiser: str
    iterations: int
    games: int
    names: list[str]
    moves: np.ndarray           # the run's move of each number
    null_moves: np.ndarray      # replays x numbers
    spread: float | None = None             # a population's last spread, and chance's
    null_spreads: np.ndarray | None = None

    @property
    def distance(self) -> float:
        return float(np.sqrt((self.moves ** 2).sum()))

    @property
    def null_distances(self) -> np.ndarray:
        return np.sqrt((self.null_moves ** 2).sum(axis=1))

    @property
    def typical(self) -> np.ndarray:
        """Chance's typical move of each number: the root mean square over the replays."""
        return np.sqrt((self.null_moves ** 2).mean(axis=0))

    def as_far(self) -> np.ndarray:
        """Each number: the share of replays that moved it at least as far as the run."""
        return (np.abs(self.null_moves) >= np.abs(self.moves) - 1e-9).mean(axis=0)


def fail(message: str) -> SystemExit:
    return SystemExit(f"tune_null: {message}")


def open_run(cfg_path: Path) -> tuple[TuneTrainer, dict, list[dict]]:
    """The configuration's trainer (reading, never writing, the run's files) and the run's
    records; one-line SystemExit when either is not usable."""
    try:
        config = parse_config(cfg_path)
    except ConfigError as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"cannot read {cfg_path}: {e.strerror}") from None
    if config.method != "tune":
        raise fail(f"{cfg_path}: method = {config.method}, not tune")
    try:
        header, iterations = read_records(Path(config.run_file))
    except OSError as e:
        raise fail(f"{cfg_path}: cannot read its run file {config.run_file}: {e.strerror}") from None
    except ValueError as e:
        raise fail(str(e)) from None
    if not iterations:
        raise fail(f"{config.run_file}: no iteration recorded yet")
    try:
        trainer = TuneTrainer(config, out=lambda *_: None, progress=False)
    except ConfigError as e:
        raise fail(str(e)) from None
    names = [n.name for n in trainer.numbers]
    if header["optimiser"] != config.optimiser or header["numbers"] != names:
        raise fail(f"{config.run_file} is not {cfg_path}'s run: it tunes "
                   f"{len(header['numbers'])} numbers by {header['optimiser']}, the "
                   f"configuration {len(names)} by {config.optimiser}")
    moved = [n.name for n, s in zip(trainer.numbers, header["start"]) if n.start != float(s)]
    if moved:
        raise fail(f"{config.run_file} starts {moved[0]} elsewhere than {cfg_path}'s genome "
                   f"(put the run's _start.genome beside it)")
    return trainer, header, iterations


def game_outcomes(iterations: list[dict]) -> np.ndarray:
    """Every game's result the run recorded: what a replay's games are drawn from."""
    return np.array([result for record in iterations for result in record["games"]])


def replay(trainer: TuneTrainer, iterations: int, outcomes: np.ndarray, seed: int) -> tuple[list[float], float | None]:
    """The run's optimiser from `seed`, `iterations` long, every game drawn from `outcomes`
    whatever it plays: where the numbers end, and a population's spread."""
    trainer.seed = seed
    trainer.optimiser = trainer.new_optimiser()
    trainer.theta = [n.start for n in trainer.numbers]
    games = np.random.default_rng(seed)
    pairs = trainer.config.pairs

    def pair_points() -> int:
        return side_points(list(games.choice(outcomes, size=2 * pairs)))

    for _ in range(iterations):
        if trainer.config.optimiser == "spsa":
            delta, _, _ = trainer.optimiser.ask()
            trainer.learn_pair(delta, pair_points())
        else:
            population = trainer.optimiser.ask()
            trainer.learn_population(population, [pair_points() for _ in population])
    spread = None if trainer.config.optimiser == "spsa" else trainer.spread()
    return list(trainer.theta), spread


def study(cfg_path: Path, repeats: int) -> NullStudy:
    trainer, header, iterations = open_run(cfg_path)
    steps = np.array([n.step for n in trainer.numbers])
    start = np.array([n.start for n in trainer.numbers])
    outcomes = game_outcomes(iterations)
    if outcomes.size == 0:
        raise fail(f"{trainer.config.run_file}: no game recorded yet")
    null_moves, null_spreads = [], []
    for r in range(repeats):
        theta, spread = replay(trainer, len(iterations), outcomes, FIRST_SEED + r)
        null_moves.append((np.array(theta) - start) / steps)
        null_spreads.append(spread)
    population = header["optimiser"] != "spsa"
    return NullStudy(Path(trainer.config.run_file).name, header["optimiser"], len(iterations),
                     int(outcomes.size), [n.name for n in trainer.numbers],
                     (np.array(iterations[-1]["theta"]) - start) / steps, np.array(null_moves),
                     iterations[-1].get("spread") if population else None,
                     np.array(null_spreads) if population else None)


def table(studies: list[NullStudy], repeats: int) -> str:
    lines = [f"Each run beside {repeats} replays of its optimiser whose games say nothing (every "
             "result drawn from the run's own games). Moves are in steps (about 2-3 Elo each); "
             "chance's is the root mean square over the replays; *as far* is the share of "
             "replays that moved the number at least as far as the run did.", ""]
    for s in studies:
        typical, as_far = s.typical, s.as_far()
        ratio = np.abs(s.moves) / np.maximum(typical, 1e-12)
        lines += [f"## `{s.name}` ({s.optimiser}, {s.iterations} iterations, {s.games} games)", "",
                  "| number | the run's move | chance's move | ratio | as far |",
                  "|---|---:|---:|---:|---:|"]
        for i in sorted(range(len(s.names)), key=lambda i: (-ratio[i], i)):
            lines.append(f"| `{s.names[i]}` | {s.moves[i]:+.2f} | {typical[i]:.2f} | "
                         f"{ratio[i]:.1f} | {as_far[i]:.0%} |")
        d = s.null_distances
        lo, median, hi = np.percentile(d, [5, 50, 95])
        lines += ["", f"Distance from the start: **{s.distance:.2f}** steps; chance's median "
                  f"{median:.2f} (90% of replays between {lo:.2f} and {hi:.2f}); "
                  f"{(d >= s.distance - 1e-9).mean():.0%} of replays went as far."]
        if s.spread is not None:
            lines[-1] += (f" Spread at the end: {s.spread:.2f} steps; chance's median "
                          f"{np.median(s.null_spreads):.2f}.")
        lines.append("")
    return "\n".join(lines)


def plot(studies: list[NullStudy], out: Path) -> Path:
    plt = pyplot()
    fig, axes = plt.subplots(len(studies), 2, figsize=(13, 4.2 * len(studies)), squeeze=False,
                             gridspec_kw={"width_ratios": [1, 2]})
    for s, (left, right) in zip(studies, axes):
        left.hist(s.null_distances, bins=30, color="tab:grey", alpha=0.8, label="chance's replays")
        left.axvline(s.distance, color="tab:red", lw=2, label=f"the run: {s.distance:.1f}")
        left.set_xlabel("distance from the start, in steps")
        left.set_ylabel("replays")
        left.set_title(f"{s.name}: {s.optimiser}, {s.games} games", fontsize=10)
        left.legend(fontsize=8)
        ratio = s.moves / np.maximum(s.typical, 1e-12)
        right.bar(range(len(s.names)), ratio,
                  color=["tab:red" if abs(r) >= 2 else "tab:blue" for r in ratio])
        for bound in (-2, 2):
            right.axhline(bound, color="grey", ls="--", lw=0.8)
        right.set_xticks(range(len(s.names)), s.names, rotation=60, ha="right", fontsize=8)
        right.set_ylabel("the run's move / chance's")
        right.set_title("each number's move over chance's typical move (beyond 2: red)", fontsize=10)
        right.grid(axis="y", alpha=0.3)
    fig.suptitle("how far chance alone moves each tune: its optimiser replayed on games that say nothing")
    fig.tight_layout()
    return save(plt, fig, out.with_suffix(".png"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+", type=Path, help="tune configurations (method = tune)")
    parser.add_argument("--repeats", type=int, default=100, help="replays of each run (default 100)")
    parser.add_argument("--out", type=Path, default=Path("tune-null"),
                        help="OUT.md and OUT.png (default: tune-null)")
    args = parser.parse_args(argv)
    if args.repeats < 2:
        raise fail(f"--repeats {args.repeats}: at least 2 replays")
    studies = [study(path, args.repeats) for path in args.configs]
    text = table(studies, args.repeats)
    try:
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
        picture = plot(studies, args.out)
    except OSError as e:
        raise fail(f"cannot write {args.out}: {e.strerror}") from None
    except PlotError as e:
        raise fail(str(e)) from None
    print(text)
    print(f"wrote {args.out.with_suffix('.md')} and {picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
