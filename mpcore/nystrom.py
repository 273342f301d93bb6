"""Nystroem features: the coordinates of points in the span of chosen training points.

With chosen indices ``i`` and ``K[i, i] = C C'`` (Cholesky), the features of any point x
are ``F(x) = C^{-1} K[i, x]``, so ``F F' = K[:, i] K[i, i]^{-1} K[i, :]`` (Hussain et al. 2011, eq. 8)
and ``||F(x)||^2`` is the squared norm of the projection of phi(x) onto the span
(eq. 7).  The papers write ``R'R = K[i, i]^{-1}``; here ``R = C^{-1}``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, solve_triangular

from ._validation import as_real, check_finite_matrix

#: Relative jitter added to K[i, i] so duplicate or nearly dependent chosen points
#: (singular blocks) still factor; small enough not to change well-posed results.
JITTER = 1e-10


def nystrom_factor(K_sub: ArrayLike, jitter: float = JITTER) -> np.ndarray:
    """Lower Cholesky factor C of ``K[i, i] + jitter * mean(diag) * I``.

    The jitter is raised tenfold until the factorisation succeeds, so singular blocks
    (duplicate points) never crash.

    Parameters
    ----------
    K_sub : ndarray of shape (k, k)
        The kernel block of the chosen points, ``K[i, i]``.
    jitter : float, default=1e-10
        The first relative ridge tried.

    Returns
    -------
    ndarray of shape (k, k)
        Lower triangular C with ``C C' = K[i, i]`` (up to the jitter).
    """
    K_sub = check_finite_matrix(K_sub, "K_sub", square=True, min_rows=1)
    k = K_sub.shape[0]
    scale = max(float(np.mean(np.diag(K_sub))), 1e-300) if k else 1.0
    eps = jitter
    for _ in range(12):
        try:
            C, _ = cho_factor(K_sub + eps * scale * np.eye(k), lower=True, check_finite=False)
            return np.tril(C)
        except np.linalg.LinAlgError:
            eps *= 10
    raise ValueError("The chosen points' kernel block could not be factorised; is the kernel positive semi-definite?")


def nystrom_features(K_rows: ArrayLike, C: np.ndarray) -> np.ndarray:
    """Nystroem features ``F = K[:, i] C^{-T}`` from the kernel between points and the chosen ones.

    ``F F'`` is the projected kernel ``K[:, i] K[i, i]^{-1} K[i, :]`` (Hussain et al.
    2011, eq. 8).

    Parameters
    ----------
    K_rows : ndarray of shape (n, k)
        The kernel between n points and the k chosen points.
    C : ndarray of shape (k, k)
        The lower Cholesky factor of ``K[i, i]`` (:func:`nystrom_factor`).

    Returns
    -------
    ndarray of shape (n, k)
        The features.
    """
    K_rows = check_finite_matrix(K_rows, "K_rows", min_rows=1)
    C = check_finite_matrix(C, "C", square=True, min_rows=1)
    if K_rows.shape[1] != C.shape[0]:
        raise ValueError(
            f"K_rows has {K_rows.shape[1]} columns but C is {C.shape[0]} x {C.shape[0]}; K_rows holds "
            "the kernel between the points and the chosen ones, C the chosen ones' Cholesky factor."
        )
    if not np.all(np.diag(C) > 0):
        raise ValueError("C must be a lower Cholesky factor (a positive diagonal): use mpcore.nystrom_factor.")
    return np.asarray(solve_triangular(C, K_rows.T, lower=True, check_finite=False)).T


def nested_projection_residuals(
    K: np.ndarray, K_rows: np.ndarray, rows_diag: np.ndarray, indices: np.ndarray
) -> np.ndarray:
    """``||phi(x) - P_j phi(x)||^2`` of n points after projecting on the first j chosen
    points, for every j = 1..k at once, shape (n, k).

    ``K`` (m, m) training kernel; ``K_rows`` (n, m) kernel between the points and the
    training set; ``rows_diag`` (n,) ``k(x, x)``.  The Cholesky features of nested
    index sets are nested, so ``||P_j phi(x)||^2`` is a running sum of squared features.
    """
    indices = np.asarray(indices, dtype=int)
    features = nystrom_features(K_rows[:, indices], nystrom_factor(K[np.ix_(indices, indices)]))
    projected = np.cumsum(features**2, axis=1)
    return np.asarray(np.clip(np.asarray(rows_diag, dtype=float)[:, None] - projected, 0.0, None))


def projection_residuals(k_diag: ArrayLike, F: np.ndarray) -> np.ndarray:
    """``||phi(x) - P phi(x)||^2 = k(x, x) - K[x, i] K[i, i]^{-1} K[i, x]``, clipped at 0.

    The squared distance of each point from the span of the chosen points in feature
    space (Hussain et al. 2011, eq. 7).

    Parameters
    ----------
    k_diag : ndarray of shape (n,)
        ``k(x, x)`` for each point.
    F : ndarray of shape (n, k)
        The points' features (:func:`nystrom_features`).

    Returns
    -------
    ndarray of shape (n,)
        The squared residuals.
    """
    F = check_finite_matrix(F, "F", min_rows=1)
    diag = check_finite_matrix(np.atleast_2d(as_real(k_diag, "k_diag", "a list of numbers")), "k_diag", min_rows=1)
    if diag.shape != (1, F.shape[0]):
        raise ValueError(f"k_diag must hold one value per row of F ({F.shape[0]}), got shape {np.shape(k_diag)}.")
    return np.asarray(np.maximum(diag[0] - np.einsum("ij,ij->i", F, F), 0.0))
