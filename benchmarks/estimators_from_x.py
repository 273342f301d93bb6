"""SparseKPCA, KernelMatchingPursuit and NystromKCCA past one kernel matrix: ``candidates=c``
(and NystromKCCA's ``out_of_sample="nystrom"``) compute only some kernel columns from X,
never the m x m kernel.

Prints, for each estimator and m in ``--ms`` (default 4000 and 100,000; d = 10, k = 100,
c = 59): the fit's wall time, its peak memory (tracemalloc, NumPy's allocations included)
and, where the m x m kernel fits (m <= 4000), the accuracy cost against the exact path
(every column scored) with its time: the mean training residual ``||phi(x) - P phi(x)||^2``
for sparse KPCA, the test mean squared error for KMP (target ``sin(x1) x2`` plus noise).
NystromKCCA (rank k per view, uniform and ridge-leverage columns; the second view is
``[sin(x1), x2^2]`` plus noise): the same, with the canonical correlation of the test
variates against the in-memory fit that maps new points by eq. 17.
Medians of ``--repeats`` runs; the machine is shared, so say what else ran.
``python -m benchmarks.estimators_from_x [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import numpy as np

import mpcore


def target(X, seed=0):
    return np.sin(X[:, 0]) * X[:, 1] + 0.1 * np.random.default_rng(seed).normal(size=len(X))


def fit_once(make, X, y, seed):
    tracemalloc.start()
    started = time.perf_counter()
    model = make(seed).fit(X, y)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return model, seconds, peak


def accuracy(name, model, X, y, X_test, y_test):
    if name == "SparseKPCA":
        return float(model.score_samples(X).mean())
    return float(np.mean((model.predict(X_test) - y_test) ** 2))


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
    estimators = {
        "SparseKPCA": lambda seed=None, c=args.c: mpcore.SparseKPCA(
            n_components=args.k, candidates=c, gamma=0.1, random_state=seed
        ),
        "KMP": lambda seed=None, c=args.c: mpcore.KernelMatchingPursuit(
            n_components=args.k, candidates=c, gamma=0.1, random_state=seed
        ),
    }
    what = {"SparseKPCA": "mean training residual", "KMP": "test MSE"}
    print(
        f"{'estimator':<11}{'m':>8} {'fit (s)':>9} {'peak MB':>9} {'K would be MB':>14}   accuracy against the exact "
        "path (every column scored)"
    )
    for m in args.ms:
        X = np.random.default_rng(0).normal(size=(m, args.d))
        y = target(X)
        X_test = np.random.default_rng(1).normal(size=(2000, args.d))
        y_test = target(X_test, 1)
        for name, make in estimators.items():
            runs = [fit_once(make, X, y, seed) for seed in range(args.repeats)]
            seconds = statistics.median(run[1] for run in runs)
            peak = statistics.median(run[2] for run in runs) / 2**20
            note = ""
            if m <= 4000:
                started = time.perf_counter()
                exact = make(c=None).fit(X, y)
                exact_seconds = time.perf_counter() - started
                sampled = np.median([accuracy(name, run[0], X, y, X_test, y_test) for run in runs])
                note = (
                    f"{what[name]} {sampled:.4f} (c = {args.c}) against "
                    f"{accuracy(name, exact, X, y, X_test, y_test):.4f} (exact, {exact_seconds:.2f} s)"
                )
            print(f"{name:<11}{m:>8} {seconds:>9.2f} {peak:>9.0f} {m * m * 8 / 2**20:>14.0f}   {note}")
        Y, Y_test = second_view(X), second_view(X_test, 1)
        for sampling in ("uniform", "ridge-leverage"):

            def make(seed=None, out="nystrom", sampling=sampling):
                return mpcore.NystromKCCA(
                    n_components=args.k, sampling=sampling, gamma=0.1, reg=1e-3, out_of_sample=out, random_state=seed
                )

            runs = [fit_once(make, X, Y, seed) for seed in range(args.repeats)]
            seconds = statistics.median(run[1] for run in runs)
            peak = statistics.median(run[2] for run in runs) / 2**20
            note = f"test correlation {np.median([test_correlation(run[0], X_test, Y_test) for run in runs]):.4f}"
            if m <= 4000:
                started = time.perf_counter()
                kernel_map = make(0, "kernel").fit(X, Y)
                note += (
                    f" against {test_correlation(kernel_map, X_test, Y_test):.4f} (eq. 17's map, whole kernels, "
                    f"{time.perf_counter() - started:.2f} s)"
                )
            label = "NKCCA-" + ("unif" if sampling == "uniform" else "lev")
            print(f"{label:<11}{m:>8} {seconds:>9.2f} {peak:>9.0f} {m * m * 8 / 2**20:>14.0f}   {note}")


def second_view(X, seed=0):
    noise = 0.1 * np.random.default_rng(seed + 10).normal(size=(len(X), 2))
    return np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2]) + noise


def test_correlation(model, X_test, Y_test):
    u, v = model.transform(X_test, Y_test)
    return float(abs(np.corrcoef(u[:, 0], v[:, 0])[0, 1]))


if __name__ == "__main__":
    main()
