"""The one idea behind every algorithm here: maximise a criterion, then deflate.

Hussain et al. 2011, Alg. 4 and Table I: a matching-pursuit algorithm is a loop that

1. scores every candidate column of the *current* kernel with a **criterion**,
2. picks the best eligible one (or the ``stages`` best),
3. **deflates** the kernel so that the next pick explains something new,

and finally fits a learner in the span of the chosen columns.  This module holds the
loop (:func:`pursue`) and the record it leaves (:class:`PursuitPath`).  Criteria are
plain functions ``state -> scores`` (see :mod:`mpcore.criteria`); deflations are the
kernel *states* in :mod:`mpcore.deflations`, which know how to deflate themselves and
answer the few questions criteria ask (column norms, diagonal, ``K' v``).

Every state records its deflations as low-rank factors, ``K_j = K_0 - U_j V_j'``, so
any intermediate deflated kernel can be rebuilt on demand without storing k full
m x m matrices.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_choice, check_n_steps


@dataclass(frozen=True)
class PursuitPath:
    """What one greedy run did, step by step.

    Attributes
    ----------
    indices : ndarray of int, shape (n_steps,)
        The chosen columns in order of choice.
    scores : ndarray, shape (n_steps, m)
        The criterion over all candidates when each index was chosen; ``nan`` marks
        candidates that were not eligible (already chosen, exhausted, or not in the
        random subsample).  With ``stages > 1`` the indices chosen in one stage share
        the stage's score row.
    stop_reason : str or None
        ``None`` if all requested steps were taken, else a sentence saying why not.
    algorithm, criterion, deflation : str
        Names, for display.
    pick : {"max", "min"}
        Whether the criterion was maximised or minimised (reverse Fisher criteria).
    extras : dict
        Algorithm-specific results (weights, residuals, ...), documented by each
        ``*_path`` function.
    """

    indices: np.ndarray
    scores: np.ndarray
    stop_reason: str | None
    algorithm: str
    criterion: str
    deflation: str
    pick: str = "max"
    extras: dict[str, Any] = field(default_factory=dict, repr=False)
    _kernels: tuple[np.ndarray, ...] = field(default=(), repr=False)
    _factors: tuple[tuple[np.ndarray | None, np.ndarray | None], ...] = field(default=(), repr=False)
    _ranks: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_steps(self) -> int:
        return int(self.indices.shape[0])

    @property
    def n_views(self) -> int:
        return len(self._kernels)

    def deflated_kernel(self, j: int, view: int = 0) -> np.ndarray:
        """The deflated kernel after ``j`` steps.

        Rebuilt from the recorded low-rank factors in O(r m^2) time.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps`` (0 is the input kernel).
        view : int, default=0
            The kernel for two-view algorithms (0 = X, 1 = Y).

        Returns
        -------
        ndarray of shape (m, m)
            ``K_j``.
        """
        K0, left, right = self._low_rank(j, view)
        return K0.copy() if left is None or right is None else np.asarray(K0 - left @ right.T)

    def deflated_block(self, j: int, rows: ArrayLike, cols: ArrayLike | None = None, view: int = 0) -> np.ndarray:
        """Some rows and columns of the deflated kernel after ``j`` steps.

        Costs O(r len(rows) len(cols)) -- the cheap way to draw a downsampled heatmap of a
        large kernel without rebuilding all of it.

        Parameters
        ----------
        j : int
            The step, ``0 <= j <= n_steps``.
        rows : array-like of int
            The rows.
        cols : array-like of int or None, default=None
            The columns (None: the same as ``rows``).
        view : int, default=0
            The kernel for two-view algorithms (0 = X, 1 = Y).

        Returns
        -------
        ndarray of shape (len(rows), len(cols))
            ``K_j[rows][:, cols]``.
        """
        K0, left, right = self._low_rank(j, view)
        rows = np.asarray(rows, dtype=int)
        cols = rows if cols is None else np.asarray(cols, dtype=int)
        block = K0[np.ix_(rows, cols)]
        return np.asarray(block if left is None or right is None else block - left[rows] @ right[cols].T)

    def _low_rank(self, j: int, view: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``(K0, U, V)`` with ``K_j = K0 - U V'`` (U, V None when nothing was removed)."""
        check_step(j, self.n_steps)
        if view not in range(self.n_views):
            raise ValueError(f"view must be one of {list(range(self.n_views))}, got {view!r}.")
        K0 = self._kernels[view]
        left, right = self._factors[view]
        r = int(self._ranks[j]) if left is not None and self._ranks is not None else 0
        if r == 0 or left is None or right is None:
            return K0, None, None
        return K0, left[:, :r], right[:, :r]

    def chosen_mask(self, j: int | None = None) -> np.ndarray:
        """Which points were chosen in the first ``j`` steps.

        Parameters
        ----------
        j : int or None, default=None
            The number of steps (None: all).

        Returns
        -------
        ndarray of bool, shape (m,)
            True at the chosen points.
        """
        m = self.scores.shape[1]
        mask = np.zeros(m, dtype=bool)
        mask[self.indices[: self.n_steps if j is None else j]] = True
        return mask


def check_step(j: object, n_steps: int) -> int:
    """``j`` as an int if it is a step of a path with ``n_steps`` steps (0..n_steps)."""
    if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j <= n_steps:
        raise ValueError(f"step j must be a whole number between 0 and {n_steps}, got {j!r}.")
    return int(j)


_EPS = float(np.finfo(float).eps)

#: Scores within this fraction of the best score's size are tied, and the lowest index among
#: them wins.  Round-off (another BLAS, another order of summation, another machine) moves a
#: score by far less; without the rule, exact ties -- duplicated points, mirror-image data --
#: went to whichever twin the last bit favoured, so two laptops could show different picks.
TIE_RTOL = 1e-9


def best_index(scores: ArrayLike, pick: str = "max", tolerance: ArrayLike | None = None) -> int:
    """The index of the best finite score, ties going to the lowest index.

    Scores within :data:`TIE_RTOL` of the best one (relative to its size) are tied, and so
    are scores whose distance from the best is within their round-off bounds added.

    Parameters
    ----------
    scores : array-like of shape (m,)
        One score per candidate; NaN or infinite is no score.
    pick : {"max", "min"}, default="max"
        Whether the largest or the smallest score is best.
    tolerance : array-like of shape (m,) or None, default=None
        Each score's round-off bound (absolute), when its criterion knows one: a score
        computed from a deflated kernel far smaller than the original can be off by much
        more than :data:`TIE_RTOL` of itself.

    Returns
    -------
    int
        The chosen index, or -1 when no score is finite.

    Examples
    --------
    >>> from mpcore.engine import best_index
    >>> best_index([0.5, 1.0, 1.0 + 1e-12])  # tied with index 1, which comes first
    1
    >>> best_index([0.5, 1.0, 1.001], tolerance=[0.0, 1e-3, 1e-3])  # apart by less than their bounds
    1
    """
    scores = np.asarray(scores, dtype=float)
    finite = np.isfinite(scores)
    if not finite.any():
        return -1
    best_at = np.flatnonzero(finite)[np.argmax(scores[finite]) if pick == "max" else np.argmin(scores[finite])]
    best = scores[best_at]
    allowed = TIE_RTOL * abs(best)
    if tolerance is not None:
        bounds = np.nan_to_num(np.asarray(tolerance, dtype=float), nan=0.0)
        allowed = allowed + bounds + bounds[best_at]
    tied = finite & (np.abs(scores - best) <= allowed)
    return int(np.flatnonzero(tied)[0])


def _pick_order(scores: np.ndarray, pick: str, count: int, tolerance: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``count`` best finite scores, one :func:`best_index` after another."""
    scores = np.where(np.isfinite(scores), scores, np.nan)  # an infinite score is no score
    order: list[int] = []
    for _ in range(count):
        i = best_index(scores, pick, tolerance)
        if i < 0:
            break
        order.append(i)
        scores[i] = np.nan
    return np.asarray(order, dtype=int)


def _twin_groups(kernels: tuple[Any, ...], m: int) -> np.ndarray:
    """For each candidate, the lowest index whose columns equal its own in every kernel
    (itself when it has no twin): duplicated points.  Columns are grouped by two random
    projections, then compared entry by entry to round-off (``m eps`` of the kernel's largest
    entry: a kernel computed by BLAS gives a duplicated point a column a few bits off its
    twin's).  Kernels that are not (n, m) arrays give no twins."""
    group = np.arange(m)
    if not kernels or not all(isinstance(K, np.ndarray) and K.ndim == 2 and K.shape[1] == m for K in kernels):
        return group
    rng = np.random.default_rng(0)
    projections = np.column_stack([K.T @ rng.normal(size=(K.shape[0], 2)) for K in kernels])
    # to 9 digits of the largest: equal columns agree there whatever order BLAS summed them in
    keys = np.round(projections / max(float(np.abs(projections).max()), 1e-300), 9)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    tolerances = [m * _EPS * float(np.abs(K).max()) for K in kernels]
    for i in np.flatnonzero(first[inverse.ravel()] != np.arange(m)):
        j = first[inverse.ravel()[i]]
        if all(np.abs(K[:, i] - K[:, j]).max() <= tol for K, tol in zip(kernels, tolerances)):
            group[i] = group[j]
    return group


#: What :func:`pursue` asks of a kernel state.
STATE_NEEDS = ("m", "threshold", "rank", "residual_size", "deflate", "kernels", "factors")


def _check_pursuit(
    state: Any,
    criterion: object,
    k: object,
    pick: str,
    stages: object,
    candidates: object,
    allow_repeats: object,
    stop_when: object,
) -> None:
    """A sentence for each argument :func:`pursue` cannot use."""
    missing = [name for name in STATE_NEEDS if not hasattr(state, name)]
    if missing:
        raise TypeError(
            f"state must be a kernel state (see mpcore.deflations); {type(state).__name__} lacks {', '.join(missing)}."
        )
    if not callable(criterion) or (stop_when is not None and not callable(stop_when)):
        raise TypeError(
            "criterion (and stop_when, when given) must be functions of the state, such as mpcore.criteria.skpca."
        )
    if allow_repeats:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"k (the number of steps) must be a whole number of at least 1, got {k!r}.")
    else:
        check_n_steps(k, state.m)
    check_choice(pick, ("max", "min"), "pick")
    for name, value in (("stages", stages), ("candidates", candidates)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1):
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}.")
    if stages is None:
        raise ValueError("stages must be a whole number of at least 1, got None.")


def _steps(n: int) -> str:
    return f"{n} step{'' if n == 1 else 's'}"


def _exhausted(steps: int) -> str:
    """Why a path stopped when no candidate has any residual left, after ``steps`` picks."""
    return f"kernel exhausted: no candidate with positive residual norm after {_steps(steps)}."


def pursue(
    state: Any,
    criterion: Callable[[Any], np.ndarray],
    k: int,
    *,
    pick: str = "max",
    stages: int = 1,
    candidates: int | None = None,
    rng: np.random.Generator | None = None,
    allow_repeats: bool = False,
    algorithm: str = "",
    criterion_name: str = "",
    deflation_name: str = "",
    stop_when: Callable[[Any, np.ndarray], str | None] | None = None,
) -> PursuitPath:
    """Run the greedy loop: score, pick, deflate.

    A candidate is eligible when neither it nor a twin (a duplicated point: equal columns in
    every kernel) has been chosen and its residual size exceeds ``1e-10`` times the largest
    initial residual size; when none is eligible the loop stops and says why.
    Scores within :data:`TIE_RTOL` of the best, or within the round-off bounds a criterion
    returns with them, are tied and the lowest index wins (:func:`best_index`), so
    round-off never decides a pick.  A candidate whose residual
    vanishes during a stage (a duplicate of a point just deflated) is skipped, never divided by;
    a pick the state declines to deflate (its tracked residual had drifted above the true one)
    is never offered again, so the loop always ends.

    Parameters
    ----------
    state : kernel state
        Holds the current (deflated) kernel(s) (see :mod:`mpcore.deflations`); provides
        ``m``, ``threshold``, ``residual_size()``, ``deflate(i) -> bool``, ``rank``,
        ``kernels()`` and ``factors()``.
    criterion : callable
        ``state -> ndarray (m,)``: the score of every candidate column of the current kernel;
        or ``state -> (scores, tolerance)`` with each score's absolute round-off bound.
    k : int
        Number of columns to choose.
    pick : {"max", "min"}, default="max"
        Maximise (all criteria of Hussain et al. 2011) or minimise (reverse Fisher criteria).
    stages : int, default=1
        Choose the ``stages`` best eligible columns from one score vector, then deflate
        once for each, in order (Diethe 2015, Alg. 1).
    candidates : int or None, default=None
        Score only this many random eligible columns per step (Smola & Schoelkopf's
        "59 trick"); the others get ``nan``.  Drawn from ``rng``.
    rng : numpy.random.Generator or None, default=None
        The generator for ``candidates`` (a fresh ``default_rng(0)`` when None).
    allow_repeats : bool, default=False
        Basic matching pursuit may pick a column again.
    algorithm, criterion_name, deflation_name : str, default=""
        Names recorded in the path, for display.
    stop_when : callable or None, default=None
        ``(state, scores) -> str | None``: an extra early-stopping rule (e.g. the target
        is fully explained); the sentence it returns becomes ``stop_reason``.

    Returns
    -------
    PursuitPath
        What was chosen, the scores at each step and why the loop stopped.
    """
    _check_pursuit(state, criterion, k, pick, stages, candidates, allow_repeats, stop_when)
    if rng is None:
        rng = np.random.default_rng(0)
    m = state.m
    threshold = state.threshold
    chosen = np.zeros(m, dtype=bool)
    refused = np.zeros(m, dtype=bool)  # picks the state declined to deflate (round-off): never again
    # A duplicated point's twin has nothing left once one is chosen: exactly, not by a
    # round-off residual that one order of arithmetic leaves above the threshold and another below.
    groups = np.arange(m) if allow_repeats else _twin_groups(state.kernels(), m)
    indices: list[int] = []
    score_rows: list[np.ndarray] = []
    ranks = [state.rank]
    stop_reason = None
    if threshold <= 0:
        stop_reason = "kernel is zero: no candidate has a positive residual, so nothing can be chosen."
    while stop_reason is None and len(indices) < k:
        size = np.asarray(state.residual_size(), dtype=float)
        eligible = (size > threshold) & ~refused
        if not allow_repeats:
            eligible &= ~chosen
        if not eligible.any():
            stop_reason = _exhausted(len(indices))
            break
        scored = criterion(state)
        tolerance = None
        if isinstance(scored, tuple):  # (scores, each score's round-off bound)
            scored, tolerance = scored[0], np.asarray(scored[1], dtype=float)
        scores = np.asarray(scored, dtype=float)
        scores = np.where(eligible & np.isfinite(scores), scores, np.nan)
        if candidates is not None:
            pool = np.flatnonzero(np.isfinite(scores))
            if pool.size > candidates:
                keep = rng.choice(pool, size=candidates, replace=False)
                sampled = np.full(m, np.nan)
                sampled[keep] = scores[keep]
                scores = sampled
        if stop_when is not None:
            stop_reason = stop_when(state, scores)
            if stop_reason:
                break
        wanted = min(stages, k - len(indices))
        for p in _pick_order(scores, pick, wanted, tolerance):
            if chosen[p] and not allow_repeats:
                continue  # the twin of a pick of this stage
            if state.deflate(int(p)):
                indices.append(int(p))
                chosen[groups == groups[p]] = True
                score_rows.append(scores)
                ranks.append(state.rank)
            else:
                refused[p] = True
        if not np.isfinite(scores).any():
            stop_reason = f"no candidate could be scored after {_steps(len(indices))}."
    return PursuitPath(
        indices=np.asarray(indices, dtype=int),
        scores=np.asarray(score_rows, dtype=float).reshape(len(score_rows), m),
        stop_reason=stop_reason,
        algorithm=algorithm,
        criterion=criterion_name,
        deflation=deflation_name,
        pick=pick,
        extras=getattr(state, "extras", lambda: {})(),
        _kernels=state.kernels(),
        _factors=state.factors(),
        _ranks=np.asarray(ranks, dtype=int),
    )
