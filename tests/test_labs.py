"""The labs' core: deflation comparison, column selection and the bounds explorer."""

import math

import numpy as np
import pytest

from mpcore import DEFLATIONS, bounds, kernel_matrix, kmp_path, mpkfda_path, skpca_path
from mpcore.datasets import load_dataset, prepare
from mpcore.deflations import ExplicitDeflation
from mpcore.engine import pursue
from mpcore.explore import EXPLORER_BOUNDS, KNOBS, explore, grid, model_spectrum, nontrivial_range
from mpcore.labs import (
    FACT_RTOL,
    LAB_CRITERIA,
    column_selection,
    compare_deflations,
    criterion_deflation_table,
    kernel_spectrum,
    lab_path,
    learner_errors,
    nystrom_error,
    step_facts,
)


@pytest.fixture(scope="module")
def moons():
    return prepare(load_dataset("moons", n_samples=120), seed=0)


@pytest.fixture(scope="module")
def rbf(moons):
    return kernel_matrix(moons.X_train, gamma=2.0)


@pytest.mark.parametrize("deflation", DEFLATIONS)
def test_fisher_family_is_mpkfda(rbf, moons, deflation):
    lab = lab_path(rbf, 8, "mpkfda", "optimal", deflation, y=moons.y_train)
    assert np.array_equal(lab.indices, mpkfda_path(rbf, moons.y_train, 8, deflation=deflation).indices)


def test_kmp_family_with_projection_is_prefit_kmp():
    split = prepare(load_dataset("sinc", n_samples=150), seed=1)
    K = kernel_matrix(split.X_train, gamma=2.0)
    y = split.y_train
    lab = lab_path(K, 10, "kmp", "fit", "projection", y=y)
    assert np.array_equal(lab.indices, kmp_path(K, y - y.mean(), 10, variant="prefit").indices)


def test_schur_and_ortho_schur_agree(rbf, moons):
    """Mackey (2009): a Schur-deflated kernel already annihilates the earlier directions,
    so orthogonalising them first changes nothing."""
    a = lab_path(rbf, 10, "kpca", "variance", "schur")
    b = lab_path(rbf, 10, "kpca", "variance", "ortho-schur")
    assert np.array_equal(a.indices, b.indices)
    np.testing.assert_allclose(a.deflated_kernel(10), b.deflated_kernel(10), atol=1e-9)


def test_facts_say_which_deflations_keep_psd(rbf, moons):
    facts = {d: step_facts(lab_path(rbf, 6, "mpkfda", "optimal", d, y=moons.y_train), 6) for d in DEFLATIONS}
    for name in ("none", "schur", "ortho-schur", "ortho-projection"):
        assert facts[name].symmetric and facts[name].psd, name
    assert not facts["projection"].symmetric  # one-sided
    assert not facts["hotelling"].psd and facts["hotelling"].min_eigenvalue < -1e-3  # tau is no eigenvector
    assert facts["projection"].annihilated and facts["projection"].chosen_left < 1e-10
    assert not facts["none"].annihilated and facts["none"].chosen_left == pytest.approx(1.0)
    assert facts["none"].rank > facts["projection"].rank  # projection removes one dimension per step
    assert facts["none"].trace == pytest.approx(np.trace(rbf))


def _explicit_facts(Kj, K0, rows=None):
    """The spectral facts the long way: full decompositions of the formed matrices."""
    if rows is not None:
        Kj, K0 = Kj[np.ix_(rows, rows)], K0[np.ix_(rows, rows)]
    asymmetry = np.linalg.norm(Kj - Kj.T) / np.linalg.norm(K0)
    eigenvalues = np.linalg.eigvalsh((Kj + Kj.T) / 2)
    singular = np.linalg.svd(Kj, compute_uv=False)
    return asymmetry, eigenvalues[0], singular


@pytest.mark.parametrize("deflation", DEFLATIONS)
@pytest.mark.parametrize(
    "data, gamma, family",
    [("moons", 2.0, "mpkfda"), ("xor", 8.0, "mpkfda"), ("sinc", None, "kmp"), ("rings", 30.0, "kpca")],
)
def test_facts_from_the_low_rank_form_match_full_decompositions(data, gamma, family, deflation):
    """The facts come from a small reduced matrix (K_0's pivoted-Cholesky eigenbasis plus
    span(U, V)); here each is checked against eigvalsh / svd of the formed K_j, on kernels
    whose rank ranges from 15 to full (gamma 30) and a deflation whose K_j is indefinite."""
    split = prepare(load_dataset(data, n_samples=160), seed=3)
    K = kernel_matrix(split.X_train, gamma=gamma)
    criterion = LAB_CRITERIA[family][0]
    path = lab_path(K, 10, family, criterion, deflation, y=split.y_train)
    spectrum = kernel_spectrum(K)
    top = np.linalg.eigvalsh(K)[-1]
    assert spectrum.sample is None and spectrum.top == pytest.approx(top, rel=1e-9)
    for j in (0, 1, 4, path.n_steps):
        facts = step_facts(path, j, spectrum=spectrum)
        asymmetry, smallest, singular = _explicit_facts(path.deflated_kernel(j), K)
        assert facts.symmetric == (asymmetry <= FACT_RTOL)
        assert facts.min_eigenvalue == pytest.approx(smallest / top, abs=1e-9)
        assert facts.psd == (smallest / top >= -FACT_RTOL)
        # the rank counts the singular values above the threshold; those within 10% of it may
        # fall either way (rounding), so the rank lies between the two counts -- checked in
        # every case (it used to be skipped whenever a value sat near the threshold: 29 of 112)
        threshold = FACT_RTOL * top
        assert int(np.sum(singular > 1.1 * threshold)) <= facts.rank <= int(np.sum(singular > threshold / 1.1))
        assert facts.trace == pytest.approx(np.trace(path.deflated_kernel(j)), abs=1e-9 * top)


def test_facts_of_a_high_rank_kernel_come_from_a_fixed_subsample():
    """A kernel needing more than ``limit`` Cholesky columns: the facts describe the
    principal submatrix of K_j on the spectrum's subsample, the same one at every step."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 20))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(150) > 0, 1.0, -1.0)
    K = kernel_matrix(X, gamma=0.05)
    spectrum = kernel_spectrum(K, limit=60)
    assert spectrum.sample is not None and spectrum.sample.size == 60
    assert np.array_equal(spectrum.sample, kernel_spectrum(K, limit=60).sample)  # fixed
    top = np.linalg.eigvalsh(K)[-1]
    for deflation in ("hotelling", "projection", "schur"):
        path = lab_path(K, 6, "mpkfda", "optimal", deflation, y=y)
        facts = step_facts(path, 6, spectrum=spectrum)
        asymmetry, smallest, singular = _explicit_facts(path.deflated_kernel(6), K, rows=spectrum.sample)
        assert facts.min_eigenvalue == pytest.approx(smallest / top, abs=1e-9)
        assert facts.rank == int(np.sum(singular > FACT_RTOL * top)) <= 60
    assert kernel_spectrum(K).sample is None  # 150 points fit the default limit: exact


def test_spectrum_is_within_its_stated_accuracy():
    """``||K_0 - E diag(values) E'||_2 <= 2 SPECTRUM_RTOL top``, E orthonormal."""
    from mpcore.labs import SPECTRUM_RTOL

    split = prepare(load_dataset("moons", n_samples=400), seed=1)
    K = kernel_matrix(split.X_train, gamma=1.0)
    spectrum = kernel_spectrum(K)
    E = spectrum.vectors
    np.testing.assert_allclose(E.T @ E, np.eye(E.shape[1]), atol=1e-12)
    error = np.linalg.norm(K - E @ np.diag(spectrum.values) @ E.T, 2)
    assert error <= 2 * SPECTRUM_RTOL * spectrum.top
    assert E.shape[1] < K.shape[0] // 2  # low rank: the point of it


@pytest.mark.parametrize("deflation", DEFLATIONS)
@pytest.mark.parametrize("family", ["kpca", "kmp"])
def test_low_rank_lab_picks_what_the_explicit_kernel_picks(rbf, moons, family, deflation):
    """The lab keeps ``K_0 - U V'``; the explicit m x m deflation makes the same picks."""
    criterion = LAB_CRITERIA[family][0]
    path = lab_path(rbf, 12, family, criterion, deflation, y=moons.y_train)
    target = moons.y_train - moons.y_train.mean()

    def explicit(state):
        K = state.current()
        if family == "kpca":
            return np.where(np.diag(K) > 0, state.column_sq_norms() / np.where(np.diag(K) > 0, np.diag(K), 1), np.nan)
        return np.abs(K.T @ target) / np.sqrt(state.column_sq_norms())

    reference = pursue(ExplicitDeflation(rbf, deflation), explicit, 12)
    assert np.array_equal(path.indices, reference.indices)


def test_facts_by_hand():
    """K = diag(4, 1) plus a coupling: every fact checked against a 2 x 2 computation."""
    K = np.array([[4.0, 1.0], [1.0, 2.0]])
    path = lab_path(K, 1, "kpca", "variance", "projection")
    i = int(path.indices[0])
    tau = K[:, i] / np.linalg.norm(K[:, i])
    Kj = (np.eye(2) - np.outer(tau, tau)) @ K
    facts = step_facts(path, 1)
    np.testing.assert_allclose(path.deflated_kernel(1), Kj, atol=1e-12)
    assert facts.trace == pytest.approx(np.trace(Kj))
    top = np.linalg.eigvalsh(K)[-1]
    assert facts.min_eigenvalue == pytest.approx(np.linalg.eigvalsh((Kj + Kj.T) / 2)[0] / top, abs=1e-12)
    assert facts.rank == 1 and facts.annihilated and facts.next_pick is None
    start = step_facts(path, 0)
    assert math.isnan(start.chosen_left) and start.next_pick == i and math.isnan(start.next_distance)


def test_next_pick_distance_is_in_feature_space(rbf, moons):
    path = lab_path(rbf, 4, "mpkfda", "optimal", "projection", y=moons.y_train)
    facts = step_facts(path, 2)
    nxt, chosen = path.indices[2], path.indices[:2]
    expected = np.sqrt(np.min(rbf[nxt, nxt] + rbf[chosen, chosen] - 2 * rbf[nxt, chosen]))
    assert facts.next_pick == nxt and facts.next_distance == pytest.approx(expected)
    assert facts.next_nearest in set(chosen.tolist())


def test_kmp_learner_matches_the_kmp_curves():
    from mpcore.studies import kmp_study

    split = prepare(load_dataset("sinc", n_samples=150), seed=2)
    study = kmp_study(split, 8, gamma=2.0)
    errors = learner_errors("kmp", study.K, study.K_test, split.y_train, split.y_test, study.path.indices)
    np.testing.assert_allclose(errors, study.curves.curves["test MSE"], rtol=1e-8)


def test_comparison_and_table(moons):
    lab = compare_deflations(moons, 6, "mpkfda", "optimal", ("projection", "hotelling", "projection"), gamma=2.0)
    assert lab.deflations == ("projection", "hotelling")  # duplicates dropped, order kept
    assert lab.n_steps == 6 and set(lab.facts(3)) == {"projection", "hotelling"}
    assert lab.facts(3) is lab.facts(3)  # memoised
    assert all(block.shape == (lab.order.size, lab.order.size) for block in lab.heatmaps(2).values())
    table = lab.error_table()
    assert list(table) == ["step", "projection", "hotelling"] and table["step"].size == 6
    calls = []
    result = criterion_deflation_table(
        moons,
        4,
        "mpkfda",
        deflations=("none", "schur"),
        gamma=2.0,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert result["error"].shape == (len(LAB_CRITERIA["mpkfda"]), 2)
    assert np.all((result["error"] >= 0) & (result["error"] <= 1)) and np.all(result["seconds"] > 0)
    assert np.all(result["best_error"] <= result["error"])
    assert calls[-1] == (10, 10) and len(calls) == 10


def test_lab_refuses_bad_input(moons):
    with pytest.raises(ValueError, match="at least one deflation"):
        compare_deflations(moons, 4, "mpkfda", "optimal", ())
    with pytest.raises(ValueError, match="deflation"):
        compare_deflations(moons, 4, "mpkfda", "optimal", ("sideways",))
    sinc = prepare(load_dataset("sinc", n_samples=60), seed=0)
    with pytest.raises(ValueError, match="binary"):
        compare_deflations(sinc, 4, "mpkfda", "optimal", ("schur",))
    with pytest.raises(ValueError, match="criterion"):
        lab_path(np.eye(5), 2, "kpca", "optimal", "schur")


# --- column selection -------------------------------------------------------------------------


def test_nystrom_error_matches_dense(rng):
    X = rng.normal(size=(60, 3))
    K = kernel_matrix(X, gamma=0.5)
    idx = np.array([3, 10, 22, 41])
    L = K[:, idx] @ np.linalg.pinv(K[np.ix_(idx, idx)]) @ K[idx]
    trace, spectral = nystrom_error(K, K[:, idx], K[np.ix_(idx, idx)])
    assert trace == pytest.approx(np.trace(K - L), rel=1e-8)
    assert spectral == pytest.approx(np.linalg.eigvalsh(K - L)[-1], rel=1e-5)


@pytest.fixture(scope="module")
def selection():
    split = prepare(load_dataset("rings-two-view", n_samples=160), seed=0)
    return split, column_selection(
        split, (4, 8, 16, 32), methods=("greedy", "uniform", "ridge-leverage", "k-means"), repeats=2
    )


def test_greedy_columns_error_is_the_deflated_trace(selection):
    """Nystroem on sparse KPCA's columns = its deflated kernel (pivoted Cholesky)."""
    split, result = selection
    K = kernel_matrix(split.X_train, gamma=1.0 / split.X_train.shape[1])
    path = skpca_path(K, 32)
    expected = [np.trace(path.deflated_kernel(r)) for r in result.ranks]
    np.testing.assert_allclose(result.kernel_error["greedy"]["trace"][0], expected, rtol=1e-6, atol=1e-8)


def test_column_selection_shapes_and_trends(selection):
    split, result = selection
    R = result.ranks.size
    assert result.kernel_error["greedy"]["trace"].shape == (1, R)
    assert result.kernel_error["uniform"]["spectral"].shape == (2, R)
    assert set(result.kcca) == {"greedy", "uniform", "ridge-leverage"}  # k-means centres are not columns
    for name, arrays in result.kernel_error.items():
        mean = arrays["trace"].mean(axis=0)
        assert mean[-1] < mean[0], name
        assert np.all(arrays["spectral"] <= arrays["trace"] + 1e-9)  # largest eigenvalue <= their sum
    assert np.all(result.kernel_error["ridge-leverage"]["distinct"] <= result.ranks)
    for arrays in result.kcca.values():
        assert arrays["rho"].mean(axis=0)[-1] < arrays["rho"].mean(axis=0)[0]
    assert 0 < result.exact["gap"] <= result.exact["rho"] <= 1
    assert result.effective_dimension[0] == pytest.approx(result.leverage[0].sum())
    assert np.all(np.diff(result.leverage[0]) <= 0)
    assert result.speedup["speedup"].shape == (2, R)
    assert result.landmarks["greedy"].size == 32 and "k-means" not in result.landmarks


def test_wang_bound_holds_where_its_condition_does_and_the_condition_holds_somewhere():
    """Wang (2016), Thm 2 step II: ||alpha - alpha~|| / sqrt(N) <= (1/2 + 4 sqrt(2) / r)
    ||T - T~|| / (N lambda) wherever ||T - T~|| <= r / 2.  With lambda = 0.01 the condition
    holds at 2 to 4 of each method's ranks (with the default 0.001 it held at none for
    ridge leverage, so the old check checked nothing); the bound and its condition are
    recomputed here from T and the gap r."""
    split = prepare(load_dataset("rings-two-view", n_samples=160), seed=0)
    reg = 1e-2
    result = column_selection(split, (4, 8, 16, 32), repeats=2, reg=reg)
    gap, N = result.exact["gap"], result.m
    for name, arrays in result.kcca.items():
        valid = arrays["valid"]
        assert valid.sum() >= 2, name
        np.testing.assert_array_equal(valid, arrays["T"] <= gap / 2)
        np.testing.assert_allclose(arrays["bound"], (0.5 + 4 * np.sqrt(2) / gap) * arrays["T"] / (N * reg), rtol=1e-12)
        assert np.all(arrays["alpha"][valid] <= arrays["bound"][valid]), name


def test_one_view_data_has_no_kcca():
    split = prepare(load_dataset("moons", n_samples=100), seed=0)
    result = column_selection(split, (3, 6), methods=("uniform",), repeats=1)
    assert not result.two_view and result.kcca == {} and len(result.leverage) == 1
    with pytest.raises(ValueError, match="ranks"):
        column_selection(split, (0, 6))
    with pytest.raises(ValueError, match="at least one"):
        column_selection(split, (3,), methods=())


# --- bounds explorer --------------------------------------------------------------------------


def test_explore_matches_the_bounds():
    ms = np.array([200, 1000, 5000])
    np.testing.assert_allclose(explore("kmp_vc", "m", ms, k=10, t=3, delta=0.05), bounds.kmp_vc(ms, 10, 3, 0.05))
    np.testing.assert_allclose(
        explore("compression_classification", "k", [0, 5, 50], m=500, t=2, delta=0.1),
        bounds.compression_classification(500, np.array([0, 5, 50]), 2, 0.1),
    )
    np.testing.assert_allclose(
        explore("compression_subspace", "delta", [0.01, 0.1], m=300, t=20, emp_loss=0.2),
        bounds.compression_subspace(0.2, 300, 20, np.array([0.01, 0.1])),
    )
    spectrum = model_spectrum(400, 2.0)
    assert spectrum.sum() == pytest.approx(400) and np.all(np.diff(spectrum) < 0)
    assert explore("pca_global_rademacher", "t", [7], m=400, decay=2.0)[0] == pytest.approx(
        bounds.pca_global_rademacher(spectrum, np.ones(400), 7, 0.05)
    )


def test_explore_fisher_bound_by_hand():
    """Balanced classes with means +-0.5 and variance 0.05 (the defaults), m = 10000, k = 20."""
    m, k, delta = 10000, 20, 0.05
    n = (m - k) / 2
    complexity = k * math.log(math.e * m / k)
    A = 1 / math.sqrt(n) * (2 + math.sqrt(complexity + 2 * math.log(2 * m / (delta / 2))))
    B = 2 / math.sqrt(n) * (2 + math.sqrt(complexity + 2 * math.log(4 * m / (delta / 2))))
    s = 0.5 - A
    expected = 1 - s**2 / (0.05 + B + s**2)
    assert explore("mpkfda", "m", [m], k=k)[0] == pytest.approx(expected)


def test_explorer_catalogue_and_helpers():
    for spec in EXPLORER_BOUNDS.values():
        assert set(spec.variables) <= set(spec.knobs) <= set(KNOBS)
        for vary in spec.variables:
            ys = explore(spec.name, vary, grid(vary, hi=200 if vary in "kt" else None, n=20))
            assert ys.shape[0] >= 2 and not np.any(np.isnan(ys))
    xs = grid("m")
    assert xs[0] == 10 and xs[-1] == 100000 and np.all(xs == np.round(xs))
    assert nontrivial_range(np.arange(5), np.array([3, 2, 0.5, 0.4, 2])) == (2.0, 3.0)
    assert nontrivial_range(np.arange(3), np.array([np.inf, 2, 1])) is None
    with pytest.raises(ValueError, match="does not depend"):
        explore("kmp_vc", "decay", [1])
    with pytest.raises(ValueError, match="Unknown bound"):
        explore("nope", "m", [1])


def test_column_selection_table_has_one_row_per_rank(selection):
    split, result = selection
    table = result.table()
    assert table["rank"].tolist() == result.ranks.tolist() and result.split is split
    assert "greedy trace error" in table and "ridge-leverage bound" in table
    assert all(np.asarray(column).shape == result.ranks.shape for column in table.values())


def test_nystrom_error_from_eigenpairs_matches_the_dense_residual():
    """The column lab's spectral kernel error from K's eigenpairs (a small matrix in
    span(V, C)) against eigvalsh of the formed residual K - C W^+ C' and against Lanczos.
    With 70 landmarks W is ill-conditioned and C W^+ C' cancels to about 1e-8 in any
    arithmetic, hence the looser tolerance there."""
    from mpcore.labs import _kernel_eigen

    split = prepare(load_dataset("rings", n_samples=500), seed=2)
    K = kernel_matrix(split.X_train, gamma=0.5)
    eigen = _kernel_eigen(K, 1e-13)
    for idx, rel in ((np.arange(0, 350, 35), 1e-10), (np.arange(0, 350, 5), 1e-4)):
        C, W = K[:, idx], K[np.ix_(idx, idx)]
        dense = np.linalg.eigvalsh(K - C @ np.linalg.pinv(W, rcond=1e-10, hermitian=True) @ C.T)[-1]
        trace, spectral = nystrom_error(K, C, W, eigen=eigen)
        assert spectral == pytest.approx(dense, rel=rel)
        assert spectral == pytest.approx(nystrom_error(K, C, W)[1], rel=max(rel, 1e-6))
        assert trace == pytest.approx(
            np.trace(K - C @ np.linalg.pinv(W, rcond=1e-10, hermitian=True) @ C.T), rel=1e-3 if rel > 1e-6 else 1e-9
        )  # tr K - tr(C W^+ C') cancels too


def test_random_features_errors_and_correlation_equal_their_dense_forms():
    """The random-feature baseline (Rahimi and Recht; Lopez-Paz et al.'s randomized CCA): its
    kernel error is the nuclear and spectral norm of the indefinite K - ZZ', and its correlation
    is exact KCCA on the kernels ZZ' of each view, both checked against N x N computations."""
    from mpcore.labs import feature_error, random_features
    from mpcore.lowrank import low_rank_eigen

    split = prepare(load_dataset("rings-two-view", n_samples=160), seed=0)
    gx, gy = 1.0 / split.X_train.shape[1], 1.0 / split.Y_train.shape[1]
    result = column_selection(split, (8, 24), methods=("uniform", "random-features"), repeats=1, seed=3)
    K1 = kernel_matrix(split.X_train, gamma=gx)
    for c, r in enumerate(result.ranks):
        Z1 = random_features(split.X_train, gx, 24, 3)(r)
        Z2 = random_features(split.Y_train, gy, 24, 3 + 1000)(r)
        residual = np.linalg.eigvalsh(K1 - Z1 @ Z1.T)
        errors = result.kernel_error["random-features"]
        assert errors["trace"][0, c] == pytest.approx(np.abs(residual).sum(), rel=1e-6)
        assert errors["spectral"][0, c] == pytest.approx(np.abs(residual).max(), rel=1e-6)
        approx = mpcore_kcca(Z1 @ Z1.T, Z2 @ Z2.T)
        exact = mpcore_kcca(K1, kernel_matrix(split.Y_train, gamma=gy))
        assert result.kcca["random-features"]["rho"][0, c] == pytest.approx(
            abs(exact.correlations[0] - approx.correlations[0]), abs=1e-8
        )
    # the paper's point: Nystroem columns beat as many random features (Wang 2016, sec. 1)
    assert result.kcca["uniform"]["rho"][0, -1] < result.kcca["random-features"]["rho"][0, -1]
    eigen = low_rank_eigen(K1, 1e-12, 50)
    Z = random_features(split.X_train, gx, 10, 0)(10)
    assert feature_error(K1, Z, eigen)[1] == pytest.approx(np.abs(np.linalg.eigvalsh(K1 - Z @ Z.T)).max(), rel=1e-6)
    with pytest.raises(ValueError, match="RBF"):
        column_selection(split, (8,), methods=("random-features",), kernel="linear")


def mpcore_kcca(K1, K2):
    from mpcore import kcca

    return kcca(K1, K2, 1e-3, 1e-3)


def test_theorem1_columns_and_epsilon_by_hand():
    """Wang 2016, eq. 11 and Thm 1: d_eff = tr(K (K + N gamma I)^-1); M = 2 (d_eff / (beta t^2)
    + 1 / (3t)) log(2N / delta); the epsilon found for M is the smallest whose requirement M
    meets (at some t), and uniform sampling's beta is d_eff / (N max l_i)."""
    from mpcore.nkcca import (
        effective_dimension,
        ridge_leverage_scores,
        theorem1_columns,
        theorem1_epsilon,
        uniform_beta,
    )

    X = np.random.default_rng(0).normal(size=(80, 2))
    K = kernel_matrix(X, gamma=0.5)
    lam, N = np.linalg.eigvalsh(K), 80
    gamma = 1e-3
    assert effective_dimension(lam, gamma) == pytest.approx(np.trace(K @ np.linalg.inv(K + N * gamma * np.eye(N))))
    top = np.sort(lam)[::-1][:10]
    assert effective_dimension(top, gamma, N, lam.sum() - top.sum()) >= effective_dimension(lam, gamma) - 1e-9
    assert theorem1_columns(3.0, 80, 0.05, 0.5, 1.0) == pytest.approx(2 * (3 / 0.25 + 2 / 3) * np.log(3200))
    scores = ridge_leverage_scores(K, gamma)
    assert uniform_beta(scores) == pytest.approx(scores.sum() / (N * scores.max()))
    for M in (40, 400):
        eps = theorem1_epsilon(lam, 1e-3, M)
        ts = np.linspace(0.05, 0.95, 19)

        def needs(e, t):
            return theorem1_columns(effective_dimension(lam, e * 1e-3 * (1 - t) / 2), N, 0.05, t, 1.0)

        assert any(needs(eps, t) <= M for t in ts) and not any(needs(eps / 1.01, t) <= M for t in ts)
    assert theorem1_epsilon(lam, 1e-3, 400) < theorem1_epsilon(lam, 1e-3, 40)
    assert theorem1_epsilon(lam, 1e-3, 4000) == 0.0  # d_eff <= 80 here: 4000 columns meet any accuracy
    with pytest.raises(ValueError, match="delta"):
        theorem1_columns(3.0, 80, 1.5)


def test_column_selection_quotes_theorem1_at_every_rank():
    split = prepare(load_dataset("rings-two-view", n_samples=160), seed=0)
    result = column_selection(split, (8, 32), methods=("uniform", "ridge-leverage"), repeats=1)
    t1 = result.theorem1
    assert t1["epsilon/ridge-leverage"].shape == (2,) and np.all(np.diff(t1["epsilon/ridge-leverage"]) < 0)
    assert t1["columns at 0.05"]["uniform"] >= t1["columns at 0.05"]["ridge-leverage"] > 0
    # Thm 1's beta is the distribution's at the theorem's own gamma: the lab's leverage scores are at
    # gamma = lambda, the theorem's at epsilon lambda (1 - t) / 2, so even they fall short of 1 there
    assert 0 < t1["beta at 0.05"]["uniform"] < t1["beta at 0.05"]["ridge-leverage"] < 1


def test_sampling_beta_is_one_for_the_theorems_own_leverage_scores_and_below_for_others():
    """Wang 2016, eq. 12: beta = min_i p_i d_eff / l_i at the given gamma.  Sampling by the
    leverage scores at that gamma gives 1; uniform sampling gives d_eff / (N max l_i); scores at
    another gamma give less than 1 (the column lab's leverage columns under Thm 1's gamma)."""
    from mpcore.nkcca import leverage_from_eigen, sampling_beta, uniform_beta

    X = np.random.default_rng(4).normal(size=(60, 2))
    K = kernel_matrix(X, gamma=0.5)
    values, vectors = np.linalg.eigh(K)
    for gamma in (1e-4, 1e-2):
        scores = leverage_from_eigen(values, vectors, gamma)
        assert sampling_beta(values, vectors, np.diag(K), scores / scores.sum(), gamma) == pytest.approx(1.0)
        uniform = sampling_beta(values, vectors, np.diag(K), np.full(60, 1 / 60), gamma)
        assert uniform == pytest.approx(uniform_beta(scores)) and uniform < 1
    elsewhere = leverage_from_eigen(values, vectors, 1e-2)
    assert sampling_beta(values, vectors, np.diag(K), elsewhere / elsewhere.sum(), 1e-4) < 0.9
    # the top eigenpairs only: each point's remainder is counted at its largest, so the theorem's
    # d_eff / beta (= max_i l_i / p_i) can only grow: it asks for more columns, never fewer
    from mpcore.nkcca import effective_dimension

    top, uniform = slice(40, 60), np.full(60, 1 / 60)
    rest = float(np.trace(K) - values[top].sum())
    partial = sampling_beta(values[top], vectors[:, top], np.diag(K), uniform, 1e-4, rest)
    full = sampling_beta(values, vectors, np.diag(K), uniform, 1e-4)
    needed = effective_dimension(values[top], 1e-4, 60, rest) / partial
    assert needed >= effective_dimension(values, 1e-4) / full * (1 - 1e-12)
    U2, lam = vectors[:, top] ** 2, values[top]
    upper = U2 @ (lam / (lam + 60 * 1e-4)) + (np.diag(K) - U2 @ lam) / (60 * 1e-4)
    assert partial < 1 and needed == pytest.approx((upper / uniform).max(), rel=1e-9)


def test_theorem1_tools_take_their_edges_and_refuse_with_sentences():
    from mpcore.nkcca import effective_dimension, theorem1_columns, theorem1_epsilon, uniform_beta

    X = np.random.default_rng(0).normal(size=(80, 2))
    lam = np.linalg.eigvalsh(kernel_matrix(X, gamma=0.5))
    top, rest = lam[-10:], float(lam[:-10].clip(0).sum())
    # an epsilon below 1 (800 columns), a worse one for uniform-like sampling (beta 1/2), and one for only
    # the 10 largest eigenvalues with the rest bounded (the other 70 count, so it is larger)
    full = theorem1_epsilon(lam, 1e-3, 800)
    assert 0 < full < 0.1
    assert theorem1_epsilon(lam, 1e-3, 800, beta=0.5) > 10 * full
    partial = theorem1_epsilon(top, 1e-3, 800, n_points=80, rest=rest)
    assert partial > 10 * full and partial != theorem1_epsilon(top, 1e-3, 800, n_points=80)
    padded = np.r_[np.zeros(70), top]  # the same 80 points, the other eigenvalues zero
    assert theorem1_epsilon(top, 1e-3, 100, n_points=80) == theorem1_epsilon(padded, 1e-3, 100) > 0
    assert theorem1_epsilon(lam, 1e-3, 40, delta=0.5) < theorem1_epsilon(lam, 1e-3, 40)
    assert theorem1_epsilon(lam, 1e-3, 1) == np.inf  # not even epsilon = 1e6
    # negative eigenvalues (rounding) count as 0; the bound on the rest is added
    assert effective_dimension([1.0, -1e-9], 0.1) == effective_dimension([1.0, 0.0], 0.1) == pytest.approx(1 / 1.2)
    assert effective_dimension([1.0], 0.1, n_points=4, rest=0.4) == pytest.approx(1 / 1.4 + 0.4 / 0.4)
    assert theorem1_columns(0.0, 1) == pytest.approx(2 * (1 / 1.5) * np.log(40))  # the defaults: delta 0.05, t 1/2
    assert theorem1_columns(2.0, 10, beta=1.0) < theorem1_columns(2.0, 10, beta=0.5)
    assert uniform_beta([0.5, 0.5]) == 1.0 and uniform_beta([1.0, 0.0, -0.3]) == pytest.approx(1 / 3)
    refusals = [
        (lambda: effective_dimension([1.0], 0.0), r"^The ridge gamma "),
        (lambda: effective_dimension([1.0, np.nan], 0.1), r"^eigvals must be a non-empty list of finite numbers"),
        (lambda: effective_dimension([], 0.1), r"^eigvals must be a non-empty list"),
        (lambda: effective_dimension([[1.0]], 0.1), r"^eigvals must be a non-empty list"),
        (lambda: effective_dimension(["a"], 0.1), r"^eigvals must be a list of numbers\.$"),
        (lambda: effective_dimension([1.0, 2.0], 0.1, n_points=1), r"^n_points must be at least the number"),
        (lambda: effective_dimension([1.0], 0.1, rest=np.inf), r"^n_points must be at least .* and rest a finite"),
        (lambda: effective_dimension([1.0], 0.1, rest=-1.0), r"^n_points must be at least .* and rest a finite"),
        (lambda: theorem1_columns(-1.0, 10), r"^d_eff must be a finite number >= 0 and n_points at least 1\.$"),
        (lambda: theorem1_columns(np.inf, 10), r"^d_eff must be a finite number"),
        (lambda: theorem1_columns(1.0, 0), r"^d_eff must be a finite number"),
        (lambda: theorem1_columns(1.0, 10, delta=1.0), r"^delta must lie in \(0, 1\), got 1\.0\.$"),
        (lambda: theorem1_columns(1.0, 10, delta=0.0), r"^delta must lie in \(0, 1\)"),
        (lambda: theorem1_columns(1.0, 10, t=1.0), r"^t must lie in \(0, 1\), got 1\.0\.$"),
        (lambda: theorem1_columns(1.0, 10, t=0.0), r"^t must lie in \(0, 1\)"),
        (lambda: theorem1_columns(1.0, 10, beta=1.5), r"^beta must lie in \(0, 1\], got 1\.5\.$"),
        (lambda: theorem1_columns(1.0, 10, beta=0.0), r"^beta must lie in \(0, 1\]"),
        (lambda: theorem1_epsilon(lam, 0.0, 10), r"^The regularisation lambda "),
        (lambda: theorem1_epsilon([np.nan], 1e-3, 10), r"^eigvals must be"),
        (lambda: uniform_beta([0.0, 0.0]), r"^The leverage scores are all zero: the kernel is zero\.$"),
        (lambda: uniform_beta([np.inf]), r"^scores must be a non-empty list"),
    ]
    for call, message in refusals:
        with pytest.raises(ValueError, match=message):
            call()
