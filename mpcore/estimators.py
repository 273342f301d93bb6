"""scikit-learn estimators wrapping the matching-pursuit paths.

They follow scikit-learn's API (parameters stored unchanged in ``__init__``, learned
attributes ending in ``_``, ``fit`` returning ``self``) and the three one-view ones pass
``sklearn.utils.estimator_checks.check_estimator`` (see ``tests/test_estimators.py``
for the checks that are expected to fail and why).
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_binary_labels, check_choice, check_nonconstant
from .criteria import FISHER_CRITERIA
from .deflations import DEFLATIONS
from .kernels import KERNELS, kernel_diag, kernel_matrix
from .kmp import KMP_VARIANTS, LOSSES, kmp_path
from .mpkfda import fit_fisher, mpkfda_path
from .nkcca import SAMPLINGS, nystrom_kcca, sample_columns, ridge_leverage_scores
from .nystrom import nystrom_factor, nystrom_features, projection_residuals
from .skcca import fit_sparse_cca, skcca_path
from .skpca import skpca_path


def _check_n_components(value, n_samples, name="n_components"):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}.")
    if value >= n_samples:
        raise ValueError(
            f"{name} = {value} is not sparse: it must be smaller than the number of training points ({n_samples})."
        )
    return int(value)


class _KernelParams:
    """Kernel choice shared by all estimators; names and formulas are scikit-learn's."""

    def _kernel_params(self, gamma=None):
        check_choice(self.kernel, KERNELS, "kernel")
        gamma = self.gamma if gamma is None else gamma
        return {
            "rbf": {"gamma": gamma},
            "laplacian": {"gamma": gamma},
            "poly": {"gamma": gamma, "degree": self.degree, "coef0": self.coef0},
            "linear": {},
        }[self.kernel]

    def _kernel(self, X, Z=None, gamma=None):
        return kernel_matrix(X, Z, self.kernel, **self._kernel_params(gamma))


class SparseKPCA(_KernelParams, TransformerMixin, BaseEstimator):
    """Sparse kernel PCA by matching pursuit (seed 000 Alg. 2) as a transformer.

    ``fit`` chooses ``n_components`` training points with :func:`mpcore.skpca_path`;
    ``transform`` returns Nystroem features (n, n_components_) whose inner products
    are the projected kernel (eq. 8); ``score_samples`` returns each point's squared
    residual ``||phi(x) - P phi(x)||^2`` (eq. 7).

    Attributes: ``indices_`` (chosen training rows), ``components_`` (those rows of X),
    ``factor_`` (Cholesky factor of their kernel block), ``path_`` (the full path),
    ``n_components_``.
    """

    def __init__(self, n_components=10, *, kernel="rbf", gamma=None, degree=3, coef0=1.0,
                 candidates=None, random_state=0):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.candidates = candidates
        self.random_state = random_state

    def fit(self, X, y=None):
        X = validate_data(self, X, ensure_min_samples=2)
        k = _check_n_components(self.n_components, X.shape[0])
        self.path_ = skpca_path(self._kernel(X), k, candidates=self.candidates, seed=self.random_state)
        self.indices_ = self.path_.indices
        self.components_ = X[self.indices_]

        self.factor_ = nystrom_factor(self._kernel(self.components_))
        self.n_components_ = self.indices_.size
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return nystrom_features(self._kernel(X, self.components_), self.factor_)

    def score_samples(self, X):
        """Squared residual of each row of X after projection onto the chosen points (eq. 7)."""
        F = self.transform(X)
        X = validate_data(self, X, reset=False)
        return projection_residuals(kernel_diag(X, self.kernel, **self._kernel_params()), F)


class KernelMatchingPursuit(_KernelParams, RegressorMixin, BaseEstimator):
    """Kernel matching pursuit regressor (seed 003); use ``sign(predict(X))`` to classify.

    With the squared loss and ``fit_intercept=True`` the target is centred before the
    pursuit and its mean becomes ``intercept_``; with the ``tanh``, ``logistic`` or
    ``hinge`` losses (targets -1/+1) the intercept is optimised with the weights.

    Attributes: ``support_`` (training rows used), ``support_vectors_``,
    ``dual_coef_`` (their weights), ``intercept_``, ``path_``.
    """

    def __init__(self, n_components=10, *, variant="prefit", loss="squared", fit_intercept=True,
                 kernel="rbf", gamma=None, degree=3, coef0=1.0):
        self.n_components = n_components
        self.variant = variant
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y):
        X, y = validate_data(self, X, y, ensure_min_samples=2, y_numeric=True)
        check_choice(self.variant, KMP_VARIANTS, "KMP variant")
        check_choice(self.loss, LOSSES, "loss")
        y = np.asarray(y, dtype=float)
        k = _check_n_components(self.n_components, X.shape[0])
        squared = self.loss == "squared"
        offset = y.mean() if (self.fit_intercept and squared) else 0.0
        if squared and np.all(y - offset == 0):
            check_nonconstant(y)
        self.path_ = kmp_path(
            self._kernel(X), y - offset, k, variant=self.variant, loss=self.loss,
            fit_intercept=bool(self.fit_intercept and not squared),
        )
        weights = self.path_.extras["coefs"][-1] if self.path_.n_steps else np.zeros(0)
        support, position = np.unique(self.path_.indices, return_inverse=True)
        self.dual_coef_ = np.bincount(position, weights=weights, minlength=support.size)
        self.support_ = support
        self.support_vectors_ = X[support]
        last = self.path_.extras["intercepts"][-1] if self.path_.n_steps else 0.0
        self.intercept_ = float(offset + last)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self._kernel(X, self.support_vectors_) @ self.dual_coef_ + self.intercept_


class MPKFDA(_KernelParams, ClassifierMixin, BaseEstimator):
    """Greedy (matching-pursuit) kernel Fisher discriminant for two classes (seed 002).

    ``fit`` runs :func:`mpcore.mpkfda_path` with the chosen criterion, deflation and
    stages, then a Fisher discriminant (shrinkage LDA) on the Nystroem features of the
    chosen points, thresholded midway between the projected class means.  Any two
    labels are accepted; ``classes_[1]`` is the positive class of
    ``decision_function``.
    """

    def __init__(self, n_components=10, *, criterion="optimal", deflation="projection", stages=1,
                 shrinkage="auto", kernel="rbf", gamma=None, degree=3, coef0=1.0, random_state=0):
        self.n_components = n_components
        self.criterion = criterion
        self.deflation = deflation
        self.stages = stages
        self.shrinkage = shrinkage
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y):
        X, y = validate_data(self, X, y, ensure_min_samples=2)
        check_classification_targets(y)
        n_classes = np.unique(y).size
        if n_classes > 2:
            raise ValueError(
                f"Only binary classification is supported. The target has {n_classes} classes; "
                "pick one class against the rest first."
            )
        check_binary_labels(y)
        check_choice(self.criterion, FISHER_CRITERIA, "criterion")
        check_choice(self.deflation, DEFLATIONS, "deflation")
        k = _check_n_components(self.n_components, X.shape[0])
        K = self._kernel(X)
        self.path_ = mpkfda_path(K, y, k, criterion=self.criterion, deflation=self.deflation,
                                 stages=self.stages, seed=self.random_state)
        self.classes_ = self.path_.extras["classes"]
        self.model_ = fit_fisher(K, self.path_.extras["labels"], self.path_.indices, shrinkage=self.shrinkage)
        self.support_ = self.path_.indices
        self.support_vectors_ = X[self.support_]
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.model_.decision(self._kernel(X, self.support_vectors_))

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class _TwoViewMixin:
    def _check_views(self, X, Y, reset):
        X = validate_data(self, X, reset=reset, ensure_min_samples=2 if reset else 1)
        Y = np.asarray(Y, dtype=float)
        if Y.ndim == 1:
            Y = Y[:, None]
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"The two views must describe the same points: X has {X.shape[0]} rows, Y has {Y.shape[0]}."
            )
        if not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinite values; remove or impute them first.")
        return X, Y

    def _kernel_y(self, Y, Z=None):
        gamma = self.gamma_y if self.gamma_y is not None else self.gamma
        return self._kernel(Y, Z, gamma=gamma)


class SparseKCCA(_TwoViewMixin, _KernelParams, BaseEstimator):
    """Sparse kernel CCA (seed 000 Alg. 3): ``fit(X, Y)``, ``transform(X, Y)``.

    ``n_components`` shared basis points are chosen by :func:`mpcore.skcca_path`; then
    regularised linear CCA (ridge ``reg``) on the Nystroem features of each view gives
    ``n_directions`` canonical directions.  ``transform`` returns both views' canonical
    variates (unit training variance), each (n, n_directions).  ``gamma_y`` is the Y
    view's kernel parameter (defaults to ``gamma``).
    """

    def __init__(self, n_components=10, *, n_directions=1, reg=1e-3, kernel="rbf", gamma=None,
                 gamma_y=None, degree=3, coef0=1.0):
        self.n_components = n_components
        self.n_directions = n_directions
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.gamma_y = gamma_y
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, Y):
        X, Y = self._check_views(X, Y, reset=True)
        k = _check_n_components(self.n_components, X.shape[0])
        Kx, Ky = self._kernel(X), self._kernel_y(Y)
        self.path_ = skcca_path(Kx, Ky, k)
        self.indices_ = self.path_.indices
        self.cca_, self.factor_x_, self.factor_y_ = fit_sparse_cca(
            Kx, Ky, self.indices_, reg=self.reg, n_directions=self.n_directions
        )
        self.basis_x_, self.basis_y_ = X[self.indices_], Y[self.indices_]
        self.correlations_ = self.cca_.correlations
        return self

    def transform(self, X, Y):
        check_is_fitted(self)
        X, Y = self._check_views(X, Y, reset=False)
        Fx = nystrom_features(self._kernel(X, self.basis_x_), self.factor_x_)
        Fy = nystrom_features(self._kernel_y(Y, self.basis_y_), self.factor_y_)
        return self.cca_.transform(Fx, Fy)


class NystromKCCA(_TwoViewMixin, _KernelParams, BaseEstimator):
    """Kernel CCA with Nystroem approximations of both kernels (seed 004).

    ``rank`` landmark columns per view are drawn ``uniform``-ly or by
    ``ridge-leverage`` scores at ``gamma = gamma_ratio * reg`` (eq. 10-12); the
    solution of eq. 15 gives dual coefficients; ``transform`` evaluates
    ``f(x) = k(x)' H alpha`` (eq. 17) for both views, centred on the training data.
    """

    def __init__(self, rank=100, *, sampling="uniform", gamma_ratio=1e-2, reg=1e-3, n_directions=1,
                 kernel="rbf", gamma=None, gamma_y=None, degree=3, coef0=1.0, random_state=0):
        self.rank = rank
        self.sampling = sampling
        self.gamma_ratio = gamma_ratio
        self.reg = reg
        self.n_directions = n_directions
        self.kernel = kernel
        self.gamma = gamma
        self.gamma_y = gamma_y
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state

    def fit(self, X, Y):
        X, Y = self._check_views(X, Y, reset=True)
        check_choice(self.sampling, SAMPLINGS, "sampling")
        N = X.shape[0]
        rank = _check_n_components(self.rank, N + 1, "rank")
        K1, K2 = self._kernel(X), self._kernel_y(Y)
        gamma = self.gamma_ratio * self.reg
        if self.sampling == "ridge-leverage":
            self.leverage_scores_ = (ridge_leverage_scores(K1, gamma), ridge_leverage_scores(K2, gamma))
        else:
            self.leverage_scores_ = (None, None)
        i1, _ = sample_columns(K1, rank, self.sampling, gamma, self.random_state, self.leverage_scores_[0])
        i2, _ = sample_columns(K2, rank, self.sampling, gamma, self.random_state + 1, self.leverage_scores_[1])
        self.result_ = nystrom_kcca(K1, K2, i1, i2, self.reg, self.reg, self.n_directions)
        self.correlations_ = self.result_.correlations
        self.X_fit_, self.Y_fit_ = X, Y
        self._h_alpha = self.result_.alpha - self.result_.alpha.mean(axis=0)
        self._h_beta = self.result_.beta - self.result_.beta.mean(axis=0)
        self._offset = (K1 @ self._h_alpha).mean(axis=0), (K2 @ self._h_beta).mean(axis=0)
        return self

    def transform(self, X, Y):
        check_is_fitted(self)
        X, Y = self._check_views(X, Y, reset=False)
        fx = self._kernel(X, self.X_fit_) @ self._h_alpha - self._offset[0]
        fy = self._kernel_y(Y, self.Y_fit_) @ self._h_beta - self._offset[1]
        return fx, fy
