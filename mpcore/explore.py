"""The bounds of :mod:`mpcore.bounds` as functions of their knobs, with no data needed.

Each bound is evaluated along one *varied* knob (m, k, t or delta) with the others
held fixed.  The two kernel-PCA Rademacher bounds need a spectrum; without data we
use a model spectrum: the eigenvalues of an m x m kernel with ``k(x, x) = 1`` (trace
m) decaying as ``i^(-decay)``, and for the centred kernel the same spectrum without
its largest eigenvalue (centring removes roughly the mean direction).  The MPKFDA
bound is evaluated for two balanced classes whose projected means sit ``margin`` on
either side of the threshold, each with projected variance ``variance``.

>>> from mpcore.explore import explore
>>> explore("kmp_vc", "m", [1000, 10000], k=10, t=5, delta=0.05).round(3)
array([0.529, 0.071])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from . import bounds


@dataclass(frozen=True)
class Knob:
    """One input of a bound: a URL-safe name, a label, a default and its range.

    Parameters
    ----------
    name : str
        The name (as in the address).
    label : str
        What a slider says.
    default : float
        The default value.
    lo, hi : float
        The range.
    integer : bool, default=False
        Whole numbers only.
    log : bool, default=False
        Spaced logarithmically.
    help : str, default=""
        A sentence for a tooltip.
    """

    name: str
    label: str
    default: float
    lo: float
    hi: float
    integer: bool = False
    log: bool = False
    help: str = ""


KNOBS = {
    "m": Knob("m", "training points m", 1000, 10, 100000, integer=True, log=True, help="Size of the training sample."),
    "k": Knob(
        "k",
        "basis vectors k",
        20,
        0,
        2000,
        integer=True,
        help="Size of the compression set: the chosen training points.",
    ),
    "t": Knob(
        "t",
        "t",
        5,
        0,
        2000,
        integer=True,
        help="KMP / classification: training errors outside the compression set. KPCA bounds: the number "
        "of basis vectors (components).",
    ),
    "delta": Knob(
        "delta",
        "confidence δ",
        0.05,
        1e-4,
        0.5,
        log=True,
        help="The bound holds with probability at least 1 − δ over the training sample.",
    ),
    "emp_loss": Knob(
        "emp_loss",
        "training residual",
        0.1,
        0.0,
        1.0,
        help="Mean residual ||φ(x) − Pφ(x)||² on the m − t training points outside the compression "
        "set (sparse KPCA's empirical loss).",
    ),
    "R": Knob(
        "R",
        "R (loss / kernel radius)",
        1.0,
        0.1,
        5.0,
        help="sup of the loss, or the radius of the data in feature space: R² = max k(x, x); 1 for a Gaussian kernel.",
    ),
    "decay": Knob(
        "decay",
        "spectrum decay p",
        1.5,
        0.2,
        4.0,
        help="Model spectrum: the i-th kernel eigenvalue falls as i^(−p), scaled so the trace is m.",
    ),
    "c": Knob("c", "constant c", 80.0, 1.0, 80.0, help="The local Rademacher bound's constant (the paper uses 80)."),
    "margin": Knob(
        "margin",
        "class-mean margin",
        0.5,
        0.0,
        2.0,
        help="Distance of each class's projected mean from the threshold (w'μ₊ − b = b − w'μ₋).",
    ),
    "variance": Knob(
        "variance",
        "projected class variance",
        0.05,
        0.0,
        2.0,
        help="w'Σw of each class: the spread of its projections.",
    ),
}


@dataclass(frozen=True)
class ExplorerBound:
    """A bound of :mod:`mpcore.bounds` with the knobs it takes and those worth varying.

    Parameters
    ----------
    name : str
        The function's name in :mod:`mpcore.bounds`.
    title : str
        What a picker says.
    source : str
        The theorem (author-year).
    knobs : tuple of str
        The names of :data:`KNOBS` it takes.
    variables : tuple of str
        Those worth varying along an axis.
    error_bound : bool
        Whether it bounds a probability of error (trivial at 1 or more).
    """

    name: str
    title: str
    source: str
    knobs: tuple[str, ...]
    variables: tuple[str, ...]
    error_bound: bool  # True: bounds a probability of error (trivial >= 1)


EXPLORER_BOUNDS = {
    "compression_subspace": ExplorerBound(
        "compression_subspace",
        "Sample compression, subspace (sparse KPCA)",
        "Hussain et al. 2011, Thm 6 / Cor. 1",
        ("m", "t", "delta", "emp_loss", "R"),
        ("m", "t", "delta"),
        False,
    ),
    "kmp_vc": ExplorerBound(
        "kmp_vc",
        "KMP / sparse KCCA (VC + compression)",
        "Hussain et al. 2011, Thm 4 / Thm 9",
        ("m", "k", "t", "delta"),
        ("m", "k", "t", "delta"),
        True,
    ),
    "compression_classification": ExplorerBound(
        "compression_classification",
        "Sample compression, classification",
        "Hussain et al. 2011, Thm 2",
        ("m", "k", "t", "delta"),
        ("m", "k", "t", "delta"),
        True,
    ),
    "pca_global_rademacher": ExplorerBound(
        "pca_global_rademacher",
        "KPCA global Rademacher",
        "Hussain et al. 2011, Thm 7",
        ("m", "t", "delta", "decay", "R"),
        ("m", "t", "delta"),
        False,
    ),
    "pca_local_rademacher": ExplorerBound(
        "pca_local_rademacher",
        "KPCA local Rademacher",
        "Hussain et al. 2011, Thm 8",
        ("m", "k", "delta", "decay", "R", "c"),
        ("m", "k", "delta"),
        False,
    ),
    "mpkfda": ExplorerBound(
        "mpkfda",
        "MPKFDA (Fisher discriminant)",
        "Diethe 2015, Thm 1",
        ("m", "k", "delta", "margin", "variance", "R"),
        ("m", "k", "delta"),
        True,
    ),
}


def model_spectrum(m: int, decay: float) -> np.ndarray:
    """The eigenvalues of a model kernel with unit diagonal: ``i^(-decay)`` scaled to sum to m.

    Parameters
    ----------
    m : int
        The number of eigenvalues.
    decay : float
        How fast they fall.

    Returns
    -------
    ndarray of shape (m,)
        The spectrum.
    """
    values = np.arange(1, int(m) + 1, dtype=float) ** (-float(decay))
    return np.asarray(values * (m / values.sum()))


def _at(bound: str, **p: float) -> bounds.Bound:
    """The bound at one setting of its knobs (m, k, t integers; a scalar)."""
    m = int(p["m"])
    if bound == "compression_subspace":
        return bounds.compression_subspace(p["emp_loss"], m, int(p["t"]), p["delta"], p["R"])
    if bound == "kmp_vc":
        return bounds.kmp_vc(m, int(p["k"]), int(p["t"]), p["delta"])
    if bound == "compression_classification":
        return bounds.compression_classification(m, int(p["k"]), int(p["t"]), p["delta"])
    if bound == "pca_global_rademacher":
        spectrum = model_spectrum(m, p["decay"])
        return bounds.pca_global_rademacher(spectrum, np.ones(m), min(int(p["t"]), m), p["delta"], p["R"])
    if bound == "pca_local_rademacher":
        lam = model_spectrum(m, p["decay"]) / m
        return bounds.pca_local_rademacher(lam, lam[1:], min(int(p["k"]), m), m, p["delta"], p["R"], p["c"])
    if bound == "mpkfda":
        k = int(p["k"])
        if k >= m - 1:
            return np.inf
        half = (m - k) / 2
        margin = p["margin"]
        result = bounds.mpkfda(
            (-margin, margin), (p["variance"], p["variance"]), 0.0, (half, half), m, k, p["delta"], p["R"]
        )
        return result["total"]
    raise ValueError(f"Unknown bound {bound!r}; choose one of {sorted(EXPLORER_BOUNDS)}.")


def explore(bound: str, vary: str, values: ArrayLike, **fixed: float) -> np.ndarray:
    """A bound along the values of one knob, the others fixed.

    Parameters
    ----------
    bound : str
        A name of :data:`EXPLORER_BOUNDS`.
    vary : str
        The knob to vary (one of the bound's knobs).
    values : array-like
        Its values (at most :data:`MAX_GRID`, inside the knob's range).
    **fixed
        The other knobs (missing ones take :data:`KNOBS` defaults).

    Returns
    -------
    ndarray of shape (len(values),)
        The bound; ``inf`` where it is undefined (e.g. k + t >= m).

    Examples
    --------
    >>> from mpcore.explore import explore
    >>> values = explore("kmp_vc", "m", [1000, 10000, 100000], k=10, t=5)
    >>> bool(values[0] > values[1] > values[2])
    True
    """
    if not isinstance(bound, str) or bound not in EXPLORER_BOUNDS:
        raise ValueError(f"Unknown bound {bound!r}; choose one of {sorted(EXPLORER_BOUNDS)}.")
    spec = EXPLORER_BOUNDS[bound]
    if not isinstance(vary, str) or vary not in spec.knobs:
        raise ValueError(f"{spec.title} does not depend on {vary!r}; it takes {', '.join(spec.knobs)}.")
    settings = {name: KNOBS[name].default for name in spec.knobs}
    settings.update({name: value for name, value in fixed.items() if name in spec.knobs})
    if values is None or isinstance(values, (str, bytes)) or np.iscomplexobj(values):
        raise TypeError("values must be a list of numbers.")
    try:
        values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError("values must be a list of numbers.") from None
    if values.size > MAX_GRID or not np.all(np.isfinite(values)):
        raise ValueError(f"values must be at most {MAX_GRID} finite numbers.")
    knob = KNOBS[vary]
    if values.size and (values.min() < knob.lo or values.max() > knob.hi):
        raise ValueError(f"{vary} must lie between {knob.lo:g} and {knob.hi:g}.")
    out = []
    for value in values:
        settings[vary] = value
        out.append(float(np.asarray(_at(bound, **settings))))
    return np.asarray(out)


MAX_GRID = 2000


def grid(vary: str, lo: float | None = None, hi: float | None = None, n: int = 120) -> np.ndarray:
    """The values of a knob to plot along.

    Log-spaced for m and delta, whole numbers for integer knobs (duplicates dropped).

    Parameters
    ----------
    vary : str
        A name of :data:`KNOBS`.
    lo, hi : float or None, default=None
        The range (None: the knob's).
    n : int, default=120
        How many values, at most :data:`MAX_GRID`.

    Returns
    -------
    ndarray
        The values, increasing.
    """
    if not isinstance(vary, str) or vary not in KNOBS:
        raise ValueError(f"Unknown knob {vary!r}; choose one of: {', '.join(sorted(KNOBS))}.")
    knob = KNOBS[vary]
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)) or not np.isfinite(n):
        raise TypeError("n (the number of grid values) must be a whole number.")
    if not 2 <= n <= MAX_GRID:
        raise ValueError(f"n (the number of grid values) must lie between 2 and at most {MAX_GRID}, got {n:g}.")
    n = int(n)
    lo = knob.lo if lo is None else lo
    hi = knob.hi if hi is None else hi
    for name, value in (("lo", lo), ("hi", hi)):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value)
        ):
            raise TypeError(f"{name} must be a finite number.")
    if not knob.lo <= lo < hi <= knob.hi:
        raise ValueError(f"The range of {vary} must satisfy {knob.lo:g} <= lo < hi <= {knob.hi:g}.")
    values = np.geomspace(max(lo, 1e-12), hi, n) if knob.log else np.linspace(lo, hi, n)
    if knob.integer:
        values = np.unique(np.round(values))
    return values


def nontrivial_range(values: ArrayLike, ys: ArrayLike, level: float = 1.0) -> tuple[float, float] | None:
    """The first and last knob values where a bound is below ``level``.

    Parameters
    ----------
    values : array-like
        The knob's values.
    ys : array-like
        The bound at them.
    level : float, default=1.0
        The level (1 for a probability of error).

    Returns
    -------
    tuple of float or None
        ``(first, last)``, or None when the bound is never below ``level``.
    """
    below = np.flatnonzero(np.isfinite(ys) & (np.asarray(ys) < level))
    if below.size == 0:
        return None
    knob = np.asarray(values, dtype=float)
    return float(knob[below[0]]), float(knob[below[-1]])
