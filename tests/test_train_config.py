"""Gene-pool configuration files: parsing, every error with its file:line, the CLI's
handling of a bad configuration (exit 2, one line, no traceback, no files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from genchess.train import cli as train_cli
from genchess.genome.genes import PIECE_STEP
from genchess.train.config import ConfigError, parse_duration
from genchess.train.gene_pool import METHOD as GENE_POOL
from genchess.train.registry import parse_config
from train_helpers import REPO_ROOT, config_text, run, train_command, write_config

EXAMPLES = REPO_ROOT / "genchess" / "train" / "examples"
# Line numbers in config_text(): one key a line, in this order.
LINE = {name: n for n, name in enumerate(
    ["workers", "gene pool population", "gene pool count", "pool swap interval",
     "minimum game time", "maximum game time", "game time added per round", "oscillating time",
     "run file", "seed"], start=1)}


def parse_text(tmp_path: Path, text: str, name: str = "run.cfg"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return parse_config(path), path


def config_error(tmp_path: Path, text: str, name: str = "bad.cfg") -> tuple[str, Path]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        parse_config(path)
    return str(info.value), path


# ------------------------------------------------------------------ good files

def test_every_value_is_read(tmp_path):
    text = config_text(seed=42) + ("search = budget\ntime limit = 30 minutes\n"
                                   "output volume = quiet\npiece value mutation = 0.25\n")
    cfg, path = parse_text(tmp_path, text)
    assert (cfg.workers, cfg.population, cfg.pool_count, cfg.swap_interval) == (2, 4, 2, 4)
    assert (cfg.min_time, cfg.max_time, cfg.time_increment) == (0.2, 0.4, 0.1)
    assert cfg.oscillating is True
    assert cfg.pool_file == Path("pool.txt")
    assert cfg.games_file == Path("pool.txt_games.txt")
    assert cfg.seed == 42
    assert cfg.search == "budget"
    assert cfg.time_limit == 1800
    assert cfg.quiet is True
    assert cfg.opening_file is None
    assert cfg.path == str(path)
    assert cfg.piece_step == 0.25


def test_optional_keys_have_documented_defaults(tmp_path):
    cfg, _ = parse_text(tmp_path, config_text(seed=None))
    assert cfg.piece_step == PIECE_STEP
    assert cfg.seed is None
    assert cfg.opening_file is None
    assert cfg.search == "iterative"
    assert cfg.time_limit is None
    assert cfg.quiet is False


@pytest.mark.parametrize("asked, population, workers", [(8, 16, 8), (8, 4, 2), (1, 16, 1), (3, 2, 1)])
def test_gene_pool_workers_are_at_most_half_the_population(tmp_path, asked, population, workers):
    from genchess.train.gene_pool import GenePoolTrainer
    cfg, _ = parse_text(tmp_path, config_text(workers=asked, gene_pool_population=population))
    assert cfg.workers == asked and GenePoolTrainer(cfg).workers == workers


# ------------------------------------------------------------------ renamed keys

def test_an_old_spelling_still_reads_with_one_line_naming_the_new_key(tmp_path, capsys):
    text = config_text(workers=None) + "maximum simultaneous games = 3\n"
    cfg, path = parse_text(tmp_path, text)
    assert cfg.workers == 3
    warning = capsys.readouterr().err.splitlines()
    assert warning == [f"{path}:10: 'maximum simultaneous games' is deprecated: write 'workers' "
                       f"(the old spelling goes in the next release)"]


def test_every_old_spelling_of_a_method_reads_as_its_new_key(tmp_path, capsys):
    text = ("method = multi-niche crowding\nchromosome database = run.db\n"
            "maximum generations = 7\nsearch depth = 2\nmaximum simultaneous games = 1\n")
    cfg, _ = parse_text(tmp_path, text)
    assert (cfg.generations, cfg.depth, cfg.workers) == (7, 2, 1)
    warned = capsys.readouterr().err
    assert all(f"write '{new}'" in warned for new in ("generations", "depth", "workers"))
    (tmp_path / "set.epd").write_text("")
    text = (f"method = evolve\npositions = {tmp_path / 'set.epd'}\nkind = material\n"
            f"run file = run.txt\nvalidation time = 0.5\nvalidation increment = 0.02\n")
    cfg, _ = parse_text(tmp_path, text)
    assert (cfg.game_time, cfg.increment) == (0.5, 0.02)


@pytest.mark.parametrize("method_lines, old, new, attribute, value", [
    ("", "game time increment = 0.3", "game time added per round", "time_increment", 0.3),
    ("", "gene pool file = old.txt", "run file", "pool_file", "old.txt"),
    ("method = kendall-whitwell\n", "population file = old.txt", "run file", "population_file", "old.txt"),
    ("method = multi-niche crowding\n", "chromosome database = old.db", "run file", "database", "old.db"),
    ("method = network\npositions = SET\nrun file = net.txt\n", "generations = 4", "epochs", "generations", 4),
    ("method = tune\nrun file = tune.txt\n", "generations = 4", "iterations", "generations", 4),
    ("method = tune\nrun file = tune.txt\n", "maximum generations = 4", "iterations", "generations", 4),
])
def test_each_renamed_key_reads_with_one_line_naming_its_new_name(tmp_path, capsys, method_lines, old,
                                                                  new, attribute, value):
    (tmp_path / "set.epd").write_text("")
    lines = method_lines.replace("SET", str(tmp_path / "set.epd"))
    if not lines:                               # the gene pool: the helper's keys without the new one
        lines = config_text(**{new.replace(" ", "_"): None})
    cfg, path = parse_text(tmp_path, lines + old + "\n")
    got = getattr(cfg, attribute)
    assert (Path(got).name if isinstance(value, str) else got) == value
    n = lines.count("\n") + 1
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:{n}: {old.split(' = ')[0]!r} is deprecated: write {new!r} (the old spelling goes in "
        f"the next release)"]


def test_evolve_keeps_generations_without_a_warning(tmp_path, capsys):
    (tmp_path / "set.epd").write_text("")
    cfg, _ = parse_text(tmp_path, f"method = evolve\npositions = {tmp_path / 'set.epd'}\nkind = material\n"
                                  f"run file = run.txt\ngenerations = 5\n")
    assert cfg.generations == 5 and capsys.readouterr().err == ""


def test_both_spellings_of_a_key_are_an_error_naming_both(tmp_path):
    message, path = config_error(tmp_path, config_text() + "maximum simultaneous games = 3\n")
    assert message == (f"{path}:11: 'maximum simultaneous games' is the old spelling of 'workers' "
                       f"(line 1): give one of the two")


def test_an_old_spelling_of_a_key_the_method_lacks_is_an_unknown_key(tmp_path):
    message, path = config_error(tmp_path, config_text() + "match time = 3\n")
    assert "unknown key 'match time' for method 'gene pool'" in message


def test_comments_blank_lines_case_and_spacing(tmp_path):
    text = ("# a comment line\n"
            "\n"
            "   \t\n"
            "  WORKERS=3   # trailing comment\n"
            "Gene   Pool\tPopulation = 6#no space before the comment\n"
            "gene pool count =1\n"
            "pool swap interval= 10\n"
            "minimum game time = 1.5\n"
            "maximum game time = 1e1\n"
            "game time added per round = 0\n"
            "Oscillating Time = NO\n"
            "run file = my pool.txt   # spaces inside a value are kept\n"
            "seed = +7\n"
            "Search = Iterative\n"
            "OUTPUT VOLUME = Verbose\n")
    cfg, _ = parse_text(tmp_path, text)
    assert (cfg.workers, cfg.population, cfg.pool_count, cfg.swap_interval) == (3, 6, 1, 10)
    assert (cfg.min_time, cfg.max_time, cfg.time_increment) == (1.5, 10.0, 0.0)
    assert cfg.oscillating is False
    assert cfg.pool_file == Path("my pool.txt")
    assert cfg.seed == 7
    assert cfg.search == "iterative" and cfg.quiet is False


def test_crlf_line_endings(tmp_path):
    cfg, _ = parse_text(tmp_path, config_text().replace("\n", "\r\n"))
    assert cfg.population == 4 and cfg.pool_file == Path("pool.txt")


def test_value_may_contain_an_equals_sign(tmp_path):
    cfg, _ = parse_text(tmp_path, config_text(run_file="a=b.txt"))
    assert cfg.pool_file == Path("a=b.txt")


def test_example_configs_parse_with_the_design_values():
    cfg = parse_config(EXAMPLES / "example.cfg")
    assert (cfg.workers, cfg.population, cfg.pool_count, cfg.swap_interval) == (8, 16, 3, 1000)
    assert (cfg.min_time, cfg.max_time, cfg.time_increment, cfg.oscillating) == (30, 120, 0.01, True)
    assert cfg.pool_file == Path("pool.txt")
    quick = parse_config(EXAMPLES / "gene-pool-quick.cfg")
    assert quick.time_limit == 120 and quick.seed == 1
    assert quick.population % 2 == 0 and quick.min_time <= quick.max_time


def test_every_example_study_and_lab_config_parses(monkeypatch):
    from genchess.train.kw_study import parse_study_config
    # The studies' runs (docs/studies/runs) and the lab's paused runs name files from
    # the repository root, where the study pages and lab/README.md say to run them.
    monkeypatch.chdir(REPO_ROOT)
    examples = sorted(EXAMPLES.glob("*.cfg"))
    studies = sorted((REPO_ROOT / "docs" / "studies" / "runs").glob("*.cfg"))
    lab = sorted((REPO_ROOT / "lab").rglob("*.cfg"))
    assert len(examples) >= 2 and studies and lab
    for path in examples + studies + lab:
        # A study's configuration drives several runs; genchess-kw-study reads it.
        parse_study_config(path) if path.stem.endswith("-study") else parse_config(path)


def test_opening_file_found_relative_to_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "book.epd").write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    cfg_dir = tmp_path / "configs"
    cfg_dir.mkdir()
    cfg = write_config(cfg_dir / "run.cfg", opening_file="book.epd")
    monkeypatch.chdir(tmp_path)
    assert parse_config(cfg).opening_file == Path("book.epd")


# ------------------------------------------------------------------ durations

@pytest.mark.parametrize("text, seconds", [
    ("2 hours", 7200), ("30 minutes", 1800), ("90 seconds", 90), ("90", 90), ("1 hour", 3600),
    ("1 minute", 60), ("1 second", 1), ("1.5 hours", 5400), ("2h", 7200), ("10 min", 600),
    ("45s", 45), ("1 day", 86400), ("2 HOURS", 7200), ("  3 minutes  ", 180), (".5 minutes", 30),
])
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "two hours", "2 fortnights", "2 hours 30 minutes", "-5 minutes",
                                  "0 seconds", "0", "hours", "1,5 hours", "5 m s", "nan", "inf"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_time_limit_in_a_file(tmp_path):
    cfg, _ = parse_text(tmp_path, config_text() + "time limit = 2 hours\n")
    assert cfg.time_limit == 7200
    message, path = config_error(tmp_path, config_text() + "time limit = 2 fortnights\n")
    assert message.startswith(f"{path}:11: time limit: ")
    assert "2 fortnights" in message


# ------------------------------------------------------------------ errors, each with file:line

def test_unknown_key(tmp_path):
    message, path = config_error(tmp_path, config_text() + "gene pool colour = blue\n")
    assert message.startswith(f"{path}:11: unknown key 'gene pool colour'")
    assert "--help" in message


def test_misspelled_key_reported_at_its_line(tmp_path):
    text = config_text().replace("pool swap interval", "pool swap intervall")
    message, path = config_error(tmp_path, text)
    assert message.startswith(f"{path}:{LINE['pool swap interval']}: unknown key 'pool swap intervall'")


def test_line_without_equals(tmp_path):
    message, path = config_error(tmp_path, "# header\n" + config_text() + "seed 5\n")
    assert message.startswith(f"{path}:12: expected 'key = value'")


def test_duplicate_key_names_both_lines(tmp_path):
    message, path = config_error(tmp_path, config_text() + "\nGene  Pool Population = 6\n")
    assert message.startswith(f"{path}:12: duplicated key 'gene pool population'")
    assert f"first at line {LINE['gene pool population']}" in message


def test_one_missing_key(tmp_path):
    message, path = config_error(tmp_path, config_text(oscillating_time=None))
    assert message == f"{path}: missing key: oscillating time"


def test_several_missing_keys_are_all_named(tmp_path):
    message, path = config_error(tmp_path, config_text(run_file=None, minimum_game_time=None,
                                                       pool_swap_interval=None))
    assert message.startswith(f"{path}: missing keys: ")
    for key in ("run file", "minimum game time", "pool swap interval"):
        assert key in message
    assert "seed" not in message           # optional keys are never missing


def test_empty_file_lists_every_required_key(tmp_path):
    message, path = config_error(tmp_path, "# nothing but a comment\n\n")
    for key in GENE_POOL.all_keys:
        assert (key.name in message) == key.required, key.name


BAD_VALUES = [
    # key, value, fragment of the problem
    ("workers", "two", "expected a whole number, not 'two'"),
    ("workers", "0", "must be at least 1"),
    ("gene pool population", "4.0", "expected a whole number"),
    ("gene pool population", "0", "must be at least 2"),
    ("gene pool population", "", "expected a whole number, not ''"),
    ("gene pool count", "-1", "must be at least 1"),
    ("pool swap interval", "1e3", "expected a whole number"),
    ("pool swap interval", "0", "must be at least 1"),
    ("seed", "abc", "expected a whole number"),
    ("minimum game time", "fast", "expected a number, not 'fast'"),
    ("minimum game time", "0", "must be at least 0.01"),
    ("minimum game time", "nan", "expected a finite number"),
    ("maximum game time", "inf", "expected a finite number"),
    ("maximum game time", "-1", "must be at least 0.01"),
    ("game time added per round", "-0.5", "must be at least 0"),
    ("game time added per round", "", "expected a number"),
    ("oscillating time", "maybe", "expected yes or no, not 'maybe'"),
    ("oscillating time", "true", "expected yes or no"),
    ("oscillating time", "1", "expected yes or no"),
    ("run file", "", "expected a file name"),
]


@pytest.mark.parametrize("key, value, fragment", BAD_VALUES, ids=[f"{k}={v!r}" for k, v, _ in BAD_VALUES])
def test_bad_value_reported_with_file_line_and_key(tmp_path, key, value, fragment):
    message, path = config_error(tmp_path, config_text(**{key.replace(" ", "_"): value}))
    assert message.startswith(f"{path}:{LINE[key]}: {key}: "), message
    assert fragment in message


@pytest.mark.parametrize("key, value, fragment", [
    ("search", "random", "expected one of iterative, budget, ga, minimax, not 'random'"),
    ("search", "", "expected one of iterative, budget, ga, minimax"),
    ("output volume", "loud", "expected verbose or quiet, not 'loud'"),
    ("time limit", "soon", "expected a duration"),
    ("time limit", "0 minutes", "positive"),
    ("opening file", "", "expected a file name"),
    ("piece value mutation", "0", "must be at least 0.001"),
    ("piece value mutation", "big", "expected a number, not 'big'"),
    ("piece value mutation", "50", "at most 10"),
])
def test_bad_optional_value_reported_with_file_line_and_key(tmp_path, key, value, fragment):
    message, path = config_error(tmp_path, config_text() + f"{key} = {value}\n")
    assert message.startswith(f"{path}:11: {key}: "), message
    assert fragment in message


def test_odd_population(tmp_path):
    message, path = config_error(tmp_path, config_text(gene_pool_population=5))
    assert message.startswith(f"{path}:{LINE['gene pool population']}: gene pool population must be even")


def test_minimum_above_maximum_game_time(tmp_path):
    message, path = config_error(tmp_path, config_text(minimum_game_time=3, maximum_game_time=2))
    assert message.startswith(f"{path}:{LINE['minimum game time']}: minimum game time is above the "
                              f"maximum game time (line {LINE['maximum game time']})")


def test_equal_minimum_and_maximum_game_time_is_fine(tmp_path):
    cfg, _ = parse_text(tmp_path, config_text(minimum_game_time=1, maximum_game_time=1))
    assert cfg.min_time == cfg.max_time == 1


def test_missing_opening_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message, path = config_error(tmp_path, config_text() + "opening file = no-such-book.epd\n")
    assert message.startswith(f"{path}:11: opening file 'no-such-book.epd' not found")


def test_first_error_in_file_order_is_reported(tmp_path):
    text = config_text(gene_pool_count="x") + "bogus = 1\n"
    message, path = config_error(tmp_path, text)
    assert message.startswith(f"{path}:{LINE['gene pool count']}: gene pool count: ")


def test_unreadable_config_files(tmp_path):
    with pytest.raises(ConfigError, match=r"no-such\.cfg: no such file"):
        parse_config(tmp_path / "no-such.cfg")
    binary = tmp_path / "binary.cfg"
    binary.write_bytes(b"\xff\xfe\x00garbage\x81")
    with pytest.raises(ConfigError, match=r"binary\.cfg: not a UTF-8 text file"):
        parse_config(binary)
    with pytest.raises(ConfigError, match="cannot read"):
        parse_config(tmp_path)                      # a directory


# ------------------------------------------------------------------ the command line

def test_help_lists_every_key(tmp_path):
    proc = run(train_command("--help"), cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    help_text = " ".join(proc.stdout.split())
    for key in GENE_POOL.all_keys:
        assert key.name in help_text, key.name
        assert " ".join(key.help.split()) in help_text, key.name
    assert "Ctrl-Z" in help_text and "Ctrl-C" in help_text
    assert list(tmp_path.iterdir()) == []


BAD_CONFIGS = {
    "unknown key": (config_text() + "colour = blue\n", ":11: unknown key"),
    "missing key": (config_text(run_file=None), "missing key: run file"),
    "duplicate key": (config_text() + "seed = 3\n", ":11: duplicated key 'seed'"),
    "bad int": (config_text(gene_pool_count="two"), ":3: gene pool count: expected a whole number"),
    "bad float": (config_text(maximum_game_time="x"), ":6: maximum game time: expected a number"),
    "bad bool": (config_text(oscillating_time="sometimes"), ":8: oscillating time: expected yes or no"),
    "bad search": (config_text() + "search = deep\n", ":11: search: expected one of iterative, budget, ga, minimax"),
    "bad volume": (config_text() + "output volume = 11\n", ":11: output volume: expected verbose or quiet"),
    "bad duration": (config_text() + "time limit = 2 eons\n", ":11: time limit: expected a duration"),
    "odd population": (config_text(gene_pool_population=7), ":2: gene pool population must be even"),
    "min above max": (config_text(minimum_game_time=9), ":5: minimum game time is above"),
    "missing opening file": (config_text() + "opening file = nope.epd\n", ":11: opening file 'nope.epd'"),
}


@pytest.mark.parametrize("name", list(BAD_CONFIGS))
def test_bad_config_exits_2_with_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys, name):
    text, fragment = BAD_CONFIGS[name]
    cfg = tmp_path / "bad.cfg"
    cfg.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert train_cli.main([str(cfg)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"genchess-train: {cfg}")
    assert fragment in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cfg"]


@pytest.mark.parametrize("text, fragment", [
    ("this is not a FEN\n", "book.epd:1:"),
    ("# only a comment\n\n", "no positions in opening file"),
])
def test_bad_opening_file_contents_exit_2_before_any_file_is_written(tmp_path, monkeypatch, capsys,
                                                                   text, fragment):
    (tmp_path / "book.epd").write_text(text)
    cfg = tmp_path / "run.cfg"
    cfg.write_text(config_text() + "opening file = book.epd\n")
    monkeypatch.chdir(tmp_path)
    assert train_cli.main([str(cfg)]) == 2
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and fragment in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.epd", "run.cfg"]


def test_pool_file_in_a_missing_directory_exits_2(tmp_path, monkeypatch, capsys):
    cfg = write_config(tmp_path / "run.cfg", run_file="no/such/dir/pool.txt")
    monkeypatch.chdir(tmp_path)
    assert train_cli.main([str(cfg)]) == 2
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and "no/such/dir/pool.txt" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cfg"]


def test_existing_garbage_pool_file_exits_2_and_is_left_alone(tmp_path, monkeypatch, capsys):
    cfg = write_config(tmp_path / "run.cfg")
    pool = tmp_path / "pool.txt"
    pool.write_text("shopping list\neggs\nmilk\n")
    monkeypatch.chdir(tmp_path)
    assert train_cli.main([str(cfg)]) == 2
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and "pool.txt" in err, err
    assert pool.read_text() == "shopping list\neggs\nmilk\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.txt", "run.cfg"]


@pytest.mark.parametrize("name", ["unknown key", "odd population", "missing opening file"])
def test_bad_config_as_a_process_exits_2_without_traceback(tmp_path, name):
    text, fragment = BAD_CONFIGS[name]
    cfg = tmp_path / "bad.cfg"
    cfg.write_text(text, encoding="utf-8")
    proc = run(train_command(str(cfg)), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert fragment in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cfg"]


def test_missing_config_file_as_a_process(tmp_path):
    proc = run(train_command("nowhere.cfg"), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "genchess-train: nowhere.cfg: no such file"
    assert list(tmp_path.iterdir()) == []


def test_method_key_defaults_to_the_gene_pool(tmp_path):
    plain, _ = parse_text(tmp_path, config_text())
    explicit, _ = parse_text(tmp_path, config_text() + "method = Gene  Pool\n", name="explicit.cfg")
    assert explicit.population == plain.population and explicit.pool_file == plain.pool_file


def test_unknown_method_names_the_line_and_the_known_methods(tmp_path):
    message, path = config_error(tmp_path, "method = evolution\n" + config_text())
    assert f"{path}:1: method: expected one of gene pool" in message


def test_a_key_of_no_method_is_refused_with_the_method_named(tmp_path):
    message, path = config_error(tmp_path, config_text() + "mutation scaling = 2\n")
    assert "unknown key 'mutation scaling' for method 'gene pool'" in message


def test_positions_may_name_a_folder_of_chunks_but_not_a_missing_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chunks").mkdir()
    cfg, _ = parse_text(tmp_path, "method = network\nrun file = net.txt\npositions = chunks\n")
    assert cfg.positions == Path("chunks")
    message, path = config_error(tmp_path, "method = network\nrun file = net.txt\npositions = gone\n")
    assert message == f"{path}:3: positions 'gone' not found (a set file or a folder of them)"
    (tmp_path / "newer").mkdir()
    cfg, _ = parse_text(tmp_path, "method = network\nrun file = net.txt\npositions = chunks, newer\n")
    assert list(cfg.positions) == [Path("chunks"), Path("newer")] and str(cfg.positions) == "chunks, newer"
    message, path = config_error(tmp_path, "method = network\nrun file = net.txt\npositions = chunks, gone\n")
    assert message == f"{path}:3: positions 'gone' not found (a set file or a folder of them)"
    message, path = config_error(tmp_path, "method = network\nrun file = net.txt\npositions = chunks,\n")
    assert message == (f"{path}:3: positions: expected set files or folders separated by commas, "
                       f"not 'chunks,'")


def test_wdl_alone_blends_the_labels_and_the_old_names_still_read(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "set.epd").write_text("")
    base = "method = network\nrun file = net.txt\npositions = set.epd\n"
    cfg, _ = parse_text(tmp_path, base + "wdl = 0.25\n")
    assert (cfg.labels, cfg.wdl) == ("mix", 0.25)
    cfg, _ = parse_text(tmp_path, base + "labels = mix\nwdl = 0\n")
    assert (cfg.labels, cfg.wdl) == ("mix", 0.0)
    for old in ("result share", "mentor weight"):
        capsys.readouterr()
        cfg, path = parse_text(tmp_path, base + f"labels = mix\n{old} = 0.25\n")
        assert (cfg.labels, cfg.wdl) == ("mix", 0.25)
        assert capsys.readouterr().err == (f"{path}:5: {old!r} is deprecated: write 'wdl' (the old "
                                           f"spelling goes in the next release)\n")
    message, path = config_error(tmp_path, base + "labels = mix\n")
    assert message == f"{path}:4: labels = mix needs 'wdl' (the result's weight in the label, 0 to 1)"
    message, path = config_error(tmp_path, base + "labels = mentor\nwdl = 0.3\n")
    assert message.startswith(f"{path}:5: wdl blends the result into the mentor's label, but labels = mentor")
    message, path = config_error(tmp_path, base + "wdl = 1.5\n")
    assert message == f"{path}:4: wdl: must be at most 1, not 1.5"

