"""The lab's page in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by selenium) loads the page of a lab whose worker is running
an SPRT, sees the SPRT's chart grow as games come in, and keeps a screenshot as a
test artifact (test-artifacts/lab-page.png). Skips, saying why, where Chromium or its
driver is missing (`.ci/run` installs both). Loopback only."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from train_helpers import REPO_ROOT, genchess_command

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is missing: pip install \".[test]\"")
pytest.importorskip("flask", reason="the lab's page needs its extras: pip install \".[lab]\"")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver") or next(
    (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Chromium and its driver: apt-get install chromium chromium-driver (.ci/run does)")

ARTIFACTS = REPO_ROOT / "test-artifacts"


def start(cwd: Path, *args: str) -> subprocess.Popen:
    argv, env = genchess_command("lab", *args)
    return subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def points(driver, canvas_id: str) -> int:
    found = driver.find_elements("id", canvas_id)
    return int(found[0].get_attribute("data-points") or 0) if found else 0


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"{what} did not happen within {timeout} s")


def test_the_page_shows_a_running_sprt_and_its_chart_grows(tmp_path):
    add = subprocess.run(genchess_command("lab", "add", "match", "genchess", "genchess", "--tc", "nodes=2000",
                                          "--games", "400", "--concurrency", "1",
                                          "--sprt", "elo0=0", "elo1=10")[0],
                         cwd=tmp_path, env=genchess_command()[1], capture_output=True, text=True)
    assert add.returncode == 0, add.stderr
    worker = start(tmp_path, "run")
    server = start(tmp_path, "serve", "--port", "0")
    driver = None
    try:
        url = server.stdout.readline().split(" is at ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1400,1000"):
            options.add_argument(argument)
        driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
        driver.get(url + "#job-1")
        assert "GenChess lab" in driver.title
        first = wait_until(lambda: points(driver, "llrChart"), 180, "the SPRT's first pair on the chart")
        # Still running, the chart grows in place as the page reads the PGN again.
        wait_until(lambda: points(driver, "llrChart") > first, 180, "the chart's next point")
        assert "running" in driver.find_element("css selector", "#detail .state").text
        assert driver.find_element("id", "llr").text.startswith("LLR")
        assert "games.pgn" in driver.find_element("id", "detail").text
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "lab-page.png"))
        assert (ARTIFACTS / "lab-page.png").stat().st_size > 10000
    finally:
        if driver is not None:
            driver.quit()
        stop(worker)
        stop(server)
