"""The step player's panels for a study: each a base figure from ``views.figures`` plus,
per step, only what changes (no Streamlit here; plain arrays in, :class:`Panel` out).

Building a whole Plotly figure per step costs far more than a patch, which costs
microseconds, so a study of 150 steps is ready in a fraction of a second.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mpcore.bounds import vacuous
from mpcore.labs import FACT_RTOL
from views import figures
from views.player import HEAT_BUDGET, Panel, Quantized, ScoreRow

MAX_HEAT_CELLS = 130  # a heatmap panel is ~350 px wide: 2-3 px a cell; more cells cost redraw time
DECISION_GRID = 45  # the classifier's output on a 45 x 45 grid (contours are smoothed)


RING_KEY = {"kind": "marker", "symbol": "circle-open", "colour": figures.CHOSEN_COLOUR, "text": "chosen"}
STAR_KEY = {
    "kind": "marker",
    "symbol": "star",
    "colour": figures.NEXT_COLOUR,
    "edge": figures.CHOSEN_COLOUR,
    "text": "next pick",
}


def rings(coords, picks, nexts=None, *, numbers=True, unique=False, axes=("x", "y")):
    """The chosen points of a panel, drawn by the player as layout shapes: at step j a
    ring around each of ``coords[picks[:j]]`` (numbered in order of choice when
    ``numbers``; each point once when ``unique``) and a star on ``coords[nexts[j]]``
    (-1: none).  A shape moves at once where restyling a marker trace beside a WebGL
    point cloud recomputes the whole cloud."""
    spec = {
        "coords": np.asarray(coords, dtype=float),
        "picks": np.asarray(picks, dtype=int),
        "numbers": numbers,
        "unique": unique,
        "xref": axes[0],
        "yref": axes[1],
    }
    if nexts is not None:
        spec["next"] = np.asarray([-1 if n is None else int(n) for n in nexts], dtype=int)
    return spec


def _number(value):
    """A number as a described chart says it: three significant digits."""
    value = float(value)
    if value >= figures.INFINITE_SCORE:
        return "∞"
    return "no value" if not np.isfinite(value) else f"{value:.3g}"


def chosen_words(study, j, coords, titles):
    """What the data panel shows at step ``j``, in words: the point chosen at this step and
    where it lies, and how many are chosen."""
    m = len(coords)
    if j == 0:
        return f"{m} training points; none chosen yet."
    point = int(study.path.indices[j - 1])
    x_name, y_name = titles
    at = f"{x_name} {_number(coords[point, 0])}, {y_name} {_number(coords[point, 1])}"
    return f"Point {point} chosen at step {j}, at {at}; {j} of {m} points chosen."


def criterion_words(scores, winner, pick, last=False):
    """What the criterion panel shows, in words: the winner's value and the runner-up's."""
    others = np.array(scores, dtype=float)
    others[winner] = np.nan
    best = "Smallest" if pick == "min" else "Largest"
    text = f"{best} criterion {_number(scores[winner])}, point {winner}"
    if np.isfinite(others).any():
        runner = int(np.nanargmin(others) if pick == "min" else np.nanargmax(others))
        text += f"; runner-up {_number(others[runner])}, point {runner}"
    return text + (": the last choice." if last else ".")


def bound_words(curves, j):
    """What the bound panel shows at step ``j`` (t = j), in words: the bound and the test
    error there, "vacuous" when the bound is 1 or more, and the bound's lowest so far."""
    if j == 0:
        return "No basis vector yet: the curves start at t = 1."
    parts = []
    bound = curves.bound_names[0] if curves.bound_names else None
    for name in [bound, curves.test_name]:
        if name is None or name not in curves.curves:
            continue
        values = np.asarray(curves.curves[name], dtype=float)
        if j > len(values):
            continue
        value = values[j - 1]
        parts.append(f"{name} {_number(value)}" + (" (1 or more: vacuous)" if name == bound and vacuous(value) else ""))
    text = f"At t = {j}: " + ", ".join(parts) + "." if parts else f"At t = {j}."
    if bound is not None and bound in curves.curves:
        seen = np.asarray(curves.curves[bound], dtype=float)[:j]
        if np.isfinite(seen).any():
            t = int(np.nanargmin(seen)) + 1
            text += f" Lowest {bound} so far: {_number(seen[t - 1])}, at t = {t}."
    return text


def removed_words(before, after, j):
    """What the heatmaps show at step ``j``, in words: how much of K₀ deflation has removed
    (the Frobenius norm of K_j against K₀'s, over the cells drawn)."""
    if j == 0:
        return "K₀ twice: nothing deflated yet."
    total = float(np.sqrt(np.nansum(np.square(before))))
    left = float(np.sqrt(np.nansum(np.square(after))))
    after_j = f"{figures.kernel_name(j)} {figures.after_steps(j)}"
    if total <= 0:
        return f"{after_j}."
    if left > total:  # a deflation that is no projection can add to the kernel
        return f"{after_j} has {left / total:.0%} of K₀'s norm: deflation added to it."
    return f"{after_j} keeps {left / total:.0%} of K₀'s norm: deflation removed the rest."


def _study_rings(study, j_steps, coords=None, next_pick=True):
    """The study's picks as :func:`rings`, with its next pick at each step."""
    coords = study.coords if coords is None else coords
    nexts = [study.step_view(j).next_pick for j in j_steps] if next_pick else None
    return rings(coords, study.path.indices[: study.n_steps], nexts)


def data_panel(
    study,
    j_steps,
    labels,
    *,
    coords=None,
    coords_test=None,
    labels_test=None,
    titles=None,
    class_names=None,
    target_name="target",
    title="The data and the chosen points",
    key="data",
    role="data",
    guess=True,
    caption="",
    presenter=True,
    classes=None,
):
    """Data in 2-D with the chosen points ringed and numbered and the next pick starred
    (``classes``: whether ``labels`` are two classes; None: read from their values)."""
    coords = study.coords if coords is None else coords
    fig = figures.data_figure(
        coords,
        labels,
        [],
        next_pick=None,
        coords_test=coords_test,
        labels_test=labels_test,
        titles=titles or study.coord_titles,
        class_names=class_names,
        target_name=target_name,
        classes=classes,
    )
    names = titles or study.coord_titles
    return Panel(
        key,
        role,
        title,
        fig,
        [{"describe": chosen_words(study, j, np.asarray(coords), names)} for j in j_steps],
        caption=caption,
        guess=guess,
        animate=True,
        presenter=presenter,
        rings=[_study_rings(study, j_steps, coords)],
        key_items=figures.key_items(fig) + [RING_KEY, STAR_KEY],
    )


def criterion_panel(
    study,
    j_steps,
    x,
    labels,
    *,
    title,
    pick="max",
    x_title="x",
    key="criterion",
    role="criterion",
    caption="",
    classes=None,
):
    """The criterion over the candidates at each step, the winner starred; ``title`` may
    hold ``{j}`` (``classes``: as :func:`data_panel`)."""
    rows = [(j, *study.criterion(j)) for j in j_steps]
    drawn_rows = [figures.drawn_scores(x, scores) for _, scores, _ in rows]
    ever_infinite = any(drawn.infinite for drawn in drawn_rows)  # the ∞ trace only then
    scores0, winner0 = study.criterion(0)
    fig = figures.criterion_figure(
        x, scores0, winner0, pick=pick, x_title=x_title, labels=labels, classes=classes, infinite=ever_infinite
    )
    groups = figures.criterion_groups(labels, scores0.size, classes)
    frames = []
    for (j, scores, winner), drawn in zip(rows, drawn_rows):
        row = min(j, study.n_steps - 1)  # the criterion's row of the study's scores (Study.criterion)
        patch = {
            f"scores-{number}": {"y": ScoreRow(row, index, drawn.finite[index])}
            for number, (*_, index) in enumerate(groups)
        }
        if ever_infinite:
            patch["infinite"] = drawn.on_top
        patch["winner"] = figures.winner_arrays(x, drawn.shown, winner, pick)
        # past the last choice there is no criterion at step j: the panel shows the last one
        # there was, and says so (its star is the last point chosen, not a next pick)
        last = j >= study.n_steps > 0
        said = title.format(j=row) + " (the last choice)" if last else title.format(j=j)
        if drawn.infinite:
            said += f"; ∞ for {figures.counted(drawn.infinite, 'point')}, drawn on top"
        frames.append({"data": patch, "title": said, "describe": criterion_words(scores, winner, pick, last)})
    hidden = tuple(trace.uid for trace in fig.data)  # a student guesses before seeing the scores
    shown_in_key = ("winner", figures.INFINITE_NAME) if ever_infinite else ("winner",)
    key_items = [item for item in figures.key_items(fig) if item["text"].startswith(shown_in_key)]
    return Panel(
        key, role, title.format(j=0), fig, frames, caption=caption, hide_when_predicting=hidden, key_items=key_items
    )


def _heat_order(order, n_steps, share=1.0):
    """The heatmap's rows: the study's display order thinned so that all steps together
    stay within ``share`` of the player's budget of heatmap cells."""
    cells = int(min(MAX_HEAT_CELLS, len(order), np.sqrt(share * HEAT_BUDGET / max(n_steps + 1, 1))))
    if cells >= len(order):
        return np.asarray(order)
    keep = np.unique(np.linspace(0, len(order) - 1, cells).round().astype(int))
    return np.asarray(order)[keep]


def diverging_key(text, colorscale=None):
    """The key of a diverging heatmap: its colour ramp, and what the colours mean."""
    stops = colorscale or figures.DIVERGING_STOPS
    return [{"kind": "gradient", "colours": [colour for _, colour in stops], "text": text}]


def heatmap_panel(
    study,
    j_steps,
    *,
    sort_note,
    shared_scale=True,
    view=0,
    key="heatmaps",
    role="kernel",
    title="The kernel before and after deflation",
    caption="",
    height=420,
    share=1.0,
    rows=None,
    not_deflated="",
):
    """``K_0`` beside ``K_j`` (8-bit cells), on K_0's colour range or each on its own;
    ``share``: this panel's part of the payload's heatmap budget.  No colour bar: a key
    line says what the colours mean (a colour bar's ticks overprint at large text).
    ``not_deflated``: the variant's name when it never deflates, which the panel's title then
    says, and K_j's says it equals K_0 (the two heatmaps are the same picture)."""
    order = _heat_order(study.order, study.n_steps, share)
    path = study.path
    before = path.deflated_block(0, order, view=view)
    fig = figures.heatmap_pair_figure(before, before, j=0, sort_note="", shared_scale=shared_scale)
    figures.relayout(fig, xaxes={"title": {"text": None}})
    fig.update_traces(showscale=False)
    low, high = figures.display_range(before)
    frames = []
    for j in j_steps:
        after = path.deflated_block(j, order, view=view)
        lo, hi = (low, high) if shared_scale else figures.display_range(after, figures.OWN_SCALE_SHARE)
        patch = {"kernel-after": {"z": Quantized(after, lo, hi), "zmin": lo, "zmax": hi}}
        title_j = f"{figures.kernel_name(j)} = K₀" if not_deflated else figures.after_title(j)
        right = title_j + ("" if shared_scale else f" (±{hi:.2g})")
        frames.append(
            {
                "data": patch,
                "layout": {"annotations.after-title.text": right},
                "describe": (
                    f"{title_j}: {not_deflated} never deflates."
                    if not_deflated and j
                    else removed_words(before, after, j)
                ),
            }
        )
    if callable(sort_note):  # how rows are ordered and thinned depends on the thinning done here
        sort_note = sort_note(order)
    scale = f"on K₀'s scale, ±{high:.2g}" if shared_scale else "each on the range of 99% of its entries"
    colours = diverging_key(f"blue < 0 · red > 0, fading to the background at 0; {scale}")
    note = f"Rows and columns: {sort_note}." + (f" {caption}" if caption else "")
    title = f"The kernel, which {not_deflated} never deflates" if not_deflated else title
    title = f"{title} ({rows})" if rows else title
    return Panel(
        key, role, title, fig, frames, caption=note, height=height, span=(2, 1), key_items=colours, margin={"t": 34}
    )


def bound_panel(
    curves,
    j_steps,
    *,
    log_y=False,
    secondary=(),
    y_title="error / bound",
    secondary_title=None,
    key="bounds",
    role="bound",
    title="Bounds and errors against t",
    rescale=None,
    height=440,
    leave_out=(),
):
    """Every curve against t with the step marked, each line named at its end and drawn
    up to the step shown (the player's "whole curves" shows them to k); ``leave_out``:
    curves of another scale than the error rates (KMP's mean squared errors: one axis,
    the story says them)."""
    if leave_out:
        curves = replace(
            curves, curves={name: values for name, values in curves.curves.items() if name not in leave_out}
        )
    fig = figures.bound_figure(
        curves,
        0,
        log_y=log_y,
        secondary=secondary,
        y_title=y_title,
        secondary_title=secondary_title,
        rescale=rescale,
        note_in_plot=False,
    )
    # the player draws the step line, the revealed curves and their labels; the words say them
    frames = [{"describe": bound_words(curves, j)} for j in j_steps]
    markers = [
        {"kind": "marker", "symbol": "triangle-down", "colour": "#777777", "text": "lowest bound so far"},
        {"kind": "marker", "symbol": "circle", "colour": "#777777", "text": "lowest error so far"},
    ]
    return Panel(
        key,
        role,
        title,
        fig,
        frames,
        # the curves are drawn up to the step shown; the minima lie anywhere on the path
        caption="Over the whole path. " + figures.bound_summary(curves, rescale),
        height=height,
        step_line=True,
        subtitle=figures.trivial_note(curves, rescale) or "",
        span=(1, 2),
        key_items=markers,
    )


def residual_panel(study, j_steps, *, key="model", role="model", caption=""):
    """Sparse KPCA's model: every point coloured by its residual, the chosen ringed."""
    residuals = study.path.extras["residuals"]
    fig = figures.residual_figure(study.coords, residuals[0], [], titles=study.coord_titles, top=residuals[0].max())
    frames = [{"data": {"residuals": {"marker.color": residuals[j]}}} for j in j_steps]
    return Panel(
        key,
        role,
        "Residual of every point after projection on the chosen points",
        fig,
        frames,
        caption=caption,
        animate=True,
        rings=[_study_rings(study, j_steps)],
        key_items=figures.key_items(fig) + [RING_KEY, STAR_KEY],
    )


def decision_panel(study, j_steps, labels, labels_test, *, class_names, key="model", role="model", what="f(x)"):
    """A 2-D classifier: its output as a background, the boundary f = 0 and the chosen."""
    xs, ys, grids = study.decision_grids(j_steps, n=DECISION_GRID)
    values = grids[0]
    fig = figures.decision_figure(
        xs,
        ys,
        values,
        study.coords,
        labels,
        [],
        coords_test=study.coords_test,
        labels_test=labels_test,
        titles=study.coord_titles,
        class_names=class_names,
    )
    frames = []
    for j, values in grids.items():
        top = float(np.nanmax(np.abs(values))) or 1.0
        z = Quantized(values, -top, top)  # 8 bits; 0 is exactly code 127, so the boundary stays put
        frames.append(
            {
                "data": {"decision-value": {"z": z, "zmin": -top, "zmax": top}, "decision-boundary": {"z": z}},
                "title": f"Decision boundary {what} = 0 {figures.after_steps(j)}",
            }
        )
    return Panel(
        key,
        role,
        "Decision boundary after 0 steps",
        fig,
        frames,
        rings=[_study_rings(study, j_steps, next_pick=False)],
        key_items=figures.key_items(fig) + [RING_KEY],
    )


def decision_values_panel(study, j_steps, split, *, class_names, key="model", role="model"):
    """Classifier output per class (d > 2): histograms whose values move with j."""
    f0 = study.decision(0, split.X_train)
    fig = figures.decision_values_figure(
        f0, split.y_train, study.decision(0, split.X_test), split.y_test, class_names=class_names
    )
    frames = []
    for j in j_steps:
        f_train, f_test = study.decision(j, split.X_train), study.decision(j, split.X_test)
        patch = {}
        for value in (-1.0, 1.0):
            patch[f"train-{value:+.0f}"] = {"x": f_train[split.y_train == value]}
            patch[f"test-{value:+.0f}"] = {"x": f_test[split.y_test == value]}
        frames.append({"data": patch, "title": f"Classifier output per class {figures.after_steps(j)}"})
    return Panel(key, role, "Classifier output per class after 0 steps", fig, frames)


def fit_panel(study, j_steps, *, key="model", role="model", presenter=True, guess=False):
    """1-D regression: the fitted function after j steps (``guess``: it takes predict
    mode's clicks, when it stands in for the data panel)."""
    xs, curves = study.fit_curves([0, *j_steps])  # one kernel for every step
    fig = figures.fit_figure(xs, curves[0], study.coords, [], coords_test=study.coords_test, titles=study.coord_titles)
    frames = [{"data": {"fit": {"y": curves[j]}}, "title": f"The function {figures.after_steps(j)}"} for j in j_steps]
    return Panel(
        key,
        role,
        "The function after 0 steps",
        fig,
        frames,
        animate=True,
        presenter=presenter,
        guess=guess,
        rings=[_study_rings(study, j_steps, next_pick=guess)],
        key_items=figures.key_items(fig) + [RING_KEY] + ([STAR_KEY] if guess else []),
    )


def predicted_panel(study, j_steps, split, *, target_name, key="model", role="model"):
    """Regression with d > 1: predicted against true after j steps."""
    fig = figures.predicted_figure(
        split.y_train, study.fitted(0), split.y_test, study.prediction(0, split.X_test), target_name=target_name
    )
    frames = [
        {
            "data": {"train": {"y": study.fitted(j)}, "test": {"y": study.prediction(j, split.X_test)}},
            "title": f"Predicted against true {figures.after_steps(j)}",
        }
        for j in j_steps
    ]
    return Panel(key, role, "Predicted against true after 0 steps", fig, frames, animate=True)


def projection_panel(study, j_steps, *, key="model", role="model"):
    """Sparse KCCA: the first canonical variates of the two views after j steps."""
    empty = {
        "train": (np.zeros(0), np.zeros(0)),
        "test": (np.zeros(0), np.zeros(0)),
        "correlation": (float("nan"), float("nan")),
    }
    fig = figures.projection_figure(empty)
    frames = []
    for j in j_steps:
        p = study.projections(j) or empty
        (fx, fy), (gx, gy) = p["train"], p["test"]
        train_corr, test_corr = p["correlation"]
        low, high = (
            (
                float(np.min([fx.min(), fy.min(), gx.min(), gy.min()])),
                float(np.max([fx.max(), fy.max(), gx.max(), gy.max()])),
            )
            if fx.size
            else (0.0, 0.0)
        )
        frames.append(
            {
                "data": {
                    "train-pairs": {"x": fx, "y": fy, "name": f"training pairs (corr {train_corr:.3f})"},
                    "test-pairs": {"x": gx, "y": gy, "name": f"test pairs (corr {test_corr:.3f})"},
                    "diagonal": {"x": [low, high], "y": [low, high]},
                },
                "title": (
                    f"First canonical variates on {figures.counted(j, 'point')}"
                    if j
                    else "Canonical variates: from step 1 on"
                ),
            }
        )
    return Panel(key, role, "Canonical variates: from step 1 on", fig, frames)


# --- the deflation lab -------------------------------------------------------------------------


def lab_chosen_panel(lab, j_steps, labels, *, class_names=None, title="Chosen points per deflation (star: next pick)"):
    """Each deflation's chosen points on the data, one small panel per deflation (rings
    without numbers: in a small panel they would overprint)."""
    names = lab.deflations
    fig = figures.chosen_grid_figure(
        lab.coords,
        labels,
        {n: [] for n in names},
        {n: None for n in names},
        titles=lab.coord_titles,
        class_names=class_names,
    )
    fig.layout.annotations = [note for note in fig.layout.annotations if not note.text.startswith("axes:")]
    sets = []
    for name, axes in zip(names, _grid_axes(fig, len(names))):
        nexts = [lab.next_picks(j)[name] for j in j_steps]
        sets.append(rings(lab.coords, lab.paths[name].indices, nexts, numbers=False, axes=axes))
    rows, _ = figures.panel_grid(len(names))
    return Panel(
        "chosen",
        "data",
        title,
        fig,
        [{} for _ in j_steps],
        height=60 + 300 * rows,
        animate=True,
        span=(2, 1),
        caption=f"Axes: {lab.coord_titles[0]} across, {lab.coord_titles[1]} up.",
        margin={"t": 34},
        rings=sets,
        key_items=figures.key_items(fig) + [RING_KEY, STAR_KEY],
    )


def _grid_axes(fig, n):
    """The (xref, yref) of each of the first n subplots of a small-multiples figure."""
    out = []
    for trace in fig.data:
        axes = ((trace.xaxis or "x"), (trace.yaxis or "y"))
        if axes not in out:
            out.append(axes)
    return out[:n]


def lab_heatmap_panel(lab, j_steps, *, sort_note, scale, own_scale=False):
    """Each deflation's kernel K_j, on K_0's colour scale or (``own_scale``) each on the
    range of its own entries at that step, so a nearly emptied kernel still shows what is
    left (8-bit cells)."""
    names = lab.deflations
    order = _heat_order(lab.order, lab.n_steps * len(names))
    if callable(sort_note):
        sort_note = sort_note(order)
    blocks = {n: lab.paths[n].deflated_block(0, order) for n in names}
    fig = figures.heatmap_grid_figure(blocks, steps={n: 0 for n in names}, sort_note="", scale=scale)
    fig.layout.annotations = [note for note in fig.layout.annotations if note.text]
    titles = [note for note in fig.layout.annotations if note.text.endswith(f"({figures.kernel_name(0)})")]
    for number, (note, name) in enumerate(zip(titles, names)):
        note.update(text=name, name=f"title-{number}")  # named: the steps rename it
    if own_scale:  # each panel its own colour range: one colour axis per panel
        for trace in fig.data:
            trace.coloraxis = None
            trace.update(colorscale=figures.DIVERGING_SCALE, zmid=0.0, showscale=False)
    fig.update_layout(coloraxis_showscale=False)
    frames = []
    for j in j_steps:
        patch, layout = {}, {}
        for number, name in enumerate(names):
            step = lab.step_of(name, j)
            block = lab.paths[name].deflated_block(step, order)
            top = figures.display_range(block, figures.OWN_SCALE_SHARE)[1] if own_scale else scale
            patch[f"kernel-{number}"] = {"z": Quantized(block, -top, top)}
            if own_scale:
                patch[f"kernel-{number}"].update(zmin=-top, zmax=top)
            # a run that stopped early says where it stays; an own scale says its range
            text = name if step == j else f"{name} ({figures.kernel_name(step)})"
            layout[f"annotations.title-{number}.text"] = text + (f"<br>±{top:.2g}" if own_scale else "")
        frames.append(
            {
                "data": patch,
                "layout": layout,
                "title": f"Deflated kernels {figures.kernel_name(j)}"
                + (", each on its own colour scale" if own_scale else ", one colour scale (K₀'s)"),
            }
        )
    for trace in fig.data:
        trace.z = None  # every step's cells travel in the frames
    rows, _ = figures.panel_grid(len(names))
    what = (
        "each on the range of 99% of its entries (± in its title; larger ones saturate)"
        if own_scale
        else f"all on K₀'s scale, ±{scale:.2g}"
    )
    colours = diverging_key(f"blue < 0 · red > 0, fading to the background at 0; {what}")
    return Panel(
        "heatmaps",
        "kernel",
        f"Deflated kernels {figures.kernel_name(0)}",
        fig,
        frames,
        height=40 + 300 * rows,
        span=(2, 1),
        key_items=colours,
        margin={"t": 58 if own_scale else 34},
        caption=f"Rows and columns: {sort_note}. Blue entries are negative; an asymmetric panel comes from "
        "a one-sided deflation.",
    )


FACTS = (  # (row of the facts table, what it means: the row's tooltip)
    ("step", "The step this kernel is at: a run that stopped early stays at its last step."),
    ("symmetric", "Is K_j equal to its transpose? A one-sided deflation (projection) is not."),
    (
        "smallest eigenvalue",
        "The smallest eigenvalue of K_j's symmetric part, relative to K₀'s largest. Below zero, "
        "K_j is no longer a kernel; ≈ 0 means zero within rounding.",
    ),
    (
        "PSD",
        "Positive semi-definite: no eigenvalue below zero (within the facts' tolerance), so K_j is still a kernel.",
    ),
    ("rank", "The number of eigenvalues above the tolerance: how many directions are left."),
    ("trace", "The sum of K_j's diagonal: the variance still to explain; it falls as points are chosen."),
    (
        "chosen columns left",
        "How much of the chosen points' own columns is left: the largest ‖K_j[:, i]‖ / "
        "‖K₀[:, i]‖ over the chosen points i. 0: this deflation wiped them out, so they cannot "
        "be picked again; above 0 they can.",
    ),
    ("next pick", "The point this deflation picks next."),
)


def _short(value):
    """Two significant digits in few characters: 0.057, 1.3e-4 (a narrow table column)."""
    if value == 0 or 0.01 <= abs(value) < 1e4:
        return f"{value:.2g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _fact_column(step, facts):
    """One deflation's facts, in the order of :data:`FACTS`."""
    yes = {True: "yes", False: "no"}
    # within the facts' tolerance an eigenvalue is zero: its digits there are rounding, not a finding
    smallest = "≈ 0" if abs(facts.min_eigenvalue) <= FACT_RTOL else _short(facts.min_eigenvalue)
    return [
        step,
        yes[bool(facts.symmetric)],
        smallest,
        yes[bool(facts.psd)],
        facts.rank,
        f"{facts.trace:.3g}",
        "—" if np.isnan(facts.chosen_left) else "≈ 0" if facts.annihilated else _short(facts.chosen_left),
        "—" if facts.next_pick is None else facts.next_pick,
    ]


def _facts_caption(spectrum):
    text = (
        "Eigenvalues relative to K₀'s largest; 'chosen columns left' is the largest ‖K_j[:, i]‖ / ‖K₀[:, i]‖ "
        "over the chosen i (0: wiped out). "
    )
    if spectrum.sample is None:
        return text + (
            "Computed from K_j = K₀ − UV′ without forming it, in a small basis: K₀'s leading "
            f"{spectrum.values.size} eigenvectors (the rest of K₀ is below 10⁻¹⁰ of its largest "
            "eigenvalue, too little to change any fact) plus the deflation's U and V."
        )
    return text + (
        f"K₀ has too many significant eigenvalues here for an exact small basis, so symmetric, smallest "
        f"eigenvalue, PSD and rank describe K_j's {spectrum.sample.size} × {spectrum.sample.size} block "
        "on a fixed random subsample of the training points (the same at every step); rank is that "
        "block's."
    )


def lab_facts_panel(lab, j_steps):
    """The facts of each deflated kernel at step j: an HTML table, one column per
    deflation and one row per fact (narrow enough for a projector's panel at every text
    size), each row's meaning in its tooltip."""
    # the step row only when some run stopped early (otherwise every column says j)
    shown = [
        number
        for number, (label, _) in enumerate(FACTS)
        if label != "step" or any(path.n_steps < lab.n_steps for path in lab.paths.values())
    ]

    def rows(j):
        columns = [_fact_column(lab.step_of(name, j), facts) for name, facts in lab.facts(j).items()]
        return [[FACTS[number][0]] + [column[number] for column in columns] for number in shown]

    frames = [{"rows": rows(j), "title": f"Facts of each deflated kernel at step {j}"} for j in j_steps]
    return Panel(
        "facts",
        "facts",
        "Facts of each deflated kernel at step 0",
        None,
        frames,
        height=60 + 34 * (len(shown) + 1),
        caption=_facts_caption(lab.spectrum),
        key_items=[],
        table={
            "header": ["fact"] + [name.replace("-", "-\u200b") for name in lab.deflations],
            "row_help": [FACTS[number][1] for number in shown],
        },
    )


def lab_errors_panel(lab, j_steps, *, title):
    """Each deflation's learner on its first k points, with the step marked, each line
    drawn up to the step shown and named at its end."""
    fig = figures.lines_figure(np.arange(1, lab.n_steps + 1), lab.errors, j=0, y_title=lab.error_name)
    values = np.concatenate([np.asarray(v, dtype=float) for v in lab.errors.values()] + [[0.0]])
    values = values[np.isfinite(values)]
    figures.relayout(
        fig, xaxes={"range": [0.5, lab.n_steps + 0.5]}, yaxes={"range": [0, float(values.max()) * 1.1 or 1.0]}
    )
    for trace in fig.data:
        trace.meta = {"label": trace.name, "reveal": True}
    caption = (
        "Each deflation's learner on its first k chosen points (coinciding curves are drawn on top of each "
        "other): "
        + "; ".join(
            f"{name}: min {values.min():.3g} at k = {int(np.argmin(values)) + 1}"
            for name, values in lab.errors.items()
            if values.size
        )
        + "."
    )
    return Panel("errors", "curve", title, fig, [{} for _ in j_steps], caption=caption, step_line=True)


# --- the column lab ---------------------------------------------------------------------------


def column_landmarks_panel(result, j_steps, labels, *, class_names=None):
    """Each method's first j landmarks on the data (first repetition), the next one
    starred: the player steps the landmarks as it steps the algorithms' picks."""
    orders = result.landmarks
    names = list(orders)
    fig = figures.chosen_grid_figure(
        result.coords,
        labels,
        {n: [] for n in names},
        {n: None for n in names},
        titles=result.coord_titles,
        class_names=class_names,
    )
    fig.layout.annotations = [note for note in fig.layout.annotations if not note.text.startswith("axes:")]
    sets = []
    for name, axes in zip(names, _grid_axes(fig, len(names))):
        order = np.asarray(orders[name], dtype=int)
        nexts = [int(order[j]) if j < order.size else None for j in j_steps]
        sets.append(rings(result.coords, order, nexts, numbers=False, unique=True, axes=axes))
    frames = [{"title": f"Landmarks after {figures.counted(j, 'draw')} (first repetition)"} for j in j_steps]
    rows, _ = figures.panel_grid(len(names))
    return Panel(
        "landmarks",
        "data",
        "Landmarks after 0 draws (first repetition)",
        fig,
        frames,
        span=(2, 1),
        height=60 + 300 * rows,
        margin={"t": 34},
        rings=sets,
        key_items=figures.key_items(fig) + [RING_KEY, STAR_KEY],
        caption="Greedy picks spread out (each explains what the others cannot); uniform ones follow the "
        f"density; leverage sampling favours points with few neighbours and may draw one twice. Axes: "
        f"{result.coord_titles[0]} across, {result.coord_titles[1]} up.",
    )


def lines_panel(key, role, title, fig, n_steps, *, caption="", step_line=True, labels=True, height=400):
    """A chart of curves that does not change with the step (the column lab's errors
    against the rank, the bounds explorer's bound against its knob): each curve named at
    its end, and the step's line over it."""
    if labels:
        for trace in fig.data:
            if trace.showlegend is not False and trace.mode and "lines" in trace.mode and trace.name:
                trace.meta = {"label": trace.name}
    return Panel(
        key, role, title, fig, [{} for _ in range(n_steps + 1)], caption=caption, step_line=step_line, height=height
    )
