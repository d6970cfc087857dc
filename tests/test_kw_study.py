"""`genchess-kw-study` on a tiny setting: four runs from one initial population,
both tables, every plot, the match, the report; run again, it reuses the runs;
bad study configurations name the line.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from genchess.genome import read_genome_file
from genchess.strength.stats import MatchStats, elo_with_interval
from genchess.train.config import ConfigError
from genchess.train.kw_study import parse_study_config
from train_helpers import _command, read_pgn_games, run, still_alive_snapshots

FACTORS = ["2", "1", "0.5", "0.25"]
STUDY = ("study directory = study\npopulation = 4\ngenerations = 2\ndepth = 1\nseed = 8\n"
         "match games = 2\ngame time = 0.5\n")


def study_command(*args):
    return _command("genchess-kw-study", "genchess.train.kw_study", *args)


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" in data[-12:], f"{path} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    d = tmp_path_factory.mktemp("kw_study")
    (d / "study.cfg").write_text(STUDY)
    proc = run(study_command("study.cfg"), cwd=d, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    return d, proc


def table_rows(report: str, first_header: str) -> list[list[str]]:
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_study_runs_every_factor_from_one_population(study):
    d, proc = study
    starts = []
    for factor in FACTORS:
        population = d / "study" / f"scale-{factor}" / "population.txt"
        snapshots = still_alive_snapshots(population.read_text(), 1)
        assert len(snapshots) == 3
        genomes = {g.id: g for g in read_genome_file(population).genomes}
        starts.append([genomes[i].weights for i in snapshots[0][0]])
        assert len(read_pgn_games(population.parent / "population.txt_games.txt")) == 2 * 2 * 3
    assert all(s == starts[0] for s in starts)


def test_both_tables(study):
    d, _ = study
    report = (d / "study" / "report.md").read_text()
    table6 = table_rows(report, "scaling factor")
    assert [row[0] for row in table6] == FACTORS
    assert table6[3][1:] == ["(0, 0.5)", "(0.05, 0.25)", "(0.125, 0.125)"]
    table7 = table_rows(report, "rank")
    assert [row[0] for row in table7] == ["1", "2", "3", "4"]
    assert sorted(row[1] for row in table7) == sorted(FACTORS)
    points = [float(row[3]) for row in table7]
    assert points == sorted(points, reverse=True) and sum(points) == 12      # 6 pairs x 2 games
    for row in table7:
        wins, draws, losses = map(int, row[5:8])
        assert int(row[4]) == wins + draws + losses == 6
        assert float(row[3]) == wins + draws / 2
        # The convergence factor, recomputed from the run's own file.
        population = d / "study" / f"scale-{row[1]}" / "population.txt"
        snapshots = still_alive_snapshots(population.read_text(), 1)
        genomes = {g.id: g for g in read_genome_file(population).genomes}
        first, last = (np.array([genomes[i].weights for i in snapshots[k][0]]) for k in (0, -1))
        ratios = last.std(axis=0) / first.std(axis=0)
        expected = math.exp(np.log(ratios).mean()) if np.all(ratios > 0) else 0.0
        assert float(row[2]) == pytest.approx(expected, abs=0.0006)
    assert len(read_pgn_games(d / "study" / "round_robin.pgn")) == 12
    match = table_rows(report, "opponent")
    assert [row[0] for row in match] == ["default.genome", "material.genome"]
    for row, pgn in zip(match, ("match_default.pgn", "match_material.pgn")):
        assert row[1] == "2" and re.fullmatch(r"\d+-\d+-\d+", row[2])
        # Elo and its interval come from the measuring package, from the one game pair.
        wins, draws, losses = (int(x) for x in row[2].split("-"))
        stats = MatchStats()
        stats.add_pair(*sorted([1.0] * wins + [0.5] * draws + [0.0] * losses))
        assert row[4] == elo_with_interval(stats.pentanomial_elo())
        assert len(read_pgn_games(d / "study" / pgn)) == 2


def test_every_plot_is_a_png_linked_from_the_report(study):
    d, _ = study
    report = (d / "study" / "report.md").read_text()
    names = [f"scale-{f}.png" for f in FACTORS] + ["all-factors.png"]
    for name in names:
        width, height = png_size(d / "study" / name)
        assert width > 500 and height > 200
        assert f"]({name})" in report
    assert png_size(d / "study" / "all-factors.png")[1] > 3 * png_size(d / "study" / "scale-1.png")[1]


def test_running_again_reuses_the_runs(study):
    d, _ = study
    before = (d / "study" / "scale-1" / "population.txt").read_text()
    proc = run(study_command("study.cfg"), cwd=d, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Stopped: 2 generations done.") == 4 and proc.stdout.count("Resuming") == 4
    assert "games in" not in proc.stdout           # no game was played again
    assert (d / "study" / "scale-1" / "population.txt").read_text() == before


@pytest.mark.parametrize("text, line, problem", [
    ("scaling factors = 1 big\n", 5, "scaling factors: expected numbers separated by spaces, not '1 big'"),
    ("scaling factors = 1 -2\n", 5, "scaling factors: each must be at least 0"),
    ("scaling factors = 1 1\n", 5, "a factor appears twice"),
    ("scaling factor = 2\n", 5, "the study sets it for each run"),
    ("population = -1\n", 5, "population: must be at least 2"),
    ("method = gene pool\n", 5, "the study runs kendall-whitwell"),
    ("match games = few\n", 5, "match games: expected a whole number"),
])
def test_bad_study_configuration_names_the_line(tmp_path, text, line, problem):
    cfg = tmp_path / "s.cfg"
    cfg.write_text("study directory = s\ngenerations = 1\ndepth = 1\nseed = 1\n" + text)
    with pytest.raises(ConfigError) as error:
        parse_study_config(cfg)
    assert str(error.value).startswith(f"{cfg}:{line}: ") and problem in str(error.value), str(error.value)


def test_bad_study_configuration_exits_2(tmp_path):
    cfg = tmp_path / "s.cfg"
    cfg.write_text("study directory = s\ndepth = 0\n")
    proc = run(study_command(str(cfg)), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"genchess-kw-study: {cfg}:2: depth: must be at least 1, not 0"
    assert not (tmp_path / "s").exists()
