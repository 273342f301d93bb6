"""What the browser tests share: the app served on a free loopback port, Debian's
chromium driven by Playwright, and helpers that wait for conditions (never for a fixed
time) and measure what a person sees.

The app is started once per run and shared by every browser test of every test worker
(``server`` in ``conftest.py``), Chromium once per module (``browser``); each test opens its
own context.
Needs the ``chromium`` package and the ``playwright`` Python package.  Under CI (``CI``
set, as ``.ci/run`` does) a missing browser is a failure; elsewhere the tests are skipped
with a message.  Set ``SCREENSHOT_DIR`` to take the screenshots, to look at them.
"""

import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmarks import browser_speed
from deploy.serve import app_command, free_port, healthy

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    "",
    "lessons",
    "sparse-kpca",
    "kmp",
    "sparse-kcca",
    "mpkfda",
    "deflation-lab",
    "column-selection",
    "bounds",
    "paper-figures",
    "references",
]
PLAYER_PAGES = ["sparse-kpca", "kmp", "sparse-kcca", "mpkfda", "deflation-lab", "column-selection", "bounds"]


def missing(reason):
    if os.environ.get("CI"):
        pytest.fail(f"Browser test cannot run under CI: {reason}")
    pytest.skip(f"Browser test skipped: {reason} (install Debian's chromium and `pip install playwright`).")


def chromium():
    """Debian's ``chromium`` (``CHROMIUM`` to use another).  Not its headless shell, quicker
    as it is: it lays text out otherwise (a table 3 px taller than in the browser people use)."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def start_app(env=None):
    """The app on a free loopback port, as ``make run`` starts it: ``(url, process)``.
    Its messages go to a temporary file, never to a pipe nobody reads (a full pipe would
    stop the app midway through the tests)."""
    port = free_port()
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (the app holds it while it runs)
    process = subprocess.Popen(
        app_command(port),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=errors,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if healthy(url):
            return url, process
        if process.poll() is not None:
            break
        time.sleep(0.5)
    process.kill()
    errors.seek(0)
    pytest.fail(f"The app did not start: {errors.read().decode(errors='replace')[-2000:]}")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, one per test module (its event loop holds the
    thread while it runs, so it ends with the module: the next module's tests may run their
    own loop); skipped, or a failure under CI, when missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is not installed")
    with sync_playwright() as playwright:
        launched = launch_chromium(playwright)
        yield launched
        launched.close()


def launch_chromium(playwright):
    executable = chromium()
    if executable is None:
        missing("no chromium executable found")
    return browser_speed.launch_chromium(playwright, executable)


IDLE_FRAMES = """() => new Promise((resolve) => {
  let still = 0;
  const tick = () => {
    const idle = document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']");
    const drawn = document.querySelector("[data-testid='stMain'] [data-testid='stElementContainer']");
    still = idle && drawn ? still + 1 : 0;
    if (still >= 12) resolve(true); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})"""


def wait_until_idle(page, timeout=90_000):
    """Until the app's script has stopped running and stayed stopped for a dozen frames
    (a rerun that a first run's URL update starts comes within that), with something of
    the page drawn: Streamlit's state before its first run is also "notRunning", so on a
    slow host a fresh page could otherwise pass for idle before its script has started."""
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=timeout)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    page.wait_for_function(IDLE_FRAMES, timeout=timeout)


class Shots:
    """The screenshots a test takes for a person to look at, into ``folder``; none without
    one (each is a full paint of the page, that no one would see)."""

    def __init__(self, folder=None):
        self.folder = folder

    def take(self, page, name):
        if self.folder is not None:
            page.screenshot(path=str(self.folder / name))


@pytest.fixture
def shots():
    """Screenshots into ``SCREENSHOT_DIR`` when it is set, to look at them; else none."""
    folder = os.environ.get("SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return Shots(Path(folder) if folder else None)


# How often the waits for the player look again: on a timer, not on every animation frame
# (Playwright's default), which keeps the renderer producing frames for as long as a test
# waits and takes CPU from the app and the other worker.  A frame at 60 Hz is as long.
POLL_MS = 16


def rendered(page, step=None, timeout=30_000):
    """Wait until the step player has drawn (step ``step``, if given) in every panel in view
    (those out of view are drawn as they come into view: :func:`every_panel_drawn`); its state."""
    condition = "window.__mplRendered && window.__mplSettled && window.__mplSettled.step === window.__mplRendered.step"
    if step is not None:
        condition += f" && window.__mplRendered.step === {step}"
    page.wait_for_function(condition, timeout=timeout, polling=POLL_MS)
    return page.evaluate("window.__mplRendered")


def every_panel_drawn(page, timeout=30_000):
    """Every panel of the player drawn at the step on screen, as a reader scrolling down the
    page sees them (a panel out of view is drawn as it comes into view): each one still to
    be drawn scrolled to in turn until it is, then the page scrolled back where it was."""
    top = page.evaluate("window.__mplPlayer.scroller.scrollTop")
    behind = page.evaluate(
        "window.__mplPlayer.cells.map((c, i) => (c.height > 0 && c.behind ? i : -1)).filter((i) => i >= 0)"
    )
    for index in behind:
        page.evaluate("(i) => window.__mplPlayer.cells[i].cell.scrollIntoView({block: 'nearest'})", index)
        page.wait_for_function(
            "(i) => !window.__mplPlayer.cells[i].behind", arg=index, timeout=timeout, polling=POLL_MS
        )
    page.evaluate("(top) => { window.__mplPlayer.scroller.scrollTop = top; }", top)


def label(page):
    return page.locator(".mpl-label").first.inner_text()


def settled(page, step=None, timeout=30_000):
    """The app idle and the player drawn (at ``step``, if given)."""
    wait_until_idle(page)
    return rendered(page, step, timeout)


def redrawn(page, action, step=None, timeout=30_000):
    """Do ``action()`` and wait until every panel of the player has been drawn after it
    (at ``step``, if given)."""
    before = page.evaluate("window.__mplSettled ? window.__mplSettled.at : -1")
    action()
    condition = f"window.__mplSettled && window.__mplSettled.at > {before}"
    if step is not None:
        condition += f" && window.__mplSettled.step === {step}"
    page.wait_for_function(condition, timeout=timeout, polling=POLL_MS)


def open_app(browser, url, size=(1280, 720), scheme="light", reduced_motion="no-preference"):
    """A fresh browser context (nothing remembered from another test) on ``url``."""
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, color_scheme=scheme, reduced_motion=reduced_motion
    )
    page = context.new_page()
    page.goto(url)
    wait_until_idle(page)
    return page


def close(page):
    page.context.close()


@contextmanager
def app_page(browser, url, size=(1280, 720), scheme="light", reduced_motion="no-preference"):
    """:func:`open_app` as a context: the browser context is closed however the test ends."""
    page = open_app(browser, url, size, scheme, reduced_motion)
    try:
        yield page
    finally:
        close(page)


CENTRE = """(el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"""
HIT = (
    """([x, y]) => { const hit = document.elementFromPoint(x, y); return hit ? hit.outerHTML.slice(0, 120) : null; }"""
)


def click_like_a_person(page, locator):
    """A mouse click at the control's visible centre, after checking that the control
    (not a bar drawn over it) is what is there."""
    locator.scroll_into_view_if_needed()
    x, y = locator.evaluate(CENTRE)
    inside = locator.evaluate(
        f"(el) => {{ const hit = document.elementFromPoint({x}, {y}); "
        "return Boolean(hit) && (el === hit || el.contains(hit) || hit.contains(el) && "
        "hit.getBoundingClientRect().width <= el.getBoundingClientRect().width + 40); }"
    )
    assert inside, f"a click at ({x:.0f}, {y:.0f}) lands on {page.evaluate(HIT, [x, y])}, not on the control"
    page.mouse.click(x, y)


# Every piece of text the player shows, as boxes on screen: the HTML text of the toolbar,
# story, titles and keys (one box per line), and every SVG text element of the charts.
TEXT_BOXES = """() => {
  const root = document.querySelector('.mpl-player');
  const out = [];
  const shown = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return false;
    }
    return true;
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || parent.closest('svg, select, .mpl-help, .mpl-blank, .mpl-sr') || !shown(parent)) continue;
    if (parent.closest('details:not([open])') && !parent.closest('summary')) continue;  // folded: not on screen
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width > 0.5 && r.height > 0.5) out.push({ text: node.textContent.trim().slice(0, 50), x: r.left, y: r.top, w: r.width,
        h: r.height, size: parseFloat(getComputedStyle(parent).fontSize), cell: parent.closest('.mpl-cell') ? parent.closest('.mpl-cell').dataset.panel : null,
        svg: Boolean(parent.closest('.mpl-marks')) });  // labels drawn over a chart count as the chart's text
    }
  }
  for (const t of root.querySelectorAll('svg text')) {
    if (!t.textContent.trim() || !shown(t)) continue;
    const r = t.getBoundingClientRect();
    if (r.width < 0.5) continue;
    out.push({ text: t.textContent.trim().slice(0, 50), x: r.left, y: r.top, w: r.width, h: r.height,
      size: parseFloat(getComputedStyle(t).fontSize), cell: t.closest('.mpl-cell').dataset.panel, svg: true });
  }
  return out;
}"""

PANEL_BOXES = """() => [...document.querySelectorAll('.mpl-cell')].filter((c) => getComputedStyle(c).display !== 'none')
  .map((c) => { const r = c.getBoundingClientRect(), p = c.querySelector('.mpl-plot').getBoundingClientRect();
    return { key: c.dataset.panel, x: r.left, y: r.top, w: r.width, h: r.height, plot: { x: p.left, y: p.top, w: p.width, h: p.height } }; })"""


def overlap(a, b, shrink=1.5):
    """The area two boxes share once each is shrunk by ``shrink`` px on every side (text
    boxes include their line's spacing, so touching lines are not an overlap)."""
    width = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) - 2 * shrink
    height = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) - 2 * shrink
    return max(width, 0) * max(height, 0)


def save_this_demo(page, path):
    """The Save menu's "This demo (.html)", clicked as a person does; the file saved at
    ``path``; returns the download."""
    click_like_a_person(page, page.get_by_role("button", name="Save"))
    settled(page)  # pressing Save tells the server the step on screen: a rerun, let it pass
    # (and every rerun: an item clicked while a rerun makes it anew asks for a file the rerun
    # then drops, and the browser cancels the download; seen once in a full run on 2 cores)
    wait_until_idle(page)
    item = page.get_by_role("button", name="This demo (.html)")
    item.wait_for()
    with page.expect_download(timeout=60_000) as download:
        click_like_a_person(page, item)
    download.value.save_as(path)
    return download.value


def _renderers():
    """This test process's Chromium renderers (its descendants started with --type=renderer)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    mine, grown = {os.getpid()}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                grown = True
    out = []
    for pid in mine:
        try:
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(pid)
        except OSError:
            continue
    return out


@contextmanager
def answers_within(seconds):
    """Fail when what runs inside does not return within ``seconds``: a renderer caught in a
    loop of microtasks answers no call, and Playwright's own timeouts wait on it for ever,
    so a watchdog ends the renderers, which makes the waiting call raise."""
    import signal
    import threading

    fired = threading.Event()

    def stop():
        fired.set()
        for pid in _renderers():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    timer = threading.Timer(seconds, stop)
    timer.start()
    try:
        yield
    except Exception as error:
        if fired.is_set():
            pytest.fail(f"The page did not answer within {seconds} s: its renderer was busy ({error})")
        raise
    finally:
        timer.cancel()
    if fired.is_set():
        pytest.fail(f"The page did not answer within {seconds} s")
