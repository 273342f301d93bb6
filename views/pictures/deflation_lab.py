"""The deflation lab's picture: one criterion, several deflations, side by side under one
step slider (Diethe 2015, sec. 3.2 and Figure 1)."""

from __future__ import annotations

import numpy as np

from mpcore import DEFLATIONS
from mpcore.deflations import TAU_SOURCES
from mpcore.labs import ERROR_NAMES, LAB_CRITERIA
from views import figures
from views import steps as steps_ui
from views.controls import Control
from views.pictures import common
from views.pictures.settings import Settings, k_control, read_k

PAGE = "deflation-lab"
TASKS = ("binary", "regression")
DATA = "moons"
FAMILY_NAMES = {
    "mpkfda": "Greedy Fisher (MPKFDA)",
    "kpca": "Sparse KPCA criterion",
    "kmp": "Kernel matching pursuit criterion",
}
CRITERION_HELP = {
    "mpkfda": "optimal: the Fisher ratio (eq. 7); pseudo: its numerator; reverse / reverse-pseudo: the smallest "
    "instead of the largest; random: any eligible column (Diethe 2015, sec. 3.3.1).",
    "kpca": "variance: ||K[:,i]||² / K[i,i], the variance a projection onto point i explains "
    "(Hussain et al. 2011, Alg. 2); "
    "random: any eligible column.",
    "kmp": "fit: |K[:,i]'y| / ||K[:,i]||, how well column i fits the (centred) target (Hussain et al. 2011, Alg. 5); "
    "random: any eligible column.",
}
DEFAULT_DEFLATIONS = ("hotelling", "projection", "schur", "ortho-projection")
TAU_LABELS = {"deflated": "the deflated kernel (sec. 3.2.4)", "original": "the original kernel K₀"}
CHOSEN = Control(
    "deflations",
    DEFAULT_DEFLATIONS,
    tuple,
    options=DEFLATIONS,
    widget="multiselect",
    label="Deflations",
    help="Any of the seven (Diethe 2015, eqs 15-19 and Mackey's orthogonalised projection); they run on the same data "
    "and share the step slider.",
)
TAU = Control(
    "tau",
    "deflated",
    str,
    options=TAU_SOURCES,
    widget="selectbox",
    label="τ is read from",
    names=tuple(TAU_LABELS.items()),
    help="Diethe 2015, sec. 3.2.4 reads τ from the kernel as deflated so far. Reading it from K₀ "
    "changes what projection and Hotelling pick, but Schur and ortho-Schur still agree.",
)
OWN_SCALE = Control(
    "ownscale",
    True,
    bool,
    widget="toggle",
    label="Heatmaps: each on its own scale",
    help="On: each deflated kernel is coloured on the range of its own entries (in "
    "its title), so what is left shows even when it is small. Off: all on K₀'s "
    "scale, so you see how much each deflation removed.",
)


def family_control(task):
    families = ("mpkfda", "kmp", "kpca") if task == "binary" else ("kmp", "kpca")
    return Control(
        "family",
        families[0],
        str,
        options=families,
        widget="selectbox",
        label="Family",
        names=tuple(FAMILY_NAMES.items()),
        widget_key=f"w:family:{task}",
        help="Whose criterion picks the points, and which learner is trained on them: Fisher "
        "discriminant (binary data), least squares (KMP), or projection (KPCA).",
    )


def criterion_control(family):
    criteria = LAB_CRITERIA[family]
    return Control(
        "criterion",
        criteria[0],
        str,
        options=criteria,
        widget="selectbox",
        label="Criterion",
        scope=f"{PAGE}:{family}",
        help=CRITERION_HELP[family],
    )


#: Every control the page may read, beside the data's and the kernel's (see ``skpca``).
CONTROLS = (family_control("binary"), criterion_control("mpkfda"), CHOSEN, TAU, k_control(1000, 20, 80), OWN_SCALE)


def read(address, data, kernel):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets)."""
    family = address.get(family_control(data.dataset().task))
    criterion = address.get(criterion_control(family))
    chosen = tuple(address.get(CHOSEN))
    tau_from = address.get(TAU)
    k = read_k(address, data.train_size(), default=20, hi=80)
    study = {"k": k, "family": family, "criterion": criterion, "deflations": chosen, "tau_from": tau_from}
    return Settings.of(PAGE, data, kernel, study, own_scale=address.get(OWN_SCALE))


def _story(lab):
    def story(j):
        facts = lab.facts(j)
        if j == 0:
            return (
                f"**Step 0.** Every deflation starts from the same kernel K₀ (m = {lab.m}, rank "
                f"{next(iter(facts.values())).rank}), so the first pick is the same for all. Press Next."
            )
        keep = [name for name, f in facts.items() if f.psd]
        lose = [f"{name} (smallest eigenvalue {f.min_eigenvalue:+.2g})" for name, f in facts.items() if not f.psd]
        wiped = [name for name, f in facts.items() if f.annihilated]
        text = f"**Step {j}.** PSD: {', '.join(keep) or 'none of them'}."
        if lose:
            text += f" Not PSD: {', '.join(lose)}."
        text += (
            f" Chosen columns set to zero: {', '.join(wiped)}."
            if wiped
            else " No deflation here sets the chosen columns to zero."
        )
        errors = {name: lab.errors[name][lab.step_of(name, j) - 1] for name in lab.deflations if lab.step_of(name, j)}
        best = min(errors, key=errors.get)
        text += f" Lowest {lab.error_name} {figures.after_steps(j)}: **{best}** ({errors[best]:.3g})."
        return text

    return story


def draw(settings, lab):
    """What the page shows of the lab's runs ``lab`` at ``settings``."""
    split, family = lab.split, settings.options["family"]
    steps = range(lab.n_steps + 1)
    scale = float(np.max(np.abs(lab.paths[lab.deflations[0]].deflated_block(0, lab.order)))) or 1.0
    title = f"{ERROR_NAMES[family][0].upper()}{ERROR_NAMES[family][1:]} against k"
    panels = [
        steps_ui.lab_chosen_panel(lab, steps, split.y_train, class_names=settings.data.dataset().class_names),
        steps_ui.lab_heatmap_panel(
            lab, steps, sort_note=common.sort_note_for(split), scale=scale, own_scale=settings.shown("own_scale")
        ),
        steps_ui.lab_facts_panel(lab, steps),
        steps_ui.lab_errors_panel(lab, steps, title=title),
    ]
    story = _story(lab)
    return common.Picture(lab.n_steps, {"panels": panels, "stories": [story(j) for j in steps]}, lab.summary())
