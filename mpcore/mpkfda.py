"""Greedy kernel Fisher discriminants: MPKFDA with 5 criteria x 7 deflations x stages (Diethe 2015)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from . import criteria
from ._validation import check_binary_labels, check_choice, check_indices, check_n_steps, check_psd_kernel
from .criteria import FISHER_CRITERIA
from .deflations import DEFLATIONS, LowRankDeflation
from .engine import PursuitPath, pursue
from .nystrom import nystrom_factor, nystrom_features


def mpkfda_path(
    K: ArrayLike,
    y: ArrayLike,
    k: int,
    criterion: str = "optimal",
    deflation: str = "projection",
    stages: int = 1,
    seed: int = 0,
    tau_from: str = "deflated",
) -> PursuitPath:
    """Choose k basis points for a kernel Fisher discriminant greedily (Diethe 2015, Alg. 1).

    Parameters
    ----------
    K : array (m, m)
        Kernel matrix of the training points.
    y : array (m,)
        Two-class labels, any two values; the larger (after sorting) becomes +1.
    k : int
        Number of basis points, ``1 <= k < m``.
    criterion : one of ``"optimal", "pseudo", "reverse", "reverse-pseudo", "random"``
        ``optimal`` maximises ``(K[:, i]'y)^2 / (K[:, i]' B K[:, i])`` (eq. 7, B of
        eq. 2), ``pseudo`` its numerator, ``reverse*`` take the argmin of those,
        ``random`` a uniform eligible column (``numpy.random.default_rng(seed)``).
    deflation : one of :data:`mpcore.deflations.DEFLATIONS`
        ``none``, ``hotelling`` (eq. 15), ``projection`` (eq. 16), ``schur`` (eq. 17),
        ``ortho-hotelling`` (eq. 18), ``ortho-projection`` (Mackey), ``ortho-schur``
        (eq. 19); ``tau = K[:, i] / ||K[:, i]||``.
    stages : int
        Columns chosen per stage from one score vector before deflating once for each
        (Alg. 1; stages=1 is the original MPKFDA).
    seed : int
        Seed of ``numpy.random.default_rng`` for the ``random`` criterion.
    tau_from : ``"deflated"`` or ``"original"``
        Take tau from the current deflated kernel (sec. 3.2.4, the default) or from K.
        Either way ortho-Schur picks exactly what Schur picks (see
        :class:`mpcore.deflations.ExplicitDeflation`).

    Returns
    -------
    PursuitPath
        ``extras["labels"]``: y mapped to -1/+1; ``extras["classes"]``: the two labels.
        A candidate whose column vanishes during a stage is skipped.

    Notes
    -----
    Cost: one or two products with K per chosen column (the deflated kernel is kept as
    ``K - U V'`` and the criterion's sums are updated, :class:`mpcore.deflations.LowRankDeflation`);
    no copy of K.
    """
    K = check_psd_kernel(K)
    m = K.shape[0]
    signs, classes = check_binary_labels(y)
    if signs.shape[0] != m:
        raise ValueError(f"y has {signs.shape[0]} labels but the kernel has {m} rows; they must match.")
    k = check_n_steps(k, m)
    check_choice(criterion, FISHER_CRITERIA, "criterion")
    check_choice(deflation, DEFLATIONS, "deflation")
    if isinstance(stages, bool) or not isinstance(stages, numbers.Integral) or stages < 1:
        raise ValueError(f"stages must be a whole number of at least 1, got {stages!r}.")
    rng = np.random.default_rng(seed)
    score, pick = criteria.fisher(criterion, signs, rng)
    D, _, _, tracked = criteria.fisher_scatter_parts(signs)
    path = pursue(
        LowRankDeflation(K, deflation, tau_from, weights=D, track=tracked),
        score,
        k,
        pick=pick,
        stages=int(stages),
        algorithm="Greedy kernel Fisher discriminant (MPKFDA)",
        criterion_name=criterion,
        deflation_name=deflation,
    )
    return replace(path, extras={"labels": signs, "classes": classes, "stages": int(stages)})


@dataclass(frozen=True)
class FisherModel:
    """Fisher discriminant in the Nystroem span of the chosen points.

    ``decision(F) = F @ w + b`` with ``F`` the Nystroem features; ``b`` puts the
    threshold midway between the projected class means.  ``w`` has unit norm.
    """

    indices: np.ndarray
    factor: np.ndarray
    w: np.ndarray
    b: float
    projected_means: tuple[float, float]

    def features(self, K_rows: np.ndarray) -> np.ndarray:
        """Nystroem features of points from their kernel against the chosen ones.

        Parameters
        ----------
        K_rows : ndarray of shape (n, k)
            The kernel between n points and the chosen points.

        Returns
        -------
        ndarray of shape (n, k)
            The features.
        """
        return nystrom_features(K_rows, self.factor)

    def decision(self, K_rows: np.ndarray) -> np.ndarray:
        """The discriminant's value ``F w + b``: positive for the +1 class.

        Parameters
        ----------
        K_rows : ndarray of shape (n, k)
            The kernel between n points and the chosen points.

        Returns
        -------
        ndarray of shape (n,)
            The decision values.
        """
        return np.asarray(self.features(K_rows) @ self.w + self.b)


def fit_fisher(K: ArrayLike, y: ArrayLike, indices: ArrayLike, shrinkage: str | float | None = "auto") -> FisherModel:
    """Fisher discriminant on the Nystroem features of the chosen points (Diethe 2015, Alg. 1 line 10).

    Uses scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr", shrinkage=...)``
    for the direction, normalises it, and thresholds midway between the projected class
    means (eq. 8).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The training kernel.
    y : array-like of shape (m,)
        Two classes (mapped to -1/+1 in sorted order, as :func:`mpkfda_path` does).
    indices : array-like of int
        The chosen points.
    shrinkage : "auto", float in [0, 1] or None, default="auto"
        ``LinearDiscriminantAnalysis``'s shrinkage of the within-class covariance.

    Returns
    -------
    FisherModel
        The unit direction w and threshold b in the chosen points' Nystroem features.
    """
    K = check_psd_kernel(K)
    y, _ = check_binary_labels(y)
    if y.shape[0] != K.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels but K has {K.shape[0]} rows; they must match.")
    if indices is not None and np.asarray(indices).size == 0:
        raise ValueError("No basis points were chosen; run mpkfda_path with k >= 1 first.")
    return _fisher_model(K, y, check_indices(indices, K.shape[0]), shrinkage)


def _fisher_model(K: np.ndarray, y: np.ndarray, indices: np.ndarray, shrinkage: str | float | None) -> FisherModel:
    """:func:`fit_fisher` on inputs it has checked: the training kernel ``K`` (m, m), labels
    ``y`` in {-1, +1} and the chosen points' ``indices``.  For a caller that fits a model
    at every step of one path (the bound curves, a study's steps), whose kernel and labels
    were checked once; the kernel check alone reads all of ``K``."""
    C = nystrom_factor(K[np.ix_(indices, indices)])
    w, b, means = fisher_direction(nystrom_features(K[:, indices], C), y, shrinkage)
    return FisherModel(indices, C, w, b, means)


def fisher_direction(
    F: np.ndarray, y: np.ndarray, shrinkage: float | str | None = "auto"
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """The discriminant of :func:`fit_fisher` on given features ``F`` (m, k) and labels
    ``y`` in {-1, +1}: ``(w, b, (mean_neg, mean_pos))`` with ``w`` of unit norm and ``b``
    midway between the projected class means (eq. 8)."""
    lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage=shrinkage).fit(F, y)
    w = lda.coef_[0]
    w = w / max(np.linalg.norm(w), 1e-300)
    projection = F @ w
    mean_pos, mean_neg = projection[y > 0].mean(), projection[y < 0].mean()
    if mean_pos < mean_neg:  # keep "positive decision = class +1"
        w, mean_pos, mean_neg = -w, -mean_pos, -mean_neg
    return w, float(-(mean_pos + mean_neg) / 2), (float(mean_neg), float(mean_pos))
