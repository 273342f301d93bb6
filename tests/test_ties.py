"""Exact ties decided by the documented rule, whatever the round-off (Diethe 2015's criteria
and deflations through :func:`mpcore.pursue`).

A polynomial kernel of integer points has integer entries, so every deflation and every
Fisher score can be replayed in rational arithmetic.  Rank-deficient kernels (feature rank
6) and duplicated rows make exact ties: once the deflated kernel has rank one every eligible
candidate scores the same, and a duplicated point scores as its twin.  The float path must
make the exact path's picks, an exact tie going to the lowest index.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mpcore
from mpcore.criteria import fisher_scatter_matrix
from mpcore.deflations import DEFLATIONS, ELIGIBILITY_RTOL

CRITERIA = ("optimal", "pseudo", "reverse", "reverse-pseudo")

#: Scores closer than this (relative) but not equal may go either way: round-off is allowed to tie them.
ROUND_OFF_GAP = 1e-8


def _matmul(A, B):
    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]


def _column(K, i):
    return [row[i] for row in K]


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def _outer_minus(K, a, b, scale):
    return [[K[r][c] - scale * a[r] * b[c] for c in range(len(K))] for r in range(len(K))]


def _exact_deflate(K, c, rule, Q):
    """One of the seven deflations in rational arithmetic, tau = the column c (unnormalised:
    every rule is a ratio in which its norm cancels); ``Q`` the earlier directions of an
    ``ortho-*`` rule.  K is not symmetric after a one-sided projection: K c and c'K differ."""
    two_sided = rule == "ortho-projection"  # Mackey's (I - P) K (I - P), P = c c' / c'c
    if rule.startswith("ortho-"):
        for q in Q:
            c = [a - _dot(q, c) / _dot(q, q) * b for a, b in zip(c, q)]
        if not any(c):
            return K
        Q.append(c)
        rule = rule[len("ortho-") :]
    Kc = [_dot(row, c) for row in K]
    cK = [_dot(c, _column(K, j)) for j in range(len(K))]
    cc, cKc = _dot(c, c), _dot(c, Kc)
    if rule == "none":
        return K
    if rule == "hotelling":  # K - (v'Kv) v v'
        return _outer_minus(K, c, c, cKc / cc**2)
    if rule == "projection":
        if two_sided:
            K = _outer_minus(_outer_minus(K, c, cK, 1 / cc), Kc, c, 1 / cc)
            return _outer_minus(K, c, c, -cKc / cc**2)
        return _outer_minus(K, c, cK, 1 / cc)  # (I - P) K
    if cKc == 0:  # schur: nothing to remove
        return K
    return _outer_minus(K, Kc, cK, 1 / cKc)


def _exact_scores(K, y, B, name):
    scores = []
    for i in range(len(K)):
        column = _column(K, i)
        numerator = _dot(column, y) ** 2
        if name.endswith("pseudo"):
            scores.append(numerator)
            continue
        denominator = _dot(column, [_dot(row, column) for row in B])
        # no within-class scatter: a perfect separation when the classes differ, else nothing
        scores.append(numerator / denominator if denominator else (float("inf") if numerator else Fraction(0)))
    return scores


def _exact_path(K0, y, name, rule, stages, k):
    """:func:`mpcore.pursue` in rational arithmetic: each stage ranks the eligible candidates
    by exact score, exact ties to the lowest index, and deflates its picks one by one.

    Returns the picks and the number of stages decided by an exact tie; the picks stop before
    a stage whose order round-off could change (two scores apart by less than
    :data:`ROUND_OFF_GAP` of themselves, not equal), with ``None`` as the last item."""
    m = len(K0)
    K = [[Fraction(int(v)) for v in row] for row in K0]
    B = [[Fraction(v).limit_denominator(10**6) for v in row] for row in fisher_scatter_matrix(y)]
    labels = [Fraction(int(v)) for v in y]
    threshold = ELIGIBILITY_RTOL * max(_dot(_column(K, i), _column(K, i)) for i in range(m))
    twins = [min(j for j in range(m) if _column(K, j) == _column(K, i)) for i in range(m)]
    sign = 1 if name.startswith("reverse") else -1
    chosen, Q, picks, ties = set(), [], [], 0
    while len(picks) < k:
        eligible = [i for i in range(m) if twins[i] not in chosen and _dot(_column(K, i), _column(K, i)) > threshold]
        if not eligible:
            break
        scores = _exact_scores(K, labels, B, name)
        order = sorted(eligible, key=lambda i: (sign * scores[i], i))[: min(stages, k - len(picks))]
        for a, b in zip(order, sorted(eligible, key=lambda i: (sign * scores[i], i))[1:]):
            if scores[a] != scores[b] and abs(scores[a] - scores[b]) <= ROUND_OFF_GAP * abs(scores[a]):
                return picks + [None], ties
        ties += sum(scores[i] == scores[order[0]] for i in eligible) > 1
        for p in order:
            column = _column(K, p)
            if twins[p] in chosen or not _dot(column, column) > threshold:
                continue  # a twin of this stage's pick, or nothing left of it: refused
            picks.append(p)
            chosen.add(twins[p])
            K = _exact_deflate(K, column, rule, Q)
    return picks, ties


def _agrees(path, exact):
    """The float path's picks equal the exact ones, up to a stage round-off may order either way."""
    picks = path.indices.tolist()
    if exact and exact[-1] is None:
        return picks[: len(exact) - 1] == exact[:-1]
    return picks == exact


@st.composite
def _problem(draw):
    m = draw(st.integers(6, 9))
    points = draw(st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=m, max_size=m))
    twins = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=2))
    for a, b in twins:
        points[b] = points[a]
    signs = draw(st.lists(st.sampled_from([1, -1]), min_size=m, max_size=m).filter(lambda s: 2 <= s.count(1) <= m - 2))
    return np.array(points, dtype=float), np.array(signs, dtype=float)


@pytest.mark.parametrize("rule", DEFLATIONS)
@pytest.mark.parametrize("name", CRITERIA)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(problem=_problem(), stages=st.sampled_from([1, 2]))
def test_the_float_path_makes_the_exact_paths_picks(name, rule, problem, stages):
    X, y = problem
    K = mpcore.kernel_matrix(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)  # integers: exact in floats
    k = min(len(y) - 1, 5 if rule.endswith("hotelling") else 7)
    path = mpcore.mpkfda_path(K, y, k, criterion=name, deflation=rule, stages=stages)
    exact, _ = _exact_path(K, y, name, rule, stages, k)
    assert _agrees(path, exact), (path.indices.tolist(), exact)


@pytest.mark.parametrize("name", ["optimal", "reverse"])
@pytest.mark.parametrize("rule", ["schur", "ortho-schur", "ortho-projection", "projection"])
def test_a_rank_one_deflated_kernel_ties_every_candidate_to_the_lowest_index(name, rule):
    """Feature rank 6, 24 points scaled by 3: at step 6 the deflated kernel has rank one and
    every eligible candidate's Fisher ratio is the same number, yet the float scores part by
    up to 4e-6 of themselves, far beyond the fixed 1e-9 tie tolerance; the pick must be the
    lowest eligible index."""
    rng = np.random.default_rng({"optimal": 20, "reverse": 12}[name])
    X = np.round(3 * rng.normal(size=(24, 2)), 1)
    y = np.repeat([1.0, -1.0], 12)[rng.permutation(24)]
    K = mpcore.kernel_matrix(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    path = mpcore.mpkfda_path(K, y, 6, criterion=name, deflation=rule)
    assert path.indices.size == 6
    eligible = np.flatnonzero(np.isfinite(path.scores[5]))
    assert eligible.size > 10
    assert path.indices[5] == eligible[0]


def test_the_exact_path_catches_a_pick_that_is_not_the_best():
    """The check itself: exact ties are decided on this problem, and a path whose second pick
    is replaced by its runner-up fails."""
    X = np.array([[0, 0], [0, 0], [1, 0], [2, 1], [0, 2], [1, 1], [2, 2], [-1, 1], [-2, 0]], dtype=float)
    y = np.array([1, 1, 1, 1, 1, -1, -1, -1, -1], dtype=float)
    K = mpcore.kernel_matrix(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    path = mpcore.mpkfda_path(K, y, 6, criterion="optimal", deflation="projection")
    exact, ties = _exact_path(K, y, "optimal", "projection", 1, 6)
    assert _agrees(path, exact) and ties >= 1
    row = np.where(np.isfinite(path.scores[1]), path.scores[1], -np.inf)
    runner_up = int(np.argsort(-row, kind="stable")[1])
    forged = type(path)(**{**path.__dict__, "indices": np.r_[path.indices[0], runner_up, path.indices[2:]]})
    assert not _agrees(forged, exact)


@pytest.mark.parametrize("rule", ["schur", "ortho-projection"])
def test_a_row_permutation_chooses_the_same_points(rule):
    """Duplicated rows: once one of two twins is chosen the other has nothing left, exactly.
    Deciding that from the twin's round-off residual let one order of the rows choose the
    twin again at step 6 (the other chose point 0, a real gap); twins are now never eligible
    after each other."""
    rng = np.random.default_rng(189)
    X = rng.normal(size=(24, 2))
    twins = rng.choice(24, 4, replace=False)
    X[twins[:2]] = X[twins[2:]]
    y = np.repeat([1.0, -1.0], 12)[rng.permutation(24)]
    K = mpcore.kernel_matrix(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    order = rng.permutation(24)
    path = mpcore.mpkfda_path(K, y, 8, criterion="optimal", deflation=rule)
    permuted = mpcore.mpkfda_path(K[np.ix_(order, order)], y[order], 8, criterion="optimal", deflation=rule)
    assert path.indices.size == permuted.indices.size == 6
    np.testing.assert_array_equal(X[path.indices], X[order][permuted.indices])
