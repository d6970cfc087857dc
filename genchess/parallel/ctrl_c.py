"""Ctrl-C at safe points: a press is held, and acted on between two games.

Python raises KeyboardInterrupt wherever the main thread happens to be; a trainer
or a match must not stop halfway through recording a game, nor inside
concurrent.futures.wait with its locks taken. Inside `ctrl_c_at_safe_points()`
(which executors.open_executor and the match runner enter) a press only sets a
flag, and the safe points, `raise_if_ctrl_c`, `wait_first` and `as_completed`
(and executors.completed, which calls them), raise it there. The trade-off: a
stop waits up to POLL_SECONDS for a safe point; a second press does not wait.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import signal
import threading
from typing import Iterator

POLL_SECONDS = 0.5            # how often a caller waiting on games looks for a held Ctrl-C

# Ctrl-C pressed inside ctrl_c_at_safe_points() and not yet acted on.
_ctrl_c_pressed = threading.Event()


def _hold_ctrl_c(signum, frame) -> None:
    if _ctrl_c_pressed.is_set():        # pressed again: the user will not wait
        raise KeyboardInterrupt
    _ctrl_c_pressed.set()


@contextlib.contextmanager
def ctrl_c_at_safe_points() -> Iterator[None]:
    """While the block runs, Ctrl-C only sets a flag, and `raise_if_ctrl_c()` (which
    `completed`, `wait_first` and `as_completed` call between games) raises the
    KeyboardInterrupt there.

    Python raises KeyboardInterrupt wherever the main thread happens to be. Between
    writing a game and counting it, the count the trainer reports disagrees with
    its files (seen in the tests). Inside concurrent.futures.wait, after it took
    some futures' locks and before the `with` that releases them, the executor's
    thread would block forever on those locks, and so would the exit that joins it:
    the likely cause of a trainer that did not exit after Ctrl-C (seen in the tests
    too, and gone since the press waits for a safe point). A second Ctrl-C raises
    at once, for a user who will not wait half a second. Leaving the block with a
    Ctrl-C not yet acted on raises it then, so a press is never lost. SIGTERM is held
    the same way. Nested blocks, other threads and a signal that is ignored (SIGINT in
    a worker) keep Python's behaviour.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # SIGTERM (`kill PID`, a job manager's stop) is a Ctrl-C too: without it a run
    # started in the background, where the shell leaves SIGINT ignored, could only
    # be killed mid-write. Each signal is taken only where Python's default stands.
    held = [sig for sig, default in ((signal.SIGINT, signal.default_int_handler),
                                     (signal.SIGTERM, signal.SIG_DFL))
            if signal.getsignal(sig) is default]
    if not held:
        yield
        return
    _ctrl_c_pressed.clear()
    previous = {sig: signal.signal(sig, _hold_ctrl_c) for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    raise_if_ctrl_c()           # reached only when the block ended without an exception


def ctrl_c_pending() -> bool:
    """Whether a Ctrl-C (or SIGTERM) is held, not yet acted on."""
    return _ctrl_c_pressed.is_set()


def raise_if_ctrl_c() -> None:
    """A safe point: raise the KeyboardInterrupt of a Ctrl-C held since the last one."""
    if _ctrl_c_pressed.is_set():
        _ctrl_c_pressed.clear()
        raise KeyboardInterrupt


def wait_first(futures, timeout: float = POLL_SECONDS):
    """concurrent.futures.wait(FIRST_COMPLETED) for at most `timeout` seconds, a safe
    point for Ctrl-C before it. Callers loop on it, so a held Ctrl-C is acted on
    within `timeout` even while one long game runs."""
    raise_if_ctrl_c()
    return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)


def as_completed(futures) -> Iterator[cf.Future]:
    """concurrent.futures.as_completed with a safe point for Ctrl-C between results."""
    waiting = set(futures)
    while waiting:
        done, waiting = wait_first(waiting)
        yield from done
