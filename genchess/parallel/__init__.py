"""Playing games in parallel: the one layer that trainers and matches share.

`executors` gives a `concurrent.futures.Executor` of local worker processes or of a
dask.distributed cluster, with Ctrl-C held to safe points between games and the
faults a caller must handle (ClusterError, ExecutorLost); `worker` is the unit of
work a trainer hands it (GameJob -> GameResult, played in-process by the Cython
engine). The package imports neither `genchess.train` nor `genchess.strength`:
measuring (`strength/`) and evolving (`train/`) both stand on it, and `train/` on
`strength/`, never the other way round (tests/test_layering.py checks this).
"""
