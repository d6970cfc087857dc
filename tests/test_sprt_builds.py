"""scripts/dev/sprt_builds.py: the SPRT of one build against another (issue 15's method).

Building two worktrees takes minutes, so these tests check what the script would run
(--dry-run) and its answers to bad input; the match itself is `genchess match`,
tested on its own.
"""

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from script_helpers import load_script

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "dev" / "sprt_builds.py"

pytestmark = pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs the git repository")


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60, cwd=REPO)


def rev(name):
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", name], capture_output=True,
                          text=True).stdout.strip()


def test_dry_run_prints_the_match_of_the_two_builds(tmp_path):
    head = rev("HEAD")
    done = run("HEAD", "HEAD", "--dry-run", "--builds", str(tmp_path), "--pgn", "s.pgn", "--resume",
               "--elo1", "5")
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[-1]
    # The new build first (results from its side), each from its own worktree, the
    # old build's hand-set genome for both, strict SPRT settings passed through.
    assert f"uci:{tmp_path / head[:12] / 'genchess-uci'}" in line
    assert f"Genome={tmp_path / head[:12] / 'genchess' / 'genomes' / 'default.genome'}" in line
    assert line.index(f"name=new-{head[:8]}") < line.index(f"name=old-{head[:8]}")
    assert "--sprt elo0=0 elo1=5" in line and "--tc 10+0.1" in line
    assert line.endswith("--pgn s.pgn --resume")
    # fishtest's adjudication unless asked to play every game out.
    assert "--resign movecount=3 score=400 --draw movenumber=34 movecount=8 score=20" in line
    assert not any(tmp_path.iterdir())          # a dry run builds nothing
    done = run("HEAD", "HEAD", "--dry-run", "--builds", str(tmp_path), "--no-adjudication")
    assert "--resign" not in done.stdout and "--draw" not in done.stdout


def test_a_genome_file_for_both_builds(tmp_path):
    # A search change for the shipped genome is tested with it: both sides play the
    # file given, by its absolute path (each engine runs in its own worktree).
    done = subprocess.run([sys.executable, str(SCRIPT), "HEAD", "HEAD", "--dry-run", "--builds",
                           str(tmp_path), "--genome", "genomes/unified.genome"],
                          capture_output=True, text=True, timeout=60, cwd=REPO / "genchess")
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[-1]
    assert line.count(f"Genome={REPO / 'genchess' / 'genomes' / 'unified.genome'} ") == 2
    assert "default.genome" not in line


def test_a_trial_option_on_the_new_side_of_one_build(tmp_path):
    # A trial is one build against itself with its option on one side: an option word of
    # the new side's engine spec, which genchess match splits as the shell does.
    head = rev("HEAD")
    done = run("HEAD", "HEAD", "--dry-run", "--builds", str(tmp_path), "--new-option", "Time Scaling=true")
    assert done.returncode == 0, done.stderr
    words = shlex.split(done.stdout.strip().splitlines()[-1])
    new, old = words[words.index("match") + 1], words[words.index("match") + 2]
    assert "Time Scaling=true" in shlex.split(new)
    assert not any(word.startswith("Time Scaling") for word in shlex.split(old))
    assert f"name=on-{head[:8]}" in new and f"name=off-{head[:8]}" in old


def test_lab_queues_the_match_instead_of_playing_it(tmp_path):
    # The lab's worker resumes a job itself, so the queued command has --pgn but no --resume.
    done = run("HEAD", "HEAD", "--dry-run", "--builds", str(tmp_path), "--new-option", "Time Scaling=true",
               "--pgn", "lab/search-trials/t.pgn", "--resume", "--lab", "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    words = shlex.split(done.stdout.strip().splitlines()[-1])
    assert words[1:6] == ["-m", "genchess", "lab", "add", "match"]
    assert words[-2:] == ["--pgn", "lab/search-trials/t.pgn"] and "--resume" not in words
    assert "--concurrency" in words and "Time Scaling=true" in shlex.split(words[6])
    done = run("HEAD", "HEAD", "--dry-run", "--builds", str(tmp_path), "--pgn", "lab/search-trials/t.pgn",
               "--lab", "--priority", "10")
    assert done.returncode == 0, done.stderr
    assert shlex.split(done.stdout.strip().splitlines()[-1])[1:8] == ["-m", "genchess", "lab", "add",
                                                                      "--priority", "10", "match"]


@pytest.mark.parametrize("args, message", [
    (["HEAD", "HEAD", "--new-option", "Time Scaling"], "expected NAME=VALUE"),
    (["HEAD", "no-such-branch-xyz"], "'no-such-branch-xyz' is not a commit"),
    (["HEAD", "HEAD", "--genome", "no-such.genome"], "cannot read genome file no-such.genome"),
    (["HEAD", "HEAD", "--genome", "README.md"], "README.md"),
    (["HEAD", "HEAD", "--resume"], "--resume continues the match in a PGN file"),
    (["HEAD", "HEAD", "HEAD", "--pgn", "s.pgn"], "give --pgn-dir DIR, not --pgn"),
    (["HEAD", "HEAD", "HEAD"], "give --pgn-dir DIR, not --pgn"),
    (["HEAD", "HEAD", "--pgn-dir", "d"], "--pgn-dir is for a chain"),
    (["HEAD", "HEAD", "--lab"], "--lab queues one pair's match"),
    (["HEAD", "HEAD", "--priority", "5"], "--priority orders the lab's queue"),
    (["HEAD", "HEAD", "HEAD", "--pgn-dir", "d", "--lab"], "--lab queues one pair's match"),
    (["HEAD", "HEAD", "no-such-branch-xyz", "--pgn-dir", "d"], "'no-such-branch-xyz' is not a commit"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    done = run(*args, "--dry-run")
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_chain_tests_each_step_against_the_one_before(tmp_path):
    # HEAD~2 -> HEAD~1 -> HEAD: two pairs, each with its own PGN; --resume only
    # for the pair whose PGN exists already.
    old, mid, new = rev("HEAD~2"), rev("HEAD~1"), rev("HEAD")
    (tmp_path / "sprt-HEAD_1.pgn").write_text("")
    done = run("HEAD~2", "HEAD~1", "HEAD", "--dry-run", "--builds", str(tmp_path / "b"),
               "--pgn-dir", str(tmp_path), "--resume")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()
    assert f"name=new-{mid[:8]}" in first and f"name=old-{old[:8]}" in first
    assert f"name=new-{new[:8]}" in second and f"name=old-{mid[:8]}" in second
    assert first.endswith(f"--pgn {tmp_path / 'sprt-HEAD_1.pgn'} --resume")
    assert second.endswith(f"--pgn {tmp_path / 'sprt-HEAD.pgn'}")


def test_the_chain_reads_the_verdict_from_the_match_output(capsys, monkeypatch):
    # Whatever the script does to sys.path stays in this test: processes spawned
    # later (the cluster tests' dask workers) inherit sys.path.
    monkeypatch.setattr(sys, "path", list(sys.path))
    module = load_script(SCRIPT)
    for last, verdict in [("Stopped: SPRT accepted H1 after 386 games", "H1"),
                          ("Stopped: SPRT accepted H0 after 90 games", "H0"),
                          ("Stopped: interrupted", "none"), ("", "none")]:
        command = [sys.executable, "-c", f"print('Game 1/2'); print({last!r})"]
        assert module.run_match(command) == verdict
        assert "Game 1/2" in capsys.readouterr().out      # the match's output passes through


def unbuilt_worktree(tmp_path, monkeypatch, cython: bool):
    """The script loaded, a checked-out worktree of commit 0123456789ab not built yet,
    and Cython installed or not, as the test says."""
    import importlib.util
    monkeypatch.setattr(sys, "path", list(sys.path))
    module = load_script(SCRIPT)
    tree = tmp_path / "0123456789ab"
    (tree / "genchess_core").mkdir(parents=True)
    (tree / "setup.py").write_text("")
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: (object() if cython else None) if name == "Cython"
                        else real_find_spec(name, *rest))
    return module, tree


def test_a_build_without_cython_says_what_to_install(tmp_path, monkeypatch):
    module, tree = unbuilt_worktree(tmp_path, monkeypatch, cython=False)
    with pytest.raises(module.BuildError, match="needs Cython in .*pip install Cython setuptools"):
        module.prepare("0123456789abcdef", tmp_path, out=lambda line: None)


def test_a_build_cut_short_is_built_again_and_a_finished_one_is_not(tmp_path, monkeypatch):
    module, tree = unbuilt_worktree(tmp_path, monkeypatch, cython=True)
    # What an interrupted build leaves: some modules compiled, the build not finished.
    (tree / "genchess_core" / "search.cpython-311-x86_64-linux-gnu.so").write_text("cut short")
    builds = []

    def build(command, cwd=None, **kwargs):
        builds.append(command[1:])
        return subprocess.CompletedProcess(command, 1 if len(builds) == 1 else 0, "", "error: cc died")

    monkeypatch.setattr(module.subprocess, "run", build)
    with pytest.raises(module.BuildError, match="building 0123456789ab failed"):
        module.prepare("0123456789abcdef", tmp_path, out=lambda line: None)
    assert not (tree / module.BUILT_STAMP).exists()       # a failed build is not done
    module.prepare("0123456789abcdef", tmp_path, out=lambda line: None)
    assert builds == [["setup.py", "build_ext", "--inplace", "--force"]] * 2
    assert (tree / module.BUILT_STAMP).exists()
    module.prepare("0123456789abcdef", tmp_path, out=lambda line: None)
    assert len(builds) == 2                                # finished: not built again
    assert (tree / "genchess-uci").exists()
