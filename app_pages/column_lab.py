"""Nystroem & column selection lab: greedy vs uniform vs ridge-leverage landmarks (Wang 2016, Fig. 1)."""

import numpy as np
import streamlit as st

from mpcore.labs import COLUMN_METHODS
from ui import board, choose, compute, figures
from ui import steps as steps_ui
from ui.state import Control, PageState

PAGE = "column-lab"
REGS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
RATIOS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
METHOD_HELP = (
    "greedy: sparse KPCA's picks (pivoted Cholesky, deterministic); uniform: random columns without "
    "replacement; ridge-leverage: columns drawn with replacement with probability proportional to their "
    "ridge leverage score (Wang 2016, eq. 10-12); k-means: scikit-learn's cluster centres (not training "
    "points; kernel error only); random-features: r random Fourier features in place of r columns "
    "(scikit-learn's RBFSampler; Lopez-Paz et al. 2014's randomized CCA, Wang's baseline; RBF kernel only)."
)

state = PageState(PAGE)
display = board.page_top(
    state,
    "Nyström & column selection",
    "A Nyström approximation rebuilds the whole kernel from a few of its columns (the *landmarks*): "
    "L = C W⁺ C'. Which columns? Sparse KPCA picks them greedily; Wang 2016 samples them uniformly or by ridge "
    "leverage scores. This lab compares the choices on one kernel: how well L approximates K, and — for two-view "
    "data — how close Nyström KCCA gets to exact KCCA, with the paper's kernel-stability bound and the speed-up "
    "of its incremental algorithm (Wang 2016, Figure 1). Random methods are repeated; bands show the spread.",
)
state.notes_here()

data = choose.data_sidebar(state, ("two-view", "binary", "regression", "unsupervised"), preset="rings-two-view")
kernel = choose.kernel_sidebar(state, data)
sb = st.sidebar
sb.header("Columns")
methods = state.widget(
    sb.multiselect,
    Control("methods", COLUMN_METHODS[:3], tuple, options=COLUMN_METHODS),
    "Methods",
    scope=PAGE,
    options=COLUMN_METHODS,
    help=METHOD_HELP,
)
m = data.train_size()
top_hi = max(2, min(200, m - 1))
top = state.widget(
    sb.slider,
    Control("rank", min(60, top_hi), int, lo=2, hi=top_hi),
    "Largest rank",
    scope=PAGE,
    min_value=2,
    max_value=top_hi,
    help="Landmarks at most; the errors are computed at five ranks up to this one.",
)
repeats = state.widget(
    sb.slider,
    Control("repeats", 3, int, lo=1, hi=10),
    "Repetitions",
    scope=PAGE,
    min_value=1,
    max_value=10,
    help="Seeds per random method (the paper averages 20); the bands show min–max.",
)
reg = state.widget(
    sb.select_slider,
    Control("reg", 1e-3, float, options=REGS),
    "KCCA regularisation λ",
    scope=PAGE,
    options=REGS,
    help="λ₁ = λ₂ of regularised KCCA (Wang 2016, eq. 2-3); also the scale of the leverage-score parameter.",
)
ratio = state.widget(
    sb.select_slider,
    Control("levratio", 1.0, float, options=RATIOS),
    "Leverage γ / λ",
    scope=PAGE,
    options=RATIOS,
    help="Ridge leverage scores l_i(K, γ) use γ = this × λ (the paper tries 10⁻⁴ … 1 and finds them similar).",
)
log_y = choose.log_toggle(
    state,
    default=True,
    label="Log-scale error axes",
    help_text="Errors fall by orders of magnitude with the rank: a log axis shows them all.",
)
if not methods:
    st.info("Pick at least one method in the sidebar.", icon=":material/info:")
    state.write_url()
    st.stop()

ranks = tuple(int(r) for r in np.unique(np.round(np.linspace(max(1, top / 5), top, 5))))
settings = {
    "ranks": ranks,
    "methods": tuple(methods),
    "repeats": int(repeats),
    "reg": float(reg),
    "leverage_ratio": float(ratio),
}
result, seconds = compute.compute_study(
    "column-lab", data, kernel, state, progress_text="Choosing columns and fitting Nyström approximations", **settings
)
split = result.split
dataset = data.dataset()


def bands(metric, source):
    means, spreads = {}, {}
    for name, arrays in source.items():
        mean, low, high = result.spread(arrays[metric])
        means[name] = mean
        if arrays[metric].shape[0] > 1:
            spreads[name] = (low, high)
    return means, spreads


def metric_figure(metric, source, y_title):
    means, spreads = bands(metric, source)
    return figures.lines_figure(
        result.ranks, means, spreads=spreads, x_title="rank (landmarks)", y_title=y_title, log_y=log_y
    )


def theorem1_caption():
    """What Wang 2016, Thm 1 guarantees at the largest rank, and the columns it asks for at ε = 0.05."""
    t1 = result.theorem1
    eps_lev, eps_uni = t1["epsilon/ridge-leverage"][-1], t1["epsilon/uniform"][-1]
    need = t1["columns at 0.05"]
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
        f"asks for {need['ridge-leverage']:,.0f} columns per view ({need['uniform']:,.0f} uniformly; t = 1/2); N = "
        f"{result.m}." + (f" Measured at that rank: {compared}." if compared else "")
    )


def story(j):
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


def stability_figure():
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


def speedup_figure():
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


def build():
    n = int(result.ranks[-1])
    steps = range(n + 1)
    leverage = {"view X": result.leverage[0]} | ({"view Y": result.leverage[1]} if result.two_view else {})
    d_eff = ", ".join(f"{name} {value:.1f}" for name, value in zip(leverage, result.effective_dimension))
    # random features and k-means centres choose no training points: nothing to ring
    ringed = (
        [steps_ui.column_landmarks_panel(result, steps, split.y_train, class_names=dataset.class_names)]
        if result.landmarks
        else []
    )
    panels = ringed + [
        steps_ui.lines_panel(
            "trace", "b", "Kernel error, trace norm", metric_figure("trace", result.kernel_error, "‖K − L‖_*"), n
        ),
        steps_ui.lines_panel(
            "spectral",
            "c",
            "Kernel error, spectral norm",
            metric_figure("spectral", result.kernel_error, "‖K − L‖₂"),
            n,
        ),
        steps_ui.lines_panel(
            "leverage",
            "f",
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
        speed, best = speedup_figure()
        panels += [
            steps_ui.lines_panel(
                "rho",
                "d",
                "Canonical correlation error (Fig. 1b)",
                metric_figure("rho", result.kcca, "|ρ − ρ̃|"),
                n,
                caption=theorem1_caption(),
            ),
            steps_ui.lines_panel("T", "e", "Error in T (Fig. 1b)", metric_figure("T", result.kcca, "‖T − T̃‖₂"), n),
            steps_ui.lines_panel(
                "stability",
                "g",
                "Kernel stability against its bound (Fig. 1c)",
                stability_figure(),
                n,
                caption=f"Bound: (1/2 + 4√2/r)‖T − T̃‖/(Nλ) with gap r = σ₁(T) − σ₂(T) = "
                f"{result.exact['gap']:.3f} (Thm 2 step II; the paper prints σ₁σ₂, read "
                "as their difference). It assumes ‖T − T̃‖ ≤ r/2, which holds for "
                + ", ".join(f"{name} {100 * share:.0f}%" for name, share in valid.items())
                + " of the runs.",
            ),
            steps_ui.lines_panel(
                "speedup",
                "h",
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
    return {
        "panels": panels,
        "stories": [story(j) for j in steps],
        "slider_help": "Step j shows the first j landmarks of each method and marks rank j on the error curves.",
    }


board.player(
    state,
    compute.study_key("column-lab", data, kernel, settings, log_y),
    int(result.ranks[-1]),
    build,
    display,
    numbers=result.summary,
)
if not result.two_view:
    st.info(
        "Pick a two-view dataset (two-view rings or digit halves) to add KCCA accuracy, kernel stability and "
        "the incremental speed-up.",
        icon=":material/info:",
    )

formulas = board.formulas(state, "The formulas (Wang 2016)")
if formulas.open:
    with formulas:
        board.equation(
            r"\begin{aligned}L &= K S (S^\top K S)^{+} S^\top K, \\"
            r"l_i(K,\gamma) &= \big(K(K + N\gamma I)^{-1}\big)_{ii},\qquad p_i = \frac{l_i}{\sum_j l_j}\end{aligned}"
        )
        board.equation(
            r"\begin{aligned}T &= (\bar K_1 + N\lambda_1 I)^{-1}\bar K_1 \bar K_2 (\bar K_2 + N\lambda_2 I)^{-1}, \\"
            r"\frac{\|\alpha - \tilde\alpha\|}{\sqrt N} &\le \Big(\frac12 + \frac{4\sqrt2}{r}\Big)"
            r"\frac{\|T - \tilde T\|}{N\lambda_1}\end{aligned}"
        )
        st.markdown(
            "**How many columns** (Thm 1): with M columns per view drawn with probabilities p_i ≥ β l_i / d_eff "
            "(β = 1 for the leverage scores, d_eff / (N max l_i) for uniform sampling), |ρ − ρ̃| ≤ ε with "
            "probability 1 − δ once, for some t in [0, 1),"
        )
        board.equation(
            r"\begin{aligned}M &\ge 2\Big(\frac{d_{\mathrm{eff}}}{\beta t^2} + \frac{1}{3t}\Big)\log\frac{2N}{\delta},"
            r"\\ d_{\mathrm{eff}} &= \operatorname{tr}\big(K(K + N\gamma I)^{-1}\big),\quad "
            r"\gamma = \tfrac{\epsilon\lambda(1-t)}{2}\end{aligned}"
        )
        st.markdown(
            "K̄ = HKH is the centred kernel; ρ is the largest singular value of T, ρ̃ that of T̃ built from "
            "L₁, L₂ (eq. 15, never forming an N × N matrix). The kernel error of greedy columns is the trace "
            "of sparse KPCA's deflated kernel: pivoted Cholesky *is* Nyström on the chosen columns."
        )

curves = result.table()  # not the result itself in the callable: it would outlive the run
st.download_button(
    "Download the curves (CSV)",
    lambda: board.to_csv(curves),
    "column-selection.csv",
    mime="text/csv",
    on_click="ignore",
    icon=":material/download:",
    help="Means over the repetitions at each computed rank.",
)
board.study_code("column-lab", "Nyström column selection", data, kernel, settings, "column-selection")
st.caption(
    f"Computed on N = {result.m} training points, {result.repeats} repetitions, in {seconds:.2f} s "
    "(cached: stepping only redraws)."
)
state.write_url()
