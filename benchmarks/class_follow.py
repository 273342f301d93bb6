"""A live class at lecture-hall size: N students follow the lecturer's steps.

Each student is what a page's stream is to the server: one stream of the class's events
(``GET mpl/class/events``, serving/classes.py), reconnected a second after it drops, as the
page does, in a browser of its own (its own cookies: the seat the class gives it).  The
lecturer steps through the study by posting each step with the class's key (``POST
mpl/class/drive``), as the lecturer's player does on every key press.  For each step it
times, per student, the post's start to the event's arrival, and prints p50 / p95 / max
over every student and step, and the steps a student never received (skipped: a step
posted while the student reconnected, superseded by a later one it did receive -- the
class sends the latest state, never a queue of old ones; lost: a step it never had, nor
any after it), and the lecturer's count of who follows.

    python -m benchmarks.class_follow [--students 300] [--steps 20] [--gap 1.5]
    python -m benchmarks.class_follow --processes 2 [--kill]   # behind HAProxy (make serve)

With ``--processes`` the students and the lecturer reach the processes through the proxy
(least connections first, as new browsers do), so most students follow from another
process than the one the lecturer posts to; the table says how many landed on each.
``--kill`` kills (SIGKILL) one app process halfway through; its students reconnect through
the proxy, and the steps after it show how soon every student had the class again.
Shared 2-core machines are noisy: read medians and ratios, and say what else was running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.class_load import percentile
from benchmarks.serving import served

TLS = ssl.create_default_context()


class Student:
    """One follower: the time each class version reached it."""

    def __init__(self, number):
        self.number = number
        self.seen = {}  # version -> time it arrived
        self.connects = 0
        self.ready = asyncio.Event()

    async def follow(self, url, stopping):
        # its own browser (its own cookies), with the one TLS context that all share: making
        # one per client costs tens of milliseconds, which timed the benchmark, not the class
        async with httpx.AsyncClient(timeout=httpx.Timeout(10, read=None), verify=TLS) as client:
            await self.listen(client, url, stopping)

    async def listen(self, client, url, stopping):
        while not stopping.is_set():
            try:
                async with client.stream("GET", url) as answer:
                    if answer.status_code != 200:
                        raise RuntimeError(f"the class answered {answer.status_code}: {await answer.aread()!r}")
                    self.connects += 1
                    async for line in answer.aiter_lines():
                        if line.startswith("data: ") and line != "data: {}":  # not the "alive" event
                            event = json.loads(line[6:])
                            self.seen.setdefault(event.get("version"), time.perf_counter())
                            self.ready.set()
            except (httpx.HTTPError, asyncio.CancelledError):
                pass
            if not stopping.is_set():
                await asyncio.sleep(1.0)  # the browser's retry (the stream's "retry: 1000")


async def watch_counts(base, code, key, stopping, counts):
    """The lecturer's stream: each count of who follows it is told, with its time."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(10, read=None), headers={"X-Class-Key": key}) as client:
        while not stopping.is_set():
            try:
                async with client.stream("GET", f"{base}/mpl/class/events?class={code}") as answer:
                    async for line in answer.aiter_lines():
                        if line.startswith("data: ") and line != "data: {}":
                            event = json.loads(line[6:])
                            if "followers" in event:
                                counts.append((time.perf_counter(), event["followers"], event.get("away", 0)))
            except (httpx.HTTPError, asyncio.CancelledError):
                pass
            if not stopping.is_set():
                await asyncio.sleep(1.0)


async def lecture(base, code, key, students, steps, gap, kill=None):
    stopping = asyncio.Event()
    crowd = [Student(n) for n in range(students)]
    url = f"{base}/mpl/class/events?class={code}"
    tasks = [asyncio.create_task(s.follow(url, stopping)) for s in crowd]
    counts = []
    tasks.append(asyncio.create_task(watch_counts(base, code, key, stopping, counts)))
    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in crowd)), timeout=120)
    joined = time.perf_counter() - started
    posted, killed = {}, None  # version -> when its post started
    async with httpx.AsyncClient(timeout=10) as lecturer:
        for step in range(1, steps + 1):
            if kill is not None and step == steps // 2 + 1:
                kill()
                killed = time.perf_counter()
            sent = time.perf_counter()
            answer = await lecturer.post(
                f"{base}/mpl/class/drive?class={code}", json={"step": step}, headers={"X-Class-Key": key}
            )
            answer.raise_for_status()
            posted[answer.json()["version"]] = (step, sent)
            await asyncio.sleep(gap)
    await asyncio.sleep(max(gap, 6.0 if kill else 2.0))
    stopping.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return crowd, posted, joined, counts, killed


def report(crowd, posted, joined, steps, kill, counts=(), killed=None):
    """The table: each step's receipt over the students, the steps a student missed while
    it reconnected (a later one reached it: the class sends the latest state, never a queue)
    and those it never had, and the lecturer's count of who follows."""
    waits, skipped, lost, by_step = [], 0, 0, {}
    last_version = max(posted)
    for student in crowd:
        for version, (step, sent) in posted.items():
            arrived = student.seen.get(version)
            if arrived is None:
                if any(later in student.seen for later in posted if later > version):
                    skipped += 1
                else:
                    lost += 1
                continue
            waits.append(arrived - sent)
            by_step.setdefault(step, []).append(arrived - sent)
    ms = [1000 * w for w in waits]
    receipts = len(crowd) * len(posted)
    lines = [
        f"{len(crowd)} students joined in {joined:.1f} s; {steps} steps, each received "
        f"p50 {percentile(ms, 0.5):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms; "
        f"skipped while reconnecting {skipped} of {receipts}; lost {lost} (the last step: "
        f"{sum(last_version not in s.seen for s in crowd)} students without it)",
        f"reconnects: {sum(s.connects for s in crowd) - len(crowd)}",
    ]
    if counts:
        most = max(followers for _, followers, _ in counts)
        line = f"the lecturer's count: at most {most} following (of {len(crowd)})"
        if killed is not None:
            after = [(t - killed, followers, away) for t, followers, away in counts if t >= killed]
            whole = next((t for t, followers, _ in after if followers == len(crowd)), None)
            line += (
                f"; after the kill at most {max((f + a for _, f, a in after), default=0)} following or "
                f"reconnecting, all {len(crowd)} following again after "
                + (f"{whole:.1f} s" if whole is not None else "never")
            )
        lines.append(line)
    if kill:
        lines.append("step  students  p50 ms  p95 ms  max ms   (one process killed before the step marked *)")
        for step in sorted(by_step):
            values = [1000 * w for w in by_step[step]]
            mark = "*" if step == steps // 2 + 1 else " "
            lines.append(
                f"{step:>3}{mark} {len(values):>8} {statistics.median(values):>7.0f} "
                f"{percentile(values, 0.95):>7.0f} {max(values):>7.0f}"
            )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--gap", type=float, default=1.5, help="seconds between the lecturer's steps")
    parser.add_argument("--processes", type=int, help="start this many app processes behind HAProxy")
    parser.add_argument("--kill", action="store_true", help="with --processes: kill one process halfway")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="mplab-class-"))
    os.environ["MPLAB_CLASSES"] = str(folder / "classes.sqlite3")  # the app's processes and this one share it
    from views import classroom

    with served(args.processes) as app:
        code, key = classroom.Store().start("kmp?data=xor")
        kill = None
        if args.kill and app.deployment is not None:
            kill = lambda: app.deployment.backends[0].stop(kill=True)  # noqa: E731
        crowd, posted, joined, counts, killed = asyncio.run(
            lecture(app.url, code, key, args.students, args.steps, args.gap, kill)
        )
        where = ""
        if app.deployment is not None:
            stats = app.deployment.stats()
            where = "; streams open per process at the end: " + ", ".join(
                f"{name} {row['current']}" for name, row in sorted(stats.items()) if row["status"] == "UP"
            )
        processes = f"{args.processes} processes behind HAProxy" if args.processes else "one process"
        print(f"{processes}{where}")
        print(report(crowd, posted, joined, args.steps, kill is not None, counts, killed))


if __name__ == "__main__":
    main()
