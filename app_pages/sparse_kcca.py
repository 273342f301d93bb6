"""Sparse kernel CCA: choose points whose columns agree in both views."""

import streamlit as st

from ui import board, choose, compute
from ui import steps as steps_ui
from ui.state import Control, PageState

PAGE = "skcca"
REGS = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
state = PageState(PAGE)
choose.open_on_preset(state)
display = board.page_top(
    state,
    "Sparse kernel CCA",
    "Two views of the same points (say, the left and right half of a digit). Choose the points whose kernel "
    "columns are most aligned in the two views, deflate both kernels, repeat; then find the directions in the "
    "span of the chosen points along which the two views correlate most. Its error is bounded like KMP's "
    "(Hussain et al. 2011, Alg. 3 and Thm 9).",
)
state.notes_here()
choose.preset_picker(state)

data = choose.data_sidebar(state, ("two-view",), preset="rings-two-view")
kernel = choose.kernel_sidebar(state, data)
st.sidebar.header("Sparse KCCA")
m = data.train_size()
k = choose.k_slider(state, m, default=30)
alpha = state.widget(
    st.sidebar.slider,
    Control("alpha", 1.0, float, lo=0.05, hi=3.0),
    "Error tolerance alpha",
    scope=PAGE,
    min_value=0.05,
    max_value=3.0,
    step=0.05,
    help="A pair (x, y) counts as an error when its unit-variance variates differ by more than "
    "alpha: |f_x(x) - f_y(y)| > alpha.",
)
reg = state.widget(
    st.sidebar.select_slider,
    Control("reg", 1e-3, float, options=REGS),
    "CCA regularisation",
    scope=PAGE,
    options=REGS,
    format_func=lambda v: f"{v:g}",
    help="Ridge added to each view's covariance in the final CCA, relative to its trace.",
)
bounds = choose.Seldom(state, choose.BOUND_SETTINGS, "bounds")
delta = choose.delta_select(state, bounds)
shared_scale = choose.heat_scale_toggle(state, bounds)
log_y = choose.log_toggle(state, where=bounds)
rescale = choose.rescale_select(state, bounds)
settings = {"k": int(k), "alpha": float(alpha), "reg": float(reg), "delta": float(delta)}
study, seconds = compute.compute_study("skcca", data, kernel, state, **settings)
split = study.split
curves = study.curves.curves
board.stop_note(study, display)
link = study.coords[:, 0]  # colour both views by one coordinate of view X, so a pair shares a colour


def story(j, hide_next=False):
    scores, winner = study.criterion(j)
    if j == 0:
        text = (
            "**Step 0.** The criterion is the cosine between point i's column in view X and in view Y: close "
            "to 1 when the point relates to the others in the same way in both views."
        )
        return text + ("" if hide_next else f" Point **{winner}** scores highest ({scores[winner]:.3f}).")
    last = int(study.path.indices[j - 1])
    text = (
        f"**Step {j}.** Point **{last}** joined the basis and both kernels were deflated by its column. CCA on "
        f"the {j} chosen points gives training correlation **{curves['train correlation'][j - 1]:.3f}**, test "
        f"correlation **{curves['test correlation'][j - 1]:.3f}** and test error rate (|f_x − f_y| > "
        f"{alpha:g}) **{curves['test error rate'][j - 1]:.3f}**."
    )
    if j < study.n_steps and not hide_next:
        text += f" Next: point **{winner}** ({scores[winner]:.3f})."
    return text


def build():
    steps = range(study.n_steps + 1)
    sort_note = board.sort_note_for(split)
    panels = [
        steps_ui.data_panel(study, steps, link, target_name="X coord. 1", title="View X and the chosen points"),
        steps_ui.criterion_panel(
            study,
            steps,
            link,
            None,
            x_title=study.coord_titles[0] + " of view X",
            title="Criterion on K_{j}: cosine of the two views' columns",
        ),
        steps_ui.data_panel(
            study,
            steps,
            link,
            coords=study.extras["coords_y"],
            titles=study.extras["coord_titles_y"],
            target_name="X coord. 1",
            title="View Y: the same points, coloured as in view X",
            key="view-y",
            area="c",
            guess=False,
        ),
        steps_ui.bound_panel(study.curves, steps, log_y=log_y, y_title="rate or correlation", rescale=rescale),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=board.rows_note(split),
            sort_note=sort_note,
            shared_scale=shared_scale,
            view=0,
            share=0.5,
            title="View X: the kernel before and after deflation",
        ),
        steps_ui.projection_panel(study, steps, area="f"),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=board.rows_note(split),
            sort_note=sort_note,
            shared_scale=shared_scale,
            view=1,
            share=0.5,
            key="heat-y",
            area="g",
            title="View Y: the kernel before and after deflation",
        ),
    ]
    return board.player_extras(study, panels, story)


board.player(
    state,
    compute.study_key("skcca", data, kernel, settings, shared_scale, log_y, rescale),
    study.n_steps,
    build,
    display,
    numbers=lambda: compute.study_numbers(study),
)

formulas = board.formulas(state, "The formulas (Hussain et al. 2011)")
if formulas.open:
    with formulas:
        st.markdown("**Criterion** (eq. 14, Alg. 3 line 3): alignment of point i's columns in the two views")
        board.equation(
            r"i_{j+1} = \arg\max_i \frac{\langle K^x_j[:, i], K^y_j[:, i]\rangle}{\|K^x_j[:, i]\|\,\|K^y_j[:, i]\|}"
        )
        st.markdown("**Deflation** (Alg. 3): each view by its own column, τ = K_j[:, i]")
        board.equation(r"K_{j+1} = \Big(I - \frac{\tau\tau^\top}{\tau^\top\tau}\Big) K_j")
        st.markdown(
            "**Bound** (Thm 9): the KMP bound with l = the training pairs outside the compression set whose "
            "variates differ by more than α"
        )
        board.equation(
            r"\begin{aligned}\frac{2}{m-k-l}\Big[&(k+1)\log_2\frac{4e(m-k-l)}{k+1} + k\log_2\frac{em}{k} \\"
            r"&+ l\log_2\frac{e(m-k)}{l} + \log_2\frac{2m^2}{\delta}\Big]\end{aligned}"
        )

take_away = st.container(horizontal=True)
board.downloads(study, "sparse-kcca", where=take_away)
board.study_code("skcca", "Sparse KCCA", data, kernel, settings, "sparse-kcca", where=take_away)
board.speed_note(seconds, study)
state.write_url()
