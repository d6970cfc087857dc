"""`genchess-kw-study CONFIG`: the mutation-scaling study of Kendall-Whitwell evolution.

From one seeded initial population, the evolution runs once per scaling factor
of the R table (the study's Table 6: 2, 1, 0.5, 0.25), each in its own directory
and each resumable. Then:
  Table 7   per factor the convergence factor (geometric mean over the seven
            weights of final sd / initial sd) and the ranking of the four
            average players in a round robin (each pair both colours, at the
            evolution's fixed depth: deterministic, so a pair's two games are
            its whole match unless openings are asked for);
  plots     mean and sd of each weight against generation, pawn = 100, one
            figure per factor and one with all factors, one legend each
            (the study's Figures 9-14);
  match     the best average player against default.genome and the
            material-only genome, at a clock with the engine's own search,
            reported as W-D-L, score and Elo with its 95% interval (from the
            game pairs, by genchess.strength);
  report    report.md beside the runs, linking the plots.

Design trade-off: the study is a driver over the trainer, not a second loop:
every run is a plain kendall-whitwell run whose files the trainer can resume
and genchess can load, and the analysis reads only those files, so a study
killed at any point is resumed by running it again (the round robin and the
match, a few minutes, are replayed whole).
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from genchess.console import run_command
from genchess.files import package_file
from genchess.game.pgn import pgn_text
from genchess.genome import GenomeError, MaterialGenome, hand_set_genome, load_genome
from genchess.genome.genome_file import GENOMES_DIR
from genchess.genome.material import WEIGHT_NAMES
from genchess.parallel import executors
from genchess.parallel.worker import GameJob
from genchess.strength.games import play_all, play_pairs
from genchess.strength.stats import MatchStats, elo_with_interval
from genchess.strength.tally import Tally
from genchess.train.config import (GAME_TIME, ConfigError, Key, check_entries,
                                   read_entries)
from genchess.train.kendall import (METHOD, R_TABLE, KendallConfig, KendallTrainer,
                                    average_weights, kendall_job, population_sigma,
                                    scaled_to_pawn)
from genchess.train.records import read_pool_file
from genchess.train.registry import (METHOD_MODULES, build_config, describe_key, read_method,
                                     resolve_keys)
from genchess.train.scaffold import start_positions
from genchess_core.searcher import ALL_FEATURES

STUDY_KEYS = [
    Key("study directory", "path", "each factor's run goes to <dir>/scale-<factor>/, the "
        "tables, plots, games and report.md to <dir>", "directory"),
    Key("scaling factors", "floats", "the factors of the R table to compare", "factors", 0),
    Key("round robin openings", "int", "openings each pair of average players plays, both "
        "colours each (0: the start position only)", "round_robin_openings", 0),
    Key("match games", "int", "games of the best average player against each of default.genome "
        "and material.genome (0: no match)", "match_games", 0),
    GAME_TIME.with_help("seconds per side in those games"),
]
PER_RUN = ("run file", "scaling factor")                 # the study sets these per factor
OLD_PER_RUN = ("population file",)                       # (the run file's old spelling)
OPENINGS = package_file("data", "openings.epd")
MATERIAL_GENOME_PATH = GENOMES_DIR / "material.genome"


@dataclass
class StudyConfig:
    path: Path
    directory: Path
    runs: list[KendallConfig]
    factors: list[float] = field(default_factory=lambda: [2.0, 1.0, 0.5, 0.25])
    round_robin_openings: int = 0
    match_games: int = 20
    game_time: float = 5.0

    @property
    def base(self) -> KendallConfig:
        return self.runs[0]


def study_keys() -> list[Key]:
    """The study's own keys, then the kendall-whitwell keys it passes to every run."""
    own = resolve_keys(STUDY_KEYS, StudyConfig, required_when_no_default=True)
    return own + [k for k in METHOD.all_keys if k.name not in PER_RUN]


def factor_name(factor: float) -> str:
    return f"scale-{factor:g}"


def parse_study_config(path: str | Path) -> StudyConfig:
    path = Path(path)
    entries = read_entries(path)
    if "method" in entries and read_method(path, entries) != "kendall-whitwell":
        raise ConfigError(f"{path}:{entries['method'][1]}: method: the study runs kendall-whitwell, "
                          f"not {read_method(path, entries)!r}")
    for name in PER_RUN + OLD_PER_RUN:
        if name in entries:
            raise ConfigError(f"{path}:{entries[name][1]}: {name}: the study sets it for each run "
                              f"(see 'study directory' and 'scaling factors')")
    values, lines = check_entries(path, entries, study_keys(), "kendall-whitwell study",
                                  tuple(METHOD_MODULES))
    factors = values.get("scaling factors", next(k.default for k in study_keys() if k.attribute == "factors"))
    if len(set(factors)) != len(factors):
        raise ConfigError(f"{path}:{lines['scaling factors']}: scaling factors: a factor appears twice")
    directory = values["study directory"]
    if "output volume" not in values:
        values["output volume"] = True              # quiet: 49 match lines a generation, times four
    study_only = {k.name for k in STUDY_KEYS}
    run_values = {name: value for name, value in values.items() if name not in study_only}
    runs = [build_config(METHOD, path, {**run_values, "run file": directory / factor_name(f)
                                        / "population.txt", "scaling factor": f}, lines)
            for f in factors]
    given = {k.attribute: values[k.name] for k in STUDY_KEYS[2:] if k.name in values}
    return StudyConfig(path, directory, runs, factors, **given)


# ------------------------------------------------------------------ reading the runs

@dataclass
class Series:
    """One run's populations, generation by generation (row: player, column: weight)."""
    factor: float
    populations: list[np.ndarray]
    final_average: MaterialGenome = field(default=None)

    @property
    def means(self) -> np.ndarray:
        return np.array([average_weights(w) for w in self.populations])

    @property
    def sigmas(self) -> np.ndarray:
        return np.array([population_sigma(w) for w in self.populations])

    def convergence_factor(self) -> float:
        """Geometric mean over the weights of final sd / initial sd."""
        ratios = self.sigmas[-1] / self.sigmas[0]
        if np.any(ratios <= 0):
            return 0.0
        return float(math.exp(np.mean(np.log(ratios))))


def read_series(config: KendallConfig) -> Series:
    state = read_pool_file(config.population_file, 1)
    populations = [np.array([state.genomes[i].weights for i in snapshot[0]])
                   for snapshot in state.alive_history]
    average = MaterialGenome(len(populations) - 1, average_weights(populations[-1]),
                             config.centre_bonus, config.advanced_pawn_bonus)
    return Series(config.scaling, populations, average)


# ------------------------------------------------------------------ games

def spread_openings(count: int) -> list[str | None]:
    """`count` positions spread over the shipped balanced openings, or the start position."""
    if count == 0:
        return [None]
    fens = start_positions(OPENINGS)
    return [fens[i * len(fens) // count] for i in range(count)]


def pgn_writer(pgn, event: str):
    """on_game for strength.games: each game to `pgn` as it ends, Round = its number + 1."""
    def write(n: int, result) -> None:
        pgn.write(pgn_text(result.record, event=event, tags={"Round": str(n + 1)}))
        pgn.flush()
    return write


def round_robin(study: StudyConfig, players: list[MaterialGenome], names: list[str],
                executor_factory) -> list[MatchStats]:
    cfg = study.base
    jobs, pairs = [], []
    for opening, fen in enumerate(spread_openings(study.round_robin_openings)):
        for a in range(len(players)):
            for b in range(a + 1, len(players)):
                for white, black in ((a, b), (b, a)):
                    jobs.append(kendall_job(cfg, players[white], players[black], fen))
                    pairs.append((white, black, (opening, a, b)))
    with executor_factory(cfg.workers) as executor, \
            open(study.directory / "round_robin.pgn", "w", encoding="utf-8") as pgn:
        played = play_all(executor, jobs, pgn_writer(
            pgn, "GenChess Kendall-Whitwell study: round robin of average players"))
    tallies = [Tally() for _ in players]
    for (white, black, pair), result in zip(pairs, (p.record.result for p in played)):
        tallies[white].add(result, white=True, pair=pair)
        tallies[black].add(result, white=False, pair=pair)
    return [tally.stats for tally in tallies]


def reference_match(study: StudyConfig, best: MaterialGenome, opponent, executor_factory,
                    pgn_name: str) -> MatchStats:
    """The best average player against `opponent`, colours alternating, one
    opening per pair of games, both engines with their usual search at a clock."""
    def job(white, black, fen):
        return GameJob.between(white, black, start_fen=fen, seconds=study.game_time,
                               features=ALL_FEATURES)

    workers = study.base.workers
    with executor_factory(workers) as executor, \
            open(study.directory / pgn_name, "w", encoding="utf-8") as pgn:
        return play_pairs(executor, workers, best, opponent,
                          spread_openings(max(1, (study.match_games + 1) // 2)), job,
                          study.match_games, on_game=pgn_writer(
                              pgn, "GenChess Kendall-Whitwell study: best average player match")).stats


# ------------------------------------------------------------------ plots

def plot_series(plt, series: list[Series], out: Path) -> list[Path]:
    """Per factor (and all together): mean and sd of each weight by generation, pawn = 100."""
    written = []
    groups = [[s] for s in series] + ([series] if len(series) > 1 else [])
    for group in groups:
        height = 3.6 * len(group) + 0.5         # 0.5 inch for the one legend
        fig, axes = plt.subplots(len(group), 2, figsize=(12, height), squeeze=False)
        for row, s in zip(axes, group):
            means, sigmas = s.means, s.sigmas
            generations = np.arange(len(means))
            pawn = means[:, 0]
            scaled_means = np.array([scaled_to_pawn(m, p) for m, p in zip(means, pawn)])
            scaled_sigmas = np.array([scaled_to_pawn(v, p) for v, p in zip(sigmas, pawn)])
            for k, name in enumerate(WEIGHT_NAMES):
                row[0].plot(generations, scaled_means[:, k], marker="o", ms=3, label=name)
                row[1].plot(generations, scaled_sigmas[:, k], marker="o", ms=3, label=name)
            row[0].set_title(f"scaling factor {s.factor:g}: mean of each weight (pawn = 100)")
            row[1].set_title(f"scaling factor {s.factor:g}: standard deviation (pawn = 100)")
            for ax in row:
                ax.set_xlabel("generation")
                ax.grid(alpha=0.3)
                ax.set_xticks(generations if len(generations) <= 20 else generations[::len(generations) // 10])
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=len(WEIGHT_NAMES), frameon=False)
        fig.tight_layout(rect=(0, 0.5 / height, 1, 1))
        name = "all-factors.png" if len(group) > 1 else f"{factor_name(group[0].factor)}.png"
        path = out / name
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


# ------------------------------------------------------------------ report

def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + \
        ["| " + " | ".join(row) + " |" for row in rows]


def report_text(study, series, tallies, ranking, plots, matches) -> str:
    cfg = study.base
    lines = ["# Kendall-Whitwell mutation-scaling study", "",
             f"Configuration `{study.path}`: population {cfg.population}, "
             f"{len(series[0].populations) - 1} generations, fixed depth {cfg.depth} "
             f"(quiescence to {cfg.quiescence_cap:g} x depth), initial weights uniform in "
             f"[{cfg.init_low:g}, {cfg.init_high:g}], seed {cfg.seed}, centre control bonus "
             f"{cfg.centre_bonus:g}, advanced pawn bonus {cfg.advanced_pawn_bonus:g}. "
             f"Every run starts from the same population.", "",
             "## Table 6: the R table (winner, loser) at each scaling factor", ""]
    lines += table(["scaling factor"] + list(R_TABLE),
                   [[f"{f:g}"] + [f"({a * f:g}, {b * f:g})" for a, b in R_TABLE.values()]
                    for f in study.factors])
    lines += ["", "## Table 7: convergence and the round robin of average players", "",
              "Convergence factor: geometric mean over the seven weights of final sd / initial sd "
              "(smaller: converged further). Round robin: each pair of average players plays "
              "both colours" + (f" from {study.round_robin_openings} openings" if study.round_robin_openings
                                else " from the start position") + f" at depth {cfg.depth}.", ""]
    lines += table(["rank", "scaling factor", "convergence factor", "points", "games", "wins",
                    "draws", "losses"],
                   [[str(rank), f"{series[k].factor:g}", f"{series[k].convergence_factor():.3f}",
                     f"{tallies[k].points:g}", str(tallies[k].games), str(tallies[k].wins),
                     str(tallies[k].draws), str(tallies[k].losses)]
                    for rank, k in enumerate(ranking, start=1)])
    lines += ["", "## Final average players (pawn = 100)", ""]
    lines += table(["scaling factor"] + list(WEIGHT_NAMES),
                   [[f"{s.factor:g}"] + [f"{v:.1f}" for v in scaled_to_pawn(
                       np.array(s.final_average.weights), s.final_average.weights[0])] for s in series])
    example = study.runs[0].average_file
    lines += ["", "Raw weights: `<factor dir>/population.txt_average.genome` (the last genome); "
              f"play one with `genchess --genome {example}`.", "",
              "## Plots (Figures 9-14 style)", ""]
    lines += [f"![{p.stem}]({p.name})" for p in plots]
    if matches:
        best = series[ranking[0]]
        lines += ["", f"## The best average player (scaling factor {best.factor:g}) against hand-set genomes",
                  "", f"{study.match_games} games against each, {study.game_time:g} s per side, "
                  f"colours alternating, openings from genchess/data/openings.epd, both engines "
                  f"with their usual search. Score from the average player's side.", ""]
        lines += table(["opponent", "games", "W-D-L", "score", "Elo (95% interval, from the pairs)"],
                       [[name, str(t.games), f"{t.wins}-{t.draws}-{t.losses}",
                         f"{t.points:g} ({t.score:.0%})", elo_with_interval(t.pentanomial_elo())]
                        for name, t in matches])
    lines += ["", "Games: `round_robin.pgn`" + (", `match_*.pgn`" if matches else "") +
              "; each run's files in its `scale-<factor>/` directory.", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ the study

def run_study(study: StudyConfig, out=print, executor_factory=None, progress=True) -> int:
    executor_factory = executor_factory or (
        lambda workers: executors.open_executor(study.base.scheduler, workers, out=out,
                                                tls=study.base.tls()))
    study.directory.mkdir(parents=True, exist_ok=True)
    for run in study.runs:
        run.population_file.parent.mkdir(parents=True, exist_ok=True)
        out(f"== scaling factor {run.scaling:g}: {run.population_file}")
        trainer = KendallTrainer(run, out=out, executor_factory=executor_factory, progress=progress)
        status = trainer.run()
        if status != 0:
            return status
        if trainer.finished() is None:
            out("The study stops here (time limit); run the same command to continue.")
            return 0
    series = [read_series(run) for run in study.runs]
    if len({s.populations[0].tobytes() for s in series}) != 1:
        raise ConfigError(f"{study.directory}: the runs do not share their initial population "
                          f"(were they made with another seed or population?)")
    names = [f"average, factor {s.factor:g}" for s in series]
    players = [s.final_average.copy(new_id=n) for n, s in enumerate(series)]
    out("== round robin of the average players")
    tallies = round_robin(study, players, names, executor_factory)
    ranking = sorted(range(len(series)), key=lambda k: (-tallies[k].points, -tallies[k].wins, k))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plots = plot_series(plt, series, study.directory)
    matches = []
    if study.match_games:
        best = players[ranking[0]]
        for name, opponent, pgn in (("default.genome", hand_set_genome(), "match_default.pgn"),
                                    ("material.genome", load_genome(MATERIAL_GENOME_PATH),
                                     "match_material.pgn")):
            out(f"== best average player (factor {series[ranking[0]].factor:g}) against {name}")
            matches.append((name, reference_match(study, best, opponent, executor_factory, pgn)))
    report = study.directory / "report.md"
    report.write_text(report_text(study, series, tallies, ranking, plots, matches), encoding="utf-8")
    out("")
    out(report.read_text(encoding="utf-8"))
    out(f"Report: {report}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="genchess-kw-study", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The mutation-scaling study of Kendall-Whitwell evolution: one initial "
                    "population evolved at each scaling factor of the R table, then the "
                    "convergence factors, a round robin of the average players, plots of every "
                    "weight's mean and spread by generation, a match of the best average player "
                    "against hand-set genomes, and report.md. Running it again resumes.",
        epilog="configuration keys (key = value; # starts a comment): every kendall-whitwell key "
               "of genchess train --help but 'run file' and 'scaling factor', and:\n"
               + "\n".join(f"  {describe_key(k)}" for k in study_keys()[:len(STUDY_KEYS)]))
    parser.add_argument("config", metavar="CONFIG", help="study configuration file")
    args = parser.parse_args(argv)
    try:
        return run_command("genchess-kw-study", lambda: run_study(parse_study_config(args.config)),
                           (ConfigError, GenomeError))
    except KeyboardInterrupt:
        print("\nStopped; run the same command to resume.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
