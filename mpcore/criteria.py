"""Criteria: what each algorithm maximises over the columns of the current kernel.

Each criterion is a function ``state -> scores`` (shape (m,)); the greedy loop masks
ineligible candidates with ``nan`` and picks the best.  Hussain et al. 2011, Table I:

========  ==================================================================
SKPCA     ``||K[:, i]||^2 / K[i, i]``                       (Alg. 2 line 3)
KMP       ``|K[:, i]' y| / ||K[:, i]||``                    (Alg. 5 line 3)
SKCCA     ``<Kx[:, i], Ky[:, i]> / (||Kx[:, i]|| ||Ky[:, i]||)``  (Alg. 3 line 3)
Fisher    ``(K[:, i]' y)^2 / (K[:, i]' B K[:, i])``         (Diethe 2015, eq. 7)
========  ==================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

#: Diethe 2015 section 3.3.1: the five basis-selection criteria for MPKFDA.
FISHER_CRITERIA = ("optimal", "pseudo", "reverse", "reverse-pseudo", "random")
#: A criterion: the kernel state -> a score for every candidate.
Criterion = Callable[[Any], Any]  # an ndarray (m,), or (scores, round-off bounds)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, ``nan`` where the denominator is not positive (``inf`` where
    a positive one is so small, a subnormal, that the quotient overflows)."""
    out = np.full(np.shape(numerator), np.nan)
    with np.errstate(over="ignore"):
        np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def skpca(state: Any) -> np.ndarray:
    """``||K[:, i]||^2 / K[i, i]`` on the deflated kernel (Hussain et al. 2011, Alg. 2 line 3).

    The variance a projection onto point i would explain.  The squared column norms are
    tracked by updates whose round-off is absolute, so the score of a point whose
    residual ``K[i, i]`` is tiny can be a few percent off late in a path.  Every
    candidate that could be the winner within that error is rescored from the exact
    deflated kernel (usually a handful, O(m r) each), so the pick is the one exact
    arithmetic makes (Hussain et al. 2011, Thm 5 says Alg. 6 makes the same).  When the
    contenders are many, all norms are recomputed once instead, which resets the error.

    Parameters
    ----------
    state : kernel state
        The current deflated kernel (see :mod:`mpcore.deflations`).

    Returns
    -------
    ndarray of shape (m,)
        The score of every candidate.
    """
    scores = _ratio(state.column_sq_norms(), state.diag())
    if getattr(state, "exact_scores", None) is None or not np.isfinite(scores).any():
        return scores
    contenders = _contenders(state, scores)
    if contenders.size > max(32, state.m // 50):
        state.refresh_norms()
        scores = _ratio(state.column_sq_norms(), state.diag())
        contenders = _contenders(state, scores)
    if contenders.size > 1:
        exact_norms, exact_diag = state.exact_scores(contenders)
        scores[contenders] = _ratio(exact_norms, exact_diag)
    return scores


def _contenders(state: Any, scores: np.ndarray) -> np.ndarray:
    """Candidates whose score, within its round-off bound, could beat the best one's."""
    error = _ratio(np.full(scores.shape, state.column_sq_norm_error()), state.diag())
    best = int(np.nanargmax(scores))
    return np.flatnonzero(np.isfinite(scores) & (scores + error >= scores[best] - error[best]))


def kmp(key: str = "y") -> Criterion:
    """``|K[:, i]' y| / ||K[:, i]||`` on the deflated dictionary (pre-fitting).

    How well column i, after removing what the chosen columns explain, fits the residual
    (Hussain et al. 2011, Alg. 5; Vincent and Bengio 2002, eq. 7 pre-fitting).

    Parameters
    ----------
    key : str, default="y"
        The name of the tracked target in the state.

    Returns
    -------
    callable
        ``state -> ndarray (m,)``, the criterion.
    """

    def criterion(state: Any) -> np.ndarray:
        return _ratio(np.abs(state.columns_dot(key)), np.sqrt(state.column_sq_norms()))

    return criterion


def kmp_original_columns(key: str = "y") -> Criterion:
    """``|d_i' r| / ||d_i||`` with the *original* columns d_i and the current residual r.

    Vincent and Bengio 2002, eq. 3: basic and back-fitting matching pursuit.

    Parameters
    ----------
    key : str, default="y"
        The name of the tracked residual in the state.

    Returns
    -------
    callable
        ``state -> ndarray (m,)``, the criterion.
    """

    def criterion(state: Any) -> np.ndarray:
        return _ratio(np.abs(state.columns_dot(key)), np.sqrt(state.original_column_sq_norms()))

    return criterion


def skcca(state: Any) -> np.ndarray:
    """``<Kx[:, i], Ky[:, i]> / (||Kx[:, i]|| ||Ky[:, i]||)`` on both deflated views.

    Hussain et al. 2011, eq. 14, Alg. 3 line 3.

    Parameters
    ----------
    state : TwoViewProjection
        The two deflated views.

    Returns
    -------
    ndarray of shape (m,)
        The alignment of every candidate's two columns.
    """
    return _ratio(state.cross, np.sqrt(state.x.column_sq_norms() * state.y.column_sq_norms()))


def fisher_scatter_matrix(y: ArrayLike) -> np.ndarray:
    """``B = D - C`` of Diethe 2015, eq. 2 for labels in {-1, +1}.

    ``D[i, i] = 2 m-/m`` for positives and ``2 m+/m`` for negatives; ``C[i, j] =
    2 m-/(m m+)`` when both are positive, ``2 m+/(m m-)`` when both are negative.
    ``K[:, i]' B K[:, i]`` is the within-class scatter of the projection onto column i.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels -1/+1.

    Returns
    -------
    ndarray of shape (m, m)
        B.
    """
    y = np.asarray(y, dtype=float)
    m = y.size
    positive = y > 0
    m_pos, m_neg = positive.sum(), (~positive).sum()
    D = np.where(positive, 2 * m_neg / m, 2 * m_pos / m)
    C = np.zeros((m, m))
    C[np.ix_(positive, positive)] = 2 * m_neg / (m * m_pos)
    C[np.ix_(~positive, ~positive)] = 2 * m_pos / (m * m_neg)
    return np.diag(D) - C


def fisher_scatter_parts(y: ArrayLike) -> tuple[np.ndarray, float, float, dict[str, np.ndarray]]:
    """B of Diethe 2015, eq. 2 in parts: ``B = diag(D) - c_pos 1+ 1+' - c_neg 1- 1-'``.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels -1/+1.

    Returns
    -------
    D : ndarray of shape (m,)
        The diagonal.
    c_pos, c_neg : float
        The constants of the two blocks.
    tracked : dict
        The vectors whose products with K the criterion needs (``y``, ``pos`` = 1+,
        ``neg`` = 1-).
    """
    y = np.asarray(y, dtype=float)
    m = y.size
    positive = y > 0
    m_pos, m_neg = positive.sum(), (~positive).sum()
    D = np.where(positive, 2 * m_neg / m, 2 * m_pos / m)
    tracked = {"y": y, "pos": positive.astype(float), "neg": (~positive).astype(float)}
    return D, float(2 * m_neg / (m * m_pos)), float(2 * m_pos / (m * m_neg)), tracked


def fisher_parts(K: np.ndarray, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The numerator and denominator of the Fisher ratio (Diethe 2015, eq. 7) for every column.

    ``(K[:, i]' y)^2`` and ``K[:, i]' B K[:, i]``, in O(m^2) without forming B (B is
    diagonal minus two constant blocks).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The (deflated) kernel.
    y : array-like of shape (m,)
        Labels -1/+1.

    Returns
    -------
    numerator : ndarray of shape (m,)
        The criterion's numerator at each candidate.
    denominator : ndarray of shape (m,)
        Its denominator.
    """
    D, c_pos, c_neg, tracked = fisher_scatter_parts(y)
    # one pass for the three weighted column sums ([y; 1_pos; 1_neg]' K), one for D-weighted squares
    Ky, sum_pos, sum_neg = np.vstack([tracked["y"], tracked["pos"], tracked["neg"]]) @ K
    denominator = np.einsum("i,ij,ij->j", D, K, K) - c_pos * sum_pos**2 - c_neg * sum_neg**2
    return Ky**2, np.maximum(denominator, 0.0)


def tracked_fisher_parts(state: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fisher_parts` of the deflated kernel from a state that tracks them, in O(m).

    The state tracks ``K_j' v`` and the D-weighted column norms
    (:class:`mpcore.deflations.LowRankDeflation` built with :func:`fisher_scatter_parts`):
    no pass over K.

    Parameters
    ----------
    state : LowRankDeflation
        The deflated kernel.
    y : array-like of shape (m,)
        Labels -1/+1.

    Returns
    -------
    numerator : ndarray of shape (m,)
        The criterion's numerator at each candidate.
    denominator : ndarray of shape (m,)
        Its denominator.
    """
    _, c_pos, c_neg, _ = fisher_scatter_parts(y)
    denominator = (
        state.weighted_column_sq_norms() - c_pos * state.columns_dot("pos") ** 2 - c_neg * state.columns_dot("neg") ** 2
    )
    return state.columns_dot("y") ** 2, np.maximum(denominator, 0.0)


def fisher(name: str, y: ArrayLike, rng: np.random.Generator | None = None) -> tuple[Criterion, str]:
    """One of :data:`FISHER_CRITERIA` as a criterion and whether to maximise it.

    ``optimal`` maximises the Fisher ratio (eq. 7); ``pseudo`` its numerator alone
    (eq. 11); ``reverse`` and ``reverse-pseudo`` *minimise* them (eq. 12, 13); ``random``
    scores every candidate with a uniform draw from ``rng`` and takes the largest, i.e.
    a uniformly random eligible column.

    Parameters
    ----------
    name : str
        A name of :data:`FISHER_CRITERIA`.
    y : array-like of shape (m,)
        Labels -1/+1.
    rng : numpy.random.Generator or None, default=None
        For ``random``.

    Returns
    -------
    criterion : callable
        ``state -> ndarray (m,)``.
    pick : {"max", "min"}
        For :func:`mpcore.pursue`.
    """
    if name == "random":
        draws = np.random.default_rng() if rng is None else rng
        return (lambda state: draws.random(state.m)), "max"
    labels = np.asarray(y, dtype=float)
    scales: list[tuple[float, float]] = []  # the round-off scales of y'K_j[:, i] and of the scatter, from K_0

    def criterion(state: Any) -> tuple[np.ndarray, np.ndarray]:
        if hasattr(state, "weighted_column_sq_norms"):
            numerator, denominator = tracked_fisher_parts(state, labels)
        else:
            numerator, denominator = fisher_parts(state.current(), labels)
        if not scales:
            scales.append(_fisher_scales(state.K0, labels))
        error_y, error_scatter = (ROUND_OFF * (state.rank + 1) * state.m * EPS * scale for scale in scales[0])
        numerator_error = 2 * np.sqrt(numerator) * error_y + error_y**2
        if name in ("pseudo", "reverse-pseudo"):
            return numerator, numerator_error
        # A scatter within round-off of zero is none: the column separates the classes
        # perfectly, and scores the largest float (0 when it does not tell them apart at all).
        separates = denominator <= error_scatter
        below = np.maximum(denominator, max(error_scatter, 1e-300))
        with np.errstate(over="ignore"):
            ratio = numerator / below
            error = (numerator_error + ratio * error_scatter) / below
        perfect = np.where(numerator > numerator_error, np.finfo(float).max, 0.0)
        ratio = np.where(np.isinf(ratio), np.finfo(float).max, ratio)
        return np.where(separates, perfect, ratio), np.where(separates | np.isinf(error), 0.0, error)

    return criterion, ("min" if name.startswith("reverse") else "max")


#: Machine epsilon, the unit of the criteria's round-off bounds.
EPS = float(np.finfo(float).eps)

#: How many units of ``(steps + 1) m eps`` times the original kernel's scale a tracked
#: Fisher sum may be off: rank-one updates leave an absolute error on the scale of K_0,
#: which is large against a deflated kernel many times smaller.
ROUND_OFF = 4.0


def _fisher_scales(K0: Any, labels: np.ndarray) -> tuple[float, float]:
    """Bounds, from K_0, of ``|K[:, i]' y|`` and of the scatter ``K[:, i]' B K[:, i]``'s terms:
    ``max ||K_0[:, i]|| ||y||`` and ``max ||K_0[:, i]||^2 (max D + c_pos m_pos + c_neg m_neg)``."""
    D, c_pos, c_neg, tracked = fisher_scatter_parts(labels)
    column = float(np.sqrt(np.max(np.einsum("ij,ij->j", K0, K0))))
    blocks = c_pos * float(tracked["pos"].sum()) + c_neg * float(tracked["neg"].sum())
    return column * float(np.linalg.norm(labels)), column**2 * (float(np.max(D)) + blocks)
