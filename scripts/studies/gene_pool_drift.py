"""Why a short gene-pool run freezes its piece values: founders, drift and selection.

In the gene pool (genchess/train/pool.py) a child inherits each gene whole from one
parent, so every living Piece Strength Gene descends from one of the first random
genomes, changed only by the mutations on its way. This script follows those
lineages. For a run's pool file it reads every genome and game and counts, after
each round, how many founders' Piece Strength Genes are still alive; it then plays
the same pools many times with games decided by a coin (pure drift: no selection at
all) and counts the same. If the real run loses its founders as fast as the coin
runs do, the games are not what chooses its piece values, drift is; and the values
it ends with are those of whichever random founder happened to win, moved only as
far as the mutations since carried them. Last, it measures the selection itself: how
the side whose piece values follow the usual ones much more closely scored in the
run's games (50%: the games do not select piece values). The same founder count,
kept for every gene, shows whether the games select any gene at all: a selected gene
sweeps the pools sooner than the coin runs' genes do.

    python scripts/studies/gene_pool_drift.py quick-pool.txt [--runs 200] [--out drift]

writes drift.md (the tables), drift.png and drift-genes.png (when each gene fixed).
The coin runs use the pool file's own config values given on the command line
(--population, --pools, --swap, --draws).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

from genchess.genome import Genome
from genchess.genome.genes import PIECES, PieceStrengthGene
from genchess.genome.genome_file import StillAlive
from genchess.train.pool import Pools

GENE = PieceStrengthGene.NAME


def gene_values(genome: Genome, name: str = GENE) -> dict[str, float]:
    return next(gene for gene in genome.genes if gene.NAME == name).values


def piece_gene(genome: Genome) -> dict[str, float]:
    return gene_values(genome, GENE)


def inherited_from(child: Genome, white: Genome, black: Genome, name: str = GENE) -> Genome:
    """The parent whose gene `name` the child carries: the one it matches in more
    values (a mutation since changes at most one)."""
    values = gene_values(child, name)
    def same(parent):
        theirs = gene_values(parent, name)
        return sum(values[key] == theirs[key] for key in values)
    return white if same(white) >= same(black) else black


def normalised_pawn(genome: Genome) -> float:
    return genome.pack()["piece_values"][0]


class Lineages:
    """Founder of each genome's copy of one gene (the Piece Strength Gene unless told),
    and the count of founders alive per snapshot."""

    def __init__(self, founders, gene: str = GENE):
        self.gene = gene
        self.founder = {genome_id: genome_id for genome_id in founders}
        self.snapshots: list[tuple[int, int]] = []      # (genomes born so far, founders alive)

    def birth(self, child: Genome, white: Genome, black: Genome) -> None:
        self.founder[child.id] = self.founder[inherited_from(child, white, black, self.gene).id]

    def snapshot(self, born: int, living) -> None:
        self.snapshots.append((born, len({self.founder[i] for i in living})))

    def fixed_at(self) -> int | None:
        """Genomes born when a single founder's gene was left in every pool at once."""
        return next((born for born, alive in self.snapshots if alive == 1), None)


def every_gene(founders, gene_names) -> dict[str, Lineages]:
    return {name: Lineages(founders, name) for name in gene_names}


USUAL = (1.0, 3.0, 3.2, 5.0, 9.0)     # a yardstick for the measurement, never a target


def sanity(genome: Genome) -> float:
    """How closely a genome's pawn-to-queen values follow the usual ones: their
    correlation (1: the same proportions; negative: the order reversed)."""
    import numpy as np
    values = genome.pack()["piece_values"][:5]
    if len(set(values)) == 1:
        return 0.0
    return float(np.corrcoef(values, USUAL)[0, 1])


def selection_on_piece_values(games, genomes: dict[int, Genome], margin: float = 0.5):
    """(games, score) of the side whose piece values follow the usual ones much more
    closely (sanity higher by `margin`), over the run's games: about 0.5 when the
    games do not select piece values at all."""
    points = []
    for game in games:
        white, black = (genomes.get(int(game.headers[tag])) for tag in ("WhiteID", "BlackID"))
        result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(game.headers.get("Result"))
        if white is None or black is None or result is None:
            continue
        gap = sanity(white) - sanity(black)
        if abs(gap) >= margin:
            points.append(result if gap > 0 else 1 - result)
    return len(points), (sum(points) / len(points) if points else float("nan"))


def real_run(pool_file: Path) -> tuple[dict[str, Lineages], dict[int, Genome], list, int]:
    """The lineages of every gene of a gene-pool run from its files (by gene name),
    its genomes, its games and how many founders it had."""
    from genchess.genome import parse_genome_text
    from genchess.train.records import is_pool_record_end, read_games_file, split_complete

    text = pool_file.read_text(encoding="utf-8")
    good, _ = split_complete(pool_file, text, is_pool_record_end)
    records = parse_genome_text(good, str(pool_file)).records
    genomes = {r.id: r for r in records if isinstance(r, Genome)}
    games, _ = read_games_file(Path(f"{pool_file}_games.txt"))
    parents = {int(g.headers["Offspring"]): (int(g.headers["WhiteID"]), int(g.headers["BlackID"]))
               for g in games}
    founders = sorted(i for i in genomes if i not in parents)
    lineages = every_gene(founders, [gene.NAME for gene in genomes[founders[0]].genes])
    for child_id in sorted(parents):
        if child_id in genomes:
            white, black = parents[child_id]
            for lineage in lineages.values():
                lineage.birth(genomes[child_id], genomes[white], genomes[black])
    snapshots = [r for r in records if isinstance(r, StillAlive)]
    pool_count = 1 + max((r.pool for r in snapshots), default=0)
    alive: dict[int, tuple[int, ...]] = {}
    known = lineages[GENE].founder
    for record in snapshots:                # a round's snapshot: one line per pool
        alive[record.pool] = record.ids
        living = [i for ids in alive.values() for i in ids]
        if len(alive) == pool_count and all(i in known for i in living):
            for lineage in lineages.values():
                lineage.snapshot(max(living) + 1, living)
    return lineages, genomes, games, len(founders)


def coin_toss(draws: float):
    """A game decided by a coin, with `draws` of them drawn: no selection at all."""
    def decide(white: Genome, black: Genome, rng: random.Random) -> float:
        roll = rng.random()
        return 0.5 if roll < draws else (1.0 if roll < (1 + draws) / 2 else 0.0)
    return decide


def coin_run(seed: int, pools: int, population: int, swap: int, draws: float,
             genomes: int, decide=None) -> tuple[dict[str, Lineages], float]:
    """The same pools with every game decided by a coin (or by `decide(white, black,
    rng)`, white's score); returns the lineages of every gene and the normalised pawn
    value of the living genome with the lowest ID at the end."""
    rng = random.Random(seed)
    decide = decide or coin_toss(draws)
    state = Pools.fresh(pools, population, rng)
    first_genome = next(iter(state.genomes.values()))
    lineages = every_gene(list(state.genomes), [gene.NAME for gene in first_genome.genes])
    snapshot_games = 0
    while state.next_id < genomes:
        for pool in range(pools):
            for white, black in state.pairings(pool, rng):
                score = decide(state.genomes[white], state.genomes[black], rng)
                child, loser = state.breed(pool, white, black, score, rng)
                for lineage in lineages.values():
                    lineage.birth(child, state.genomes[white], state.genomes[black])
                state.replace(pool, loser, child, from_draw=score == 0.5)
        if pools > 1 and state.games_played // swap > snapshot_games // swap:
            state.swap()
        snapshot_games = state.games_played
        living = [i for ids in state.members for i in ids]
        for lineage in lineages.values():
            lineage.snapshot(state.next_id, living)
    first = min(i for ids in state.members for i in ids)
    return lineages, normalised_pawn(state.genomes[first])


def pooled_fixing(coin: list[dict[str, Lineages]]) -> list[int]:
    """When each gene of the coin runs fixed, every gene pooled (they all drift alike
    there), sorted; genes that never fixed are left out."""
    return sorted(f for lineages in coin for lineage in lineages.values()
                  if (f := lineage.fixed_at()) is not None)


def band(pooled: list[int]) -> tuple[int, int]:
    """The 5% and 95% points of the pooled fixing times."""
    return pooled[len(pooled) // 20], pooled[-1 - len(pooled) // 20]


def gene_table(real: dict[str, Lineages], coin: list[dict[str, Lineages]],
               last: Genome) -> list[str]:
    """Per gene: when one founder's copy took every pool in this run, against the coin
    runs, and the gene's priority in the run's last genome. A gene the games select
    sweeps sooner than the coin runs' genes do."""
    pooled = pooled_fixing(coin)
    lines = ["| gene | one founder's copy in every pool at genome | coin runs fixed by then "
             "| the last genome's copy from founder | its priority there |",
             "|---|---:|---:|---:|---:|"]
    weighted = []
    for name, lineage in real.items():
        fixed = lineage.fixed_at()
        priority = gene_values(last, name).get("Priority")
        if priority is not None:
            weighted.append((abs(priority), fixed or last.id + 1))
        shown_priority = "-" if priority is None else f"{priority:g}"
        share = f"{sum(f <= fixed for f in pooled) / len(pooled):.0%}" if fixed and pooled else "-"
        lines.append(f"| {name} | {fixed or 'not yet'} | {share} | {lineage.founder[last.id]} "
                     f"| {shown_priority} |")
    if len(weighted) >= 3:
        from scipy.stats import spearmanr
        rho, p_value = spearmanr(*zip(*weighted))
        lines += ["", f"Rank correlation of a board-scoring gene's priority (its size) with when "
                  f"it fixed (not yet: after the last genome): {rho:+.2f} (p = {p_value:.2f}); "
                  f"negative if the larger-priority genes settle first."]
    if pooled:
        lo, hi = band(pooled)
        lines += ["", f"Coin runs, every gene pooled: fixed at a median of "
                  f"{statistics.median(pooled):g} (5%-95%: {lo}-{hi}). A gene fixed where under "
                  f"5% of coin runs had fixed swept faster than drift alone would carry it."]
    return lines


def shared_founder_genes(every: dict[str, Lineages], genomes: dict[int, Genome]) -> list[str]:
    """Genes of which two founders carry identical copies: a run seeded from copies of one
    genome, where the lineage of such a gene is a guess."""
    lineage = next(iter(every.values()))
    founders = [i for i, founder in lineage.founder.items() if i == founder]
    shared = []
    for name in every:
        copies = {tuple(sorted(gene_values(genomes[i], name).items())) for i in founders}
        if len(copies) < len(founders):
            shared.append(name)
    return shared


def plot_genes(real: dict[str, Lineages], coin: list[dict[str, Lineages]], born: int,
               path: str, run_name: str) -> None:
    """One bar per gene: when one founder's copy took every pool, over the coin runs'
    band (5% to 95%, median marked); a bar short of the band is a selected gene."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pooled = pooled_fixing(coin)
    names = list(real)
    fig, ax = plt.subplots(figsize=(9, 6))
    if pooled:
        lo, hi = band(pooled)
        ax.axvspan(lo, hi, color="grey", alpha=0.2, label="coin runs: 5% to 95%")
        ax.axvline(statistics.median(pooled), color="grey", lw=1.5, label="coin runs: median")
    for row, name in enumerate(names):
        fixed = real[name].fixed_at()
        if fixed is None:
            ax.barh(row, born, color="C0", alpha=0.25, hatch="//")
            ax.text(born, row, f" not by {born}", va="center", fontsize=8)
        else:
            ax.barh(row, fixed, color="C3" if pooled and fixed < lo else "C0")
    ax.set_yticks(range(len(names)), [name.removesuffix(" Gene") for name in names])
    ax.invert_yaxis()
    ax.set_xlabel("genomes born when one founder's copy of the gene was in every pool")
    ax.set_title(f"Which genes the games select: {run_name} (red: faster than 95% of drift)")
    # Out to the run's end only when a gene has not fixed; else the band and bars decide.
    ends = [real[name].fixed_at() or born for name in names] + ([hi] if pooled else [])
    ax.set_xlim(0, max(ends) * 1.12)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool_file", type=Path, help="a gene-pool run's pool file")
    parser.add_argument("--runs", type=int, default=200, help="coin runs (default 200)")
    parser.add_argument("--pools", type=int, default=2)
    parser.add_argument("--population", type=int, default=8)
    parser.add_argument("--swap", type=int, default=16, help="pool swap interval (games)")
    parser.add_argument("--draws", type=float, default=None,
                        help="share of drawn games in the coin runs (default: the real run's)")
    parser.add_argument("--out", default="drift", help="write OUT.md and OUT.png")
    args = parser.parse_args(argv)

    from genchess.genome import GenomeError
    try:
        every, genomes, games, founders = real_run(args.pool_file)
    except (GenomeError, OSError, KeyError, ValueError) as e:
        sys.exit(f"gene_pool_drift: {args.pool_file}: not a readable gene-pool run: {e}")
    draws = args.draws if args.draws is not None else \
        sum(g.headers.get("Result") == "1/2-1/2" for g in games) / max(1, len(games))
    real = every[GENE]
    born = max(genomes) + 1
    horizon = max(born, 4 * (real.fixed_at() or born))
    coin_every = [coin_run(seed, args.pools, args.population, args.swap, draws, horizon)
                  for seed in range(args.runs)]
    coin = [(lineages[GENE], pawn) for lineages, pawn in coin_every]
    coin_genes = [lineages for lineages, _ in coin_every]
    fixed = sorted(f for f in (lineage.fixed_at() for lineage, _ in coin) if f is not None)
    negative = sum(pawn < 0 for _, pawn in coin)

    def alive_at(lineages, when):
        before = [a for b, a in lineages.snapshots if b <= when]
        return before[-1] if before else founders

    checkpoints = sorted({c for c in (founders * 2, founders * 4, founders * 8, founders * 16, born)
                          if c <= born})
    lines = [f"# Founders of the Piece Strength Gene: {args.pool_file}", "",
             f"{founders} random founders, {born} genomes born, {len(games)} games "
             f"({draws:.0%} drawn). Coin runs: {args.runs}, same pools "
             f"({args.pools} x {args.population}, swap every {args.swap} games), every game a "
             f"coin toss with the same share of draws.", "",
             "| genomes born | founders' genes alive, this run | coin runs: median (5%-95%) |",
             "|---:|---:|---|"]
    for when in checkpoints:
        counts = sorted(alive_at(lineage, when) for lineage, _ in coin)
        lo, hi = counts[len(counts) // 20], counts[-1 - len(counts) // 20]
        lines.append(f"| {when} | {alive_at(real, when)} | {statistics.median(counts):g} ({lo}-{hi}) |")
    real_fixed = real.fixed_at()
    lines += ["",
              f"One founder left in every pool: this run at genome "
              f"{real_fixed if real_fixed is not None else 'not yet'}; coin runs at a median "
              f"{statistics.median(fixed) if fixed else 'never'} "
              f"({len(fixed)} of {args.runs} within {horizon} genomes).",
              f"Coin runs ending with a negative pawn: {negative} of {args.runs} "
              f"({negative / args.runs:.0%}): a founder's random sign, kept."]
    lines += ["", "Selection on piece values: in the games where one side's values follow the "
              "usual 1 : 3 : 3.2 : 5 : 9 much more closely (correlation higher by 0.5 or more), "
              "how that side scored; 50% is no selection at all.", "",
              "| games | such games | that side's score (95%) |", "|---|---:|---|"]
    quarters = [(k * len(games) // 4, (k + 1) * len(games) // 4) for k in range(4)]
    for first, last in [(0, len(games))] + (quarters if len(games) >= 400 else []):
        n, score = selection_on_piece_values(games[first:last], genomes)
        half = 1.96 * (0.25 / n) ** 0.5 if n else float("nan")
        shown = f"{score:.1%} ({score - half:.1%} to {score + half:.1%})" if n else "-"
        label = "all" if (first, last) == (0, len(games)) else f"{first + 1}-{last}"
        lines.append(f"| {label} | {n} | {shown} |")
    lines += ["", "Every gene: a gene the games select sweeps the pools sooner than drift would; "
              "the design reports Total Force and Pawn Advancement dominating, the Look Ahead "
              "Gene mattering late and lower-priority genes waiting for higher-priority ones.", ""]
    lines += gene_table(every, coin_genes, genomes[max(genomes)])
    shared = shared_founder_genes(every, genomes)
    if shared:
        lines += ["", f"Warning: founders carry identical copies of {len(shared)} of "
                  f"{len(every)} genes (a run seeded from one genome?), so a child's copy of "
                  f"those cannot be traced to one founder and their founder counts mean "
                  f"little: {', '.join(shared)}."]
    Path(f"{args.out}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5))
    for k, (lineage, _) in enumerate(coin[:40]):
        xs, ys = zip(*lineage.snapshots)
        ax.step(xs, ys, where="post", color="grey", alpha=0.25, lw=1,
                label="coin runs (no selection)" if k == 0 else None)
    xs, ys = zip(*real.snapshots) if real.snapshots else ((), ())
    ax.step(xs, ys, where="post", color="C3", lw=2.5, label=f"this run: {args.pool_file.name}")
    ax.set_xlabel("genomes born")
    ax.set_ylabel("founders whose Piece Strength Gene is still alive")
    ax.set_title("How fast the first random genomes' piece values take over")
    ax.set_xlim(0, horizon)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{args.out}.png", dpi=100)
    plot_genes(every, coin_genes, born, f"{args.out}-genes.png", args.pool_file.name)
    print(f"wrote {args.out}.md, {args.out}.png and {args.out}-genes.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
