"""What every reproduction shares: the :class:`Experiment` result, sizes, the papers'
numbers, parallel repetitions and small table helpers."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.parallel import Parallel, delayed

from ..kernels import kernel_matrix

SIZES = ("tiny", "quick", "full")

#: How far a reproduction agrees with the paper's claim; "not judged" when the run is too
#: small (or lacks what the claim needs) to tell, with the reason.
VERDICTS = ("reproduced", "partly", "not reproduced", "not judged")

#: How the papers' vague words are read: written once, before any run, and the same for
#: every item (the constants below are these readings' numbers).
READINGS = (
    (
        "'better', 'worse', 'fewer', 'lower' (also 'somewhat' or 'moderately' better)",
        "on the paper's side by more than two standard errors of the difference over the repetitions (with one "
        "run: by more than 10 %)",
    ),
    (
        "'close', 'about', 'comparable', 'competitive', 'as accurate as', 'as good as', 'only a slight loss'",
        "within 10 % of the reference, or within the paper's own ratio when it prints one",
    ),
    (
        "'not significantly different' (a test the paper names)",
        "the paper's test does not reject at 5 % with at least 10 repetitions, and the means are close (above); "
        "fewer repetitions cannot tell, so that part is not judged",
    ),
    ("'much', 'far', 'considerably' (tighter, looser, fewer, smaller)", "by a factor of 2 or more"),
    ("'predicts the lowest point'", "the test error where the bound is lowest is close (above) to its minimum"),
    ("'a reasonable solution' (a classifier)", "its test error within 5 percentage points of the reference method's"),
    ("'different' (points chosen)", "fewer than half of them shared"),
    (
        "a claim over several data sets, settings or ranks",
        "holds where it holds at three quarters of them or more, fails at a quarter or fewer, partly in between",
    ),
    ("errors at rounding level", "differences between numbers below 1e-9 are rounding noise: not compared"),
)
CLOSE = 0.10  #: 'close': within 10 %
MUCH = 2.0  #: 'much': a factor of 2
MOSTLY = 0.75  #: a claim over many settings holds at three quarters of them
ROUNDING = 1e-9  #: below this, errors are rounding noise
MIN_REPEATS_FOR_A_TEST = 10  #: fewer repetitions give a significance test no power

#: A part of a claim: True, False, None (not judged) or the share of settings where it holds.
Check = bool | np.bool_ | float | None
#: ``progress(done, total)``: how far a run is.
Progress = Callable[[int, int], None]
T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    """``status`` (one of :data:`VERDICTS`) and ``reason``: one sentence saying why, with
    the numbers that decided it.  Judged from the run's own numbers against the paper's
    claim, never copied from an earlier run."""

    status: str
    reason: str

    def __post_init__(self) -> None:
        if self.status not in VERDICTS:
            raise ValueError(f"Unknown verdict {self.status!r}; choose one of: {', '.join(VERDICTS)}.")


#: Each judged item's central claim: the finding the figure or table is there to show.  A
#: result that reverses it is "not reproduced", whatever the other parts of the claim say.
CENTRAL = {
    "hussain2011-fig1": "that the bound is lowest where the test error is",
    "hussain2011-fig2": "that the compression bound is tighter than the PCA bound",
    "hussain2011-fig3": "that the compression bound's minimum is nearer the dominant dimensions than the PCA bound's",
    "hussain2011-fig4": "that the local Rademacher bound keeps falling",
    "hussain2011-fig5": "that the local Rademacher bound still falls after its large drop",
    "hussain2011-fig6": "that sparse KCCA's test distance is competitive with KCCA's",
    "hussain2011-fig7": "that the SKCCA bound lies above the test error",
    "diethe2015-fig1": "that none and Hotelling are the worst deflations",
    "diethe2015-fig2": "that random + none is unstable: its spread above pseudo + ortho-Schur's",
    "diethe2015-fig3": "that random + none is the fastest",
    "diethe2015-fig4": "that Hotelling is sparser than no deflation",
    "diethe2015-fig5": "that two stages are faster than one",
    "vincent2002-table1": "that KMP's errors are comparable to the SVM's",
    "vincent2002-table3": "that KMP needs fewer support vectors than the SVM",
    "vincent2002-fig5": "that every margin loss encourages large positive margins (none rises with the margin)",
    "vincent2002-fig6": "that back-fitting and pre-fitting KMP find a reasonable solution",
    "vincent2002-fig7": "that KMP-tanh corrects KMP-mse (fewer training errors)",
    "wang2016-fig1": "that ridge-leverage columns approximate the correlation better than uniform ones",
}


def judged(
    checks: Iterable[Check], reasons: str | Mapping[str, str], central: tuple[str, bool | None] | None = None
) -> Verdict:
    """A :class:`Verdict` from the parts of the paper's claim.  Each check is True (holds),
    False (fails), None (not judged at this size) or a share in [0, 1] of the settings where
    a claim over many settings holds (at least :data:`MOSTLY`: holds; at most 1 - MOSTLY:
    fails; in between: half).  All parts hold -> reproduced, none -> not reproduced, else
    partly; no part judged -> not judged.  ``reasons`` maps the status to its sentence (a
    str used for every status is allowed).  ``central``: the item's name in :data:`CENTRAL`
    and whether the run reverses that claim; reversed -> not reproduced, whatever the parts."""
    scores = [_score(c) for c in checks]
    scores = [s for s in scores if s is not None]
    reversed_here = central is not None and central[1] is True
    if reversed_here:
        status = "not reproduced"
    elif not scores:
        status = "not judged"
    elif all(s == 1 for s in scores):
        status = "reproduced"
    elif all(s == 0 for s in scores):
        status = "not reproduced"
    else:
        status = "partly"
    reason = reasons if isinstance(reasons, str) else reasons[status]
    if reversed_here:
        assert central is not None
        reason = f"{reason} The central claim, {CENTRAL[central[0]]}, is reversed here."
    return Verdict(status, reason)


def _score(check: Check) -> float | None:
    if check is None:
        return None
    if isinstance(check, (bool, np.bool_)):
        return float(bool(check))
    share = float(check)
    if not np.isfinite(share):
        return None
    return 1.0 if share >= MOSTLY else (0.0 if share <= 1 - MOSTLY else 0.5)


def share(flags: Iterable[object]) -> float | None:
    """The share of True among ``flags`` (None: no flag, nothing to judge)."""
    truths = [bool(f) for f in flags]
    return float(np.mean(truths)) if truths else None


def clearly_below(a: ArrayLike, b: ArrayLike, paired: bool = False) -> bool | None:
    """'a is lower than b' as :data:`READINGS` reads it: ``a`` and ``b`` are the values
    over repetitions (``paired``: the same data set or split at each position); True when
    mean(a) is below mean(b) by more than two standard errors of the difference (one value
    each: by more than 10 % of b); None when both are at rounding level (:data:`ROUNDING`)."""
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    if max(float(np.max(np.abs(a))), float(np.max(np.abs(b)))) < ROUNDING:
        return None
    gap = b.mean() - a.mean()
    if a.size < 2 or b.size < 2:
        return bool(gap > CLOSE * abs(b.mean()))
    if paired:
        se = np.std(b - a, ddof=1) / np.sqrt(a.size)
    else:
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return bool(gap > 2 * se)


def close_to(value: float, reference: float, tolerance: float = CLOSE) -> bool:
    """'about / close / comparable': ``value`` within ``tolerance`` (relative) of ``reference``."""
    return bool(abs(value - reference) <= tolerance * abs(reference))


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
    table: dict[str, Any]
    arrays: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    findings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    verdicts: dict[str, Verdict] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict | None:
        """This item's :class:`Verdict` (None when the run cannot judge it)."""
        return self.verdicts.get(self.name)

    def as_item(self, name: str) -> Experiment:
        """The same numbers under another item's name and title (Figs 2 and 4 share a run)."""
        return replace(self, name=name, title=titled(name))

    def to_csv(self) -> str:
        """The table as CSV text (header row, then one row per entry)."""
        names = list(self.table)
        columns = [np.asarray(self.table[name]) for name in names]
        out = io.StringIO()
        out.write(",".join(_csv_cell(name) for name in names) + "\n")
        for row in zip(*columns):
            out.write(",".join(_csv_cell(value) for value in row) + "\n")
        return out.getvalue()


def titled(name: str) -> str:
    """The registry's title of item ``name`` (the registry imports the experiments, so look late)."""
    from . import FIGURES

    return FIGURES[name].title


def _csv_cell(value: object) -> str:
    if isinstance(value, (str, np.str_)):
        text = str(value)
        return f'"{text}"' if ("," in text or '"' in text) else text
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    number = float(value)  # type: ignore[arg-type]  # (a table holds numbers, text and flags)
    return "" if not np.isfinite(number) else f"{number:.6g}"


# --- shared helpers ---------------------------------------------------------------------------


def _sized(defaults: Mapping[str, Any], size: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    if size not in SIZES:
        raise ValueError(f"Unknown size {size!r}; choose one of: {', '.join(SIZES)}.")
    settings = dict(defaults[size])
    unknown = set(overrides) - set(settings)
    if unknown:
        raise ValueError(
            f"Unknown setting(s) {', '.join(sorted(unknown))}; this experiment takes: {', '.join(settings)}."
        )
    settings.update(overrides)
    settings["size"] = size
    return settings


def run_parallel(
    function: Callable[..., T],
    jobs: Iterable[Sequence[Any]],
    n_jobs: int | None = None,
    progress: Progress | None = None,
) -> list[T]:
    """``[function(*job) for job in jobs]`` through joblib (in order), calling
    ``progress(done, total)`` as results arrive.  ``n_jobs=None`` follows the active
    ``joblib.parallel_config`` (one job unless configured)."""
    work = list(jobs)
    total = len(work)
    if progress is not None:
        progress(0, total)
    try:
        stream = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(function)(*job) for job in work)
    except ValueError:  # a backend that cannot stream results (multiprocessing): all at the end
        stream = Parallel(n_jobs=n_jobs)(delayed(function)(*job) for job in work)
    results: list[T] = []
    for done, result in enumerate(stream, start=1):
        results.append(result)
        if progress is not None:
            progress(done, total)
    return results


def _pad(values: ArrayLike, length: int) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    out = np.full(length, np.nan)
    out[: min(array.size, length)] = array[:length]
    return out


def _spread_columns(table: dict[str, Any], name: str, runs: ArrayLike) -> None:
    """Mean, min and max over runs (rows) of a curve, as three CSV columns."""
    rows = np.asarray(runs, dtype=float)
    with np.errstate(all="ignore"):
        table[name] = np.nanmean(rows, axis=0)
        table[f"{name} (min)"] = np.nanmin(rows, axis=0)
        table[f"{name} (max)"] = np.nanmax(rows, axis=0)


def _argmin_t(values: ArrayLike) -> int | None:
    finite = np.where(np.isfinite(values), values, np.inf)
    return int(np.argmin(finite)) + 1 if np.isfinite(finite).any() else None


def _rbf(X: np.ndarray, X_test: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    return kernel_matrix(X, kernel="rbf", gamma=gamma), kernel_matrix(X_test, X, kernel="rbf", gamma=gamma)
