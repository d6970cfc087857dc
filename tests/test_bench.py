"""`genchess bench`: the node-count signature and the command line.

The bench searches fixed positions to a fixed depth from a cleared hash table, so
its total node count is a signature of the code and the genome: it must be the
same on every run, in this process and in a fresh one. The command is run the way
a user runs it, `python -m genchess bench`, from a scratch directory.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from genchess.bench import BENCH_POSITIONS, DEFAULT_DEPTH, DEFAULT_RUNS, BenchMismatch, run_bench
from genchess.engine import Engine
from genchess.genome import hand_set_genome
from genchess_core import Board

REPO_ROOT = Path(__file__).resolve().parents[1]
SUMMARY = {
    "time": re.compile(r"^Total time \(ms\) : (\d+)$"),
    "nodes": re.compile(r"^Nodes searched  : (\d+)$"),
    "nps": re.compile(r"^Nodes/second    : (\d+)$"),
}


def quiet_bench(depth, engine=None):
    lines = []
    nodes, elapsed = run_bench(engine or Engine(), depth, out=lines.append)
    return nodes, elapsed, lines


def _env_for(cwd):
    """The environment for running `python -m genchess` from `cwd`: as is when the
    package is importable there (an installed genchess), else with the repository
    root on PYTHONPATH (a source checkout)."""
    env = dict(os.environ)
    probe = subprocess.run([sys.executable, "-c", "import genchess, genchess_core"],
                           cwd=cwd, env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def run_cli(args, cwd, timeout=120):
    return subprocess.run([sys.executable, "-m", "genchess", *args], cwd=cwd, env=_env_for(cwd),
                          capture_output=True, text=True, timeout=timeout)


def parse_summary(stdout):
    found = {}
    for line in stdout.splitlines():
        for key, pattern in SUMMARY.items():
            match = pattern.match(line)
            if match:
                assert key not in found, f"two '{key}' lines"
                found[key] = int(match.group(1))
    return found


# --------------------------------------------------------------------------- positions

def test_there_are_enough_bench_positions():
    assert len(BENCH_POSITIONS) >= 30
    assert len(set(BENCH_POSITIONS)) == len(BENCH_POSITIONS)


@pytest.mark.parametrize("fen", BENCH_POSITIONS)
def test_bench_position_is_a_legal_fen(fen):
    board = chess.Board(fen)
    assert board.is_valid(), board.status()
    assert not board.is_game_over(), "a finished game has nothing to search"
    ours = Board(fen)
    assert ours.fen() == board.fen()
    assert sorted(ours.legal_moves()) == sorted(m.uci() for m in board.legal_moves)


def test_bench_positions_are_varied():
    pieces = [chess.popcount(chess.Board(fen).occupied) for fen in BENCH_POSITIONS]
    assert min(pieces) <= 6 and max(pieces) >= 28        # endgames and openings
    turns = {chess.Board(fen).turn for fen in BENCH_POSITIONS}
    assert turns == {chess.WHITE, chess.BLACK}


# --------------------------------------------------------------------------- the signature

# The node count of `genchess bench` (default depth, the hand-set genome) at this
# commit. A change to search or evaluation that changes it updates it here and
# ends its commit message with `Bench: N`, as Stockfish's commits do; a change that
# must not alter how the engine plays (a speed-up, a refactoring) leaves it alone.
BENCH_SIGNATURE = 612070


def test_bench_signature_is_the_committed_one():
    assert quiet_bench(DEFAULT_DEPTH)[0] == BENCH_SIGNATURE


def test_bench_command_uses_the_hand_set_genome(tmp_path):
    # The signature is the search's, whatever genome is the default: the command
    # without --genome benches genomes/default.genome, as quiet_bench's Engine() does.
    proc = run_cli(["bench", "--depth", "3"], tmp_path)
    assert parse_summary(proc.stdout)["nodes"] == quiet_bench(3)[0]
    with_default = run_cli(["bench", "--depth", "3", "--genome",
                            str(REPO_ROOT / "genchess" / "genomes" / "evolved.genome")], tmp_path)
    assert parse_summary(with_default.stdout)["nodes"] != quiet_bench(3)[0]


def test_bench_signature_is_reproducible():
    nodes, _, lines = quiet_bench(3)
    again, _, _ = quiet_bench(3)
    assert nodes == again > 0
    # The same engine run twice (new_game clears what it learned) agrees too.
    engine = Engine()
    assert quiet_bench(3, engine)[0] == quiet_bench(3, engine)[0] == nodes
    # One line per position, each naming a legal move, then the summary.
    position_lines = [line for line in lines if line.startswith("Position ")]
    assert len(position_lines) == len(BENCH_POSITIONS)
    for line, fen in zip(position_lines, BENCH_POSITIONS):
        assert line.endswith(fen)
        move = line.split(":", 1)[1].split()[0]
        assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves
    summary = parse_summary("\n".join(lines))
    assert summary.keys() == SUMMARY.keys() and summary["nodes"] == nodes


def test_every_pass_searches_the_same_tree_and_the_summary_is_the_fastest():
    lines = []
    nodes, fastest = run_bench(Engine(), 2, runs=3, out=lines.append)
    assert nodes == quiet_bench(2)[0]
    # The positions are listed once, then one summary: its time is the fastest
    # pass's, and the passes line gives the spread of the speeds.
    assert sum(line.startswith("Position ") for line in lines) == len(BENCH_POSITIONS)
    summary = parse_summary("\n".join(lines))
    assert summary["nodes"] == nodes
    assert summary["time"] == max(1, round(fastest * 1000))
    passes = [line for line in lines if line.startswith("Passes")]
    assert len(passes) == 1
    speeds = re.search(r"Passes +: 3 .*min (\d+), median (\d+), max (\d+)$", passes[0])
    assert speeds, passes[0]
    low, median, high = map(int, speeds.groups())
    assert low <= median <= high == summary["nps"]


class DriftingEngine:
    """An engine whose second pass finds one node more in the last position."""

    def __init__(self):
        self.engine = Engine()
        self.searches = 0

    def new_game(self):
        self.engine.new_game()

    def set_position(self, fen):
        self.engine.set_position(fen)

    def search(self, limits):
        result = self.engine.search(limits)
        self.searches += 1
        if self.searches == 2 * len(BENCH_POSITIONS):
            result.nodes += 1
        return result


def test_passes_that_disagree_are_an_error_naming_the_position():
    with pytest.raises(BenchMismatch, match=f"pass 2 .* position {len(BENCH_POSITIONS)}, pass 1"):
        run_bench(DriftingEngine(), 1, runs=2, out=lambda line: None)


def test_bench_signature_depends_on_depth_and_genome():
    two, three = quiet_bench(2)[0], quiet_bench(3)[0]
    assert 0 < two < three
    genome = hand_set_genome()
    genome.gene("Freedom To Move Gene").values["Priority"] += 1.0
    assert quiet_bench(3, Engine(genome))[0] != three


# --------------------------------------------------------------------------- the command

def test_bench_command_prints_the_summary(tmp_path):
    proc = run_cli(["bench", "--depth", "2"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = parse_summary(proc.stdout)
    assert summary.keys() == SUMMARY.keys(), proc.stdout[-500:]
    # A fresh process gives the same signature as this one.
    assert summary["nodes"] == quiet_bench(2)[0]
    assert summary["time"] >= 0 and summary["nps"] >= 0
    if summary["time"] > 0:
        assert summary["nps"] == pytest.approx(summary["nodes"] * 1000 / summary["time"], rel=0.05)
    assert "Traceback" not in proc.stderr


def test_bench_command_runs_as_many_passes_as_asked(tmp_path):
    proc = run_cli(["bench", "--depth", "2", "--runs", "2"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert parse_summary(proc.stdout)["nodes"] == quiet_bench(2)[0]
    assert re.search(r"^Passes +: 2 ", proc.stdout, re.M), proc.stdout[-500:]
    bad = run_cli(["bench", "--depth", "1", "--runs", "0"], tmp_path)
    assert bad.returncode == 2 and "--runs" in bad.stderr and "Traceback" not in bad.stderr


def test_bench_command_with_a_genome_file(tmp_path):
    path = tmp_path / "mine.genome"
    path.write_text(hand_set_genome().to_text())
    proc = run_cli(["bench", "--depth", "2", "--genome", str(path)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert parse_summary(proc.stdout)["nodes"] == quiet_bench(2)[0]


def test_bench_command_searches_with_the_mode_asked_for(tmp_path):
    minimax = run_cli(["bench", "--depth", "2", "--runs", "1", "--search", "minimax"], tmp_path)
    assert minimax.returncode == 0, minimax.stderr
    assert parse_summary(minimax.stdout)["nodes"] > quiet_bench(2)[0]      # no pruning: more nodes
    # Its own default depth, 3: depth 8 without pruning would run for days.
    default = run_cli(["bench", "--runs", "1", "--search", "minimax"], tmp_path)
    assert parse_summary(default.stdout)["nodes"] > parse_summary(minimax.stdout)["nodes"]


@pytest.mark.parametrize("mode, small, large", [("budget", 2000, 4000), ("ga", 200, 400)])
def test_the_node_budget_modes_bench_to_their_own_size(tmp_path, mode, small, large):
    # Each ends where it stops by itself (a budget overshot by its last pass, a GA tree
    # full), never at a node limit: the count is the mode's signature, the same in every
    # pass (else the bench would fail), and not a multiple of the size asked for.
    runs = {n: run_cli(["bench", "--search", mode, "--nodes", str(n), "--runs", "2"], tmp_path)
            for n in (small, large)}
    for proc in runs.values():
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    nodes = {n: parse_summary(proc.stdout)["nodes"] for n, proc in runs.items()}
    assert nodes[small] < nodes[large]
    assert nodes[small] != small * len(BENCH_POSITIONS)
    assert nodes[small] not in (quiet_bench(n)[0] for n in (1, 2, 3))     # not the iterative search


@pytest.mark.parametrize("args, problem", [
    (["--search", "ga", "--depth", "3"], "the ga search has no depth to stop at; give its size with --nodes N"),
    (["--search", "budget", "--depth", "3"], "the budget search has no depth to stop at"),
    (["--nodes", "100"], "--nodes sizes the budget and GA searches; the iterative search stops at --depth"),
    (["--search", "budget", "--threads", "2"], "the budget search runs on one thread"),
])
def test_a_bench_the_mode_cannot_run_is_refused_in_one_line(tmp_path, args, problem):
    proc = run_cli(["bench", "--runs", "1", *args], tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and problem in proc.stderr, proc.stderr


def _bad_genome(tmp_path):
    """The default genome with one value out of range; returns (path, line number)."""
    lines = hand_set_genome().to_text().splitlines()
    index = lines.index("Name: Total Force Gene") + 1
    while not lines[index].startswith("Priority:"):
        index += 1
    lines[index] = "Priority: not-a-number"
    path = tmp_path / "bad.genome"
    path.write_text("\n".join(lines) + "\n")
    return path, index + 1


def test_bad_genome_file_gives_one_line_and_exit_2(tmp_path):
    path, line = _bad_genome(tmp_path)
    proc = run_cli(["bench", "--depth", "1", "--genome", str(path)], tmp_path)
    assert proc.returncode == 2
    message = proc.stderr.strip().splitlines()
    assert len(message) == 1, proc.stderr
    assert f"{path}:{line}:" in message[0] or f"bad.genome:{line}:" in message[0], message[0]
    assert "Traceback" not in proc.stderr
    assert "Nodes searched" not in proc.stdout


def test_missing_genome_file_gives_one_line_and_exit_2(tmp_path):
    proc = run_cli(["bench", "--depth", "1", "--genome", str(tmp_path / "missing.genome")], tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "missing.genome" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("depth", ["-1", "two"])
def test_bad_depth_is_a_usage_error(tmp_path, depth):
    proc = run_cli(["bench", "--depth", depth], tmp_path)
    assert proc.returncode == 2
    assert "--depth" in proc.stderr
    assert "Traceback" not in proc.stderr


def bench_help(capsys):
    """`genchess bench --help`, its whitespace folded to single spaces."""
    from genchess.cli import build_parser
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_command_line_default_depth_is_the_bench_default(capsys):
    # cli.py cannot import genchess.bench at start-up, so its help text says the
    # depth in words: keep it in step with DEFAULT_DEPTH.
    help_text = bench_help(capsys)
    assert f"default {DEFAULT_DEPTH}" in " ".join(help_text.split())


def test_the_command_line_default_runs_is_the_bench_default(capsys):
    # As the depth: the number of passes in words, kept in step with DEFAULT_RUNS.
    help_text = bench_help(capsys)
    runs = help_text[help_text.index("--runs N "):help_text.index("--genome FILE ")]
    assert f"default {DEFAULT_RUNS}" in runs


def test_the_command_line_help_names_the_genome_the_bench_uses(capsys):
    # Without --genome the bench searches the hand-set genome (see
    # test_bench_command_uses_the_hand_set_genome): --genome's help says so too.
    help_text = bench_help(capsys)
    genome = help_text[help_text.index("--genome FILE "):help_text.index("--genome-id N ")]
    assert "default: the hand-set genomes/default.genome" in genome
    assert "evolved" not in genome
