"""strength.games: a trainer's matches on its executor (game pairs into a Tally, or
a list of games), checked with a fake game so that colours, openings, pairs and the
SPRT's early stop are exact."""

from __future__ import annotations

import concurrent.futures as cf
from types import SimpleNamespace

import pytest

from genchess.strength import games
from genchess.strength.sprt import Sprt
from genchess.strength.tally import Tally


def fake_game(job):
    # The genome called "strong" wins every game, whatever its colour.
    result = "1-0" if job.white == "strong" else "0-1"
    return SimpleNamespace(job=job, record=SimpleNamespace(result=result))


@pytest.fixture
def executor(monkeypatch):
    monkeypatch.setattr(games, "play_job", fake_game)
    with cf.ThreadPoolExecutor(2) as pool:
        yield pool


def job(white, black, fen):
    return SimpleNamespace(white=white, black=black, fen=fen)


def test_pairs_alternate_colours_and_share_an_opening(executor):
    seen = {}
    tally = games.play_pairs(executor, 2, "strong", "weak", ["a", "b"], job, 6,
                             on_game=lambda n, r: seen.__setitem__(n, (r.job.white, r.job.fen)))
    assert seen == {0: ("strong", "a"), 1: ("weak", "a"), 2: ("strong", "b"), 3: ("weak", "b"),
                    4: ("strong", "a"), 5: ("weak", "a")}
    assert (tally.stats.wins, tally.stats.losses, tally.stats.games) == (6, 0, 6)
    assert sum(tally.pairs) == 3 and tally.pairs[-1] == 3      # three pairs won twice


def test_pairs_stop_once_the_sprt_decides(executor):
    tally = games.play_pairs(executor, 2, "weak", "strong", [None], job, 400, Tally(Sprt()))
    assert tally.verdict == "H0" and tally.games < 400


def test_play_all_gives_the_results_in_the_jobs_order(executor):
    jobs = [job("weak", "strong", None), job("strong", "weak", None), job("weak", "strong", None)]
    finished = []
    results = games.play_all(executor, jobs, on_game=lambda n, r: finished.append(n))
    assert [r.record.result for r in results] == ["0-1", "1-0", "0-1"]
    assert sorted(finished) == [0, 1, 2]
