"""Each page's picture: what a page shows, as a function of its settings, with no Streamlit.

A page with a step player has a module here with three things:

- its controls (:class:`views.controls.Control`, each with its range, label and help stated once);
- ``read(address, data, kernel)``: the page's :class:`~views.pictures.settings.Settings` from
  an address -- a link (:class:`~views.pictures.settings.Address`) or the page's widgets
  (:class:`ui.choose.Sidebar`), which read the same controls;
- ``draw(settings, study)``: a :class:`~views.pictures.common.Picture` -- the step player's
  panels with their per-step changes, the stories, the numbers lessons quote.

The page script wires widgets to ``read`` and the player to ``draw``; the export
(:mod:`views.export`), the class server's warm-up, the lesson checks and the tests call
:func:`open_address`, which opens an address as a browser new to the app would.
"""

from __future__ import annotations

import functools
import importlib
import time
from dataclasses import dataclass, field

from views import lessons, site
from views.controls import format_value, one_name
from views.pictures.common import Picture
from views.pictures.settings import (
    PRESENT,
    TEXT,
    Address,
    Settings,
    data_controls,
    kernel_controls,
    read_data,
    read_kernel,
    step_of,
    view_address,
)
from views.presets import PRESETS, matching

#: The core's function behind each page's study (:attr:`views.site.Page.study`).
STUDIES = {page.key: page.study_function() for page in site.PLAYER_PAGES if page.study}


def module(page):
    """The picture module of ``page`` (a :class:`views.site.Page` or its own name)."""
    page = site.by_key(page) if isinstance(page, str) else page
    if not page.picture:
        raise ValueError(f"the page {page.title!r} has no step player")
    return importlib.import_module(page.picture)


@functools.cache  # (a page's declared controls do not change; every page run reads them)
def controls(page):
    """Every control the page ``page`` (its own name) may read: its data's and its kernel's
    (a page with data) and its own (its picture's ``CONTROLS``).  Its address's keys."""
    draws = module(page)
    shared = (*data_controls(draws.TASKS, draws.DATA), *kernel_controls()) if hasattr(draws, "TASKS") else ()
    return (*shared, *draws.CONTROLS)


#: Controls whose change the page reads as more than their own value (another dataset brings
#: its own width, size and options; a kernel, a family, a bound or a sweep, other controls).
CASCADING = frozenset({"data", "kernel", "family", "bound", "vary", "overlay"})


def followed(page):
    """The settings of ``page`` (its own name) whose picture the player asks for itself, as
    ``(label, address name, widget, values)``: each slider and select whose value alone makes
    the study (the size, the noise, k, the kernel's width, a loss), by its widget's label;
    ``values``: ``(shown text, address value)`` of a select's options.  While a slider is
    dragged, and as soon as a select's option is picked or a toggle switched, the player
    draws the picture at the new address: one this page has shown already at once, another
    asked of the serving layer's view route (read as a link is read), whose study the page's
    own rerun then finds computed."""
    out = []
    for control in controls(page):
        if not control.label or control.disabled or control.name in CASCADING:
            continue
        if control.widget in ("slider", "toggle"):
            out.append((control.label, control.name, control.widget, ()))
        elif control.widget == "selectbox" and control.options is not None:
            shown = tuple((str(control.name_of(value)), format_value(value)) for value in control.options)
            out.append((control.label, control.name, "selectbox", shown))
    return tuple(out)


def view_values(values):
    """Every setting of a view as its address writes it, defaults included, but how it is
    shown (presenter mode, the text size) and the step: ``values`` maps a name to ``(value,
    default)`` (an :class:`~views.pictures.settings.Address`'s, a page run's).  Two views with
    the same values show the same study; the player knows a picture it has shown by them, and
    one setting changed names the picture it asks for (drawn at once when it has shown it)."""
    return {
        str(name): format_value(value)
        for name, (value, _default) in dict(values).items()
        if name not in (PRESENT.name, TEXT.name, "step")
    }


def control_problems(page, extra=()):
    """Sentences for two controls of ``page`` (and ``extra`` ones) that share a name but not
    their meaning (label or kind): an address could not tell them apart."""
    asked, out = {}, []
    for control in (*controls(page), *extra):
        try:
            one_name(asked, control)
        except ValueError as error:
            out.append(f"{page}: {error}")
    return out


def compute(settings: Settings, progress=None):
    """The study ``settings`` name, computed (ValueError with the core's sentence when the
    settings cannot run); ``(study, seconds)``."""
    started = time.perf_counter()
    if settings.page not in STUDIES:  # a page of its own computation (the bounds explorer's curves)
        return module(settings.page).compute(settings), time.perf_counter() - started
    extra = {} if progress is None else {"progress": progress}
    kernel = settings.kernel
    study = STUDIES[settings.page](
        settings.data.split(),
        kernel=kernel.kernel,
        gamma=kernel.gamma,
        degree=kernel.degree,
        **settings.options,
        **extra,
    )
    return study, time.perf_counter() - started


def missing(settings: Settings):
    """The sentence a page shows instead of a study when its settings choose nothing to
    compare (no deflation, no column method), or None."""
    for name, what in (("deflations", "deflation"), ("methods", "method")):
        if name in settings.options and not settings.options[name]:
            return f"Pick at least one {what} in the sidebar."
    return None


@dataclass
class View:
    """An address opened as a browser new to the app opens it: the page's ``settings`` and
    ``picture``, the ``step`` shown, the display (``present``, ``text_scale``), the lesson
    line (a preset's ``(name, text)`` or a guided scene's dict), the ``query`` the page
    writes back into the address and the ``notes`` it shows about the link."""

    page: site.Page
    settings: Settings
    picture: Picture
    step: int
    present: bool
    text_scale: float
    lesson: object = None
    query: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def payload(self):
        """The player's payload for this view (:func:`views.player.payload` and its view fields)."""
        from views import player

        text = player.payload(self.page.key, self.settings.key(), self.picture.n_steps, **self.picture.player)
        address = view_address(self.page.url_path, self.query)  # what a live class follows, as the page says it
        return player.with_step(text, self.step, self.lesson, self.present, self.text_scale, address)


def _guided(address, page):
    """The guided lesson's scene an address names (its ``lesson`` and ``scene``), as
    ``(lesson, key, number)``, or None; ValueError when the lesson cannot be read or its
    scene is on another page."""
    key = address.given.get("lesson")
    if key is None:
        return None
    try:
        lesson = lessons.load(key)
    except lessons.LessonError as error:
        raise ValueError(f"The link's lesson could not be opened. {error}") from None
    try:
        wanted = int(address.given.get("scene") or "1")
    except ValueError:
        address.notes.append("The link's scene is not a number; opening scene 1.")
        wanted = 1
    number = max(1, min(wanted, len(lesson.scenes)))
    scene = lesson.scene(number)
    if scene.page != page.key:
        raise ValueError(f"scene {number} of this lesson is on the {site.by_key(scene.page).title} page")
    address.remember("lesson", key, None)
    address.remember("scene", number, 0)
    return lesson, key, number


def _scene_address(query, page):
    """The address a guided scene's link opens: the scene's own settings and step where the
    link does not give them (:meth:`views.lessons.Scene.reopens`), else the link as it is."""
    try:
        lesson = lessons.load(query["lesson"]) if "lesson" in query else None
        number = max(1, min(int(query.get("scene") or "1"), len(lesson.scenes))) if lesson else None
    except (lessons.LessonError, ValueError):
        return query  # said by _guided
    if lesson is None or lesson.scene(number).page != page.key or not lesson.scene(number).reopens(query):
        return query
    view = {key: query[key] for key in (PRESENT.name, TEXT.name) if key in query}
    return lesson.scene(number).address(query["lesson"], number, view)


def read_address(page, query):
    """The settings ``page`` (its own name or a :class:`views.site.Page`) reads from ``query``
    (the address's settings, as text) the way a browser new to the app does: a link without
    a dataset opens on the page's first preset, a value not allowed is noted and replaced.
    Returns ``(settings, address)``, the :class:`~views.pictures.settings.Address` holding what
    else it read (the display, a guided lesson's scene) and its notes; ValueError with a
    sentence when the page cannot show these settings."""
    page = site.by_key(page) if isinstance(page, str) else page
    draws = module(page)
    query = _scene_address({str(key): str(value) for key, value in dict(query).items()}, page)
    if "data" not in query and PRESETS.get(page.key):
        query = {**PRESETS[page.key][0].params, **query}  # what the link says wins
    address = Address(query)
    address.get(PRESENT)
    address.get(TEXT)
    address.guided = _guided(address, page)
    if getattr(draws, "TASKS", None) is None:  # no data (the bounds explorer)
        settings = draws.read(address)
    else:
        settings = draws.read(address, read_data(address, draws.TASKS, draws.DATA), read_kernel(address))
    said = missing(settings)
    if said is not None:
        raise ValueError(f"{page.title} shows no step player for these settings: {said}")
    return settings, address


def open_address(page, query):
    """Open ``page`` at ``query`` as a browser new to the app does (:func:`read_address`)
    and compute its study: a :class:`View`; ValueError with a sentence when it cannot show."""
    page = site.by_key(page) if isinstance(page, str) else page
    settings, address = read_address(page, query)
    try:
        study, _ = compute(settings)
    except ValueError as error:
        raise ValueError(f"{page.title} cannot show these settings: {error}") from None
    shown = module(page).draw(settings, study)
    step, note = step_of(address.given.get("step"), shown.n_steps)
    if note is not None:
        address.notes.append(note)
    address.remember("step", step, 0)
    if address.guided is not None:
        lesson, key, number = address.guided
        line = lessons.head(lesson, key, number, shown.numbers)
        unknown = sorted(set(lesson.scene(number).settings) - set(address.values))
        address.notes += [lessons.not_here(name) for name in unknown]
    else:
        preset = matching(page.key, address.values)
        line = (preset.name, preset.text(shown.numbers)) if preset is not None else None
    present, text_scale = address.values["present"][0], (address.values["text"][0] or 100) / 100
    return View(page, settings, shown, step, bool(present), text_scale, line, address.query(), address.notes)
