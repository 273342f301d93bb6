"""The greedy loop itself (mpcore/engine.py): what it refuses, how it orders picks, and
what a path gives back -- tests written from the survivors of a mutation run
(benchmarks/mutation.md)."""

import numpy as np
import pytest

import mpcore
from mpcore import criteria
from mpcore.deflations import CholeskyDeflation
from mpcore.engine import TIE_RTOL, _pick_order, best_index, pursue
from mpcore.kmp import kmp_columns_path, kmp_path
from mpcore.mpkfda import mpkfda_path
from mpcore.skpca import skpca_columns_path, skpca_path

X = np.random.default_rng(0).normal(size=(30, 2))
K = mpcore.kernel_matrix(X, gamma=0.5)


def state():
    return CholeskyDeflation(K)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: pursue(None, criteria.skpca, 3),
            TypeError,
            r"^state must be a kernel state \(see mpcore.deflations\); NoneType lacks m, threshold, rank, residual_size, "
            r"deflate, kernels, factors\.$",
        ),
        (
            lambda: pursue(state(), "skpca", 3),
            TypeError,
            r"^criterion \(and stop_when, when given\) must be functions of the state, such as mpcore.criteria.skpca\.$",
        ),
        (lambda: pursue(state(), criteria.skpca, 3, stop_when=5), TypeError, r"^criterion \(and stop_when"),
        (
            lambda: pursue(state(), criteria.skpca, 0, allow_repeats=True),
            ValueError,
            r"^k \(the number of steps\) must be a whole number of at least 1, got 0\.$",
        ),
        (lambda: pursue(state(), criteria.skpca, 2.5, allow_repeats=True), ValueError, r"^k \(the number of steps\)"),
        (lambda: pursue(state(), criteria.skpca, True, allow_repeats=True), ValueError, r"^k \(the number of steps\)"),
        (lambda: pursue(state(), criteria.skpca, 30), ValueError, r"not sparse"),
        (lambda: pursue(state(), criteria.skpca, 3, pick="best"), ValueError, r"^Unknown pick 'best'; choose one of"),
        (
            lambda: pursue(state(), criteria.skpca, 3, stages=0),
            ValueError,
            r"^stages must be a whole number of at least 1, got 0\.$",
        ),
        (lambda: pursue(state(), criteria.skpca, 3, stages=True), ValueError, r"^stages must be a whole number"),
        (
            lambda: pursue(state(), criteria.skpca, 3, stages=None),
            ValueError,
            r"^stages must be a whole number of at least 1, got None\.$",
        ),
        (
            lambda: pursue(state(), criteria.skpca, 3, candidates=0),
            ValueError,
            r"^candidates must be a whole number of at least 1, got 0\.$",
        ),
        (lambda: pursue(state(), criteria.skpca, 3, candidates=2.0), ValueError, r"^candidates must be"),
    ],
)
def test_pursue_refuses_with_a_sentence(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_pursue_accepts_the_edges():
    assert pursue(state(), criteria.skpca, 1).n_steps == 1
    assert pursue(state(), criteria.skpca, 29).n_steps <= 29  # k = m - 1 is allowed
    assert pursue(state(), criteria.skpca, 35, allow_repeats=True, stop_when=lambda s, scores: None).n_steps <= 35
    sampled = pursue(state(), criteria.skpca, 3, candidates=1)  # one candidate per step, from a default rng
    assert sampled.n_steps == 3 and np.all(np.sum(np.isfinite(sampled.scores), axis=1) == 1)


def test_pick_order_takes_the_best_finite_scores_ties_to_the_lowest_index():
    scores = np.array([3.0, np.nan, 5.0, 5.0, 1.0, -np.inf])
    assert _pick_order(scores, "max", 1).tolist() == [2]
    assert _pick_order(scores, "min", 1).tolist() == [4]
    assert _pick_order(scores, "max", 3).tolist() == [2, 3, 0]
    assert _pick_order(scores, "min", 2).tolist() == [4, 0]
    assert _pick_order(scores, "max", 9).tolist() == [2, 3, 0, 4]  # only the finite ones
    assert _pick_order(np.full(4, np.nan), "max", 1).size == 0
    assert _pick_order(np.full(4, np.nan), "min", 2).size == 0


def test_scores_within_the_tie_tolerance_go_to_the_lowest_index():
    scores = np.array([3.0, 5.0, 5.0 * (1 + TIE_RTOL / 2), 5.0 * (1 + 4 * TIE_RTOL), 1.0])
    assert best_index(scores) == 3  # beyond the tolerance, the larger score wins
    scores[3] = 0.0
    assert best_index(scores) == 1  # 1 and 2 are tied: round-off, not a better candidate
    assert _pick_order(scores, "max", 3).tolist() == [1, 2, 0]
    low = np.array([2.0, 1.0 + 1e-13, 1.0, np.inf])
    assert best_index(low, "min") == 1 and _pick_order(low, "min", 9).tolist() == [1, 2, 0]
    assert best_index([np.nan, -np.inf]) == -1
    assert best_index([0.0, 0.0, -1.0]) == 0  # a best score of 0 ties only with exact zeros


MIRROR = np.vstack([X[:20], -X[:20]])  # every point has a mirror twin 20 rows on: all scores tie in pairs
MIRROR_K = mpcore.kernel_matrix(MIRROR, gamma=0.5)
MIRROR_PATHS = {
    "sparse KPCA": lambda K: skpca_path(K, 10).indices,
    "KMP": lambda K: kmp_path(K, MIRROR[:, 0] ** 2 + MIRROR[:, 1] ** 2, 10).indices,
    "MPKFDA": lambda K: mpkfda_path(K, np.tile(np.repeat([1.0, -1.0], 10), 2), 10).indices,
    "MPKFDA, two stages": lambda K: mpkfda_path(K, np.tile(np.repeat([1.0, -1.0], 10), 2), 10, stages=2).indices,
    "KMP, columns on demand": lambda K: kmp_columns_path(lambda idx: K[:, idx], MIRROR[:, 0] ** 2, 8, 40).indices,
    "sparse KPCA, columns on demand": lambda K: skpca_columns_path(lambda idx: K[:, idx], np.diag(K), 8, 40).indices,
}


@pytest.mark.parametrize("name", MIRROR_PATHS)
def test_exact_ties_give_one_path_whatever_the_round_off(name):
    """Mirror-image data: another machine's arithmetic (here, symmetric noise of 1e-14 on K)
    must not change a pick.  Before the tie rule, twelve noise draws gave 2 to 4 different
    paths; the first pick is now the lower twin."""

    def noisy(seed):
        E = np.random.default_rng(seed).normal(size=MIRROR_K.shape) * 1e-14
        return MIRROR_K + (E + E.T) / 2

    paths = {tuple(MIRROR_PATHS[name](noisy(seed)).tolist()) for seed in range(12)}
    assert len(paths) == 1, paths
    assert next(iter(paths))[0] < 20


def test_stages_share_a_score_row_and_follow_its_order():
    path = pursue(state(), criteria.skpca, 6, stages=3)
    first = path.scores[0]
    expected = np.argsort(-np.where(np.isfinite(first), first, -np.inf), kind="stable")[:3]
    assert path.indices[:3].tolist() == expected.tolist()
    np.testing.assert_array_equal(path.scores[1], first)
    np.testing.assert_array_equal(path.scores[2], first)
    assert not np.array_equal(path.scores[3], first)  # the next stage scores again


def test_a_path_gives_back_masks_blocks_and_kernels():
    path = mpcore.skpca_path(K, 5)
    for j in (0, 2, 5):
        mask = path.chosen_mask(j)
        assert mask.dtype == bool and mask.shape == (30,) and mask.sum() == j
        assert set(np.flatnonzero(mask)) == set(path.indices[:j].tolist())
        full = path.deflated_kernel(j)
        rows, cols = np.array([0, 7, 3]), np.array([1, 2])
        np.testing.assert_allclose(path.deflated_block(j, rows, cols), full[np.ix_(rows, cols)], atol=1e-12)
        np.testing.assert_allclose(path.deflated_block(j, rows), full[np.ix_(rows, rows)], atol=1e-12)
    assert path.chosen_mask().sum() == 5
    np.testing.assert_array_equal(path.deflated_kernel(0), K)
    assert np.abs(path.deflated_kernel(5)).max() < np.abs(K).max()
    for bad in ({"view": 1}, {"view": -1}):
        with pytest.raises(ValueError, match=r"^view must be one of \[0\], got"):
            path.deflated_kernel(1, **bad)
    with pytest.raises(ValueError, match="between 0 and 5"):
        path.deflated_block(6, [0])


def test_a_zero_kernel_stops_at_once_and_says_why():
    path = pursue(CholeskyDeflation(np.zeros((5, 5))), criteria.skpca, 2)
    assert path.n_steps == 0 and path.stop_reason.startswith("kernel is zero")


def test_pursue_names_the_object_it_cannot_use_and_takes_one_repeatable_step():
    with pytest.raises(TypeError, match=r"^state must be a kernel state \(see mpcore.deflations\); object lacks m,"):
        pursue(object(), criteria.skpca, 3)
    assert pursue(state(), criteria.skpca, 1, allow_repeats=True).n_steps == 1


def test_sampled_candidates_default_to_a_seeded_generator():
    default = pursue(state(), criteria.skpca, 4, candidates=5)
    seeded = pursue(state(), criteria.skpca, 4, candidates=5, rng=np.random.default_rng(0))
    other = pursue(state(), criteria.skpca, 4, candidates=5, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(default.indices, seeded.indices)
    assert not np.array_equal(np.isfinite(default.scores), np.isfinite(other.scores))


def test_chosen_and_exhausted_columns_are_never_picked():
    """A rank-2 kernel (a linear kernel of 2-D points) is exhausted after two picks, says
    so, and no step offers a chosen column again (its score is NaN)."""
    linear = X @ X.T
    path = pursue(CholeskyDeflation(linear), criteria.skpca, 5)
    assert path.n_steps == 2 and path.stop_reason.startswith("kernel exhausted")
    full = pursue(state(), criteria.skpca, 8)
    assert len(set(full.indices.tolist())) == 8
    for j in range(1, 8):
        assert np.isnan(full.scores[j][full.indices[:j]]).all()


def test_stages_never_overshoot_k_and_the_path_keeps_its_names():
    path = pursue(state(), criteria.skpca, 5, stages=3, algorithm="A", criterion_name="C", deflation_name="D")
    assert path.n_steps == 5 and (path.algorithm, path.criterion, path.deflation) == ("A", "C", "D")
    assert path.extras == {} and path.pick == "max"

    class WithExtras(CholeskyDeflation):
        def extras(self):
            return {"seen": self.rank}

    assert pursue(WithExtras(K), criteria.skpca, 2).extras == {"seen": 2}


def test_eligibility_does_not_lean_on_the_criterion():
    """A criterion that scores every column (chosen and exhausted ones too) still never
    gets a chosen or an exhausted column picked: eligibility is the loop's own."""
    everywhere = lambda s: np.ones(s.m)  # noqa: E731 - a criterion blind to what was chosen
    path = pursue(state(), everywhere, 5)
    assert path.indices.tolist() == [0, 1, 2, 3, 4]  # ties to the lowest eligible index
    assert pursue(CholeskyDeflation(X @ X.T), everywhere, 5).n_steps == 2
    repeats = pursue(state(), everywhere, 3, allow_repeats=True)
    assert repeats.indices.tolist() == [0, 1, 2]  # a Cholesky state wipes a chosen column out: no repeat


def test_a_path_names_nothing_it_was_not_told():
    path = pursue(state(), criteria.skpca, 2)
    assert (path.algorithm, path.criterion, path.deflation) == ("", "", "")


def test_twins_are_found_at_any_kernel_scale_and_only_where_columns_are_equal():
    from mpcore.engine import _twin_groups

    X = np.random.default_rng(2).normal(size=(30, 2))
    X[[7, 19]] = X[3]
    for scale in (1e-12, 1.0, 1e12):
        K = scale * mpcore.kernel_matrix(X, gamma=0.5)
        groups = _twin_groups((K,), 30)
        assert groups[[3, 7, 19]].tolist() == [3, 3, 3]
        assert np.array_equal(np.delete(groups, [7, 19]), np.delete(np.arange(30), [7, 19]))
    near = mpcore.kernel_matrix(np.r_[X[:29], X[3:4] + 1e-9], gamma=0.5)  # close, not equal: no twin
    assert _twin_groups((near,), 30)[29] == 29
    assert _twin_groups((np.ones((5, 30)), np.eye(30)), 30).tolist() == list(range(30))  # equal in one view only
