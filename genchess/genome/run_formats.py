"""The record lines of each trainer's run file, written and read in one place.

A run file is read by three parties: the trainer that writes it (and reads it back
to resume), the opening of a run's genome (run_files.open_genome, by the file's
first line) and the plots. Each method's lines are written by a function here and
read by the pattern or reader beside it, so a change to a line cannot leave one
reader behind. The module stands in the genome package, beside run_files, because
opening a genome must not load a trainer (tests/test_layering.py).

    evolve    a header line (EVOLVE_HEADER ...), a `generation N: ...` line per
              generation, a `validation N: ...` line per validation match
    network   a header line (NETWORK_HEADER ...), an `epoch N: ...` line per epoch,
              the same validation lines
    tune      JSON lines: a header {"record": "tune", ...}, then one per iteration
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

EVOLVE_HEADER = "# GenChess evolve run:"     # the first line of an evolve run's records
NETWORK_HEADER = "# GenChess network run:"   # ... of a network run's
TUNE_RECORD = "tune"                         # a tune run's records: JSON lines, the first
TUNE_HEADER = '{"record": "tune"'            # ... its header, {"record": "tune", ...}


def starts_with(path: str | Path, header: str) -> bool:
    """Whether the first line of `path` starts with `header` (False for a file that
    cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().startswith(header)
    except OSError:
        return False


def is_evolve_records(path: str | Path) -> bool:
    """Whether `path` is an evolve run's records (its first line is the header)."""
    return starts_with(path, EVOLVE_HEADER)


def is_network_records(path: str | Path) -> bool:
    """Whether `path` is a network run's records (its first line is the header)."""
    return starts_with(path, NETWORK_HEADER)


def is_tune_records(path: str | Path) -> bool:
    """Whether `path` is a tune run's records (its first line is the header)."""
    return starts_with(path, TUNE_HEADER)


def k_text(labels) -> str:
    """The fitted scaling constants as a header states them."""
    return f"K {labels.k_result:.6f}" + ("" if math.isnan(labels.k_mentor) else f" K_m {labels.k_mentor:.6f}")


def step_of(line: str) -> int:
    """The step a `generation N: ...`, `epoch N: ...` or `validation N: ...` line is about."""
    return int(line.split()[1].rstrip(":"))


# ------------------------------------------------------------------ validation (evolve, network)

VALIDATION_LINE = re.compile(r"validation (\d+): .* games (\d+) elo (\S+) low (\S+) high (\S+)")


def validation_line(step: int, reference_name: str, stats, estimate) -> str:
    """A validation match's line: the best so far against the reference after `step`."""
    s = stats
    return (f"validation {step}: best vs {reference_name} +{s.wins} ={s.draws} -{s.losses} "
            f"games {s.games} elo {estimate.elo:+.1f} low {estimate.low:+.1f} "
            f"high {estimate.high:+.1f}\n")


def validated_steps(lines: list[str]) -> set[int]:
    """The steps whose validation match the records hold."""
    return {step_of(line) for line in lines if line.startswith("validation ")}


# ------------------------------------------------------------------ evolve

GENERATION_LINE = re.compile(r"generation (\d+): loss (\S+) held-out (\S+) mean (\S+) best-so-far (\S+)")


def evolve_header(kind: str, numbers: int, evolve: list[str], frozen: int, optimiser: str,
                  l2: float, positions, set_size: int, held_out: float, labels, start, seed: int) -> str:
    return (f"{EVOLVE_HEADER} kind {kind}; numbers {numbers} "
            f"({', '.join(evolve)}, {frozen} untouched frozen); optimiser {optimiser}; "
            f"l2 {l2:g}; positions {positions} "
            f"({set_size}, held out {held_out:g}); labels {labels.describe()}; {k_text(labels)}; "
            f"start {start}; seed {seed}\n")


def generation_line(generation: int, loss: float, held_out: float, mean: float, best: float,
                    seconds: float) -> str:
    return (f"generation {generation}: loss {loss:.7f} held-out {held_out:.7f} "
            f"mean {mean:.7f} best-so-far {best:.7f} seconds {seconds:.2f}\n")


def generations_written(lines: list[str]) -> int:
    """The last generation the records hold (0: none)."""
    return max((step_of(line) for line in lines if line.startswith("generation ")), default=0)


# ------------------------------------------------------------------ network

EPOCH_LINE = re.compile(r"epoch (\d+): loss (\S+) held-out (\S+) quantised (\S+)")


def network_header(architecture: str, positions, set_size: int, held_out_name: str, labels,
                   epochs: int, learning_rate: float, rate_drop: float, drop_at: float,
                   batch_size: int, flip_files: bool, seed: int) -> str:
    return (f"{NETWORK_HEADER} {architecture}; positions "
            f"{positions} ({set_size}, {held_out_name}); labels {labels.describe()}; {k_text(labels)}; epochs "
            f"{epochs}; learning rate {learning_rate:g} drop {rate_drop:g} at "
            f"{drop_at:g}; batch {batch_size}; flip files {flip_files}; seed {seed}\n")


def epoch_line(epoch: int, loss: float, held_out: float, quantised: float, rate: float,
               positions_per_second: float, seconds: float) -> str:
    return (f"epoch {epoch}: loss {loss:.7f} held-out {held_out:.7f} "
            f"quantised {quantised:.7f} rate {rate:g} "
            f"positions/s {positions_per_second:.0f} "
            f"seconds {seconds:.2f}\n")


def epoch_losses(lines: list[str]) -> list[tuple[int, float]]:
    """(epoch, quantised held-out loss) of every epoch line."""
    return [(int(m.group(1)), float(m.group(4))) for m in map(EPOCH_LINE.match, lines) if m]


# ------------------------------------------------------------------ tune

def tune_header(optimiser: str, iterations: int, seed: int, numbers) -> str:
    """The header of a tune run: `numbers` are the tuned numbers (name, start, lo, hi)."""
    return json.dumps({"record": TUNE_RECORD, "optimiser": optimiser,
                       "iterations": iterations, "seed": seed,
                       "numbers": [n.name for n in numbers],
                       "start": [n.start for n in numbers],
                       "lo": [n.lo for n in numbers],
                       "hi": [n.hi for n in numbers]}) + "\n"


def iteration_line(record: dict) -> str:
    return json.dumps(record) + "\n"


def read_tune_records(path: Path) -> tuple[dict, list[dict]]:
    """The header and the iterations of a tune run file; a torn line (a run killed while
    writing it) is passed over. ValueError when the file is not a tune run's, or names
    `path:line` when a record lacks what the plots and the resume read."""
    header, iterations = None, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            if header is None:
                if record.get("record") != TUNE_RECORD:
                    raise ValueError(f"{path}: not a tune run's records")
                header = check_tune_header(record, f"{path}:{number}")
            elif isinstance(record.get("iteration"), int):
                iterations.append(check_iteration(record, header, f"{path}:{number}"))
    if header is None:
        raise ValueError(f"{path}: not a tune run's records")
    return header, iterations


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _are_numbers(value, count: int | None = None) -> bool:
    """Whether `value` is a list of `count` numbers (of at least one when count is None)."""
    return (isinstance(value, list) and all(map(_is_number, value))
            and (len(value) == count if count is not None else bool(value)))


def check_tune_header(header: dict, where: str) -> dict:
    """A tune run's header as it was written: the numbers' names, starts and bounds, and
    the optimiser; ValueError naming `where` otherwise."""
    names = header.get("numbers")
    if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)):
        raise ValueError(f"{where}: the header's \"numbers\" is not a list of gene names")
    for key in ("start", "lo", "hi"):
        if not _are_numbers(header.get(key), len(names)):
            raise ValueError(f"{where}: the header's \"{key}\" is not {len(names)} numbers")
    if not isinstance(header.get("optimiser"), str):
        raise ValueError(f"{where}: the header names no optimiser")
    return header


def check_iteration(record: dict, header: dict, where: str) -> dict:
    """An iteration's record as it was written: theta, the games and their outcome (SPSA's
    result, a population's scores); ValueError naming `where` otherwise."""
    where, count = f"{where}: iteration {record['iteration']}", len(header["numbers"])
    if not _are_numbers(record.get("theta"), count):
        raise ValueError(f"{where}'s \"theta\" is not {count} numbers")
    if not (isinstance(record.get("games"), list) and record["games"]):
        raise ValueError(f"{where} lists no games")
    if header["optimiser"] == "spsa":
        if not _is_number(record.get("result")):
            raise ValueError(f"{where}'s \"result\" is not a number")
    elif not _are_numbers(record.get("scores")):
        raise ValueError(f"{where}'s \"scores\" are not numbers")
    elif "spread" in record and not _is_number(record["spread"]):
        raise ValueError(f"{where}'s \"spread\" is not a number")
    return record


def is_json_line(line: str) -> bool:
    """Whether a tune record line is whole (a torn one does not parse)."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
