"""A worker that holds the cluster's keys cannot run code on the trainer.

Everything a job returns comes back as JSON (genchess/parallel/plain.py) and the
trainer's dask client reads no pickle that names code (cluster.PLAIN_ONLY,
pickle_guard.py). The hostile worker here is real: one of two `dask worker`
processes on the loopback, made hostile by code run in it, sending back pickles
that would write a marker file if opened in the trainer's process, by every path
dask has for them: a task's value, a task's error, the type of a task's value and
a warning. Nothing runs: the marker stays absent, the trainer names the worker,
plays its game again on the other one and carries on. The control: an ordinary
client asked for the same game runs the payload by every one of those paths.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from random import Random

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason='needs pip install "genchess[cluster]"')

from genchess.genome import Genome                                 # noqa: E402
from genchess.parallel import executors, plain                     # noqa: E402
from genchess.parallel.replay import result_problem                # noqa: E402
from genchess.parallel.worker import GameJob, play_job             # noqa: E402
from genchess.position_sets.making import PositionsResult                # noqa: E402
from train_helpers import DaskProcesses                            # noqa: E402


def fixed_depth_job() -> GameJob:
    white, black = Genome.random(Random(1), 1), Genome.random(Random(2), 2)
    return GameJob.between(white, black, round=1, seconds=1.0, depth=1)


# ------------------------------------------------------------------ plain data, any executor

def test_what_a_job_returns_comes_back_as_json_and_is_rebuilt_exactly():
    job = fixed_depth_job()
    game = play_job(job)
    scores = {"train": np.array([0.25, np.nan, 1e-9]), "held-out": np.array([3.0])}
    positions = PositionsResult(7, "genchess", "1-0", 40, [("8/8/8/8/8/8/8/K6k w - -", None),
                                                         ("8/8/8/8/8/8/8/K6k b - -", 12)],
                                {"sampled": 2}, 0.5)
    for value in (game, positions, [1, "two", None, (3.0, False)]):
        text = plain.on_worker(lambda v: v, value)
        assert isinstance(text, str) and json.loads(text)
        assert plain.from_worker(text) == value
    back = plain.from_worker(plain.on_worker(lambda: scores))
    assert set(back) == set(scores) and all(np.array_equal(back[k], scores[k], equal_nan=True)
                                            for k in scores)
    assert result_problem(plain.from_worker(plain.on_worker(play_job, job)), job) is None


def test_errors_come_back_as_text_and_are_raised_as_the_trainers_own_types():
    def fails(error):
        raise error
    cases = [(executors.ClusterError("worker w runs GenChess 0.0.1"), executors.ClusterError),
             (ValueError("bad number"), ValueError),
             (FileNotFoundError(2, "No such file or directory", "/nowhere/set.epd"), FileNotFoundError),
             (PositionsError("its own type"), executors.WorkerError)]
    for error, expected in cases:
        with pytest.raises(expected) as raised:
            plain.from_worker(plain.on_worker(fails, error))
        assert str(error) in str(raised.value)
        if sys.version_info >= (3, 11):         # (notes are 3.11's)
            assert any("On the worker:" in note for note in raised.value.__notes__)
    with pytest.raises(FileNotFoundError) as raised:
        plain.from_worker(plain.on_worker(fails, cases[2][0]))
    assert raised.value.filename == "/nowhere/set.epd" and raised.value.strerror


class PositionsError(Exception):
    pass


@pytest.mark.parametrize("sent, why", [
    (b'{"value": 1}', "a bytes came back"),
    ({"value": 1}, "a dict came back"),
    ('{"value": {"object": "system", "fields": {"command": "touch marker"}}}', "'system' is none"),
    ('{"value": {"object": "GameJob", "fields": {"__class__": 1}}}', "no field '__class__'"),
    ('{"value": {"array": [1], "dtype": "object"}}', "an array of 'object'"),
    ('{"value": 1, "error": {}}', "neither a value nor an error"),
    ('[' * 100000 + ']' * 100000, "cannot be read"),
    ('{"value": ', "cannot be read"),
])
def test_anything_but_that_json_is_unreadable_not_obeyed(sent, why):
    with pytest.raises(plain.Unreadable, match=why):
        plain.from_worker(sent)


# ------------------------------------------------------------------ a hostile worker

@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    dask = DaskProcesses(tmp_path_factory.mktemp("dask"), workers=2)
    try:
        with dask.client() as client:
            client.wait_for_workers(2, timeout=60)
        yield dask
    finally:
        dask.close()


def payload(marker) -> str:
    """Python source of an object that writes `marker` when it is made in this
    process (the trainer's), and pickles as a call that makes it again: opened on
    a worker or a scheduler it does nothing, and survives to be passed on."""
    source = ("(lambda s: (__import__('os').getpid() == %d and open(%r, 'w').write('ran'), "
              "type('E', (), {'__reduce__': lambda self: (eval, ('(' + s + ')(' + repr(s) + ')',))})()"
              ")[1])" % (os.getpid(), str(marker)))
    return "(" + source + ")(" + repr(source) + ")"


# Run in the hostile worker's process: the honest pieces are kept to put back.
HOSTILE = {
    # the task's value is the object itself, sent as a pickle dask opens on arrival
    "value": """
import distributed.worker as w, genchess.parallel.plain as p
from distributed.protocol.serialize import ToPickle
w._honest_to_serialize = getattr(w, '_honest_to_serialize', w.to_serialize)
w.to_serialize = ToPickle
p._honest_on_worker = getattr(p, '_honest_on_worker', p.on_worker)
p.on_worker = lambda fn, *a, **k: eval(PAYLOAD)
""",
    # the task fails, its error the pickle
    "error": """
import pickle, distributed.worker as w, genchess.parallel.plain as p
from distributed.protocol import to_serialize
w._honest_error_message = getattr(w, '_honest_error_message', w.error_message)
w.error_message = lambda e, status='error': {
    'status': status, 'exception': to_serialize(pickle.dumps(eval(PAYLOAD))),
    'traceback': to_serialize(pickle.dumps(eval(PAYLOAD))),
    'exception_text': 'boom', 'traceback_text': ''}
def fail(fn, *a, **k):
    raise ValueError('boom')
p._honest_on_worker = getattr(p, '_honest_on_worker', p.on_worker)
p.on_worker = fail
""",
    # the value is honest, but the type reported with it is the pickle
    "type": """
import pickle, types, distributed.worker_state_machine as m
m._honest_pickle = getattr(m, '_honest_pickle', m.pickle)
m.pickle = types.SimpleNamespace(dumps=lambda *a, **k: pickle.dumps(eval(PAYLOAD)),
                                 loads=m._honest_pickle.loads)
""",
    # a warning beside an honest value
    "warning": """
import pickle, distributed, genchess.parallel.plain as p
p._honest_on_worker = getattr(p, '_honest_on_worker', p.on_worker)
def warn(fn, *a, **k):
    evil = pickle.dumps(eval(PAYLOAD))
    distributed.get_worker().log_event('warn', {'message': evil, 'category': evil})
    return p._honest_on_worker(fn, *a, **k)
p.on_worker = warn
""",
}

HONEST = """
import distributed.worker as w, distributed.worker_state_machine as m
import genchess.parallel.plain as p
w.to_serialize = getattr(w, '_honest_to_serialize', w.to_serialize)
w.error_message = getattr(w, '_honest_error_message', w.error_message)
m.pickle = getattr(m, '_honest_pickle', m.pickle)
p.on_worker = getattr(p, '_honest_on_worker', p.on_worker)
"""


@pytest.mark.parametrize("path", sorted(HOSTILE))
def test_a_hostile_worker_runs_nothing_on_the_trainer_which_plays_its_game_elsewhere(
        cluster, tmp_path, path):
    marker = tmp_path / "marker"
    # (this test's own client is closed before the trainer's opens: an ordinary
    # dask client would open the hostile pickles itself)
    with cluster.client() as client:
        hostile, honest = sorted(client.scheduler_info()["workers"])
        client.run(exec, HOSTILE[path], {"PAYLOAD": payload(marker)}, workers=[hostile])
    try:
        job = fixed_depth_job()
        lines: list[str] = []
        with executors.open_executor(cluster.address, 2, out=lines.append) as executor:
            # (the first try goes to the hostile worker; the games after it anywhere)
            first = executor.submit(play_job, job, workers=[hostile])
            results = [first.result(120)] + [f.result(120) for f in
                                             [executor.submit(play_job, job) for _ in range(4)]]
    finally:
        with cluster.client() as client:
            client.run(exec, HONEST, {}, workers=[hostile])
    assert not marker.exists(), f"the hostile worker ran code in the trainer by its {path}"
    assert all(result_problem(result, job) is None for result in results)
    refusals = [line for line in lines if line.startswith("Refused")]
    if path in ("type", "warning"):     # the games themselves were honest: nothing to refuse
        assert refusals == []
    else:
        assert refusals, lines
        assert all(line.startswith(f"Refused game 1-2 of round 1 from {hostile}: ")
                   and line.endswith("; playing it again") for line in refusals), refusals
        assert "Traceback" not in "\n".join(lines)


@pytest.mark.parametrize("path", sorted(HOSTILE))
def test_without_the_guard_the_same_hostile_worker_does_run_code_here(cluster, tmp_path, path):
    """The control of the test above: an ordinary dask client (pickles allowed, no
    guarded loop) asked for the same game opens what the hostile worker sends by
    each path, and the marker is written. So the payload works and each path reaches
    the client; the marker's absence above is the guard's doing."""
    import time
    marker = tmp_path / "marker"
    with cluster.client() as client:
        hostile, _ = sorted(client.scheduler_info()["workers"])
        client.run(exec, HOSTILE[path], {"PAYLOAD": payload(marker)}, workers=[hostile])
        try:
            future = client.submit(plain.on_worker, play_job, fixed_depth_job(), workers=[hostile], pure=False)
            # A type or a warning is opened as it arrives, a value when it is fetched, an
            # error as the task fails (the client then never settles the future: poll).
            deadline = time.monotonic() + 60
            while not marker.exists() and time.monotonic() < deadline:
                if future.done():
                    with contextlib.suppress(Exception):
                        future.result(10)
                time.sleep(0.1)
            future.cancel()
        finally:
            client.run(exec, HONEST, {}, workers=[hostile])
    assert marker.exists() and marker.read_text() == "ran", \
        f"an unguarded client did not run the {path} payload: the test above shows nothing by it"
