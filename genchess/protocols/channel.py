"""The text channel between GenChess and a GUI: robust reading, flushed writing, a log.

Input is decoded leniently (binary junk becomes replacement characters instead of
an exception) and very long lines are cut, because a protocol loop must survive
anything a broken GUI or a fuzzer sends. Output goes out a line at a time under a
lock, since the search thread and the protocol thread both write. `--log FILE`
records every line in both directions with a timestamp, which is what a user
debugging a GUI setup needs to see.
"""

from __future__ import annotations

import datetime
import io
import sys
import threading
import time

MAX_LINE = 100_000     # characters kept of a line; a longer one is truncated
# A log line is "<stamp> >> line" (in) or "<stamp> << line" (out); the stamp is this
# format cut to milliseconds (23 characters).
LOG_STAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f"


class Channel:
    def __init__(self, inp=None, out=None, log_path: str | None = None):
        self.inp = inp if inp is not None else io.TextIOWrapper(
            sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
        self.out = out if out is not None else sys.stdout
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8", buffering=1) if log_path else None
        self.received: float | None = None      # time.monotonic() of the last line read

    def _log(self, direction: str, line: str) -> None:
        if self.log is not None:
            stamp = datetime.datetime.now().strftime(LOG_STAMP_FORMAT)[:-3]
            self.log.write(f"{stamp} {direction} {line}\n")

    def readline(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        try:
            line = self.inp.readline(MAX_LINE + 1)
        except (OSError, ValueError):
            return None
        if not line:
            return None
        if len(line) > MAX_LINE and not line.endswith("\n"):
            # Drain the rest of an overlong line so the next read starts fresh.
            while True:
                rest = self.inp.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
        line = line.rstrip("\r\n").replace("\x00", "")
        # The GUI's clock for a `go` runs from here: searches count their time from it.
        self.received = time.monotonic()
        with self.lock:
            self._log(">>", line)
        return line

    def serve(self, handle, first_line: str | None = None) -> None:
        """Feed every line (starting with `first_line`, if given) to handle(line)
        until it returns False (`quit`) or input ends."""
        line = first_line if first_line is not None else self.readline()
        while line is not None and handle(line):
            line = self.readline()

    def send(self, line: str) -> None:
        with self.lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):
                pass            # the GUI went away; nothing useful left to do
            self._log("<<", line)

    def close(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None
