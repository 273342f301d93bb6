"""Sparse kernel PCA's picture: the points whose span explains most of the variance
(Hussain et al. 2011, Alg. 2 and Cor. 1)."""

from __future__ import annotations

from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import DELTA, OWN_SCALE, Settings, algorithm_seed, k_control, log_axis, read_k

PAGE = "skpca"
TASKS = ("unsupervised", "regression", "binary", "two-view")
DATA = "rings"
SUBSAMPLE = Control(
    "sub",
    False,
    bool,
    widget="toggle",
    label="Score a random subsample of candidates",
    help="Smola and Schoelkopf's '59 trick': score only a random set of candidates "
    "per step instead of all m. Faster on big data; picks become approximate.",
)
SEED = algorithm_seed("Seeds the random candidate subsample (separate from the data seed).")
LOG = log_axis(default=True)


def candidates_control(m):
    top = max(2, m - 1)
    return Control(
        "cand",
        min(59, top),
        int,
        lo=1,
        hi=top,
        widget="slider",
        label="Candidates per step",
        help="59 random candidates contain one of the best 5% with probability 95%.",
    )


#: Every control the page may read, beside the data's and the kernel's (those whose range
#: follows the data at one size: the names and labels are what an address needs).
CONTROLS = (k_control(1000), SUBSAMPLE, candidates_control(1000), SEED, DELTA, OWN_SCALE, LOG)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    m = data.train_size()
    k = read_k(address, m, default=40)
    candidates, seed = None, 0
    if address.get(SUBSAMPLE):
        candidates = int(address.get(candidates_control(m)))
        seed = int(address.get(SEED))
    study = {"k": k, "candidates": candidates, "seed": seed, "delta": float(address.get(DELTA))}
    return Settings.of(PAGE, data, kernel, study, shared_scale=not address.get(OWN_SCALE), log_y=address.get(LOG))


def _story(study):
    residuals = study.path.extras["residuals"]
    total = float(residuals[0].sum())

    def story(j, hide_next=False):
        scores, winner = study.criterion(j)
        if j == 0:
            text = (
                f"**Step 0.** Nothing is chosen yet; every point's residual is its full squared norm "
                f"k(x, x) (total {total:.3g}). The criterion ||K[:, i]||² / K[i, i] says how much variance a "
                f"projection onto point i would explain"
            )
            return text + ("." if hide_next else f"; point **{winner}** wins with {scores[winner]:.3g}.")
        last = int(study.path.indices[j - 1])
        left = float(residuals[j].sum())
        text = (
            f"**Step {j}.** Point **{last}** became basis vector {j}; its direction was removed from every point "
            f"(K ← K − τ τ' / K[i, i]). The chosen points now explain **{100 * (1 - left / total):.1f}%** of the "
            f"training variance; the diagonal of K_{j} is what is left of each point."
        )
        if j < study.n_steps and not hide_next:
            text += (
                f" Next: point **{winner}**, which would explain {scores[winner]:.3g} more of the total "
                f"{total:.3g} ({100 * scores[winner] / total:.1f} percentage points)."
            )
        return text

    return story


def draw(settings, study):
    """What the page shows of ``study`` at ``settings``."""
    split = study.split
    labels = split.y_train
    steps = range(study.n_steps + 1)
    panels = [
        steps_ui.data_panel(
            study,
            steps,
            labels,
            coords_test=study.coords_test,
            labels_test=split.y_test,
            class_names=settings.data.dataset().class_names,
            classes=split.classes,
        ),
        steps_ui.criterion_panel(
            study,
            steps,
            study.coords[:, 0],
            labels,
            x_title=study.coord_titles[0],
            title="Criterion on K_{j}: ‖K[:, i]‖² / K[i, i]",
            classes=split.classes,
        ),
        steps_ui.residual_panel(study, steps),
        steps_ui.bound_panel(study.curves, steps, log_y=settings.shown("log_y"), y_title="residual ‖φ(x) − Pφ(x)‖²"),
        steps_ui.heatmap_panel(
            study,
            steps,
            rows=common.rows_note(split),
            sort_note=common.sort_note_for(split),
            shared_scale=settings.shown("shared_scale"),
            caption="Deflation empties the rows and columns of the chosen points; what stays "
            "bright is the variance still to explain.",
        ),
    ]
    player = common.player_extras(study, panels, _story(study), pick_max=True)
    return common.Picture(study.n_steps, player, common.study_numbers(study))
