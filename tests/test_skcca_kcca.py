"""Sparse KCCA (Hussain et al. 2011, Alg. 3), exact KCCA, and Nystroem KCCA (Wang 2016)."""

import numpy as np
import pytest

import mpcore
from mpcore.cca import center_kernel


def brute_force_skcca(Kx, Ky, k):
    Kx, Ky, chosen = Kx.copy(), Ky.copy(), []
    for _ in range(k):
        scores = (Kx * Ky).sum(0) / np.sqrt((Kx**2).sum(0) * (Ky**2).sum(0))
        scores[chosen] = -np.inf
        i = int(np.argmax(scores))
        chosen.append(i)
        for K in (Kx, Ky):
            tau = K[:, i].copy()
            K -= np.outer(tau, tau @ K) / (tau @ tau)
    return np.array(chosen)


def test_skcca_path_equals_explicit_algorithm_3(two_view_data):
    _, _, Kx, Ky = two_view_data
    path = mpcore.skcca_path(Kx, Ky, 10)
    np.testing.assert_array_equal(path.indices, brute_force_skcca(Kx, Ky, 10))
    # both views' deflated kernels are recorded
    tau = Ky[:, path.indices[0]]
    np.testing.assert_allclose(path.deflated_kernel(1, view=1), Ky - np.outer(tau, tau @ Ky) / (tau @ tau), atol=1e-10)


def test_sparse_cca_finds_the_shared_variable(two_view_data):
    X, Y, Kx, Ky = two_view_data
    path = mpcore.skcca_path(Kx, Ky, 12)
    cca, Cx, Cy = mpcore.fit_sparse_cca(Kx, Ky, path.indices, reg=1e-3, n_directions=2)
    assert 0.9 < cca.correlations[0] <= 1.0
    assert cca.correlations[0] >= cca.correlations[1]
    Fx = mpcore.nystrom_features(Kx[:, path.indices], Cx)
    Fy = mpcore.nystrom_features(Ky[:, path.indices], Cy)
    vx, vy = cca.transform(Fx, Fy)
    np.testing.assert_allclose(vx.std(axis=0), 1.0, rtol=1e-6)  # unit training variance
    assert np.corrcoef(vx[:, 0], vy[:, 0])[0, 1] > 0.9
    distances = mpcore.pair_distances(vx, vy)
    assert distances.shape == (150, 2) and distances[:, 0].mean() < 0.5


@pytest.mark.parametrize("reg", [0.01, 1e-5])
def test_exact_kcca_matches_the_definition(two_view_data, reg):
    """Against dense solves of eq. 2-3: T, its low-rank factors, the correlations and the
    dual coefficients (up to each direction's sign), at a small and a tiny lambda."""
    _, _, Kx, Ky = two_view_data
    N = Kx.shape[0]
    Kc1, Kc2 = center_kernel(Kx), center_kernel(Ky)
    T = np.linalg.solve(Kc1 + N * reg * np.eye(N), Kc1) @ Kc2 @ np.linalg.inv(Kc2 + N * reg * np.eye(N))
    result = mpcore.kcca(Kx, Ky, reg, reg, n_directions=3)
    U, s, _ = np.linalg.svd(T)
    np.testing.assert_allclose(result.correlations, s[:3], rtol=1e-8)
    np.testing.assert_allclose(result.T, T, atol=1e-10)
    E1, middle, E2 = result.factors
    np.testing.assert_allclose(E1 @ middle @ E2.T, T, atol=1e-10)
    signs = np.sign(np.sum(U[:, :3] * result.alpha_prime, axis=0))
    np.testing.assert_allclose(result.alpha_prime * signs, U[:, :3], atol=1e-6)
    alpha = np.sqrt(N) * np.linalg.solve(Kc1 + N * reg * np.eye(N), U[:, :3])
    np.testing.assert_allclose(result.alpha * signs, alpha, rtol=1e-6, atol=1e-6 * np.abs(alpha).max())


def test_center_kernel_is_HKH(two_view_data):
    _, _, Kx, _ = two_view_data
    H = np.eye(150) - 1 / 150
    np.testing.assert_allclose(center_kernel(Kx), H @ Kx @ H, atol=1e-12)


@pytest.mark.parametrize("sampling", ["uniform", "ridge-leverage"])
def test_nystrom_correlation_converges_to_exact_as_rank_grows(two_view_data, sampling):
    _, _, Kx, Ky = two_view_data
    reg = 1e-2
    rho = mpcore.kcca(Kx, Ky, reg, reg).correlations[0]
    errors = []
    for M in (5, 20, 60, 149):
        i1, _ = mpcore.sample_columns(Kx, M, sampling, gamma=reg * 1e-2, seed=1)
        i2, _ = mpcore.sample_columns(Ky, M, sampling, gamma=reg * 1e-2, seed=2)
        errors.append(abs(mpcore.nystrom_kcca(Kx, Ky, i1, i2, reg, reg).correlations[0] - rho))
    assert errors[-1] < 1e-6
    assert errors[-1] <= errors[0]


def test_nystrom_with_all_columns_reproduces_exact_kcca_and_T(two_view_data):
    _, _, Kx, Ky = two_view_data
    all_points = np.arange(150)
    exact = mpcore.kcca(Kx, Ky, 0.05, 0.05, n_directions=2)
    approx = mpcore.nystrom_kcca(Kx, Ky, all_points, all_points, 0.05, 0.05, n_directions=2)
    np.testing.assert_allclose(approx.correlations, exact.correlations, rtol=1e-6)
    np.testing.assert_allclose(approx.T_tilde(), exact.T, atol=1e-6)
    # dual coefficients agree up to sign
    sign = np.sign(approx.alpha[:, 0] @ exact.alpha[:, 0])
    np.testing.assert_allclose(sign * approx.alpha[:, 0], exact.alpha[:, 0], rtol=1e-4, atol=1e-6)


def test_incremental_path_equals_refitting_at_each_rank(two_view_data):
    _, _, Kx, Ky = two_view_data
    order1 = np.random.default_rng(0).permutation(150)
    order2 = np.random.default_rng(1).permutation(150)
    ranks = [5, 10, 40, 80]
    path = mpcore.nystrom_kcca_path(Kx, Ky, order1, order2, ranks, 0.01, 0.01)
    for r, rho in zip(ranks, path["correlations"]):
        refit = mpcore.nystrom_kcca(Kx, Ky, order1[:r], order2[:r], 0.01, 0.01).correlations[0]
        assert rho == pytest.approx(refit, abs=1e-6)
    assert np.all(path["seconds_refit"] > 0) and path["speedup"].shape == (4,)


def test_ridge_leverage_scores_definition_and_effective_dimension(two_view_data):
    _, _, Kx, _ = two_view_data
    gamma, N = 1e-3, 150
    scores = mpcore.ridge_leverage_scores(Kx, gamma)
    direct = np.diag(Kx @ np.linalg.inv(Kx + N * gamma * np.eye(N)))
    np.testing.assert_allclose(scores, direct, atol=1e-10)
    assert np.all((scores >= 0) & (scores <= 1))
    approx = mpcore.ridge_leverage_scores(Kx, gamma, method="approximate", n_landmarks=100)
    assert np.corrcoef(approx, scores)[0, 1] > 0.9
    assert np.all(approx >= scores - 1e-8)  # the sketch over-estimates: safe for sampling (beta <= 1)


def test_leverage_sampling_draws_with_replacement_with_lemma_3_weights(two_view_data):
    _, _, Kx, _ = two_view_data
    scores = mpcore.ridge_leverage_scores(Kx, 1e-3)
    idx, weights = mpcore.sample_columns(Kx, 140, "ridge-leverage", scores=scores, seed=0)
    p = scores / scores.sum()
    np.testing.assert_allclose(weights, 1 / np.sqrt(140 * p[idx]))
    assert np.unique(idx).size < 140  # with replacement
    idx_u, w_u = mpcore.sample_columns(Kx, 100, "uniform", seed=0)
    assert np.unique(idx_u).size == 100 and np.all(w_u == 1)


def test_approximation_error_matches_dense_computation(two_view_data):
    _, _, Kx, Ky = two_view_data
    exact = mpcore.kcca(Kx, Ky, 0.01, 0.01)
    approx = mpcore.nystrom_kcca(Kx, Ky, np.arange(0, 150, 5), np.arange(1, 150, 5), 0.01, 0.01)
    errors = mpcore.approximation_error(exact, approx)
    assert errors["T"] == pytest.approx(np.linalg.norm(exact.T - approx.T_tilde(), 2), rel=1e-9)
    close = mpcore.nystrom_kcca(Kx, Ky, np.arange(0, 150, 2), np.arange(1, 150, 2), 0.01, 0.01)  # a tiny error
    dense = np.linalg.norm(exact.T - close.T_tilde(), 2)
    assert mpcore.approximation_error(exact, close)["T"] == pytest.approx(dense, rel=1e-6, abs=1e-13)
    assert errors["rho"] == pytest.approx(abs(exact.correlations[0] - approx.correlations[0]))
    # |rho - rho~| <= ||T - T~|| (Weyl's inequality for singular values)
    assert errors["rho"] <= errors["T"] + 1e-12
    full = mpcore.nystrom_kcca(Kx, Ky, np.arange(150), np.arange(150), 0.01, 0.01)
    assert mpcore.approximation_error(exact, full)["T"] < 1e-6


def _small_views(seed, n=6, duplicate=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if duplicate:
        X[-1] = X[0]  # a duplicated row: its landmark repeats the first
    Y = X @ rng.normal(size=(2, 2)) + 0.3 * rng.normal(size=(n, 2))
    return mpcore.kernel_matrix(X, kernel="rbf", gamma=0.5), mpcore.kernel_matrix(Y, kernel="rbf", gamma=0.5)


@pytest.mark.parametrize("duplicate", [False, True], ids=["distinct", "duplicated-row"])
@pytest.mark.parametrize("seed", range(6))
def test_the_incremental_path_equals_the_direct_formula_with_every_point_a_landmark(seed, duplicate):
    """Wang (2016, Alg. 1) with M = N: centring leaves N - 1 directions, so the last
    landmark's centred column is in the span of the others, yet G still grows; the path
    dropped it (0.6183 where the direct formula and exact KCCA give 0.6325)."""
    K1, K2 = _small_views(seed, duplicate=duplicate)
    order = np.random.default_rng(seed).permutation(K1.shape[0])
    ranks = list(range(1, K1.shape[0] + 1))
    path = mpcore.nystrom_kcca_path(K1, K2, order, order, ranks, 1e-3, 1e-3, compare_refit=False)
    direct = [mpcore.nystrom_kcca(K1, K2, order[:r], order[:r], 1e-3, 1e-3).correlations[0] for r in ranks]
    np.testing.assert_allclose(path["correlations"], direct, rtol=1e-9, atol=1e-12)
    if not duplicate:
        exact = mpcore.kcca(K1, K2, 1e-3, 1e-3).correlations[0]
        assert path["correlations"][-1] == pytest.approx(exact, rel=1e-9)
