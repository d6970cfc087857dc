"""The lab's views of the game-based trainings (genchess/lab/kinds.py, report.py): a short
real run of each of the gene pool, Kendall-Whitwell and multi-niche crowding, queued
and run by the worker; the page's JSON gives each one's records over time as its run
file holds them (checked against the files read independently: the games' tags, the
average-player file, the database's rows) and the report holds the same figures."""

from __future__ import annotations

import re
import sqlite3

import pytest

pytest.importorskip("flask", reason="the lab's page needs its extras: pip install \".[lab]\"")

from genchess.genome import read_genome_file      # noqa: E402
from genchess.lab import kinds                     # noqa: E402
from genchess.lab.queue import Queue               # noqa: E402
from genchess.lab.report import write_report       # noqa: E402
from genchess.lab.web import create_app            # noqa: E402
from genchess.lab.worker import Worker             # noqa: E402
from train_helpers import BASE_CONFIG, config_text  # noqa: E402

KW_MU, KW_GENERATIONS = 4, 3
CONFIGS = {
    "pool.cfg": config_text(BASE_CONFIG, workers=1, minimum_game_time=0.05, maximum_game_time=0.1,
                            game_time_added_per_round=0.01, time_limit="6 seconds"),
    "kw.cfg": config_text({"method": "kendall-whitwell", "run file": "kw.txt",
                           "population": str(KW_MU), "generations": str(KW_GENERATIONS), "depth": "1",
                           "seed": "4", "workers": "1"}),
    "mnc.cfg": config_text({"method": "multi-niche crowding", "run file": "run.db",
                            "population": "4", "depth": "1", "generations": "2", "seed": "3",
                            "workers": "1"}),
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A lab whose jobs 1, 2 and 3 are a finished gene pool, Kendall-Whitwell and
    multi-niche crowding run, each queued as `genchess lab add train CONFIG` queues it."""
    root = tmp_path_factory.mktemp("trainings")
    queue = Queue(root / "lab")
    for name, text in CONFIGS.items():
        (root / name).write_text(text)
        queue.add("train", kinds.check("train", [name], root), str(root), timed=False, time_limit=600)
    Worker(queue, until_empty=True, tick=0.2, out=lambda line: None).run()
    assert [queue.job(n).state for n in (1, 2, 3)] == ["done"] * 3, \
        [kinds.last_lines(root / "lab" / "jobs" / str(n) / "output.log") for n in (1, 2, 3)]
    return root


@pytest.fixture()
def client(lab):
    return create_app(Queue(lab / "lab")).test_client()


def report(lab, job_id: int) -> str:
    return (lab / "lab" / "jobs" / str(job_id) / "report.md").read_text()


def is_png(path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_run_file_key_is_known_to_the_page():
    """The page finds a method's run file by the config key that names it: every method
    declares `run file` (the registry), and the old names a config may still use are the
    ones the config loader renames to it."""
    from genchess.train.registry import methods
    assert kinds.run_file_keys() == ("run file", "gene pool file", "population file", "chromosome database")
    for method in methods():
        assert "run file" in [k.name for k in method.keys], method.name


def test_a_gene_pools_games_and_median_piece_values_by_round(client, lab):
    p = client.get("/api/jobs/1").get_json()["progress"]
    assert p["method"] == "gene pool"
    pools = p["pools"]
    rounds = pools["rounds"]
    assert len(rounds) >= 2 and [r["round"] for r in rounds] == list(range(len(rounds)))
    # Games by the end of each round, from the games file's Round tags read here.
    tags = [int(n) for n in re.findall(r'^\[Round "(\d+)"\]', (lab / "pool.txt_games.txt").read_text(), re.M)]
    assert pools["games"] == len(tags) > 0
    assert [r["games"] for r in rounds] == [sum(1 for t in tags if t <= r["round"]) for r in rounds]
    # Each pool's medians and all pools': knight, bishop, rook and queen with the pawn as 1
    # (none in a pool where no living genome's pawn is worth more than nothing).
    for r in rounds:
        assert sorted(r["medians"]) == ["0", "1", "all"]
        assert all(len(m) in (0, 4) for m in r["medians"].values()), r
    assert len(rounds[0]["medians"]["all"]) == 4
    # The last round's are the ones `genchess plot` prints for the living genomes.
    from genchess.train.gene_pool_plots import living_piece_medians
    from genchess.train.records import read_complete_genomes
    printed = {name: medians for name, _, medians in living_piece_medians(read_complete_genomes(lab / "pool.txt"))}
    assert rounds[-1]["medians"] == printed
    assert p["champion"] == {"promotions": [], "gain": []}


def test_a_kendall_whitwell_populations_mean_weights_by_generation(client, lab):
    p = client.get("/api/jobs/2").get_json()["progress"]
    assert p["method"] == "kendall-whitwell"
    population = p["population"]
    assert population["names"] == ["Knight", "Bishop", "Rook", "Queen", "Legal Move"]
    generations = population["generations"]
    assert [g["generation"] for g in generations] == list(range(KW_GENERATIONS + 1))
    # Two games a match, mu - 1 matches a generation.
    assert [g["games"] for g in generations] == [2 * (KW_MU - 1) * n for n in range(KW_GENERATIONS + 1)]
    assert population["games"] == generations[-1]["games"]
    # The population's mean is the average player the trainer writes, generation by generation.
    averages = read_genome_file(lab / "kw.txt_average.genome").genomes
    for g, average in zip(generations, averages):
        assert average.id == g["generation"]
        pawn = average.weights[0]
        assert g["mean"] == pytest.approx([average.weights[i] / pawn for i in (1, 2, 3, 4, 6)])


def test_multi_niche_crowdings_fitness_and_niches_by_generation(client, lab):
    p = client.get("/api/jobs/3").get_json()["progress"]
    assert p["method"] == "multi-niche crowding"
    with sqlite3.connect(lab / "run.db") as db:
        rows = db.execute("SELECT generation, best, best_fitness, mean_fitness, niches, games "
                          "FROM generations ORDER BY generation").fetchall()
    assert len(rows) >= 2
    assert [(g["generation"], g["best"], g["best_fitness"], g["mean_fitness"], g["niches"], g["games"])
            for g in p["generations"]] == [tuple(row) for row in rows]


@pytest.mark.parametrize("job_id, figures", [
    (1, ["![the living genomes' median piece values, round by round](piece_medians.png)",
         "![games played, round by round](games.png)"]),
    (2, ["![the population's mean material weights, generation by generation](weights.png)",
         "![games played, generation by generation](games.png)"]),
    (3, ["![the best and mean fitness, generation by generation](fitness.png)",
         "![the niches, generation by generation](niches.png)"])])
def test_the_finished_trainings_report_has_the_same_figures(lab, job_id, figures):
    markdown = report(lab, job_id)
    for figure in figures:
        assert figure in markdown
        assert is_png(lab / "lab" / "jobs" / str(job_id) / figure.rsplit("(", 1)[1].rstrip(")"))
    assert "| champion SPRTs | no promotion |" in markdown
    facts = {1: r"\| living medians, all pools \(pawn = 1\) \| (knight -?\d|-)", 2: r"\| generations \| 3 \|",
             3: r"\| best fitness \| \d\.\d{3} \(chromosome \d+\) \|"}
    assert re.search(facts[job_id], markdown), markdown


def test_a_champions_promotions_are_shown_and_drawn(client, lab):
    """A promotion line in the champion's file (as Champion.challenge appends it): the
    page gives its SPRT's estimate and the chained gain; the report draws it."""
    history = lab / "kw.txt_champion.txt"
    history.write_text("promotion 1: 17 replaces 0 at game 12: elo +35.0 low +5.0 high +65.0\n"
                       "promotion 2: 21 replaces 17 at game 18: elo +20.0 low -20.0 high +60.0\n")
    try:
        champion = client.get("/api/jobs/2").get_json()["progress"]["champion"]
        assert [(c["promotion"], c["genome"], c["games"], c["elo"]) for c in champion["promotions"]] == \
            [(1, 17, 12, 35.0), (2, 21, 18, 20.0)]
        assert [(g["games"], g["gain"]) for g in champion["gain"]] == [(0, 0.0), (12, 35.0), (18, 55.0)]
        assert champion["gain"][2]["high"] == pytest.approx(55.0 + (30.0 ** 2 + 40.0 ** 2) ** 0.5)
        queue = Queue(lab / "lab")
        write_report(queue, queue.job(2))
        markdown = report(lab, 2)
        assert "promotion 2: genome 21 at game 18, +20.0 [-20.0, +60.0] (95%)" in markdown
        assert "](champion.png)" in markdown and is_png(lab / "lab" / "jobs" / "2" / "champion.png")
    finally:
        history.unlink()


def test_a_running_trainings_files_are_read_again_only_after_ten_times_a_reading(lab, monkeypatch):
    """The page asks every two seconds while a gene pool's file grows by a genome at a
    time: a reading is reused until ten times its own duration has passed."""
    import dataclasses
    clock = [1000.0]

    class Clock:
        @staticmethod
        def monotonic():
            clock[0] += 0.5             # every reading takes half a second
            return clock[0]
    monkeypatch.setattr(kinds, "time", Clock)
    monkeypatch.setattr(kinds, "_SEEN", {})         # no reading of an earlier test's clock
    monkeypatch.setattr(kinds, "_LAST_READ", {})
    queue = Queue(lab / "lab")
    job = dataclasses.replace(queue.job(3), state="running")
    job_dir = queue.job_dir(3)
    games = lambda p: sum(g["games"] for g in p["generations"])     # noqa: E731
    first = kinds.progress(job, job_dir)
    with sqlite3.connect(lab / "run.db") as db:     # the run goes on: a generation more
        db.execute("UPDATE generations SET games = games + 100 WHERE generation = 0")
    try:
        assert games(kinds.progress(job, job_dir)) == games(first)      # 1 s after a 0.5 s reading
        clock[0] += 5
        assert games(kinds.progress(job, job_dir)) == games(first) + 100
        # A finished job's (its report's) is read as soon as its files change.
        with sqlite3.connect(lab / "run.db") as db:
            db.execute("UPDATE generations SET games = games + 1 WHERE generation = 0")
        assert games(kinds.progress(queue.job(3), job_dir)) == games(first) + 101
    finally:
        with sqlite3.connect(lab / "run.db") as db:
            db.execute("UPDATE generations SET games = games - 101 WHERE generation = 0")
