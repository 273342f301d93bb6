"""Kernel matching pursuit: a sparse regression or classifier built one basis function at a time."""

import numpy as np
import streamlit as st

from mpcore.experiments.vincent2002 import loss_curves
from mpcore.kmp import KMP_VARIANTS, LOSSES
from ui import board, choose, compute, figures, lessons
from ui import steps as steps_ui
from ui.state import Control, PageState

PAGE = "kmp"
state = PageState(PAGE)
choose.open_on_preset(state)
display = board.page_top(
    state,
    "Kernel matching pursuit",
    "Build a function $f(x) = \\sum_j \\alpha_j\\, k(x_{i_j}, x)$ one basis function at a time: choose the training "
    "point whose "
    "kernel column best fits what the current function still gets wrong, add it, refit. The model is determined "
    "by the chosen points, so its error has a sample-compression (VC) bound (Vincent and Bengio 2002; Hussain et al. "
    "2011, Alg. 5 and Thm 4).",
)
state.notes_here()
choose.preset_picker(state)

data = choose.data_sidebar(state, ("regression", "binary"), preset="sinc")
kernel = choose.kernel_sidebar(state, data)
st.sidebar.header("Matching pursuit")
m = data.train_size()
k = choose.k_slider(state, m, default=30)
variant = state.widget(
    st.sidebar.selectbox,
    Control("variant", "prefit", str, options=KMP_VARIANTS),
    "Variant",
    scope=PAGE,
    options=KMP_VARIANTS,
    help="basic: add the best column with a line search, never revisit weights. back-fit: refit all "
    "weights by least squares after each choice. pre-fit: choose the column that is best "
    "*after* that refit (the criterion on the deflated dictionary; Vincent and Bengio 2002, sec. 2).",
)
binary = data.dataset().task == "binary"
losses = LOSSES if binary else ("squared",)
loss = state.widget(
    st.sidebar.selectbox,
    Control("loss", "squared", str, options=losses),
    "Loss",
    scope=PAGE,
    options=losses,
    help="squared: least squares (any target). tanh, logistic, smoothed hinge: classification losses for "
    "-1/+1 targets (Vincent and Bengio 2002, sec. 3), with back-fit or basic only.",
)
bounds = choose.Seldom(state, choose.BOUND_SETTINGS, "bounds")
set_alpha = bounds.widget(
    "toggle",
    Control("setalpha", False, bool),
    "Set the error tolerance alpha",
    scope=PAGE,
    help="A point counts as an error for the bound when |f(x) - y| > alpha. "
    "Default: 1 for -1/+1 targets (a wrong sign), half the target's standard "
    "deviation otherwise.",
)
alpha = None
if set_alpha:
    alpha = bounds.widget(
        "number_input",
        Control("alpha", 0.5, float, lo=0.001, hi=1e6),
        "alpha",
        scope=PAGE,
        min_value=0.001,
        step=0.05,
        format="%.3f",
        help="Error tolerance, in the target's units.",
    )
delta = choose.delta_select(state, bounds)
shared_scale = choose.heat_scale_toggle(state, bounds)
log_y = choose.log_toggle(state, where=bounds)
rescale = choose.rescale_select(state, bounds)
settings = {
    "k": int(k),
    "variant": variant,
    "loss": loss,
    "alpha": None if alpha is None else float(alpha),
    "delta": float(delta),
}
study, seconds = compute.compute_study("kmp", data, kernel, state, **settings)
split = study.split
dataset = data.dataset()
curves = study.curves.curves
board.stop_note(study, display)


def step_story():
    """The story of each step, as the player tells it (made with the payload, not on every run)."""
    fitted = study.fitted()
    train_mse = study.train_mse()
    baseline_mse = float(((split.y_test - split.y_train.mean()) ** 2).mean())

    def story(j, hide_next=False):
        scores, winner = study.criterion(j)
        what = "the deflated columns P K[:, i]" if variant == "prefit" else "the original columns K[:, i]"
        if j == 0:
            text = (
                f"**Step 0.** The function is the constant {fitted[0][0]:.3g}; its training mean squared error is "
                f"{train_mse[0]:.3g}. The criterion |K[:, i]' r| / ‖K[:, i]‖ over {what} measures how well each "
                f"column fits the residual r"
            )
            return text + ("." if hide_next else f"; point **{winner}** fits it best.")
        last = int(study.path.indices[j - 1])
        text = (
            f"**Step {j}.** Point **{last}** became basis function {j} and the weights were "
            f"{'refitted by least squares' if variant != 'basic' else 'extended by a line search'}. Training MSE "
            f"{train_mse[0]:.3g} → **{train_mse[j]:.3g}**, test MSE **{curves['test MSE'][j - 1]:.3g}**, "
            f"test error rate (|f − y| > {study.extras['alpha']:.3g}) **{curves['test error rate'][j - 1]:.3g}**."
        )
        if not study.extras["binary"] and curves["test MSE"][j - 1] >= baseline_mse:
            text += (
                f" The model is no better than predicting the mean (test MSE {baseline_mse:.3g}): "
                "try another kernel width."
            )
        if j < study.n_steps and not hide_next:
            text += f" Next: point **{winner}**."
        return text

    return story


def model_panel(steps):
    d = split.X_train.shape[1]
    if not study.extras["binary"] and d == 1:
        return steps_ui.fit_panel(
            study, steps, present_area="a", guess=True
        )  # on a projector the fit replaces the data
    if study.extras["binary"] and d == 2:
        return steps_ui.decision_panel(study, steps, split.y_train, split.y_test, class_names=dataset.class_names)
    if study.extras["binary"]:
        return steps_ui.decision_values_panel(study, steps, split, class_names=dataset.class_names)
    return steps_ui.predicted_panel(study, steps, split, target_name=dataset.target_name or "target")


def build():
    steps = range(study.n_steps + 1)
    one_d_fit = not study.extras["binary"] and split.X_train.shape[1] == 1
    note = (
        "pre-fitting deflates the dictionary: K_j = P_j K, with P_j projecting out the chosen columns"
        if variant == "prefit"
        else f"{variant} never deflates the dictionary, so K_j = K"
    )
    panels = [
        steps_ui.data_panel(
            study,
            steps,
            split.y_train,
            coords_test=study.coords_test,
            labels_test=split.y_test,
            class_names=dataset.class_names,
            target_name=dataset.target_name or "target",
            present_area=None if one_d_fit else "default",
        ),
        steps_ui.criterion_panel(
            study,
            steps,
            study.coords[:, 0],
            split.y_train,
            x_title=study.coord_titles[0],
            title="Criterion at step {j}: |K[:, i]' r| / ‖K[:, i]‖",
        ),
        model_panel(steps),
        steps_ui.bound_panel(
            study.curves,
            steps,
            log_y=log_y,
            y_title="error rate (|f − y| > α)",
            rescale=rescale,
            leave_out=("test MSE", "train MSE"),
        ),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=board.rows_note(split),
            sort_note=board.sort_note_for(split),
            shared_scale=shared_scale,
            caption=f"Here {note}.",
            not_deflated="" if variant == "prefit" else lessons.word("variant", variant),
        ),
    ]
    return board.player_extras(study, panels, step_story())


board.player(
    state,
    compute.study_key("kmp", data, kernel, settings, shared_scale, log_y, rescale),
    study.n_steps,
    build,
    display,
    numbers=lambda: compute.study_numbers(study),
)

formulas = board.formulas(state, "The formulas (Vincent and Bengio 2002, Hussain et al. 2011)")
if formulas.open:
    with formulas:
        st.markdown(
            "**Criterion** (Vincent and Bengio 2002, eq. 3 / eq. 7; Hussain et al. 2011, Alg. 5): the column that best "
            "fits the residual "
            "r = y − f. Pre-fitting scores the deflated columns, so it picks the best column *after* refitting."
        )
        board.equation(r"i_{j+1} = \arg\max_i \frac{|K_j[:, i]^\top r_j|}{\|K_j[:, i]\|}")
        st.markdown(
            "**Deflation** (pre-fitting; Hussain et al. 2011, Table I): project the chosen column τ = K_j[:, i] "
            "out of the dictionary"
        )
        board.equation(r"K_{j+1} = \Big(I - \frac{\tau\tau^\top}{\tau^\top\tau}\Big) K_j")
        st.markdown(
            "**KMP bound** (Hussain et al. 2011, Thm 4): with k basis points, l of the m − k other training points in "
            "error "
            "(|f(x) − y| > α), with probability 1 − δ the probability of error is at most"
        )
        board.equation(
            r"\begin{aligned}\frac{2}{m-k-l}\Big[&(k+1)\log_2\frac{4e(m-k-l)}{k+1} + k\log_2\frac{em}{k} \\"
            r"&+ l\log_2\frac{e(m-k)}{l} + \log_2\frac{2m^2}{\delta}\Big]\end{aligned}"
        )
        st.markdown(
            "The paper's log base is left open; base 2 follows from the 2^(−ε(m−k−l)/2) in its proof. "
            "The bound is on the probability that |f(x) − y| > α for a new point, not on the mean squared error."
        )
        st.markdown(
            "**Losses** (Vincent and Bengio 2002, sec. 3.2, Fig. 5) against the margin m = y f(x), for labels "
            "±1. The squared loss (1 − m)² also punishes large *positive* margins, so far points of the right "
            "class pull the fit; the tanh loss (0.65 − tanh m)², fitted by back-fitting, is bounded, like "
            "boosting's 1 − tanh(m) (Doom II). Drawn from the losses this page fits."
        )
        margins = np.linspace(-3.0, 3.0, 241)
        board.chart(
            figures.loss_shapes_figure(
                margins,
                loss_curves(margins),
                names=("squared: (1 − m)²", "squared after tanh: (0.65 − tanh m)²", "Doom II: 1 − tanh(m)"),
                title="Losses against the margin",
                height=360,
            ),
            key="kmp-losses",
            caption="The squared loss rises on both sides of m = 1; the loss after tanh is lowest near m = 0.78 "
            "and rises only a little beyond it; Doom II's falls throughout and never exceeds 2.",
        )

take_away = st.container(horizontal=True)
board.downloads(study, "kernel-matching-pursuit", where=take_away)
board.study_code("kmp", "Kernel matching pursuit", data, kernel, settings, "kernel-matching-pursuit", where=take_away)
board.speed_note(seconds, study)
state.write_url()
