"""Home: the one idea behind every page, a small picture per algorithm, and links."""

import streamlit as st

from ui import board, compute, live
from views import figures, pictures, site
from views.pictures.settings import Address, read_data, read_kernel

st.title("Matching Pursuit Lab")
st.markdown(
    """
Every algorithm in this lab is the same loop over the columns of a kernel matrix K
(one column per training point):

1. **Maximise a criterion** over the candidate columns: which point, added to the basis, helps most?
2. **Deflate** K: remove from it everything the chosen point explains, so that the next choice adds something new.
3. After k steps, **fit a learner** in the span of the k chosen points: a sparse model that needs only k kernel
   evaluations per prediction.

Only the criterion and the deflation change from one algorithm to the next (Hussain et al. 2011, Alg. 4 and Table I).
Because the final model is determined by the k chosen points, it is a *sample compression scheme*, and its test
error has a bound that depends on k: step through a path and watch that bound against the real test error.
"""
)
board.equation(  # two lines, the step then the deflation: one line ran past a phone's screen
    r"\begin{aligned} i_{j+1} &= \arg\max_i \ \mathrm{criterion}(K_j[:, i])\, \\ "
    r"K_{j+1} &= \mathrm{deflate}(K_j, i_{j+1}) \end{aligned}"
)
st.page_link(  # a short label: a link's label never wraps, and a long one was cut on a phone
    "app_pages/lessons.py",
    label="New here? Take a guided lesson",
    icon=":material/school:",
    help="Narrated scenes with questions: PageDown (or a clicker) moves on.",
)
live.join_form()  # only where the server runs live classes

# Each card (views/site.py): its page, the study its picture shows (dataset, width, k, step),
# and what it says.  The "Open ... at step N" link carries every setting of that study, so
# the page it opens -- and any copy of its address -- shows exactly the card's picture, larger.
CARDS = [page for page in site.PLAYER_PAGES if page.card is not None]
CARD_POINTS = 200


def card_link(name, gamma, k, step):
    """The settings of a card's study, as its page reads them from a link."""
    return {"data": name, "points": str(CARD_POINTS), "gamma": gamma, "k": str(k), "step": str(step)}


def card_settings(family, name, gamma, k):
    """The settings a card's link opens its page on (the page reads them, :mod:`views.pictures`)."""
    draws = pictures.module(family)
    address = Address(card_link(name, gamma, k, 0))
    data = read_data(address, draws.TASKS, draws.DATA)
    return draws.read(address, data, read_kernel(address))


def card_figure(family, name, gamma, k, step):
    """The card's picture: the page's study at the link's settings (the page's defaults
    for everything the link does not set)."""
    study, _ = compute.compute_study(card_settings(family, name, gamma, k))
    j = min(step, study.n_steps)
    chosen = study.chosen(j)
    if family == "skpca":
        fig = figures.residual_figure(
            study.coords, study.residuals(j), chosen, titles=study.coord_titles, title=f"{j} points chosen: residual"
        )
    elif family == "kmp":
        xs, fitted = study.fit_curve(j)
        fig = figures.fit_figure(xs, fitted, study.coords, chosen, title=f"fit with {j} basis functions")
    elif family == "skcca":
        fig = figures.projection_figure(study.projections(j), title=f"{j} points: the two views agree")
    else:
        xs, ys, values = study.decision_grid(j, n=40)
        fig = figures.decision_figure(
            xs, ys, values, study.coords, study.split.y_train, chosen, title=f"{j} points: decision boundary"
        )
    return figures.thumbnail(fig)


columns = st.columns(2)
for number, page in enumerate(CARDS):
    card = page.card
    with columns[number % 2].container(border=True):
        st.subheader(page.title)
        board.chart(card_figure(page.key, card.data, card.gamma, card.k, card.step), key=f"home-{page.key}")
        st.markdown(card.text)
        st.page_link(
            page.file,
            label=f"Open {page.title} at step {card.step}",
            icon=":material/arrow_forward:",
            query_params=card_link(card.data, card.gamma, card.k, card.step),
        )

st.subheader("Labs, theory and the papers")
LINKS = [page for page in site.PAGES if page.link is not None]
for column, page in zip(st.columns(len(LINKS)), LINKS):
    column.page_link(page.file, label=page.title, icon=page.icon, help=page.link.help)
    column.caption(page.link.caption)

st.markdown(
    """
**How to use a page.** Pick a dataset and a kernel in the sidebar (or upload a CSV), then step: the buttons,
the slider and the keyboard (← → to step, space to play, Home to reset) move through the greedy choices. At
each step you see the chosen points, the criterion that made the next choice, the kernel before and after
deflation, the model so far and the bounds against the number of basis vectors. The address bar always holds
the current view: copy it to share the exact demo.
"""
)
