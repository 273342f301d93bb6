"""The Nystrom column-selection lab's picture: greedy vs uniform vs ridge-leverage landmarks
(Wang 2016, Fig. 1)."""

from __future__ import annotations

import numpy as np

from mpcore.labs import COLUMN_METHODS
from views import figures
from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import Settings

PAGE = "column-lab"
TASKS = ("two-view", "binary", "regression", "unsupervised")
DATA = "rings-two-view"
REGS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
RATIOS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
METHODS = Control(
    "methods",
    COLUMN_METHODS[:3],
    tuple,
    options=COLUMN_METHODS,
    widget="multiselect",
    label="Methods",
    help="greedy: sparse KPCA's picks (pivoted Cholesky, deterministic); uniform: random columns without "
    "replacement; ridge-leverage: columns drawn with replacement with probability proportional to their "
    "ridge leverage score (Wang 2016, eq. 10-12); k-means: scikit-learn's cluster centres (not training "
    "points; kernel error only); random-features: r random Fourier features in place of r columns "
    "(scikit-learn's RBFSampler; Lopez-Paz et al. 2014's randomized CCA, Wang's baseline; RBF kernel only).",
)
REPEATS = Control(
    "repeats",
    3,
    int,
    lo=1,
    hi=10,
    widget="slider",
    label="Repetitions",
    help="Seeds per random method (the paper averages 20); the bands show min–max.",
)
REG = Control(
    "reg",
    1e-3,
    float,
    options=REGS,
    widget="select_slider",
    label="KCCA regularisation λ",
    help="λ₁ = λ₂ of regularised KCCA (Wang 2016, eq. 2-3); also the scale of the leverage-score parameter.",
)
RATIO = Control(
    "levratio",
    1.0,
    float,
    options=RATIOS,
    widget="select_slider",
    label="Leverage γ / λ",
    help="Ridge leverage scores l_i(K, γ) use γ = this × λ (the paper tries 10⁻⁴ … 1 and finds them similar).",
)
LOG = Control(
    "log",
    True,
    bool,
    widget="toggle",
    label="Log-scale error axes",
    help="Errors fall by orders of magnitude with the rank: a log axis shows them all.",
)


def rank_control(m):
    top = max(2, min(200, m - 1))
    return Control(
        "rank",
        min(60, top),
        int,
        lo=2,
        hi=top,
        widget="slider",
        label="Largest rank",
        help="Landmarks at most; the errors are computed at five ranks up to this one.",
    )


#: Every control the page may read, beside the data's and the kernel's (see ``skpca``).
CONTROLS = (METHODS, rank_control(1000), REPEATS, REG, RATIO, LOG)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    methods = tuple(address.get(METHODS))
    top = int(address.get(rank_control(data.train_size())))
    repeats, reg, ratio = int(address.get(REPEATS)), float(address.get(REG)), float(address.get(RATIO))
    log_y = address.get(LOG)
    ranks = tuple(int(r) for r in np.unique(np.round(np.linspace(max(1, top / 5), top, 5))))
    study = {"ranks": ranks, "methods": methods, "repeats": repeats, "reg": reg, "leverage_ratio": ratio}
    return Settings.of(PAGE, data, kernel, study, log_y=log_y)


def _bands(result, metric, source):
    means, spreads = {}, {}
    for name, arrays in source.items():
        mean, low, high = result.spread(arrays[metric])
        means[name] = mean
        if arrays[metric].shape[0] > 1:
            spreads[name] = (low, high)
    return means, spreads


def _metric_figure(result, log_y, metric, source, y_title):
    means, spreads = _bands(result, metric, source)
    return figures.lines_figure(
        result.ranks, means, spreads=spreads, x_title="rank (landmarks)", y_title=y_title, log_y=log_y
    )


def theorem1_caption(result):
    """What Wang 2016, Thm 1 guarantees at the largest rank, and the columns it asks for at ε = 0.05."""
    t1 = result.theorem1
    eps_lev, eps_uni = t1["epsilon/ridge-leverage"][-1], t1["epsilon/uniform"][-1]
    need, beta = t1["columns at 0.05"], t1["beta at 0.05"]
    measured = {  # the two samplings the theorem is about
        name: float(arrays["rho"][:, -1].mean())
        for name, arrays in result.kcca.items()
        if name in ("uniform", "ridge-leverage")
    }
    compared = ", ".join(
        f"{name} {value:.2g} ({'below' if value <= eps else 'above'} its guarantee)"
        for name, value in measured.items()
        for eps in [eps_uni if name == "uniform" else eps_lev]
    )
    return (
        f"Thm 1 (Wang 2016) guarantees, with probability 0.95, |ρ − ρ̃| ≤ {eps_lev:.3g} with {int(result.ranks[-1])} "
        f"columns per view drawn by ridge leverage scores ({eps_uni:.3g} drawn uniformly). For |ρ − ρ̃| ≤ 0.05 it "
        f"asks for {need['ridge-leverage']:,.0f} columns per view ({need['uniform']:,.0f} uniformly; t = 1/2), each "
        f"sampling with its own β at the theorem's γ = ελ(1 − t)/2 ({beta['ridge-leverage']:.2f} and "
        f"{beta['uniform']:.2f}: the leverage scores here are at γ = {result.settings['leverage_gamma']:.3g}); N = "
        f"{result.m}." + (f" Measured at that rank: {compared}." if compared else "")
    )


def _story(result, j):
    if j == 0:
        return (
            "**Rank 0.** No landmarks yet: L = 0, so the error is the whole kernel (trace "
            f"{result.settings['kernel_trace']:.3g}). Press Next to add landmarks one at a time; the curves are "
            "computed at the five ranks marked on them."
        )
    grid = result.ranks[result.ranks <= j]
    if grid.size == 0:
        return f"**Rank {j}.** The first computed rank is {result.ranks[0]}; keep stepping."
    r = int(grid[-1])
    c = int(np.flatnonzero(result.ranks == r)[0])
    parts = [f"{name} {result.kernel_error[name]['trace'][:, c].mean():.3g}" for name in result.methods]
    text = f"**Rank {j}.** Trace error ‖K − L‖_* at rank {r}: " + ", ".join(parts) + "."
    if result.two_view:
        parts = [f"{name} {result.kcca[name]['rho'][:, c].mean():.2g}" for name in result.kcca]
        text += f" |ρ − ρ̃| (exact ρ = {result.exact['rho']:.3f}): " + ", ".join(parts) + "."
    return text


def _stability_figure(result):
    series, spreads, colours = {}, {}, {}
    for number, (name, arrays) in enumerate(result.kcca.items()):
        for key, label in (("alpha", "‖α − α̃‖/√N"), ("bound", "bound")):
            mean, low, high = result.spread(arrays[key])
            series[f"{name}: {label}"] = mean
            colours[f"{name}: {label}"] = figures.CURVE_COLOURS[number]
            if arrays[key].shape[0] > 1:
                spreads[f"{name}: {label}"] = (low, high)
    dashed = tuple(name for name in series if name.endswith("bound"))
    return figures.lines_figure(
        result.ranks,
        series,
        spreads=spreads,
        dashed=dashed,
        x_title="rank",
        y_title="‖α − α̃‖/√N",
        log_y=True,
        colours=colours,
    )


def _speedup_figure(result):
    mean, low, high = result.spread(result.speedup["speedup"])
    fig = figures.lines_figure(
        result.speedup["ranks"],
        {"incremental vs refitting": mean},
        spreads={"incremental vs refitting": (low, high)} if result.repeats > 1 else None,
        x_title="rank",
        y_title="speed-up (×)",
    )
    fig.add_hline(y=1.0, line={"color": "#777777", "dash": "dot", "width": 1.5})
    return fig, float(mean.max())


def draw(settings, result):
    """What the page shows of the lab's ``result`` at ``settings``."""
    log_y, split = settings.shown("log_y"), result.split
    class_names = settings.data.dataset().class_names
    n = int(result.ranks[-1])
    steps = range(n + 1)
    leverage = {"view X": result.leverage[0]} | ({"view Y": result.leverage[1]} if result.two_view else {})
    d_eff = ", ".join(f"{name} {value:.1f}" for name, value in zip(leverage, result.effective_dimension))
    # random features and k-means centres choose no training points: nothing to ring
    ringed = (
        [steps_ui.column_landmarks_panel(result, steps, split.y_train, class_names=class_names)]
        if result.landmarks
        else []
    )
    panels = ringed + [
        steps_ui.lines_panel(
            "trace",
            "curve",
            "Kernel error, trace norm",
            _metric_figure(result, log_y, "trace", result.kernel_error, "‖K − L‖_*"),
            n,
        ),
        steps_ui.lines_panel(
            "spectral",
            "curve",
            "Kernel error, spectral norm",
            _metric_figure(result, log_y, "spectral", result.kernel_error, "‖K − L‖₂"),
            n,
        ),
        steps_ui.lines_panel(
            "leverage",
            "curve",
            "Sorted ridge leverage scores (Fig. 1a)",
            figures.lines_figure(
                np.arange(1, result.m + 1),
                leverage,
                x_title="point (sorted by score)",
                y_title="ridge leverage score",
                log_y=True,
                markers=False,
            ),
            n,
            step_line=False,
            caption=f"Effective dimensions d_eff = Σ l_i: {d_eff} (γ = "
            f"{result.settings['leverage_gamma']:.2g}). A steeper curve means less uniform "
            "scores: more to gain from leverage sampling.",
        ),
    ]
    if result.two_view:
        valid = {name: float(arrays["valid"].mean()) for name, arrays in result.kcca.items()}
        speed, best = _speedup_figure(result)
        panels += [
            steps_ui.lines_panel(
                "rho",
                "curve",
                "Canonical correlation error (Fig. 1b)",
                _metric_figure(result, log_y, "rho", result.kcca, "|ρ − ρ̃|"),
                n,
                caption=theorem1_caption(result),
            ),
            steps_ui.lines_panel(
                "T", "curve", "Error in T (Fig. 1b)", _metric_figure(result, log_y, "T", result.kcca, "‖T − T̃‖₂"), n
            ),
            steps_ui.lines_panel(
                "stability",
                "curve",
                "Kernel stability against its bound (Fig. 1c)",
                _stability_figure(result),
                n,
                caption=f"Bound: (1/2 + 4√2/r)‖T − T̃‖/(Nλ) with gap r = σ₁(T) − σ₂(T) = "
                f"{result.exact['gap']:.3f} (Thm 2 step II; the paper prints σ₁σ₂, read "
                "as their difference). It assumes ‖T − T̃‖ ≤ r/2, which holds for "
                + ", ".join(f"{name} {100 * share:.0f}%" for name, share in valid.items())
                + " of the runs.",
            ),
            steps_ui.lines_panel(
                "speedup",
                "curve",
                "Incremental path speed-up (Fig. 1d)",
                speed,
                n,
                caption=f"Time to get solutions at every rank up to r by refitting each from "
                f"scratch, over the time of one incremental pass (Wang 2016, Alg. 1), "
                f"uniform landmarks, timed on this machine. Above the dotted line at 1 the incremental "
                f"pass is quicker; below it, refitting is. At N = {result.m} the largest speed-up is "
                f"{best:.2f}× (the paper times N = 3000 and ranks 100–1000).",
            ),
        ]
    player = {
        "panels": panels,
        "stories": [_story(result, j) for j in steps],
        "slider_help": "Step j shows the first j landmarks of each method and marks rank j on the error curves.",
    }
    return common.Picture(n, player, result.summary())
