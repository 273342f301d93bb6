"""Sparse kernel CCA by matching pursuit (Hussain et al. 2011, Alg. 3)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import criteria
from ._validation import as_real, check_indices, check_n_steps, check_positive, check_psd_kernel, check_same_rows
from .cca import CCAResult, regularized_cca
from .deflations import TwoViewProjection
from .engine import PursuitPath, pursue
from .nystrom import nystrom_factor, nystrom_features


def skcca_path(Kx: ArrayLike, Ky: ArrayLike, k: int) -> PursuitPath:
    """Choose k shared basis points for two views (Hussain et al. 2011, Alg. 3).

    At each step choose ``argmax_i <Kx[:, i], Ky[:, i]> / (||Kx[:, i]|| ||Ky[:, i]||)``
    over the current kernels (eq. 14), then deflate both views one-sidedly,
    ``K <- (I - tau tau' / tau'tau) K`` with ``tau = K[:, i]`` of that view.

    Parameters
    ----------
    Kx, Ky : arrays (m, m)
        Kernel matrices of the two views of the same m points.
    k : int
        Number of basis points, ``1 <= k < m``.

    Returns
    -------
    PursuitPath
        The path with two views: ``deflated_kernel(j, view=0)`` is X's, ``view=1`` is Y's.
        A candidate is eligible while both of its deflated columns keep a squared norm above
        1e-10 of their view's largest.

    Notes
    -----
    Cost: one product with each kernel per step, O(k m^2) in all.
    """
    Kx = check_psd_kernel(Kx, "Kx")
    Ky = check_psd_kernel(Ky, "Ky")
    check_same_rows(Kx, Ky, ("Kx", "Ky"))
    k = check_n_steps(k, Kx.shape[0])
    return pursue(
        TwoViewProjection(Kx, Ky),
        criteria.skcca,
        k,
        algorithm="Sparse KCCA",
        criterion_name="<Kx[:, i], Ky[:, i]> / (||Kx[:, i]|| ||Ky[:, i]||)",
        deflation_name="(I - tau tau' / tau'tau) K, each view",
    )


def fit_sparse_cca(
    Kx: ArrayLike, Ky: ArrayLike, indices: ArrayLike, reg: float = 1e-3, n_directions: int = 1
) -> tuple[CCAResult, np.ndarray, np.ndarray]:
    """CCA in the span of the chosen points (Hussain et al. 2011, Alg. 3 line 6).

    Nystroem features of each view from the *input* kernels at ``indices``
    (``F = K[:, i] R'``, ``R'R = K[i, i]^{-1}``, via Cholesky with a small jitter),
    centred, then :func:`mpcore.cca.regularized_cca` with ridge ``reg`` on both
    covariances.

    Parameters
    ----------
    Kx, Ky : ndarray of shape (m, m)
        The two views' training kernels.
    indices : array-like of int
        The chosen points (:func:`skcca_path`).
    reg : float, default=1e-3
        The CCA ridge, at least 0.
    n_directions : int, default=1
        The number of canonical directions.

    Returns
    -------
    cca : CCAResult
        The canonical directions in the features.
    Cx, Cy : ndarray of shape (k, k)
        Both views' Cholesky factors (pass them to
        :func:`mpcore.nystrom.nystrom_features` for new points).
    """
    Kx, Ky = check_psd_kernel(Kx, "Kx"), check_psd_kernel(Ky, "Ky")
    check_same_rows(Kx, Ky, ("Kx", "Ky"))
    if indices is not None and np.asarray(indices).size == 0:
        raise ValueError("No basis points were chosen; run skcca_path with k >= 1 first.")
    indices = check_indices(indices, Kx.shape[0])
    reg = check_positive(reg, "The CCA regularisation reg", allow_zero=True)
    return _fit_sparse_cca(Kx, Ky, indices, reg, n_directions)


def _fit_sparse_cca(
    Kx: np.ndarray, Ky: np.ndarray, indices: np.ndarray, reg: float, n_directions: int
) -> tuple[CCAResult, np.ndarray, np.ndarray]:
    """:func:`fit_sparse_cca` on inputs it has checked.  For a caller that fits at every
    step of one path (the bound curves, a study's steps), whose kernels were checked once;
    the kernel checks alone read both m x m matrices."""
    Cx = nystrom_factor(Kx[np.ix_(indices, indices)])
    Cy = nystrom_factor(Ky[np.ix_(indices, indices)])
    Fx = nystrom_features(Kx[:, indices], Cx)
    Fy = nystrom_features(Ky[:, indices], Cy)
    return regularized_cca(Fx, Fy, reg=reg, n_directions=n_directions), Cx, Cy


def pair_distances(variates_x: ArrayLike, variates_y: ArrayLike) -> np.ndarray:
    """Per-pair distance ``|f_x(x) - f_y(y)|`` per direction.

    Parameters
    ----------
    variates_x, variates_y : ndarray of shape (n, L)
        The two views' canonical variates of the same n pairs.

    Returns
    -------
    ndarray of shape (n, L)
        The absolute differences: the SKCCA bound counts those above alpha.
    """
    variates_x, variates_y = as_real(variates_x, "variates_x"), as_real(variates_y, "variates_y")
    if variates_x.shape != variates_y.shape:
        raise ValueError(
            f"The two views' variates must have the same shape, got {variates_x.shape} and {variates_y.shape}."
        )
    return np.asarray(np.abs(variates_x - variates_y))
