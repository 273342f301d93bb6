"""The step player's payload: all steps of a study sent to the browser once, and stepped there.

A page computes its study (cached), describes its panels (a base Plotly figure each,
plus per step a small *patch*: the trace arrays, titles and step marker that change)
and mounts it (:func:`ui.component.show`, the Streamlit side; this module never imports
Streamlit: the export and the tests write the same payload).  Next/Back, the slider, the keys (left/right, space, Home),
play/pause with its speed, the URL's ``step`` and the optional transition all run in
the browser (the player's modules, ``static/player/``): a step costs the server nothing and every panel of a
step changes together.

Why a custom component (Streamlit's components v2, ES modules, no build step) driving
Plotly.js, and not one Plotly figure with animation frames: the panels are separate
figures in a grid that must fit a projector, the URL must follow the step shown, the
keys must work wherever the focus is, and pause must stop on the step on screen --
Plotly's own slider and play button do none of that.  Plotly.js is a partial bundle of
the plotly package's own version holding only the traces the player draws
(``PLAYER_TRACES``; ``static/plotly-player.min.js``, rebuilt by
``tools/plotly_bundle/build.sh``), served from the app's static folder (the browser
caches it) and carried inside saved demos: a third of the full bundle's size and of its
start-up, stepping as quick (the performance page).

Payload: arrays go as base64 typed arrays (Plotly's ``{dtype, bdata}`` spec), kernel
heatmaps as 8 bits per cell on the panel's colour range (hover values are then exact
to 1/254 of the range), and heatmaps are thinned so that a study's payload stays near
``HEAT_BUDGET`` bytes however many steps it has.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from views.figures import DARK_INK, EXPORT_CONFIG, key_items

ROOT = Path(__file__).resolve().parent.parent
PLOTLY_BUNDLE = Path(__file__).resolve().parent.parent / "static" / "plotly-player.min.js"
PLOTLY_FILE = PLOTLY_BUNDLE.name
#: The player's ES modules, one concern each (``streamlit.js`` its entry in the app,
#: ``standalone.js`` in a saved page), served by Streamlit's static serving and the app's
#: routes, and carried inside saved pages.
PLAYER_DIR = ROOT / "static" / "player"
#: The payload's JSON Schema: what this module writes and the player reads, written down once.
SCHEMA = Path(__file__).resolve().parent / "payload.schema.json"
#: The player's stylesheet, the same in the app's component and in a saved page.
STYLE = Path(__file__).resolve().parent / "player.css"
#: The payload's version (the schema's): the player refuses another with a sentence.
PAYLOAD_VERSION = json.loads(SCHEMA.read_text())["properties"]["version"]["const"]
#: What a panel can be (the schema's ``role``), in the order presenter mode shows them.
ROLES = tuple(json.loads(SCHEMA.read_text())["$defs"]["role"]["enum"])
# The trace types the bundle holds (tools/plotly_bundle/entry.js); a panel with any other
# is refused when its payload is made, so a new chart cannot draw nothing in the browser.
PLAYER_TRACES = frozenset({"scatter", "scattergl", "heatmap", "contour", "histogram"})
HEAT_BUDGET = 1_600_000  # bytes of heatmap cells per study (8-bit cells, all steps)
MAX_HEAT = 200


def plotly_url():
    """The URL path of the player's plotly.js bundle (``static/``, served by
    ``server.enableStaticServing``; a link to the package's own copy, nothing written at
    run time), naming its content: a browser keeps the file until the bundle changes."""
    return f"app/static/{PLOTLY_FILE}?v={_bundle_digest()}"


@functools.lru_cache(maxsize=1)
def _bundle_digest():
    return hashlib.sha1(PLOTLY_BUNDLE.read_bytes()).hexdigest()[:12]


def bundle_version():
    """The plotly.js version of the player's bundle (from its banner)."""
    with PLOTLY_BUNDLE.open(encoding="utf-8") as handle:
        found = re.search(r"plotly\.js v([0-9][0-9.]*)", handle.read(300))
    return found.group(1) if found else "unknown"


# --- encoding ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreRow:
    """A criterion panel's trace at a step: ``values``, which are row ``row`` of the
    study's criterion scores at the training points ``columns``.  The payload carries
    every row once (for "predict the next pick"), so the panel's frames refer to it
    instead of sending the same numbers again (a third of a KMP lesson's payload)."""

    row: int
    columns: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class Quantized:
    """A matrix sent as 8-bit codes on ``[lo, hi]`` (255 marks a missing cell)."""

    values: np.ndarray
    lo: float
    hi: float


def _typed(array):
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "f":
        array, dtype = array.astype(np.float32), "f4"
    elif array.dtype.kind in "iub":
        array, dtype = array.astype(np.int32), "i4"
    else:
        return [encode(item) for item in array.tolist()]
    spec = {"dtype": dtype, "bdata": base64.b64encode(array.tobytes()).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = list(array.shape)
    return spec


def _quantized(item):
    values = np.asarray(item.values, dtype=float)
    span = item.hi - item.lo if item.hi > item.lo else 1.0
    codes = np.clip(np.rint((values - item.lo) / span * 254), 0, 254)
    codes = np.where(np.isfinite(values), codes, 255).astype(np.uint8)
    return {
        "q8": base64.b64encode(codes.tobytes()).decode("ascii"),
        "lo": float(item.lo),
        "hi": float(item.lo + span),
        "shape": list(values.shape),
    }


# --- a heatmap's steps as changes ---------------------------------------------------------
#
# A deflation changes the kernel by a matrix of rank one or two (K <- K - tau w^T), so a
# heatmap's step j is sent as step j-1 plus two thin factors: a 130 x 130 kernel's step is
# then 1 KB instead of 17 KB of 8-bit cells, and a study's heatmaps shrink from most of its
# payload to a small part of it.  What the browser rebuilds is checked here against the
# true matrix, to a quarter of an 8-bit level of the step's colour range (closer than the
# half level of 8-bit cells); a change that is not of low rank goes as 8-bit cells.

#: The largest rank of a change sent as factors: above it, factors cost more than cells.
CHANGE_RANK = 6


def _float32(values):
    return np.asarray(values, dtype=np.float32)


def _factors(change, tolerance):
    """``(U, W)`` in float32, ``U @ W`` within ``tolerance`` of ``change`` in every cell,
    of rank at most :data:`CHANGE_RANK` and cheaper than 8-bit cells; or None.

    Gaussian elimination with complete pivoting stopped early (a cross approximation):
    each step takes out the residual's largest cell's row and column, so a change of rank
    one is exact after one step, and the stopping test is the very bound we need (the
    largest cell left); an SVD would cost a hundred times more for the same factors."""
    n, m = change.shape
    if not np.all(np.isfinite(change)):
        return None
    rank = min(CHANGE_RANK, n, m, n * m // (4 * (n + m)))  # 4 bytes a factor entry, 1 a cell
    residual = np.array(change, dtype=float)
    columns, rows = [], []
    while True:
        flat = int(np.argmax(np.abs(residual)))
        i, j = divmod(flat, m)
        if abs(residual[i, j]) <= tolerance / 2:
            break
        if len(columns) == rank:
            return None  # not of low rank (or not worth it): 8-bit cells
        column, row = residual[:, j] / residual[i, j], residual[i, :].copy()
        residual -= np.outer(column, row)
        columns.append(column)
        rows.append(row)
    U = _float32(np.array(columns).T.reshape(n, len(columns)))
    W = _float32(np.array(rows).reshape(len(rows), m))
    if np.max(np.abs(U.astype(float) @ W.astype(float) - change), initial=0.0) > tolerance / 2:
        return None  # float32 rounding took it past the bound
    return U, W


def _rebuilt(previous, factors):
    """The matrix the browser holds after adding ``U @ W`` to ``previous`` (float32)."""
    U, W = factors
    return _float32(previous.astype(float) + U.astype(float) @ W.astype(float))


def _tolerance(item):
    return (item.hi - item.lo) / 254 / 4 if item.hi > item.lo else 1 / 254 / 4


def as_changes(frames, start=None):
    """``frames`` with every run of :class:`Quantized` matrices of one trace attribute
    (a heatmap's ``z`` from step to step) sent as changes where that is smaller: the first
    as float32 cells, each next one as ``{"change": {"u", "w"}}`` -- add ``u @ w`` to the
    attribute's value in the last frame that had it, or in the base figure (``start``:
    ``{(trace, attribute): float32 matrix}``) before the first (``resolveChanges`` in
    ``static/player/decode.js``)."""
    held = dict(start or {})  # (trace, attribute) -> what the browser holds (float32), None: 8-bit cells
    out = []
    spots = [
        (index, trace, name)
        for index, frame in enumerate(frames)
        for trace, attrs in ((frame.get("data") or {}) if isinstance(frame, dict) else {}).items()
        for name, value in attrs.items()
        if isinstance(value, Quantized)
    ]
    following = {}  # spot -> the next spot of the same (trace, attribute)
    last = {}
    for spot in reversed(spots):
        following[spot] = last.get(spot[1:])
        last[spot[1:]] = spot
    changes, looked = {}, {}  # looked: spot -> its factors, found when looking ahead to it
    for spot in spots:
        index, trace, name = spot
        item = frames[index]["data"][trace][name]
        values = np.asarray(item.values, dtype=float)
        before = held.get((trace, name))
        factors = looked.pop(spot, None)
        if factors is None and before is not None and before.shape == values.shape:
            factors = _factors(values - before, _tolerance(item))
        if factors is not None:
            changes[spot] = {"change": {"u": factors[0], "w": factors[1]}}
            held[(trace, name)] = _rebuilt(before, factors)
            continue
        after = following[spot]
        exact = _float32(values)
        if after is not None and np.all(np.isfinite(values)):
            nxt = frames[after[0]]["data"][trace][name]
            nxt_values = np.asarray(nxt.values, dtype=float)
            ahead = _factors(nxt_values - exact, _tolerance(nxt)) if nxt_values.shape == values.shape else None
            if ahead is not None:
                looked[after] = ahead  # the next spot's change from these cells
                changes[spot] = exact  # float32 cells: the next steps build on them
                held[(trace, name)] = exact
                continue
        held[(trace, name)] = None  # 8-bit cells: too coarse to build on
    for index, frame in enumerate(frames):
        data = frame.get("data") if isinstance(frame, dict) else None
        if not data or not any((index, trace, name) in changes for trace in data for name in data[trace]):
            out.append(frame)
            continue
        patched = {
            trace: {name: changes.get((index, trace, name), value) for name, value in attrs.items()}
            for trace, attrs in data.items()
        }
        out.append({**frame, "data": patched})
    return out


GL_POINTS = 150


def _length(values):
    if isinstance(values, dict) and "bdata" in values:
        return len(base64.b64decode(values["bdata"])) // int(values["dtype"][1:])
    return len(values) if isinstance(values, (list, tuple)) else 0


def encode(value):
    """Plain JSON values, with numpy arrays as typed-array specs and :class:`Quantized`
    matrices as 8-bit codes."""
    if isinstance(value, Quantized):
        return _quantized(value)
    if isinstance(value, np.ndarray):
        return _typed(value)
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _matrices(fig):
    """``{(trace uid, "z"): float32 matrix}`` of a figure's 2-D ``z`` arrays, as the browser
    holds them (the base figure goes as float32: :func:`_single_precision`)."""
    out = {}
    for trace in getattr(fig, "data", ()) or ():
        z = getattr(trace, "z", None)
        if z is not None and np.ndim(z) == 2 and trace.uid is not None:
            out[(trace.uid, "z")] = _float32(z)
    return out


def _score_rows(frames, scores, columns):
    """``frames`` with each :class:`ScoreRow` that matches ``scores`` as a reference
    ``{"score_row": row, "columns": k}`` (``columns[k]``: its training points, each set
    listed once in ``columns``), and any other as its values."""
    known = {}

    def swap(value):
        if isinstance(value, ScoreRow):
            if scores is None or not 0 <= value.row < len(scores):
                return value.values
            row = np.asarray(scores[value.row], dtype=np.float32)[value.columns]
            if not np.array_equal(row, _float32(value.values), equal_nan=True):
                return value.values
            key = (value.columns.size, value.columns.tobytes())
            if key not in known:
                known[key] = len(columns)
                columns.append(np.asarray(value.columns, dtype=np.int32))
            return {"score_row": int(value.row), "columns": known[key]}
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    return swap(frames)


def _single_precision(value):
    """A Plotly figure's float64 arrays as float32 (half the bytes; 7 digits are more
    than a chart or its hover shows)."""
    if isinstance(value, dict):
        if value.get("dtype") == "f8" and isinstance(value.get("bdata"), str):
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.float64)
            return {**value, "dtype": "f4", "bdata": base64.b64encode(array.astype(np.float32).tobytes()).decode()}
        return {key: _single_precision(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_single_precision(item) for item in value]
    return value


# --- panels ------------------------------------------------------------------------------


@dataclass
class Panel:
    """One chart of the player.

    ``figure``: the base Plotly figure (its own title and legend are dropped: the player
    writes ``title`` above the chart, where it wraps instead of being cut, and a one-line
    key of its traces' markers and lines under it; lines named in their ``meta.label``
    are labelled at their end instead); ``frames``: per step
    ``{"data": {trace uid: {"a.b": value}}, "layout": {"a.b": value}, "title": str}``, each
    patched trace named by its ``uid`` in the figure, each annotation or shape a layout
    path changes by its ``name`` (``"annotations.after-title.text"``), never by position;
    ``role``: what the panel is, one of :data:`ROLES` (``data`` the points and the
    chosen ones, ``criterion`` the score of each candidate, ``bound`` error and bounds
    against the step, ``kernel`` the kernel before and after deflation, ``model`` what the
    chosen points fit, ``curve`` another quantity against the step, ``facts`` a table):
    the scrolling layout shows panels in the payload's order, presenter mode one of each
    role first, in that order, then the second of each (a second view's data and kernel),
    and so on, as many per screen as fit at the text size, the rest a key away;
    ``presenter``: shown in presenter mode; ``span``: columns x rows of the presenter's
    grid it takes (heatmap pairs two columns, the bound two rows);
    ``hide_when_predicting``: the uids of the traces hidden until a student has guessed;
    ``guess``: clicks here are guesses; ``step_line``: the player draws a vertical line at
    x = j over the chart (an HTML overlay: moving a Plotly shape costs a full redraw, a
    div costs nothing), at ``step_x[j]`` when given, tagged ``step_text[j]``;
    ``subtitle``: a line under the title (e.g. "this bound never gets below 1"), shown in
    presenter mode too; ``key_items``: the key under the title (default: from the
    figure's traces, :func:`views.figures.key_items`); ``table``: an HTML table instead of
    a figure, ``{"header": [...], "row_help": [...]}``, each frame holding its ``rows``
    (a row's first cell names it, its help is the tooltip);
    ``margin``: the chart's margins before its axes push them out for their labels;
    ``rings``: the chosen points and the next pick, as :func:`views.steps.rings` specs (the
    player draws them as layout shapes; a star is hidden while a student predicts).
    """

    key: str
    role: str
    title: str
    figure: object
    frames: list = field(default_factory=list)
    caption: str = ""
    height: int = 420
    animate: bool = False
    hide_when_predicting: tuple = ()
    guess: bool = False
    presenter: bool = True
    step_line: bool = False
    subtitle: str = ""
    span: tuple = (1, 1)
    key_items: list | None = None
    step_x: list | None = None
    step_text: list | None = None
    table: dict | None = None
    margin: dict | None = None
    rings: list = field(default_factory=list)

    def _check_names(self):
        """Every trace a frame patches, a prediction hides or a marker follows is named by a
        ``uid`` of the figure's (views/figures.py names them): never by its position."""
        traces = list(getattr(self.figure, "data", ()) or ())
        uids = [trace.uid for trace in traces if trace.uid is not None]
        if len(set(uids)) != len(uids):
            raise ValueError(f"panel {self.key!r}: two traces share a uid ({uids})")
        named = set(uids)
        wanted = {trace for frame in self.frames for trace in (frame.get("data") or {})}
        wanted |= set(self.hide_when_predicting)
        wanted |= {(trace.meta or {}).get("min_of") for trace in traces if isinstance(trace.meta, dict)} - {None}
        unknown = sorted(map(str, wanted - named))
        if unknown:
            raise ValueError(
                f"panel {self.key!r} addresses traces its figure does not name (uid): {', '.join(unknown)}"
            )
        self._check_layout_names()

    def _check_layout_names(self):
        """Annotations and shapes the frames change, and the shapes the reference lines label
        (``layout.meta.refs``), are named by their ``name``, once in the figure: never by
        their position."""
        layout = getattr(self.figure, "layout", None)
        named = {
            kind: [item.name for item in (getattr(layout, kind, None) or ())] for kind in ("annotations", "shapes")
        }
        meta = layout.meta if layout is not None and isinstance(layout.meta, dict) else {}
        wanted = {("shapes", ref["shape"]) for ref in meta.get("refs", ())}
        for frame in self.frames:
            for path in frame.get("layout") or {}:
                kind, _, rest = path.partition(".")
                if kind in named:
                    wanted.add((kind, rest.split(".")[0]))
        unknown = sorted(f"{kind}.{name}" for kind, name in wanted if named[kind].count(name) != 1)
        if unknown:
            raise ValueError(
                f"panel {self.key!r} addresses annotations or shapes its figure does not name once: "
                + ", ".join(unknown)
            )

    def as_dict(self, scores=None):
        """The panel as the player reads it; ``scores``: the payload's criterion rows, which
        :class:`ScoreRow` values in the frames refer to (they are sent whole without it)."""
        if self.role not in ROLES:
            raise ValueError(f"panel {self.key!r}: role {self.role!r} is none of {', '.join(ROLES)}")
        self._check_names()
        columns = []
        frames = _score_rows(as_changes(self.frames, _matrices(self.figure)), scores, columns)
        out = {
            "key": self.key,
            "role": self.role,
            "presenter": self.presenter,
            "title": self.title,
            "figure": None,
            "frames": encode(frames),
            "caption": self.caption,
            "height": self.height,
            "animate": self.animate,
            "hide_when_predicting": list(self.hide_when_predicting),
            "step_line": self.step_line,
            "subtitle": self.subtitle,
            "span": list(self.span),
        }
        if self.figure is not None:
            base = _single_precision(json.loads(self.figure.to_json()))
            for trace, drawn in zip(base["data"], self.figure.data):  # plotly's JSON leaves uids out
                if drawn.uid is not None:
                    trace["uid"] = drawn.uid
            layout = base["layout"]  # the panel's title and key are the player's, outside the chart
            layout.pop("template", None)
            layout.update(title=None, showlegend=False)
            layout["margin"] = {**layout.get("margin", {}), "l": 10, "r": 12, "t": 12, "b": 10, **(self.margin or {})}
            # the toolbar a hover shows at the top right never covers a title or note
            layout["margin"]["t"] = max(layout["margin"]["t"], _room_at_the_top(layout, self.frames))
            unknown = {trace.get("type", "scatter") for trace in base["data"]} - PLAYER_TRACES
            if unknown:
                raise ValueError(
                    f"panel {self.key!r} draws {', '.join(sorted(unknown))}, which the player's "
                    f"plotly.js bundle lacks (tools/plotly_bundle/entry.js)"
                )
            for trace in base["data"]:  # big point clouds on WebGL: an SVG redraw of thousands of markers is slow
                if (
                    trace.get("type") == "scatter"
                    and trace.get("mode") == "markers"
                    and _length(trace.get("x")) > GL_POINTS
                ):
                    trace["type"] = "scattergl"
                if isinstance(trace.get("marker"), dict) and "colorscale" in trace["marker"]:
                    trace["marker"]["showscale"] = False  # the key line says what the colours mean
            out["figure"] = base
            out["key_items"] = key_items(self.figure) if self.key_items is None else self.key_items
        else:
            out["key_items"] = self.key_items or []
        for name in ("step_x", "step_text", "table"):
            if getattr(self, name) is not None:
                out[name] = encode(getattr(self, name))
        if self.rings:
            out["rings"] = encode(self.rings)
        if columns:
            out["columns"] = encode(columns)
        if self.guess:
            out["guess_trace"] = True
        return out


#: The height (px) of Plotly's toolbar, which a hover shows at a chart's top right.
TOOLBAR_HEIGHT = 30


def _room_at_the_top(layout, frames=()):
    """The top margin (px, at 100 % text) that puts each title or note the chart writes at
    its top -- a subplot's title above its plot, a note in its top tenth -- below the
    toolbar, each of its lines (the most any step writes: ``frames``) at 1.3 times its
    font's size; 0 when it writes none.  At a larger text size the margins and fonts grow
    together and the toolbar does not."""
    default = ((layout.get("annotationdefaults") or {}).get("font") or {}).get("size") or 16
    room = 0
    for note in layout.get("annotations") or ():
        if str(note.get("yref", "")).endswith("paper") and float(note.get("y", 0) or 0) >= 0.9:
            size = (note.get("font") or {}).get("size") or default
            texts = [note.get("text", "")] + [
                (frame.get("layout") or {}).get(f"annotations.{note.get('name')}.text", "") for frame in frames
            ]
            lines = max(str(text).count("<br>") for text in texts) + 1
            room = max(room, TOOLBAR_HEIGHT + round(1.3 * size * lines))
    return room


def payload(
    page,
    key,
    n_steps,
    panels,
    stories,
    *,
    stories_hidden=None,
    marks=(),
    picks=None,
    scores=None,
    coords=None,
    pick_max=True,
    slider_help=None,
):
    """The JSON text the player gets: everything to draw every step of one study, however
    it is shown (presenter mode and the text size are applied in the browser, so one
    payload serves every display).

    ``key``: anything that identifies the study (its hash is the payload's id: the
    browser keeps the step it shows while the id is unchanged);
    ``stories``: one plain-text line per step (``**bold**`` allowed, never HTML);
    ``marks``: ``(label, short label, step, help)`` jump buttons; ``picks``/``scores``/``coords``:
    what "predict the next pick" needs (the winners, the criterion rows, the 2-D view).
    What changes between reruns of the same study -- the step, the lesson line, the
    display -- is not in it (:func:`with_step` adds it).
    """
    digest = hashlib.sha1(repr((page, key)).encode()).hexdigest()[:16]
    body = {
        "version": PAYLOAD_VERSION,
        "id": digest,
        "page": page,
        "n_steps": int(n_steps),
        "plotly_url": plotly_url(),
        "config": EXPORT_CONFIG,
        "stories": list(stories),
        "slider_help": slider_help,
        "ink": DARK_INK,
        "panels": [panel.as_dict(None if picks is None else scores) for panel in panels],
        "marks": [
            {"label": label, "short": short, "step": int(t), "help": help_text} for label, short, t, help_text in marks
        ],
    }
    if stories_hidden is not None:
        body["stories_hidden"] = list(stories_hidden)
    if picks is not None:
        body.update(
            predict=True,
            picks=[int(i) for i in picks],
            scores=encode(np.asarray(scores, dtype=float)),
            coords=encode(np.asarray(coords, dtype=float)),
            pick_max=bool(pick_max),
        )
    return json.dumps(body, separators=(",", ":"), allow_nan=False)


def with_step(text, step, lesson=None, present=False, text_scale=1.0, address=None):
    """The payload ``text`` with what changes between reruns of the same study: the step
    to show (0 .. n_steps), the lesson line (``(name, text)`` of the preset the view is
    on, shown above the story; plain text), the display (presenter mode, text size) and
    the view's ``address`` (:func:`ui.state.view_address`: what a live class follows)."""
    return _merged(text, json.dumps(_view(step, lesson, present, text_scale, address), separators=(",", ":")))


def _merged(text, head):
    """The JSON object ``text`` with the fields of the JSON object ``head`` appended."""
    return text[:-1] + "," + head[1:]


def _view(step, lesson, present, text_scale, address=None, settings=(), values=None):
    extra = {"step": int(step), "present": bool(present), "text_scale": float(text_scale)}
    if address is not None:
        extra["address"] = str(address)
    if settings:
        extra["settings"] = []
        for label, name, widget, options in settings:  # (a select's options in order, as pairs)
            setting = {"label": str(label), "name": str(name), "widget": widget}
            extra["settings"].append(setting | ({"values": [list(pair) for pair in options]} if options else {}))
        if values is not None:
            extra["values"] = {str(name): str(value) for name, value in values.items()}
    if isinstance(lesson, dict):  # a guided lesson's scene (ui/guide.py): its own step, always
        extra["lesson"] = lesson
        extra["exact_step"] = True
    elif lesson is not None:
        extra["lesson"] = {"name": str(lesson[0]), "text": str(lesson[1])}
    return extra


# --- references: the payload fetched by its name ---------------------------------------------
# Where the app serves payloads by name (the serving layer, ``serving/routes.py``), a page open
# sends a reference of a few hundred bytes and the browser fetches the study's payload once
# (by a name that is its content's hash, so it keeps it); elsewhere the payload goes inline.

#: The first bytes of a payload reference (what :func:`ui.component.show` sends when the app serves payloads).
REFERENCE = b"MPLR"
ROUTE = "mpl/"  # the serving layer's routes' path, relative to the app's address (serving/routes.py)


@functools.lru_cache(maxsize=1)
def player_modules():
    """The player's modules: ``{file name: text}`` (``static/player/*.js``), read once per
    process (the routes, the component's script and every saved page share them; read-only)."""
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(PLAYER_DIR.glob("*.js"))}


def used_modules(entry):
    """The modules ``entry`` imports, itself first then each once, by the imports' order
    (``from "./name.js"``: the only form the player's modules use)."""
    modules = player_modules()
    order = []

    def visit(name):
        if name not in order:
            order.append(name)
            for used in re.findall(r'\bfrom\s*"\./([\w-]+\.js)"', modules[name]):
                visit(used)

    visit(entry)
    return order


@functools.lru_cache(maxsize=1)
def player_version():
    """A name for the player's modules as they are (a digest of all of them): in their
    addresses, so that a browser keeps them until any of them changes."""
    digest = hashlib.sha1()
    for name, text in player_modules().items():
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()[:12]


def filled_in(script, values):
    """A component's ``script`` with each ``"__NAME__"`` in it replaced by ``values[NAME]``, as JSON."""
    for name, value in values.items():
        script = script.replace(f'"__{name}__"', json.dumps(value))
    return script


def reference(name, step, lesson=None, present=False, text_scale=1.0, address=None, settings=(), values=None):
    """What the browser receives when routed: ``REFERENCE``, the length of the per-view
    JSON (4 bytes, big-endian), that JSON, then the payload's name (ASCII).  ``settings``:
    the page's settings whose picture the player asks for itself (:func:`views.pictures.followed`;
    it fetches them from the serving layer's view route, so only a routed page has them);
    ``values``: every setting of the view (:func:`views.pictures.view_values`), by which the
    player knows a picture it has shown when a setting comes back to it."""
    view = _view(step, lesson, present, text_scale, address, settings, values)
    return _framed(REFERENCE, view, name.encode())


def referenced_name(data):
    """The payload name a :func:`reference` carries."""
    return _unframed(data, REFERENCE, "payload reference")[1].decode()


def _framed(magic, view, rest):
    """``magic``, the length of the JSON of ``view`` (4 bytes, big-endian), that JSON, then
    ``rest``: the frame :func:`packed` and :func:`reference` share (read by the player's
    ``framed``, ``static/player/decode.js``)."""
    head = json.dumps(view, separators=(",", ":")).encode()
    return magic + len(head).to_bytes(4, "big") + head + rest


def _unframed(data, magic, what):
    """``(head, rest)`` of a frame made by :func:`_framed` with ``magic`` (a ``what``): the
    view's JSON text and the rest's bytes."""
    if not data.startswith(magic):
        raise ValueError(f"Not a step-player {what}.")
    size = int.from_bytes(data[4:8], "big")
    return data[8 : 8 + size].decode(), data[8 + size :]


#: The first bytes of a packed payload (:func:`packed`).
PACKED = b"MPLZ"


def gzipped(text):
    """A payload ``text`` gzip-compressed, once per study (level 6: quick, to about a third):
    every session then sends the same bytes."""
    return gzip.compress(text.encode(), compresslevel=6, mtime=0)


def text_of(gz):
    """The payload text a :func:`gzipped` payload holds."""
    return gzip.decompress(gz).decode()


def packed(gz, step, lesson=None, present=False, text_scale=1.0, address=None):
    """What the browser receives: ``PACKED``, the length of the per-view JSON (4 bytes,
    big-endian), that JSON (what :func:`with_step` adds: the step, lesson and display),
    then the study's gzip-compressed payload ``gz`` (from :func:`gzipped`).  The player
    inflates the payload in the browser (``DecompressionStream``), so the server neither
    re-encodes nor re-compresses a study per session."""
    return _framed(PACKED, _view(step, lesson, present, text_scale, address), gz)


def unpacked(data):
    """The payload text a packed ``data`` carries, with its per-view fields merged in."""
    head, gz = _unframed(data, PACKED, "packed payload")
    return _merged(gzip.decompress(gz).decode(), head)
