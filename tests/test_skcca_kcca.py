"""Sparse KCCA (Hussain et al. 2011, Alg. 3), exact KCCA, and Nystroem KCCA (Wang 2016)."""

import numpy as np
import pytest

import mpcore
from mpcore import nkcca
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


def _held_out_problem(seed):
    """Two views on N = 30-120 points with an RBF, Laplacian or polynomial kernel, some of
    them close to singular at full rank, and lambda 1e-3 or 1e-1."""
    rng = np.random.default_rng(seed)
    N, d, kernel = int(rng.integers(30, 121)), int(rng.integers(1, 4)), ["rbf", "laplacian", "poly"][seed % 3]
    X = rng.normal(size=(N, d))
    Y = np.tanh(X @ rng.normal(size=(d, 2))) + 0.3 * rng.normal(size=(N, 2))
    params = {"gamma": float(rng.choice([0.1, 0.5, 2.0, 10.0]))}
    if kernel == "poly":
        params = {"gamma": 0.5, "degree": int(rng.integers(2, 4)), "coef0": 1.0}
    K1, K2 = (mpcore.kernel_matrix(V, kernel=kernel, **params) for V in (X, Y))
    ranks = sorted({1, 2, 5, 10, 15, 20, N // 2, N - 1, N})
    return K1, K2, rng.permutation(N), rng.permutation(N), ranks, [1e-3, 1e-1][seed % 2]


def _refits(K1, K2, order1, order2, ranks, reg):
    return np.array([mpcore.nystrom_kcca(K1, K2, order1[:r], order2[:r], reg, reg).correlations[0] for r in ranks])


@pytest.mark.parametrize("seed", range(40))
def test_the_incremental_path_equals_the_refit_on_held_out_problems(seed):
    """Wang (2016, Alg. 1) against refitting eq. 15 at every rank, up to full rank.  Where
    W is singular to round-off the value itself is not fixed by the kernel's last digit, so
    the tolerance adds ten times how far a relative 1e-15 change of both kernels moves the
    refit; elsewhere it is 1e-9.  (Dropping a landmark whose Schur pivot in G was under 1e-8
    of its column, real ones included, missed by up to 0.03.)"""
    K1, K2, order1, order2, ranks, reg = _held_out_problem(seed)
    path = mpcore.nystrom_kcca_path(K1, K2, order1, order2, ranks, reg, reg, compare_refit=False)["correlations"]
    refit = _refits(K1, K2, order1, order2, ranks, reg)
    rng, spread = np.random.default_rng(seed), np.zeros(len(ranks))
    for _ in range(2):
        E1, E2 = rng.normal(size=K1.shape), rng.normal(size=K1.shape)
        moved = _refits(K1 * (1 + 1e-15 * (E1 + E1.T)), K2 * (1 + 1e-15 * (E2 + E2.T)), order1, order2, ranks, reg)
        spread = np.maximum(spread, np.abs(moved - refit))
    assert np.all(np.abs(path - refit) <= 1e-9 + 10 * spread), (ranks, path - refit, spread)


def test_a_landmark_close_to_another_is_a_real_one_and_is_kept():
    """Two landmarks 4e-5 apart under an RBF kernel: the second's Schur pivot in W is about
    3e-9, far above round-off, and its new direction is the kernel's derivative there, of
    unit size.  Both the path and the refit keep it; leaving it out changes the answer."""
    rng = np.random.default_rng(3)
    X = np.sort(rng.uniform(-2, 2, size=(40, 1)), axis=0)
    X[1] = X[0] + 4e-5
    Y = np.sin(2 * X) + 0.1 * rng.normal(size=X.shape)
    K1, K2 = mpcore.kernel_matrix(X, gamma=1.0), mpcore.kernel_matrix(Y, gamma=1.0)
    order = np.r_[0, 1, rng.permutation(np.arange(2, 40))]
    W = K1[np.ix_([0, 1], [0, 1])]
    assert 1e-9 < np.linalg.det(W) / W[0, 0] < 1e-8
    ranks = [2, 3, 6]
    path = mpcore.nystrom_kcca_path(K1, K2, order, order, ranks, 1e-3, 1e-3, compare_refit=False)["correlations"]
    refit = _refits(K1, K2, order, order, ranks, 1e-3)
    np.testing.assert_allclose(path, refit, rtol=0, atol=1e-9)
    without = [mpcore.nystrom_kcca(K1, K2, np.r_[0, order[2:r]], order[:r], 1e-3, 1e-3).correlations[0] for r in ranks]
    assert np.all(np.abs(refit - without) > 1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_the_path_agrees_with_eq_15_at_fifty_digits(seed):
    """At ranks where W is well conditioned the path gives eq. 15's value, computed with
    G inverted at 50 digits, to 1e-10."""
    mp = pytest.importorskip("mpmath")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2))
    Y = X**2 + 0.2 * rng.normal(size=X.shape)
    K1, K2 = mpcore.kernel_matrix(X, gamma=0.5), mpcore.kernel_matrix(Y, gamma=0.5)
    order1, order2, ranks, reg = rng.permutation(30), rng.permutation(30), [3, 6], 1e-2
    path = mpcore.nystrom_kcca_path(K1, K2, order1, order2, ranks, reg, reg, compare_refit=False)["correlations"]
    with mp.workdps(50):
        for r, value in zip(ranks, path):

            def view(K, S):
                C = mp.matrix(K[:, S].tolist())
                A = C - mp.ones(30, 1) * (mp.ones(1, 30) * C) / 30
                return A, 30 * reg * mp.matrix(K[np.ix_(S, S)].tolist()) + A.T * A

            (A1, G1), (A2, G2) = view(K1, order1[:r]), view(K2, order2[:r])
            Y12 = mp.inverse(G1) * (A1.T * A2) * mp.inverse(G2)
            small = Y12.T * (A1.T * A1) * Y12 * (A2.T * A2)  # T~'T~ on the landmarks' span
            reference = float(mp.sqrt(max(mp.re(e) for e in mp.eig(small, left=False, right=False))))
            assert value == pytest.approx(reference, abs=1e-10)


# --- the column tools' edges and sentences (written from a mutation run's survivors) -------------------------


def test_nystrom_kcca_from_columns_equals_the_landmark_form_and_records_its_indices(two_view_data):
    _, _, Kx, Ky = two_view_data
    i1, i2 = np.array([3, 9, 40, 77, 120]), np.array([5, 6, 60, 99])
    direct = mpcore.nystrom_kcca(Kx, Ky, i1, i2, 1e-2, 1e-3)
    columns = nkcca.nystrom_kcca_from_columns(
        Kx[:, i1], Kx[np.ix_(i1, i1)], Ky[:, i2], Ky[np.ix_(i2, i2)], 1e-2, 1e-3, indices1=i1, indices2=i2
    )
    np.testing.assert_allclose(columns.correlations, direct.correlations, rtol=1e-9)
    assert columns.correlations.size == 1  # one direction unless asked
    assert columns.indices1.tolist() == i1.tolist() and columns.indices2.tolist() == i2.tolist()
    assert columns.indices1.dtype.kind == "i"
    default = nkcca.nystrom_kcca_from_columns(Kx[:, i1], Kx[np.ix_(i1, i1)], Ky[:, i2], Ky[np.ix_(i2, i2)])
    assert default.indices1.tolist() == [0, 1, 2, 3, 4] and default.indices2.tolist() == [0, 1, 2, 3]
    floats = nkcca.nystrom_kcca_from_columns(
        Kx[:, i1], Kx[np.ix_(i1, i1)], Ky[:, i2], Ky[np.ix_(i2, i2)], indices1=i1 * 1.0, indices2=i2 * 1.0
    )
    assert floats.indices1.dtype.kind == "i" and floats.indices2.dtype.kind == "i"
    one = nkcca.nystrom_kcca_from_columns(Kx[:, [7]], Kx[[7]][:, [7]], Ky[:, [8]], Ky[[8]][:, [8]])  # one landmark
    assert one.correlations.size == 1 and 0 <= one.correlations[0] <= 1


@pytest.mark.parametrize(
    "change, message",
    [
        ({"C1": np.full((150, 5), np.nan)}, r"^C1 "),
        ({"C2": np.full((150, 4), np.inf)}, r"^C2 "),
        ({"C1": np.ones((1, 5)), "C2": np.ones((1, 4))}, r"^C1 has 1 row\(s\); at least 2"),
        ({"W1": np.ones((5, 4))}, r"^W1 "),
        ({"W2": np.ones((4, 3))}, r"^W2 "),
        ({"W1": np.ones((0, 0))}, r"^W1 "),
        ({"C2": np.ones((149, 4))}, r"^The columns must share their rows"),
        ({"W1": np.eye(6)}, r"^The columns must share their rows and match their landmark blocks"),
        ({"W2": np.eye(5)}, r"^The columns must share their rows and match their landmark blocks"),
        ({"reg1": 0.0}, r"^The regularisation lambda1 "),
        ({"reg2": -1.0}, r"^The regularisation lambda2 "),
    ],
)
def test_nystrom_kcca_from_columns_refuses_with_a_sentence_naming_the_argument(two_view_data, change, message):
    _, _, Kx, Ky = two_view_data
    i1, i2 = np.arange(5), np.arange(4)
    args = {"C1": Kx[:, i1], "W1": Kx[np.ix_(i1, i1)], "C2": Ky[:, i2], "W2": Ky[np.ix_(i2, i2)]} | change
    with pytest.raises(ValueError, match=message):
        nkcca.nystrom_kcca_from_columns(**args)


def test_leverage_scores_choose_their_method_and_refuse_with_sentences(two_view_data, monkeypatch):
    _, _, Kx, _ = two_view_data
    exact = mpcore.ridge_leverage_scores(Kx, 1e-3, method="exact")
    sketch = mpcore.ridge_leverage_scores(Kx, 1e-3, method="approximate", n_landmarks=40)
    assert not np.allclose(exact, sketch)
    np.testing.assert_array_equal(
        sketch, mpcore.ridge_leverage_scores(Kx, 1e-3, method="approximate", n_landmarks=40, seed=0)
    )
    assert not np.array_equal(
        sketch, mpcore.ridge_leverage_scores(Kx, 1e-3, method="approximate", n_landmarks=40, seed=1)
    )
    monkeypatch.setattr(nkcca, "EXACT_LEVERAGE_MAX_N", 150)  # N = 150: "auto" is still exact at the limit
    np.testing.assert_array_equal(mpcore.ridge_leverage_scores(Kx, 1e-3), exact)
    monkeypatch.setattr(nkcca, "EXACT_LEVERAGE_MAX_N", 149)  # past it: the sketch
    auto = mpcore.ridge_leverage_scores(Kx, 1e-3)
    np.testing.assert_array_equal(auto, mpcore.ridge_leverage_scores(Kx, 1e-3, method="approximate"))
    with pytest.raises(ValueError, match=r"^The leverage-score parameter gamma "):
        mpcore.ridge_leverage_scores(Kx, 0.0)
    with pytest.raises(ValueError, match=r"^Unknown leverage-score method 'fast'; choose one of"):
        mpcore.ridge_leverage_scores(Kx, 1e-3, method="fast")


def test_exact_leverage_scores_are_exact_past_the_default_sketch():
    """300 points: the default sketch has 200 columns, so "exact" must not be answered by it."""
    X = np.random.default_rng(5).normal(size=(300, 2))
    K = mpcore.kernel_matrix(X, gamma=2.0)
    direct = np.diag(K @ np.linalg.inv(K + 300 * 1e-4 * np.eye(300)))
    np.testing.assert_allclose(mpcore.ridge_leverage_scores(K, 1e-4, method="exact"), direct, atol=1e-10)


def test_sketch_and_sampling_sizes_seeds_and_sentences(two_view_data):
    _, _, Kx, _ = two_view_data
    assert nkcca.sketch_landmarks(2000).size == 200 and nkcca.sketch_landmarks(10_000).size == 400
    assert nkcca.sketch_landmarks(150).size == 150 and nkcca.sketch_landmarks(150, 30).size == 30
    assert np.unique(nkcca.sketch_landmarks(900, 300)).size == 300  # distinct, sorted
    np.testing.assert_array_equal(nkcca.sketch_landmarks(900, 30), nkcca.sketch_landmarks(900, 30, seed=0))
    for M in (1, 150):
        assert mpcore.sample_columns(Kx, M, "uniform")[0].size == M
    np.testing.assert_array_equal(mpcore.sample_columns(Kx, 20)[0], mpcore.sample_columns(Kx, 20, seed=0)[0])
    np.testing.assert_array_equal(
        mpcore.sample_columns(Kx, 20, "ridge-leverage", gamma=1e-3)[0],
        nkcca.draw_landmarks(150, 20, "ridge-leverage", mpcore.ridge_leverage_scores(Kx, 1e-3), 0)[0],
    )
    for M in (0, 151, True, 2.0):
        with pytest.raises(ValueError, match=r"^The rank M must be a whole number between 1 and the number of points"):
            mpcore.sample_columns(Kx, M)
    with pytest.raises(ValueError, match=r"^ridge-leverage sampling needs gamma \(or precomputed scores\)\.$"):
        mpcore.sample_columns(Kx, 5, "ridge-leverage")
    with pytest.raises(ValueError, match=r"^Unknown sampling 'greedy'; choose one of"):
        mpcore.sample_columns(Kx, 5, "greedy")
    scores = mpcore.ridge_leverage_scores(Kx, 1e-3)
    np.testing.assert_array_equal(
        mpcore.sample_columns(Kx, 20, "ridge-leverage", scores=scores, seed=3)[0],
        nkcca.draw_landmarks(150, 20, "ridge-leverage", scores, 3)[0],
    )


def test_sketch_scores_are_clipped_to_the_unit_interval_and_independent_of_the_block_size(two_view_data):
    _, _, Kx, _ = two_view_data
    S = np.array([0, 1])  # a two-column sketch with a tiny ridge: the raw ratios pass 1
    raw = nkcca.leverage_from_sketch(Kx[:, S], Kx[np.ix_(S, S)], np.diag(Kx), 1e-6)
    assert raw.max() == 1.0 and raw.min() >= 0.0
    S = nkcca.sketch_landmarks(150, 40)
    args = (Kx[:, S], Kx[np.ix_(S, S)], np.diag(Kx), 1e-3)
    np.testing.assert_allclose(nkcca.leverage_from_sketch(*args, rows=7), nkcca.leverage_from_sketch(*args))


def test_nystrom_beta_with_all_columns_is_exact_kccas_beta(two_view_data):
    """The second view's dual coefficients too (eq. 16-17), not only alpha and the correlations."""
    _, _, Kx, Ky = two_view_data
    everyone = np.arange(150)
    exact = mpcore.kcca(Kx, Ky, 0.05, 0.05)
    approx = mpcore.nystrom_kcca(Kx, Ky, everyone, everyone, 0.05, 0.05)
    sign = np.sign(approx.beta[:, 0] @ exact.beta[:, 0])
    np.testing.assert_allclose(sign * approx.beta[:, 0], exact.beta[:, 0], rtol=1e-4, atol=1e-6)


def test_nystrom_kcca_does_not_depend_on_the_kernels_scale(two_view_data):
    """K and lambda scaled together leave T, so the correlations (the solver's rank cut is relative)."""
    _, _, Kx, Ky = two_view_data
    i1, i2 = np.arange(0, 150, 5), np.arange(2, 150, 6)
    one = mpcore.nystrom_kcca(Kx, Ky, i1, i2, 1e-3, 1e-3).correlations
    tiny = mpcore.nystrom_kcca(1e-6 * Kx, 1e-6 * Ky, i1, i2, 1e-9, 1e-9).correlations
    np.testing.assert_allclose(tiny, one, rtol=1e-6)


def test_incremental_path_equals_the_direct_formula_on_kernels_without_a_unit_diagonal(two_view_data):
    X, Y, _, _ = two_view_data
    Kx, Ky = 3.0 * mpcore.kernel_matrix(X, kernel="poly", degree=2), 0.2 * mpcore.kernel_matrix(Y, gamma=2.0)
    order = np.random.default_rng(0).permutation(150)
    out = mpcore.nystrom_kcca_path(Kx, Ky, order, order[::-1], [5, 20, 60], 1e-2, 1e-2, compare_refit=False)
    direct = [mpcore.nystrom_kcca(Kx, Ky, order[:r], order[::-1][:r], 1e-2, 1e-2).correlations[0] for r in (5, 20, 60)]
    np.testing.assert_allclose(out["correlations"], direct, rtol=1e-8)
    assert out["ranks"].tolist() == [5, 20, 60] and "speedup" not in out


def test_incremental_path_reports_times_and_defaults(two_view_data):
    _, _, Kx, Ky = two_view_data
    order = np.arange(150)
    out = mpcore.nystrom_kcca_path(Kx, Ky, np.r_[order, order[:5]], order, [40, 10, 20])  # repeats are dropped
    assert out["ranks"].tolist() == [10, 20, 40]
    assert np.all(np.diff(out["seconds_incremental"]) >= 0) and np.all(np.diff(out["seconds_refit"]) >= 0)
    assert out["seconds_incremental"][0] > 0 and out["seconds_refit"][0] > 0
    np.testing.assert_allclose(out["speedup"], out["seconds_refit"] / out["seconds_incremental"])
    explicit = mpcore.nystrom_kcca_path(Kx, Ky, order, order, [10, 20, 40], 1e-3, 1e-3, compare_refit=False)
    np.testing.assert_allclose(out["correlations"], explicit["correlations"], rtol=1e-12)
    assert mpcore.nystrom_kcca_path(Kx, Ky, order, order, [150], compare_refit=False)["ranks"].tolist() == [150]


@pytest.mark.parametrize("function", ["nystrom_kcca", "nystrom_kcca_path"])
def test_nystrom_kcca_refuses_with_a_sentence_naming_the_argument(two_view_data, function):
    _, _, Kx, Ky = two_view_data
    idx = np.arange(10)

    def call(K1=Kx, K2=Ky, i1=idx, i2=idx, reg1=1e-3, reg2=1e-3, ranks=(5,)):
        if function == "nystrom_kcca":
            return mpcore.nystrom_kcca(K1, K2, i1, i2, reg1, reg2)
        return mpcore.nystrom_kcca_path(K1, K2, i1, i2, ranks, reg1, reg2, compare_refit=False)

    bad = Kx - 2 * np.eye(150)
    refusals = [
        (dict(K1=bad), r"^K1\[0, 0\] = -1 is negative"),
        (dict(K2=bad), r"^K2\[0, 0\] = -1 is negative"),
        (dict(K2=Ky[:100, :100]), r"^The two views must describe the same points: K1 has 150 rows, K2 has 100\.$"),
        (dict(i1=[150]), r"^indices1 must lie between 0 and 149"),
        (dict(i2=[-1]), r"^indices2 must lie between 0 and 149"),
        (dict(reg1=0.0), r"^The regularisation lambda1 "),
        (dict(reg2=-1.0), r"^The regularisation lambda2 "),
    ]
    if function == "nystrom_kcca_path":
        refusals += [
            (dict(ranks=(151,)), r"^ranks must lie between 0 and 150"),
            (dict(ranks=(0,)), r"^ranks must be a non-empty list of whole numbers of at least 1\.$"),
            (dict(ranks=()), r"^ranks is empty"),
            (
                dict(i1=[1, 1, 2], ranks=(3,)),
                r"^The largest rank \(3\) exceeds the number of distinct landmarks \(2\)\.$",
            ),
            (
                dict(i2=[4, 5], ranks=(2, 3)),
                r"^The largest rank \(3\) exceeds the number of distinct landmarks \(2\)\.$",
            ),
        ]
    for change, message in refusals:
        with pytest.raises(ValueError, match=message):
            call(**change)
    assert call(i1=[3, 3, 4], i2=[5, 5, 6], ranks=(2,)) is not None  # repeated landmarks are allowed


def test_approximation_error_by_hand_whatever_the_sign_and_refusals(two_view_data):
    import dataclasses

    _, _, Kx, Ky = two_view_data
    exact = mpcore.kcca(Kx, Ky, 1e-2, 1e-2)
    approx = mpcore.nystrom_kcca(Kx, Ky, np.arange(0, 150, 3), np.arange(1, 150, 3), 1e-2, 1e-2)
    errors = mpcore.approximation_error(exact, approx)
    a, b = exact.alpha[:, 0], approx.alpha[:, 0]
    by_hand = min(np.linalg.norm(a - b), np.linalg.norm(a + b)) / np.sqrt(150)
    assert errors["alpha"] == pytest.approx(by_hand, rel=1e-9)
    flipped = mpcore.approximation_error(exact, dataclasses.replace(approx, alpha=-approx.alpha))
    assert flipped == pytest.approx(errors)
    with pytest.raises(
        TypeError,
        match=r"^approximation_error compares the result of mpcore\.kcca \(exact\) with that of "
        r"mpcore\.nystrom_kcca \(approx\); got NystromKCCAResult and KCCAResult\.$",
    ):
        mpcore.approximation_error(approx, exact)
    with pytest.raises(
        ValueError, match=r"^The exact KCCA result has no factors of T; compute it with mpcore\.kcca\.$"
    ):
        mpcore.approximation_error(dataclasses.replace(exact, factors=None), approx)


def test_the_labs_nystrom_solver_defaults_and_records_its_landmarks(two_view_data):
    _, _, Kx, Ky = two_view_data
    result = nkcca._nystrom_kcca(Kx, Ky, np.array([4, 4, 9]), np.array([7, 8]), 1e-3, 1e-3)
    assert result.correlations.size == 1
    assert result.indices1.tolist() == [4, 9] and result.indices2.tolist() == [7, 8]


def test_leverage_from_some_eigenpairs_and_the_default_draw(two_view_data):
    _, _, Kx, _ = two_view_data
    values, vectors = np.linalg.eigh(Kx)
    top_values, top_vectors = values[-12:], vectors[:, -12:]
    expected = (top_vectors**2) @ (top_values / (top_values + 150 * 1e-3))
    np.testing.assert_allclose(nkcca.leverage_from_eigen(top_values, top_vectors, 1e-3), expected, rtol=1e-12)
    np.testing.assert_array_equal(nkcca.draw_landmarks(150, 20)[0], nkcca.draw_landmarks(150, 20, seed=0)[0])
