"""Matching Pursuit Lab: the entry point (`streamlit run app.py`).

A router and picture frame: it sets the page configuration, lists the pages by
section and runs the chosen one.  Every page lives in ``app_pages/`` and draws with
``ui/`` over the numerical core ``mpcore/``.

Why ``app_pages/`` and not ``pages/``: Streamlit (checked on 1.67) still treats a
``pages/`` folder beside the entry script as the old automatic multipage layout, and
a first visit straight to a page's address then runs that file without this router
(no wide layout, file names as the menu).  ``st.navigation`` works as documented once
the folder has another name.
"""
import streamlit as st

import ui.blas  # noqa: F401 - one BLAS thread per pool for the whole server (measured: see ui/blas.py)

# A presenter's link (?present=1) opens with the sidebar folded away: the charts get the screen.
PRESENTING = st.query_params.get("present", "").lower() in ("1", "true")
# An emoji icon: Streamlit draws it as an inline SVG (a material icon would be fetched from
# a font server, which a lecture hall without internet does not reach).
st.set_page_config(page_title="Matching Pursuit Lab", page_icon="🎯", layout="wide",
                   initial_sidebar_state="collapsed" if PRESENTING else "auto")

# One flat list, in the order of the lessons: algorithms, then the labs, the theory and the
# papers.  (Streamlit draws sections as <div>s inside the menu's <ul>, which screen readers
# cannot read as a list: axe-core reports it as a serious violation.)
PAGES = [
    st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("app_pages/sparse_kpca.py", title="Sparse KPCA", icon=":material/blur_on:", url_path="sparse-kpca"),
    st.Page("app_pages/kmp.py", title="Kernel Matching Pursuit", icon=":material/show_chart:", url_path="kmp"),
    st.Page("app_pages/sparse_kcca.py", title="Sparse KCCA", icon=":material/compare_arrows:", url_path="sparse-kcca"),
    st.Page("app_pages/mpkfda.py", title="Greedy Fisher (MPKFDA)", icon=":material/call_split:", url_path="mpkfda"),
    st.Page("app_pages/deflation_lab.py", title="Deflation lab", icon=":material/layers:", url_path="deflation-lab"),
    st.Page("app_pages/column_lab.py", title="Nyström & column selection", icon=":material/view_column:",
            url_path="column-selection"),
    st.Page("app_pages/bounds_explorer.py", title="Bounds explorer", icon=":material/functions:",
            url_path="bounds"),
    st.Page("app_pages/paper_figures.py", title="Paper figures", icon=":material/menu_book:",
            url_path="paper-figures"),
]

page = st.navigation(PAGES, expanded=True)
page.run()
