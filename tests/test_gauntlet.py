"""`genchess gauntlet`: config parsing, skipping, and a small real gauntlet."""

import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine_helpers import genchess_command
from genchess.strength.gauntlet import GauntletError, markdown_table, parse_gauntlet
from genchess.strength.stats import MatchStats

SHIPPED = Path(__file__).parents[1] / "genchess" / "data" / "gauntlet.cfg"


def test_shipped_config_parses_with_a_stockfish_ladder():
    config = parse_gauntlet(SHIPPED)
    ladder = [a.rating for a in config.anchors if a.name.startswith("stockfish")]
    assert ladder[0] == 1350 and ladder[-1] == 2800 and ladder == sorted(ladder)
    others = [a for a in config.anchors if not a.name.startswith("stockfish")]
    assert {a.name for a in others} == {"fairymax", "phalanx", "gnuchess", "glaurung", "toga2", "ethereal"}
    assert all(a.rating is None for a in others)          # unmeasured until the lead measures


@pytest.mark.parametrize("text, message", [
    ("games = x\n", ":1: games: expected a whole number"),
    ("colour = red\n", ":1: unknown key 'colour'"),
    ("[opponent a]\nrating = 1500\n", ":1: opponent 'a' has no command"),
    ("[opponent a]\ncommand = random\nrating = strong\n", ":3: rating: expected a number"),
    ("[opponent a]\ncommand = random\n[opponent a]\ncommand = random\n", ":3: opponent 'a' appears twice"),
    ("engine = genchess\n", "no [opponent NAME] sections"),
])
def test_config_errors_name_their_line(tmp_path, text, message):
    path = tmp_path / "g.cfg"
    path.write_text(text)
    with pytest.raises(GauntletError, match=re.escape(message)):
        parse_gauntlet(path)


def test_small_gauntlet_writes_table_and_plot(tmp_path):
    config = tmp_path / "g.cfg"
    config.write_text("engine = genchess\ngames = 2\ntc = depth=1\n\n"
                      "[opponent random]\ncommand = random name=Random\nrating = 0 (by definition)\n\n"
                      "[opponent turing]\ncommand = turing name=Turing\nrating = 400\n\n"
                      "[opponent ghost]\ncommand = uci:/no/such/engine\nrating = 3000\n\n"
                      "[opponent later]\ncommand = random\nrating = unmeasured\n")
    argv, env = genchess_command("gauntlet", str(config), "--concurrency", "1",
                                 "--out", str(tmp_path / "out"))
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "skipping ghost" in done.stdout and "skipping later: rating unmeasured" in done.stdout
    table = (tmp_path / "out.md").read_text()
    assert "| random | 0 | 2 |" in table and "| turing | 400 | 2 |" in table
    assert "Gauntlet of GenChess: rating" in table
    png = (tmp_path / "out.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10000


def test_without_out_the_table_goes_to_the_current_folder_not_beside_the_config(tmp_path):
    """A shipped config lives in the installed package: its results must not."""
    config = gauntlet_config(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    argv, env = genchess_command("gauntlet", str(config), "--concurrency", "1", "--opponents", "random")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, cwd=here)
    assert done.returncode == 0, done.stderr + done.stdout
    assert (here / "g_gauntlet.md").is_file() and (here / "g_gauntlet.png").is_file()
    assert not list(tmp_path.glob("g_gauntlet.*"))


def gauntlet_config(tmp_path):
    config = tmp_path / "g.cfg"
    config.write_text("engine = genchess\ngames = 2\ntc = depth=1\n\n"
                      "[opponent random]\ncommand = random name=Random\nrating = 0\n\n"
                      "[opponent turing]\ncommand = turing name=Turing\nrating = 400\n")
    return config


def run_gauntlet_cli(*args):
    argv, env = genchess_command("gauntlet", *args, "--concurrency", "1")
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


def test_a_resumed_gauntlet_counts_each_opponents_games_and_plays_the_rest(tmp_path):
    config, pgn, out = gauntlet_config(tmp_path), tmp_path / "g.pgn", str(tmp_path / "out")
    # The first run: only the games against Random.
    first = run_gauntlet_cli(str(config), "--pgn", str(pgn), "--out", out, "--opponents", "random")
    assert first.returncode == 0, first.stderr + first.stdout
    assert pgn.read_text().count("[Round ") == 2
    # The second: Random's two games are counted, not replayed; Turing's are played.
    second = run_gauntlet_cli(str(config), "--pgn", str(pgn), "--out", out, "--resume")
    assert second.returncode == 0, second.stderr + second.stdout
    assert second.stdout.count("Resumed 2 games") == 1
    games = pgn.read_text()
    assert games.count("[Round ") == 4
    assert games.count('"Random"') == 2 and games.count('"Turing"') == 2
    table = (tmp_path / "out.md").read_text()
    assert "| random | 0 | 2 |" in table and "| turing | 400 | 2 |" in table
    assert "(95%, 4 games" in table
    # A third run has nothing left to play and fits the same four games.
    third = run_gauntlet_cli(str(config), "--pgn", str(pgn), "--out", out, "--resume")
    assert third.returncode == 0 and third.stdout.count("Resumed 2 games") == 2
    assert pgn.read_text() == games


@pytest.mark.parametrize("args, message", [
    (["--resume"], "--resume continues the gauntlet in a PGN file"),
    (["--resume", "--pgn", "{pgn}", "--games", "1"], "outside this match of 1 games"),
    (["--resume", "--pgn", "{pgn}", "--tc", "5+0.1"], "- (White) and - (Black), but this match plays 5+0.1 and 5+0.1"),
])
def test_resume_refuses_another_gauntlet(tmp_path, args, message):
    config, pgn = gauntlet_config(tmp_path), tmp_path / "g.pgn"
    first = run_gauntlet_cli(str(config), "--pgn", str(pgn), "--out", str(tmp_path / "out"),
                             "--opponents", "random")
    assert first.returncode == 0, first.stderr + first.stdout
    before = pgn.read_text()
    args = [arg.format(pgn=pgn) for arg in args]
    done = run_gauntlet_cli(str(config), "--out", str(tmp_path / "out"), *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and pgn.read_text() == before


def test_an_opponent_not_yet_played_shows_no_score():
    # A gauntlet stopped before an opponent's turn: its row says so, not "0.500".
    played = MatchStats()
    played.add_game(1.0)
    played.add_game(0.5)
    fit = SimpleNamespace(rating=1500.0, error=300.0, games=2, prior_draws=False)
    table = markdown_table("GenChess", [(SimpleNamespace(name="a", rating=1400.0), played),
                                        (SimpleNamespace(name="b", rating=1800.0), MatchStats())], fit)
    assert "| a | 1400 | 2 | 1 | 1 | 0 | 0.750 |" in table
    assert "| b | 1800 | 0 | 0 | 0 | 0 | - | - |" in table
