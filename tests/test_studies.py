"""Studies and views: what the pages draw at step j, checked against the core."""

import numpy as np
import pytest

import mpcore
from mpcore.datasets import load_dataset, prepare
from mpcore.studies import kmp_study, mpkfda_study, skcca_study, skpca_study
from mpcore.views import display_order, embed_2d, grid_2d


@pytest.fixture(scope="module")
def moons():
    return prepare(load_dataset("moons", n_samples=200), seed=1)


def test_deflated_block_is_a_block_of_the_deflated_kernel(rng):
    X = rng.normal(size=(40, 3))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    rows = np.array([5, 1, 30, 7])
    for path in (mpcore.skpca_path(K, 6), mpcore.mpkfda_path(K, np.sign(X[:, 0]), 6, deflation="hotelling")):
        for j in (0, 3, 6):
            full = path.deflated_kernel(j)
            np.testing.assert_allclose(path.deflated_block(j, rows), full[np.ix_(rows, rows)], atol=1e-12)
            np.testing.assert_allclose(
                path.deflated_block(j, rows, cols=[0, 2]), full[np.ix_(rows, [0, 2])], atol=1e-12
            )
    with pytest.raises(ValueError, match="step j"):
        path.deflated_block(7, rows)


def test_display_order_sorts_and_caps():
    key = np.array([3.0, 1.0, 2.0, 1.0])
    np.testing.assert_array_equal(display_order(key), [1, 3, 2, 0])  # stable on ties
    order = display_order(np.arange(1000.0)[::-1], max_side=200)
    assert order.size == 200 and np.all(np.diff(order) < 0)  # sorted by key = descending index


def test_embed_2d_cases(rng):
    X1 = rng.normal(size=(10, 1))
    y = rng.normal(size=10)
    train, _, titles = embed_2d(X1, y_train=y, target_name="price")
    np.testing.assert_array_equal(train, np.c_[X1[:, 0], y])
    assert titles == ("x", "price")
    X5 = rng.normal(size=(30, 5)) * [10, 5, 1, 0.1, 0.1]
    train, test, titles = embed_2d(X5, X5[:4])
    assert train.shape == (30, 2) and test.shape == (4, 2)
    assert titles[0].startswith("PC 1")
    assert np.var(train[:, 0]) >= np.var(train[:, 1])


def test_grid_covers_the_points():
    xs, ys, grid = grid_2d(np.array([[0.0, 0.0], [1.0, 2.0]]), n=5)
    assert grid.shape == (25, 2)
    assert xs[0] < 0 and xs[-1] > 1 and ys[-1] > 2
    np.testing.assert_array_equal(grid[6], [xs[1], ys[1]])


def test_kmp_study_prediction_matches_the_path(moons):
    study = kmp_study(moons, k=8, gamma=1.0)
    fitted = study.fitted()
    np.testing.assert_allclose(study.train_mse()[8], np.mean((fitted[8] - moons.y_train) ** 2))
    for j in (0, 1, 5, 8):
        np.testing.assert_allclose(study.prediction(j, moons.X_train), fitted[j], atol=1e-9)
    xs, ys, values = study.decision_grid(4, n=20)
    assert values.shape == (20, 20)
    assert study.fit_curve(4) is None  # d = 2: no 1-D fit curve
    table = study.path_table()
    assert len(table["step"]) == 8
    np.testing.assert_array_equal(table["dataset row"], moons.train_index[study.path.indices])


@pytest.mark.parametrize("make", [lambda data: kmp_study(data, k=6, gamma=1.0), lambda data: mpkfda_study(data, k=6)])
def test_decision_grids_at_every_step_are_the_decision_on_the_grid(moons, make):
    study = make(moons)
    xs, ys, grids = study.decision_grids([6, 0, 3, 1], n=12)  # one kernel, its first j columns per step
    _, _, grid = grid_2d(np.vstack([study.coords, study.coords_test]), n=12)
    assert list(grids) == [6, 0, 3, 1]
    for j, values in grids.items():
        np.testing.assert_allclose(values, study.decision(j, grid).reshape(12, 12), atol=1e-10)
        np.testing.assert_allclose(study.decision_grid(j, n=12)[2], values, atol=1e-10)
    assert np.ptp(grids[6]) > 0 and not np.allclose(grids[6], grids[3])


def test_fit_curves_at_every_step_are_the_function_on_the_curve(moons):
    """One kernel for every step's curve (its first j columns serve step j): each is the
    prediction after j steps at the curve's points, and so :meth:`fit_curve` at j."""
    study = kmp_study(prepare(load_dataset("sinc", n_samples=90), seed=0), k=7, gamma=2.0)
    xs, curves = study.fit_curves([7, 0, 4, 1], n=50)
    assert list(curves) == [7, 0, 4, 1] and xs.shape == (50,)
    for j, values in curves.items():
        np.testing.assert_allclose(values, study.prediction(j, xs[:, None]), atol=1e-10)
        np.testing.assert_allclose(study.fit_curve(j, n=50)[1], values, atol=1e-10)
    assert not np.allclose(curves[7], curves[4])
    assert kmp_study(moons, k=3, gamma=1.0).fit_curves([3]) is None  # d = 2: no curve
    with pytest.raises(ValueError, match="step j"):
        study.fit_curves([8])


def test_criterion_at_step_j_is_the_score_that_chose_the_next_point(moons):
    study = skpca_study(moons, k=5)
    for j in range(5):
        scores, winner = study.criterion(j)
        assert winner == study.path.indices[j]
        assert winner == np.nanargmax(scores)
    assert study.criterion(5)[1] == study.path.indices[4]
    np.testing.assert_allclose(study.residuals(3), np.diag(study.path.deflated_kernel(3)), atol=1e-10)
    before, after = study.heatmaps(3)
    assert before.shape == after.shape == (study.order.size, study.order.size)


def test_fisher_study_decision_matches_fit_fisher(moons):
    study = mpkfda_study(moons, k=6)
    model = mpcore.fit_fisher(study.K, moons.y_train, study.path.indices[:4])
    np.testing.assert_allclose(
        study.decision(4, moons.X_train), model.decision(study.K[:, study.path.indices[:4]]), atol=1e-8
    )
    assert study.fisher(0) is None


def test_fisher_studys_kept_models_are_each_steps_fit_on_its_kernel(moons):
    """The models a study keeps from its curves (fitted once, not at every view of a step)
    are, at every step, the checked public fit on the study's kernel and labels, and the
    curves' test error is each one's."""
    study = mpkfda_study(moons, k=6, shrinkage=0.1)
    K_test, y_test = study.K_test, moons.y_test
    for j in range(1, 7):
        model = mpcore.fit_fisher(study.K, moons.y_train, study.path.indices[:j], shrinkage=0.1)
        kept = study.fisher(j)
        np.testing.assert_allclose(kept.w, model.w, atol=1e-12)
        np.testing.assert_allclose(kept.b, model.b, atol=1e-12)
        np.testing.assert_array_equal(kept.indices, model.indices)
        error = np.mean(np.sign(model.decision(K_test[:, model.indices])) != y_test)
        assert study.curves.curves["test error rate"][j - 1] == error
    assert study.fisher(3) is study.fisher(3)  # fitted once


def test_skcca_study_projections_agree_with_curves():
    split = prepare(load_dataset("rings-two-view", n_samples=200), seed=0)
    study = skcca_study(split, k=6)
    proj = study.projections(6)
    np.testing.assert_allclose(abs(proj["correlation"][0]), abs(study.curves.curves["train correlation"][5]), atol=1e-8)
    assert study.projections(0) is None
    assert study.heatmaps(2, view=1)[0].shape[0] == study.order.size


def test_skcca_studys_kept_variates_are_each_steps_fit_on_its_kernels():
    """The variates a study keeps from its curves (computed once, not at every view of a
    step) are, at every step, those of the checked public fit on the study's two kernels."""
    from mpcore.nystrom import nystrom_features

    split = prepare(load_dataset("rings-two-view", n_samples=160), seed=2)
    study = skcca_study(split, k=5, reg=0.01)
    Ky, Ky_test = study.extras["Ky"], study.extras["Ky_test"]
    for j in range(1, 6):
        idx = study.path.indices[:j]
        cca, Cx, Cy = mpcore.fit_sparse_cca(study.K, Ky, idx, reg=0.01)
        fx, fy = cca.transform(nystrom_features(study.K[:, idx], Cx), nystrom_features(Ky[:, idx], Cy))
        tx, ty = cca.transform(nystrom_features(study.K_test[:, idx], Cx), nystrom_features(Ky_test[:, idx], Cy))
        shown = study.projections(j)
        for got, want in zip((*shown["train"], *shown["test"]), (fx, fy, tx, ty)):
            np.testing.assert_allclose(got, want[:, 0], atol=1e-10)
        np.testing.assert_allclose(shown["correlation"][0], np.corrcoef(fx[:, 0], fy[:, 0])[0, 1], atol=1e-10)


def test_studies_reject_the_wrong_task():
    regression = prepare(load_dataset("sinc"), seed=0)
    with pytest.raises(ValueError, match="binary"):
        mpkfda_study(regression, k=3)
    with pytest.raises(ValueError, match="two views"):
        skcca_study(regression, k=3)


def test_step_view_has_no_next_pick_after_the_last_step(moons):
    study = skpca_study(moons, k=4)
    view = study.step_view(2)
    np.testing.assert_array_equal(view.chosen, study.path.indices[:2])
    assert view.next_pick == view.winner == study.path.indices[2]
    assert study.step_view(4).next_pick is None
