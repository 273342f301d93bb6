"""scikit-learn estimators: scikit-learn's own checks, the two-view check, and what each
estimator promises (kernels, gamma="scale", probabilities, feature names, compact state).

All six pass ``parametrize_with_checks`` with their defaults and no expected failure.
The variants below list each expected failure with its reason.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import get_scorer
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import mpcore
from mpcore.estimators import ESTIMATOR_KERNELS


class SquaredLinear:
    """A kernel given as a callable (module level, so the estimator pickles), with a repr
    that names it: the checks' test ids are made from the estimator's repr, and an address
    in them differs between the test workers, which must collect the same tests."""

    def __call__(self, A, B):
        return (A @ B.T + 1.0) ** 2

    def __repr__(self):
        return "squared_linear"


squared_linear = SquaredLinear()


class SeededRandomState(np.random.RandomState):
    """``RandomState(0)`` with a repr free of its address (see :class:`SquaredLinear`)."""

    def __repr__(self):
        return "RandomState(0)"


PRECOMPUTED_REASONS = {
    "check_estimators_dtypes": "the check casts a kernel to integers and back, which breaks positive "
    "semi-definiteness; the paths refuse such a matrix",
    "check_positive_only_tag_during_fit": "the check passes -X as a 'kernel', which is no kernel; refused",
    "check_methods_sample_order_invariance": "score_samples needs k(x, x), which a kernel between new and "
    "training points does not hold; it says so",
    "check_methods_subset_invariance": "as check_methods_sample_order_invariance",
    "check_decision_proba_consistency": "the check passes raw X to a precomputed-kernel model",
}

ESTIMATORS = [
    mpcore.SparseKPCA(),
    mpcore.KernelMatchingPursuit(),
    mpcore.MPKFDA(),
    mpcore.SparseKCCA(),
    mpcore.NystromKCCA(),
    mpcore.KernelMatchingPursuitClassifier(),
    mpcore.KernelMatchingPursuitClassifier(loss="hinge", variant="basic"),
    mpcore.KernelMatchingPursuitClassifier(loss="logistic", variant="backfit"),
    mpcore.SparseKPCA(n_components=5, candidates=4, kernel="laplacian", random_state=1),
    mpcore.KernelMatchingPursuit(variant="backfit", kernel="poly", degree=2, gamma="scale"),
    mpcore.KernelMatchingPursuit(kernel=squared_linear),
    mpcore.MPKFDA(criterion="pseudo", deflation="ortho-schur", stages=2, kernel="cosine"),
    mpcore.MPKFDA(criterion="random", random_state=SeededRandomState(0)),
    mpcore.NystromKCCA(n_components=8, sampling="ridge-leverage", random_state=None),
    mpcore.NystromKCCA(n_components=6, sampling="ridge-leverage", out_of_sample="nystrom", random_state=2),
    mpcore.SparseKPCA(kernel="precomputed"),
    mpcore.KernelMatchingPursuit(kernel="precomputed"),
    mpcore.MPKFDA(kernel="precomputed"),
]


ONLY = {
    "check_methods_sample_order_invariance": mpcore.SparseKPCA,
    "check_methods_subset_invariance": mpcore.SparseKPCA,
    "check_decision_proba_consistency": mpcore.MPKFDA,
}


def expected_failures(estimator):
    if estimator.kernel != "precomputed":
        return {}
    return {
        check: reason for check, reason in PRECOMPUTED_REASONS.items() if isinstance(estimator, ONLY.get(check, object))
    }


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_scikit_learn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_defaults_have_no_expected_failure():
    for estimator in ESTIMATORS[:5]:
        assert expected_failures(estimator) == {}


# --- the two-view estimators' own check ---------------------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [
        mpcore.SparseKCCA(n_components=12, n_directions=2, gamma=2.0),
        mpcore.NystromKCCA(n_components=40, n_directions=2, gamma=2.0, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_two_view_check(estimator, two_view_data):
    """What scikit-learn's checks cannot see for two views: both views' variates, their
    correlation, fit_transform, the second view's shape, pickling and cloning."""
    X, Y, _, _ = two_view_data
    tags = estimator.__sklearn_tags__()
    assert tags.target_tags.required and tags.target_tags.multi_output and tags.transformer_tags is not None
    fitted = clone(estimator).fit(X, Y)
    u, v = fitted.transform(X, Y)
    assert u.shape == v.shape == (150, 2)
    np.testing.assert_allclose(fitted.transform(X), u)
    np.testing.assert_allclose(clone(estimator).fit_transform(X, Y), u, atol=1e-10)
    assert np.corrcoef(u[:, 0], v[:, 0])[0, 1] > 0.9
    assert list(fitted.get_feature_names_out()) == [
        f"{type(estimator).__name__.lower()}0",
        f"{type(estimator).__name__.lower()}1",
    ]
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_allclose(again.transform(X, Y)[1], v)
    with pytest.raises(ValueError, match="same points"):
        clone(estimator).fit(X, Y[:-1])
    with pytest.raises(ValueError, match="requires y"):
        clone(estimator).fit(X)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(X, Y[:, :1])


# --- kernels and widths --------------------------------------------------------------------------------


def test_every_scikit_learn_kernel_name_is_accepted_or_refused_with_a_sentence(xor_data):
    X, y, _ = xor_data
    X = np.abs(X)  # chi2 kernels need non-negative inputs
    for name in ESTIMATOR_KERNELS:
        if name == "precomputed":
            continue
        try:
            mpcore.SparseKPCA(n_components=5, kernel=name).fit(X)
        except ValueError as error:  # sigmoid / additive_chi2 are not positive semi-definite
            assert "positive semi-definite" in str(error) or "not a kernel" in str(error), (name, error)


def test_precomputed_and_callable_kernels_match_the_named_one(xor_data):
    X, y, K = xor_data
    named = mpcore.MPKFDA(n_components=10, gamma=1.0).fit(X, y)
    pre = mpcore.MPKFDA(n_components=10, kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(named.support_, pre.support_)
    np.testing.assert_allclose(pre.decision_function(K), named.decision_function(X), atol=1e-10)
    linear = mpcore.KernelMatchingPursuit(n_components=6, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    given = mpcore.KernelMatchingPursuit(n_components=6, kernel=squared_linear).fit(X, y)
    np.testing.assert_allclose(given.predict(X), linear.predict(X), atol=1e-8)


def test_gamma_scale_is_svcs(xor_data):
    X, _, _ = xor_data
    est = mpcore.SparseKPCA(n_components=5, gamma="scale").fit(3 * X)
    assert est.gamma_ == pytest.approx(1.0 / (X.shape[1] * (3 * X).var()))
    with pytest.raises(ValueError, match="gamma"):
        mpcore.SparseKPCA(gamma="auto").fit(X)


# --- each estimator's promises ---------------------------------------------------------------------------


def test_asking_for_as_many_basis_points_as_training_points_is_a_sentence():
    """k >= m is bad input.  The default (5) passes scikit-learn's checks,
    whose smallest data sets have 10 points."""
    X = np.random.default_rng(0).normal(size=(10, 2))
    assert mpcore.SparseKPCA().fit(X).n_components_ == 5
    for estimator in (
        mpcore.SparseKPCA(n_components=10),
        mpcore.KernelMatchingPursuit(n_components=12),
        mpcore.MPKFDA(n_components=10),
    ):
        with pytest.raises(ValueError, match="not sparse"):
            estimator.fit(X, np.arange(10) % 2)
    with pytest.raises(
        ValueError, match=r"'n_components' parameter of SparseKPCA must be an int in the range \[1, inf\)"
    ):
        mpcore.SparseKPCA(n_components=0).fit(X)
    assert mpcore.NystromKCCA(n_components=50, gamma=1.0).fit(X, X[:, ::-1]).n_components_ == 10


def test_sparse_kpca_transform_reproduces_the_projected_kernel(regression_data):
    X, _, K = regression_data
    est = mpcore.SparseKPCA(n_components=8, gamma=1.0, store_path=True).fit(X)
    F = est.transform(X)
    path = mpcore.skpca_path(K, 8)
    np.testing.assert_array_equal(est.indices_, path.indices)
    np.testing.assert_allclose(F @ F.T, K - path.deflated_kernel(8), atol=1e-7)
    np.testing.assert_allclose(est.score_samples(X), np.diag(path.deflated_kernel(8)), atol=1e-7)
    assert est.n_iter_ == 8 and est.stop_reason_ is None and est.path_.n_steps == 8


def test_feature_names_and_pandas_output(regression_data):
    pd = pytest.importorskip("pandas")
    X, _, _ = regression_data
    est = mpcore.SparseKPCA(n_components=4, gamma=1.0).set_output(transform="pandas").fit(X)
    out = est.transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == [f"sparsekpca{i}" for i in range(4)]


def test_kmp_regressor_fits_sinc(regression_data):
    X, y, _ = regression_data
    est = mpcore.KernelMatchingPursuit(n_components=12, gamma=1.0).fit(X, y)
    assert est.score(X, y) > 0.95
    assert est.support_.size == 12 and est.n_iter_ == 12
    assert est.intercept_ == pytest.approx(y.mean())


@pytest.mark.parametrize("loss", ["logistic", "tanh", "hinge", "squared"])
def test_kmp_classifier_has_classes_decisions_and_probabilities_that_agree(xor_data, loss):
    """Vincent and Bengio's margin losses (and the squared loss on -1/+1) as a classifier:
    any two labels, the sign of the decision picks the class, probabilities agree with it."""
    X, y, _ = xor_data
    labels = np.where(y > 0, "yes", "no")
    variant = "prefit" if loss == "squared" else "backfit"
    est = mpcore.KernelMatchingPursuitClassifier(n_components=15, variant=variant, loss=loss, gamma=1.0)
    est.fit(X, labels)
    assert list(est.classes_) == ["no", "yes"] and est.score(X, labels) > 0.9
    decision = est.decision_function(X)
    assert np.array_equal(est.predict(X), np.where(decision > 0, "yes", "no"))
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    scores = cross_val_score(
        mpcore.KernelMatchingPursuitClassifier(n_components=15, gamma=1.0),
        X,
        labels,
        cv=3,
        scoring=get_scorer("neg_log_loss"),
    )
    assert np.all(np.isfinite(scores)) and scores.mean() > -np.log(2)


def test_the_kmp_regressor_refuses_a_classification_loss(xor_data):
    X, y, _ = xor_data
    for loss in ("logistic", "tanh", "hinge"):
        with pytest.raises(
            ValueError, match=f"The '{loss}' loss is a classification loss.*KernelMatchingPursuitClassifier"
        ):
            mpcore.KernelMatchingPursuit(loss=loss).fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        mpcore.KernelMatchingPursuitClassifier().fit(X, np.arange(X.shape[0]) % 3)


def test_mpkfda_classes_predictions_and_probabilities(xor_data):
    X, y, _ = xor_data
    labels = np.where(y > 0, "yes", "no")
    est = mpcore.MPKFDA(n_components=15, gamma=1.0).fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    assert np.mean(est.predict(X) == labels) > 0.9
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    # a better-than-chance log loss: the scorer gives a finite number, not NaN
    scores = cross_val_score(
        mpcore.MPKFDA(n_components=15, gamma=1.0), X, labels, cv=3, scoring=get_scorer("neg_log_loss")
    )
    assert np.all(np.isfinite(scores)) and scores.mean() > -np.log(2)
    with pytest.raises(ValueError, match="Only binary classification"):
        mpcore.MPKFDA().fit(X, np.arange(120) % 3)
    with pytest.raises(ValueError, match="one class"):
        mpcore.MPKFDA().fit(X, np.ones(120))


@pytest.mark.parametrize("random_state", [None, 3, np.random.RandomState(3)], ids=["None", "int", "RandomState"])
def test_random_state_takes_what_scikit_learn_takes(two_view_data, random_state):
    X, Y, _, _ = two_view_data
    est = mpcore.NystromKCCA(n_components=30, gamma=2.0, random_state=random_state).fit(X, Y)
    assert est.correlations_[0] > 0.5
    a = mpcore.MPKFDA(n_components=8, criterion="random", random_state=random_state).fit(X, Y[:, 0] > 0.5)
    assert a.n_components_ == 8


def test_fitted_state_is_compact(xor_data):
    """A fitted model keeps what predict needs, not the m x m kernel or the path."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 5))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    for est in (
        mpcore.MPKFDA(n_components=20),
        mpcore.KernelMatchingPursuit(n_components=20),
        mpcore.SparseKPCA(n_components=20),
    ):
        size = len(pickle.dumps(est.fit(X, y)))
        assert size < 40_000, (type(est).__name__, size)  # the kernel alone would be 8 MB
    assert len(pickle.dumps(mpcore.MPKFDA(n_components=20, store_path=True).fit(X, y))) > 100_000


def test_nystrom_kcca_estimator(two_view_data):
    X, Y, Kx, Ky = two_view_data
    for sampling in ("uniform", "ridge-leverage"):
        est = mpcore.NystromKCCA(n_components=60, sampling=sampling, reg=1e-2, gamma=2.0, random_state=0).fit(X, Y)
        exact = mpcore.kcca(Kx, Ky, 1e-2, 1e-2).correlations[0]
        assert est.correlations_[0] == pytest.approx(exact, abs=0.02)
        fx, fy = est.transform(X, Y)
        assert fx.shape == (150, 1)
        assert abs(np.corrcoef(fx[:, 0], fy[:, 0])[0, 1]) > 0.9


def test_two_view_estimators_take_precomputed_kernels(two_view_data):
    X, Y, Kx, Ky = two_view_data
    for named, pre in (
        (mpcore.SparseKCCA(n_components=12, gamma=2.0), mpcore.SparseKCCA(n_components=12, kernel="precomputed")),
        (
            mpcore.NystromKCCA(n_components=40, gamma=2.0, random_state=0),
            mpcore.NystromKCCA(n_components=40, kernel="precomputed", random_state=0),
        ),
    ):
        u, v = named.fit(X, Y).transform(X, Y)
        pu, pv = pre.fit(Kx, Ky).transform(Kx, Ky)
        np.testing.assert_allclose(pu, u, atol=1e-8)
        np.testing.assert_allclose(pv, v, atol=1e-8)


def test_nystrom_kcca_from_columns_never_forms_a_training_kernel(two_view_data, monkeypatch):
    """out_of_sample="nystrom": fitting computes only landmark (and sketch) columns, the
    same landmarks give the same correlations as the in-memory fit, and with every point
    a landmark (L = K) the map equals eq. 17's."""
    from mpcore import estimators

    X, Y, _, _ = two_view_data
    N = X.shape[0]
    widest = []
    real = estimators.NystromKCCA._pairwise
    monkeypatch.setattr(
        estimators.NystromKCCA,
        "_pairwise",
        lambda self, A, B, gamma: widest.append(min(A.shape[0], B.shape[0])) or real(self, A, B, gamma),
    )
    rng = np.random.default_rng(0)
    angle = rng.uniform(0, 2 * np.pi, 600)
    big = (
        np.column_stack([np.cos(angle), np.sin(angle)]) + 0.05 * rng.normal(size=(600, 2)),
        np.column_stack([angle, angle**2]) + 0.05 * rng.normal(size=(600, 2)),
    )
    for sampling, (A, B) in (("uniform", (X, Y)), ("ridge-leverage", big)):
        widest.clear()
        est = mpcore.NystromKCCA(
            n_components=30, sampling=sampling, gamma=2.0, reg=1e-2, out_of_sample="nystrom", random_state=5
        ).fit(A, B)
        # no N x N block: the landmarks' columns, and for leverage scores a 200-point sketch's
        assert max(widest) <= (30 if sampling == "uniform" else 200) < A.shape[0]
        fx, fy = est.transform(A, B)
        assert abs(np.corrcoef(fx[:, 0], fy[:, 0])[0, 1]) > 0.9
    monkeypatch.undo()
    kernel_map = mpcore.NystromKCCA(n_components=30, gamma=2.0, reg=1e-2, random_state=5).fit(X, Y)
    columns_map = mpcore.NystromKCCA(n_components=30, gamma=2.0, reg=1e-2, random_state=5, out_of_sample="nystrom").fit(
        X, Y
    )
    np.testing.assert_array_equal(columns_map.landmarks_x_, kernel_map.landmarks_x_)
    np.testing.assert_allclose(columns_map.correlations_, kernel_map.correlations_, rtol=1e-10)
    every = dict(n_components=N, gamma=2.0, reg=1e-2, random_state=0)
    exact = mpcore.NystromKCCA(**every).fit(X, Y).transform(X[:20])
    nystrom = mpcore.NystromKCCA(**every, out_of_sample="nystrom").fit(X, Y).transform(X[:20])
    np.testing.assert_allclose(nystrom * np.sign(nystrom[0] * exact[0]), exact, rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match="out_of_sample"):
        mpcore.NystromKCCA(out_of_sample="both").fit(X, Y)


def test_sparse_kpca_with_candidates_never_needs_the_kernel_matrix(xor_data, monkeypatch):
    """With the "59 trick" the estimator computes only its candidates' kernel columns, and
    picks what the in-memory path picks with the same seed."""
    from mpcore import estimators, skpca

    X, _, K = xor_data
    est = mpcore.SparseKPCA(n_components=15, candidates=7, gamma=1.0, random_state=3).fit(X)
    seed = estimators._seed(3)
    np.testing.assert_array_equal(est.support_, mpcore.skpca_path(K, 15, candidates=7, seed=seed).indices)
    widest = []
    real = estimators.SparseKPCA._pairwise
    monkeypatch.setattr(
        estimators.SparseKPCA,
        "_pairwise",
        lambda self, A, B, gamma: widest.append(min(A.shape[0], B.shape[0])) or real(self, A, B, gamma),
    )
    again = mpcore.SparseKPCA(n_components=15, candidates=7, gamma=1.0, random_state=3).fit(X)
    np.testing.assert_array_equal(again.support_, est.support_)
    assert max(widest) <= 15  # no m x m block: at most the candidates' or the chosen points' columns
    np.testing.assert_allclose(again.transform(X), est.transform(X))
    with pytest.raises(ValueError, match="candidates"):
        skpca.skpca_columns_path(lambda idx: K[:, idx], np.diag(K), 5, 0)


def test_kmp_with_candidates_from_x_matches_the_in_memory_path(xor_data):
    """Same picks and weights as kmp_path with the same draws.  (On a numerically low-rank
    kernel a late near-tie can go either way: the in-memory path scores with downdated
    norms, this one with exactly deflated columns.)"""
    from mpcore import estimators

    X, _, K = xor_data
    y = np.sin(X[:, 0]) * X[:, 1]
    est = mpcore.KernelMatchingPursuit(n_components=15, candidates=9, gamma=1.0, random_state=4).fit(X, y)
    path = mpcore.kmp_path(K, y - y.mean(), 15, candidates=9, seed=estimators._seed(4))
    np.testing.assert_array_equal(np.sort(path.indices), est.support_)
    order = np.argsort(path.indices)
    np.testing.assert_allclose(est.dual_coef_, path.extras["coefs"][-1][order], atol=1e-8)
    np.testing.assert_allclose(est.predict(X), K[:, path.indices] @ path.extras["coefs"][-1] + y.mean(), atol=1e-8)
    basic = mpcore.KernelMatchingPursuit(n_components=10, variant="basic", candidates=9, gamma=1.0).fit(X, y)
    assert basic.n_iter_ == 10  # other variants take candidates on the in-memory path


@pytest.mark.parametrize(
    "make", [lambda: mpcore.SparseKCCA(n_components=10), lambda: mpcore.NystromKCCA(n_components=10, random_state=0)]
)
def test_two_view_score_is_the_held_out_canonical_correlation_and_drives_a_grid_search(make):
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    t = rng.uniform(-1, 1, size=(300, 1))
    X = np.hstack([t, rng.normal(size=(300, 1))])
    Y = np.hstack([t**2 + 0.05 * rng.normal(size=(300, 1)), rng.normal(size=(300, 1))])
    model = make().fit(X[:200], Y[:200])
    u, v = model.transform(X[200:], Y[200:])
    by_hand = np.mean([np.corrcoef(u[:, j], v[:, j])[0, 1] for j in range(u.shape[1])])
    assert model.score(X[200:], Y[200:]) == pytest.approx(by_hand)
    shuffled = model.score(X[200:], Y[200:][rng.permutation(100)])  # views no longer paired
    assert model.score(X[200:], Y[200:]) > 0.8 and abs(shuffled) < 0.3
    search = GridSearchCV(make(), {"n_components": [2, 10]}, cv=3).fit(X, Y)  # one name for the sparsity
    assert search.best_params_["n_components"] in (2, 10) and np.isfinite(search.best_score_)


@pytest.mark.parametrize(
    "estimator, bad",
    [
        (mpcore.SparseKPCA(), {"candidates": 0}),
        (mpcore.SparseKPCA(), {"kernel": "gaussian"}),
        (mpcore.KernelMatchingPursuit(), {"variant": "greedy"}),
        (mpcore.KernelMatchingPursuit(), {"gamma": -1.0}),
        (mpcore.KernelMatchingPursuitClassifier(), {"loss": "exponential"}),
        (mpcore.MPKFDA(), {"stages": 0}),
        (mpcore.MPKFDA(), {"shrinkage": 1.5}),
        (mpcore.MPKFDA(), {"deflation": "gram-schmidt"}),
        (mpcore.SparseKCCA(), {"n_directions": 0}),
        (mpcore.SparseKCCA(), {"reg": -1e-3}),
        (mpcore.NystromKCCA(), {"sampling": "leverage"}),
        (mpcore.NystromKCCA(), {"n_components": 2.5}),
        (mpcore.NystromKCCA(), {"gamma_ratio": 0.0}),
        (mpcore.NystromKCCA(), {"out_of_sample": "both"}),
    ],
)
def test_parameters_are_checked_by_scikit_learn_before_fitting(estimator, bad):
    """``_parameter_constraints``: a parameter out of its kind or range is refused by
    scikit-learn's own validation (InvalidParameterError, a ValueError) naming the parameter
    and the estimator, as scikit-learn's estimators do, before any kernel is computed."""
    from sklearn.utils._param_validation import InvalidParameterError

    X = np.random.default_rng(0).normal(size=(30, 3))
    name = next(iter(bad))
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {type(estimator).__name__} must be"):
        estimator.set_params(**bad).fit(X, np.arange(30) % 2 if not hasattr(estimator, "n_directions") else X)


@pytest.mark.parametrize(
    "estimator",
    [
        mpcore.SparseKPCA(n_components=4, gamma=0.5),
        mpcore.SparseKCCA(n_components=4, gamma=0.5),
        mpcore.NystromKCCA(n_components=6, gamma=0.5, random_state=0),
    ],
)
def test_transformers_keep_float32_and_agree_with_float64(estimator):
    """float32 in, float32 out (as scikit-learn's Nystroem and PCA keep it), with the same
    numbers as float64 input to float32's precision: the arithmetic stays in float64."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(40, 3)), rng.normal(size=(40, 2))
    two_view = hasattr(estimator, "n_directions")
    single = estimator.fit(X.astype(np.float32), Y if two_view else None).transform(X.astype(np.float32))
    double = estimator.fit(X, Y if two_view else None).transform(X)
    assert single.dtype == np.float32 and double.dtype == np.float64
    np.testing.assert_allclose(single, double, rtol=1e-4, atol=1e-4)
    assert estimator.fit(X.astype(int), Y if two_view else None).transform(X.astype(int)).dtype == np.float64


@pytest.mark.parametrize("make", [mpcore.KernelMatchingPursuitClassifier, mpcore.MPKFDA])
def test_three_classes_are_refused_with_the_wrapper_that_fits_them(make, xor_data):
    """The binary classifiers refuse three classes with a sentence naming scikit-learn's
    OneVsRestClassifier, and that wrapper, as named, fits them: three classes predicted
    better than chance (a third) on blobs that separate."""
    from sklearn.datasets import make_blobs
    from sklearn.multiclass import OneVsRestClassifier

    X, y = make_blobs(150, centers=3, cluster_std=0.6, random_state=0)
    with pytest.raises(ValueError, match=r"3 classes: wrap the estimator in sklearn\.multiclass\.OneVsRestClassifier"):
        make(n_components=10).fit(X, y)
    wrapped = OneVsRestClassifier(make(n_components=10, gamma=0.5)).fit(X, y)
    assert list(wrapped.classes_) == [0, 1, 2]
    assert wrapped.score(X, y) > 0.9


def test_sparse_kpca_names_its_chosen_rows_as_the_other_estimators_do(xor_data):
    """The chosen training rows are ``support_vectors_`` everywhere they are kept;
    SparseKPCA's old ``components_`` (scikit-learn's PCA calls axes so) still answers for one
    release, with a FutureWarning naming the new name."""
    X, y, _ = xor_data
    kpca = mpcore.SparseKPCA(n_components=6, gamma=1.0).fit(X)
    for fitted in (
        kpca,
        mpcore.KernelMatchingPursuit(n_components=6, gamma=1.0).fit(X, y),
        mpcore.MPKFDA(n_components=6, gamma=1.0).fit(X, y > 0),
    ):
        np.testing.assert_array_equal(fitted.support_vectors_, X[fitted.support_])
    with pytest.warns(FutureWarning, match="renamed `support_vectors_`"):
        old = kpca.components_
    np.testing.assert_array_equal(old, kpca.support_vectors_)
