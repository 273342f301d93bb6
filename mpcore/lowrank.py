"""Low-rank tools shared by the labs and the curves: a kernel as ``L L'`` or ``E diag(w) E'``
with a stated error, and orthonormal bases that grow by a few directions.

Each replaces an O(m^3) decomposition of an m x m kernel whose spectrum decays fast (a
smooth kernel on low-dimensional data) by O(m r^2) work for rank r, with the error bound
in its docstring; callers fall back to LAPACK when the rank is too high.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import eigh


def pivoted_cholesky(K: np.ndarray, tolerance: float, limit: int) -> np.ndarray | Literal[False] | None:
    """A low-rank factor of a PSD kernel ``K`` (m, m): ``L`` (m, r) with ``K - L L'`` PSD
    of trace at most ``tolerance``, pivoting on the largest residual diagonal; False if
    that needs more than ``limit`` columns (and ``limit < m``), None if a pivot turns
    negative (K is not PSD).

    The residual is PSD, so its trace bounds its 2-norm: every eigenvalue of ``L L'`` is
    within ``tolerance`` of K's (Weyl).  O(m r^2), one column of K per pivot.
    """
    m = K.shape[0]
    residual = np.diag(K).astype(float)
    if np.any(residual < -tolerance):
        return None
    residual = np.maximum(residual, 0.0)
    L = np.zeros((m, min(m, limit + 1)))
    for r in range(L.shape[1]):
        if residual.sum() <= tolerance:
            return L[:, :r]
        if r == limit:
            return False
        i = int(np.argmax(residual))
        column = K[:, i] - L[:, :r] @ L[i, :r]
        if not column[i] > 0:
            return None
        L[:, r] = column / np.sqrt(column[i])
        residual = residual - L[:, r] ** 2
        if np.any(residual < -tolerance):
            return None
        residual = np.maximum(residual, 0.0)
        residual[i] = 0.0
    return L


def factor_eigen(L: np.ndarray, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of ``L L'`` (m x m, PSD) from the small ``L'L`` side: ``(values (p,),
    vectors (m, p))`` with the eigenvalues above ``floor``, ascending, vectors orthonormal.
    O(m r^2) for L (m, r)."""
    basis, triangle = np.linalg.qr(L)
    values, rotation = np.linalg.eigh(triangle @ triangle.T)
    keep = values > floor
    return values[keep], basis @ rotation[:, keep]


@overload
def low_rank_eigen(
    K: np.ndarray, tolerance: float, limit: int, fallback: Literal[True] = True
) -> tuple[np.ndarray, np.ndarray]: ...


@overload
def low_rank_eigen(
    K: np.ndarray, tolerance: float, limit: int, fallback: bool
) -> tuple[np.ndarray, np.ndarray] | None: ...


def low_rank_eigen(
    K: np.ndarray, tolerance: float, limit: int, fallback: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """Eigenpairs ``(values, vectors)`` of a PSD kernel K within ``2 tolerance`` of it in
    2-norm: those of a :func:`pivoted_cholesky` factor (residual trace at most
    ``tolerance``) above ``tolerance``, O(m p^2).  When the factor would need more than
    ``limit`` columns: LAPACK's eigenpairs above ``tolerance`` (O(m^3)), or None without
    ``fallback``.  A kernel the factor finds indefinite always gets LAPACK's."""
    factor = pivoted_cholesky(K, tolerance, limit)
    if factor is False and not fallback:
        return None
    if factor is None or factor is False:
        values, vectors = eigh(K, subset_by_value=(tolerance, np.inf), driver="evr")
        return np.asarray(values), np.asarray(vectors)
    return factor_eigen(factor, tolerance)


def extend_basis(E: np.ndarray, W: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """Orthonormal columns X, orthogonal to the orthonormal E (m, p), with span(E, X)
    containing span(W) for W (m, q) up to ``rtol`` x ||W||_F: directions of W outside E
    smaller than that are dropped, so X never holds rounding noise.  (m, <= q)."""
    outside = W - E @ (E.T @ W)
    left, sizes, _ = np.linalg.svd(outside, full_matrices=False)
    X = left[:, sizes > rtol * max(float(np.linalg.norm(W)), 1e-300)]  # Frobenius: >= the 2-norm, and cheap
    # a second projection ("twice is enough"): directions found from a tiny remainder
    # carry rounding errors back into span(E) that the first one cannot remove
    return np.linalg.qr(X - E @ (E.T @ X))[0]


def symmetric_products(K: np.ndarray, vectors: ArrayLike, rows: int = 256) -> np.ndarray:
    """``vectors @ K`` for a symmetric K (m, m) and a few vectors (p, m), reading K once.

    A block of ``rows`` rows of K at a time, each vector's product with the block while
    the block is in cache: for two vectors this costs about 1.5 products ``K @ v``, where
    OpenBLAS's (2, m) x (m, m) product costs about 2.5 (measured at m = 4000).  Returns
    (p, m); equals ``K @ vectors.T`` transposed, since K is symmetric.
    """
    vectors = np.asarray(vectors, dtype=float)
    out = np.empty((vectors.shape[0], K.shape[0]))
    for start in range(0, K.shape[0], rows):
        block = K[start : start + rows]
        for number, vector in enumerate(vectors):
            out[number, start : start + rows] = block @ vector
    return out
