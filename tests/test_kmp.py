"""Kernel matching pursuit: pre-fitting = greedy OLS, back-fitting = orthogonal_mp, basic by hand, losses."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad
from sklearn.linear_model import orthogonal_mp

import mpcore
from mpcore.kmp import loss_gradient, loss_value


def greedy_ols(D, y, k):
    """Brute force: at each step try every unchosen column and keep the one whose
    least-squares fit (with the columns chosen so far) leaves the smallest residual."""
    chosen = []
    for _ in range(k):
        best, best_rss = None, np.inf
        for i in range(D.shape[1]):
            if i in chosen:
                continue
            A = D[:, chosen + [i]]
            coef = np.linalg.lstsq(A, y, rcond=None)[0]
            rss = np.sum((y - A @ coef) ** 2)
            if rss < best_rss - 1e-12:
                best, best_rss = i, rss
        chosen.append(best)
    return np.array(chosen)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prefit_equals_brute_force_greedy_least_squares(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=30)
    K = mpcore.kernel_matrix(X, gamma=0.7)
    path = mpcore.kmp_path(K, y, 8, variant="prefit")
    np.testing.assert_array_equal(path.indices, greedy_ols(K, y, 8))


def test_prefit_weights_are_least_squares_at_every_step(regression_data):
    _, y, K = regression_data
    path = mpcore.kmp_path(K, y, 10, variant="prefit")
    for j in range(1, 11):
        A = K[:, path.indices[:j]]
        coef = np.linalg.lstsq(A, y, rcond=None)[0]
        np.testing.assert_allclose(path.extras["coefs"][j - 1, :j], coef, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(path.extras["fitted"][j], A @ coef, atol=1e-8)


@pytest.mark.parametrize("k", [1, 5, 12])
def test_backfit_equals_sklearn_orthogonal_mp_on_normalised_columns(regression_data, k):
    _, y, K = regression_data
    path = mpcore.kmp_path(K, y, k, variant="backfit")
    norms = np.linalg.norm(K, axis=0)
    coef = orthogonal_mp(K / norms, y, n_nonzero_coefs=k)
    np.testing.assert_array_equal(np.sort(path.indices), np.flatnonzero(coef))
    weights = np.zeros(K.shape[1])
    weights[path.indices] = path.extras["coefs"][-1]
    np.testing.assert_allclose(weights, coef / norms, rtol=1e-6, atol=1e-9)


def test_prefit_deflated_kernel_is_the_projection_of_the_input():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    K = mpcore.kernel_matrix(X, gamma=1.0)
    y = rng.normal(size=25)
    path = mpcore.kmp_path(K, y, 4)
    current = K.copy()
    for j, i in enumerate(path.indices, start=1):
        tau = current[:, i].copy()
        current = current - np.outer(tau, tau @ current) / (tau @ tau)  # (I - tau tau'/tau'tau) K
        np.testing.assert_allclose(path.deflated_kernel(j), current, atol=1e-10)
        scores = np.abs(current.T @ y) / np.linalg.norm(current, axis=0)
        if j < path.n_steps:
            chosen = path.indices[:j]
            masked = scores.copy()
            masked[chosen] = -np.inf
            assert path.indices[j] == np.argmax(masked)


def test_basic_by_hand_on_an_orthogonal_dictionary():
    # Orthogonal columns: basic pursuit recovers each coefficient exactly, largest |<d, y>|/||d|| first.
    D = np.diag([1.0, 2.0, 4.0, 1.0])
    y = np.array([3.0, 1.0, 2.0, 0.5])  # <d_i, y>/||d_i|| = 3, 1, 2, 0.5
    path = mpcore.kmp_path(D, y, 3, variant="basic")
    np.testing.assert_array_equal(path.indices, [0, 2, 1])
    np.testing.assert_allclose(path.extras["coefs"][-1], [3.0, 0.5, 0.5])
    np.testing.assert_allclose(path.extras["fitted"][-1], [3.0, 1.0, 2.0, 0.0])
    np.testing.assert_allclose(path.deflated_kernel(3), D)  # basic pursuit never deflates the dictionary


def test_basic_may_pick_a_column_again():
    # d0 = e1 and d1 = e1 + e2 are not orthogonal: after fitting d1 the residual leans on d0 again.
    D = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.5]])
    y = np.array([1.0, 0.2, 0.0])
    path = mpcore.kmp_path(D, y, 3, variant="basic")
    np.testing.assert_array_equal(path.indices, [0, 1, 0])  # by hand: scores 1 vs .85, then 0 vs .14, then .1 vs 0
    np.testing.assert_allclose(path.extras["coefs"][-1], [1.0, 0.1, -0.1])
    np.testing.assert_allclose(path.extras["fitted"][-1], [1.0, 0.1, 0.0])


def test_residual_is_stopped_when_the_target_is_explained():
    D = np.eye(6)
    y = np.array([1.0, 2.0, 0, 0, 0, 0])
    path = mpcore.kmp_path(D, y, 5, variant="prefit")
    assert path.n_steps == 2 and "explained" in path.stop_reason


@pytest.mark.parametrize("loss", ["squared", "tanh", "logistic", "hinge"])
def test_loss_gradients_match_finite_differences(loss):
    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], size=20)
    f0 = rng.normal(scale=1.5, size=20)
    err = check_grad(lambda f: loss_value(loss, f, y).sum(), lambda f: loss_gradient(loss, f, y), f0)
    assert err < 1e-5


@pytest.mark.parametrize("loss", ["tanh", "logistic", "hinge"])
def test_backfit_with_margin_losses_lowers_the_loss_and_classifies_xor(xor_data, loss):
    _, y, K = xor_data
    path = mpcore.kmp_path(K, y, 15, variant="backfit", loss=loss, fit_intercept=True)
    losses = [loss_value(loss, f, y).sum() for f in path.extras["fitted"]]
    assert np.all(np.diff(losses) <= 1e-6)  # back-fitting re-optimises all weights: never worse
    assert np.mean(np.sign(path.extras["fitted"][-1]) == y) > 0.9


def test_squared_backfit_with_loss_machinery_agrees_with_closed_form(regression_data):
    """The general loss machinery (weights by L-BFGS on the summed loss) run with the
    squared loss picks the same columns as the closed form, and at every step both fits
    are the least-squares fit on the chosen columns.  (The test this replaces compared only
    the last residual with the first: dropping the refit, or refitting on the wrong
    columns, passed it.)"""
    from mpcore import criteria
    from mpcore.engine import pursue
    from mpcore.kmp import _LossPursuit

    _, y, K = regression_data
    closed = mpcore.kmp_path(K, y, 6, variant="backfit")
    state = _LossPursuit(K, y, "squared", "backfit", False)
    general = pursue(
        state,
        criteria.kmp_original_columns(),
        6,
        deflation_name=state.name,
        algorithm="KMP",
        criterion_name="criterion",
        candidates=None,
        rng=np.random.default_rng(0),
    )
    np.testing.assert_array_equal(general.indices, closed.indices)
    for j in range(1, 7):
        A = K[:, closed.indices[:j]]
        least_squares = A @ np.linalg.lstsq(A, y, rcond=None)[0]
        np.testing.assert_allclose(closed.extras["fitted"][j], least_squares, atol=1e-8)
        np.testing.assert_allclose(A @ state.coef_rows[j - 1], least_squares, atol=1e-4 * np.linalg.norm(y))


def test_prefit_rejects_non_squared_losses(xor_data):
    _, y, K = xor_data
    with pytest.raises(ValueError, match="Pre-fitting needs the squared loss"):
        mpcore.kmp_path(K, y, 3, variant="prefit", loss="tanh")
    with pytest.raises(ValueError, match="only -1 and \\+1"):
        mpcore.kmp_path(K, y * 2, 3, variant="backfit", loss="tanh")


@settings(max_examples=25, deadline=None)
@given(n=st.integers(6, 35), seed=st.integers(0, 10_000), variant=st.sampled_from(["basic", "backfit", "prefit"]))
def test_training_error_never_increases(n, seed, variant):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.normal(size=n)
    path = mpcore.kmp_path(mpcore.kernel_matrix(X, gamma=1.0), y, n - 1, variant=variant)
    rss = ((path.extras["fitted"] - y) ** 2).sum(axis=1)
    assert np.all(np.diff(rss) <= 1e-8 * (1 + rss[0]))


def test_pursuit_ends_when_the_state_declines_a_pick():
    """Regression: tracked norms that drift above the true ones once made the loop spin
    forever on a pick the state refused to deflate (sinc, RBF gamma = 10)."""
    from mpcore.datasets import load_dataset, prepare

    split = prepare(load_dataset("sinc", n_samples=500), seed=0)
    K = mpcore.kernel_matrix(split.X_train, gamma=10.0)
    path = mpcore.kmp_path(K, split.y_train - split.y_train.mean(), 30)
    assert path.n_steps == 30
    assert len(set(path.indices.tolist())) == 30


def test_engine_stops_when_every_pick_is_declined():
    class Stubborn:
        m, threshold, rank = 3, 1e-12, 0

        def residual_size(self):
            return np.ones(3)

        def deflate(self, i):
            return False

        def kernels(self):
            return (np.eye(3),)

        def factors(self):
            return ((None, None),)

    path = mpcore.pursue(Stubborn(), lambda state: np.arange(3.0), 2)
    assert path.n_steps == 0
    assert "exhausted" in path.stop_reason


@pytest.mark.parametrize("variant", ["prefit", "backfit"])
def test_least_squares_error_never_grows_on_near_dependent_columns(variant):
    """Regression: one Gram-Schmidt pass lost orthogonality on a numerically low-rank
    kernel (sinc, gamma = 10) and the training MSE jumped from 0.009 to 1.6 at step 25;
    refitting on more columns can never do worse."""
    from mpcore.datasets import load_dataset, prepare

    split = prepare(load_dataset("sinc", n_samples=500), seed=0)
    K = mpcore.kernel_matrix(split.X_train, gamma=10.0)
    y = split.y_train - split.y_train.mean()
    path = mpcore.kmp_path(K, y, 30, variant=variant)
    mse = ((path.extras["fitted"] - y) ** 2).mean(axis=1)
    assert np.all(np.diff(mse) <= 1e-9 * mse[0])


# --- the losses and the margin-loss pursuits, step by step (tests written from a mutation run's survivors) -----


def test_losses_by_hand_at_the_hinge_corners():
    """Each loss's value at margins chosen by hand (Vincent and Bengio 2002, sec. 3.2: squared, tanh
    with target 0.65; the smoothed hinge: 0 from z = 1, (1 - z)^2 / 2 between, 1/2 - z below 0)."""
    z = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    for y in (1.0, -1.0):
        f = z * y  # the same margins for either label
        np.testing.assert_allclose(loss_value("hinge", f, y), [1.5, 0.5, 0.125, 0.0, 0.0])
        np.testing.assert_allclose(loss_value("squared", f, y), 0.5 * (f - y) ** 2)
        np.testing.assert_allclose(loss_value("tanh", f, y), (np.tanh(f) - 0.65 * y) ** 2)
        np.testing.assert_allclose(loss_value("logistic", f, y), np.log1p(np.exp(-z)))
        np.testing.assert_allclose(loss_gradient("hinge", f, y), y * np.array([-1.0, -1.0, -0.5, 0.0, 0.0]))


def _picks_and_fits(path, K, y, loss):
    """Check a margin-loss path step by step against its definition; return the fitted values."""
    fitted = path.extras["fitted"]
    norms = np.linalg.norm(K, axis=0)
    for j, i in enumerate(path.indices):
        residual = -loss_gradient(loss, fitted[j], y)  # the functional gradient at the fit so far
        scores = np.abs(K.T @ residual) / norms
        scores[path.indices[:j]] = -np.inf  # a margin-loss pursuit picks each column once
        assert scores[i] >= scores.max() * (1 - 1e-9), (j, i, int(np.argmax(scores)))
        columns = K[:, path.indices[: j + 1]]
        expected = columns @ path.extras["coefs"][j, : j + 1] + path.extras["intercepts"][j]
        np.testing.assert_allclose(fitted[j + 1], expected, atol=1e-12)
    return fitted


@pytest.mark.parametrize("loss", ["tanh", "logistic", "hinge"])
def test_basic_pursuit_with_a_margin_loss_takes_the_best_step_along_each_pick(xor_data, loss):
    """Basic matching pursuit on a loss (Vincent and Bengio 2002, sec. 3.1): each step picks the column
    most correlated with the negative gradient and moves along it by the step that minimises the loss
    (the derivative along the column is zero there), keeping the earlier weights."""
    _, y, K = xor_data
    path = mpcore.kmp_path(K, y, 8, variant="basic", loss=loss)
    assert path.deflation == "none (gradient residual)" and path.n_steps == 8
    fitted = _picks_and_fits(path, K, y, loss)
    coefs = path.extras["coefs"]
    for j, i in enumerate(path.indices):
        np.testing.assert_allclose(coefs[j, :j], coefs[j - 1, :j] if j else [], atol=1e-12)  # earlier weights kept
        along = loss_gradient(loss, fitted[j + 1], y) @ K[:, i]
        assert abs(along) <= 1e-4 * max(1.0, np.abs(K[:, i]).sum())
        assert loss_value(loss, fitted[j + 1], y).sum() <= loss_value(loss, fitted[j], y).sum() + 1e-9
    assert np.all(path.extras["intercepts"] == 0)


@pytest.mark.parametrize("loss", ["tanh", "logistic"])
def test_backfit_with_a_margin_loss_is_optimal_in_every_weight_and_the_intercept(xor_data, loss):
    """Back-fitting on a loss refits all weights (and the free bias) after each pick: the gradient of the
    summed loss in every weight and in the bias is zero; before any pick the bias alone minimises it."""
    X, y, K = xor_data
    y = np.where(np.arange(y.size) % 4 == 0, -1.0, 1.0)  # three to one: the best constant is not 0
    path = mpcore.kmp_path(K, y, 6, variant="backfit", loss=loss, fit_intercept=True)
    fitted = _picks_and_fits(path, K, y, loss)
    assert abs(fitted[0][0]) > 0.1
    b0 = fitted[0][0]
    assert abs(loss_gradient(loss, np.full(y.size, b0), y).sum()) <= 1e-5 * y.size  # the best constant
    for j in range(path.n_steps):
        grad = loss_gradient(loss, fitted[j + 1], y)
        columns = K[:, path.indices[: j + 1]]
        assert np.abs(columns.T @ grad).max() <= 1e-3 and abs(grad.sum()) <= 1e-3, j
    without = mpcore.kmp_path(K, y, 3, variant="backfit", loss=loss)
    assert np.all(without.extras["intercepts"] == 0) and np.all(without.extras["fitted"][0] == 0)


def test_margin_loss_pursuits_do_not_depend_on_the_kernels_scale(xor_data):
    """Eligibility is relative to the largest column (a tiny kernel is not 'exhausted')."""
    _, y, K = xor_data
    for variant in ("basic", "backfit"):
        big = mpcore.kmp_path(K, y, 4, variant=variant, loss="tanh").indices
        small = mpcore.kmp_path(K * 1e-6, y, 4, variant=variant, loss="tanh").indices
        assert small.size == 4 and big.size == 4
    squared = [mpcore.kmp_path(K * s, y, 4, variant="basic").indices for s in (1.0, 1e-6)]
    np.testing.assert_array_equal(*squared)


def test_basic_squared_pursuit_stops_when_one_column_explains_the_target():
    """Basic matching pursuit keeps the residual r = y - f: a target equal to a column is explained
    after one step (a wrong residual would go on picking)."""
    K = mpcore.kernel_matrix(np.random.default_rng(0).normal(size=(30, 2)), gamma=0.5)
    path = mpcore.kmp_path(K, K[:, 5].copy(), 10, variant="basic")
    assert path.indices.tolist() == [5] and path.stop_reason.startswith("target fully explained")
    assert path.deflation == "none (residual only)"
    np.testing.assert_allclose(path.extras["fitted"][-1], K[:, 5], atol=1e-12)


# --- KMP with columns on demand ------------------------------------------------------------------------------


def _columns_of(K):
    return lambda idx: K[:, np.asarray(idx, dtype=int)]


def test_columns_path_fits_least_squares_and_returns_the_residual():
    from mpcore.kmp import kmp_columns_path

    rng = np.random.default_rng(4)
    K = mpcore.kernel_matrix(rng.normal(size=(60, 2)), gamma=0.5)
    y = rng.normal(size=60)
    path = kmp_columns_path(_columns_of(K), y, 6, candidates=60, seed=2)
    memory = mpcore.kmp_path(K, y, 6)
    np.testing.assert_array_equal(path.indices, memory.indices)
    A = K[:, path.indices]
    coefs = np.linalg.lstsq(A, y, rcond=None)[0]
    np.testing.assert_allclose(path.coefs, coefs, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(path.residual, y - A @ coefs, atol=1e-10)
    assert path.stop_reason is None
    same = kmp_columns_path(_columns_of(K), y, 6, candidates=20)
    np.testing.assert_array_equal(same.indices, kmp_columns_path(_columns_of(K), y, 6, candidates=20, seed=0).indices)
    one = kmp_columns_path(_columns_of(K), y, 3, candidates=1, seed=5)  # one candidate a step: random columns
    assert one.indices.size == 3 and len(set(one.indices.tolist())) == 3


def test_columns_path_stops_and_refuses_with_sentences():
    from mpcore.kmp import kmp_columns_path

    K = mpcore.kernel_matrix(np.random.default_rng(1).normal(size=(40, 2)), gamma=0.5)
    y = K[:, [3, 7]] @ np.array([1.0, -2.0])
    path = kmp_columns_path(_columns_of(K), y, 10, candidates=40)
    assert sorted(path.indices.tolist()) == [3, 7] and path.stop_reason.startswith("target fully explained")
    np.testing.assert_allclose(path.residual, 0.0, atol=1e-9)
    X = np.c_[np.ones(40), np.arange(40.0)]
    flat = X @ X.T  # columns in span{1, t}: a target orthogonal to both is correlated with none
    z = np.zeros(40)
    z[:3] = [1.0, -2.0, 1.0]
    none = kmp_columns_path(_columns_of(flat), z, 5, candidates=40)
    assert none.indices.size == 0 and none.stop_reason.startswith("no candidate is correlated")
    assert none.coefs.size == 0 and np.array_equal(none.residual, z) and none.residual is not z
    with pytest.raises(ValueError, match=r"^The target is all zeros; there is nothing to fit\.$"):
        kmp_columns_path(_columns_of(K), np.zeros(40), 3, candidates=5)
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match=r"^candidates must be a whole number of at least 1"):
            kmp_columns_path(_columns_of(K), y, 3, candidates=bad)


def test_kmp_path_names_its_parts_and_records_its_settings(xor_data):
    _, y, K = xor_data
    expected = {
        ("prefit", "squared"): "(I - tau tau' / tau'tau) K",
        ("backfit", "squared"): "none (least-squares refit)",
        ("basic", "squared"): "none (residual only)",
        ("backfit", "tanh"): "none (gradient residual)",
    }
    for (variant, loss), deflation in expected.items():
        path = mpcore.kmp_path(K, y, 3, variant=variant, loss=loss)
        assert (path.algorithm, path.criterion, path.deflation) == (
            "Kernel matching pursuit",
            "|K[:, i]' r| / ||K[:, i]||",
            deflation,
        )
        assert path.extras["variant"] == variant and path.extras["loss"] == loss
        assert np.all(path.extras["fitted"][0] == 0)  # nothing chosen, no intercept: f = 0
    backfit = mpcore.kmp_path(K, y, 4, variant="backfit")
    for j in range(5):  # back-fitting refits on the original dictionary: it is never deflated
        np.testing.assert_array_equal(backfit.deflated_kernel(j), K)
    prefit = mpcore.kmp_path(K, y, 4)
    assert not np.allclose(prefit.deflated_kernel(4), K)
    np.testing.assert_array_equal(
        mpcore.kmp_path(K, y, 4, candidates=10).indices, mpcore.kmp_path(K, y, 4, candidates=10, seed=0).indices
    )


def test_prefit_on_a_rectangular_dictionary_is_greedy_least_squares():
    """A dictionary need not be a kernel matrix: 40 points, 25 atoms."""
    rng = np.random.default_rng(8)
    D, y = rng.normal(size=(40, 25)), rng.normal(size=40)
    np.testing.assert_array_equal(mpcore.kmp_path(D, y, 6).indices, greedy_ols(D, y, 6))


def test_kmp_stops_at_any_scale_of_the_target():
    """The stopping rules are relative to ||y||: a target a million times larger stops where it did."""
    K = mpcore.kernel_matrix(np.random.default_rng(0).normal(size=(30, 2)), gamma=0.5)
    for variant in ("prefit", "basic"):
        path = mpcore.kmp_path(K, 1e6 * K[:, 5], 10, variant=variant)
        assert path.indices.tolist() == [5] and path.stop_reason.startswith("target fully explained")
    X = np.c_[np.ones(40), np.arange(40.0)]
    z = np.zeros(40)
    z[:3] = [1.0, -2.0, 1.0]  # orthogonal to both atoms of the dictionary
    path = mpcore.kmp_path(X @ X.T, 1e6 * z, 5)
    assert path.n_steps == 0 and path.stop_reason == (
        "no candidate is correlated with the residual any more; further columns cannot improve the fit."
    )
    unit = np.zeros(30)
    unit[3] = 1.0  # a target of norm exactly 1 is no zero target
    assert mpcore.kmp_path(K, unit, 2).n_steps == 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda K, y: mpcore.kmp_path(K, y, 3, variant="greedy"), r"^Unknown KMP variant 'greedy'; choose one of"),
        (lambda K, y: mpcore.kmp_path(K, y, 3, loss="l1"), r"^Unknown loss 'l1'; choose one of"),
        (lambda K, y: mpcore.kmp_path(K * np.nan, y, 3), r"^K "),
        (lambda K, y: mpcore.kmp_path(K - 2 * np.eye(len(K)), y, 3), r"^K\[0, 0\] = -1 is negative"),
        (lambda K, y: mpcore.kmp_path(K, 0 * y, 3), r"^The target is all zeros; there is nothing to fit\.$"),
        (
            lambda K, y: mpcore.kmp_path(K, y, 3, loss="tanh"),
            r"^Pre-fitting needs the squared loss; with a non-squared loss use variant 'backfit' or 'basic' "
            r"\(Vincent and Bengio 2002, sec\. 3\.1: pre-fitting would need one optimisation per candidate\)\.$",
        ),
        (lambda K, y: mpcore.kmp_path(K, y, 3, candidates=0), r"^candidates must be a whole number of at least 1"),
        (lambda K, y: mpcore.kmp_path(K, y, 3, candidates=True), r"^candidates must be a whole number of at least 1"),
        (lambda K, y: mpcore.kmp_path(K, y, 3, candidates=2.0), r"^candidates must be a whole number of at least 1"),
    ],
)
def test_kmp_path_refuses_with_its_own_sentence(xor_data, call, message):
    _, y, K = xor_data
    with pytest.raises(ValueError, match=message):
        call(K, y)
    assert mpcore.kmp_path(K, y, 2, candidates=1).n_steps == 2
