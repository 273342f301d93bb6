"""Home: the one idea behind every page, a small picture per algorithm, and links."""
import streamlit as st

from ui import figures, frame

st.title("Matching Pursuit Lab")
st.markdown(
    """
Every algorithm in this lab is the same loop over the columns of a kernel matrix K
(one column per training point):

1. **Maximise a criterion** over the candidate columns: which point, added to the basis, helps most?
2. **Deflate** K: remove from it everything the chosen point explains, so that the next choice adds something new.
3. After k steps, **fit a learner** in the span of the k chosen points: a sparse model that needs only k kernel
   evaluations per prediction.

Only the criterion and the deflation change from one algorithm to the next (seed 000, Alg. 4 and Table I).
Because the final model is determined by the k chosen points, it is a *sample compression scheme*, and its test
error has a bound that depends on k: step through a path and watch that bound against the real test error.
"""
)
st.latex(r"i_{j+1} = \arg\max_i \ \mathrm{criterion}(K_j[:, i]) \qquad\longrightarrow\qquad "
         r"K_{j+1} = \mathrm{deflate}(K_j, i_{j+1})")

CARDS = [
    ("app_pages/sparse_kpca.py", "Sparse KPCA", "skpca", "rings",
     "Criterion: variance explained, ‖K[:, i]‖² / K[i, i]. Deflation: Schur complement (pivoted Cholesky). "
     "Model: the subspace of the chosen points.", {"data": "rings", "k": "20", "step": "6"}),
    ("app_pages/kmp.py", "Kernel Matching Pursuit", "kmp", "sinc",
     "Criterion: fit of the residual, |K[:, i]'y| / ‖K[:, i]‖. Deflation: project the chosen column out. "
     "Model: least squares on the chosen columns.", {"data": "sinc", "k": "15", "step": "5"}),
    ("app_pages/sparse_kcca.py", "Sparse KCCA", "skcca", "rings-two-view",
     "Criterion: alignment of a point's columns in the two views. Deflation: in both views. "
     "Model: CCA on the chosen points.", {"data": "rings-two-view", "k": "20", "step": "10"}),
    ("app_pages/mpkfda.py", "Greedy Fisher (MPKFDA)", "mpkfda", "moons",
     "Criterion: Fisher ratio of the column, (K[:, i]'y)² / (K[:, i]'B K[:, i]). Deflation: one of seven. "
     "Model: Fisher discriminant on the chosen points.", {"data": "moons", "k": "20", "step": "8"}),
]


CARD_DATA = {  # small, seeded versions of each preset dataset: the cards must draw fast
    "rings": (("n_samples", 200), ("noise", 0.08), ("seed", 0)),
    "sinc": (("n_samples", 200), ("noise", 0.1), ("seed", 0)),
    "rings-two-view": (("n_samples", 200), ("seed", 0)),
    "moons": (("n_samples", 200), ("noise", 0.2), ("seed", 0)),
}


def card_figure(family, name, step):
    data = frame.DataChoice(name, CARD_DATA[name], test=0.3, seed=0, standardize=True, points=200)
    settings = {"k": 15 if family == "kmp" else 20}
    kernel = frame.KernelChoice("rbf", 2.0 if family in ("kmp", "skpca") else None, 3)
    study, _ = frame.compute_study(family, data, kernel, **settings)
    j = min(step, study.n_steps)
    chosen = study.chosen(j)
    if family == "skpca":
        fig = figures.residual_figure(study.coords, study.residuals(j), chosen, titles=study.coord_titles,
                                      title=f"{j} points chosen: residual")
    elif family == "kmp":
        xs, fitted = study.fit_curve(j)
        fig = figures.fit_figure(xs, fitted, study.coords, chosen, title=f"fit with {j} basis functions")
    elif family == "skcca":
        fig = figures.projection_figure(study.projections(j), title=f"{j} points: the two views agree")
    else:
        xs, ys, values = study.decision_grid(j, n=40)
        fig = figures.decision_figure(xs, ys, values, study.coords, study.split.y_train, chosen,
                                      title=f"{j} points: decision boundary")
    return figures.thumbnail(fig)


columns = st.columns(2)
for number, (path, title, family, name, text, preset) in enumerate(CARDS):
    with columns[number % 2].container(border=True):
        st.subheader(title)
        frame.show(card_figure(family, name, int(preset["step"])), key=f"home-{family}")
        st.markdown(text)
        st.page_link(path, label=f"Open {title} at step {preset['step']}", icon=":material/arrow_forward:",
                     query_params=preset)

st.subheader("Labs, theory and the papers")
links = st.columns(4)
links[0].page_link("app_pages/deflation_lab.py", label="Deflation lab", icon=":material/layers:",
                   help="One criterion, seven ways to deflate, side by side: which keep K positive semi-definite, "
                        "which wipe out the chosen column, and what it does to the test error.")
links[0].caption("Seven deflations side by side, with what stays PSD and the criterion × deflation table.")
links[1].page_link("app_pages/column_lab.py", label="Nyström & column selection", icon=":material/view_column:",
                   help="Greedy, uniform and leverage-score columns for a Nyström approximation (seed 004 Fig. 1).")
links[1].caption("Greedy vs uniform vs leverage-score columns: kernel error, KCCA accuracy, stability, speed-up.")
links[2].page_link("app_pages/bounds_explorer.py", label="Bounds explorer", icon=":material/functions:",
                   help="Every bound as a function of m, k, t and δ; no data needed.")
links[2].caption("Every bound against m, k, t and δ: where it says something, and which is tighter.")
links[3].page_link("app_pages/paper_figures.py", label="Paper figures", icon=":material/menu_book:",
                   help="The papers' figures and tables rerun on offline data, each with the paper's finding and "
                        "what differs here.")
links[3].caption("Each paper figure and table: the paper's claim, our rerun, and what differs.")

st.markdown(
    """
**How to use a page.** Pick a dataset and a kernel in the sidebar (or upload a CSV), then step: the buttons,
the slider and the keyboard (← → to step, space to play, Home to reset) move through the greedy choices. At
each step you see the chosen points, the criterion that made the next choice, the kernel before and after
deflation, the model so far and the bounds against the number of basis vectors. The address bar always holds
the current view: copy it to share the exact demo.
"""
)
