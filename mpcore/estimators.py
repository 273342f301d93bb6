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
from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.base import (BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin, RegressorMixin,
                          TransformerMixin, _fit_context)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_binary_labels, check_choice, check_memory, check_nonconstant
from .criteria import FISHER_CRITERIA
from .deflations import DEFLATIONS
from .kernels import finite_kernel
from .kmp import KMP_VARIANTS, LOSSES, kmp_columns_path, kmp_path
from .mpkfda import fit_fisher, mpkfda_path
from .nkcca import (SAMPLINGS, _distinct_in_order, _psd_solve, draw_landmarks, leverage_from_sketch,
                    nystrom_kcca, nystrom_kcca_from_columns, ridge_leverage_scores, sketch_landmarks)
from .nystrom import nystrom_factor, nystrom_features, projection_residuals
from .skcca import fit_sparse_cca, skcca_path
from .skpca import skpca_columns_path, skpca_path

#: Kernel names the estimators take (scikit-learn's pairwise kernels and "precomputed").
ESTIMATOR_KERNELS = tuple(sorted(PAIRWISE_KERNEL_FUNCTIONS)) + ("precomputed",)
#: How :class:`NystromKCCA` maps new points: eq. 17's kernel vector, or its Nystroem approximation.
OUT_OF_SAMPLE = ("kernel", "nystrom")


def _check_count(value, n_samples, name="n_components"):
    """A whole number of basis points, at least 1 and below the number of training points
    (k >= m is bad input and gets a sentence)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}.")
    if value >= n_samples:
        raise ValueError(f"{name} = {value} is not sparse: it must be smaller than the number of training points "
                         f"({n_samples}).")
    return int(value)


def _check_rank(value, n_samples):
    """NystromKCCA's landmark draws (``n_components``, Wang's rank): a whole number >= 1, at
    most the number of points (drawing all N columns gives exact KCCA; more is reduced to N)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"n_components must be a whole number of at least 1, got {value!r}.")
    return int(min(value, n_samples))


def _seed(random_state):
    """An int seed for the paths' NumPy generators from any scikit-learn ``random_state``."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _gamma(gamma, X):
    """The kernel width used: a positive number, None (1 / d) or "scale" (1 / (d X.var()))."""
    if gamma is None:
        return 1.0 / X.shape[1]
    if isinstance(gamma, str):
        if gamma != "scale":
            raise ValueError(f"gamma must be a positive number, None or 'scale', got {gamma!r}.")
        variance = float(np.var(X))
        return 1.0 / (X.shape[1] * variance) if variance > 0 else 1.0
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not np.isfinite(gamma) or gamma <= 0:
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        if tags.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _check_kernel(self):
        if not callable(self.kernel):
            check_choice(self.kernel, ESTIMATOR_KERNELS, "kernel")

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _pairwise(self, A, B, gamma):
        check_memory(3 * 8 * A.shape[0] * B.shape[0], f"A {A.shape[0]:,} x {B.shape[0]:,} kernel matrix",
                     "Use fewer points, or candidates= (the kernel's columns computed a few at a time).")
        with np.errstate(over="ignore", invalid="ignore"):
            if callable(self.kernel):
                K = np.asarray(pairwise_kernels(A, B, metric=self.kernel, **(self.kernel_params or {})), dtype=float)
            else:
                params = {"gamma": gamma, "degree": self.degree, "coef0": self.coef0, **(self.kernel_params or {})}
                K = np.asarray(pairwise_kernels(A, B, metric=self.kernel, filter_params=True, **params), dtype=float)
        return finite_kernel(K, self.kernel if isinstance(self.kernel, str) else "given")

    def _train_kernel(self, X, gamma):
        if self._precomputed:
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"With kernel='precomputed', fit takes the square training kernel; got {X.shape}.")
            return np.array(X, dtype=float)
        return self._pairwise(X, X, gamma)

    def _to_basis(self, X, basis, indices, gamma):
        """Kernel between the rows of X and the chosen points (n, k)."""
        if self._precomputed:
            return X[:, indices]
        return self._pairwise(X, basis, gamma)

    def _diag(self, X, gamma):
        """``k(x, x)`` for each row of X."""
        if self._precomputed:
            raise ValueError("score_samples needs k(x, x) for the new points, which a precomputed kernel does not "
                             "give; use the kernel's name or a callable instead.")
        if isinstance(self.kernel, str) and self.kernel in ("rbf", "laplacian"):
            return np.ones(X.shape[0])
        if isinstance(self.kernel, str) and self.kernel == "linear":
            return np.einsum("ij,ij->i", X, X)
        return np.array([self._pairwise(row[None, :], row[None, :], gamma)[0, 0] for row in X])


class SparseKPCA(_Kernel, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Sparse kernel PCA by matching pursuit (Hussain et al. 2011, Alg. 2) as a transformer.

    ``fit`` chooses ``n_components`` training points with :func:`mpcore.skpca_path`
    (``candidates``: score that many random eligible columns per step, the "59 trick");
    ``transform`` returns Nystroem features (n, n_components_) whose inner products are
    the projected kernel (eq. 8); ``score_samples`` returns each point's squared
    residual ``||phi(x) - P phi(x)||^2`` (eq. 7).

    Attributes: ``support_`` / ``indices_`` (chosen training rows), ``components_``
    (those rows of X; empty for a precomputed kernel), ``factor_`` (Cholesky factor of
    their kernel block), ``n_components_``, ``gamma_``, ``n_iter_``, ``stop_reason_``,
    ``path_`` (with ``store_path=True`` and ``candidates=None``).
    """

    _parameter_constraints: dict = {
        "n_components": COUNT, **KERNEL_CONSTRAINTS, "candidates": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"], "store_path": ["boolean"],
    }

    def __init__(self, n_components=5, *, kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None,
                 candidates=None, random_state=None, store_path=False):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.candidates = candidates
        self.random_state = random_state
        self.store_path = store_path

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the points.  X (m, d), or the (m, m) kernel if precomputed; y ignored.

        With ``candidates`` (and a kernel given by name or callable) the m x m kernel is
        never formed: each step computes the kernel columns of its candidates from X
        (:func:`mpcore.skpca.skpca_columns_path`, the same picks), so m = 100,000 fits
        in O(m (candidates + n_components)) memory; ``path_`` is then not available."""
        X = validate_data(self, X, ensure_min_samples=2, dtype=KEPT_FLOATS)
        self._check_kernel()
        self.gamma_ = _gamma(self.gamma, X)
        k, seed = _check_count(self.n_components, X.shape[0]), _seed(self.random_state)
        if self.candidates is not None and not self._precomputed:
            path = skpca_columns_path(lambda idx: self._pairwise(X, X[idx], self.gamma_), self._diag(X, self.gamma_),
                                      k, self.candidates, seed)
            block = self._pairwise(X[path.indices], X[path.indices], self.gamma_)
            n_steps = path.indices.size
        else:
            path = skpca_path(self._train_kernel(X, self.gamma_), k, candidates=self.candidates, seed=seed)
            block = path._kernels[0][np.ix_(path.indices, path.indices)]
            n_steps = path.n_steps
            if self.store_path:
                self.path_ = path
        self.support_ = self.indices_ = path.indices
        self.components_ = X[:0] if self._precomputed else X[path.indices]
        self.factor_ = nystrom_factor(block)
        self.n_components_ = self._n_features_out = int(path.indices.size)
        self.n_iter_, self.stop_reason_ = n_steps, path.stop_reason
        return self

    def transform(self, X):
        """Nystroem features (n, n_components_), in X's float type."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=KEPT_FLOATS)
        features = nystrom_features(self._to_basis(X, self.components_, self.support_, self.gamma_), self.factor_)
        return features.astype(X.dtype, copy=False)

    def score_samples(self, X):
        """Squared residual of each row of X after projection onto the chosen points (eq. 7)."""
        F = self.transform(X).astype(np.float64, copy=False)
        X = validate_data(self, X, reset=False, dtype=KEPT_FLOATS)
        return projection_residuals(self._diag(X, self.gamma_), F)


class _BinaryClassifier(ClassifierMixin):
    """What the two-class estimators share: the target's checks, ``classes_[1]`` as the
    positive class of ``decision_function``, and probabilities from a one-parameter
    logistic fit of the training labels on the decision values, without intercept, so
    they agree with ``predict`` (Platt 1999)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _two_classes(self, y):
        """Check that y has two classes; set ``classes_`` and return y as -1/+1."""
        check_classification_targets(y)
        n_classes = np.unique(y).size
        if n_classes > 2:
            raise ValueError(f"Only binary classification is supported. The target has {n_classes} classes; "
                             "pick one class against the rest first.")
        check_binary_labels(y)
        self.classes_ = np.unique(y)
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _fit_probabilities(self, decision, signs):
        logistic = LogisticRegression(fit_intercept=False).fit(decision[:, None], signs)
        self.probability_slope_ = max(float(logistic.coef_[0, 0]), 1e-12)

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def predict_proba(self, X):
        """(n, 2): the probabilities of ``classes_[0]`` and ``classes_[1]``."""
        check_is_fitted(self)
        positive = expit(self.probability_slope_ * self.decision_function(X))
        return np.column_stack([1.0 - positive, positive])

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


#: The margin losses of Vincent and Bengio (2002, sec. 3.2) for targets -1/+1: a classifier's.
CLASSIFICATION_LOSSES = ("tanh", "logistic", "hinge")


class _KMPBase(_Kernel, BaseEstimator):
    """What the KMP regressor and classifier share: the parameters and the pursuit."""

    _parameter_constraints: dict = {
        "n_components": COUNT, "variant": [StrOptions(set(KMP_VARIANTS))], "loss": [StrOptions(set(LOSSES))],
        "fit_intercept": ["boolean"], **KERNEL_CONSTRAINTS,
        "candidates": [Interval(Integral, 1, None, closed="left"), None], "random_state": ["random_state"],
        "store_path": ["boolean"],
    }

    def __init__(self, n_components=5, *, variant="prefit", loss="squared", fit_intercept=True,
                 kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None, candidates=None,
                 random_state=None, store_path=False):
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

    def _pursue(self, X, y):
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
        if self.candidates is not None and self.variant == "prefit" and squared and not self._precomputed:
            path = kmp_columns_path(lambda idx: self._pairwise(X, X[idx], self.gamma_), y - offset, k,
                                    self.candidates, seed)
            indices, weights, last, n_steps = path.indices, path.coefs, 0.0, path.indices.size
        else:
            path = kmp_path(self._train_kernel(X, self.gamma_), y - offset, k, variant=self.variant, loss=self.loss,
                            fit_intercept=bool(self.fit_intercept and not squared), candidates=self.candidates,
                            seed=seed)
            indices, n_steps = path.indices, path.n_steps
            weights = path.extras["coefs"][-1] if path.n_steps else np.zeros(0)
            last = path.extras["intercepts"][-1] if path.n_steps else 0.0
            if self.store_path:
                self.path_ = path
        support, position = np.unique(indices, return_inverse=True)
        self.dual_coef_ = np.bincount(position, weights=weights, minlength=support.size)
        self.support_ = support
        self.support_vectors_ = X[:0] if self._precomputed else X[support]
        self.intercept_ = float(offset + last)
        self.n_components_ = int(support.size)
        self.n_iter_, self.stop_reason_ = n_steps, path.stop_reason
        return self

    def _decision(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self._to_basis(X, self.support_vectors_, self.support_, self.gamma_) @ self.dual_coef_ + self.intercept_


class KernelMatchingPursuit(RegressorMixin, _KMPBase):
    """Kernel matching pursuit regressor (Vincent and Bengio 2002); for two classes use
    :class:`KernelMatchingPursuitClassifier`.

    With the squared loss and ``fit_intercept=True`` the target is centred before the
    pursuit and its mean becomes ``intercept_``.  The regressor takes the squared loss
    only: the margin losses (``tanh``, ``logistic``, ``hinge``) are the classifier's.
    ``candidates``: score that many random columns per step (the "59 trick"); with
    pre-fitting the m x m kernel is then never formed
    (:func:`mpcore.kmp.kmp_columns_path`: only the candidates' kernel columns, from X).

    Attributes: ``support_`` (training rows used), ``support_vectors_`` (empty for a
    precomputed kernel), ``dual_coef_`` (their weights), ``intercept_``,
    ``n_components_``, ``gamma_``, ``n_iter_``, ``stop_reason_``, ``path_`` (with
    ``store_path=True``, when the kernel matrix was formed).
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Choose the basis and its weights.  X (m, d) or the (m, m) kernel; y (m,)."""
        X, y = validate_data(self, X, y, ensure_min_samples=2, y_numeric=True)
        if self.loss in CLASSIFICATION_LOSSES:
            raise ValueError(f"The {self.loss!r} loss is a classification loss (targets -1/+1); a regressor fitted "
                             "with it predicts margins, not values. Use KernelMatchingPursuitClassifier, or "
                             "loss='squared' here.")
        return self._pursue(X, y)

    def predict(self, X):
        """The regression function at the rows of X (n,)."""
        return self._decision(X)


class KernelMatchingPursuitClassifier(_BinaryClassifier, _KMPBase):
    """Kernel matching pursuit for two classes (Vincent and Bengio 2002, sec. 3.2): the
    pursuit on the targets -1/+1 (``classes_[1]`` is +1) with the squared loss (the
    default, with pre-fitting) or a margin loss -- ``logistic``, ``tanh`` or ``hinge``,
    with ``variant="backfit"`` or ``"basic"`` (pre-fitting needs the squared loss); the
    sign of ``decision_function`` classifies.  On points the chosen basis separates, the
    margin losses' weights grow without bound (as an unregularised logistic regression's
    do), and so does the confidence of ``predict_proba``.  ``predict_proba`` is the logistic function of the
    decision values, scaled by a one-parameter logistic fit on the training points without
    intercept (Platt 1999), so it agrees with ``predict``.

    Attributes: those of :class:`KernelMatchingPursuit`, and ``classes_`` and
    ``probability_slope_``.
    """

    def __init__(self, n_components=5, *, variant="prefit", loss="squared", fit_intercept=True,
                 kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None, candidates=None,
                 random_state=None, store_path=False):
        super().__init__(n_components, variant=variant, loss=loss, fit_intercept=fit_intercept, kernel=kernel,
                         gamma=gamma, degree=degree, coef0=coef0, kernel_params=kernel_params, candidates=candidates,
                         random_state=random_state, store_path=store_path)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Choose the basis and its weights.  X (m, d) or the (m, m) kernel; y (m,), two classes."""
        X, y = validate_data(self, X, y, ensure_min_samples=2)
        signs = self._two_classes(y)
        self._pursue(X, signs)
        self._fit_probabilities(self._decision(X), signs)
        return self

    def decision_function(self, X):
        """The pursuit's function at the rows of X (n,): positive for ``classes_[1]``."""
        return self._decision(X)


class MPKFDA(_BinaryClassifier, _Kernel, BaseEstimator):
    """Greedy (matching-pursuit) kernel Fisher discriminant for two classes (Diethe 2015).

    ``fit`` runs :func:`mpcore.mpkfda_path` with the chosen criterion, deflation and
    stages, then a Fisher discriminant (shrinkage LDA) on the Nystroem features of the
    chosen points, thresholded midway between the projected class means.  Any two
    labels are accepted; ``classes_[1]`` is the positive class of
    ``decision_function``.  ``predict_proba`` is a logistic fit of the training labels on
    the decision values, without intercept, so it agrees with ``predict`` (Platt 1999).

    Attributes: ``classes_``, ``support_``, ``support_vectors_``, ``model_`` (the Fisher
    direction in the Nystroem features), ``probability_slope_``, ``n_components_``,
    ``gamma_``, ``n_iter_``, ``stop_reason_``, ``path_`` (with ``store_path=True``).
    """

    _parameter_constraints: dict = {
        "n_components": COUNT, "criterion": [StrOptions(set(FISHER_CRITERIA))],
        "deflation": [StrOptions(set(DEFLATIONS))], "stages": [Interval(Integral, 1, None, closed="left")],
        "shrinkage": [StrOptions({"auto"}), Interval(Real, 0, 1, closed="both"), None], **KERNEL_CONSTRAINTS,
        "random_state": ["random_state"], "store_path": ["boolean"],
    }

    def __init__(self, n_components=5, *, criterion="optimal", deflation="projection", stages=1,
                 shrinkage="auto", kernel="rbf", gamma=None, degree=3, coef0=1.0, kernel_params=None,
                 random_state=None, store_path=False):
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Choose the basis and the discriminant.  X (m, d) or the (m, m) kernel; y (m,), two classes."""
        X, y = validate_data(self, X, y, ensure_min_samples=2)
        self._two_classes(y)
        check_choice(self.criterion, FISHER_CRITERIA, "criterion")
        check_choice(self.deflation, DEFLATIONS, "deflation")
        self._check_kernel()
        self.gamma_ = _gamma(self.gamma, X)
        K = self._train_kernel(X, self.gamma_)
        path = mpkfda_path(K, y, _check_count(self.n_components, X.shape[0]), criterion=self.criterion,
                           deflation=self.deflation, stages=self.stages, seed=_seed(self.random_state))
        self.classes_ = path.extras["classes"]
        self.model_ = fit_fisher(K, path.extras["labels"], path.indices, shrinkage=self.shrinkage)
        self.support_ = path.indices
        self.support_vectors_ = X[:0] if self._precomputed else X[path.indices]
        self.n_components_ = int(path.indices.size)
        self.n_iter_, self.stop_reason_ = path.n_steps, path.stop_reason
        self._fit_probabilities(self.model_.decision(K[:, path.indices]), path.extras["labels"])
        if self.store_path:
            self.path_ = path
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.model_.decision(self._to_basis(X, self.support_vectors_, self.support_, self.gamma_))


class _TwoView(_Kernel, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Two views of the same points, in scikit-learn's cross-decomposition style (``CCA``):
    ``fit(X, Y)``; ``transform(X)`` gives X's canonical variates and ``transform(X, Y)``
    both views'; ``fit_transform(X, Y)`` gives X's (what a pipeline step passes on)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.single_output = False
        tags.target_tags.multi_output = True
        return tags

    def _fit_views(self, X, Y, kernels=True):
        """Validated views, their widths set, and (with ``kernels``) their training kernels."""
        X = validate_data(self, X, ensure_min_samples=2, dtype=KEPT_FLOATS)
        if Y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None: give the "
                             "second view, fit(X, Y).")
        Y = self._second_view(Y, X.shape[0])
        self._check_kernel()
        self.n_features_y_ = Y.shape[1]
        self.gamma_ = _gamma(self.gamma, X)
        self.gamma_y_ = _gamma(self.gamma if self.gamma_y is None else self.gamma_y, Y)
        if not kernels:
            return X, Y, None, None
        return X, Y, self._train_kernel(X, self.gamma_), self._train_kernel(Y, self.gamma_y_)

    @staticmethod
    def _second_view(Y, n_rows):
        Y = np.asarray(Y, dtype=float)
        if Y.ndim == 1:
            Y = Y[:, None]
        if Y.ndim != 2 or Y.shape[0] != n_rows:
            raise ValueError(f"The two views must describe the same points: X has {n_rows} rows, Y has "
                             f"{Y.shape[0] if Y.ndim else 0}.")
        if not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinite values; remove or impute them first.")
        return Y

    def transform(self, X, Y=None):
        """X's canonical variates (n, n_directions); with Y, ``(x_variates, y_variates)``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=KEPT_FLOATS)
        if Y is None:
            return self._variates_x(X).astype(X.dtype, copy=False)
        Y = self._second_view(Y, X.shape[0])
        if Y.shape[1] != self.n_features_y_:
            raise ValueError(f"Y has {Y.shape[1]} features, but {type(self).__name__} was fitted with "
                             f"{self.n_features_y_}.")
        return self._variates_x(X).astype(X.dtype, copy=False), self._variates_y(Y).astype(X.dtype, copy=False)

    def fit_transform(self, X, y=None, **fit_params):
        return self.fit(X, y, **fit_params).transform(X)

    def score(self, X, y=None):
        """The mean, over the canonical directions, of the correlation between the two views'
        variates on (X, y) -- ``y`` is the second view, as in ``fit`` -- the held-out
        canonical correlation (higher is better), what a grid search maximises, as
        cca-zoo's models score.  A direction whose variates are constant on these points
        counts as 0."""
        if y is None:
            raise ValueError(f"{type(self).__name__}.score needs both views: score(X, Y).")
        u, v = self.transform(X, y)
        u, v = u - u.mean(axis=0), v - v.mean(axis=0)
        norms = np.linalg.norm(u, axis=0) * np.linalg.norm(v, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            correlations = np.where(norms > 0, np.einsum("ij,ij->j", u, v) / norms, 0.0)
        return float(np.mean(correlations))


class SparseKCCA(_TwoView):
    """Sparse kernel CCA (Hussain et al. 2011, Alg. 3): ``fit(X, Y)``, ``transform(X[, Y])``.

    ``n_components`` shared basis points are chosen by :func:`mpcore.skcca_path`; then
    regularised linear CCA (ridge ``reg``) on the Nystroem features of each view gives
    ``n_directions`` canonical directions; the variates have unit training variance.
    ``gamma_y`` is the Y view's kernel width (defaults to ``gamma``).

    Attributes: ``support_`` / ``indices_``, ``basis_x_``, ``basis_y_``, ``factor_x_``,
    ``factor_y_``, ``cca_``, ``correlations_``, ``n_components_``, ``gamma_``,
    ``gamma_y_``, ``n_iter_``, ``stop_reason_``, ``path_`` (with ``store_path=True``).
    """

    _parameter_constraints: dict = {
        "n_components": COUNT, "n_directions": [Interval(Integral, 1, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="left")], **KERNEL_CONSTRAINTS,
        "gamma_y": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"}), None], "store_path": ["boolean"],
    }

    def __init__(self, n_components=5, *, n_directions=1, reg=1e-3, kernel="rbf", gamma=None, gamma_y=None,
                 degree=3, coef0=1.0, kernel_params=None, store_path=False):
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y=None):
        """X (m, d_x) and Y (m, d_y) (or their kernels if precomputed)."""
        X, Y, Kx, Ky = self._fit_views(X, Y)
        path = skcca_path(Kx, Ky, _check_count(self.n_components, X.shape[0]))
        self.support_ = self.indices_ = path.indices
        self.cca_, self.factor_x_, self.factor_y_ = fit_sparse_cca(Kx, Ky, path.indices, reg=self.reg,
                                                                   n_directions=self.n_directions)
        self.basis_x_ = X[:0] if self._precomputed else X[path.indices]
        self.basis_y_ = Y[:0] if self._precomputed else Y[path.indices]
        self.correlations_ = self.cca_.correlations
        self.n_components_ = int(path.indices.size)
        self._n_features_out = int(np.size(self.correlations_))
        self.n_iter_, self.stop_reason_ = path.n_steps, path.stop_reason
        if self.store_path:
            self.path_ = path
        return self

    def _variates_x(self, X):
        Fx = nystrom_features(self._to_basis(X, self.basis_x_, self.support_, self.gamma_), self.factor_x_)
        return (Fx - self.cca_.mean_x) @ self.cca_.directions_x

    def _variates_y(self, Y):
        Fy = nystrom_features(self._to_basis(Y, self.basis_y_, self.support_, self.gamma_y_), self.factor_y_)
        return (Fy - self.cca_.mean_y) @ self.cca_.directions_y


class NystromKCCA(_TwoView):
    """Kernel CCA with Nystroem approximations of both kernels (Wang 2016).

    ``n_components`` landmark columns per view (the paper's rank) are drawn ``uniform``-ly or by ``ridge-leverage``
    scores at ``gamma = gamma_ratio * reg`` (eq. 10-12); eq. 15 gives dual coefficients
    alpha over all training points.  ``out_of_sample`` says how new points are mapped:

    - ``"kernel"`` (the paper's eq. 17): ``f(x) = k(x)' H alpha`` against every training
      point, centred on them.  Fitting forms both N x N training kernels (exact leverage
      scores up to N = 3000, approximate beyond).
    - ``"nystrom"``: ``k(x)`` replaced by its Nystroem approximation from the landmarks
      S, the kernel the method was fitted with: ``f(x) = (k(x, S) - mean_i k(x_i, S)) w``,
      ``w = W^+ C' H alpha`` (C = K S, W = S'K S).  Fitting then computes only the
      landmarks' kernel columns from X (and, for ``ridge-leverage``, a uniform sketch's
      for approximate scores), O(N M^2) time and O(N M) memory, so N can be as large as
      X fits; transform costs O(n M) and keeps only the landmarks.  On the training
      points the two maps agree as far as ``L = C W^+ C'`` agrees with K.

    Attributes: ``correlations_``, ``landmarks_x_``, ``landmarks_y_`` (row numbers),
    ``leverage_scores_`` (None for uniform sampling), ``gamma_``, ``gamma_y_``,
    ``n_components_`` (the rank used); ``X_fit_``, ``Y_fit_``, ``alpha_``, ``beta_``
    (``"kernel"``) or ``weights_``, ``column_means_`` and the landmark points
    ``landmark_points_x_``, ``landmark_points_y_`` (``"nystrom"``).
    """

    _parameter_constraints: dict = {
        "n_components": COUNT, "sampling": [StrOptions(set(SAMPLINGS))],
        "gamma_ratio": [Interval(Real, 0, None, closed="neither")], "reg": [Interval(Real, 0, None, closed="neither")],
        "n_directions": [Interval(Integral, 1, None, closed="left")], **KERNEL_CONSTRAINTS,
        "gamma_y": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"}), None],
        "out_of_sample": [StrOptions(set(OUT_OF_SAMPLE))], "random_state": ["random_state"],
    }

    def __init__(self, n_components=100, *, sampling="uniform", gamma_ratio=1e-2, reg=1e-3, n_directions=1,
                 kernel="rbf", gamma=None, gamma_y=None, degree=3, coef0=1.0, kernel_params=None,
                 out_of_sample="kernel", random_state=None):
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y=None):
        """X (m, d_x) and Y (m, d_y) (or their kernels if precomputed)."""
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
            self.leverage_scores_ = (self._sketch_leverage(X, self.gamma_, gamma, rng),
                                     self._sketch_leverage(Y, self.gamma_y_, gamma, rng))
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

    def _sketch_leverage(self, X, kernel_gamma, gamma, rng):
        """Approximate ridge leverage scores from a uniform sketch's kernel columns of X."""
        S = sketch_landmarks(X.shape[0], seed=_seed(rng))
        W = self._pairwise(X[S], X[S], kernel_gamma)
        return leverage_from_sketch(lambda rows: self._pairwise(X[rows], X[S], kernel_gamma), W,
                                    self._diag(X, kernel_gamma), gamma)

    def _variates(self, X, view):
        gamma = (self.gamma_, self.gamma_y_)[view]
        if self.out_of_sample == "nystrom":
            if self._precomputed:
                C = X[:, (self.landmarks_x_, self.landmarks_y_)[view]]
            else:
                C = self._pairwise(X, (self.landmark_points_x_, self.landmark_points_y_)[view], gamma)
            return (C - self.column_means_[view]) @ self.weights_[view]
        fitted, coefficients = ((self.X_fit_, self.alpha_), (self.Y_fit_, self.beta_))[view]
        K = X if self._precomputed else self._pairwise(X, fitted, gamma)
        return K @ coefficients - self.offsets_[view]

    def _variates_x(self, X):
        return self._variates(X, 0)

    def _variates_y(self, Y):
        return self._variates(Y, 1)
