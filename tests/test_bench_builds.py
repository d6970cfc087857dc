"""scripts/bench/bench_builds.py: nodes per second of several builds, taking turns.

Building a worktree takes minutes, so the default run checks the parts (reading
`genchess bench`'s summary, the report's ratios, bad input); the slow test builds
HEAD and benches it for real.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from script_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "bench" / "bench_builds.py"

pytestmark = pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs the git repository")


def run(*args, timeout=60):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def test_the_summary_of_a_real_bench_is_read():
    """The installed engine's own `genchess bench` output, not a copy of it."""
    done = subprocess.run([sys.executable, "-m", "genchess", "bench", "--depth", "2"],
                          capture_output=True, text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    nodes, speed = load_script(SCRIPT).parse_bench(done.stdout)
    assert str(nodes) in done.stdout and nodes > 32
    assert speed > 0


def test_output_without_a_summary_is_an_error_naming_what_is_missing():
    bench = load_script(SCRIPT)
    with pytest.raises(bench.BenchOutputError, match="Nodes searched"):
        bench.parse_bench("Traceback (most recent call last):\nImportError: no module\n")


def test_every_build_benches_one_pass_a_round():
    # A build whose bench makes several passes (--runs) is asked for one, so that
    # its figure is one reading like an older build's, not the best of several.
    bench = load_script(SCRIPT)
    tree = Path("/builds/abc")
    new = bench.bench_command(tree, 8, "usage: genchess bench [-h] [--depth DEPTH] [--runs N]")
    old = bench.bench_command(tree, 8, "usage: genchess bench [-h] [--depth DEPTH]")
    assert new == [str(tree / "genchess-uci"), "bench", "--depth", "8", "--runs", "1"]
    assert old == [str(tree / "genchess-uci"), "bench", "--depth", "8"]


def test_a_genome_is_passed_to_every_build_and_named_in_the_report():
    bench = load_script(SCRIPT)
    tree, genome = Path("/builds/abc"), Path("/genomes/unified.genome")
    command = bench.bench_command(tree, 8, "usage: genchess bench [--runs N]", genome)
    assert command[-2:] == ["--genome", "/genomes/unified.genome"]
    result = bench.BuildResult("old", "a" * 40, 1000, [1_000_000])
    assert bench.report([result], depth=8, rounds=1, genome=genome).startswith(
        "`genchess bench --depth 8 --genome unified.genome`, 1 rounds")


def test_the_report_gives_each_build_relative_to_the_first():
    bench = load_script(SCRIPT)
    old = bench.BuildResult("old", "a" * 40, 1000, [1_000_000, 1_200_000, 1_100_000])
    new = bench.BuildResult("new", "b" * 40, 900, [2_400_000, 2_100_000, 2_200_000])
    table = bench.report([old, new], depth=8, rounds=3)
    rows = [line for line in table.splitlines() if line.startswith("| old") or line.startswith("| new")]
    assert rows[0] == "| old (aaaaaaa) | 1000 | 1 100 000 | 1 000 000, 1 200 000 | **1.00** |"
    assert rows[1] == "| new (bbbbbbb) | 900 | 2 200 000 | 2 100 000, 2 400 000 | **2.00** |"


@pytest.mark.parametrize("args, message", [
    (["HEAD"], "two revisions or more"),
    (["HEAD", "no-such-branch-xyz"], "'no-such-branch-xyz' is not a commit"),
    (["HEAD", "HEAD", "--rounds", "0"], "--rounds must be 1 or more"),
    (["HEAD", "HEAD", "--genome", "no/such.genome"], "--genome no/such.genome: no such file"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    done = run(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_two_builds_of_head_bench_the_same_nodes(tmp_path):
    try:
        done = run("HEAD", "HEAD~0", "--depth", "4", "--rounds", "2", "--builds", str(tmp_path),
                   timeout=1800)
    finally:
        for tree in tmp_path.iterdir():     # the build's worktree, not left registered
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| HEAD")]
    assert len(rows) == 2
    assert rows[0][1] == rows[1][1]           # one commit, one bench signature
    assert rows[0][4].startswith("**1.00**")
