"""Sparse kernel CCA: choose points whose columns agree in both views."""

import streamlit as st

from ui import board
from views.pictures import skcca as picture

INTRO = (
    "Two views of the same points (say, the left and right half of a digit). Choose the points whose kernel "
    "columns are most aligned in the two views, deflate both kernels, repeat; then find the directions in the "
    "span of the chosen points along which the two views correlate most. Its error is bounded like KMP's "
    "(Hussain et al. 2011, Alg. 3 and Thm 9)."
)


def view(state, display, settings, study, seconds):
    """The page's view at its settings (:func:`ui.board.study_page`)."""
    board.stop_note(study, display)
    board.player(state, settings, study, picture.draw, display)

    formulas = board.formulas(state, "The formulas (Hussain et al. 2011)")
    if formulas.open:
        with formulas:
            st.markdown("**Criterion** (eq. 14, Alg. 3 line 3): alignment of point i's columns in the two views")
            board.equation(
                r"i_{j+1} = \arg\max_i \frac{\langle K^x_j[:, i], K^y_j[:, i]\rangle}{\|K^x_j[:, i]\|\,\|K^y_j[:, i]\|}"
            )
            st.markdown("**Deflation** (Alg. 3): each view by its own column, τ = K_j[:, i]")
            board.equation(r"K_{j+1} = \Big(I - \frac{\tau\tau^\top}{\tau^\top\tau}\Big) K_j")
            st.markdown(
                "**Bound** (Thm 9): the KMP bound with l = the training pairs outside the compression set whose "
                "variates differ by more than α"
            )
            board.equation(
                r"\begin{aligned}\frac{2}{m-k-l}\Big[&(k+1)\log_2\frac{4e(m-k-l)}{k+1} + k\log_2\frac{em}{k} \\"
                r"&+ l\log_2\frac{e(m-k)}{l} + \log_2\frac{2m^2}{\delta}\Big]\end{aligned}"
            )

    board.take_away(state, settings, study, seconds)


board.study_page(picture, INTRO, view)
