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
PLAYER_PAGES = ["sparse-kpca", "kmp", "sparse-kcca", "mpkfda", "deflation-lab"]  # step in the browser


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


@pytest.fixture
def shots(tmp_path):
    """Where screenshots go: ``SCREENSHOT_DIR`` if set (to look at them), else a temporary folder."""
    folder = Path(os.environ.get("SCREENSHOT_DIR", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _rendered(page, step=None, timeout=30_000):
    """Wait until the step player has drawn (step ``step``, if given); its state."""
    condition = "window.__mplRendered" + ("" if step is None else f" && window.__mplRendered.step === {step}")
    page.wait_for_function(condition, timeout=timeout)
    return page.evaluate("window.__mplRendered")


def _label(page):
    return page.locator(".mpl-label").first.inner_text()


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_and_steps(server, browser, path, shots):
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    try:
        page.goto(f"{server}/{path}")
        _wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
        name = path or "home"
        if path in PLAYER_PAGES:
            _rendered(page, 0)
            assert page.locator(".mpl-plot .main-svg").count() >= 4, "every panel is drawn"
            page.locator(".mpl-btn", has_text="Next").first.click()
            _rendered(page, 1)
            assert _label(page).startswith("Step 1 of") and "step=1" in page.url
            assert page.locator(".mpl-story").first.inner_text().startswith("Step 1.")
        elif path not in WITHOUT_STEPPER:
            page.wait_for_selector("[data-testid='stPlotlyChart']", timeout=60_000)
            page.get_by_text("Step 0 of").wait_for(timeout=30_000)
            page.locator("button", has_text="Next").first.click()
            page.get_by_text("Step 1 of").wait_for(timeout=30_000)
            _wait_until_idle(page)
            assert "step=1" in page.url
        else:
            page.wait_for_selector("[data-testid='stPlotlyChart']", timeout=60_000)
        assert page.locator("[data-testid='stException']").count() == 0
        page.wait_for_timeout(1000)  # let Plotly finish drawing before the screenshot
        page.screenshot(path=str(shots / f"{name}.png"))
    finally:
        page.close()


def test_paper_figures_card_reproduces_in_the_browser(server, browser, shots):
    page = browser.new_page(viewport={"width": 1600, "height": 2400})
    try:
        page.goto(f"{server}/paper-figures?paper=seed+003")
        _wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
        page.get_by_role("button", name="Reproduce (quick: up to 20 s)").last.click()
        page.wait_for_selector("[data-testid='stPlotlyChart']", timeout=60_000)
        _wait_until_idle(page)
        assert page.locator("[data-testid='stException']").count() == 0
        page.wait_for_timeout(1000)
        page.screenshot(path=str(shots / "paper-figures.png"))
    finally:
        page.close()


def test_keys_step_without_asking_the_server(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    try:
        page.goto(f"{server}/kmp")
        _wait_until_idle(page)
        _rendered(page, 0)
        page.evaluate("window.__mplReruns = 0; new MutationObserver(() => {"
                      " if (document.querySelector(\"[data-test-script-state='running']\")) window.__mplReruns++; })"
                      ".observe(document.body, {subtree: true, attributes: true})")
        for key, step in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("ArrowRight", 2)):
            page.keyboard.press(key)
            _rendered(page, step)
        assert "step=2" in page.url and _label(page).startswith("Step 2 of")
        page.keyboard.press("Home")
        _rendered(page, 0)
        assert "step=" not in page.url
        assert page.evaluate("window.__mplReruns") == 0, "stepping must not rerun the script"
    finally:
        page.close()


def test_play_pause_is_exact_and_speed_counts(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    try:
        page.goto(f"{server}/sparse-kpca")
        _wait_until_idle(page)
        _rendered(page, 0)
        page.locator(".mpl-select").first.select_option("4")
        started = page.evaluate("performance.now()")
        page.locator(".mpl-btn", has_text="Play").first.click()
        _rendered(page, 4, timeout=10_000)
        elapsed = page.evaluate("performance.now()") - started
        assert elapsed < 2_500, f"4x should take about 1 s for 4 steps, took {elapsed:.0f} ms"
        page.keyboard.press(" ")  # pause
        shown = _label(page)
        step = page.evaluate("window.__mplPlayer.j")
        assert shown.startswith(f"Step {step} of") and "playing" not in shown
        page.wait_for_timeout(1_500)
        assert page.evaluate("window.__mplPlayer.j") == step and _label(page) == shown, "pause overshot"
        assert f"step={step}" in page.url
        last = page.evaluate("window.__mplPlayer.n")
        page.evaluate(f"window.__mplPlayer.go({last}, 'test')")
        _rendered(page, last)
        page.locator(".mpl-btn", has_text="Play").first.click()  # from the last step: starts again
        page.wait_for_function("window.__mplPlayer.j <= 2", timeout=5_000)
        page.keyboard.press(" ")
        assert page.evaluate("window.__mplPlayer.playing") is False
    finally:
        page.close()


def test_url_step_round_trip(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    try:
        page.goto(f"{server}/mpkfda?step=5")
        _wait_until_idle(page)
        _rendered(page, 5)
        page.keyboard.press("ArrowRight")
        _rendered(page, 6)
        assert "step=6" in page.url
        page.reload()
        _wait_until_idle(page)
        assert _rendered(page, 6)["step"] == 6 and _label(page).startswith("Step 6 of")
        page.goto(f"{server}/mpkfda?k=12&k=14&step=2")  # a repeated key: one value wins, the copy goes
        _wait_until_idle(page)
        _rendered(page, 2)
        page.wait_for_function("new URL(location.href).searchParams.getAll('k').length === 1", timeout=10_000)
    finally:
        page.close()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("path", PLAYER_PAGES)
def test_presenter_mode_fits_the_screen(server, browser, path, size, shots):
    width, height = size
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(f"{server}/{path}?present=1&step=3")
        _wait_until_idle(page)
        _rendered(page, 3)
        page.wait_for_timeout(500)
        boxes = page.evaluate("""[...document.querySelectorAll('.mpl-cell')]
            .filter((cell) => cell.dataset.extra === '0')
            .map((cell) => { const r = cell.getBoundingClientRect();
                             const t = cell.querySelector('.mpl-title');
                             return {key: cell.dataset.panel, top: r.top, bottom: r.bottom, left: r.left,
                                     right: r.right, clipped: t.scrollWidth > t.clientWidth + 1}; })""")
        assert len(boxes) >= 4
        for box in boxes:
            assert box["top"] >= 0 and box["left"] >= 0, box
            assert box["bottom"] <= height and box["right"] <= width, f"{box['key']} leaves the screen: {box}"
            assert not box["clipped"], f"{box['key']}'s title is cut"
        bar = page.locator(".mpl-bar").first.bounding_box()
        assert bar["y"] >= 0 and bar["y"] + bar["height"] <= height
        assert page.evaluate("document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed')") \
            == "true", "presenter mode folds the sidebar away"
        page.screenshot(path=str(shots / f"present-{path}-{width}.png"))
    finally:
        page.close()


POINT_ON_SCREEN = """([key, i]) => {
  const cell = window.__mplPlayer.cells.find((c) => c.panel.key === key);
  const full = cell.plot._fullLayout, box = cell.plot.getBoundingClientRect();
  const [x, y] = window.__mplPlayer.coords[i];
  return [box.left + full.xaxis._offset + full.xaxis.c2p(x), box.top + full.yaxis._offset + full.yaxis.c2p(y)];
}"""


def test_predict_the_next_pick_keeps_score(server, browser, shots):
    """A student clicks with the mouse where they see the point: the click takes the
    training point under it (the winner, when several overlap), or the nearest one, and
    says which it took."""
    page = browser.new_page(viewport={"width": 1600, "height": 1400})
    try:
        page.goto(f"{server}/mpkfda")
        _wait_until_idle(page)
        _rendered(page, 0)
        page.get_by_text("Predict the next pick").click()
        _rendered(page, 0)
        assert "Click the training point" in page.locator(".mpl-quiz").inner_text()
        assert "Next: point" not in page.locator(".mpl-story").inner_text()  # the answer stays hidden
        hidden = page.evaluate("window.__mplPlayer.cells.find(c => c.panel.key === 'criterion').plot.data"
                               ".every(t => t.visible === false)")
        assert hidden, "the criterion is hidden until the student guesses"
        winner = page.evaluate("window.__mplPlayer.payload.picks[0]")
        x, y = page.evaluate(POINT_ON_SCREEN, ["data", winner])
        assert page.evaluate(f"document.elementFromPoint({x}, {y}).closest('.mpl-plot').dataset.panel") == "data"
        page.mouse.click(x, y)
        page.wait_for_function("document.querySelector('.mpl-quiz').innerText.includes('Right!')")
        assert "Score: 1 of 1" in page.locator(".mpl-quiz").inner_text()
        page.keyboard.press("ArrowRight")
        _rendered(page, 1)
        winner = page.evaluate("window.__mplPlayer.payload.picks[1]")
        far = page.evaluate("""(w) => { const c = window.__mplPlayer.coords, [a, b] = c[w];
            let best = -1, d = -1; c.forEach(([x, y], i) => { const e = Math.hypot(x - a, y - b); if (e > d) { d = e; best = i; } });
            return best; }""", winner)
        x, y = page.evaluate(POINT_ON_SCREEN, ["data", far])
        page.mouse.click(x, y)
        page.wait_for_function("document.querySelector('.mpl-quiz').innerText.includes('Not quite')")
        text = page.locator(".mpl-quiz").inner_text()
        assert "Score: 1 of 2" in text and "rank" in text and f"You took point {far}" in text
        page.keyboard.press("ArrowRight")
        _rendered(page, 2)
        box = page.evaluate("(() => { const c = window.__mplPlayer.cells.find((c) => c.panel.key === 'data');"
                            " const f = c.plot._fullLayout, b = c.plot.getBoundingClientRect();"
                            " return [b.left + f._size.l + 3, b.top + f._size.t + 3]; })()")
        page.mouse.click(*box)  # the plot's corner: no point there, the nearest training point is taken
        page.wait_for_function("document.querySelector('.mpl-quiz').innerText.includes('nearest your click')")
        taken = int(page.locator(".mpl-quiz").inner_text().split("You took point ")[1].split(" ")[0])
        assert 0 <= taken < len(page.evaluate("window.__mplPlayer.coords"))
        page.screenshot(path=str(shots / "predict.png"))
    finally:
        page.close()


def test_presenter_toggle_folds_the_sidebar_and_keeps_the_step(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    try:
        page.goto(f"{server}/sparse-kpca?step=4")
        _wait_until_idle(page)
        _rendered(page, 4)
        sidebar = "document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed')"
        assert page.evaluate(sidebar) == "false"
        page.get_by_text("Presenter mode").click()
        page.wait_for_function("window.__mplPlayer && window.__mplPlayer.payload.present === true", timeout=30_000)
        page.wait_for_function(f"{sidebar} === 'true'", timeout=10_000)
        assert page.evaluate("window.__mplPlayer.j") == 4 and "present=true" in page.url
    finally:
        page.close()
