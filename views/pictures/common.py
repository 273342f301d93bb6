"""What every page's picture shares: the stories and predict-mode fields of a step player,
the notes under a heatmap, and the numbers a lesson may quote about a study.  No Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mpcore.curves import LOCAL_OPERATOR, LOCAL_PRINTED
from views import lessons
from views.figures import bound_stop, infinite_scores


@dataclass
class Picture:
    """What a page shows of one study: ``n_steps`` steps, the step player's content
    (``player``: the keyword arguments of :func:`views.player.payload` -- panels with their
    per-step changes, stories, marks, what predicting the next pick needs) and the
    ``numbers`` its lessons may quote."""

    n_steps: int
    player: dict
    numbers: dict = field(default_factory=dict)


def player_extras(study, panels, story, *, pick_max=True, marks=True):
    """The player's arguments common to the algorithm pages: the stories of every step
    (and the same without the next pick, for predict mode), a button that jumps to the
    bound-driven stopping point, and what predicting the next pick needs."""
    steps = range(study.n_steps + 1)
    extras = {
        "panels": panels,
        "stories": [story(j) for j in steps],
        "stories_hidden": [story(j, hide_next=True) for j in steps],
    }
    stop = bound_stop(study.curves) if marks else None
    if stop is not None:
        name, t, value = stop
        extras["marks"] = [
            (
                f"Jump to the bound's stop (t = {t})",
                f"Stop t={t}",
                t,
                f"The {name} is lowest after {t} basis vectors ({value:.3g}): stopping there gives the best guarantee.",
            )
        ]
    if study.n_steps:
        scores = study.path.scores[: study.n_steps]
        extras.update(
            picks=study.path.indices[: study.n_steps],
            scores=np.where(infinite_scores(scores), np.inf, scores),  # (float32 has no largest float64)
            coords=study.coords,
            pick_max=pick_max,
        )
    return extras


def study_numbers(study):
    """What a preset's lesson may quote about a study: ``m``, its curves' summary, the
    curves themselves (``series``: the first bound's and the held-out loss's, from t = 1,
    for the values at a scene's last step, :func:`views.lessons.at_end`) and the settings a
    sentence may name, as it names them."""
    curves = study.curves
    series = {}
    if curves.bound_names:
        series["bound"] = tuple(float(v) for v in curves.curves[curves.bound_names[0]])
    if curves.test_name:
        series["test"] = tuple(float(v) for v in curves.curves[curves.test_name])
    words = {name: lessons.word(name, value) for name, value in study.extras.get("settings", {}).items()}
    return {"m": int(study.m), **curves.summary(), **_local_numbers(curves), "series": series, **words}


def _local_numbers(curves):
    """Sparse KPCA: where the local Rademacher bound is lowest under each reading of Thm 8,
    and the lower of its two minima."""
    if LOCAL_PRINTED not in curves.curves:
        return {}
    argmin = curves.argmin
    lowest = min(float(np.nanmin(curves.curves[name])) for name in (LOCAL_PRINTED, LOCAL_OPERATOR))
    return {"printed_argmin": argmin[LOCAL_PRINTED], "operator_argmin": argmin[LOCAL_OPERATOR], "local_min": lowest}


def _order_kind(split):
    if split.X_train.shape[1] == 1:
        return "x"
    if split.y_train is None:
        return "coordinate"
    if getattr(split, "Y_train", None) is not None:
        return "latent"
    if split.classes:
        return "class"
    return "target"


def rows_note(split):
    """How a heatmap's rows are ordered, in the few words a panel title has room for."""
    return {
        "x": "rows by x",
        "coordinate": "rows by coordinate 1",
        "latent": "rows by the shared value",
        "class": "rows by class",
        "target": "rows by target",
    }[_order_kind(split)]


def sort_note(split, order):
    """Axis note under a heatmap: how its rows are ordered and thinned."""
    m = split.X_train.shape[0]
    how = {
        "x": "sorted by the input x",
        "coordinate": "sorted by the first plotted coordinate",
        "latent": "sorted by the value both views share (the dataset's latent variable or label)",
        "class": "sorted by class (-1 first), then by the first plotted coordinate",
        "target": "sorted by target value",
    }[_order_kind(split)]
    thinned = f", {len(order)} of {m} points shown" if len(order) < m else ""
    return f"points {how}{thinned}"


def sort_note_for(split):
    """:func:`sort_note` as a function of the rows shown (the player thins them)."""
    return lambda order: sort_note(split, order)
