"""Bad input (bad input gets a sentence, never a traceback): a ValueError with a sentence a student can act on, never a crash."""

import numpy as np
import pytest

import mpcore


@pytest.fixture
def K():
    return mpcore.kernel_matrix(np.random.default_rng(0).normal(size=(20, 2)), gamma=1.0)


def test_nan_and_inf_cells(K):
    bad = K.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        mpcore.skpca_path(bad, 3)
    X = np.ones((5, 2))
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        mpcore.kernel_matrix(X)
    with pytest.raises(ValueError, match="numbers only"):
        mpcore.kernel_matrix([["a", "b"], ["c", "d"]])


@pytest.mark.parametrize(
    "k,message", [(0, "at least 1"), (-2, "at least 1"), (20, "not sparse"), (25, "not sparse"), (2.5, "whole number")]
)
def test_bad_number_of_steps(K, k, message):
    for call in (
        lambda: mpcore.skpca_path(K, k),
        lambda: mpcore.kmp_path(K, np.arange(20.0), k),
        lambda: mpcore.skcca_path(K, K, k),
        lambda: mpcore.mpkfda_path(K, np.arange(20) % 2, k),
    ):
        with pytest.raises(ValueError, match=message):
            call()


def test_kernel_width_must_be_positive():
    X = np.zeros((4, 2))
    for gamma in (0, -1.0):
        with pytest.raises(ValueError, match="must be positive"):
            mpcore.kernel_matrix(X, gamma=gamma)
    with pytest.raises(ValueError, match="must be positive"):
        mpcore.gamma_from_width(0)
    assert mpcore.gamma_from_width(2.0) == pytest.approx(1 / 8)


def test_empty_and_one_row_inputs():
    with pytest.raises(ValueError, match="at least 2"):
        mpcore.skpca_path(np.ones((1, 1)), 1)
    with pytest.raises(ValueError, match="at least 1 are needed"):
        mpcore.kernel_matrix(np.zeros((0, 3)))


def test_constant_target(K):
    with pytest.raises(ValueError, match="all zeros"):
        mpcore.kmp_path(K, np.zeros(20), 3)
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="constant"):
        mpcore.KernelMatchingPursuit(n_components=3).fit(X, np.full(20, 4.0))


def test_labels_for_fisher(K):
    with pytest.raises(ValueError, match="Only one class"):
        mpcore.mpkfda_path(K, np.ones(20), 3)
    with pytest.raises(ValueError, match="exactly two classes"):
        mpcore.mpkfda_path(K, np.arange(20) % 3, 3)
    with pytest.raises(ValueError, match="must match"):
        mpcore.mpkfda_path(K, np.arange(19) % 2, 3)


def test_views_with_different_row_counts(K):
    with pytest.raises(ValueError, match="same points"):
        mpcore.skcca_path(K, K[:10, :10], 3)
    with pytest.raises(ValueError, match="same points"):
        mpcore.nystrom_kcca(K, K[:10, :10], [0], [0])


def test_unknown_names(K):
    with pytest.raises(ValueError, match="Unknown kernel"):
        mpcore.kernel_matrix(np.zeros((3, 2)), kernel="sigmoid")
    with pytest.raises(ValueError, match="Unknown KMP variant"):
        mpcore.kmp_path(K, np.arange(20.0), 3, variant="fancy")
    with pytest.raises(ValueError, match="Unknown deflation"):
        mpcore.mpkfda_path(K, np.arange(20) % 2, 3, deflation="gram")
    with pytest.raises(ValueError, match="Unknown criterion"):
        mpcore.mpkfda_path(K, np.arange(20) % 2, 3, criterion="best")
    with pytest.raises(ValueError, match="takes no parameter"):
        mpcore.kernel_matrix(np.zeros((3, 2)), kernel="linear", gamma=1.0)


def test_non_symmetric_kernel_for_skpca(K):
    bad = K.copy()
    bad[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        mpcore.skpca_path(bad, 3)


def test_deflated_kernel_step_out_of_range(K):
    path = mpcore.skpca_path(K, 3)
    with pytest.raises(ValueError, match="between 0 and 3"):
        path.deflated_kernel(4)


def test_duplicate_points_never_crash_any_path():
    X = np.repeat(np.random.default_rng(1).normal(size=(5, 2)), 4, axis=0)
    K = mpcore.kernel_matrix(X, gamma=1.0)
    y = np.where(np.arange(20) % 4 < 2, 1.0, -1.0)
    assert mpcore.skpca_path(K, 10).stop_reason.startswith("kernel exhausted")
    assert mpcore.kmp_path(K, X[:, 0], 10).n_steps <= 5
    assert mpcore.skcca_path(K, K, 10).stop_reason.startswith("kernel exhausted")
    for deflation in mpcore.DEFLATIONS:
        path = mpcore.mpkfda_path(K, y, 10, deflation=deflation)
        model = mpcore.fit_fisher(K, y, path.indices)  # singular K[i, i] blocks are jittered, not fatal
        assert np.all(np.isfinite(model.w))
