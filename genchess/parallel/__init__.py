"""Playing games in parallel: the one layer that trainers and matches share.

`executors` gives a `concurrent.futures.Executor` of local worker processes or of a
dask.distributed cluster (`cluster`, reached over TLS with `tls`'s files), with
Ctrl-C held to safe points between games (`ctrl_c`) and the faults a caller must
handle (`faults`: ClusterError, ExecutorLost); every name a caller needs is in
`executors`. What a job returns comes back as JSON (`plain`), never a pickle, and
`pickle_guard` keeps the trainer's dask client from opening one that names code;
`replay` checks every returned game, `certs` writes a cluster's TLS
files (genchess-cluster-certs), and `worker` is the unit of
work a trainer hands it (GameJob -> GameResult, played in-process by the Cython
engine). The package imports neither `genchess.train` nor `genchess.strength`:
measuring (`strength/`) and evolving (`train/`) both stand on it, and `train/` on
`strength/`, never the other way round (tests/test_layering.py checks this).
"""
