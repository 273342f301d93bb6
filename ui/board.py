"""Showing a study: the page's title row (presenter mode, text size), the step player
mounted with its payload and lesson line, charts drawn by Streamlit (text size and
theme applied), captions and notes, the downloads and Copy as code.
"""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui import choose, component, compute, guide
from ui.state import SHOWN_ADDRESS, PageState, plain, view_address
from views import code, lessons, pictures, site
from views.controls import format_value
from views.figures import EXPORT_CONFIG, after_steps, themed
from views.pictures.settings import PRESENT, TEXT, TEXT_SIZES, step_of
from views.player import text_of, with_step

# Presenter mode: the page starts at the top of the screen, under Streamlit's header bar,
# which stays for its two buttons (the sidebar's ">>" at the left, the menu with the theme
# at the right) but lets every other click through to the title row beneath it.
PRESENTER_CSS = (
    "<style>.stMainBlockContainer{padding-top:0.4rem;padding-bottom:0.5rem}"
    ".stMainBlockContainer [data-testid='stVerticalBlock']{gap:0.45rem}"
    "header[data-testid='stHeader']{background:transparent;pointer-events:none}"
    "header[data-testid='stHeader'] *{pointer-events:none}"
    "header[data-testid='stHeader'] :is(button,a,[role=button]),"
    "header[data-testid='stHeader'] :is(button,a,[role=button]) *{pointer-events:auto}"
    ".st-key-title-row{padding-right:3rem}.st-key-title-row h1{font-size:1.55rem;padding:0}"
    # One line: a long title wrapped under the pinned step controls and lost its second line
    # (1280x720 at 150%); cut short with an ellipsis instead, the full title in the tab.
    ".st-key-title-row > div:first-child{min-width:0}"
    ".st-key-title-row h1{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}</style>"
)


def page_top(state: PageState, title, summary):
    """The page's title with presenter mode and text size beside it (both in the URL:
    ``?present=1&text=125``), then what the page teaches -- folded into an "About"
    button in presenter mode and in a lesson's scene.  Returns ``(present, text_scale)``.

    Presenter mode collapses the sidebar (on opening such a link), pins the step controls
    and fits the step's main charts on one screen; the text size scales every chart."""
    # One block for the title row and the intro, folded or not: the page's view (a fragment,
    # :func:`study_page`) then keeps its place among the page's blocks, and Streamlit keeps
    # its player (a block that moves is made anew: the player lost its step and the keys).
    top = st.container()
    row = top.container(horizontal=True, vertical_alignment="center", key="title-row", gap="medium")
    state.title_row = row  # the player adds its Save button here
    present = state.resolve(PRESENT)
    heading = row.container(width="stretch")
    heading.title(title)
    about = None
    if present:
        st.html(PRESENTER_CSS)
    # presenter mode and a lesson's scene (its narration is the text; a phone shows the chart
    # on its first screen) fold the intro into "About"
    folded = bool(present) or "lesson" in st.query_params
    if folded:
        about = row.popover("About", icon=":material/info:", help="What this page shows")  # filled below
    present = state.widget(
        row.toggle,
        PRESENT,
        "Presenter mode",
        width="content",
        help="For a projector: sidebar folded away, intro folded, step controls at the top and "
        "the step's main charts on one screen. In a link: ?present=1.",
    )
    text = state.widget(
        row.segmented_control,
        TEXT,
        "Text size",
        options=TEXT_SIZES,
        width="content",
        format_func=lambda v: f"{v}%",
        label_visibility="collapsed",
        help="Size of the text in every chart, the intro and the formulas (100%, 125% or 150%), for the back "
        "of the room.",
    )
    grows = bool(text) and text != 100
    places = ([("about", about)] if about is not None else []) + ([("intro", top)] if not folded else [])
    for name, where in places:  # the intro, in "About" or under the title; keyed (to grow)
        # only when it grows: a container costs every run
        (where.container(key=f"grows-{name}-{state.page}") if grows else where).markdown(summary)
    if grows:
        st.html(grows_css(text / 100))
    state.guide = guide.read(state)
    guide.sidebar(state)
    return bool(present), (text or 100) / 100


def study_page(picture, intro, view, progress_text=None):
    """A page that shows a study (``picture``: its module in :mod:`views.pictures`), in order:
    the title row (the page's title in :mod:`views.site`, presenter mode, text size) and the
    ``intro``, the notes about the link, the lesson picker, the data and kernel, the page's
    own controls under their heading; then its view: the study computed
    (``progress_text``: see :func:`ui.compute.compute_study`) and drawn by
    ``view(state, display, settings, study, seconds)``.

    The view is a fragment of the page: a setting that changes only values (the same widgets
    shown, :class:`Quick`) reruns the view alone, read from the page's address as every
    opening of it is (:func:`views.pictures.read_address`), and the rest of the page stays on
    screen.  A setting that changes which widgets the page shows (another dataset, kernel or
    family) reruns the page."""
    page = site.by_key(picture.PAGE)
    state = PageState(picture.PAGE)
    choose.open_on_preset(state)
    display = page_top(state, page.shown_title, intro)
    state.notes_here()
    choose.preset_picker(state)
    if state.guide is None:  # a lesson's scene has its own settings: any change reruns the page
        state.quick = Quick(state)
    data = choose.data_sidebar(state, picture.TASKS, preset=picture.DATA)
    kernel = choose.kernel_sidebar(state, data)
    st.sidebar.header(page.controls)
    settings = picture.read(choose.Sidebar(state), data, kernel)
    views = st.session_state
    drawn = state.query()
    views[Quick.view(picture.PAGE)] = {"query": drawn, "drawn": drawn, "quick": False}  # (a change replaces "query")

    @st.fragment(key=Quick.fragment(picture.PAGE))
    def shown():
        here, now = state, settings
        current = views.get(Quick.view(picture.PAGE)) or {}
        if current.get("quick"):
            here, now = _moved(state, current)
        choose.data_note(here, now.data)
        study, seconds = compute.compute_study(now, here, progress_text)
        view(here, display, now, study, seconds)

    shown()


class Quick:
    """The settings of the page of ``state`` whose change redraws the page's view in place
    (its fragment, :func:`study_page`) rather than the page: each control it reads but the
    dataset (whose change brings its own width, size and options, kept per dataset in the
    session), while the view is one an address can say (not an upload's)."""

    def __init__(self, state: PageState):
        self.state = state
        self.page = state.page
        self.names = frozenset(control.name for control in pictures.controls(state.page)) - {"data"}

    @staticmethod
    def view(page):
        """The session's key of the view ``page`` shows: the query drawn by the page's last
        run, the query since changed in place, and whether it was."""
        return f"{page}:view"

    @staticmethod
    def fragment(page):
        return f"view-{page}"

    def changed(self, control, value):
        """A widget's callback: ``control`` now has ``value``; rerun the view alone."""
        if not self.state.linkable:
            return
        current = st.session_state.get(self.view(self.page))
        value = tuple(value) if control.kind is tuple else value
        written = format_value(value)
        if not current or control.parse(written) != value:  # (an empty choice: the address cannot say it)
            return
        if current["query"].get(control.name, format_value(control.default)) == written:
            return  # no change of the view's (a widget's state sent again)
        current["query"] = {**current["query"], control.name: written}
        current["quick"] = True
        try:
            st.rerun(self.fragment(self.page))
        except StreamlitAPIException:  # the page's last run did not reach its view: the page reruns
            current["quick"] = False


def _moved(state, current):
    """The page's state and settings at the view's changed query, read as an address is;
    the page reruns instead when it would draw other widgets than those on screen."""
    if not state.linkable:
        st.rerun()  # (an upload's view: the address cannot say it)
    try:
        if "controls" not in current:
            current["controls"] = pictures.read_address(state.page, current["drawn"])[1].controls()
        settings, address = pictures.read_address(state.page, current["query"])
    except ValueError:
        st.rerun()  # the page says why, beside its widgets
    if address.notes or address.controls() != current["controls"]:
        st.rerun()
    return state.at(address), settings


def stop_note(study, display):
    """Why the path stopped before k steps, if it did (a line, not a box, on a projector)."""
    if study.path.stop_reason:
        text = f"Stopped early {after_steps(study.n_steps)}: {study.path.stop_reason}"
        if display[0]:
            st.markdown(plain(text))  # one line; a caption's grey is below 4.5:1 on white
        else:
            st.info(text, icon=":material/info:")


def step_from_url(state: PageState, n_steps):
    """The step the URL asks for, clamped to 0..n_steps (the browser keeps the URL's
    ``step`` in line with the step it shows, and sends it with every rerun)."""
    value, note = step_of(st.query_params.get("step"), n_steps)
    if note is not None:
        state.notes.append(note)
    state.remember("step", value, 0)
    return value


def player(state: PageState, settings, study, draw, display):
    """Mount the step player for ``study`` at ``settings`` (a :class:`views.pictures.settings.Settings`):
    ``draw(settings, study)`` (the page's picture, :mod:`views.pictures`) is called once per
    study and display, its payload kept server-wide, bounded, for every session.  When the
    view is one of the page's presets, its name and lesson (with the picture's numbers)
    head the board and its name shows in the sidebar's picker; a guided lesson's scene
    heads it instead.  Returns the step shown."""
    present, text_scale = display

    gz, n_steps, numbers = compute.payload_of(settings, study, draw)
    step = step_from_url(state, n_steps)
    matched = choose.current_preset(state)
    lesson = (matched.name, matched.text(numbers)) if matched is not None else None
    choose.fill_preset_picker(state, matched, lesson[1] if lesson else "")
    if state.guide is not None:  # a guided lesson's scene heads the board instead
        lesson = guide.head(state.guide, numbers)
        state.notes += [lessons.not_here(name) for name in guide.unknown_settings(state, state.guide)]

    # The payload with this view's step, lesson and display, for a saved demo: made only when
    # the demo is saved (merging a study's megabytes of JSON on every run was a large share
    # of the server's CPU per open of a cached lesson: the performance page).
    on_screen = min(max(component.shown_step(f"{state.page}:player", step), 0), n_steps)

    def shown():
        return with_step(text_of(gz), on_screen, lesson, present, text_scale)

    # The view's address, as a live class names it: the player tells it with each step, and
    # the class's bar after the page uses this same one (ui/live.py).
    address = view_address(site.by_key(state.page).url_path, state.query())
    st.session_state[SHOWN_ADDRESS] = address
    move = component.show(
        gz,
        f"{state.page}:player",
        step,
        lesson,
        present,
        text_scale,
        scenes=state.guide is not None,
        addresses=state.reopening_queries() if state.linkable else (),
        page=state.page,
        private=not state.linkable,
        address=address,
        # a lesson's scene changes its settings through its page (its notes, its "Try it")
        settings=pictures.followed(state.page) if state.guide is None else (),
        values=pictures.view_values(state.url),
    )
    if move and 1 <= state.guide["scene"] + (1 if move > 0 else -1) <= len(state.guide["lesson"].scenes):
        guide.go(state.guide["scene"] + (1 if move > 0 else -1))
        guide.follow()
    save_buttons(state, shown, matched.name if matched is not None and state.guide is None else "")
    return step


def save_buttons(state: PageState, shown, name):
    """The title row's "Save" menu: this demo, and the page's presets as one lesson, each
    as one HTML file that runs with no server and no network (:mod:`views.export`).  Made
    when clicked, not on every run; ``shown()`` gives the payload of the view on screen."""
    from views import export
    from views.presets import PRESETS

    row = getattr(state, "title_row", None)
    if row is None:
        return
    # No tooltip on the button: in presenter mode it stayed open over the menu's first item
    # while the mouse was on that item (seen in Chromium at 1280x720, 125%); the menu says it.
    # Its key names the menu for the player, which tells the server the step on screen when
    # Save is pressed (static/player/streamlit.js): the demo is saved at that step, not at the last run's.
    # Its items are made only while it is open (opening it reruns the page, as the player's
    # step does): made on every run, they cost every page open for the few who open it.
    menu = row.popover("Save", icon=":material/download:", key="save-menu", on_change="rerun")
    if not menu.open:
        return
    scene = export.scene_from_page(state, "", name)  # the settings now; the payload when saved
    app_url = export.app_base(st.context.url, state.page)
    stem = export.file_stem(scene)
    with menu:
        st.download_button(
            "This demo (.html)",
            data=lambda: export.standalone([replace(scene, payload=shown())], app_url=app_url),
            file_name=f"{stem}.html",
            mime="text/html",
            on_click="ignore",
            icon=":material/slideshow:",
            width="stretch",
            help="The player with every step of this study, at these settings.",
        )
        presets = PRESETS.get(state.page, ())
        if presets:
            st.download_button(
                f"This page's {len(presets)} lessons (.html)",
                on_click="ignore",
                data=lambda: export.lesson_of_page(state.page, app_url),
                file_name=f"{export.file_stem(None, state.page)}-lessons.html",
                mime="text/html",
                icon=":material/library_books:",
                width="stretch",
                help="Every preset of this page as a scene of one file: PageDown past a scene's last "
                "step opens the next. Takes a few seconds the first time.",
            )
        if state.guide is not None:
            key = state.guide["key"]
            st.download_button(
                f"This guided lesson's {len(state.guide['lesson'].scenes)} scenes (.html)",
                on_click="ignore",
                data=lambda: export.guided_lesson_file(key, app_url),
                file_name=f"{export.lesson_stem(key, state.guide['lesson'])}.html",
                mime="text/html",
                icon=":material/school:",
                width="stretch",
                help="Every scene of the lesson, with its narration and questions, in one file: "
                "PageDown past a scene's last step opens the next. Takes a while the first time.",
            )
        st.caption(
            "One HTML file that needs no server and no network (a lecture-hall PC, a slide's iframe, a "
            "course site): it opens in any browser, offline, and keeps the step in its address. From a script: "
            '`mplab export "<this page\'s address>" --out demo.html` (in a clone: `python -m views.export`).'
        )


def _scale_fonts(value, scale):
    if isinstance(value, dict):
        for name, item in value.items():
            if name.endswith("font") and isinstance(item, dict) and isinstance(item.get("size"), (int, float)):
                item["size"] = round(item["size"] * scale)
            _scale_fonts(item, scale)
    elif isinstance(value, list):
        for item in value:
            _scale_fonts(item, scale)


def chart(fig, key, caption=None):
    """A Plotly figure with the SVG export button, and an optional caption for those who
    cannot see the chart.  Its text follows the page's text size (the player's charts
    scale themselves in the browser)."""
    scale = st.session_state.get(TEXT.name, 100) / 100
    fig = fig.to_plotly_json()
    if scale != 1:
        _scale_fonts(fig["layout"], scale)
        _scale_fonts(fig["data"], scale)
        fig["layout"]["height"] = round((fig["layout"].get("height") or 450) * scale)
    fig = themed(fig, st.context.theme.type == "dark")
    st.plotly_chart(fig, key=key, config=EXPORT_CONFIG, theme=None)
    if caption:
        st.caption(caption)


def to_csv(columns):
    """CSV text from a dict of equal-length columns."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    names = list(columns)
    writer.writerow(names)
    values = [np.asarray(columns[name]) for name in names]
    for row in zip(*values):
        writer.writerow([f"{v:.6g}" if isinstance(v, (float, np.floating)) else v for v in row])
    return buffer.getvalue()


def code_menu_key(stem):
    """The widget key of the "Copy as code" menu of the view ``stem``."""
    return f"code-menu-{stem}"


def copy_as_code(script, stem, where=None):
    """A "Copy as code" popover: the script that recomputes this view (``views.code``; made by
    ``script()``), with a copy button (Streamlit's, on the code block) and a download.  The
    menu's items are made only while it is open (opening it reruns the page): made on every
    run, they cost every page open for the few who open it."""
    box = (where or st).popover(
        "Copy as code",
        icon=":material/code:",
        help="A Python script (mpcore and scikit-learn only) that recomputes the numbers "
        "of this view from the same settings.",
        key=code_menu_key(stem),
        on_change="rerun",
    )
    if not box.open:
        return
    text = script()
    with box:
        st.caption("Recomputes this view's numbers with mpcore; the last line it prints is NUMBERS = {...}.")
        st.code(text, language="python")
        st.download_button(
            "Download as a .py file",
            lambda: text,
            f"{stem}.py",
            mime="text/x-python",
            on_click="ignore",
            icon=":material/download:",
            key=f"code-{stem}",
        )


def study_code(settings, where=None):
    """:func:`copy_as_code` for a page whose view is a study (``settings``: its
    :class:`views.pictures.settings.Settings`)."""
    data = settings.data
    upload = (
        data.name[len(choose.UPLOAD_PREFIX) :].rsplit(" [", 1)[0]
        if data.name.startswith(choose.UPLOAD_PREFIX)
        else None
    )
    query = st.query_params.to_dict()
    page = site.by_key(settings.page)
    copy_as_code(
        lambda: code.study_script(
            settings.page, page.title, data, settings.kernel, settings.options, query=query, upload_name=upload
        ),
        page.file_stem,
        where,
    )


def take_away(state: PageState, settings, study, seconds):
    """Under a study page: "Download the data" and "Copy as code" side by side, how long the
    study took, and the address written with every setting."""
    row = st.container(horizontal=True)
    downloads(study, site.by_key(settings.page).file_stem, where=row)
    study_code(settings, where=row)
    speed_note(seconds, study)
    state.write_url()


def grows_css(scale):
    """The text size for the page's own text too: the formulas box (:func:`formulas`, its
    prose 14 px at 100%), the intro and any container keyed ``grows-...`` (16 px).  They
    stayed at their size at 150%, and so did the equations (16 px), beside charts whose
    text was 21 px."""
    formulas, grows = "[class*='st-key-formulas-']", "[class*='st-key-grows-']"
    return (
        f"<style>{formulas} :is(p,li){{font-size:{0.875 * scale:g}rem}}"
        f"{grows} :is(p,li){{font-size:{scale:g}rem}}"
        f":is({formulas},{grows}) .katex-display{{font-size:{scale:g}rem}}</style>"
    )


def equation(tex, where=None):
    """A displayed equation (``st.latex``) with a thin space after it.  KaTeX lets a
    sub- or superscript at an equation's right end stick out by 2 px, which makes the
    equation's box a scrollable region that cannot take the focus (axe-core's
    "scrollable-region-focusable", serious); the space keeps it inside."""
    (where or st).latex(tex + r"\,")


def formulas(state: PageState, title):
    """The page's formulas, in an expander whose contents the page makes only while it is
    open (opening it reruns the page): its text and equations would otherwise be sent on
    every run, for the few who open it.  Use as
    ``box = formulas(state, title)``, then ``if box.open: with box: ...``."""
    return st.expander(title, icon=":material/function:", key=f"formulas-{state.page}", on_change="rerun")


def data_menu_key(stem):
    """The widget key of the "Download the data" menu of the view ``stem``."""
    return f"data-menu-{stem}"


def downloads(study, stem, where=None):
    """A "Download the data" menu: the path and the curves as CSV.  Its items are made only
    while it is open, like "Copy as code"."""
    box = (where or st).popover(
        "Download the data",
        icon=":material/download:",
        help="The path (one row per chosen point) and the curves (one row per t), as CSV.",
        key=data_menu_key(stem),
        on_change="rerun",
    )
    if not box.open:
        return
    # The tables now (a few kB), the CSV text when clicked: a callable that kept the study
    # would keep every session's study alive.
    path, curves = study.path_table(), study.curves.table()
    box.download_button(
        "Download the path (CSV)",
        lambda: to_csv(path),
        f"{stem}-path.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help="One row per chosen point: step, index, dataset row, criterion value.",
    )
    box.download_button(
        "Download the curves (CSV)",
        lambda: to_csv(curves),
        f"{stem}-curves.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help="For t = 1..k: every error curve, every bound and its running minimum.",
    )


def speed_note(seconds, study):
    st.caption(
        f"Computed {study.n_steps} steps on m = {study.m} training points in {seconds:.2f} s "
        "(cached: stepping only redraws)."
    )
