"""MPKFDA (Diethe 2015): criteria by hand, labels, stages, the Fisher learner."""

import numpy as np
import pytest

import mpcore
from mpcore.criteria import fisher_parts, fisher_scatter_matrix


def test_B_matrix_by_hand():
    y = np.array([1, 1, -1])  # m+ = 2, m- = 1, m = 3
    B = fisher_scatter_matrix(y)
    D = np.diag([2 * 1 / 3, 2 * 1 / 3, 2 * 2 / 3])
    C = np.zeros((3, 3))
    C[:2, :2] = 2 * 1 / (3 * 2)
    C[2, 2] = 2 * 2 / (3 * 1)
    np.testing.assert_allclose(B, D - C)


def test_fisher_parts_equal_the_quadratic_forms(xor_data):
    _, y, K = xor_data
    numerator, denominator = fisher_parts(K, y)
    B = fisher_scatter_matrix(y)
    np.testing.assert_allclose(numerator, (K.T @ y) ** 2)
    np.testing.assert_allclose(denominator, np.einsum("ij,ik,kj->j", K, B, K), rtol=1e-9, atol=1e-9)
    assert np.all(denominator >= 0)  # within-class scatter


@pytest.mark.parametrize("criterion,argfun", [("optimal", np.argmax), ("reverse", np.argmin)])
def test_first_pick_follows_the_fisher_ratio(xor_data, criterion, argfun):
    _, y, K = xor_data
    numerator, denominator = fisher_parts(K, y)
    path = mpcore.mpkfda_path(K, y, 3, criterion=criterion, deflation="none")
    assert path.indices[0] == argfun(numerator / denominator)
    assert path.pick == ("min" if criterion == "reverse" else "max")


def test_pseudo_criteria_use_the_numerator_only(xor_data):
    _, y, K = xor_data
    numerator, _ = fisher_parts(K, y)
    assert mpcore.mpkfda_path(K, y, 1, criterion="pseudo").indices[0] == np.argmax(numerator)
    assert mpcore.mpkfda_path(K, y, 1, criterion="reverse-pseudo").indices[0] == np.argmin(numerator)


def test_any_two_labels_are_accepted(xor_data):
    _, y, K = xor_data
    labels = np.where(y > 0, "spam", "ham")
    a = mpcore.mpkfda_path(K, labels, 5)
    b = mpcore.mpkfda_path(K, np.where(labels == "spam", 1, -1), 5)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert list(a.extras["classes"]) == ["ham", "spam"]


def test_random_criterion_is_seeded_and_uniform_over_eligible(xor_data):
    _, y, K = xor_data
    a = mpcore.mpkfda_path(K, y, 10, criterion="random", seed=1)
    b = mpcore.mpkfda_path(K, y, 10, criterion="random", seed=1)
    c = mpcore.mpkfda_path(K, y, 10, criterion="random", seed=2)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(a.indices, c.indices)
    assert len(set(a.indices)) == 10


def test_stages_pick_the_best_of_one_score_vector(xor_data):
    _, y, K = xor_data
    path = mpcore.mpkfda_path(K, y, 6, criterion="pseudo", deflation="projection", stages=3)
    first_scores = path.scores[0]
    np.testing.assert_array_equal(path.scores[1], first_scores)  # same stage, same row
    order = np.argsort(-np.nan_to_num(first_scores, nan=-np.inf), kind="stable")[:3]
    np.testing.assert_array_equal(path.indices[:3], order)
    assert not np.array_equal(path.scores[3], first_scores)


def test_stage_skips_a_duplicate_that_vanished():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 0.0], [0.0, 3.0], [3.0, 3.0], [1.0, 2.0]])
    y = np.array([1, 1, -1, -1, 1, -1])
    K = mpcore.kernel_matrix(X, gamma=0.5)
    path = mpcore.mpkfda_path(K, y, 4, criterion="pseudo", deflation="projection", stages=2)
    assert not {0, 1} <= set(path.indices.tolist())  # the duplicate pair is never both chosen


def test_fisher_learner_separates_xor(xor_data):
    _, y, K = xor_data
    path = mpcore.mpkfda_path(K, y, 15, criterion="optimal", deflation="projection")
    model = mpcore.fit_fisher(K, y, path.indices)
    accuracy = np.mean(np.sign(model.decision(K[:, path.indices])) == y)
    assert accuracy > 0.9
    assert np.linalg.norm(model.w) == pytest.approx(1.0)
    low, high = model.projected_means
    assert low < high  # class +1 projects higher


@pytest.mark.parametrize("criterion", mpcore.FISHER_CRITERIA)
@pytest.mark.parametrize("deflation", mpcore.DEFLATIONS)
def test_every_variant_runs_and_learns_something(xor_data, criterion, deflation):
    _, y, K = xor_data
    path = mpcore.mpkfda_path(K, y, 12, criterion=criterion, deflation=deflation, stages=2)
    assert path.n_steps == 12 and len(set(path.indices)) == 12
    model = mpcore.fit_fisher(K, y, path.indices)
    assert np.mean(np.sign(model.decision(K[:, path.indices])) == y) > 0.6


def _fisher_by_hand(p, y):
    """The Fisher ratio's parts for one projection p, from their meaning (Diethe 2015, eq. 2, 7):
    ``(p'y)^2`` and the within-class scatter, each class's sum of squares weighted by twice the
    *other* class's share, ``2 m-/m SS+ + 2 m+/m SS-``."""
    pos, neg = p[y > 0], p[y < 0]
    m = y.size
    scatter = 2 * neg.size / m * np.sum((pos - pos.mean()) ** 2) + 2 * pos.size / m * np.sum((neg - neg.mean()) ** 2)
    return float(p @ y) ** 2, scatter


@pytest.mark.parametrize("criterion", ["optimal", "pseudo", "reverse", "reverse-pseudo"])
@pytest.mark.parametrize("deflation", ["projection", "ortho-hotelling"])
def test_every_step_scores_the_fisher_ratio_on_imbalanced_classes(criterion, deflation):
    """70 positives against 20 negatives: each step's scores equal the ratio (or its numerator)
    computed from its meaning on the deflated kernel the path records, and the pick is their
    best.  On balanced XOR m+ = m-, so swapping them in the scatter, or the optimal and pseudo
    criteria, changed no test (two mutants survived the whole core suite)."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0.0, 1.0, size=(70, 2)), rng.normal(1.5, 0.5, size=(20, 2))])
    y = np.r_[np.ones(70), -np.ones(20)]
    K = mpcore.kernel_matrix(X, gamma=0.5)
    path = mpcore.mpkfda_path(K, y, 6, criterion=criterion, deflation=deflation)
    for j in range(path.n_steps):
        Kj = path.deflated_kernel(j)
        parts = np.array([_fisher_by_hand(Kj[:, i], y) for i in range(90)])
        expected = parts[:, 0] if "pseudo" in criterion else parts[:, 0] / parts[:, 1]
        scores = path.scores[j]
        ok = np.isfinite(scores)
        np.testing.assert_allclose(scores[ok], expected[ok], rtol=1e-7, atol=1e-12)
        best = np.argmin if criterion.startswith("reverse") else np.argmax
        assert path.indices[j] == np.flatnonzero(ok)[best(expected[ok])]


@pytest.mark.parametrize("name", ["optimal", "pseudo", "reverse"])
def test_fisher_criteria_score_an_explicit_kernel_as_the_tracked_one(name):
    """The Fisher criteria read their sums from a state that tracks them, or from the formed kernel
    of one that does not (the deflation lab's explicit states): the same scores either way."""
    from mpcore import criteria
    from mpcore.deflations import ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 2))
    y = np.where(rng.random(40) < 0.3, 1.0, -1.0)
    K = mpcore.kernel_matrix(X, gamma=0.5)
    D, _, _, track = criteria.fisher_scatter_parts(y)
    explicit, tracked = ExplicitDeflation(K, "projection"), LowRankDeflation(K, "projection", weights=D, track=track)
    for i in (5, 17):
        explicit.deflate(i)
        tracked.deflate(i)
    score, _ = criteria.fisher(name, y)
    np.testing.assert_allclose(score(explicit), score(tracked), rtol=1e-8, atol=1e-12)


def test_a_perfect_separation_scores_the_largest_float_not_infinity():
    """Columns constant within each class have no within-class scatter: the Fisher ratio is
    infinite, and the criterion says the largest float instead (a finite score the engine can rank)."""
    from mpcore import criteria
    from mpcore.deflations import ExplicitDeflation

    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # two per class: exact arithmetic
    y = np.array([1.0, 1.0, -1.0, -1.0])
    score, _ = criteria.fisher("optimal", y)
    scores, bounds = score(ExplicitDeflation(X @ X.T, "projection"))
    assert scores.dtype == float and np.all(scores == np.finfo(float).max) and np.all(bounds == 0)


def test_the_sparse_kpca_criterion_scores_any_state_exactly():
    """A state without the Cholesky state's exact rescoring (the lab's low-rank ones) gets the ratio of
    its own norms, which it keeps exactly."""
    from mpcore import criteria
    from mpcore.deflations import LowRankDeflation

    K = mpcore.kernel_matrix(np.random.default_rng(1).normal(size=(30, 2)), gamma=0.5)
    state = LowRankDeflation(K, "schur")
    state.deflate(4)
    Kj = state.current()
    expected = np.where(np.diag(Kj) > 0, (Kj * Kj).sum(axis=0) / np.where(np.diag(Kj) > 0, np.diag(Kj), 1), 0)
    scores = criteria.skpca(state)
    ok = np.diag(Kj) > 1e-12
    np.testing.assert_allclose(scores[ok], expected[ok], rtol=1e-9)
