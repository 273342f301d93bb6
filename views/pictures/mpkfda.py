"""The greedy kernel Fisher discriminant's picture: a sparse Fisher classifier (Diethe 2015,
Alg. 1 and Thm 1)."""

from __future__ import annotations

from mpcore import DEFLATIONS, FISHER_CRITERIA
from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import BOUND_VIEW, DELTA, Settings, algorithm_seed, bound_view, k_control, log_axis, read_k

PAGE = "mpkfda"
TASKS = ("binary",)
DATA = "moons"
CRITERION = Control(
    "criterion",
    "optimal",
    str,
    options=FISHER_CRITERIA,
    widget="selectbox",
    label="Criterion",
    help="optimal: the Fisher ratio (K[:,i]'y)² / (K[:,i]' B K[:,i]) (eq. 7). pseudo: its "
    "numerator only. reverse / reverse-pseudo: the smallest instead of the largest. "
    "random: any eligible column (Diethe 2015, sec. 3.3.1).",
)
DEFLATION = Control(
    "deflation",
    "projection",
    str,
    options=DEFLATIONS,
    widget="selectbox",
    label="Deflation",
    help="How the chosen column is removed from K (Diethe 2015, eqs 15-19): none, Hotelling, "
    "projection, Schur complement, or their orthogonalised versions.",
)
STAGES = Control(
    "stages",
    1,
    int,
    lo=1,
    hi=10,
    widget="slider",
    label="Points per stage",
    help="Take this many best columns from one criterion evaluation before deflating "
    "(Diethe 2015, Alg. 1: faster, possibly worse). 1 is the original MPKFDA.",
)
SEED = algorithm_seed("Seeds the random criterion.")
LOG = log_axis()


#: Every control the page may read, beside the data's and the kernel's (see ``skpca``).
CONTROLS = (k_control(1000, 30), CRITERION, DEFLATION, STAGES, SEED, DELTA, *BOUND_VIEW, LOG)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    k = read_k(address, data.train_size(), default=30)
    criterion = address.get(CRITERION)
    deflation = address.get(DEFLATION)
    stages = int(address.get(STAGES))
    seed = int(address.get(SEED)) if criterion == "random" else 0
    study = {
        "k": k,
        "criterion": criterion,
        "deflation": deflation,
        "stages": stages,
        "seed": seed,
        "delta": float(address.get(DELTA)),
    }
    return Settings.of(PAGE, data, kernel, study, **bound_view(address, LOG))


def _story(study, criterion, deflation):
    curves = study.curves.curves
    rule = "largest" if study.path.pick == "max" else "smallest"

    def story(j, hide_next=False):
        scores, winner = study.criterion(j)
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

    return story


def draw(settings, study):
    """What the page shows of ``study`` at ``settings``."""
    split, class_names = study.split, settings.data.dataset().class_names
    criterion, deflation = settings.options["criterion"], settings.options["deflation"]
    steps = range(study.n_steps + 1)
    if split.X_train.shape[1] == 2:
        model = steps_ui.decision_panel(
            study, steps, split.y_train, split.y_test, class_names=class_names, what="w'φ(x) + b"
        )
    else:
        model = steps_ui.decision_values_panel(study, steps, split, class_names=class_names)
    panels = [
        steps_ui.data_panel(
            study,
            steps,
            split.y_train,
            coords_test=study.coords_test,
            labels_test=split.y_test,
            class_names=class_names,
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
        model,
        steps_ui.bound_panel(
            study.curves, steps, log_y=settings.shown("log_y"), y_title="error rate", rescale=settings.shown("rescale")
        ),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=common.rows_note(split),
            sort_note=common.sort_note_for(split),
            shared_scale=settings.shown("shared_scale"),
            caption="With classes sorted, the two diagonal blocks are within-class similarities; "
            "watch how each deflation removes the chosen column's share.",
        ),
    ]
    player = common.player_extras(study, panels, _story(study, criterion, deflation), pick_max=study.path.pick == "max")
    return common.Picture(study.n_steps, player, common.study_numbers(study))
