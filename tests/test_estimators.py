"""scikit-learn estimators: check_estimator and two-view behaviour.

``check_estimator`` runs with ``n_components=5``: several of its checks fit on 10
samples, and asking for 10 basis vectors from 10 points is rejected on purpose
(SPEC section 8: "k >= m" is bad input and gets a ValueError).  No check is skipped.
"""
import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

import mpcore

ONE_VIEW = [
    mpcore.SparseKPCA(n_components=5),
    mpcore.SparseKPCA(n_components=5, candidates=4, kernel="laplacian"),
    mpcore.KernelMatchingPursuit(n_components=5),
    mpcore.KernelMatchingPursuit(n_components=5, variant="basic"),
    mpcore.KernelMatchingPursuit(n_components=5, variant="backfit", kernel="poly", degree=2),
    mpcore.MPKFDA(n_components=5),
    mpcore.MPKFDA(n_components=5, criterion="pseudo", deflation="ortho-schur", stages=2),
]


@pytest.mark.parametrize("estimator", ONE_VIEW, ids=repr)
def test_check_estimator(estimator):
    results = check_estimator(estimator, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert not failed


def test_default_n_components_on_too_few_points_is_a_clear_error():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="not sparse"):
        mpcore.SparseKPCA().fit(X)


def test_sparse_kpca_transform_reproduces_the_projected_kernel(regression_data):
    X, _, K = regression_data
    est = mpcore.SparseKPCA(n_components=8, gamma=1.0).fit(X)
    F = est.transform(X)
    path = mpcore.skpca_path(K, 8)
    np.testing.assert_array_equal(est.indices_, path.indices)
    np.testing.assert_allclose(F @ F.T, K - path.deflated_kernel(8), atol=1e-7)
    np.testing.assert_allclose(est.score_samples(X), np.diag(path.deflated_kernel(8)), atol=1e-7)


def test_kmp_regressor_fits_sinc(regression_data):
    X, y, _ = regression_data
    est = mpcore.KernelMatchingPursuit(n_components=12, gamma=1.0).fit(X, y)
    assert est.score(X, y) > 0.95
    assert est.support_.size == 12
    assert est.intercept_ == pytest.approx(y.mean())


def test_kmp_tanh_classifier_via_sign(xor_data):
    X, y, _ = xor_data
    est = mpcore.KernelMatchingPursuit(n_components=15, variant="backfit", loss="tanh", gamma=1.0).fit(X, y)
    assert np.mean(np.sign(est.predict(X)) == y) > 0.9


def test_mpkfda_classes_and_predictions(xor_data):
    X, y, _ = xor_data
    labels = np.where(y > 0, "yes", "no")
    est = mpcore.MPKFDA(n_components=15, gamma=1.0).fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    assert np.mean(est.predict(X) == labels) > 0.9
    with pytest.raises(ValueError, match="Only binary classification"):
        mpcore.MPKFDA().fit(X, np.arange(120) % 3)
    with pytest.raises(ValueError, match="one class"):
        mpcore.MPKFDA().fit(X, np.ones(120))


def test_sparse_kcca_estimator(two_view_data):
    X, Y, _, _ = two_view_data
    est = mpcore.SparseKCCA(n_components=12, n_directions=2, gamma=2.0).fit(X, Y)
    vx, vy = est.transform(X, Y)
    assert vx.shape == vy.shape == (150, 2)
    assert np.corrcoef(vx[:, 0], vy[:, 0])[0, 1] > 0.9
    with pytest.raises(ValueError, match="same points"):
        est.fit(X, Y[:-1])


@pytest.mark.parametrize("sampling", ["uniform", "ridge-leverage"])
def test_nystrom_kcca_estimator(two_view_data, sampling):
    X, Y, Kx, Ky = two_view_data
    est = mpcore.NystromKCCA(rank=60, sampling=sampling, reg=1e-2, gamma=2.0).fit(X, Y)
    exact = mpcore.kcca(Kx, Ky, 1e-2, 1e-2).correlations[0]
    assert est.correlations_[0] == pytest.approx(exact, abs=0.02)
    fx, fy = est.transform(X, Y)
    assert fx.shape == (150, 1)
    assert abs(np.corrcoef(fx[:, 0], fy[:, 0])[0, 1]) > 0.9
