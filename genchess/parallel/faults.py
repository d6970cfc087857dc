"""The two faults a caller of the executors sees, whatever runs its games.

- `ClusterError` (a ValueError): the cluster cannot be used as asked (dask missing,
  no scheduler at the address, no workers, a worker with another GenChess version,
  a TLS file missing, expired or not the cluster's, TLS on one side only).
  Report the one-line message and exit 2, as for a bad configuration.
- `ExecutorLost`: mid-run, games can no longer be played (the scheduler went away,
  a local worker process died, one game's result was refused MAX_REFUSALS times).
  Every finished game is already on disk: report the one-line message, stop, and
  let the same command resume from the files.
- `WorkerError`: a job raised an error on its worker of a type the trainer does
  not rebuild (plain.py brings errors back as text); its message is the worker's.

A module of their own, below the TLS files, the cluster and the executors, which
all raise them.
"""

from __future__ import annotations


class ClusterError(ValueError):
    """The cluster cannot be used as asked; the message is one line for the user."""


class ExecutorLost(RuntimeError):
    """Games can no longer be played (scheduler gone, worker process died); one line."""


class WorkerError(RuntimeError):
    """A job failed on its worker; the message is the worker's type and message."""


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
