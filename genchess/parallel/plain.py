"""What a worker sends back: JSON text of plain values, never a pickle.

A worker that holds a cluster's keys can send back anything, and reading a pickle
runs whatever code it names; so the trainer reads nothing from a worker but JSON.
Every job an executor runs is wrapped on the worker by `on_worker`: its value goes
back as JSON made of numbers, strings, lists and a few dataclasses named by their
type (`plain_type` registers them: a game's job, record and result, a positions
game's result), numpy arrays as lists of numbers, and an error as its type's
name, its arguments and its traceback's text. The trainer rebuilds the value with
`from_worker`, making objects of the registered dataclasses only, and an error of
a registered type or a builtin one (any other is a WorkerError carrying the
worker's message). Local worker processes take the same path as a cluster's, so
what reaches a trainer has one shape wherever it was computed.

Why JSON rather than PGN for games: a game comes back with every field of its
record exact (termination, reason, clock, opening plies), which the replay check
(replay.py) needs; PGN would have to carry them in tags of its own. Cost: tens of
microseconds per game, against the second or more a game takes.
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import traceback
from typing import Callable

import numpy as np

from genchess.parallel.faults import ClusterError, WorkerError

_TYPES: dict[str, type] = {}
_ERRORS: dict[str, type] = {"ClusterError": ClusterError}
_ARRAY_KINDS = {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}


class Unreadable(ValueError):
    """What came back is not the plain data of a result or of an error; one line."""


def plain_type(cls: type) -> type:
    """Register a dataclass as one that may come back from a worker (a decorator)."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    _TYPES[cls.__name__] = cls
    return cls


# ------------------------------------------------------------------ the worker's side

def on_worker(fn: Callable, *args, **kwargs) -> str:
    """fn(*args, **kwargs) on the worker, its value or its error as JSON text."""
    try:
        return json.dumps({"value": to_plain(fn(*args, **kwargs))})
    except Exception as e:
        error = {"type": type(e).__name__, "message": str(e), "traceback": traceback.format_exc()}
        try:
            error["args"] = to_plain(list(e.args))
            if isinstance(e, OSError):
                error["filename"] = to_plain(e.filename)
        except TypeError:
            pass
        return json.dumps({"error": error})


def to_plain(value):
    """`value` as JSON values: objects, tuples, dicts and arrays tagged, so that
    from_plain gives back what was sent."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [to_plain(v) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("a dict with keys other than text cannot come back from a worker")
        return {"dict": {k: to_plain(v) for k, v in value.items()}}
    if isinstance(value, np.ndarray) and value.dtype.kind in _ARRAY_KINDS:
        return {"array": value.tolist(), "dtype": _ARRAY_KINDS[value.dtype.kind]}
    if dataclasses.is_dataclass(value) and _TYPES.get(type(value).__name__) is type(value):
        return {"object": type(value).__name__,
                "fields": {f.name: to_plain(getattr(value, f.name))
                           for f in dataclasses.fields(value) if f.init}}
    raise TypeError(f"a {type(value).__name__} cannot come back from a worker as plain data")


# ------------------------------------------------------------------ the trainer's side

def from_worker(text) -> object:
    """The value a worker's on_worker sent, rebuilt; its error raised, rebuilt; and
    Unreadable for anything else (a hostile or broken worker)."""
    if not isinstance(text, str):
        raise Unreadable(f"a {type(text).__name__} came back instead of JSON text")
    try:
        message = json.loads(text)
        if not isinstance(message, dict) or len(message) != 1:
            raise Unreadable("the JSON is neither a value nor an error")
        if "error" in message:
            error = _error(message["error"])
        else:
            return from_plain(message["value"])
    except Unreadable:
        raise
    except (ValueError, TypeError, KeyError, RecursionError) as e:
        raise Unreadable(f"what came back cannot be read ({type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''})") from None
    raise error


def from_plain(data):
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [from_plain(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise Unreadable(f"a {type(data).__name__} of {len(data)} entries is no plain value")
    if "tuple" in data:
        return tuple(from_plain(v) for v in _of(data["tuple"], list))
    if "dict" in data:
        return {_of(k, str): from_plain(v) for k, v in _of(data["dict"], dict).items()}
    if "array" in data:
        dtype = _of(data.get("dtype"), str)
        if dtype not in _ARRAY_KINDS.values():
            raise Unreadable(f"an array of {dtype!r}")
        return np.array(_of(data["array"], list), dtype=dtype)
    if "object" in data:
        cls = _TYPES.get(_of(data["object"], str))
        if cls is None:
            raise Unreadable(f"a {data['object']!r} is none of the types a worker may send")
        fields = _of(data.get("fields"), dict)
        allowed = {f.name for f in dataclasses.fields(cls) if f.init}
        if not set(fields) <= allowed:
            raise Unreadable(f"a {cls.__name__} has no field {sorted(set(fields) - allowed)[0]!r}")
        return cls(**{name: from_plain(v) for name, v in fields.items()})
    raise Unreadable(f"an entry {sorted(data)[0]!r} is no plain value")


def _of(value, kind: type):
    if not isinstance(value, kind):
        raise Unreadable(f"a {type(value).__name__} where a {kind.__name__} belongs")
    return value


def _error(error) -> BaseException:
    """The exception a worker's job raised, as one of the trainer's own types."""
    error = _of(error, dict)
    name, message = _of(error.get("type"), str), str(error.get("message", ""))
    args = from_plain(error.get("args", [message]))
    cls = _ERRORS.get(name) or getattr(builtins, name, None)
    rebuilt = None
    if isinstance(cls, type) and issubclass(cls, Exception) and isinstance(args, list):
        try:
            rebuilt = cls(*args)
        except Exception:
            rebuilt = None
    if rebuilt is None:
        rebuilt = WorkerError(f"{name}: {message}" if message else name)
    if isinstance(rebuilt, OSError) and isinstance(error.get("filename"), str):
        rebuilt.filename = error["filename"]
    worker_trace = error.get("traceback")
    if isinstance(worker_trace, str) and hasattr(rebuilt, "add_note"):
        rebuilt.add_note("On the worker:\n" + worker_trace.rstrip())
    return rebuilt
