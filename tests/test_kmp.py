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
