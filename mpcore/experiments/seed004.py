"""Seed 004 (Wang 2016), Fig. 1: column selection for Nystroem KCCA on the two-view rings."""
from __future__ import annotations



import numpy as np

from ..datasets import load_dataset, prepare
from ..labs import column_selection

from ._common import Experiment, _sized, run_parallel, titled


# --- seed 004 Fig. 1: column selection for Nystroem KCCA on the two-view rings ----------------------

_COLUMNS = {
    "tiny": {"seeds": 1, "n_samples": 120, "ranks": (4, 8, 12), "reg": 1e-3},
    "quick": {"seeds": 3, "n_samples": 500, "ranks": (12, 24, 36, 48, 60), "reg": 1e-3},
    "full": {"seeds": 20, "n_samples": 1430, "ranks": (50, 100, 150, 200, 250, 300, 350, 400), "reg": 1e-3},
}
COLUMN_EXPERIMENT_METHODS = ("greedy", "uniform", "ridge-leverage")


def _columns_job(seed, n_samples, ranks, reg):
    split = prepare(load_dataset("rings-two-view", n_samples=n_samples, seed=0), seed=0)
    result = column_selection(split, ranks, COLUMN_EXPERIMENT_METHODS, repeats=1, reg=reg, seed=seed)
    out = {"leverage_x": result.leverage[0], "leverage_y": result.leverage[1], "exact": result.exact,
           "effective_dimension": result.effective_dimension, "N": result.m, "ranks": result.ranks,
           "speedup": result.speedup["speedup"][0], "greedy columns": int(len(result.landmarks["greedy"]))}
    for method in COLUMN_EXPERIMENT_METHODS:
        out[f"trace/{method}"] = result.kernel_error[method]["trace"][0]
        for key in ("rho", "T", "alpha", "bound", "valid"):
            out[f"{key}/{method}"] = result.kcca[method][key][0]
    return out


def column_selection_rings(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 004 Fig. 1 on the two-view rings: (a) sorted ridge leverage scores per view,
    (b) ``|rho - rho~|`` and ``||T - T~||``, (c) ``||alpha - alpha~|| / sqrt(N)`` against
    the Thm 2 step II bound, (d) the incremental path's speed-up, for greedy, uniform and
    ridge-leverage columns; one landmark draw per seed, seeds run in parallel.

    Arrays ``<key>/<method>`` (seeds, ranks) for key in trace, rho, T, alpha, bound, valid
    (greedy is deterministic: the same row per seed), ``speedup`` (seeds, ranks),
    ``leverage_x``/``leverage_y`` (N,).  Table: ``rank`` and the means over seeds.
    """
    s = _sized(_COLUMNS, size, overrides)
    jobs = [(seed + i, s["n_samples"], tuple(s["ranks"]), s["reg"]) for i in range(s["seeds"])]
    runs = run_parallel(_columns_job, jobs, n_jobs, progress)
    first = runs[0]
    arrays = {"ranks": first["ranks"], "leverage_x": first["leverage_x"], "leverage_y": first["leverage_y"],
              "speedup": np.stack([run["speedup"] for run in runs])}
    for key in ("trace", "rho", "T", "alpha", "bound", "valid"):
        for method in COLUMN_EXPERIMENT_METHODS:
            arrays[f"{key}/{method}"] = np.stack([run[f"{key}/{method}"] for run in runs])
    table = {"rank": first["ranks"]}
    for key in ("trace", "rho", "T", "alpha", "bound"):
        for method in COLUMN_EXPERIMENT_METHODS:
            table[f"{method} {key}"] = arrays[f"{key}/{method}"].mean(axis=0)
    table["speedup"] = arrays["speedup"].mean(axis=0)
    top = -1
    findings = {
        "N": first["N"], "exact rho": first["exact"]["rho"], "gap r": first["exact"]["gap"],
        "greedy columns chosen (fewer than the top rank: the kernel was exhausted)":
            f"{first['greedy columns']} of {int(first['ranks'][-1])}",
        "effective dimension (X, Y)": tuple(round(v, 1) for v in first["effective_dimension"]),
        f"|rho - rho~| at rank {first['ranks'][top]}": {m: float(arrays[f"rho/{m}"][:, top].mean())
                                                          for m in COLUMN_EXPERIMENT_METHODS},
        f"||alpha - alpha~||/sqrt(N) at rank {first['ranks'][top]}": {
            m: float(arrays[f"alpha/{m}"][:, top].mean()) for m in COLUMN_EXPERIMENT_METHODS},
        "bound holds wherever its condition does": bool(all(
            np.all(arrays[f"alpha/{m}"][arrays[f"valid/{m}"]] <= arrays[f"bound/{m}"][arrays[f"valid/{m}"]] + 1e-12)
            for m in COLUMN_EXPERIMENT_METHODS)),
        "speed-up at the top rank": float(arrays["speedup"][:, top].mean()),
    }
    return Experiment("004-fig1", titled("004-fig1"), table, arrays, s, findings)
