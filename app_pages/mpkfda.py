"""Greedy kernel Fisher discriminant (MPKFDA): a sparse Fisher classifier."""

import streamlit as st

from mpcore import DEFLATIONS, FISHER_CRITERIA
from ui import board, choose, compute
from ui import steps as steps_ui
from ui.state import Control, PageState

PAGE = "mpkfda"
state = PageState(PAGE)
choose.open_on_preset(state)
display = board.page_top(
    state,
    "Greedy kernel Fisher discriminant (MPKFDA)",
    "Choose the training point whose kernel column alone separates the two classes best (the Fisher ratio), "
    "deflate the kernel, repeat; then train a Fisher discriminant on the chosen points. The sparse classifier "
    "has a bound from its class means and variances on the points it did not choose (Diethe 2015, Alg. 1 and Thm 1).",
)
state.notes_here()
choose.preset_picker(state)

data = choose.data_sidebar(state, ("binary",), preset="moons")
kernel = choose.kernel_sidebar(state, data)
st.sidebar.header("Greedy Fisher")
m = data.train_size()
k = choose.k_slider(state, m, default=30)
criterion = state.widget(
    st.sidebar.selectbox,
    Control("criterion", "optimal", str, options=FISHER_CRITERIA),
    "Criterion",
    scope=PAGE,
    options=FISHER_CRITERIA,
    help="optimal: the Fisher ratio (K[:,i]'y)² / (K[:,i]' B K[:,i]) (eq. 7). pseudo: its "
    "numerator only. reverse / reverse-pseudo: the smallest instead of the largest. "
    "random: any eligible column (Diethe 2015, sec. 3.3.1).",
)
deflation = state.widget(
    st.sidebar.selectbox,
    Control("deflation", "projection", str, options=DEFLATIONS),
    "Deflation",
    scope=PAGE,
    options=DEFLATIONS,
    help="How the chosen column is removed from K (Diethe 2015, eqs 15-19): none, Hotelling, "
    "projection, Schur complement, or their orthogonalised versions.",
)
stages = state.widget(
    st.sidebar.slider,
    Control("stages", 1, int, lo=1, hi=10),
    "Points per stage",
    scope=PAGE,
    min_value=1,
    max_value=10,
    help="Take this many best columns from one criterion evaluation before deflating "
    "(Diethe 2015, Alg. 1: faster, possibly worse). 1 is the original MPKFDA.",
)
algo_seed = 0
if criterion == "random":
    algo_seed = state.widget(
        st.sidebar.number_input,
        Control("aseed", 0, int, lo=0, hi=9999),
        "Algorithm seed",
        scope=PAGE,
        min_value=0,
        max_value=9999,
        help="Seeds the random criterion.",
    )
bounds = choose.Seldom(state, choose.BOUND_SETTINGS, "bounds")
delta = choose.delta_select(state, bounds)
shared_scale = choose.heat_scale_toggle(state, bounds)
log_y = choose.log_toggle(state, where=bounds)
rescale = choose.rescale_select(state, bounds)
settings = {
    "k": int(k),
    "criterion": criterion,
    "deflation": deflation,
    "stages": int(stages),
    "seed": int(algo_seed),
    "delta": float(delta),
}
study, seconds = compute.compute_study("mpkfda", data, kernel, state, **settings)
split = study.split
dataset = data.dataset()
curves = study.curves.curves
board.stop_note(study, display)


def story(j, hide_next=False):
    scores, winner = study.criterion(j)
    rule = "largest" if study.path.pick == "max" else "smallest"
    if j == 0:
        text = (
            f"**Step 0.** Each column K[:, i] is a one-feature classifier; the {criterion} criterion scores "
            "how well it separates the classes."
        )
        return text + ("" if hide_next else f" Point **{winner}** has the {rule} score.")
    last = int(study.path.indices[j - 1])
    text = (
        f"**Step {j}.** Point **{last}** joined the basis and K was deflated ({deflation}). The Fisher "
        f"discriminant on the {j} chosen points has test error **{curves['test error rate'][j - 1]:.3f}**; "
        f"its bound is **{curves['MPKFDA bound'][j - 1]:.3f}**."
    )
    if j < study.n_steps and not hide_next:
        text += f" Next: point **{winner}**."
    return text


def model_panel(steps):
    if split.X_train.shape[1] == 2:
        return steps_ui.decision_panel(
            study, steps, split.y_train, split.y_test, class_names=dataset.class_names, what="w'φ(x) + b"
        )
    return steps_ui.decision_values_panel(study, steps, split, class_names=dataset.class_names)


def build():
    steps = range(study.n_steps + 1)
    panels = [
        steps_ui.data_panel(
            study,
            steps,
            split.y_train,
            coords_test=study.coords_test,
            labels_test=split.y_test,
            class_names=dataset.class_names,
        ),
        steps_ui.criterion_panel(
            study,
            steps,
            study.coords[:, 0],
            split.y_train,
            pick=study.path.pick,
            x_title=study.coord_titles[0],
            title=f"Criterion ({criterion}) on K_{{j}}",
        ),
        model_panel(steps),
        steps_ui.bound_panel(study.curves, steps, log_y=log_y, y_title="error rate", rescale=rescale),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=board.rows_note(split),
            sort_note=board.sort_note_for(split),
            shared_scale=shared_scale,
            caption="With classes sorted, the two diagonal blocks are within-class similarities; "
            "watch how each deflation removes the chosen column's share.",
        ),
    ]
    return board.player_extras(study, panels, story, pick_max=study.path.pick == "max")


board.player(
    state,
    compute.study_key("mpkfda", data, kernel, settings, shared_scale, log_y, rescale),
    study.n_steps,
    build,
    display,
    numbers=lambda: compute.study_numbers(study),
)

formulas = board.formulas(state, "The formulas (Diethe 2015)")
if formulas.open:
    with formulas:
        st.markdown("**Criterion** (eq. 7): the Fisher ratio of column i, with B the within-class scatter of eq. 2")
        board.equation(r"i_{j+1} = \arg\max_i \frac{(K_j[:, i]^\top y)^2}{K_j[:, i]^\top B\, K_j[:, i]}")
        st.markdown(
            "**Deflations** (eqs 15–17), τ = K[:, i]/‖K[:, i]‖; the orthogonalised ones (eqs 18–19) first "
            "orthogonalise τ against the earlier τ's:"
        )
        board.equation(
            r"\begin{array}{rl}\text{Hotelling: } & K - (\tau^\top K\tau)\,\tau\tau^\top \\[4pt]"
            r"\text{projection: } & (I - \tau\tau^\top)K \\[4pt]"
            r"\text{Schur: } & K - \dfrac{K\tau\tau^\top K}{\tau^\top K\tau}\end{array}"
        )
        st.markdown(
            "**Bound** (Thm 1): per class c, with s_c the margin of the class's projected mean past the "
            "threshold, S_c its projected variance, and A, B the estimation terms of eq. 10 on the n_c "
            "points of the class outside the compression set:"
        )
        board.equation(
            r"\begin{aligned}P(\text{error on } c) &\le 1 - \frac{s_c^2}{w^\top S_c w + B_c + s_c^2}, \\"
            r"A &= \frac{R}{\sqrt{n_c}}\Big(2 + \sqrt{k\ln\frac{em}{k} + 2\ln\frac{2m}{\delta'}}\Big), \\"
            r"B &= \frac{2R^2}{\sqrt{n_c}}\Big(2 + \sqrt{k\ln\frac{em}{k} + 2\ln\frac{4m}{\delta'}}\Big)\end{aligned}"
        )
        st.markdown("s_c is shrunk by A; δ' = δ/2 per class; the total is weighted by the class priors.")

take_away = st.container(horizontal=True)
board.downloads(study, "mpkfda", where=take_away)
board.study_code(
    "mpkfda", "Greedy kernel Fisher discriminant (MPKFDA)", data, kernel, settings, "mpkfda", where=take_away
)
board.speed_note(seconds, study)
state.write_url()
