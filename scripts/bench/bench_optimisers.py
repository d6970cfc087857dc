"""Adam against CMA-ES on positions: held-out loss reached, and the time to reach it.

Both optimisers tune the same kind from the same start on the same set with the same
labels, one after the other in this process, through the real trainer (method =
evolve, one worker process for CMA-ES's scoring; Adam computes in this process):

    CMA-ES   sep-CMA-ES, sigma 2 (evolve-unified.cfg's settings), for --cma-seconds
    Adam     for --adam-epochs epochs, the shipped defaults unless given

From each run's records: the lowest held-out loss reached, and the step time summed
until each first reached CMA-ES's lowest held-out loss. The ratio printed is
CMA-ES's time to its best held-out loss over Adam's time to the same loss (Adam's
time is "not reached" when it never gets there). Wall times are from this one
invocation, so a loaded machine slows both alike; report the ratio, not the seconds.

    nice -n 15 python scripts/bench/bench_optimisers.py [--set genchess/data/positions.epd.gz]
        [--kind unified] [--labels mentor] [--cma-seconds 600] [--adam-epochs 40]
        [--learning-rate R] [--batch-size B] [--l2-weight W] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
try:
    import genchess_core.board  # noqa: F401  (an installed or in-place-built GenChess)
except ImportError:
    sys.path.insert(0, str(REPO))

from genchess.train.registry import parse_config, trainer_for  # noqa: E402


def run_evolve(directory: Path, settings: dict[str, object]) -> tuple[list[tuple[float, float]], float]:
    """One evolve run; ([(held-out loss, step seconds summed so far)] per generation,
    the run's whole wall time, the features' building included)."""
    directory.mkdir()
    lines = [f"{key} = {value}" for key, value in settings.items() if value is not None]
    config = directory / "run.cfg"
    config.write_text("\n".join(["method = evolve", f"run file = {directory / 'run.txt'}",
                                 "workers = 1", "output volume = quiet", *lines]) + "\n")
    started = time.monotonic()
    trainer = trainer_for(parse_config(config), out=lambda line: None, progress=False)
    if trainer.run() != 0:
        raise SystemExit(f"{directory}: the run failed")
    wall = time.monotonic() - started
    curve, clock = [], 0.0
    for line in (directory / "run.txt").read_text().splitlines():
        if line.startswith("generation "):
            words = line.split()
            clock += float(words[words.index("seconds") + 1])
            curve.append((float(words[words.index("held-out") + 1]), clock))
    return curve, wall


def time_to(curve: list[tuple[float, float]], target: float) -> tuple[int, float] | None:
    """(generation, seconds) at which the held-out loss first reached `target`."""
    for generation, (held, clock) in enumerate(curve, start=1):
        if held <= target:
            return generation, clock
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(REPO / "genchess" / "data" / "positions.epd.gz"))
    parser.add_argument("--kind", default="unified", choices=("material", "pvt", "unified"))
    parser.add_argument("--labels", default="mentor", choices=("result", "mentor"))
    parser.add_argument("--cma-seconds", type=float, default=600.0)
    parser.add_argument("--adam-epochs", type=int, default=40)
    parser.add_argument("--learning-rate", type=float)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--l2-weight", type=float)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    common = {"positions": args.set, "kind": args.kind, "labels": args.labels, "seed": args.seed}
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        cma, cma_wall = run_evolve(root / "cma", {**common, "optimiser": "cma-es", "sigma": 2,
                                                  "generations": 10**7,
                                                  "time limit": f"{args.cma_seconds} seconds"})
        adam, adam_wall = run_evolve(root / "adam", {**common, "optimiser": "adam",
                                                     "generations": args.adam_epochs,
                                                     "learning rate": args.learning_rate,
                                                     "batch size": args.batch_size,
                                                     "l2 weight": args.l2_weight})
    cma_best = min(held for held, _ in cma)
    adam_best = min(held for held, _ in adam)
    cma_at = time_to(cma, cma_best)
    adam_at = time_to(adam, cma_best)
    print(f"{args.kind} on {args.set} ({args.labels} labels), seed {args.seed}")
    print(f"CMA-ES: {len(cma)} generations, {cma[-1][1]:.1f} s of steps ({cma_wall:.1f} s wall); "
          f"lowest held-out loss {cma_best:.6f} at generation {cma_at[0]}, {cma_at[1]:.1f} s")
    reached = (f"CMA-ES's {cma_best:.6f} at epoch {adam_at[0]}, {adam_at[1]:.1f} s"
               if adam_at else f"never reached CMA-ES's {cma_best:.6f}")
    print(f"Adam: {len(adam)} epochs, {adam[-1][1]:.1f} s of steps ({adam_wall:.1f} s wall); "
          f"lowest held-out loss {adam_best:.6f}; {reached}")
    if adam_at:
        print(f"ratio: CMA-ES's time to its best held-out loss / Adam's time to the same loss = "
              f"{cma_at[1] / adam_at[1]:.1f}x")
    else:
        print("ratio: none (Adam did not reach CMA-ES's held-out loss)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
