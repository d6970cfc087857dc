"""Trainer configuration files: `key = value` lines, `#` comments.

The `method` key says which evolution runs (`gene pool`, the default, so older
files keep working; `kendall-whitwell`; `multi-niche crowding`). Keys every
trainer understands are COMMON_KEYS; each method adds its own table, and the
method's module turns the checked values into its config object (METHODS).
Every problem (unknown, missing or duplicated key, bad value) is reported with
`file:line` before the run writes anything, so a typo never costs a pool file.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

from genchess.engine import SEARCH_MODES


class ConfigError(ValueError):
    """A configuration problem; the message reads `file:line: problem`."""


@dataclass
class Key:
    name: str
    kind: str           # int, float, floats (a list), bool, path, mode, duration, volume, method, scheduler
    help: str
    lo: float | None = None
    required: bool = True


# Keys of every method. Methods read these through `common_settings`.
COMMON_KEYS = [
    Key("method", "method", "which evolution: gene pool (the default), kendall-whitwell or "
        "multi-niche crowding", None, False),
    Key("seed", "int", "random seed, for reproducible runs", None, False),
    Key("opening file", "path", "EPD file of positions to start games from, drawn at random "
        "(default: the standard start position)", None, False),
    Key("search", "mode", "iterative, budget (the Look Ahead Gene's time budget), ga or minimax",
        None, False),
    Key("time limit", "duration", "stop cleanly after this long, e.g. 2 hours, 30 minutes, 90 seconds",
        None, False),
    Key("output volume", "volume", "verbose (every game, mating and player table) or quiet "
        "(round summaries only)", None, False),
    Key("scheduler", "scheduler", "play the games on a dask.distributed cluster: tcp://HOST:PORT "
        "of a running dask scheduler, or local:N for N worker processes on this machine "
        "(needs pip install \"genchess[cluster]\"; genchess-train --scheduler overrides it)",
        None, False),
]

GENE_POOL_KEYS = [
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
    Key("initial genomes", "path", "genome or gene pool file: the first population is copies of "
        "its genomes, each mutated, instead of random genomes", None, False),
]

# The champion and its SPRT gate (champion.py), for the methods that keep one.
CHAMPION_KEYS = [
    Key("champion interval", "int", "every this many games the best living genome plays an SPRT "
        "match against the champion (<pool file>_champion.genome) and replaces it if stronger",
        1, False),
    Key("champion elo0", "float", "the champion SPRT's H0 in normalized Elo (default 0)", None, False),
    Key("champion elo1", "float", "the champion SPRT's H1 in normalized Elo (default 10)", None, False),
    Key("champion alpha", "float", "the champion SPRT's false-promotion risk (default 0.05)", 0, False),
    Key("champion beta", "float", "the champion SPRT's missed-promotion risk (default 0.05)", 0, False),
    Key("champion max games", "int", "games after which an undecided champion match keeps the "
        "champion (default 400)", 2, False),
]
GENE_POOL_KEYS += CHAMPION_KEYS
KEYS = GENE_POOL_KEYS + COMMON_KEYS
KEYS_BY_NAME = {key.name: key for key in KEYS}

# method name -> (module, its key table's attribute, its builder's attribute); the
# builder takes (path, values, lines) and returns the method's config object.
METHODS = {
    "gene pool": ("genchess.train.config", "GENE_POOL_KEYS", "gene_pool_config"),
    "kendall-whitwell": ("genchess.train.kendall", "KENDALL_KEYS", "kendall_config"),
    "multi-niche crowding": ("genchess.train.mnc", "MNC_KEYS", "mnc_config"),
}
UNITS = {"second": 1, "seconds": 1, "sec": 1, "s": 1, "minute": 60, "minutes": 60, "min": 60,
         "m": 60, "hour": 3600, "hours": 3600, "h": 3600, "day": 86400, "days": 86400}


@dataclass(kw_only=True)
class CommonSettings:
    """The settings of COMMON_KEYS, which every method's config has (keyword-only,
    so that each method's own fields keep their order before them)."""
    seed: int | None = None
    opening_file: Path | None = None
    search: str = "iterative"
    time_limit: float | None = None
    quiet: bool = False
    scheduler: str | None = None


@dataclass
class TrainConfig(CommonSettings):
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
    champion: object = None             # champion.ChampionSettings, or None: no champion
    initial_genomes: Path | None = None

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
    elif key.kind == "floats":
        try:
            value = [float(word) for word in text.replace(",", " ").split()]
        except ValueError:
            raise ValueError(f"expected numbers separated by spaces, not {text!r}") from None
        if not value or any(v != v or v in (float("inf"), float("-inf")) for v in value):
            raise ValueError(f"expected finite numbers separated by spaces, not {text!r}")
        if key.lo is not None and min(value) < key.lo:
            raise ValueError(f"each must be at least {key.lo:g}, not {min(value):g}")
        return value
    elif key.kind == "duration":
        return parse_duration(text)
    elif key.kind == "method":
        method = " ".join(text.lower().replace("-", " - ").split()).replace(" - ", "-")
        if method not in METHODS:
            raise ValueError(f"expected one of {', '.join(METHODS)}, not {text!r}")
        return method
    elif key.kind == "scheduler":
        from genchess.parallel.executors import parse_scheduler
        return parse_scheduler(text)
    else:                                           # pragma: no cover - table error
        raise AssertionError(key.kind)
    if key.lo is not None and value < key.lo:
        raise ValueError(f"must be at least {key.lo:g}, not {text}")
    return value


def read_entries(path: Path) -> dict[str, tuple[str, int]]:
    """`{key name: (value text, line)}` of a configuration file; syntax and duplicates checked."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    entries: dict[str, tuple[str, int]] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" not in line:
            raise ConfigError(f"{path}:{n}: expected 'key = value', got {line!r}")
        name, value = (part.strip() for part in line.split("=", 1))
        name = " ".join(name.lower().split())
        if name in entries:
            raise ConfigError(f"{path}:{n}: duplicated key {name!r} (first at line {entries[name][1]})")
        entries[name] = (value, n)
    return entries


def check_entries(path: Path, entries: dict[str, tuple[str, int]], keys: list[Key],
                  method: str) -> tuple[dict[str, object], dict[str, int]]:
    """Convert every entry by its key; unknown keys, bad values and missing keys are errors."""
    by_name = {key.name: key for key in keys}
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    for name, (text, n) in sorted(entries.items(), key=lambda item: item[1][1]):
        key = by_name.get(name)
        if key is None:
            raise ConfigError(f"{path}:{n}: unknown key {name!r} for method {method!r} "
                              f"(genchess-train --help lists the keys)")
        try:
            values[name] = convert(key, text, path.parent)
        except ValueError as e:
            raise ConfigError(f"{path}:{n}: {name}: {e}") from None
        lines[name] = n
    missing = [key.name for key in keys if key.required and key.name not in values]
    if missing:
        raise ConfigError(f"{path}: missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    opening = values.get("opening file")
    if opening is not None and not opening.is_file():
        raise ConfigError(f"{path}:{lines['opening file']}: opening file {str(opening)!r} not found")
    return values, lines


def method_spec(method: str):
    """(key table, builder) of a method: its keys are its own table plus COMMON_KEYS."""
    module_name, keys_attr, builder_attr = METHODS[method]
    module = importlib.import_module(module_name)
    return getattr(module, keys_attr) + COMMON_KEYS, getattr(module, builder_attr)


def read_method(path: Path, entries: dict[str, tuple[str, int]]) -> str:
    """The file's method, `gene pool` when it names none."""
    if "method" not in entries:
        return "gene pool"
    text, n = entries["method"]
    try:
        return convert(KEYS_BY_NAME["method"], text, path.parent)
    except ValueError as e:
        raise ConfigError(f"{path}:{n}: method: {e}") from None


def parse_config(path: str | Path):
    """The config object of the file's method (a TrainConfig for the gene pool)."""
    path = Path(path)
    entries = read_entries(path)
    method = read_method(path, entries)
    keys, build = method_spec(method)
    values, lines = check_entries(path, entries, keys, method)
    return build(path, values, lines)


def common_settings(values: dict[str, object]) -> dict[str, object]:
    """The COMMON_KEYS settings as keyword arguments every method's config takes."""
    return dict(seed=values.get("seed"), opening_file=values.get("opening file"),
                search=values.get("search", "iterative"), time_limit=values.get("time limit"),
                quiet=values.get("output volume", "verbose") == "quiet",
                scheduler=values.get("scheduler"))


def champion_settings(path: Path, values: dict[str, object], lines: dict[str, int]):
    """The champion gate's settings (None without `champion interval`), SPRT bounds checked."""
    if "champion interval" not in values:
        return None
    from genchess.strength.sprt import Sprt
    from genchess.train.champion import ChampionSettings
    champion = ChampionSettings(values["champion interval"], values.get("champion elo0", 0.0),
                                values.get("champion elo1", 10.0), values.get("champion alpha", 0.05),
                                values.get("champion beta", 0.05), values.get("champion max games", 400))
    try:
        Sprt(champion.elo0, champion.elo1, champion.alpha, champion.beta)
    except ValueError as e:
        raise ConfigError(f"{path}:{lines['champion interval']}: champion: {e}") from None
    return champion


def gene_pool_config(path: Path, values: dict[str, object], lines: dict[str, int]) -> TrainConfig:
    if values["gene pool population"] % 2:
        raise ConfigError(f"{path}:{lines['gene pool population']}: gene pool population must be "
                          f"even, so that every player has an opponent each round")
    if values["minimum game time"] > values["maximum game time"]:
        raise ConfigError(f"{path}:{lines['minimum game time']}: minimum game time is above the "
                          f"maximum game time (line {lines['maximum game time']})")
    seeds = values.get("initial genomes")
    if seeds is not None and not seeds.is_file():
        raise ConfigError(f"{path}:{lines['initial genomes']}: initial genomes {str(seeds)!r} not found")
    return TrainConfig(
        champion=champion_settings(path, values, lines), initial_genomes=seeds,
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
        **common_settings(values),
    )


def keys_help() -> str:
    lines = ["configuration keys (key = value; # starts a comment):", "  every method:"]
    lines += [f"    {key.name}{'' if key.required else ' (optional)'}: {key.help}" for key in COMMON_KEYS]
    for method in METHODS:
        keys, _ = method_spec(method)
        lines.append(f"  method = {method}:")
        lines += [f"    {key.name}{'' if key.required else ' (optional)'}: {key.help}"
                  for key in keys if key not in COMMON_KEYS]
    return "\n".join(lines)
