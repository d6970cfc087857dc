"""Data races between GenChess's search threads, found by ThreadSanitizer.

    git worktree add --detach ../genchess-tsan HEAD
    (cd ../genchess-tsan && GENCHESS_TSAN=1 python setup.py build_ext --inplace)
    python scripts/dev/tsan_check.py ../genchess-tsan                  # bench on two threads, a 60 s storm
    python scripts/dev/tsan_check.py ../genchess-tsan --depth 5 --storm-seconds 20

BUILD is a checkout whose core was built with GENCHESS_TSAN=1 (docs/building.md): its
modules call ThreadSanitizer at every memory access. Python itself is not built so: the
gcc runtime (`gcc -print-file-name=libtsan.so`) is preloaded into the interpreter, which
then runs BUILD's GenChess twice: `genchess bench --threads 2` to --depth, and a protocol
storm (scripts/dev/protocol_storm.py) of --storm-seconds on two threads, where `stop`,
`ponderhit`, `ucinewgame` and `setoption name Threads` come at every moment of a search.
Races that were read and judged benign are suppressed by scripts/dev/tsan.supp, each
with its reason. Every other report is printed once, by where it happened, with how often;
the exit status is 1 if there was any. Under ThreadSanitizer the engine runs 5 to 10
times slower, so the storm waits longer for its answers (it is run for races here, not
for its timing).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUPPRESSIONS = HERE / "tsan.supp"


def load_storm():
    spec = importlib.util.spec_from_file_location("protocol_storm", HERE / "protocol_storm.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["protocol_storm"] = module
    spec.loader.exec_module(module)
    return module


def instrumented(build: Path) -> bool:
    """Whether BUILD's compiled search calls ThreadSanitizer."""
    modules = list((build / "genchess_core").glob("searcher*.so"))
    return bool(modules) and b"__tsan_func_entry" in modules[0].read_bytes()


def tsan_environment(build: Path, libtsan: str, log_dir: str, suppressions: Path = SUPPRESSIONS) -> dict[str, str]:
    env = dict(os.environ)
    env["LD_PRELOAD"] = libtsan
    env["PYTHONPATH"] = str(build)
    # exitcode=0: a race is counted from the logs, not taken for the engine failing.
    env["TSAN_OPTIONS"] = (f"halt_on_error=0 exitcode=0 report_signal_unsafe=0 "
                           f"suppressions={suppressions} log_path={log_dir}/tsan")
    return env


def reports(log_dir: str) -> Counter:
    """Each report's summary line (the race's place), with how often it came."""
    found = Counter()
    for path in glob.glob(f"{log_dir}/tsan*"):
        for line in Path(path).read_text(errors="replace").splitlines():
            if line.startswith("SUMMARY: ThreadSanitizer"):
                found[line] += 1
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", help="a checkout built in place with GENCHESS_TSAN=1")
    p.add_argument("--depth", type=int, default=6, help="the bench's depth (default 6)")
    p.add_argument("--storm-seconds", type=float, default=60.0,
                   help="seconds of protocol storm on two threads (default 60; 0: none)")
    p.add_argument("--libtsan", help="the ThreadSanitizer runtime (default: gcc's)")
    p.add_argument("--suppressions", type=Path, default=SUPPRESSIONS,
                   help="the races judged benign (default: tsan.supp beside this script; an empty "
                        "file shows that ThreadSanitizer reports the benign races it suppresses)")
    args = p.parse_args(argv)
    build = Path(args.build).resolve()
    if not instrumented(build):
        print(f"tsan_check: {build}/genchess_core was not built with GENCHESS_TSAN=1 "
              "(docs/building.md)", file=sys.stderr)
        return 2
    libtsan = args.libtsan or subprocess.run(["gcc", "-print-file-name=libtsan.so"], capture_output=True,
                                             text=True).stdout.strip()
    if not libtsan or not Path(libtsan).exists():
        print("tsan_check: no libtsan.so (install gcc, or name it with --libtsan)", file=sys.stderr)
        return 2
    log_dir = tempfile.mkdtemp(prefix="genchess-tsan-")
    env = tsan_environment(build, libtsan, log_dir, args.suppressions.resolve())
    python = [sys.executable, "-m", "genchess"]

    print(f"== genchess bench --threads 2 --depth {args.depth}", flush=True)
    bench = subprocess.run(python + ["bench", "--threads", "2", "--depth", str(args.depth), "--runs", "1"],
                           env=env, cwd=build, capture_output=True, text=True)
    for line in bench.stdout.splitlines():
        if re.match(r"(Nodes searched|Threads \d)", line):
            print("   " + line)
    if bench.returncode != 0:
        print(f"   bench failed ({bench.returncode}): {bench.stderr[-1000:]}")
    if args.storm_seconds > 0:
        print(f"== protocol storm, {args.storm_seconds:g} s on two threads", flush=True)
        storm = load_storm()
        report = storm.storm(args.storm_seconds, 2, seed=53, patience=10.0, argv=python + ["uci"], env=env)
        print("   " + report.summary())
        for failure in report.failures:
            print("   storm: " + failure.splitlines()[0])
    found = reports(log_dir)
    print(f"== ThreadSanitizer: {sum(found.values())} reports, {len(found)} places (logs in {log_dir})")
    for summary, count in found.most_common():
        print(f"   {count:>5} x {summary}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
