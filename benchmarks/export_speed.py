"""Demos that travel, measured: every preset exported alone as one HTML file (as
``python -m views.export`` does), then opened from ``file://`` in headless Chromium with
every other request refused.

For each file: its size on disk; the time from navigation to the first drawn step (the
player's ``mpl-rendered`` event; median of ``--opens`` fresh browser contexts, each a
cold start: Plotly.js inflated and started, the payload inflated and decoded, every
panel on screen drawn); and the step latency, PageDown to the last change on screen, in
presenter mode at 1280 x 720 as a lecturer would step it.

    python -m benchmarks.export_speed [--opens 5] [--steps 15] [--pages kmp sparse-kpca]

Budgets (issue 24): a single demo <= 6 MB; first drawn step <= 1.5 s; a step <= 100 ms.
The machine is shared and has 2 cores: read medians, and run it when nothing else runs.
"""

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks.browser_speed import launch_chromium
from views import export, site
from views.presets import PRESETS

LISTEN = """
window.__lat = [];
document.addEventListener('keydown', (e) => { window.__down = e.timeStamp; }, true);
document.addEventListener('mpl-rendered', (e) => {
  if (window.__down !== undefined) { window.__lat.push(e.detail.at - window.__down); window.__down = undefined; }
});
"""


def offline_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    refused = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith("file://")
            else (refused.append(route.request.url), route.abort())
        ),
    )
    return context, context.new_page(), refused


def first_draw(browser, url):
    context, page, refused = offline_page(browser)
    try:
        page.goto(url)
        page.wait_for_function("window.__mplRendered", timeout=60_000)
        assert not refused, refused
        return page.evaluate("window.__mplRendered.at")  # ms since navigation started
    finally:
        context.close()


def step_latencies(browser, url, steps):
    context, page, refused = offline_page(browser)
    try:
        page.goto(url)
        page.wait_for_function("window.__mplRendered && window.__mplPlayer", timeout=60_000)
        page.wait_for_timeout(500)  # let the first draw's hidden panels finish
        page.evaluate(LISTEN)
        n = min(steps, page.evaluate("window.__mplPlayer.n"))
        for number in range(n):
            page.keyboard.press("PageDown")
            page.wait_for_function(f"window.__lat.length >= {number + 1}", timeout=10_000)
        assert not refused, refused
        return page.evaluate("window.__lat")
    finally:
        context.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opens", type=int, default=5)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--pages", nargs="*", default=list(PRESETS), help="pages whose presets to export")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="mpl-export-"))
    files = []
    for key in args.pages:
        page = site.by_path(key)
        for number, query in enumerate(export.preset_queries(page.key)):
            scene, _ = export.run_page(page, query)
            path = folder / f"{page.key}-{number + 1}.html"
            path.write_text(export.standalone([scene]), encoding="utf-8")
            files.append((f"{page.key} #{number + 1}", path))
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        print(
            f"each preset exported alone, opened from file:// offline, 1280x720 presenter mode; "
            f"first draw: median of {args.opens} cold opens; step: PageDown, {args.steps} steps"
        )
        print(
            f"{'preset':<12}{'MB':>6}{'vs 6 MB':>9}{'first draw ms':>15}{'vs 1.5 s':>10}{'step median':>13}"
            f"{'p90':>6}{'vs 100 ms':>11}"
        )
        for name, path in files:
            url = path.as_uri()
            size = path.stat().st_size / 1e6
            opens = statistics.median(first_draw(browser, url) for _ in range(args.opens))
            latencies = sorted(step_latencies(browser, url, args.steps))
            median = statistics.median(latencies)
            p90 = latencies[int(0.9 * (len(latencies) - 1))]
            print(
                f"{name:<12}{size:>6.2f}{size / 6:>9.0%}{opens:>15.0f}{opens / 1500:>10.0%}{median:>13.0f}"
                f"{p90:>6.0f}{median / 100:>11.0%}"
            )
        browser.close()


if __name__ == "__main__":
    main()
