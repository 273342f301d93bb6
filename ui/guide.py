"""A guided lesson (:mod:`views.lessons`) as the app shows it.

The lesson lives in the address: ``?lesson=<name>&scene=3`` on the scene's page, with the
scene's settings, so a link reopens the scene, and a lesson read from a file travels in the
same parameter (its text compressed, :func:`views.lessons.encode`).  On its page the scene's
narration, progress, question and speaker notes head the step player, which moves on to
the next scene when PageDown (a clicker) goes past the scene's last step; the page's
controls are locked unless the scene asks the student to try something.  Leaving for
another page keeps the lesson in the session: the sidebar offers the way back.
"""

from __future__ import annotations

import streamlit as st

from ui.state import class_params, literal, plain
from views import lessons, site

SESSION = "_guide"
VIEW = ("present", "text")  # how the viewer shows a scene: kept from scene to scene


load = lessons.load  # (the pages and the export read a lesson the same way)


def read(state):
    """On entering a page: take the lesson and scene from the address, or note why they
    cannot be read; then mark whether the lesson's current scene is on this page.  Returns
    the active scene's guide (a dict) or None."""
    follow()
    session = st.session_state
    state.notes.extend(session.pop(NOTES, ()))
    pending = session.get("_url_pending") or {}
    if state.entered:
        value, number = pending.pop("lesson", None), pending.pop("scene", None)
        if value is not None:
            opened = start(value, number, state.page)
            if opened is None:
                state.notes.extend(session.pop(NOTES, ()))
            else:
                said, scene = opened
                if scene.page != state.page or scene.reopens(st.query_params):
                    if scene.page != state.page:
                        said.append(
                            f"This lesson's scene is on the {site.by_key(scene.page).title} page, not this one: "
                            "it is opened there."
                        )
                    session[NOTES] = said
                    go(session[SESSION]["scene"])
                    follow()  # the scene's own page, with its settings
                state.notes.extend(said)
        elif session.get(SESSION):
            session[SESSION]["page"] = None  # left the lesson's page: the sidebar offers the way back
    guide = session.get(SESSION)
    if not guide or guide["page"] != state.page:
        return None
    scene = guide["lesson"].scene(guide["scene"])
    if scene.page != state.page:
        return None
    state.remember("lesson", guide["key"], None)
    state.remember("scene", guide["scene"], 0)
    state.locked = not scene.try_it
    return guide


NOTES = "_guide_notes"  # what a link's lesson said, kept across the switch to the scene's page


def start(value, number, page):
    """Open the lesson an address names (``value``, its ``scene`` ``number``) in the
    session: ``(notes, scene)``, or None (with the reason in the notes of the page's next
    run) when it cannot be read."""
    session = st.session_state
    try:
        lesson = load(str(value))
    except lessons.LessonError as error:
        session[NOTES] = [*session.get(NOTES, ()), f"The link's lesson could not be opened. {error}"]
        session.pop(SESSION, None)
        return None
    notes, count = [], len(lesson.scenes)
    try:
        wanted = int(str(number or "1"))
    except ValueError:
        notes.append(f"The link's scene {literal(str(number))} is not a number; opening scene 1.")
        wanted = 1
    scene = max(1, min(wanted, count))
    if scene != wanted:
        notes.append(f"This lesson has {count} scenes, so there is no scene {wanted}; opening scene {scene}.")
    session[SESSION] = {"key": str(value), "lesson": lesson, "scene": scene, "page": page}
    return notes, lesson.scene(scene)


def elsewhere(page):
    """A lesson named in the address of a page that shows no scenes (Home, the lessons
    page, ...): open its scene on the scene's own page, or say why not."""
    value = st.query_params.get("lesson")
    if value is None or site.by_path(page.url_path or "").key in lessons.PAGES:
        return
    opened = start(value, st.query_params.get("scene"), None)
    if opened is None:
        st.warning(" ".join(st.session_state.pop(NOTES, ())))
        return
    said, scene = opened
    st.session_state[NOTES] = [*said, f"The link opened this lesson on the {page.title} page; its scene is here."]
    go(st.session_state[SESSION]["scene"])
    follow()


def sidebar(state):
    """The lesson's place in the sidebar: where it is, how to leave it, or the way back."""
    guide = st.session_state.get(SESSION)
    if not guide:
        return
    lesson, number = guide["lesson"], guide["scene"]
    box = st.sidebar.container(border=True)
    box.markdown(f"**Lesson:** {plain(lesson.title)}  \nScene {number} of {len(lesson.scenes)}")
    if guide["page"] == state.page:
        if not lesson.scene(number).try_it:
            box.markdown("The settings are the scene's own (locked); the next scene may ask you to try something.")
        box.button("End the lesson", key="guide:end", on_click=end, help="Leave the lesson; this page stays as it is.")
    else:
        box.button(
            "Back to the lesson",
            key="guide:back",
            type="primary",
            on_click=lambda: go(number, resume=True),
            help="Open the lesson's scene again, with its settings, at the step where you left it.",
        )


def end():
    st.session_state.pop(SESSION, None)
    params = {key: st.query_params[key] for key in st.query_params if key not in ("lesson", "scene")}
    st.query_params.from_dict(params)


def go(number, resume=False):
    """Ask for scene ``number`` of the current lesson (done at the next run's start by
    :func:`follow`: a page switch cannot happen inside a callback).  ``resume``: the player
    returns to the step the student left the scene on (it remembers the steps; the server
    does not see them), not the scene's first step."""
    st.session_state["_guide_go"] = number
    st.session_state[RESUME] = number if resume else None


RESUME = "_guide_resume"


def follow():
    """Open the scene :func:`go` asked for: its page, with its settings and step, the
    viewer's presenter mode and text size kept.  Called at the top of every run."""
    session = st.session_state
    number = session.pop("_guide_go", None)
    guide = session.get(SESSION)
    if number is None or not guide:
        return
    lesson = guide["lesson"]
    number = max(1, min(int(number), len(lesson.scenes)))
    scene = lesson.scene(number)
    page = site.by_key(scene.page)
    forget_settings(scene.page)  # the scene's settings win over what the page remembers
    view = {key: st.query_params[key] for key in VIEW if key in st.query_params}
    st.switch_page(page.file, query_params=scene.address(guide["key"], number, {**view, **class_params()}))


def forget_settings(page):
    """Forget the settings the session remembers for ``page`` (a key), so that the next run
    reads them all from the address it opens, as a new browser would."""
    session = st.session_state
    for name in list(session):
        if str(name).startswith((f"{page}:", f"w:{page}:")) and not str(name).endswith(":visited"):
            del session[name]
    from ui.choose import SHARED_KEYS

    for name in SHARED_KEYS:
        session.pop(name, None)
        session.pop(f"w:{name}", None)
    session["_page"] = None


def head(guide, numbers):
    """What the player shows of the scene (the payload's ``lesson`` field)."""
    resume = st.session_state.get(RESUME) == guide["scene"]
    return lessons.head(guide["lesson"], guide["key"], guide["scene"], numbers, resume=resume)


def unknown_settings(state, guide):
    """The scene's settings this page does not have (a lesson written for another version)."""
    scene = guide["lesson"].scene(guide["scene"])
    return sorted(set(scene.settings) - set(state.url))
