"""scikit-learn estimators wrapping the matching-pursuit paths.

They follow scikit-learn's API (parameters stored unchanged in ``__init__``, learned
attributes ending in ``_``, ``fit`` returning ``self``) and pass
``sklearn.utils.estimator_checks.parametrize_with_checks`` with their defaults (see
``tests/test_estimators.py``).  Shared conventions:

- ``kernel``: any name of ``sklearn.metrics.pairwise.PAIRWISE_KERNEL_FUNCTIONS`` ("rbf",
  "laplacian", "poly", "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)``
  (``kernel_params`` are passed to it), or ``"precomputed"`` (``fit`` takes the training
  kernel (m, m), ``transform``/``predict`` the kernel between new points and the
  training points (n, m)).  ``gamma``: a number, ``None`` (1 / n_features) or ``"scale"``
  (1 / (n_features x X.var()), as ``SVC``); the value used is ``gamma_``.
- ``n_components`` (default 5) must be smaller than the number of training points: asking
  for all of them is not sparse and gets a ValueError (NystromKCCA's ``n_components``, the
  landmark columns per view, Wang's rank, above N is reduced to N: all columns give exact
  KCCA); ``n_components_`` is the number chosen.
- The greedy estimators have ``n_iter_`` (steps taken) and ``stop_reason_`` (None, or why
  the path stopped early); ``NystromKCCA`` draws its landmarks at once and has neither.
- The transformers keep float32 input as float32 output (their arithmetic is float64).
- The fitted state holds what ``transform``/``predict`` need (the chosen points, a k x k
  factor, the weights); the whole pursuit path is kept as ``path_`` only with
  ``store_path=True``.
- ``random_state`` is anything ``sklearn.utils.check_random_state`` takes; it drives only
  the random choices (``candidates``, the ``random`` criterion, column sampling).
- ``sample_weight`` is not supported: the papers' criteria and bounds are unweighted.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, Self, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClassNamePrefixFeaturesOutMixin,
    RegressorMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_binary_labels, check_choice, check_memory, check_nonconstant
from .criteria import FISHER_CRITERIA
from .deflations import DEFLATIONS
from .engine import PursuitPath
from .kernels import finite_kernel
from .kmp import KMP_VARIANTS, LOSSES, KMPColumnsPath, kmp_columns_path, kmp_path
from .mpkfda import fit_fisher, mpkfda_path
from .nkcca import (
    SAMPLINGS,
    _distinct_in_order,
    _psd_solve,
    draw_landmarks,
    leverage_from_sketch,
    nystrom_kcca,
    nystrom_kcca_from_columns,
    ridge_leverage_scores,
    sketch_landmarks,
)
from .nystrom import nystrom_factor, nystrom_features, projection_residuals
from .skcca import fit_sparse_cca, skcca_path
from .skpca import ColumnsPath, skpca_columns_path, skpca_path

#: Kernel names the estimators take (scikit-learn's pairwise kernels and "precomputed").
ESTIMATOR_KERNELS = tuple(sorted(PAIRWISE_KERNEL_FUNCTIONS)) + ("precomputed",)
#: How :class:`NystromKCCA` maps new points: eq. 17's kernel vector, or its Nystroem approximation.
OUT_OF_SAMPLE = ("kernel", "nystrom")


_Fit = TypeVar("_Fit", bound=Callable[..., Any])


def _validated_fit(fit: _Fit) -> _Fit:
    """scikit-learn's check of the parameters before ``fit`` (``_fit_context``), typed:
    ``fit`` keeps its signature for a type checker."""
    checked: _Fit = _fit_context(prefer_skip_nested_validation=True)(fit)
    return checked


def _validated(estimator: BaseEstimator, X: ArrayLike, **options: Any) -> np.ndarray:
    """``sklearn.utils.validation.validate_data`` for X alone, typed."""
    checked: np.ndarray = validate_data(estimator, X, **options)
    return checked


def _validated_xy(
    estimator: BaseEstimator, X: ArrayLike, y: ArrayLike, **options: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``validate_data`` for X and y, typed."""
    checked: tuple[np.ndarray, np.ndarray] = validate_data(estimator, X, y, **options)
    return checked


def _check_count(value: object, n_samples: int, name: str = "n_components") -> int:
    """A whole number of basis points, at least 1 and below the number of training points
    (k >= m is bad input and gets a sentence)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}.")
    if int(value) >= n_samples:
        raise ValueError(
            f"{name} = {value} is not sparse: it must be smaller than the number of training points ({n_samples})."
        )
    return int(value)


def _check_rank(value: object, n_samples: int) -> int:
    """NystromKCCA's landmark draws (``n_components``, Wang's rank): a whole number >= 1, at
    most the number of points (drawing all N columns gives exact KCCA; more is reduced to N)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"n_components must be a whole number of at least 1, got {value!r}.")
    return min(int(value), n_samples)


def _seed(random_state: int | np.random.RandomState | None) -> int:
    """An int seed for the paths' NumPy generators from any scikit-learn ``random_state``."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _gamma(gamma: object, X: np.ndarray) -> float:
    """The kernel width used: a positive number, None (1 / d) or "scale" (1 / (d X.var()))."""
    if gamma is None:
        return 1.0 / int(X.shape[1])
    if isinstance(gamma, str):
        if gamma != "scale":
            raise ValueError(f"gamma must be a positive number, None or 'scale', got {gamma!r}.")
        variance = float(np.var(X))
        return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not np.isfinite(float(gamma)) or gamma <= 0:
        raise ValueError(f"gamma must be a positive number, None or 'scale', got {gamma!r}.")
    return float(gamma)


#: The parameters every estimator shares, checked by scikit-learn's parameter validation
#: before ``fit`` (the same kinds and ranges as ``sklearn.kernel_approximation.Nystroem``'s).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(ESTIMATOR_KERNELS)), callable],
    "gamma": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"}), None],
    "degree": [Interval(Real, 0, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
}
#: The number of basis points (the sparsity): a whole number of at least 1.
COUNT = [Interval(Integral, 1, None, closed="left")]
#: The float types the transformers keep (their arithmetic is in float64 either way).
KEPT_FLOATS = [np.float64, np.float32]


class _Kernel:
    """Kernel evaluation shared by all estimators (see the module docstring)."""

    kernel: str | Callable[..., Any]
    degree: float
    coef0: float
    kernel_params: dict[str, Any] | None

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]  # (the estimator's other bases)
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        if tags.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _check_kernel(self) -> None:
        if not callable(self.kernel):
            check_choice(self.kernel, ESTIMATOR_KERNELS, "kernel")

    @property
    def _precomputed(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _pairwise(self, A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
        check_memory(
            3 * 8 * A.shape[0] * B.shape[0],
            f"A {A.shape[0]:,} x {B.shape[0]:,} kernel matrix",
            "Use fewer points, or candidates= (the kernel's columns computed a few at a time).",
        )
        with np.errstate(over="ignore", invalid="ignore"):
            if callable(self.kernel):
                K = np.asarray(pairwise_kernels(A, B, metric=self.kernel, **(self.kernel_params or {})), dtype=float)
            else:
                params = {"gamma": gamma, "degree": self.degree, "coef0": self.coef0, **(self.kernel_params or {})}
                K = np.asarray(pairwise_kernels(A, B, metric=self.kernel, filter_params=True, **params), dtype=float)
        return finite_kernel(K, self.kernel if isinstance(self.kernel, str) else "given")

    def _train_kernel(self, X: np.ndarray, gamma: float) -> np.ndarray:
        if self._precomputed:
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"With kernel='precomputed', fit takes the square training kernel; got {X.shape}.")
            return np.array(X, dtype=float)
        return self._pairwise(X, X, gamma)

    def _to_basis(self, X: np.ndarray, basis: np.ndarray, indices: np.ndarray, gamma: float) -> np.ndarray:
        """Kernel between the rows of X and the chosen points (n, k)."""
        if self._precomputed:
            return X[:, indices]
        return self._pairwise(X, basis, gamma)

    def _diag(self, X: np.ndarray, gamma: float) -> np.ndarray:
        """``k(x, x)`` for each row of X."""
        if self._precomputed:
            raise ValueError(
                "score_samples needs k(x, x) for the new points, which a precomputed kernel does not "
                "give; use the kernel's name or a callable instead."
            )
        if isinstance(self.kernel, str) and self.kernel in ("rbf", "laplacian"):
            return np.ones(X.shape[0])
        if isinstance(self.kernel, str) and self.kernel == "linear":
            return np.asarray(np.einsum("ij,ij->i", X, X))
        return np.array([self._pairwise(row[None, :], row[None, :], gamma)[0, 0] for row in X])


class SparseKPCA(_Kernel, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):  # type: ignore[misc]  # scikit-learn ships no types
    """Sparse kernel PCA by matching pursuit (Hussain et al. 2011, Alg. 2) as a transformer.

    ``fit`` chooses ``n_components`` training points with :func:`mpcore.skpca_path`:
    each step takes the point whose direction in feature space explains the most of the
    variance still unexplained, then deflates.  ``transform`` returns Nystroem features
    whose inner products are the kernel projected onto the chosen points (eq. 8): the
    *uncentred* Cholesky coordinates of that projection, not variance-ordered principal
    components (apply ``sklearn.decomposition.PCA`` to them for those).
    ``score_samples`` returns each point's squared residual ``||phi(x) - P phi(x)||^2``
    (eq. 7).

    Parameters
    ----------
    n_components : int, default=5
        The number of points to choose (the sparsity), smaller than the number of
        training points.
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    candidates : int or None, default=None
        Score only this many random eligible columns per step (Smola and Schölkopf's
        "59 trick"); with a kernel given by name or callable the m x m kernel is then
        never formed: each step computes only its candidates' kernel columns from X.
    random_state : int, RandomState instance or None, default=None
        Drives only the random choices (``candidates``, the ``random`` criterion, column
        sampling); anything ``sklearn.utils.check_random_state`` takes.
    store_path : bool, default=False
        Keep the whole pursuit path as ``path_`` (:class:`~mpcore.PursuitPath`: every
        step's scores and deflated kernels), for plots and teaching.

    Attributes
    ----------
    support_ : ndarray of shape (n_components,)
        The chosen training rows, in order of choice (also ``indices_``).
    support_vectors_ : ndarray of shape (n_components, n_features)
        Those rows of X (empty for a precomputed kernel), as :class:`KernelMatchingPursuit`
        and :class:`MPKFDA` name them.  (Until 0.2 they were ``components_``, which still
        works, with a warning, until 0.3: in scikit-learn's ``PCA`` that name means axes.)
    factor_ : ndarray of shape (n_components, n_components)
        The Cholesky factor of their kernel block.
    n_components_ : int
        The number of points chosen.
    gamma_ : float
        The kernel width used.
    n_iter_ : int
        The steps taken.
    stop_reason_ : str or None
        None, or a sentence saying why the pursuit stopped early.
    n_features_in_ : int
        The number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when X had string column names.
    path_ : PursuitPath
        The whole path (with ``store_path=True`` and ``candidates=None``).

    See Also
    --------
    mpcore.skpca_path : The same choice on a kernel matrix.
    sklearn.kernel_approximation.Nystroem : Nystroem features from random points.

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import SparseKPCA
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> model = SparseKPCA(n_components=10, gamma=0.5).fit(X)
    >>> model.transform(X).shape
    (100, 10)
    >>> bool(model.score_samples(X).mean() < 1.0)  # rbf: k(x, x) = 1 before projecting
    True
    """

    _parameter_constraints: dict[str, Any] = {
        "n_components": COUNT,
        **KERNEL_CONSTRAINTS,
        "candidates": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "store_path": ["boolean"],
    }

    def __init__(
        self,
        n_components: int = 5,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str | None = None,
        degree: float = 3,
        coef0: float = 1.0,
        kernel_params: dict[str, Any] | None = None,
        candidates: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        store_path: bool = False,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.candidates = candidates
        self.random_state = random_state
        self.store_path = store_path

    @_validated_fit
    def fit(self, X: ArrayLike, y: None = None) -> Self:
        """Choose the points.

        With ``candidates`` (and a kernel given by name or callable) the m x m kernel is
        never formed: each step computes the kernel columns of its candidates from X
        (:func:`mpcore.skpca.skpca_columns_path`, the same picks), so m = 100,000 fits in
        O(m (candidates + n_components)) memory; ``path_`` is then not available.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        y : None
            Ignored; for the pipeline API.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        X = _validated(self, X, ensure_min_samples=2, dtype=KEPT_FLOATS)
        self._check_kernel()
        self.gamma_ = _gamma(self.gamma, X)
        k, seed = _check_count(self.n_components, X.shape[0]), _seed(self.random_state)
        path: ColumnsPath | PursuitPath
        if self.candidates is not None and not self._precomputed:
            path = skpca_columns_path(
                lambda idx: self._pairwise(X, X[idx], self.gamma_), self._diag(X, self.gamma_), k, self.candidates, seed
            )
            block = self._pairwise(X[path.indices], X[path.indices], self.gamma_)
            n_steps = path.indices.size
        else:
            path = skpca_path(self._train_kernel(X, self.gamma_), k, candidates=self.candidates, seed=seed)
            block = path._kernels[0][np.ix_(path.indices, path.indices)]
            n_steps = path.n_steps
            if self.store_path:
                self.path_ = path
        self.support_ = self.indices_ = path.indices
        self.support_vectors_: np.ndarray = X[:0] if self._precomputed else X[path.indices]
        self.factor_ = nystrom_factor(block)
        self.n_components_ = self._n_features_out = int(path.indices.size)
        self.n_iter_, self.stop_reason_ = n_steps, path.stop_reason
        return self

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Nystroem features of new points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Features whose inner products are the kernel projected onto the chosen points, in
            X's float type.
        """
        check_is_fitted(self)
        X = _validated(self, X, reset=False, dtype=KEPT_FLOATS)
        features = nystrom_features(self._to_basis(X, self.support_vectors_, self.support_, self.gamma_), self.factor_)
        return features.astype(X.dtype, copy=False)

    @property
    def components_(self) -> np.ndarray:
        """DEPRECATED: the chosen training rows of X, now ``support_vectors_``."""
        warnings.warn(
            "`components_` was renamed `support_vectors_` in 0.2 (the name KernelMatchingPursuit and MPKFDA use; "
            "in scikit-learn's PCA, components_ are axes) and will be removed in 0.3.",
            FutureWarning,
            stacklevel=2,
        )
        return self.support_vectors_

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        """Squared residual of each point after projection onto the chosen points (eq. 7).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points (a precomputed kernel does not give ``k(x, x)`` and is refused).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``||phi(x) - P phi(x)||^2`` for each point.
        """
        F = self.transform(X).astype(np.float64, copy=False)
        X = _validated(self, X, reset=False, dtype=KEPT_FLOATS)
        return projection_residuals(self._diag(X, self.gamma_), F)


class _BinaryClassifier(ClassifierMixin):  # type: ignore[misc]  # scikit-learn ships no types
    """What the two-class estimators share: the target's checks, ``classes_[1]`` as the
    positive class of ``decision_function``, and probabilities from a one-parameter
    logistic fit of the training labels on the decision values, without intercept, so
    they agree with ``predict`` (Platt 1999)."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _two_classes(self, y: np.ndarray) -> np.ndarray:
        """Check that y has two classes; set ``classes_`` and return y as -1/+1."""
        check_classification_targets(y)
        n_classes = np.unique(y).size
        if n_classes > 2:
            raise ValueError(
                f"Only binary classification is supported. The target has {n_classes} classes: wrap the "
                "estimator in sklearn.multiclass.OneVsRestClassifier to fit one class against the rest."
            )
        check_binary_labels(y)
        self.classes_ = np.unique(y)
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _fit_probabilities(self, decision: np.ndarray, signs: np.ndarray) -> None:
        logistic = LogisticRegression(fit_intercept=False).fit(decision[:, None], signs)
        self.probability_slope_ = max(float(logistic.coef_[0, 0]), 1e-12)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class of each point: ``classes_[1]`` where the decision value is positive.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return np.asarray(self.classes_[(self.decision_function(X) > 0).astype(int)])

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """The probabilities of ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            Each row sums to 1; the larger agrees with ``predict``.
        """
        check_is_fitted(self)
        positive = expit(self.probability_slope_ * self.decision_function(X))
        return np.column_stack([1.0 - positive, positive])

    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """The logarithms of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples, 2)
            ``log(predict_proba(X))``.
        """
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.predict_proba(X)))


#: The margin losses of Vincent and Bengio (2002, sec. 3.2) for targets -1/+1: a classifier's.
CLASSIFICATION_LOSSES = ("tanh", "logistic", "hinge")


class _KMPBase(_Kernel, BaseEstimator):  # type: ignore[misc]  # scikit-learn ships no types
    """What the KMP regressor and classifier share: the parameters and the pursuit."""

    _parameter_constraints: dict[str, Any] = {
        "n_components": COUNT,
        "variant": [StrOptions(set(KMP_VARIANTS))],
        "loss": [StrOptions(set(LOSSES))],
        "fit_intercept": ["boolean"],
        **KERNEL_CONSTRAINTS,
        "candidates": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "store_path": ["boolean"],
    }

    def __init__(
        self,
        n_components: int = 5,
        *,
        variant: str = "prefit",
        loss: str = "squared",
        fit_intercept: bool = True,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str | None = None,
        degree: float = 3,
        coef0: float = 1.0,
        kernel_params: dict[str, Any] | None = None,
        candidates: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        store_path: bool = False,
    ) -> None:
        self.n_components = n_components
        self.variant = variant
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.candidates = candidates
        self.random_state = random_state
        self.store_path = store_path

    def _pursue(self, X: np.ndarray, y: ArrayLike) -> Self:
        """Choose the basis and its weights for a numeric target y (m,)."""
        self._check_kernel()
        check_choice(self.variant, KMP_VARIANTS, "KMP variant")
        check_choice(self.loss, LOSSES, "loss")
        y = np.asarray(y, dtype=float)
        squared = self.loss == "squared"
        offset = y.mean() if (self.fit_intercept and squared) else 0.0
        if squared and np.all(y - offset == 0):
            check_nonconstant(y)
        self.gamma_ = _gamma(self.gamma, X)
        k, seed = _check_count(self.n_components, X.shape[0]), _seed(self.random_state)
        path: KMPColumnsPath | PursuitPath
        if self.candidates is not None and self.variant == "prefit" and squared and not self._precomputed:
            path = kmp_columns_path(
                lambda idx: self._pairwise(X, X[idx], self.gamma_), y - offset, k, self.candidates, seed
            )
            indices, weights, last, n_steps = path.indices, path.coefs, 0.0, path.indices.size
        else:
            path = kmp_path(
                self._train_kernel(X, self.gamma_),
                y - offset,
                k,
                variant=self.variant,
                loss=self.loss,
                fit_intercept=bool(self.fit_intercept and not squared),
                candidates=self.candidates,
                seed=seed,
            )
            indices, n_steps = path.indices, path.n_steps
            weights = path.extras["coefs"][-1] if path.n_steps else np.zeros(0)
            last = path.extras["intercepts"][-1] if path.n_steps else 0.0
            if self.store_path:
                self.path_ = path
        support, position = np.unique(indices, return_inverse=True)
        self.dual_coef_ = np.bincount(position, weights=weights, minlength=support.size)
        self.support_ = support
        self.support_vectors_: np.ndarray = X[:0] if self._precomputed else X[support]
        self.intercept_ = float(offset + last)
        self.n_components_ = int(support.size)
        self.n_iter_, self.stop_reason_ = n_steps, path.stop_reason
        return self

    def _decision(self, X: ArrayLike) -> np.ndarray:
        check_is_fitted(self)
        X = _validated(self, X, reset=False)
        return self._to_basis(X, self.support_vectors_, self.support_, self.gamma_) @ self.dual_coef_ + self.intercept_


class KernelMatchingPursuit(RegressorMixin, _KMPBase):  # type: ignore[misc]  # scikit-learn ships no types
    """Kernel matching pursuit regressor (Vincent and Bengio 2002).

    Chooses ``n_components`` training points one at a time, each the kernel column
    that best explains what the current fit leaves of the target, and weights them.
    For two classes use :class:`KernelMatchingPursuitClassifier`: the regressor takes
    the squared loss only and refuses a margin loss with a sentence.

    Parameters
    ----------
    n_components : int, default=5
        The number of basis points (the sparsity), smaller than the number of training points.
    variant : {"prefit", "backfit", "basic"}, default="prefit"
        Vincent and Bengio's three variants: pre-fitting (choose the column that, with
        all weights refitted, fits best), back-fitting (refit all weights after each
        choice) and basic matching pursuit (only the new weight).
    loss : {"squared", "tanh", "logistic", "hinge"}, default="squared"
        The loss; the margin losses (Vincent and Bengio 2002, sec. 3.2) need targets
        -1/+1 and ``variant`` "backfit" or "basic".
    fit_intercept : bool, default=True
        With the squared loss, centre the target and use its mean as ``intercept_``;
        with a margin loss, fit a free bias with the weights.
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    candidates : int or None, default=None
        Score only this many random eligible columns per step (Smola and Schölkopf's
        "59 trick"); with a kernel given by name or callable the m x m kernel is then
        never formed: each step computes only its candidates' kernel columns from X.
        Pre-fitting with the squared loss only.
    random_state : int, RandomState instance or None, default=None
        Drives only the random choices (``candidates``, the ``random`` criterion, column
        sampling); anything ``sklearn.utils.check_random_state`` takes.
    store_path : bool, default=False
        Keep the whole pursuit path as ``path_`` (:class:`~mpcore.PursuitPath`: every
        step's scores and deflated kernels), for plots and teaching.

    Attributes
    ----------
    support_ : ndarray of shape (n_components,)
        The training rows used.
    support_vectors_ : ndarray of shape (n_components, n_features)
        Those rows of X (empty for a precomputed kernel).
    dual_coef_ : ndarray of shape (n_components,)
        Their weights.
    intercept_ : float
        The constant term.
    n_components_ : int
        The number of distinct basis points used.
    gamma_ : float
        The kernel width used.
    n_iter_ : int
        The steps taken.
    stop_reason_ : str or None
        None, or a sentence saying why the pursuit stopped early.
    n_features_in_ : int
        The number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when X had string column names.
    path_ : PursuitPath
        The whole path (with ``store_path=True``, when the kernel matrix was formed).

    See Also
    --------
    mpcore.kmp_path : The same pursuit on a kernel matrix, every step kept.
    mpcore.bounds.kmp_vc : Its generalisation bound (Hussain et al. 2011, Thm 4).

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import KernelMatchingPursuit
    >>> X = np.linspace(-3, 3, 80)[:, None]
    >>> y = np.sinc(X[:, 0])
    >>> model = KernelMatchingPursuit(n_components=8, gamma=2.0).fit(X, y)
    >>> bool(model.score(X, y) > 0.95)
    True
    """

    @_validated_fit
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Choose the basis and its weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        y : array-like of shape (n_samples,)
            The target.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        X, y = _validated_xy(self, X, y, ensure_min_samples=2, y_numeric=True)
        if self.loss in CLASSIFICATION_LOSSES:
            raise ValueError(
                f"The {self.loss!r} loss is a classification loss (targets -1/+1); a regressor fitted "
                "with it predicts margins, not values. Use KernelMatchingPursuitClassifier, or "
                "loss='squared' here."
            )
        return self._pursue(X, y)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The regression function at new points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``sum_j dual_coef_[j] k(x, support_vectors_[j]) + intercept_``.
        """
        return self._decision(X)


class KernelMatchingPursuitClassifier(_BinaryClassifier, _KMPBase):
    """Kernel matching pursuit for two classes (Vincent and Bengio 2002, sec. 3.2).

    The pursuit on the targets -1/+1 (``classes_[1]`` is +1) with the squared loss (the
    default, with pre-fitting) or a margin loss -- ``logistic``, ``tanh`` or ``hinge``,
    with ``variant="backfit"`` or ``"basic"``; the sign of ``decision_function``
    classifies.  On points the chosen basis separates, the margin losses' weights grow
    without bound (as an unregularised logistic regression's do), and so does the
    confidence of ``predict_proba``.  ``predict_proba`` is the logistic function of the
    decision values, scaled by a one-parameter logistic fit on the training points
    without intercept (Platt 1999), so it agrees with ``predict``.

    Parameters
    ----------
    n_components : int, default=5
        The number of basis points (the sparsity), smaller than the number of training points.
    variant : {"prefit", "backfit", "basic"}, default="prefit"
        Vincent and Bengio's three variants: pre-fitting (choose the column that, with
        all weights refitted, fits best), back-fitting (refit all weights after each
        choice) and basic matching pursuit (only the new weight).
    loss : {"squared", "tanh", "logistic", "hinge"}, default="squared"
        The loss; the margin losses (Vincent and Bengio 2002, sec. 3.2) need targets
        -1/+1 and ``variant`` "backfit" or "basic".
    fit_intercept : bool, default=True
        With the squared loss, centre the target and use its mean as ``intercept_``;
        with a margin loss, fit a free bias with the weights.
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    candidates : int or None, default=None
        Score only this many random eligible columns per step (Smola and Schölkopf's
        "59 trick"); with a kernel given by name or callable the m x m kernel is then
        never formed: each step computes only its candidates' kernel columns from X.
        Pre-fitting with the squared loss only.
    random_state : int, RandomState instance or None, default=None
        Drives only the random choices (``candidates``, the ``random`` criterion, column
        sampling); anything ``sklearn.utils.check_random_state`` takes.
    store_path : bool, default=False
        Keep the whole pursuit path as ``path_`` (:class:`~mpcore.PursuitPath`: every
        step's scores and deflated kernels), for plots and teaching.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class.
    probability_slope_ : float
        The scale of the decision values in ``predict_proba``.
    support_ : ndarray of shape (n_components,)
        The training rows used.
    support_vectors_ : ndarray of shape (n_components, n_features)
        Those rows of X (empty for a precomputed kernel).
    dual_coef_ : ndarray of shape (n_components,)
        Their weights.
    intercept_ : float
        The constant term.
    n_components_ : int
        The number of distinct basis points used.
    gamma_ : float
        The kernel width used.
    n_iter_ : int
        The steps taken.
    stop_reason_ : str or None
        None, or a sentence saying why the pursuit stopped early.
    n_features_in_ : int
        The number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when X had string column names.
    path_ : PursuitPath
        The whole path (with ``store_path=True``, when the kernel matrix was formed).

    See Also
    --------
    MPKFDA : A greedy kernel Fisher discriminant, the other two-class pursuit.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from mpcore import KernelMatchingPursuitClassifier
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> model = KernelMatchingPursuitClassifier(n_components=10, gamma=2.0).fit(X, y)
    >>> bool(model.score(X, y) > 0.95)
    True
    >>> model.predict_proba(X[:2]).shape
    (2, 2)
    """

    @_validated_fit
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Choose the basis and its weights for two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        y : array-like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        X, y = _validated_xy(self, X, y, ensure_min_samples=2)
        signs = self._two_classes(y)
        self._pursue(X, signs)
        self._fit_probabilities(self._decision(X), signs)
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The pursuit's function at new points: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            The decision values.
        """
        return self._decision(X)


class MPKFDA(_BinaryClassifier, _Kernel, BaseEstimator):  # type: ignore[misc]  # scikit-learn ships no types
    """Greedy (matching-pursuit) kernel Fisher discriminant for two classes (Diethe 2015).

    ``fit`` runs :func:`mpcore.mpkfda_path` with the chosen criterion, deflation and
    stages, then a Fisher discriminant (shrinkage LDA) on the Nystroem features of the
    chosen points, thresholded midway between the projected class means.  Any two
    labels are accepted; ``classes_[1]`` is the positive class of
    ``decision_function``.  ``predict_proba`` is a logistic fit of the training labels on
    the decision values, without intercept, so it agrees with ``predict`` (Platt 1999).

    Parameters
    ----------
    n_components : int, default=5
        The number of basis points, smaller than the number of training points.
    criterion : {"optimal", "pseudo", "reverse", "reverse-pseudo", "random"}, default="optimal"
        How a column is scored (Diethe 2015, eq. 7 and its variants).
    deflation : str, default="projection"
        A name of :data:`mpcore.DEFLATIONS` (Diethe 2015, eq. 15-19).
    stages : int, default=1
        Columns chosen per score vector before deflating (Diethe 2015, Alg. 1).
    shrinkage : "auto", float in [0, 1] or None, default="auto"
        The Fisher discriminant's shrinkage of the within-class covariance.
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    random_state : int, RandomState instance or None, default=None
        Drives only the random choices (``candidates``, the ``random`` criterion, column
        sampling); anything ``sklearn.utils.check_random_state`` takes.
    store_path : bool, default=False
        Keep the whole pursuit path as ``path_`` (:class:`~mpcore.PursuitPath`: every
        step's scores and deflated kernels), for plots and teaching.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class.
    support_ : ndarray of shape (n_components,)
        The chosen training rows.
    support_vectors_ : ndarray of shape (n_components, n_features)
        Those rows of X (empty for a precomputed kernel).
    model_ : FisherModel
        The Fisher direction and threshold in the Nystroem features.
    probability_slope_ : float
        The scale of the decision values in ``predict_proba``.
    n_components_ : int
        The number of points chosen.
    gamma_ : float
        The kernel width used.
    n_iter_ : int
        The steps taken.
    stop_reason_ : str or None
        None, or a sentence saying why the pursuit stopped early.
    n_features_in_ : int
        The number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Their names, when X had string column names.
    path_ : PursuitPath
        The whole path (with ``store_path=True``).

    See Also
    --------
    mpcore.bounds.mpkfda : Its generalisation bound (Diethe 2015, Thm 1).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from mpcore import MPKFDA
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> model = MPKFDA(n_components=10, gamma=2.0, deflation="ortho-schur").fit(X, y)
    >>> bool(model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict[str, Any] = {
        "n_components": COUNT,
        "criterion": [StrOptions(set(FISHER_CRITERIA))],
        "deflation": [StrOptions(set(DEFLATIONS))],
        "stages": [Interval(Integral, 1, None, closed="left")],
        "shrinkage": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both"), None],
        **KERNEL_CONSTRAINTS,
        "random_state": ["random_state"],
        "store_path": ["boolean"],
    }

    def __init__(
        self,
        n_components: int = 5,
        *,
        criterion: str = "optimal",
        deflation: str = "projection",
        stages: int = 1,
        shrinkage: float | str | None = "auto",
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str | None = None,
        degree: float = 3,
        coef0: float = 1.0,
        kernel_params: dict[str, Any] | None = None,
        random_state: int | np.random.RandomState | None = None,
        store_path: bool = False,
    ) -> None:
        self.n_components = n_components
        self.criterion = criterion
        self.deflation = deflation
        self.stages = stages
        self.shrinkage = shrinkage
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.random_state = random_state
        self.store_path = store_path

    @_validated_fit
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Choose the basis and the discriminant.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        y : array-like of shape (n_samples,)
            The labels, two classes.

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        X, y = _validated_xy(self, X, y, ensure_min_samples=2)
        self._two_classes(y)
        check_choice(self.criterion, FISHER_CRITERIA, "criterion")
        check_choice(self.deflation, DEFLATIONS, "deflation")
        self._check_kernel()
        self.gamma_ = _gamma(self.gamma, X)
        K = self._train_kernel(X, self.gamma_)
        path = mpkfda_path(
            K,
            y,
            _check_count(self.n_components, X.shape[0]),
            criterion=self.criterion,
            deflation=self.deflation,
            stages=self.stages,
            seed=_seed(self.random_state),
        )
        self.classes_ = path.extras["classes"]
        self.model_ = fit_fisher(K, path.extras["labels"], path.indices, shrinkage=self.shrinkage)
        self.support_ = path.indices
        self.support_vectors_: np.ndarray = X[:0] if self._precomputed else X[path.indices]
        self.n_components_ = int(path.indices.size)
        self.n_iter_, self.stop_reason_ = path.n_steps, path.stop_reason
        self._fit_probabilities(self.model_.decision(K[:, path.indices]), path.extras["labels"])
        if self.store_path:
            self.path_ = path
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The Fisher discriminant's value at new points: positive for ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``w' F(x) - b`` in the chosen points' Nystroem features.
        """
        check_is_fitted(self)
        X = _validated(self, X, reset=False)
        return self.model_.decision(self._to_basis(X, self.support_vectors_, self.support_, self.gamma_))


class _TwoView(_Kernel, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):  # type: ignore[misc]  # scikit-learn ships no types
    """Two views of the same points, in scikit-learn's cross-decomposition style (``CCA``):
    ``fit(X, Y)``; ``transform(X)`` gives X's canonical variates and ``transform(X, Y)``
    both views'; ``fit_transform(X, Y)`` gives X's (what a pipeline step passes on)."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.single_output = False
        tags.target_tags.multi_output = True
        return tags

    def _fit_views(
        self, X: ArrayLike, Y: ArrayLike | None, kernels: bool = True
    ) -> tuple[np.ndarray, np.ndarray, Any, Any]:
        """Validated views, their widths set, and (with ``kernels``) their training kernels."""
        X = _validated(self, X, ensure_min_samples=2, dtype=KEPT_FLOATS)
        if Y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None: give the "
                "second view, fit(X, Y)."
            )
        Y = self._second_view(Y, X.shape[0])
        self._check_kernel()
        self.n_features_y_ = Y.shape[1]
        self.gamma_ = _gamma(self.gamma, X)
        self.gamma_y_ = _gamma(self.gamma if self.gamma_y is None else self.gamma_y, Y)
        if not kernels:
            return X, Y, None, None
        return X, Y, self._train_kernel(X, self.gamma_), self._train_kernel(Y, self.gamma_y_)

    @staticmethod
    def _second_view(Y: ArrayLike, n_rows: int) -> np.ndarray:
        Y = np.asarray(Y, dtype=float)
        if Y.ndim == 1:
            Y = Y[:, None]
        if Y.ndim != 2 or Y.shape[0] != n_rows:
            raise ValueError(
                f"The two views must describe the same points: X has {n_rows} rows, Y has "
                f"{Y.shape[0] if Y.ndim else 0}."
            )
        if not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinite values; remove or impute them first.")
        return Y

    @overload
    def transform(self, X: ArrayLike, Y: None = None) -> np.ndarray: ...

    @overload
    def transform(self, X: ArrayLike, Y: ArrayLike) -> tuple[np.ndarray, np.ndarray]: ...

    def transform(self, X: ArrayLike, Y: ArrayLike | None = None) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Canonical variates of new points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New points, or with ``kernel="precomputed"`` their kernel against the training
            points, shape (n_samples, n_train).
        Y : array-like of shape (n_samples, n_features_y), default=None
            The second view of the same points; with it, both views' variates are returned.

        Returns
        -------
        ndarray of shape (n_samples, n_directions) or tuple of two
            X's variates; with Y, ``(x_variates, y_variates)``.  In X's float type.
        """
        check_is_fitted(self)
        X = _validated(self, X, reset=False, dtype=KEPT_FLOATS)
        if Y is None:
            return np.asarray(self._variates_x(X).astype(X.dtype, copy=False))
        Y = self._second_view(Y, X.shape[0])
        if Y.shape[1] != self.n_features_y_:
            raise ValueError(
                f"Y has {Y.shape[1]} features, but {type(self).__name__} was fitted with {self.n_features_y_}."
            )
        return self._variates_x(X).astype(X.dtype, copy=False), self._variates_y(Y).astype(X.dtype, copy=False)

    def fit_transform(self, X: ArrayLike, y: ArrayLike | None = None, **fit_params: object) -> np.ndarray:
        """Fit on both views, then return X's canonical variates (what a pipeline step passes on).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The first view.
        y : array-like of shape (n_samples, n_features_y)
            The second view.
        **fit_params
            Passed to ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_directions)
            X's variates.
        """
        return np.asarray(self.fit(X, y, **fit_params).transform(X))

    def score(self, X: ArrayLike, y: ArrayLike | None = None) -> float:
        """The held-out canonical correlation: higher is better.

        The mean, over the canonical directions, of the correlation between the two views'
        variates on (X, y) -- what a grid search maximises, as cca-zoo's models score.  A
        direction whose variates are constant on these points counts as 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The first view.
        y : array-like of shape (n_samples, n_features_y)
            The second view (as in ``fit``), required.

        Returns
        -------
        float
            The mean correlation, in [-1, 1].
        """
        if y is None:
            raise ValueError(f"{type(self).__name__}.score needs both views: score(X, Y).")
        u, v = self.transform(X, y)
        u, v = u - u.mean(axis=0), v - v.mean(axis=0)
        norms = np.linalg.norm(u, axis=0) * np.linalg.norm(v, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            correlations = np.where(norms > 0, np.einsum("ij,ij->j", u, v) / norms, 0.0)
        return float(np.mean(correlations))


class SparseKCCA(_TwoView):
    """Sparse kernel CCA (Hussain et al. 2011, Alg. 3).

    ``n_components`` basis points, shared by both views, are chosen by
    :func:`mpcore.skcca_path`; then regularised linear CCA (ridge ``reg``) on the
    Nystroem features of each view gives ``n_directions`` canonical directions, so
    ``transform`` returns ``n_directions`` columns (not ``n_components``); the variates
    have unit training variance.  ``fit(X, Y)``; ``transform(X)`` gives X's variates
    and ``transform(X, Y)`` both views'; ``score(X, Y)`` the held-out canonical
    correlation.

    Parameters
    ----------
    n_components : int, default=5
        The number of shared basis points (the sparsity).
    n_directions : int, default=1
        The number of canonical directions (the output width).
    reg : float, default=1e-3
        The CCA ridge added to both covariances, at least 0.
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    gamma_y : float, "scale" or None, default=None
        The Y view's kernel width (None: as ``gamma``).
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    store_path : bool, default=False
        Keep the whole pursuit path as ``path_`` (:class:`~mpcore.PursuitPath`: every
        step's scores and deflated kernels), for plots and teaching.

    Attributes
    ----------
    support_ : ndarray of shape (n_components,)
        The chosen training rows (also ``indices_``).
    basis_x_, basis_y_ : ndarray
        Those rows of each view (empty for a precomputed kernel).
    factor_x_, factor_y_ : ndarray of shape (n_components, n_components)
        Each view's Cholesky factor of the chosen block.
    cca_ : CCAResult
        The canonical directions in the Nystroem features.
    correlations_ : ndarray of shape (n_directions,)
        The training canonical correlations.
    n_components_ : int
        The number of points chosen.
    gamma_, gamma_y_ : float
        The kernel widths used.
    n_iter_ : int
        The steps taken.
    stop_reason_ : str or None
        None, or a sentence saying why the pursuit stopped early.
    n_features_in_ : int
        The number of features of X seen by ``fit``.
    n_features_y_ : int
        The number of features of Y.
    feature_names_in_ : ndarray of str
        X's column names, when it had string column names.
    path_ : PursuitPath
        The whole path (with ``store_path=True``).

    See Also
    --------
    NystromKCCA : KCCA from sampled columns (Wang 2016).
    sklearn.cross_decomposition.CCA : Linear CCA.

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import SparseKCCA
    >>> rng = np.random.default_rng(0)
    >>> angle = rng.uniform(0, 2 * np.pi, 300)
    >>> X = np.column_stack([np.cos(angle), np.sin(angle)]) + 0.05 * rng.normal(size=(300, 2))
    >>> Y = np.column_stack([np.cos(2 * angle), angle]) + 0.05 * rng.normal(size=(300, 2))
    >>> model = SparseKCCA(n_components=20, gamma=1.0).fit(X[:200], Y[:200])
    >>> bool(model.score(X[200:], Y[200:]) > 0.8)
    True
    """

    _parameter_constraints: dict[str, Any] = {
        "n_components": COUNT,
        "n_directions": [Interval(Integral, 1, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="left")],
        **KERNEL_CONSTRAINTS,
        "gamma_y": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"}), None],
        "store_path": ["boolean"],
    }

    def __init__(
        self,
        n_components: int = 5,
        *,
        n_directions: int = 1,
        reg: float = 1e-3,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str | None = None,
        gamma_y: float | str | None = None,
        degree: float = 3,
        coef0: float = 1.0,
        kernel_params: dict[str, Any] | None = None,
        store_path: bool = False,
    ) -> None:
        self.n_components = n_components
        self.n_directions = n_directions
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.gamma_y = gamma_y
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.store_path = store_path

    @_validated_fit
    def fit(self, X: ArrayLike, Y: ArrayLike | None = None) -> Self:
        """Choose the shared basis points and the canonical directions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        Y : array-like of shape (n_samples, n_features_y)
            The second view of the same points (or its kernel if precomputed).

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        X, Y, Kx, Ky = self._fit_views(X, Y)
        path = skcca_path(Kx, Ky, _check_count(self.n_components, X.shape[0]))
        self.support_ = self.indices_ = path.indices
        self.cca_, self.factor_x_, self.factor_y_ = fit_sparse_cca(
            Kx, Ky, path.indices, reg=self.reg, n_directions=self.n_directions
        )
        self.basis_x_ = X[:0] if self._precomputed else X[path.indices]
        self.basis_y_ = Y[:0] if self._precomputed else Y[path.indices]
        self.correlations_ = self.cca_.correlations
        self.n_components_ = int(path.indices.size)
        self._n_features_out = int(np.size(self.correlations_))
        self.n_iter_, self.stop_reason_ = path.n_steps, path.stop_reason
        if self.store_path:
            self.path_ = path
        return self

    def _variates_x(self, X: np.ndarray) -> np.ndarray:
        Fx = nystrom_features(self._to_basis(X, self.basis_x_, self.support_, self.gamma_), self.factor_x_)
        return np.asarray((Fx - self.cca_.mean_x) @ self.cca_.directions_x)

    def _variates_y(self, Y: np.ndarray) -> np.ndarray:
        Fy = nystrom_features(self._to_basis(Y, self.basis_y_, self.support_, self.gamma_y_), self.factor_y_)
        return np.asarray((Fy - self.cca_.mean_y) @ self.cca_.directions_y)


class NystromKCCA(_TwoView):
    """Kernel CCA with Nystroem approximations of both kernels (Wang 2016).

    ``n_components`` landmark columns per view (the paper's rank) are drawn
    ``uniform``-ly or by ``ridge-leverage`` scores at ``gamma = gamma_ratio * reg``
    (eq. 10-12); eq. 15 gives dual coefficients alpha over all training points.  The
    landmarks are drawn at once, so there is no ``n_iter_``.  ``transform`` returns
    ``n_directions`` columns.

    Parameters
    ----------
    n_components : int, default=100
        The landmark columns drawn per view (the rank); more than the training points
        is reduced to their number (all columns give exact KCCA).
    sampling : {"uniform", "ridge-leverage"}, default="uniform"
        How the landmarks are drawn (Wang 2016, sec. 2.1).
    gamma_ratio : float, default=1e-2
        The leverage scores' ridge as a multiple of ``reg``.
    reg : float, default=1e-3
        The KCCA ridges lambda1 = lambda2, positive.
    n_directions : int, default=1
        The number of canonical directions (the output width).
    kernel : str or callable, default="rbf"
        A name of scikit-learn's pairwise kernels ("rbf", "laplacian", "poly",
        "sigmoid", "cosine", "chi2", ...), a callable ``k(A, B) -> (n, p)`` or
        ``"precomputed"`` (``fit`` then takes the training kernel (m, m), the other
        methods the kernel between new and training points (n, m)).
    gamma : float, "scale" or None, default=None
        The kernel width: a positive number, None (``1 / n_features``) or ``"scale"``
        (``1 / (n_features X.var())``, as ``SVC``); the value used is ``gamma_``.
    gamma_y : float, "scale" or None, default=None
        The Y view's kernel width (None: as ``gamma``).
    degree : float, default=3
        The degree of the "poly" kernel.
    coef0 : float, default=1.0
        The constant of the "poly" and "sigmoid" kernels.
    kernel_params : dict or None, default=None
        Further parameters of the kernel (passed to a callable kernel).
    out_of_sample : {"kernel", "nystrom"}, default="kernel"
        How new points are mapped.  ``"kernel"`` (the paper's eq. 17):
        ``f(x) = k(x)' H alpha`` against every training point, centred on them; fitting
        forms both N x N training kernels (exact leverage scores up to N = 3000,
        approximate beyond).  ``"nystrom"``: ``k(x)`` replaced by its Nystroem
        approximation from the landmarks S, ``f(x) = (k(x, S) - mean_i k(x_i, S)) w``,
        ``w = W^+ C' H alpha`` (C = K S, W = S'K S); fitting then computes only the
        landmarks' kernel columns from X, O(N M^2) time and O(N M) memory.
    random_state : int, RandomState instance or None, default=None
        Drives only the random choices (``candidates``, the ``random`` criterion, column
        sampling); anything ``sklearn.utils.check_random_state`` takes.

    Attributes
    ----------
    correlations_ : ndarray of shape (n_directions,)
        The training canonical correlations.
    landmarks_x_, landmarks_y_ : ndarray of int
        The distinct landmark rows of each view.
    leverage_scores_ : tuple of ndarray or None
        Each view's ridge leverage scores (None for uniform sampling).
    n_components_ : int
        The number of draws used.
    gamma_, gamma_y_ : float
        The kernel widths used.
    X_fit_, Y_fit_, alpha_, beta_, offsets_ : ndarray
        The training views, dual coefficients and centring offsets (``"kernel"``).
    weights_, column_means_ : tuple of ndarray
        The maps from landmark kernel columns to variates (``"nystrom"``).
    landmark_points_x_, landmark_points_y_ : ndarray
        The landmark points (``"nystrom"`` with a kernel given by name or callable).
    n_features_in_ : int
        The number of features of X seen by ``fit``.
    n_features_y_ : int
        The number of features of Y.
    feature_names_in_ : ndarray of str
        X's column names, when it had string column names.

    See Also
    --------
    mpcore.nystrom_kcca : The same solution from given columns of kernel matrices.
    SparseKCCA : Sparse KCCA by matching pursuit (Hussain et al. 2011).

    Examples
    --------
    >>> import numpy as np
    >>> from mpcore import NystromKCCA
    >>> rng = np.random.default_rng(0)
    >>> angle = rng.uniform(0, 2 * np.pi, 300)
    >>> X = np.column_stack([np.cos(angle), np.sin(angle)]) + 0.05 * rng.normal(size=(300, 2))
    >>> Y = np.column_stack([np.cos(2 * angle), angle]) + 0.05 * rng.normal(size=(300, 2))
    >>> model = NystromKCCA(n_components=40, gamma=1.0, random_state=0).fit(X[:200], Y[:200])
    >>> model.transform(X[200:]).shape
    (100, 1)
    """

    _parameter_constraints: dict[str, Any] = {
        "n_components": COUNT,
        "sampling": [StrOptions(set(SAMPLINGS))],
        "gamma_ratio": [Interval(Real, 0, None, closed="neither")],
        "reg": [Interval(Real, 0, None, closed="neither")],
        "n_directions": [Interval(Integral, 1, None, closed="left")],
        **KERNEL_CONSTRAINTS,
        "gamma_y": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"}), None],
        "out_of_sample": [StrOptions(set(OUT_OF_SAMPLE))],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components: int = 100,
        *,
        sampling: str = "uniform",
        gamma_ratio: float = 1e-2,
        reg: float = 1e-3,
        n_directions: int = 1,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float | str | None = None,
        gamma_y: float | str | None = None,
        degree: float = 3,
        coef0: float = 1.0,
        kernel_params: dict[str, Any] | None = None,
        out_of_sample: str = "kernel",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_components = n_components
        self.sampling = sampling
        self.gamma_ratio = gamma_ratio
        self.reg = reg
        self.n_directions = n_directions
        self.kernel = kernel
        self.gamma = gamma
        self.gamma_y = gamma_y
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.out_of_sample = out_of_sample
        self.random_state = random_state

    @_validated_fit
    def fit(self, X: ArrayLike, Y: ArrayLike | None = None) -> Self:
        """Draw the landmarks and solve Nystroem KCCA (Wang 2016, eq. 15).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training points, or with ``kernel="precomputed"`` their kernel (n_samples, n_samples).
        Y : array-like of shape (n_samples, n_features_y)
            The second view of the same points (or its kernel if precomputed).

        Returns
        -------
        object
            The fitted estimator (``self``).
        """
        check_choice(self.sampling, SAMPLINGS, "sampling")
        check_choice(self.out_of_sample, OUT_OF_SAMPLE, "out_of_sample")
        from_columns = self.out_of_sample == "nystrom" and not self._precomputed
        X, Y, K1, K2 = self._fit_views(X, Y, kernels=not from_columns)
        N = X.shape[0]
        rank = _check_rank(self.n_components, N)
        gamma = self.gamma_ratio * self.reg
        rng = check_random_state(self.random_state)
        if self.sampling != "ridge-leverage":
            self.leverage_scores_ = None
        elif from_columns:
            self.leverage_scores_ = (
                self._sketch_leverage(X, self.gamma_, gamma, rng),
                self._sketch_leverage(Y, self.gamma_y_, gamma, rng),
            )
        else:
            self.leverage_scores_ = (ridge_leverage_scores(K1, gamma), ridge_leverage_scores(K2, gamma))
        scores = self.leverage_scores_ or (None, None)
        i1, _ = draw_landmarks(N, rank, self.sampling, scores[0], _seed(rng))
        i2, _ = draw_landmarks(N, rank, self.sampling, scores[1], _seed(rng))
        if from_columns:
            i1, i2 = _distinct_in_order(i1), _distinct_in_order(i2)
            C1, C2 = self._pairwise(X, X[i1], self.gamma_), self._pairwise(Y, Y[i2], self.gamma_y_)
            result = nystrom_kcca_from_columns(C1, C1[i1], C2, C2[i2], self.reg, self.reg, self.n_directions, i1, i2)
        else:
            result = nystrom_kcca(K1, K2, i1, i2, self.reg, self.reg, self.n_directions)
        self.landmarks_x_, self.landmarks_y_ = result.indices1, result.indices2
        self.correlations_ = result.correlations
        self.n_components_ = rank
        self._n_features_out = int(np.size(self.correlations_))
        alpha = result.alpha - result.alpha.mean(axis=0)
        beta = result.beta - result.beta.mean(axis=0)
        if self.out_of_sample == "kernel":
            self.X_fit_, self.Y_fit_ = X, Y
            self.alpha_, self.beta_ = alpha, beta
            self.offsets_ = (K1 @ self.alpha_).mean(axis=0), (K2 @ self.beta_).mean(axis=0)
            return self
        if not from_columns:  # precomputed: the landmarks' columns of the given kernels
            C1, C2 = K1[:, result.indices1], K2[:, result.indices2]
        else:
            self.landmark_points_x_, self.landmark_points_y_ = X[result.indices1], Y[result.indices2]
        # w = W^+ C' H alpha: the map k(x, S) -> f(x) that the Nystroem kernel L = C W^+ C' gives
        self.weights_ = (_psd_solve(C1[result.indices1], C1.T @ alpha), _psd_solve(C2[result.indices2], C2.T @ beta))
        self.column_means_ = (C1.mean(axis=0), C2.mean(axis=0))
        return self

    def _sketch_leverage(
        self, X: np.ndarray, kernel_gamma: float, gamma: float, rng: np.random.RandomState
    ) -> np.ndarray:
        """Approximate ridge leverage scores from a uniform sketch's kernel columns of X."""
        S = sketch_landmarks(X.shape[0], seed=_seed(rng))
        W = self._pairwise(X[S], X[S], kernel_gamma)
        return leverage_from_sketch(
            lambda rows: self._pairwise(X[rows], X[S], kernel_gamma), W, self._diag(X, kernel_gamma), gamma
        )

    def _variates(self, X: np.ndarray, view: int) -> np.ndarray:
        gamma = (self.gamma_, self.gamma_y_)[view]
        if self.out_of_sample == "nystrom":
            if self._precomputed:
                C = X[:, (self.landmarks_x_, self.landmarks_y_)[view]]
            else:
                C = self._pairwise(X, (self.landmark_points_x_, self.landmark_points_y_)[view], gamma)
            return np.asarray((C - self.column_means_[view]) @ self.weights_[view])
        fitted, coefficients = ((self.X_fit_, self.alpha_), (self.Y_fit_, self.beta_))[view]
        K = X if self._precomputed else self._pairwise(X, fitted, gamma)
        return np.asarray(K @ coefficients - self.offsets_[view])

    def _variates_x(self, X: np.ndarray) -> np.ndarray:
        return self._variates(X, 0)

    def _variates_y(self, Y: np.ndarray) -> np.ndarray:
        return self._variates(Y, 1)
