"""The trainer's dask client opens no pickle that names code, whatever dask sends it.

The trainer's client reads data as msgpack only (cluster.PLAIN_ONLY) and its jobs
answer in JSON (plain.py), but dask still opens pickles outside that setting: the
error of a failed task, the type of every finished task's result, a worker's
warnings, and any part of a message marked as pickled (dask/distributed issues
2051 and 9283). Those are bytes a worker chooses, or a scheduler that a key holder
took over, and opening them runs whatever function they name. So while a
trainer's client runs, every pickle dask opens on that client's event loop is
read by `RestrictedUnpickler`, which builds only exception classes (Python's and
dask's), dask's description of a worker (in KilledWorker) and plain types, and
refuses every other name, functions above all, with a TypeError (what dask does
with an error or a traceback it cannot read: it keeps the text). Anywhere else in
the process (the scheduler of a LocalCluster, another client's loop) dask reads
pickles as before. While a guarded client runs, messages are decoded on the
loop, never on dask's offload threads, where a large one would slip past. A
refused part of a message arrives as the RefusedPickle error itself, a value
the executor refuses as it refuses any result that is not JSON.

Trade-off: this swaps the `pickle` module that three of dask's modules call for
one whose `loads` looks at the loop it runs on, for as long as a guarded client
runs. A dask release that opened pickles some other way would slip past it;
tests/test_hostile_worker.py sends such pickles by every path this one knows.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import pickle
import sys
import threading

# Names a pickle from the cluster may use besides exception classes: plain types,
# what rebuilds an object without calling it, and what KilledWorker carries.
_PLAIN_TYPES = {str, bytes, bytearray, int, float, complex, bool, list, dict, tuple, set,
                frozenset, type(None), object, slice, range}
_NAMES = {("copyreg", "_reconstructor"), ("tblib.pickling_support", "unpickle_exception"),
          ("distributed.scheduler", "WorkerState"), ("distributed.core", "Status")}
_EXCEPTION_MODULES = ("builtins", "distributed", "asyncio", "concurrent", "tornado")


class RefusedPickle(pickle.UnpicklingError, TypeError):
    """A pickle from the cluster named something other than plain data or an error."""


class RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        # Only modules already imported: importing one runs its code.
        found = getattr(sys.modules.get(module), name, None) if "." not in name else None
        if found is not None and (
                (module, name) in _NAMES or found in _PLAIN_TYPES
                or (isinstance(found, type) and issubclass(found, BaseException)
                    and module.split(".")[0] in _EXCEPTION_MODULES)):
            return found
        raise RefusedPickle(f"refused to open a pickle from the cluster naming {module}.{name}")


class _GuardedPickle:
    """The pickle module as dask's modules see it: loads restricted on a guarded loop."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)

    def loads(self, data, /, *args, **kwargs):
        if _on_guarded_loop():
            return RestrictedUnpickler(io.BytesIO(data), buffers=kwargs.get("buffers") or None).load()
        return self._module.loads(data, *args, **kwargs)


class _GuardedFrames:
    """dask's pickle module as its message decoder sees it: a part of a message marked
    as pickled is opened restricted on a guarded loop, and one that is refused is
    replaced by the RefusedPickle error as a value. Raising instead would fail the
    whole message, and dask would ask for it again and again; as a value it is what
    the task sent, which the executor refuses like any result that is not JSON."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)

    def loads(self, data, *, buffers=()):
        if not _on_guarded_loop():
            return self._module.loads(data, buffers=buffers)
        try:
            return RestrictedUnpickler(io.BytesIO(data), buffers=buffers or None).load()
        except RefusedPickle as e:
            return e


_loops: set = set()           # the asyncio loops of the guarded clients
_lock = threading.Lock()
_saved: dict = {}


def _on_guarded_loop() -> bool:
    try:
        return asyncio.get_running_loop() in _loops
    except RuntimeError:
        return False


def _places():
    """(module, attribute, guarded value): where dask looks up what it opens pickles with."""
    import distributed.client
    import distributed.comm.utils
    import distributed.protocol.core
    import distributed.protocol.pickle
    guarded = _GuardedPickle(pickle)
    return [(distributed.protocol.pickle, "pickle", guarded), (distributed.client, "pickle", guarded),
            (distributed.protocol.core, "pickle", _GuardedFrames(distributed.protocol.pickle)),
            (distributed.comm.utils, "OFFLOAD_THRESHOLD", 0)]


@contextlib.contextmanager
def guarded_loop():
    """A running event loop (tornado's IOLoop) for a dask Client, on which dask
    opens no pickle that names code, from before the client connects until it
    has closed."""
    from distributed.utils import LoopRunner
    runner = LoopRunner(asynchronous=False)
    runner.start()
    loop = runner.loop
    with _lock:
        if not _loops:
            for module, attribute, value in _places():
                _saved[(module, attribute)] = getattr(module, attribute)
                setattr(module, attribute, value)
        _loops.add(loop.asyncio_loop)
    try:
        yield loop
    finally:
        with _lock:
            _loops.discard(loop.asyncio_loop)
            if not _loops:
                for (module, attribute), value in _saved.items():
                    setattr(module, attribute, value)
                _saved.clear()
        with contextlib.suppress(Exception):
            runner.stop()
