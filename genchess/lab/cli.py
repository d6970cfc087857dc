"""`genchess lab`: queue long runs, run them with one worker, watch them on a page.

    genchess lab add [--priority N] KIND ARGUMENTS...   queue a job (docs/lab.md)
    genchess lab status [ID]                            every job, or one in full
    genchess lab pause|cancel|retry ID
    genchess lab run                                    the worker
    genchess lab serve                                  the live page
    genchess lab report ID                              a finished job's report again

Every command takes --lab DIR (default ./lab): the folder of the queue and the jobs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from genchess.lab import DEFAULT_LAB
from genchess.parallel import usable_cpus

PROG = "genchess lab"


def build_parser() -> argparse.ArgumentParser:
    from genchess.lab.kinds import KINDS
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lab", metavar="DIR", default=argparse.SUPPRESS,
                        help=f"the lab folder: its queue.sqlite and jobs/ (default ./{DEFAULT_LAB})")
    parser = argparse.ArgumentParser(prog=PROG, parents=[common],
                                     description="A persistent queue of long runs (matches, SPRTs, "
                                                 "gauntlets, trainings, data runs), one worker that "
                                                 "runs and resumes them, and a live page (docs/lab.md).")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = sub.add_parser("add", parents=[common], help="queue a job",
                       description="Queue a job: KIND and the arguments of its command, checked now "
                                   "as the command checks them. Kinds: "
                                   + "; ".join(f"{k.name}: {k.summary}" for k in KINDS.values()))
    p.add_argument("--priority", type=int, default=0, metavar="N",
                   help="higher runs first (default 0); equal priorities run in the order queued")
    timing = p.add_mutually_exclusive_group()
    timing.add_argument("--timed", dest="timed", action="store_true", default=None,
                        help="run alone, as a clock needs (the default of match, gauntlet, bench)")
    timing.add_argument("--untimed", dest="timed", action="store_false",
                        help="share the cores and pause for timed jobs (the default of train, "
                             "positions, datagen)")
    p.add_argument("--time-limit", type=_hours, metavar="HOURS",
                   help="stop it as hung after this many hours of running (default: the kind's)")
    p.add_argument("kind", metavar="KIND", choices=list(KINDS), help=", ".join(KINDS))
    p.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARGUMENTS",
                   help="the command's arguments, as for genchess KIND")

    p = sub.add_parser("status", parents=[common], help="the jobs and their state")
    p.add_argument("id", type=int, nargs="?", metavar="ID", help="one job in full")
    for action, what in (("pause", "hold a job: a queued one is not taken, a running one stops "
                                   "at a safe point (retry queues it again)"),
                         ("cancel", "cancel a job (a running one stops at a safe point)"),
                         ("retry", "queue a failed, cancelled or paused job again: it resumes from "
                                   "its files")):
        p = sub.add_parser(action, parents=[common], help=what)
        p.add_argument("id", type=int, metavar="ID")

    p = sub.add_parser("run", parents=[common], help="the worker: run the queue's jobs",
                       description="Take the queue's jobs in order and run them: timed jobs never "
                                   "sharing their cores (a match or gauntlet of fewer games at once "
                                   "than the cores on cores of its own, the untimed jobs on the "
                                   "others; any other alone), untimed ones on the idle cores. Ctrl-C "
                                   "stops the jobs at a safe "
                                   "point and puts them back in the queue; the next worker resumes "
                                   "them, after kill -9 or a reboot too.")
    p.add_argument("--cores", type=_positive, default=len(usable_cpus()), metavar="N",
                   help="cores the jobs may fill (default: all this process may use)")
    p.add_argument("--until-empty", action="store_true",
                   help="stop when no job is queued or running (default: wait for more)")
    p.add_argument("--scheduler", type=_scheduler, metavar="ADDRESS",
                   help="play the untimed jobs' games (train, positions, datagen) on this dask "
                        "cluster, as their own --scheduler does (tcp://HOST:PORT, tls://... or "
                        "local:N), unless a job names its own; timed jobs stay on this machine")

    p = sub.add_parser("serve", parents=[common], help="the live web page",
                       description="Serve the lab's live page: every job with its state and "
                                   "progress, each kind its own view. Only this machine can see it "
                                   "unless --bind names another address, which needs --token.")
    p.add_argument("--port", type=int, default=8080, metavar="N", help="default 8080")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--token", metavar="SECRET",
                   help="required with a --bind other than loopback: a request from another "
                        "host must carry it (?token=SECRET or the header X-Lab-Token)")

    p = sub.add_parser("report", parents=[common], help="write a finished job's report again",
                       description="Write jobs/ID/report.html and report.md (the worker writes "
                                   "them when a job is done) and print the markdown one's path.")
    p.add_argument("id", type=int, metavar="ID")
    return parser


def _positive(text: str) -> int:
    from genchess.console import at_least
    return at_least(1)(text)


def _scheduler(text: str) -> str:
    from genchess.parallel.cluster import parse_scheduler
    try:
        return parse_scheduler(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _hours(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of hours above 0, not {text!r}")
    return value * 3600


def main(argv=None, prog: str = PROG) -> int:
    from genchess.console import run_command
    from genchess.lab.kinds import JobError
    from genchess.lab.queue import QueueError
    args = build_parser().parse_args(argv)
    lab = Path(getattr(args, "lab", DEFAULT_LAB))
    def body() -> int:
        try:
            return ACTIONS[args.action](args, lab)
        except JobError as e:           # already the command's own line ("genchess match: ...")
            print(e, file=sys.stderr)
            return 2
    return run_command(prog, body, (QueueError,))


def _queue(lab: Path, create: bool = False):
    from genchess.lab.queue import Queue
    return Queue(lab, create=create)


def add(args, lab: Path) -> int:
    from genchess.lab import kinds
    kind = kinds.KINDS[args.kind]
    job_args = kinds.check(args.kind, args.arguments, Path.cwd())
    queue = _queue(lab, create=True)
    taken = kinds.pgn_taken_by(queue, args.kind, args.arguments, Path.cwd())
    if taken is not None:
        print(f"{PROG} add: --pgn {kinds.option_value(args.arguments, '--pgn')} is already the PGN "
              f"of job {taken.id} ({taken.state}): two runs in one file would mix their games",
              file=sys.stderr)
        return 2
    timed = kind.timed if args.timed is None else args.timed
    job_id = queue.add(args.kind, job_args, str(Path.cwd()), priority=args.priority, timed=timed,
                       time_limit=args.time_limit or kind.time_limit)
    print(f"job {job_id} queued: {kinds.describe(queue.job(job_id))}"
          f" ({'timed' if timed else 'untimed'}, priority {args.priority})")
    return 0


def status(args, lab: Path) -> int:
    from genchess.lab import kinds
    from genchess.lab.report import progress_line
    queue = _queue(lab)

    def progress(job) -> str:
        return progress_line(job, kinds.progress(job, queue.job_dir(job.id)))
    if args.id is not None:
        job = queue.job(args.id)
        for key, value in vars(job).items():
            if key not in ("args", "message"):
                print(f"{key}: {_when(value) if key in ('created', 'started', 'finished', 'lease') else value}")
        print(f"command: {kinds.describe(job)}")
        print(f"folder: {queue.job_dir(job.id)}")
        if line := progress(job):
            print(f"progress: {line}")
        if job.message:
            print("message:\n" + job.message)
        return 0
    jobs = queue.jobs()
    if not jobs:
        print(f"{queue.path}: no jobs")
        return 0
    print(f"{'id':>4}  {'state':<17} {'pri':>3}  {'kind':<9} {'timed':<6} job")
    for job in jobs:
        state = job.state + ("*" if job.request else "") + (" (held)" if job.held else "")
        print(f"{job.id:>4}  {state:<17} {job.priority:>3}  "
              f"{job.kind:<9} {'yes' if job.timed else 'no':<6} {kinds.title(job)[:90]}")
        if job.state not in ("done", "cancelled") and (line := progress(job)):
            print(f"{'':>6}{line}")
    if any(job.request for job in jobs):
        print("* a pause or cancel asked of the worker running it")
    if any(job.held for job in jobs):
        print("(held): an untimed job stopped while a timed one runs; it continues after")
    return 0


def _when(value):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value)) if value else value


def change(args, lab: Path) -> int:
    queue = _queue(lab)
    result = getattr(queue, args.action)(args.id)
    print(f"job {args.id}: {result}")
    return 0


def run(args, lab: Path) -> int:
    from genchess.lab.worker import Worker
    worker = Worker(_queue(lab, create=True), cores=args.cores, until_empty=args.until_empty,
                    out=lambda line: print(line, flush=True), scheduler=args.scheduler)
    return worker.run()


def serve(args, lab: Path) -> int:
    from genchess.lab.web import WebError, serve as serve_page
    try:
        return serve_page(_queue(lab, create=True), args.bind, args.port, args.token)
    except WebError as e:
        print(f"{PROG} serve: {e}", file=sys.stderr)
        return 2


def report(args, lab: Path) -> int:
    from genchess.lab.report import write_report
    queue = _queue(lab)
    html, markdown = write_report(queue, queue.job(args.id))
    print(markdown)
    return 0


ACTIONS = {"add": add, "status": status, "pause": change, "cancel": change, "retry": change,
           "run": run, "serve": serve, "report": report}
