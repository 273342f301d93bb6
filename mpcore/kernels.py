"""Kernel matrices, with scikit-learn's parameter names and formulas.

``rbf``: exp(-gamma ||x - z||^2); ``laplacian``: exp(-gamma ||x - z||_1);
``poly``: (gamma <x, z> + coef0)^degree; ``linear``: <x, z>.
The app may show a width sigma instead; ``gamma = 1 / (2 sigma^2)`` (see :func:`gamma_from_width`).
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import pairwise_kernels

from ._validation import check_finite_matrix, check_positive

KERNELS = ("rbf", "linear", "poly", "laplacian")
_PARAMS = {
    "rbf": ("gamma",),
    "laplacian": ("gamma",),
    "poly": ("degree", "gamma", "coef0"),
    "linear": (),
}


def gamma_from_width(sigma):
    """RBF ``gamma`` for a Gaussian of width ``sigma``: ``1 / (2 sigma^2)``."""
    sigma = check_positive(sigma, "The kernel width sigma")
    return 1.0 / (2.0 * sigma**2)


def kernel_matrix(X, Z=None, kernel="rbf", **params):
    """Kernel matrix between the rows of ``X`` (n, d) and of ``Z`` (p, d), shape (n, p).

    ``Z=None`` means ``Z = X`` (the training Gram matrix).  Parameters are
    scikit-learn's (``sklearn.metrics.pairwise``): ``gamma`` for rbf/laplacian/poly
    (default ``1 / d``), ``degree`` and ``coef0`` for poly.  Unknown parameters and
    non-positive ``gamma`` raise ``ValueError``.
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
    K = pairwise_kernels(X, Z, metric=kernel, **params)
    return np.asarray(K, dtype=float)


def kernel_diag(X, kernel="rbf", **params):
    """``k(x, x)`` for every row of X, shape (n,), without forming the n x n matrix."""
    X = check_finite_matrix(X, "X", min_rows=1)
    if kernel in ("rbf", "laplacian"):
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return sq
    if kernel == "poly":
        gamma = params.get("gamma") or 1.0 / X.shape[1]
        return (gamma * sq + params.get("coef0", 1)) ** params.get("degree", 3)
    raise ValueError(f"Unknown kernel {kernel!r}; choose one of: {', '.join(KERNELS)}.")
