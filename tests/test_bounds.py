"""Bounds: hand-computed values (with a non-constant kernel diagonal and R != 1, so a
squared and an unsquared term differ), edge cases, monotonic facts."""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from mpcore import bounds


def comb_ln(n, k):
    return math.log(math.comb(n, k))


@pytest.mark.parametrize(
    "emp,m,t,delta,R", [(0.2, 500, 10, 0.05, 1.0), (0.0, 100, 1, 0.1, 2.0), (0.5, 1000, 300, 0.01, 1.0)]
)
def test_compression_subspace_by_hand(emp, m, t, delta, R):
    expected = emp + math.sqrt(R**2 / (2 * (m - t)) * (t * math.log(math.e * m / t) + math.log(2 * m / delta)))
    assert bounds.compression_subspace(emp, m, t, delta, R) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "m,k,t,delta", [(400, 10, 5, 0.05), (400, 10, 0, 0.05), (400, 0, 3, 0.05), (1000, 40, 100, 0.01)]
)
def test_kmp_vc_by_hand(m, k, t, delta):
    rest = m - k - t
    terms = (k + 1) * math.log2(4 * math.e * rest / (k + 1)) + math.log2(2 * m**2 / delta)
    if k:
        terms += k * math.log2(math.e * m / k)
    if t:
        terms += t * math.log2(math.e * (m - k) / t)
    assert bounds.kmp_vc(m, k, t, delta) == pytest.approx(2 / rest * terms, rel=1e-12)


@pytest.mark.parametrize("m,k,t,delta", [(300, 5, 0, 0.05), (300, 5, 7, 0.05), (50, 0, 0, 0.1), (1000, 30, 200, 0.01)])
def test_compression_classification_by_hand(m, k, t, delta):
    if t == 0:
        expected = (comb_ln(m, k) + math.log(m / delta)) / (m - k)
    else:
        expected = (comb_ln(m - k, t) + comb_ln(m, k) + math.log(m**2 / delta)) / (m - k - t)
    assert bounds.compression_classification(m, k, t, delta) == pytest.approx(expected, rel=1e-10)


def test_undefined_bounds_are_infinite():
    assert bounds.compression_subspace(0.1, 10, 10, 0.05) == np.inf
    assert bounds.kmp_vc(10, 5, 5, 0.05) == np.inf
    assert bounds.kmp_vc(10, 8, 5, 0.05) == np.inf
    assert bounds.compression_classification(10, 10, 0, 0.05) == np.inf
    assert bounds.compression_classification(10, 4, 6, 0.05) == np.inf


def test_vectorised_over_arrays():
    t = np.arange(1, 50)
    values = bounds.kmp_vc(500, t, 3, 0.05)
    assert values.shape == (49,)
    np.testing.assert_allclose(values, [bounds.kmp_vc(500, int(k), 3, 0.05) for k in t])
    grid = bounds.compression_classification(np.array([[200], [400]]), np.array([1, 5, 9]), 2, 0.05)
    assert grid.shape == (2, 3)


def test_pca_global_rademacher_by_hand():
    rng = np.random.default_rng(0)
    lam = rng.exponential(size=30)
    diag = np.ones(30)
    m, t, delta = 30, 4, 0.05
    tail = np.sort(lam)[::-1][t:].sum()
    expected = (
        tail / m
        + (1 + math.sqrt(t)) / math.sqrt(m) * math.sqrt(2 / m * 30)
        + math.sqrt(18 * math.log(2 * m / delta) / m)
    )
    assert bounds.pca_global_rademacher(lam, diag, t, delta) == pytest.approx(expected)


def test_pca_global_rademacher_squares_the_diagonal_and_the_radius():
    """A non-constant diagonal and R = 2 tell sum(kappa^2) from sum(kappa) and R^2 from
    R (with kappa = 1 and R = 1 both slips give the same number): writing
    ``np.sum(diag)`` or ``R * np.sqrt(...)`` in the code fails here."""
    rng = np.random.default_rng(1)
    lam = rng.exponential(size=25)
    diag = rng.uniform(0.5, 3.0, size=25)
    m, t, delta, R = 25, 3, 0.1, 2.0
    tail = np.sort(lam)[::-1][t:].sum()
    expected = (
        tail / m
        + (1 + math.sqrt(t)) / math.sqrt(m) * math.sqrt(2 / m * float(np.sum(diag**2)))
        + R**2 * math.sqrt(18 * math.log(2 * m / delta) / m)
    )
    assert bounds.pca_global_rademacher(lam, diag, t, delta, R=R) == pytest.approx(expected, rel=1e-12)
    slips = [
        tail / m
        + (1 + math.sqrt(t)) / math.sqrt(m) * math.sqrt(2 / m * float(np.sum(diag)))
        + R**2 * math.sqrt(18 * math.log(2 * m / delta) / m),
        expected - (R**2 - R) * math.sqrt(18 * math.log(2 * m / delta) / m),
    ]
    assert all(abs(slip - expected) > 1e-3 for slip in slips)  # the test can tell them apart


def test_local_rademacher_and_mpkfda_take_the_radius_where_the_theorems_do():
    """R enters the local bound linearly (rho's R t / m, the confidence R ln(1/delta) / m)
    and the MPKFDA bound as R in A and R^2 in B (Diethe 2015, eq. 10): with R = 2.5 a
    squared or a missing R gives another number."""
    lam, mu = np.array([0.6, 0.25, 0.1, 0.05]), np.array([0.35, 0.12, 0.03, 0.0])
    k, m, delta, R, c = 2, 4, 0.2, 2.5, 80
    conf = R * math.log(1 / delta) / m
    rho = min(R * t / m + math.sqrt(k / m * mu[t:].sum()) for t in range(5))
    expected = c * (math.sqrt(lam[k:].sum() * (rho + conf)) + rho + conf)
    assert bounds.pca_local_rademacher(lam, mu, k, m, delta, R=R) == pytest.approx(expected, rel=1e-12)

    means, variances, b, sizes, m, k, delta, R = (
        np.array([-3.0, 2.5]),
        np.array([0.3, 0.5]),
        0.1,
        np.array([2000, 1500]),
        3600,
        10,
        0.05,
        1.7,
    )
    d = delta / 2
    out = bounds.mpkfda(means, variances, b, sizes, m, k, delta, R=R)
    for c, sign, name in ((0, 1, "negative"), (1, -1, "positive")):
        n = sizes[c]
        A = R / math.sqrt(n) * (2 + math.sqrt(k * math.log(math.e * m / k) + 2 * math.log(2 * m / d)))
        B = 2 * R**2 / math.sqrt(n) * (2 + math.sqrt(k * math.log(math.e * m / k) + 2 * math.log(4 * m / d)))
        s = sign * (b - means[c]) - A
        assert s > 0  # an informative bound, so R matters
        assert out[name] == pytest.approx(1 - s**2 / (variances[c] + B + s**2), rel=1e-12)
    assert bounds.mpkfda(means, variances, b, sizes, m, k, delta, R=1.0)["total"] < out["total"]


def test_pca_local_rademacher_by_hand():
    lam = np.array([0.5, 0.2, 0.1, 0.05])
    mu = np.array([0.3, 0.1, 0.02, 0.0])
    k, m, delta, R, c = 1, 4, 0.1, 1.0, 80
    conf = R * math.log(1 / delta) / m
    rho = min(R * t / m + math.sqrt(k / m * mu[t:].sum()) for t in range(5))
    L = lam[k:].sum()
    expected = c * (math.sqrt(L * (rho + conf)) + rho + conf)
    assert bounds.pca_local_rademacher(lam, mu, k, m, delta) == pytest.approx(expected)
    assert bounds.pca_local_rademacher(lam, mu, np.array([1, 2]), m, delta).shape == (2,)


def test_mpkfda_by_hand():
    means, variances, b, sizes, m, k, delta = (
        np.array([-1.0, 1.0]),
        np.array([0.1, 0.2]),
        0.0,
        np.array([400, 300]),
        720,
        20,
        0.05,
    )
    d = delta / 2
    out = bounds.mpkfda(means, variances, b, sizes, m, k, delta)
    for c, sign in ((0, 1), (1, -1)):
        n = sizes[c]
        A = 1 / math.sqrt(n) * (2 + math.sqrt(k * math.log(math.e * m / k) + 2 * math.log(2 * m / d)))
        B = 2 / math.sqrt(n) * (2 + math.sqrt(k * math.log(math.e * m / k) + 2 * math.log(4 * m / d)))
        s = sign * (b - means[c]) - A
        expected = 1 - s**2 / (variances[c] + B + s**2) if s > 0 else 1.0
        assert out["negative" if c == 0 else "positive"] == pytest.approx(expected)
    assert out["total"] == pytest.approx((400 * out["negative"] + 300 * out["positive"]) / 700)
    trivial = bounds.mpkfda(np.array([-0.01, 0.01]), variances, 0.0, sizes, m, k, delta)
    assert trivial["total"] == 1.0  # margin smaller than the estimation error A


def test_bad_delta_and_counts():
    with pytest.raises(ValueError, match="delta"):
        bounds.kmp_vc(100, 3, 2, 1.5)
    with pytest.raises(ValueError, match="delta"):
        bounds.compression_subspace(0.1, 100, 3, 0)
    with pytest.raises(ValueError, match="whole number"):
        bounds.kmp_vc(100, 2.5, 2, 0.05)
    with pytest.raises(ValueError, match="whole number"):
        bounds.compression_classification(100, -1, 2, 0.05)


def test_running_min():
    np.testing.assert_array_equal(bounds.running_min([3.0, 1.0, 2.0, 0.5]), [3.0, 1.0, 1.0, 0.5])


@settings(max_examples=60, deadline=None)
@given(m=st.integers(50, 5000), k=st.integers(0, 40), t=st.integers(0, 40), delta=st.floats(1e-4, 0.5))
def test_monotonic_facts(m, k, t, delta):
    # Where few points are left outside the compression set (m - k - t small) the VC
    # term (k + 1) log2(4e(m - k - t) / (k + 1)) shrinks as k grows: the formula is
    # meaningless there, so the facts are checked where m is large against k + t.
    assume(m >= 10 * (k + t + 2))
    # complexity grows with k and with t ...
    assert bounds.kmp_vc(m, k + 1, t, delta) >= bounds.kmp_vc(m, k, t, delta)
    assert bounds.kmp_vc(m, k, t + 1, delta) >= bounds.kmp_vc(m, k, t, delta)
    assert bounds.compression_classification(m, k + 1, t, delta) >= bounds.compression_classification(m, k, t, delta)
    assert bounds.compression_classification(m, k, t + 1, delta) >= bounds.compression_classification(m, k, t, delta)
    if k >= 1:
        assert bounds.compression_subspace(0.0, m, k + 1, delta) >= bounds.compression_subspace(0.0, m, k, delta)
    # ... shrinks as m grows ...
    assert bounds.kmp_vc(2 * m, k, t, delta) <= bounds.kmp_vc(m, k, t, delta)
    assert bounds.compression_classification(2 * m, k, t, delta) <= bounds.compression_classification(m, k, t, delta)
    assert bounds.compression_subspace(0.0, 2 * m, max(k, 1), delta) <= bounds.compression_subspace(
        0.0, m, max(k, 1), delta
    )
    # ... and a smaller delta never gives a smaller bound
    assert bounds.kmp_vc(m, k, t, delta / 10) >= bounds.kmp_vc(m, k, t, delta)
    assert bounds.compression_classification(m, k, t, delta / 10) >= bounds.compression_classification(m, k, t, delta)
    assert bounds.compression_subspace(0.1, m, max(k, 1), delta / 10) >= bounds.compression_subspace(
        0.1, m, max(k, 1), delta
    )


# --- what mutation testing found untested (benchmarks/mutation.md) -------------------------------

SPECTRUM = np.linspace(5.0, 0.0, 20)
MEANS, VARIANCES, SIZES = np.array([-1.0, 1.0]), np.array([0.1, 0.2]), np.array([400, 300])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bounds.compression_subspace("x", 100, 5, 0.05), r"^emp_loss must be a real number"),
        (
            lambda: bounds.compression_subspace(-0.1, 100, 5, 0.05),
            r"^emp_loss \(the mean training loss outside the "
            r"compression set\) must be a finite number of at least 0\.$",
        ),
        (lambda: bounds.kmp_vc(100, 5, 3, None), r"^delta must be a real number or an array of them, not NoneType\.$"),
        (
            lambda: bounds.kmp_vc(100, 5, 3, 1.0),
            r"^The confidence parameter delta must lie strictly between 0 and 1\.$",
        ),
        (lambda: bounds.kmp_vc(100, 5.5, 3, 0.05), r"^k must be a whole number of at least 0\.$"),
        (lambda: bounds.kmp_vc("many", 5, 3, 0.05), r"^m must be a real number"),
        (lambda: bounds.pca_global_rademacher(SPECTRUM, [], 3, 0.05), r"^kernel_diag must be a non-empty list"),
        (lambda: bounds.pca_global_rademacher([], SPECTRUM, 3, 0.05), r"^eigvals must be a non-empty list"),
        (
            lambda: bounds.pca_global_rademacher(SPECTRUM, np.ones(5), 3, 0.05),
            r"^eigvals has 20 values but kernel_diag has 5; both come from the same m x m kernel\.$",
        ),
        (
            lambda: bounds.pca_global_rademacher(SPECTRUM, np.ones(20), 3, 0.05, R=0),
            r"^R must be a positive finite number\.$",
        ),
        (lambda: bounds.pca_local_rademacher(SPECTRUM, "mu", 3, 20, 0.05), r"^centered_eigvals must be a real number"),
        (
            lambda: bounds.pca_local_rademacher(SPECTRUM, SPECTRUM, 3, 0, 0.05),
            r"^m \(the training set size\) must be at least 1\.$",
        ),
        (
            lambda: bounds.pca_local_rademacher(SPECTRUM, SPECTRUM, 3, 20, 0.05, c=np.inf),
            r"^c must be a positive finite number\.$",
        ),
        (lambda: bounds.mpkfda("x", VARIANCES, 0.0, SIZES, 720, 20, 0.05), r"^class_means must be a real number"),
        (lambda: bounds.mpkfda(MEANS, None, 0.0, SIZES, 720, 20, 0.05), r"^class_variances must be a real number"),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, "b", SIZES, 720, 20, 0.05), r"^threshold must be a real number"),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, 0.0, "n", 720, 20, 0.05), r"^class_sizes must be a real number"),
        (
            lambda: bounds.mpkfda(np.ones(3), VARIANCES, 0.0, SIZES, 720, 20, 0.05),
            r"^class_means must hold two finite numbers per classifier \(negative class, positive class\), got shape \(3,\)\.$",
        ),
        (lambda: bounds.mpkfda(MEANS, np.ones(3), 0.0, SIZES, 720, 20, 0.05), r"^class_variances must hold two"),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, 0.0, np.ones(3), 720, 20, 0.05), r"^class_sizes must hold two"),
        (
            lambda: bounds.mpkfda(MEANS, [-0.1, 0.2], 0.0, SIZES, 720, 20, 0.05),
            r"^class_variances and class_sizes must be at least 0, and the threshold finite\.$",
        ),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, 0.0, [-1, 3], 720, 20, 0.05), r"^class_variances and class_sizes"),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, np.inf, SIZES, 720, 20, 0.05), r"^class_variances and class_sizes"),
        (
            lambda: bounds.mpkfda(MEANS, VARIANCES, 0.0, [[0, 0], [3, 4]], 720, 20, 0.05),
            r"^class_sizes must count at least one point outside the compression set\.$",
        ),
        (lambda: bounds.mpkfda(MEANS, VARIANCES, 0.0, SIZES, 720, 20, 0.05, R=-1), r"^R must be a positive"),
        (lambda: bounds.running_min(3.0), r"^running_min needs a list of bound values, not a single number\.$"),
        (
            lambda: bounds.running_min([1.0, np.nan]),
            r"^running_min needs numbers \(an undefined bound is \+inf\); the "
            r"values hold NaN\.$",
        ),
        (lambda: bounds.running_min(None), r"^values must be a real number"),
    ],
)
def test_each_refusal_names_its_argument(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_edges_that_are_allowed():
    """The edges of each check on the allowed side: a zero loss, delta just under 1, a zero
    variance, an empty class, m = 1, a singleton spectrum."""
    assert np.isfinite(bounds.compression_subspace(0.0, 100, 5, 0.999))
    assert np.isfinite(bounds.pca_global_rademacher([2.0], [1.0], 0, 0.05))
    assert np.isfinite(bounds.pca_local_rademacher([2.0], [1.0], 1, 1, 0.05))
    out = bounds.mpkfda(np.array([-3.0, 3.0]), np.array([0.0, 0.0]), 0.0, np.array([1000, 0]), 3000, 5, 0.05)
    assert (
        out["positive"] == 1.0 and out["negative"] < 1 and out["total"] == out["negative"]
    )  # the empty class weighs 0
    assert bounds.mpkfda(np.array([-3.0, 3.0]), VARIANCES, 0.0, np.array([1, 0]), 3000, 5, 0.05)["total"] == 1.0


def test_bounds_apply_elementwise_over_batches():
    """Batched inputs give what the calls one at a time give (the axes of the sums and
    minima are the last one, never the whole array)."""
    curves = np.array([[3.0, 1.0, 2.0], [5.0, 6.0, 4.0]])
    np.testing.assert_array_equal(bounds.running_min(curves), [[3.0, 1.0, 1.0], [5.0, 5.0, 4.0]])
    means = np.array([[-2.0, 2.0], [-3.0, 1.0], [-0.5, 0.5]])
    variances = np.array([[0.1, 0.2], [0.3, 0.1], [0.2, 0.2]])
    sizes = np.array([[1500, 1500], [2000, 1000], [1000, 2000]])
    batch = bounds.mpkfda(means, variances, 0.1, sizes, 3600, 10, 0.05)
    for row in range(3):
        one = bounds.mpkfda(means[row], variances[row], 0.1, sizes[row], 3600, 10, 0.05)
        for key in ("negative", "positive", "total"):
            assert batch[key][row] == pytest.approx(float(one[key]), rel=1e-12)
    assert len({round(float(v), 9) for v in batch["total"]}) == 3  # three different answers
    ks = np.array([1, 3, 7])
    np.testing.assert_allclose(
        bounds.pca_local_rademacher(SPECTRUM / 20, SPECTRUM / 25, ks, 20, 0.05),
        [bounds.pca_local_rademacher(SPECTRUM / 20, SPECTRUM / 25, int(k), 20, 0.05) for k in ks],
    )


def test_where_a_bound_stops_being_defined():
    """KMP (Thm 4) needs m - k - t > 0; the compression bounds need m - k (- t) > 0, at
    exactly the boundary and one past it."""
    assert bounds.kmp_vc(10, 4, 5, 0.05) < np.inf and bounds.kmp_vc(10, 5, 5, 0.05) == np.inf
    assert bounds.compression_classification(10, 9, 0, 0.05) < np.inf
    assert bounds.compression_classification(10, 10, 0, 0.05) == np.inf
    assert bounds.compression_classification(10, 4, 5, 0.05) < np.inf
    assert bounds.compression_classification(10, 5, 5, 0.05) == np.inf
    assert bounds.compression_classification(10, 0, 9, 0.05) < np.inf  # no basis: k = 0 is allowed
    assert (
        bounds.compression_subspace(0.1, 10, 9, 0.05) < np.inf
        and bounds.compression_subspace(0.1, 10, 10, 0.05) == np.inf
    )
    grid = bounds.compression_classification(np.array([10, 10, 10]), np.array([3, 3, 3]), np.array([0, 6, 7]), 0.05)
    assert np.isfinite(grid[:2]).all() and grid[2] == np.inf


def test_more_refusals_name_their_argument():
    with pytest.raises(TypeError, match=r"^delta must be a real number or an array of them, not str\.$"):
        bounds.kmp_vc(100, 5, 3, "x")
    with pytest.raises(TypeError, match=r"^delta must be a real number or an array of them\.$"):
        bounds.kmp_vc(100, 5, 3, ["a"])
    with pytest.raises(TypeError, match=r"^R must be a real number"):
        bounds.pca_global_rademacher(SPECTRUM, np.ones(20), 3, 0.05, R="x")
    with pytest.raises(ValueError, match=r"^eigvals must be a non-empty list"):
        bounds.pca_local_rademacher([], SPECTRUM, 3, 20, 0.05)


def test_rademacher_bounds_clip_rounding_and_reach_the_last_component():
    """Eigenvalues a hair below 0 (rounding) count as 0; with every component kept the
    tail sums are 0 (not the sentinel's 1)."""
    lam = np.array([3.0, 1.0, 0.5, -1e-3])
    clipped = np.clip(lam, 0, None)
    diag = np.array([1.0, 2.0, 0.5, 1.5])
    for t in range(5):
        assert bounds.pca_global_rademacher(lam, diag, t, 0.1) == bounds.pca_global_rademacher(clipped, diag, t, 0.1)
    m, delta = 4, 0.1
    everything = bounds.pca_global_rademacher(clipped, diag, 4, delta)
    assert everything == pytest.approx(
        (1 + 2) / 2 * math.sqrt(2 / m * float(np.sum(diag**2))) + math.sqrt(18 * math.log(2 * m / delta) / m)
    )
    assert bounds.pca_local_rademacher(lam, clipped, 1, 4, 0.1) == bounds.pca_local_rademacher(
        clipped, clipped, 1, 4, 0.1
    )
    # k = every component: L_k = 0, so the bound is c (rho + conf) alone
    mu = np.array([0.5, 0.3, 0.1, 0.05])
    R, c = 1.0, 80
    conf = R * math.log(1 / delta) / m
    rho = min(R * t / m + math.sqrt(4 / m * mu[t:].sum()) for t in range(5))
    assert bounds.pca_local_rademacher(clipped, mu, 4, m, delta) == pytest.approx(c * (rho + conf))


def test_local_rademacher_minimises_over_t_in_any_input_order():
    """rho = min over t of (R t / m + sqrt(k / m sum_{j > t} mu_j)) with mu sorted
    descending, whatever order mu comes in; a case whose minimum is at t = 3, not 0."""
    mu = np.array([0.02, 5.0, 0.01, 4.0, 3.0, 0.0])  # unsorted on purpose
    lam = np.array([6.0, 5.0, 4.0, 1.0, 0.5, 0.1])
    k, m, delta, R, c = 5, 6, 0.2, 0.05, 80.0
    ordered = np.sort(mu)[::-1]
    terms = [R * t / m + math.sqrt(k / m * ordered[t:].sum()) for t in range(7)]
    best = int(np.argmin(terms))
    assert best > 0  # the minimum is not at t = 0: the order of mu matters here
    conf = R * math.log(1 / delta) / m
    expected = c * (math.sqrt(lam[k:].sum() * (min(terms) + conf)) + min(terms) + conf)
    assert bounds.pca_local_rademacher(lam, mu, k, m, delta, R=R, c=c) == pytest.approx(expected, rel=1e-12)


def test_a_one_point_class_far_from_the_threshold_still_gets_a_bound():
    out = bounds.mpkfda(np.array([-30.0, 30.0]), np.array([0.1, 0.1]), 0.0, np.array([1, 1]), 3000, 5, 0.05)
    assert out["negative"] < 1 and out["positive"] < 1


def test_local_rademacher_can_take_every_eigenvalue_out():
    """With a tiny R the minimum over t is at t = m (every mu_j out: its tail sum is 0)."""
    mu, lam = np.array([0.4, 0.3, 0.2]), np.array([0.5, 0.3, 0.2])
    k, m, delta, R, c = 1, 3, 0.1, 1e-6, 80.0
    conf = R * math.log(1 / delta) / m
    rho = R * 3 / m  # t = 3: nothing left of mu
    expected = c * (math.sqrt(lam[k:].sum() * (rho + conf)) + rho + conf)
    assert bounds.pca_local_rademacher(lam, mu, k, m, delta, R=R, c=c) == pytest.approx(expected, rel=1e-12)


# --- the whole domain: against 50-digit mpmath, delta down to 1e-300 and m up to 1e9 -----------


def _mp_reference():
    import mpmath

    mpmath.mp.dps = 50
    return mpmath


def _mp_log_binomial(mp, n, k):
    return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)


def _mp_kmp_vc(mp, m, k, t, delta):
    m, k, t, delta = mp.mpf(m), mp.mpf(k), mp.mpf(t), mp.mpf(delta)
    rest = m - k - t
    bracket = (k + 1) * mp.log(4 * mp.e * rest / (k + 1), 2) + mp.log(2 * m**2 / delta, 2)
    if k:
        bracket += k * mp.log(mp.e * m / k, 2)
    if t:
        bracket += t * mp.log(mp.e * (m - k) / t, 2)
    return 2 / rest * bracket


def _mp_compression_classification(mp, m, k, t, delta):
    m, k, t, delta = mp.mpf(m), mp.mpf(k), mp.mpf(t), mp.mpf(delta)
    if t == 0:
        return (_mp_log_binomial(mp, m, k) + mp.log(m / delta)) / (m - k)
    return (_mp_log_binomial(mp, m - k, t) + _mp_log_binomial(mp, m, k) + mp.log(m**2 / delta)) / (m - k - t)


def _mp_compression_subspace(mp, emp, m, t, delta):
    m, t, delta = mp.mpf(m), mp.mpf(t), mp.mpf(delta)
    complexity = mp.log(2 * m / delta) + (t * mp.log(mp.e * m / t) if t else 0)
    return mp.mpf(emp) + mp.sqrt(complexity / (2 * (m - t)))


DOMAIN = dict(
    m=st.integers(10, 10**9),
    k_share=st.floats(0, 0.3),
    t_share=st.floats(0, 0.3),
    log_delta=st.floats(-300, math.log10(0.5)),
)


@settings(max_examples=150, deadline=None)
@given(**DOMAIN)
@example(m=100_000_000, k_share=0.0, t_share=1e-08, log_delta=-1.0)  # ln C(1e8, 1) kept 8 digits through log-gammas
def test_the_bounds_equal_50_digit_references_over_the_whole_domain(m, k_share, t_share, log_delta):
    """kmp_vc and compression_classification returned inf at delta = 1e-300 with m >= 1e5
    (2 m^2 / delta overflowed); every term is now a sum of logarithms."""
    mp = _mp_reference()
    k, t, delta = int(k_share * m), int(t_share * m), 10.0**log_delta
    assume(m - k - t > 0)
    for ours, exact in (
        (bounds.kmp_vc(m, k, t, delta), _mp_kmp_vc(mp, m, k, t, delta)),
        (bounds.compression_classification(m, k, t, delta), _mp_compression_classification(mp, m, k, t, delta)),
        (bounds.compression_subspace(0.1, m, t, delta), _mp_compression_subspace(mp, 0.1, m, t, delta)),
    ):
        assert np.isfinite(ours)
        assert abs(float(ours) - float(exact)) <= 1e-9 * abs(float(exact)), (m, k, t, delta, ours, exact)


def test_a_confidence_of_1e_300_at_a_million_points_is_finite():
    mp = _mp_reference()
    for m in (10**5, 10**6, 10**9):
        assert bounds.kmp_vc(m, 0, 0, 1e-300) == pytest.approx(float(_mp_kmp_vc(mp, m, 0, 0, 1e-300)), rel=1e-12)
        assert bounds.compression_classification(m, 0, 0, 1e-300) == pytest.approx(
            float(_mp_compression_classification(mp, m, 0, 0, 1e-300)), rel=1e-12
        )


def test_thm8_readings_differ_as_the_docs_say():
    """Hussain et al. 2011 Thm 8: with the proof's lambda(K/m) the bound falls as m grows (the
    paper's "as m -> inf" remark), with the printed lambda(K) it grows; on one kernel the printed
    reading is the larger (the bounds explorer and the sparse KPCA page say both)."""
    from mpcore.explore import model_spectrum

    operator, printed = [], []
    for m in (100, 1_000, 10_000):
        lam = model_spectrum(m, 1.5)
        operator.append(bounds.pca_local_rademacher(lam / m, lam[1:] / m, 20, m, 0.05))
        printed.append(bounds.pca_local_rademacher(lam, lam[1:], 20, m, 0.05))
    assert np.all(np.diff(operator) < 0) and np.all(np.diff(printed) > 0)
    assert all(p > o for p, o in zip(printed, operator))
    assert set(bounds.THM8_READINGS) == {"operator", "printed"}


def test_vacuous_is_one_rule_at_the_level_the_quantity_never_exceeds():
    """A bound on an error rate says nothing at 1 or more, a residual bound at R^2 or more;
    undefined (inf, nan) is vacuous too.  A curve vacuous at every t says nothing at all."""
    assert bounds.vacuous([0.999, 1.0, 1.2, np.inf, np.nan]).tolist() == [False, True, True, True, True]
    assert bounds.vacuous(0.5) is False and bounds.vacuous(0.5, level=0.25) is True
    assert bounds.vacuous([3.9, 4.0], level=4.0).tolist() == [False, True]  # a residual bound with R = 2
    assert bounds.says_something([1.84, 1.9, 2.4]) is False  # the KMP lesson's moons: lowest 1.84
    assert bounds.says_something([np.inf, 1.3, 0.97]) is True
    assert bounds.says_something([np.inf, np.nan]) is False
