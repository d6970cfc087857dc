"""The lab's page (genchess/lab/web.py): each job's state and its kind's view from the
job's own files, the charting library served from the package, malformed requests
answered 4xx with the server still up, no file outside a job's folder, and requests
from another host refused without the token. Loopback only."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the lab's page needs its extras: pip install \".[lab]\"")

from genchess.lab.queue import Queue            # noqa: E402
from genchess.lab.web import WebError, create_app, serve  # noqa: E402
from genchess.lab.worker import Worker           # noqa: E402
from train_helpers import genchess_command       # noqa: E402

TOKEN = "a-long-enough-secret"


@pytest.fixture(scope="module")
def lab_with_a_match(tmp_path_factory):
    """A lab whose job 1 is a finished 4-game SPRT, and job 2 is queued."""
    root = tmp_path_factory.mktemp("web")
    queue = Queue(root / "lab")
    queue.add("match", {"argv": ["genchess", "genchess", "--tc", "nodes=2000", "--games", "4",
                                 "--concurrency", "1", "--sprt", "elo0=0", "elo1=10"]},
              str(root), timed=True, time_limit=600)
    Worker(queue, until_empty=True, tick=0.2, out=lambda line: None).run()
    queue.add("datagen", {"argv": ["set", "--depth", "2"]}, str(root), timed=False, time_limit=600)
    (root / "secret.txt").write_text("not for the page")
    return root


@pytest.fixture()
def client(lab_with_a_match):
    app = create_app(Queue(lab_with_a_match / "lab"), token=TOKEN)
    return app.test_client()


def test_the_page_and_its_chart_library_come_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200
    assert b'<script src="/static/chart.umd.min.js">' in page.data
    library = client.get("/static/chart.umd.min.js")
    assert library.status_code == 200 and b"Chart.js v3" in library.data[:200]
    assert b"http://" not in page.data and b"https://" not in page.data     # nothing fetched elsewhere


def test_every_job_with_its_state(client):
    jobs = client.get("/api/jobs").get_json()
    assert [(j["id"], j["kind"], j["state"]) for j in jobs] == [(1, "match", "done"), (2, "datagen", "queued")]
    assert jobs[0]["report"] is True


def test_an_sprts_view_its_llr_elo_pentanomial_and_pgn(client):
    job = client.get("/api/jobs/1").get_json()
    p = job["progress"]
    assert (p["games"], p["total"]) == (4, 4)
    assert sum(p["pentanomial"]) == 2 and len(p["pentanomial"]) == 5
    assert [point["games"] for point in p["series"]] == [2, 4]
    assert all("llr" in point and "elo" in point for point in p["series"])
    assert p["sprt"]["elo1"] == 10
    assert "games.pgn" in job["files"]
    pgn = client.get("/jobs/1/games.pgn")
    assert pgn.status_code == 200 and pgn.data.count(b"[Round ") == 4
    assert client.get("/jobs/1/report.html").status_code == 200


def test_a_match_with_a_pgn_of_its_own_is_read_and_served_from_there(lab_with_a_match, tmp_path):
    (tmp_path / "trials").mkdir()
    games = (lab_with_a_match / "lab" / "jobs" / "1" / "games.pgn").read_text()
    (tmp_path / "trials" / "own.pgn").write_text(games)
    queue = Queue(tmp_path / "lab")
    queue.add("match", {"argv": ["genchess", "genchess", "--tc", "nodes=2000", "--games", "6",
                                 "--concurrency", "1", "--pgn", "trials/own.pgn"]},
              str(tmp_path), timed=True, time_limit=600)
    client = create_app(queue, token=TOKEN).test_client()
    job = client.get("/api/jobs/1").get_json()
    assert (job["progress"]["games"], job["progress"]["total"]) == (4, 6)
    assert job["progress"]["pgn"] == "trials/own.pgn"
    assert job["files"] == ["games.pgn"]
    assert not (tmp_path / "lab" / "jobs" / "1" / "games.pgn").exists()
    assert client.get("/jobs/1/games.pgn").data.decode() == games


@pytest.mark.parametrize("path", ["/api/jobs/abc", "/api/jobs/999", "/api/jobs/-1", "/nowhere",
                                  "/jobs/1/../../secret.txt", "/jobs/1/..%2F..%2Fsecret.txt",
                                  "/jobs/1/%2e%2e", "/jobs/1/queue.sqlite", "/jobs/1/.hidden",
                                  "/jobs/999/games.pgn", "/static/../queue.sqlite",
                                  "/jobs/1/" + "x" * 5000])
def test_a_malformed_or_outside_path_is_a_4xx(client, path):
    response = client.get(path)
    assert 400 <= response.status_code < 500
    assert b"not for the page" not in response.data


def test_the_page_only_reads(client):
    assert client.post("/api/jobs", data=b"{}").status_code == 405
    assert client.delete("/api/jobs/1").status_code == 405
    assert client.put("/jobs/1/games.pgn", data=b"x").status_code == 405


def test_another_host_needs_the_token(client):
    remote = {"REMOTE_ADDR": "192.0.2.7"}
    assert client.get("/api/jobs", environ_base=remote).status_code == 403
    assert client.get("/api/jobs?token=wrong", environ_base=remote).status_code == 403
    assert client.get(f"/api/jobs?token={TOKEN}", environ_base=remote).status_code == 200
    assert client.get("/api/jobs", environ_base=remote, headers={"X-Lab-Token": TOKEN}).status_code == 200


def test_a_loopback_request_naming_another_host_is_refused(client):
    # DNS rebinding: a page elsewhere that reaches this server by a name of its own.
    assert client.get("/api/jobs", headers={"Host": "evil.example:8080"}).status_code == 403
    assert client.get("/api/jobs", headers={"Host": "localhost:8080"}).status_code == 200


def test_without_a_token_the_page_is_loopback_only(lab_with_a_match):
    queue = Queue(lab_with_a_match / "lab")
    with pytest.raises(WebError, match="--token"):
        serve(queue, "0.0.0.0", 0, None)
    with pytest.raises(WebError, match="at least 12"):
        serve(queue, "0.0.0.0", 0, "short")


def test_the_server_answers_garbage_with_a_4xx_and_stays_up(lab_with_a_match):
    argv, env = genchess_command("lab", "serve", "--lab", "lab", "--port", "0")
    server = subprocess.Popen(argv, cwd=lab_with_a_match, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        url = line.split(" is at ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        for garbage in (b"\x00\xff\xfe nonsense\r\n\r\n", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
                        b"GET / HTTP/1.1\r\nContent-Length: -5\r\nHost: 127.0.0.1\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(garbage)
                answer = s.recv(100)
            assert answer[:10] in (b"HTTP/1.0 4", b"HTTP/1.1 4") or answer == b"", answer
        with urllib.request.urlopen(url + "api/jobs", timeout=10) as response:
            assert response.status == 200
        try:
            urllib.request.urlopen(url + "jobs/1/..%2fqueue.sqlite", timeout=10)
            pytest.fail("a file outside the job's folder was served")
        except urllib.error.HTTPError as e:
            assert e.code == 404
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_a_pgns_games_are_read_as_python_chess_reads_them_and_a_torn_last_one_is_left_out(lab_with_a_match,
                                                                                           tmp_path):
    import chess.pgn
    from genchess.lab.kinds import _pgn_games
    text = (lab_with_a_match / "lab" / "jobs" / "1" / "games.pgn").read_text()
    torn = tmp_path / "games.pgn"
    torn.write_text(text + text[:text.index("1. ") + 40])       # a game cut mid-write
    expected = []
    with open(torn) as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            pair, game = (int(x) for x in headers["Round"].split("."))
            expected.append((pair, game, headers["White"], headers["Black"], headers["Result"]))
    # python-chess reads the torn game's tags too; the page counts only finished games.
    assert len(expected) == 5
    assert _pgn_games(torn) == expected[:4]
