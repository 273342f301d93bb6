"""A classroom server's BLAS threads: 1 against 2 per pool, with several sessions at once.

Streamlit runs every session's script in a thread of one process, so sessions that open
or change a page at the same moment compute their studies concurrently: Python parts
take turns on the GIL, BLAS and LAPACK calls release it and run in OpenBLAS's own
threads (NumPy and SciPy each bring a pool).  With two threads per pool, two sessions'
LAPACK calls already ask for four threads on a two-core machine.

This runs the studies the app's pages compute (``views.pictures.STUDIES``, at ``--points``
points, each session its own data seed so nothing is shared) in N threads at once, for
N in ``--sessions``, under each thread setting (``threadpoolctl``, every pool in the
process), and prints the time until all N are done and each session's median and
slowest wait, side by side.

    python -m benchmarks.blas_threads [--points 1500] [--sessions 1 2 5 10] [--repeats 3]

Machines here are shared and noisy (2 cores): read the ratios, and say what else ran.
"""

import argparse
import statistics
import threading
import time

import scipy.linalg  # noqa: F401 - loads SciPy's OpenBLAS so threadpoolctl sees both pools
from threadpoolctl import threadpool_info, threadpool_limits

from mpcore.datasets import load_dataset, prepare
from views.pictures import STUDIES

# (study, dataset, settings): what each page computes on opening, at its defaults
WORK = [
    ("skpca", "rings", {"k": 30}),
    ("kmp", "sinc", {"k": 30}),
    ("skcca", "rings-two-view", {"k": 20}),
    ("mpkfda", "moons", {"k": 20}),
    (
        "deflation-lab",
        "moons",
        {
            "k": 20,
            "family": "mpkfda",
            "criterion": "optimal",
            "deflations": ("none", "hotelling", "projection", "schur"),
        },
    ),
    (
        "column-lab",
        "rings-two-view",
        {"ranks": (12, 24, 36, 48, 60), "methods": ("greedy", "uniform", "ridge-leverage")},
    ),
]


def session(number, points, seconds):
    kind, data, settings = WORK[number % len(WORK)]
    split = prepare(load_dataset(data, n_samples=points), seed=number + 1)
    started = time.perf_counter()
    STUDIES[kind](split, **settings)
    seconds[number] = time.perf_counter() - started


def together(n, points, first=0):
    """n sessions at once (session numbers first..first + n - 1): (wall time until all are
    done, each one's time)."""
    seconds = [0.0] * (first + n)
    threads = [threading.Thread(target=session, args=(number, points, seconds)) for number in range(first, first + n)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, seconds[first:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1500)
    parser.add_argument("--sessions", nargs="*", type=int, default=[1, 2, 5, 10])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    args = parser.parse_args()
    pools = [
        f"{info['internal_api']} ({info['num_threads']} threads, {info['filepath'].split('/')[-1]})"
        for info in threadpool_info()
    ]
    print("BLAS pools in this process: " + "; ".join(pools))
    together(len(WORK), args.points)  # warm-up: imports, first-call costs
    print(
        f"{'sessions':>8}" + "".join(f"{f'{t} thread(s): all done / median / slowest (s)':>46}" for t in args.threads)
    )
    cells = []
    for threads in args.threads:  # one session alone, each page in turn: what a lone user waits
        with threadpool_limits(limits=threads):
            alone = [
                statistics.median(together(1, args.points, first)[0] for _ in range(args.repeats))
                for first in range(len(WORK))
            ]
        cells.append(f"{sum(alone):>22.2f}{statistics.median(alone):>12.2f}{max(alone):>12.2f}")
    print(f"{'alone':>8}" + "".join(cells) + "   (each page's study by itself: sum / median / slowest)")
    for n in args.sessions:
        cells = []
        for threads in args.threads:
            walls, medians, slowest = [], [], []
            with threadpool_limits(limits=threads):
                for _ in range(args.repeats):
                    wall, seconds = together(n, args.points)
                    walls.append(wall)
                    medians.append(statistics.median(seconds))
                    slowest.append(max(seconds))
            cells.append(
                f"{statistics.median(walls):>22.2f}{statistics.median(medians):>12.2f}"
                f"{statistics.median(slowest):>12.2f}"
            )
        print(f"{n:>8}" + "".join(cells))
    print(f"(medians of {args.repeats} runs; each session one page's study at {args.points} points, its own data seed)")


if __name__ == "__main__":
    main()
