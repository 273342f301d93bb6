"""A setting as a user feels it: the mouse on a sidebar widget to the new study on screen.

Starts the app on a free loopback port and opens the KMP page in headless Chromium
(Debian's ``chromium``, through Playwright) at 1280 x 900, at 350 points of ``sinc`` and at
3,000 points of ``xor``, and changes its settings with the mouse as a user does: each kernel
width of ``--gammas`` picked from the sidebar's select, then each again in the same order (a
width whose picture the page has shown: "seen"); the k slider dragged to a quarter, further, and back
(timed from the release: Streamlit's slider sends its value then); "Standardise features"
switched off and on again; the text size pressed in the title row, 125%, 150% and back to
100% (the same study laid out anew); then k swept by the mouse for three seconds, twice (new
values, then the same ones), counting the pictures the player showed before the release.  Each
change is timed from the click (or the release) to the frame after every panel in view
shows the new study (the player's ``mpl-settled`` event naming a study it had not shown; the
panels out of view are drawn as they come into view); it also reports when the player had
the new study (the rerun and the payload's fetch), the browser's longest task
(``PerformanceObserver``, over 50 ms), whether a new player object was made (one is, for every
new study, drawing into the charts of the one before) and how many charts were made anew.

    python -m benchmarks.settings_speed [--gammas 0.3 1 3] [--repeat 1] [--load 0]

``--load N``: N more sessions on the KMP page over Streamlit's websocket, each opening it
again every ``--every`` seconds (a class whose students move about; stepping itself costs
the server nothing).  The machine has 2 cores and is shared: read medians, say what else
ran, and quote the figures on the performance page.
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
// the change starts at the click on an option (a select, a toggle) or at the release of a
// slider's thumb: the first such event once armed
for (const type of ["pointerdown", "pointerup"]) {
  document.addEventListener(type, (e) => {
    if (window.__arm === type) { window.__clicked = e.timeStamp; window.__arm = null; }
  }, true);
}
window.__shownAt = {};  // a study's id -> when its first step was on screen (the panels in view)
document.addEventListener("mpl-rendered", (e) => {
  if (!(e.detail.id in window.__shownAt)) window.__shownAt[e.detail.id] = e.detail.at;
});
document.addEventListener("mpl-rendered", (e) => {  // (the same study at another text size)
  if (window.__clicked !== undefined && window.__renderedSince === undefined && e.detail.at > window.__clicked) {
    window.__renderedSince = e.detail.at;
  }
});
document.addEventListener("mpl-mounted", (e) => {
  window.__mounts = (window.__mounts || 0) + 1;
  window.__mountedAt = performance.now();
});
"""

IDLE = """() => !document.querySelector("[data-test-script-state='running']")"""
SWITCHED = """([label, was]) => [...document.querySelectorAll("label")].some((l) => l.textContent.includes(label)
  && l.querySelector("input") && l.querySelector("input").checked !== was)"""
SETTLED = """(before) => window.__mplSettled && window.__clicked !== undefined
  && window.__mplSettled.id !== before && window.__mplSettled.at > window.__clicked"""
# (the same study at another text size: every panel drawn at it since the press)
SIZED = """(scale) => window.__mplPlayer.scale === scale && window.__mplSettled && window.__clicked !== undefined
  && window.__mplSettled.at > window.__clicked"""


def _arm(page, event):
    page.evaluate(
        f"window.__clicked = undefined; window.__renderedSince = undefined; window.__long = []; "
        f"window.__shownAt = {{}}; window.__arm = '{event}'"
    )


def _measured(page, before, mounts, settled=SETTLED, in_view="window.__shownAt[window.__mplSettled.id]"):
    """The change's time until every panel shows the new study (``settled(before)``), until
    the panels in view do (``in_view``), until the player had it (the rerun or the view
    route, and the payload's fetch), the longest browser task during it (ms), whether a
    new player object was made (it is for every new study: it draws into the charts of the
    one before), and how many charts on screen were made anew."""
    page.wait_for_function(settled, arg=before, timeout=120_000)
    took = page.evaluate("window.__mplSettled.at - window.__clicked")
    on_screen = page.evaluate(f"{in_view} - window.__clicked")
    mounted = page.evaluate("window.__mountedAt - window.__clicked")
    longest = page.evaluate("Math.max(0, ...window.__long.map(([, d]) => d))")
    anew = page.evaluate("window.__mounts || 0") > mounts
    return took, on_screen, mounted, longest, anew, page.evaluate(NEW_PLOTS)


def _again(action, before_again=None, attempts=3):
    """``action()`` (a click, then a wait for it to take) until it passes, at most
    ``attempts`` times: a click that did not take (a rerun began, or what was clicked moved)
    is made again, as a person does, ``before_again()`` first."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        if attempt and before_again is not None:
            before_again()
        try:
            return action()
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise


# (every panel's element marked before a change: a Plotly chart drawn after it without the
# mark was made anew, where the new study should have been drawn into the chart on screen; a
# table panel is plain HTML, made anew with its rows)
MARK_PLOTS = "document.querySelectorAll('.mpl-plot').forEach((plot) => { plot.__mplBefore = true; })"
NEW_PLOTS = """[...document.querySelectorAll('.mpl-plot.js-plotly-plot')]
  .filter((plot) => plot.offsetParent && !plot.__mplBefore).length"""


def _before(page):
    page.evaluate(MARK_PLOTS)
    return page.evaluate("window.__mplSettled.id"), page.evaluate("window.__mounts || 0")


def pick(page, value):
    """Open the gamma select with the mouse and click ``value`` (:func:`_measured`)."""
    before, mounts = _before(page)
    page.wait_for_function(IDLE, timeout=120_000)  # no rerun under way: it would close the list
    select = page.get_by_role("combobox", name=LABEL)
    option = page.get_by_role("option", name=value, exact=True)

    def open_list():
        select.scroll_into_view_if_needed()
        box = select.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        option.wait_for(state="visible", timeout=5_000)

    def close_list():  # (a rerun began: the list closed, or never opened)
        page.keyboard.press("Escape")
        page.wait_for_function(IDLE, timeout=120_000)

    _again(open_list, close_list)
    option.scroll_into_view_if_needed()
    spot = option.bounding_box()
    _arm(page, "pointerdown")
    page.mouse.click(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2)
    return _measured(page, before, mounts)


def grip(page, label):
    """Take Streamlit's slider ``label`` by its thumb with the mouse (its track scrolled into
    view; the mouse pressed at the thumb's centre, which must be the slider there, no bar
    over it): ``(x, y, to_x)``, the thumb's place on screen and a function giving the screen
    x of a fraction of the track."""
    track = page.locator(f'[role=group][aria-label="{label}"]')
    track.scroll_into_view_if_needed()
    thumb = page.locator(f'input[aria-label="{label}"]').locator("xpath=../..").bounding_box()
    line = track.bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    hit = "([x, y]) => Boolean(document.elementFromPoint(x, y).closest('[data-testid=stSlider]'))"
    assert page.evaluate(hit, [x, y]), f"the thumb of {label!r} at ({x:.0f}, {y:.0f}) is covered"
    page.mouse.move(x, y)
    page.mouse.down()
    return x, y, lambda fraction: line["x"] + fraction * line["width"]


RESTING = """(label) => new Promise((done) => {
  const input = document.querySelector(`input[aria-label="${label}"]`);
  let last = input.value, same = 0;
  const look = () => {
    if (input.value === last) same += 1; else { last = input.value; same = 0; }
    if (same >= 3) done(last); else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def resting_value(page, label):
    """The value Streamlit's slider ``label`` rests on after the mouse moved it: unchanged over
    three frames (the slider writes a move's value in a task of its own, after the move)."""
    return page.evaluate(RESTING, label)


def drag(page, label, fraction):
    """Drag the slider ``label``'s thumb with the mouse to ``fraction`` of its track; timed
    from the release (Streamlit's slider sends its value then)."""
    before, mounts = _before(page)
    page.wait_for_function(IDLE, timeout=120_000)
    _, y, to_x = grip(page, label)
    page.mouse.move(to_x(fraction), y, steps=8)
    _arm(page, "pointerup")
    page.mouse.up()
    return _measured(page, before, mounts)


def sweep(page, label, start, end, seconds=3.0):
    """Drag the slider ``label``'s thumb with the mouse from ``start`` to ``end`` (fractions
    of its track) over ``seconds``, as a hand does (a move every frame it can get), and hold
    it there: ``(pictures a second while it moved, distinct values it passed, longest task ms)``,
    a picture being a new study on screen (the player's ``mpl-rendered`` naming a study it
    had not shown) before the release."""
    import time

    _, y, to_x = grip(page, label)
    page.mouse.move(to_x(start), y, steps=4)
    page.evaluate(
        "window.__long = []; window.__drawnIds = new Set([window.__mplPlayer.id]); window.__values = new Set();"
        "document.addEventListener('mpl-rendered', (e) => window.__drawnIds.add(e.detail.id));"
    )
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        page.mouse.move(to_x(start + (end - start) * elapsed / seconds), y)
        page.evaluate(f"window.__values.add(document.querySelector('input[aria-label=\"{label}\"]').value)")
    took = time.perf_counter() - began
    pictures = page.evaluate("window.__drawnIds.size - 1")
    values = page.evaluate("window.__values.size")
    longest = page.evaluate("Math.max(0, ...window.__long.map(([, d]) => d))")
    page.mouse.up()
    page.wait_for_function(IDLE, timeout=120_000)
    page.wait_for_function("window.__mplSettled && window.__mplSettled.id === window.__mplPlayer.id", timeout=120_000)
    return pictures / took, values, longest


def toggle(page, label, folded_in):
    """Click the toggle ``label`` with the mouse (opening the sidebar's section ``folded_in``
    first, when it is closed)."""
    switch = page.locator("label", has_text=label)
    if not switch.count():
        section = page.locator("summary", has_text=folded_in)
        section.scroll_into_view_if_needed()
        section.click()
        switch.wait_for(state="visible", timeout=30_000)
        page.wait_for_function(IDLE, timeout=60_000)  # the section's own rerun done
    before, mounts = _before(page)
    page.wait_for_function(IDLE, timeout=120_000)
    checked = switch.locator("input").is_checked()

    def switch_it():  # (a click the section's opening moved away from the switch is made again)
        switch.scroll_into_view_if_needed()
        box = switch.bounding_box()
        _arm(page, "pointerdown")
        page.mouse.click(box["x"] + 20, box["y"] + box["height"] / 2)
        page.wait_for_function(SWITCHED, arg=[label, checked], timeout=3_000)

    _again(switch_it)
    return _measured(page, before, mounts)


def text_size(page, percent):
    """Press the text size ``percent`` in the title row with the mouse: the same study laid
    out anew, timed as :func:`_measured` times a new one."""
    page.evaluate(MARK_PLOTS)
    mounts = page.evaluate("window.__mounts || 0")
    button = page.get_by_role("radio", name=f"{percent}%")
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    _arm(page, "pointerdown")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    measured = _measured(page, percent / 100, mounts, settled=SIZED, in_view="window.__renderedSince")
    page.wait_for_function(IDLE, timeout=120_000)  # the page's own rerun done
    return measured


def class_load(url, sessions, every, stop):
    """``sessions`` students on the KMP page, each opening it again every ``every`` seconds
    (staggered), until ``stop`` is set: a thread's own event loop."""
    import asyncio
    import random

    from benchmarks.visit import open_page, stream_url

    async def student(number):
        await asyncio.sleep(every * number / max(sessions, 1))
        while not stop.is_set():
            await open_page(stream_url(url), "kmp", f"step={random.randint(0, 20)}", timeout=120)
            await asyncio.sleep(every)

    async def everyone():
        await asyncio.gather(*(student(number) for number in range(sessions)))

    asyncio.run(everyone())


def run(browser, url, query, gammas, repeat):
    """The rows of one case: ``(kind, ms until settled, in view, mounted, longest task ms, new player,
    charts made anew)``:
    each width of ``gammas`` (new unless the page showed it), then each again (seen), the k slider dragged to a quarter
    and back (new, then seen), standardising switched off and on (new, then seen), the text
    size pressed three times."""
    rows, drags = [], []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.add_init_script(LISTEN)
        page.goto(f"{url}/kmp?{query}")
        page.wait_for_function("window.__mplSettled", timeout=180_000)
        page.wait_for_function(IDLE, timeout=120_000)
        page.wait_for_timeout(500)
        shown = {page.get_by_role("combobox", name=LABEL).input_value()}  # the widths the page has shown
        for round_number in range(repeat):
            for value in gammas + gammas:  # each twice, in the same order: every pick a change
                rows.append(("width, seen" if value in shown else "width, new", *pick(page, value)))
                shown.add(value)
            gammas = gammas[1:] + gammas[:1]
            if round_number == 0:
                rows.append(("k slider, new", *drag(page, "Basis vectors k", 0.25)))
                rows.append(("k slider, new", *drag(page, "Basis vectors k", 0.15)))
                rows.append(("k slider, seen", *drag(page, "Basis vectors k", 0.25)))
                rows.append(("toggle, new", *toggle(page, "Standardise features", "More data settings")))
                rows.append(("toggle, seen", *toggle(page, "Standardise features", "More data settings")))
                for percent in (125, 150, 100):
                    rows.append(("text size", *text_size(page, percent)))
        for when in ("new", "seen"):  # k swept from a fifth of its track to a twentieth, twice
            drags.append((f"drag k, {when}", *sweep(page, "Basis vectors k", 0.2, 0.05)))
    finally:
        page.close()
    return rows, drags


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gammas", nargs="*", default=["0.3", "1", "3", "0.1", "10"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--load", type=int, default=0, help="sessions on the KMP page beside the run")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between a loading session's opens")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server, url = start_server()
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            stop = threading.Event()
            load = threading.Thread(target=class_load, args=(url, args.load, args.every, stop), daemon=True)
            if args.load:
                load.start()
            print(
                f"the mouse on a sidebar widget -> the new study on screen, KMP page, 1280x900, "
                f"{args.load} more sessions opening it every {args.every:g} s"
            )
            print(
                f"{'case':<20}{'change':<16}{'n':>3}{'median s':>10}{'max s':>8}{'in view s':>11}{'to mount s':>12}"
                f"{'longest task ms':>17}{'new player':>12}{'new charts':>12}"
            )
            sweeps = []
            for name, query in CASES:
                rows, drags = run(browser, url, query, list(args.gammas), args.repeat)
                sweeps += [(name, *drag) for drag in drags]
                for kind in dict.fromkeys(row[0] for row in rows):
                    mine = [row for row in rows if row[0] == kind]
                    took = [row[1] / 1000 for row in mine]
                    seen = statistics.median(row[2] / 1000 for row in mine)
                    mounted = statistics.median(row[3] / 1000 for row in mine)
                    longest = max(row[4] for row in mine)
                    anew = sum(row[5] for row in mine)
                    charts = sum(row[6] for row in mine)
                    print(
                        f"{name:<20}{kind:<16}{len(mine):>3}{statistics.median(took):>10.2f}{max(took):>8.2f}"
                        f"{seen:>11.2f}{mounted:>12.2f}{longest:>17.0f}{anew:>7} of {len(mine)}{charts:>12}"
                    )
            print(f"\n{'case':<20}{'while dragging':<16}{'pictures/s':>11}{'values':>8}{'longest task ms':>17}")
            for name, kind, rate, values, longest in sweeps:
                print(f"{name:<20}{kind:<16}{rate:>11.1f}{values:>8}{longest:>17.0f}")
            stop.set()
            if args.load:
                load.join(timeout=150)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
