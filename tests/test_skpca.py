"""Sparse KPCA: Alg. 2 = Alg. 6 (Thm 5), residuals = Nystroem residuals (eq. 7), path contract."""

import numpy as np
import pytest
from conftest import rbf_kernel
from hypothesis import given, settings
from hypothesis import strategies as st

import mpcore


@pytest.mark.parametrize("seed,gamma,kernel", [(0, 0.5, "rbf"), (1, 2.0, "rbf"), (2, 0.3, "laplacian")])
def test_alg2_and_alg6_choose_the_same_indices(seed, gamma, kernel):
    X = np.random.default_rng(seed).normal(size=(70, 4))
    K = mpcore.kernel_matrix(X, kernel=kernel, gamma=gamma)
    path = mpcore.skpca_path(K, 25)
    indices6, approx6 = mpcore.smola_scholkopf_path(K, 25)
    np.testing.assert_array_equal(path.indices, indices6)
    # ... and the same low-rank approximation K0 - K_k (Thm 5 / eq. 8)
    np.testing.assert_allclose(K - path.deflated_kernel(25), approx6, atol=1e-8)


def test_first_pick_is_the_hand_computed_argmax():
    K = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
    # scores ||K[:, i]||^2 / K[i, i] = (5/2, 6/2, 5/2): the middle point wins
    path = mpcore.skpca_path(K, 2)
    np.testing.assert_allclose(path.scores[0], [2.5, 3.0, 2.5])
    assert path.indices[0] == 1
    # after deflating by point 1: K - K[:,1]K[1,:]/2 = [[1.5, 0, -.5], [0, 0, 0], [-.5, 0, 1.5]]
    np.testing.assert_allclose(path.deflated_kernel(1), [[1.5, 0, -0.5], [0, 0, 0], [-0.5, 0, 1.5]], atol=1e-12)
    np.testing.assert_allclose(path.scores[1], [2.5 / 1.5, np.nan, 2.5 / 1.5])
    assert path.indices[1] == 0  # tie -> lowest index


def test_diagonal_of_deflated_kernel_is_the_nystrom_residual(small_kernel):
    X, K = small_kernel
    path = mpcore.skpca_path(K, 12)
    for j in (1, 5, 12):
        idx = path.indices[:j]
        C = mpcore.nystrom_factor(K[np.ix_(idx, idx)])
        F = mpcore.nystrom_features(K[:, idx], C)
        residual = mpcore.projection_residuals(np.diag(K), F)
        np.testing.assert_allclose(np.diag(path.deflated_kernel(j)), residual, atol=1e-8)
        np.testing.assert_allclose(path.extras["residuals"][j], residual, atol=1e-8)


def test_deflated_kernel_matches_explicit_deflation(small_kernel):
    _, K = small_kernel
    path = mpcore.skpca_path(K, 8)
    current = K.copy()
    for j, i in enumerate(path.indices, start=1):
        tau = current[:, i].copy()
        current = current - np.outer(tau, tau) / tau[i]
        np.testing.assert_allclose(path.deflated_kernel(j), current, atol=1e-10)
        assert np.allclose(current[:, i], 0, atol=1e-10)  # the chosen point is fully explained


def test_scores_match_the_criterion_on_the_explicit_kernel(small_kernel):
    _, K = small_kernel
    path = mpcore.skpca_path(K, 6)
    for j in range(path.n_steps):
        Kj = path.deflated_kernel(j)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = (Kj**2).sum(0) / np.diag(Kj)
        expected[path.indices[:j]] = np.nan
        np.testing.assert_allclose(path.scores[j], expected, rtol=1e-9, atol=1e-12)
        assert path.indices[j] == np.nanargmax(path.scores[j])


def test_same_inputs_same_path(small_kernel):
    _, K = small_kernel
    a, b = mpcore.skpca_path(K, 10, candidates=7, seed=3), mpcore.skpca_path(K, 10, candidates=7, seed=3)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.scores, b.scores)
    c = mpcore.skpca_path(K, 10, candidates=7, seed=4)
    assert not np.array_equal(a.indices, c.indices)


def test_candidate_subsampling_scores_only_that_many(small_kernel):
    _, K = small_kernel
    path = mpcore.skpca_path(K, 5, candidates=9, seed=0)
    assert np.all(np.isfinite(path.scores).sum(axis=1) == 9)
    for row, i in zip(path.scores, path.indices):
        assert i == np.nanargmax(row)


def test_duplicate_points_are_never_chosen_twice_and_the_path_stops_with_a_reason():
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 4, axis=0)  # 3 distinct points, 12 rows
    K = mpcore.kernel_matrix(X, gamma=1.0)
    path = mpcore.skpca_path(K, 6)
    assert path.n_steps == 3
    assert len({tuple(X[i]) for i in path.indices}) == 3
    assert "kernel exhausted" in path.stop_reason and "3 steps" in path.stop_reason


def test_linear_kernel_of_rank_r_is_exhausted_after_r_steps():
    X = np.random.default_rng(0).normal(size=(40, 3))
    path = mpcore.skpca_path(mpcore.kernel_matrix(X, kernel="linear"), 10)
    assert path.n_steps == 3 and path.stop_reason is not None
    assert np.abs(path.deflated_kernel(3)).max() < 1e-8


@settings(max_examples=25, deadline=None)
@given(n=st.integers(5, 40), d=st.integers(1, 5), gamma=st.floats(0.05, 5.0), seed=st.integers(0, 10_000))
def test_residual_trace_never_increases_and_stays_nonnegative(n, d, gamma, seed):
    _, K = rbf_kernel(n, d, gamma, seed)
    path = mpcore.skpca_path(K, n - 1)
    traces = path.extras["residuals"].sum(axis=1)
    assert np.all(np.diff(traces) <= 1e-9)
    assert np.all(path.extras["residuals"] >= 0)
    assert len(set(path.indices)) == path.n_steps
    # Schur complements stay PSD, up to round-off that grows like 1 / (smallest pivot):
    # the criterion, unlike pivoted Cholesky's largest-diagonal rule, may pick tiny pivots.
    pivots = path.extras["residuals"][np.arange(path.n_steps), path.indices]
    Kj = path.deflated_kernel(path.n_steps)
    tolerance = 1e-14 * np.trace(K) / pivots.min()
    assert np.linalg.eigvalsh((Kj + Kj.T) / 2).min() > -max(tolerance, 1e-12)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(8, 30), seed=st.integers(0, 10_000))
def test_alg6_equivalence_on_random_kernels(n, seed):
    _, K = rbf_kernel(n, 2, 1.0, seed)
    k = n // 2
    path = mpcore.skpca_path(K, k)
    indices6, _ = mpcore.smola_scholkopf_path(K, k)
    np.testing.assert_array_equal(path.indices, indices6[: path.n_steps])
