"""The app's menu: Streamlit's ``st.Page`` for each page of the registry (:mod:`views.site`)."""

from __future__ import annotations

import copy
import threading

import streamlit as st

from views.site import PAGES

_MENU = []
_MENU_LOCK = threading.Lock()


def menu():
    """The menu's ``st.Page`` objects for this run.

    Made once per process and copied for each run: making one resolves its file's path
    (``realpath``), a cost on every run (the performance page says how much); a copy per run
    because ``st.navigation`` marks the chosen page on its object, and the sessions run at
    once."""
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
