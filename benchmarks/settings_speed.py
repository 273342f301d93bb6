"""A setting as a user feels it: the mouse on a sidebar widget to the new study on screen.

Starts the app on a free loopback port and opens the KMP page in headless Chromium
(Debian's ``chromium``, through Playwright) at 1280 x 900, at 350 points of ``sinc`` and at
3,000 points of ``xor``.  For each kernel width in ``--gammas`` it opens the sidebar's
"gamma" select with the mouse, clicks the option, and measures from that click to the frame
after every panel shows the new study (the player's ``mpl-settled`` event naming a study it
had not shown).  Widths not shown before are computed on the server; the last round picks
the first width again, whose study the server keeps ("a width already seen").  During each
change it also records the browser's long tasks (``PerformanceObserver``, over 50 ms) and
whether the player was made anew or kept.

    python -m benchmarks.settings_speed [--gammas 0.3 1 3] [--repeat 1] [--load 0]

``--load N`` runs N more browser pages stepping the KMP page through the run (a class's load;
the stepping costs the server nothing, their page opens do).  The machine has 2 cores and is
shared: read medians, say what else ran, and quote the figures on the performance page.
"""

import argparse
import statistics
import threading

from benchmarks.browser_speed import launch_chromium, start_server

CASES = [("sinc, 350 points", "data=sinc&points=350"), ("xor, 3,000 points", "data=xor&points=3000")]
LABEL = "gamma (inverse squared width)"

LISTEN = """
window.__long = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]); })
  .observe({ type: "longtask", buffered: false });
document.addEventListener("pointerdown", (e) => {
  if (e.target.closest && e.target.closest("[role=option]")) window.__clicked = e.timeStamp;
}, true);
document.addEventListener("mpl-mounted", (e) => {
  window.__mounts = (window.__mounts || 0) + 1;
  window.__mountedAt = performance.now();
});
"""

SETTLED = """(before) => window.__mplSettled && window.__clicked !== undefined
  && window.__mplSettled.id !== before && window.__mplSettled.at > window.__clicked"""


def pick(page, value):
    """Open the gamma select with the mouse and click ``value``: the change's time, the time
    until the player had the new study (the rerun and the payload's fetch), the longest
    browser task during it (ms), and whether a new player was made."""
    before = page.evaluate("window.__mplSettled.id")
    mounts = page.evaluate("window.__mounts || 0")
    page.evaluate("window.__clicked = undefined; window.__long = []")
    select = page.get_by_role("combobox", name=LABEL)
    select.scroll_into_view_if_needed()
    box = select.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    option = page.get_by_role("option", name=value, exact=True)
    option.wait_for(state="visible", timeout=10_000)
    option.scroll_into_view_if_needed()
    spot = option.bounding_box()
    page.mouse.click(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2)
    page.wait_for_function(SETTLED, arg=before, timeout=120_000)
    took = page.evaluate("window.__mplSettled.at - window.__clicked")
    mounted = page.evaluate("window.__mountedAt - window.__clicked")
    longest = page.evaluate("Math.max(0, ...window.__long.map(([, d]) => d))")
    anew = page.evaluate("window.__mounts || 0") > mounts
    return took, mounted, longest, anew


def step_forever(browser, url, stop):
    """A student stepping the KMP page back and forth until ``stop`` is set."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{url}/kmp")
        page.wait_for_function("window.__mplSettled", timeout=180_000)
        key = "ArrowRight"
        while not stop.is_set():
            for _ in range(10):
                page.keyboard.press(key)
                page.wait_for_timeout(150)
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
    finally:
        page.close()


def run(browser, url, query, gammas, repeat):
    """The rows of one case: ``(kind, took ms, to the player's mount ms, longest task ms, made anew)``."""
    rows = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.add_init_script(LISTEN)
        page.goto(f"{url}/kmp?{query}")
        page.wait_for_function("window.__mplSettled", timeout=180_000)
        page.wait_for_timeout(500)
        for _ in range(repeat):
            for value in gammas:
                rows.append(("new", *pick(page, value)))
            rows.append(("seen", *pick(page, gammas[0])))
            gammas = gammas[1:] + gammas[:1]
    finally:
        page.close()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gammas", nargs="*", default=["0.3", "1", "3", "0.1", "10"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--load", type=int, default=0, help="browser pages stepping beside the run")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server, url = start_server()
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            stop = threading.Event()
            # Playwright's sync API is per thread: each stepping page gets its own browser
            helpers = [threading.Thread(target=_student, args=(url, stop), daemon=True) for _ in range(args.load)]
            for helper in helpers:
                helper.start()
            print(f"the mouse on the gamma select -> the new study on screen, KMP page, 1280x900, load {args.load}")
            print(
                f"{'case':<20}{'kind':<6}{'n':>3}{'median s':>10}{'max s':>8}{'to mount s':>12}{'longest task ms':>17}"
                f"{'new player':>12}"
            )
            for name, query in CASES:
                rows = run(browser, url, query, list(args.gammas), args.repeat)
                for kind in ("new", "seen"):
                    mine = [row for row in rows if row[0] == kind]
                    took = [row[1] / 1000 for row in mine]
                    mounted = statistics.median(row[2] / 1000 for row in mine)
                    longest = max(row[3] for row in mine)
                    anew = sum(row[4] for row in mine)
                    print(
                        f"{name:<20}{kind:<6}{len(mine):>3}{statistics.median(took):>10.2f}{max(took):>8.2f}"
                        f"{mounted:>12.2f}{longest:>17.0f}{anew:>7} of {len(mine)}"
                    )
            stop.set()
            for helper in helpers:
                helper.join(timeout=30)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


def _student(url, stop):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            step_forever(browser, url, stop)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
