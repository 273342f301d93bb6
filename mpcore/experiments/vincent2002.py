"""Vincent and Bengio 2002 (Vincent & Bengio 2002): KMP against SVM (Tables 1-3) and the 2-D picture (Fig. 6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ..curves import _kmp_predictions
from ..datasets import Dataset, load_dataset
from ..engine import PursuitPath
from ..kernels import kernel_matrix
from ..kmp import kmp_path, loss_value
from ._common import (
    CLOSE,
    MIN_REPEATS_FOR_A_TEST,
    MOSTLY,
    MUCH,
    Experiment,
    Progress,
    Verdict,
    _rbf,
    _sized,
    judged,
    run_parallel,
    share,
    titled,
)
from .diethe2015 import BUNDLED_BINARY

#: Vincent and Bengio 2002, Table 3: error (%) and #s.v. of SVM, KMP-mse, KMP-tanh on the four UCI sets.
PAPER_003_TABLE3 = {
    "breast-cancer": {"error": (3.41, 3.40, 3.49), "sv": (42, 7, 21)},
    "sonar": {"error": (20.6, 21.0, 26.6), "sv": (46, 39, 14)},
    "pima": {"error": (24.1, 23.9, 24.0), "sv": (146, 7, 27)},
    "ionosphere": {"error": (6.51, 6.87, 6.85), "sv": (68, 50, 41)},
}


# --- Vincent and Bengio 2002: KMP against SVM ---------------------------------------------------------------------

_KMP_SVM = {
    "tiny": {
        "repeats": 2,
        "n_max": 10,
        "n_max_tanh": 6,
        "C_grid": (1.0, 100.0),
        "gamma_grid": (0.5, 1.0),
        "datasets": ("sonar",),
    },
    "quick": {
        "repeats": 3,
        "n_max": 60,
        "n_max_tanh": 20,
        "C_grid": (0.1, 1.0, 10.0, 100.0, 1000.0),
        "gamma_grid": (0.25, 0.5, 1.0),
        "datasets": BUNDLED_BINARY,
    },
    "full": {
        "repeats": 50,
        "n_max": 150,
        "n_max_tanh": 50,
        "C_grid": (0.1, 1.0, 10.0, 100.0, 1000.0),
        "gamma_grid": (0.25, 0.5, 1.0, 2.0),
        "datasets": BUNDLED_BINARY,
    },
}
KMP_SVM_METHODS = ("SVM", "KMP-mse", "KMP-tanh")


def _thirds(dataset: Dataset, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Vincent and Bengio 2002, Table 3's protocol: a random split into equal training, validation and
    test thirds, standardised with the training statistics."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(dataset.n_samples)
    a, b = dataset.n_samples // 3, 2 * dataset.n_samples // 3
    parts = [order[:a], order[a:b], order[b:]]
    scaler = StandardScaler().fit(dataset.X[parts[0]])
    y = np.asarray(dataset.y, dtype=float)
    return [(scaler.transform(dataset.X[p]), y[p]) for p in parts]


def _early_stopped(
    path: PursuitPath, K_val: np.ndarray, y_val: np.ndarray, K_test: np.ndarray, y_test: np.ndarray, offset: float
) -> tuple[float, float, int]:
    """Pick the number of bases by validation error (first minimum); returns the
    validation error, the test error there and the number of bases."""
    f_val = _kmp_predictions(K_val, path, offset)
    val_errors = np.mean(np.sign(f_val) != y_val, axis=1)
    n = int(np.argmin(val_errors)) + 1
    f_test = _kmp_predictions(K_test, path, offset)[n - 1]
    return float(val_errors[n - 1]), float(np.mean(np.sign(f_test) != y_test)), n


def _kmp_svm_job(
    name: str, seed: int, n_max: int, n_max_tanh: int, C_grid: Sequence[float], gamma_grid: Sequence[float]
) -> dict[str, Any]:
    """One random thirds split: every method picks its kernel width from ``gamma_grid``
    (multiples of 1/d) and its own capacity (C, or the number of bases) on validation."""
    (X, y), (X_val, y_val), (X_test, y_test) = _thirds(load_dataset(name), seed)
    offset = float(y.mean())
    best: dict[str, tuple[float, float, float, float]] = {
        method: (np.inf, np.nan, np.nan, np.nan) for method in KMP_SVM_METHODS
    }
    for factor in gamma_grid:
        gamma = factor / X.shape[1]
        K, K_val, K_test = (kernel_matrix(A, X, kernel="rbf", gamma=gamma) for A in (X, X_val, X_test))
        for C in C_grid:
            model = SVC(C=C, kernel="precomputed").fit(K, y)
            val_error = np.mean(model.predict(K_val) != y_val)
            if val_error < best["SVM"][0]:
                test_error = float(np.mean(model.predict(K_test) != y_test))
                best["SVM"] = (float(val_error), test_error, float(model.n_support_.sum()), factor)
        mse = kmp_path(K, y - offset, min(n_max, len(y) - 1))
        val_error, test_error, n = _early_stopped(mse, K_val, y_val, K_test, y_test, offset)
        if val_error < best["KMP-mse"][0]:
            best["KMP-mse"] = (val_error, test_error, n, factor)
        tanh = kmp_path(K, y, min(n_max_tanh, len(y) - 1), variant="backfit", loss="tanh", fit_intercept=True)
        val_error, test_error, n = _early_stopped(tanh, K_val, y_val, K_test, y_test, 0.0)
        if val_error < best["KMP-tanh"][0]:
            best["KMP-tanh"] = (val_error, test_error, n, factor)
    return {
        "error": np.array([best[m][1] for m in KMP_SVM_METHODS], dtype=float),
        "sv": np.array([best[m][2] for m in KMP_SVM_METHODS], dtype=float),
        "gamma": np.array([best[m][3] for m in KMP_SVM_METHODS], dtype=float),
    }


def corrected_resampled_ttest(differences: ArrayLike, test_fraction_ratio: float = 1.0) -> float:
    """Nadeau & Bengio's corrected resampled t-test (used by Vincent and Bengio 2002, Table 3): the
    one-sided p-value of the mean of ``differences`` over J random splits, with the
    variance inflated by ``1/J + n_test/n_train``."""
    differences = np.asarray(differences, dtype=float)
    J = differences.size
    variance = differences.var(ddof=1) if J > 1 else 0.0
    if J < 2 or variance == 0:
        return 0.5 if np.all(differences == 0) else 0.0
    t = differences.mean() / np.sqrt((1.0 / J + test_fraction_ratio) * variance)
    return float(stats.t.sf(abs(t), J - 1))


def judge_kmp_vs_svm(names: Sequence[str], error: np.ndarray, sv: np.ndarray, p: np.ndarray, repeats: int) -> Verdict:
    """Vincent and Bengio (2002) Table 3 (sec. 5.3): "error rates are not significantly
    different (values in parentheses are the p-values for the difference with SVMs), but
    KMPs require much fewer support vectors".  ``error`` (%), ``sv`` (sets, methods in the
    order of :data:`KMP_SVM_METHODS`), ``p`` the corrected resampled t-test p-values.

    Per set and KMP variant: the error is close to the SVM's (within
    :data:`~._common.CLOSE`, or the paper's own ratio on that set when larger) -- if not,
    that part fails; if so, the test's p > 0.05 decides, with at least
    :data:`~._common.MIN_REPEATS_FOR_A_TEST` repetitions (fewer: not judged).  "Much fewer
    support vectors": fewer than the SVM's per set and KMP variant, and at most half of the
    SVM's in total over the sets (the paper's own table: fewer in 8 of 8, 206 against 604,
    0.34; "at most half" per set would fail it in 3 of 8)."""
    same: list[bool | None] = []
    far: list[str] = []
    for i, name in enumerate(names):
        paper = PAPER_003_TABLE3.get(name, {"error": (np.nan,) * 3})["error"]
        for j in (1, 2):
            allowed = max(CLOSE, paper[j] / paper[0] - 1) if np.isfinite(paper[0]) else CLOSE
            if error[i, j] > (1 + allowed) * error[i, 0] + 1e-12:
                same.append(False)
                far.append(f"{KMP_SVM_METHODS[j]} on {name} ({error[i, j]:.1f}% against {error[i, 0]:.1f}%)")
            else:
                same.append(bool(p[i, j] > 0.05) if repeats >= MIN_REPEATS_FOR_A_TEST else None)
    fewer = [sv[i, j] < sv[i, 0] for i in range(len(names)) for j in (1, 2)]
    ratio = float(sv[:, 1:].sum() / (2 * sv[:, 0].sum()))
    unjudged = sum(v is None for v in same)
    told = (
        f"KMP's error is too far from the SVM's for {', '.join(far)}"
        if far
        else "KMP's error is close to the SVM's on every set"
    )
    told += (
        f"; with {repeats} random thirds per set (paper: 50) the t-test cannot tell the other {unjudged} comparisons"
        if unjudged
        else f"; the t-test finds no difference in {sum(bool(v) for v in same)} of "
        f"{len(same)} comparisons ({repeats} thirds)"
    )
    told += (
        f"; KMP uses fewer support vectors than the SVM in {sum(fewer)} of {len(fewer)} cases, "
        f"{ratio:.2f} of the SVM's in total (much fewer: at most {1 / MUCH:g})."
    )
    errors_part = share(v for v in same if v is not None) if unjudged < len(same) else None
    more = bool(sv[:, 1:].sum() > 2 * sv[:, 0].sum())  # KMP with more support vectors in total
    return judged([errors_part, share(fewer), ratio <= 1 / MUCH], told, central=("vincent2002-table3", more))


def kmp_vs_svm(
    size: str = "quick",
    *,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    data_dir: str | Path | None = None,
    **overrides: Any,
) -> Experiment:
    """Vincent and Bengio 2002, Table 3: SVM (scikit-learn ``SVC``, C chosen on the validation third),
    KMP-mse (pre-fitting) and KMP-tanh (back-fitting, non-squared loss), both stopped
    early on the validation third, on random train/validation/test thirds of each set.
    All three use an RBF kernel whose gamma each picks on the same validation third from
    the same grid (``gamma_grid`` times 1/d, inputs standardised).

    Arrays ``error`` (%) and ``sv`` (datasets, methods) averaged over repeats, ``p`` the
    one-sided corrected resampled t-test p-values of each KMP against SVM.  Table: one
    row per dataset with ours and the paper's numbers.
    """
    s = _sized(_KMP_SVM, size, overrides)
    names = tuple(s["datasets"])
    jobs = [
        (name, seed + r, s["n_max"], s["n_max_tanh"], tuple(s["C_grid"]), tuple(s["gamma_grid"]))
        for name in names
        for r in range(s["repeats"])
    ]
    runs = run_parallel(_kmp_svm_job, jobs, n_jobs, progress)
    error = np.zeros((len(names), 3))
    sv = np.zeros((len(names), 3))
    p = np.full((len(names), 3), np.nan)
    gammas = np.zeros((len(names), 3))
    for i, _name in enumerate(names):
        mine = runs[i * s["repeats"] : (i + 1) * s["repeats"]]
        errors = np.stack([run["error"] for run in mine]) * 100
        error[i], sv[i] = errors.mean(axis=0), np.mean([run["sv"] for run in mine], axis=0)
        gammas[i] = np.median([run["gamma"] for run in mine], axis=0)
        for j in (1, 2):
            p[i, j] = corrected_resampled_ttest(errors[:, j] - errors[:, 0])
    table = {"dataset": np.array(names)}
    for j, method in enumerate(KMP_SVM_METHODS):
        table[f"{method} error (%)"] = error[:, j]
    for j in (1, 2):
        table[f"{KMP_SVM_METHODS[j]} p-value"] = p[:, j]
    for j, method in enumerate(KMP_SVM_METHODS):
        table[f"{method} #sv"] = sv[:, j]
    for j, method in enumerate(KMP_SVM_METHODS):
        table[f"paper {method} error (%)"] = np.array(
            [PAPER_003_TABLE3.get(n, {"error": (np.nan,) * 3})["error"][j] for n in names], dtype=float
        )
        table[f"paper {method} #sv"] = np.array(
            [PAPER_003_TABLE3.get(n, {"sv": (np.nan,) * 3})["sv"][j] for n in names], dtype=float
        )
    findings = {
        name: {
            "error %": dict(zip(KMP_SVM_METHODS, np.round(error[i], 1).tolist())),
            "#sv": dict(zip(KMP_SVM_METHODS, np.round(sv[i]).astype(int).tolist())),
            "p vs SVM": dict(zip(KMP_SVM_METHODS[1:], np.round(p[i, 1:], 2).tolist())),
        }
        for i, name in enumerate(names)
    }
    for j, method in enumerate(KMP_SVM_METHODS):
        table[f"{method} gamma x d (median)"] = gammas[:, j]
    arrays = {
        "error": error,
        "sv": sv,
        "p": p,
        "gamma": gammas,
        "datasets": np.array(names),
        "methods": np.array(KMP_SVM_METHODS),
    }
    verdict = judge_kmp_vs_svm(names, error, sv, p, s["repeats"])
    return Experiment(
        "vincent2002-table3",
        titled("vincent2002-table3"),
        table,
        arrays,
        s,
        findings,
        verdicts={"vincent2002-table3": verdict},
    )


_KMP_PICTURE = {
    "tiny": {"n_train": 40, "n_test": 200, "noise": 0.1, "gamma": 2.0, "basic_steps": 30, "grid": 25},
    "quick": {"n_train": 120, "n_test": 2000, "noise": 0.1, "gamma": 2.0, "basic_steps": 100, "grid": 80},
    "full": {"n_train": 120, "n_test": 10000, "noise": 0.1, "gamma": 2.0, "basic_steps": 100, "grid": 120},
}
KMP_PICTURE_METHODS = ("basic KMP", "back-fitting KMP", "pre-fitting KMP", "SVM")


def _moons_picture_data(
    n_train: int, n_test: int, noise: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Two moons: the first ``n_train`` points train, the rest test; standardised with
    the training statistics."""
    data = load_dataset("moons", n_samples=n_train + n_test, noise=noise, seed=seed)
    X, y = StandardScaler().fit(data.X[:n_train]).transform(data.X), np.asarray(data.y, dtype=float)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _final_prediction(K_rows: np.ndarray, path: PursuitPath, offset: float) -> np.ndarray:
    """The KMP model after its last step, evaluated on kernel rows (n, m)."""
    idx, j = path.indices, path.n_steps
    return np.asarray(K_rows[:, idx] @ path.extras["coefs"][j - 1, :j] + path.extras["intercepts"][j - 1] + offset)


#: 'a reasonable solution' (a classifier): test error within this many points of the reference's.
REASONABLE = 0.05


def judge_kmp_picture(
    test_error: Sequence[float], basic_train_error: float, support: Mapping[str, Any], basic_steps: int
) -> Verdict:
    """Vincent and Bengio (2002) Fig. 6 (sec. 5.1): "The back-fitting and pre-fitting KMP
    algorithms are able to find a reasonable solution ..., but choose different support
    vectors than SVM", and basic KMP, after 100 iterations, "is still unable to separate the
    data points".  Parts: back-fitting's and pre-fitting's test errors within
    :data:`REASONABLE` of the SVM's; fewer than half of each one's points are SVM support
    vectors; basic KMP's training error is above 0.  ``test_error`` in the order of
    :data:`KMP_PICTURE_METHODS`; ``support``: ``support/<method>`` -> indices."""
    svm_error, svm_support = test_error[-1], set(np.asarray(support["support/SVM"]).tolist())
    fits = [test_error[j] <= svm_error + REASONABLE for j in (1, 2)]
    shared = [
        len(set(np.asarray(support[f"support/{m}"]).tolist()) & svm_support) / max(1, len(support[f"support/{m}"]))
        for m in ("back-fitting KMP", "pre-fitting KMP")
    ]
    different = [v < 0.5 for v in shared]
    basic_fails = basic_train_error > 0
    return judged(
        fits + different + [basic_fails],
        f"Back-fitting and pre-fitting KMP reach test errors {test_error[1]:.3f} and {test_error[2]:.3f} "
        f"against the SVM's {svm_error:.3f}; {shared[0]:.0%} and {shared[1]:.0%} of their points are SVM "
        f"support vectors; basic KMP after {basic_steps} steps has training error {basic_train_error:.3f}"
        f"{'' if basic_fails else ' (it separates these two moons)'}.",
        central=("vincent2002-fig6", not any(fits)),
    )


def kmp_2d_picture(
    size: str = "quick",
    *,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    data_dir: str | Path | None = None,
    **overrides: Any,
) -> Experiment:
    """Vincent and Bengio 2002, Fig. 6: one 2-D two-moons problem, a hard-margin SVM (``SVC``, C = 1e6)
    and squared-loss KMP with the same RBF kernel: back-fitting and pre-fitting with as
    many bases N as the SVM has support vectors, basic KMP for ``basic_steps`` steps.

    Arrays: ``X``, ``y`` (training), ``xs``, ``ys`` (grid axes), ``values`` (4, grid,
    grid) decision values, ``support/<method>`` the support points.  Also
    ``prefit_errors`` (n_max,): pre-fitting's test error for N = 1..n_max (n_max = 2N),
    to see how few bases reach the SVM's error.  Table: one row per method.
    """
    s = _sized(_KMP_PICTURE, size, overrides)
    if progress is not None:
        progress(0, 3)
    X, y, X_test, y_test = _moons_picture_data(s["n_train"], s["n_test"], s["noise"], seed)
    gamma = s["gamma"]
    K, K_test = _rbf(X, X_test, gamma)
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    xs, ys = np.linspace(lo[0], hi[0], s["grid"]), np.linspace(lo[1], hi[1], s["grid"])
    grid_x, grid_y = np.meshgrid(xs, ys)
    K_grid = kernel_matrix(np.c_[grid_x.ravel(), grid_y.ravel()], X, kernel="rbf", gamma=gamma)
    svm = SVC(C=1e6, kernel="precomputed").fit(K, y)
    n_sv = int(svm.n_support_.sum())
    N = min(n_sv, len(y) - 1)
    offset = float(y.mean())
    paths = {
        "basic KMP": kmp_path(K, y - offset, min(s["basic_steps"], len(y) - 1), variant="basic"),
        "back-fitting KMP": kmp_path(K, y - offset, N, variant="backfit"),
        "pre-fitting KMP": kmp_path(K, y - offset, N),
    }
    longer = kmp_path(K, y - offset, min(2 * N, len(y) - 1))
    if progress is not None:
        progress(1, 3)
    values, train_error, test_error, n_support = [], [], [], []
    for _name, path in paths.items():
        values.append(_final_prediction(K_grid, path, offset).reshape(ys.size, xs.size))
        train_error.append(np.mean(np.sign(_final_prediction(K, path, offset)) != y))
        test_error.append(np.mean(np.sign(_final_prediction(K_test, path, offset)) != y_test))
        n_support.append(np.unique(path.indices).size)
    values.append(svm.decision_function(K_grid).reshape(ys.size, xs.size))
    train_error.append(np.mean(svm.predict(K) != y))
    test_error.append(np.mean(svm.predict(K_test) != y_test))
    n_support.append(n_sv)
    if progress is not None:
        progress(2, 3)
    prefit_errors = np.mean(np.sign(_kmp_predictions(K_test, longer, offset)) != y_test, axis=1)
    support = {f"support/{name}": np.unique(path.indices) for name, path in paths.items()}
    support["support/SVM"] = np.asarray(svm.support_)
    table = {
        "method": np.array(KMP_PICTURE_METHODS),
        "support points": np.array(n_support, dtype=float),
        "steps": np.array([paths["basic KMP"].n_steps, N, N, np.nan], dtype=float),
        "train error": np.array(train_error),
        "test error": np.array(test_error),
    }
    within = np.flatnonzero(prefit_errors <= test_error[-1] + 0.01)
    findings = {
        "SVM support vectors": n_sv,
        "test error": dict(zip(KMP_PICTURE_METHODS, np.round(test_error, 3).tolist())),
        "train error": dict(zip(KMP_PICTURE_METHODS, np.round(train_error, 3).tolist())),
        "basic KMP distinct points": n_support[0],
        "fewest pre-fitting bases within 0.01 of the SVM's test error": int(within[0]) + 1 if within.size else None,
    }
    arrays = {"X": X, "y": y, "xs": xs, "ys": ys, "values": np.stack(values), "prefit_errors": prefit_errors, **support}
    if progress is not None:
        progress(3, 3)
    verdict = judge_kmp_picture(test_error, train_error[0], support, paths["basic KMP"].n_steps)
    return Experiment(
        "vincent2002-fig6",
        titled("vincent2002-fig6"),
        table,
        arrays,
        s,
        findings,
        verdicts={"vincent2002-fig6": verdict},
    )


# --- Vincent and Bengio 2002, Table 1: USPS, KMP-mse against SVM at the SVM's number of support vectors ---------------

#: Vincent and Bengio 2002, Table 1: per digit 0-9, the SVM's #sv and the test errors (of 2007) of SVM,
#: k-means RBF, KMP with the same #sv and KMP with half of it.
PAPER_003_TABLE1 = {
    "#sv": (274, 104, 377, 361, 334, 388, 236, 235, 342, 263),
    "SVM": (16, 8, 25, 19, 29, 23, 14, 12, 25, 16),
    "k-means RBF": (20, 16, 43, 38, 46, 31, 15, 18, 37, 26),
    "KMP (same #sv)": (15, 15, 26, 17, 30, 23, 14, 14, 25, 13),
    "KMP (half #sv)": (16, 15, 29, 27, 29, 24, 17, 16, 28, 18),
}
USPS_METHODS = ("SVM", "KMP (same #sv)", "KMP (half #sv)")

#: The width of Schoelkopf et al.'s kernel exp(-||x - y||^2 / (0.3 x 256)) on pixels in [-1, 1], as a
#: gamma on our [0, 1] pixels; the grid's other widths are tried when the SVM's support vectors miss the paper's.
USPS_PAPER_GAMMA = 4 / (0.3 * 256)
#: Our SVM counts as the paper's when its support vectors, summed over the digits, are within 15 %
#: of the paper's 2914 (scaled to the training digits used).
USPS_SV_TOLERANCE = 0.15

_USPS = {
    "tiny": {"n_train": 300, "digits": (0, 1), "C": 10.0, "gamma_factors": (1.0,)},
    "quick": {"n_train": 2000, "digits": tuple(range(10)), "C": 10.0, "gamma_factors": (0.0625, 0.125, 0.25, 1.0)},
    "full": {"n_train": None, "digits": tuple(range(10)), "C": 10.0, "gamma_factors": (0.0625, 0.125, 0.25, 1.0)},
}


def load_usps(data_dir: str | Path | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``X_train, y_train, X_test, y_test`` from ``data_dir/usps/usps.npz`` (7291 + 2007
    16x16 digits, pixels in [0, 1]); a ValueError with one sentence when it is missing."""
    path = Path(data_dir) / "usps" / "usps.npz" if data_dir is not None else None
    if path is None or not path.is_file():
        raise ValueError(
            "Table 1 needs the USPS digits: give --data-dir DIR with DIR/usps/usps.npz (arrays X_train, "
            "y_train, X_test, y_test)."
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            return (
                np.asarray(data["X_train"], float),
                np.asarray(data["y_train"], int),
                np.asarray(data["X_test"], float),
                np.asarray(data["y_test"], int),
            )
    except Exception:
        raise ValueError(f"{path.name} is not a readable USPS .npz file (X_train, y_train, X_test, y_test).") from None


def _usps_svm_job(
    digit: int, X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray, C: float, gamma: float
) -> tuple[int, int]:
    """One digit against the rest: the SVM's support vector count and test errors."""
    target, target_test = np.where(y == digit, 1.0, -1.0), np.where(y_test == digit, 1.0, -1.0)
    svm = SVC(C=C, kernel="rbf", gamma=gamma).fit(X, target)
    return int(svm.n_support_.sum()), int(np.sum(svm.predict(X_test) != target_test))


def _usps_kmp_job(
    digit: int, X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray, gamma: float, n_sv: int
) -> tuple[int, int]:
    """Pre-fitting KMP (squared loss, OLS-RBF) with N = ``n_sv`` and N // 2 bases: test errors."""
    target, target_test = np.where(y == digit, 1.0, -1.0), np.where(y_test == digit, 1.0, -1.0)
    K = kernel_matrix(X, kernel="rbf", gamma=gamma)
    offset = float(target.mean())
    path = kmp_path(K, target - offset, min(n_sv, len(target) - 1))
    K_test = kernel_matrix(X_test, X[path.indices], kernel="rbf", gamma=gamma)
    coefs, intercepts = path.extras["coefs"], path.extras["intercepts"]

    def errors_at(j: int) -> int:
        f = K_test[:, :j] @ coefs[j - 1, :j] + intercepts[j - 1] + offset
        return int(np.sum(np.sign(f) != target_test))

    return errors_at(path.n_steps), errors_at(max(1, path.n_steps // 2))


def judge_kmp_usps(totals: Mapping[str, Any], paper: Mapping[str, Any], n_sv: int, sv_target: float) -> Verdict:
    """Vincent and Bengio (2002) Table 1 (sec. 5.2): "results obtained with KMP are comparable
    to those obtained for SVMs, contrarily to the results obtained with k-means RBFs, and
    there is only a slight loss of performance when using as few as half the number of
    support vectors".  Judged only with an SVM like the paper's (support vectors within
    :data:`USPS_SV_TOLERANCE` of ``sv_target``).  Parts: KMP's errors with the SVM's #sv
    within :data:`~._common.CLOSE` of the SVM's (or the paper's ratio, if larger); with half
    as many, within the paper's ratio for half (or CLOSE, if larger); k-means RBF is not
    rerun (not judged).  ``totals`` and ``paper``: errors summed over the digits."""
    if abs(n_sv - sv_target) > USPS_SV_TOLERANCE * sv_target:
        return judged(
            [None],
            f"Not judged: our SVM keeps {n_sv} support vectors against the paper's {sv_target:.0f} "
            f"(more than {USPS_SV_TOLERANCE:.0%} apart), so KMP would not use the paper's budget.",
        )
    svm = max(totals["SVM"], 1)
    allowed = {key: max(CLOSE, paper[key] / paper["SVM"] - 1) for key in ("KMP (same #sv)", "KMP (half #sv)")}
    ratio = {key: totals[key] / svm for key in allowed}
    checks = [ratio[key] <= 1 + allowed[key] + 1e-12 for key in allowed] + [None]
    return judged(
        checks,
        f"With {n_sv} support vectors (paper: {sv_target:.0f}), KMP with as many bases makes "
        f"{totals['KMP (same #sv)']} errors against the SVM's {totals['SVM']} "
        f"({ratio['KMP (same #sv)']:.2f}x; allowed {1 + allowed['KMP (same #sv)']:.2f}x), and "
        f"{totals['KMP (half #sv)']} with half as many ({ratio['KMP (half #sv)']:.2f}x; allowed "
        f"{1 + allowed['KMP (half #sv)']:.2f}x); k-means RBF is not rerun.",
        central=("vincent2002-table1", bool(ratio["KMP (same #sv)"] >= MUCH)),
    )


def kmp_usps(
    size: str = "quick",
    *,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    data_dir: str | Path | None = None,
    **overrides: Any,
) -> Experiment:
    """Vincent and Bengio (2002) Table 1: each USPS digit against the rest, test errors (of
    2007) of an SVM (scikit-learn ``SVC``, RBF, ``C``) and of pre-fitting KMP with as many
    bases as the SVM has support vectors, and with half as many; no validation.

    The kernel is Schoelkopf et al.'s Gaussian; its width is chosen, before any error is
    seen, as the one among ``gamma_factors`` x :data:`USPS_PAPER_GAMMA` whose SVMs keep a
    total number of support vectors nearest the paper's 2914 (scaled by ``n_train`` / 7291).
    ``n_train``: a seeded subsample of the 7291 training digits (None: all).  Needs
    ``data_dir/usps/usps.npz``.

    Table: one row per digit with ours and the paper's #sv and errors; findings: the totals.
    """
    s = _sized(_USPS, size, overrides)
    X, y, X_test, y_test = load_usps(data_dir)
    n_all = len(y)
    if s["n_train"] is not None and s["n_train"] < len(y):
        keep = np.sort(np.random.default_rng(seed).choice(len(y), size=int(s["n_train"]), replace=False))
        X, y = X[keep], y[keep]
    digits = tuple(int(d) for d in s["digits"])
    sv_target = sum(PAPER_003_TABLE1["#sv"][d] for d in digits) * len(y) / max(n_all, 7291)
    svms = {}
    for factor in s["gamma_factors"]:
        gamma = factor * USPS_PAPER_GAMMA
        svms[gamma] = run_parallel(_usps_svm_job, [(d, X, y, X_test, y_test, s["C"], gamma) for d in digits], n_jobs)
    gamma = min(svms, key=lambda g: abs(sum(n for n, _ in svms[g]) - sv_target))
    kmps = run_parallel(
        _usps_kmp_job, [(d, X, y, X_test, y_test, gamma, n) for d, (n, _) in zip(digits, svms[gamma])], n_jobs, progress
    )
    table = {
        "digit": np.array(digits),
        "#sv": np.array([n for n, _ in svms[gamma]], dtype=float),
        "SVM": np.array([e for _, e in svms[gamma]], dtype=float),
        "KMP (same #sv)": np.array([a for a, _ in kmps], dtype=float),
        "KMP (half #sv)": np.array([b for _, b in kmps], dtype=float),
    }
    for key in ("#sv",) + USPS_METHODS + ("k-means RBF",):
        table[f"paper {key}"] = np.array([PAPER_003_TABLE1[key][d] for d in digits], dtype=float)
    totals = {key: int(table[key].sum()) for key in USPS_METHODS}
    paper = {key: int(table[f"paper {key}"].sum()) for key in USPS_METHODS}
    n_sv = int(table["#sv"].sum())
    findings = {
        "test errors summed over the digits": totals,
        "paper's sums over the same digits": paper,
        "support vectors summed": n_sv,
        "paper's (scaled to our training digits)": round(sv_target),
        "support vectors per width tried": {f"{g:.4g}": sum(n for n, _ in v) for g, v in svms.items()},
        "training digits": len(y),
        "test digits": len(y_test),
    }
    verdict = judge_kmp_usps(totals, paper, n_sv, sv_target)
    s = s | {"digits": digits, "gamma": gamma}
    return Experiment(
        "vincent2002-table1",
        titled("vincent2002-table1"),
        table,
        {},
        s,
        findings,
        verdicts={"vincent2002-table1": verdict},
    )


# --- Vincent and Bengio 2002, Figure 5: margin losses against traditional losses ---------------------------------

#: Figure 5's top panel: the margin losses of boosting and the SVM, as functions of the margin m = y f(x).
MARGIN_LOSSES = {
    "AdaBoost: exp(−m)": lambda m: np.exp(-m),
    "LogitBoost: log₂(1 + e^(−2m))": lambda m: np.logaddexp(0.0, -2.0 * m) / np.log(2.0),
    "soft-margin SVM: [1 − m]₊": lambda m: np.maximum(1.0 - m, 0.0),
    "Doom II: 1 − tanh(m)": lambda m: 1.0 - np.tanh(m),
}
#: Figure 5's bottom panel: the traditional losses, from the losses KMP fits (:func:`mpcore.kmp.loss_value`
#: at y = 1, where f = m): the squared loss (ours halves it) and the squared loss after tanh.
TRADITIONAL_LOSSES = {
    "squared: (1 − m)²": lambda m: 2.0 * loss_value("squared", m, np.ones_like(m)),
    "squared after tanh: (0.65 − tanh m)²": lambda m: loss_value("tanh", m, np.ones_like(m)),
}
_LOSS_SHAPES = {
    "tiny": {"points": 61, "reach": 3.0},
    "quick": {"points": 241, "reach": 3.0},
    "full": {"points": 601, "reach": 3.0},
}


def loss_curves(m: ArrayLike) -> dict[str, np.ndarray]:
    """Every loss of Figure 5 at the margins ``m``: name -> values (margin losses first)."""
    margins = np.asarray(m, dtype=float)
    return {name: f(margins) for name, f in (MARGIN_LOSSES | TRADITIONAL_LOSSES).items()}


def judge_loss_shapes(m: ArrayLike, curves: Mapping[str, ArrayLike]) -> Verdict:
    """Vincent and Bengio (2002) Figure 5 (sec. 4): the margin losses "all ... encourage large
    positive margins, and differ mainly in how they penalize large negative ones"; "1 - tanh(x)
    ... won't penalize outliers to excess"; "the squared loss after tanh appears similar to the
    margin loss function used in Doom II, except that it slightly increases for large positive
    margins".  Parts: every margin loss is non-increasing in m; their spread at the most
    negative margin is at least :data:`~._common.MUCH` x that at the most positive; Doom II's
    loss is at most 2 everywhere and the smallest margin loss at the most negative margin; the
    squared loss after tanh ranks the margins up to its minimum as Doom II does (Spearman 0.99
    or more) and rises beyond it."""
    m = np.asarray(m, dtype=float)
    margin = [np.asarray(curves[name], float) for name in MARGIN_LOSSES]
    doom = np.asarray(curves["Doom II: 1 − tanh(m)"], float)
    after_tanh = np.asarray(curves["squared after tanh: (0.65 − tanh m)²"], float)
    falls = all(np.all(np.diff(v) <= 1e-12) for v in margin)
    spread_low, spread_high = (float(np.ptp([v[i] for v in margin])) for i in (0, -1))
    bounded = bool(doom.max() <= 2.0 and doom[0] <= min(v[0] for v in margin))
    lowest = int(np.argmin(after_tanh))
    rank = float(stats.spearmanr(after_tanh[: lowest + 1], doom[: lowest + 1])[0]) if lowest > 1 else float("nan")
    rises = bool(after_tanh[-1] > after_tanh[lowest])
    checks = [falls, spread_low >= MUCH * spread_high, bounded, rank >= 0.99, rises]
    return judged(
        checks,
        f"The margin losses {'all fall' if falls else 'do not all fall'} as the margin grows; they spread over "
        f"{spread_low:.3g} at m = {m[0]:g} against {spread_high:.3g} at m = {m[-1]:g}; Doom II's loss "
        f"{'stays' if bounded else 'does not stay'} at or below 2 and lowest there ({doom[0]:.4g}); the squared "
        f"loss after tanh is lowest at m = {m[lowest]:.2f}, ranks the margins below it as Doom II does "
        f"(Spearman {rank:.3f}) and {'rises' if rises else 'does not rise'} beyond it, to {after_tanh[-1]:.3f}.",
        central=("vincent2002-fig5", not falls),
    )


def loss_shapes(
    size: str = "quick",
    *,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    data_dir: str | Path | None = None,
    **overrides: Any,
) -> Experiment:
    """Vincent and Bengio 2002, Figure 5: the margin losses of boosting and the SVM (top) and the
    squared losses before and after tanh (bottom) as functions of the margin m = y f(x), on
    ``points`` margins in [-reach, reach].  The bottom curves come from the losses KMP fits
    (:func:`mpcore.kmp.loss_value`).  Table: ``margin`` and one column per loss."""
    s = _sized(_LOSS_SHAPES, size, overrides)
    m = np.linspace(-s["reach"], s["reach"], int(s["points"]))
    curves = loss_curves(m)
    table = {"margin": m, **curves}
    findings = {
        "value at the most negative margin": {name: round(float(v[0]), 3) for name, v in curves.items()},
        "squared after tanh lowest at margin": round(
            float(m[np.argmin(curves["squared after tanh: (0.65 − tanh m)²"])]), 3
        ),
    }
    verdict = judge_loss_shapes(m, curves)
    return Experiment(
        "vincent2002-fig5", titled("vincent2002-fig5"), table, {}, s, findings, verdicts={"vincent2002-fig5": verdict}
    )


# --- Vincent and Bengio 2002, Figure 7: least squares against tanh on a linear kernel --------------------------------

_LINEAR_PICTURE = {
    "tiny": {"draws": 2, "n": 50, "n_far": 30, "spread": 0.5, "far": 6.0, "C": 100.0},
    "quick": {"draws": 10, "n": 50, "n_far": 30, "spread": 0.5, "far": 6.0, "C": 100.0},
    "full": {"draws": 50, "n": 50, "n_far": 30, "spread": 0.5, "far": 6.0, "C": 100.0},
}
LINEAR_PICTURE_METHODS = ("SVM", "KMP-mse", "KMP-tanh")


def _far_cluster_data(seed: int, n: int, n_far: int, spread: float, far: float) -> tuple[np.ndarray, np.ndarray]:
    """Two classes on either side of the diagonal and a second cluster of the positive class far
    down on the lower right, which a squared error penalises for its large positive margins."""
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.normal([-1.0, 1.0], spread, size=(n, 2)),
            rng.normal([1.0, -1.0], spread, size=(n, 2)),
            rng.normal([far, -far], spread, size=(n_far, 2)),
        ]
    )
    return X, np.r_[-np.ones(n), np.ones(n + n_far)]


def _linear_models(X: np.ndarray, y: np.ndarray, C: float) -> list[tuple[np.ndarray, float]]:
    """Each method's linear decision function ``w'x + c`` on the dot-product kernel with a
    constant feature, ``k(x, z) = x'z + 1`` (rank 3 in 2-D, so three bases span it)."""
    K = X @ X.T + 1.0
    lines = []
    svm = SVC(kernel="linear", C=C).fit(X, y)
    lines.append((svm.coef_[0], float(svm.intercept_[0])))
    for path in (kmp_path(K, y, 3), kmp_path(K, y, 3, variant="backfit", loss="tanh", fit_intercept=True)):
        alpha = path.extras["coefs"][-1, : path.n_steps]
        idx = path.indices
        lines.append((alpha @ X[idx], float(alpha.sum() + path.extras["intercepts"][-1])))
    return lines


def _linear_job(seed: int, n: int, n_far: int, spread: float, far: float, C: float) -> dict[str, np.ndarray]:
    X, y = _far_cluster_data(seed, n, n_far, spread, far)
    lines = _linear_models(X, y, C)
    errors = [int(np.sum(np.sign(X @ w + c) != y)) for w, c in lines]
    return {"errors": np.array(errors), "w": np.array([w for w, _ in lines]), "c": np.array([c for _, c in lines])}


def judge_linear_picture(errors: ArrayLike) -> Verdict:
    """Vincent and Bengio (2002) Figure 7 (sec. 5.1): with a dot-product kernel "the decision
    surface is drawn towards the cluster on the lower right, at the expense of a few
    misclassified points", a "problem ... that ... does not affect SVMs" and "is successfully
    treated by KMP-tanh".  ``errors`` (draws, methods in :data:`LINEAR_PICTURE_METHODS`): training
    errors.  Three parts, each over the draws (at least :data:`~._common.MOSTLY` of them): KMP-mse
    misclassifies a few points (1 to 10); the SVM fewer than KMP-mse; KMP-tanh fewer than
    KMP-mse."""
    counts = np.asarray(errors)
    svm, mse, tanh = counts.T
    checks = [share((mse >= 1) & (mse <= 10)), share(svm < mse), share(tanh < mse)]
    return judged(
        checks,
        f"Over {len(counts)} draws, KMP-mse misclassifies {np.median(mse):g} training points (median; a few in "
        f"{checks[0]:.0%} of draws), the SVM {np.median(svm):g} (fewer in {checks[1]:.0%}) and KMP-tanh "
        f"{np.median(tanh):g} (fewer in {checks[2]:.0%}).",
        central=("vincent2002-fig7", (share(tanh > mse) or 0.0) >= MOSTLY),
    )


def linear_picture(
    size: str = "quick",
    *,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    data_dir: str | Path | None = None,
    **overrides: Any,
) -> Experiment:
    """Vincent and Bengio 2002, Figure 7: a linear SVM, KMP-mse (pre-fitting, squared loss) and
    KMP-tanh (back-fitting, tanh loss) on the dot-product kernel, on two classes plus a far
    cluster of the positive class; ``draws`` seeded draws of the data.  Arrays: the first
    draw's ``X``, ``y`` and each method's line (``w`` (3, 2), ``c`` (3,)); ``errors`` (draws, 3)
    training errors.  Table: one row per method."""
    s = _sized(_LINEAR_PICTURE, size, overrides)
    jobs = [(seed + d, s["n"], s["n_far"], s["spread"], s["far"], s["C"]) for d in range(s["draws"])]
    runs = run_parallel(_linear_job, jobs, n_jobs, progress)
    errors = np.stack([run["errors"] for run in runs])
    X, y = _far_cluster_data(seed, s["n"], s["n_far"], s["spread"], s["far"])
    table = {
        "method": np.array(LINEAR_PICTURE_METHODS),
        "median training errors": np.median(errors, axis=0),
        "mean training errors": errors.mean(axis=0),
        "draws with no error": (errors == 0).mean(axis=0),
    }
    findings = {
        "training errors (median over draws)": dict(zip(LINEAR_PICTURE_METHODS, np.median(errors, axis=0).tolist())),
        "points": int(y.size),
        "draws": len(runs),
    }
    arrays = {"X": X, "y": y, "w": runs[0]["w"], "c": runs[0]["c"], "errors": errors}
    verdict = judge_linear_picture(errors)
    return Experiment(
        "vincent2002-fig7",
        titled("vincent2002-fig7"),
        table,
        arrays,
        s,
        findings,
        verdicts={"vincent2002-fig7": verdict},
    )
