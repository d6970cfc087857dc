"""What every console command shares about its terminal, whatever layer it is in.

Small on purpose: the trainers' commands, the study and `genchess` import it, so
that none of them imports another command's module to behave like it.
"""

from __future__ import annotations

import os
import sys


def reader_gone() -> int:
    """What a command returns when its output's reader went away (piped into `head`):
    stop quietly with status 1. stdout is pointed at the null device first, or Python
    would report the broken pipe again when it flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1
