"""Multi-niche crowding (Phoenix): each operator alone, the stop rules, the
configuration, and tiny real runs through genchess-train (database, resume after
kill -9, plots, playing the best chromosome)."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest

from engine_helpers import genchess_command, run_into_closed_pipe
from genchess.drawing import tables_title
from genchess.genome import PvtGenome, load_genome, open_genome
from genchess.genome.pvt import N_VALUES, TABLE_INDEX, TABLES
from genchess.train.config import ConfigError
from genchess.train.registry import parse_config
from genchess.train.mnc import (TABLE_LIMIT, MncConfig, behaviour, crossover, crowding_selection,
                                distance, mutate, niches, relative_change, replacement,
                                round_robin_fitness, round_robin_pairs, similarity_boards,
                                stop_reason)

BOOK = Path(__file__).resolve().parent / "data" / "tiny-book.bin"


class ScriptedRng:
    """Hands out the given draws in order, so a test knows what an operator drew."""

    def __init__(self, draws):
        self.draws = list(draws)

    def choice(self, seq):
        value = self.draws.pop(0)
        assert value in seq
        return value

    def randrange(self, n):
        value = self.draws.pop(0)
        assert 0 <= value < n
        return value


def pvt(seed, genome_id=1):
    return PvtGenome.random(random.Random(seed), genome_id)


# ------------------------------------------------------------------ similarity

@pytest.fixture(scope="module")
def boards():
    return similarity_boards()


def test_similarity_identical_players_zero_different_positive(boards):
    a, b = pvt(1), pvt(2)
    assert distance(behaviour(a, boards), behaviour(a.copy(new_id=9), boards)) == 0.0
    assert distance(behaviour(a, boards), behaviour(b, boards)) > 0.0
    assert distance(behaviour(a, boards), behaviour(b, boards)) == distance(behaviour(b, boards),
                                                                            behaviour(a, boards))


def test_similarity_is_phenotypic_unused_squares_do_not_count(boards):
    """A pawn never stands on rank 1 or 8: changing those squares changes no play."""
    a = pvt(3)
    values = list(a.values)
    for phase in ("mg", "eg"):
        start = TABLE_INDEX[("pawn", phase)] * 64
        for sq in list(range(8)) + list(range(56, 64)):
            values[start + sq] += 40
    b = PvtGenome(2, values)
    assert sum(x != y for x, y in zip(a.values, b.values)) == 32       # far apart by Hamming
    assert distance(behaviour(a, boards), behaviour(b, boards)) == 0.0


def test_similarity_positions_cover_openings_and_end_games(boards):
    pieces = [len(chess.Board(b.fen()).piece_map()) for b in boards]
    assert len(boards) >= 40 and min(pieces) <= 6 and max(pieces) == 32


# ------------------------------------------------------------------ selection, replacement

def test_crowding_selection_picks_the_most_similar_of_the_drawn():
    behaviours = [np.array([float(x)]) for x in (0, 10, 3, 7, 1, 20)]
    # A = 0 (at 0.0); drawn 5, 3, 5: the closest of those is 3 (at 7), though 4 (at 1) is closer.
    assert crowding_selection(0, behaviours, 3, ScriptedRng([5, 3, 5])) == 3
    assert crowding_selection(0, behaviours, 2, ScriptedRng([4, 1])) == 4
    # A itself is never drawn as its own mate.
    with pytest.raises(AssertionError):
        crowding_selection(0, behaviours, 1, ScriptedRng([0]))


def test_replacement_removes_the_least_fit_of_the_most_similar():
    behaviours = [np.array([float(x)]) for x in (0, 5, 9, 10, 30, 31)]
    fitness = [0.1, 0.9, 0.8, 0.2, 0.0, 0.7]
    child = np.array([10.0])
    # Groups (C_f = 2, s = 3): {0, 4, 3} -> most similar to the child is 3; {5, 2, 1} -> 2.
    # Of 3 (fitness 0.2) and 2 (0.8) the least fit dies: 3. Not 4, the least fit of all.
    assert replacement(child, behaviours, fitness, 2, 3, ScriptedRng([0, 4, 3, 5, 2, 1])) == 3
    # One group of one: that individual, whatever its fitness.
    assert replacement(child, behaviours, fitness, 1, 1, ScriptedRng([1])) == 1


# ------------------------------------------------------------------ crossover, mutation

def test_crossover_takes_whole_tables_from_either_parent():
    a, b = pvt(4), pvt(5)
    values, material = crossover(a, b, random.Random(2), rate=1.0)
    sources = set()
    for t in range(len(TABLES)):
        table = values[t * 64:(t + 1) * 64]
        assert table in (list(a.values[t * 64:(t + 1) * 64]), list(b.values[t * 64:(t + 1) * 64]))
        sources.add(table == list(a.values[t * 64:(t + 1) * 64]))
    assert sources == {True, False}
    assert material == list(a.material)
    assert crossover(a, b, random.Random(2), rate=0.0)[0] == list(a.values)


def test_mutation_changes_a_few_squares_within_bounds():
    a = pvt(6)
    values, material = mutate(list(a.values), list(a.material), random.Random(1), squares=4, size=30)
    changed = [i for i in range(N_VALUES) if values[i] != a.values[i]]
    assert 1 <= len(changed) <= 4 and material == list(a.material)
    big, _ = mutate([TABLE_LIMIT] * N_VALUES, [100] * 5, random.Random(1), squares=50, size=1000)
    assert max(map(abs, big)) <= TABLE_LIMIT
    _, evolved = mutate(list(a.values), list(a.material), random.Random(1), 0, 10, evolve_material=True)
    assert sum(x != y for x, y in zip(evolved, a.material)) <= 1


# ------------------------------------------------------------------ round robin

@pytest.mark.parametrize("n, k", [(6, 3), (7, 3), (20, 3), (4, 3), (3, 5), (2, 3)])
def test_round_robin_every_player_plays_at_least_k_games(n, k):
    pairs = round_robin_pairs(n, k)
    games = [0] * n
    for white, black in pairs:
        assert white != black and 0 <= white < n and 0 <= black < n
        games[white] += 1
        games[black] += 1
    assert min(games) >= k
    assert max(games) - min(games) <= 1 + (n % 2)
    if k <= n - 1:      # no pair meets twice before everyone has met
        assert len({frozenset(p) for p in pairs}) == len(pairs)


def test_full_round_robin_meets_every_pair():
    pairs = round_robin_pairs(6, 5)
    assert {frozenset(p) for p in pairs} == {frozenset((i, j)) for i in range(6) for j in range(i + 1, 6)}


def test_round_robin_fitness_arithmetic():
    results = [(0, 1, "1-0"), (1, 2, "1/2-1/2"), (2, 0, "0-1"), (0, 3, "1/2-1/2"), (3, 1, "0-1")]
    fitness, games = round_robin_fitness(4, results)
    assert games == [3, 3, 2, 2]
    assert fitness == pytest.approx([2.5 / 3, 1.5 / 3, 0.5 / 2, 0.5 / 2])


def test_niches_are_clusters_under_the_radius():
    behaviours = [np.array([float(x)]) for x in (0, 4, 8, 50, 53, 200)]
    labels = niches(behaviours, radius=5)
    assert labels[0] == labels[1] == labels[2]          # chained: 0-4-8
    assert labels[3] == labels[4] != labels[0]
    assert len(set(labels)) == 3
    assert len(set(niches(behaviours, radius=0.5))) == 6


# ------------------------------------------------------------------ stop rules

def rules(**changes):
    return MncConfig(path="x", database=Path("x"), **{**dict(generations=100, unchanged_generations=3,
                                                             small_change=0.01, small_change_generations=2),
                                                      **changes})


def test_stop_after_the_maximum_generations():
    assert stop_reason([1, 2], [[0], [9]], rules(generations=3)) is None
    assert "maximum of 3" in stop_reason([1, 2, 3], [[0], [9], [0]], rules(generations=3))


def test_stop_when_the_best_is_unchanged():
    assert stop_reason([1, 2, 2], [[100] * 4, [0] * 4, [0] * 4], rules(small_change_generations=9)) is None
    assert "same for 3" in stop_reason([1, 2, 2, 2], [[100] * 4, [0] * 4, [0] * 4, [0] * 4],
                                       rules(small_change_generations=9))


def test_stop_when_the_best_changes_little():
    base = [100] * 64
    tiny = [100] * 63 + [101]           # 1 in 6400: below 1%
    big = [100] * 63 + [200]            # 100 in 6400: above 1%
    assert relative_change(base, tiny) < 0.01 < relative_change(base, big)
    assert stop_reason([1, 2, 3], [big, base, tiny], rules()) is None       # only one small change
    assert "less than 1%" in stop_reason([1, 2, 3, 4], [big, base, tiny, base], rules())


# ------------------------------------------------------------------ configuration

def write_config(tmp_path, **keys):
    values = {"method": "multi-niche crowding", "run file": str(tmp_path / "run.db"),
              "population": "6", "depth": "1", "generations": "2", "seed": "3"}
    for key, value in keys.items():
        name = key.replace("_", " ")
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    path = tmp_path / "run.cfg"
    path.write_text("".join(f"{k} = {v}\n" for k, v in values.items()))
    return path


def test_config_reads_the_method_keys(tmp_path):
    config = parse_config(write_config(tmp_path, selection_size="4", random_mating_order="yes",
                                       book_file=str(BOOK)))
    assert isinstance(config, MncConfig)
    assert (config.population, config.depth, config.selection_size, config.random_order) == (6, 1, 4, True)
    assert config.games_per_player == 3 and config.book_file == BOOK
    shipped = Path(__file__).resolve().parents[1] / "genchess" / "train" / "examples" / "phoenix.cfg"
    assert parse_config(shipped).population == 20 and str(parse_config(shipped).database) == "phoenix.db"


@pytest.mark.parametrize("keys, line, problem", [
    (dict(crossover_rate="2"), 7, "crossover rate: must be at most 1"),
    (dict(mutation_squares="-1"), 7, "must be at least 0"),
    (dict(gene_pool_count="2"), 7, "unknown key 'gene pool count' for method 'multi-niche crowding'"),
    (dict(book_file="nope.bin"), 7, "cannot open book"),
    (dict(population="many"), 3, "expected a whole number"),
])
def test_bad_config_names_file_and_line(tmp_path, keys, line, problem):
    path = write_config(tmp_path, **keys)
    with pytest.raises(ConfigError, match=f"{path}:{line}: .*{problem}"):
        parse_config(path)
    with pytest.raises(ConfigError, match="missing key: run file"):
        parse_config(write_config(tmp_path, run_file=None))


# ------------------------------------------------------------------ real runs

def train(*args, timeout=120):
    # From a scratch directory: in the repository root, `python -m` would import the
    # uncompiled source tree instead of the installed package.
    _, env = genchess_command()
    return subprocess.run([sys.executable, "-m", "genchess.train.cli", *args], env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())


def check_consistent(db_path, population):
    """No generation half-written: each complete generation has its members scored
    and the next population stored; nothing exists beyond the next population."""
    conn = sqlite3.connect(db_path)
    complete = [g for (g,) in conn.execute("SELECT generation FROM generations ORDER BY generation")]
    assert complete == list(range(len(complete)))
    for g in complete:
        scored = conn.execute("SELECT COUNT(*) FROM population WHERE generation=? AND fitness IS NOT NULL",
                              (g,)).fetchone()[0]
        assert scored == population
    following = len(complete)
    assert conn.execute("SELECT COUNT(*) FROM population WHERE generation=?", (following,)).fetchone()[0] \
        == population
    assert conn.execute("SELECT COUNT(*) FROM population WHERE generation>?", (following,)).fetchone()[0] == 0
    assert conn.execute("SELECT MAX(generation) FROM chromosomes").fetchone()[0] <= following
    conn.close()
    return len(complete)


def test_tiny_run_writes_the_database_plots_and_plays(tmp_path):
    config = write_config(tmp_path)
    proc = train(str(config))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Generation ") == 2 and "niches" in proc.stdout
    db = tmp_path / "run.db"
    assert check_consistent(db, 6) == 2
    # Loading: the best of the last complete generation by default, any chromosome by ID.
    conn = sqlite3.connect(db)
    best = conn.execute("SELECT chromosome FROM population WHERE generation=1 ORDER BY fitness DESC, "
                        "chromosome LIMIT 1").fetchone()[0]
    born_late = conn.execute("SELECT MAX(id) FROM chromosomes").fetchone()[0]
    conn.close()
    assert open_genome(db).id == best
    assert open_genome(db, born_late).id == born_late and born_late > 6
    # Export as a genome file that reads back equal.
    out = tmp_path / "best.genome"
    proc = train("--export", str(db), "--id", str(born_late), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert load_genome(out) == open_genome(db, born_late)
    # Plots.
    argv, env = genchess_command()
    plot = [sys.executable, "-m", "genchess.plot", str(db), "--out", str(tmp_path / "plots")]
    proc = subprocess.run(plot, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for name in ("tables.png", "fitness.png", "niches.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    # Play straight from the database.
    argv, env = genchess_command("--genome", str(db), "uci")
    with chess.engine.SimpleEngine.popen_uci(argv, env=env) as engine:
        assert engine.play(chess.Board(), chess.engine.Limit(depth=3)).move in chess.Board().legal_moves


def test_export_into_a_closed_pipe_stops_quietly(tmp_path):
    # `genchess train --export run.db | head -0`: status 1 and nothing said, as for the
    # engine's own commands (the genome is short: it breaks the pipe only when flushed).
    from fuzz_readers import database_sample
    db = tmp_path / "run.db"
    db.write_bytes(database_sample())
    proc = run_into_closed_pipe("train", "--export", str(db))
    assert (proc.returncode, proc.stderr) == (1, "")


def test_resume_after_kill_9(tmp_path):
    config = write_config(tmp_path, generations="400", population="4", games_per_player="1")
    db = tmp_path / "run.db"
    argv, env = genchess_command()
    proc = subprocess.Popen([sys.executable, "-m", "genchess.train.cli", str(config)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            cwd=tmp_path)
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and done < 3:
        time.sleep(0.05)
        if db.exists():
            try:
                conn = sqlite3.connect(db)
                done = conn.execute("SELECT COUNT(*) FROM generations").fetchone()[0]
                conn.close()
            except sqlite3.OperationalError:
                pass
    os.killpg(proc.pid, signal.SIGKILL)         # the trainer and its worker processes
    proc.wait()
    assert done >= 3, proc.stderr.read().decode()
    complete = check_consistent(db, 4)
    config.write_text(config.read_text().replace("generations = 400",
                                                 f"generations = {complete + 2}"))
    proc = train(str(config))
    assert proc.returncode == 0, proc.stderr
    assert f"at generation {complete}" in proc.stdout
    assert check_consistent(db, 4) == complete + 2


@pytest.mark.parametrize("content, as_genome, as_database", [
    # A text file is a genome file to the engine; --export wants a database.
    (b"not a database at all\n", "text outside a genome", "not a SQLite database"),
    (None, "not a GenChess chromosome database", "not a GenChess chromosome database"),
    (b"SQLite format 3\x00" + b"\x07" * 2000, "damaged or unreadable SQLite database",
     "damaged or unreadable SQLite database"),
])
def test_bad_database_is_one_clear_line(tmp_path, content, as_genome, as_database):
    path = tmp_path / "bad.db"
    if content is None:                 # a foreign SQLite database
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE songs (title TEXT)")
        conn.commit()
        conn.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    argv, env = genchess_command("--genome", str(path), "uci")
    proc = subprocess.run(argv, env=env, input="quit\n", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and as_genome in proc.stderr and str(path) in proc.stderr
    proc = train("--export", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and as_database in proc.stderr and str(path) in proc.stderr
    assert path.read_bytes() == before                   # never touched


def test_missing_id_and_empty_database_messages(tmp_path):
    proc = train(str(write_config(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    argv, env = genchess_command("--genome", str(tmp_path / "run.db"), "--genome-id", "999", "uci")
    proc = subprocess.run(argv, env=env, input="quit\n", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "no chromosome with ID 999" in proc.stderr
    config = write_config(tmp_path, population="8")
    proc = train(str(config))
    assert proc.returncode == 2 and "population of 6" in proc.stderr and "Traceback" not in proc.stderr


def test_a_database_held_by_another_writer_is_a_clear_error(tmp_path):
    from genchess.train.chromosome_db import ChromosomeDB, DatabaseError
    path = tmp_path / "held.db"
    ChromosomeDB(path, create=True).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    db = ChromosomeDB(path, write=True)
    db.conn.execute("PRAGMA busy_timeout=50")
    with pytest.raises(DatabaseError, match=f"{path}: cannot write .*locked"):
        db.set_meta({"seed": 1})
    holder.execute("ROLLBACK")
    db.set_meta({"seed": 1})
    assert db.meta() == {"seed": "1"}


def test_champion_interval_works_in_multi_niche_crowding(tmp_path):
    """The SPRT-gated champion is every method's: here it is crowned from the fittest
    of a generation once the first interval of games is crossed."""
    config = write_config(tmp_path, population="4", generations="2", champion_interval="6",
                          champion_max_games="4")
    proc = train(str(config))
    assert proc.returncode == 0, proc.stderr
    assert "Champion: " in proc.stdout
    champion = tmp_path / "run.db_champion.genome"
    assert champion.exists() and open_genome(champion).KIND == "pvt"


# ------------------------------------------------------------------ tables inside a host evaluation

GENOMES = Path(__file__).resolve().parents[1] / "genchess" / "genomes"


def test_a_host_plays_the_chromosomes_tables_and_keeps_every_other_number():
    host = load_genome(GENOMES / "unified.genome")
    chromosome = pvt(5, genome_id=9)
    player = host.hosting(chromosome)
    assert player.id == 9 and player.KIND == "unified"
    for piece in ("pawn", "knight", "bishop", "king"):
        for phase in ("mg", "eg"):
            assert player.group(piece, phase) == chromosome.table(piece, phase)
    for piece in ("rook", "queen"):             # the paper's end game uses the middle game's table
        assert player.group(piece, "eg") == player.group(piece, "mg") == chromosome.table(piece, "mg")
    for group in ("material", "mobility knight", "passed pawn", "king zone", "tempo"):
        assert player.group(group, "mg") == host.group(group, "mg")
        assert player.group(group, "eg") == host.group(group, "eg")
    assert player.search_pawn == host.search_pawn and player.search == host.search
    # Only the tables moved: the host's own tables, hosted, give its middle game back.
    own = PvtGenome(1, [v for piece, phase in TABLES for v in host.group(piece, phase)])
    assert host.hosting(own).mg == host.mg


def test_a_hosted_runs_tables_plot_does_not_name_the_material_it_never_played():
    chromosome = pvt(5, genome_id=9)
    alone = tables_title(chromosome)
    assert "chromosome 9" in alone and f"material {' '.join(map(str, chromosome.material))}" in alone
    hosted = tables_title(chromosome, hosted=True)
    assert "chromosome 9" in hosted and "material 100" not in hosted and "host's material" in hosted


@pytest.mark.parametrize("keys, line, problem", [
    (dict(host_genome=str(GENOMES / "evolved.genome")), 7, "is a material genome; only a unified genome"),
    (dict(host_genome=str(GENOMES / "unified.genome"), evolve_material="yes"), 8,
     "evolve material: not with a host genome \\(line 7\\): the host's material stays"),
    (dict(host_genome="no-such.genome"), 7, "host genome 'no-such.genome' not found"),
    (dict(host_genome=str(GENOMES / "unified.genome"), positions="set.epd"), 8,
     "positions: not with a host genome \\(line 7\\): a hosted chromosome is judged by games"),
])
def test_a_bad_host_genome_names_file_and_line(tmp_path, keys, line, problem):
    (tmp_path / "set.epd").write_text('8/8/8/8/8/8/k7/K7 w - - c9 "1/2-1/2";\n')
    keys = dict(keys)
    if "positions" in keys:
        keys["positions"] = str(tmp_path / keys["positions"])
    path = write_config(tmp_path, **keys)
    with pytest.raises(ConfigError, match=f"{path}:{line}: .*{problem}"):
        parse_config(path)


def test_a_hosted_run_plays_inside_its_host_and_keeps_to_it(tmp_path):
    host = GENOMES / "unified.genome"
    config = write_config(tmp_path, population="4", games_per_player="1", generations="1",
                          host_genome=str(host))
    proc = train(str(config))
    assert proc.returncode == 0, proc.stderr
    assert f"playing inside {host}'s evaluation" in proc.stdout
    db = tmp_path / "run.db"
    best = open_genome(db)
    assert best.KIND == "unified"
    reader_best = sqlite3.connect(db).execute(
        "SELECT chromosome FROM population WHERE generation=0 ORDER BY fitness DESC, chromosome "
        "LIMIT 1").fetchone()[0]
    assert best == load_genome(host).hosting(open_chromosome(db, reader_best))
    # Resumed without its host (or with another), the database is refused, untouched.
    before = db.read_bytes()
    proc = train(str(write_config(tmp_path, population="4", games_per_player="1", generations="2")))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "evolved with another host genome, not with no host genome" in proc.stderr
    assert db.read_bytes() == before


def open_chromosome(db, chromosome_id):
    from genchess.genome.run_files import ChromosomeReader
    reader = ChromosomeReader(db)
    try:
        return reader.chromosome(chromosome_id)
    finally:
        reader.close()
