"""The step player in the app: the Streamlit component that mounts a study's payload
(:mod:`views.player`, which writes it) and the step the browser reports back.

A page computes its study, draws its payload with :mod:`views.player` and mounts
:func:`show`: the component's script (``static/player/boot.js``) starts plotly.js and the
player's modules, and the browser steps on its own from then on.
"""

from __future__ import annotations

from views.player import (
    PLAYER_DIR,
    ROUTE,
    STYLE,
    filled_in,
    packed,
    player_version,
    plotly_url,
    reference,
    used_modules,
)

_COMPONENT = None
NAME = "mpl_step_player"


def mounted(elements):
    """The step players among a page's custom components (Streamlit's ``AppTest``
    elements; a page may have others)."""
    return [element for element in elements if element.proto.component_name == NAME]


def _component():
    global _COMPONENT
    if _COMPONENT is None:
        import streamlit as st

        _COMPONENT = st.components.v2.component(
            NAME,
            html="<div class='mpl-root'></div>",
            css=STYLE.read_text(),
            js=_boot(),
            isolate_styles=False,
        )
    return _COMPONENT


def player_base():
    """Where the browser finds the player's modules, relative to the app's address: the
    serving layer's versioned route (kept for ever), or Streamlit's static files (a
    developer's ``streamlit run app.py``: revalidated by the browser, unversioned, so that
    every module is loaded once, by one address)."""
    from ui import compute

    if compute.SERVING.routed:
        return f"{ROUTE}player/{player_version()}/"
    return "app/static/player/"


def _boot():
    """The component's script (``static/player/boot.js``, its addresses and the adapter's
    module graph filled in): it starts plotly.js, the payload and every module of the
    player's Streamlit adapter at once."""
    script = (PLAYER_DIR / "boot.js").read_text(encoding="utf-8")
    filled = {
        "MODULES": player_base(),
        "PLOTLY": plotly_url(),
        "PAYLOADS": f"{ROUTE}payload/",
        "VIEWS": f"{ROUTE}view/",
        "GRAPH": used_modules("streamlit.js"),
    }
    return filled_in(script, filled)


def show(
    gz,
    key,
    step,
    lesson=None,
    present=False,
    text_scale=1.0,
    scenes=False,
    addresses=(),
    page=None,
    private=False,
    address=None,
    settings=(),
    values=None,
):
    """Mount the player with a study's compressed payload ``gz`` (:func:`gzipped`) and the
    per-view fields (:func:`with_step`).  Served with the app's routes (:func:`routes`),
    the browser gets a :func:`reference` and fetches ``gz`` by its name; otherwise (or
    when that fetch failed: the player then asks for it) the bytes go :func:`packed`.
    ``addresses``: the queries (dicts) that reopen this study (``PageState.reopening_queries``);
    a page opened at one later names ``gz`` for the browser to fetch early
    (:class:`PreloadPlayer`); none for a study no address reopens (an upload's).  ``page``:
    the key of the page showing it, whose address these queries belong to.  ``private``: a
    study of this session's own (an upload's) always goes inline, on the session's own
    connection: it gets no name another browser, or a proxy, could fetch it by.
    ``address``: the view's address as a live class names it (:func:`ui.state.view_address`),
    which the player reports with its step.  ``settings``: the page's settings whose picture
    the player asks for itself (:func:`views.pictures.followed`) and ``values`` every setting of
    the view (:func:`views.pictures.view_values`), given with a reference only.
    Bytes go out as they are; a str would be JSON-encoded a second time and hashed as
    canonical JSON on every run (the performance page has the cost of each)."""
    from ui import compute

    name = None if private or _state_value(key, "inline") else compute.SERVING.payload_name(gz, addresses, page)
    if name is not None:
        data = reference(name, step, lesson, present, text_scale, address, settings, values)
    else:
        data = packed(gz, step, lesson, present, text_scale, address)
    callbacks = {"on_shown_step_change": _ignore, "on_inline_change": _ignore}
    if not scenes:
        _component()(key=key, data=data, height="content", **callbacks)
        return None
    # In a guided lesson the player asks for the next or previous scene (a forward key past
    # the scene's last step): +1 or -1, for this run only.
    return _component()(key=key, data=data, height="content", on_scene_change=_ignore, **callbacks).scene


def _ignore():
    """A component value's callback: the value is read where it is needed."""


def _state_value(key, name):
    """The value ``name`` the player mounted as ``key`` last set, or None."""
    import streamlit as st

    value = st.session_state.get(key)
    try:
        return value.get(name) if hasattr(value, "get") else getattr(value, name, None)
    except Exception:  # a state Streamlit keeps in another shape
        return None


def shown_step(key, default):
    """The step the player mounted as ``key`` showed when Save was last pressed (it tells
    the server then: stepping happens in the browser), or ``default``."""
    step = _state_value(key, "shown_step")
    return int(step) if isinstance(step, (int, float)) and not isinstance(step, bool) else default
