"""What every reproduction shares: the :class:`Experiment` result, sizes, the papers'
numbers, parallel repetitions and small table helpers."""
from __future__ import annotations

import io
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.utils.parallel import Parallel, delayed

from ..kernels import kernel_matrix

SIZES = ("tiny", "quick", "full")

#: How far a reproduction agrees with the paper's finding.
VERDICTS = ("reproduced", "partly", "not reproduced")


@dataclass(frozen=True)
class Verdict:
    """``status`` (one of :data:`VERDICTS`) and ``reason``: one sentence saying why, with
    the numbers that decided it.  Judged from the run's own numbers against the paper's
    finding, never copied from an earlier run."""

    status: str
    reason: str

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"Unknown verdict {self.status!r}; choose one of: {', '.join(VERDICTS)}.")


def judged(checks, reasons):
    """A :class:`Verdict` from a list of booleans (each a part of the paper's finding):
    all true -> reproduced, none -> not reproduced, else partly; ``reasons`` maps the
    status to its sentence (a str used for every status is allowed)."""
    checks = [bool(c) for c in checks]
    status = "reproduced" if all(checks) else ("not reproduced" if not any(checks) else "partly")
    reason = reasons if isinstance(reasons, str) else reasons[status]
    return Verdict(status, reason)


@dataclass(frozen=True)
class Experiment:
    """The result of one reproduction.

    ``table``: column name -> 1-D array, all of one length (the CSV); ``arrays``: other
    plain arrays (per-dataset matrices, grids, per-seed curves); ``settings``: what ran;
    ``findings``: headline numbers, comparable with the paper's; ``verdicts``: item name
    -> :class:`Verdict` on that item's finding (items sharing a run, like Figs 2 and 4,
    are judged each on its own); ``seconds``: wall time.
    """

    name: str
    title: str
    table: dict
    arrays: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    findings: dict = field(default_factory=dict)
    seconds: float = 0.0
    verdicts: dict = field(default_factory=dict)

    @property
    def verdict(self):
        """This item's :class:`Verdict` (None when the run cannot judge it)."""
        return self.verdicts.get(self.name)

    def as_item(self, name):
        """The same numbers under another item's name and title (Figs 2 and 4 share a run)."""
        return replace(self, name=name, title=titled(name))

    def to_csv(self):
        """The table as CSV text (header row, then one row per entry)."""
        names = list(self.table)
        columns = [np.asarray(self.table[name]) for name in names]
        out = io.StringIO()
        out.write(",".join(_csv_cell(name) for name in names) + "\n")
        for row in zip(*columns):
            out.write(",".join(_csv_cell(value) for value in row) + "\n")
        return out.getvalue()


def titled(name):
    """The registry's title of item ``name`` (the registry imports the experiments, so look late)."""
    from . import FIGURES

    return FIGURES[name].title


def _csv_cell(value):
    if isinstance(value, (str, np.str_)):
        text = str(value)
        return f'"{text}"' if ("," in text or '"' in text) else text
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    value = float(value)
    return "" if not np.isfinite(value) else f"{value:.6g}"


# --- shared helpers ---------------------------------------------------------------------------


def _sized(defaults, size, overrides):
    if size not in SIZES:
        raise ValueError(f"Unknown size {size!r}; choose one of: {', '.join(SIZES)}.")
    settings = dict(defaults[size])
    unknown = set(overrides) - set(settings)
    if unknown:
        raise ValueError(f"Unknown setting(s) {', '.join(sorted(unknown))}; this experiment takes: "
                         f"{', '.join(settings)}.")
    settings.update(overrides)
    settings["size"] = size
    return settings


def run_parallel(function, jobs, n_jobs=None, progress=None):
    """``[function(*job) for job in jobs]`` through joblib (in order), calling
    ``progress(done, total)`` as results arrive.  ``n_jobs=None`` follows the active
    ``joblib.parallel_config`` (one job unless configured)."""
    jobs = list(jobs)
    total = len(jobs)
    if progress is not None:
        progress(0, total)
    try:
        stream = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(function)(*job) for job in jobs)
    except ValueError:  # a backend that cannot stream results (multiprocessing): all at the end
        stream = Parallel(n_jobs=n_jobs)(delayed(function)(*job) for job in jobs)
    results = []
    for done, result in enumerate(stream, start=1):
        results.append(result)
        if progress is not None:
            progress(done, total)
    return results


def _pad(values, length):
    values = np.asarray(values, dtype=float)
    out = np.full(length, np.nan)
    out[: min(values.size, length)] = values[:length]
    return out


def _spread_columns(table, name, runs):
    """Mean, min and max over runs (rows) of a curve, as three CSV columns."""
    runs = np.asarray(runs, dtype=float)
    with np.errstate(all="ignore"):
        table[name] = np.nanmean(runs, axis=0)
        table[f"{name} (min)"] = np.nanmin(runs, axis=0)
        table[f"{name} (max)"] = np.nanmax(runs, axis=0)


def _argmin_t(values):
    values = np.where(np.isfinite(values), values, np.inf)
    return int(np.argmin(values)) + 1 if np.isfinite(values).any() else None


def _rbf(X, X_test, gamma):
    return kernel_matrix(X, kernel="rbf", gamma=gamma), kernel_matrix(X_test, X, kernel="rbf", gamma=gamma)
