"""What the step player draws of a payload at a step, read from the payload itself.

A curve marked ``meta.reveal`` is drawn up to the step shown (the player draws it whole at
the path's last step, or when the viewer turns "Whole curves" on: a lesson cannot count on
that); a reference line marked ``when: "whole"`` (the bound's stop) shows with the whole
curves; a chart's notes (annotations) and the jump buttons (``marks``) show at every step.
:func:`contradictions` holds a guided scene's words against this: what the scene says at
its last step must be on screen there.  No Streamlit.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from mpcore.bounds import says_something
from views import lessons


def _values(array):
    """A Plotly array: a list, or a typed array (``{"dtype", "bdata"}``)."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"])).astype(float)
    return np.array([np.nan if v is None else v for v in array or ()], dtype=float)


def curves(payload, step):
    """Every revealed curve of every panel as drawn at ``step``: ``{(panel, name): ys}``,
    the values at t = 1 .. step (the whole curve at the path's last step)."""
    whole = step >= payload["n_steps"]
    out = {}
    for panel in payload["panels"]:
        for trace in (panel.get("figure") or {}).get("data", ()):
            if (trace.get("meta") or {}).get("reveal") and trace.get("name"):
                x, y = _values(trace.get("x")), _values(trace.get("y"))
                out[panel["key"], trace["name"]] = y if whole else y[x <= step]
    return out


def _layout(panel):
    return (panel.get("figure") or {}).get("layout") or {}


def notes(payload):
    """The text a chart writes on itself (its annotations), by panel."""
    return {
        panel["key"]: [a.get("text", "") for a in _layout(panel).get("annotations", ())] for panel in payload["panels"]
    }


def stops(payload, step):
    """The stopping points on screen at ``step``: each stop line shown and each jump button."""
    out = [mark["label"] for mark in payload.get("marks") or ()]
    whole = step >= payload["n_steps"]
    for panel in payload["panels"]:
        layout = _layout(panel)
        for ref in (layout.get("meta") or {}).get("refs", ()):
            if ref.get("shape") == "stop" and (ref.get("when") != "whole" or whole):
                out.append(ref["text"])
    return out


def _shown(value, drawn, written):
    """Whether ``value`` is a value of a drawn curve (to the digits a sentence quotes) or
    written in a chart's note."""
    close = any(np.any(np.isclose(ys, value, rtol=1e-9, atol=0)) for ys in drawn)
    return close or any(f"{value:.3g}" in text for text in written)


def contradictions(scene, numbers, payload):
    """What ``scene`` says that the ``payload`` (the scene's page, opened at the scene's last
    step) does not show there: the numbers and claims drawn only later
    (:func:`views.lessons.unseen`), a stop for a bound that never gets below 1, and each lowest
    value the scene quotes that is on no drawn curve and in no chart's note.  [] when
    everything it says is on screen."""
    payload = json.loads(payload) if isinstance(payload, str) else payload
    step = payload["step"]
    out = list(lessons.unseen(scene, numbers, payload["n_steps"]))
    series = numbers.get("series") or {}
    bound = series.get("bound")
    if bound is not None and not says_something(bound):
        out += [f"a stop is shown ({text!r}) for a bound that never gets below 1." for text in stops(payload, step)]
    drawn = curves(payload, step)
    written = [text for texts in notes(payload).values() for text in texts]
    quoted = {name for text in lessons.said(scene, numbers) for name in lessons.fields(text)}
    for name, curve in (("bound_min", "bound"), ("test_min", "test")):
        if name not in quoted or curve not in series:
            continue
        full = np.asarray(series[curve], dtype=float)
        on_it = [
            ys for ys in drawn.values() if len(ys) <= len(full) and np.array_equal(ys, full[: len(ys)], equal_nan=True)
        ]
        if not _shown(float(numbers[name]), on_it, written):
            out.append(f"{{{name}}} ({float(numbers[name]):.3g}) is on no curve drawn at step {step} and in no note.")
    return out
