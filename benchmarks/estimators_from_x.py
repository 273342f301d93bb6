"""SparseKPCA past one kernel matrix: ``candidates=c`` computes only the candidates' kernel
columns from X, never the m x m kernel (issue: estimators from X).

Prints, for m in ``--ms`` (default 4000 and 100,000; d = 10, k = 100, c = 59): the fit's
wall time, its peak memory (tracemalloc, NumPy's allocations included) and, where the m x m
kernel fits (m <= 4000), the accuracy cost against the exact path (every column scored):
the mean training residual ``||phi(x) - P phi(x)||^2`` of both, and the time of the exact
fit for the same k.  Medians of ``--repeats`` runs; the machine is shared, so say what else
ran.  ``python -m benchmarks.estimators_from_x [--quick]``.
"""
from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np

import mpcore


def fit_once(X, k, c, seed):
    tracemalloc.start()
    started = time.perf_counter()
    model = mpcore.SparseKPCA(n_components=k, candidates=c, gamma=0.1, random_state=seed).fit(X)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return model, seconds, peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ms", type=int, nargs="+", default=[4000, 100_000])
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--c", type=int, default=59)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="m = 2000 and 20,000, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.ms, args.repeats = [2000, 20_000], 1
    print(f"{'m':>8} {'fit (s)':>9} {'peak MB':>9} {'K would be MB':>14}   accuracy against the exact path")
    for m in args.ms:
        X = np.random.default_rng(0).normal(size=(m, args.d))
        runs = [fit_once(X, args.k, args.c, seed) for seed in range(args.repeats)]
        seconds = statistics.median(run[1] for run in runs)
        peak = statistics.median(run[2] for run in runs) / 2**20
        note = ""
        if m <= 4000:
            started = time.perf_counter()
            exact = mpcore.SparseKPCA(n_components=args.k, gamma=0.1).fit(X)
            exact_seconds = time.perf_counter() - started
            sampled = np.median([run[0].score_samples(X).mean() for run in runs])
            note = (f"mean residual {sampled:.4f} (59 trick) against {exact.score_samples(X).mean():.4f} (exact, "
                    f"{exact_seconds:.2f} s with the m x m kernel)")
        print(f"{m:>8} {seconds:>9.2f} {peak:>9.0f} {m * m * 8 / 2**20:>14.0f}   {note}")


if __name__ == "__main__":
    main()
