"""Bounds explorer: every generalisation bound as a function of m, k, t and delta; no data needed."""

import numpy as np
import streamlit as st

from mpcore.explore import EXPLORER_BOUNDS, KNOBS, nontrivial_range
from ui import board, choose
from ui.state import PageState
from views import code, pictures, site
from views.pictures import bounds as picture

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

state = PageState(picture.PAGE)
display = board.page_top(
    state,
    site.by_key(picture.PAGE).title,
    "Every generalisation bound in the papers, as a function of the sample size m, the sparsity k (or t) and "
    "the confidence δ — no data needed. Step along the axis (the keys or a clicker) to read each bound at one "
    "value, move the sliders to see when a bound says something (below 1) and which of two bounds is tighter "
    "where.",
)
state.notes_here()

settings = picture.read(choose.Sidebar(state))
series, _ = pictures.compute(settings)
board.player(state, settings, series, picture.draw, display)
study = settings.options
bound, vary, overlay = study["bound"], study["vary"], study["overlay"]
xs, word = np.asarray(study["xs"]), KNOBS[vary].label.split(" (")[0]

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
st.markdown(" ".join(sentences) + f" Fixed: {picture.fixed_values(settings)}.")
query = st.query_params.to_dict()
board.copy_as_code(
    lambda: code.explore_script(
        f"Bounds explorer: {EXPLORER_BOUNDS[bound].title}", bound, vary, xs, picture.knob_values(settings), query=query
    ),
    "bounds-explorer",
)

for name in dict.fromkeys((bound, overlay)):
    if name == picture.NONE:
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
