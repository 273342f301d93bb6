"""Sparse kernel PCA (Hussain et al. 2011, Alg. 2) and Smola & Schoelkopf's low-rank approximation (Alg. 6)."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import criteria
from ._validation import ELIGIBILITY_RTOL, check_finite_matrix, check_kernel, check_n_steps, check_psd_kernel
from .deflations import CholeskyDeflation
from .engine import PursuitPath, _exhausted, best_index, pursue


def skpca_path(K: ArrayLike, k: int, candidates: int | None = None, seed: int = 0) -> PursuitPath:
    """Sparse kernel PCA by matching pursuit (Hussain et al. 2011, Alg. 2).

    At each step choose ``argmax_i ||K[:, i]||^2 / K[i, i]`` over the current kernel,
    then deflate ``K <- K - tau tau' / K[i, i]`` with ``tau = K[:, i]`` (eq. 5).  This
    is pivoted Cholesky with that pivot rule: ``K_j = K_0 - L_j L_j'`` and
    ``diag(K_j)`` is the residual ``||phi(x) - P phi(x)||^2`` of every training point
    after projecting onto the chosen points (eq. 7).  No feature-space centring (the
    papers do not centre).

    Parameters
    ----------
    K : array (m, m)
        Symmetric positive semi-definite kernel matrix of the training points.
    k : int
        Number of basis points to choose, ``1 <= k < m``.
    candidates : int or None
        If set, score only this many random eligible candidates per step (Smola &
        Schoelkopf's "59 trick"); the rest get ``nan`` scores.
    seed : int
        Seed of ``numpy.random.default_rng`` for ``candidates``.

    Returns
    -------
    PursuitPath
        ``extras["residuals"]``: array (n_steps + 1, m), the training residuals
        ``diag(K_j)`` after each step; ``extras["L"]``: the Cholesky factor (m, n_steps).

    Notes
    -----
    Cost: one product ``K @ u`` plus O(m j) per step, O(k m^2) in all.

    Numerical note: unlike pivoted Cholesky's largest-diagonal rule, this criterion
    can choose a point whose residual is tiny but well aligned with the others; on
    numerically low-rank kernels round-off then grows like 1 / (smallest pivot), so
    late deflated kernels may be indefinite at that level.  The explicit Alg. 6 does
    the same (same indices), so this is the algorithm, not the implementation.
    """
    K = check_psd_kernel(K)
    m = K.shape[0]
    k = check_n_steps(k, m)
    if candidates is not None:
        if isinstance(candidates, bool) or not isinstance(candidates, numbers.Integral) or candidates < 1:
            raise ValueError(f"candidates must be a whole number of at least 1 (or None for all), got {candidates!r}.")
    state = CholeskyDeflation(K)
    path = pursue(
        state,
        criteria.skpca,
        k,
        candidates=candidates,
        rng=np.random.default_rng(seed),
        algorithm="Sparse KPCA",
        criterion_name="||K[:, i]||^2 / K[i, i]",
        deflation_name="K - tau tau' / K[i, i]",
    )
    return replace(path, extras={"residuals": np.array(state.diag_history), "L": state.L.view.copy()})


class ColumnsPath(NamedTuple):
    """The result of :func:`skpca_columns_path`: ``indices`` chosen (n_steps,), ``L`` the
    Cholesky factor (m, n_steps) with ``K0 ~ L L'``, ``residuals`` the training residuals
    ``diag(K0 - L L')`` (m,), ``stop_reason`` (None, or why it stopped early)."""

    indices: np.ndarray
    L: np.ndarray
    residuals: np.ndarray
    stop_reason: str | None


def skpca_columns_path(
    columns: Callable[[np.ndarray], np.ndarray], diag: ArrayLike, k: int, candidates: int, seed: int = 0
) -> ColumnsPath:
    """Sparse kernel PCA with the "59 trick", never forming the m x m kernel (Hussain et al. 2011
    Alg. 2 with Smola & Schoelkopf's random candidates).

    Parameters
    ----------
    columns : callable ``idx -> K0[:, idx]`` (m, len(idx)), e.g. kernel columns computed
        from the inputs on demand.
    diag : array (m,)   ``K0[i, i]``.
    k : int   steps, ``1 <= k < m``.
    candidates : int   random eligible candidates scored per step (their deflated columns
        ``K0[:, c] - L L[c]'`` are computed exactly).
    seed : int   seed of ``numpy.random.default_rng``.

    Picks what ``skpca_path(K0, k, candidates=candidates, seed=seed)`` picks (the same
    draws from the same pool of eligible points, the same exact scores; the test suite
    checks it) at O(m c (d + j)) per step and O(m (c + k)) memory: m = 100,000 fits.
    Returns a :class:`ColumnsPath`.
    """
    d = np.array(check_finite_matrix(np.asarray(diag, dtype=float)[None, :], "diag", min_rows=1)[0], dtype=float)
    m = d.size
    k = check_n_steps(k, m)
    if isinstance(candidates, bool) or not isinstance(candidates, numbers.Integral) or candidates < 1:
        raise ValueError(f"candidates must be a whole number of at least 1, got {candidates!r}.")
    threshold = ELIGIBILITY_RTOL * max(float(d.max()), 0.0)
    rng = np.random.default_rng(seed)
    L = np.zeros((m, k))
    chosen, refused = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    indices: list[int] = []
    stop_reason: str | None = None
    if threshold <= 0:
        stop_reason = "kernel is zero: no candidate has a positive residual, so nothing can be chosen."
    while stop_reason is None and len(indices) < k:
        pool = np.flatnonzero((d > threshold) & ~chosen & ~refused)
        if pool.size == 0:
            stop_reason = _exhausted(len(indices))
            break
        keep = rng.choice(pool, size=candidates, replace=False) if pool.size > candidates else pool
        j = len(indices)
        block = np.asarray(columns(keep), dtype=float) - L[:, :j] @ L[keep, :j].T  # deflated columns (m, c)
        scores = np.full(m, np.nan)
        scores[keep] = np.einsum("ij,ij->j", block, block) / d[keep]
        i = best_index(scores)
        column = block[:, int(np.flatnonzero(keep == i)[0])]
        pivot = column[i]
        if not pivot > threshold:  # round-off: never offered again, as in the engine
            refused[i] = True
            continue
        u = column / np.sqrt(pivot)
        d = np.maximum(d - u * u, 0.0)
        d[i] = 0.0
        L[:, j] = u
        chosen[i] = True
        indices.append(i)
    n = len(indices)
    return ColumnsPath(np.asarray(indices, dtype=int), L[:, :n], d, stop_reason)


def smola_scholkopf_path(K: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Smola & Schoelkopf's greedy low-rank approximation (Hussain et al. 2011, Alg. 6), as printed.

    The explicit algorithm that sparse KPCA (:func:`skpca_path`) is proved to match
    (Hussain et al. 2011, Thm 5): it chooses the same points.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite kernel matrix of the training points.
    k : int
        Number of points to choose, ``1 <= k < m``.

    Returns
    -------
    indices : ndarray of shape (n_steps,)
        The chosen points, in order.
    approximation : ndarray of shape (m, m)
        The low-rank approximation of K they give (``K - approximation`` is Alg. 2's
        deflated kernel).
    """
    K = check_psd_kernel(K)
    m = K.shape[0]
    k = check_n_steps(k, m)
    threshold = ELIGIBILITY_RTOL * float(np.diag(K).max())
    indices: list[int] = []
    T = np.zeros((0, m))
    for _ in range(k):
        residual = K - K[:, indices] @ T
        residual_diag = np.diag(residual)
        eligible = residual_diag > threshold
        eligible[indices] = False
        if not eligible.any():
            break
        scores = np.full(m, -np.inf)
        column_sums = np.einsum("ij,ij->j", residual, residual)  # one pass, no copy of the eligible columns
        scores[eligible] = column_sums[eligible] / residual_diag[eligible]
        i = int(np.argmax(scores))
        gap = residual_diag[i]
        t = np.concatenate([-T[:, i], [1.0]]) / gap
        T = np.vstack([T, np.zeros(m)]) + np.outer(t, residual[:, i])
        indices.append(i)
    return np.asarray(indices, dtype=int), K[:, indices] @ T


class Theorem5Check(NamedTuple):
    """The outcome of :func:`check_theorem5`.

    ``steps`` compared; ``same``: both chose the same points in the same order; at the
    first difference (``step``, 1-based): ``ours``/``theirs`` the two picks and
    ``exact_scores`` their criterion on the exactly deflated kernel ``K - L L'`` (the
    larger one is the pick of exact arithmetic) and ``residuals`` their ``K_j[i, i]``.
    """

    steps: int
    same: bool
    first_difference: int | None
    seconds: float
    ours: int | None = None
    theirs: int | None = None
    exact_scores: tuple[float, ...] | None = None
    residuals: tuple[float, ...] | None = None


def check_theorem5(K: np.ndarray, path: PursuitPath, max_flops: float = 4e9) -> Theorem5Check:
    """Hussain et al. 2011, Thm 5, live: run Smola & Schoelkopf's Alg. 6 (:func:`smola_scholkopf_path`)
    on ``K`` (m, m) and compare its picks with those of ``path`` (:func:`skpca_path`'s
    Alg. 2, on the same ``K``).

    Alg. 6 as printed costs about ``m^2 j`` per step j, so only the first
    ``t = min(n_steps, sqrt(2 max_flops) / m)`` steps are compared (all of them at the
    app's default sizes).  At a difference the two picks are scored on the exact deflated
    kernel, so the answer says which algorithm rounding led astray: Alg. 2 tracks column
    norms by updates, whose error is absolute, so a point with a tiny residual gets a
    score a few percent off; Alg. 6 forms ``K - K_hat T`` explicitly.
    """
    import time

    K = check_kernel(K)
    indices = np.asarray(path.indices, dtype=int)
    m = K.shape[0]
    steps = int(min(indices.size, max(1, np.sqrt(2 * max_flops) / m)))
    started = time.perf_counter()
    theirs, _ = smola_scholkopf_path(K, steps)
    seconds = time.perf_counter() - started
    ours = indices[:steps]
    n = min(theirs.size, ours.size)
    differ = np.flatnonzero(theirs[:n] != ours[:n])
    if not differ.size:
        first = None if theirs.size == ours.size else n + 1
        return Theorem5Check(steps, first is None, first, seconds)
    j = int(differ[0])
    exact = path.deflated_kernel(j)
    picks = (int(ours[j]), int(theirs[j]))
    scores = tuple(float(exact[:, i] @ exact[:, i] / exact[i, i]) for i in picks)
    return Theorem5Check(
        steps, False, j + 1, seconds, picks[0], picks[1], scores, tuple(float(exact[i, i]) for i in picks)
    )
