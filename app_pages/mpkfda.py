"""Greedy kernel Fisher discriminant (MPKFDA): a sparse Fisher classifier."""

import streamlit as st

from ui import board
from views.pictures import mpkfda as picture

INTRO = (
    "Choose the training point whose kernel column alone separates the two classes best (the Fisher ratio), "
    "deflate the kernel, repeat; then train a Fisher discriminant on the chosen points. The sparse classifier "
    "has a bound from its class means and variances on the points it did not choose (Diethe 2015, Alg. 1 and Thm 1)."
)


def view(state, display, settings, study, seconds):
    """The page's view at its settings (:func:`ui.board.study_page`)."""
    board.stop_note(study, display)
    board.player(state, settings, study, picture.draw, display)

    formulas = board.formulas(state, "The formulas (Diethe 2015)")
    if formulas.open:
        with formulas:
            st.markdown("**Criterion** (eq. 7): the Fisher ratio of column i, with B the within-class scatter of eq. 2")
            board.equation(r"i_{j+1} = \arg\max_i \frac{(K_j[:, i]^\top y)^2}{K_j[:, i]^\top B\, K_j[:, i]}")
            st.markdown(
                "**Deflations** (eqs 15–17), τ = K[:, i]/‖K[:, i]‖; the orthogonalised ones (eqs 18–19) first "
                "orthogonalise τ against the earlier τ's:"
            )
            board.equation(
                r"\begin{array}{rl}\text{Hotelling: } & K - (\tau^\top K\tau)\,\tau\tau^\top \\[4pt]"
                r"\text{projection: } & (I - \tau\tau^\top)K \\[4pt]"
                r"\text{Schur: } & K - \dfrac{K\tau\tau^\top K}{\tau^\top K\tau}\end{array}"
            )
            st.markdown(
                "**Bound** (Thm 1): per class c, with s_c the margin of the class's projected mean past the "
                "threshold, S_c its projected variance, and A, B the estimation terms of eq. 10 on the n_c "
                "points of the class outside the compression set:"
            )
            board.equation(
                r"\begin{aligned}P(\text{error on } c) &\le 1 - \frac{s_c^2}{w^\top S_c w + B_c + s_c^2}, \\"
                r"A &= \frac{R}{\sqrt{n_c}}\Big(2 + \sqrt{k\ln\frac{em}{k} + 2\ln\frac{2m}{\delta'}}\Big), \\"
                r"B &= \frac{2R^2}{\sqrt{n_c}}"
                r"\Big(2 + \sqrt{k\ln\frac{em}{k} + 2\ln\frac{4m}{\delta'}}\Big)\end{aligned}"
            )
            st.markdown("s_c is shrunk by A; δ' = δ/2 per class; the total is weighted by the class priors.")

    board.take_away(state, settings, study, seconds)


board.study_page(picture, INTRO, view)
