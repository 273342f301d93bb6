"""Regularised linear CCA and exact regularised kernel CCA (reference solutions)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import eigh, svd

from ._validation import check_finite_matrix, check_kernel, check_positive, check_psd_kernel, check_same_rows


@dataclass(frozen=True)
class CCAResult:
    """Linear CCA between two feature matrices.

    ``directions_x`` (dx, L) and ``directions_y`` (dy, L) map centred features to
    canonical variates with unit training variance; ``correlations`` (L,) are the
    regularised canonical correlations (descending); ``mean_x``, ``mean_y`` are the
    training means subtracted before projecting.
    """

    directions_x: np.ndarray
    directions_y: np.ndarray
    correlations: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray

    def transform(self, Fx: np.ndarray, Fy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Canonical variates of both views.

        Parameters
        ----------
        Fx : ndarray of shape (n, dx)
            The first view's features.
        Fy : ndarray of shape (n, dy)
            The second view's features.

        Returns
        -------
        tuple of ndarray of shape (n, L)
            The two views' variates.
        """
        return (Fx - self.mean_x) @ self.directions_x, (Fy - self.mean_y) @ self.directions_y


def _inverse_sqrt(C: np.ndarray) -> np.ndarray:
    values, vectors = eigh(C)
    values = np.maximum(values, 1e-300)
    return np.asarray((vectors / np.sqrt(values)) @ vectors.T)


def regularized_cca(Fx: ArrayLike, Fy: ArrayLike, reg: float = 1e-3, n_directions: int = 1) -> CCAResult:
    """Linear CCA with a ridge ``reg`` added to both covariance matrices.

    Maximises ``wx' Cxy wy / sqrt((wx' (Cxx + reg I) wx) (wy' (Cyy + reg I) wy))``
    with ``C..`` the empirical covariances (divided by n) of the centred features.
    Solved by whitening and an SVD.  The directions are rescaled so the training
    variates have unit variance, which makes the per-pair distance
    ``|f_x(x) - f_y(y)|`` comparable across directions.

    Parameters
    ----------
    Fx : ndarray of shape (n, dx)
        The first view's features.
    Fy : ndarray of shape (n, dy)
        The second view's features, same rows.
    reg : float, default=1e-3
        The ridge, at least 0.
    n_directions : int, default=1
        The number L of canonical directions.

    Returns
    -------
    CCAResult
        Directions (dx, L) and (dy, L), correlations (L,) and the training means.
    """
    Fx = check_finite_matrix(Fx, "Fx")
    Fy = check_finite_matrix(Fy, "Fy")
    check_same_rows(Fx, Fy, ("Fx", "Fy"))
    reg = check_positive(reg, "The CCA regularisation reg", allow_zero=True)
    n_directions = _check_directions(n_directions)
    n = Fx.shape[0]
    mean_x, mean_y = Fx.mean(axis=0), Fy.mean(axis=0)
    Xc, Yc = Fx - mean_x, Fy - mean_y
    Cxx = Xc.T @ Xc / n + reg * np.eye(Xc.shape[1])
    Cyy = Yc.T @ Yc / n + reg * np.eye(Yc.shape[1])
    Cxy = Xc.T @ Yc / n
    Wx, Wy = _inverse_sqrt(Cxx), _inverse_sqrt(Cyy)
    U, s, Vt = svd(Wx @ Cxy @ Wy, full_matrices=False)
    L = min(n_directions, s.size)
    ax, ay = Wx @ U[:, :L], Wy @ Vt[:L].T
    sx = np.sqrt(np.maximum(np.einsum("ij,ij->j", Xc @ ax, Xc @ ax) / n, 1e-300))
    sy = np.sqrt(np.maximum(np.einsum("ij,ij->j", Yc @ ay, Yc @ ay) / n, 1e-300))
    return CCAResult(ax / sx, ay / sy, s[:L], mean_x, mean_y)


def _check_directions(n_directions: object) -> int:
    import numbers

    if isinstance(n_directions, bool) or not isinstance(n_directions, numbers.Integral) or n_directions < 1:
        raise ValueError(f"n_directions must be a whole number of at least 1, got {n_directions!r}.")
    return int(n_directions)


def center_kernel(K: ArrayLike) -> np.ndarray:
    """``H K H`` with ``H = I - 11'/N`` (double centring).

    Parameters
    ----------
    K : ndarray of shape (N, N)
        A kernel matrix.

    Returns
    -------
    ndarray of shape (N, N)
        The kernel of the points centred in feature space.
    """
    K = check_kernel(K)
    row = K.mean(axis=0)
    return np.asarray(K - row[None, :] - K.mean(axis=1)[:, None] + row.mean())


@dataclass(frozen=True)
class KCCAResult:
    """Exact regularised KCCA (Wang 2016, eq. 2-4).

    ``correlations`` (L,): top singular values of T; ``alpha_prime``, ``beta_prime``
    (N, L): left/right singular vectors; ``alpha``, ``beta`` (N, L): dual coefficients
    ``sqrt(N) (Kc + N lambda I)^{-1} alpha'``; ``T`` (N, N) when kept; ``factors``:
    ``(E1 (N, p1), middle (p1, p2), E2 (N, p2))`` with ``T = E1 middle E2'`` and E1, E2
    orthonormal (T's low-rank form: what :func:`mpcore.approximation_error` uses).
    """

    correlations: np.ndarray
    alpha_prime: np.ndarray
    beta_prime: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    T: np.ndarray | None
    factors: tuple[np.ndarray, ...] | None = None


#: Exact KCCA leaves out the directions of a centred kernel whose shrinkage
#: ``mu / (mu + N reg)`` is below this, so T moves by at most this much in 2-norm (the
#: dense O(N^3) products it replaces round at about the same level).
SHRINK_RTOL = 1e-13


def eigen_floor(N: int, reg: float) -> float:
    """The eigenvalue below which a kernel direction shrinks to under :data:`SHRINK_RTOL`."""
    return SHRINK_RTOL * N * reg


def centred_eigen(K: np.ndarray, floor: float, n_min: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs ``(mu (p,), E (N, p))`` of ``H K H`` above ``floor`` (at least ``n_min``
    of them), from LAPACK with only those eigenvectors formed."""
    Kc = center_kernel(K)
    N = Kc.shape[0]
    mu, E = eigh(Kc, subset_by_value=(floor, np.inf), driver="evr")
    if mu.size < n_min:
        mu, E = eigh(Kc, subset_by_index=[N - min(n_min, N), N - 1], driver="evr")
    return np.maximum(mu, 0.0), E


def kcca(
    K1: ArrayLike,
    K2: ArrayLike,
    reg1: float = 1e-3,
    reg2: float = 1e-3,
    n_directions: int = 1,
    keep_T: bool = True,
) -> KCCAResult:
    """Exact regularised kernel CCA (Wang 2016, eq. 2-3).

    ``T = (Kc1 + N reg1 I)^{-1} Kc1 Kc2 (Kc2 + N reg2 I)^{-1}`` with ``Kc = H K H``; the
    canonical correlations are its top singular values.  One symmetric eigenvalue
    decomposition per view (O(N^3), only the eigenvectors that matter formed); T is
    kept as ``E1 middle E2'``, formed N x N only with ``keep_T``.  Exact up to
    :data:`SHRINK_RTOL`.  Meant for N up to a few thousand.

    Parameters
    ----------
    K1, K2 : ndarray of shape (N, N)
        The two views' kernel matrices on the same N points.
    reg1, reg2 : float, default=1e-3
        The ridges lambda1, lambda2 of each view, positive.
    n_directions : int, default=1
        The number L of canonical directions.
    keep_T : bool, default=True
        Also form T as an N x N matrix.

    Returns
    -------
    KCCAResult
        Correlations, singular vectors, dual coefficients and T's factors.
    """
    K1, K2 = check_psd_kernel(K1, "K1"), check_psd_kernel(K2, "K2")
    check_same_rows(K1, K2, ("K1", "K2"))
    reg1, reg2 = check_positive(reg1, "reg1"), check_positive(reg2, "reg2")
    n_directions = _check_directions(n_directions)
    N = K1.shape[0]
    L = min(n_directions, N)
    view1 = centred_eigen(K1, eigen_floor(N, reg1), L)
    view2 = centred_eigen(K2, eigen_floor(N, reg2), L)
    return kcca_from_eigen(view1, view2, N, reg1, reg2, L, keep_T)


def kcca_from_eigen(
    view1: tuple[np.ndarray, np.ndarray],
    view2: tuple[np.ndarray, np.ndarray],
    N: int,
    reg1: float,
    reg2: float,
    n_directions: int = 1,
    keep_T: bool = False,
) -> KCCAResult:
    """:func:`kcca` from each view's centred eigenpairs ``(mu, E)`` (:func:`centred_eigen`,
    or any with the dropped eigenvalues below :func:`eigen_floor`): O(N p^2)."""
    (mu1, E1), (mu2, E2) = view1, view2
    shrink1, shrink2 = mu1 / (mu1 + N * reg1), mu2 / (mu2 + N * reg2)
    middle = shrink1[:, None] * (E1.T @ E2) * shrink2[None, :]  # T = E1 middle E2'
    U, s, Vt = np.linalg.svd(middle, full_matrices=False)
    L = min(n_directions, s.size)
    alpha_p, beta_p = E1 @ U[:, :L], E2 @ Vt[:L].T
    return KCCAResult(
        correlations=s[:L],
        alpha_prime=alpha_p,
        beta_prime=beta_p,
        # (Kc + N reg I)^{-1} acts on span(E) as diag(1 / (mu + N reg))
        alpha=np.sqrt(N) * E1 @ (U[:, :L] / (mu1 + N * reg1)[:, None]),
        beta=np.sqrt(N) * E2 @ (Vt[:L].T / (mu2 + N * reg2)[:, None]),
        T=E1 @ middle @ E2.T if keep_T else None,
        factors=(E1, middle, E2),
    )
