"""Runs that survive their faults: scripts/dev/soak.py (gene-pool, evolve and positions runs
killed whole or in a worker at random moments, resumed, checked), its checks shown to
catch what they look for, and the resume bugs the soak found, each held by a test that
stops a run at the very point it found."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import pickle
import re
import shutil
import signal
from pathlib import Path

import pytest

from genchess.position_sets.cli import add_positions_arguments, cmd_positions
from genchess.train.registry import parse_config, trainer_for
from script_helpers import load_script, run_script, small_set

soak = load_script("dev/soak.py")

FIGURES = re.compile(r"^total: (\d+) trials, (\d+) kills, (\d+) worker kills, (\d+) resumes, "
                     r"(\d+) checks, (\d+) failures$", re.M)


def totals(output: str) -> dict[str, int]:
    match = FIGURES.search(output)
    assert match, output
    return dict(zip(("trials", "kills", "worker_kills", "resumes", "checks", "failures"),
                    map(int, match.groups())))


# ------------------------------------------------------------------ the soak itself

@pytest.mark.slow      # about a minute: the default run keeps its unit checks and the resume tests
def test_quick_soak_kills_each_kind_whole_and_in_a_worker_and_finds_nothing():
    done = run_script("dev/soak.py", "--quick", "--seed", "3", timeout=300)
    figures = totals(done.stdout)
    assert done.returncode == 0 and figures["failures"] == 0, done.stdout + done.stderr
    assert figures["trials"] == 3 and figures["kills"] >= 2 and figures["resumes"] >= 3, done.stdout
    for kind in ("gene pool", "evolve", "positions"):
        assert re.search(rf"^{kind} +all +1 ", done.stdout, re.M), done.stdout


@pytest.mark.slow
def test_soak_of_a_few_minutes_on_local_processes_and_a_loopback_cluster():
    done = run_script("dev/soak.py", "--minutes", "4", "--seed", "5", timeout=1800)
    figures = totals(done.stdout)
    assert done.returncode == 0 and figures["failures"] == 0, done.stdout + done.stderr
    for kind in ("gene pool", "evolve", "positions"):
        for executor in ("local", "dask"):
            row = re.search(rf"^{kind} +{executor} +(\d+) +(\d+) +(\d+) +(\d+)", done.stdout, re.M)
            assert row and int(row.group(1)) >= 1, done.stdout


def test_bad_arguments_are_one_line_and_status_2():
    done = run_script("dev/soak.py", "--kinds", "gene-pool,tune")
    assert done.returncode == 2 and "--kinds: expected some of gene-pool, evolve, positions" in done.stderr


# ------------------------------------------------------------------ the checks catch faults

@pytest.fixture(scope="module")
def gene_pool_run(tmp_path_factory) -> Path:
    """A short gene-pool run of the soak's configuration, in-process."""
    directory = tmp_path_factory.mktemp("pool")
    kind = soak.GenePool(directory, 7, 1, quick=True)
    kind.prepare(directory)
    config = parse_config(directory / "run.cfg")
    config.pool_file = directory / "pool.txt"
    config.time_limit = 3
    trainer = trainer_for(config, out=lambda line: None,
                          executor_factory=lambda n: cf.ThreadPoolExecutor(n))
    ctrl_z = signal.getsignal(signal.SIGTSTP)       # the trainer takes Ctrl-Z for its pause
    try:
        assert trainer.run() == 0
    finally:
        signal.signal(signal.SIGTSTP, ctrl_z)
    return directory


def replay_problems(directory: Path, launches: int = 1) -> list[str]:
    problems: list[str] = []
    soak.replay_gene_pool(directory / "pool.txt", 7, soak.GenePool.POPULATION, soak.GenePool.POOLS,
                          soak.GenePool.SWAP, launches, problems)
    return problems


def tampered(run: Path, tmp_path: Path, name: str, change) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    path = copy / name
    path.write_text(change(path.read_text()))
    return copy


def test_the_gene_pool_replay_accepts_a_run_and_catches_a_changed_result(gene_pool_run, tmp_path):
    assert replay_problems(gene_pool_run) == []
    games = (gene_pool_run / "pool.txt_games.txt").read_text()
    assert games.count("[Event ") >= 8
    copy = tampered(gene_pool_run, tmp_path, "pool.txt_games.txt",
                    lambda text: text.replace('[Result "1-0"]', '[Result "0-1"]', 1)
                    if '[Result "1-0"]' in text else text.replace('[Result "0-1"]', '[Result "1-0"]', 1))
    assert replay_problems(copy), "a game whose result changed went unnoticed"


def test_the_gene_pool_checks_catch_a_game_counted_twice_and_a_changed_offspring(gene_pool_run, tmp_path):
    text = (gene_pool_run / "pool.txt_games.txt").read_text()
    first = text[:text.index("[Event ", 1)]
    twice = tampered(gene_pool_run, tmp_path / "a", "pool.txt_games.txt", lambda t: t + first)
    problems: list[str] = []
    soak.GenePool(twice, 7, 1, True).after_stop(twice, problems)
    assert any("recorded twice" in p for p in problems), problems
    pool = (gene_pool_run / "pool.txt").read_text()
    offspring = int(re.search(r'\[Offspring "(\d+)"\]', text).group(1))
    block = re.search(rf"^ID: {offspring}\n.*?^END$", pool, re.M | re.S).group(0)
    value = re.search(r"^Priority: (-?[\d.]+)$", block, re.M)
    changed = block.replace(value.group(0), f"Priority: {float(value.group(1)) + 0.5:g}", 1)
    mutated = tampered(gene_pool_run, tmp_path / "b", "pool.txt", lambda t: t.replace(block, changed))
    assert any(f"offspring {offspring}" in p for p in replay_problems(mutated))


def test_the_positions_and_continuation_checks_catch_a_lost_or_doubled_position():
    problems: list[str] = []
    line = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 "1-0";'
    soak.Positions.check_set(line + "\n" + line + "\n", 2, "set", problems)
    assert problems == ["set: a position written twice"]
    problems.clear()
    soak.Positions.check_set(line + "\n", 2, "set", problems)
    assert problems == ["set: 1 positions, the run counted 2"]
    problems.clear()
    soak.must_continue("a\nb\n", "a\nc\nd\n", "f", problems)
    assert problems and "changed at character 2" in problems[0]


def test_the_evolve_checks_catch_a_generation_written_twice(tmp_path):
    (tmp_path / "run.txt").write_text("# GenChess evolve run: x\ngeneration 1: loss 1\n"
                                      "generation 1: loss 1\n")
    (tmp_path / "run.txt_state.pickle").write_bytes(pickle.dumps({"generation": 1}))
    problems: list[str] = []
    soak.Evolve(tmp_path, 1, 1, True).after_stop(tmp_path, problems)
    assert any("generation lines are not 1, 2, 3" in p for p in problems), problems


# ------------------------------------------------------------------ the resume bugs it found

@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    return small_set(tmp_path_factory.mktemp("set"), 1500)


def evolve_config(directory: Path, labelled: Path, **changes) -> Path:
    directory.mkdir(exist_ok=True)
    values = {"method": "evolve", "run file": str(directory / "run.txt"), "positions": str(labelled),
              "kind": "material", "generations": "6", "seed": "9", "output volume": "quiet",
              "workers": "1"}
    values.update({k.replace("_", " "): str(v) for k, v in changes.items()})
    path = directory / "run.cfg"
    path.write_text("".join(f"{k} = {v}\n" for k, v in values.items()))
    return path


def evolve(config: Path, stop_at_score: int | None = None) -> int:
    """Run (or resume) an evolve run in this process; stop_at_score: Ctrl-C at that scoring."""
    trainer = trainer_for(parse_config(config), out=lambda line: None, progress=False)
    if stop_at_score is not None:
        calls = [0]
        score = trainer.score

        def interrupted(*args, **kwargs):
            calls[0] += 1
            if calls[0] == stop_at_score:
                raise KeyboardInterrupt
            return score(*args, **kwargs)
        trainer.score = interrupted
    return trainer.run()


def evolve_files(directory: Path) -> dict[str, str]:
    files = {name: soak.without_comments((directory / name).read_text())
             for name in ("run.txt_genomes.txt", "run.txt_best.genome", "run.txt_start.genome")}
    files["run.txt"] = "\n".join(line.rsplit(" seconds ", 1)[0]
                                 for line in (directory / "run.txt").read_text().splitlines()[1:])
    return files


@pytest.fixture(scope="module")
def whole_evolve(tmp_path_factory, labelled) -> Path:
    directory = tmp_path_factory.mktemp("whole")
    assert evolve(evolve_config(directory, labelled)) == 0
    return directory


def test_an_evolve_run_stopped_in_its_first_generation_resumes(tmp_path, labelled, whole_evolve):
    # It wrote its records' header before its first state: the same command then
    # refused the run as "not resumable", so a run stopped early had to be thrown away.
    config = evolve_config(tmp_path, labelled)
    assert evolve(config, stop_at_score=1) == 130
    assert evolve(config) == 0
    assert evolve_files(tmp_path) == evolve_files(whole_evolve)
    assert (tmp_path / "run.txt").read_text().count("# GenChess evolve run:") == 1


def test_a_generation_recorded_without_its_genome_gets_its_genome(tmp_path, labelled, whole_evolve):
    # Killed between a generation's line and its genome: the replay of the generation
    # saw the line and wrote neither, so that genome was missing for good.
    config = evolve_config(tmp_path, labelled, generations=3)
    assert evolve(config) == 0
    state, genomes = ((tmp_path / name).read_bytes() for name in ("run.txt_state.pickle", "run.txt_genomes.txt"))
    assert evolve(evolve_config(tmp_path, labelled, generations=4)) == 0
    (tmp_path / "run.txt_state.pickle").write_bytes(state)
    (tmp_path / "run.txt_genomes.txt").write_bytes(genomes)          # generation 4's line, no genome
    assert evolve(evolve_config(tmp_path, labelled)) == 0
    assert evolve_files(tmp_path) == evolve_files(whole_evolve)


def test_a_validation_match_recorded_before_the_kill_is_not_recorded_again(tmp_path, labelled):
    # Killed between a validation match's line and the state: the replay played the
    # match again and recorded it twice.
    settings = dict(validation_games=2, validation_interval=2, game_time=0.05, game_increment=0.01)
    assert evolve(evolve_config(tmp_path, labelled, generations=1, **settings)) == 0
    state = (tmp_path / "run.txt_state.pickle").read_bytes()
    assert evolve(evolve_config(tmp_path, labelled, generations=2, **settings)) == 0
    (tmp_path / "run.txt_state.pickle").write_bytes(state)
    assert evolve(evolve_config(tmp_path, labelled, generations=4, **settings)) == 0
    validations = [line.split(":")[0] for line in (tmp_path / "run.txt").read_text().splitlines()
                   if line.startswith("validation ")]
    assert validations == ["validation 2", "validation 4"]


class Killed(BaseException):
    """A kill -9, as far as the code running at that moment can tell."""


def positions_args(output: Path, *more: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_positions_arguments(parser)
    return parser.parse_args(["--play", "genchess", "--games", "2", "--nodes", "200", "--per-game",
                              "3", "--workers", "1", "-o", str(output), *more])


def test_a_positions_run_killed_while_it_cleans_up_resumes(tmp_path, monkeypatch):
    # It removed its work file before its journal: killed between the two, the
    # journal named a work file that was gone and --resume refused the run.
    whole = tmp_path / "whole.epd.gz"
    assert cmd_positions(positions_args(whole)) == 0
    killed = tmp_path / "killed.epd.gz"
    removed = []
    unlink = Path.unlink

    def unlink_then_die(path, *args, **kwargs):
        if path.name.startswith("killed.epd.gz"):
            if removed:
                raise Killed
            removed.append(path.name)
        return unlink(path, *args, **kwargs)
    monkeypatch.setattr(Path, "unlink", unlink_then_die)
    with pytest.raises(Killed):
        cmd_positions(positions_args(killed))
    monkeypatch.setattr(Path, "unlink", unlink)
    assert removed == ["killed.epd.gz.journal"]
    assert cmd_positions(positions_args(killed, "--resume")) == 0
    assert killed.read_bytes() == whole.read_bytes()
    assert not Path(f"{killed}.part").exists() and not Path(f"{killed}.journal").exists()
