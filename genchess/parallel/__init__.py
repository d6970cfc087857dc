"""Playing games in parallel: the one layer that trainers and matches share.

`executors` gives a `concurrent.futures.Executor` of local worker processes or of a
dask.distributed cluster (`cluster`, reached over TLS with `tls`'s files), with
Ctrl-C held to safe points between games (`ctrl_c`) and the faults a caller must
handle (`faults`: ClusterError, ExecutorLost); every name a caller needs is in
`executors`. What a job returns comes back as JSON (`plain`), never a pickle, and
`pickle_guard` keeps the trainer's dask client from opening one that names code;
`replay` checks every returned game, `certs` writes a cluster's TLS
files (genchess-cluster-certs), `usable_cpus` says which cores there are to fill, and
`worker` is the unit of
work a trainer hands it (GameJob -> GameResult, played in-process by the Cython
engine). The package imports neither `genchess.train` nor `genchess.strength`:
measuring (`strength/`) and evolving (`train/`) both stand on it, and `train/` on
`strength/`, never the other way round (tests/test_layering.py checks this).
"""

import os


def usable_cpus() -> list[int]:
    """The CPUs this process may run on: its affinity where the platform tells it (a
    process started under `taskset -c 0` has one), else every CPU."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:                      # (not on every platform)
        return list(range(os.cpu_count() or 1))
