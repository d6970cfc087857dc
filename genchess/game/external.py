"""External engines' processes (Stockfish, any UCI or xboard program driven through
python-chess): finding the program and ending it, whatever state it is in.

Two layers start such processes: the matches' external players
(genchess.strength.engines) and the set maker's Stockfish, which plays and labels
positions (genchess.position_sets.making). The set maker stands below measuring, so
what both need lives here, beside the game loop, and imports nothing (python-chess
is only handed in as an engine object).
"""

from __future__ import annotations

import os
import shutil


def find_command(command: str) -> str | None:
    """The program `command` names: a path if it is executable, else a name on PATH
    or in /usr/games (where Debian installs stockfish and fairymax); None if none."""
    if "\0" in command:            # no file has one; os.access() raises on it
        return None
    if os.sep in command:
        return command if os.access(command, os.X_OK) else None
    return shutil.which(command) or shutil.which(command, path="/usr/games")


def quit_engine(engine) -> None:
    """Quit a python-chess engine, or close its process if it no longer answers;
    never raises (it may be gone already: nothing to clean up then)."""
    try:
        engine.quit()
    except Exception:
        try:
            engine.close()
        except Exception:
            pass
