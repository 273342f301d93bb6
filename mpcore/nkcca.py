"""Nystroem kernel CCA with uniform or ridge-leverage column selection (Wang 2016).

Notation of Wang 2016: N points, kernels K1, K2, ``H = I - 11'/N``, ``Kc = H K H``,
regularisations lambda1, lambda2.  Exact KCCA uses
``T = (Kc1 + N l1 I)^{-1} Kc1 Kc2 (Kc2 + N l2 I)^{-1}`` (eq. 3, see
:func:`mpcore.cca.kcca`).  Nystroem KCCA replaces each ``K`` by
``L = K S (S'KS)^+ S'K`` built from sampled columns; by eq. 15

    (L_c + N l I)^{-1} L_c = A G^{-1} A',   A = H K S (N x M),   G = N l S'KS + A'A (M x M).

Forming G squares the condition number of ``W = S'KS``, which grows fast with close
landmarks, so the same operator is computed from the landmarks' feature coordinates
``F`` (``L = F F'``): with the centred ``H F = U s V'`` it is ``U diag(s^2 / (s^2 + N l)) U'``,
and ``T~ = U1 [d1 U1'U2 d2] U2'`` and its SVD come from an M1 x M2 "core" matrix: no N x N
matrix is ever formed.  A landmark is left out only where it is dependent on the others
to round-off at the kernel's scale.
``L`` does not depend on the scaling ``1/sqrt(M p_i)`` of the sampling matrix, and a
column sampled twice adds nothing, so only the distinct sampled indices are used.

The small dense problems in the loops use NumPy's LAPACK: NumPy and SciPy each bring
their own OpenBLAS thread pool, and alternating between them, each pool's threads
spinning while the other works, made these calls several times slower on two cores.
"""

from __future__ import annotations

import functools
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cholesky, eigh, solve_triangular

from ._validation import (
    check_choice,
    check_finite_matrix,
    check_indices,
    check_kernel,
    check_positive,
    check_psd_kernel,
    check_same_rows,
)
from .cca import KCCAResult, _check_directions
from .lowrank import extend_basis

SAMPLINGS = ("uniform", "ridge-leverage")

#: Above this many points, exact leverage scores (an O(N^3) eigendecomposition) give way
#: to the approximate method.
EXACT_LEVERAGE_MAX_N = 3000

EPS = float(np.finfo(float).eps)

#: An incremental update whose new feature column is further than this from zero at the
#: earlier landmarks (where it vanishes in exact arithmetic) lost accuracy to cancellation;
#: its view is refreshed before the next solve.
LOST_ACCURACY = 1e-11


def ridge_leverage_scores(
    K: ArrayLike, gamma: float, method: str = "auto", n_landmarks: int | None = None, seed: int = 0
) -> np.ndarray:
    """The gamma-ridge leverage scores ``l_i = (K (K + N gamma I)^{-1})_ii`` (Wang 2016, eq. 10).

    The sum of the scores is the effective dimension ``d_eff`` (eq. 11).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        A kernel matrix.
    gamma : float
        The ridge, positive.
    method : {"auto", "exact", "approximate"}, default="auto"
        ``"exact"``: one eigendecomposition (O(N^3)); ``"approximate"``: a uniform
        Nystroem sketch with ``n_landmarks`` columns C, W,
        ``l_i ~ (K_ii - (C (W + N gamma I)^{-1} C')_ii) / (N gamma)``, from the identity
        ``l_i = (K - K (K + N gamma I)^{-1} K)_ii / (N gamma)`` with the sketch in place
        of K inside (Alaoui & Mahoney 2015, sec. 3.5 in spirit), clipped to [0, 1];
        ``"auto"``: exact up to N = 3000.
    n_landmarks : int or None, default=None
        The sketch's columns for ``"approximate"`` (None: ``min(N, max(200, 4 sqrt(N)))``).
    seed : int, default=0
        Seed of the sketch's uniform draw.

    Returns
    -------
    ndarray of shape (N,)
        The scores, each in [0, 1].
    """
    K = check_kernel(K)
    gamma = check_positive(gamma, "The leverage-score parameter gamma")
    check_choice(method, ("auto", "exact", "approximate"), "leverage-score method")
    N = K.shape[0]
    if method == "exact" or (method == "auto" and N <= EXACT_LEVERAGE_MAX_N):
        values, vectors = eigh(K)
        return leverage_from_eigen(values, vectors, gamma)
    S = sketch_landmarks(N, n_landmarks, seed)
    return leverage_from_sketch(K[:, S], K[np.ix_(S, S)], np.diag(K), gamma)


def sketch_landmarks(N: int, n_landmarks: int | None = None, seed: int = 0) -> np.ndarray:
    """The uniform sketch of the approximate leverage scores: ``n_landmarks`` (default
    ``min(N, max(200, 4 sqrt(N)))``) sorted distinct indices."""
    M = n_landmarks or min(N, max(200, int(4 * np.sqrt(N))))
    return np.sort(np.random.default_rng(seed).choice(N, size=M, replace=False))


def leverage_from_sketch(
    C: np.ndarray | Callable[[np.ndarray], np.ndarray],
    W: np.ndarray,
    diag: ArrayLike,
    gamma: float,
    rows: int = 4096,
) -> np.ndarray:
    """Approximate ridge leverage scores from a sketch's columns, block W (M, M) and the
    kernel's diagonal (N,): ``(K_ii - (C (W + N gamma I)^{-1} C')_ii) / (N gamma)``
    clipped to [0, 1] (:func:`ridge_leverage_scores`' ``"approximate"``).

    ``C``: the columns (N, M), or a callable ``rows -> C[rows]`` that computes them a
    block of ``rows`` at a time, so that only (rows, M) is ever held.
    """
    diag = np.asarray(diag, dtype=float)
    N, M = diag.size, W.shape[0]
    block_of: Callable[[np.ndarray], np.ndarray] = C if callable(C) else (lambda index: C[index])
    factor = cholesky(W + N * gamma * np.eye(M), lower=True)
    approx_diag = np.empty(N)
    for start in range(0, N, rows):
        index = np.arange(start, min(start + rows, N))
        Z = solve_triangular(factor, block_of(index).T, lower=True, check_finite=False)
        approx_diag[index] = np.einsum("ij,ij->j", Z, Z)
    return np.clip((diag - approx_diag) / (N * gamma), 0.0, 1.0)


def leverage_from_eigen(values: np.ndarray, vectors: np.ndarray, gamma: float) -> np.ndarray:
    """Ridge leverage scores (N,) from eigenpairs of K (values (p,), vectors (N, p)).

    With all N pairs they are exact; with only those above some floor, each score is
    short by at most ``floor / (N gamma)`` (a dropped direction adds ``v_i^2 l / (l + N
    gamma)`` with ``l <= floor``)."""
    values = np.maximum(values, 0.0)
    N = vectors.shape[0]
    return np.asarray(np.einsum("ij,j->i", vectors**2, values / (values + N * gamma)))


def sample_columns(
    K: ArrayLike,
    M: int,
    sampling: str = "uniform",
    gamma: float | None = None,
    seed: int = 0,
    scores: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sample M landmark columns (Wang 2016, sec. 2.1).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        The kernel matrix (used for ridge-leverage scores).
    M : int
        The number of draws.
    sampling : {"uniform", "ridge-leverage"}, default="uniform"
        ``uniform``: M distinct indices without replacement.  ``ridge-leverage``: M draws
        with replacement, ``p_i = l_i / sum(l)`` (eq. 12 with beta = 1).
    gamma : float or None, default=None
        The leverage scores' ridge (needed for ``ridge-leverage`` unless ``scores`` is given).
    seed : int, default=0
        Seed of ``numpy.random.default_rng``.
    scores : ndarray of shape (N,) or None, default=None
        Precomputed leverage scores to reuse.

    Returns
    -------
    indices : ndarray of shape (M,)
        In order of drawing.
    weights : ndarray of shape (M,)
        The sampling matrix entries ``1 / sqrt(M p_i)`` (Lemma 3; all ones for uniform).
    """
    check_choice(sampling, SAMPLINGS, "sampling")
    K = check_kernel(K)
    N = K.shape[0]
    if isinstance(M, bool) or not isinstance(M, numbers.Integral) or not 1 <= M <= N:
        raise ValueError(f"The rank M must be a whole number between 1 and the number of points ({N}), got {M!r}.")
    if sampling == "ridge-leverage" and scores is None:
        if gamma is None:
            raise ValueError("ridge-leverage sampling needs gamma (or precomputed scores).")
        scores = ridge_leverage_scores(K, gamma)
    return draw_landmarks(N, M, sampling, scores, seed)


def draw_landmarks(
    N: int, M: int, sampling: str = "uniform", scores: ArrayLike | None = None, seed: int | np.random.Generator = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The draws of :func:`sample_columns` from N points without a kernel: ``(indices,
    weights)``; ``ridge-leverage`` needs the ``scores`` (N,)."""
    rng = np.random.default_rng(seed)
    if sampling == "uniform":
        return rng.choice(N, size=M, replace=False), np.ones(M)
    return _leverage_draws(scores, M, rng)


def _leverage_draws(scores: ArrayLike | None, M: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """M draws with replacement, ``p_i = l_i / sum(l)``, and their weights ``1/sqrt(M p_i)``."""
    p = np.maximum(np.asarray(scores, dtype=float), 0.0)
    p = p / p.sum()
    indices = rng.choice(p.size, size=M, replace=True, p=p)
    return indices, 1.0 / np.sqrt(M * p[indices])


def _distinct_in_order(indices: ArrayLike) -> np.ndarray:
    _, first = np.unique(indices, return_index=True)
    return np.asarray(indices)[np.sort(first)]


def _psd_solve(G: np.ndarray, B: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """``G^+ B`` for a symmetric PSD G via its eigendecomposition (robust to near-dependence)."""
    values, vectors = np.linalg.eigh(G)
    keep = values > rtol * max(float(values.max()), 1e-300)
    return np.asarray(vectors[:, keep] @ ((vectors[:, keep].T @ B) / values[keep, None]))


@dataclass(frozen=True)
class NystromKCCAResult:
    """Nystroem KCCA solution.

    ``correlations`` (L,): top singular values of ``T~``; ``alpha``, ``beta`` (N, L):
    dual coefficients for ``f(x) = k(x)' H alpha`` (eq. 16-17); ``indices1``,
    ``indices2``: the distinct landmarks used; ``core``: the M1 x M2 core matrix;
    ``Q1``, ``Q2``: orthonormal bases with ``T~ = Q1 core Q2'``.
    """

    correlations: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    indices1: np.ndarray
    indices2: np.ndarray
    core: np.ndarray
    Q1: np.ndarray
    Q2: np.ndarray

    def T_apply(self, V: np.ndarray) -> np.ndarray:
        """``T~ @ V`` without forming T~ (N x N).

        Parameters
        ----------
        V : ndarray of shape (N, p)
            The matrix to multiply.

        Returns
        -------
        ndarray of shape (N, p)
            ``Q1 core Q2' V``.
        """
        return np.asarray(self.Q1 @ (self.core @ (self.Q2.T @ V)))

    def T_tilde(self) -> np.ndarray:
        """The N x N matrix ``T~`` (for small N and plots only).

        Returns
        -------
        ndarray of shape (N, N)
            ``Q1 core Q2'``.
        """
        return np.asarray(self.Q1 @ self.core @ self.Q2.T)


#: One view's ``(U, d)`` for eq. 15: ``(L_c + N l I)^{-1} L_c = U diag(d) U'``, U orthonormal.
Factors = tuple[np.ndarray, np.ndarray]


def _dependent(pivot: float, scale: float, size: int) -> bool:
    """Whether a landmark's Schur pivot in W is round-off: at most ``size * eps * scale``, with
    ``scale`` the size of W (its trace, an upper bound of its norm).  A smaller pivot is not
    known to a single digit in floating point; any larger one is a real direction of the
    feature space, however ill-conditioned W becomes, and is kept."""
    return not pivot > size * EPS * scale


def _view_factors(K: np.ndarray, indices: np.ndarray, reg: float) -> Factors:
    columns = K[indices].T  # K is symmetric: rows gather contiguously, columns do not
    return _factors_from_columns(columns, K[np.ix_(indices, indices)], reg)


def _factors_from_columns(C: np.ndarray, W: np.ndarray, reg: float) -> Factors:
    """The eigenvectors U and values d of ``(L_c + N l I)^{-1} L_c`` from the landmark columns
    C = K S (N, M) and W = S'K S (M, M), without squaring W's condition number.

    ``L = F F'`` with the landmarks' feature coordinates F (:func:`_feature_coordinates`); with
    ``H F = U s V'``, ``(L_c + N l I)^{-1} L_c = U diag(s^2 / (s^2 + N l)) U'``, which eq. 15's
    ``A G^{-1} A'`` equals (``G = N l W + A'A`` would square W's condition number)."""
    F = _feature_coordinates(C, W)
    U, s, _ = np.linalg.svd(F - F.mean(axis=0), full_matrices=False)
    return U, s**2 / (s**2 + C.shape[0] * reg)


def _feature_coordinates(C: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``F`` with ``F F' = C W^+ C'``: ``C R^{-1}`` with W's Cholesky factor R where every pivot
    is above round-off (the small ones then keep their digits, which W's small eigenvalues
    would not); else ``C V diag(w)^{-1/2}`` over W's eigenvalues above round-off
    (:func:`_dependent`)."""
    scale, size = float(np.trace(W)), W.shape[0]
    try:
        L = np.linalg.cholesky(W)  # W = L L'
    except np.linalg.LinAlgError:
        L = None
    if L is not None and not any(_dependent(float(p) ** 2, scale, size) for p in np.diag(L)):
        return np.asarray(np.linalg.solve(L, C.T).T)
    w, V = np.linalg.eigh(W)
    keep = np.array([not _dependent(float(value), scale, size) for value in w], dtype=bool)
    return np.asarray(C @ (V[:, keep] / np.sqrt(w[keep])))


def nystrom_kcca(
    K1: ArrayLike,
    K2: ArrayLike,
    indices1: ArrayLike,
    indices2: ArrayLike,
    reg1: float = 1e-3,
    reg2: float = 1e-3,
    n_directions: int = 1,
) -> NystromKCCAResult:
    """Nystroem KCCA from given landmark columns, never forming an N x N matrix (Wang 2016, eq. 15).

    Cost O(M^2 N + M^3) for M landmarks per view.

    Parameters
    ----------
    K1, K2 : ndarray of shape (N, N)
        The two views' kernel matrices (only the landmarks' columns are read).
    indices1, indices2 : array-like of int
        Each view's landmark columns (repeats allowed: leverage sampling draws with
        replacement; the distinct ones are used).
    reg1, reg2 : float, default=1e-3
        The ridges lambda1, lambda2, positive.
    n_directions : int, default=1
        The number L of canonical directions.

    Returns
    -------
    NystromKCCAResult
        Correlations, dual coefficients and the low-rank form of T~.

    Examples
    --------
    >>> import numpy as np
    >>> import mpcore
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> K1 = mpcore.kernel_matrix(X, gamma=0.5)
    >>> K2 = mpcore.kernel_matrix(X ** 2, gamma=0.5)
    >>> landmarks = np.arange(0, 200, 4)  # 50 columns per view
    >>> approx = mpcore.nystrom_kcca(K1, K2, landmarks, landmarks)
    >>> exact = mpcore.kcca(K1, K2)
    >>> bool(abs(approx.correlations[0] - exact.correlations[0]) < 0.05)
    True
    """
    K1, K2 = check_psd_kernel(K1, "K1"), check_psd_kernel(K2, "K2")
    check_same_rows(K1, K2, ("K1", "K2"))
    reg1 = check_positive(reg1, "The regularisation lambda1")
    reg2 = check_positive(reg2, "The regularisation lambda2")
    n_directions = _check_directions(n_directions)
    N = K1.shape[0]
    i1 = check_indices(indices1, N, "indices1", unique=False)
    i2 = check_indices(indices2, N, "indices2", unique=False)
    return _nystrom_kcca(K1, K2, i1, i2, reg1, reg2, n_directions)


def _nystrom_kcca(
    K1: np.ndarray,
    K2: np.ndarray,
    indices1: ArrayLike,
    indices2: ArrayLike,
    reg1: float,
    reg2: float,
    n_directions: int = 1,
) -> NystromKCCAResult:
    """:func:`nystrom_kcca` on checked inputs (the labs' loops: checking two N x N
    kernels per call cost more than the solve)."""
    i1, i2 = _distinct_in_order(indices1), _distinct_in_order(indices2)
    return _solve_eq15(_view_factors(K1, i1, reg1), _view_factors(K2, i2, reg2), reg1, reg2, n_directions, i1, i2)


def nystrom_kcca_from_columns(
    C1: ArrayLike,
    W1: ArrayLike,
    C2: ArrayLike,
    W2: ArrayLike,
    reg1: float = 1e-3,
    reg2: float = 1e-3,
    n_directions: int = 1,
    indices1: ArrayLike | None = None,
    indices2: ArrayLike | None = None,
) -> NystromKCCAResult:
    """:func:`nystrom_kcca` from each view's landmark columns alone, never an N x N matrix.

    ``C1`` (N, M1): the kernel between all N points and view 1's distinct landmarks,
    ``W1`` (M1, M1): among the landmarks (likewise C2, W2): what kernel columns computed
    from the inputs on demand give.  ``indices1``, ``indices2``: the landmarks' row
    numbers, recorded in the result.  O(N M^2) time, O(N M) memory.
    """
    C1, C2 = (check_finite_matrix(C, name, min_rows=2) for C, name in ((C1, "C1"), (C2, "C2")))
    W1, W2 = (check_finite_matrix(W, name, square=True, min_rows=1) for W, name in ((W1, "W1"), (W2, "W2")))
    if C1.shape[0] != C2.shape[0] or C1.shape[1] != W1.shape[0] or C2.shape[1] != W2.shape[0]:
        raise ValueError(
            f"The columns must share their rows and match their landmark blocks: C1 {C1.shape}, "
            f"W1 {W1.shape}, C2 {C2.shape}, W2 {W2.shape}."
        )
    reg1 = check_positive(reg1, "The regularisation lambda1")
    reg2 = check_positive(reg2, "The regularisation lambda2")
    i1 = np.arange(C1.shape[1]) if indices1 is None else np.asarray(indices1, dtype=int)
    i2 = np.arange(C2.shape[1]) if indices2 is None else np.asarray(indices2, dtype=int)
    return _solve_eq15(
        _factors_from_columns(C1, W1, reg1),
        _factors_from_columns(C2, W2, reg2),
        reg1,
        reg2,
        _check_directions(n_directions),
        i1,
        i2,
    )


def _solve_eq15(
    view1: Factors, view2: Factors, reg1: float, reg2: float, n_directions: int, i1: np.ndarray, i2: np.ndarray
) -> NystromKCCAResult:
    """Eq. 15 from each view's ``(U, d)``: ``T~ = U1 [d1 U1'U2 d2] U2'``."""
    (U1, d1), (U2, d2) = view1, view2
    N = U1.shape[0]
    core = d1[:, None] * (U1.T @ U2) * d2[None, :]
    u, s, vt = np.linalg.svd(core, full_matrices=False)
    L = min(n_directions, s.size)
    alpha_p, beta_p = U1 @ u[:, :L], U2 @ vt[:L].T
    # (L_c + N l I)^{-1} = (I - U diag(d) U') / (N l)
    alpha = np.sqrt(N) / (N * reg1) * (alpha_p - U1 @ (d1[:, None] * (U1.T @ alpha_p)))
    beta = np.sqrt(N) / (N * reg2) * (beta_p - U2 @ (d2[:, None] * (U2.T @ beta_p)))
    return NystromKCCAResult(s[:L], alpha, beta, i1, i2, core, U1, U2)


class _IncrementalView:
    """One view's landmarks added one at a time (Wang 2016, Alg. 1): the feature coordinates F
    of every point on the landmarks so far (``L = F F'``, an incomplete Cholesky of K in the
    landmarks' order) and the thin QR of the centred ``H F = Q P`` each grow by one column.

    An update that loses accuracy to cancellation (a landmark nearly dependent on those
    before it) leaves the view stale: before the next solve, :meth:`settle` refreshes it from
    every landmark so far, F as the refit computes it (:func:`_feature_coordinates`)."""

    def __init__(self, K: np.ndarray, reg: float) -> None:
        self.K, self.reg, self.N = K, reg, K.shape[0]
        self.indices: list[int] = []
        self.F = np.zeros((self.N, 0))
        self.Q = np.zeros((self.N, 0))
        self.P = np.zeros((0, 0))
        self.trace = 0.0  # of W: the scale at which a pivot is round-off
        self.root_diagonal = float(np.sqrt(np.max(np.diag(K))))
        self.stale = False
        self.refreshes = 0

    def add(self, i: int) -> bool:
        """Add landmark ``i``; False when it repeats one already in.  Afterwards the last column
        of Q is new if Q grew by one."""
        if i in self.indices:
            return False
        self.indices.append(i)
        self.trace += float(self.K[i, i])
        if self.stale:
            return True  # the next settle recomputes from every landmark
        r = self.F[i]  # landmark i's coordinates on the landmarks so far
        pivot = float(self.K[i, i] - r @ r)
        if _dependent(pivot, self.trace, len(self.indices)):
            self.stale = True  # whether W^+ leaves it out is the refit's eigenvalue cut to say
            return True
        f = (self.K[:, i] - self.F @ r) / np.sqrt(pivot)
        # f vanishes at the landmarks before i in exact arithmetic (elsewhere it is at most
        # the kernel's largest root diagonal): what it holds there is the update's own
        # error, amplified by 1 / sqrt(pivot)
        if np.abs(f[self.indices[:-1]]).max(initial=0.0) > LOST_ACCURACY * self.root_diagonal:
            self.stale = True
            return True
        self.F = np.column_stack([self.F, f])
        self._grow_qr(f - f.mean())
        return True

    def settle(self) -> bool:
        """Refresh a stale view; True when it did (Q is then new throughout)."""
        if not self.stale:
            return False
        S = np.asarray(self.indices)
        self.F = _feature_coordinates(self.K[S].T, self.K[np.ix_(S, S)])
        self.Q, self.P = np.linalg.qr(self.F - self.F.mean(axis=0))
        self.stale = False
        self.refreshes += 1
        return True

    def _grow_qr(self, a: np.ndarray) -> None:
        p = self.Q.T @ a
        v = a - self.Q @ p
        p2 = self.Q.T @ v  # re-orthogonalise once (classical Gram-Schmidt, twice is enough)
        v, p = v - self.Q @ p2, p + p2
        norm = float(np.linalg.norm(v))
        q = self.Q.shape[1]
        if norm > self.N * EPS * float(np.linalg.norm(a)):
            self.P = np.block([[self.P, p[:, None]], [np.zeros((1, self.P.shape[1])), np.full((1, 1), norm)]])
            self.Q = np.column_stack([self.Q, v / norm])
        else:
            # the centred column is in the span of the others (with every point a landmark,
            # centring leaves N - 1 directions): Q keeps its basis and P gains a column.
            self.P = np.column_stack([self.P, p]) if q else np.zeros((0, self.P.shape[1] + 1))

    def factors(self) -> tuple[np.ndarray, np.ndarray]:
        """``(a, d)`` with ``(L_c + N l I)^{-1} L_c = (Q a) diag(d) (Q a)'``."""
        a, s, _ = np.linalg.svd(self.P, full_matrices=False)
        return a, s**2 / (s**2 + self.N * self.reg)


def nystrom_kcca_path(
    K1: ArrayLike,
    K2: ArrayLike,
    indices1: ArrayLike,
    indices2: ArrayLike,
    ranks: ArrayLike,
    reg1: float = 1e-3,
    reg2: float = 1e-3,
    compare_refit: bool = True,
) -> dict[str, np.ndarray]:
    """Canonical correlation of Nystroem KCCA at several ranks, incrementally (Wang 2016, Alg. 1).

    Landmarks are added one at a time in the given order; the QR factors of
    ``A = H K S``, the Cholesky factor of ``G`` and the core ``A1'A2`` grow by one
    row/column each, so a solution at every rank in ``ranks`` costs only the small SVD.

    Parameters
    ----------
    K1, K2 : ndarray of shape (N, N)
        The two views' kernel matrices.
    indices1, indices2 : array-like of int
        Each view's landmarks in the order they are added.
    ranks : array-like of int
        The ranks (numbers of landmarks) at which to solve, increasing.
    reg1, reg2 : float, default=1e-3
        The ridges, positive.
    compare_refit : bool, default=True
        Also solve the same ranks from scratch with :func:`nystrom_kcca`, timed side by side.

    Returns
    -------
    dict
        ``ranks`` (R,), ``correlations`` (R,), ``seconds_incremental`` (R,) cumulative
        time to reach each rank, ``seconds_refit`` (R,) cumulative time of refitting at
        every rank so far, ``speedup`` (R,) their ratio (Wang 2016, Fig. 1(d)).
    """
    K1, K2 = check_psd_kernel(K1, "K1"), check_psd_kernel(K2, "K2")
    check_same_rows(K1, K2, ("K1", "K2"))
    reg1 = check_positive(reg1, "The regularisation lambda1")
    reg2 = check_positive(reg2, "The regularisation lambda2")
    ranks = sorted(int(r) for r in check_indices(ranks, K1.shape[0] + 1, "ranks"))
    if ranks[0] < 1:
        raise ValueError("ranks must be a non-empty list of whole numbers of at least 1.")
    N = K1.shape[0]
    order1 = _distinct_in_order(check_indices(indices1, N, "indices1", unique=False))
    order2 = _distinct_in_order(check_indices(indices2, N, "indices2", unique=False))
    if ranks[-1] > min(order1.size, order2.size):
        raise ValueError(
            f"The largest rank ({ranks[-1]}) exceeds the number of distinct landmarks "
            f"({min(order1.size, order2.size)})."
        )
    view1, view2 = _IncrementalView(K1, reg1), _IncrementalView(K2, reg2)
    correlations, inc_times = [], []
    start = time.perf_counter()
    cursor = 0
    cross = np.zeros((0, 0))  # Q1'Q2, grown by a row and a column as the bases grow
    for r in ranks:
        while cursor < r:
            q1, q2 = view1.Q.shape[1], view2.Q.shape[1]
            view1.add(int(order1[cursor]))
            view2.add(int(order2[cursor]))
            if view1.Q.shape[1] > q1:
                cross = np.vstack([cross, view1.Q[:, -1] @ view2.Q[:, :q2]])
            if view2.Q.shape[1] > q2:
                cross = np.column_stack([cross, view1.Q.T @ view2.Q[:, -1]])
            cursor += 1
        if view1.settle() | view2.settle():
            cross = view1.Q.T @ view2.Q
        (a1, d1), (a2, d2) = view1.factors(), view2.factors()
        core = d1[:, None] * (a1.T @ cross @ a2) * d2[None, :]
        correlations.append(np.linalg.svd(core, compute_uv=False)[0] if core.size else 0.0)
        inc_times.append(time.perf_counter() - start)
    out = {
        "ranks": np.asarray(ranks),
        "correlations": np.asarray(correlations),
        "seconds_incremental": np.asarray(inc_times),
    }
    if compare_refit:
        refit, total = [], 0.0
        for r in ranks:
            t0 = time.perf_counter()
            _nystrom_kcca(K1, K2, order1[:r], order2[:r], reg1, reg2)
            total += time.perf_counter() - t0
            refit.append(total)
        out["seconds_refit"] = np.asarray(refit)
        out["speedup"] = out["seconds_refit"] / np.maximum(out["seconds_incremental"], 1e-12)
    return out


def approximation_error(exact: KCCAResult, approx: NystromKCCAResult) -> dict[str, float]:
    """How far Nystroem KCCA is from exact KCCA (Wang 2016, Fig. 1(b), (c)).

    Both T and T~ are low-rank (``E1 middle E2'`` and ``Q1 core Q2'``), so their
    difference lives in span(E1, Q1) x span(E2, Q2): its norm is that of a small matrix,
    exact, in O(N (p + M)^2), never forming an N x N matrix.

    Parameters
    ----------
    exact : KCCAResult
        From :func:`mpcore.kcca`.
    approx : NystromKCCAResult
        From :func:`nystrom_kcca`, on the same kernels.

    Returns
    -------
    dict
        ``rho``: ``|rho - rho~|``; ``T``: ``||T - T~||`` (spectral norm); ``alpha``:
        ``||alpha - alpha~|| / sqrt(N)`` for the first direction, with the sign of
        ``alpha~`` aligned to ``alpha`` (the kernel-stability quantity of Fig. 1(c)).
    """
    if not isinstance(exact, KCCAResult) or not isinstance(approx, NystromKCCAResult):
        raise TypeError(
            "approximation_error compares the result of mpcore.kcca (exact) with that of "
            f"mpcore.nystrom_kcca (approx); got {type(exact).__name__} and {type(approx).__name__}."
        )
    if exact.factors is None:
        raise ValueError("The exact KCCA result has no factors of T; compute it with mpcore.kcca.")
    E1, middle, E2 = exact.factors
    left = np.hstack([E1, extend_basis(E1, approx.Q1)])
    right = np.hstack([E2, extend_basis(E2, approx.Q2)])
    small = -(left.T @ approx.Q1) @ approx.core @ (approx.Q2.T @ right)
    small[: middle.shape[0], : middle.shape[1]] += middle
    T_error = float(np.linalg.svd(small, compute_uv=False)[0]) if small.size else 0.0
    N = E1.shape[0]
    a, a_tilde = exact.alpha[:, 0], approx.alpha[:, 0]
    a_tilde = a_tilde if a @ a_tilde >= 0 else -a_tilde
    return {
        "rho": float(abs(exact.correlations[0] - approx.correlations[0])),
        "T": T_error,
        "alpha": float(np.linalg.norm(a - a_tilde) / np.sqrt(N)),
    }


# --- how many columns Wang 2016, Thm 1 asks for ---------------------------------------------------


def _finite_vector(values: ArrayLike, name: str) -> np.ndarray:
    try:
        values = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of numbers.") from None
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be a non-empty list of finite numbers, got shape {values.shape}.")
    return values


def effective_dimension(eigvals: ArrayLike, gamma: float, n_points: int | None = None, rest: float = 0.0) -> float:
    """``d_eff(K, gamma) = tr(K (K + N gamma I)^{-1}) = sum_i lam_i / (lam_i + N gamma)`` (Wang 2016, eq. 11).

    Parameters
    ----------
    eigvals : array-like of shape (p,)
        Eigenvalues of the N x N kernel K: all of them, or the p largest with ``n_points``
        and ``rest``.
    gamma : float
        The ridge, positive.
    n_points : int or None, default=None
        N (default: the number of eigenvalues).
    rest : float, default=0.0
        The sum of the eigenvalues not given (``tr(K)`` minus theirs); each counts at most
        ``lam / (N gamma)``, so the result is then an upper bound.

    Returns
    -------
    float
        The effective dimension.
    """
    lam = np.clip(_finite_vector(eigvals, "eigvals"), 0.0, None)
    gamma = check_positive(gamma, "The ridge gamma")
    N = lam.size if n_points is None else int(n_points)
    if N < lam.size or not (np.isfinite(rest) and rest >= 0):
        raise ValueError("n_points must be at least the number of eigenvalues and rest a finite number >= 0.")
    return float(np.sum(lam / (lam + N * gamma)) + rest / (N * gamma))


def theorem1_columns(d_eff: float, n_points: int, delta: float = 0.05, t: float = 0.5, beta: float = 1.0) -> float:
    """The columns per view Wang 2016, Thm 1 asks for.

    ``2 (d_eff / (beta t^2) + 1 / (3 t)) log(2N / delta)``.

    ``d_eff`` is the view's effective dimension at ``gamma = epsilon lambda (1 - t) / 2``
    (:func:`effective_dimension`); with that many columns drawn per view by ridge leverage
    scores (``beta = 1``; uniform sampling: :func:`uniform_beta`), ``|rho - rho~| <= epsilon``
    with probability at least ``1 - delta``.

    Parameters
    ----------
    d_eff : float
        The effective dimension, at least 0.
    n_points : int
        N.
    delta : float, default=0.05
        The failure probability, in (0, 1).
    t : float, default=0.5
        The theorem's free parameter, in (0, 1).
    beta : float, default=1.0
        How far the sampling distribution may fall below the leverage scores' (eq. 12), in (0, 1].

    Returns
    -------
    float
        The number of columns M (not rounded).
    """
    if not (np.isfinite(d_eff) and d_eff >= 0) or int(n_points) < 1:
        raise ValueError("d_eff must be a finite number >= 0 and n_points at least 1.")
    for name, value, low, high in (("delta", delta, 0, 1), ("t", t, 0, 1), ("beta", beta, 0, 1)):
        if not (low < value < high or (name == "beta" and value == 1)):
            raise ValueError(f"{name} must lie in ({low}, {high}{']' if name == 'beta' else ')'}, got {value!r}.")
    return float(2 * (d_eff / (beta * t * t) + 1 / (3 * t)) * np.log(2 * int(n_points) / delta))


def uniform_beta(scores: ArrayLike) -> float:
    """The ``beta`` of eq. 12 for uniform sampling (Wang 2016, the remark after Lemma 3).

    ``1/N >= beta l_i / d_eff`` for every i gives ``beta = d_eff / (N max_i l_i)``.

    Parameters
    ----------
    scores : array-like of shape (N,)
        The ridge leverage scores (:func:`ridge_leverage_scores`).

    Returns
    -------
    float
        In (0, 1].
    """
    values = np.clip(_finite_vector(scores, "scores"), 0.0, None)
    if not values.max() > 0:
        raise ValueError("The leverage scores are all zero: the kernel is zero.")
    return float(min(1.0, values.sum() / (values.size * values.max())))


def sampling_beta(
    eigvals: ArrayLike,
    eigvecs: ArrayLike,
    diagonal: ArrayLike,
    probabilities: ArrayLike,
    gamma: float,
    rest: float = 0.0,
) -> float:
    """The ``beta`` of eq. 12 for a given sampling distribution at ridge ``gamma`` (Wang 2016).

    ``p_i >= beta l_i(K, gamma) / d_eff(K, gamma)`` for every i: ``beta = min_i p_i d_eff / l_i``.
    Thm 1 asks for it at its own ``gamma = epsilon lambda (1 - t) / 2``, whatever gamma the
    distribution was built at (leverage scores at another gamma, or uniform draws).

    Parameters
    ----------
    eigvals : array-like of shape (p,)
        The p largest eigenvalues of the N x N kernel (all of them, or those above a floor).
    eigvecs : array-like of shape (N, p)
        Their eigenvectors.
    diagonal : array-like of shape (N,)
        The kernel's diagonal: what the eigenpairs leave of each point bounds its share of the
        rest, so each ``l_i`` is an upper bound, and so is ``d_eff / beta = max_i l_i / p_i``,
        which the theorem's column count grows with (it then asks for more columns, never fewer).
    probabilities : array-like of shape (N,)
        The sampling distribution p, summing to 1.
    gamma : float
        The ridge.
    rest : float, default=0.0
        The eigenvalues not given, as in :func:`effective_dimension`.

    Returns
    -------
    float
        In (0, 1].
    """
    return _beta_function(eigvals, eigvecs, diagonal, probabilities, rest)(check_positive(gamma, "The ridge gamma"))


def _beta_function(
    eigvals: ArrayLike, eigvecs: ArrayLike, diagonal: ArrayLike, probabilities: ArrayLike, rest: float = 0.0
) -> Callable[[float], float]:
    """:func:`sampling_beta` as a function of gamma, the squared eigenvectors formed once."""
    lam = np.clip(_finite_vector(eigvals, "eigvals"), 0.0, None)
    U2 = np.asarray(eigvecs, dtype=float) ** 2
    p = _finite_vector(probabilities, "probabilities")
    N = U2.shape[0]
    left = np.clip(_finite_vector(diagonal, "diagonal") - U2 @ lam, 0.0, None)

    @functools.lru_cache(maxsize=4096)  # Thm 1's searches at several ranks try the same gammas first
    def beta(gamma: float) -> float:
        scores = U2 @ (lam / (lam + N * gamma)) + left / (N * gamma)
        d_eff = effective_dimension(lam, gamma, N, rest)
        with np.errstate(divide="ignore"):
            ratio = np.where(scores > 0, p * d_eff / scores, np.inf)
        return float(min(1.0, ratio.min()))

    return beta


def theorem1_epsilon(
    eigvals: ArrayLike,
    reg: float,
    columns: int,
    n_points: int | None = None,
    rest: float = 0.0,
    delta: float = 0.05,
    beta: float | Callable[[float], float] = 1.0,
) -> float:
    """The smallest epsilon Wang 2016, Thm 1 guarantees for one view with ``columns`` columns.

    Thm 1 asks for :func:`theorem1_columns` at ``d_eff(K, epsilon reg (1 - t) / 2)``, which
    falls as epsilon grows; this finds the smallest epsilon (to 0.1 %) whose requirement
    ``columns`` meets, over the 19 values t = 0.05, 0.10, ..., 0.95 of the theorem's t in
    (0, 1).  With both views, ``|rho - rho~|`` is at most the larger of the two views'
    epsilons (each view's half of the theorem takes ``delta / 2``: its ``log(2N / delta)``).

    Parameters
    ----------
    eigvals : array-like
        The view kernel's eigenvalues (see :func:`effective_dimension`).
    reg : float
        The view's KCCA ridge lambda.
    columns : int
        M, the columns drawn for the view.
    n_points : int or None, default=None
        N, as in :func:`effective_dimension`.
    rest : float, default=0.0
        The eigenvalues not given, as in :func:`effective_dimension`.
    delta : float, default=0.05
        The failure probability, as in :func:`theorem1_columns`.
    beta : float or callable, default=1.0
        The sampling's beta, as in :func:`theorem1_columns`; or ``gamma -> beta``, the
        distribution's beta at the theorem's own gamma for each (epsilon, t) tried (see
        :func:`sampling_beta`).

    Returns
    -------
    float
        The guaranteed epsilon: 0 when the columns meet the requirement for every epsilon
        (down to 1e-12), inf when no epsilon up to 1e6 is reached (the ``1 / (3t)`` term
        alone can need more columns than that).
    """
    reg = check_positive(reg, "The regularisation lambda")
    lam = np.clip(_finite_vector(eigvals, "eigvals"), 0.0, None)
    N = lam.size if n_points is None else int(n_points)
    best = np.inf
    for t in np.linspace(0.05, 0.95, 19):

        def needs(eps: float, t: float = t) -> float:
            gamma = eps * reg * (1 - t) / 2
            b = beta(gamma) if callable(beta) else beta
            return theorem1_columns(effective_dimension(lam, gamma, N, rest), N, delta, t, b)

        low, high = 1e-12, 1e6
        if needs(high) > columns:
            continue
        if needs(low) <= columns:  # enough columns for any accuracy: d_eff has reached the rank
            return 0.0
        while high / low > 1.001:
            mid = np.sqrt(low * high)
            low, high = (low, mid) if needs(mid) <= columns else (mid, high)
        best = min(best, high)
    return float(best)
