"""The champion: promotion only on an SPRT pass, atomic replacement, lineage, history."""

import concurrent.futures as cf
import random
import signal
import subprocess
import sys

from genchess.genome import Genome, load_genome
from genchess.game import GameRecord
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
import os, random, sys, time
import genchess.files as files
from genchess.genome import Genome
from genchess.train.champion import champion_text, write_atomically
from pathlib import Path
rng = random.Random(0)
genomes = [Genome.random(rng, 1), Genome.random(rng, 2)]
path, whole, cut = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
at = {"write": 0, "bytes": 0}
honest = files.write_some

def write_some(fd, data):
    # 1000 bytes a call, and the write after `whole` whole ones stops `cut` bytes in
    # and says so: the kill lands between two write() calls of one champion.
    if at["write"] == whole and at["bytes"] >= cut:
        print("mid-write", flush=True)
        time.sleep(120)
    done = honest(fd, data[:1000])
    at["bytes"] += done
    return done

files.write_some = write_some
for i in range(whole + 1):
    at["write"], at["bytes"] = i, 0
    write_atomically(path, champion_text(genomes[i % 2], ["match record " + "x" * 5000] * 20))
"""


def test_kill_9_during_promotion_leaves_a_whole_champion(tmp_path):
    path = tmp_path / "pool.txt_champion.genome"
    partial = tmp_path / "pool.txt_champion.genome.tmp"
    rng = random.Random(2)
    for attempt in range(4):
        whole, cut = rng.randint(1, 4), 1000 * rng.randint(1, 60)
        # From tmp_path: the repository root would put the uncompiled source tree first.
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(whole), str(cut)],
                                 stdout=subprocess.PIPE, text=True, cwd=tmp_path)
        try:
            said = child.stdout.readline()
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait()
        assert said == "mid-write\n", f"the writer ended before its cut write ({child.returncode})"
        assert child.returncode == -signal.SIGKILL
        # The kill landed mid-write: the new champion is on disk in part only...
        assert partial.stat().st_size == cut and cut < path.stat().st_size
        # ...and the champion is the last one written whole, whole.
        genome = load_genome(str(path))
        assert genome.id == 1 + (whole - 1) % 2, (whole, genome.id)


def test_write_atomically_replaces(tmp_path):
    path = tmp_path / "f"
    write_atomically(path, "one")
    write_atomically(path, "two")
    assert path.read_text() == "two" and not (tmp_path / "f.tmp").exists()
