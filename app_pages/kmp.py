"""Kernel matching pursuit: a sparse regression or classifier built one basis function at a time."""

import numpy as np
import streamlit as st

from mpcore.experiments.vincent2002 import loss_curves
from ui import board
from views import figures
from views.pictures import kmp as picture

INTRO = (
    "Build a function $f(x) = \\sum_j \\alpha_j\\, k(x_{i_j}, x)$ one basis function at a time: choose the training "
    "point whose "
    "kernel column best fits what the current function still gets wrong, add it, refit. The model is determined "
    "by the chosen points, so its error has a sample-compression (VC) bound (Vincent and Bengio 2002; Hussain et al. "
    "2011, Alg. 5 and Thm 4)."
)


def view(state, display, settings, study, seconds):
    """The page's view at its settings (:func:`ui.board.study_page`)."""
    board.stop_note(study, display)
    board.player(state, settings, study, picture.draw, display)

    formulas = board.formulas(state, "The formulas (Vincent and Bengio 2002, Hussain et al. 2011)")
    if formulas.open:
        with formulas:
            st.markdown(
                "**Criterion** (Vincent and Bengio 2002, eq. 3 / eq. 7; Hussain et al. 2011, Alg. 5): the column "
                "that best "
                "fits the residual "
                "r = y − f. Pre-fitting scores the deflated columns, so it picks the best column *after* refitting."
            )
            board.equation(r"i_{j+1} = \arg\max_i \frac{|K_j[:, i]^\top r_j|}{\|K_j[:, i]\|}")
            st.markdown(
                "**Deflation** (pre-fitting; Hussain et al. 2011, Table I): project the chosen column τ = K_j[:, i] "
                "out of the dictionary"
            )
            board.equation(r"K_{j+1} = \Big(I - \frac{\tau\tau^\top}{\tau^\top\tau}\Big) K_j")
            st.markdown(
                "**KMP bound** (Hussain et al. 2011, Thm 4): with k basis points, l of the m − k other training "
                "points in "
                "error "
                "(|f(x) − y| > α), with probability 1 − δ the probability of error is at most"
            )
            board.equation(
                r"\begin{aligned}\frac{2}{m-k-l}\Big[&(k+1)\log_2\frac{4e(m-k-l)}{k+1} + k\log_2\frac{em}{k} \\"
                r"&+ l\log_2\frac{e(m-k)}{l} + \log_2\frac{2m^2}{\delta}\Big]\end{aligned}"
            )
            st.markdown(
                "The paper's log base is left open; base 2 follows from the 2^(−ε(m−k−l)/2) in its proof. "
                "The bound is on the probability that |f(x) − y| > α for a new point, not on the mean squared error."
            )
            st.markdown(
                "**Losses** (Vincent and Bengio 2002, sec. 3.2, Fig. 5) against the margin m = y f(x), for labels "
                "±1. The squared loss (1 − m)² also punishes large *positive* margins, so far points of the right "
                "class pull the fit; the tanh loss (0.65 − tanh m)², fitted by back-fitting, is bounded, like "
                "boosting's 1 − tanh(m) (Doom II). Drawn from the losses this page fits."
            )
            margins = np.linspace(-3.0, 3.0, 241)
            board.chart(
                figures.loss_shapes_figure(
                    margins,
                    loss_curves(margins),
                    names=("squared: (1 − m)²", "squared after tanh: (0.65 − tanh m)²", "Doom II: 1 − tanh(m)"),
                    title="Losses against the margin",
                    height=360,
                ),
                key="kmp-losses",
                caption="The squared loss rises on both sides of m = 1; the loss after tanh is lowest near m = 0.78 "
                "and rises only a little beyond it; Doom II's falls throughout and never exceeds 2.",
            )

    board.take_away(state, settings, study, seconds)


board.study_page(picture, INTRO, view)
