"""Stepping as a user feels it: key press to the last change on screen, in a real browser.

Starts the app on a free loopback port, opens each page that steps in the browser at
its defaults in headless Chromium (Debian's ``chromium``, through Playwright), and for
``--steps`` right-arrow presses measures the time from the key event to the frame after
every panel of the new step has been drawn (the player's ``mpl-rendered`` event, fired
after ``requestAnimationFrame`` following the last ``Plotly.react``).  It also reports
the payload per study (what the browser downloads once) and the server's CPU time per
step (from ``/proc``: it should be ~0, stepping never asks the server).

    python -m benchmarks.browser_speed [--steps 20] [--pages sparse-kpca kmp] [--present]

Targets (issue 12): median <= 100 ms per step; server CPU per step ~ 0; payload <= 5 MB.
The machine is shared and has 2 cores: read medians, and run it when nothing else runs.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from benchmarks.player_hooks import Watched
from deploy.serve import app_command, free_port, healthy

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["sparse-kpca", "kmp", "sparse-kcca", "mpkfda", "deflation-lab"]
LISTEN = """
window.__lat = [];
document.addEventListener('keydown', (e) => { window.__down = e.timeStamp; }, true);
document.addEventListener('mpl-rendered', (e) => {
  if (window.__down !== undefined) { window.__lat.push(e.detail.at - window.__down); window.__down = undefined; }
});
"""


def cpu_seconds(pid):
    """User + system CPU seconds of a process and its children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def start_server(env=None):
    """The app on a free loopback port; ``env``: extra environment variables for it."""
    port = free_port()
    process = subprocess.Popen(
        app_command(port),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        if healthy(url):
            return process, url
        time.sleep(0.5)
    process.kill()
    raise SystemExit("The app did not start.")


FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
]
# Chromium opens a window per browser context and draws that window's omnibox popups as
# WebUI pages, each in a renderer of its own, though a headless window never shows them.
UNSEEN = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]


_DISABLED = {}  # executable -> the switch, asked once per process


def _playwrights_disabled_features(playwright, executable):
    """The ``--disable-features=`` switch Playwright passes (a second one would replace
    it, not add to it), read from a browser started once to ask."""
    if executable not in _DISABLED:
        probe = playwright.chromium.launch(executable_path=executable, args=[*FLAGS, "--enable-automation"])
        try:
            line = probe.new_browser_cdp_session().send("Browser.getBrowserCommandLine")["arguments"]
        finally:
            probe.close()
        _DISABLED[executable] = next((switch for switch in line if switch.startswith("--disable-features=")), None)
    return _DISABLED[executable]


def launch_chromium(playwright, executable=None):
    """Debian's chromium (``executable``, else ``CHROMIUM``), headless, with the flags this
    closed network needs and no renderers for browser windows' own pages; its pages keep
    what the player announces on ``window`` (:mod:`benchmarks.player_hooks`)."""
    executable = executable or os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    theirs = _playwrights_disabled_features(playwright, executable)
    features = [*(theirs.split("=", 1)[1].split(",") if theirs else []), *UNSEEN]
    merged = "--disable-features=" + ",".join(features)
    return Watched(
        playwright.chromium.launch(
            executable_path=executable, args=[*FLAGS, merged], ignore_default_args=[theirs] if theirs else None
        )
    )


def measure(browser, url, path, steps, present, size):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    try:
        page.goto(f"{url}/{path}" + ("?present=1" if present else ""))
        page.wait_for_function("window.__mplRendered && window.__mplPlayer", timeout=120_000)
        page.wait_for_timeout(500)
        page.evaluate(LISTEN)
        n = page.evaluate("window.__mplPlayer.n")
        payload = page.evaluate("window.__mplPlayer.payloadBytes")
        before = cpu_seconds(SERVER.pid)
        for number in range(min(steps, n)):
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"window.__lat.length >= {number + 1}", timeout=10_000)
        used = cpu_seconds(SERVER.pid) - before
        latencies = page.evaluate("window.__lat")
        return latencies, payload, used / max(len(latencies), 1)
    finally:
        page.close()


def main():
    global SERVER
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--present", action="store_true", help="presenter mode at 1280 x 720")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    SERVER, url = start_server()
    size = (1280, 720) if args.present else (1600, 1400)
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            print(
                f"key press -> last panel drawn, {args.steps} steps per page, {size[0]}x{size[1]}"
                + (", presenter mode" if args.present else "")
            )
            print(
                f"{'page':<15}{'median ms':>10}{'p90 ms':>8}{'max ms':>8}{'vs 100 ms':>10}{'payload MB':>12}"
                f"{'server CPU ms/step':>20}"
            )
            for path in args.pages:
                latencies, payload, cpu = measure(browser, url, path, args.steps, args.present, size)
                latencies.sort()
                median = statistics.median(latencies)
                p90 = latencies[int(0.9 * (len(latencies) - 1))]
                print(
                    f"{path:<15}{median:>10.0f}{p90:>8.0f}{latencies[-1]:>8.0f}{median / 100:>9.0%}"
                    f"{payload / 1e6:>12.2f}{1000 * cpu:>20.1f}"
                )
            browser.close()
    finally:
        SERVER.terminate()
        SERVER.wait(timeout=20)


SERVER = None

if __name__ == "__main__":
    main()
