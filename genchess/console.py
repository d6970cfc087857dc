"""What every console command shares about its terminal, whatever layer it is in.

Small on purpose: the trainers' commands, the study and `genchess` import it, so
that none of them imports another command's module to behave like it.
"""

from __future__ import annotations

import os
import sys
from typing import Callable


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
        return body()
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
