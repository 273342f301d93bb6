"""Kernel matching pursuit's picture: a sparse regression or classifier built one basis
function at a time (Vincent and Bengio 2002; Hussain et al. 2011, Alg. 5 and Thm 4)."""

from __future__ import annotations

from mpcore.kmp import KMP_VARIANTS, LOSSES
from views import lessons
from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import BOUND_VIEW, DELTA, Settings, bound_view, k_control, log_axis, read_k

PAGE = "kmp"
TASKS = ("regression", "binary")
DATA = "sinc"
VARIANT = Control(
    "variant",
    "prefit",
    str,
    options=KMP_VARIANTS,
    widget="selectbox",
    label="Variant",
    help="basic: add the best column with a line search, never revisit weights. back-fit: refit all "
    "weights by least squares after each choice. pre-fit: choose the column that is best "
    "*after* that refit (the criterion on the deflated dictionary; Vincent and Bengio 2002, sec. 2).",
)
SET_ALPHA = Control(
    "setalpha",
    False,
    bool,
    widget="toggle",
    label="Set the error tolerance alpha",
    group="bounds",
    help="A point counts as an error for the bound when |f(x) - y| > alpha. Default: 1 for -1/+1 targets "
    "(a wrong sign), half the target's standard deviation otherwise.",
)
ALPHA = Control(
    "alpha",
    0.5,
    float,
    lo=0.001,
    hi=1e6,
    widget="number_input",
    label="alpha",
    group="bounds",
    step=0.05,
    fmt="%.3f",
    help="Error tolerance, in the target's units.",
)
LOG = log_axis()


def loss_control(task):
    losses = LOSSES if task == "binary" else ("squared",)
    return Control(
        "loss",
        "squared",
        str,
        options=losses,
        widget="selectbox",
        label="Loss",
        help="squared: least squares (any target). tanh, logistic, smoothed hinge: classification losses for "
        "-1/+1 targets (Vincent and Bengio 2002, sec. 3), with back-fit or basic only.",
    )


#: Every control the page may read, beside the data's and the kernel's (see ``skpca``).
CONTROLS = (k_control(1000, 30), VARIANT, loss_control("binary"), SET_ALPHA, ALPHA, DELTA, *BOUND_VIEW, LOG)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    k = read_k(address, data.train_size(), default=30)
    variant = address.get(VARIANT)
    loss = address.get(loss_control(data.dataset().task))
    alpha = float(address.get(ALPHA)) if address.get(SET_ALPHA) else None
    study = {"k": k, "variant": variant, "loss": loss, "alpha": alpha, "delta": float(address.get(DELTA))}
    return Settings.of(PAGE, data, kernel, study, **bound_view(address, LOG))


def _story(study):
    """The story of each step, as the player tells it."""
    split, curves, variant = study.split, study.curves.curves, study.extras["settings"]["variant"]
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


def _model_panel(study, steps, class_names, target_name):
    split = study.split
    d = split.X_train.shape[1]
    if not study.extras["binary"] and d == 1:  # on a projector the fit replaces the data
        return steps_ui.fit_panel(study, steps, role="data", guess=True)
    if study.extras["binary"] and d == 2:
        return steps_ui.decision_panel(study, steps, split.y_train, split.y_test, class_names=class_names)
    if study.extras["binary"]:
        return steps_ui.decision_values_panel(study, steps, split, class_names=class_names)
    return steps_ui.predicted_panel(study, steps, split, target_name=target_name)


def draw(settings, study):
    """What the page shows of ``study`` at ``settings``."""
    split, dataset = study.split, settings.data.dataset()
    variant = settings.options["variant"]
    steps = range(study.n_steps + 1)
    one_d_fit = not study.extras["binary"] and split.X_train.shape[1] == 1
    note = (
        "pre-fitting deflates the dictionary: K_j = P_j K, with P_j projecting out the chosen columns"
        if variant == "prefit"
        else f"{variant} never deflates the dictionary, so K_j = K"
    )
    target_name = dataset.target_name or "target"
    panels = [
        steps_ui.data_panel(
            study,
            steps,
            split.y_train,
            coords_test=study.coords_test,
            labels_test=split.y_test,
            class_names=dataset.class_names,
            target_name=target_name,
            presenter=not one_d_fit,
            classes=split.classes,
        ),
        steps_ui.criterion_panel(
            study,
            steps,
            study.coords[:, 0],
            split.y_train,
            x_title=study.coord_titles[0],
            title="Criterion at step {j}: |K[:, i]' r| / ‖K[:, i]‖",
            classes=split.classes,
        ),
        _model_panel(study, steps, dataset.class_names, target_name),
        steps_ui.bound_panel(
            study.curves,
            steps,
            log_y=settings.shown("log_y"),
            y_title="error rate (|f − y| > α)",
            rescale=settings.shown("rescale"),
            leave_out=("test MSE", "train MSE"),
        ),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=common.rows_note(split),
            sort_note=common.sort_note_for(split),
            shared_scale=settings.shown("shared_scale"),
            caption=f"Here {note}.",
            not_deflated="" if variant == "prefit" else lessons.word("variant", variant),
        ),
    ]
    return common.Picture(
        study.n_steps, common.player_extras(study, panels, _story(study)), common.study_numbers(study)
    )
