"""method = evolve: any genome kind tuned on a labelled set; and multi-niche crowding
with fitness by positions. A tiny set whose results follow standard material values
(drawn from the sigmoid of a 1-3-3-5-9 evaluation) is the ground truth here."""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from genchess.genome import MaterialGenome, load_genome, open_genome, read_genomes
from genchess.position_sets.position_set import PositionSet
from genchess.train import cli as train_cli
from genchess.train.registry import parse_config, trainer_for
from test_fitness_features import random_positions
from train_helpers import config_text, plot_command, train_command
from train_helpers import run as run_command

STANDARD = MaterialGenome(0, [1, 3, 3, 5, 9, 0, 0])


@pytest.fixture(scope="module")
def labelled_set(tmp_path_factory) -> Path:
    positions = random_positions(3000, seed=8)
    cp = positions.evaluate_cp(STANDARD)
    wins = np.random.default_rng(4).random(len(positions)) < 1 / (1 + 10 ** (-cp / 400))
    labelled = PositionSet(positions.pieces, positions.side, positions.castling, positions.ep,
                           wins.astype(np.float32), positions.mentor)
    path = tmp_path_factory.mktemp("set") / "set.epd"
    labelled.write(path)
    return path


def write_config(directory: Path, labelled_set: Path, **changes) -> Path:
    base = {"method": "evolve", "run file": str(directory / "run.txt"),
            "positions": str(labelled_set), "kind": "material", "generations": "12",
            "seed": "5", "output volume": "quiet"}
    path = directory / "run.cfg"
    path.write_text(config_text(base, **changes))
    return path


def run(config_path: Path) -> int:
    return trainer_for(parse_config(config_path), out=lambda line: None, progress=False).run()


def without_comments(path: Path) -> str:
    """A genome file without its `#` lines (they name the run's own path)."""
    return "".join(line for line in path.read_text().splitlines(True) if not line.startswith("#"))


def generation_lines(run_file: Path) -> list[str]:
    """The records' generation lines without their (wall-clock) seconds."""
    return [line.rsplit(" seconds ", 1)[0] for line in run_file.read_text().splitlines()
            if line.startswith("generation ")]


@pytest.mark.parametrize("optimiser", ["cma-es", "ga"])
def test_each_optimiser_finds_the_usual_order_from_equal_weights(tmp_path, labelled_set, optimiser):
    config = write_config(tmp_path, labelled_set, optimiser=optimiser, generations=30)
    assert run(config) == 0
    lines = generation_lines(tmp_path / "run.txt")
    assert len(lines) == 30
    first, last = (float(line.split()[3]) for line in (lines[0], lines[-1]))
    assert last < first - 0.01, (first, last)
    best = open_genome(tmp_path / "run.txt")
    assert best == open_genome(tmp_path / "run.txt_best.genome")     # a genome file, not a run
    pawn, knight, bishop, rook, queen = (best.weights[i] / best.weights[0] for i in range(5))
    assert pawn < knight and pawn < bishop and max(knight, bishop) < rook < queen, best.weights
    assert read_genomes(tmp_path / "run.txt_genomes.txt")[-1].id == 30
    start = load_genome(tmp_path / "run.txt_start.genome")
    assert start.weights[:6] == (1.0,) * 6          # kind = material: every piece equal


@pytest.mark.parametrize("optimiser", ["cma-es", "ga"])
def test_a_resumed_run_ends_exactly_as_an_uninterrupted_one(tmp_path, labelled_set, optimiser):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    assert run(write_config(whole, labelled_set, optimiser=optimiser)) == 0
    # In parts: 4 generations, then on to 7; then the state of generation 4 put
    # back, as if the run had been killed after writing generations 5-7's records
    # but before their state: nothing is written twice; then on to 12.
    assert run(write_config(parts, labelled_set, optimiser=optimiser, generations=4)) == 0
    saved = (parts / "run.txt_state.pickle").read_bytes()
    assert run(write_config(parts, labelled_set, optimiser=optimiser, generations=7)) == 0
    (parts / "run.txt_state.pickle").write_bytes(saved)
    assert pickle.loads(saved)["generation"] == 4
    assert run(write_config(parts, labelled_set, optimiser=optimiser, generations=12)) == 0
    assert generation_lines(parts / "run.txt") == generation_lines(whole / "run.txt")
    for name in ("run.txt_genomes.txt", "run.txt_best.genome", "run.txt_start.genome"):
        assert without_comments(parts / name) == without_comments(whole / name), name


def test_kill_9_in_the_middle_then_resume(tmp_path, labelled_set):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    whole.mkdir(), killed.mkdir()
    assert run(write_config(whole, labelled_set, generations=150)) == 0
    config = write_config(killed, labelled_set, generations=150)
    argv, env = train_command(str(config))
    proc = subprocess.Popen(argv, env=env, cwd=killed, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    records = killed / "run.txt"
    while time.monotonic() < deadline and (not records.exists() or len(generation_lines(records)) < 20):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(generation_lines(records))
    assert 20 <= done < 150, done
    assert run(config) == 0
    assert generation_lines(records) == generation_lines(whole / "run.txt")
    assert without_comments(killed / "run.txt_best.genome") == without_comments(whole / "run.txt_best.genome")


def test_the_time_limit_counts_generations_here(tmp_path, labelled_set):
    config = write_config(tmp_path, labelled_set, generations=10**6, time_limit="2 seconds")
    lines = []
    assert trainer_for(parse_config(config), out=lines.append, progress=False).run() == 0
    assert any(line.startswith("Time limit reached after ") and line.endswith(" generations this run.")
               for line in lines), lines[-3:]


def test_validation_games_the_champion_and_the_plots(tmp_path, labelled_set):
    config = write_config(tmp_path, labelled_set, generations=4, validation_games=2,
                          validation_interval=2, game_time=0.05, champion_interval=2,
                          champion_max_games=4)
    assert run(config) == 0
    records = (tmp_path / "run.txt").read_text()
    assert "validation 2: best vs start" in records and "validation 4: best vs start" in records
    assert (tmp_path / "run.txt_champion.genome").exists()
    proc = run_command(plot_command(str(tmp_path / "run.txt")), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("loss.png", "validation.png", "weights.png"):
        assert (tmp_path / "run.txt_plots" / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("changes, fragment", [
    (dict(positions="nope.epd"), "positions 'nope.epd' not found"),
    (dict(initial_genomes="{genome}"), "give the start genome (initial genomes = FILE) or a kind"),
    (dict(kind=None), "give the start genome (initial genomes = FILE) or a kind"),
    (dict(evolve="pieces"), "evolve: unknown group 'pieces'"),
    (dict(labels="mentor"), "mentor scores"),
    (dict(labels="mix"), "needs 'wdl'"),
    (dict(optimiser="sgd"), "expected one of cma-es, ga, adam"),
    (dict(wdl="1.5"), "must be at most 1"),
    (dict(kind=None, initial_genomes="{broken}"), "broken.genome:4: material genome: 'Knight' is not"),
])
def test_bad_configurations_are_one_line_and_write_nothing(tmp_path, labelled_set, capsys,
                                                          changes, fragment):
    genome = tmp_path / "start.genome"
    genome.write_text(STANDARD.to_text())
    broken = tmp_path / "broken.genome"
    broken.write_text(STANDARD.to_text().replace("Knight: 3", "Knight: three"))
    changes = {k: (v.format(genome=genome, broken=broken) if isinstance(v, str) else v)
               for k, v in changes.items()}
    config = write_config(tmp_path, labelled_set, **changes)
    assert train_cli.main([str(config)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.genome", "run.cfg", "start.genome"]


def test_multi_niche_crowding_with_fitness_by_positions(tmp_path, labelled_set):
    """Phoenix's algorithm on the position fitness: no games, fitness = -loss."""
    shutil.copy(labelled_set, tmp_path / "set.epd")
    config = tmp_path / "mnc.cfg"
    config.write_text(f"method = multi-niche crowding\nrun file = {tmp_path / 'run.db'}\n"
                      f"population = 6\ngenerations = 3\nseed = 2\n"
                      f"positions = {tmp_path / 'set.epd'}\n")
    lines = []
    assert trainer_for(parse_config(config), out=lines.append, progress=False).run() == 0
    generations = [line for line in lines if line.startswith("Generation ")]
    assert len(generations) == 3 and all(" 0 games " in line for line in generations)
    fitness = [float(line.split("fitness ")[1].split()[0]) for line in generations]
    assert all(-0.25 < f < 0 for f in fitness)       # minus a loss, better than a coin toss


def test_linear_kinds_are_scored_between_whole_numbers(tmp_path, labelled_set):
    """A draw less than half a centipawn from the start is a different loss to the
    optimiser (rounded, it would be the same genome, and CMA-ES's step size collapses
    on such flat steps); what the records and the genome files keep is whole."""
    trainer = trainer_for(parse_config(write_config(tmp_path, labelled_set, kind="pvt")),
                          out=lambda line: None, progress=False)
    trainer.origin = trainer.first_numbers()         # what open() sets from the run's start
    nudge = np.zeros((2, len(trainer.evolving)))
    nudge[1] = 0.02                                  # a fifth of a centipawn on every number
    smooth = trainer.full(nudge, whole=not trainer.smooth)
    assert trainer.smooth and not np.array_equal(smooth[0], smooth[1])
    assert np.array_equal(trainer.spec.legal(smooth[0]), trainer.spec.legal(smooth[1]))
    assert run(write_config(tmp_path, labelled_set, kind="pvt", generations="3")) == 0
    genome = read_genomes(tmp_path / "run.txt_best.genome")[-1]
    assert all(float(v).is_integer() for v in genome.numbers())


def test_the_quick_start_learns_the_usual_piece_order_from_nothing(tmp_path):
    """The README's first command (genchess/train/examples/quick.cfg, the shipped set):
    from every piece worth nothing, 60 generations already rank the pieces as a player
    does, pawn < knight, bishop < rook < queen, the minor pieces near three pawns."""
    from train_helpers import REPO_ROOT
    text = (REPO_ROOT / "genchess" / "train" / "examples" / "quick.cfg").read_text()
    changes = {"positions": str(REPO_ROOT / "genchess" / "data" / "positions.epd.gz"),
               "generations": "60", "validation games": "0", "run file": str(tmp_path / "quick.txt")}
    lines = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        lines.append(f"{key} = {changes.pop(key)}" if key in changes else line)
    config = tmp_path / "quick.cfg"
    config.write_text("\n".join(lines) + "\n")
    assert run(config) == 0
    start = load_genome(str(tmp_path / "quick.txt_start.genome"))
    assert start.material == (100, 0, 0, 0, 0) and not any(start.values)
    pawn, knight, bishop, rook, queen = load_genome(str(tmp_path / "quick.txt_best.genome")).material
    assert pawn < min(knight, bishop) and max(knight, bishop) < rook < queen
    assert 250 <= knight <= 450 and 250 <= bishop <= 450 and queen > 2 * rook - 300


def test_pvt_runs_plot_their_material_and_a_match_won_in_every_game(tmp_path, labelled_set):
    """A table kind's plots include its piece values over the generations, and a
    validation match won in every game (no finite Elo) is drawn at its one-sided bound."""
    config = write_config(tmp_path, labelled_set, kind="pvt", generations=3)
    assert run(config) == 0
    with open(tmp_path / "run.txt", "a") as records:
        records.write("validation 3: best vs start +20 =0 -0 games 20 elo +inf low +inf high +inf\n")
    proc = run_command(plot_command(str(tmp_path / "run.txt")), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("loss.png", "validation.png", "material.png", "tables.png"):
        assert (tmp_path / "run.txt_plots" / name).read_bytes()[:4] == b"\x89PNG"
