"""Plotly figure builders: plain arrays in, ``go.Figure`` out (no Streamlit here).

Made for a projector: 18 px text, thick lines, a colour-blind-safe palette (Okabe and
Ito's, with the light colours darkened so that every line and marker keeps a contrast
of at least 3:1 on the white card *and* on the dark theme's background) with a distinct
marker shape per class, a title, axis titles and a key on every figure.  Colours are
explicit; the dark projector theme swaps the neutral "ink" colours (text, axes, the
chosen-point rings, the card itself) through :data:`DARK_INK`, which the step player
applies in the browser and :func:`themed` applies to a figure drawn by Streamlit.

Traces and the layout carry small ``meta`` notes the step player reads (see
``static/player/labels.js``): ``{"label": text}`` puts the text at the end of a line instead of a
legend entry, ``{"reveal": true}`` draws a line only up to the step shown,
``{"min_of": uid}`` marks the lowest point drawn so far of the trace named ``uid``, and the layout's
``meta.refs`` names the reference lines (a bound's "trivial above 1", the bound's stop), each
by its shape's ``name``, whose labels the player places where no curve crosses them.  The
payload's schema (``views/payload.schema.json``) writes these notes down.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mpcore import bounds as library_bounds

# Okabe & Ito (2008), "Color Universal Design"; orange, sky and purple darkened (same hues)
# so that each has a contrast of at least 3:1 on white and on the dark theme's #171614
# (WCAG 2.1's minimum for lines and markers; tests/test_figures.py checks it).
OKABE_ITO = {
    "black": "#000000",
    "orange": "#AD7400",
    "sky": "#3A8CC0",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#B55A98",
}
CLASS_COLOURS = {-1.0: OKABE_ITO["blue"], 1.0: OKABE_ITO["vermillion"]}
CLASS_SYMBOLS = {-1.0: "circle", 1.0: "diamond"}
CURVE_COLOURS = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "orange", "purple", "sky", "black")]
LIGHT_BACKGROUND, DARK_BACKGROUND = "#ffffff", "#171614"  # the card, and Streamlit's dark theme's page
# The dark projector theme: each neutral colour of a figure and its dark-theme stand-in
# (the palette above reads on both backgrounds and is left alone; yellow is only ever a
# fill inside a black outline, which becomes a light one).
DARK_INK = {
    "#ffffff": DARK_BACKGROUND,
    "#000000": "#f2f2f2",
    "#222222": "#e6e6e6",
    "#555555": "#c8c8c8",
    "#777777": "#a6a6a6",
    "#888888": "#9a9a9a",
    "#999999": "#8c8c8c",
    "#e6e6e6": "#36332e",
    "#e8ecf3": "#2d2b27",
    "rgba(255,255,255,0.85)": "rgba(23,22,20,0.85)",
}
CHOSEN_COLOUR = OKABE_ITO["black"]
NEXT_COLOUR = OKABE_ITO["yellow"]
FONT_SIZE = 18
HEIGHT = 480
SEQUENTIAL = "Viridis"
DIVERGING = "RdBu_r"  # red positive, blue negative; readable with the common colour-vision deficiencies
DIVERGING_STOPS = (  # the same scale as stops (ColorBrewer's RdBu, reversed): the player's colour key draws it
    (0.0, "rgb(5,48,97)"),
    (0.1, "rgb(33,102,172)"),
    (0.2, "rgb(67,147,195)"),
    (0.3, "rgb(146,197,222)"),
    (0.4, "rgb(209,229,240)"),
    (0.5, "rgb(247,247,247)"),
    (0.6, "rgb(253,219,199)"),
    (0.7, "rgb(244,165,130)"),
    (0.8, "rgb(214,96,77)"),
    (0.9, "rgb(178,24,43)"),
    (1.0, "rgb(103,0,31)"),
)
DIVERGING_SCALE = [[position, colour] for position, colour in DIVERGING_STOPS]  # what the heatmaps draw
# The same scale for the dark theme: its centre (zero) dark like the page, its ends bright, so
# a deflated kernel near zero reads as "nothing left" on a dark projector as on white.
DARK_DIVERGING_STOPS = (
    (0.0, "rgb(171,217,233)"),
    (0.1, "rgb(116,173,209)"),
    (0.2, "rgb(69,117,180)"),
    (0.3, "rgb(44,80,130)"),
    (0.4, "rgb(36,50,74)"),
    (0.5, "rgb(33,32,30)"),
    (0.6, "rgb(78,40,34)"),
    (0.7, "rgb(140,52,40)"),
    (0.8, "rgb(200,82,60)"),
    (0.9, "rgb(244,140,100)"),
    (1.0, "rgb(253,204,170)"),
)
DARK_INK.update({light: dark for (_, light), (_, dark) in zip(DIVERGING_STOPS, DARK_DIVERGING_STOPS)})
MAX_NUMBERED = 20  # the most recent picks get their order number written beside them

# Passed to st.plotly_chart(config=...): the modebar's camera button saves an SVG.
EXPORT_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "svg", "filename": "matching-pursuit-lab", "scale": 1},
}


# Plotly checks every property as it is set, which costs tens of milliseconds per figure:
# most of a step's budget.  The tests switch the checks on (tests/conftest.py), so a
# wrong property name fails there; the app draws without them.
VALIDATE = False


class _Figure(go.Figure):
    """A ``go.Figure`` that takes a whole ``go.Layout`` (as ``make_subplots`` gives its
    grid) as one new layout (:func:`relayout`), at a fraction of the cost of plotly's own
    update."""

    def update_layout(self, dict1=None, overwrite=False, **kwargs):
        if isinstance(dict1, go.Layout) and not overwrite and not kwargs:
            return relayout(self, dict1.to_plotly_json())
        return super().update_layout(dict1, overwrite, **kwargs)


def _trace(kind, **properties):
    """A trace of plotly's class ``kind``, checked as the figures are (:data:`VALIDATE`): a
    figure that does not check its traces makes them anew from their properties, so a check
    here would be work the app throws away."""
    return kind(_validate=VALIDATE, **properties)


def _new_figure(*traces):
    """An empty figure with an empty template: plotly.js's plain defaults (white, light
    grid) look right here, and plotly's default template (which ``template=None`` still
    brings in) is copied into every figure and slows every later layout change."""
    fig = _Figure(layout={"template": {}}, _validate=VALIDATE)
    for trace in traces:
        fig.add_trace(trace)
    return fig


def _merged(base, changes):
    """``base`` (a dict) with ``changes`` merged in as plotly's ``update`` merges: nested
    dicts key by key, anything else replaced (None then unsets it, as the figure's
    layout is made from the dict)."""
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merged(base[key], value)
        else:
            base[key] = _merged({}, value) if isinstance(value, dict) else value
    return base


def _is_axis(name, prefix):
    return name == prefix or (name.startswith(prefix) and name[len(prefix) :].isdigit())


def relayout(fig, changes=None, *, xaxes=None, yaxes=None, annotations=None):
    """``fig`` after ``update_layout(changes)``, ``update_xaxes(xaxes)``,
    ``update_yaxes(yaxes)`` (every x or y axis of its subplots) and
    ``update_annotations(annotations)``, made as one new layout: plotly's own updates
    re-check every key path against the figure, most of a payload build's time under a
    class's burst; this does not.  Nested dicts, no
    ``title_text`` shorthands."""
    layout = _merged(fig.layout.to_plotly_json(), changes or {})
    for prefix, axis in (("xaxis", xaxes), ("yaxis", yaxes)):
        for name in ([name for name in layout if _is_axis(name, prefix)] or [prefix]) if axis else ():
            _merged(layout.setdefault(name, {}), axis)
    for annotation in layout.get("annotations", ()) if annotations else ():
        _merged(annotation, annotations)
    fig.layout = layout
    return fig


def _style(fig, title, x_title=None, y_title=None, height=HEIGHT, legend=True):
    axes = {
        "zeroline": False,
        "gridcolor": "#e6e6e6",
        "showline": True,
        "linecolor": "#888888",
        "tickfont": {"size": FONT_SIZE - 2},
        "title": {"font": {"size": FONT_SIZE}},
    }
    return relayout(
        fig,
        {
            "paper_bgcolor": "#ffffff",  # a white card in both app themes: dark text always has contrast
            "plot_bgcolor": "#ffffff",
            "title": {"text": title, "font": {"size": FONT_SIZE + 2}},
            "font": {"size": FONT_SIZE, "color": "#222222"},
            "height": height,
            "margin": {"l": 70, "r": 30, "t": 70, "b": 60},
            "showlegend": legend,
            "legend": {"font": {"size": FONT_SIZE - 2}, "orientation": "h", "yanchor": "top", "y": -0.27, "x": 0},
            "hoverlabel": {"font": {"size": FONT_SIZE - 2}},
            "uirevision": "keep",  # zoom and pan survive stepping
        },
        xaxes=_merged(_merged({}, axes), {"title": {"text": x_title, "standoff": 6}} if x_title is not None else {}),
        yaxes=_merged(_merged({}, axes), {"title": {"text": y_title}} if y_title is not None else {}),
    )


def _is_binary(labels, classes=None):
    """Whether ``labels`` are drawn as two classes: ``classes`` when the caller knows the
    task (a -1/+1 target read as numbers is not), else whether they are all -1 or +1."""
    values = labels is not None and bool(np.all(np.isin(labels, (-1.0, 1.0))))
    return values if classes is None else bool(classes) and values


def _class_name(value, class_names):
    if class_names:
        return f"class {class_names[1] if value > 0 else class_names[0]}"
    return "class +1" if value > 0 else "class -1"


def _points(
    fig,
    coords,
    labels,
    *,
    test=False,
    class_names=None,
    colour_title="target",
    row=None,
    col=None,
    size=9,
    showscale=True,
    classes=None,
):
    """Training (filled) or test (open) points: classes by colour and shape, a real target
    by a sequential colour scale, no target in grey (``classes``: see :func:`_is_binary`)."""
    where = {} if row is None else {"row": row, "col": col}
    suffix = " (test)" if test else " (train)"
    opacity = 0.55 if test else 0.85
    index = {} if test else {"customdata": np.arange(len(coords))}  # training index: what a click guesses
    if _is_binary(labels, classes):
        for value in (-1.0, 1.0):
            mask = labels == value
            symbol = CLASS_SYMBOLS[value] + ("-open" if test else "")
            fig.add_trace(
                _trace(
                    go.Scatter,
                    x=coords[mask, 0],
                    y=coords[mask, 1],
                    mode="markers",
                    name=_class_name(value, class_names) + suffix,
                    marker={"color": CLASS_COLOURS[value], "symbol": symbol, "size": size, "opacity": opacity},
                    **({} if test else {"customdata": np.flatnonzero(mask)}),
                    hovertemplate="x=%{x:.3g}<br>y=%{y:.3g}<extra>%{fullData.name}</extra>",
                ),
                **where,
            )
    elif labels is not None:
        fig.add_trace(
            _trace(
                go.Scatter,
                x=coords[:, 0],
                y=coords[:, 1],
                mode="markers",
                name="points" + suffix,
                **index,
                marker={
                    "color": labels,
                    "colorscale": SEQUENTIAL,
                    "size": size,
                    "opacity": opacity,
                    "symbol": "circle-open" if test else "circle",
                    "showscale": showscale and not test,
                    "colorbar": {"title": {"text": colour_title}, "thickness": 14},
                },
                hovertemplate="x=%{x:.3g}<br>y=%{y:.3g}<br>" + colour_title + "=%{marker.color:.3g}<extra></extra>",
            ),
            **where,
        )
    else:
        fig.add_trace(
            _trace(
                go.Scatter,
                x=coords[:, 0],
                y=coords[:, 1],
                mode="markers",
                name="points" + suffix,
                **index,
                marker={
                    "color": "#888888",
                    "size": size,
                    "opacity": opacity,
                    "symbol": "circle-open" if test else "circle",
                },
            ),
            **where,
        )


def chosen_arrays(coords, chosen, show_numbers=True):
    """The chosen-points trace's changing parts: positions, order labels, hover data."""
    chosen = np.asarray(chosen, dtype=int)
    order = np.arange(1, chosen.size + 1)
    text = [str(n) if show_numbers and n > chosen.size - MAX_NUMBERED else "" for n in order]
    return {
        "x": coords[chosen, 0],
        "y": coords[chosen, 1],
        "text": text,
        "customdata": np.c_[order, chosen],
        "name": f"chosen ({chosen.size})",
    }


def next_arrays(coords, next_pick):
    """The next-pick star's changing parts (empty after the last step)."""
    if next_pick is None:
        return {"x": np.zeros(0), "y": np.zeros(0), "customdata": np.zeros(0, dtype=int)}
    return {"x": coords[[next_pick], 0], "y": coords[[next_pick], 1], "customdata": np.array([int(next_pick)])}


def _chosen(fig, coords, chosen, next_pick=None, row=None, col=None, show_numbers=True):
    """Ring the chosen points, number the most recent ones, star the next pick.
    (The step player draws its own, as layout shapes: ``views.steps.rings``.)"""
    where = {} if row is None else {"row": row, "col": col}
    chosen = np.asarray(chosen, dtype=int)
    if chosen.size:
        fig.add_trace(
            _trace(
                go.Scatter,
                mode="markers+text",
                textposition="top center",
                textfont={"size": FONT_SIZE - 2},
                marker={"symbol": "circle-open", "size": 20, "color": CHOSEN_COLOUR, "line": {"width": 3}},
                hovertemplate="pick %{customdata[0]}: point %{customdata[1]}<extra></extra>",
                **chosen_arrays(coords, chosen, show_numbers),
            ),
            **where,
        )
    if next_pick is not None:
        fig.add_trace(
            _trace(
                go.Scatter,
                mode="markers",
                name="next pick",
                marker={
                    "symbol": "star",
                    "size": 24,
                    "color": NEXT_COLOUR,
                    "line": {"width": 2, "color": CHOSEN_COLOUR},
                },
                hovertemplate="next pick: point %{customdata}<extra></extra>",
                **next_arrays(coords, next_pick),
            ),
            **where,
        )


def data_figure(
    coords,
    labels,
    chosen,
    *,
    next_pick=None,
    coords_test=None,
    labels_test=None,
    titles=("x", "y"),
    class_names=None,
    target_name="target",
    title="The data and the chosen points",
    height=HEIGHT,
    classes=None,
):
    """The training points (and test points, open markers) in 2-D with the chosen points
    ringed and numbered in order of choice and the next pick starred; ``classes``: whether
    the target is two classes (None: read from its values)."""
    fig = _new_figure()
    colour = target_name or "target"
    _points(fig, np.asarray(coords), labels, class_names=class_names, colour_title=colour, classes=classes)
    if coords_test is not None:
        _points(
            fig,
            np.asarray(coords_test),
            labels_test,
            test=True,
            class_names=class_names,
            colour_title=colour,
            classes=classes,
        )
    _chosen(fig, np.asarray(coords), chosen, next_pick)
    return _style(fig, title, titles[0], titles[1], height=height)


def criterion_groups(labels, m, classes=None):
    """The criterion panel's traces: (name, colour, symbol, training indices), one per class
    (``classes``: see :func:`_is_binary`)."""
    if _is_binary(labels, classes):
        return [
            (
                f"candidates, {_class_name(value, None)}",
                CLASS_COLOURS[value],
                CLASS_SYMBOLS[value],
                np.flatnonzero(labels == value),
            )
            for value in (-1.0, 1.0)
        ]
    return [("candidates", OKABE_ITO["blue"], "circle", np.arange(m))]


#: A criterion's score for a column of infinite worth: the Fisher criterion's when the column
#: separates the classes with no scatter within them (:func:`mpcore.criteria.fisher`).
INFINITE_SCORE = np.finfo(float).max


def infinite_scores(scores):
    """Where a criterion row scores :data:`INFINITE_SCORE` (or ``inf``)."""
    return np.asarray(scores, dtype=float) >= INFINITE_SCORE


class DrawnScores(NamedTuple):
    """A criterion row as its chart draws it (:func:`drawn_scores`)."""

    shown: np.ndarray  # every score, the infinite ones at the height they are drawn
    finite: np.ndarray  # the infinite ones left out (nan): the classes' traces
    on_top: dict  # the infinite ones' trace: x, y and training index (customdata)
    infinite: int  # how many there are


#: The criterion chart's trace of the points scoring ∞, and its name in the chart's key.
INFINITE_NAME = "scoring ∞"


def drawn_scores(x, scores):
    """The criterion row ``scores`` (over the points at ``x``) as its chart draws it: the
    infinite scores on a trace of their own, a fifth above the largest finite score (at 1
    when none is above 0), where the chart's axis still shows the others."""
    x, scores = np.asarray(x, dtype=float), np.asarray(scores, dtype=float)
    infinite = infinite_scores(scores)
    where = np.flatnonzero(infinite)
    if not where.size:
        return DrawnScores(scores, scores, {"x": x[where], "y": scores[where], "customdata": where}, 0)
    finite = np.where(infinite, np.nan, scores)
    top = np.nanmax(finite, initial=0.0)
    shown = np.where(infinite, 1.2 * top if top > 0 else 1.0, scores)
    return DrawnScores(shown, finite, {"x": x[where], "y": shown[where], "customdata": where}, int(where.size))


def winner_arrays(x, scores, winner, pick="max"):
    """The criterion panel's winner star: position and legend name (empty if none)."""
    if winner is None or not np.isfinite(scores[winner]):
        return {"x": np.zeros(0), "y": np.zeros(0), "name": "winner"}
    word = "largest" if pick == "max" else "smallest"
    return {
        "x": np.asarray([x[winner]], dtype=float),
        "y": np.asarray([scores[winner]], dtype=float),
        "name": f"winner ({word}): point {winner}",
    }


def criterion_figure(
    x, scores, winner, *, pick="max", x_title="x", labels=None, title=None, classes=None, infinite=False
):
    """The criterion of every candidate at this step (y) against a coordinate of the point
    (x); ineligible candidates (``nan``: already chosen or exhausted) are not drawn, those
    scoring ∞ are drawn on top (:func:`drawn_scores`) as triangles, and the winner is starred.
    Traces named for the step player's patches (``uid``): ``scores-0``, ``scores-1``, ... one
    per group of :func:`criterion_groups`, ``infinite`` (when asked for: some step of the
    chart has a point scoring ∞) and ``winner``."""
    x, drawn = np.asarray(x, dtype=float), drawn_scores(x, scores)
    fig = _new_figure()
    for number, (name, colour, symbol, index) in enumerate(criterion_groups(labels, drawn.shown.size, classes)):
        fig.add_trace(
            _trace(
                go.Scatter,
                uid=f"scores-{number}",
                x=x[index],
                y=drawn.finite[index],
                mode="markers",
                name=name,
                marker={"color": colour, "symbol": symbol, "size": 8, "opacity": 0.8},
                customdata=index,
                hovertemplate="point %{customdata}: %{y:.4g}<extra></extra>",
            )
        )
    if infinite:
        fig.add_trace(
            _trace(
                go.Scatter,
                uid="infinite",
                mode="markers",
                name=INFINITE_NAME,
                **drawn.on_top,
                marker={"symbol": "triangle-up", "size": 11, "color": CHOSEN_COLOUR},
                hovertemplate="point %{customdata}: ∞<extra></extra>",
            )
        )
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="winner",
            mode="markers",
            **winner_arrays(x, drawn.shown, winner, pick),
            marker={"symbol": "star", "size": 24, "color": NEXT_COLOUR, "line": {"width": 2, "color": CHOSEN_COLOUR}},
        )
    )
    return _style(fig, title or "Criterion over the candidates", x_title, "criterion value")


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def kernel_name(j):
    """K with the step as a subscript: K₀, K₁₂ (reads as one symbol on a projector)."""
    return "K" + str(int(j)).translate(_SUBSCRIPTS)


def counted(n, noun):
    """``n`` and the noun it counts: "1 step", "0 steps", "12 points"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def after_steps(j):
    """The words after a count of steps: "after 1 step", "after 0 steps", "after 12 steps"."""
    return f"after {counted(j, 'step')}"


def after_title(j):
    """The deflated kernel's panel title at step j."""
    return f"{kernel_name(j)}: {after_steps(j)}"


def themed(figure, dark):
    """A figure's JSON (a dict from ``fig.to_plotly_json()``) in the dark theme when
    ``dark``: every neutral colour swapped through :data:`DARK_INK` (the step player
    does the same in the browser)."""
    if not dark:
        return figure
    ink = {key.lower(): value for key, value in DARK_INK.items()}

    def swap(value):
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        if isinstance(value, str):
            return ink.get(value.lower().replace(" ", ""), value)
        return value

    return swap(figure)


def _gradient_item(marker):
    """A colour scale as a key item: its ramp, what it colours and its range."""
    values = np.asarray(marker.color, dtype=float)
    low = marker.cmin if marker.cmin is not None else float(np.nanmin(values))
    high = marker.cmax if marker.cmax is not None else float(np.nanmax(values))
    title = marker.colorbar.title.text if marker.colorbar and marker.colorbar.title else "colour"
    return {
        "kind": "gradient",
        "colours": [colour for _, colour in marker.colorscale],
        "text": f"{title}: {low:.3g} to {high:.3g}",
    }


def key_items(fig):
    """What a legend would list, as the step player's one-line key above a chart: one
    item per named trace that shows in the legend and is not named at its own end
    (``meta.label``) -- its marker symbol and colour, or its line's colour and dash.
    Training and test versions of a class share one item each, test points one open
    marker; what a name says in brackets (a count, a correlation that changes with the
    step) is left out."""
    items, seen, test = [], set(), None
    for trace in fig.data:
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if not trace.name or trace.showlegend is False or "label" in meta or "min_of" in meta:
            continue
        name = trace.name
        if trace.type == "histogram":
            colour = trace.marker.color if isinstance(trace.marker.color, str) else None
            hollow = colour is None or colour.replace(" ", "") == "rgba(0,0,0,0)"
            item = {
                "kind": "marker",
                "symbol": "square-open" if hollow else "square",
                "colour": trace.marker.line.color if hollow else colour,
            }
        elif trace.type == "contour":
            if trace.contours and trace.contours.coloring == "fill":
                continue
            item = {"kind": "line", "colour": trace.line.color or CHOSEN_COLOUR, "dash": "solid"}
        elif trace.type in ("heatmap", "table", "bar"):
            continue
        elif trace.mode and "markers" in trace.mode:
            if (
                trace.marker.colorscale is not None
                and trace.marker.showscale is not False
                and not isinstance(trace.marker.color, str)
                and trace.marker.color is not None
            ):
                items.append(_gradient_item(trace.marker))
            colour = trace.marker.color if isinstance(trace.marker.color, str) else "#777777"
            item = {
                "kind": "marker",
                "symbol": trace.marker.symbol or "circle",
                "colour": colour,
                "edge": trace.marker.line.color if trace.marker.line and trace.marker.line.color else None,
            }
        else:
            item = {"kind": "line", "colour": trace.line.color, "dash": trace.line.dash or "solid"}
        if name.endswith(" (test)"):
            test = test or {
                **item,
                "symbol": "circle-open" if item["kind"] == "marker" else None,
                "colour": "#777777",
                "text": "test points (open)",
            }
            continue
        text = name.split(":")[0] if name.startswith("winner") else name.split(" (")[0]
        if text not in seen:
            seen.add(text)
            items.append({**item, "text": text})
    if test is not None:
        items.insert(sum(1 for item in items if item["text"].startswith(("class", "points"))), test)
    return items


def display_range(before, share=1.0):
    """``(-top, top)``: a diverging colour range centred at 0 holding the matrix's entries;
    ``share < 1`` holds only that share of them (the rest saturate), so that a kernel
    deflated down to a few large entries still shows the structure of the others."""
    values = np.abs(np.asarray(before, dtype=float))
    values = values[np.isfinite(values)]
    if not values.size:
        return (-1.0, 1.0)
    top = float(np.max(values) if share >= 1 else np.quantile(values, share))
    if top <= 0:
        top = float(np.max(values))
    return (-top, top) if top > 0 else (-1.0, 1.0)


OWN_SCALE_SHARE = 0.99  # a deflated kernel on its own colour scale: the range of 99% of its entries


def heatmap_pair_figure(
    before,
    after,
    *,
    j,
    sort_note="rows and columns sorted by target",
    title=None,
    height=HEIGHT,
    names=("K₀: before deflation", None),
    shared_scale=True,
):
    """Two heatmaps side by side, colours centred at 0 (a deflation that goes negative
    shows in blue): the original kernel and the deflated one at step j.

    ``shared_scale``: one colour scale for both (how much is left); otherwise each panel
    is scaled to its own largest entry (the structure of what is left)."""
    before, after = np.asarray(before), np.asarray(after)
    right = names[1] or after_title(j)
    fig = make_subplots(rows=1, cols=2, subplot_titles=(names[0], right), horizontal_spacing=0.12, figure=_new_figure())
    for note, name in zip(fig.layout.annotations, ("before-title", "after-title")):  # what the steps rename
        note.name = name
    for col, matrix, uid in ((1, before, "kernel-before"), (2, after, "kernel-after")):
        low, high = display_range(before if shared_scale else matrix)
        colorbar = {"title": {"text": "value"}, "thickness": 14}
        if not shared_scale:
            colorbar["x"] = 0.44 if col == 1 else 1.0
        fig.add_trace(
            _trace(
                go.Heatmap,
                uid=uid,
                z=matrix.astype(np.float32),
                zmin=low,
                zmax=high,
                zmid=0.0,
                colorscale=DIVERGING_SCALE,
                zsmooth="fast",
                showscale=col == 2 or not shared_scale,
                colorbar=colorbar,
                hovertemplate="row %{y}, column %{x}: %{z:.3g}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    relayout(
        fig,
        xaxes={"showticklabels": False, "title": {"text": sort_note, "font": {"size": FONT_SIZE - 4}}},
        yaxes={"autorange": "reversed", "showticklabels": False},
        annotations={"font": {"size": FONT_SIZE}},
    )
    return _style(fig, title or "Kernel before and after deflation", height=height, legend=False)


def _finite_or_none(values):
    values = np.asarray(values, dtype=float)
    return [float(v) if np.isfinite(v) else None for v in values]


def primary_bound(curves):
    """The bound a page's lesson is about: the first bound of the curves."""
    return curves.bound_names[0] if curves.bound_names else None


def bound_stop(curves):
    """``(name, t, value)``: where the primary bound is lowest -- the bound-driven stopping
    point (choose the sparsity whose guarantee is best) -- or None."""
    name = primary_bound(curves)
    t = curves.argmin.get(name) if name else None
    if t is None or name in flat_bounds(curves) or not library_bounds.says_something(curves.curves[name]):
        # a bound the same at every step names no step, and one never below 1 guarantees
        # nothing at any (mpcore.bounds.vacuous): nothing to stop at
        return None
    return name, int(t), float(np.asarray(curves.curves[name])[t - 1])


def flat_bounds(curves):
    """Bound names that are trivial and the same at every step (Diethe's bound is 1 until
    the margin pays for the estimation terms): their lowest point is any step."""
    out = []
    for name in trivial_bounds(curves):
        finite = np.asarray(curves.curves[name], dtype=float)
        finite = finite[np.isfinite(finite)]
        if finite.size and np.ptp(finite) == 0:
            out.append(name)
    return out


def trivial_bounds(curves):
    """Bound names that never get below 1: vacuous at every step, they say nothing here
    (:func:`mpcore.bounds.says_something`, the library's one rule)."""
    return [name for name in curves.bound_names if not library_bounds.says_something(curves.curves[name])]


def trivial_note(curves, rescale=None):
    """In words, which bounds never get below 1 here (they guarantee nothing), or None."""
    useless = trivial_bounds(curves)
    if not useless:
        return None
    flat = flat_bounds(curves)
    if flat == useless:
        value = float(np.nanmin(np.asarray(curves.curves[useless[0]], dtype=float)))
        text = f"{_in_words(useless)} {value:.3g} at every step: trivial at every step, no guarantee here"
    else:
        minimum = min(float(np.nanmin(np.asarray(curves.curves[n], dtype=float))) for n in useless)
        text = f"{_in_words(useless)} never below 1 (min {minimum:.3g}): no guarantee here"
    if rescale:
        text += f"; dotted: × {_scaled_name('', rescale).strip(' ×')}, to compare shapes only"
    return text


def _in_words(names):
    """Curve names as a sentence says them: "MPKFDA bound, class -1" after "MPKFDA bound"
    becomes "MPKFDA bound (and its class -1 ...)", not the bound's name three times."""
    first, rest = names[0], names[1:]
    parts = [n[len(first) + 2 :] if n.startswith(first + ", ") else None for n in rest]
    if rest and all(parts):
        return f"{first} (and its {' and '.join(parts)})"
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 2 else " and ".join(names)


def _scaled_name(name, rescale):
    return (
        f"{name} × 1/{round(1 / rescale):g}"
        if rescale and abs(1 / rescale - round(1 / rescale)) < 1e-9
        else f"{name} × {rescale:g}"
    )


SHORT_NAMES = {  # what a curve's label says at its end, where a projector has room for a few words
    "test error rate": "test error",
    "train error rate outside compression set": "train error (outside basis)",
    "train residual outside compression set": "train residual (outside basis)",
    "KPCA train residual": "full KPCA residual",
}


def short_name(name):
    return SHORT_NAMES.get(name, name)


def _label_rank(name, curves):
    """Which curve labels go first when a small chart has no room for all: the held-out
    loss and the first bound (0), the other bounds and correlations (1), the training
    curves (2)."""
    if name == curves.test_name or name == primary_bound(curves):
        return 0
    if name in curves.bound_names or "correlation" in name and "test" in name:
        return 1
    return 2


def log_ticks(values):
    """Ticks of a log axis over ``values``, every label at the axis's font size: one per
    decade (10^k) when the values span two decades or more, else 1, 2 and 5 times the
    powers of ten in between (Plotly's own in-between labels are drawn smaller than the
    rest, too small for a projector)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return {}
    low, high = np.log10(values.min()), np.log10(values.max())
    if high - low >= 2:
        return {"dtick": 1}
    ticks = [m * 10.0**k for k in range(int(np.floor(low)) - 1, int(np.ceil(high)) + 1) for m in (1, 2, 5)]
    ticks = [t for t in ticks if 10 ** (low - 0.15) <= t <= 10 ** (high + 0.15)]
    if len(ticks) < 2:
        ticks = [m * 10.0**k for k in range(int(np.floor(low)) - 1, int(np.ceil(high)) + 1) for m in range(1, 10)]
        ticks = [t for t in ticks if 10 ** (low - 0.15) <= t <= 10 ** (high + 0.15)]
    return {"tickmode": "array", "tickvals": ticks, "ticktext": [f"{t:.3g}" for t in ticks]}


def _log_range(values, pad=0.12):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return None
    return [float(np.log10(values.min())) - pad, float(np.log10(values.max())) + pad]


def bound_figure(
    curves,
    j,
    *,
    log_y=False,
    secondary=(),
    y_title="error / residual",
    secondary_title=None,
    trivial_line=True,
    title=None,
    height=HEIGHT + 40,
    rescale=None,
    running_min=True,
    note_in_plot=True,
):
    """Every curve of a :class:`mpcore.curves.BoundCurves` against t, bounds dashed, the
    lowest point of each curve marked, a vertical line at the current step j and (for
    error rates) a dotted line at 1, above which a bound says nothing.

    ``secondary``: curve names drawn on a right-hand axis (e.g. MSE next to error rates).
    ``running_min``: each bound's running minimum over t (the bound the theorems state
    for "the best of the first t") as a thin solid line.  The primary bound's argmin --
    the bound-driven stopping point -- gets a dotted vertical line.  ``rescale``: also draw
    every bound multiplied by this factor (the papers' x1/5), named with the factor, to
    compare shapes; never instead of the bound.  ``j = 0`` draws no step line (the step
    player draws its own over the chart).
    The linear y range shows every non-bound curve and the minimum of every bound;
    bounds far above that are cut at the top edge (hover still shows the value).  Both
    axes have fixed ranges, so that the step player can draw the curves up to step j
    (``meta.reveal``) without the axes moving; each line is named at its end
    (``meta.label``) and each marker is the lowest point of its line (``meta.min_of``).
    """
    t = np.asarray(curves.t)
    fig = make_subplots(specs=[[{"secondary_y": bool(secondary)}]], figure=_new_figure())
    argmins = curves.argmin
    primary = primary_bound(curves)
    shown, drawn = [], []
    minima = curves.running_min if running_min else {}
    first_min = True
    for number, (name, values) in enumerate(curves.curves.items()):
        colour = CURVE_COLOURS[number % len(CURVE_COLOURS)]
        is_bound = name in curves.bound_names
        on_right = name in secondary
        line_uid = f"curve-{number}"
        fig.add_trace(
            _trace(
                go.Scatter,
                uid=line_uid,
                x=t,
                y=_finite_or_none(values),
                mode="lines",
                name=name,
                legendgroup=name,
                line={
                    "color": colour,
                    "width": 3.5 if is_bound else 2.5,
                    "dash": "dash" if is_bound else ("dot" if on_right else "solid"),
                },
                meta={"label": short_name(name), "reveal": True, "label_rank": _label_rank(name, curves)},
                hovertemplate="t=%{x}: %{y:.4g}<extra>" + name + "</extra>",
            ),
            secondary_y=on_right,
        )
        if not on_right:
            drawn.append(values)
        if is_bound and name in minima:
            fig.add_trace(
                _trace(
                    go.Scatter,
                    x=t,
                    y=_finite_or_none(minima[name]),
                    mode="lines",
                    name="running minimum of a bound",
                    legendgroup="running minimum",
                    showlegend=first_min,
                    line={"color": colour, "width": 1.5},
                    meta={
                        "reveal": True,
                        **({"label": "best bound so far", "label_rank": 3} if name == primary else {}),
                    },
                    opacity=0.8,
                    hovertemplate="t=%{x}: best so far %{y:.4g}<extra>" + name + "</extra>",
                )
            )
            first_min = False
        if is_bound and rescale:
            scaled = np.asarray(values, dtype=float) * rescale
            fig.add_trace(
                _trace(
                    go.Scatter,
                    x=t,
                    y=_finite_or_none(scaled),
                    mode="lines",
                    name=_scaled_name(name, rescale),
                    legendgroup=name,
                    line={"color": colour, "width": 2.5, "dash": "dot"},
                    meta={"label": _scaled_name(short_name(name), rescale), "reveal": True, "label_rank": 2},
                    hovertemplate="t=%{x}: %{y:.4g}<extra>" + _scaled_name(name, rescale) + "</extra>",
                )
            )
            drawn.append(scaled)
            finite = scaled[np.isfinite(scaled)]
            if finite.size:
                shown.append(float(finite.min()))
        best = argmins.get(name) if not name.endswith("correlation") else None  # a correlation's low is no finding
        if best is not None:
            value = float(np.asarray(values)[best - 1])
            fig.add_trace(
                _trace(
                    go.Scatter,
                    x=[best],
                    y=[value],
                    mode="markers",
                    name=f"min of {name}: t={best}",
                    legendgroup=name,
                    showlegend=False,
                    marker={
                        "symbol": "triangle-down" if is_bound else "circle",
                        "size": 15,
                        "color": colour,
                        "line": {"width": 1.5, "color": "#ffffff"},
                    },
                    meta={"min_of": line_uid},
                    hovertemplate=f"lowest {name}<br>t=%{{x}}: %{{y:.4g}}<extra></extra>",
                ),
                secondary_y=on_right,
            )
            if not on_right:
                shown.append(value)
        if not is_bound and not on_right:
            finite = np.asarray(values, dtype=float)
            shown.extend(finite[np.isfinite(finite)].tolist())
    refs = []
    stop = bound_stop(curves)
    if stop is not None:
        refs.append({"shape": "stop", "axis": "x", "text": f"bound's stop t={stop[1]}", "when": "whole"})
        fig.add_shape(
            type="line",
            xref="x",
            yref="paper",
            x0=stop[1],
            x1=stop[1],
            y0=0,
            y1=1,
            name="stop",
            line={"color": OKABE_ITO["green"], "width": 2, "dash": "dot"},
        )
    if trivial_line:
        refs.append({"shape": "trivial", "axis": "y", "text": "trivial above 1", "when": "always"})
        fig.add_shape(
            type="line",
            xref="paper",
            yref="y",
            x0=0,
            x1=1,
            y0=1.0,
            y1=1.0,
            name="trivial",
            line={"color": "#777777", "width": 1.5, "dash": "dot"},
        )
    if j >= 1:
        _step_line(fig, j)
    note = trivial_note(curves, rescale) if trivial_line and note_in_plot else None
    if note:
        fig.add_annotation(
            text=note.replace("; ", "<br>"),
            xref="paper",
            yref="paper",
            x=0.99,
            y=0.99,
            xanchor="right",
            yanchor="top",
            showarrow=False,
            bgcolor="rgba(255,255,255,0.85)",
            font={"size": FONT_SIZE - 4},
            name="trivial",
        )
    left = {}  # the left axis: the errors and the bounds
    if log_y:
        values = np.concatenate(
            [np.ravel(np.asarray(v, dtype=float)) for v in drawn] + ([[1.0]] if trivial_line else [])
        )
        span = _log_range(values)
        left = {"type": "log", "exponentformat": "power", **({"range": span} if span else {}), **log_ticks(values)}
    elif shown:
        top = max(shown) * 1.25
        if trivial_line:
            top = max(top, 1.1)
        left = {"range": [0, top]}
    fig = _style(
        fig,
        title or "Bounds and errors against the number of basis vectors t",
        "t (basis vectors)",
        None,
        height=height,
    )
    changes = {
        "legend": {"font": {"size": FONT_SIZE - 4}, "y": -0.2, "tracegroupgap": 2},
        "meta": {"refs": refs},
        "yaxis": {
            **left,
            "title": {"text": y_title + (" (log)" if log_y else ""), "font": {"size": FONT_SIZE}},
            "tickfont": {"size": FONT_SIZE - 2},
        },
    }
    if t.size:
        changes["xaxis"] = {"range": [0.5, float(t.max()) + 0.5]}
    if secondary:  # make_subplots's second y axis, on the right
        changes["margin"] = {"r": 110}  # room for the right axis's ticks and title
        changes["yaxis2"] = {
            "title": {"text": secondary_title or ", ".join(secondary), "standoff": 12, "font": {"size": FONT_SIZE}},
            "showgrid": False,
            "rangemode": "tozero",
            "tickfont": {"size": FONT_SIZE - 2},
        }
    return relayout(fig, changes)


def _step_line(fig, j):
    """The vertical line at step j, labelled at its top."""
    fig.add_shape(
        type="line",
        xref="x",
        yref="paper",
        x0=j,
        x1=j,
        y0=0,
        y1=1,
        name="step",
        line={"color": "#777777", "width": 2},
        label={
            "text": f"step {j}",
            "textposition": "end",
            "xanchor": "right",
            "yanchor": "top",
            "font": {"size": FONT_SIZE - 2, "color": "#555555"},
            "textangle": 0,
        },
    )


def bound_summary(curves, rescale=None):
    """The curves' minima in words (the caption under a bound plot, for those who
    cannot see it), with the bound-driven stopping point."""
    parts = []
    for name, values in curves.curves.items():
        t = curves.argmin.get(name)
        if t is not None:
            parts.append(f"{name}: min {float(np.asarray(values)[t - 1]):.3g} at t = {t}")
    text = "Minima (markers): " + "; ".join(parts) + "."
    stop = bound_stop(curves)
    if stop is not None:
        text += (
            f" Stopping where the {stop[0]} is lowest gives t = {stop[1]} (green dotted line); thin solid lines "
            "are each bound's running minimum, the guarantee for the best of the first t."
        )
    if rescale:
        text += f" Dotted: every bound × {rescale:g}, to compare shapes only (the papers drew theirs × 1/5)."
    return text + " A bound on an error rate above 1 says nothing."


def residual_figure(coords, residuals, chosen, *, next_pick=None, titles=("x", "y"), title=None, top=None):
    """Sparse KPCA's model at step j: every training point coloured by its residual
    ``||phi(x) - P phi(x)||^2`` (what the chosen points do not yet explain).  ``top``
    fixes the colour scale (pass the largest residual at step 0 so steps compare)."""
    top = float(np.max(residuals)) if top is None else float(top)
    fig = _new_figure(
        _trace(
            go.Scatter,
            uid="residuals",
            x=coords[:, 0],
            y=coords[:, 1],
            mode="markers",
            name="training points",
            marker={
                "color": residuals,
                "colorscale": SEQUENTIAL,
                "size": 10,
                "cmin": 0,
                "cmax": max(top, 1e-12),
                "colorbar": {"title": {"text": "residual"}, "thickness": 14},
            },
            hovertemplate="residual %{marker.color:.3g}<extra></extra>",
        )
    )
    _chosen(fig, coords, chosen, next_pick)
    return _style(fig, title or "Residual of every point after projection on the chosen points", titles[0], titles[1])


def fit_figure(xs, fitted, coords, chosen, *, coords_test=None, titles=("x", "y"), title=None):
    """1-D regression: the data, the fitted function and the chosen basis points."""
    fig = _new_figure()
    fig.add_trace(
        _trace(
            go.Scatter,
            x=coords[:, 0],
            y=coords[:, 1],
            mode="markers",
            name="training points",
            marker={"color": OKABE_ITO["blue"], "size": 8, "opacity": 0.75},
        )
    )
    if coords_test is not None:
        fig.add_trace(
            _trace(
                go.Scatter,
                x=coords_test[:, 0],
                y=coords_test[:, 1],
                mode="markers",
                name="test points",
                marker={"color": OKABE_ITO["sky"], "symbol": "circle-open", "size": 8},
            )
        )
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="fit",
            x=xs,
            y=fitted,
            mode="lines",
            name="fitted function",
            line={"color": OKABE_ITO["vermillion"], "width": 4},
        )
    )
    _chosen(fig, coords, chosen)
    return _style(fig, title or "The fitted function", titles[0], titles[1])


def predicted_figure(y_train, f_train, y_test=None, f_test=None, *, title=None, target_name="target"):
    """Regression with d > 1: predictions against the truth (the diagonal is perfect)."""
    fig = _new_figure()
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="train",
            x=y_train,
            y=f_train,
            mode="markers",
            name="training points",
            marker={"color": OKABE_ITO["blue"], "size": 8, "opacity": 0.75},
        )
    )
    if y_test is not None:
        fig.add_trace(
            _trace(
                go.Scatter,
                uid="test",
                x=y_test,
                y=f_test,
                mode="markers",
                name="test points",
                marker={"color": OKABE_ITO["orange"], "symbol": "diamond", "size": 9},
            )
        )
    values = np.concatenate([np.ravel(y_train), np.ravel(y_test) if y_test is not None else []])
    low, high = float(values.min()), float(values.max())
    fig.add_trace(
        _trace(
            go.Scatter,
            x=[low, high],
            y=[low, high],
            mode="lines",
            name="perfect prediction",
            line={"color": "#777777", "dash": "dot", "width": 2},
        )
    )
    return _style(fig, title or "Predicted against true", f"true {target_name}", f"predicted {target_name}")


def decision_figure(
    xs,
    ys,
    values,
    coords,
    labels,
    chosen,
    *,
    coords_test=None,
    labels_test=None,
    titles=("x1", "x2"),
    class_names=None,
    title=None,
):
    """2-D classification: the classifier's output as a diverging background, its zero
    level (the decision boundary) as a thick line, the points and the chosen ones."""
    values = np.asarray(values, dtype=float)
    top = float(np.nanmax(np.abs(values))) or 1.0
    fig = _new_figure(
        _trace(
            go.Contour,
            uid="decision-value",
            x=xs,
            y=ys,
            z=values,
            zmin=-top,
            zmax=top,
            colorscale=DIVERGING_SCALE,
            opacity=0.45,
            showscale=False,
            contours={"coloring": "fill"},
            ncontours=16,
            name="decision value",
            hoverinfo="skip",
            line={"width": 0},
        )
    )
    fig.add_trace(
        _trace(
            go.Contour,
            uid="decision-boundary",
            x=xs,
            y=ys,
            z=values,
            contours={"start": 0, "end": 0, "size": 1, "coloring": "lines"},
            showscale=False,
            colorscale=[[0, CHOSEN_COLOUR], [1, CHOSEN_COLOUR]],
            line={"width": 4, "color": CHOSEN_COLOUR},
            name="decision boundary",
            showlegend=True,
            hoverinfo="skip",
        )
    )
    _points(fig, coords, labels, class_names=class_names)
    if coords_test is not None:
        _points(fig, coords_test, labels_test, test=True, class_names=class_names)
    _chosen(fig, coords, chosen)
    return _style(fig, title or "Decision boundary", titles[0], titles[1])


def projection_figure(projections, *, title=None):
    """Sparse KCCA: the first canonical variate of view X against that of view Y, training
    and test pairs; a perfectly correlated pair lies on the diagonal."""
    fig = _new_figure()
    (fx, fy), (gx, gy) = projections["train"], projections["test"]
    train_corr, test_corr = projections["correlation"]
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="train-pairs",
            x=fx,
            y=fy,
            mode="markers",
            name=f"training pairs (corr {train_corr:.3f})",
            marker={"color": OKABE_ITO["blue"], "size": 8, "opacity": 0.7},
        )
    )
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="test-pairs",
            x=gx,
            y=gy,
            mode="markers",
            name=f"test pairs (corr {test_corr:.3f})",
            marker={"color": OKABE_ITO["orange"], "symbol": "diamond", "size": 9, "opacity": 0.8},
        )
    )
    values = np.concatenate([fx, fy, gx, gy])
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    fig.add_trace(
        _trace(
            go.Scatter,
            uid="diagonal",
            x=[low, high],
            y=[low, high],
            mode="lines",
            name="f_x = f_y",
            line={"color": "#777777", "dash": "dot", "width": 2},
        )
    )
    return _style(fig, title or "First canonical variates of the two views", "f_x(x): view X", "f_y(y): view Y")


def thumbnail(fig, height=260):
    """A small, legend-free version of a figure for the home page cards."""
    fig.update_layout(
        height=height,
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"font": {"size": FONT_SIZE - 2}},
    )
    fig.update_xaxes(showticklabels=False, title_text=None)
    fig.update_yaxes(showticklabels=False, title_text=None)
    fig.update_traces(marker_showscale=False, selector={"type": "scatter"})
    return fig


def decision_values_figure(values, labels, values_test=None, labels_test=None, *, class_names=None, title=None):
    """Classification in more than two dimensions: the classifier's output per class
    (training filled, test outlined); the boundary is the line at 0."""
    fig = _new_figure()
    for value in (-1.0, 1.0):
        name = _class_name(value, class_names)
        fig.add_trace(
            _trace(
                go.Histogram,
                uid=f"train-{value:+.0f}",
                x=np.asarray(values)[labels == value],
                name=f"{name} (train)",
                opacity=0.6,
                marker={"color": CLASS_COLOURS[value]},
                nbinsx=30,
            )
        )
        if values_test is not None:
            fig.add_trace(
                _trace(
                    go.Histogram,
                    uid=f"test-{value:+.0f}",
                    x=np.asarray(values_test)[labels_test == value],
                    name=f"{name} (test)",
                    marker={"color": "rgba(0,0,0,0)", "line": {"color": CLASS_COLOURS[value], "width": 2.5}},
                    nbinsx=30,
                )
            )
    fig.update_layout(barmode="overlay")
    fig.add_vline(
        x=0, line={"color": CHOSEN_COLOUR, "width": 3}, annotation_text="boundary", annotation_font_size=FONT_SIZE - 2
    )
    return _style(fig, title or "Classifier output per class", "decision value f(x)", "number of points")


# --- labs: several runs side by side -----------------------------------------------------------


def panel_grid(n, max_cols=4):
    """(rows, cols) for n side-by-side panels, at most ``max_cols`` per row."""
    cols = min(n, max_cols)
    return -(-n // cols), cols


def _panel(number, cols):
    return {"row": number // cols + 1, "col": number % cols + 1}


def heatmap_grid_figure(blocks, *, steps, sort_note, scale, title=None, max_cols=4):
    """One heatmap per run (``blocks``: name -> matrix), all on one colour scale
    ``[-scale, scale]`` centred at 0 (blue negative, red positive), with one colour bar.

    ``steps``: name -> the step each panel shows (a run that stopped early stays at its end).
    """
    names = list(blocks)
    rows, cols = panel_grid(len(names), max_cols)
    titles = [f"{name} ({kernel_name(steps[name])})" for name in names]
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if rows > 1 else 0.05,
        figure=_new_figure(),
    )
    for number, name in enumerate(names):
        fig.add_trace(
            _trace(
                go.Heatmap,
                uid=f"kernel-{number}",
                z=np.asarray(blocks[name], dtype=np.float32),
                coloraxis="coloraxis",
                name=name,
                zsmooth="fast",
                hovertemplate=name + "<br>row %{y}, column %{x}: %{z:.3g}<extra></extra>",
            ),
            **_panel(number, cols),
        )
    relayout(
        fig,
        {
            "coloraxis": {
                "colorscale": DIVERGING_SCALE,
                "cmin": -scale,
                "cmax": scale,
                "cmid": 0.0,
                "colorbar": {"title": {"text": "value"}, "thickness": 14},
            }
        },
        xaxes={"showticklabels": False},
        yaxes={"autorange": "reversed", "showticklabels": False, "scaleanchor": None},
        annotations={"font": {"size": FONT_SIZE}},
    )
    fig = _style(fig, title or "Deflated kernels on one colour scale", height=40 + 330 * rows, legend=False)
    relayout(fig, {"margin": {"l": 20, "r": 30, "t": 90, "b": 50}})
    fig.add_annotation(
        text=sort_note,
        xref="paper",
        yref="paper",
        x=0.5,
        y=-0.02,
        yanchor="top",
        showarrow=False,
        font={"size": FONT_SIZE - 4},
    )
    return fig


def chosen_grid_figure(
    coords, labels, chosen, next_picks, *, titles=("x", "y"), class_names=None, title=None, max_cols=4
):
    """The training points once per run, each with that run's chosen points ringed and
    numbered and its next pick starred (``chosen``/``next_picks``: name -> indices / index)."""
    names = list(chosen)
    rows, cols = panel_grid(len(names), max_cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=names,
        horizontal_spacing=0.04,
        vertical_spacing=0.14 if rows > 1 else 0.05,
        figure=_new_figure(),
    )
    coords = np.asarray(coords)
    for number, name in enumerate(names):
        where = _panel(number, cols)
        _points(fig, coords, labels, class_names=class_names, size=6, showscale=False, **where)
        _chosen(fig, coords, chosen[name], next_picks.get(name), show_numbers=len(chosen[name]) <= 10, **where)
    seen = set()
    for trace in fig.data:  # one legend entry per kind of marker, not per panel
        kind = trace.name.split(" (")[0] if trace.name.startswith("chosen") else trace.name
        trace.showlegend = kind not in seen
        trace.legendgroup = kind
        if trace.name.startswith("chosen"):
            trace.name = "chosen points"
        seen.add(kind)
    relayout(
        fig, xaxes={"showticklabels": False}, yaxes={"showticklabels": False}, annotations={"font": {"size": FONT_SIZE}}
    )
    fig = _style(fig, title or "Chosen points per deflation", height=110 + 330 * rows)
    relayout(
        fig,
        {
            "margin": {"l": 20, "r": 20, "t": 90, "b": 40},
            "legend": {"y": -0.04 if rows > 1 else -0.08, "yanchor": "top"},
        },
    )
    fig.add_annotation(
        text=f"axes: {titles[0]} (across), {titles[1]} (up)",
        xref="paper",
        yref="paper",
        x=1,
        y=1.0,
        yanchor="bottom",
        xanchor="right",
        yshift=28,
        showarrow=False,
        font={"size": FONT_SIZE - 4},
    )
    return fig


def lines_figure(
    x,
    series,
    *,
    j=None,
    x_title="k (basis vectors)",
    y_title="test error",
    title=None,
    log_y=False,
    dashed=(),
    markers=True,
    height=HEIGHT,
    spreads=None,
    log_x=False,
    colours=None,
):
    """Several curves against one x (``series``: name -> y values, nan allowed), a vertical
    line at step ``j``; ``dashed`` names are drawn dashed (bounds); ``spreads``: name ->
    (low, high) drawn as a shaded band (the spread over repetitions); ``colours``: name ->
    colour (default: the palette in order)."""
    x = np.asarray(x)
    fig = _new_figure()
    for number, (name, values) in enumerate(series.items()):
        colour = (colours or {}).get(name, CURVE_COLOURS[number % len(CURVE_COLOURS)])
        values = np.asarray(values, dtype=float)
        xs = x[: values.size]
        if spreads and name in spreads:
            low, high = (np.asarray(v, dtype=float) for v in spreads[name])
            fig.add_trace(
                _trace(
                    go.Scatter,
                    x=np.concatenate([xs, xs[::-1]]),
                    y=_finite_or_none(np.concatenate([high, low[::-1]])),
                    fill="toself",
                    fillcolor=_rgba(colour, 0.18),
                    line={"width": 0},
                    mode="lines",
                    hoverinfo="skip",
                    name=f"{name}: spread",
                    legendgroup=name,
                    showlegend=False,
                )
            )
        fig.add_trace(
            _trace(
                go.Scatter,
                x=xs,
                y=_finite_or_none(values),
                mode="lines+markers" if markers else "lines",
                name=name,
                legendgroup=name,
                marker={
                    "size": 7,
                    "color": colour,
                    "symbol": ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon"][
                        number % 8
                    ],
                },
                line={"color": colour, "width": 3, "dash": "dash" if name in dashed else "solid"},
                hovertemplate=f"{x_title.split(' (')[0]}=%{{x}}: %{{y:.4g}}<extra>{name}</extra>",
            )
        )
    if j is not None and j >= 1:
        _step_line(fig, j)
    fig = _style(fig, title or "", x_title, y_title + (" (log)" if log_y else ""), height=height)
    if log_y:
        ys = np.concatenate(
            [np.ravel(np.asarray(v, dtype=float)) for v in series.values()]
            + [np.ravel(np.asarray(v, dtype=float)) for pair in (spreads or {}).values() for v in pair]
        )
        relayout(fig, yaxes={"type": "log", "exponentformat": "power", **log_ticks(ys)})
    if log_x:
        relayout(fig, xaxes={"type": "log", "exponentformat": "power", **log_ticks(x)})
    return fig


def _rgba(hex_colour, alpha):
    value = hex_colour.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def table_figure(
    values,
    row_labels,
    col_labels,
    *,
    title,
    colour_title,
    fmt="{:.3f}",
    lower_is_better=True,
    height=None,
    zrange=None,
    text=None,
):
    """A small table as a heatmap with the numbers written in each cell (large enough for
    a projector); the best cell of each row is outlined.  ``zrange``: (low, high) of the
    colour scale, to put two tables on one scale; ``text``: what to write in the cells
    instead of ``values`` (which then only colour and rank them)."""
    values = np.asarray(values, dtype=float)
    if text is None:
        text = [[("" if not np.isfinite(v) else fmt.format(v)) for v in row] for row in values]
    low, high = zrange if zrange is not None else (None, None)
    fig = _new_figure(
        _trace(
            go.Heatmap,
            z=values,
            x=list(col_labels),
            y=list(row_labels),
            text=text,
            texttemplate="%{text}",
            zmin=low,
            zmax=high,
            textfont={"size": FONT_SIZE - 2},
            colorscale="Blues" if lower_is_better else "Blues_r",
            reversescale=False,
            colorbar={"title": {"text": colour_title}, "thickness": 14},
            hovertemplate="%{y} × %{x}: %{z:.4g}<extra></extra>",
        )
    )
    for r, row in enumerate(values):
        if not np.isfinite(row).any():
            continue
        best = int(np.nanargmin(row) if lower_is_better else np.nanargmax(row))
        fig.add_shape(
            type="rect",
            x0=best - 0.5,
            x1=best + 0.5,
            y0=r - 0.5,
            y1=r + 0.5,
            line={"color": OKABE_ITO["vermillion"], "width": 4},
        )
    relayout(fig, yaxes={"autorange": "reversed"})
    fig = _style(fig, title, None, None, height=height or 160 + 60 * len(row_labels), legend=False)
    longest = max(len(str(label)) for label in row_labels)
    relayout(fig, {"margin": {"l": 30 + 10 * longest, "b": 110}})  # row labels whole, column labels tilted
    return fig


def mark_trivial(fig, xs, *, log_y=False, level=1.0, cap=2.5, label_in_figure=True):
    """Shade the region at or above ``level`` (where a bound on an error rate says nothing)
    and draw a dotted line at it.  On a linear axis the view is cut at ``cap`` when some
    curve comes below it (so the useful part is not squashed by a huge start); returns
    True when it cut.  ``label_in_figure=False``: the line's label is left to the step
    player, which places it where no curve crosses it (``layout.meta.refs``)."""
    values = []
    for trace in fig.data:
        values.extend(v for v in (trace.y or ()) if v is not None)
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    top = max(float(values.max()) if values.size else level, level)
    cut = (not log_y) and values.size > 0 and float(values.min()) < cap < top
    shade_top = top * (10 if log_y else 1.05)
    fig.add_shape(
        type="rect",
        xref="x",
        yref="y",
        x0=float(np.min(xs)),
        x1=float(np.max(xs)),
        y0=level,
        y1=shade_top,
        fillcolor="#999999",
        opacity=0.12,
        line={"width": 0},
        layer="below",
    )
    if label_in_figure:
        fig.add_hline(
            y=level,
            line={"color": "#777777", "width": 1.5, "dash": "dot"},
            annotation_text=f"{level:g}: trivial above",
            annotation_font_size=FONT_SIZE - 4,
            annotation_position="top right",
        )
    else:
        refs = [{"shape": "trivial", "axis": "y", "text": f"trivial above {level:g}", "when": "always"}]
        fig.add_shape(
            type="line",
            xref="paper",
            yref="y",
            x0=0,
            x1=1,
            y0=level,
            y1=level,
            name="trivial",
            line={"color": "#777777", "width": 1.5, "dash": "dot"},
        )
        relayout(fig, {"meta": {"refs": refs}})
    if cut:
        relayout(fig, yaxes={"range": [0, cap]})
    elif not log_y:
        relayout(fig, yaxes={"range": [0, top * 1.05]})
    return cut


def facts_table_figure(header, columns, *, height=None, widths=None):
    """A small table (Plotly's table trace) with a bold header: the deflation lab's facts;
    ``widths``: relative column widths."""
    fig = _new_figure(
        _trace(
            go.Table,
            columnwidth=list(widths) if widths else None,
            header={
                "values": list(header),
                "font": {"size": FONT_SIZE - 5, "color": "#222222"},
                "fill": {"color": "#e8ecf3"},
                "align": "left",
                "height": 30,
            },
            cells={
                "values": columns,
                "font": {"size": FONT_SIZE - 5, "color": "#222222"},
                "align": "left",
                "height": 28,
            },
        )
    )
    fig = _style(fig, "", height=height or 70 + 36 * (len(columns[0]) + 1), legend=False)
    fig.update_layout(margin={"l": 5, "r": 5, "t": 5, "b": 5})
    return fig


def loss_shapes_figure(margins, curves, *, names, title, height=HEIGHT):
    """Losses against the margin m = y f(x) (Vincent and Bengio 2002, Figure 5): ``curves`` by
    name, the ones in ``names`` drawn; the y axis stops at 4 so the bounded losses stay readable
    beside the exponential one."""
    fig = lines_figure(
        margins,
        {name: curves[name] for name in names},
        x_title="margin m = y f(x)",
        y_title="loss",
        title=title,
        markers=False,
        height=height,
    )
    fig.update_yaxes(range=[0, 4])
    fig.add_vline(x=0, line={"color": "#777777", "dash": "dot"})
    return fig
