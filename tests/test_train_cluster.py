"""Training on a real dask.distributed cluster on loopback: runs, determinism, faults.

Everything here is real: a `LocalCluster` of two process workers (one thread each),
or `dask scheduler` and `dask worker` started as docs/cluster.md says, and the trainer
connecting to them by address. Nothing is mocked.

What is deterministic: the first genomes and the round-1 pairings follow from the
seed alone, and a game at a fixed depth (no clock) is the same game wherever it is
played. What is not: a timed game, the trainer's kind, depends on how fast each
move is found, so results (and hence later rounds) differ from run to run on any
executor, local or not. The gene-pool trainer plays timed games only, so the
executors are compared job by job at a fixed depth, and run by run on what the
seed fixes.

The default run keeps the fast tests (one cluster for the module); killing a
worker and losing the scheduler are `slow`.
"""

from __future__ import annotations

import os
import pickle
import signal
from random import Random

import pytest

distributed = pytest.importorskip("distributed", reason='needs pip install "genchess[cluster]"')

import genchess                                                   # noqa: E402
from genchess.genome import Genome, read_genome_file              # noqa: E402
from genchess.parallel import executors                              # noqa: E402
from genchess.train.gene_pool import GenePoolTrainer, job_key     # noqa: E402
from genchess.train.registry import parse_config                  # noqa: E402
from genchess.parallel.worker import GameJob, play_job               # noqa: E402
from train_helpers import (Background, DaskProcesses, check_run_files, complete_games_prefix,  # noqa: E402
                           complete_pool_prefix, count_game_starts, game_key, read_pgn_games,
                           run, train_command, wait_for, write_config)

POPULATION, POOLS, SWAP = 4, 2, 4


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as local:
        yield local.scheduler_address


@pytest.fixture
def keep_sigtstp():
    old = signal.getsignal(signal.SIGTSTP)
    yield
    signal.signal(signal.SIGTSTP, old)


def fixed_depth_job(depth: int = 2) -> GameJob:
    white, black = Genome.random(Random(1), 1), Genome.random(Random(2), 2)
    return GameJob.between(white, black, round=1, seconds=1.0, depth=depth)


# ------------------------------------------------------------------ default run

def test_gene_pool_run_on_a_two_worker_cluster_writes_valid_files(cluster, tmp_path, keep_sigtstp,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = {}
    for name, scheduler in (("cluster", cluster), ("local", None)):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        cfg = write_config(tmp_path / name / "run.cfg", time_limit="3 seconds", seed=17)
        config = parse_config(cfg)
        config.scheduler = scheduler
        lines: list[str] = []
        assert GenePoolTrainer(config, out=lines.append).run() == 0, "\n".join(lines[-20:])
        runs[name] = lines, tmp_path / name / "pool.txt"
    lines, pool_file = runs["cluster"]
    assert lines[0] == (f"Playing on the dask cluster at {cluster}: 2 workers (2 threads), "
                        f"GenChess {genchess.__version__}")
    games, snapshots, ids = check_run_files(pool_file, POPULATION, POOLS, SWAP, fresh=True)
    assert len(games) >= 4
    keys = [game_key(g) for g in games]
    assert len(keys) == len(set(keys))
    # What the seed fixes is the same on both executors: the first genomes and the
    # round-1 pairings (the results of timed games are not; see the module docstring).
    local_games = read_pgn_games(runs["local"][1].with_name("pool.txt_games.txt"))
    first = {name: read_genome_file(path).genomes[:POOLS * POPULATION]
             for name, (_, path) in runs.items()}
    assert [g.to_text() for g in first["cluster"]] == [g.to_text() for g in first["local"]]

    def round_one(games):
        return sorted((g.headers["Pool"], g.headers["WhiteID"], g.headers["BlackID"])
                      for g in games if g.headers["Round"] == "1")
    assert round_one(games) == round_one(local_games) and len(round_one(games)) == 4


def test_fixed_depth_job_gives_the_same_record_on_every_executor(cluster):
    job = fixed_depth_job()
    here = play_job(job).record
    for scheduler in (None, cluster):
        with executors.open_executor(scheduler, 1, out=lambda line: None) as executor:
            results = list(executors.completed(executor, play_job, [job, fixed_depth_job()], 2))
        assert len(results) == 2
        for result in results:
            assert result.record == here, scheduler
            assert result.job == job
    assert here.moves and here.result in ("1-0", "0-1", "1/2-1/2")


def test_a_duplicate_completion_is_yielded_once(cluster):
    job = fixed_depth_job(1)
    with executors.open_executor(cluster, 2, out=lambda line: None) as executor:
        results = list(executors.completed(executor, play_job, [job, job, job], 2, key=job_key))
    assert len(results) == 1 and results[0].job == job


def test_jobs_and_results_pickle_as_plain_data():
    job = fixed_depth_job(1)
    result = play_job(job)
    assert pickle.loads(pickle.dumps(job)) == job
    assert pickle.loads(pickle.dumps(result)) == result


def test_a_worker_with_another_version_is_refused_naming_both(cluster, tmp_path):
    """The worker-side version is changed by running a function in the worker
    processes (Client.run), as a worker with another install would report it."""
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds")
    with distributed.Client(cluster, set_as_default=False) as client:
        workers = sorted(client.scheduler_info()["workers"])
        client.run(exec, "import genchess; genchess.__version__ = '0.0.1-old'", workers=workers[:1])
        try:
            with pytest.raises(executors.ClusterError) as refused:
                with executors.open_executor(cluster, 2, out=lambda line: None):
                    pass
            proc = run(train_command(str(cfg), "--scheduler", cluster), cwd=tmp_path, timeout=120)
            # A worker that joins after the check: refused when it gets a game.
            with pytest.raises(executors.ClusterError) as late:
                executor = executors.GameExecutor(
                    client.get_executor(pure=False, workers=workers[:1]), "lost",
                    wrap=lambda fn, args: (executors.versioned, (genchess.__version__, fn, *args)))
                executor.submit(play_job, fixed_depth_job(1)).result(60)
        finally:
            client.run(exec, f"import genchess; genchess.__version__ = {genchess.__version__!r}",
                       workers=workers[:1])
    message = str(refused.value)
    assert workers[0] in message and "0.0.1-old" in message and genchess.__version__ in message
    assert "0.0.1-old" in str(late.value) and genchess.__version__ in str(late.value)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("genchess-train: worker ") and len(proc.stderr.splitlines()) == 1
    assert "0.0.1-old" in proc.stderr and "Traceback" not in proc.stderr
    # Refused before anything was written.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cfg"]


def test_bad_scheduler_values_exit_2_naming_where(tmp_path):
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds")
    with open(cfg, "a") as f:
        f.write("scheduler = tcp://host name:8786\n")
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and f"{cfg}:12: scheduler: expected tcp://HOST:PORT" in proc.stderr
    cfg = write_config(tmp_path / "run.cfg", time_limit="3 seconds")
    proc = run(train_command(str(cfg), "--scheduler", "local:0"), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("genchess-train: --scheduler: local:N needs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cfg"]


# ------------------------------------------------------------------ faults (slow)

@pytest.mark.slow
def test_a_worker_killed_mid_game_loses_and_duplicates_nothing(tmp_path):
    dask = DaskProcesses(tmp_path)
    cfg = write_config(tmp_path / "run.cfg", time_limit="25 seconds", minimum_game_time=1,
                       maximum_game_time=1.5, seed=31)
    games_file = tmp_path / "pool.txt_games.txt"
    bg = None
    try:
        with dask.client() as client:
            client.wait_for_workers(2, timeout=60)
            bg = Background(train_command(str(cfg), "--scheduler", dask.address), cwd=tmp_path)
            wait_for(lambda: count_game_starts(games_file) >= 2, 120, "two games", bg)
            # A worker with a game in progress: its process is killed, the nanny
            # starts another, the scheduler gives the game to a worker again.
            busy = wait_for(lambda: [w for w, keys in client.processing().items() if keys], 60,
                            "a worker playing a game")
            victim = client.run(os.getpid, workers=busy[:1])[busy[0]]
            lost_game = client.processing()[busy[0]][0]
            os.kill(victim, signal.SIGKILL)
            code = bg.wait(150)
    finally:
        if bg is not None:
            bg.kill_group()
        dask.close()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert code == 0 and "Traceback" not in output, output[-3000:]
    assert lost_game
    games, snapshots, ids = check_run_files(tmp_path / "pool.txt", POPULATION, POOLS, SWAP, fresh=True)
    keys = [game_key(g) for g in games]
    assert len(keys) == len(set(keys)), "a game was recorded twice"
    rounds = [int(g.headers["Round"]) for g in games]
    for r in range(1, max(rounds)):                 # no game of a closed round is missing
        assert rounds.count(r) == POOLS * POPULATION // 2, (r, rounds)


@pytest.mark.slow
def test_losing_the_scheduler_stops_with_one_line_and_the_files_resume(tmp_path):
    dask = DaskProcesses(tmp_path)
    cfg = write_config(tmp_path / "run.cfg", time_limit="120 seconds", seed=32)
    pool_file, games_file = tmp_path / "pool.txt", tmp_path / "pool.txt_games.txt"
    try:
        bg = Background(train_command(str(cfg), "--scheduler", dask.address), cwd=tmp_path)
        try:
            wait_for(lambda: count_game_starts(games_file) >= 5, 150, "5 games", bg)
            os.killpg(dask.scheduler.pid, signal.SIGKILL)
            code = bg.wait(60)
        finally:
            bg.kill_group()
    finally:
        dask.close()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert code == 1 and "Traceback" not in output, output[-3000:]
    stopped = [line for line in bg.stdout_lines if line.startswith("Stopped:")]
    assert stopped == [line for line in bg.stdout_lines if "scheduler" in line and "lost" in line]
    assert stopped[0].startswith(f"Stopped: lost the dask scheduler at {dask.address}. ")
    assert stopped[0].endswith("games are safely in pool.txt_games.txt; run the same command to resume.")
    assert bg.stderr_lines == []
    before_pool, before_games = pool_file.read_text(), games_file.read_text()
    assert complete_games_prefix(before_games) == before_games.rstrip("\n") + "\n"
    read_genome_file(pool_file)                     # every genome whole and readable
    assert len(read_pgn_games(games_file)) == count_game_starts(games_file) >= 5
    # The same command against a new scheduler resumes: nothing lost, nothing repeated.
    dask = DaskProcesses(tmp_path)
    try:
        write_config(cfg, time_limit="4 seconds", seed=32)
        proc = run(train_command(str(cfg), "--scheduler", dask.address), cwd=tmp_path, timeout=180)
    finally:
        dask.close()
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert any(line.startswith("Resuming pool.txt") for line in proc.stdout.splitlines())
    assert pool_file.read_text().startswith(complete_pool_prefix(before_pool))
    assert games_file.read_text().startswith(before_games)
    games, _, _ = check_run_files(pool_file, POPULATION, POOLS, SWAP, fresh=False)
    keys = [game_key(g) for g in games]
    assert len(keys) == len(set(keys)) and len(games) > count_game_starts_text(before_games)


def count_game_starts_text(text: str) -> int:
    return text.count("[Event ")


def test_kendall_whitwell_run_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    """Kendall-Whitwell players search a fixed depth, so the whole run is deterministic:
    the same seed gives byte-identical population and game files on any executor."""
    from genchess.train.kendall import KendallTrainer
    from train_helpers import config_text

    settings = {"method": "kendall-whitwell", "run file": "kw.txt", "population": "5",
                "generations": "2", "depth": "1", "seed": "8", "workers": "2"}
    files = {}
    for name, scheduler in (("cluster", cluster), ("local", None)):
        directory = tmp_path / name
        directory.mkdir()
        cfg = directory / "kw.cfg"
        cfg.write_text(config_text(settings), encoding="utf-8")
        config = parse_config(cfg)
        config.population_file = directory / "kw.txt"
        config.scheduler = scheduler
        lines: list[str] = []
        assert KendallTrainer(config, out=lines.append, progress=False).run() == 0, "\n".join(lines)
        games = (directory / "kw.txt_games.txt").read_text()
        # The Site tag names the run's file, which differs between the two directories,
        # and games are appended as they finish, an order no executor promises.
        games = "\n".join(line for line in games.splitlines() if not line.startswith("[Site "))
        files[name] = [(directory / "kw.txt").read_text(), sorted(g.strip() for g in games.split("[Event "))]
    assert files["cluster"] == files["local"]
    assert len(files["local"][1]) - 1 == 2 * 2 * (5 - 1)


def test_multi_niche_crowding_run_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    """Phoenix's trainer at a fixed search depth is deterministic too: the same seed
    gives the same chromosomes, parents and fitness in the database on any executor."""
    import sqlite3
    from genchess.train.mnc import MncTrainer

    rows = {}
    for name, scheduler in (("cluster", cluster), ("local", None)):
        directory = tmp_path / name
        directory.mkdir()
        cfg = directory / "run.cfg"
        cfg.write_text(f"method = multi-niche crowding\nrun file = {directory / 'run.db'}\n"
                       "population = 6\ndepth = 1\ngenerations = 2\nseed = 3\n",
                       encoding="utf-8")
        config = parse_config(cfg)
        config.scheduler = scheduler
        lines: list[str] = []
        assert MncTrainer(config, out=lines.append).run() == 0, "\n".join(lines)
        conn = sqlite3.connect(directory / "run.db")
        rows[name] = (conn.execute("SELECT * FROM population ORDER BY generation, chromosome").fetchall(),
                      conn.execute("SELECT id, generation, parent_a, parent_b, material, tables, "
                                   "fitness, games, niche FROM chromosomes "
                                   "ORDER BY id").fetchall())
        conn.close()
    assert rows["cluster"] == rows["local"]
    assert len(rows["local"][1]) > 6            # offspring were born and recorded


class FakeClient:
    """What _check_workers asks of a dask client: rounds of version answers, and the
    workers the scheduler still lists after each."""

    class scheduler:
        address = "tcp://127.0.0.1:1"

    def __init__(self, rounds):
        self.rounds = list(rounds)
        self.alive = set()

    def wait_for_workers(self, n, timeout):
        pass

    def run(self, function, on_error):
        versions, self.alive = self.rounds.pop(0)
        return versions

    def scheduler_info(self):
        return {"workers": {w: {} for w in self.alive}}


def test_a_worker_lost_during_the_version_check_is_left_out():
    """Seen by scripts/dev/soak.py: a worker killed while it was asked its version was
    taken for a worker that cannot run GenChess, and the run stopped."""
    import genchess
    from genchess.parallel.cluster import ClusterError, _check_workers
    me = genchess.__version__
    _check_workers(FakeClient([({"a": OSError("Stream is closed"), "b": me}, {"b"})]))
    _check_workers(FakeClient([({"a": TimeoutError()}, set()), ({"c": me}, {"c"})]))
    with pytest.raises(ClusterError, match="was lost while its GenChess version was checked, 3 times"):
        _check_workers(FakeClient([({"a": OSError()}, set())] * 3))
    with pytest.raises(ClusterError, match="worker a cannot run GenChess"):
        _check_workers(FakeClient([({"a": OSError("refused")}, {"a"})]))
    with pytest.raises(ClusterError, match="worker a cannot run GenChess"):
        _check_workers(FakeClient([({"a": ImportError("no genchess")}, set())]))
