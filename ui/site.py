"""The app's pages: file, title, menu icon, address and the page's own name (its
``PageState``), in the order of the lessons.  ``app.py`` builds its menu from this list;
the standalone export (:mod:`ui.export`) reads it to turn an address into a page and a
page into its title and address.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    file: str
    title: str
    icon: str
    url_path: str  # "" for Home
    key: str  # the page's own name (PageState)
    picture: str = ""  # the module of its picture (ui/pictures/), for a page with a step player
    stem: str = ""  # the name of the files it saves (downloads, code), when not its address

    @property
    def file_stem(self):
        return self.stem or self.url_path


# One flat list, in the order of the lessons: algorithms, then the labs, the theory and the
# papers.  (Streamlit draws sections as <div>s inside the menu's <ul>, which screen readers
# cannot read as a list: axe-core reports it as a serious violation.)
PAGES = (
    Page("app_pages/home.py", "Home", ":material/home:", "", "home"),
    Page("app_pages/lessons.py", "Guided lessons", ":material/school:", "lessons", "lessons"),
    Page("app_pages/sparse_kpca.py", "Sparse KPCA", ":material/blur_on:", "sparse-kpca", "skpca", "ui.pictures.skpca"),
    Page(
        "app_pages/kmp.py",
        "Kernel Matching Pursuit",
        ":material/show_chart:",
        "kmp",
        "kmp",
        "ui.pictures.kmp",
        "kernel-matching-pursuit",
    ),
    Page(
        "app_pages/sparse_kcca.py",
        "Sparse KCCA",
        ":material/compare_arrows:",
        "sparse-kcca",
        "skcca",
        "ui.pictures.skcca",
    ),
    Page(
        "app_pages/mpkfda.py",
        "Greedy Fisher (MPKFDA)",
        ":material/call_split:",
        "mpkfda",
        "mpkfda",
        "ui.pictures.mpkfda",
    ),
    Page(
        "app_pages/deflation_lab.py",
        "Deflation lab",
        ":material/layers:",
        "deflation-lab",
        "deflation-lab",
        "ui.pictures.deflation_lab",
    ),
    Page(
        "app_pages/column_lab.py",
        "Nyström & column selection",
        ":material/view_column:",
        "column-selection",
        "column-lab",
        "ui.pictures.column_lab",
    ),
    Page(
        "app_pages/bounds_explorer.py",
        "Bounds explorer",
        ":material/functions:",
        "bounds",
        "bounds",
        "ui.pictures.bounds",
    ),
    Page("app_pages/paper_figures.py", "Paper figures", ":material/menu_book:", "paper-figures", "paper-figures"),
    Page("app_pages/references.py", "References", ":material/format_quote:", "references", "references"),
)


def by_key(key):
    """The page whose own name is ``key`` (ValueError with the names when there is none)."""
    for page in PAGES:
        if page.key == key:
            return page
    raise ValueError(f"no page is called {key!r}; the pages are {', '.join(p.key for p in PAGES)}")


def by_path(path):
    """The page at the address path ``path`` ("/kmp", "kmp/", "" for Home), also when it
    is given by its own name ("skpca") or file ("app_pages/kmp.py")."""
    name = path.strip().strip("/")
    for page in PAGES:
        if name in (page.url_path, page.key, page.file, page.file.rsplit("/", 1)[-1]):
            return page
    raise ValueError(
        f"no page has the address {path!r}; the addresses are {', '.join('/' + p.url_path for p in PAGES)}"
    )


_MENU = []
_MENU_LOCK = threading.Lock()


def menu():
    """The menu's ``st.Page`` objects for this run.

    Made once per process and copied for each run: making one resolves its file's path
    (``realpath``), a cost on every run (the performance page says how much); a copy per run
    because ``st.navigation`` marks the chosen page on its object, and the sessions run at
    once."""
    import streamlit as st

    with _MENU_LOCK:
        if not _MENU:
            _MENU.extend(
                st.Page(
                    page.file,
                    title=page.title,
                    icon=page.icon,
                    url_path=page.url_path or None,
                    default=not page.url_path,
                )
                for page in PAGES
            )
        return [copy.copy(page) for page in _MENU]
