"""Fuzzing every reader of outside input for a set time.

    python scripts/dev/fuzz.py --seconds 600                 # ten minutes over every reader
    python scripts/dev/fuzz.py --seconds 60 --reader genome --reader fen
    python scripts/dev/fuzz.py --list

The readers, their inputs and the property are tests/fuzz_readers.py's (the table
tests/test_fuzz_readers.py runs a few cases of): a correct result, or the reader's
own error with a one-line message naming the problem and the file; never another
exception, a hang or a crash of the core. The time is shared out equally between
the readers asked for. Each reader runs in a child process of this script, so a
segfault or a hang in the core is caught and reported with the input that caused
it; a Python failure is shrunk by hypothesis to a small input first.

Printed per reader: the cases tried and the failures found (distinct causes), each
with its problem and a reproducer (the input's start, and the whole input saved
under --out). The exit status is 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests"))

CASE_TIMEOUT = 60           # seconds one case may take before it counts as a hang
BATCH = 25                  # cases per hypothesis run; a run shrinks what it finds
SHRINK_SECONDS = 15         # of shrinking per failure found


class Hang(BaseException):
    """A case ran past CASE_TIMEOUT (raised by the alarm, past any `except Exception`)."""


def _on_alarm(signum, frame):
    raise Hang()


class StopShrinking(BaseException):
    """Ends a hypothesis run whose shrinking has had its time (hypothesis lets what is
    not an Exception through at once)."""


def child(name: str, seconds: float, report_path: Path, case_path: Path) -> int:
    """Fuzz one reader for `seconds` in this process, writing the report as it goes
    and each input to `case_path` before it runs (the parent's reproducer if the
    core crashes). Every failure is kept by its cause with the shortest input seen,
    so what hypothesis's shrinking reaches in SHRINK_SECONDS is the reproducer."""
    from hypothesis import HealthCheck, Phase, given, settings

    import fuzz_readers
    from fuzz_readers import Failure

    reader = fuzz_readers.readers()[name]
    strategy = reader.inputs()
    workdir = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-"))
    cases = 0
    failures: dict[str, dict] = {}
    shrinking_since: float | None = None
    signal.signal(signal.SIGALRM, _on_alarm)
    end = time.monotonic() + seconds       # from here: imports and samples are not fuzzing time

    def body(data):
        nonlocal cases, shrinking_since
        now = time.monotonic()
        if shrinking_since is not None and (now - shrinking_since > SHRINK_SECONDS or now > end + SHRINK_SECONDS):
            raise StopShrinking()
        cases += 1
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        case_path.write_bytes(raw)
        signal.alarm(CASE_TIMEOUT)
        try:
            reader.check(data, workdir)
        except Hang:
            failure = Failure(f"no answer within {CASE_TIMEOUT} s", "hang")
        except Failure as e:
            failure = e
        else:
            return
        finally:
            signal.alarm(0)
        shrinking_since = shrinking_since or time.monotonic()
        known = failures.get(failure.signature)
        if known is None or len(raw) < len(known["input"].encode("utf-8", "surrogateescape")):
            failures[failure.signature] = {"signature": failure.signature, "problem": str(failure),
                                           "input": _text(raw)}
        raise failure

    while time.monotonic() < end:
        shrinking_since = None
        run = settings(max_examples=BATCH, deadline=None, database=None, derandomize=False,
                       suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                       phases=[Phase.generate, Phase.shrink])(given(strategy)(body))
        try:
            run()
        except (Failure, StopShrinking):
            pass                        # kept by body, with its shortest input
        except Exception as e:          # hypothesis's own complaint (a flaky failure...)
            if not failures:
                signature = f"hypothesis: {type(e).__name__}"
                failures[signature] = {"signature": signature, "input": "",
                                       "problem": f"{type(e).__name__}: {str(e)[:300]}"}
        report_path.write_text(json.dumps({"cases": cases, "failures": list(failures.values())}))
    return 0


def _text(data) -> str:
    return data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data


def fuzz_reader(name: str, seconds: float, out: Path) -> tuple[int, list[dict]]:
    """Run one reader's child; (cases tried, failures), a crash or hang of the child
    counted as a failure with the input it was on."""
    report, case = out / f"{name}.report.json", out / f"{name}.case"
    report.unlink(missing_ok=True)
    argv = [sys.executable, __file__, "--child", name, "--seconds", str(seconds),
            "--out", str(out)]
    try:
        proc = subprocess.run(argv, timeout=seconds + 3 * CASE_TIMEOUT + 60,
                              capture_output=True, text=True)
        code, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, stderr = None, (e.stderr or b"").decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    found = json.loads(report.read_text()) if report.exists() else {"cases": 0, "failures": []}
    failures = found["failures"]
    if code != 0:
        what = "hung (killed)" if code is None else \
            f"crashed ({signal.Signals(-code).name})" if code < 0 else f"exited with status {code}"
        data = case.read_bytes() if case.exists() else b""
        failures.append({"signature": "child " + what, "input": data.decode("utf-8", "surrogateescape"),
                         "problem": f"the reader's process {what}: {stderr.strip()[-500:]}"})
    for number, failure in enumerate(failures, 1):
        saved = out / f"{name}-failure-{number}.input"
        saved.write_bytes(failure["input"].encode("utf-8", "surrogateescape"))
        failure["saved"] = str(saved)
    return found["cases"], failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="total time, shared by the readers")
    parser.add_argument("--reader", action="append", help="fuzz only this reader (repeatable)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "genchess-fuzz",
                        help="where each failure's whole input is saved")
    parser.add_argument("--list", action="store_true", help="list the readers and exit")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.child:
        return child(args.child, args.seconds, args.out / f"{args.child}.report.json",
                     args.out / f"{args.child}.case")

    try:
        import fuzz_readers
    except ModuleNotFoundError as e:
        print(f"fuzz: {e.name} is not installed: pip install -e \".[test]\" (the fuzzer is "
              f"hypothesis, a test dependency)", file=sys.stderr)
        return 2
    names = list(fuzz_readers.readers())
    if args.list:
        print("\n".join(names))
        return 0
    unknown = [name for name in args.reader or [] if name not in names]
    if unknown:
        parser.error(f"unknown reader {unknown[0]!r} (readers: {', '.join(names)})")
    chosen = args.reader or names
    share = args.seconds / len(chosen)
    total_failures = 0
    print(f"{'reader':16} {'cases':>7} {'failures':>8}")
    for name in chosen:
        cases, failures = fuzz_reader(name, share, args.out)
        total_failures += len(failures)
        print(f"{name:16} {cases:7d} {len(failures):8d}", flush=True)
        for failure in failures:
            print(f"    {failure['problem'][:400]}")
            print(f"    reproducer: {failure['input'][:200]!r}")
            print(f"    whole input: {failure['saved']}", flush=True)
    print(f"{len(chosen)} readers, {total_failures} failures")
    return 1 if total_failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
