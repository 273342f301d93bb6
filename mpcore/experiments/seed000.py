"""Seed 000 (Hussain, Shawe-Taylor, Hardoon, Dhanjal 2011), Figs 1-7: the KMP bound, the
sparse KPCA bounds and sparse KCCA against KCCA and its bound."""
from __future__ import annotations



import numpy as np
from scipy import stats
from scipy.linalg import eigh

from ..cca import center_kernel, kcca
from .. import bounds
from ..curves import kernel_spectra, kmp_curves, skcca_curves, skpca_curves
from ..datasets import load_dataset, prepare
from ..kernels import kernel_diag, kernel_matrix
from ..kmp import kmp_path
from ..nystrom import nystrom_features
from ..skcca import fit_sparse_cca, skcca_path
from ..skpca import skpca_path

from ._common import Experiment, judged, _argmin_t, _pad, _rbf, _sized, _spread_columns, run_parallel, titled


# --- seed 000 Fig. 1: the KMP bound against the test error (Boston) -----------------------------

_KMP_BOSTON = {
    "tiny": {"splits": 2, "k": 12, "gamma": 0.05, "n_test": 56, "alpha_sd": 0.25, "sweep_gammas": (0.05,),
             "sweep_alpha_sds": (0.25, 0.5)},
    "quick": {"splits": 20, "k": 60, "gamma": 0.05, "n_test": 56, "alpha_sd": 0.25,
              "sweep_gammas": (0.025, 0.05, 0.1), "sweep_alpha_sds": (0.25, 0.5)},
    "full": {"splits": 100, "k": 100, "gamma": 0.05, "n_test": 56, "alpha_sd": 0.25,
             "sweep_gammas": (0.0125, 0.025, 0.05, 0.1, 0.2), "sweep_alpha_sds": (0.125, 0.25, 0.5)},
}
_KMP_CURVES = ("test error rate", "train error rate outside compression set", "test MSE", "KMP bound")

#: Seed 000 Fig. 1: the bound and the test error are both lowest at about this many bases.
PAPER_000_FIG1_ARGMIN = 17

#: Argmins this many bases apart or fewer count as coinciding (the paper reads "about 17" off a plot).
KMP_ARGMIN_TOLERANCE = 4


def _kmp_boston_job(seed, k, gamma, n_test, alpha_sd, sweep_gammas, sweep_alpha_sds):
    """One split: the curves at (gamma, alpha_sd), and the two argmins at every swept pair."""
    data = load_dataset("boston", keep_b=True)
    split = prepare(data, test_size=n_test / data.n_samples, seed=seed)
    sd = float(np.std(split.y_train))
    offset = float(split.y_train.mean())
    out, argmins = {}, {}
    for g in dict.fromkeys((gamma, *sweep_gammas)):
        K, K_test = _rbf(split.X_train, split.X_test, g)
        path = kmp_path(K, split.y_train - offset, k)
        for a in dict.fromkeys((alpha_sd, *sweep_alpha_sds)):
            curves = kmp_curves(K, split.y_train, K_test, split.y_test, path, alpha=a * sd, offset=offset).curves
            argmins[(g, a)] = (_argmin_t(curves["KMP bound"]), _argmin_t(curves["test error rate"]))
            if (g, a) == (gamma, alpha_sd):
                out = {name: _pad(curves[name], k) for name in _KMP_CURVES} | {"alpha": a * sd}
    return out | {"argmins": argmins}


def argmins_coincide(bound_argmins, test_argmins, tolerance=KMP_ARGMIN_TOLERANCE):
    """Seed 000 Fig. 1's claim on per-split argmins: ``(medians within tolerance, share of
    splits whose two argmins are within tolerance)``."""
    bound_argmins, test_argmins = np.asarray(bound_argmins, float), np.asarray(test_argmins, float)
    medians = abs(np.median(bound_argmins) - np.median(test_argmins)) <= tolerance
    return bool(medians), float(np.mean(np.abs(bound_argmins - test_argmins) <= tolerance))


def kmp_bound_boston(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 000 Fig. 1: pre-fitting KMP on Boston housing; the test error rate of the
    alpha loss (``|f(x) - y| > alpha``, alpha = ``alpha_sd`` x the training target's
    standard deviation) and the KMP bound (Thm 4) against the number of basis vectors t,
    over seeded splits with ``n_test`` test points (the paper's 450/56; all 13 features,
    standardised, RBF ``gamma``).  Every split also reruns the argmins at each swept
    (gamma, alpha_sd), to show how fragile their coincidence is.

    Table: ``t``; mean, min and max over splits of ``test error rate``, ``train error
    rate outside compression set``, ``test MSE`` and ``KMP bound``.  Arrays: per split
    ``bound argmins`` and ``test error argmins``; ``sweep`` (gammas x alpha_sds x 2) the
    median argmins (bound, test error) per swept setting.
    """
    s = _sized(_KMP_BOSTON, size, overrides)
    gammas, alpha_sds = tuple(s["sweep_gammas"]), tuple(s["sweep_alpha_sds"])
    jobs = [(seed + i, s["k"], s["gamma"], s["n_test"], s["alpha_sd"], gammas, alpha_sds) for i in range(s["splits"])]
    runs = run_parallel(_kmp_boston_job, jobs, n_jobs, progress)
    table = {"t": np.arange(1, s["k"] + 1)}
    for name in _KMP_CURVES:
        _spread_columns(table, name, [run[name] for run in runs])
    main = (s["gamma"], s["alpha_sd"])
    bound_at = np.array([run["argmins"][main][0] or np.nan for run in runs], dtype=float)
    test_at = np.array([run["argmins"][main][1] or np.nan for run in runs], dtype=float)
    sweep = np.array([[[np.nanmedian([run["argmins"][(g, a)][which] or np.nan for run in runs]) for which in (0, 1)]
                       for a in alpha_sds] for g in gammas])
    medians_agree, share = argmins_coincide(bound_at, test_at)
    held = [abs(b - e) <= KMP_ARGMIN_TOLERANCE for b, e in sweep.reshape(-1, 2)]
    smallest = float(np.nanmin(table["KMP bound"]))
    b_star, e_star = _argmin_t(table["KMP bound"]), _argmin_t(table["test error rate"])
    test = table["test error rate"]
    excess = float(test[b_star - 1] - np.nanmin(test))
    findings = {
        "argmins of the mean curves: bound, test error": (b_star, e_star),
        "test error at the bound's argmin, and its minimum": (round(float(test[b_star - 1]), 3),
                                                              round(float(np.nanmin(test)), 3)),
        "median argmin over splits: bound, test error": (float(np.median(bound_at)), float(np.median(test_at))),
        "argmin quartiles: bound, test error": (tuple(np.percentile(bound_at, [25, 75]).round(1).tolist()),
                                                tuple(np.percentile(test_at, [25, 75]).round(1).tolist())),
        f"splits whose argmins are within {KMP_ARGMIN_TOLERANCE}": f"{share:.0%} of {len(runs)}",
        f"swept settings whose median argmins stay within {KMP_ARGMIN_TOLERANCE}": f"{sum(held)} of {len(held)}",
        "smallest mean bound (and / 5)": (round(smallest, 3), round(smallest / 5, 3)),
        "alpha (mean over splits)": float(np.mean([run["alpha"] for run in runs])),
    }
    checks = [abs(b_star - PAPER_000_FIG1_ARGMIN) <= KMP_ARGMIN_TOLERANCE, excess <= 0.02,
              abs(b_star - e_star) <= KMP_ARGMIN_TOLERANCE]
    story = (f"the bound is lowest at {b_star} bases (paper: about {PAPER_000_FIG1_ARGMIN}); the test error is "
             f"{test[b_star - 1]:.3f} there and {np.nanmin(test):.3f} at its own minimum, {e_star} bases")
    verdict = judged(checks, {
        "reproduced": f"As in the paper, {story}; the median argmins over splits are {np.median(bound_at):.0f} and "
                      f"{np.median(test_at):.0f}, and {sum(held)} of {len(held)} neighbouring settings keep them "
                      f"within {KMP_ARGMIN_TOLERANCE}.",
        "partly": f"{story[0].upper()}{story[1:]}, a flat stretch where single splits disagree (argmins within "
                  f"{KMP_ARGMIN_TOLERANCE} on {share:.0%} of them; medians {np.median(bound_at):.0f} and "
                  f"{np.median(test_at):.0f}) and {sum(held)} of {len(held)} neighbouring settings keep the medians "
                  "together.",
        "not reproduced": f"{story[0].upper()}{story[1:]}.",
    })
    arrays = {"bound argmins": bound_at, "test error argmins": test_at, "sweep": sweep,
              "sweep_gammas": np.array(gammas), "sweep_alpha_sds": np.array(alpha_sds)}
    return Experiment("000-fig1", titled("000-fig1"), table, arrays, s, findings, verdicts={"000-fig1": verdict})


# --- seed 000 Figs 2-5: sparse KPCA bounds (Boston; the 50-of-450 toy) ----------------------------

_SKPCA_CURVES = ("test residual", "train residual outside compression set", "compression bound",
                 "global Rademacher bound", "local Rademacher bound", "local Rademacher bound (k² reading)")
_SKPCA_BOSTON = {
    "tiny": {"splits": 1, "k": 10, "gamma": 0.035, "test_size": 1 / 3, "sweep": (0.035, 0.1)},
    "quick": {"splits": 3, "k": 100, "gamma": 0.035, "test_size": 1 / 3, "sweep": (0.0175, 0.035, 0.07, 0.1, 0.2)},
    "full": {"splits": 10, "k": 200, "gamma": 0.035, "test_size": 1 / 3,
             "sweep": (0.01, 0.0175, 0.035, 0.05, 0.07, 0.1, 0.2, 0.4)},
}
_SKPCA_TOY = {
    "tiny": {"seeds": 1, "k": 15, "m": 120, "n_test": 60, "d": 40, "r": 6, "scale": 10.0, "sweep": (10.0,)},
    "quick": {"seeds": 1, "k": 100, "m": 1000, "n_test": 500, "d": 450, "r": 50, "scale": 10.0,
              "sweep": (2.0, 3.0, 5.0, 10.0)},
    "full": {"seeds": 5, "k": 150, "m": 1000, "n_test": 1000, "d": 450, "r": 50, "scale": 10.0,
             "sweep": (1.5, 2.0, 3.0, 5.0, 10.0, 20.0)},
}
#: Seed 000 Figs 2 and 3: where the bounds are lowest (Boston: compression at 43; the toy:
#: compression at 46, the global Rademacher bound at 29).
PAPER_000_SKPCA_ARGMINS = {"000-fig2": {"compression bound": 43},
                           "000-fig3": {"compression bound": 46, "global Rademacher bound": 29}}


def squared_kernel_spectrum(K):
    """Eigenvalues (descending, clipped at 0) of the centred Gram matrix of k(x, y)^2,
    ``H (K * K) H``: Blanchard, Bousquet and Zwald's operator, one reading of seed 000
    Thm 8's printed ``(I - 11')K'K(I - 11')`` (the spec's reading is the centred K)."""
    return np.clip(eigh(center_kernel(K * K), eigvals_only=True)[::-1], 0.0, None)


def _skpca_curves_of(K, K_test, test_diag, k):
    m = K.shape[0]
    R = float(np.sqrt(np.max(np.diag(K))))
    spectra = kernel_spectra(K)
    result = skpca_curves(K, K_test, test_diag, skpca_path(K, k), R=R, spectra=spectra)
    squared = bounds.pca_local_rademacher(spectra[0] / m, squared_kernel_spectrum(K) / m, result.t, m, 0.05, R, 80.0)
    curves = result.curves | {"local Rademacher bound (k² reading)": squared}
    return {name: _pad(curves[name], k) for name in _SKPCA_CURVES}


def _argmins_of(K, k):
    """Argmins of the compression and global Rademacher bounds alone (no test set): the sweeps."""
    path = skpca_path(K, k)
    m, t = K.shape[0], np.arange(1, path.n_steps + 1)
    outside = path.extras["residuals"][1:].sum(axis=1) / (m - t)
    R = float(np.sqrt(np.max(np.diag(K))))
    values = np.clip(eigh(K, eigvals_only=True)[::-1], 0.0, None)
    return (_argmin_t(bounds.compression_subspace(outside, m, t, 0.05, R)),
            _argmin_t(bounds.pca_global_rademacher(values, np.diag(K), t, 0.05, R)))


def _skpca_boston_job(seed, k, gamma, test_size, sweep):
    split = prepare(load_dataset("boston", keep_b=True), test_size=test_size, seed=seed)
    K, K_test = _rbf(split.X_train, split.X_test, gamma)
    out = _skpca_curves_of(K, K_test, np.ones(K_test.shape[0]), k)
    out["sweep"] = [_argmins_of(kernel_matrix(split.X_train, kernel="rbf", gamma=g), k) for g in sweep]
    return out


def _toy(seed, m, n_test, d, r, scale):
    X = load_dataset("toy-dominant", n_samples=m + n_test, n_features=d, r=r, scale=scale, seed=seed).X
    return X[:m], X[m:]


def _skpca_toy_job(seed, k, m, n_test, d, r, scale, sweep):
    X_train, X_test = _toy(seed, m, n_test, d, r, scale)
    K = kernel_matrix(X_train, kernel="linear")
    K_test = kernel_matrix(X_test, X_train, kernel="linear")
    out = _skpca_curves_of(K, K_test, kernel_diag(X_test, "linear"), k)
    out["sweep"] = [_argmins_of(kernel_matrix(_toy(seed, m, n_test, d, r, v)[0], kernel="linear"), k) for v in sweep]
    return out


def _skpca_experiment(name, runs, settings, sweep_name):
    k = settings["k"]
    table = {"t": np.arange(1, k + 1)}
    for curve in _SKPCA_CURVES:
        _spread_columns(table, curve, [run[curve] for run in runs])
    findings = {}
    for bound in _SKPCA_CURVES[2:]:
        findings[f"{bound} argmin per run"] = [_argmin_t(run[bound]) for run in runs]
        findings[f"{bound} minimum"] = float(np.nanmin([np.nanmin(run[bound]) for run in runs]))
    values = tuple(settings["sweep"])
    sweep = np.array([[np.nanmedian([run["sweep"][v][j] or np.nan for run in runs]) for j in (0, 1)]
                      for v in range(len(values))])
    paper = PAPER_000_SKPCA_ARGMINS[name]
    columns = {"compression bound": 0, "global Rademacher bound": 1}
    miss = np.sum([np.abs(sweep[:, columns[b]] - a) for b, a in paper.items()], axis=0)
    closest = values[int(np.argmin(miss))]
    findings[f"argmins (compression, global) per {sweep_name}"] = {
        f"{v:g}": tuple(int(x) if np.isfinite(x) else None for x in row) for v, row in zip(values, sweep)}
    findings[f"{sweep_name} closest to the paper's argmins"] = closest
    arrays = {"sweep": sweep, "sweep_values": np.array(values, dtype=float), "sweep_name": np.array(sweep_name)}
    mins = {b: np.nanmin(table[b]) for b in _SKPCA_CURVES[2:]}
    argmin = {b: _argmin_t(table[b]) for b in _SKPCA_CURVES[2:]}
    setting = f"{sweep_name} {settings[_SWEPT[name]]:g}"
    if name == "000-fig2":
        main = [mins["compression bound"] < mins["global Rademacher bound"], mins["compression bound"] < 1,
                abs(argmin["compression bound"] - 43) <= 10]
        main_reason = (f"At {setting} the compression bound (min {mins['compression bound']:.3f}) is "
                       f"{'below' if main[0] else 'above'} the global Rademacher bound (min "
                       f"{mins['global Rademacher bound']:.3f}) and lowest at {argmin['compression bound']} bases "
                       f"(paper: 43); across {sweep_name}s it is lowest at "
                       f"{', '.join(str(int(x)) for x in sweep[:, 0] if np.isfinite(x))}, closest at {closest:g}.")
    else:
        r = settings["r"]
        main = [abs(argmin["compression bound"] - r) <= 10,
                abs(argmin["compression bound"] - r) < abs(argmin["global Rademacher bound"] - r)]
        main_reason = (f"At {setting} the compression bound is lowest at {argmin['compression bound']} (paper 46; "
                       f"{r} dominant dimensions) and the global Rademacher bound at "
                       f"{argmin['global Rademacher bound']} (paper 29, too early), so "
                       f"{'the compression bound' if main[1] else 'the global bound, not the compression bound,'} "
                       f"is nearer the {r} dominant dimensions; with "
                       f"{sweep_name}s {', '.join(f'{v:g}' for v in values)} the pairs are "
                       f"{'; '.join(f'{int(a)}/{int(b)}' for a, b in sweep if np.isfinite(a) and np.isfinite(b))}, "
                       f"closest to the paper at {closest:g}.")
    local = ["local Rademacher bound", "local Rademacher bound (k² reading)"]
    looser = [min(mins[b] for b in local) > max(mins["compression bound"], mins["global Rademacher bound"])]
    log_reason = (f"The local Rademacher bound (c = 80) is at least {min(mins[b] for b in local):.3g} under either "
                  f"reading of Thm 8's K-bar (centred K: {mins[local[0]]:.3g}; centred k²: {mins[local[1]]:.3g}), "
                  f"against {mins['compression bound']:.3g} (compression) and {mins['global Rademacher bound']:.3g} "
                  "(global).")
    log_name = {"000-fig2": "000-fig4", "000-fig3": "000-fig5"}[name]
    verdicts = {name: judged(main, main_reason), log_name: judged(looser, log_reason)}
    return Experiment(name, titled(name), table, arrays, settings, findings, verdicts=verdicts)


_SWEPT = {"000-fig2": "gamma", "000-fig3": "scale"}


def skpca_bounds_boston(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 000 Figs 2 and 4: sparse KPCA on Boston (all 13 features, standardised, RBF
    ``gamma``, seeded 2/3 training splits): the mean test residual and the compression
    (Cor. 1), global Rademacher (Thm 7) and local Rademacher (Thm 8, c = 80; both readings
    of its K-bar) bounds against t.  Each split also finds the bounds' argmins at every
    gamma of ``sweep``.  Table: ``t`` and mean/min/max over splits of each curve; arrays
    ``sweep`` (len(sweep), 2): median argmins of the compression and global bounds."""
    s = _sized(_SKPCA_BOSTON, size, overrides)
    jobs = [(seed + i, s["k"], s["gamma"], s["test_size"], tuple(s["sweep"])) for i in range(s["splits"])]
    return _skpca_experiment("000-fig2", run_parallel(_skpca_boston_job, jobs, n_jobs, progress), s, "gamma")


def skpca_bounds_toy(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 000 Figs 3 and 5: sparse KPCA (linear kernel) on m Gaussian points in d
    dimensions whose first r have ``scale`` times the standard deviation (paper: m = 1000,
    d = 450, r = 50), tested on ``n_test`` fresh points; same curves as
    :func:`skpca_bounds_boston`, over ``seeds`` draws, and the argmins at every scale of
    ``sweep`` ("considerably larger eigenvalues" is not quantified in the paper)."""
    s = _sized(_SKPCA_TOY, size, overrides)
    jobs = [(seed + i, s["k"], s["m"], s["n_test"], s["d"], s["r"], s["scale"], tuple(s["sweep"]))
            for i in range(s["seeds"])]
    return _skpca_experiment("000-fig3", run_parallel(_skpca_toy_job, jobs, n_jobs, progress), s, "scale")


# --- seed 000 Figs 6-7: sparse KCCA against KCCA, and the SKCCA bound ------------------------------

_SKCCA_VS_KCCA = {
    "tiny": {"splits": 1, "n_samples": 150, "dims": 5, "regs": (1e-3, 1e-1), "skcca_reg": 1e-3},
    "quick": {"splits": 1, "n_samples": 600, "dims": 40, "regs": (1e-4, 1e-3, 1e-2, 1e-1), "skcca_reg": 1e-3},
    "full": {"splits": 5, "n_samples": 1797, "dims": 100, "regs": (1e-4, 1e-3, 1e-2, 1e-1), "skcca_reg": 1e-3},
}


def _two_view_kernels(split):
    def pair(A, A_test):
        return _rbf(A, A_test, 1.0 / A.shape[1])

    return (*pair(split.X_train, split.X_test), *pair(split.Y_train, split.Y_test))


def _centred_test_kernel(K, K_test):
    """Test-vs-train kernel centred with the training statistics (matches ``H K H``)."""
    return K_test - K_test.mean(axis=1, keepdims=True) - K.mean(axis=0)[None, :] + K.mean()


def kcca_test_distances(Kx, Ky, Kx_test, Ky_test, reg, dims):
    """Exact regularised KCCA (``dims`` directions): the mean test distance
    ``||P_x(x) - P_y(y)||`` using the first d = 1..dims directions, each direction
    scaled to unit training variance (as in :func:`mpcore.cca.regularized_cca`).  (dims,)"""
    result = kcca(Kx, Ky, reg, reg, n_directions=dims, keep_T=False)
    train_x, train_y = center_kernel(Kx) @ result.alpha, center_kernel(Ky) @ result.beta
    test_x = _centred_test_kernel(Kx, Kx_test) @ result.alpha / np.maximum(train_x.std(axis=0), 1e-300)
    test_y = _centred_test_kernel(Ky, Ky_test) @ result.beta / np.maximum(train_y.std(axis=0), 1e-300)
    distances = np.sqrt(np.cumsum((test_x - test_y) ** 2, axis=1)).mean(axis=0)
    return _pad(distances, dims)


def skcca_test_distances(Kx, Ky, Kx_test, Ky_test, reg, dims):
    """Sparse KCCA: for t = 1..dims chosen points, CCA with all t directions in their
    span; the mean test distance ``||P_x(x) - P_y(y)||`` over the t directions.  (dims,)"""
    path = skcca_path(Kx, Ky, dims)
    out = []
    for t in range(1, path.n_steps + 1):
        idx = path.indices[:t]
        cca, Cx, Cy = fit_sparse_cca(Kx, Ky, idx, reg=reg, n_directions=t)
        vx, vy = cca.transform(nystrom_features(Kx_test[:, idx], Cx), nystrom_features(Ky_test[:, idx], Cy))
        out.append(np.linalg.norm(vx - vy, axis=1).mean())
    return _pad(out, dims)


def _skcca_vs_kcca_job(seed, n_samples, dims, regs, skcca_reg):
    split = prepare(load_dataset("digits-halves", n_samples=n_samples, seed=seed), seed=seed)
    Kx, Kx_test, Ky, Ky_test = _two_view_kernels(split)
    out = {f"KCCA, reg {reg:g}": kcca_test_distances(Kx, Ky, Kx_test, Ky_test, reg, dims) for reg in regs}
    out["SKCCA"] = skcca_test_distances(Kx, Ky, Kx_test, Ky_test, skcca_reg, dims)
    return out


def skcca_vs_kcca(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 000 Fig. 6: test "reconstruction error" ``||P_x(x) - P_y(y)||`` of sparse KCCA
    (t chosen points, all t directions) against exact KCCA (first d directions) at several
    regularisations, on the two-view digits (left half / right half, RBF gamma = 1/d per
    view).  Table: ``dimensions`` and each method's mean/min/max over splits."""
    s = _sized(_SKCCA_VS_KCCA, size, overrides)
    jobs = [(seed + i, s["n_samples"], s["dims"], tuple(s["regs"]), s["skcca_reg"]) for i in range(s["splits"])]
    runs = run_parallel(_skcca_vs_kcca_job, jobs, n_jobs, progress)
    table = {"dimensions": np.arange(1, s["dims"] + 1)}
    for name in runs[0]:
        _spread_columns(table, name, [run[name] for run in runs])
    findings = {f"{name} at {s['dims']} dimensions": float(table[name][-1]) for name in runs[0]}
    if s["dims"] >= 10:
        findings |= {f"{name} at 10 dimensions": float(table[name][9]) for name in runs[0]}
    kcca_names = [name for name in runs[0] if name.startswith("KCCA")]
    top = {name: float(table[name][-1]) for name in runs[0]}
    middle = float(np.median([top[name] for name in kcca_names]))
    verdict = judged([top["SKCCA"] <= middle],
                     f"At {s['dims']} dimensions SKCCA's test distance is {top['SKCCA']:.3g} against KCCA's "
                     f"{min(top[n] for n in kcca_names):.3g}-{max(top[n] for n in kcca_names):.3g} over "
                     f"{len(kcca_names)} regularisations (competitive: at most their median, {middle:.3g}).")
    return Experiment("000-fig6", titled("000-fig6"), table, {}, s, findings, verdicts={"000-fig6": verdict})


_SKCCA_BOUND = {
    "tiny": {"splits": 1, "n_samples": 150, "k": 10, "alpha": 1.0, "reg": 1e-3},
    "quick": {"splits": 3, "n_samples": 500, "k": 40, "alpha": 1.0, "reg": 1e-3},
    "full": {"splits": 10, "n_samples": 1500, "k": 100, "alpha": 1.0, "reg": 1e-3},
}
_SKCCA_CURVES = ("test error rate", "train error rate outside compression set", "test correlation", "SKCCA bound")


def _skcca_bound_job(seed, n_samples, k, alpha, reg):
    split = prepare(load_dataset("rings-two-view", n_samples=n_samples, seed=seed), seed=seed)
    Kx, Kx_test, Ky, Ky_test = _two_view_kernels(split)
    result = skcca_curves(Kx, Ky, Kx_test, Ky_test, skcca_path(Kx, Ky, k), alpha=alpha, reg=reg)
    return {name: _pad(result.curves[name], k) for name in _SKCCA_CURVES}


def skcca_bound(size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Seed 000 Fig. 7: the sparse KCCA bound (Thm 9, first direction) against t with the
    test error rate of the loss ``|f_x(x) - f_y(y)| > alpha`` (unit-variance variates), on
    the two-view rings (seed 004's generator).  Table: ``t`` and mean/min/max over
    seeded data sets of each curve."""
    s = _sized(_SKCCA_BOUND, size, overrides)
    jobs = [(seed + i, s["n_samples"], s["k"], s["alpha"], s["reg"]) for i in range(s["splits"])]
    runs = run_parallel(_skcca_bound_job, jobs, n_jobs, progress)
    table = {"t": np.arange(1, s["k"] + 1)}
    for name in _SKCCA_CURVES:
        _spread_columns(table, name, [run[name] for run in runs])
    bound, test = table["SKCCA bound"], table["test error rate"]  # the means over the data sets
    ok = np.isfinite(bound) & np.isfinite(test)
    rho = float(stats.spearmanr(bound[ok], test[ok])[0]) if ok.sum() > 2 else float("nan")
    # one number per claim: the verdict and the findings table read the same statistics (of the mean curves)
    findings = {
        "bound argmin per run": [_argmin_t(run["SKCCA bound"]) for run in runs],
        "smallest mean bound": float(np.nanmin(bound)),
        "rank correlation of the mean bound with the mean test error": rho,
        "smallest bound on a single data set": float(np.nanmin([np.nanmin(run["SKCCA bound"]) for run in runs])),
        "test error at the bound's argmin": float(np.nanmean(
            [run["test error rate"][_argmin_t(run["SKCCA bound"]) - 1] for run in runs])),
    }
    verdict = judged([np.nanmin(bound) < 1, rho > 0.5],
                     f"The mean bound's smallest value is {np.nanmin(bound):.3g} (below 1: says something) and its "
                     f"rank correlation with the mean test error over t is {rho:.2f} (tracks it if above 0.5).")
    return Experiment("000-fig7", titled("000-fig7"), table, {}, s, findings, verdicts={"000-fig7": verdict})
