"""`genchess match` on the command line: bad input, and a real tiny match."""

import json
import subprocess

import pytest

from engine_helpers import genchess_command, peer_engine


def match(*args, timeout=120):
    argv, env = genchess_command("match", *args)
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, message", [
    (["nosuch", "genchess"], "unknown engine 'nosuch'"),
    (["uci:/no/such/engine", "genchess"], "command '/no/such/engine' not found"),
    (["genchess", "genchess", "--tc", "10+x"], "time control '10+x'"),
    (["genchess", "genchess", "--tc", "nodes=0"], "nodes must be a whole number"),
    (["genchess", "genchess", "--sprt", "elo0=3", "elo1=1"], "must be below elo1"),
    (["genchess", "genchess", "--games", "0"], "--games must be at least 1"),
    (["genchess:/no/such.genome", "genchess"], "cannot read genome file"),
    (["genchess", "genchess", "--resume"], "--resume continues the match in a PGN file"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    done = match(*args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_bad_opening_file_names_its_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("e2e4 e7e5\ne2e4 e2e5\n")
    done = match("genchess", "genchess", "--openings", str(bad))
    assert done.returncode == 2 and f"{bad}:2: illegal move 'e2e5'" in done.stderr


def test_tiny_match_against_stockfish(tmp_path):
    stockfish = peer_engine("stockfish")
    pgn = tmp_path / "m.pgn"
    done = match("genchess", f"uci:{stockfish} Skill\\ Level=0 name=SF", "--games", "2",
                 "--tc", "2+0.05", "--concurrency", "1", "--pgn", str(pgn), "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 2 and result["pairs"] == 1
    assert result["engines"] == ["GenChess", "SF"]
    assert sum(result["pentanomial"]) == 1
    assert "Game 2/2" in done.stderr and "Score of GenChess vs SF" in done.stderr
    assert pgn.read_text().count('[TimeControl "2+0.05"]') == 2
    # GenChess never loses by rule at this time control.
    assert not [f for f in result["failures"] if f["engine"] == "GenChess"]


def test_ctrl_c_stops_the_match_with_130_and_every_counted_game_in_the_pgn(tmp_path):
    """Ctrl-C is acted on between games: the score printed counts exactly the
    games in the PGN file, and the process exits at once without a traceback."""
    import os
    import signal
    import time

    import chess.pgn

    from train_helpers import Background, count_game_starts, wait_for

    pgn = tmp_path / "m.pgn"
    bg = Background(genchess_command("match", "random", "random", "--games", "2000",
                                     "--tc", "depth=1", "--concurrency", "2", "--pgn", str(pgn)),
                    cwd=tmp_path)
    try:
        wait_for(lambda: count_game_starts(pgn) >= 6, 120, "6 games", bg)
        os.kill(bg.pid, signal.SIGINT)
        started = time.monotonic()
        code = bg.wait(60)
        seconds = time.monotonic() - started
    finally:
        bg.kill_group()
    output = "\n".join(bg.stdout_lines + bg.stderr_lines)
    assert code == 130 and "Traceback" not in output, output[-3000:]
    assert seconds < 30, f"took {seconds:.0f} s to stop"
    assert "Stopped: interrupted" in output
    with open(pgn, encoding="utf-8") as f:
        games = 0
        while chess.pgn.read_game(f) is not None:
            games += 1
    score = [line for line in bg.stdout_lines if line.startswith("Score of ")]
    assert score and score[0].endswith(f" {games} games"), (score, games)


def test_a_node_count_is_refused_for_an_xboard_engine_that_cannot_keep_one():
    # python-chess asks an xboard engine for a node limit only through its nps feature;
    # without it every game would end as a protocol error, so the match refuses at once.
    xboard = " ".join(genchess_command("xboard")[0])
    done = match("genchess", f"xboard:{xboard} name=X", "--tc", "nodes=200", "--games", "2")
    assert done.returncode == 2, done.stderr
    assert "cannot keep to a node count (xboard without the nps feature)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_sprt_alone_is_the_default_test(tmp_path):
    # What the trainers print at their end: `--sprt` with no settings, elo0=0 elo1=10.
    done = match("random", "random", "--sprt", "--games", "2", "--tc", "1+0.01", "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    assert "SPRT [0, 10]" in done.stdout and "LLR" in done.stdout
