"""Kernel matching pursuit (Vincent and Bengio 2002; Hussain et al. 2011, Alg. 1 and 5).

The dictionary is the set of columns of the input kernel ``K0`` (one function
``k(x_i, .)`` per training point); the target ``y`` is used as given.

=========  ===========================================================================
variant    what happens at each step
=========  ===========================================================================
basic      pick ``argmax |<d_i, r>| / ||d_i||`` over all original columns (a column
           may be picked again), ``alpha_i += <d_i, r> / ||d_i||^2``, ``r -= alpha d_i``
           (Vincent and Bengio 2002, Fig. 1)
backfit    the same pick over unchosen columns, then refit all weights by least
           squares (orthogonal matching pursuit, Vincent and Bengio 2002, sec. 2.2)
prefit     pick ``argmax |K[:, i]' y| / ||K[:, i]||`` over the *deflated* columns,
           deflate ``K <- (I - tau tau' / tau'tau) K``; weights by least squares on
           ``K0[:, indices]`` (Vincent and Bengio 2002, Fig. 3 = OLS-RBF = Hussain et al. 2011, Alg. 5)
=========  ===========================================================================

Non-squared losses (Vincent and Bengio 2002, sec. 3, Fig. 4): the residual is replaced by the negative
functional gradient ``-dL/df`` at the training points, and after each pick the weights
(and an optional intercept) are re-optimised with ``scipy.optimize.minimize``
(``basic``: only the new weight, by line minimisation, eq. 10; ``backfit``: all of
them, eq. 11).  Pre-fitting with a non-squared loss would need one optimisation per
candidate and is not offered (the paper calls it prohibitive).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import solve_triangular
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit

from . import criteria
from ._validation import (
    ELIGIBILITY_RTOL,
    check_choice,
    check_finite_matrix,
    check_n_steps,
    check_psd_kernel,
    check_target,
)
from .deflations import ProjectionDeflation, _column_sq_norms
from .engine import PursuitPath, _exhausted, best_index, pursue

KMP_VARIANTS = ("basic", "backfit", "prefit")
LOSSES = ("squared", "tanh", "logistic", "hinge")

#: The target is "fully explained" when the residual norm falls below this fraction of ||y||.
_EXPLAINED_RTOL = 1e-12


# --- losses: value and derivative with respect to the prediction f, per point --------


def loss_value(name: str, f: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-point loss ``L(y, f)``.

    - ``squared``: ``(f - y)^2 / 2``
    - ``tanh``: ``(tanh(f) - 0.65 y)^2`` (Vincent and Bengio 2002, sec. 3.2, targets +-1)
    - ``logistic``: ``log(1 + exp(-y f))``
    - ``hinge``: smoothed hinge of the margin ``z = y f``: 0 for z >= 1,
      ``(1 - z)^2 / 2`` for 0 < z < 1, ``1/2 - z`` for z <= 0.
    """
    if name == "squared":
        return np.asarray(0.5 * (f - y) ** 2)
    if name == "tanh":
        return np.asarray((np.tanh(f) - 0.65 * y) ** 2)
    if name == "logistic":
        return np.asarray(np.logaddexp(0.0, -y * f))
    z = y * f
    return np.where(z >= 1, 0.0, np.where(z > 0, 0.5 * (1 - z) ** 2, 0.5 - z))


def loss_gradient(name: str, f: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-point derivative ``dL/df`` of :func:`loss_value`."""
    if name == "squared":
        return np.asarray(f - y)
    if name == "tanh":
        t = np.tanh(f)
        return np.asarray(2.0 * (t - 0.65 * y) * (1.0 - t * t))
    if name == "logistic":
        return np.asarray(-y * expit(-y * f))
    z = y * f
    return y * np.where(z >= 1, 0.0, np.where(z > 0, z - 1.0, -1.0))


# --- states ---------------------------------------------------------------------------


class _ResidualPursuit:
    """Basic matching pursuit with the squared loss: the dictionary is never deflated,
    only the residual ``r`` (and ``D' r``) is updated after each pick."""

    name = "none (residual only)"

    def __init__(self, D: np.ndarray, y: np.ndarray) -> None:
        self.K0 = D
        self.m = D.shape[1]
        self.s0 = _column_sq_norms(D)
        self.threshold = 1e-10 * float(self.s0.max())
        self.r = y.copy()
        self.z = D.T @ y
        self.increments: list[np.ndarray] = []
        self.rank = 0

    def residual_size(self) -> np.ndarray:
        return self.s0

    def original_column_sq_norms(self) -> np.ndarray:
        return self.s0

    def columns_dot(self, key: str = "y") -> np.ndarray:
        return np.asarray(self.z)

    def residual(self) -> np.ndarray:
        return self.r

    def deflate(self, i: int) -> bool:
        alpha = self.z[i] / self.s0[i]
        d = self.K0[:, i]
        self.r = self.r - alpha * d
        self.z = self.z - alpha * (self.K0.T @ d)
        self.increments.append(alpha)
        return True

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[None, None], ...]:
        return ((None, None),)


class _ProjectedResidual(ProjectionDeflation):
    """Back- and pre-fitting: the residual is the target projected off the chosen columns."""

    def residual(self) -> np.ndarray:
        return self.projected("y")


class _LossPursuit:
    """Basic or back-fitting matching pursuit on the functional gradient of a loss."""

    def __init__(self, D: np.ndarray, y: np.ndarray, loss: str, variant: str, fit_intercept: bool) -> None:
        self.K0 = D
        self.y = y
        self.loss = loss
        self.variant = variant
        self.fit_intercept = fit_intercept
        self.m = D.shape[1]
        self.name = "none (gradient residual)"
        self.s0 = _column_sq_norms(D)
        self.threshold = 1e-10 * float(self.s0.max())
        self.indices: list[int] = []
        self.weights = np.zeros(0)
        self.intercept = 0.0
        if fit_intercept:
            self.intercept = minimize_scalar(lambda b: loss_value(loss, np.full(y.size, b), y).sum()).x
        self.initial_intercept = self.intercept
        self.f = np.full(y.size, self.intercept)
        self.coef_rows: list[np.ndarray] = []
        self.intercepts: list[float] = []
        self.rank = 0

    def residual_size(self) -> np.ndarray:
        return self.s0

    def original_column_sq_norms(self) -> np.ndarray:
        return self.s0

    def residual(self) -> np.ndarray:
        """The negative functional gradient ``-dL/df`` at the training points (eq. 8)."""
        return -loss_gradient(self.loss, self.f, self.y)

    def columns_dot(self, key: str = "y") -> np.ndarray:
        return np.asarray(self.K0.T @ self.residual())

    def _objective(self, params: np.ndarray, columns: np.ndarray) -> tuple[float, np.ndarray]:
        weights, b = (params[:-1], params[-1]) if self.fit_intercept else (params, 0.0)
        f = columns @ weights + b
        grad_f = loss_gradient(self.loss, f, self.y)
        value = loss_value(self.loss, f, self.y).sum()
        grad = columns.T @ grad_f
        if self.fit_intercept:
            grad = np.append(grad, grad_f.sum())
        return value, grad

    def deflate(self, i: int) -> bool:
        d = self.K0[:, i]
        if self.variant == "basic":
            step = minimize_scalar(lambda a: loss_value(self.loss, self.f + a * d, self.y).sum())
            self.indices.append(i)
            self.weights = np.append(self.weights, step.x)
        else:
            self.indices.append(i)
            columns = self.K0[:, self.indices]
            start = np.append(self.weights, 0.0)
            if self.fit_intercept:
                start = np.append(start, self.intercept)
            result = minimize(self._objective, start, args=(columns,), jac=True, method="L-BFGS-B")
            params = result.x
            self.weights, self.intercept = (
                (params[:-1], float(params[-1])) if self.fit_intercept else (params, self.intercept)
            )
        self.f = self.K0[:, self.indices] @ self.weights + self.intercept
        self.coef_rows.append(self.weights.copy())
        self.intercepts.append(self.intercept)
        return True

    def kernels(self) -> tuple[np.ndarray, ...]:
        return (self.K0,)

    def factors(self) -> tuple[tuple[None, None], ...]:
        return ((None, None),)


# --- the path ----------------------------------------------------------------------------


def _explained(y_norm: float) -> Callable[[Any, np.ndarray], str | None]:
    def stop_when(state: Any, scores: np.ndarray) -> str | None:
        if np.linalg.norm(state.residual()) <= _EXPLAINED_RTOL * y_norm:
            return "target fully explained: the residual is zero, so no column can improve the fit."
        if np.nanmax(np.abs(scores), initial=0.0) <= _EXPLAINED_RTOL * y_norm:
            return "no candidate is correlated with the residual any more; further columns cannot improve the fit."
        return None

    return stop_when


def _least_squares_coefs(state: ProjectionDeflation, y: np.ndarray, indices: list[int]) -> np.ndarray:
    """Weights after every step for back-/pre-fitting: ``D0[:, idx] = Q R`` with
    ``R = (D0' Q)[idx].T`` upper triangular, so ``alpha_j = R_j^{-1} Q_j' y``."""
    n = len(indices)
    coefs = np.zeros((n, n))
    if n == 0:
        return coefs
    Q = state.basis()
    R = state.W.view[indices, :].T
    c = Q.T @ y
    for j in range(1, n + 1):
        coefs[j - 1, :j] = solve_triangular(R[:j, :j], c[:j], check_finite=False)
    return coefs


def kmp_path(
    K: ArrayLike,
    y: ArrayLike,
    k: int,
    variant: str = "prefit",
    loss: str = "squared",
    fit_intercept: bool = False,
    candidates: int | None = None,
    seed: int = 0,
) -> PursuitPath:
    """Kernel matching pursuit: choose k dictionary columns greedily (Vincent and Bengio 2002).

    Parameters
    ----------
    K : array (m, n)
        The dictionary evaluated at the training points; usually the kernel matrix
        ``K0`` (m = n).  Not modified.
    y : array (m,)
        Target, used as given (centre it yourself, or use
        :class:`~mpcore.KernelMatchingPursuit` with ``fit_intercept=True``).  For the
        ``tanh``, ``logistic`` and ``hinge`` losses it must be -1/+1.
    k : int
        Number of steps, ``1 <= k < n``.
    variant : {"prefit", "backfit", "basic"}
        See the module docstring.
    loss : {"squared", "tanh", "logistic", "hinge"}
        Non-squared losses need ``variant`` "backfit" or "basic".
    fit_intercept : bool
        Non-squared losses only: optimise a free bias together with the weights.
    candidates : int or None
        If set, score only this many random eligible columns per step (the "59 trick", as
        in :func:`mpcore.skpca_path`).
    seed : int
        Seeds ``numpy.random.default_rng`` for ``candidates``.

    Returns
    -------
    PursuitPath
        ``extras["coefs"]`` (n_steps, n_steps): row j-1 holds the weights of
        ``indices[:j]`` after step j (zeros beyond); ``extras["intercepts"]``
        (n_steps,); ``extras["fitted"]`` (n_steps + 1, m): training predictions after
        each step (row 0 is the start).  ``deflated_kernel(j)`` is ``P_j K0`` for
        pre-fitting and ``K0`` for the variants that never deflate the dictionary.

    Notes
    -----
    Cost (squared loss): one product with ``K`` per step, O(k m n) in all.
    """
    check_choice(variant, KMP_VARIANTS, "KMP variant")
    check_choice(loss, LOSSES, "loss")
    D = check_finite_matrix(K, "K")
    if D.shape[0] == D.shape[1]:  # a kernel matrix (a rectangular dictionary is taken as it is)
        D = check_psd_kernel(D, "K")
    y = check_target(y, D.shape[0])
    k = check_n_steps(k, D.shape[1])
    if loss != "squared":
        if variant == "prefit":
            raise ValueError(
                "Pre-fitting needs the squared loss; with a non-squared loss use variant 'backfit' or 'basic' "
                "(Vincent and Bengio 2002, sec. 3.1: pre-fitting would need one optimisation per candidate)."
            )
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ValueError(f"The {loss} loss is for classification: the target must contain only -1 and +1.")
    y_norm = float(np.linalg.norm(y))
    if y_norm == 0:
        raise ValueError("The target is all zeros; there is nothing to fit.")

    if candidates is not None and (
        isinstance(candidates, bool) or not isinstance(candidates, numbers.Integral) or candidates < 1
    ):
        raise ValueError(f"candidates must be a whole number of at least 1 (or None for all), got {candidates!r}.")
    names: dict[str, Any] = {
        "algorithm": "Kernel matching pursuit",
        "criterion_name": "|K[:, i]' r| / ||K[:, i]||",
        "candidates": candidates,
        "rng": np.random.default_rng(seed),
    }
    if loss != "squared":
        margins = _LossPursuit(D, y, loss, variant, fit_intercept)
        path = pursue(margins, criteria.kmp_original_columns(), k, deflation_name=margins.name, **names)
        n = path.n_steps
        coefs = np.zeros((n, n))
        for j, row in enumerate(margins.coef_rows):
            coefs[j, : row.size] = row
        intercepts, base = np.asarray(margins.intercepts), margins.initial_intercept
    elif variant == "basic":
        residual = _ResidualPursuit(D, y)
        path = pursue(
            residual,
            criteria.kmp_original_columns(),
            k,
            allow_repeats=True,
            stop_when=_explained(y_norm),
            deflation_name=residual.name,
            **names,
        )
        n = path.n_steps
        increments = np.asarray(residual.increments)
        coefs = np.tril(np.tile(increments, (n, 1)))
        intercepts, base = np.zeros(n), 0.0
    else:
        state = _ProjectedResidual(D, track={"y": y}, symmetric=D.shape[0] == D.shape[1])
        criterion = criteria.kmp() if variant == "prefit" else criteria.kmp_original_columns()
        deflation = "(I - tau tau' / tau'tau) K" if variant == "prefit" else "none (least-squares refit)"
        path = pursue(state, criterion, k, stop_when=_explained(y_norm), deflation_name=deflation, **names)
        n = path.n_steps
        coefs = _least_squares_coefs(state, y, list(path.indices))
        intercepts, base = np.zeros(n), 0.0
        if variant == "backfit":
            path = replace(path, _factors=((None, None),))
    columns = D[:, path.indices]
    fitted = np.vstack([np.full(D.shape[0], base), (columns @ coefs.T).T + intercepts[:, None]])
    extras = {"coefs": coefs, "intercepts": intercepts, "fitted": fitted, "variant": variant, "loss": loss}
    return replace(path, extras=extras)


class KMPColumnsPath(NamedTuple):
    """The result of :func:`kmp_columns_path`: ``indices`` (n_steps,), ``coefs`` the final
    weights of those columns (least squares), ``residual`` ``y - K[:, indices] coefs``,
    ``stop_reason``."""

    indices: np.ndarray
    coefs: np.ndarray
    residual: np.ndarray
    stop_reason: str | None


def kmp_columns_path(
    columns: Callable[[np.ndarray], np.ndarray], y: ArrayLike, k: int, candidates: int, seed: int = 0
) -> KMPColumnsPath:
    """Pre-fitting KMP (squared loss) with the "59 trick", never forming the m x m kernel.

    ``columns(idx)`` returns ``K0[:, idx]`` (m, len(idx)), e.g. computed from the inputs
    on demand.  Each step draws ``candidates`` random columns among those not chosen,
    scores ``|d_i' r| / ||d_i||`` on their deflated versions ``d_i = (I - Q Q') K0[:, i]``
    (Vincent and Bengio 2002, eq. 7) and keeps the best; ``Q`` (m, k) is an orthonormal basis of the chosen
    columns and ``r = (I - Q Q') y``.  O(m c (d + j)) per step, O(m (c + k)) memory.

    It picks what ``kmp_path(K0, y, k, candidates=candidates, seed=seed)`` picks when every
    column not yet chosen is eligible (the in-memory path draws from the eligible ones,
    which needs every column's norm) and round-off does not decide a near-tie (the
    in-memory path scores with downdated norms, this one with exactly deflated columns,
    which can differ late on a numerically low-rank kernel); the stopping rules are the
    same.
    """
    y = check_target(y, np.asarray(y).shape[0])
    m = y.size
    k = check_n_steps(k, m)
    if isinstance(candidates, bool) or not isinstance(candidates, numbers.Integral) or candidates < 1:
        raise ValueError(f"candidates must be a whole number of at least 1, got {candidates!r}.")
    y_norm = float(np.linalg.norm(y))
    if y_norm == 0:
        raise ValueError("The target is all zeros; there is nothing to fit.")
    rng = np.random.default_rng(seed)
    Q, r = np.zeros((m, k)), y.copy()
    chosen, refused = np.zeros(m, dtype=bool), np.zeros(m, dtype=bool)
    indices: list[int] = []
    stop_reason: str | None = None
    largest = 0.0
    while stop_reason is None and len(indices) < k:
        pool = np.flatnonzero(~chosen & ~refused)
        if pool.size == 0:
            stop_reason = _exhausted(len(indices))
            break
        keep = rng.choice(pool, size=candidates, replace=False) if pool.size > candidates else pool
        j = len(indices)
        block = np.asarray(columns(keep), dtype=float)
        largest = max(largest, float(np.einsum("ij,ij->j", block, block).max()))
        threshold = ELIGIBILITY_RTOL * largest
        block -= Q[:, :j] @ (Q[:, :j].T @ block)
        norms2 = np.einsum("ij,ij->j", block, block)
        scores = np.full(m, np.nan)
        ok = norms2 > threshold
        scores[keep[ok]] = np.abs(block[:, ok].T @ r) / np.sqrt(norms2[ok])
        if np.linalg.norm(r) <= _EXPLAINED_RTOL * y_norm:
            stop_reason = "target fully explained: the residual is zero, so no column can improve the fit."
            break
        if np.nanmax(np.abs(scores), initial=0.0) <= _EXPLAINED_RTOL * y_norm:
            stop_reason = (
                "no candidate is correlated with the residual any more; further columns cannot improve the fit."
            )
            break
        i = best_index(scores)
        v = block[:, int(np.flatnonzero(keep == i)[0])]
        v = v - Q[:, :j] @ (Q[:, :j].T @ v)  # a second Gram-Schmidt pass, as ProjectionDeflation
        norm2 = float(v @ v)
        if not norm2 > threshold:
            refused[i] = True
            continue
        q = v / np.sqrt(norm2)
        r = r - (q @ r) * q
        Q[:, j] = q
        chosen[i] = True
        indices.append(i)
    indices = np.asarray(indices, dtype=int)
    n = indices.size
    if n == 0:
        return KMPColumnsPath(indices, np.zeros(0), y.copy(), stop_reason)
    chosen_columns = np.asarray(columns(indices), dtype=float)
    R = Q[:, :n].T @ chosen_columns  # K0[:, idx] = Q R, R upper triangular
    coefs = solve_triangular(R, Q[:, :n].T @ y, lower=False)
    return KMPColumnsPath(indices, coefs, y - chosen_columns @ coefs, stop_reason)
