"""Bounds explorer: every generalisation bound as a function of m, k, t and delta; no data needed."""

import numpy as np
import streamlit as st

from mpcore.explore import EXPLORER_BOUNDS, KNOBS, explore, grid, nontrivial_range
from ui import board, code, figures
from ui import steps as steps_ui
from ui.state import Control, PageState

PAGE = "bounds"
NONE = "(none)"
M_VALUES = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
DELTA_VALUES = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5)

# Each line fits the page at 150% text on 1280x720 with the sidebar open (about 520 px at 100%).
FORMULAS = {
    "compression_subspace": r"\begin{aligned}&\frac{1}{m-t}\sum_{i \notin \text{basis}} \|\phi(x_i) - P\phi(x_i)\|^2 \\"
    r"&+ \sqrt{\frac{R^2}{2(m-t)}\Big(t\ln\frac{em}{t} + \ln\frac{2m}{\delta}\Big)}\end{aligned}",
    "kmp_vc": r"\begin{aligned}\frac{2}{m-k-t}\Big[&(k+1)\log_2\frac{4e(m-k-t)}{k+1} + k\log_2\frac{em}{k} \\"
    r"&+ t\log_2\frac{e(m-k)}{t} + \log_2\frac{2m^2}{\delta}\Big]\end{aligned}",
    "compression_classification": r"\begin{aligned}&\frac{1}{m-k-t}\Big[\ln\binom{m-k}{t} + \ln\binom{m}{k} + "
    r"\ln\frac{m^2}{\delta}\Big] \\"
    r"&\Big(t = 0:\ \frac{1}{m-k}\Big[\ln\binom{m}{k} + \ln\frac{m}{\delta}\Big]\Big)\end{aligned}",
    "pca_global_rademacher": r"\begin{aligned}&\frac{1}{m}\sum_{i>t}\lambda_i + \frac{1+\sqrt{t}}{\sqrt{m}}"
    r"\sqrt{\frac{2}{m}\sum_{i=1}^m k(x_i,x_i)^2} \\ &+ R^2\sqrt{\frac{18}{m}\ln\frac{2m}{\delta}}\end{aligned}",
    "pca_local_rademacher": r"\begin{aligned}&c\Big(\sqrt{L_k\big(\rho + \tfrac{R}{m}\ln\tfrac{1}{\delta}\big)} "
    r"+ \rho + \tfrac{R}{m}\ln\tfrac{1}{\delta}\Big),\ \ L_k = \sum_{i>k}\lambda_i, \\"
    r"&\rho = \min_{t\ge 0}\Big(\frac{Rt}{m} + \sqrt{\frac{k}{m}\sum_{j>t}\mu_j}\Big)\end{aligned}",
    "mpkfda": r"\begin{aligned}&P(\text{error on class } c) \le 1 - \frac{s_c^2}{w^\top\Sigma_c w + B_c + s_c^2}, \\"
    r"&s_c = |w^\top\mu_c - b| - A_c, \\ &A_c = \frac{R}{\sqrt{n_c}}\Big(2 + \sqrt{k\ln\frac{em}{k} + "
    r"2\ln\frac{2m}{\delta'}}\Big)\end{aligned}",
}

NOTES = {
    "compression_subspace": (
        "Holds for any subspace method whose subspace is spanned by t training points (sparse KPCA): the "
        "expected residual of a new point is at most the training residual on the m − t points not chosen plus "
        "the square root term. Needs a loss bounded by R² (R = 1 for a Gaussian kernel). The printed statement "
        "has R under the root; its proof gives R², used here. Here the training residual is a fixed knob; in "
        "a real run it falls as t grows, which is why the bound has a minimum over t.",
        "t: the compression set (basis points); m − t: points left to test on; δ: confidence.",
    ),
    "kmp_vc": (
        "Kernel matching pursuit (and sparse KCCA, Thm 9): a function built on k training points; t of the "
        "other m − k points have error |f(x) − y| above a tolerance α. Bounds the probability that a new point "
        "errs by more than α. Logarithms are base 2 (from the 2^(−ε(m−k−t)/2) in the proof).",
        "k: basis points (compression set); t: training errors outside it; the (k+1) term is the VC dimension "
        "of thresholded functions in the k-dimensional span; the k and t terms count the ways to choose them.",
    ),
    "compression_classification": (
        "Any classifier reconstructed from k training points (a sample compression scheme) that errs on t of "
        "the other m − k points. Bounds its true error rate; exact log-binomials are used.",
        "k: compression set size; t: training errors outside it; the binomials count the possible compression "
        "sets and error sets.",
    ),
    "pca_global_rademacher": (
        "Kernel PCA with t components (Shawe-Taylor et al.): the expected residual is at most the tail of the "
        "spectrum plus a complexity term that grows with √t. Without data, the spectrum is a model: eigenvalues "
        "falling as i^(−p) with trace m (unit diagonal). The confidence term R²√(18 ln(2m/δ)/m) alone is about "
        "0.9 at m = 200 and 0.44 at m = 1000 (δ = 0.05), so on small samples the bound is trivial — as in the "
        "paper's Boston figure.",
        "λ_i: eigenvalues of the (uncentred) kernel matrix; t: components; R²: largest k(x, x).",
    ),
    "pca_local_rademacher": (
        "Kernel PCA with k components through local Rademacher averages (Blanchard et al.): faster rates in m, "
        "but the constant c (at most 80) makes it loose for any realistic m — the paper plots it on a log axis. "
        "Model spectrum as above; the centred spectrum μ is taken as the same spectrum without its largest "
        "eigenvalue. The printed (I − 11')K'K(I − 11') is read as the centred kernel. The theorem prints "
        "λ_i(K), eigenvalues of K itself; drawn here is λ_i(K/m), the reading its proof supports (Blanchard et "
        "al. bound with the covariance operator, whose eigenvalues are those of K/m). With the printed reading "
        "every sum is m times larger and the bound grows with m instead of falling; the sparse KPCA page draws "
        "both.",
        "λ_i: eigenvalues of K/m; μ_j: of the centred kernel HKH/m; ρ: the fixed point of the local complexity.",
    ),
    "mpkfda": (
        "The greedy Fisher discriminant on k basis points (Diethe 2015, Thm 1): per class, Chebyshev-style, the "
        "error is at most 1 − s²/(variance + B + s²), where s is the distance from the class's projected mean to "
        "the threshold, shrunk by the estimation error A. Trivial (1) whenever A exceeds the margin — which is "
        "why it is 1 on small datasets. Here the two classes are balanced with means ±margin.",
        "k: basis points; n_c = (m − k)/2 points per class outside the basis; δ' = δ/2 per class; A, B: "
        "estimation errors of the mean and variance (eq. 10).",
    ),
}

# Counts for k, t and the axis's end: a slider over 0..999 cannot be set to 10 with a mouse.
COUNTS = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    15,
    20,
    25,
    30,
    40,
    50,
    60,
    80,
    100,
    120,
    150,
    200,
    250,
    300,
    400,
    500,
    600,
    800,
    1000,
    1200,
    1500,
    2000,
)
LOG_CAP = 2.5  # a linear axis is cut here (mark_trivial); a bound above it everywhere needs the log axis

state = PageState(PAGE)
display = board.page_top(
    state,
    "Bounds explorer",
    "Every generalisation bound in the papers, as a function of the sample size m, the sparsity k (or t) and "
    "the confidence δ — no data needed. Step along the axis (the keys or a clicker) to read each bound at one "
    "value, move the sliders to see when a bound says something (below 1) and which of two bounds is tighter "
    "where.",
)
state.notes_here()

sb = st.sidebar
sb.header("Bound")
names = tuple(EXPLORER_BOUNDS)
bound = state.widget(
    sb.selectbox,
    Control("bound", "kmp_vc", str, options=names),
    "Bound",
    options=names,
    format_func=lambda n: EXPLORER_BOUNDS[n].title,
    scope=PAGE,
    help="Which theorem to plot (Hussain et al. 2011, Thms 2, 4, 6, 7, 8; Diethe 2015, Thm 1).",
)
spec = EXPLORER_BOUNDS[bound]
vary = state.widget(
    sb.radio,
    Control("vary", spec.variables[0], str, options=spec.variables),
    "Along",
    options=spec.variables,
    format_func=lambda n: KNOBS[n].label,
    scope=f"{PAGE}:{bound}",
    horizontal=True,
    help="The knob on the x axis; the others stay at their sliders' values.",
)
others = tuple(NONE if n == bound else n for n in names if n == bound or vary in EXPLORER_BOUNDS[n].knobs)
overlay = state.widget(
    sb.selectbox,
    Control("overlay", NONE, str, options=others),
    "Overlay a second bound",
    options=others,
    scope=PAGE,
    widget_key=f"w:overlay:{bound}:{vary}",
    format_func=lambda n: n if n == NONE else EXPLORER_BOUNDS[n].title,
    help="Draw another bound that depends on the same knob on the same axes, with the same "
    "knob values (bounds of an error rate and of a residual are different quantities).",
)
log_x = state.widget(
    sb.toggle,
    Control("logx", vary in ("m", "delta"), bool),
    "Log x axis",
    scope=f"{PAGE}:{vary}",
    help="A log axis shows small and large values of the knob together.",
)
axes = sb.container()  # the log y toggle, drawn once the curves say whether it is needed

sb.header("Knobs")
used = [n for n in KNOBS if n in spec.knobs or (overlay != NONE and n in EXPLORER_BOUNDS[overlay].knobs)]
values = {}
for name in ("m", "delta", "k", "t", "emp_loss", "R", "decay", "c", "margin", "variance"):
    if name not in used:
        continue
    knob = KNOBS[name]
    label = knob.label + (" (on the x axis)" if name == vary else "")
    if name == "m":
        values["m"] = state.widget(
            sb.select_slider,
            Control("m", 1000, int, options=M_VALUES),
            label,
            options=M_VALUES,
            help=knob.help,
            disabled=name == vary,
            scope=PAGE,
        )
    elif name == "delta":
        values["delta"] = state.widget(
            sb.select_slider,
            Control("delta", 0.05, float, options=DELTA_VALUES),
            label,
            options=DELTA_VALUES,
            help=knob.help,
            disabled=name == vary,
            scope=PAGE,
        )
    elif knob.integer:
        top = max(1, min(int(knob.hi), int(values.get("m", 1000)) - 1))
        counts = tuple(c for c in COUNTS if c <= top)
        control = Control(name, min(int(knob.default), counts[-1]), int, options=counts, nearest=True)
        values[name] = state.widget(
            sb.select_slider, control, label, options=counts, help=knob.help, disabled=name == vary, scope=PAGE
        )
    else:
        control = Control(name, float(knob.default), float, lo=knob.lo, hi=knob.hi)
        values[name] = state.widget(
            sb.slider,
            control,
            label,
            min_value=float(knob.lo),
            max_value=float(knob.hi),
            step=0.01 if knob.hi <= 5 else 1.0,
            help=knob.help,
            disabled=name == vary,
            scope=PAGE,
        )
if vary in ("k", "t"):
    top = max(1, int(values["m"]) - 1)
    ends = tuple(c for c in COUNTS if 1 <= c <= top) or (1,)
    span = state.widget(
        sb.select_slider,
        Control(f"{vary}max", min(200, ends[-1]), int, options=ends, nearest=True),
        f"Largest {vary} shown",
        options=ends,
        scope=PAGE,
        help="The x axis runs from 0 to this value.",
    )
    xs = grid(vary, 0, span, n=min(span + 1, 200))
else:
    xs = grid(vary)


@st.cache_data(max_entries=128, show_spinner=False)
def curve(name, vary, xs, settings):
    return explore(name, vary, np.asarray(xs), **dict(settings))


settings = tuple(sorted(values.items()))
series = {EXPLORER_BOUNDS[bound].title: curve(bound, vary, tuple(xs), settings)}
if overlay != NONE:
    series[EXPLORER_BOUNDS[overlay].title] = curve(overlay, vary, tuple(xs), settings)

knob = KNOBS[vary]
word = knob.label.split(" (")[0]
fixed = ", ".join(f"{KNOBS[n].label.split(' (')[0]} = {values[n]:g}" for n in values if n != vary)
# a curve above the linear axis's cut everywhere would be off the chart: the log axis is the default then
lowest = [float(np.nanmin(ys)) for ys in series.values() if np.isfinite(ys).any()]
needs_log = bool(lowest) and max(lowest) > LOG_CAP
log_y = state.widget(
    axes.toggle,
    Control("logy", bound == "pca_local_rademacher" or needs_log, bool),
    "Log y axis",
    scope=f"{PAGE}:{bound}:{overlay}",
    help="A log axis shows loose bounds (far above 1) next to tight ones.",
)


def at_step(j):
    """The story of step j: each bound's value where the step line is."""
    parts = []
    for title, ys in series.items():
        value = ys[j]
        verdict = (
            "not defined here"
            if not np.isfinite(value)
            else "below 1: it says something"
            if value < 1
            else "1 or more: trivial here"
        )
        parts.append(f"{title} = **{value:.3g}** ({verdict})" if np.isfinite(value) else f"{title}: {verdict}")
    return f"**{word} = {xs[j]:g}.** " + "; ".join(parts) + "."


def build():
    fig = figures.lines_figure(
        xs,
        series,
        x_title=knob.label,
        y_title="bound",
        markers=False,
        log_y=log_y,
        log_x=log_x,
        dashed=tuple(series)[1:],
    )
    cut = figures.mark_trivial(fig, xs, log_y=log_y, cap=LOG_CAP, label_in_figure=False)
    positive = np.asarray(xs, dtype=float)[np.asarray(xs, dtype=float) > 0]
    ends = (
        np.log10([positive[0], positive[-1]]) if log_x and positive.size > 1 else np.array([xs[0], xs[-1]], dtype=float)
    )
    pad = 0.03 * (ends[1] - ends[0])  # the first x tick clear of the lowest y tick at the corner
    fig.update_xaxes(range=[float(ends[0] - pad), float(ends[1] + pad)])
    n = len(xs) - 1
    panel = steps_ui.lines_panel(
        "bound",
        "a",
        f"Bound against {knob.label}",
        fig,
        n,
        caption=(
            "The y axis is cut at 2.5 so the part below 1 is visible; switch on the log y axis to see all of it."
            if cut
            else ""
        )
        + f" Fixed: {fixed}.",
    )
    panel.span, panel.step_x = (9, 9), [float(x) for x in xs]
    panel.step_text = [f"{word} = {x:g}" for x in xs]
    return {
        "panels": [panel],
        "stories": [at_step(j) for j in range(n + 1)],
        "slider_help": f"Step along the x axis: the story reads each bound at that {word}.",
    }


board.player(state, ("bounds", bound, vary, tuple(xs), settings, overlay, log_x, log_y), len(xs) - 1, build, display)

sentences = []
for title, ys in series.items():
    where = nontrivial_range(xs, ys)
    finite = ys[np.isfinite(ys)]
    if where is None:
        sentences.append(
            f"**{title}** is at least 1 (trivial) everywhere on this axis"
            + (f"; its smallest value is {finite.min():.3g}." if finite.size else ".")
        )
    else:
        best = int(np.nanargmin(np.where(np.isfinite(ys), ys, np.nan)))
        sentences.append(
            f"**{title}** is below 1 for {word} from {where[0]:g} to {where[1]:g}; "
            f"smallest {ys[best]:.3g} at {xs[best]:g}."
        )
if len(series) == 2:
    (name_a, a), (name_b, b) = series.items()
    both = np.isfinite(a) & np.isfinite(b)
    if both.any():
        a_wins = both & (a < b)
        sentences.append(
            f"The first is tighter at {a_wins.sum()} of {both.sum()} points on the axis"
            + (f" (from {xs[a_wins][0]:g} to {xs[a_wins][-1]:g})." if a_wins.any() else ".")
        )
st.markdown(" ".join(sentences) + f" Fixed: {fixed}.")
query = st.query_params.to_dict()
board.copy_as_code(
    lambda: code.explore_script(
        f"Bounds explorer: {EXPLORER_BOUNDS[bound].title}", bound, vary, xs, dict(settings), query=query
    ),
    "bounds-explorer",
)

for name in dict.fromkeys((bound, overlay)):
    if name == NONE:
        continue
    chosen = EXPLORER_BOUNDS[name]
    st.subheader(f"{chosen.title} ({chosen.source})")
    box = st.container(key=f"grows-bound-{name}")  # grows with the text size (ui.board.grows_css)
    board.equation(FORMULAS[name], box)
    assumptions, terms = NOTES[name]
    box.markdown(f"**What it assumes and says.** {assumptions}")
    box.markdown(f"**The terms.** {terms}")
    st.caption(
        "Trivial where it is 1 or more for an error rate"
        if chosen.error_bound
        else "Bounds an expected residual (in units of k(x, x)); with R = 1 a value of 1 or more says nothing "
        "a Gaussian kernel does not already guarantee."
    )
state.write_url()
