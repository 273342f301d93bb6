"""A lesson link opened in a browser: from the click to its first panels drawn.

Starts the app as ``make run`` does (or, with ``--processes N``, as ``make serve`` does:
N processes behind HAProxy), opens the lesson's study once so it is cached, then opens
the link ``--repeats`` times, each in a fresh Chromium context (nothing cached in the
browser, as a student's first visit), and measures from navigation start to the step
player's first drawn step (its ``mpl-rendered`` event).  Also the bytes the browser
received (HTTP responses as transferred, and the websocket's messages).

    python -m benchmarks.browser_open [--repeats 5] [--processes 2] [--floor] [--link "kmp?data=xor&points=3000&k=40"]
                                      [--network 20,20]

``--network MBIT,MS``: each browser's HTTP as over a link of MBIT megabits per second down
(a tenth of that up) with MS milliseconds of latency (Chromium's own network emulation),
say a student's share of a lecture hall's Wi-Fi; on loopback, bytes cost almost nothing.

Target (issue 22): first panels within 2 s when the study is cached.  Shared 2-core
machines are noisy: read the median, and say what else was running.  ``--floor`` also
opens an empty Streamlit page (a title and a line, Streamlit's own server and config) the
same way and times its title: what any Streamlit page costs in this browser on this
machine before it draws anything of its own.
"""

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.browser_speed import launch_chromium
from benchmarks.serving import served
from benchmarks.visit import open_page, stream_url
from deploy.serve import free_port, healthy

LINK = "kmp?data=xor&points=3000&k=40"  # the KMP page's first preset
FIRST_DRAWN = """
document.addEventListener('mpl-rendered', () => {
  if (window.__mplFirstDrawn === undefined) window.__mplFirstDrawn = performance.now();
});
"""
HTTP_BYTES = """() => performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .reduce((sum, entry) => sum + (entry.transferSize || 0), 0)"""


def emulate_network(context, page, network):
    """Chromium's network emulation on ``page``: ``network`` is (megabits per second down,
    milliseconds of latency), or None for none."""
    if network is None:
        return
    megabits, latency = network
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    down = megabits * 1e6 / 8
    session.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency, "downloadThroughput": down, "uploadThroughput": down / 10},
    )


def open_once(browser, url, network=None):
    """Milliseconds to the first drawn step, and bytes received (HTTP, websocket)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(FIRST_DRAWN)
    page = context.new_page()
    emulate_network(context, page, network)
    websocket_bytes = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: websocket_bytes.append(len(frame))))
    try:
        page.goto(url)
        page.wait_for_function("window.__mplFirstDrawn !== undefined", timeout=120_000)
        return page.evaluate("window.__mplFirstDrawn"), page.evaluate(HTTP_BYTES), sum(websocket_bytes)
    finally:
        context.close()


TITLE_SHOWN = """
new MutationObserver(() => {
  if (window.__mplTitle === undefined && document.querySelector('h1')) window.__mplTitle = performance.now();
}).observe(document, { subtree: true, childList: true });
"""
EMPTY_PAGE = 'import streamlit as st\n\nst.title("An empty page")\nst.write("One line.")\n'


def empty_page_ms(browser, repeats, network=None):
    """Milliseconds from navigation to the title of an empty Streamlit page, per fresh context."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "empty.py"
        script.write_text(EMPTY_PAGE)
        port = free_port()
        command = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true"]
        command += ["--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        server = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while not healthy(url) and time.monotonic() < deadline:
                time.sleep(0.3)
            times = []
            for _ in range(repeats):
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                context.add_init_script(TITLE_SHOWN)
                page = context.new_page()
                emulate_network(context, page, network)
                try:
                    page.goto(url)
                    page.wait_for_function("window.__mplTitle !== undefined", timeout=60_000)
                    times.append(page.evaluate("window.__mplTitle"))
                finally:
                    context.close()
            return times
        finally:
            server.terminate()
            server.wait(timeout=30)


def network_setting(text):
    """``"20,20"`` -> (20.0, 20.0): megabits per second, milliseconds of latency."""
    try:
        megabits, latency = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("give megabits per second and milliseconds, as 20,20") from None
    if megabits <= 0 or latency < 0:
        raise argparse.ArgumentTypeError("the speed must be above 0 and the latency 0 or more")
    return megabits, latency


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--processes", type=int, help="N app processes behind HAProxy (default: one, no proxy)")
    parser.add_argument("--link", default=LINK, help="the page and query to open")
    parser.add_argument("--floor", action="store_true", help="also time an empty Streamlit page's title")
    parser.add_argument("--network", type=network_setting, help="MBIT,MS: a link this fast and this slow")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    page_name, _, query = args.link.partition("?")
    with served(args.processes) as app:
        for backend in app.backends:  # the study cached in every process
            asyncio.run(open_page(stream_url(backend), page_name, query))
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            runs = [open_once(browser, f"{app.url}/{args.link}", args.network) for _ in range(args.repeats)]
            floor = empty_page_ms(browser, args.repeats, args.network) if args.floor else None
            browser.close()
    times = sorted(ms for ms, _, _ in runs)
    where = f"{args.processes} processes behind HAProxy" if args.processes else "one process (make run)"
    if args.network:
        where += f", over {args.network[0]:g} Mbit/s with {args.network[1]:g} ms of latency"
    print(f"/{args.link}, {where}, {args.repeats} fresh browser contexts:")
    print(
        f"  first panels drawn: median {statistics.median(times):.0f} ms (min {times[0]:.0f}, max {times[-1]:.0f}); "
        f"target 2000 ms"
    )
    if floor:
        print(
            f"  an empty Streamlit page's title: median {statistics.median(floor):.0f} ms "
            f"(min {min(floor):.0f}, max {max(floor):.0f}); the lesson's first panels took "
            f"{statistics.median(times) / statistics.median(floor):.2f}x that"
        )
    print(
        f"  received per open: HTTP {statistics.median(h for _, h, _ in runs) / 1e6:.2f} MB, "
        f"websocket {statistics.median(w for _, _, w in runs) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
