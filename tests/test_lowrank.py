"""Direct tests of the low-rank tools (mpcore/lowrank.py) and of the helpers the paths
and labs build on, each against a dense reference computed here: the Nystroem landmark
helpers, KCCA from eigenpairs and from columns, KMP from columns, the tracked Fisher
parts, and the step check."""

import numpy as np
import pytest

import mpcore
from mpcore import criteria, lowrank, nkcca
from mpcore.cca import centred_eigen, kcca_from_eigen
from mpcore.deflations import LowRankDeflation
from mpcore.engine import check_step
from mpcore.kmp import kmp_columns_path


def rbf(n=60, d=2, gamma=0.5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, mpcore.kernel_matrix(X, gamma=gamma)


# --- mpcore.lowrank ----------------------------------------------------------------------


def test_pivoted_cholesky_leaves_a_psd_residual_within_its_tolerance():
    _, K = rbf()
    tolerance = 1e-6 * np.trace(K)
    L = lowrank.pivoted_cholesky(K, tolerance, limit=60)
    residual = K - L @ L.T
    assert L.shape[1] < 60  # a smooth kernel: low rank
    assert np.trace(residual) <= tolerance * (1 + 1e-9)
    assert np.linalg.eigvalsh(residual)[0] >= -1e-10 * np.trace(K)  # PSD
    # Weyl: every eigenvalue of L L' within the tolerance of K's
    assert np.max(np.abs(np.linalg.eigvalsh(L @ L.T) - np.linalg.eigvalsh(K))) <= tolerance


def test_pivoted_cholesky_says_too_many_pivots_and_not_psd():
    _, narrow = rbf(gamma=50.0)  # nearly the identity: full rank
    assert lowrank.pivoted_cholesky(narrow, 1e-8, limit=5) is False
    assert lowrank.pivoted_cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]), 1e-12, limit=2) is None  # a negative pivot
    assert lowrank.pivoted_cholesky(-np.eye(3), 1e-12, limit=3) is None  # a negative diagonal


def test_factor_eigen_is_the_eigen_decomposition_of_l_l_transposed():
    L = np.random.default_rng(1).normal(size=(30, 4))
    values, vectors = lowrank.factor_eigen(L, floor=1e-9)
    reference = np.linalg.eigvalsh(L @ L.T)
    np.testing.assert_allclose(values, reference[-4:], rtol=1e-10)  # the 4 non-zero ones, ascending
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(L @ (L.T @ vectors), vectors * values, atol=1e-9)
    assert lowrank.factor_eigen(L, floor=values[1] * 1.0001)[0].size == 2  # the floor keeps the larger ones


@pytest.mark.parametrize("limit, fallback", [(60, True), (3, True), (3, False)])
def test_low_rank_eigen_is_within_twice_its_tolerance(limit, fallback):
    _, K = rbf(gamma=2.0)
    tolerance = 1e-7 * np.trace(K)
    result = lowrank.low_rank_eigen(K, tolerance, limit, fallback=fallback)
    if not fallback:
        assert result is None  # more pivots than the limit, and no LAPACK wanted
        return
    values, vectors = result
    reference = np.linalg.eigvalsh(K)
    wanted = reference[reference > tolerance]
    # the small eigenvalues near the tolerance may fall either side of it
    assert abs(values.size - wanted.size) <= np.sum(np.abs(reference - tolerance) <= 2 * tolerance)
    top = min(values.size, wanted.size)
    np.testing.assert_allclose(np.sort(values)[-top:], wanted[-top:], atol=2 * tolerance)
    np.testing.assert_allclose(K @ vectors, vectors * values, atol=4 * tolerance)


def test_extend_basis_adds_only_what_is_outside():
    rng = np.random.default_rng(2)
    E = np.linalg.qr(rng.normal(size=(40, 3)))[0]
    W = np.column_stack([E @ rng.normal(size=3), rng.normal(size=40), rng.normal(size=40)])
    X = lowrank.extend_basis(E, W)
    assert X.shape == (40, 2)  # the first column of W lies in span(E)
    np.testing.assert_allclose(X.T @ X, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(E.T @ X, 0, atol=1e-12)
    both = np.hstack([E, X])
    np.testing.assert_allclose(both @ (both.T @ W), W, atol=1e-10)  # span(E, X) holds W
    assert lowrank.extend_basis(E, E @ rng.normal(size=(3, 2))).shape == (40, 0)  # nothing outside: no noise


@pytest.mark.parametrize("rows", [7, 256])
def test_symmetric_products_equal_the_dense_product(rows):
    _, K = rbf(n=50)
    vectors = np.random.default_rng(3).normal(size=(2, 50))
    np.testing.assert_allclose(lowrank.symmetric_products(K, vectors, rows=rows), vectors @ K, rtol=1e-12, atol=1e-12)


# --- the Nystroem landmark helpers --------------------------------------------------------


def test_sketch_landmarks_are_distinct_sorted_and_sized():
    sketch = nkcca.sketch_landmarks(10_000, seed=4)
    assert sketch.size == 400 and np.all(np.diff(sketch) > 0) and 0 <= sketch[0] and sketch[-1] < 10_000
    assert nkcca.sketch_landmarks(100).size == 100  # default min(N, max(200, 4 sqrt N))
    assert nkcca.sketch_landmarks(1000, 30, seed=1).size == 30
    assert not np.array_equal(nkcca.sketch_landmarks(1000, 30, seed=1), nkcca.sketch_landmarks(1000, 30, seed=2))


def test_leverage_from_a_full_sketch_is_the_exact_ridge_leverage():
    """With every column in the sketch, (K_ii - (K (K + N gamma I)^{-1} K)_ii) / (N gamma)
    is the diagonal of K (K + N gamma I)^{-1}: the ridge leverage scores (Wang 2016, eq. 10)."""
    _, K = rbf(n=40)
    gamma, N = 0.01, 40
    exact = np.diag(K @ np.linalg.inv(K + N * gamma * np.eye(N)))
    np.testing.assert_allclose(nkcca.leverage_from_sketch(K, K, np.diag(K), gamma), exact, atol=1e-10)
    blocks = nkcca.leverage_from_sketch(lambda rows: K[rows], K, np.diag(K), gamma, rows=7)  # a block at a time
    np.testing.assert_allclose(blocks, exact, atol=1e-10)
    np.testing.assert_allclose(exact.sum(), nkcca.ridge_leverage_scores(K, gamma, method="exact").sum(), rtol=1e-8)


def test_draw_landmarks_uniform_and_by_leverage():
    indices, weights = nkcca.draw_landmarks(50, 20, seed=0)
    assert len(set(indices.tolist())) == 20 and np.all(weights == 1)
    scores = np.linspace(0.1, 1.0, 10)
    indices, weights = nkcca.draw_landmarks(10, 20_000, sampling="ridge-leverage", scores=scores, seed=0)
    p = scores / scores.sum()
    np.testing.assert_allclose(weights, 1 / np.sqrt(20_000 * p[indices]))  # 1 / sqrt(M p_i)
    frequencies = np.bincount(indices, minlength=10) / 20_000
    assert np.max(np.abs(frequencies - p) / np.sqrt(p * (1 - p) / 20_000)) < 5  # draws follow p (5 sd)


def test_nystrom_kcca_from_columns_equals_nystrom_kcca():
    X, K1 = rbf(n=50)
    K2 = mpcore.kernel_matrix(X**2, gamma=0.5)
    idx = np.array([1, 5, 9, 20, 33, 41])
    dense = mpcore.nystrom_kcca(K1, K2, idx, idx, n_directions=2)
    columns = nkcca.nystrom_kcca_from_columns(
        K1[:, idx], K1[np.ix_(idx, idx)], K2[:, idx], K2[np.ix_(idx, idx)], n_directions=2
    )
    np.testing.assert_allclose(columns.correlations, dense.correlations, rtol=1e-8)


def test_kcca_from_eigen_equals_kcca():
    X, K1 = rbf(n=45)
    K2 = mpcore.kernel_matrix(np.sin(X), gamma=0.5)
    exact = mpcore.kcca(K1, K2, n_directions=3)
    fast = kcca_from_eigen(centred_eigen(K1, 1e-12), centred_eigen(K2, 1e-12), 45, 1e-3, 1e-3, n_directions=3)
    np.testing.assert_allclose(fast.correlations, exact.correlations, rtol=1e-7)
    assert 0 < fast.correlations[0] <= 1


# --- KMP from columns, the tracked Fisher parts, the step check ----------------------------


def test_kmp_from_columns_picks_what_the_in_memory_path_picks():
    X, K = rbf(n=80, gamma=1.0)
    y = np.sin(X[:, 0]) + 0.1 * np.random.default_rng(5).normal(size=80)
    asked = []

    def columns(idx):
        asked.append(len(idx))
        return K[:, idx]

    path = kmp_columns_path(columns, y, 8, candidates=20, seed=3)
    memory = mpcore.kmp_path(K, y, 8, candidates=20, seed=3)
    np.testing.assert_array_equal(path.indices, memory.indices)
    assert max(asked) <= 20 + 8  # never the whole kernel: the candidates (and the chosen) per call


def test_tracked_fisher_parts_equal_those_of_the_formed_deflated_kernel():
    X, K = rbf(n=50)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    D, _, _, track = criteria.fisher_scatter_parts(y)
    state = LowRankDeflation(K, "projection", "deflated", weights=D, track=track)
    for i in (3, 17, 30):
        assert state.deflate(i)
        numerator, denominator = criteria.tracked_fisher_parts(state, y)
        reference = criteria.fisher_parts(state.current(), y)  # from the formed m x m kernel
        np.testing.assert_allclose(numerator, reference[0], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(denominator, reference[1], rtol=1e-8, atol=1e-10)


def test_check_step_takes_exactly_the_steps_of_a_path():
    assert [check_step(j, 3) for j in (0, 3, np.int64(2))] == [0, 3, 2]
    for bad in (-1, 4, 1.0, True, "1", None):
        with pytest.raises(ValueError, match="between 0 and 3"):
            check_step(bad, 3)
