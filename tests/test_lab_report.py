"""A finished job's report (genchess/lab/report.py): one HTML page and the same as
markdown, with the figures, the command, the commit and the links to the job's files."""

from __future__ import annotations

import json
import re

from genchess.lab.queue import Queue
from genchess.lab.worker import Worker
from train_helpers import genchess_command, run


def test_a_finished_sprts_report_in_html_and_markdown(tmp_path):
    queue = Queue(tmp_path / "lab")
    queue.add("match", {"argv": ["genchess", "genchess", "--tc", "nodes=2000", "--games", "4", "--concurrency",
                                 "1", "--sprt", "elo0=0", "elo1=10"]}, str(tmp_path), timed=True, time_limit=600)
    Worker(queue, until_empty=True, tick=0.2, out=lambda line: None).run()
    job = queue.job(1)
    folder = tmp_path / "lab" / "jobs" / "1"
    markdown = (folder / "report.md").read_text()
    page = (folder / "report.html").read_text()
    command = "genchess match genchess genchess --tc nodes=2000 --games 4 --concurrency 1 --sprt elo0=0 elo1=10"
    for text in (markdown, page):
        assert command in text
        assert job.commit_id and job.commit_id in text
        assert "games.pgn" in text and "elo.png" in text and "llr.png" in text
        assert "4 of at most 4" in text
    assert "![the SPRT's LLR over the games](llr.png)" in markdown
    assert '<a href="games.pgn">games.pgn</a>' in page
    for figure in ("elo.png", "llr.png"):
        assert (folder / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert re.search(r"\| SPRT \| \[0, 10\] normalized, LLR [+-]\d\.\d\d", markdown)

    # `genchess lab report ID` writes it again and names the markdown file.
    (folder / "report.md").unlink()
    again = run(genchess_command("lab", "report", "1"), tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith("report.md") and (folder / "report.md").read_text() == markdown


def test_a_data_runs_report_has_its_positions_and_speed(tmp_path):
    queue = Queue(tmp_path / "lab")
    queue.add("datagen", {"argv": ["set", "--depth", "2", "--games-per-chunk", "4", "--chunks", "2",
                                   "--workers", "1"]}, str(tmp_path), timed=False, time_limit=600)
    Worker(queue, until_empty=True, tick=0.2, out=lambda line: None).run()
    markdown = (tmp_path / "lab" / "jobs" / "1" / "report.md").read_text()
    rows = json.loads((tmp_path / "set" / "MANIFEST.json").read_text())
    positions = sum(row["positions"] for row in rows)
    assert f"| positions | {positions:,} |" in markdown
    assert "| chunks | 2 |" in markdown
    assert "![positions an hour, chunk by chunk](speed.png)" in markdown


def test_status_says_where_each_job_stands(tmp_path):
    queue = Queue(tmp_path / "lab")
    queue.add("match", {"argv": ["genchess", "genchess", "--tc", "nodes=2000", "--games", "4", "--concurrency",
                                 "1", "--sprt", "elo0=0", "elo1=10"]}, str(tmp_path), timed=True, time_limit=600)
    queue.add("datagen", {"argv": ["set", "--depth", "2", "--games-per-chunk", "4", "--chunks", "2",
                                   "--workers", "1"]}, str(tmp_path), timed=False, time_limit=600)
    Worker(queue, until_empty=True, tick=0.2, out=lambda line: None).run()
    # A job not finished (here: queued to go on) has its progress under it in the list.
    queue.add("datagen", {"argv": ["set", "--depth", "2", "--games-per-chunk", "4", "--chunks", "3",
                                   "--workers", "1"]}, str(tmp_path), timed=False, time_limit=600)
    listed = run(genchess_command("lab", "status"), tmp_path)
    assert listed.returncode == 0, listed.stderr
    positions = sum(row["positions"] for row in json.loads((tmp_path / "set" / "MANIFEST.json").read_text()))
    lines = listed.stdout.splitlines()
    third = next(i for i, line in enumerate(lines) if line.split()[:2] == ["3", "queued"])
    assert lines[third + 1].strip() == f"{positions:,} positions in 2 chunks"
    # One job in full says the same as its report: the match's games, score and SPRT.
    one = run(genchess_command("lab", "status", "1"), tmp_path)
    assert one.returncode == 0, one.stderr
    result = re.search(r"\| result \| (\+\d+ =\d+ -\d+) \|", (tmp_path / "lab" / "jobs" / "1" / "report.md").read_text())
    assert re.search(rf"^progress: 4 of 4 games, {re.escape(result.group(1))}, Elo .*, LLR [+-]\d\.\d\d "
                     r"\(-2\.94, \+2\.94\)$", one.stdout, re.M), one.stdout
