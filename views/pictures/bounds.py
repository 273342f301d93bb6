"""The bounds explorer's picture: every generalisation bound of the papers as a function of
the sample size m, the sparsity k (or t) and the confidence delta -- no data needed."""

from __future__ import annotations

import functools

import numpy as np

from mpcore.bounds import vacuous
from mpcore.explore import EXPLORER_BOUNDS, KNOBS, explore, grid
from views import figures
from views import steps as steps_ui
from views.controls import Control
from views.pictures.common import Picture
from views.pictures.settings import Settings

PAGE = "bounds"
NONE = "(none)"
M_VALUES = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
DELTA_VALUES = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5)
KNOB_ORDER = ("m", "delta", "k", "t", "emp_loss", "R", "decay", "c", "margin", "variance")
# Counts for k, t and the axis's end: a slider over 0..999 cannot be set to 10 with a mouse.
COUNTS = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    15,
    20,
    25,
    30,
    40,
    50,
    60,
    80,
    100,
    120,
    150,
    200,
    250,
    300,
    400,
    500,
    600,
    800,
    1000,
    1200,
    1500,
    2000,
)
LOG_CAP = 2.5  # a linear axis is cut here (mark_trivial); a bound above it everywhere needs the log axis
BOUND = Control(
    "bound",
    "kmp_vc",
    str,
    options=tuple(EXPLORER_BOUNDS),
    widget="selectbox",
    label="Bound",
    names=tuple((name, spec.title) for name, spec in EXPLORER_BOUNDS.items()),
    help="Which theorem to plot (Hussain et al. 2011, Thms 2, 4, 6, 7, 8; Diethe 2015, Thm 1).",
)


def _vary(bound):
    spec = EXPLORER_BOUNDS[bound]
    return Control(
        "vary",
        spec.variables[0],
        str,
        options=spec.variables,
        widget="radio",
        label="Along",
        scope=f"{PAGE}:{bound}",
        names=tuple((name, KNOBS[name].label) for name in spec.variables),
        help="The knob on the x axis; the others stay at their sliders' values.",
    )


def _overlay(bound, vary):
    others = tuple(NONE if n == bound else n for n in EXPLORER_BOUNDS if n == bound or vary in EXPLORER_BOUNDS[n].knobs)
    return Control(
        "overlay",
        NONE,
        str,
        options=others,
        widget="selectbox",
        label="Overlay a second bound",
        widget_key=f"w:overlay:{bound}:{vary}",
        names=tuple((n, n if n == NONE else EXPLORER_BOUNDS[n].title) for n in others),
        help="Draw another bound that depends on the same knob on the same axes, with the same "
        "knob values (bounds of an error rate and of a residual are different quantities).",
    )


def _knob(name, vary, m):
    """The control of knob ``name`` (``m``: the sample size chosen, which caps the counts)."""
    knob = KNOBS[name]
    shared = {
        "label": knob.label + (" (on the x axis)" if name == vary else ""),
        "help": knob.help,
        "disabled": name == vary,
    }
    if name == "m":
        return Control("m", 1000, int, options=M_VALUES, widget="select_slider", **shared)
    if name == "delta":
        return Control("delta", 0.05, float, options=DELTA_VALUES, widget="select_slider", **shared)
    if knob.integer:
        top = max(1, min(int(knob.hi), int(m) - 1))
        counts = tuple(c for c in COUNTS if c <= top)
        default = min(int(knob.default), counts[-1])
        return Control(name, default, int, options=counts, nearest=True, widget="select_slider", **shared)
    step = 0.01 if knob.hi <= 5 else 1.0
    return Control(name, float(knob.default), float, lo=knob.lo, hi=knob.hi, widget="slider", step=step, **shared)


def _log_x(vary):
    return Control(
        "logx",
        vary in ("m", "delta"),
        bool,
        widget="toggle",
        label="Log x axis",
        scope=f"{PAGE}:{vary}",
        help="A log axis shows small and large values of the knob together.",
    )


def _span(vary, ends):
    """The largest count shown along ``vary`` (k or t), one of ``ends``."""
    return Control(
        f"{vary}max",
        min(200, ends[-1]),
        int,
        options=ends,
        nearest=True,
        widget="select_slider",
        label=f"Largest {vary} shown",
        help="The x axis runs from 0 to this value.",
    )


def _log_y(bound, overlay, default):
    return Control(
        "logy",
        default,
        bool,
        widget="toggle",
        label="Log y axis",
        group="axes",
        scope=f"{PAGE}:{bound}:{overlay}",
        help="A log axis shows loose bounds (far above 1) next to tight ones.",
    )


#: Every control the page may read (the knobs as when none is on the x axis).
CONTROLS = (
    BOUND,
    _vary(BOUND.default),
    _overlay(BOUND.default, _vary(BOUND.default).default),
    _log_x("m"),
    *(_knob(name, None, 1000) for name in KNOB_ORDER),
    *(_span(vary, COUNTS) for vary in ("k", "t")),
    _log_y(BOUND.default, NONE, False),
)


def read(address):
    """The page's :class:`Settings` from its controls (``address``: a link or the widgets).
    The bounds are cheap, so the default of the log y axis -- on when a curve is above the
    linear axis's cut everywhere -- is read from the curves themselves."""
    address.header("Bound")
    bound = address.get(BOUND)
    vary = address.get(_vary(bound))
    overlay = address.get(_overlay(bound, vary))
    log_x = address.get(_log_x(vary))
    address.reserve("axes")  # the log y toggle, drawn once the curves say whether it is needed
    address.header("Knobs")
    spec = EXPLORER_BOUNDS[bound]
    used = [n for n in KNOBS if n in spec.knobs or (overlay != NONE and n in EXPLORER_BOUNDS[overlay].knobs)]
    values = {}
    for name in KNOB_ORDER:
        if name in used:
            values[name] = address.get(_knob(name, vary, values.get("m", 1000)))
    if vary in ("k", "t"):
        ends = tuple(c for c in COUNTS if 1 <= c <= max(1, int(values["m"]) - 1)) or (1,)
        span = address.get(_span(vary, ends))
        xs = grid(vary, 0, span, n=min(span + 1, 200))
    else:
        xs = grid(vary)
    study = {"bound": bound, "vary": vary, "xs": tuple(np.asarray(xs).tolist()), "overlay": overlay, **values}
    lowest = [float(np.nanmin(ys)) for ys in _curves(study).values() if np.isfinite(ys).any()]
    log_y = address.get(
        _log_y(bound, overlay, bound == "pca_local_rademacher" or (bool(lowest) and max(lowest) > LOG_CAP))
    )
    return Settings.of(PAGE, None, None, study, log_x=log_x, log_y=log_y)


def knob_values(settings):
    """The knobs' values (everything but what is drawn), as :func:`mpcore.explore.explore` takes them."""
    return {name: value for name, value in settings.study if name in KNOBS}


@functools.lru_cache(maxsize=128)
def _curve(name, vary, xs, values):
    """One bound along the axis (kept: the page reads its curves twice a run, and moving a
    knob back and forth asks for the same ones again); read-only."""
    ys = explore(name, vary, np.asarray(xs), **dict(values))
    ys.flags.writeable = False
    return ys


def _curves(study):
    values = tuple(sorted((name, value) for name, value in study.items() if name in KNOBS))
    names = [study["bound"]] + ([study["overlay"]] if study["overlay"] != NONE else [])
    return {EXPLORER_BOUNDS[name].title: _curve(name, study["vary"], study["xs"], values) for name in names}


def compute(settings):
    """The curves ``settings`` draw: ``{bound's title: values along the axis}``."""
    return _curves(settings.options)


def draw(settings, series):
    """What the page shows of the curves ``series`` at ``settings``."""
    study = settings.options
    vary, xs = study["vary"], np.asarray(study["xs"])
    log_x, log_y = settings.shown("log_x"), settings.shown("log_y")
    knob = KNOBS[vary]
    word = knob.label.split(" (")[0]
    fixed = fixed_values(settings)

    def at_step(j):
        """The story of step j: each bound's value where the step line is."""
        parts = []
        for title, ys in series.items():
            value = ys[j]
            verdict = (
                "not defined here"
                if not np.isfinite(value)
                else "1 or more: trivial here"
                if vacuous(value)
                else "below 1: it says something"
            )
            parts.append(f"{title} = **{value:.3g}** ({verdict})" if np.isfinite(value) else f"{title}: {verdict}")
        return f"**{word} = {xs[j]:g}.** " + "; ".join(parts) + "."

    def build():
        fig = figures.lines_figure(
            xs,
            series,
            x_title=knob.label,
            y_title="bound",
            markers=False,
            log_y=log_y,
            log_x=log_x,
            dashed=tuple(series)[1:],
        )
        cut = figures.mark_trivial(fig, xs, log_y=log_y, cap=LOG_CAP, label_in_figure=False)
        positive = np.asarray(xs, dtype=float)[np.asarray(xs, dtype=float) > 0]
        ends = (
            np.log10([positive[0], positive[-1]])
            if log_x and positive.size > 1
            else np.array([xs[0], xs[-1]], dtype=float)
        )
        pad = 0.03 * (ends[1] - ends[0])  # the first x tick clear of the lowest y tick at the corner
        fig.update_xaxes(range=[float(ends[0] - pad), float(ends[1] + pad)])
        n = len(xs) - 1
        panel = steps_ui.lines_panel(
            "bound",
            "bound",
            f"Bound against {knob.label}",
            fig,
            n,
            caption=(
                "The y axis is cut at 2.5 so the part below 1 is visible; switch on the log y axis to see all of it."
                if cut
                else ""
            )
            + f" Fixed: {fixed}.",
        )
        panel.span, panel.step_x = (9, 9), [float(x) for x in xs]
        panel.step_text = [f"{word} = {x:g}" for x in xs]
        return {
            "panels": [panel],
            "stories": [at_step(j) for j in range(n + 1)],
            "slider_help": f"Step along the x axis: the story reads each bound at that {word}.",
        }

    return Picture(len(xs) - 1, build(), crossing(xs, next(iter(series.values()))))


def crossing(xs, ys):
    """Where a bound crosses 1 along the axis, as lessons quote it: ``crossing_step``, the
    first step at which it is on the other side of 1 from the step before (-1: it never
    crosses), and ``crossing``, the knob's value there (nan when it never crosses)."""
    values = np.asarray(ys, dtype=float)
    for j in range(1, len(values)):
        if np.isfinite(values[j - 1]) and np.isfinite(values[j]) and vacuous(values[j - 1]) != vacuous(values[j]):
            return {"crossing_step": j, "crossing": float(xs[j])}
    return {"crossing_step": -1, "crossing": float("nan")}


def fixed_values(settings):
    """The knobs not on the axis, as a sentence names them."""
    vary = settings.options["vary"]
    values = knob_values(settings)
    return ", ".join(f"{KNOBS[n].label.split(' (')[0]} = {values[n]:g}" for n in values if n != vary)
