"""Matching Pursuit Lab: the entry point (`streamlit run app.py`).

A router and picture frame: it sets the page configuration, lists the pages
(``views/site.py``) and runs the chosen one.  Every page lives in ``app_pages/`` and draws with
``ui/`` over the numerical core ``mpcore/``.

Why ``app_pages/`` and not ``pages/``: Streamlit (checked on 1.67) still treats a
``pages/`` folder beside the entry script as the old automatic multipage layout, and
a first visit straight to a page's address then runs that file without this router
(no wide layout, file names as the menu).  ``st.navigation`` works as documented once
the folder has another name.

Why the page runs under ``if __name__ == "__main__"``: Streamlit runs this file as the
``__main__`` module, and multiprocessing's children (the server's study computations,
``serving/children.py``; large uploads, ``ui/choose.py``) load the parent's ``__main__``
file when they start -- its documented "safe importing of the main module".  Without the
guard each child would run the app.
"""

import streamlit as st

import ui.blas  # noqa: F401 - one BLAS thread per pool for the whole server (ui/blas.py says why)
from ui import compute, guide, live, menu, server_watch


def main():
    # A presenter's link (?present=1) opens with the sidebar folded away: the charts get the screen.
    presenting = st.query_params.get("present", "").lower() in ("1", "true")
    # An emoji icon: Streamlit draws it as an inline SVG (a material icon would be fetched from
    # a font server, which a lecture hall without internet does not reach).
    st.set_page_config(
        page_title="Matching Pursuit Lab",
        page_icon="🎯",
        layout="wide",
        initial_sidebar_state="collapsed" if presenting else "auto",
    )

    # Captions (a lesson's text under its preset, the dataset's summary, a card's provenance)
    # at 85% of the text's strength: Streamlit draws them at 60%, 3.9:1 against white in the
    # light theme and 3.0:1 for code in them (4.2:1 in the dark theme; axe-core, each scrolled
    # into view), under the 4.5:1 that text needs (WCAG AA).  At 85%: 8.4:1 and 5.5:1 (dark:
    # 11.2:1 and 7.1:1).  One style for every page.
    st.html(
        "<style>[data-testid='stCaptionContainer']{opacity:.85}"
        # a title breaks between words, never inside one ("Kernel matchin/g": a phone, and a
        # lesson's title row at 1280 px beside its About, toggle and text sizes); the row gives
        # the title at least its longest word; a phone gets a size that fits
        "h1{word-break:normal!important;overflow-wrap:normal!important;hyphens:auto}"
        ".st-key-title-row > div:first-child{min-width:min-content}"
        "@media (max-width:640px){h1{font-size:1.7rem!important}"
        # presenter mode is for a projector: a phone's first screen keeps its room for the chart
        ".st-key-w-present{display:none}}"
        # a finger's target (WCAG 2.5.5, 44 x 44 px) on a phone: the header's two buttons, the
        # buttons, switches and choices of the page and the sidebar; a heading's anchor link,
        # a mouse's 16 px target, is hidden there
        "@media (max-width:640px),(pointer:coarse){"
        "[data-testid=stHeader] button,[data-testid=stAppViewContainer] button{min-height:44px;min-width:44px}"
        "[data-testid=stCheckbox] label{min-height:44px;align-items:center}"
        "[data-baseweb=select]>div,[data-testid=stExpander] summary{min-height:44px}"
        "[data-testid=stHeaderActionElements]{display:none}}</style>"
    )

    # The menu, in the order of the lessons (views/site.py says why it is one flat list).
    page = st.navigation(menu.menu(), expanded=True)
    server_watch.watch()  # behind the class proxy: reopen the page if its process stops
    joined = live.enter(page)  # a live class's link: a student goes where the lecturer is
    guide.elsewhere(page)  # a lesson named on a page without scenes opens on its scene's page
    bar = st.container() if joined else None  # the class's bar, above the page
    if not joined:
        live.start_button(page)  # at the top of the sidebar, under the menu
    try:
        with compute.page_turn():  # in turns when a class opens pages at once (serving/lines.py)
            page.run()
    finally:
        compute.after_page()
    if joined:
        live.bar(joined, page, bar)


if __name__ == "__main__":  # not in multiprocessing's children (above)
    main()
