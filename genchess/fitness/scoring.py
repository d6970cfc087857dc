"""Scoring genomes on a labelled set: one loss per genome of a population.

`PositionFitness` holds a set split into a training and a held-out part (by a hash
of each position, so the split is the same for every run on the set) and scores
number vectors of one template genome (genome/numbers.py) on both. Linear kinds go
through their features (one product for the whole population, features.py); the
others through the C evaluation, genome by genome. Either way the evaluation is in
centipawns, the genome's own pawn unit, and the loss is loss.py's.

K is a property of the set: it is fitted once, with the reference genome
(evolved.genome, the default genome when the first sets were fitted, kept so that
a set's K does not move when the default changes), and stored in the set's sidecar file
(`<set>.json`, under "fitted"), so every run on a set scores against the same K
(Texel's method); the mentor's K_m likewise, from the mentor's own scores. The fit
belongs to the set's files (set_key: names and sizes), so a chunk added to a folder
has it fitted again, and a caller that passes part of the set does not.

Trainers score through their executor (`ScoreJob`, `score_job`), a few genomes a
job: a worker builds the set's features once and keeps them for the next job
(worker processes live as long as the run).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genchess.files import write_atomically
from genchess.fitness.features import linear_features
from genchess.fitness.loss import Labels, fit_k
from genchess.position_sets.position_set import PositionSet, SetList, load_positions, set_parts

REFERENCE = "evolved.genome"            # the genome K is fitted with (genchess/genomes/)
WORST = 1.0                             # the loss of a vector no genome can be made of

_cache = threading.local()


def sidecar_path(set_path: str | Path) -> Path:
    """Where a set's fitted K values are kept: FILE.json beside a file (the set
    maker's own sidecar), fitted.json inside a folder of chunks, and a SetList's in its
    first member's place (the sidecar's key tells whose fit it holds)."""
    if isinstance(set_path, SetList):
        set_path = set_path[0]
    path = Path(set_path)
    return path / "fitted.json" if path.is_dir() else Path(str(set_path) + ".json")


def set_key(set_path: str | Path, chunks: int | None = None) -> str:
    """What a set's fitted K belongs to: the names and sizes of its files (the folder's
    chunk files, its first `chunks` if given, or the one file), hashed. Adding a chunk or
    growing a file changes it; reading a subset of the positions does not."""
    files = set_parts(set_path, chunks)
    listing = "\n".join(f"{f.name} {f.stat().st_size}" for f in files if f.exists())
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def fitted_labels(set_path: str | Path, positions: PositionSet, kind: str = "result",
                  wdl: float | None = None, chunks: int | None = None) -> Labels:
    """The set's labels with its K (and K_m when it has mentor scores): read from the
    sidecar, or fitted now on `positions` (the whole set, as the trainers pass it) and
    written there for every later run, keyed by the set's files (set_key; a folder's
    first `chunks` if the run reads only those)."""
    path = sidecar_path(set_path)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    fitted = meta.setdefault("fitted", {})
    key = set_key(set_path, chunks)
    changed = fitted.get("set") != key
    if "set" not in fitted and "k_result" in fitted:
        # A sidecar from before the key: a folder's fit counted its positions, so it
        # stands if the count still matches; a file's fit was kept whatever was passed.
        stale = (isinstance(set_path, SetList) or Path(set_path).is_dir()
                 and fitted["k_result"].get("positions") != len(positions))
    else:
        stale = changed
    if stale:
        fitted.clear()          # the set's files changed since the fit (a chunk added)
    fitted["set"] = key
    if fitted.get("k_result", {}).get("genome") != REFERENCE:
        from genchess.genome.genome_file import GENOMES_DIR, load_genome
        cp = positions.evaluate_cp(load_genome(GENOMES_DIR / REFERENCE))
        fitted["k_result"] = {"genome": REFERENCE, "K": round(fit_k(cp, positions.result), 6),
                              "positions": len(positions)}
        changed = True
    has_mentor = np.isfinite(positions.mentor)
    if has_mentor.any() and "k_mentor" not in fitted:
        fitted["k_mentor"] = {"K": round(fit_k(positions.mentor[has_mentor],
                                               positions.result[has_mentor]), 6),
                              "positions": int(has_mentor.sum())}
        changed = True
    if changed:
        try:
            write_atomically(path, json.dumps(meta, indent=2) + "\n")
        except OSError:
            pass                # a read-only set: fitted again next time, same numbers
    k_mentor = fitted.get("k_mentor", {}).get("K", float("nan"))
    return Labels(kind, fitted["k_result"]["K"], k_mentor, wdl if kind == "mix" else None)


class PositionFitness:
    """Losses of number vectors of `template` on a set's training and held-out parts."""

    def __init__(self, template, positions: PositionSet, labels: Labels, held_out: float = 0.1):
        if labels.kind != "result":
            positions = positions.subset(np.isfinite(positions.mentor))
        self.template = template
        self.labels = labels
        self.parts = dict(zip(("train", "held-out"), positions.split(held_out)))
        self.features = {name: linear_features(template, part) for name, part in self.parts.items()}

    def cp(self, vectors: np.ndarray, part: str = "train") -> np.ndarray:
        """[n, P] centipawns, White's view, of every position under every vector
        (a column of NaN for a vector no genome can be made of)."""
        vectors = np.atleast_2d(vectors)
        features = self.features[part]
        if features is not None:
            return features.scores(vectors) * (100.0 / features.pawn_units(vectors))
        positions = self.parts[part]
        columns = []
        for vector in vectors:
            try:
                genome = self.template.with_numbers(vector, self.template.id)
                columns.append(positions.evaluate_cp(genome))
            except ValueError:
                columns.append(np.full(len(positions), np.nan))
        return np.column_stack(columns)

    def losses(self, vectors: np.ndarray, part: str = "train") -> np.ndarray:
        """One loss per vector (WORST for a vector no genome can be made of)."""
        positions = self.parts[part]
        losses = self.labels.loss(self.cp(vectors, part), positions.result, positions.mentor)
        return np.where(np.isfinite(losses), losses, WORST)


# ------------------------------------------------------------------ through an executor

@dataclass
class ScoreJob:
    set_path: str
    labels: Labels
    held_out: float
    template: str               # the template genome's file text
    vectors: np.ndarray         # [P, numbers]
    parts: tuple[str, ...] = ("train", "held-out")


def score_job(job: ScoreJob) -> dict[str, np.ndarray]:
    """A worker's side: {part: losses} of the job's vectors. The set, its split and
    its features are built once per worker and kept for the jobs after."""
    key = (job.set_path, os.path.getmtime(job.set_path), repr(job.labels), job.held_out,
           hashlib.sha256(job.template.encode()).hexdigest())
    if getattr(_cache, "key", None) != key:
        from genchess.genome import parse_genome_text
        template = parse_genome_text(job.template).genomes[0]
        _cache.fitness = PositionFitness(template, load_positions(job.set_path), job.labels,
                                         job.held_out)
        _cache.key = key
    return {part: _cache.fitness.losses(job.vectors, part) for part in job.parts}


def score_population(executor, workers: int, job: ScoreJob) -> dict[str, np.ndarray]:
    """Every vector of `job` scored through `executor`, split into one job per worker."""
    from genchess.parallel import executors
    chunks = np.array_split(np.arange(len(job.vectors)), max(1, min(workers, len(job.vectors))))
    futures = {}
    for chunk in chunks:
        part = ScoreJob(job.set_path, job.labels, job.held_out, job.template, job.vectors[chunk],
                        job.parts)
        futures[executor.submit(score_job, part)] = chunk
    result = {part: np.empty(len(job.vectors)) for part in job.parts}
    for future in executors.as_completed(futures):
        for part, losses in future.result().items():
            result[part][futures[future]] = losses
    return result
