"""One server for a whole class: 1, 5 and 10 browser sessions on one app, on loopback.

Starts the app on a free 127.0.0.1 port and, for each class size N, opens N sessions
(separate browser contexts, so separate Streamlit sessions) at once, spread over the
pages that step in the browser, each at its lesson preset.  When all have drawn, every
session steps ``--steps`` times (round robin: key press, then the next session), plays
at 4x for two seconds and pauses.  It prints, per N: how long the N pages took to open
(the server computes N studies at once), key press -> last panel drawn (median, p90),
errors (exception boxes, page errors, timeouts), and the server's resident memory
(sampled every 0.5 s) at the start, after warm-up and at the end of all rounds; the
largest class runs twice, so the last row shows whether memory stays flat once the
server-wide caches (bounded) are full.

    python -m benchmarks.load_test [--sizes 1 5 10] [--steps 10] [--blas-threads 1] [--points 1500]

Each session opens its page with its own data seed, so none reuses another's cached
study.  ``--blas-threads`` sets the BLAS thread count of the server (to compare a
classroom server's settings); ``--points`` makes every page's study larger.

Targets (issue 13): 10 sessions, 0 errors, memory flat after warm-up, median latency
at 10 sessions <= 2x that at 1.  Every loop is bounded in count and time, and all
traffic stays on this machine.  Shared 2-core machines are noisy: read the ratios.
"""

import argparse
import statistics
import threading
import time

from benchmarks.browser_speed import LISTEN, PAGES, launch_chromium, start_server


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class MemorySampler(threading.Thread):
    def __init__(self, pid, every=0.5):
        super().__init__(daemon=True)
        self.pid, self.every, self.samples, self.running = pid, every, [], True

    def run(self):
        started = time.perf_counter()
        while self.running:
            try:
                self.samples.append((time.perf_counter() - started, rss_mb(self.pid)))
            except OSError:
                return
            time.sleep(self.every)


def one_round(browser, url, n, steps, deadline=120, query=""):
    contexts, pages, errors = [], [], []
    started = time.perf_counter()
    for number in range(n):
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.on("pageerror", lambda error, number=number: errors.append(f"session {number}: {error}"))
        # each session its own data seed: no two share a cached study, so the server computes all n
        page.goto(f"{url}/{PAGES[number % len(PAGES)]}?seed={number + 1}{query}", wait_until="commit")
        contexts.append(context)
        pages.append(page)
    for number, page in enumerate(pages):
        try:
            page.wait_for_function("window.__mplRendered && window.__mplPlayer", timeout=deadline * 1000)
            page.evaluate(LISTEN)
        except Exception as error:  # noqa: BLE001 - counted and reported, the round goes on
            errors.append(f"session {number}: did not draw ({type(error).__name__})")
    opened = time.perf_counter() - started
    ready = [page for page in pages if page.evaluate("!!window.__lat")]
    for step in range(steps):
        for number, page in enumerate(ready):
            if page.evaluate("window.__mplPlayer.j >= window.__mplPlayer.n"):
                page.keyboard.press("Home")
                page.wait_for_function("window.__mplPlayer.j === 0", timeout=10_000)
                page.evaluate("window.__lat = []")
            before = page.evaluate("window.__lat.length")
            page.keyboard.press("ArrowRight")
            try:
                page.wait_for_function(f"window.__lat.length > {before}", timeout=10_000)
            except Exception:  # noqa: BLE001
                errors.append(f"session {number}: step {step + 1} did not reach the screen")
    latencies = [value for page in ready for value in page.evaluate("window.__lat")]
    for page in ready:  # play at 4x for two seconds, then pause
        page.locator(".mpl-select").first.select_option("4")
        page.keyboard.press(" ")
    time.sleep(2)
    for page in ready:
        if page.evaluate("window.__mplPlayer.playing"):  # one that reached its last step has stopped by itself
            page.keyboard.press(" ")
        state = page.evaluate(
            "[window.__mplPlayer.playing, window.__mplPlayer.j, window.__mplPlayer.n, document.activeElement.tagName]"
        )
        if state[0]:
            errors.append(
                f"{page.url.split('/')[-1].split('?')[0]} did not pause (step {state[1]} of {state[2]}, "
                f"focus on {state[3]})"
            )
    errors += [f"exception box on {page.url}" for page in pages if page.locator("[data-testid='stException']").count()]
    for context in contexts:
        context.close()
    return opened, latencies, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[1, 5, 10])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="threads per BLAS pool in the server (OPENBLAS/OMP/MKL_NUM_THREADS); default: the app's",
    )
    parser.add_argument("--points", type=int, default=None, help="open every page with this many points")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    env = (
        None
        if args.blas_threads is None
        else {name: str(args.blas_threads) for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    )
    query = "" if args.points is None else f"&points={args.points}"
    server, url = start_server(env)
    sampler = MemorySampler(server.pid)
    sampler.start()
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            one_round(browser, url, 1, 2, query=query)  # warm-up: imports, plotly.js copied, caches filled
            warm = rss_mb(server.pid)
            for n in args.sizes + args.sizes[-1:]:  # the largest class twice: is memory flat once warm?
                opened, latencies, errors = one_round(browser, url, n, args.steps, query=query)
                latencies.sort()
                median = statistics.median(latencies) if latencies else float("nan")
                p90 = latencies[int(0.9 * (len(latencies) - 1))] if latencies else float("nan")
                rows.append((n, opened, median, p90, len(latencies), errors, rss_mb(server.pid)))
            browser.close()
    finally:
        sampler.running = False
        server.terminate()
        server.wait(timeout=20)
    base = rows[0][2] if rows else float("nan")
    print(
        f"{'sessions':>8}{'open s':>8}{'median ms':>11}{'p90 ms':>8}{'vs 1':>7}{'steps':>7}{'errors':>8}{'RSS MB':>8}"
    )
    for n, opened, median, p90, count, errors, rss in rows:
        print(
            f"{n:>8}{opened:>8.1f}{median:>11.0f}{p90:>8.0f}{median / base:>6.1f}x{count:>7}{len(errors):>8}{rss:>8.0f}"
        )
        for error in errors[:5]:
            print(f"         {error}")
    samples = [mb for _, mb in sampler.samples]
    if samples:
        print(
            f"server memory: start {samples[0]:.0f} MB, after warm-up {warm:.0f} MB, peak {max(samples):.0f} MB, "
            f"end {samples[-1]:.0f} MB ({len(samples)} samples over {sampler.samples[-1][0]:.0f} s)"
        )


if __name__ == "__main__":
    main()
