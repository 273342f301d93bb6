"""Page state that survives reruns and page switches and lives in the URL.

Each control has a *canonical* value in ``st.session_state`` under a plain key that
Streamlit never cleans up (``"k"`` is shared by all pages, ``"skpca:k"`` belongs to
one page).  The widget gets its own key, is refreshed from the canonical value before
it is drawn and copies its value back in ``on_change`` -- so a value set on one page
is still there on the next, and nothing is lost when a widget is not drawn.

On entering a page the URL's query parameters are read once, parsed and clamped into
the canonical values (a bad value is ignored with a note); after the page is drawn the
URL is rewritten with every value that differs from its default.  So a copied link
reopens the same view, including the step.

Not Streamlit's own binding of a widget to the address (``bind="query-params"``): a bound
value is in the address only while its widget is drawn, where a page keeps the values of
widgets it does not draw (a folded group, another page's), answers a link's value it
clamps with a sentence, and reads the same address without Streamlit (``views/pictures``).
"""

from __future__ import annotations

import copy

import streamlit as st

from views.controls import Control, format_value, literal, plain, read, visible  # noqa: F401 - the pages' names

_UNSET = object()  # a session value never set
#: The live class's parameters (``ui/live.py``): kept by every write of the address, never
#: part of a page's own view.
CLASS_PARAMS = ("class", "key")


def class_params():
    """The live class's parameters of the address, as they are."""
    return {name: st.query_params[name] for name in CLASS_PARAMS if name in st.query_params}


#: Where a run that shows the step player keeps the address of the view it showed, for the
#: live class's bar after the page (``ui/live.py``): one address per run, told by the player.
SHOWN_ADDRESS = "_shown_address"


def view_address(url_path, query=None):
    """The view on screen as a live class names it (:func:`views.pictures.settings.view_address`):
    ``query`` (a page's :meth:`PageState.query`, what its run writes to the address at its
    end), else the address's as it is."""
    from views.pictures.settings import view_address as named

    if query is None:
        query = {name: st.query_params[name] for name in st.query_params}
    return named(url_path, query)


class PageState:
    """Canonical values, URL reading and writing for one page run."""

    def __init__(self, page):
        self.page = page
        self.url = {}
        self.pinned = set()  # names written to the URL even at their default (the dataset: see pin)
        self.notes = []
        self.entered = False
        self.locked = False  # a guided lesson's scene: its settings are its own (ui/guide.py)
        self.guide = None
        # False when the view rests on what no address carries (an upload): its payload is
        # then never named to another browser opening the same address (views/player.py).
        self.linkable = True
        # The page's settings that change its view in place (ui/board.py ``Quick``), or None.
        self.quick = None
        state = st.session_state
        if state.get("_page") != page:
            state["_page"] = page
            state["_url_pending"] = {key: st.query_params[key] for key in st.query_params}
            self.entered = True

    def at(self, address):
        """This page's state for the view an :class:`views.pictures.settings.Address` read: its
        values, what it pins and its notes, with everything else this run drew."""
        moved = copy.copy(self)
        moved.url = dict(address.values)
        moved.pinned = set(address.pinned)
        moved.notes = list(address.notes)
        return moved

    def key(self, name, scope):
        return name if scope is None else f"{scope}:{name}"

    def resolve(self, control, scope=None, keep=False):
        """The value of ``control`` to show: from the URL on page entry, else the one
        already set, else the default; always valid (see :meth:`widget` for ``keep``)."""
        state = st.session_state
        key = self.key(control.name, scope)
        pending = state.get("_url_pending", {})
        if control.name in pending:
            value, note = read(control, pending.pop(control.name))
            if note is not None:
                self.notes.append(note)
            if value is not None:
                state[key] = value
        # One read of the session's value: each access to st.session_state costs Streamlit's
        # checks and lock (a tenth of a page run for a class opening pages at once).
        value = state.get(key, _UNSET)
        if value is _UNSET:
            state[key] = control.default
            return control.default
        if not control.valid(value) and control.nearest and control.options:
            try:  # a value the options no longer hold (they depend on another control) takes the nearest
                value = min(control.options, key=lambda option: (abs(option - value), option))
                state[key] = value
            except TypeError:
                pass
        if control.valid(value):
            return value
        if keep:
            return control.default  # not valid on this page: show the default, keep the value for others
        value = control.clamp(value) if control.options is None else control.default
        state[key] = value
        return value

    def widget(
        self,
        make,
        control,
        label,
        *,
        scope=None,
        url=True,
        keep=False,
        widget_key=None,
        on_user_change=None,
        shown=True,
        **kwargs,
    ):
        """Draw ``make(label, key=..., on_change=..., **kwargs)`` for ``control``.

        ``keep``: a remembered value this page does not allow (a dataset of another task)
        is shown as the default but not forgotten.  ``on_user_change``: called when the
        user (not a link or a preset) changes the widget.  ``widget_key``: the widget's own key
        (default ``"w:" + canonical key``), per page when the options differ by page.
        ``shown=False``: the value without its widget (it sits in a closed group of settings,
        ``ui.choose.Seldom``), from the link, the session or the default as when drawn.
        """
        state = st.session_state
        key = self.key(control.name, scope)
        if not shown:
            value = self.resolve(control, scope, keep=keep)
        else:
            widget_key = widget_key or "w:" + key
            state[widget_key] = self.resolve(control, scope, keep=keep)
            if self.locked:
                kwargs["disabled"] = True

            quick = self.quick if self.quick is not None and control.name in self.quick.names else None

            def copy_back():
                state[key] = state[widget_key]
                if on_user_change is not None:
                    on_user_change()
                if quick is not None:  # the view redrawn in place, not the page (it may stop here)
                    quick.changed(control, state[key])

            value = make(label, key=widget_key, on_change=copy_back, **kwargs)
        if control.kind is tuple:
            value = tuple(value)
        if url:
            self.url[control.name] = (value, control.default)
        return value

    def remember(self, name, value, default):
        """Put a value that is not a widget of this run (the step) into the URL."""
        self.url[name] = (value, default)

    def pin(self, name):
        """Write ``name`` to the URL even at its default.  A page opens a link without a
        dataset on its first lesson preset, so a link must always name its dataset to
        reopen exactly the view it was copied from."""
        self.pinned.add(name)

    def current(self):
        """Every value of this run as the URL writes it (defaults included)."""
        return {name: format_value(value) for name, (value, default) in self.url.items()}

    def notes_here(self):
        """Reserve the place where notes about the link's values will appear."""
        self._slot = st.container()

    def query(self):
        """The address's query for the view as it stands: every non-default value (and the
        pinned ones), as text."""
        return {
            name: format_value(value)
            for name, (value, default) in self.url.items()
            if value != default or name in self.pinned
        }

    def reopening_queries(self):
        """The queries an address may hold to reopen this view in a browser new to the app:
        the one the page writes (:meth:`query`), and the one the browser holds now when it
        says the same -- each value it names is the one in use and it names every value the
        page writes (a link that spells out defaults).  After a widget changed a value, the
        browser's query is still the old one and disagrees."""
        wanted = self.query()
        queries = [wanted]
        held = {key: st.query_params.get_all(key) for key in st.query_params}
        if held and all(len(values) == 1 for values in held.values()):
            held = {key: values[0] for key, values in held.items()}
            current = self.current()
            if held != wanted and wanted.items() <= held.items():
                if all(current.get(key) == value for key, value in held.items()):
                    queries.append(held)
        return queries

    def write_url(self):
        """Rewrite the URL with every non-default value and show any notes about the link."""
        self.show_notes()
        wanted = {**self.query(), **class_params()}
        current = {key: st.query_params[key] for key in st.query_params}
        repeated = any(len(st.query_params.get_all(key)) > 1 for key in st.query_params)
        if current != wanted or repeated:
            st.query_params.from_dict(wanted)

    def show_notes(self):
        # (a page's view redrawn alone has no notes: a value the address could not take
        # reruns the page, ui/board.py; a fragment may write here only where its full run did)
        slot = getattr(self, "_slot", None) or st.container()
        for note in self.notes:
            slot.warning(note, icon=":material/link_off:")
        self.notes = []
