"""`python -m genchess.strength.setboard_wrapper CMD ARGS...`: run an xboard engine
that declares `setboard=0` (Fairy-Max) so that python-chess accepts it.

python-chess refuses an engine without setboard, though it only ever sends
`setboard` for a game that does not start from the standard position. This
pass-through rewrites the feature to `setboard=1` and copies everything else
byte for byte; the match runner then gives such an engine its openings as moves
from the start, never as a position.
"""

import os
import signal
import subprocess
import sys
import threading


def wrapped_command(argv: list[str]) -> list[str]:
    """The command line that runs `argv` behind this wrapper. The file is run by
    path (it needs only the standard library), so no package path is needed."""
    return [sys.executable, os.path.abspath(__file__), *argv]


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def pump_in():
        try:
            for line in iter(sys.stdin.buffer.readline, b""):
                child.stdin.write(line)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            child.stdin.close()
        except OSError:
            pass

    threading.Thread(target=pump_in, daemon=True).start()
    out = sys.stdout.buffer
    for line in iter(child.stdout.readline, b""):
        if line.startswith(b"feature"):
            line = line.replace(b"setboard=0", b"setboard=1")
        out.write(line)
        out.flush()
    # os._exit: a normal exit would wait on the stdin thread's buffered reader.
    os._exit(child.wait())


if __name__ == "__main__":
    main()
