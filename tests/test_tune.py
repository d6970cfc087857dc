"""method = tune: search genes (and a kind's own numbers) tuned by games with SPSA, or a
CMA-ES or GA population with game fitness; records, resume, the best genome, plots,
bad configs."""

from __future__ import annotations

import json
import pickle
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from genchess.genome import open_genome, read_genomes
from genchess.genome.genome_file import GENOMES_DIR
from genchess.train.registry import parse_config, trainer_for
from genchess.train.config import ConfigError
from genchess.genome.run_formats import check_iteration, read_tune_records as read_records

from train_helpers import config_text, plot_command, run as run_command

GENES = "rfp_margin, lmr_base, futility_margin, null_reduction"


def write_config(directory: Path, **changes) -> Path:
    base = {"method": "tune", "run file": str(directory / "run.txt"), "tune": GENES,
            "iterations": "6", "nodes": "120", "seed": "7", "output volume": "quiet"}
    path = directory / "run.cfg"
    path.write_text(config_text(base, **changes))
    return path


class StopAfter(ThreadPoolExecutor):
    """An in-process executor that acts as if Ctrl-C came after `games` submitted games."""

    def __init__(self, workers, games=None):
        super().__init__(workers)
        self.left = games

    def submit(self, *args, **kwargs):
        if self.left is not None:
            if self.left == 0:
                raise KeyboardInterrupt
            self.left -= 1
        return super().submit(*args, **kwargs)


def run(config: Path, stop_after: int | None = None) -> int:
    return trainer_for(parse_config(config), out=lambda line: None, progress=False,
                       executor_factory=lambda workers: StopAfter(workers, stop_after)).run()


def without_comments(path: Path) -> str:
    return "".join(line for line in path.read_text().splitlines(True) if not line.startswith("#"))


def assert_only_the_tuned_genes_moved(run_file: Path, tuned: list[str]) -> None:
    """The best genome is the start genome with the tuned genes set: the start's own
    search genes (the default genome has some) stay as they were, and nothing else moved."""
    best = open_genome(run_file)
    start = read_genomes(run_file.with_name(run_file.name + "_start.genome"))[0]
    assert set(tuned) <= set(best.search)
    assert {k: v for k, v in best.search.items() if k not in tuned} == \
        {k: v for k, v in start.search.items() if k not in tuned}
    assert start.copy(best.id).with_search(best.search) == best


def test_an_spsa_run_records_each_iteration_and_its_genome_plays(tmp_path):
    assert run(write_config(tmp_path)) == 0
    header, iterations = read_records(tmp_path / "run.txt")
    assert header["optimiser"] == "spsa" and header["numbers"] == [g.strip() for g in GENES.split(",")]
    assert [r["iteration"] for r in iterations] == [1, 2, 3, 4, 5, 6]
    assert all(len(r["games"]) == 2 and -2 <= r["result"] <= 2 for r in iterations)
    best = open_genome(tmp_path / "run.txt")                # the run file plays its best genome
    assert best == read_genomes(tmp_path / "run.txt_best.genome")[0]
    assert_only_the_tuned_genes_moved(tmp_path / "run.txt", header["numbers"])


def test_the_run_ends_with_the_sprt_that_decides_it(tmp_path):
    lines = []
    trainer_for(parse_config(write_config(tmp_path, iterations="1")), out=lines.append,
                progress=False, executor_factory=lambda workers: StopAfter(workers)).run()
    command = lines[-1].split("Games decide, at a long time control: ")[1].split()
    assert command[:2] == ["genchess", "match"]
    best, start = (Path(arg.removeprefix("genchess:")) for arg in command[2:4])
    assert best == tmp_path / "run.txt_best.genome" and start == tmp_path / "run.txt_start.genome"
    assert best.exists() and start.exists()
    options = " ".join(command[4:])
    assert "--tc 10+0.1 --sprt elo0=0 elo1=5 --concurrency 2" in options
    assert options.endswith(f"--pgn {(tmp_path / 'run-sprt.pgn').as_posix()} --resume")


def test_a_resumed_run_ends_exactly_as_an_uninterrupted_one(tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    assert run(write_config(whole)) == 0
    config = write_config(parts)
    assert run(config, stop_after=5) == 130                 # Ctrl-C inside iteration 3
    assert [r["iteration"] for r in read_records(parts / "run.txt")[1]] == [1, 2]
    # Between the sittings the configured genome changed (a new default genome, say):
    # the run goes on from its own start genome.
    config = write_config(parts, **{"initial genomes": str(GENOMES_DIR / "unified.genome")})
    assert run(config) == 0
    assert read_records(parts / "run.txt") == read_records(whole / "run.txt")
    assert without_comments(parts / "run.txt_best.genome") == without_comments(whole / "run.txt_best.genome")


def test_a_state_without_its_start_genome_is_not_resumed_from_the_config(tmp_path):
    config = write_config(tmp_path)
    assert run(config, stop_after=5) == 130
    (tmp_path / "run.txt_start.genome").unlink()
    with pytest.raises(ConfigError, match=r"run.txt_start.genome: missing, and .*run.txt_state.pickle "
                                          r"is there: not resumable"):
        run(config)
    assert [r["iteration"] for r in read_records(tmp_path / "run.txt")[1]] == [1, 2]   # files intact


@pytest.mark.parametrize("line, damage, message", [
    (0, lambda r: r.pop("numbers"), r'run.txt:1: the header\'s "numbers" is not a list of gene names'),
    (0, lambda r: r["hi"].pop(), r'run.txt:1: the header\'s "hi" is not 4 numbers'),
    (2, lambda r: r.pop("theta"), r'run.txt:3: iteration 2\'s "theta" is not 4 numbers'),
    (1, lambda r: r["theta"].__setitem__(0, "x"), r'run.txt:2: iteration 1\'s "theta" is not 4 numbers'),
    (2, lambda r: r.__setitem__("result", None), r'run.txt:3: iteration 2\'s "result" is not a number'),
], ids=["no names", "short bounds", "no theta", "a word in theta", "no result"])
def test_damaged_records_name_their_line_and_are_not_appended_to(tmp_path, line, damage, message):
    """A record edited out of shape: genchess plot says file:line in one line, and the
    run refuses to resume rather than append to records it cannot read."""
    config = write_config(tmp_path, iterations="3")
    assert run(config, stop_after=5) == 130
    records = tmp_path / "run.txt"
    lines = records.read_text().splitlines(True)
    record = json.loads(lines[line])
    damage(record)
    lines[line] = json.dumps(record) + "\n"
    records.write_text("".join(lines))
    before = records.read_bytes()
    done = run_command(plot_command(str(records)), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [error] = done.stderr.splitlines()
    assert re.search(message, error), error
    with pytest.raises(ConfigError, match=message + ": not resumable"):
        run(config)
    assert records.read_bytes() == before


def test_a_populations_spread_must_be_a_number():
    header = {"numbers": ["lmr_base"], "start": [75], "lo": [0], "hi": [200], "optimiser": "cma-es"}
    record = {"iteration": 3, "theta": [75.0], "games": ["1-0", "0-1"], "scores": [0], "spread": "wide"}
    with pytest.raises(ValueError, match=r'run.txt:4: iteration 3\'s "spread" is not a number'):
        check_iteration(record, header, "run.txt:4")
    record["spread"] = 0.8
    assert check_iteration(record, header, "run.txt:4") is record


def test_killed_between_its_state_and_its_record_loses_and_doubles_nothing(tmp_path):
    config = write_config(tmp_path, iterations="4")
    assert run(config) == 0
    records = tmp_path / "run.txt"
    lines = records.read_text().splitlines(True)
    records.write_text("".join(lines[:-1]) + lines[-1][:17])  # the last record torn mid-line
    assert run(config) == 0
    assert [r["iteration"] for r in read_records(records)[1]] == [1, 2, 3, 4]
    # An older state put back: its iterations are played again, not written again.
    state = tmp_path / "run.txt_state.pickle"
    saved = pickle.loads(state.read_bytes())
    assert saved["iteration"] == 4
    assert run(write_config(tmp_path, iterations="6")) == 0
    assert [r["iteration"] for r in read_records(records)[1]] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("optimiser", ["cma-es", "ga"])
def test_a_population_with_game_fitness(tmp_path, optimiser):
    config = write_config(tmp_path, optimiser=optimiser, iterations="2", population="3")
    assert run(config) == 0
    header, iterations = read_records(tmp_path / "run.txt")
    assert header["optimiser"] == optimiser
    for record in iterations:
        assert len(record["scores"]) == 3 and len(record["games"]) == 6
    assert_only_the_tuned_genes_moved(tmp_path / "run.txt", header["numbers"])
    # the spread in steps: the GA's is its fixed mutation (sigma 1); CMA-ES adapts its own
    spreads = [r["spread"] for r in iterations]
    if optimiser == "ga":
        assert spreads == [1.0, 1.0]
    else:
        assert all(0.5 < s < 2 for s in spreads) and spreads[0] != spreads[1]
    done = run_command(plot_command(str(tmp_path / "run.txt")), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run.txt_plots" / "results.png").stat().st_size > 5000


def test_frozen_numbers_stay_and_a_kinds_own_numbers_tune_too(tmp_path):
    config = write_config(tmp_path, tune="null_reduction, lmr_base, material",
                          freeze="lmr_base", iterations="3",
                          **{"initial genomes": str(GENOMES_DIR / "material-positions.genome")})
    assert run(config) == 0
    header, iterations = read_records(tmp_path / "run.txt")
    where = header["numbers"].index("lmr_base")
    assert all(r["theta"][where] == 75 for r in iterations)
    assert len(header["numbers"]) > 3                       # the material weights joined


@pytest.mark.parametrize("changes, message", [
    ({"tune": "rfp_margn", "initial genomes": str(GENOMES_DIR / "unified.genome")},
     "tune: 'rfp_margn' is neither a search gene nor a group"),
    ({"tune": "material"}, "tune: 'material' is not a search gene, and a network genome's own "
                           "numbers are trained on positions"),
    ({"freeze": "aspiration_width"}, "freeze: 'aspiration_width' is not among the tuned numbers"),
    ({"optimiser": "ga", "r end": "0.01"}, "r end is spsa's, not ga's"),
])
def test_a_bad_config_is_one_line(tmp_path, changes, message):
    with pytest.raises(ConfigError, match=message):
        trainer_for(parse_config(write_config(tmp_path, **changes)), out=lambda line: None)


def test_genchess_plot_draws_every_numbers_path(tmp_path):
    assert run(write_config(tmp_path, iterations="3")) == 0
    done = run_command(plot_command(str(tmp_path / "run.txt")), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ("numbers.png", "results.png"):
        assert (tmp_path / "run.txt_plots" / name).stat().st_size > 5000


def test_a_chess960_tune_plays_from_chess960_starts(tmp_path):
    import chess
    assert run(write_config(tmp_path, iterations="2", variant="chess960")) == 0
    _, iterations = read_records(tmp_path / "run.txt")
    assert len(iterations) == 2
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    trainer = trainer_for(parse_config(write_config(fresh, variant="chess960")), out=lambda line: None)
    starts = trainer.openings
    assert len(starts) == 960 and chess.STARTING_FEN in starts
    assert trainer.job(trainer.start_genome, trainer.start_genome, starts[0]).chess960
