"""Gene pools: recombination and mutation statistics, pairing, the replacement and
swap rules, statistics and IDs, and the game-time schedule (pure Python, seeded)."""

from __future__ import annotations

import math
from collections import Counter
from random import Random

import pytest

from genchess.genome import GENE_CLASSES, Genome, parse_genome_text
from genchess.genome.genes import PIECE_STEP
from genchess.train.pool import Pools, Stats, game_time

N_GENES = len(GENE_CLASSES)


def assert_in_range(genome: Genome) -> None:
    for gene in genome.genes:
        for spec in gene.VALUES:
            value = gene.values[spec.key]
            assert spec.lo <= value <= spec.hi, (genome.id, gene.NAME, spec.key, value)
            if spec.integer:
                assert value == int(value), (genome.id, gene.NAME, spec.key, value)
        assert gene.check(gene.values) is None, (genome.id, gene.NAME)


def distinct_parents(rng: Random) -> tuple[Genome, Genome]:
    """Two random genomes that differ in every gene, so a child's gene tells its parent."""
    while True:
        a, b = Genome.random(rng, 0), Genome.random(rng, 1)
        if all(ga != gb for ga, gb in zip(a.genes, b.genes)):
            return a, b


def pools_with(members: list[list[int]], rng: Random | None = None) -> Pools:
    rng = rng or Random(0)
    ids = sorted({i for pool in members for i in pool})
    genomes = {i: Genome.random(rng, i) for i in ids}
    pools = Pools(genomes, [list(m) for m in members], next_id=max(ids) + 1)
    for pool, ids_of_pool in reversed(list(enumerate(members))):
        for i in ids_of_pool:
            pools.stat(i).birth_pool = pool         # the first pool listing it
    return pools


def set_stats(pools: Pools, genome_id: int, wins=0, losses=0, draws=0) -> None:
    s = pools.stat(genome_id)
    s.wins, s.losses, s.draws, s.games = wins, losses, draws, wins + losses + draws


# ------------------------------------------------------------------ recombination and mutation

def test_crossover_child_genes_each_come_from_one_parent_about_half_each():
    rng = Random(2024)
    a, b = distinct_parents(rng)
    trials = 3000
    from_a = Counter()
    for n in range(trials):
        child = Genome.crossover(a, b, rng, 100 + n)
        assert child.id == 100 + n
        for k, (gc, ga, gb) in enumerate(zip(child.genes, a.genes, b.genes)):
            assert gc == ga or gc == gb, (k, gc)
            assert gc is not ga and gc is not gb          # a copy, never shared
            from_a[k] += gc == ga
    total = sum(from_a.values()) / (trials * N_GENES)
    # sd of the overall share is 0.5 / sqrt(42000) = 0.0024; of each gene's, 0.009.
    assert 0.48 < total < 0.52, total
    for k in range(N_GENES):
        assert 0.44 < from_a[k] / trials < 0.56, (GENE_CLASSES[k].NAME, from_a[k] / trials)


def test_crossover_children_vary_and_copies_are_independent():
    rng = Random(7)
    a, b = distinct_parents(rng)
    patterns = {tuple(gc == ga for gc, ga in zip(Genome.crossover(a, b, rng, 9).genes, a.genes))
                for _ in range(200)}
    assert len(patterns) > 150                 # 2^14 patterns: nearly all distinct
    child = Genome.crossover(a, b, rng, 9)
    before_a, before_b = a.to_text(), b.to_text()
    for _ in range(20):
        child.mutate(rng)
    assert a.to_text() == before_a and b.to_text() == before_b


def test_mutation_changes_about_two_genes_on_average():
    rng = Random(99)
    counts = []
    for n in range(3000):
        genome = Genome.random(rng, n)
        before = [g.copy() for g in genome.genes]
        changed = genome.mutate(rng)
        differing = sum(g != old for g, old in zip(genome.genes, before))
        assert changed == differing            # every reported mutation really changes a gene
        counts.append(changed)
    mean = sum(counts) / len(counts)
    var = sum((c - mean) ** 2 for c in counts) / (len(counts) - 1)
    # Binomial(14, 1/7): mean 2, variance 12/7; the mean's sd here is 0.024.
    assert 1.9 < mean < 2.1, mean
    assert 1.4 < var < 2.1, var
    assert Counter(counts)[0] > 0 and max(counts) >= 5   # a distribution, not always 2


def test_values_stay_in_range_over_many_generations():
    rng = Random(5)
    genome = Genome.random(rng, 0)
    for generation in range(1500):
        genome.mutate(rng)
        if generation % 100 == 0:
            assert_in_range(genome)
            assert parse_genome_text(genome.to_text()).genomes[0] == genome
    assert_in_range(genome)


def test_breed_offspring_statistics_over_many_games():
    rng = Random(31)
    a, b = distinct_parents(rng)
    pools = Pools({0: a, 1: b}, [[0, 1]], next_id=2)
    trials = 2000
    own_genes = []
    from_a = 0
    for _ in range(trials):
        child, _ = pools.breed(0, 0, 1, rng.choice((0.0, 0.5, 1.0)), rng)
        assert_in_range(child)
        # A gene equal to neither parent's was mutated (a mutated gene that lands
        # exactly on the other parent's value is vanishingly unlikely).
        own_genes.append(sum(gc != ga and gc != gb for gc, ga, gb in zip(child.genes, a.genes, b.genes)))
        from_a += sum(gc == ga for gc, ga in zip(child.genes, a.genes))
    mean_mutated = sum(own_genes) / trials
    assert 1.85 < mean_mutated < 2.15, mean_mutated
    # Of the genes not mutated (about 12 per child), about half come from each parent.
    inherited = trials * N_GENES - sum(own_genes)
    share_a = from_a / inherited
    assert 0.47 < share_a < 0.53, share_a
    assert pools.games_played == trials
    assert pools.next_id == 2 + trials


@pytest.mark.parametrize("piece_step", [0.1, 0.4])
def test_the_pools_piece_value_mutation_sets_the_size_of_a_piece_values_step(piece_step):
    """A bred child's mutated piece value moves by about piece_step times the mean
    piece value (the Gaussian's mean absolute step is 0.8 of its sd)."""
    rng = Random(5)
    a, b = distinct_parents(rng)
    pools = Pools({0: a, 1: b}, [[0, 1]], next_id=2, piece_step=piece_step)
    steps = []
    for _ in range(3000):
        child, _ = pools.breed(0, 0, 1, 1.0, rng)
        mine, pa, pb = (g.genes[0].values for g in (child, a, b))
        for parent in (pa, pb):
            moved = [piece for piece in mine if mine[piece] != parent[piece]]
            if len(moved) == 1:
                scale = sum(abs(v) for v in parent.values()) / len(parent)
                steps.append(abs(mine[moved[0]] - parent[moved[0]]) / scale)
    mean_step = sum(steps) / len(steps)
    assert len(steps) > 200
    assert 0.75 * piece_step < mean_step < 0.9 * piece_step, mean_step


def test_fresh_pools_and_their_seeded_copies_keep_the_piece_value_mutation():
    rng = Random(6)
    pools = Pools.fresh(2, 4, rng, piece_step=0.3)
    assert pools.piece_step == 0.3
    assert Pools.fresh(2, 4, rng).piece_step == PIECE_STEP


def test_breed_does_not_change_the_parents_or_members():
    rng = Random(3)
    pools = pools_with([[0, 1, 2, 3]])
    texts = {i: g.to_text() for i, g in pools.genomes.items()}
    for _ in range(50):
        pools.breed(0, 0, 1, 1.0, rng)
    assert {i: g.to_text() for i, g in pools.genomes.items()} == texts
    assert pools.members == [[0, 1, 2, 3]]


# ------------------------------------------------------------------ pairing

@pytest.mark.parametrize("population", [2, 4, 8, 16])
def test_pairing_covers_every_player_exactly_once(population):
    pools = Pools.fresh(2, population, Random(1))
    rng = Random(8)
    colours = Counter()
    pairings = set()
    for _ in range(200):
        for pool in range(2):
            pairs = pools.pairings(pool, rng)
            assert len(pairs) == population // 2
            players = [p for pair in pairs for p in pair]
            assert sorted(players) == sorted(pools.members[pool])
            colours.update(white for white, _ in pairs)
            pairings.add(tuple(sorted(tuple(sorted(pair)) for pair in pairs)))
    # Pairs and colours are random: everyone gets white sometimes, pairings vary.
    for pool in range(2):
        for player in pools.members[pool]:
            assert 40 < colours[player] < 160, (player, colours[player])
    if population >= 4:
        assert len(pairings) > 2


def test_pairing_does_not_reorder_the_pool():
    pools = Pools.fresh(1, 8, Random(1))
    before = list(pools.members[0])
    pools.pairings(0, Random(2))
    assert pools.members[0] == before


def test_pairing_is_reproducible_from_the_seed():
    pools = Pools.fresh(1, 8, Random(1))
    assert pools.pairings(0, Random(42)) == pools.pairings(0, Random(42))


# ------------------------------------------------------------------ replacement and stats

def play(pools: Pools, pool: int, white: int, black: int, score: float, rng: Random,
         from_draw: bool | None = None) -> tuple[Genome, int]:
    child, loser = pools.breed(pool, white, black, score, rng)
    pools.replace(pool, loser, child, from_draw=score == 0.5 if from_draw is None else from_draw)
    return child, loser


def test_winners_opponent_is_replaced_by_the_offspring():
    rng = Random(4)
    pools = pools_with([[0, 1, 2, 3]])
    child, loser = play(pools, 0, 0, 1, 1.0, rng)                 # white wins
    assert loser == 1 and pools.members[0] == [0, child.id, 2, 3]
    child2, loser = play(pools, 0, 2, 3, 0.0, rng)                # black wins
    assert loser == 2 and pools.members[0] == [0, child.id, child2.id, 3]
    assert pools.genomes[child.id] is child and pools.genomes[child2.id] is child2
    assert 1 in pools.genomes and 2 in pools.genomes                # the dead stay on record
    assert not pools.stat(child.id).from_draw
    assert pools.stat(child.id).birth_pool == 0


def test_after_a_draw_a_coin_flip_picks_who_is_replaced():
    replaced = Counter()
    for seed in range(400):
        pools = pools_with([[10, 11]])
        child, loser = play(pools, 0, 10, 11, 0.5, Random(seed))
        assert loser in (10, 11)
        assert sorted(pools.members[0]) == sorted({10, 11} - {loser} | {child.id})
        assert pools.stat(child.id).from_draw
        replaced[loser] += 1
    # Both happen, about equally (sd of the count 10).
    assert 160 < replaced[10] < 240, replaced


def test_stats_record_wins_losses_draws_and_streaks():
    s = Stats()
    expected = [  # score, (wins, losses, draws, win_streak, draw_streak, games)
        (1.0, (1, 0, 0, 1, 0, 1)),
        (1.0, (2, 0, 0, 2, 0, 2)),
        (0.5, (2, 0, 1, 0, 1, 3)),
        (0.5, (2, 0, 2, 0, 2, 4)),
        (1.0, (3, 0, 2, 1, 0, 5)),
        (0.0, (3, 1, 2, 0, 0, 6)),
        (0.5, (3, 1, 3, 0, 1, 7)),
        (0.0, (3, 2, 3, 0, 0, 8)),
        (1.0, (4, 2, 3, 1, 0, 9)),
    ]
    for score, want in expected:
        s.record(score)
        assert (s.wins, s.losses, s.draws, s.win_streak, s.draw_streak, s.games) == want, score


def test_breed_updates_both_players_stats():
    rng = Random(6)
    pools = pools_with([[0, 1, 2, 3]])
    pools.breed(0, 0, 1, 1.0, rng)
    pools.breed(0, 2, 3, 0.5, rng)
    pools.breed(0, 0, 2, 0.0, rng)
    s = {i: pools.stat(i) for i in range(4)}
    assert (s[0].wins, s[0].losses, s[0].draws, s[0].games, s[0].win_streak) == (1, 1, 0, 2, 0)
    assert (s[1].wins, s[1].losses, s[1].games) == (0, 1, 1)
    assert (s[2].wins, s[2].draws, s[2].games, s[2].win_streak, s[2].draw_streak) == (1, 1, 2, 1, 0)
    assert (s[3].draws, s[3].draw_streak, s[3].games) == (1, 1, 1)
    assert pools.games_played == 3


def test_new_ids_are_consecutive_and_unique_across_pools():
    rng = Random(12)
    pools = Pools.fresh(3, 4, rng)
    assert pools.members == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert sorted(pools.genomes) == list(range(12)) and pools.next_id == 12
    assert [pools.stat(i).birth_pool for i in range(12)] == [0] * 4 + [1] * 4 + [2] * 4
    born = []
    for _ in range(10):                                # rounds
        for pool in range(3):
            for white, black in pools.pairings(pool, rng):
                child, _ = play(pools, pool, white, black, rng.choice((0.0, 0.5, 1.0)), rng)
                born.append(child.id)
    assert born == list(range(12, 12 + len(born)))
    assert len(pools.genomes) == 12 + len(born)
    for pool in range(3):
        assert len(pools.members[pool]) == 4 and len(set(pools.members[pool])) == 4


# ------------------------------------------------------------------ best and weakest

def test_best_has_most_wins_then_more_games_then_lower_id():
    pools = pools_with([[1, 2, 3, 4]])
    set_stats(pools, 1, wins=2, losses=1)
    set_stats(pools, 2, wins=3)
    set_stats(pools, 3, wins=3, draws=2)
    set_stats(pools, 4, wins=1)
    assert pools.best(0) == 3                          # 3 wins, more games than 2
    set_stats(pools, 2, wins=3, draws=2)
    assert pools.best(0) == 2                          # same wins and games: lower ID


def test_weakest_has_fewest_wins_among_players_who_have_played():
    pools = pools_with([[1, 2, 3, 4, 5, 6]])
    set_stats(pools, 1, wins=2)
    set_stats(pools, 2, wins=1, losses=1)
    set_stats(pools, 3, wins=1, losses=2)
    set_stats(pools, 4, wins=1, losses=2, draws=3)
    # 5 and 6 are newborns (no games): never culled before their first game.
    assert pools.weakest(0) == 4                       # fewest wins, most losses, most games
    set_stats(pools, 3, wins=1, losses=2, draws=3)
    assert pools.weakest(0) == 4                       # same record: the higher ID
    set_stats(pools, 2, wins=0, losses=1)
    assert pools.weakest(0) == 2


def test_weakest_when_no_one_has_played_is_the_highest_id():
    pools = pools_with([[3, 9, 5, 7]])
    assert pools.weakest(0) == 9


# ------------------------------------------------------------------ swaps

def test_swap_copies_each_pools_best_over_the_next_pools_weakest():
    pools = pools_with([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
    for i in range(12):
        set_stats(pools, i, wins=1, losses=1)
    set_stats(pools, 2, wins=5)            # best of pool 0
    set_stats(pools, 4, wins=4)            # best of pool 1
    set_stats(pools, 11, wins=6)           # best of pool 2
    set_stats(pools, 6, losses=3)          # weakest of pool 1
    set_stats(pools, 9, losses=3)          # weakest of pool 2
    set_stats(pools, 1, losses=4)          # weakest of pool 0
    moves = pools.swap()
    assert moves == [(0, 1, 2, 6), (1, 2, 4, 9), (2, 0, 11, 1)]
    assert pools.members == [[0, 11, 2, 3], [4, 5, 2, 7], [8, 4, 10, 11]]
    assert pools.is_transferred(1, 2) and pools.is_transferred(0, 11)
    assert not pools.is_transferred(0, 2)


def test_swap_chooses_every_best_before_changing_any_pool():
    # Pool 0's best (wins 9) would be the best of pool 1 too if pool 1 were changed first.
    pools = pools_with([[0, 1], [2, 3]])
    set_stats(pools, 0, wins=9)
    set_stats(pools, 1, losses=1)
    set_stats(pools, 2, wins=2)
    set_stats(pools, 3, losses=2)
    moves = pools.swap()
    assert moves == [(0, 1, 0, 3), (1, 0, 2, 1)]
    assert pools.members == [[0, 2], [2, 0]]


def test_swap_skips_a_best_already_in_the_next_pool():
    pools = pools_with([[0, 1], [0, 2]])
    set_stats(pools, 0, wins=3)
    set_stats(pools, 1, losses=1)
    set_stats(pools, 2, losses=1)
    moves = pools.swap()
    assert moves == []                     # 0 is best of both and already in both
    assert pools.members == [[0, 1], [0, 2]]


def test_swap_with_one_pool_does_nothing():
    pools = pools_with([[0, 1, 2, 3]])
    set_stats(pools, 0, wins=3)
    assert pools.swap() == []
    assert pools.members == [[0, 1, 2, 3]]


def test_swap_keeps_pool_sizes_and_no_duplicates_over_a_random_history():
    rng = Random(77)
    pools = Pools.fresh(3, 4, rng)
    for rnd in range(60):
        for pool in range(3):
            for white, black in pools.pairings(pool, rng):
                play(pools, pool, white, black, rng.choice((0.0, 0.5, 1.0)), rng)
        if rnd % 3 == 2:
            pools.swap()
        for pool in range(3):
            assert len(pools.members[pool]) == 4 and len(set(pools.members[pool])) == 4
            assert all(i in pools.genomes for i in pools.members[pool])


# ------------------------------------------------------------------ game time schedule

def test_game_time_rises_then_stays_at_the_maximum():
    times = [game_time(r, 1.0, 2.0, 0.25, oscillating=False) for r in range(12)]
    assert times == [1.0, 1.25, 1.5, 1.75, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    assert game_time(10 ** 6, 1.0, 2.0, 0.25, oscillating=False) == 2.0


def test_game_time_oscillates_as_a_triangle_wave():
    times = [game_time(r, 1.0, 2.0, 0.25, oscillating=True) for r in range(17)]
    assert times == [1.0, 1.25, 1.5, 1.75, 2.0, 1.75, 1.5, 1.25,
                     1.0, 1.25, 1.5, 1.75, 2.0, 1.75, 1.5, 1.25, 1.0]
    # Far into a run the wave is still the same (period 8 rounds).
    assert [game_time(800 + r, 1.0, 2.0, 0.25, True) for r in range(9)] == times[:9]


def test_game_time_with_inexact_decimals():
    rising = [game_time(r, 0.2, 0.4, 0.1, False) for r in range(6)]
    assert rising == pytest.approx([0.2, 0.3, 0.4, 0.4, 0.4, 0.4])
    wave = [game_time(r, 0.2, 0.4, 0.1, True) for r in range(9)]
    assert wave == pytest.approx([0.2, 0.3, 0.4, 0.3, 0.2, 0.3, 0.4, 0.3, 0.2])


@pytest.mark.parametrize("minimum, maximum, increment", [(30, 120, 0.01), (1, 2, 0.3), (0.5, 0.9, 0.07)])
def test_oscillating_game_time_stays_in_range_and_moves_by_the_increment(minimum, maximum, increment):
    times = [game_time(r, minimum, maximum, increment, True) for r in range(int(5 * (maximum - minimum)
                                                                              / increment))]
    eps = 1e-9 * maximum
    assert all(minimum - eps <= t <= maximum + eps for t in times)
    steps = [abs(b - a) for a, b in zip(times, times[1:])]
    assert max(steps) <= increment + eps
    # It turns at the top and at the bottom, again and again.
    assert max(times) > maximum - increment - eps and min(times[1:]) < minimum + increment + eps
    turns = sum(1 for a, b, c in zip(times, times[1:], times[2:]) if (b - a) * (c - b) < 0)
    assert turns >= 3


@pytest.mark.parametrize("oscillating", [True, False])
def test_game_time_without_increment_or_range_is_the_minimum(oscillating):
    assert [game_time(r, 1.5, 3.0, 0.0, oscillating) for r in range(5)] == [1.5] * 5
    assert [game_time(r, 2.0, 2.0, 0.5, oscillating) for r in range(5)] == [2.0] * 5


def test_example_schedule_takes_the_documented_number_of_rounds():
    # example.cfg: 30 s to 120 s by 0.01 s a round: 9000 rounds up, 9000 down.
    assert game_time(0, 30, 120, 0.01, True) == 30
    assert game_time(9000, 30, 120, 0.01, True) == pytest.approx(120)
    assert game_time(13500, 30, 120, 0.01, True) == pytest.approx(75)
    assert game_time(18000, 30, 120, 0.01, True) == pytest.approx(30)
    assert game_time(20000, 30, 120, 0.01, False) == 120
    assert math.isclose(game_time(4500, 30, 120, 0.01, False), 75)
