"""Bound-vs-sparsity curves: for t = 1..k, losses and every applicable bound at t.

Each function takes the training kernel, the test-vs-train kernel, the targets and a
path, and returns :class:`BoundCurves`: the curves over t, the running minimum of every
bound over t (the bound the theorems state for A_k), and the argmin of every curve.

Checks against the papers (the robust ones are tests in ``tests/test_curves.py``):

- Hussain et al. 2011, Fig. 3 toy (m = 1000, d = 450, r = 50): with a linear kernel on the data
  scaled into the unit ball and the r dominant dimensions at 10x the standard deviation
  (the paper gives no factor, nor the kernel), the compression bound's minimum is at
  t = 58 (paper: 46), below the global Rademacher bound's minimum (0.455 vs 0.703);
  the global bound's minimum is at t = 50 (paper: 29).  Larger factors move the
  compression argmin towards r (15x: 52, 20x: 51).
- Hussain et al. 2011, Fig. 2, Boston (all 13 features, standardised, RBF gamma = 0.1, a seeded
  2/3 training split; the paper's sigma = 0.035 refers to a feature scaling it does not
  state): compression bound minimum 0.63 (non-trivial) at t = 24 (paper: 43); global
  Rademacher minimum 1.33 (trivial, as in the paper).  gamma = 0.05 gives t = 18, 0.3
  gives t = 61.
- Hussain et al. 2011, Fig. 1, KMP on Boston (same setting, pre-fitting, alpha = half the target's
  standard deviation = 4.6): NOT reproduced.  Over three splits the bound's argmin is at
  t = 8, 6, 10 while the test error's argmin is at t = 44, 60, 59 (test MSE: 33, 60, 54),
  and the bound stays above 1 (minimum 2.6-3.0; the paper plots it scaled by 1/5, so its
  values were also above 1).  With alpha = 10 the bound's argmin falls to t = 2.  The
  paper does not give alpha, the kernel width or the split, so its closeness of the two
  argmins may depend on those choices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import eigh
from scipy.stats import spearmanr

from . import bounds
from ._validation import check_binary_labels, check_positive, check_psd_kernel
from .cca import center_kernel
from .engine import PursuitPath
from .lowrank import pivoted_cholesky
from .mpkfda import FisherModel, _fisher_model
from .nystrom import nested_projection_residuals, nystrom_features
from .skcca import _fit_sparse_cca


@dataclass(frozen=True)
class BoundCurves:
    """Curves over the number of basis vectors ``t`` (1..n_steps).

    ``running_min`` (bound name -> its running minimum over t) and ``argmin`` (curve
    name -> the t, 1-based, where it is smallest, the first on ties) are computed from
    them.

    Parameters
    ----------
    family : str
        The algorithm ("skpca", "kmp", "skcca", "mpkfda").
    t : ndarray of shape (n_steps,)
        1, 2, ..., n_steps.
    curves : dict of str to ndarray of shape (n_steps,)
        The curves by name (errors, losses, bounds).
    bound_names : tuple of str
        The names in ``curves`` that are bounds.
    settings : dict
        The parameters used (delta, alpha, ...).
    """

    family: str
    t: np.ndarray
    curves: dict[str, np.ndarray]
    bound_names: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def running_min(self) -> dict[str, np.ndarray]:
        return {name: bounds.running_min(self.curves[name]) for name in self.bound_names}

    @property
    def argmin(self) -> dict[str, int | None]:
        out: dict[str, int | None] = {}
        for name, values in self.curves.items():
            finite = np.where(np.isfinite(values), values, np.inf)
            out[name] = int(self.t[np.argmin(finite)]) if np.isfinite(finite).any() else None
        return out

    @property
    def test_name(self) -> str | None:
        """The curve of the held-out loss the bounds are about (test error or residual)."""
        for name in ("test error rate", "test residual"):
            if name in self.curves:
                return name
        return None

    def summary(self) -> dict[str, Any]:
        """The numbers a sentence about these curves may quote, computed (never typed).

        Returns
        -------
        dict
            ``bound_min`` / ``bound_argmin`` of the first bound, ``test_min`` /
            ``test_argmin`` of the held-out loss, and ``rank_corr``, Spearman's rank
            correlation of the two over the t where both are finite (how closely the
            bound follows the loss; nan when either is constant).  Missing curves give nan
            (and None for an argmin).
        """
        out: dict[str, Any] = {
            "bound_min": float("nan"),
            "bound_argmin": None,
            "test_min": float("nan"),
            "test_argmin": None,
            "rank_corr": float("nan"),
        }
        argmin = self.argmin
        bound = self.bound_names[0] if self.bound_names else None
        test = self.test_name
        for prefix, name in (("bound", bound), ("test", test)):
            at = argmin.get(name) if name is not None else None
            if name is not None and at is not None:
                out[f"{prefix}_argmin"] = at
                out[f"{prefix}_min"] = float(np.asarray(self.curves[name], dtype=float)[at - 1])
        if bound is not None and test is not None:
            a, b = (np.asarray(self.curves[name], dtype=float) for name in (bound, test))
            both = np.isfinite(a) & np.isfinite(b)
            if both.sum() > 2 and np.ptp(a[both]) > 0 and np.ptp(b[both]) > 0:
                out["rank_corr"] = float(spearmanr(a[both], b[both])[0])
        return out

    def table(self) -> dict[str, np.ndarray]:
        """The columns of a CSV download: t, every curve, every running minimum.

        Returns
        -------
        dict of str to ndarray
            The columns by name.
        """
        columns = {"t": self.t}
        columns.update(self.curves)
        columns.update({f"{name} (running min)": values for name, values in self.running_min.items()})
        return columns


def _steps(path: PursuitPath) -> np.ndarray:
    if path.n_steps == 0:
        raise ValueError("The path chose no basis vectors, so there is nothing to plot.")
    return np.arange(1, path.n_steps + 1)


def _check_delta(delta: float) -> None:
    """Fail before the per-step fits, with the bounds' own message."""
    bounds._check_delta(delta)


def kernel_spectra(K: np.ndarray, steps: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues of ``K`` and of the centred ``H K H``, descending, clipped at 0.

    ``steps=None``: every eigenvalue, one O(m^3) decomposition each; cache the result for
    repeated curves.  ``steps=k`` (what the sparse KPCA curves up to k components need):
    on large kernels, from one pivoted Cholesky factor ``K ~ L L'`` whose PSD residual has
    trace at most ``SPECTRUM_RTOL`` x tr K, and the eigenvalues of the small ``L'L`` and
    ``(HL)'(HL)``.  Every eigenvalue and every tail sum up to k is then within
    ``k SPECTRUM_RTOL tr K`` of the exact one (Weyl), O(m r^2) for rank r; the m - r
    eigenvalues beyond the factor get the mean that keeps the trace.  A kernel whose
    factor would exceed ``m / 4`` columns gets the full decompositions.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    steps : int or None, default=None
        The number of components the curves need, or None for every eigenvalue.

    Returns
    -------
    eigvals : ndarray of shape (m,)
        The kernel's spectrum.
    centered_eigvals : ndarray of shape (m,)
        The centred kernel's spectrum.
    """
    m = K.shape[0]
    factor: np.ndarray | Literal[False] | None = False
    if steps is not None and m > _FACTOR_FROM:
        factor = pivoted_cholesky(K, SPECTRUM_RTOL * float(np.trace(K)), max(int(steps) + 1, m // 4))
    if factor is None or factor is False:
        values = np.clip(eigh(K, eigvals_only=True)[::-1], 0.0, None)
        centred = np.clip(eigh(center_kernel(K), eigvals_only=True)[::-1], 0.0, None)
        return values, centred
    centred_trace = float(np.trace(K) - K.sum() / m)  # tr(H K H) = tr K - 1'K1 / m
    return _filled(factor, float(np.trace(K)), m), _filled(factor - factor.mean(axis=0), centred_trace, m)


#: Relative accuracy of the factored spectra (times the kernel's trace).
SPECTRUM_RTOL = 1e-12
#: Below this many points every eigenvalue is computed: LAPACK is as fast.
_FACTOR_FROM = 400


def _filled(F: np.ndarray, trace: float, m: int) -> np.ndarray:
    """The eigenvalues of ``F F'`` (m,), descending: those of the small ``F'F``, then
    the mean of what the trace leaves for the rest."""
    top = np.clip(np.linalg.eigvalsh(F.T @ F)[::-1], 0.0, None)
    rest = np.clip((trace - top.sum()) / max(m - top.size, 1), 0.0, top[-1] if top.size else None)
    return np.concatenate([top, np.full(m - top.size, rest)])


#: Hussain et al. 2011 Thm 8 under each reading of its eigenvalues (mpcore.bounds.THM8_READINGS).
LOCAL_OPERATOR = "local Rademacher bound (λ of K/m)"
LOCAL_PRINTED = "local Rademacher bound (printed: λ of K)"


def skpca_curves(
    K: np.ndarray,
    K_test: np.ndarray,
    test_diag: ArrayLike,
    path: PursuitPath,
    delta: float = 0.05,
    R: float = 1.0,
    c: float = 80.0,
    spectra: tuple[np.ndarray, np.ndarray] | None = None,
) -> BoundCurves:
    """Sparse KPCA's curves (Hussain et al. 2011, Cor. 1, Thm 7, Thm 8; Figs 2-5).

    Curves: ``test residual`` (mean ``||phi(x) - P_t phi(x)||^2`` on the test set),
    ``train residual outside compression set`` (``trace(K_t) / (m - t)``), ``KPCA train
    residual`` (the optimal full-KPCA residual with t components, ``sum(lambda_{>t}) /
    m``, for reference), and the bounds ``compression bound``, ``global Rademacher
    bound`` and the local Rademacher bound (c = 80: log axis) in both readings of its
    eigenvalues, :data:`LOCAL_OPERATOR` (``lambda(K/m)``, the proof's) and
    :data:`LOCAL_PRINTED` (``lambda(K)``, as printed; see
    :func:`mpcore.bounds.pca_local_rademacher`).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    K_test : ndarray of shape (n, m)
        The kernel between test and training points.
    test_diag : ndarray of shape (n,)
        ``k(x, x)`` of the test points.
    path : PursuitPath
        The pursuit whose first t steps each point of the curves uses.
    delta : float, default=0.05
        The bounds' confidence.
    R : float, default=1.0
        The supremum of ``k(x, x)``.
    c : float, default=80.0
        The local Rademacher bound's constant.
    spectra : tuple of ndarray or None, default=None
        ``kernel_spectra(K)``, if already computed.

    Returns
    -------
    BoundCurves
        The curves against t = 1..n_steps, with their running minima and argmins.
    """
    _check_delta(delta)
    t = _steps(path)
    m = K.shape[0]
    residuals = path.extras["residuals"][1:]
    train_outside = residuals.sum(axis=1) / (m - t)
    test_residual = nested_projection_residuals(K, K_test, np.asarray(test_diag), path.indices).mean(axis=0)
    values, centred = spectra if spectra is not None else kernel_spectra(K, steps=int(t.max(initial=0)))
    tail = np.concatenate([np.cumsum(values[::-1])[::-1], [0.0]])
    curves = {
        "test residual": test_residual,
        "train residual outside compression set": train_outside,
        "KPCA train residual": tail[t] / m,
        "compression bound": bounds.compression_subspace(train_outside, m, t, delta, R),
        "global Rademacher bound": bounds.pca_global_rademacher(values, np.diag(K), t, delta, R),
        LOCAL_OPERATOR: bounds.pca_local_rademacher(values / m, centred / m, t, m, delta, R, c),
        LOCAL_PRINTED: bounds.pca_local_rademacher(values, centred, t, m, delta, R, c),
    }
    names = ("compression bound", "global Rademacher bound", LOCAL_OPERATOR, LOCAL_PRINTED)
    return BoundCurves("Sparse KPCA", t, curves, names, {"delta": delta, "R": R, "c": c})


def _kmp_predictions(K_rows: np.ndarray, path: PursuitPath, offset: float) -> np.ndarray:
    coefs, intercepts, idx = path.extras["coefs"], path.extras["intercepts"], path.indices
    return (
        np.stack([K_rows[:, idx[:j]] @ coefs[j - 1, :j] + intercepts[j - 1] for j in range(1, path.n_steps + 1)])
        + offset
    )


def default_alpha(y: ArrayLike) -> float:
    """The default error tolerance of the KMP bound: half the target's standard deviation.

    Parameters
    ----------
    y : array-like of shape (m,)
        The training target.

    Returns
    -------
    float
        ``0.5 std(y)``.
    """
    return 0.5 * float(np.std(np.asarray(y, dtype=float)))


def kmp_curves(
    K: np.ndarray,
    y: ArrayLike,
    K_test: np.ndarray,
    y_test: ArrayLike,
    path: PursuitPath,
    alpha: float | None = None,
    delta: float = 0.05,
    offset: float = 0.0,
) -> BoundCurves:
    """Kernel matching pursuit's curves (Hussain et al. 2011, Thm 4, Fig. 1).

    Predictions after t steps are ``K[:, i_1..t] alpha_t + b_t + offset``.  A point errs
    when ``|f(x) - y| > alpha``.  The bound's ``k`` is the number of *distinct* basis
    points (basic pursuit may repeat one) and its ``t`` the erring training points
    outside the compression set.  Curves: ``test error rate`` and ``train error rate
    outside compression set`` (of the alpha loss), ``test MSE``, ``train MSE``, and
    ``KMP bound``.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    y : ndarray of shape (m,)
        The training target.
    K_test : ndarray of shape (n, m)
        The kernel between test and training points.
    y_test : ndarray of shape (n,)
        The test target.
    path : PursuitPath
        The pursuit whose first t steps each point of the curves uses.
    alpha : float or None, default=None
        The error tolerance (None: :func:`default_alpha`).
    delta : float, default=0.05
        The bounds' confidence.
    offset : float, default=0.0
        Added to the predictions: the target mean if the path was run on a centred target.

    Returns
    -------
    BoundCurves
        The curves against t = 1..n_steps, with their running minima and argmins.
    """
    _check_delta(delta)
    steps = _steps(path)
    alpha = default_alpha(y) if alpha is None else float(alpha)
    if not alpha > 0:
        raise ValueError(f"alpha must be positive, got {alpha!r}.")
    m = K.shape[0]
    f_train = _kmp_predictions(K, path, offset)
    f_test = _kmp_predictions(K_test, path, offset)
    train_errors = np.abs(f_train - y) > alpha
    sizes: list[int] = []
    counts: list[int] = []
    outside_sizes = []
    for j in steps:
        outside = np.ones(m, dtype=bool)
        outside[path.indices[:j]] = False
        sizes.append(int(m - outside.sum()))
        counts.append(int(train_errors[j - 1][outside].sum()))
        outside_sizes.append(outside.sum())
    basis_sizes, error_counts = np.array(sizes), np.array(counts)
    curves = {
        "test error rate": (np.abs(f_test - y_test) > alpha).mean(axis=1),
        "train error rate outside compression set": error_counts / np.array(outside_sizes),
        "test MSE": ((f_test - y_test) ** 2).mean(axis=1),
        "train MSE": ((f_train - y) ** 2).mean(axis=1),
        "KMP bound": bounds.kmp_vc(m, basis_sizes, error_counts, delta),
    }
    return BoundCurves(
        "Kernel matching pursuit",
        steps,
        curves,
        ("KMP bound",),
        {"alpha": alpha, "delta": delta, "errors outside": error_counts},
    )


def skcca_curves(
    Kx: np.ndarray,
    Ky: np.ndarray,
    Kx_test: np.ndarray,
    Ky_test: np.ndarray,
    path: PursuitPath,
    alpha: float = 1.0,
    delta: float = 0.05,
    reg: float = 1e-3,
) -> BoundCurves:
    """Sparse KCCA's curves, first direction (Hussain et al. 2011, Thm 9, Fig. 7).

    For each t, CCA on the Nystroem features of the first t chosen points gives unit-
    variance variates ``f_x``, ``f_y``; a pair errs when ``|f_x(x) - f_y(y)| > alpha``.
    Curves: ``test error rate``, ``train error rate outside compression set``, ``train
    correlation``, ``test correlation``, ``SKCCA bound``.

    Parameters
    ----------
    Kx, Ky : ndarray of shape (m, m)
        The two views' training kernels.
    Kx_test, Ky_test : ndarray of shape (n, m)
        The two views' kernels between test and training points.
    path : PursuitPath
        The pursuit whose first t steps each point of the curves uses.
    alpha : float, default=1.0
        The error tolerance on the variates' difference.
    delta : float, default=0.05
        The bounds' confidence.
    reg : float, default=1e-3
        The CCA ridge.

    Returns
    -------
    BoundCurves
        The curves against t = 1..n_steps, with their running minima and argmins.
    """
    return _skcca_curves(Kx, Ky, Kx_test, Ky_test, path, alpha, delta, reg, {})


def _skcca_curves(
    Kx: np.ndarray,
    Ky: np.ndarray,
    Kx_test: np.ndarray,
    Ky_test: np.ndarray,
    path: PursuitPath,
    alpha: float,
    delta: float,
    reg: float,
    variates: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
) -> BoundCurves:
    """:func:`skcca_curves`, keeping each step's first variates in ``variates`` (j -> train
    f_x, f_y, test f_x, f_y) for a study that shows them."""
    _check_delta(delta)
    steps = _steps(path)
    m = Kx.shape[0]
    # checked once, for every step's fit
    Kx, Ky = check_psd_kernel(Kx, "Kx"), check_psd_kernel(Ky, "Ky")
    reg = check_positive(reg, "The CCA regularisation reg", allow_zero=True)
    test_err, train_err, train_corr, test_corr, counts = [], [], [], [], []
    for j in steps:
        idx = path.indices[:j]
        cca, Cx, Cy = _fit_sparse_cca(Kx, Ky, idx, reg, 1)
        vx, vy = cca.transform(nystrom_features(Kx[:, idx], Cx), nystrom_features(Ky[:, idx], Cy))
        wx, wy = cca.transform(nystrom_features(Kx_test[:, idx], Cx), nystrom_features(Ky_test[:, idx], Cy))
        variates[j] = (vx[:, 0], vy[:, 0], wx[:, 0], wy[:, 0])
        outside = np.ones(m, dtype=bool)
        outside[idx] = False
        errors = np.abs(vx[:, 0] - vy[:, 0]) > alpha
        counts.append(int(errors[outside].sum()))
        train_err.append(errors[outside].mean())
        test_err.append(np.mean(np.abs(wx[:, 0] - wy[:, 0]) > alpha))
        train_corr.append(np.corrcoef(vx[:, 0], vy[:, 0])[0, 1])
        test_corr.append(np.corrcoef(wx[:, 0], wy[:, 0])[0, 1] if np.std(wx) > 0 and np.std(wy) > 0 else np.nan)
    curves = {
        "test error rate": np.array(test_err),
        "train error rate outside compression set": np.array(train_err),
        "train correlation": np.array(train_corr),
        "test correlation": np.array(test_corr),
        "SKCCA bound": np.asarray(bounds.kmp_vc(m, steps, np.array(counts), delta)),
    }
    return BoundCurves("Sparse KCCA", steps, curves, ("SKCCA bound",), {"alpha": alpha, "delta": delta, "reg": reg})


def mpkfda_curves(
    K: np.ndarray,
    y: ArrayLike,
    K_test: np.ndarray,
    y_test: ArrayLike,
    path: PursuitPath,
    delta: float = 0.05,
    R: float = 1.0,
    shrinkage: float | str | None = "auto",
) -> BoundCurves:
    """The greedy kernel Fisher discriminant's curves (Diethe 2015, Thm 1).

    For each t a Fisher discriminant on the first t chosen points; the bound uses the
    projected means and variances of each class's training points outside the
    compression set (see :func:`mpcore.bounds.mpkfda`).  Curves: ``test error rate``,
    ``train error rate outside compression set``, and the bounds ``MPKFDA bound``
    (prior-weighted), ``MPKFDA bound, class -1`` and ``... +1``.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    y : ndarray of shape (m,)
        Training labels -1/+1.
    K_test : ndarray of shape (n, m)
        The kernel between test and training points.
    y_test : ndarray of shape (n,)
        Test labels -1/+1.
    path : PursuitPath
        The pursuit whose first t steps each point of the curves uses.
    delta : float, default=0.05
        The bounds' confidence.
    R : float, default=1.0
        The supremum of ``||phi(x)||``.
    shrinkage : "auto", float or None, default="auto"
        The Fisher discriminant's shrinkage.

    Returns
    -------
    BoundCurves
        The curves against t = 1..n_steps, with their running minima and argmins.
    """
    return _mpkfda_curves(K, y, K_test, y_test, path, delta, R, shrinkage, {})


def _mpkfda_curves(
    K: np.ndarray,
    y: ArrayLike,
    K_test: np.ndarray,
    y_test: ArrayLike,
    path: PursuitPath,
    delta: float,
    R: float,
    shrinkage: float | str | None,
    fitted: dict[int, FisherModel],
) -> BoundCurves:
    """:func:`mpkfda_curves`, keeping each step's Fisher model in ``fitted`` (j -> model) for
    a study that shows them."""
    _check_delta(delta)
    steps = _steps(path)
    m = K.shape[0]
    y, y_test = np.asarray(y, dtype=float), np.asarray(y_test, dtype=float)
    K, signs = check_psd_kernel(K), check_binary_labels(y)[0]  # once, for every step's model
    test_err, train_err, total, negative, positive = [], [], [], [], []
    for j in steps:
        idx = path.indices[:j]
        model = fitted[j] = _fisher_model(K, signs, idx, shrinkage)
        outside = np.ones(m, dtype=bool)
        outside[idx] = False
        projection = model.features(K[:, idx]) @ model.w
        train_err.append(np.mean(np.sign(projection[outside] + model.b) != y[outside]))
        test_err.append(np.mean(np.sign(model.decision(K_test[:, idx])) != y_test))
        groups = [projection[outside & (y < 0)], projection[outside & (y > 0)]]
        means = np.array([g.mean() if g.size else 0.0 for g in groups])
        variances = np.array([g.var() if g.size else 0.0 for g in groups])
        sizes = np.array([g.size for g in groups])
        result = bounds.mpkfda(means, variances, -model.b, sizes, m, j, delta, R)
        total.append(result["total"])
        negative.append(result["negative"])
        positive.append(result["positive"])
    curves = {
        "test error rate": np.array(test_err),
        "train error rate outside compression set": np.array(train_err),
        "MPKFDA bound": np.array(total, dtype=float),
        "MPKFDA bound, class -1": np.array(negative, dtype=float),
        "MPKFDA bound, class +1": np.array(positive, dtype=float),
    }
    names = ("MPKFDA bound", "MPKFDA bound, class -1", "MPKFDA bound, class +1")
    return BoundCurves("Greedy kernel Fisher discriminant", steps, curves, names, {"delta": delta, "R": R})
