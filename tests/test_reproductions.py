"""The papers' findings, checked on our reruns: each test states a finding (or the reason
we do not reproduce one) and fails if the numbers stop supporting it.  Nothing here
compares with a number copied from an earlier run of ours."""

import re
from pathlib import Path

import numpy as np
import pytest

from mpcore import experiments as E
from mpcore.experiments import wang2016

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


# --- Wang 2016, Fig. 1: ridge-leverage against uniform columns ----------------------------------------


@pytest.fixture(scope="module")
def columns_quick():
    return E.run("wang2016-fig1", "quick", n_jobs=2)


def test_column_selection_is_judged_at_every_rank(columns_quick):
    """Wang (2016) Fig. 1: the verdict compares leverage with uniform at every rank run (no
    cut-off chosen after the run), and names the ranks where leverage is clearly better."""
    ranks = columns_quick.arrays["ranks"]
    reason = columns_quick.verdict.reason
    compared = int(re.search(r"clearly better at (\d+) of (\d+) ranks", reason).group(2))
    rounding = re.search(r"at M = ([\d, ]+) both errors are at rounding level", reason)
    assert compared + (len(rounding.group(1).split(",")) if rounding else 0) == ranks.size
    assert "speed-up" in reason and "kernel stability" in reason


def test_wang_bound_holds_wherever_its_condition_does(columns_quick):
    """Wang (2016), Thm 2 step II, at the quick size: the condition holds at most (seed,
    rank) pairs, and the bound at every one of them."""
    import re

    text = columns_quick.findings["Thm 2 step II bound where its condition ||T - T~|| <= r/2 holds"]
    held, valid, total = map(
        int, re.match(r"holds at (\d+) of the (\d+) pairs where the condition does \(of (\d+)\)", text).groups()
    )
    assert held == valid and valid >= total / 2


def test_width_and_lambda_are_tuned_on_the_tuning_set():
    split = wang2016.rings_train_tune(150)
    gamma, reg, grid = wang2016.tune_kcca(split, (0.25, 1.0), (1e-3, 1e-1))
    assert grid.shape == (2, 2) and np.all(np.abs(grid) <= 1)
    a, b = (0.25, 1.0).index(gamma), (1e-3, 1e-1).index(reg)
    assert grid[a, b] == np.nanmax(grid)
    assert np.isclose(wang2016.tuning_correlation(split, gamma, reg), grid[a, b])


# --- Hussain et al. 2011, Fig. 1: the KMP bound's minimum against the test error's ------------------------------


@pytest.fixture(scope="module")
def kmp_quick():
    return E.run("hussain2011-fig1", "quick", n_jobs=2)


def test_kmp_bound_is_judged_at_every_setting_the_app_offers(kmp_quick):
    """Hussain et al. (2011) Fig. 1 names no setting, so the verdict counts the settings
    where the test error at the bound's argmin is within 10 % of its minimum, recomputed here
    from the stored curves' summaries."""
    from mpcore.experiments._common import CLOSE

    a, s = kmp_quick.arrays, kmp_quick.settings
    assert a["sweep_settings"].size == len(s["datasets"]) * len(s["gamma_factors"]) * len(s["alpha_sds"])
    held = a["sweep_there"] <= (1 + CLOSE) * a["sweep_lowest"]
    judged = np.isfinite(a["sweep_predicted"])
    assert np.array_equal(held[judged], a["sweep_predicted"][judged] == 1)
    assert f"at {int(held[judged].sum())} of {int(judged.sum())} settings" in kmp_quick.verdict.reason


def test_kmp_argmin_spread_is_reported_per_split(kmp_quick):
    a = kmp_quick.arrays
    assert a["bound argmins"].size == a["test error argmins"].size == kmp_quick.settings["splits"]
    median = kmp_quick.findings["median argmin over splits: bound, test error"]
    assert median == (float(np.median(a["bound argmins"])), float(np.median(a["test error argmins"])))


def test_argmins_coincide_by_hand():
    from mpcore.experiments.hussain2011 import argmins_coincide

    assert argmins_coincide([10, 20, 30], [12, 22, 50]) == (True, pytest.approx(2 / 3))
    assert argmins_coincide([10, 10], [30, 30]) == (False, 0.0)


# --- Diethe 2015: Schur against ortho-Schur, and where tau comes from -------------------------------------


def _fisher_problem(m=80, seed=0):
    from mpcore.kernels import kernel_matrix

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    return kernel_matrix(X, kernel="rbf", gamma=0.5), y


@pytest.mark.parametrize("tau_from", ["deflated", "original"])
@pytest.mark.parametrize("criterion", ["optimal", "pseudo", "reverse"])
def test_ortho_schur_picks_what_schur_picks(criterion, tau_from):
    """Why our Schur and ortho-Schur rows agree where the paper's differ: Schur steps give the
    block Schur complement of span(tau_1..tau_t), and Gram-Schmidt keeps the span, whichever
    kernel tau is read from."""
    from mpcore import mpkfda_path

    K, y = _fisher_problem()
    schur = mpkfda_path(K, y, 15, criterion, "schur", tau_from=tau_from)
    ortho = mpkfda_path(K, y, 15, criterion, "ortho-schur", tau_from=tau_from)
    assert schur.indices.tolist() == ortho.indices.tolist()


def test_sequential_schur_is_the_block_schur_complement():
    from mpcore.deflations import ExplicitDeflation

    K, _ = _fisher_problem(40)
    rng = np.random.default_rng(1)
    for tau_from in ("deflated", "original"):
        deflation = ExplicitDeflation(K, "schur", tau_from)
        taus = []
        for i in rng.choice(40, 5, replace=False):
            source = deflation.current() if tau_from == "deflated" else K
            taus.append(source[:, i] / np.linalg.norm(source[:, i]))
            deflation.deflate(i)
        V = np.column_stack(taus)
        block = K - K @ V @ np.linalg.solve(V.T @ K @ V, V.T @ K)
        assert np.allclose(deflation.current(), block, atol=1e-9)


def test_tau_from_the_original_kernel_changes_other_deflations():
    from mpcore import mpkfda_path

    K, y = _fisher_problem(150)
    for deflation in ("projection", "hotelling", "ortho-projection"):
        a = mpkfda_path(K, y, 15, "optimal", deflation, tau_from="original").indices
        b = mpkfda_path(K, y, 15, "optimal", deflation).indices
        assert a.tolist() != b.tolist(), deflation


def test_schur_step_annihilates_its_direction():
    from mpcore.deflations import ExplicitDeflation

    K, _ = _fisher_problem(40)
    deflation = ExplicitDeflation(K, "schur")
    deflation.deflate(5)
    tau = K[:, 5] / np.linalg.norm(K[:, 5])
    assert np.linalg.norm(deflation.current() @ tau) < 1e-10 * np.linalg.norm(K)
    with pytest.raises(ValueError, match="tau_from"):
        ExplicitDeflation(K, "schur", tau_from="later")


def test_cross_validated_width_is_the_median_of_per_split_winners():
    """Diethe 2015, sec. 3.4: 5-fold CV of optimal + Schur on each of the first five splits over
    widths 2^-5..2^5 of exp(-||x - y||^2 / width); the median winner; our gamma = 1 / width."""
    from mpcore.experiments import diethe2015

    widths = diethe2015.PAPER_002_WIDTHS
    assert widths == (1 / 32, 1 / 8, 1 / 2, 2, 8, 32)
    winners = [widths[int(np.argmin(diethe2015._cv_width_job("sonar", n, 0, 10, 5, 60, widths, 5)))] for n in range(3)]
    gamma, width = diethe2015.cross_validated_gamma("sonar", 0, 10, 5, 60, n_splits=3)
    assert width == np.median(winners) and gamma == 1 / width


def test_fisher_table_records_schur_against_ortho_schur(tmp_path):
    result = E.run("diethe2015-fig1", "tiny")
    same = result.findings["Schur and ortho-Schur picked the same points"]
    runs, total = same.split(" of ")
    assert runs == total.split()[0]  # every run: the span argument above
    assert result.verdict is not None and "Schur and ortho-Schur" in result.verdict.reason


# --- Vincent and Bengio 2002, Table 1: USPS -------------------------------------------------------------------------


@pytest.mark.skipif(not (SHARED_DATA / "usps" / "usps.npz").is_file(), reason="needs the USPS validation data")
def test_usps_width_is_chosen_by_support_vectors_before_any_error_is_seen():
    """Vincent and Bengio (2002) Table 1 needs an SVM like the paper's: the width kept is the
    one whose support vectors, summed over the digits, are nearest the paper's 2914 scaled to
    the training digits used, and the item is judged only within 15 % of it (here 1200
    digits: the verdict says "not judged", and why, when no width gets close)."""
    from mpcore.experiments import vincent2002

    result = E.run("vincent2002-table1", "quick", data_dir=SHARED_DATA, n_train=1200, n_jobs=2)
    tried = {float(g): int(n) for g, n in result.findings["support vectors per width tried"].items()}
    target = 2914 * 1200 / 7291
    nearest = min(tried, key=lambda g: abs(tried[g] - target))
    assert result.settings["gamma"] == pytest.approx(nearest, rel=1e-3)
    kept = result.findings["support vectors summed"]
    assert kept == tried[nearest]
    judged = abs(kept - target) <= vincent2002.USPS_SV_TOLERANCE * target
    assert (result.verdict.status != "not judged") == judged
    if not judged:
        assert str(kept) in result.verdict.reason


# --- Hussain et al. 2011 Figs 2-5: what moves the sparse KPCA bounds' argmins -------------------------------------


def test_compression_argmin_grows_as_the_kernel_narrows():
    """Boston's compression-bound argmin is set by the kernel width the paper leaves unclear:
    a narrower RBF (larger gamma) needs more bases before the bound turns up."""
    result = E.run("hussain2011-fig2", "tiny", sweep=(0.02, 0.05, 0.1, 0.2), k=60)
    compression = result.arrays["sweep"][:, 0]
    assert np.all(np.diff(compression) > 0), compression


def test_every_reading_of_theorem_8_stays_far_above_the_other_bounds():
    result = E.run("hussain2011-fig3", "tiny")
    for reading in (
        "local Rademacher bound (printed: λ of K)",
        "local Rademacher bound (λ of K/m)",
        "local Rademacher bound (k² reading)",
    ):
        assert np.nanmin(result.table[reading]) > np.nanmin(result.table["compression bound"])
        assert np.nanmin(result.table[reading]) > np.nanmin(result.table["global Rademacher bound"])


def test_squared_kernel_spectrum_by_hand():
    from mpcore.cca import center_kernel
    from mpcore.experiments.hussain2011 import squared_kernel_spectrum

    K = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
    expected = np.sort(np.clip(np.linalg.eigvalsh(center_kernel(K**2)), 0, None))[::-1]
    np.testing.assert_allclose(squared_kernel_spectrum(K), expected, atol=1e-12)
