"""The one table of training methods, and what is built from it.

Each method lives in its own module, which declares a `METHOD`: its name, its keys
(config.Key), its config class (a dataclass over config.CommonSettings, whose field
defaults are the keys' defaults), its trainer class (scaffold.Run), a check for
rules between keys, the files it writes, and the function that draws its runs
(with how to tell its run file). From that one declaration come the checked
config object (`parse_config`), the trainer (`trainer_for`), `genchess train
--help` (`keys_help`) and `genchess plot` (`method_of_run_file`, `plots_of`). Method modules are imported only when a
method is needed. What `genchess --genome RUN_FILE` plays is not asked here: the
genome package reads every method's run files (genchess.genome.open_genome), so
playing a genome imports no trainer.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from genchess.train.config import (CHAMPION_KEYS, COMMON_KEYS, ConfigError, Key,
                                   check_entries, convert, read_entries)

# method name -> the module that declares its METHOD; the first is the default.
METHOD_MODULES = {
    "gene pool": "genchess.train.gene_pool",
    "kendall-whitwell": "genchess.train.kendall",
    "multi-niche crowding": "genchess.train.mnc",
    "evolve": "genchess.train.evolve",
    "tune": "genchess.train.tune",
    "network": "genchess.train.network",
}
DEFAULT_METHOD = "gene pool"


@dataclass(frozen=True)
class Method:
    name: str
    summary: str                # one sentence for --help
    keys: list[Key]             # its own keys (COMMON_KEYS and CHAMPION_KEYS come with every method)
    config: type                # a dataclass over CommonSettings, with `path` and the keys' attributes
    trainer: type               # trainer(config, out=print, executor_factory=None).run() -> exit status
    files: str                  # what a run writes, for --help
    # (path, values by key name, lines by key name) -> None; ConfigError on a rule between keys
    check: Callable[[Path, dict, dict], None] | None = None
    # "module:function" drawing a run's plots, plot_run(run file, out dir, warn) -> written
    # paths (drawing.PlotError when it cannot): named, so that matplotlib and the
    # drawing load only for genchess plot
    plots: str | None = None
    # run file -> whether it is this method's (None: told apart by no look at the file;
    # a file no method recognises is read as the default method's)
    recognises: Callable[[Path], bool] | None = None
    # Its own keys, then COMMON_KEYS and CHAMPION_KEYS, with defaults filled in.
    all_keys: list[Key] = field(init=False)

    def __post_init__(self):
        # Each key's default and whether it is required, read off the config class:
        # the field default is the one place a default is written.
        from genchess.train.champion import ChampionSettings
        own = resolve_keys(self.keys, self.config, required_when_no_default=True)
        common = resolve_keys(COMMON_KEYS, self.config, method=DEFAULT_METHOD)
        champion = resolve_keys(CHAMPION_KEYS, ChampionSettings)
        object.__setattr__(self, "all_keys", own + common + champion)


def resolve_keys(keys: list[Key], config_class, required_when_no_default: bool = False,
                 **defaults) -> list[Key]:
    """`keys` with each default (and whether it is required) read off the dataclass
    field of `config_class` that the key sets; `defaults` for keys it has no field for."""
    fields = {f.name: f for f in dataclasses.fields(config_class)}
    resolved = []
    for key in keys:
        f = fields.get(key.attribute)
        if f is not None and f.default is not dataclasses.MISSING:
            default, has_default = f.default, True
        elif f is not None and f.default_factory is not dataclasses.MISSING:
            default, has_default = f.default_factory(), True
        else:
            default, has_default = defaults.get(key.attribute), key.attribute in defaults
        resolved.append(dataclasses.replace(
            key, default=default, required=required_when_no_default and not has_default))
    return resolved


def method(name: str) -> Method:
    return importlib.import_module(METHOD_MODULES[name]).METHOD


def methods() -> list[Method]:
    return [method(name) for name in METHOD_MODULES]


# ------------------------------------------------------------------ config files

def read_method(path: Path, entries: dict[str, tuple[str, int]]) -> str:
    """The file's method, the default when it names none."""
    if "method" not in entries:
        return DEFAULT_METHOD
    text, n = entries["method"]
    try:
        return convert(COMMON_KEYS[0], text, tuple(METHOD_MODULES))
    except ValueError as e:
        raise ConfigError(f"{path}:{n}: method: {e}") from None


def parse_config(path: str | Path):
    """The checked config object of the file's method."""
    path = Path(path)
    entries = read_entries(path)
    chosen = method(read_method(path, entries))
    values, lines = check_entries(path, entries, chosen.all_keys, chosen.name, tuple(METHOD_MODULES))
    return build_config(chosen, path, values, lines)


def build_config(chosen: Method, path: Path, values: dict[str, object], lines: dict[str, int]):
    """The method's config object from checked values (by key name): the generic
    builder every method shares; rules between keys are the method's check."""
    if chosen.check is not None:
        chosen.check(path, values, lines)
    settings = {key.attribute: values[key.name] for key in chosen.keys + COMMON_KEYS
                if key.name in values and key.name != "method"}
    return chosen.config(path=str(path), champion=champion_settings(path, values, lines), **settings)


def champion_settings(path: Path, values: dict[str, object], lines: dict[str, int]):
    """The champion gate's settings (None without `champion interval`), SPRT bounds checked."""
    given = {key.attribute: values[key.name] for key in CHAMPION_KEYS if key.name in values}
    if "interval" not in given:
        return None
    from genchess.train.champion import ChampionSettings
    champion = ChampionSettings(**given)
    try:
        champion.sprt()
    except ValueError as e:
        raise ConfigError(f"{path}:{lines['champion interval']}: champion: {e}") from None
    return champion


def method_of_run_file(path: Path) -> Method:
    """The method whose run file `path` is, for genchess plot: the first that
    recognises it, else the default (a Kendall-Whitwell population file has the
    gene pool file's form and is drawn the same way)."""
    return next((m for m in methods() if m.recognises is not None and m.recognises(path)),
                method(DEFAULT_METHOD))


def plots_of(chosen: Method) -> Callable:
    """The function that draws a run of the method `chosen`."""
    module, _, function = chosen.plots.partition(":")
    return getattr(importlib.import_module(module), function)


def trainer_for(config, **kwargs):
    """The trainer of the config's method (its class attribute `method`), ready to run()."""
    return method(config.method).trainer(config, **kwargs)


# ------------------------------------------------------------------ help

def describe_key(key: Key) -> str:
    if key.required:
        note = ""
    elif key.default is None:
        note = " (optional)"
    else:
        note = f" (optional, default {_shown(key)})"
    return f"{key.name}{note}: {key.help}"


def _shown(key: Key) -> str:
    value = key.default
    if key.kind == "bool":
        return "yes" if value else "no"
    if key.kind == "volume":
        return "quiet" if value else "verbose"
    if key.kind == "words":
        return ", ".join(value)
    if isinstance(value, list):
        return " ".join(f"{v:g}" for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def keys_help() -> str:
    lines = ["configuration keys (key = value; # starts a comment):", "  every method:"]
    everyone = methods()[0].all_keys
    shared = [k for k in everyone if k.name in {c.name for c in COMMON_KEYS + CHAMPION_KEYS}]
    lines += [f"    {describe_key(key)}" for key in shared]
    for chosen in methods():
        lines.append(f"  method = {chosen.name}:")
        own = {k.name for k in chosen.keys}
        lines += [f"    {describe_key(key)}" for key in chosen.all_keys if key.name in own]
    return "\n".join(lines)

