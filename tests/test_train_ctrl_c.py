"""Ctrl-C while games run is held until a safe point between games (executors).

A KeyboardInterrupt raised wherever the main thread happens to be once left a
trainer's count of games disagreeing with its PGN file (raised between writing a
game and counting it), and once hung the trainer for good (raised inside
concurrent.futures.wait while it held futures' locks). These tests send real
SIGINTs to this process.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import threading
import time

import pytest

from genchess.parallel import executors

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to itself")


@pytest.fixture(autouse=True)
def python_default_ctrl_c():
    """Python's own SIGINT handler for each test, whatever the test run inherited: a
    pytest started in the background by a shell without job control has SIGINT
    ignored, and ctrl_c_at_safe_points rightly leaves an ignored signal alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)        # the handler runs at the next bytecode of the main thread


def ctrl_c_later(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_is_held_until_a_safe_point_and_the_handler_is_restored():
    with pytest.raises(KeyboardInterrupt):
        with executors.ctrl_c_at_safe_points():
            ctrl_c()
            reached = True                      # not interrupted here
            executors.raise_if_ctrl_c()
            pytest.fail("the held Ctrl-C was not raised at the safe point")
    assert reached
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_held_ctrl_c_is_raised_on_leaving_the_block_and_never_lost():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with executors.ctrl_c_at_safe_points():
            ctrl_c()
            steps.append("after the press")
    assert steps == ["after the press"]
    # Acted on once: the next block starts clean.
    with executors.ctrl_c_at_safe_points():
        executors.raise_if_ctrl_c()


def test_a_second_ctrl_c_raises_at_once():
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with executors.ctrl_c_at_safe_points():
            ctrl_c()
            steps.append("first press held")
            ctrl_c()
            steps.append("second press held")
    assert steps == ["first press held"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_nested_blocks_and_other_handlers_are_left_alone():
    with executors.ctrl_c_at_safe_points():
        held = signal.getsignal(signal.SIGINT)
        with executors.ctrl_c_at_safe_points():
            assert signal.getsignal(signal.SIGINT) is held
        assert signal.getsignal(signal.SIGINT) is held      # the inner block restored nothing
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a worker ignores Ctrl-C
    try:
        with executors.ctrl_c_at_safe_points():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            ctrl_c()
            executors.raise_if_ctrl_c()                  # nothing was held
    finally:
        signal.signal(signal.SIGINT, previous)


def test_completed_finishes_the_loop_body_then_stops_before_the_next_game():
    """The trainer writes a game, then counts it: Ctrl-C between the two must not split them."""
    written, counted = [], []
    with cf.ThreadPoolExecutor(2) as pool:
        with pytest.raises(KeyboardInterrupt):
            with executors.ctrl_c_at_safe_points():
                for result in executors.completed(pool, lambda n: n, range(20), in_flight=2):
                    written.append(result)
                    if len(written) == 3:
                        ctrl_c()                     # lands between the write and the count
                    counted.append(result)
    assert written == counted and len(counted) == 3


def test_ctrl_c_during_one_long_game_acts_within_the_poll_interval():
    release = threading.Event()
    with cf.ThreadPoolExecutor(1) as pool:
        long_game = pool.submit(release.wait, 60)
        timer = ctrl_c_later(0.2)
        started = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                with executors.ctrl_c_at_safe_points():
                    for _ in executors.as_completed([long_game]):
                        pass
            waited = time.monotonic() - started
        finally:
            timer.cancel()
            release.set()
    assert waited < 0.2 + 3 * executors.POLL_SECONDS, f"Ctrl-C acted on after {waited:.1f} s"
    assert not long_game.cancelled()


def test_wait_first_returns_what_finished():
    release = threading.Event()
    with cf.ThreadPoolExecutor(2) as pool:
        quick, slow = pool.submit(lambda: 1), pool.submit(release.wait, 60)
        quick.result()
        done, waiting = executors.wait_first([quick, slow], timeout=0.1)
        release.set()
    assert done == {quick} and waiting == {slow}


def test_sigterm_is_a_ctrl_c_held_for_a_safe_point():
    """`kill PID` (or a job manager) stops a run as Ctrl-C does, at a safe point, also
    where the shell left SIGINT ignored (a run started in the background)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt):
            with executors.ctrl_c_at_safe_points():
                assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN   # left alone
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
                reached = True                      # held, not raised here
                executors.raise_if_ctrl_c()
        assert reached
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, previous)
