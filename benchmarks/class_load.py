"""A lecture hall on one server, without a browser: N sessions speaking Streamlit's own
websocket protocol open a page at once, and each waits for its script to finish.

Each session is what a browser tab is to the server: a websocket to ``/_stcore/stream``
and a ``rerun_script`` message with the page and its query string; the page is open when
the server says the script finished.  Scenarios:

- ``same``: every student opens the same lesson (the first KMP preset), after one
  warm-up open, so its study is cached: what the server spends per open;
- ``distinct``: every student a different setting (the KMP lesson with its own data
  seed): N studies computed at once;
- ``cold``: every student opens the same lesson nobody has opened yet (a new data seed
  per burst): its study and payload are computed once, the others wait for them;
- ``reruns``: a class in the middle of a lesson: every student, on the cached lesson,
  runs the page five more times in the same session (as clicks on its controls do); the
  wait columns are then the reruns' times, not the opens'.

``--first-visit``: every student is also a browser new to the app, which fetches the
page's HTML and every file a fresh Chromium fetched for it (Streamlit's scripts, fonts,
plotly.js, the player's script; recorded once at the start, in Chromium) over six
kept-alive connections, then opens the page; the wait and the bytes include them.  Without
it, a session is a browser that has the files already (a student's second lesson).

Per scenario and N it prints the time each session waited (p50 / p95 / max), errors,
the bytes each open received (as sent; the websocket may compress them on the wire),
the server's CPU seconds and peak resident memory over the burst, and the CPU seconds of
the students themselves (this client, on the same cores as the server).

    python -m benchmarks.class_load [--sizes 10 50 100] [--scenarios same distinct] [--url URL]
    python -m benchmarks.class_load --processes 2 [--kill]   # behind HAProxy (deploy/serve.py)
    python -m benchmarks.class_load --first-visit             # browsers new to the app

Without ``--url`` it starts the app as ``make run`` does (its own config) on a free
loopback port, or with ``--processes N`` as ``make serve`` does: N processes behind HAProxy
(CPU and memory are then summed over the processes).  ``--kill``: one process is killed a
second into each burst; its sessions reconnect through the proxy, as a browser does, and
the table counts them.  Shared 2-core machines are noisy: read medians and ratios, and
say what else was running.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import threading
import time

from benchmarks.serving import served
from benchmarks.visit import Visit, fetch_files, open_page, open_pages, stream_url

LESSON = ("kmp", "data=xor&points=3000&k=40")  # the KMP page's first preset
RERUNS = 5  # runs per student after the open, in the reruns scenario


class ServerSampler(threading.Thread):
    """CPU seconds and peak resident memory of the server processes, read from /proc every
    0.2 s (``pids()`` is asked each time: behind the proxy a killed process is replaced)."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids, self.peak, self.stopping = pids, 0.0, threading.Event()
        self.spent = {}  # pid -> CPU seconds when last read (a killed process keeps its last reading)

    @staticmethod
    def _cpu(pid):
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, in clock ticks

    @staticmethod
    def _rss(pid):
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def read(self):
        total_rss = 0.0
        for pid in self.pids():
            try:
                self.spent[pid] = self._cpu(pid)
                total_rss += self._rss(pid)
            except OSError:  # stopped between listing and reading
                pass
        self.peak = max(self.peak, total_rss)
        return sum(self.spent.values())

    def run(self):
        while not self.stopping.wait(0.2):
            self.read()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def scenario_opens(scenario, n, round_number):
    page, query = LESSON
    if scenario in ("same", "reruns"):
        return [(page, query)] * n
    if scenario == "cold":
        return [(page, f"{query}&seed={500 + round_number}")] * n
    return [(page, f"{query}&seed={1000 * round_number + i}") for i in range(n)]


def kill_one_later(deployment, delay=1.0):
    """Kill (SIGKILL) the first app process ``delay`` seconds from now, as a crash would."""

    def kill():
        time.sleep(delay)
        deployment.backends[0].stop(kill=True)

    threading.Thread(target=kill, daemon=True).start()


def browser_files(url, page, query):
    """The paths a fresh Chromium fetches over HTTP for ``page?query`` of the app at
    ``url`` and gets (same origin, answered 200; not the step player's payload, which the
    page's client fetches itself), in the order they were answered."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser_speed import launch_chromium

    asked = []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page_view = browser.new_context().new_page()
        page_view.on("response", lambda response: response.status == 200 and asked.append(response.url))
        page_view.goto(f"{url}/{page}?{query}")
        page_view.wait_for_function("window.__mplSettled !== undefined", timeout=120_000)
        browser.close()
    paths = []
    for address in asked:
        if address.startswith(url + "/") and "/mpl/payload/" not in address and address != f"{url}/{page}?{query}":
            paths.append(address[len(url) :])
    return paths


async def first_visits(url, opens, files, **options):
    """Each ``(page, query)`` of ``opens`` as a browser new to the app: its HTML and
    ``files``, then the page (:func:`benchmarks.visit.open_page`), all students at once."""

    async def student(page, query):
        started = time.perf_counter()
        received, failed, _ = await fetch_files(url, [f"/{page}?{query}", *files])
        visit = await open_page(stream_url(url), page, query, **options)
        error = visit.error or (f"{len(failed)} files not found" if failed else None)
        seconds = time.perf_counter() - started
        return Visit(seconds, visit.received + received, error, visit.reconnects, rerun_seconds=visit.rerun_seconds)

    return await asyncio.gather(*(student(page, query) for page, query in opens))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument(
        "--scenarios", nargs="+", default=["same", "distinct"], choices=["same", "distinct", "cold", "reruns"]
    )
    parser.add_argument("--url", help="an app already running (default: start one)")
    parser.add_argument("--processes", type=int, help="start this many app processes behind HAProxy")
    parser.add_argument("--kill", action="store_true", help="with --processes: kill one process in each burst")
    parser.add_argument("--first-visit", action="store_true", help="each student also fetches the page's files")
    args = parser.parse_args(argv)
    if args.url:
        run(args, args.url.rstrip("/"), [], lambda: [], None)
        return
    with served(args.processes) as app:
        run(args, app.url, app.backends, app.pids, app.deployment)


def run(args, url, backends, pids, deployment):
    ws_url = stream_url(url)
    for backend in backends or [url]:  # warm-up: the lesson cached in every process
        asyncio.run(open_pages(stream_url(backend), [LESSON]))
    files = browser_files(url, *LESSON) if args.first_visit else None
    if files is not None:
        print(f"A first visit fetches the page and {len(files)} files (recorded in Chromium).")
    print(
        f"{'scenario':<9} {'N':>4} {'p50 s':>7} {'p95 s':>7} {'max s':>7} {'errors':>6} {'reconn':>6} "
        f"{'MB/open':>8} {'CPU s':>6} {'CPU s/open':>10} {'peak RSS MB':>11} {'client CPU s':>12}"
    )
    for round_number, (scenario, n) in enumerate((s, n) for s in args.scenarios for n in args.sizes):
        sampler = ServerSampler(pids)
        cpu_before = sampler.read()
        sampler.peak = 0.0
        sampler.start()
        if args.kill and deployment is not None:
            kill_one_later(deployment)
        opens = scenario_opens(scenario, n, round_number + 1)
        options = {"reconnect": deployment is not None, "reruns": RERUNS if scenario == "reruns" else 0}
        client_before = time.process_time()  # the students' own work, on the same cores
        if files is None:
            visits = asyncio.run(open_pages(ws_url, opens, **options))
        else:
            visits = asyncio.run(first_visits(url, opens, files, **options))
        client = time.process_time() - client_before
        sampler.stopping.set()
        cpu = sampler.read() - cpu_before if pids() else float("nan")
        waits = (
            [t for visit in visits for t in visit.rerun_seconds]
            if scenario == "reruns"
            else [visit.seconds for visit in visits]
        ) or [float("nan")]
        errors = sum(visit.error is not None for visit in visits)
        reconnects = sum(visit.reconnects > 0 for visit in visits)
        megabytes = statistics.mean(visit.received for visit in visits) / 1e6
        print(
            f"{scenario:<9} {n:>4} {percentile(waits, 0.5):>7.2f} {percentile(waits, 0.95):>7.2f} "
            f"{max(waits):>7.2f} {errors:>6} {reconnects:>6} {megabytes:>8.2f} {cpu:>6.1f} {cpu / n:>10.3f} "
            f"{sampler.peak if pids() else float('nan'):>11.0f} {client:>12.1f}"
        )


if __name__ == "__main__":
    main()
