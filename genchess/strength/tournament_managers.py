"""Real tournament managers for tests and scripts: where they are, and what their games say.

cutechess-cli and fastchess are neither on PyPI nor in Debian, so the project cannot
install them; every test and script finds them here, the same way: on PATH, else in
the directory named by $GENCHESS_TOURNAMENT_BIN (.ci/run sets it to where CI keeps
them). A binary that is there but cannot run (cutechess-cli without Qt's core library)
counts as missing, with the reason, so a test skips instead of failing on the machine
rather than on GenChess.

cutechess-cli prints one `Finished game N (WHITE vs BLACK): RESULT {REASON}` line per game;
the reason is where a time loss, an illegal move or a crash shows, and it names the side
at fault, which the line's pairing turns into an engine name.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

BIN_ENV = "GENCHESS_TOURNAMENT_BIN"

# What a missing or broken manager needs; the binaries themselves come from their
# public sources (cutechess/cutechess, Disservin/fastchess).
NEEDS = {"cutechess-cli": "apt-get install libqt6core6", "fastchess": "nothing"}


def find_manager(name: str) -> tuple[str | None, str]:
    """(path, "") of a tournament manager that runs here, or (None, why not): on PATH,
    then in $GENCHESS_TOURNAMENT_BIN."""
    candidates = [shutil.which(name)]
    if os.environ.get(BIN_ENV):
        candidates.append(str(Path(os.environ[BIN_ENV]) / name))
    for path in candidates:
        if path and os.access(path, os.X_OK):
            try:
                proc = subprocess.run([path, "--version"], capture_output=True, text=True,
                                      timeout=30)
            except (OSError, subprocess.TimeoutExpired) as e:
                return None, f"{path} does not run: {e}"
            if proc.returncode != 0:
                problem = (proc.stderr or proc.stdout).strip().splitlines()[:1]
                return None, (f"{path} does not run ({' '.join(problem)}); it needs: "
                              f"{NEEDS.get(name, 'its libraries')}")
            return path, ""
    return None, (f"{name} not found on PATH or in ${BIN_ENV} "
                  f"(build it from its sources or set {BIN_ENV} to its directory)")


# ------------------------------------------------------------------ cutechess results

FINISHED = re.compile(r"^Finished game (\d+) \((.+) vs (.+)\): (\S+) \{(.*)\}\s*$")

# cutechess's wording for each fault (its `%1 loses on time` etc., %1 = White/Black).
FAULTS = {
    # "Draw by timeout": a flag against a side that cannot mate; it names no side.
    "time loss": ("loses on time", "by timeout"),
    "illegal move": ("illegal move",),
    "crash": ("disconnects", "crash"),
    "stall": ("connection stalls",),
    "bad claim": ("invalid result claim",),
}


@dataclass
class Game:
    number: int
    white: str
    black: str
    result: str             # 1-0, 0-1, 1/2-1/2 or *
    reason: str

    @property
    def fault(self) -> str | None:
        """The kind of fault that ended the game, if one did."""
        text = self.reason.lower()
        for kind, words in FAULTS.items():
            if any(word in text for word in words):
                return kind
        return None

    @property
    def at_fault(self) -> str | None:
        """The engine whose fault ended the game (the reason names its colour)."""
        if self.fault is None:
            return None
        if self.reason.startswith("White"):
            return self.white
        if self.reason.startswith("Black"):
            return self.black
        return None


def parse_games(output: str) -> list[Game]:
    games = []
    for line in output.splitlines():
        m = FINISHED.match(line.strip())
        if m:
            games.append(Game(int(m[1]), m[2], m[3], m[4], m[5]))
    return games


def fault_counts(games: list[Game], engines) -> dict[str, Counter]:
    """Per engine name: how many games it lost by each kind of fault (all kinds present)."""
    counts = {name: Counter({kind: 0 for kind in FAULTS}) for name in engines}
    for game in games:
        culprit = game.at_fault
        if culprit is not None:
            counts.setdefault(culprit, Counter({kind: 0 for kind in FAULTS}))[game.fault] += 1
        elif game.fault is not None:
            # The reason names no side: both are suspects, and both are counted.
            for name in (game.white, game.black):
                counts.setdefault(name, Counter())[game.fault] += 1
    return counts


def warnings(output: str) -> list[str]:
    """The manager's own complaints (an engine that would not start, a bad option;
    fastchess's `Warning; Illegal PV move ...` too)."""
    return [line for line in output.splitlines()
            if line.startswith(("Warning:", "Warning;")) or "Could not initialize" in line]
