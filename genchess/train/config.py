"""Trainer configuration files: `key = value` lines, `#` comments, checked by key.

A key (`Key`) says what its text means (its kind), which attribute of the method's
config object it sets, and why it is there. Its default is not written here: it is
the default of that attribute's dataclass field, so each default is written once,
and `genchess train --help` (registry.keys_help) shows it. Keys every method
understands are COMMON_KEYS and the champion's CHAMPION_KEYS; each method adds its
own (registry.py), taking the keys of an idea several methods share (generations,
a fixed depth, the game clock) from the one definition below, so that the same
idea has the same key in every method. A key renamed so still reads under its old
spelling for one release, with a one-line warning naming the new key
(RENAMED_KEYS). Every problem (unknown, missing or duplicated key, bad value, a
file that is not there) is reported as `file:line: problem` before the run writes
anything, so a typo never costs a pool file.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from genchess.console import quoted, whole_number
from genchess.engine import SEARCH_MODES


class ConfigError(ValueError):
    """A configuration problem; the message reads `file:line: problem`."""


@dataclass(frozen=True)
class Key:
    name: str
    kind: str           # int, float, floats, bool, path, file (must exist), set (a set file or
                        # folder, must exist), sets (one or several, commas between), mode,
                        # duration, volume, method, scheduler, choice (one of `choices`),
                        # words (a list)
    help: str
    attribute: str      # of the method's config object (champion keys: of ChampionSettings)
    lo: float | None = None
    required: bool = False
    default: object = None      # the config field's default, filled in by the registry
    choices: tuple[str, ...] = ()
    hi: float | None = None

    def with_help(self, text: str) -> Key:
        """The same key, explained as one method uses it."""
        return dataclasses.replace(self, help=text)

    def with_kind(self, kind: str, text: str) -> Key:
        """The same key taking another kind of value, explained as one method uses it."""
        return dataclasses.replace(self, kind=kind, help=text)


# Keys of every method.
COMMON_KEYS = [
    Key("method", "method", "which evolution: gene pool (the default), kendall-whitwell, "
        "multi-niche crowding, evolve (on positions), tune (by games: SPSA) or network (a network "
        "genome by gradients)", "method"),      # (it picks the config class, not a field of it)
    Key("seed", "int", "random seed, for reproducible runs", "seed"),
    Key("opening file", "file", "EPD file of positions to start games from, drawn at random "
        "(default: the standard start position)", "opening_file"),
    Key("variant", "choice", "standard, or chess960: every game starts from one of Chess960's "
        "960 start positions (a game pair from the same one), drawn with the run's seed, or "
        "from the opening file's positions played by Chess960's rules", "variant",
        choices=("standard", "chess960")),
    Key("search", "mode", "iterative, budget (the Look Ahead Gene's time budget), ga or minimax",
        "search"),
    Key("time limit", "duration", "stop cleanly after this long, e.g. 2 hours, 30 minutes, 90 seconds",
        "time_limit"),
    Key("workers", "int", "worker processes: games (and position-scoring jobs) at once",
        "workers", 1),
    Key("output volume", "volume", "verbose (every game, mating and player table) or quiet "
        "(round summaries only)", "quiet"),
    Key("scheduler", "scheduler", "play the games on a dask.distributed cluster: tcp://HOST:PORT "
        "of a running dask scheduler, or local:N for N worker processes on this machine "
        "(needs pip install \"genchess[cluster]\"; genchess train --scheduler overrides it)",
        "scheduler"),
    # The names of dask's own options (dask scheduler/worker --tls-ca-file ...), so one
    # spelling serves the keys, genchess train's switches and the cluster's commands.
    Key("tls ca file", "file", "the CA certificate of a TLS cluster (tls://HOST:PORT), from "
        "genchess-cluster-certs DIR: DIR/ca.pem (--tls-ca-file overrides it)", "tls_ca_file"),
    Key("tls cert", "file", "the trainer's certificate for a TLS cluster: DIR/client.pem "
        "(--tls-cert overrides it)", "tls_cert"),
    Key("tls key", "file", "the private key of tls cert: DIR/client-key.pem (--tls-key overrides it)",
        "tls_key"),
]

# One key for each idea that several methods share; a method lists the ones it uses
# (with its own help where it says more: DEPTH.with_help(...)).
GENERATIONS = Key("generations", "int", "stop after this many generations", "generations", 1)
DEPTH = Key("depth", "int", "fixed search depth of every move, instead of a clock", "depth", 1)
GAME_TIME = Key("game time", "float", "seconds per side per game", "game_time", 0.01)
GAME_INCREMENT = Key("game increment", "float", "seconds added per move", "increment", 0)

# Old spelling -> the key that replaced it (or the keys, in methods that differ: the
# first the method has); read (with a warning) for one release.
RENAMED_KEYS: dict[str, str | tuple[str, ...]] = {
    "maximum simultaneous games": "workers",
    "maximum generations": ("generations", "epochs", "iterations"),
    # A generation is an epoch of a network run and an iteration of a tune run.
    "generations": ("epochs", "iterations"),
    # A run's main file has one name in every method.
    "gene pool file": "run file",
    "population file": "run file",
    "chromosome database": "run file",
    # The gene pool's clock grows per round; every other method's increment is per move.
    "game time increment": "game time added per round",
    "search depth": "depth",
    "validation time": "game time",
    "validation increment": "game increment",
    "match time": "game time",
    "mentor weight": "wdl",               # it always was the result's share
    "result share": "wdl",                # the result's weight, now in a blended label
}

# The champion and its SPRT gate (champion.py), in every method.
CHAMPION_KEYS = [
    Key("champion interval", "int", "every this many games the run's best genome plays an SPRT "
        "match against the champion (<run file>_champion.genome) and replaces it if stronger; "
        "without this key there is no champion", "interval", 1),
    Key("champion elo0", "float", "the champion SPRT's H0 in normalized Elo", "elo0"),
    Key("champion elo1", "float", "the champion SPRT's H1 in normalized Elo", "elo1"),
    Key("champion alpha", "float", "the champion SPRT's false-promotion risk", "alpha", 0),
    Key("champion beta", "float", "the champion SPRT's missed-promotion risk", "beta", 0),
    Key("champion max games", "int", "games after which an undecided champion match keeps the "
        "champion", "max_games", 2),
]

# The position fitness (genchess.fitness), for the methods that can score on a
# labelled set instead of games: evolve, and multi-niche crowding.
POSITION_KEYS = [
    Key("positions", "set", "labelled position set (EPD, .epd.gz, packed .gcpos(.gz); genchess "
        "positions makes one), or a folder of them read as one set: the fitness is the loss of "
        "each genome's evaluation on it", "positions"),
    Key("labels", "choice", "what the evaluation must predict: result (the games' results), "
        "mentor (a strong engine's scores, ce) or mix (the two blended by wdl; giving wdl is "
        "enough)", "labels", choices=("result", "mentor", "mix")),
    Key("wdl", "float", "the game result's weight in the label (WDL lambda, 0 to 1): label = "
        "wdl x result + (1 - wdl) x the mentor's expected score, scored at the mentor's K; "
        "0 is the mentor's label alone", "wdl", 0, hi=1),
    Key("held out", "float", "share of the set kept out of the fitness, to report a held-out "
        "loss (the same positions in every run on the set)", "held_out", 0, hi=0.9),
]

UNITS = {"second": 1, "seconds": 1, "sec": 1, "s": 1, "minute": 60, "minutes": 60, "min": 60,
         "m": 60, "hour": 3600, "hours": 3600, "h": 3600, "day": 86400, "days": 86400}


@dataclass(kw_only=True)
class CommonSettings:
    """The settings of COMMON_KEYS and the champion, which every method's config has
    (keyword-only, so that each method's own fields keep their order before them).
    Each method's config class also names its method in a class attribute `method`."""
    seed: int | None = None
    opening_file: Path | None = None
    variant: str = "standard"
    search: str = "iterative"
    time_limit: float | None = None
    quiet: bool = False
    workers: int = 2
    scheduler: str | None = None
    tls_ca_file: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    champion: object = None             # champion.ChampionSettings, or None: no champion

    @property
    def chess960(self) -> bool:
        """Whether the run's games are Chess960 (their jobs say so: GameJob.chess960)."""
        return self.variant == "chess960"

    def tls(self):
        """The TLS files of a tls:// scheduler (executors.TlsFiles), None without them;
        ClusterError when only some of the three are given."""
        from genchess.parallel.executors import TlsFiles
        return TlsFiles.given(self.tls_ca_file, self.tls_cert, self.tls_key)


@dataclass(kw_only=True)
class PositionSettings:
    """The settings of POSITION_KEYS (positions None: the method's fitness is games)."""
    positions: Path | None = None
    labels: str = "result"
    wdl: float | None = None
    held_out: float = 0.1


def check_labels(path, values: dict[str, object], lines: dict[str, int]) -> None:
    """`wdl` alone says the labels are mixed; labels = mix needs it; a wdl beside
    labels that are not mixed would be ignored, so it is an error."""
    labels = values.get("labels")
    if labels == "mix" and "wdl" not in values:
        raise ConfigError(f"{path}:{lines['labels']}: labels = mix needs 'wdl' "
                          f"(the result's weight in the label, 0 to 1)")
    if "wdl" in values and labels in ("result", "mentor"):
        raise ConfigError(f"{path}:{lines['wdl']}: wdl blends the result into the mentor's label, "
                          f"but labels = {labels}: give one of the two (wdl = 0 is the mentor's "
                          f"label alone)")
    if "wdl" in values:
        values["labels"] = "mix"


def parse_duration(text: str) -> float:
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([a-z]*)", text.strip().lower())
    if not match or (match.group(2) and match.group(2) not in UNITS):
        raise ValueError(f"expected a duration such as '2 hours', '30 minutes' or '90 seconds', "
                         f"not {quoted(text)}")
    seconds = float(match.group(1)) * UNITS.get(match.group(2) or "seconds")
    if seconds <= 0:
        raise ValueError("the time limit must be positive")
    return seconds


def normal_method_name(text: str) -> str:
    """`Kendall - Whitwell` -> `kendall-whitwell`; spaces and case do not matter."""
    return " ".join(text.lower().replace("-", " - ").split()).replace(" - ", "-")


def convert(key: Key, text: str, methods: Sequence[str] = ()):
    """The value of `text` for `key`; ValueError with the reason if it is bad. A
    `method` key's value is one of `methods`, the registry's (passed in, so that
    this module does not import the registry that imports it)."""
    if key.kind == "int":
        value = whole_number(text)
        if value is None:
            digits = " of at most 18 digits" if re.fullmatch(r"\s*[+-]?[0-9]+\s*", text) else ""
            raise ValueError(f"expected a whole number{digits}, not {quoted(text)}")
    elif key.kind == "float":
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"expected a number, not {quoted(text)}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite number, not {quoted(text)}")
    elif key.kind == "bool":
        if text.lower() not in ("yes", "no"):
            raise ValueError(f"expected yes or no, not {quoted(text)}")
        return text.lower() == "yes"
    elif key.kind in ("path", "file", "set"):     # a file's existence: check_entries
        if not text:
            raise ValueError("expected a file name")
        return Path(text)
    elif key.kind == "sets":                        # one set, or several read as one
        names = [name.strip() for name in text.split(",")]
        if not all(names):
            raise ValueError(f"expected set files or folders separated by commas, not {quoted(text)}")
        if len(names) == 1:
            return Path(names[0])
        from genchess.position_sets.position_set import SetList    # numpy: only when asked
        return SetList(names)
    elif key.kind == "mode":
        if text.lower() not in SEARCH_MODES:
            raise ValueError(f"expected one of {', '.join(SEARCH_MODES)}, not {quoted(text)}")
        return text.lower()
    elif key.kind == "volume":
        if text.lower() not in ("verbose", "quiet"):
            raise ValueError(f"expected verbose or quiet, not {quoted(text)}")
        return text.lower() == "quiet"
    elif key.kind == "floats":
        try:
            value = [float(word) for word in text.replace(",", " ").split()]
        except ValueError:
            raise ValueError(f"expected numbers separated by spaces, not {quoted(text)}") from None
        if not value or any(v != v or v in (float("inf"), float("-inf")) for v in value):
            raise ValueError(f"expected finite numbers separated by spaces, not {quoted(text)}")
        if key.lo is not None and min(value) < key.lo:
            raise ValueError(f"each must be at least {key.lo:g}, not {min(value):g}")
        return value
    elif key.kind == "duration":
        return parse_duration(text)
    elif key.kind == "choice":
        word = " ".join(text.lower().split())
        if word not in key.choices:
            raise ValueError(f"expected one of {', '.join(key.choices)}, not {quoted(text)}")
        return word
    elif key.kind == "words":
        words = [w.strip().lower() for w in text.split(",") if w.strip()]
        if not words:
            raise ValueError("expected one or more names separated by commas")
        return words
    elif key.kind == "method":
        method = normal_method_name(text)
        if method not in methods:
            raise ValueError(f"expected one of {', '.join(methods)}, not {quoted(text)}")
        return method
    elif key.kind == "kings":                       # a network's king buckets: KingLayout's text
        from genchess.genome.network import KingLayout
        return KingLayout.parse(text).text()
    elif key.kind == "scheduler":
        from genchess.parallel.executors import parse_scheduler
        return parse_scheduler(text)
    else:                                           # pragma: no cover - table error
        raise AssertionError(key.kind)
    if key.lo is not None and value < key.lo:
        raise ValueError(f"must be at least {key.lo:g}, not {text}")
    if key.hi is not None and value > key.hi:
        raise ValueError(f"must be at most {key.hi:g}, not {text}")
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
            raise ConfigError(f"{path}:{n}: expected 'key = value', got {quoted(line)}")
        name, value = (part.strip() for part in line.split("=", 1))
        name = " ".join(name.lower().split())
        if name in entries:
            raise ConfigError(f"{path}:{n}: duplicated key {quoted(name)} (first at line {entries[name][1]})")
        entries[name] = (value, n)
    return entries


def renamed(path: Path, entries: dict[str, tuple[str, int]], keys: list[Key],
            warn=lambda line: print(line, file=sys.stderr)) -> dict[str, tuple[str, int]]:
    """`entries` with each old spelling of one of `keys` under its new name, and one
    `warn` line for each; both spellings in one file are an error naming both. An
    old spelling whose new key the method does not have stays, to be reported as
    an unknown key."""
    names = {key.name for key in keys}
    entries = dict(entries)
    for old, new in RENAMED_KEYS.items():
        new = next((name for name in ((new,) if isinstance(new, str) else new) if name in names), None)
        if old not in entries or new is None:
            continue
        text, n = entries.pop(old)
        if new in entries:
            raise ConfigError(f"{path}:{n}: {old!r} is the old spelling of {new!r} (line "
                              f"{entries[new][1]}): give one of the two")
        warn(f"{path}:{n}: {old!r} is deprecated: write {new!r} (the old spelling goes in "
             f"the next release)")
        entries[new] = (text, n)
    return entries


def check_entries(path: Path, entries: dict[str, tuple[str, int]], keys: list[Key],
                  method: str, methods: Sequence[str]) -> tuple[dict[str, object], dict[str, int]]:
    """Convert every entry by its key (`methods`: what `method` may name); unknown
    keys, bad values and missing keys are errors; old spellings are read (renamed)."""
    entries = renamed(path, entries, keys)
    by_name = {key.name: key for key in keys}
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    for name, (text, n) in sorted(entries.items(), key=lambda item: item[1][1]):
        key = by_name.get(name)
        if key is None:
            raise ConfigError(f"{path}:{n}: unknown key {quoted(name)} for method {method!r} "
                              f"(genchess train --help lists the keys)")
        try:
            values[name] = convert(key, text, methods)
        except ValueError as e:
            raise ConfigError(f"{path}:{n}: {name}: {e}") from None
        lines[name] = n
        if key.kind == "file" and not values[name].is_file():
            raise ConfigError(f"{path}:{n}: {name} {quoted(text)} not found")
        if key.kind in ("set", "sets"):
            for member in (values[name] if isinstance(values[name], tuple) else [values[name]]):
                if not member.exists():
                    raise ConfigError(f"{path}:{n}: {name} {quoted(str(member))} not found (a set "
                                      f"file or a folder of them)")
    missing = [key.name for key in keys if key.required and key.name not in values]
    if missing:
        raise ConfigError(f"{path}: missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    return values, lines
