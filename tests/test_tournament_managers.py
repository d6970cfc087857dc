"""GenChess under real tournament managers: fastchess's UCI compliance check, and the
documentation's cutechess-cli command lines run as written (fewer games, a shorter clock),
with cutechess-cli as the referee of legality, crashes and clocks (timemargin 0).

The managers are found by genchess.strength.tournament_managers (PATH, then
$GENCHESS_TOURNAMENT_BIN); without them these tests skip, saying why.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import chess.pgn
import pytest

from engine_helpers import REPO_ROOT, genchess_command, peer_engine, tournament, tournament_manager

# The documented games, shortened: 2 games each, clocks a twentieth of the documented ones.
SHORT_TC = {"40/60+0.5": "40/3+0.025", "0/30+0.3": "0/2+0.02"}


def test_fastchess_compliance_passes():
    fastchess = tournament_manager("fastchess")
    command, env = genchess_command("uci")
    proc = subprocess.run([fastchess, "--compliance", *command], env=env, capture_output=True,
                          text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "Engine passed all compliance checks" in output, output[-3000:]
    assert "Failed" not in output, output[-3000:]


def documented_cutechess_commands() -> list[list[str]]:
    """Each cutechess-cli command in the shell blocks of README.md and docs/*.md (the GUI
    and tournament page holds them), split as a shell would."""
    commands = []
    for page in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S):
            joined = block.replace("\\\n", " ")
            commands += [shlex.split(line) for line in joined.splitlines()
                         if line.strip().startswith("cutechess-cli")]
    return commands


def shortened(argv: list[str], cutechess: str) -> list[str]:
    """A documented command with this machine's paths, 2 games and a short clock."""
    genchess, _ = genchess_command()
    out = [cutechess]
    for i, word in enumerate(argv[1:], start=1):
        key, _, value = word.partition("=")
        if word == "cmd=genchess":
            out += [f"cmd={genchess[0]}"] + [f"arg={a}" for a in genchess[1:]]
        elif key == "cmd" and value.startswith("/usr/games/"):
            out.append(f"cmd={peer_engine(value.rsplit('/', 1)[1])}")
        elif key == "tc":
            out.append(f"tc={SHORT_TC[value]}")
        elif argv[i - 1] == "-rounds":
            out.append("1")
        else:
            out.append(word)
    return out


COMMANDS = documented_cutechess_commands()


def test_the_docs_have_a_uci_and_an_xboard_cutechess_command():
    protocols = {word for argv in COMMANDS for word in argv if word.startswith("proto=")}
    assert {"proto=uci", "proto=xboard"} <= protocols
    assert all(value in SHORT_TC for argv in COMMANDS for word in argv
               for key, _, value in [word.partition("=")] if key == "tc")


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: next(
    w.split("=")[1] for w in argv if w.startswith("proto=")))
def test_documented_cutechess_command_runs_without_faults(argv, tmp_path):
    cutechess = tournament_manager("cutechess-cli")
    command = shortened(argv, cutechess)
    # The docs run it from the repository root after the Quick start: its data
    # directory and the evolved genome are there (any genome file stands for it).
    (tmp_path / "genchess").mkdir()
    (tmp_path / "genchess" / "data").symlink_to(REPO_ROOT / "genchess" / "data")
    shutil.copy(REPO_ROOT / "genchess" / "genomes" / "default.genome", tmp_path / "quick.txt_best.genome")
    _, env = genchess_command()
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    output = proc.stdout + proc.stderr
    shown = f"{shlex.join(command)}\n{output[-4000:]}"
    tm = tournament()
    assert proc.returncode == 0, shown
    assert not tm.warnings(output), shown
    games = tm.parse_games(output)
    assert len(games) == 2, shown
    assert all(game.result in ("1-0", "0-1", "1/2-1/2") for game in games), shown
    faults = tm.fault_counts(games, ["GenChess"])
    assert sum(faults["GenChess"].values()) == 0, f"{dict(faults['GenChess'])}\n{shown}"
    assert "disconnects" not in output and "stalls" not in output, shown
    assert re.search(r"^Score of GenChess vs \S+: \d+ - \d+ - \d+", output, re.M), shown
    # The PGN file holds both games, each legal to its end (python-chess replays them).
    with open(tmp_path / "match.pgn") as f:
        replayed = 0
        while (game := chess.pgn.read_game(f)) is not None:
            assert not game.errors, game.errors
            replayed += 1
    assert replayed == 2


def test_cutechess_result_lines_are_read_and_faults_charged_to_the_right_engine():
    tm = tournament()
    output = "\n".join([
        "Started game 1 of 5 (GenChess vs Stockfish)",
        "Finished game 1 (GenChess vs Stockfish): 0-1 {White loses on time}",
        "Finished game 2 (Stockfish vs GenChess): 1-0 {Black makes an illegal move: e2e5}",
        "Finished game 3 (Stockfish vs GenChess): 0-1 {White disconnects}",
        "Finished game 4 (GenChess vs Stockfish): 1/2-1/2 {Draw by timeout}",
        "Finished game 5 (GenChess vs Stockfish): 1-0 {White mates}",
        "Warning: Could not initialize player GenChess: ",
    ])
    games = tm.parse_games(output)
    assert [g.number for g in games] == [1, 2, 3, 4, 5]
    counts = tm.fault_counts(games, ["GenChess", "Stockfish"])
    assert counts["GenChess"]["time loss"] == 2 and counts["GenChess"]["illegal move"] == 1
    assert counts["Stockfish"]["crash"] == 1 and counts["Stockfish"]["time loss"] == 1
    assert games[4].fault is None and games[4].at_fault is None
    assert tm.warnings(output) == ["Warning: Could not initialize player GenChess: "]
