"""A live class in the app: start one, follow one, and the bar that says where the class is.

The lecturer presses "Start a live class" (the sidebar, any page): the page's address gets
``?class=CODE&key=KEY`` (the lecturer's link; the key drives the class) and the bar above
the page shows the code, how many follow, and "Join screen": the students' link
(``?class=CODE``) large, with its QR code, for the projector.  Each run of the lecturer's
page tells the class the scene's question; the lecturer's browser tells it the view it shows
(:func:`here`: the page, its settings, the lesson's scene, text size and presenter mode) with
the step on screen, then each step (``static/player/live.js``, through ``serving/classes.py``).

A student's page with ``?class=CODE`` opens where the lecturer is (a late student lands on
the current scene and step) and its bar follows every change.  A student who steps or
changes a setting explores on their own; "Back to the lecturer" rejoins where the lecturer
is now.  No name is asked and nothing is kept about a student: the class counts answers by the
seat it gives the student's browser when its stream joins (:mod:`views.classroom`).

The lecturer's bar runs the round (a countdown, close, reopen, the class's answers shown on
every screen, reveal, a second vote: ``static/player/board.js`` draws the answers) and the
class's pace (free, hold, explore a range of steps); the sidebar offers the class's report
(:mod:`views.class_report`), kept in the session when the lecturer ends the class.

A page that shows the step player tells the class its view from the player, with the step
on screen (the view's address is in the player's payload: :data:`ui.state.SHOWN_ADDRESS`), so
that a step is never sent with another view's address; a page without one, from here.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import streamlit as st

from ui import compute, guide
from ui.state import CLASS_PARAMS, SHOWN_ADDRESS, literal, plain, read, view_address
from views import class_report, classroom, site
from views.pictures.settings import TEXT, step_of

JOINED = "_live_joined"  # the class this session has entered (it then follows from the bar)
GO = "_live_go"  # the bar asked to go where the lecturer is (done at the next run's start)
SAID = "_live_said"  # a sentence for the page the student lands on
KEPT = "_live_class"  # (code, key or None): the class this session is in, kept across the menu's pages
REPORT = "_live_report"  # (code, records, when): the report of the class this session's lecturer ended
UNREACHABLE = "The live classes' record could not be read just now ({}): reload the page in a moment."


@functools.lru_cache(maxsize=1)
def _store() -> classroom.Store:
    return classroom.store()


class Live:
    """This run's class: its ``code``, the viewer's ``role`` ("lead" or "follow") and key."""

    def __init__(self, code, role, key, found):
        self.code, self.role, self.key, self.found = code, role, key, found


def here(url_path):
    """The view on screen as the class names it (:func:`ui.state.view_address`)."""
    return view_address(url_path)


def _asked(what, *args):
    """``_store().what(*args)``, or a sentence on the page and None when the file of classes
    cannot be read now (busy past its wait, or gone): never a traceback."""
    try:
        return getattr(_store(), what)(*args)
    except (OSError, sqlite3.Error) as error:
        st.warning(UNREACHABLE.format(error), icon=":material/groups:")
        raise _Unreachable from None


class _Unreachable(Exception):
    """The file of classes could not be read (:func:`_asked` said so on the page)."""


def enter(page):
    """At the top of a run (``app.py``): the class the address names, or None; a student
    entering it (or asking from the bar) is sent to where the lecturer is."""
    st.session_state.pop(SHOWN_ADDRESS, None)  # this run's player says it anew
    try:
        return _enter(page)
    except _Unreachable:
        return None


def _enter(page):
    wanted = st.query_params.get("class")
    session = st.session_state
    if wanted is None and session.get(KEPT) and classroom.SERVED:
        # another page, opened from the menu (its link has no query): still in the class
        code, key = session[KEPT]
        if _asked("find", code) is None:
            session.pop(KEPT, None)
        else:
            st.query_params["class"] = wanted = code
            if key:
                st.query_params["key"] = key
    if wanted is None:
        session.pop(JOINED, None)
        return None
    if not classroom.SERVED:
        st.info(
            "This link is for a live class, which this server does not run (it runs without the app's own "
            "server: start it with `make run` or `make serve`). The page works on its own.",
            icon=":material/groups:",
        )
        return None
    code = classroom.normal_code(wanted)
    found = _asked("find", code) if code else None
    if found is None and code is not None and (session.get(KEPT) or (None,))[0] == code:
        for name in CLASS_PARAMS:  # the class this page followed has ended: the page is the student's
            st.query_params.pop(name, None)
        session.pop(KEPT, None)
        session.pop(JOINED, None)
        if _store().replaced:
            st.warning(classroom.LOST, icon=":material/groups:")
        return None
    if found is None:  # a code that does not exist: a miss of this address (never a class that exists)
        client = compute.SERVING.client_address()
        classroom.GUESSED.missed(client)
        said = classroom.TOO_MANY if not classroom.GUESSED.allowed(client) else classroom._no_class(str(wanted))
        st.warning(plain(said), icon=":material/groups:")
        return None
    key = st.query_params.get("key")
    role = "follow"
    if key is not None:
        if _asked("is_lecturer", found.code, key):
            role = "lead"
        else:
            session[SAID] = "This link's key does not drive the class: you follow it as a student."
            key = None
    if (
        role == "follow"
        and session.get(JOINED) != found.code
        and _asked("students", found.code) >= classroom.MAX_FOLLOWERS
    ):
        st.warning(classroom.full_class(), icon=":material/groups:")
        return None
    session[KEPT] = (found.code, key)
    if role == "follow" and (session.get(JOINED) != found.code or session.pop(GO, False)):
        session[JOINED] = found.code
        _go_to(found, page)  # a page switch ends this run here
    session[JOINED] = found.code
    said = session.pop(SAID, None)
    if said:
        st.warning(said, icon=":material/key_off:")
    return Live(found.code, role, key, found)


def _go_to(found, page):
    """Open the lecturer's view, at the lecturer's step, unless it is on screen."""
    path, _, query = found.state["address"].partition("?")
    try:
        target = site.by_path(path)
    except ValueError:
        return
    params = dict(parse_qsl(query, keep_blank_values=True))
    if target.url_path == (page.url_path or "") and here(page.url_path or "") == found.state["address"]:
        return
    guide.forget_settings(target.key)
    for name in guide.VIEW:  # presenter mode and the text size too: the lecturer's default is no parameter
        st.session_state.pop(name, None)
        st.session_state.pop(f"w:{name}", None)
    params["class"] = found.code
    if found.state["step"]:
        params["step"] = str(found.state["step"])
    st.switch_page(target.file, query_params=params)


def start_button(page):
    """The sidebar's way to start a class (where the server runs the class's routes), and
    the report of the class this session ended, if one did."""
    if not classroom.SERVED or "class" in st.query_params:
        return
    note()
    ended = st.session_state.get(REPORT)
    if ended:
        code, records, when = ended
        report_buttons(code, lambda: records, "The report of the class you ended", when)
    st.sidebar.button(
        "Start a live class",
        key="live:start",
        icon=":material/groups:",
        on_click=_start,
        args=(page.url_path or "",),
        help="The students' screens follow yours: every step, scene, text size and presenter state. "
        "They can answer the board's questions; you see the class's answers.",
    )


def join_form():
    """Home's short way into a class: the code on the lecturer's join screen, typed by hand
    (any case, with or without the space or dashes), opens the class as its link does
    (:func:`enter` says so when no class has that code)."""
    if not classroom.SERVED or "class" in st.query_params:
        return
    with st.form("live-join", border=False, enter_to_submit=True):
        st.markdown("**In a live class?** Type the code on the lecturer's screen.")
        row = st.container(horizontal=True, vertical_alignment="bottom")
        typed = row.text_input(
            "Class code",
            max_chars=2 * classroom.CODE_LENGTH,
            placeholder="ABCD 2345",
            width=260,  # a code of 8: the page's whole width made it look like a search box
            help=f"The {classroom.CODE_LENGTH} letters and digits the lecturer's join screen shows.",
        )
        joined = row.form_submit_button("Join the class", icon=":material/groups:")
    if not joined:
        return
    code = classroom.normal_code(typed)
    if code is None:
        st.warning(
            f"A class code is {classroom.CODE_LENGTH} letters and digits, as the lecturer's screen shows it "
            f"(like ABCD 2345); {literal(typed)} is not one.",
            icon=":material/groups:",
        )
        return
    st.query_params["class"] = code
    st.rerun()


def report_buttons(code, records, title, when=None):
    """The lecturer's report of the class ``code`` in the sidebar: CSV and one HTML page,
    made from ``records()`` (:meth:`views.classroom.Store.report`) when a button is pressed."""

    def found():
        try:
            return records(), ""
        except (classroom.ClassError, OSError, sqlite3.Error) as error:
            return [], str(error)

    def csv_file():
        return class_report.csv_text(found()[0])

    def html_file():
        rounds, why = found()
        return class_report.html_page(rounds, f"Live class {classroom.shown_code(code)}", when, note=why)

    name = f"live-class-{code.lower()}"
    box = st.sidebar.container(key=f"live-report-{code}")
    box.caption(title + ": every question and prediction, counts only.")
    row = box.container(horizontal=True)
    row.download_button(
        "CSV",
        data=csv_file,
        file_name=f"{name}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table:",
        key=f"live:report-csv:{code}",
        help="A row per answer of every vote: counts, shares, the right answer, who moved to it.",
    )
    row.download_button(
        "HTML",
        data=html_file,
        file_name=f"{name}.html",
        mime="text/html",
        on_click="ignore",
        icon=":material/description:",
        key=f"live:report-html:{code}",
        help="One page that opens offline: each question's votes side by side, the share correct, the shift.",
    )


def _start(url_path):
    st.session_state.pop(REPORT, None)
    try:
        code, key = _store().start(here(url_path), compute.SERVING.client_address())
    except (classroom.ClassError, OSError, sqlite3.Error) as error:
        st.session_state["_live_note"] = str(error)
        return
    st.query_params["class"] = code
    st.query_params["key"] = key


def _end():
    """The lecturer ends the class (its report kept in the session first: the class's record
    goes with it); a student leaves it (the page stays as it is)."""
    code, key = st.session_state.get(KEPT) or (None, None)
    if key:
        try:
            st.session_state[REPORT] = (code, _store().report(code, key), _store().clock())
        except (classroom.ClassError, OSError, sqlite3.Error):
            pass  # (no report to keep: the class is ended below all the same)
        try:
            _store().drive(code, key, end=True)
        except (classroom.ClassError, OSError, sqlite3.Error):
            pass  # ended already, or its record lost: the page is the lecturer's again either way
    for name in CLASS_PARAMS:
        st.query_params.pop(name, None)
    st.session_state.pop(JOINED, None)
    st.session_state.pop(KEPT, None)


def _follow():
    st.session_state[GO] = True


def _ignore():
    """A component value's callback: the value is read where it is needed."""


def _question():
    """The current scene's multiple-choice question on this page, as ``(choices, right
    choice)``, or ``(0, 0)``."""
    guided = st.session_state.get(guide.SESSION)
    if not guided:
        return 0, 0
    scene = guided["lesson"].scene(guided["scene"])
    if guided.get("page") != scene.page or scene.question is None or scene.question.kind != "choice":
        return 0, 0
    return len(scene.question.choices), scene.question.answer


def bar(live, page, slot):
    """After the page ran: tell the class the lecturer's view, and draw the class's bar in
    ``slot`` (a container at the top of the page)."""
    shown = st.session_state.get(SHOWN_ADDRESS)  # the address the page's player shows (and tells)
    address = shown or here(page.url_path or "")
    choices, right = _question()
    if live.role == "lead":
        if choices != live.found.state["question"]:
            try:
                _store().drive(live.code, live.key, question=choices, **({"right": right} if choices else {}))
            except (classroom.ClassError, OSError, sqlite3.Error) as error:
                slot.warning(plain(str(error)))
                return
        report_buttons(live.code, lambda: _store().report(live.code, live.key), "This class's report")
    # the step this run opened on: a new page's or scene's (on the same page the player keeps its own)
    step, _ = step_of(st.query_params.get("step"), classroom.MAX_STEP)
    # The view goes to the class from the lecturer's browser, with the step on screen (the
    # steps are taken there): from its player, or from here (``player``: whether the page
    # has one) with ``step`` (live.js).
    data = {
        "code": live.code,
        "shown": classroom.shown_code(live.code),
        "role": live.role,
        "here": address,
        "player": shown is not None,
        "step": step,
        "scale": _text_scale(),
        "routes": "mpl/class/",
    }
    if live.role == "lead":
        link = _students_link(live.code)
        data.update(key=live.key, qr=_qr_svg(link), link=link, local=_local(link))
    with slot:
        _component()(
            key="live-class",
            data=data,
            on_follow_change=_follow,
            on_end_change=_end,
            on_tick_change=_ignore,
            height="content",
        )


def _text_scale():
    """The page's text size (``?text=125``) as a factor: the bar grows with the charts."""
    value, _ = read(TEXT, st.query_params.get("text", str(TEXT.default)))
    return (value or TEXT.default) / 100


def note():
    """A sentence left by starting a class that could not start."""
    said = st.session_state.pop("_live_note", None)
    if said:
        st.sidebar.warning(plain(said))


def _students_link(code):
    """The students' link: the app's address as the lecturer's browser reached it (its home
    page, which opens where the lecturer is)."""
    from streamlit import config

    parts = urlsplit(str(st.context.url or "http://localhost/"))
    base = config.get_option("server.baseUrlPath").strip("/")
    return urlunsplit((parts.scheme, parts.netloc, f"/{base}/" if base else "/", f"class={code}", ""))


def _local(link):
    """Whether ``link`` names the lecturer's own computer (students elsewhere cannot open it)."""
    host = urlsplit(link).hostname or ""
    return host == "localhost" or host.startswith("127.") or host == "::1"


def _qr_svg(link):
    """The QR code of ``link`` as SVG (segno), dark modules on white whatever the theme."""
    import segno

    return segno.make(link, error="m").svg_inline(border=2, dark="#000000", light="#ffffff", omitsize=True)


_COMPONENT = None


def _component():
    global _COMPONENT
    if _COMPONENT is None:
        from ui.component import player_base
        from views.player import PLAYER_DIR, filled_in

        script = filled_in((PLAYER_DIR / "live-boot.js").read_text(encoding="utf-8"), {"MODULES": player_base()})
        _COMPONENT = st.components.v2.component(
            "mpl_live_class",
            html="<div class='mpl-live'></div>",
            css=(Path(__file__).resolve().parent / "live.css").read_text(),
            js=script,
            isolate_styles=False,
        )
    return _COMPONENT
