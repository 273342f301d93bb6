"""One client against a class on one server: the fair shares of ``serving/lines.py`` and
the study children of ``serving/children.py``, measured without a browser (the class
benchmark's client, ``benchmarks/visit.py``).

Rounds alternate, each after the server has gone quiet:

- ``quiet``: ``--students`` students, each at its own address, open the cached lesson at once;
- ``attacked``: the same, a second after one client (one address, many sessions) has asked
  for ``--attacks`` expensive studies at once (sparse KCCA, 3,000 points, k = 100, each
  its own seed), and while they run and wait.

Each line prints the students' wait (p50 / p95 / max) and errors; an attacked round also
prints how long a victim's own small new study took (asked as the students come), how
long the lesson took to open after the attack (kept, or computed again), and how long
the attack took in all.  ``--memory``: instead, three bursts of 30 distinct studies,
printing the resident memory of the app process (and of its study children) at its peak
and once each burst has ended.

The benchmark is the class's proxy: it sends each client's address in
``X-Forwarded-For``, and starts the app with ``MPLAB_BEHIND_PROXY=1`` so that the app reads it
(as ``make serve`` does).  ``--url``: an app already running (started with
``MPLAB_BEHIND_PROXY=1``, to measure another version of it).  Shared 2-core machines are
noisy: read the medians and ratios, and say what else was running.

    python -m benchmarks.class_attack [--rounds 3] [--students 50] [--attacks 30]
    python -m benchmarks.class_attack --memory [--one-client]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager

from benchmarks.browser_speed import ROOT, start_server
from benchmarks.class_load import LESSON, ServerSampler, percentile
from benchmarks.visit import open_page, open_pages, stream_url

ATTACK = ("sparse-kcca", "data=rings-two-view&points=3000&k=100&seed={}")
VICTIM = ("kmp", "data=sinc&points=300&k=10&seed={}")
ATTACKER = "10.66.0.1"


def student_address(number):
    return f"10.1.{number // 250}.{number % 250 + 1}"


def as_client(address):
    return {"headers": {"X-Forwarded-For": address}}


def children_of(pid):
    """Every process below ``pid`` (the study children, the fork server), by ``ps``."""
    found, frontier = [], [pid]
    while frontier:
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", ",".join(map(str, frontier))], capture_output=True, text=True
        ).stdout
        frontier = [int(line) for line in out.split()]
        found += frontier
    return found


def wait_until_quiet(pid, limit=600):
    """Until no study child runs under ``pid`` (the fork server and its tracker stay)."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if len(children_of(pid)) <= 2:
            return
        time.sleep(0.5)


async def students_open(ws_url, n):
    opens = [open_page(ws_url, *LESSON, **as_client(student_address(i))) for i in range(n)]
    return await asyncio.gather(*opens)


async def attack(ws_url, n, first_seed):
    """The attacker's ``n`` expensive studies at once: ``(seconds, errors)``."""
    started = time.perf_counter()
    visits = await asyncio.gather(
        *(
            open_page(ws_url, ATTACK[0], ATTACK[1].format(seed), **as_client(ATTACKER))
            for seed in range(first_seed, first_seed + n)
        )
    )
    return time.perf_counter() - started, sum(visit.error is not None for visit in visits)


def start_attack(url, n, first_seed):
    """The attacker in a process of its own (another machine's client has its own event
    loop: in this one, its answers would delay the students' measured waits)."""
    code = (
        "import asyncio, json; from benchmarks.class_attack import attack; "
        f"print(json.dumps(asyncio.run(attack({stream_url(url)!r}, {n}, {first_seed}))))"
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)


async def attacked_round(url, args, round_number):
    ws_url = stream_url(url)
    attacker = start_attack(url, args.attacks, 1000 * round_number)
    await asyncio.sleep(1.0)  # the attack is under way: its studies run and wait
    victim = asyncio.create_task(
        open_page(ws_url, VICTIM[0], VICTIM[1].format(round_number), **as_client(student_address(999)))
    )
    students = await students_open(ws_url, args.students)
    victim_visit = await victim
    seconds, errors = json.loads(await asyncio.to_thread(lambda: attacker.communicate()[0]))
    after = await open_page(ws_url, *LESSON, **as_client(student_address(998)))
    return students, victim_visit, after, seconds, errors


def row(label, visits):
    waits = [visit.seconds for visit in visits] or [float("nan")]
    errors = sum(visit.error is not None for visit in visits)
    return f"{label:<9} {percentile(waits, 0.5):>7.2f} {percentile(waits, 0.95):>7.2f} {max(waits):>7.2f} {errors:>6}"


def fairness(args, url, pid):
    ws_url = stream_url(url)
    asyncio.run(open_pages(ws_url, [LESSON]))  # the lesson cached, as the class warm-up leaves it
    print(
        f"{args.students} students open the cached lesson; the attacker asks for {args.attacks} "
        "sparse-KCCA studies (3,000 points, k = 100) at once"
    )
    print(
        f"{'round':<9} {'p50 s':>7} {'p95 s':>7} {'max s':>7} {'errors':>6} "
        f"{'victim s':>9} {'lesson after s':>14} {'attack s':>9} {'attack errors':>13}"
    )
    p95 = {"quiet": [], "attacked": []}
    for round_number in range(1, args.rounds + 1):
        if pid:
            wait_until_quiet(pid)
        quiet = asyncio.run(students_open(ws_url, args.students))
        p95["quiet"].append(percentile([visit.seconds for visit in quiet], 0.95))
        print(row("quiet", quiet))
        if pid:
            wait_until_quiet(pid)
        students, victim, after, seconds, attack_errors = asyncio.run(attacked_round(url, args, round_number))
        p95["attacked"].append(percentile([visit.seconds for visit in students], 0.95))
        print(
            f"{row('attacked', students)} {victim.seconds:>9.2f} {after.seconds:>14.2f} {seconds:>9.1f} "
            f"{attack_errors:>13}"
        )
    ratio = statistics.median(p95["attacked"]) / statistics.median(p95["quiet"])
    print(f"students' p95, median over rounds: attacked / quiet = {ratio:.2f}")


def resident_mb(pids):
    """The resident memory of ``pids`` now, MB."""
    sampler = ServerSampler(lambda: pids)
    sampler.read()
    return sampler.peak


async def burst(ws_url, seeds, one_client=False):
    """One distinct expensive study per seed, each from its own client (``one_client``: all
    from the attacker's address), all at once."""
    page, query = ATTACK
    opens = [
        open_page(ws_url, page, query.format(seed), **as_client(ATTACKER if one_client else student_address(seed)))
        for seed in seeds
    ]
    return await asyncio.gather(*opens)


def memory(args, url, pid):
    ws_url = stream_url(url)
    who = "all from one client" if args.one_client else "each from its own client"
    print(f"Three bursts of 30 distinct studies (sparse KCCA, 3,000 points, k = 100), {who}")
    print(f"{'burst':<6} {'errors':>6} {'app peak MB':>11} {'app after MB':>12} {'children peak MB':>16}")
    print(f"{'start':<6} {'':>6} {'':>11} {resident_mb([pid]):>12.0f}")
    for burst_number in range(1, 4):
        app_memory, children = ServerSampler(lambda: [pid]), ServerSampler(lambda: children_of(pid))
        for sampler in (app_memory, children):
            sampler.start()
        seeds = range(5000 + 100 * burst_number, 5030 + 100 * burst_number)
        visits = asyncio.run(burst(ws_url, seeds, args.one_client))
        wait_until_quiet(pid)
        for sampler in (app_memory, children):
            sampler.stopping.set()
        errors = sum(visit.error is not None for visit in visits)
        after = resident_mb([pid])
        print(f"{burst_number:<6} {errors:>6} {app_memory.peak:>11.0f} {after:>12.0f} {children.peak:>16.0f}")


@contextmanager
def app(url):
    if url:
        yield url.rstrip("/"), None
        return
    process, started = start_server({"MPLAB_BEHIND_PROXY": "1"})
    try:
        yield started, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--attacks", type=int, default=30)
    parser.add_argument("--memory", action="store_true", help="three bursts of 30 distinct studies; memory")
    parser.add_argument("--one-client", action="store_true", help="with --memory: each burst from one client")
    parser.add_argument("--url", help="an app already running with MPLAB_BEHIND_PROXY=1 (default: start one)")
    parser.add_argument("--pid", type=int, help="with --url: its process, to wait for quiet and read memory")
    args = parser.parse_args(argv)
    with app(args.url) as (url, pid):
        pid = args.pid or pid
        (memory if args.memory else fairness)(args, url, pid)


if __name__ == "__main__":
    main()
