"""Each deflation's algebraic facts (Diethe 2015, sec. 3.3.2) and the factored record of the path."""

import numpy as np
import pytest

import mpcore
from mpcore.deflations import DEFLATIONS, ExplicitDeflation, LowRankDeflation
from mpcore.mpkfda import mpkfda_path


def unit(v):
    return v / np.linalg.norm(v)


@pytest.fixture
def K():
    X = np.random.default_rng(7).normal(size=(30, 3))
    return mpcore.kernel_matrix(X, gamma=0.4)


def deflate_once(K, name, i):
    state = ExplicitDeflation(K, name)
    assert state.deflate(i)
    return state.current().copy()


def test_formulas_by_hand(K):
    i = 4
    tau = unit(K[:, i])
    expected = {
        "none": K,
        "hotelling": K - (tau @ K @ tau) * np.outer(tau, tau),
        "projection": (np.eye(30) - np.outer(tau, tau)) @ K,
        "schur": K - K @ np.outer(tau, tau) @ K / (tau @ K @ tau),
        # at the first step q = tau, so the orthogonalised forms reduce to the plain ones
        "ortho-hotelling": K - (tau @ K @ tau) * np.outer(tau, tau),
        "ortho-projection": (np.eye(30) - np.outer(tau, tau)) @ K @ (np.eye(30) - np.outer(tau, tau)),
        "ortho-schur": K - K @ np.outer(tau, tau) @ K / (tau @ K @ tau),
    }
    for name in DEFLATIONS:
        np.testing.assert_allclose(deflate_once(K, name, i), expected[name], atol=1e-12, err_msg=name)


def test_orthogonalised_deflations_use_gram_schmidt_vectors(K):
    state = ExplicitDeflation(K, "ortho-hotelling")
    state.deflate(2)
    q1 = unit(K[:, 2])
    after_one = state.current().copy()
    state.deflate(9)
    tau = unit(after_one[:, 9])
    q2 = unit(tau - q1 * (q1 @ tau))
    expected = after_one - (q2 @ after_one @ q2) * np.outer(q2, q2)
    np.testing.assert_allclose(state.current(), expected, atol=1e-12)
    assert abs(q1 @ q2) < 1e-12


@pytest.mark.parametrize("name", ["projection", "ortho-projection"])
def test_projection_annihilates_the_chosen_direction(K, name):
    Kd = deflate_once(K, name, 3)
    tau = unit(K[:, 3])
    np.testing.assert_allclose(tau @ Kd, 0, atol=1e-10)  # no part of any column along tau remains


def test_schur_annihilates_the_chosen_column_for_the_sparse_kpca_direction(K):
    # Schur with v = e_i is exactly the SKPCA deflation; with tau = K e_i/||K e_i|| it annihilates K^-1-direction
    Kd = deflate_once(K, "schur", 3)
    tau = unit(K[:, 3])
    np.testing.assert_allclose(Kd @ tau, 0, atol=1e-10)


@pytest.mark.parametrize("name", ["none", "hotelling", "schur", "ortho-hotelling", "ortho-projection", "ortho-schur"])
def test_symmetric_deflations_stay_symmetric(K, name):
    state = ExplicitDeflation(K, name)
    for i in (0, 11, 20, 5):
        state.deflate(i)
    np.testing.assert_allclose(state.current(), state.current().T, atol=1e-10)


def test_one_sided_projection_is_not_symmetric_but_its_gram_is_psd(K):
    Kd = deflate_once(K, "projection", 0)
    assert not np.allclose(Kd, Kd.T)
    # (I - tau tau') K keeps K's columns inside the orthocomplement of tau: a PSD inner-product structure
    assert np.linalg.eigvalsh(Kd.T @ Kd).min() > -1e-10


@pytest.mark.parametrize("name", ["schur", "ortho-projection", "ortho-schur"])
def test_psd_preserving_deflations(K, name):
    state = ExplicitDeflation(K, name)
    for i in (1, 13, 22, 7, 28):
        state.deflate(i)
        assert np.linalg.eigvalsh((state.current() + state.current().T) / 2).min() > -1e-9, name


def test_hotelling_with_a_pseudo_eigenvector_can_break_psd():
    # Diethe 2015: Hotelling's guarantees need a true eigenvector; with a kernel column it may go indefinite.
    K = mpcore.kernel_matrix(np.random.default_rng(1).normal(size=(40, 2)), gamma=0.05)
    state = ExplicitDeflation(K, "hotelling")
    state.deflate(0)
    assert np.linalg.eigvalsh(state.current()).min() < -1e-6


def test_hotelling_with_a_true_eigenvector_removes_exactly_that_eigenvalue(K):
    values, vectors = np.linalg.eigh(K)
    v = vectors[:, -1]
    from mpcore.deflations import _hotelling

    ((a, b),) = _hotelling(K, v)
    deflated = K - np.outer(a, b)
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(deflated)), np.sort(np.r_[values[:-1], 0.0]), atol=1e-10)


@pytest.mark.parametrize("name", DEFLATIONS)
def test_path_rebuilds_every_intermediate_kernel(K, name):
    y = np.where(np.arange(30) % 3 == 0, 1, -1)
    path = mpcore.mpkfda_path(K, y, 6, criterion="pseudo", deflation=name)
    state = ExplicitDeflation(K, name)
    for j, i in enumerate(path.indices, start=1):
        state.deflate(i)
        np.testing.assert_allclose(path.deflated_kernel(j), state.current(), atol=1e-10)


def test_fast_projection_state_agrees_with_explicit_projection(K):
    """KMP's factored deflation and MPKFDA's explicit one are the same operation (eq. 16)."""
    y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)
    kmp = mpcore.kmp_path(K, y, 8, variant="prefit")
    explicit = ExplicitDeflation(K, "projection")
    for j, i in enumerate(kmp.indices, start=1):
        explicit.deflate(i)
        np.testing.assert_allclose(kmp.deflated_kernel(j), explicit.current(), atol=1e-10)


@pytest.mark.parametrize("refresh_factor", [1e-8, 0.5])  # 0.5 forces the exact refresh nearly every step
def test_tracked_norms_match_the_explicit_deflated_kernel(monkeypatch, refresh_factor):
    import mpcore.deflations as deflations

    monkeypatch.setattr(deflations, "_REFRESH_FACTOR", refresh_factor)
    X = np.random.default_rng(3).normal(size=(50, 2))
    K = mpcore.kernel_matrix(X, gamma=0.3)  # fast-decaying spectrum: the residual shrinks a lot
    cholesky, projection = deflations.CholeskyDeflation(K), deflations.ProjectionDeflation(K, track={"y": X[:, 0]})
    two_view = deflations.TwoViewProjection(K, K**2)
    for i in mpcore.skpca_path(K, 12).indices:
        for state in (cholesky, projection, two_view):
            state.deflate(int(i))
        Kc = K - cholesky.L.view @ cholesky.L.view.T
        Kp = K - projection.Q.view @ projection.W.view.T
        scale = (K**2).sum(0).max()
        np.testing.assert_allclose(cholesky.column_sq_norms(), (Kc**2).sum(0), atol=1e-12 * scale)
        np.testing.assert_allclose(cholesky.diag(), np.diag(Kc), atol=1e-12)
        np.testing.assert_allclose(projection.column_sq_norms(), (Kp**2).sum(0), atol=1e-12 * scale)
        np.testing.assert_allclose(projection.columns_dot("y"), Kp.T @ X[:, 0], atol=1e-10)
        Ky = K**2 - two_view.y.Q.view @ two_view.y.W.view.T
        Kx = K - two_view.x.Q.view @ two_view.x.W.view.T
        np.testing.assert_allclose(two_view.cross, (Kx * Ky).sum(0), atol=1e-12 * scale)


@pytest.mark.parametrize("tau_from", ["deflated", "original"])
@pytest.mark.parametrize("name", DEFLATIONS)
def test_low_rank_deflation_tracks_what_the_explicit_matrix_holds(name, tau_from):
    """LowRankDeflation keeps K_j = K0 - U V' and updates the column norms, the weighted
    norms and K_j' v by rank-one terms: they must equal the explicit matrix's."""
    from mpcore.deflations import ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 3))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    y, w = np.sign(X[:, 0]), rng.uniform(0.5, 2.0, 90)
    explicit = ExplicitDeflation(K, name, tau_from)
    low = LowRankDeflation(K, name, tau_from, weights=w, track={"y": y})
    for i in rng.choice(90, 10, replace=False):
        assert explicit.deflate(int(i)) == low.deflate(int(i))
    Kj = explicit.current()
    np.testing.assert_allclose(low.current(), Kj, atol=1e-12)
    np.testing.assert_allclose(low.column_sq_norms(), (Kj**2).sum(axis=0), atol=1e-11)
    np.testing.assert_allclose(low.weighted_column_sq_norms(), (w[:, None] * Kj**2).sum(axis=0), atol=1e-11)
    np.testing.assert_allclose(low.columns_dot("y"), Kj.T @ y, atol=1e-11)


@pytest.mark.parametrize("criterion", ["optimal", "pseudo", "reverse", "reverse-pseudo", "random"])
def test_mpkfda_path_without_a_kernel_copy_picks_what_the_explicit_lab_picks(criterion):
    from mpcore.labs import lab_path

    rng = np.random.default_rng(8)
    X = rng.normal(size=(140, 3))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=140) > 0, 1.0, -1.0)
    for name in DEFLATIONS:
        for tau_from in ("deflated", "original"):
            ours = mpcore.mpkfda_path(K, y, 20, criterion, name, seed=2, tau_from=tau_from)
            theirs = lab_path(K, 20, "mpkfda", criterion, name, y=y, seed=2, tau_from=tau_from)
            np.testing.assert_array_equal(ours.indices, theirs.indices, err_msg=f"{name}, {tau_from}")
            np.testing.assert_allclose(
                ours.deflated_kernel(ours.n_steps), theirs.deflated_kernel(theirs.n_steps), atol=1e-10
            )


@pytest.mark.parametrize("name", DEFLATIONS)
def test_low_rank_sums_and_products_past_one_block_of_columns(name):
    """m = 300 spans two of LowRankDeflation's 256-column blocks: its exact sums (at the
    start and when refreshed) and its products K_j A and K_j' A with a fresh block A (no
    cached product) equal the explicit matrix's.  Mutations these catch: a block loop
    that stops after the first block or slices 257 columns, ``K_0 + U V'`` for ``K_0 - U V'``,
    a product that adds the low-rank term."""
    from mpcore.deflations import ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 3))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    w = rng.uniform(0.5, 2.0, 300)
    explicit, low = ExplicitDeflation(K, name), LowRankDeflation(K, name, weights=w)
    np.testing.assert_allclose(low.column_sq_norms(), (K**2).sum(axis=0), rtol=1e-12)
    for i in rng.choice(300, 6, replace=False):
        assert explicit.deflate(int(i)) == low.deflate(int(i))
    low._exact_sums()  # the refresh
    Kj = explicit.current()
    np.testing.assert_allclose(low.column_sq_norms(), (Kj**2).sum(axis=0), atol=1e-10)
    np.testing.assert_allclose(low.weighted_column_sq_norms(), (w[:, None] * Kj**2).sum(axis=0), atol=1e-10)
    A = rng.normal(size=(300, 2))
    np.testing.assert_allclose(low._K(A), Kj @ A, atol=1e-10)
    np.testing.assert_allclose(low._KT(A), Kj.T @ A, atol=1e-10)
    np.testing.assert_allclose(low._K(A[:, 0]), Kj @ A[:, 0], atol=1e-10)


@pytest.mark.parametrize("name", DEFLATIONS)
def test_deflations_leave_the_callers_kernel_alone_and_keep_their_names(name):
    """Deflating works on a copy (the caller's K is not changed), the state says which
    deflation it is, and a bad ``tau_from`` is refused by name."""
    from mpcore.deflations import ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(12)
    K = mpcore.kernel_matrix(rng.normal(size=(40, 3)), gamma=0.5)
    before = K.copy()
    for state in (ExplicitDeflation(K, name), LowRankDeflation(K, name)):
        for i in (3, 17, 29):
            state.deflate(i)
        assert state.name == name
        np.testing.assert_array_equal(K, before)
        with pytest.raises(ValueError, match=r"^Unknown tau_from 'later'"):
            type(state)(K, name, tau_from="later")


@pytest.mark.parametrize("name", DEFLATIONS)
def test_eligibility_is_relative_to_the_kernels_scale(name):
    """Scaling K by 1e-6 or 1e6 changes no pick and no refusal: the eligibility threshold is
    a share of the largest residual, not an absolute number (it was ``max(s, 1.0)`` or a
    division in the mutations this catches)."""
    from mpcore.deflations import ELIGIBILITY_RTOL, ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(13)
    K = mpcore.kernel_matrix(rng.normal(size=(30, 2)), gamma=2.0)
    for cls in (ExplicitDeflation, LowRankDeflation):
        results = []
        for scale in (1.0, 1e-6, 1e6):
            state = cls(K * scale, name)
            results.append([state.deflate(i) for i in list(range(30)) * 2])
            assert np.isclose(state.threshold, ELIGIBILITY_RTOL * scale**2 * (K**2).sum(axis=0).max(), rtol=1e-9)
        assert results[0] == results[1] == results[2], cls.__name__


def test_projection_state_threshold_exhaustion_and_tracked_vectors():
    """ProjectionDeflation (pre-fitting KMP's state): its eligibility threshold is a share
    of the largest column norm at any scale, a column deflated once is exhausted (a second
    pick is declined), and ``projected`` is the projected vector, not its D' v."""
    from mpcore.deflations import ELIGIBILITY_RTOL, ProjectionDeflation

    rng = np.random.default_rng(14)
    K = mpcore.kernel_matrix(rng.normal(size=(25, 2)), gamma=1.0)
    y = rng.normal(size=25)
    for scale in (1e-6, 1.0):
        state = ProjectionDeflation(K * scale, track={"y": y}, symmetric=True)
        assert np.isclose(state.threshold, ELIGIBILITY_RTOL * scale**2 * (K**2).sum(axis=0).max(), rtol=1e-12)
        assert state.deflate(4) is True and state.deflate(4) is False
        q = K[:, 4] / np.linalg.norm(K[:, 4])
        np.testing.assert_allclose(state.projected("y"), y - q * (q @ y), atol=1e-12)


def test_two_view_state_is_scale_free_and_needs_both_views():
    """Sparse KCCA's state: the residual sizes are each view's share of its largest norm, so
    scaling a view changes nothing; a view whose kernel is zero leaves nothing to choose;
    and a column exhausted in one view is declined even if the other still has it."""
    from mpcore.deflations import TwoViewProjection

    rng = np.random.default_rng(15)
    X, Y = rng.normal(size=(30, 2)), rng.normal(size=(30, 2))
    Kx, Ky = mpcore.kernel_matrix(X, gamma=1.0), mpcore.kernel_matrix(Y, gamma=1.0)
    base = TwoViewProjection(Kx, Ky).residual_size()
    for a, b in ((1e-3, 1.0), (1.0, 1e-3), (1e3, 1e3)):
        np.testing.assert_allclose(TwoViewProjection(Kx * a, Ky * b).residual_size(), base, rtol=1e-10)
    assert not TwoViewProjection(Kx, np.zeros_like(Ky)).residual_size().any()
    assert not TwoViewProjection(np.zeros_like(Kx), Ky).residual_size().any()
    rank_one = TwoViewProjection(np.ones((30, 30)), Ky)  # one deflation exhausts every column of X's kernel
    assert rank_one.deflate(0) is True and rank_one.deflate(7) is False


@pytest.mark.parametrize("name", ["projection", "hotelling", "ortho-projection"])
def test_tau_from_the_original_kernel_is_another_direction(name):
    """tau read from K_0 rather than the deflated kernel (Diethe 2015, sec. 3.2.4 leaves it
    open): after the first step the two readings deflate differently."""
    from mpcore.deflations import ExplicitDeflation

    rng = np.random.default_rng(16)
    K = mpcore.kernel_matrix(rng.normal(size=(30, 3)), gamma=0.5)
    a, b = ExplicitDeflation(K, name, "deflated"), ExplicitDeflation(K, name, "original")
    for i in (2, 11):
        a.deflate(i)
        b.deflate(i)
    assert not np.allclose(a.current(), b.current(), atol=1e-8)


@pytest.mark.parametrize("name", DEFLATIONS)
def test_a_deflated_column_is_declined_and_the_factors_rebuild_the_kernel(name):
    """Where a deflation wipes out the chosen column (projection), both states decline
    a second pick of it; with every deflation the recorded factors rebuild the deflated
    kernel: K_j = K_0 - left right'."""
    from mpcore.deflations import ExplicitDeflation, LowRankDeflation

    rng = np.random.default_rng(17)
    K = mpcore.kernel_matrix(rng.normal(size=(30, 3)), gamma=0.5)
    for cls in (ExplicitDeflation, LowRankDeflation):
        state = cls(K, name)
        assert state.deflate(5) is True
        if name == "projection":
            assert state.deflate(5) is False, cls.__name__
        state.deflate(12)
        np.testing.assert_allclose(K - state.left.view @ state.right.view.T, state.current(), atol=1e-10)


@pytest.mark.parametrize("state_class", [ExplicitDeflation, LowRankDeflation])
@pytest.mark.parametrize("name", ["ortho-projection", "ortho-hotelling", "ortho-schur"])
def test_orthogonalised_deflations_stay_on_their_formula_for_a_hundred_steps(state_class, name):
    """With tau from K0 the Gram-Schmidt vectors start near span(Q); one pass left q off
    orthogonal by eps / ||tau - QQ'tau||, and after 100 steps Q'Q was off I by up to 1 and the
    ortho-projection kernel by 0.45 from (I - QQ')K(I - QQ')."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(150, 2)), np.where(rng.random(150) < 0.4, 1, -1)
    K = mpcore.kernel_matrix(X, gamma=1.0)
    path = mpkfda_path(K, y, 100, criterion="reverse-pseudo", deflation=name, tau_from="original")
    state = state_class(K, name, tau_from="original")
    for i in path.indices:
        assert state.deflate(int(i))
    Q = state.Q.view
    assert Q.shape[1] >= 60
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), rtol=0, atol=1e-12)
    if name == "ortho-projection":
        P = np.eye(150) - Q @ Q.T
        np.testing.assert_allclose(path.deflated_kernel(path.n_steps), P @ K @ P, rtol=0, atol=1e-10)


def test_every_state_method_of_the_interface_has_the_shared_docstring_unless_it_has_its_own():
    """``KernelState.__init_subclass__`` hands its docstrings down (the API pages show them)."""
    from mpcore.deflations import OPTIONAL_METHOD_DOCS, KernelState

    interface = [name for name, member in vars(KernelState).items() if callable(member) and not name.startswith("_")]
    inherited = own = optional = 0
    for cls in KernelState.__subclasses__():
        for name in (*interface, *OPTIONAL_METHOD_DOCS):
            member = vars(cls).get(name)
            if not callable(member):
                continue
            shared = getattr(KernelState, name, None)
            if callable(shared) and member.__doc__ == shared.__doc__:
                inherited += 1
            elif name in OPTIONAL_METHOD_DOCS and member.__doc__ == OPTIONAL_METHOD_DOCS[name]:
                optional += 1
            else:
                assert member.__doc__, (cls.__name__, name)
                own += 1
    assert inherited >= 10 and optional >= 1 and own >= 3
    assert LowRankDeflation.column.__doc__.startswith("Column ``i`` of the current deflated kernel")
    assert ExplicitDeflation.deflate.__doc__ == KernelState.deflate.__doc__


def test_states_default_to_projection_and_bound_their_round_off():
    X = np.random.default_rng(2).normal(size=(25, 2))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    assert ExplicitDeflation(K).name == "projection" and LowRankDeflation(K).name == "projection"
    from mpcore.deflations import CholeskyDeflation

    state = CholeskyDeflation(K)
    eps = np.finfo(float).eps
    top = float((K * K).sum(axis=0).max())  # the largest squared column norm it started from
    assert state.column_sq_norm_error() == pytest.approx(8 * eps * top, rel=1e-12, abs=0)
    state.deflate(3)
    state.deflate(11)
    assert state.column_sq_norm_error() == pytest.approx(8 * eps * 3 * top, rel=1e-12, abs=0)


@pytest.mark.parametrize("name", ["schur", "ortho-schur"])
def test_schur_deflates_a_narrow_or_a_tiny_kernel(name):
    """The Schur step is a no-op only when v'Kv vanishes against the kernel's scale: not for a
    nearly diagonal kernel (v'Kv about max |K|), nor for a kernel of entries 1e-14."""
    X = np.random.default_rng(3).normal(size=(20, 2))
    for K in (mpcore.kernel_matrix(X, gamma=50.0), 1e-14 * mpcore.kernel_matrix(X, gamma=0.5)):
        state = ExplicitDeflation(K, name)
        assert state.deflate(4)
        tau = unit(K[:, 4])
        np.testing.assert_allclose(state.current() @ tau, 0.0, atol=1e-9 * np.abs(K).max())  # tau's direction gone
        assert state.rank == 1


def test_a_state_declines_a_spent_column_and_accepts_one_it_has_already_removed():
    """A column whose residual is gone is declined (False); with tau read from K0, a duplicate of a
    chosen point lies in span(Q): accepted (True), with nothing new removed."""
    from mpcore.deflations import CholeskyDeflation

    X = np.random.default_rng(4).normal(size=(20, 2))
    X[7] = X[3]  # a duplicated point
    K = mpcore.kernel_matrix(X, gamma=0.5)
    cholesky = CholeskyDeflation(K)
    assert cholesky.deflate(3) is True and cholesky.deflate(3) is False and cholesky.deflate(7) is False
    for cls in (ExplicitDeflation, LowRankDeflation):
        state = cls(K, "ortho-projection", tau_from="original")
        assert state.deflate(3) is True
        rank = state.rank
        assert state.deflate(7) is True and state.rank == rank


def test_low_rank_sums_past_two_blocks_of_columns():
    """The exact sums are taken 256 columns at a time: 600 columns need three blocks."""
    X = np.random.default_rng(5).normal(size=(600, 2))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    state = LowRankDeflation(K, "hotelling", weights=np.linspace(0.5, 1.5, 600))
    np.testing.assert_allclose(state.column_sq_norms(), (K * K).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(
        state.weighted_column_sq_norms(), (np.linspace(0.5, 1.5, 600)[:, None] * K * K).sum(axis=0), rtol=1e-12
    )


def test_a_projection_pick_whose_tracked_norm_drifted_is_declined_and_its_norm_corrected():
    """ProjectionDeflation downdates each column's squared norm; when the tracked norm has
    drifted above the true residual and the pick has nothing left, deflate declines it and
    writes the true norm back, so the candidate is no longer eligible (the engine never
    offers it again)."""
    from mpcore.deflations import ProjectionDeflation

    X = np.random.default_rng(7).normal(size=(12, 3))
    D = X @ X.T
    D[:, 5] = D[:, 2]  # column 5 repeats column 2: nothing is left of it once 2 is chosen
    state = ProjectionDeflation(D)
    assert state.deflate(2)
    true = float(np.sum((D[:, 5] - state.Q.view @ (state.Q.view.T @ D[:, 5])) ** 2))
    state.s[5] = 10 * state.threshold  # drifted: the tracked norm says there is something left
    assert not state.deflate(5)
    assert state.s[5] == pytest.approx(true, abs=1e-9 * state.threshold) and state.s[5] <= state.threshold
    assert state.residual_size()[5] <= state.threshold
