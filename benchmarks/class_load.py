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
  per burst): its study and payload are computed once, the others wait for them.

Per scenario and N it prints the time each session waited (p50 / p95 / max), errors,
the bytes each open received (as sent; the websocket may compress them on the wire),
and the server's CPU seconds and peak resident memory over the burst.

    python -m benchmarks.class_load [--sizes 10 50 100] [--scenarios same distinct] [--url URL]

Without ``--url`` it starts the app as ``make run`` does (its own config) on a free
loopback port.  Shared 2-core machines are noisy: read medians and ratios, and say what
else was running.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import threading
import time
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.browser_speed import start_server

LESSON = ("kmp", "data=xor&points=3000&k=40")  # the KMP page's first preset
TIMEOUT = 600.0


async def open_page(ws_url, page, query):
    """One session: ``(seconds until the script finished, bytes received, error or None)``."""
    started = time.perf_counter()
    received = 0
    try:
        async with websockets.connect(ws_url, max_size=None, subprotocols=["streamlit"],
                                      open_timeout=TIMEOUT, ping_timeout=None) as ws:
            message = BackMsg()
            message.rerun_script.query_string = query
            message.rerun_script.page_name = page
            await ws.send(message.SerializeToString())
            while True:
                data = await asyncio.wait_for(ws.recv(), TIMEOUT)
                received += len(data)
                forward = ForwardMsg()
                forward.ParseFromString(data)
                kind = forward.WhichOneof("type")
                if kind == "delta" and forward.delta.new_element.WhichOneof("type") == "exception":
                    return time.perf_counter() - started, received, "exception"
                if kind == "script_finished":
                    ok = forward.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
                    return time.perf_counter() - started, received, None if ok else f"finished {forward.script_finished}"
    except Exception as error:  # a refused or dropped connection counts as an error, with its kind
        return time.perf_counter() - started, received, type(error).__name__


async def burst(ws_url, opens):
    return await asyncio.gather(*(open_page(ws_url, page, query) for page, query in opens))


class ServerSampler(threading.Thread):
    """CPU seconds and peak RSS of one process, read from /proc every 0.2 s."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stopping = pid, 0.0, threading.Event()

    def cpu(self):
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, in clock ticks

    def rss(self):
        for line in open(f"/proc/{self.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def run(self):
        while not self.stopping.wait(0.2):
            self.peak = max(self.peak, self.rss())


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def scenario_opens(scenario, n, round_number):
    page, query = LESSON
    if scenario == "same":
        return [(page, query)] * n
    if scenario == "cold":
        return [(page, f"{query}&seed={500 + round_number}")] * n
    return [(page, f"{query}&seed={1000 * round_number + i}") for i in range(n)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--scenarios", nargs="+", default=["same", "distinct"], choices=["same", "distinct", "cold"])
    parser.add_argument("--url", help="an app already running (default: start one)")
    args = parser.parse_args(argv)
    process = None
    if args.url:
        url = args.url.rstrip("/")
    else:
        process, url = start_server()
    parts = urlsplit(url)
    ws_url = f"ws://{parts.netloc}{parts.path}/_stcore/stream"
    pid = process.pid if process else None
    try:
        asyncio.run(burst(ws_url, [LESSON]))  # warm-up: the lesson's study is cached from here on
        print(f"{'scenario':<9} {'N':>4} {'p50 s':>7} {'p95 s':>7} {'max s':>7} {'errors':>6} {'MB/open':>8} "
              f"{'CPU s':>6} {'CPU s/open':>10} {'peak RSS MB':>11}")
        for round_number, (scenario, n) in enumerate((s, n) for s in args.scenarios for n in args.sizes):
            sampler = ServerSampler(pid) if pid else None
            cpu_before = sampler.cpu() if sampler else float("nan")
            if sampler:
                sampler.start()
            results = asyncio.run(burst(ws_url, scenario_opens(scenario, n, round_number + 1)))
            cpu = (sampler.cpu() - cpu_before) if sampler else float("nan")
            if sampler:
                sampler.stopping.set()
            waits = [seconds for seconds, _, _ in results]
            errors = sum(error is not None for _, _, error in results)
            megabytes = statistics.mean(received for _, received, _ in results) / 1e6
            print(f"{scenario:<9} {n:>4} {percentile(waits, 0.5):>7.2f} {percentile(waits, 0.95):>7.2f} "
                  f"{max(waits):>7.2f} {errors:>6} {megabytes:>8.2f} {cpu:>6.1f} {cpu / n:>10.3f} "
                  f"{sampler.peak if sampler else float('nan'):>11.0f}")
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
