"""Kendall-Whitwell evolution: each operator alone, then the loop with games
whose results a rule decides (a stand-in executor), so that selection order,
reversal and clone-and-replace can be followed ID by ID; then real games played
in parallel give exactly what they give played one at a time.
"""

import concurrent.futures as cf
import random

import numpy as np
import pytest

from genchess.genome import read_genome_file
from genchess.game import GameRecord
from genchess.train.kendall import (R_TABLE, KendallConfig, KendallTrainer, apply_match,
                                    average_weights, clone_and_replace, generation_pairs, judge,
                                    mutate, population_sigma, reverse, select_opponent)
from genchess.parallel.worker import GameResult
from genchess_core import STARTING_FEN
from train_helpers import read_pgn_games, still_alive_snapshots


# ------------------------------------------------------------------ operators

@pytest.mark.parametrize("points, outcome, winner, r", [
    (2.0, "two wins", 0, (0.0, 2.0)),
    (0.0, "two wins", 1, (2.0, 0.0)),
    (1.5, "win and draw", 0, (0.2, 1.0)),
    (0.5, "win and draw", 1, (1.0, 0.2)),
    (1.0, "even", None, (0.5, 0.5)),
])
@pytest.mark.parametrize("scaling", [1.0, 2.0, 0.5, 0.25])
def test_outcome_table_and_scaling(points, outcome, winner, r, scaling):
    verdict = judge(points, scaling)
    assert verdict.outcome == outcome and verdict.winner == winner
    assert verdict.r == pytest.approx((r[0] * scaling, r[1] * scaling))


def test_outcome_table_is_the_papers():
    assert R_TABLE == {"two wins": (0.0, 2.0), "win and draw": (0.2, 1.0), "even": (0.5, 0.5)}
    with pytest.raises(ValueError):
        judge(1.25)


def test_mutation_moves_each_weight_by_at_most_half_r_sigma():
    rng = random.Random(1)
    sigma = np.array([0.5, 1.0, 2.0, 0.0, 3.0, 1.5, 0.1])
    vector = np.arange(7.0)
    moves = np.array([mutate(vector, 1.0, sigma, rng) - vector for _ in range(4000)])
    assert np.all(np.abs(moves) <= sigma / 2 + 1e-12)
    assert np.all(moves[:, 3] == 0)                     # no spread, no move
    # Uniform on [-R sigma / 2, R sigma / 2]: mean 0, standard deviation R sigma / sqrt(12).
    assert np.abs(moves.mean(axis=0)) == pytest.approx(np.zeros(7), abs=0.05)
    assert moves.std(axis=0) == pytest.approx(sigma / np.sqrt(12), rel=0.06)
    assert np.all(np.abs(moves).max(axis=0) >= 0.45 * sigma)


def test_mutation_uses_the_population_sigma_after_the_clone():
    """The loser is an outlier: once cloned over, the spread is far smaller, and
    the mutation is bounded by that new spread, recomputed for every match."""
    base = np.array([[1.0] * 7, [1.2] * 7, [0.9] * 7, [1.1] * 7, [50.0] * 7])
    for seed in range(300):
        weights = base.copy()
        verdict = apply_match(weights, 0, 4, 2.0, 1.0, random.Random(seed))
        cloned = base.copy()
        clone_and_replace(cloned, 0, 4)
        sigma_after = population_sigma(cloned)
        assert np.all(weights[0] == base[0])                  # R = 0 for the winner of two wins
        assert np.all(np.abs(weights[4] - base[0]) <= verdict.r[1] * sigma_after / 2 + 1e-12)
        assert sigma_after[0] < population_sigma(base)[0] / 10
    weights = base.copy()
    apply_match(weights, 1, 2, 1.0, 1.0, random.Random(3))      # even: both kept, both move
    sigma = population_sigma(base)
    assert np.all(np.abs(weights[1:3] - base[1:3]) <= 0.5 * sigma / 2 + 1e-12)
    assert np.any(weights[1] != base[1]) and np.any(weights[2] != base[2])


def test_population_sigma_and_average():
    weights = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 8.0]])
    assert population_sigma(weights) == pytest.approx([np.sqrt(8 / 3), np.sqrt(8)])
    assert average_weights(weights) == pytest.approx([3.0, 4.0])


def test_clone_and_replace_copies():
    weights = np.array([[1.0, 2.0], [3.0, 4.0]])
    clone_and_replace(weights, 0, 1)
    weights[0, 0] = 9.0
    assert list(weights[1]) == [1.0, 2.0]


def test_opponents_are_after_the_player_and_uniform():
    mu = 8
    counts = {j: 0 for j in range(1, mu)}
    for generation in range(1, 1401):
        pairs = generation_pairs("key", generation, mu)
        assert [i for i, _ in pairs] == list(range(mu - 1))
        assert all(i < j < mu for i, j in pairs)
        counts[pairs[0][1]] += 1
    assert all(150 <= c <= 250 for c in counts.values()), counts        # 200 expected each
    assert select_opponent(random.Random(0), mu - 2, mu) == mu - 1
    assert generation_pairs("key", 3, mu) == generation_pairs("key", 3, mu)
    assert generation_pairs("key", 3, mu) != generation_pairs("other", 3, mu)


def test_reverse():
    assert reverse([1, 2, 3]) == [3, 2, 1]


# ------------------------------------------------------------------ the loop, games by rule

class RuleExecutor(cf.Executor):
    """Plays no chess: each game's result comes from `rule(job)` at once. Records the jobs."""

    def __init__(self, rule):
        self.rule = rule
        self.jobs = []

    def submit(self, fn, job):
        self.jobs.append(job)
        future = cf.Future()
        record = GameRecord(STARTING_FEN, [], self.rule(job), "rule", "by rule",
                            f"GenChess {job.white_id}", f"GenChess {job.black_id}")
        future.set_result(GameResult(job, record, 0.0))
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def rule_run(tmp_path, rule, population=6, generations=3, scaling=1.0, workers=2):
    config = KendallConfig(path="test.cfg", population_file=tmp_path / "kw.txt", population=population,
                           generations=generations, depth=1, scaling=scaling, seed=7, workers=workers,
                           quiet=True)
    executor = RuleExecutor(rule)
    trainer = KendallTrainer(config, out=lambda *a: None, executor_factory=lambda n: executor,
                             progress=False)
    assert trainer.run() == 0
    return trainer, executor


def test_selection_order_and_reversal(tmp_path):
    """With every match even and a scaling factor of 0 nobody changes, so the vector
    stays put within a generation: match i is position i against a later one, and
    the next generation starts from the reversed vector."""
    trainer, executor = rule_run(tmp_path, lambda job: "1/2-1/2", scaling=0.0, generations=4)
    snapshots = [s[0] for s in still_alive_snapshots((tmp_path / "kw.txt").read_text(), 1)]
    assert len(snapshots) == 5 and snapshots[0] == list(range(6))
    for g in range(1, 5):
        assert snapshots[g] == snapshots[g - 1][::-1]
    games = read_pgn_games(tmp_path / "kw.txt_games.txt")
    assert len(games) == 4 * 5 * 2
    for game in games:
        h = game.headers
        vector = snapshots[int(h["Generation"]) - 1]
        i = int(h["Match"]) - 1
        assert int(h["FirstID"]) == vector[i]
        assert vector.index(int(h["SecondID"])) > i
        white, black = (h["FirstID"], h["SecondID"]) if h["Game"] == "1" else (h["SecondID"], h["FirstID"])
        assert (h["WhiteID"], h["BlackID"]) == (white, black)
    seconds = {int(g.headers["SecondID"]) for g in games if g.headers["Match"] == "1"}
    assert len(seconds) > 1


def test_clone_and_replace_in_the_loop(tmp_path):
    """The first player of every match wins both games; with no mutation the
    loser's position gets a new ID whose weights are the winner's exactly."""
    def first_wins(job):
        return "1-0" if job.white_id == job_first[(job.round, job.pool)] else "0-1"
    job_first = {}

    class FirstWins(RuleExecutor):
        def submit(self, fn, job):
            job_first.setdefault((job.round, job.pool), job.white_id)    # game 1 is submitted first
            return super().submit(fn, job)

    config = KendallConfig(path="t.cfg", population_file=tmp_path / "kw.txt", population=5,
                           generations=1, depth=1, scaling=0.0, seed=3, quiet=True)
    executor = FirstWins(first_wins)
    trainer = KendallTrainer(config, out=lambda *a: None, executor_factory=lambda n: executor,
                             progress=False)
    assert trainer.run() == 0
    genomes = {g.id: g for g in read_genome_file(tmp_path / "kw.txt").genomes}
    games = read_pgn_games(tmp_path / "kw.txt_games.txt")
    vector = list(range(5))
    seen = set(vector)
    for match in range(4):
        h = next(g.headers for g in games if g.headers["Match"] == str(match + 1))
        first, second = int(h["FirstID"]), int(h["SecondID"])
        assert first == vector[match]
        j = vector.index(second)
        # IDs are in order of birth: this match's clone is the first genome not met yet.
        clone = genomes[min(i for i in genomes if i not in seen)]
        assert clone.weights == genomes[first].weights, "the loser's position holds a copy of the winner"
        assert genomes[second].weights != clone.weights
        vector[j] = clone.id
        seen.add(clone.id)
    snapshot = still_alive_snapshots((tmp_path / "kw.txt").read_text(), 1)[-1][0]
    assert snapshot == vector[::-1]
    # The winners of two wins are not mutated (R = 0): the originals that won live on.
    assert 0 in snapshot and len(set(snapshot)) == 5


@pytest.mark.parametrize("workers", [1, 5])
def test_any_number_of_workers_gives_the_sequential_result(tmp_path, workers):
    """Results from a rule on the players' weights: the order games are handed out
    in differs with the workers, the files' genomes and populations do not."""
    def heavier_pawn_wins(job):
        white = read_weights(job.white_genome)
        black = read_weights(job.black_genome)
        if abs(white[0] - black[0]) < 1.0:
            return "1/2-1/2"
        return "1-0" if white[0] > black[0] else "0-1"

    one = tmp_path / "one"
    many = tmp_path / "many"
    one.mkdir(), many.mkdir()
    rule_run(one, heavier_pawn_wins, population=8, generations=3, workers=1)
    _, executor = rule_run(many, heavier_pawn_wins, population=8, generations=3, workers=workers)
    assert (one / "kw.txt").read_text() == (many / "kw.txt").read_text()
    assert (one / "kw.txt_average.genome").read_text() == (many / "kw.txt_average.genome").read_text()


def read_weights(text):
    from genchess.genome import parse_genome_text
    return parse_genome_text(text).genomes[0].weights


def test_real_games_in_parallel_match_one_at_a_time(tmp_path):
    """Real depth-1 games, two threads against one: the same population files."""
    dirs = []
    for workers in (1, 2):
        d = tmp_path / f"w{workers}"
        d.mkdir()
        config = KendallConfig(path="t.cfg", population_file=d / "kw.txt", population=6,
                               generations=2, depth=1, seed=11, workers=workers, quiet=True)
        trainer = KendallTrainer(config, out=lambda *a: None,
                                 executor_factory=lambda n: cf.ThreadPoolExecutor(n), progress=False)
        assert trainer.run() == 0
        dirs.append(d)
    assert (dirs[0] / "kw.txt").read_text() == (dirs[1] / "kw.txt").read_text()
    games = [sorted((g.headers["Round"], g.headers["Game"], str(g.mainline_moves()))
                    for g in read_pgn_games(d / "kw.txt_games.txt")) for d in dirs]
    assert games[0] == games[1] and len(games[0]) == 2 * 5 * 2


def test_pawn_scale_is_undefined_once_the_mean_pawn_weight_is_not_positive():
    # A divergent run (scaling factor 2 measured it) can drive the mean pawn weight
    # below zero: scaling by it would flip every weight and make spreads negative.
    from genchess.train.kendall import scaled_to_pawn
    values = np.array([2.0, 6.0, -1.0])
    assert list(scaled_to_pawn(values, 2.0)) == [100.0, 300.0, -50.0]
    for pawn in (0.0, -3.0):
        assert np.isnan(scaled_to_pawn(values, pawn)).all()


def test_the_champion_works_here_too(tmp_path):
    """`champion interval` in a kendall-whitwell run: the first average player is
    crowned at the first interval; a later average player that wins every champion
    game is promoted by the SPRT, its games played at the run's fixed depth."""
    from genchess.genome import load_genome
    from genchess.train.champion import ChampionSettings, champion_path, read_history

    played = []

    def rule(job):
        if job.pool != -1:
            return "1/2-1/2"
        # A champion game: the later average player wins two games in three, draws the third.
        played.append(job)
        if len(played) % 3 == 0:
            return "1/2-1/2"
        return "1-0" if job.white_id > job.black_id else "0-1"
    config = KendallConfig(path="t.cfg", population_file=tmp_path / "kw.txt", population=4,
                           generations=3, depth=1, seed=5, quiet=True,
                           champion=ChampionSettings(interval=6, max_games=200))
    executor = RuleExecutor(rule)
    trainer = KendallTrainer(config, out=lambda *a: None, executor_factory=lambda n: executor,
                             progress=False)
    assert trainer.run() == 0
    champion_games = [job for job in executor.jobs if job.pool == -1]
    assert champion_games and all(job.depth == 1 for job in champion_games)
    assert {job.white_id for job in champion_games} <= {0, 2, 3}
    promotions = list(read_history(tmp_path / "kw.txt_champion.txt"))
    assert [row[1] for row in promotions] == [2, 3]     # generation 2's player, then generation 3's
    assert load_genome(champion_path(tmp_path / "kw.txt")) == trainer.average_player(3)
