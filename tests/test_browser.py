"""A real browser: Debian's chromium driven by Playwright loads every page, finds no
exception box, steps once and checks the step reached the screen and the URL.

Needs the ``chromium`` package and the ``playwright`` Python package.  Under CI
(``CI`` set, as ``.ci/run`` does) a missing browser is a failure; elsewhere the test is
skipped with a message.  Set ``SCREENSHOT_DIR`` to keep the screenshots.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["", "sparse-kpca", "kmp", "sparse-kcca", "mpkfda", "deflation-lab", "column-selection", "bounds"]
WITHOUT_STEPPER = {"", "bounds"}


def _missing(reason):
    if os.environ.get("CI"):
        pytest.fail(f"Browser test cannot run under CI: {reason}")
    pytest.skip(f"Browser test skipped: {reason} (install Debian's chromium and `pip install playwright`).")


def _chromium():
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail(f"The app did not start: {process.stderr.read().decode()[-2000:]}")
    yield url
    process.terminate()
    process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    if executable is None:
        _missing("no chromium executable found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        yield launched
        launched.close()


def _wait_until_idle(page, timeout=90_000):
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=timeout)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    page.wait_for_timeout(500)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_and_steps(server, browser, path, tmp_path):
    shots = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    try:
        page.goto(f"{server}/{path}")
        _wait_until_idle(page)
        page.wait_for_selector("[data-testid='stPlotlyChart']", timeout=60_000)
        assert page.locator("[data-testid='stException']").count() == 0
        name = path or "home"
        if path not in WITHOUT_STEPPER:
            page.get_by_text("Step 0 of").wait_for(timeout=30_000)
            page.locator("button", has_text="Next").first.click()
            page.get_by_text("Step 1 of").wait_for(timeout=30_000)
            _wait_until_idle(page)
            assert page.locator("[data-testid='stException']").count() == 0
            assert "step=1" in page.url
        page.wait_for_timeout(1000)  # let Plotly finish drawing before the screenshot
        page.screenshot(path=str(shots / f"{name}.png"))
    finally:
        page.close()


def test_paper_figures_card_reproduces_in_the_browser(server, browser, tmp_path):
    shots = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    try:
        page.goto(f"{server}/paper-figures?paper=seed+003")
        _wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
        page.get_by_role("button", name="Reproduce (a few seconds)").last.click()
        page.wait_for_selector("[data-testid='stPlotlyChart']", timeout=60_000)
        _wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
        page.wait_for_timeout(1000)
        page.screenshot(path=str(shots / "paper-figures.png"))
    finally:
        page.close()


def test_play_pause_and_keyboard(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    try:
        page.goto(f"{server}/sparse-kpca")
        _wait_until_idle(page)
        page.get_by_text("Step 0 of").wait_for(timeout=30_000)
        page.locator("button", has_text="Play").first.click()
        page.get_by_text("Step 2 of").wait_for(timeout=30_000)  # it advanced by itself
        page.locator("button", has_text="Pause").first.click()
        _wait_until_idle(page)
        paused = page.locator("text=/Step \\d+ of/").first.inner_text()
        page.wait_for_timeout(2500)
        assert page.locator("text=/Step \\d+ of/").first.inner_text() == paused
        step = int(paused.split()[1])
        page.keyboard.press("ArrowRight")
        page.get_by_text(f"Step {step + 1} of").wait_for(timeout=30_000)
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        page.close()
