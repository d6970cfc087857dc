"""Gene-pool configuration files: `key = value` lines, `#` comments.

Every problem (unknown, missing or duplicated key, bad value) is reported with
`file:line` before the run writes anything, so a typo never costs a pool file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from genchess.engine import SEARCH_MODES


class ConfigError(ValueError):
    """A configuration problem; the message reads `file:line: problem`."""


@dataclass
class Key:
    name: str
    kind: str           # int, float, bool, path, mode, duration, volume
    help: str
    lo: float | None = None
    required: bool = True


KEYS = [
    Key("maximum simultaneous games", "int",
        "games played at once; worker processes used: min(this, population / 2)", 1),
    Key("gene pool population", "int", "players in each pool (an even number)", 2),
    Key("gene pool count", "int", "number of pools; every swap interval each pool's best "
        "player is copied into the next pool", 1),
    Key("pool swap interval", "int", "games between copying each pool's best player to the next pool", 1),
    Key("minimum game time", "float", "seconds per side in the first round", 0.01),
    Key("maximum game time", "float", "the most seconds per side a game gets", 0.01),
    Key("game time increment", "float", "seconds added to the game time after each round", 0),
    Key("oscillating time", "bool", "yes: rise to the maximum, then fall back to the minimum, "
        "and so on; no: rise to the maximum and stay there"),
    Key("gene pool file", "path", "genomes are written here, games to <file>_games.txt; an "
        "existing file is resumed"),
    Key("seed", "int", "random seed, for reproducible runs", None, False),
    Key("opening file", "path", "EPD file of positions to start games from, drawn at random "
        "(default: the standard start position)", None, False),
    Key("search", "mode", "iterative, budget (the Look Ahead Gene's time budget), ga or minimax",
        None, False),
    Key("time limit", "duration", "stop cleanly after this long, e.g. 2 hours, 30 minutes, 90 seconds",
        None, False),
    Key("output volume", "volume", "verbose (every game, mating and player table) or quiet "
        "(round summaries only)", None, False),
]
KEYS_BY_NAME = {key.name: key for key in KEYS}
UNITS = {"second": 1, "seconds": 1, "sec": 1, "s": 1, "minute": 60, "minutes": 60, "min": 60,
         "m": 60, "hour": 3600, "hours": 3600, "h": 3600, "day": 86400, "days": 86400}


@dataclass
class TrainConfig:
    path: str
    max_games: int
    population: int
    pool_count: int
    swap_interval: int
    min_time: float
    max_time: float
    time_increment: float
    oscillating: bool
    pool_file: Path
    seed: int | None = None
    opening_file: Path | None = None
    search: str = "iterative"
    time_limit: float | None = None
    quiet: bool = False

    @property
    def games_file(self) -> Path:
        return Path(str(self.pool_file) + "_games.txt")

    @property
    def workers(self) -> int:
        return max(1, min(self.max_games, self.population // 2))


def parse_duration(text: str) -> float:
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([a-z]*)", text.strip().lower())
    if not match or (match.group(2) and match.group(2) not in UNITS):
        raise ValueError(f"expected a duration such as '2 hours', '30 minutes' or '90 seconds', "
                         f"not {text!r}")
    seconds = float(match.group(1)) * UNITS.get(match.group(2) or "seconds")
    if seconds <= 0:
        raise ValueError("the time limit must be positive")
    return seconds


def convert(key: Key, text: str, base_dir: Path):
    if key.kind == "int":
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise ValueError(f"expected a whole number, not {text!r}")
        value = int(text)
    elif key.kind == "float":
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"expected a number, not {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite number, not {text!r}")
    elif key.kind == "bool":
        if text.lower() not in ("yes", "no"):
            raise ValueError(f"expected yes or no, not {text!r}")
        return text.lower() == "yes"
    elif key.kind == "path":
        if not text:
            raise ValueError("expected a file name")
        return Path(text)
    elif key.kind == "mode":
        if text.lower() not in SEARCH_MODES:
            raise ValueError(f"expected one of {', '.join(SEARCH_MODES)}, not {text!r}")
        return text.lower()
    elif key.kind == "volume":
        if text.lower() not in ("verbose", "quiet"):
            raise ValueError(f"expected verbose or quiet, not {text!r}")
        return text.lower()
    elif key.kind == "duration":
        return parse_duration(text)
    else:                                           # pragma: no cover - table error
        raise AssertionError(key.kind)
    if key.lo is not None and value < key.lo:
        raise ValueError(f"must be at least {key.lo:g}, not {text}")
    return value


def parse_config(path: str | Path) -> TrainConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" not in line:
            raise ConfigError(f"{path}:{n}: expected 'key = value', got {line!r}")
        name, value = (part.strip() for part in line.split("=", 1))
        name = " ".join(name.lower().split())
        key = KEYS_BY_NAME.get(name)
        if key is None:
            raise ConfigError(f"{path}:{n}: unknown key {name!r} (genchess-train --help lists the keys)")
        if name in values:
            raise ConfigError(f"{path}:{n}: duplicated key {name!r} (first at line {lines[name]})")
        try:
            values[name] = convert(key, value, path.parent)
        except ValueError as e:
            raise ConfigError(f"{path}:{n}: {name}: {e}") from None
        lines[name] = n
    missing = [key.name for key in KEYS if key.required and key.name not in values]
    if missing:
        raise ConfigError(f"{path}: missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    if values["gene pool population"] % 2:
        raise ConfigError(f"{path}:{lines['gene pool population']}: gene pool population must be "
                          f"even, so that every player has an opponent each round")
    if values["minimum game time"] > values["maximum game time"]:
        raise ConfigError(f"{path}:{lines['minimum game time']}: minimum game time is above the "
                          f"maximum game time (line {lines['maximum game time']})")
    opening = values.get("opening file")
    if opening is not None and not opening.is_file():
        raise ConfigError(f"{path}:{lines['opening file']}: opening file {str(opening)!r} not found")
    return TrainConfig(
        path=str(path),
        max_games=values["maximum simultaneous games"],
        population=values["gene pool population"],
        pool_count=values["gene pool count"],
        swap_interval=values["pool swap interval"],
        min_time=values["minimum game time"],
        max_time=values["maximum game time"],
        time_increment=values["game time increment"],
        oscillating=values["oscillating time"],
        pool_file=values["gene pool file"],
        seed=values.get("seed"),
        opening_file=opening,
        search=values.get("search", "iterative"),
        time_limit=values.get("time limit"),
        quiet=values.get("output volume", "verbose") == "quiet",
    )


def keys_help() -> str:
    lines = ["configuration keys (key = value; # starts a comment):"]
    for key in KEYS:
        lines.append(f"  {key.name}{'' if key.required else ' (optional)'}: {key.help}")
    return "\n".join(lines)
