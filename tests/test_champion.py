"""The champion: promotion only on an SPRT pass, atomic replacement, lineage, history."""

import concurrent.futures as cf
import random
import signal
import subprocess
import sys
import time

from genchess.genome import Genome, load_genome
from genchess.match import GameRecord
from genchess.train.champion import (Champion, ChampionSettings, champion_path, read_history,
                                     write_atomically)
from genchess.parallel.worker import GameJob, GameResult


class ScriptedExecutor(cf.Executor):
    """Plays no chess: each game's result comes from `outcome(job)` (the challenger's score)."""

    def __init__(self, challenger_id, outcome):
        self.challenger_id, self.outcome, self.jobs = challenger_id, outcome, []

    def submit(self, fn, job):
        self.jobs.append(job)
        score = self.outcome(len(self.jobs))
        white_score = score if job.white_id == self.challenger_id else 1 - score
        result = {1.0: "1-0", 0.0: "0-1"}.get(white_score, "1/2-1/2")
        future = cf.Future()
        future.set_result(GameResult(job, GameRecord("", [], result, "x", "x", "w", "b"), 0.0))
        return future


def setup(tmp_path, max_games=400):
    rng = random.Random(1)
    old, new = Genome.random(rng, 3), Genome.random(rng, 17)
    champion = Champion(tmp_path / "pool.txt", ChampionSettings(10, max_games=max_games), out=lambda s: None)
    champion.crown(old, "best of the initial population")
    champion.note_birth(17, (3, 9), 5)
    return champion, old, new


def one_second_game(white, black, fen):
    return GameJob.between(white, black, start_fen=fen, round=6, pool=-1, seconds=1.0)


def challenge(champion, new, outcome):
    executor = ScriptedExecutor(new.id, outcome)
    promoted = champion.challenge(executor, 2, new, [None], one_second_game, 120)
    return promoted, executor.jobs


def test_promotion_on_h1_with_lineage_and_record(tmp_path):
    champion, old, new = setup(tmp_path)
    promoted, jobs = challenge(champion, new, lambda n: 1.0 if n % 3 else 0.5)
    assert promoted and champion.genome.id == 17
    # Pairs: the challenger White then Black, both games of a pair from one opening.
    assert [j.white_id for j in jobs[:4]] == [17, 3, 17, 3]
    assert len(jobs) < 400            # decided before the game limit
    text = champion_path(tmp_path / "pool.txt").read_text()
    assert "# genome 17: parents 3 x 9, born round 5" in text
    assert "H1" in text and "previous champion: 3" in text
    assert load_genome(str(champion_path(tmp_path / "pool.txt"))) == new
    assert [row[:3] for row in read_history(tmp_path / "pool.txt_champion.txt")] == [(1, 17, 120)]


def test_no_promotion_on_h0_or_without_a_decision(tmp_path):
    champion, old, new = setup(tmp_path, max_games=40)
    promoted, jobs = challenge(champion, new, lambda n: 0.0 if n % 3 else 0.5)
    assert not promoted and champion.genome.id == 3
    promoted, jobs = challenge(champion, new, lambda n: 0.5)       # all draws: no decision
    assert not promoted and len(jobs) == 40
    assert load_genome(str(champion_path(tmp_path / "pool.txt"))) == old
    assert not (tmp_path / "pool.txt_champion.txt").exists()


WRITER = """
import random, sys
from genchess.genome import Genome
from genchess.train.champion import champion_text, write_atomically
from pathlib import Path
rng = random.Random(0)
genomes = [Genome.random(rng, 1), Genome.random(rng, 2)]
path = Path(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    g = genomes[i % 2]
    write_atomically(path, champion_text(g, ["match record " + "x" * 5000] * 20))
    i += 1
"""


def test_kill_9_during_promotion_leaves_a_whole_champion(tmp_path):
    path = tmp_path / "pool.txt_champion.genome"
    rng = random.Random(2)
    seen = set()
    for attempt in range(6):
        # From tmp_path: the repository root would put the uncompiled source tree first.
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                                 cwd=tmp_path)
        child.stdout.readline()
        time.sleep(0.05 + rng.random() * 0.2)
        child.send_signal(signal.SIGKILL)
        child.wait()
        genome = load_genome(str(path))            # whole, whichever it is
        assert genome.id in (1, 2)
        seen.add(genome.id)


def test_write_atomically_replaces(tmp_path):
    path = tmp_path / "f"
    write_atomically(path, "one")
    write_atomically(path, "two")
    assert path.read_text() == "two" and not (tmp_path / "f.tmp").exists()
