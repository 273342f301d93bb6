"""Computing and keeping a study for a page: the study its settings name
(:class:`views.pictures.settings.Settings`, hashable), computed once per process and kept,
bounded, for every session; a long one reports its progress; the player's payloads kept
beside them.  Bad settings stop the page with the core's sentence, never a traceback.

How work is kept and queued, and how a payload reaches the browser, is :data:`SERVING`, one
object: plain here, the serving layer's when the server installs it (:func:`serving.install`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import nullcontext

import streamlit as st

from ui.state import plain
from views import pictures


class Plain:
    """How a process computes and keeps studies without the serving layer: one bounded
    store per name (the most recently used kept), each computation as it comes.  The
    serving layer (:mod:`serving.lines`) installs its own (:func:`install`): the page
    scripts' turns, a fair line for computations, one computation per key, stores bounded
    by bytes.

    Not ``st.cache_resource``: any browser can send Streamlit's ``clear_cache`` message,
    which empties every cached resource for every user -- a stray click would make a whole
    class recompute its lessons -- and a computation reports its place and progress, which
    Streamlit would replay from a cached function."""

    def __init__(self):
        self._stores, self._lock = {}, threading.Lock()

    def store(self, name):
        """The process-wide store called ``name`` (an OrderedDict, made on first use)."""
        with self._lock:
            return self._stores.setdefault(name, OrderedDict())

    def cached(self, name, key):
        """``(True, value)`` when ``key`` is kept in store ``name``, else ``(False, None)``."""
        store = self.store(name)
        with self._lock:
            if key in store:
                store.move_to_end(key)
                return True, store[key]
        return False, None

    def kept(self, name, key, make, limit, budget=None):
        """``store(name)[key]``, made by ``make()`` when missing; the ``limit`` most recently
        used kept (``budget``, the bytes they may hold, is the serving layer's)."""
        found, value = self.cached(name, key)
        if found:
            return value
        value = make()
        store = self.store(name)
        with self._lock:
            store[key] = value
            while len(store) > limit:
                store.popitem(last=False)
        return value

    def computing(self, report=None):
        """A computation's turn (``report(ahead)``: its place while it waits)."""
        return nullcontext()

    def run(self, settings, progress=None, drawn=None):
        """Compute the study ``settings`` name (:func:`views.pictures.compute`), here:
        ``(study, seconds, drawn)``, ``drawn`` the player's payload of it (:func:`drawn`) when
        it was made with the study (the serving layer's children do), else None; where it
        is, the callable ``drawn(payload)`` hears of it as soon as it is made, before the
        study is."""
        study, seconds = pictures.compute(settings, progress)
        return study, seconds, None

    def building(self):
        """A payload's turn to be built."""
        return nullcontext()

    def released(self):
        """While a page script waits for something slow, other scripts' turn."""
        return nullcontext()

    def page(self):
        """A page script's turn."""
        return nullcontext()

    def after_page(self):
        """Called after every page run."""

    def client_address(self):
        """The address of the client whose page script runs (the serving layer's; here the
        one client there is)."""
        return "local"

    def acting_for(self, client):
        """Work done in this thread outside a page script, for ``client`` (the serving
        layer's :class:`serving.clients.Client`): in its share of the lines and stores."""
        return nullcontext()

    #: Whether the serving layer's routes serve the player's modules and payloads.
    routed = False

    def payload_name(self, gz, addresses=(), page=None):
        """The name the browser fetches the payload ``gz`` by from the serving layer's
        routes (``addresses``: the queries that reopen its study on ``page``), or None: here
        it goes inline, on the page's own connection."""
        return None


SERVING = Plain()


def install(serving):
    """Use ``serving`` (a :class:`Plain` in its methods) to keep and queue this process's work."""
    global SERVING
    SERVING = serving


def store(name):
    """The process-wide store called ``name``."""
    return SERVING.store(name)


def released():
    """Let other page scripts run while this one waits (an upload read, a reproduction)."""
    return SERVING.released()


def page_turn():
    """A page script's run, in its turn (``app.py``)."""
    return SERVING.page()


def after_page():
    SERVING.after_page()


def _results():
    """Every study computed, shared by all sessions, the most recently used kept."""
    return store("studies")


RESULTS_MAX = 32  # a lesson's scenes and the presets
RESULTS_BYTES = 800_000_000  # and at most this many bytes of arrays (over it, the least needed out first)


def _queued(settings, slot, progress_text):
    """Compute a study in its turn, telling the session its place while it waits."""
    first = None

    def report_place(ahead):
        nonlocal first
        first = ahead if first is None else first
        slot.progress(
            1 - ahead / (first + 1),
            text=f"The server is computing other students' pages first: "
            f"{ahead} ahead of yours (first come, first served).",
        )

    def report_progress(done, total):
        slot.progress(done / total, text=f"{progress_text} ({done} of {total})")

    with SERVING.computing(report_place):
        slot.empty()
        study, seconds, shown = SERVING.run(settings, None if progress_text is None else report_progress)
    if shown is not None:  # drawn with the study: kept for the player (payload_of)
        memo(settings.key(), lambda: shown)
    return study, seconds


def compute_study(settings, state=None, progress_text=None):
    """The study ``settings`` (:class:`views.pictures.settings.Settings`) names, computed once
    per process (in its turn) and kept, or an ``st.error`` with the core's
    message and a stop (the user's settings stay as they are, and in the URL, so one change
    fixes it).  A page whose settings choose nothing to compare says so and stops.

    ``progress_text``: show a progress bar with this text while it computes (the core
    function must take ``progress=callback(done, total)``) instead of a spinner.
    """
    said = pictures.missing(settings)
    if said is not None:
        st.info(said, icon=":material/info:")
        if state is not None:
            state.write_url()
        st.stop()
    key = settings.study_key()
    slot = st.empty()  # always: the elements after it (the player) keep their place
    found, kept = SERVING.cached("studies", key)
    if found:  # (a lesson's study): no spinner, which starts a timer thread on every run
        return kept
    try:
        with st.spinner("Running the greedy selection and the bounds..."):
            result, seconds = SERVING.kept(
                "studies", key, lambda: _queued(settings, slot, progress_text), RESULTS_MAX, RESULTS_BYTES
            )
    except ValueError as error:
        slot.empty()
        st.error(f"Cannot run with these settings: {plain(error)}", icon=":material/error:")
        if state is not None:
            state.write_url()
        st.stop()
    slot.empty()
    return result, seconds


def _payloads():
    """Player payloads by study and display (shared, immutable JSON text), oldest out."""
    return store("payloads")


PAYLOADS_MAX = 40  # a lesson's scenes and the presets


def memo(key, compute):
    """``compute()`` once per ``key`` per process (bounded with the payloads), in its turn to
    build -- a line apart from the computations', so that a payload is built while the next
    study computes."""

    def in_turn():
        with SERVING.building():
            return compute()

    return SERVING.kept("payloads", key, in_turn, PAYLOADS_MAX)


def drawn(settings, study, draw=None):
    """The step player's payload of ``study`` drawn at ``settings`` by ``draw`` (the page's
    picture's, by default): ``(gzipped payload, n_steps, numbers)``.  Only the compressed
    text is kept: the JSON itself, three to five times larger, is needed only when a demo
    is saved (:func:`views.player.text_of`)."""
    from views import player

    draw = pictures.module(settings.page).draw if draw is None else draw
    shown = draw(settings, study)
    text = player.payload(settings.page, settings.key(), shown.n_steps, **shown.player)
    return player.gzipped(text), shown.n_steps, shown.numbers


def payload_of(settings, study, draw):
    """:func:`drawn`, made once per study and display server-wide (:func:`memo`)."""
    return memo(settings.key(), lambda: drawn(settings, study, draw))


def prepare(page, query, ready=None):
    """Compute and draw what ``page`` (its own name) shows at the address ``query`` into
    this process's stores, as the first browser to open that address would, in its turn
    (the class warm-up, :mod:`serving.warm`; a slider's value while it is dragged, the
    serving layer's view route).  Returns ``(settings, gzipped payload, address)``, the
    :class:`~views.pictures.settings.Address` as read; ValueError with a sentence when the
    page cannot show these settings.  ``ready(gzipped payload, address)``, when given, is
    called as soon as the payload is kept, which a study computed in a child process
    (:mod:`serving.children`) makes before its arrays have reached this one."""
    settings, address = pictures.read_address(page, query)

    def keep(shown):  # drawn with the study: kept for the player (as kept, if another was first)
        kept = memo(settings.key(), lambda: shown)
        if ready is not None:
            ready(kept[0], address)

    def in_turn():
        with SERVING.computing():
            study, seconds, shown = SERVING.run(settings, drawn=keep)
        if shown is not None:
            memo(settings.key(), lambda: shown)
        return study, seconds

    study, _ = SERVING.kept("studies", settings.study_key(), in_turn, RESULTS_MAX, RESULTS_BYTES)
    return settings, payload_of(settings, study, pictures.module(page).draw)[0], address
