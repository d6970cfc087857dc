"""Gene pools: who is alive, how they have fared, and the rules of the evolution.

The rules of the Genetic Chess design: after each game the two players mate (each
gene from either parent with probability 1/2, then on average two genes mutate)
and the offspring replaces the loser, or a coin-chosen player after a draw. Every
`pool swap interval` games each pool's best player is copied into the next pool,
replacing that pool's weakest.

"Best" is the living player with the most wins (ties: more games survived, then
the lower ID); "weakest" is the living player with the fewest wins among those
who have played (ties: more losses, then more games, then the higher ID), so a
newborn is not culled before its first game. Both are pure functions of the
statistics, so replaying a run from its files makes the same choices.

Statistics are by genome ID and are rebuilt on resume by replaying the games
file, which is why nothing here needs its own file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from genchess.genome import Genome
from genchess.genome.genes import PIECE_STEP


@dataclass
class Stats:
    wins: int = 0
    losses: int = 0
    draws: int = 0
    win_streak: int = 0
    draw_streak: int = 0
    games: int = 0
    from_draw: bool = False         # born to parents who drew (shown as *)
    birth_pool: int = -1

    def record(self, score: float) -> None:
        self.games += 1
        if score == 1:
            self.wins += 1
            self.win_streak += 1
            self.draw_streak = 0
        elif score == 0:
            self.losses += 1
            self.win_streak = 0
            self.draw_streak = 0
        else:
            self.draws += 1
            self.draw_streak += 1
            self.win_streak = 0


@dataclass
class Pools:
    genomes: dict[int, Genome]
    members: list[list[int]]                    # pool index -> living IDs
    stats: dict[int, Stats] = field(default_factory=dict)
    next_id: int = 0
    games_played: int = 0
    piece_step: float = PIECE_STEP              # the Piece Strength Gene's mutation step

    def stat(self, genome_id: int) -> Stats:
        return self.stats.setdefault(genome_id, Stats())

    @classmethod
    def fresh(cls, pool_count: int, population: int, rng: random.Random,
              piece_step: float = PIECE_STEP) -> "Pools":
        genomes = {}
        members = []
        next_id = 0
        for pool in range(pool_count):
            ids = []
            for _ in range(population):
                genomes[next_id] = Genome.random(rng, next_id)
                ids.append(next_id)
                next_id += 1
            members.append(ids)
        pools = cls(genomes, members, next_id=next_id, piece_step=piece_step)
        for pool, ids in enumerate(members):
            for genome_id in ids:
                pools.stat(genome_id).birth_pool = pool
        return pools

    def seed_from(self, sources: list[Genome], rng: random.Random) -> None:
        """Replace every genome by a mutated copy of one of `sources` (in turn):
        evolution that starts from known genomes instead of random ones."""
        for i, genome_id in enumerate(sorted(self.genomes)):
            genome = sources[i % len(sources)].copy(genome_id)
            genome.mutate(rng, piece_step=self.piece_step)
            self.genomes[genome_id] = genome

    def pairings(self, pool: int, rng: random.Random) -> list[tuple[int, int]]:
        """Random pairs; the first of each pair has white."""
        ids = list(self.members[pool])
        rng.shuffle(ids)
        return [(ids[i], ids[i + 1]) for i in range(0, len(ids) - 1, 2)]

    def breed(self, pool: int, white: int, black: int, score_white: float,
              rng: random.Random) -> tuple[Genome, int]:
        """Record a game's result and make the offspring; returns it and whom it replaces."""
        self.stat(white).record(score_white)
        self.stat(black).record(1 - score_white)
        self.games_played += 1
        child = Genome.crossover(self.genomes[white], self.genomes[black], rng, self.next_id)
        child.mutate(rng, piece_step=self.piece_step)
        self.next_id += 1
        if score_white == 1:
            loser = black
        elif score_white == 0:
            loser = white
        else:
            loser = rng.choice((white, black))
        return child, loser

    def replace(self, pool: int, loser: int, child: Genome, from_draw: bool) -> None:
        self.genomes[child.id] = child
        stats = self.stat(child.id)
        stats.from_draw = from_draw
        stats.birth_pool = pool
        members = self.members[pool]
        members[members.index(loser)] = child.id
        self.next_id = max(self.next_id, child.id + 1)

    def best(self, pool: int) -> int:
        return min(self.members[pool],
                   key=lambda i: (-self.stat(i).wins, -self.stat(i).games, i))

    def weakest(self, pool: int) -> int:
        played = [i for i in self.members[pool] if self.stat(i).games > 0] or self.members[pool]
        return min(played, key=lambda i: (self.stat(i).wins, -self.stat(i).losses,
                                          -self.stat(i).games, -i))

    def swap(self) -> list[tuple[int, int, int, int]]:
        """Copy each pool's best into the next pool over its weakest.

        Returns (from pool, to pool, best ID, replaced ID) for each move; all bests
        are chosen before any pool changes, so the order of pools does not matter."""
        if len(self.members) < 2:
            return []
        bests = [self.best(p) for p in range(len(self.members))]
        moves = []
        for pool, best in enumerate(bests):
            target = (pool + 1) % len(self.members)
            if best in self.members[target]:
                continue
            weakest = self.weakest(target)
            self.members[target][self.members[target].index(weakest)] = best
            moves.append((pool, target, best, weakest))
        return moves

    def is_transferred(self, pool: int, genome_id: int) -> bool:
        return self.stat(genome_id).birth_pool not in (-1, pool)


def game_time(round_number: int, minimum: float, maximum: float, increment: float,
              oscillating: bool) -> float:
    """Seconds per side in round `round_number` (0-based): from the minimum, up by
    the increment each round to the maximum, then (oscillating) back down and so
    on, or (not oscillating) staying at the maximum."""
    if increment <= 0 or maximum <= minimum:
        return minimum
    steps = (maximum - minimum) / increment       # rounds from bottom to top
    position = round_number
    if not oscillating:
        return min(minimum + position * increment, maximum)
    period = 2 * steps
    phase = position % period if period > 0 else 0
    if phase <= steps:
        return minimum + phase * increment
    return maximum - (phase - steps) * increment
