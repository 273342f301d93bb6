"""Computing and caching a study: the core's study functions keyed on small hashable
choices (:class:`ui.choose.DataChoice`, :class:`ui.choose.KernelChoice` and the
settings), shared by every session of the server and bounded; a long one reports its
progress; the player's payloads kept beside them.  Bad settings stop the page with the
core's sentence, never a traceback.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict

import streamlit as st

from mpcore import labs, studies
from ui.state import plain

STUDIES = {"skpca": studies.skpca_study, "kmp": studies.kmp_study, "skcca": studies.skcca_study,
           "mpkfda": studies.mpkfda_study, "deflation-lab": labs.compare_deflations,
           "column-lab": labs.column_selection}


@st.cache_resource(max_entries=24, show_spinner=False)
def _study(kind, data, kernel, settings):
    return _run(kind, data, kernel, settings)


def _run(kind, data, kernel, settings, progress=None):
    started = time.perf_counter()
    extra = {} if progress is None else {"progress": progress}
    result = STUDIES[kind](data.split(), kernel=kernel.kernel, gamma=kernel.gamma, degree=kernel.degree,
                           **dict(settings), **extra)
    return result, time.perf_counter() - started


@st.cache_resource(show_spinner=False)
def _progress_results():
    """Results of the long computations that report progress, shared by all sessions.

    Not ``st.cache_resource`` on the function itself: Streamlit replays the elements a
    cached function touched, and a progress bar drawn outside it cannot be replayed.
    Bounded like the other caches (oldest out first)."""
    return OrderedDict()


PROGRESS_RESULTS_MAX = 8


_GUARD = threading.Lock()  # every shared store's reads and writes
_COMPUTING = {}  # (store, key) -> the lock its one computation holds


def _cached(store, key):
    with _GUARD:
        if key in store:
            store.move_to_end(key)
            return True, store[key]
    return False, None


def bounded_get(store, key, compute, limit):
    """``store[key]``, computed by ``compute()`` when missing; ``store`` (an OrderedDict
    shared by all sessions) keeps the ``limit`` most recently used entries.  A key is
    computed by one session at a time: a class opening the same lesson at once waits for
    the first session's computation instead of repeating it."""
    found, value = _cached(store, key)
    if found:
        return value
    with _GUARD:
        lock = _COMPUTING.setdefault((id(store), key), threading.Lock())
    with lock:
        found, value = _cached(store, key)  # computed while this session waited
        if found:
            return value
        value = compute()
        with _GUARD:
            store[key] = value
            while len(store) > limit:
                store.popitem(last=False)
            _COMPUTING.pop((id(store), key), None)
        return value


def _study_with_progress(kind, data, kernel, settings, report):
    return bounded_get(_progress_results(), (kind, data, kernel, settings),
                       lambda: _run(kind, data, kernel, settings, progress=report), PROGRESS_RESULTS_MAX)


def compute_study(kind, data, kernel, state=None, progress_text=None, **settings):
    """The cached study, or an ``st.error`` with the core's message and a stop (the
    user's settings stay as they are, and in the URL, so one change fixes it).

    ``progress_text``: show a progress bar with this text (the core function must take
    ``progress=callback(done, total)``) instead of a spinner.
    """
    key = tuple(sorted(settings.items()))
    try:
        if progress_text is None:
            with st.spinner("Running the greedy selection and the bounds..."):
                result, seconds = _study(kind, data, kernel, key)
        else:
            slot = st.empty()

            def report(done, total):
                slot.progress(done / total, text=f"{progress_text} ({done} of {total})")

            result, seconds = _study_with_progress(kind, data, kernel, key, report)
            slot.empty()
    except ValueError as error:
        st.error(f"Cannot run with these settings: {plain(error)}", icon=":material/error:")
        if state is not None:
            state.write_url()
        st.stop()
    return result, seconds


def study_numbers(study):
    """What a preset's lesson may quote about a study: ``m`` and its curves' summary."""
    return {"m": int(study.m), **study.curves.summary()}


@st.cache_resource(show_spinner=False)
def _payloads():
    """Player payloads by study and display (shared, immutable JSON text), oldest out."""
    return OrderedDict()


PAYLOADS_MAX = 40  # a lesson's scenes and the presets: about 40 studies' payloads, 1-3 MB each


def memo(key, compute):
    """``compute()`` once per ``key`` server-wide (bounded with the payloads)."""
    return bounded_get(_payloads(), key, compute, PAYLOADS_MAX)


def study_key(kind, data, kernel, settings, *display_options):
    """A hashable name for a study and how it is drawn (the player's cache key)."""
    return (kind, data, kernel, tuple(sorted(settings.items())), display_options)
