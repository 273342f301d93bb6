"""Kernel matrices, with scikit-learn's parameter names and formulas.

``rbf``: exp(-gamma ||x - z||^2); ``laplacian``: exp(-gamma ||x - z||_1);
``poly``: (gamma <x, z> + coef0)^degree; ``linear``: <x, z>.
The app may show a width sigma instead; ``gamma = 1 / (2 sigma^2)`` (see :func:`gamma_from_width`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics.pairwise import pairwise_kernels

from ._validation import check_finite_matrix, check_memory, check_positive

KERNELS = ("rbf", "linear", "poly", "laplacian")
_PARAMS = {
    "rbf": ("gamma",),
    "laplacian": ("gamma",),
    "poly": ("degree", "gamma", "coef0"),
    "linear": (),
}


def gamma_from_width(sigma: float) -> float:
    """RBF ``gamma`` for a Gaussian of width ``sigma``: ``1 / (2 sigma^2)``.

    Parameters
    ----------
    sigma : float
        The width (standard deviation) of the Gaussian, positive.

    Returns
    -------
    float
        ``1 / (2 sigma^2)``, scikit-learn's ``gamma`` for the same kernel.

    Examples
    --------
    >>> from mpcore import gamma_from_width
    >>> gamma_from_width(0.5)
    2.0
    """
    sigma = check_positive(sigma, "The kernel width sigma")
    if not 1e-150 < sigma < 1e150:
        raise ValueError(f"The kernel width sigma = {sigma:g} is out of range; use a width between 1e-150 and 1e150.")
    return 1.0 / (2.0 * sigma**2)


def median_gamma(X: ArrayLike, kernel: str = "rbf", max_points: int = 1000, seed: int = 0) -> float:
    """The median heuristic: the ``gamma`` whose kernel width is the median distance
    between two rows of ``X`` (n, d).

    rbf: ``sigma`` = the median Euclidean distance, ``gamma = 1 / (2 sigma^2)``;
    laplacian: ``gamma = 1 / median L1 distance``; poly: ``1 / d`` (scikit-learn's
    default: the heuristic is about distances).  At most ``max_points`` rows (a seeded
    subsample) enter the median, so the cost is bounded.  Zero distances (duplicate
    rows) are left out; with no positive distance at all the answer is ``1 / d``.
    """
    from scipy.spatial.distance import pdist

    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"The median heuristic needs a non-empty 2-D array of rows; got shape {X.shape}.")
    if kernel not in ("rbf", "laplacian"):
        return 1.0 / int(X.shape[1])
    if X.shape[0] > max_points:
        X = X[np.random.default_rng(seed).choice(X.shape[0], max_points, replace=False)]
    distances = pdist(X, "sqeuclidean" if kernel == "rbf" else "cityblock")
    distances = distances[distances > 0]
    if distances.size == 0:
        return 1.0 / int(X.shape[1])
    middle = float(np.median(distances))
    return 1.0 / (2.0 * middle) if kernel == "rbf" else 1.0 / middle


def kernel_matrix(X: ArrayLike, Z: ArrayLike | None = None, kernel: str = "rbf", **params: float) -> np.ndarray:
    """Kernel matrix between the rows of ``X`` and of ``Z``.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The first points.
    Z : array-like of shape (p, d), default=None
        The second points; ``None`` means ``Z = X`` (the training Gram matrix).
    kernel : str, default="rbf"
        A name of :data:`KERNELS` (scikit-learn's ``sklearn.metrics.pairwise`` kernels).
    **params
        The parameters scikit-learn's kernels take: ``gamma`` for rbf/laplacian/poly (default ``1 / d``),
        ``degree`` and ``coef0`` for poly.  Unknown parameters and non-positive
        ``gamma`` raise ``ValueError``.

    Returns
    -------
    ndarray of shape (n, p)
        ``K[i, j] = k(X[i], Z[j])``.

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import kernel_matrix
    >>> K = kernel_matrix(np.array([[0.0], [1.0]]), kernel="rbf", gamma=1.0)
    >>> np.round(K, 4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    if kernel not in KERNELS:
        raise ValueError(f"Unknown kernel {kernel!r}; choose one of: {', '.join(KERNELS)}.")
    unknown = set(params) - set(_PARAMS[kernel])
    if unknown:
        raise ValueError(f"The {kernel} kernel takes no parameter(s) {', '.join(sorted(unknown))}.")
    X = check_finite_matrix(X, "X", min_rows=1)
    if Z is not None:
        Z = check_finite_matrix(Z, "Z", min_rows=1)
        if Z.shape[1] != X.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features but Z has {Z.shape[1]}; they must match.")
    params = {key: value for key, value in params.items() if value is not None}
    if "gamma" in params:
        params["gamma"] = check_positive(params["gamma"], "The kernel parameter gamma (inverse squared width)")
    if kernel == "poly" and "degree" in params:
        degree = params["degree"]
        if int(degree) != degree or degree < 1:
            raise ValueError(f"The polynomial degree must be a whole number of at least 1, got {degree!r}.")
    n, p = X.shape[0], (X if Z is None else Z).shape[0]
    # the matrix and pairwise_kernels' temporaries of the same size (distances, then their exp)
    check_memory(
        3 * 8 * n * p,
        f"A {n:,} x {p:,} kernel matrix",
        "Use fewer points, or a low-rank approximation from a few columns (mpcore.nystrom).",
    )
    with np.errstate(over="ignore", invalid="ignore"):
        K = np.asarray(pairwise_kernels(X, Z, metric=kernel, **params), dtype=float)
    return finite_kernel(K, kernel)


def finite_kernel(K: np.ndarray, kernel: str) -> np.ndarray:
    """``K``, or a sentence when an entry overflowed (a polynomial kernel of high degree on
    large inputs: ``(gamma x·z + coef0)^degree`` beyond 1e308)."""
    if not np.all(np.isfinite(K)):
        raise ValueError(
            f"The {kernel} kernel overflows on these inputs (an entry beyond 1e308"
            + (
                ": (gamma x·z + coef0)^degree grows too fast; scale the data or lower the degree)."
                if kernel == "poly"
                else "); scale the data."
            )
        )
    return K


def kernel_diag(X: ArrayLike, kernel: str = "rbf", **params: float) -> np.ndarray:
    """``k(x, x)`` for every row of X, without forming the n x n matrix.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The points.
    kernel : str, default="rbf"
        A name of :data:`KERNELS`.
    **params
        The kernel's parameters, checked as in :func:`kernel_matrix`.

    Returns
    -------
    ndarray of shape (n,)
        ``k(x_i, x_i)`` for each row.

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import kernel_diag
    >>> kernel_diag(np.zeros((3, 2)), "rbf", gamma=0.5)
    array([1., 1., 1.])
    """
    if kernel not in KERNELS:
        raise ValueError(f"Unknown kernel {kernel!r}; choose one of: {', '.join(KERNELS)}.")
    unknown = set(params) - set(_PARAMS[kernel])
    if unknown:
        raise ValueError(f"The {kernel} kernel takes no parameter(s) {', '.join(sorted(unknown))}.")
    if params.get("gamma") is not None:
        params = {**params, "gamma": check_positive(params["gamma"], "The kernel parameter gamma")}
    X = check_finite_matrix(X, "X", min_rows=1)
    if kernel in ("rbf", "laplacian"):
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return np.asarray(sq)
    if kernel == "poly":
        gamma = params.get("gamma") or 1.0 / X.shape[1]
        return np.asarray((gamma * sq + params.get("coef0", 1)) ** params.get("degree", 3))
    raise ValueError(f"Unknown kernel {kernel!r}; choose one of: {', '.join(KERNELS)}.")
