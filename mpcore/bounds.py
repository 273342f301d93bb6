"""Generalisation bounds for the matching-pursuit family, as pure functions of numbers.

Every function is vectorised over its array arguments (NumPy broadcasting) and returns
``inf`` where the bound is undefined (e.g. no point left outside the compression set).
``ln`` is the natural logarithm, ``log2`` base 2.  Numbers refer to Hussain et al. 2011 (Hussain,
Shawe-Taylor, Hardoon, Dhanjal 2011) unless said otherwise.

Reading of the papers' typos (also said in each docstring):

- Thm 6 / Cor. 1 print ``R`` under the square root; the proof (Hoeffding with range R)
  gives ``R^2``.  We use ``R^2``; for the Gaussian kernel ``R = 1`` and the two agree.
- Thm 4 / Thm 9 write ``log``; the proof's ``2^{-eps (m-k-t)/2}`` makes it base 2.
- Thm 8 prints the centred matrix as ``(I - 11')K'K(I - 11')``; we read it as the
  centred kernel ``H K H / m`` with ``H = I - 11'/m``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import betaln, xlogy

#: What a bound function returns: a number for scalar arguments, an array for arrays.
Bound = float | np.ndarray
#: A count (m, k, t) or an array of counts (a list, a NumPy array); a real number or an
#: array of them.
Counts = int | ArrayLike
Reals = float | ArrayLike

__all__ = [
    "compression_subspace",
    "kmp_vc",
    "compression_classification",
    "pca_global_rademacher",
    "pca_local_rademacher",
    "THM8_READINGS",
    "mpkfda",
    "running_min",
    "VACUOUS_LEVEL",
    "vacuous",
    "says_something",
]


def _real(value: Any, name: str) -> np.ndarray:
    """``value`` as a float array; None, text, objects and complex numbers are refused."""
    if value is None or isinstance(value, (str, bytes)) or np.iscomplexobj(value):
        raise TypeError(f"{name} must be a real number or an array of them, not {type(value).__name__}.")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{name} must be a real number or an array of them.") from None


def _check_spectrum(values: ArrayLike, name: str) -> np.ndarray:
    values = _real(values, name)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be a non-empty list of finite numbers.")
    return values


def _check_delta(delta: Reals) -> np.ndarray:
    delta = _real(delta, "delta")
    if np.any(~np.isfinite(delta)) or np.any((delta <= 0) | (delta >= 1)):
        raise ValueError("The confidence parameter delta must lie strictly between 0 and 1.")
    return delta


def _check_counts(**counts: Counts) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for name, value in counts.items():
        value = _real(value, name)
        if np.any(~np.isfinite(value)) or np.any(value < 0) or np.any(value != np.round(value)):
            raise ValueError(f"{name} must be a whole number of at least 0.")
        out.append(value)
    return out


def _log_binomial(n: ArrayLike, k: ArrayLike) -> np.ndarray:
    """``ln C(n, k)`` to full precision, ``-inf`` outside ``0 <= k <= n``: through the log-beta
    function, ``-ln(n + 1) - ln B(n - k + 1, k + 1)``.  The log-gammas' difference
    ``ln n! - ln k! - ln (n - k)!`` cancels when n is large and k small (at n = 1e8, k = 1 it
    kept 8 digits); SciPy's ``betaln`` does not."""
    n, k = np.asarray(n, dtype=float), np.asarray(k, dtype=float)
    inside = (k >= 0) & (k <= n)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = -np.log1p(n) - betaln(np.where(inside, n - k + 1, 1.0), np.where(inside, k + 1, 1.0))
    return np.where(inside, value, -np.inf)


def _x_log_ratio(x: ArrayLike, numerator: ArrayLike, base: float = np.e) -> np.ndarray:
    """``x * log(numerator / x)``, 0 when x = 0 (the limit), in the given base."""
    x = np.asarray(x, dtype=float)
    safe = np.where(x > 0, x, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = xlogy(x, numerator / safe) / np.log(base)
    return np.where(x > 0, value, 0.0)


def compression_subspace(emp_loss: Reals, m: Counts, t: Counts, delta: Reals, R: Reals = 1.0) -> Bound:
    """Sample compression bound for subspace methods (Hussain et al. 2011, Thm 6; Cor. 1 for sparse KPCA).

    ``emp_loss + sqrt(R^2 / (2 (m - t)) * (t ln(e m / t) + ln(2 m / delta)))``.
    The printed statement has ``R`` under the root; the proof gives ``R^2`` (used here).
    The theorem's bound for A_k is the minimum over t <= k of this quantity (see
    :func:`running_min`).

    Parameters
    ----------
    emp_loss : float or array
        Mean residual ``||phi(x) - P phi(x)||^2`` over the ``m - t`` training points
        outside the compression set (``trace(K_t) / (m - t)`` for sparse KPCA).
    m : int
        Training set size.
    t : int or array of int
        Compression set size (basis vectors).
    delta : float
        Confidence, in (0, 1).
    R : float, default=1.0
        The supremum of the loss (1 for a Gaussian kernel).

    Returns
    -------
    float or ndarray
        The bound on the expected residual; ``inf`` where ``t >= m``.
    """
    emp_loss = _real(emp_loss, "emp_loss")
    if np.any(~np.isfinite(emp_loss)) or np.any(emp_loss < 0):
        raise ValueError(
            "emp_loss (the mean training loss outside the compression set) must be a finite number of at least 0."
        )
    m, t = _check_counts(m=m, t=t)
    delta = _check_delta(delta)
    R = _check_radius(R)
    outside = m - t
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        complexity = _x_log_ratio(t, np.e * m) + _log_over(2, m, 1, delta)
        value = emp_loss + np.sqrt(R**2 / (2 * outside) * complexity)
    return np.where(outside > 0, value, np.inf)


def _log_over(factor: float, m: ArrayLike, power: float, delta: ArrayLike) -> np.ndarray:
    """``ln(factor * m**power / delta)`` as a sum of logarithms: the quotient itself
    overflows for a small ``delta`` (``2 m^2 / 1e-300`` is past the largest double at
    m = 1e5), its logarithm is a few hundred."""
    return np.asarray(np.log(factor) + power * np.log(np.asarray(m, dtype=float)) - np.log(delta))


def kmp_vc(m: Counts, k: Counts, t: Counts, delta: Reals) -> Bound:
    """KMP bound (Hussain et al. 2011, Thm 4), also the sparse KCCA bound (Thm 9); base-2 logarithms.

    ``2/(m-k-t) * [(k+1) log2(4e(m-k-t)/(k+1)) + k log2(e m/k) + t log2(e(m-k)/t)
    + log2(2 m^2/delta)]``; the ``k`` and ``t`` terms are 0 when ``k = 0`` or ``t = 0``.
    Base 2 follows from the ``2^{-eps (m-k-t)/2}`` in the proof.

    Parameters
    ----------
    m : int
        Training set size.
    k : int or array of int
        Basis vectors (the compression set).
    t : int or array of int
        Training points *outside* the compression set whose error ``|f(x) - y|`` (KMP)
        or ``|f_x(x) - f_y(y)|`` (SKCCA) exceeds alpha.
    delta : float
        Confidence, in (0, 1).

    Returns
    -------
    float or ndarray
        The bound on the probability of an error above alpha; ``inf`` where
        ``m - k - t <= 0``.

    Examples
    --------
    >>> from mpcore import bounds
    >>> bool(bounds.kmp_vc(1000, 10, 0, 0.05) < bounds.kmp_vc(1000, 20, 0, 0.05))
    True
    """
    m, k, t = _check_counts(m=m, k=k, t=t)
    delta = _check_delta(delta)
    rest = m - k - t
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        safe_rest = np.where(rest > 0, rest, 1.0)
        bracket = (
            _x_log_ratio(k + 1, 4 * np.e * safe_rest, base=2)
            + _x_log_ratio(k, np.e * m, base=2)
            + _x_log_ratio(t, np.e * (m - k), base=2)
            + _log_over(2, m, 2, delta) / np.log(2)
        )
        value = 2.0 / safe_rest * bracket
    return np.where(rest > 0, value, np.inf)


def compression_classification(m: Counts, k: Counts, t: Counts, delta: Reals) -> Bound:
    """Sample compression bound for classification (Hussain et al. 2011, Thm 2), exact log-binomials.

    ``t = 0``: ``(ln C(m, k) + ln(m / delta)) / (m - k)``;
    ``t > 0``: ``(ln C(m-k, t) + ln C(m, k) + ln(m^2 / delta)) / (m - k - t)``.

    Parameters
    ----------
    m : int
        Training set size.
    k : int or array of int
        Compression set size.
    t : int or array of int
        Training errors outside the compression set.
    delta : float
        Confidence, in (0, 1).

    Returns
    -------
    float or ndarray
        The bound on the true error; ``inf`` where the denominator is not positive.

    Examples
    --------
    With no errors outside it (t = 0) the bound is the first formula:

    >>> from math import comb, log
    >>> from mpcore import bounds
    >>> by_hand = (log(comb(1000, 10)) + log(1000 / 0.05)) / (1000 - 10)
    >>> bool(abs(bounds.compression_classification(1000, 10, 0, 0.05) - by_hand) < 1e-12)
    True
    """
    m, k, t = _check_counts(m=m, k=k, t=t)
    delta = _check_delta(delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        no_error = (_log_binomial(m, k) + _log_over(1, m, 1, delta)) / (m - k)
        with_error = (_log_binomial(m - k, t) + _log_binomial(m, k) + _log_over(1, m, 2, delta)) / (m - k - t)
    value = np.where(t == 0, no_error, with_error)
    defined = np.where(t == 0, m - k > 0, m - k - t > 0)
    return np.where(defined & np.isfinite(value), value, np.inf)


def pca_global_rademacher(eigvals: Reals, kernel_diag: Reals, t: Counts, delta: Reals, R: Reals = 1.0) -> Bound:
    """Global Rademacher complexity bound for KPCA with t components (Hussain et al. 2011, Thm 7).

    ``sum(eigvals[t:]) / m + (1 + sqrt(t)) / sqrt(m) * sqrt(2/m * sum(kernel_diag^2))
    + R^2 sqrt(18 ln(2m/delta) / m)``.  The theorem's bound for k components is the
    minimum over t <= k of the first two terms plus the third (:func:`running_min` of
    this function gives exactly that).

    Parameters
    ----------
    eigvals : array of shape (m,)
        Eigenvalues of the *uncentred* training kernel K (not divided by m), any order;
        sorted descending and clipped at 0 here.
    kernel_diag : array of shape (m,)
        ``k(x_i, x_i)`` for the training points (m is its length).
    t : int or array of int
        Number of principal components.
    delta : float
        Confidence, in (0, 1).
    R : float, default=1.0
        The supremum of ``k(x, x)``.

    Returns
    -------
    float or ndarray
        The bound on the expected residual of KPCA with t components.
    """
    lam = np.sort(np.clip(_check_spectrum(eigvals, "eigvals"), 0.0, None))[::-1]
    diag = _check_spectrum(kernel_diag, "kernel_diag")
    m = diag.size
    if lam.size != m:
        raise ValueError(
            f"eigvals has {lam.size} values but kernel_diag has {m}; both come from the same m x m kernel."
        )
    (t,) = _check_counts(t=t)
    R = _check_radius(R)
    delta = _check_delta(delta)
    tail = np.concatenate([np.cumsum(lam[::-1])[::-1], [0.0]])  # tail[j] = sum(lam[j:])
    tail_at_t = tail[np.minimum(t, m).astype(int)]
    with np.errstate(over="ignore"):
        bound: Bound = (
            tail_at_t / m
            + (1 + np.sqrt(t)) / np.sqrt(m) * np.sqrt(2.0 / m * np.sum(diag**2))
            + R**2 * np.sqrt(18 * _log_over(2, m, 1, delta) / m)
        )
    return bound


#: The two readings of Hussain et al. 2011 Thm 8's eigenvalues (see :func:`pca_local_rademacher`):
#: by name, what the eigenvalues are of.
THM8_READINGS = {"operator": "K/m", "printed": "K"}


def pca_local_rademacher(
    eigvals: Reals,
    centered_eigvals: Reals,
    k: Counts,
    m: Counts,
    delta: Reals,
    R: Reals = 1.0,
    c: Reals = 80.0,
) -> Bound:
    """Local Rademacher complexity bound for KPCA with k components (Hussain et al. 2011, Thm 8).

    ``c * (sqrt(L_k (rho + R ln(1/delta)/m)) + rho + R ln(1/delta)/m)`` with
    ``L_k = sum_{i>k} lam_i`` and ``rho = min_{t>=0} (R t/m + sqrt(k/m * sum_{j>t} mu_j))``.
    Very loose for finite m: the paper shows it on a log axis.

    The theorem can be read two ways, and the caller chooses by the spectra it passes
    (:data:`THM8_READINGS`):

    - ``"operator"``: ``lam`` the eigenvalues of ``K / m`` and ``mu`` those of ``H K H / m``.
      The theorem comes from Blanchard, Bousquet and Zwald (2007), whose bounds are stated
      for the empirical covariance operator ``(1/m) sum_i phi(x_i) (x) phi(x_i)``; its
      nonzero eigenvalues are those of ``K / m``.  Hussain et al.'s own text supports it too:
      Thm 7's data term is ``lambda^{>t}(S) / m``, the left side is an expected squared
      residual at most ``R^2``, and sec. III-C says the bound beats the others "as m -> inf",
      which needs ``L_k`` to stay bounded as m grows -- with the printed reading it grows
      like m.  This is the reading the proof supports.
    - ``"printed"``: ``lam`` the eigenvalues of K itself (the theorem prints
      ``lambda_j(K)``, "the jth largest eigenvalue of kernel matrix K") and ``mu`` those of
      ``H K H``.  Each sum is m times larger, so the bound is far larger and falls with
      every component; with it the curves behave as the paper's Figs 4 and 5 describe
      (lowest at the last t shown), which the operator reading does not (lowest at t = 1
      when the spectrum decays slowly).

    In both, the printed ``K-bar = (I - 11')K'K(I - 11')`` is read as the centred kernel.

    Parameters
    ----------
    eigvals : array
        Eigenvalues ``lam`` of the uncentred kernel, scaled as the reading says.
    centered_eigvals : array
        Eigenvalues ``mu`` of the centred kernel, scaled the same way.
    k : int or array of int
        Number of components.
    m : int
        Training set size.
    delta : float
        Confidence, in (0, 1).
    R : float, default=1.0
        The supremum of ``k(x, x)``.
    c : float, default=80.0
        The theorem's constant (``c <= 80``; the paper plots c = 80).

    Returns
    -------
    float or ndarray
        The bound.

    Examples
    --------
    Both readings from one kernel:

    >>> import numpy as np
    >>> from mpcore import bounds, kernel_matrix
    >>> from mpcore.cca import center_kernel
    >>> K = kernel_matrix(np.random.default_rng(0).normal(size=(50, 3)), gamma=0.5)
    >>> lam, mu = np.linalg.eigvalsh(K), np.linalg.eigvalsh(center_kernel(K))
    >>> m = 50
    >>> operator = bounds.pca_local_rademacher(lam / m, mu / m, 5, m, 0.05)
    >>> printed = bounds.pca_local_rademacher(lam, mu, 5, m, 0.05)
    >>> bool(printed > operator)
    True
    """
    lam = np.sort(np.clip(_check_spectrum(eigvals, "eigvals"), 0.0, None))[::-1]
    mu = np.sort(np.clip(_check_spectrum(centered_eigvals, "centered_eigvals"), 0.0, None))[::-1]
    (k, m) = _check_counts(k=k, m=m)
    if np.any(m < 1):
        raise ValueError("m (the training set size) must be at least 1.")
    R, c = _check_radius(R), _check_radius(c, "c")
    delta = _check_delta(delta)
    lam_tail = np.concatenate([np.cumsum(lam[::-1])[::-1], [0.0]])
    mu_tail = np.concatenate([np.cumsum(mu[::-1])[::-1], [0.0]])  # mu_tail[t] = sum_{j>t} mu_j
    t_grid = np.arange(mu_tail.size)
    k_arr = np.minimum(np.asarray(k, dtype=float), lam.size)
    rho = np.min(R * t_grid / m + np.sqrt(np.multiply.outer(k_arr, mu_tail) / m), axis=-1)
    confidence = R * -np.log(delta) / m
    L_k = lam_tail[np.minimum(k_arr, lam.size).astype(int)]
    bound: Bound = c * (np.sqrt(L_k * (rho + confidence)) + rho + confidence)
    return bound


def mpkfda(
    class_means: Reals,
    class_variances: Reals,
    threshold: Reals,
    class_sizes: Reals,
    m: Counts,
    k: Counts,
    delta: Reals,
    R: Reals = 1.0,
) -> dict[str, Bound]:
    """MPKFDA bound (Diethe 2015, Thm 1), per class and prior-weighted.

    For each class c (index 0 = negative, 1 = positive) the classifier
    ``sign(w' phi(x) - b)`` with unit-norm w errs on c with probability at most
    ``1 - alpha_c``, ``alpha_c = s_c^2 / (w' S_c w + B_c + s_c^2)``, where
    ``s_c`` is the margin between the class's projected mean and the threshold minus
    ``A_c`` (``s_neg = b - w'mu_neg - A``, ``s_pos = w'mu_pos - b - A``); when
    ``s_c <= 0`` the bound is trivial (1).  ``A``, ``B`` are eq. 10 with each class at
    confidence ``delta / 2``:

    ``A = R / sqrt(n) (2 + sqrt(k ln(e m / k) + 2 ln(2 m / delta')))``,
    ``B = 2 R^2 / sqrt(n) (2 + sqrt(k ln(e m / k) + 2 ln(4 m / delta')))``,

    with ``n`` = that class's training points outside the compression set (the
    theorem's ``m - k`` read per class) and ``delta' = delta / 2``.

    Parameters
    ----------
    class_means, class_variances : array of shape (2,) or (..., 2)
        ``w' mu_c`` and ``w' Sigma_c w`` on the class's points outside the compression set.
    threshold : float or array
        The threshold b.
    class_sizes : array of shape (2,)
        ``n_c``, each class's training points outside the compression set.
    m : int
        Training set size.
    k : int or array of int
        Basis size (the compression set).
    delta : float
        Confidence, in (0, 1).
    R : float, default=1.0
        The supremum of ``||phi(x)||``.

    Returns
    -------
    dict
        ``negative``, ``positive`` (the per-class bounds) and ``total``
        (``sum_c n_c / sum(n) * bound_c``).
    """
    means, variances = _real(class_means, "class_means"), _real(class_variances, "class_variances")
    sizes = _real(class_sizes, "class_sizes")  # counts; the bounds explorer models them as real numbers
    threshold = _real(threshold, "threshold")
    for name, value in (("class_means", means), ("class_variances", variances), ("class_sizes", sizes)):
        if value.ndim == 0 or value.shape[-1] != 2 or not np.all(np.isfinite(value)):
            raise ValueError(
                f"{name} must hold two finite numbers per classifier (negative class, positive "
                f"class), got shape {value.shape}."
            )
    if np.any(variances < 0) or np.any(sizes < 0) or not np.all(np.isfinite(threshold)):
        raise ValueError("class_variances and class_sizes must be at least 0, and the threshold finite.")
    if np.any(sizes.sum(axis=-1) <= 0):
        raise ValueError("class_sizes must count at least one point outside the compression set.")
    (m, k) = _check_counts(m=m, k=k)
    R = _check_radius(R)
    delta_c = _check_delta(delta) / 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        complexity = _x_log_ratio(k, np.e * m)
        A = R / np.sqrt(sizes) * (2 + np.sqrt(complexity + 2 * _log_over(2, m, 1, delta_c)))
        B = 2 * R**2 / np.sqrt(sizes) * (2 + np.sqrt(complexity + 2 * _log_over(4, m, 1, delta_c)))
        margin = np.stack([threshold - means[..., 0], means[..., 1] - threshold], axis=-1)
        s = margin - A
        alpha = 1 / (1 + (variances + B) / s**2)  # s^2 / (var + B + s^2), also when s^2 overflows
        per_class = np.where((s > 0) & (sizes > 0), 1 - alpha, 1.0)
    weights = sizes / sizes.sum(axis=-1, keepdims=True)
    return {
        "negative": per_class[..., 0],
        "positive": per_class[..., 1],
        "total": np.sum(weights * per_class, axis=-1),
    }


def running_min(values: ArrayLike) -> np.ndarray:
    """Running minimum along the last axis.

    The bound the theorems state for A_k is the minimum over t <= k of the bound at t.

    Parameters
    ----------
    values : array-like
        Bounds at t = 0, 1, ... along the last axis.

    Returns
    -------
    ndarray
        ``out[..., k] = min(values[..., :k + 1])``.

    Examples
    --------
    >>> from mpcore import bounds
    >>> bounds.running_min([3.0, 1.0, 2.0, 0.5])
    array([3. , 1. , 1. , 0.5])
    """
    values = _real(values, "values")
    if values.ndim == 0:
        raise ValueError("running_min needs a list of bound values, not a single number.")
    if np.isnan(values).any():
        raise ValueError("running_min needs numbers (an undefined bound is +inf); the values hold NaN.")
    return np.minimum.accumulate(values, axis=-1)


#: A bound on an error rate (a probability) says nothing at 1 or more: every classifier meets it.
#: The residual bounds of sparse KPCA (Thm 6, 7, 8) are bounds on an expected squared residual
#: that never exceeds ``R^2``; they say nothing at ``R^2`` or more (1 for the Gaussian kernel).
VACUOUS_LEVEL = 1.0


def vacuous(values: Reals, level: Reals = VACUOUS_LEVEL) -> np.ndarray | bool:
    """Where a bound says nothing: at ``level`` or above, or undefined (``inf``, ``nan``).

    The one rule of the library, the app, its lessons and the paper figures: a vacuous
    bound is drawn, but names no stopping point and no guarantee.

    Parameters
    ----------
    values : float or array-like
        Bound values.
    level : float or array-like, default=1.0
        What the quantity bounded can never exceed: 1 for an error rate, ``R^2`` for a
        squared residual.

    Returns
    -------
    bool or ndarray of bool
        True where the value is vacuous.

    Examples
    --------
    >>> from mpcore import bounds
    >>> bounds.vacuous([0.4, 1.0, 1.7, float("inf")]).tolist()
    [False, True, True, True]
    """
    out = ~(_real(values, "values") < _real(level, "level"))  # nan compares False: undefined is vacuous too
    return bool(out) if out.ndim == 0 else out


def says_something(values: Reals, level: Reals = VACUOUS_LEVEL) -> bool:
    """Whether a bound curve (over t) gets below ``level`` anywhere.

    If not, it is vacuous at every t (:func:`vacuous`): it guarantees nothing and names no
    stopping point.

    Parameters
    ----------
    values : float or array-like
        The bound's values, one per t.
    level : float or array-like, default=1.0
        As in :func:`vacuous`.

    Returns
    -------
    bool
        True when some value is below ``level``.

    Examples
    --------
    >>> from mpcore import bounds
    >>> bounds.says_something([1.8, 1.1, 1.3]), bounds.says_something([1.8, 0.6, 1.3])
    (False, True)
    """
    return not bool(np.all(vacuous(values, level)))


def _check_radius(R: Reals, name: str = "R") -> np.ndarray:
    R = _real(R, name)
    if np.any(~np.isfinite(R)) or np.any(R <= 0):
        raise ValueError(f"{name} must be a positive finite number.")
    return R
