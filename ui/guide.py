"""A guided lesson (:mod:`ui.lessons`) as the app shows it.

The lesson lives in the address: ``?lesson=<name>&scene=3`` on the scene's page, with the
scene's settings, so a link reopens the scene, and a lesson read from a file travels in the
same parameter (its text compressed, :func:`ui.lessons.encode`).  On its page the scene's
narration, progress, question and speaker notes head the step player, which moves on to
the next scene when PageDown (a clicker) goes past the scene's last step; the page's
controls are locked unless the scene asks the student to try something.  Leaving for
another page keeps the lesson in the session: the sidebar offers the way back.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from ui import lessons, site
from ui.state import literal, plain

SESSION = "_guide"
VIEW = ("present", "text")  # how the viewer shows a scene: kept from scene to scene


def load(value):
    """The lesson an address's ``lesson`` value names: a shipped lesson's name, or a
    lesson file's text (:func:`ui.lessons.encode`)."""
    shipped = lessons.shipped()
    if value in shipped:
        return shipped[value]
    return lessons.parse(lessons.decode(value))


def read(state):
    """On entering a page: take the lesson and scene from the address, or note why they
    cannot be read; then mark whether the lesson's current scene is on this page.  Returns
    the active scene's guide (a dict) or None."""
    follow()
    session = st.session_state
    pending = session.get("_url_pending") or {}
    if state.entered:
        value, number = pending.pop("lesson", None), pending.pop("scene", None)
        if value is not None:
            try:
                lesson = load(str(value))
            except lessons.LessonError as error:
                state.notes.append(f"The link's lesson could not be opened. {error}")
                session.pop(SESSION, None)
            else:
                try:
                    scene = max(1, min(int(str(number or "1")), len(lesson.scenes)))
                except ValueError:
                    state.notes.append(f"The link's scene {literal(str(number))} is not a number; opening scene 1.")
                    scene = 1
                session[SESSION] = {"key": str(value), "lesson": lesson, "scene": scene, "page": state.page}
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
            on_click=lambda: go(number),
            help="Open the lesson's scene again, with its settings.",
        )


def end():
    st.session_state.pop(SESSION, None)
    params = {key: st.query_params[key] for key in st.query_params if key not in ("lesson", "scene")}
    st.query_params.from_dict(params)


def go(number):
    """Ask for scene ``number`` of the current lesson (done at the next run's start by
    :func:`follow`: a page switch cannot happen inside a callback)."""
    st.session_state["_guide_go"] = number


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
    for name in list(session):  # the scene's settings win over what the page remembers
        if str(name).startswith((f"{scene.page}:", f"w:{scene.page}:")) and not str(name).endswith(":visited"):
            del session[name]
    from ui.choose import SHARED_KEYS

    for name in SHARED_KEYS:
        session.pop(name, None)
        session.pop(f"w:{name}", None)
    session["_page"] = None
    query = {key: st.query_params[key] for key in VIEW if key in st.query_params}
    query.update(scene.query())
    query.update({"lesson": guide["key"], "scene": str(number)})
    if scene.step:
        query["step"] = str(scene.step)
    st.switch_page(page.file, query_params=query)


def head(guide, numbers):
    """What the player shows of the scene (the payload's ``lesson`` field): its title and
    narration with the study's numbers filled in, and the lesson around it."""
    lesson, number = guide["lesson"], guide["scene"]
    scene = lesson.scene(number)
    numbers = lessons.at_end(numbers or {}, scene.last_step)
    say = scene.say

    def fill(template):
        return lessons.fill(template, numbers, say)

    question = None
    if scene.question is not None:
        q = scene.question
        question = {
            "kind": q.kind,
            "ask": fill(q.ask),
            "choices": [fill(c) for c in q.choices],
            "answer": q.answer,
            "explain": fill(q.explain),
        }
    return {
        "name": scene.title,
        "text": fill(scene.narration),
        "guide": {
            "lesson": lesson.title,
            "id": hashlib.sha1(guide["key"].encode()).hexdigest()[:12],
            "scene": number,
            "scenes": len(lesson.scenes),
            "notes": fill(scene.notes),
            "claims": [[claim, lessons.check(claim, numbers)] for claim in scene.claims],
            "question": question,
            "try": scene.try_it,
            "start": scene.step,
            "until": _step(scene.until, numbers),
        },
    }


def _step(until, numbers):
    """A scene's last step: a number, or the step a study's number names (None if unknown)."""
    if isinstance(until, str):
        value = numbers.get(until)
        return int(value) if isinstance(value, (int, float)) and value == value else None
    return until


def unknown_settings(state, guide):
    """The scene's settings this page does not have (a lesson written for another version)."""
    scene = guide["lesson"].scene(guide["scene"])
    return sorted(set(scene.settings) - set(state.url))
