"""A live class at lecture-hall size: N students follow the lecturer's steps.

Each student is what a browser's ``EventSource`` is to the server: one stream of the
class's events (``GET mpl/class/events``, serving/classes.py), reconnected a second after
it drops, as the browser does.  The lecturer steps through the study by posting each step
with the class's key (``POST mpl/class/drive``), as the lecturer's player does on every key
press.  For each step it times, per student, the post's start to the event's arrival, and
prints p50 / p95 / max over every student and step, and the steps a student never received
(lost: a student must see every step, since the lecturer waits between them).

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
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.class_load import percentile
from benchmarks.serving import served


class Student:
    """One follower: the time each class version reached it."""

    def __init__(self, number):
        self.number = number
        self.seen = {}  # version -> time it arrived
        self.connects = 0
        self.ready = asyncio.Event()

    async def follow(self, client, url, stopping):
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


async def lecture(base, code, key, students, steps, gap, kill=None):
    limits = httpx.Limits(max_connections=students + 20, max_keepalive_connections=students + 20)
    timeout = httpx.Timeout(10, read=None)
    stopping = asyncio.Event()
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        crowd = [Student(n) for n in range(students)]
        url = f"{base}/mpl/class/events?class={code}"
        tasks = [asyncio.create_task(s.follow(client, url, stopping)) for s in crowd]
        started = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in crowd)), timeout=120)
        joined = time.perf_counter() - started
        posted = {}  # version -> when its post started
        async with httpx.AsyncClient(timeout=10) as lecturer:
            for step in range(1, steps + 1):
                if kill is not None and step == steps // 2 + 1:
                    kill()
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
    return crowd, posted, joined


def report(crowd, posted, joined, steps, kill):
    waits, lost, by_step = [], 0, {}
    for student in crowd:
        for version, (step, sent) in posted.items():
            arrived = student.seen.get(version)
            if arrived is None:
                lost += 1
                continue
            waits.append(arrived - sent)
            by_step.setdefault(step, []).append(arrived - sent)
    ms = [1000 * w for w in waits]
    lines = [
        f"{len(crowd)} students joined in {joined:.1f} s; {steps} steps, each received "
        f"p50 {percentile(ms, 0.5):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms; "
        f"lost {lost} of {len(crowd) * len(posted)}",
        f"reconnects: {sum(s.connects for s in crowd) - len(crowd)}",
    ]
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
    from ui import classroom

    with served(args.processes) as app:
        code, key = classroom.Store().start("kmp?data=xor")
        kill = None
        if args.kill and app.deployment is not None:
            kill = lambda: app.deployment.backends[0].stop(kill=True)  # noqa: E731
        crowd, posted, joined = asyncio.run(lecture(app.url, code, key, args.students, args.steps, args.gap, kill))
        where = ""
        if app.deployment is not None:
            stats = app.deployment.stats()
            where = "; streams open per process at the end: " + ", ".join(
                f"{name} {row['current']}" for name, row in sorted(stats.items()) if row["status"] == "UP"
            )
        processes = f"{args.processes} processes behind HAProxy" if args.processes else "one process"
        print(f"{processes}{where}")
        print(report(crowd, posted, joined, args.steps, kill is not None))


if __name__ == "__main__":
    main()
