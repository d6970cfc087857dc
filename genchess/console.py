"""What every console command shares about its terminal, whatever layer it is in.

Small on purpose: the trainers' commands, the study and `genchess` import it, so
that none of them imports another command's module to behave like it. Beside the
terminal, the two things every reader of a user's text needs to keep its errors to
one clear line: `quoted` (a piece of the input, cut short) and `whole_number`
(digits read without int()'s own errors: other scripts' digits, or more digits
than it converts, which str.isdigit() lets through).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Callable


WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")


def quoted(text: str, limit: int = 40) -> str:
    """A piece of a user's input for a one-line error message: its repr, cut to
    `limit` characters, so that a runaway line does not make a runaway message."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def shortened(message: str, limit: int = 200) -> str:
    """Another library's error message (which may quote a whole line) cut to `limit`
    characters, on one line."""
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 3] + "..."


def whole_number(text: str) -> int | None:
    """`text` as a whole number (ASCII digits, an optional sign, at most 18 digits,
    spaces around allowed), or None: the caller says what it expected."""
    text = text.strip()
    return int(text) if WHOLE_NUMBER.fullmatch(text) else None


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`, else a message saying so."""
    import argparse

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number of at least {minimum}, not {value}")
        return value
    return whole


def reader_gone() -> int:
    """What a command returns when its output's reader went away (piped into `head`):
    stop quietly with status 1. stdout is pointed at the null device first, or Python
    would report the broken pipe again when it flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def run_command(prog: str, body: Callable[[], int], errors: tuple[type, ...]) -> int:
    """A command's body, its user's problems said in one line: one of `errors` (a bad
    config, genome, cluster...) or a file that cannot be read or written is
    `<prog>: problem` on stderr and status 2; a reader gone away is reader_gone()."""
    try:
        status = body()
        # Short output waits in stdout's buffer: a reader gone away shows when it is
        # flushed, here, and not at exit where nothing catches it.
        sys.stdout.flush()
        return status
    except errors as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return reader_gone()
    except OSError as e:
        problem = e.strerror or str(e) or type(e).__name__
        print(f"{prog}: {e.filename}: {problem}" if e.filename else f"{prog}: {problem}",
              file=sys.stderr)
        return 2
