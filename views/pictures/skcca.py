"""Sparse kernel CCA's picture: points whose columns agree in both views (Hussain et al.
2011, Alg. 3 and Thm 9)."""

from __future__ import annotations

from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import BOUND_VIEW, DELTA, Settings, bound_view, k_control, log_axis, read_k

PAGE = "skcca"
TASKS = ("two-view",)
DATA = "rings-two-view"
REGS = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
ALPHA = Control(
    "alpha",
    1.0,
    float,
    lo=0.05,
    hi=3.0,
    widget="slider",
    label="Error tolerance alpha",
    step=0.05,
    help="A pair (x, y) counts as an error when its unit-variance variates differ by more than "
    "alpha: |f_x(x) - f_y(y)| > alpha.",
)
REG = Control(
    "reg",
    1e-3,
    float,
    options=REGS,
    widget="select_slider",
    label="CCA regularisation",
    names=tuple((v, f"{v:g}") for v in REGS),
    help="Ridge added to each view's covariance in the final CCA, relative to its trace.",
)
LOG = log_axis()


#: Every control the page may read, beside the data's and the kernel's (see ``skpca``).
CONTROLS = (k_control(1000, 30), ALPHA, REG, DELTA, *BOUND_VIEW, LOG)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    k = read_k(address, data.train_size(), default=30)
    study = {
        "k": k,
        "alpha": float(address.get(ALPHA)),
        "reg": float(address.get(REG)),
        "delta": float(address.get(DELTA)),
    }
    return Settings.of(PAGE, data, kernel, study, **bound_view(address, LOG))


def _story(study, alpha):
    curves = study.curves.curves

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

    return story


def draw(settings, study):
    """What the page shows of ``study`` at ``settings``."""
    split = study.split
    steps = range(study.n_steps + 1)
    link = study.coords[:, 0]  # colour both views by one coordinate of view X, so a pair shares a colour
    heat = {
        "rows": common.rows_note(split),
        "sort_note": common.sort_note_for(split),
        "shared_scale": settings.shown("shared_scale"),
        "share": 0.5,
    }
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
            role="data",
            guess=False,
        ),
        steps_ui.bound_panel(
            study.curves,
            steps,
            log_y=settings.shown("log_y"),
            y_title="rate or correlation",
            rescale=settings.shown("rescale"),
        ),
        steps_ui.heatmap_panel(study, steps, view=0, title="View X: the kernel before and after deflation", **heat),
        steps_ui.projection_panel(study, steps),
        steps_ui.heatmap_panel(
            study, steps, view=1, key="heat-y", title="View Y: the kernel before and after deflation", **heat
        ),
    ]
    player = common.player_extras(study, panels, _story(study, settings.options["alpha"]))
    return common.Picture(study.n_steps, player, common.study_numbers(study))
