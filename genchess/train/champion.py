"""The champion: the best genome a run has proved, kept in `<run file>_champion.genome`.

Evolution's winners are noisy: a genome with many wins may just have met weak
partners. So the champion changes hands only through a match. Every
`champion interval` games the method's best candidate plays game pairs against
the champion under an SPRT (the project's [0, 10] by default: "is it at least a
little stronger?"), and is promoted only if the test accepts H1. No decision
within `champion max games`, or H0, leaves the champion in place.

Every method has one (the scaffold asks it when an interval is crossed); the
method says only what its candidate is and how its games are played:
- the gene pool: the living genome with the most wins (ties: more games, then the
  lower ID), the rule of the pool swap, over all pools; first champion: the best
  of the initial population by the same rule;
- Kendall-Whitwell: the generation's average player (the paper's output), its
  games at the run's fixed depth; first champion: the first average player;
- multi-niche crowding: the fittest of the last round robin; first champion: the
  fittest of generation 0.
The first champion is crowned without a match, since there is no one to beat.

The match's games are the method's own GameJobs played in game pairs on the run's
executor (strength.games.play_pairs), so they run wherever the evolution's games
run, a local pool or a cluster, and are counted by the measuring package's Tally. The champion file
is replaced atomically (written to a temporary file, fsynced, renamed over the
old one): a kill at any instant leaves the old champion or the new, never a torn
file. Its comment lines carry the lineage (parents, birth round, where the method
knows them) and the match record; `genchess --genome <run file>_champion.genome`
plays it. Each promotion is also appended to `<run file>_champion.txt`, one line
with the match's Elo estimate, from which genchess plot draws the champion's Elo
gain over the run (the estimates chained).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from genchess.files import append_record, write_atomically
from genchess.genome import Genome, load_genome
from genchess.strength.games import JobMaker, play_pairs
from genchess.strength.sprt import H1, Sprt
from genchess.strength.stats import format_elo
from genchess.strength.tally import Tally
HISTORY = re.compile(r"promotion (\d+): (\d+) replaces (\S+) at game (\d+): elo ([-+0-9.inf]+) "
                     r"low ([-+0-9.inf]+) high ([-+0-9.inf]+)")


@dataclass
class ChampionSettings:
    interval: int
    elo0: float = Sprt.elo0             # the SPRT's defaults are the project's, written once
    elo1: float = Sprt.elo1
    alpha: float = Sprt.alpha
    beta: float = Sprt.beta
    max_games: int = 400

    def sprt(self) -> Sprt:
        return Sprt(self.elo0, self.elo1, self.alpha, self.beta)


def champion_path(run_file: Path) -> Path:
    return Path(str(run_file) + "_champion.genome")


def history_path(run_file: Path) -> Path:
    return Path(str(run_file) + "_champion.txt")


def champion_text(genome: Genome, lines: list[str]) -> str:
    return "".join(f"# {line}\n" for line in lines) + genome.to_text()


@dataclass
class Lineage:
    parents: tuple[int, int] | None = None
    round: int | None = None

    def describe(self) -> str:
        if self.parents is None:
            return "from the initial population (or born before the run was resumed)"
        return f"parents {self.parents[0]} x {self.parents[1]}, born round {self.round}"


class Champion:
    """A trainer's champion: its file, its history, and the matches for it."""

    def __init__(self, run_file: Path, settings: ChampionSettings, out=print):
        self.path = champion_path(run_file)
        self.history = history_path(run_file)
        self.settings = settings
        self.out = out
        self.lineage: dict[int, Lineage] = {}
        self.genome: Genome | None = None
        if self.path.exists():
            self.genome = load_genome(str(self.path))
        self.last_checked = 0

    def note_birth(self, child: int, parents: tuple[int, int], round_number: int) -> None:
        self.lineage[child] = Lineage(parents, round_number)

    def due(self, games_played: int) -> bool:
        interval = self.settings.interval
        if games_played // interval > self.last_checked // interval:
            self.last_checked = games_played
            return True
        return False

    def crown(self, genome: Genome, why: str) -> None:
        """Make `genome` the champion (no match: the first one)."""
        lines = ["GenChess champion", f"genome {genome.id}: {self.lineage.get(genome.id, Lineage()).describe()}",
                 why]
        write_atomically(self.path, champion_text(genome, lines))
        self.genome = genome
        self.out(f"Champion: {genome.id} ({why})")

    def challenge(self, executor, workers: int, candidate: Genome, openings: list[str | None],
                  make_job: JobMaker, game_count: int) -> bool:
        """An SPRT match of `candidate` against the champion through `executor`, its
        games made by `make_job`; promote it on H1. Returns whether it was promoted."""
        champion = self.genome
        if champion is None or candidate.id == champion.id or candidate == champion:
            return False
        tally = play_pairs(executor, workers, candidate, champion, openings, make_job,
                           self.settings.max_games, Tally(self.settings.sprt()))
        stats, sprt = tally.stats, tally.sprt
        estimate = stats.pentanomial_elo()
        record = (f"{candidate.id} vs champion {champion.id}: +{stats.wins} ={stats.draws} "
                  f"-{stats.losses}, {sum(stats.pairs)} pairs {stats.pairs}, Elo "
                  f"{format_elo(estimate)}, {sprt.describe()}: {sprt.status()}")
        if sprt.status() != H1:
            self.out(f"Champion {champion.id} holds: {record}")
            return False
        lines = ["GenChess champion",
                 f"genome {candidate.id}: {self.lineage.get(candidate.id, Lineage()).describe()}",
                 f"promoted at game {game_count}: {record}",
                 f"previous champion: {champion.id}"]
        write_atomically(self.path, champion_text(candidate, lines))
        number = sum(1 for _ in read_history(self.history)) + 1
        append_record(self.history, f"promotion {number}: {candidate.id} replaces {champion.id} at game "
                                    f"{game_count}: elo {estimate.elo:+.1f} low {estimate.low:+.1f} "
                                    f"high {estimate.high:+.1f}\n")
        self.genome = candidate
        self.out(f"New champion: {candidate.id} replaces {champion.id} ({record})")
        return True


def read_history(path: Path):
    """(promotion number, genome ID, game count, elo, low, high) per promotion."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        match = HISTORY.match(line)
        if match:
            n, genome_id, _, games, elo, low, high = match.groups()
            yield int(n), int(genome_id), int(games), float(elo), float(low), float(high)


def champion_gain(rows) -> tuple[list[int], list[float], list[float], list[float]]:
    """(games, gain, low, high): the champion's Elo over the first champion after each
    promotion of read_history's `rows`, chained from each match's estimate (intervals
    added as independent errors); the first point is the first champion, 0 at game 0."""
    games, gain, low, high = [0], [0.0], [0.0], [0.0]
    variance = 0.0
    for _, _, count, elo, lo, hi in rows:
        variance += ((hi - lo) / 2) ** 2
        games.append(count)
        gain.append(gain[-1] + elo)
        low.append(gain[-1] - variance ** 0.5)
        high.append(gain[-1] + variance ** 0.5)
    return games, gain, low, high


def plot_champion_gain(plt, run_file: Path, out: Path) -> Path | None:
    """The champion's Elo over the first champion, chained from each promotion's
    match estimate (intervals added as independent errors)."""
    rows = list(read_history(history_path(run_file)))
    if not rows:
        return None
    games, gain, low, high = champion_gain(rows)
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.step(games, gain, where="post", label="champion's Elo gain")
    ax.fill_between(games, low, high, step="post", alpha=0.2, label="95% interval (chained)")
    for (n, genome_id, count, *_), y in zip(rows, gain[1:]):
        ax.annotate(str(genome_id), (count, y), textcoords="offset points", xytext=(3, 3), fontsize=8)
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo over the first champion")
    ax.set_title("Champion promotions (SPRT)")
    ax.legend(loc="upper left")
    path = out / "champion.png"
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
