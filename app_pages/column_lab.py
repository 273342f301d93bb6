"""Nystroem & column selection lab: greedy vs uniform vs ridge-leverage landmarks (Wang 2016, Fig. 1)."""

import streamlit as st

from ui import board
from views.pictures import column_lab as picture

INTRO = (
    "A Nyström approximation rebuilds the whole kernel from a few of its columns (the *landmarks*): "
    "L = C W⁺ C'. Which columns? Sparse KPCA picks them greedily; Wang 2016 samples them uniformly or by ridge "
    "leverage scores. This lab compares the choices on one kernel: how well L approximates K, and — for two-view "
    "data — how close Nyström KCCA gets to exact KCCA, with the paper's kernel-stability bound and the speed-up "
    "of its incremental algorithm (Wang 2016, Figure 1). Random methods are repeated; bands show the spread."
)


def view(state, display, settings, result, seconds):
    """The page's view at its settings (:func:`ui.board.study_page`)."""
    board.player(state, settings, result, picture.draw, display)
    if not result.two_view:
        st.info(
            "Pick a two-view dataset (two-view rings or digit halves) to add KCCA accuracy, kernel stability and "
            "the incremental speed-up.",
            icon=":material/info:",
        )

    formulas = board.formulas(state, "The formulas (Wang 2016)")
    if formulas.open:
        with formulas:
            board.equation(
                r"\begin{aligned}L &= K S (S^\top K S)^{+} S^\top K, \\"
                r"l_i(K,\gamma) &= \big(K(K + N\gamma I)^{-1}\big)_{ii},"
                r"\qquad p_i = \frac{l_i}{\sum_j l_j}\end{aligned}"
            )
            board.equation(
                r"\begin{aligned}T &= (\bar K_1 + N\lambda_1 I)^{-1}\bar K_1 "
                r"\bar K_2 (\bar K_2 + N\lambda_2 I)^{-1}, \\"
                r"\frac{\|\alpha - \tilde\alpha\|}{\sqrt N} &\le \Big(\frac12 + \frac{4\sqrt2}{r}\Big)"
                r"\frac{\|T - \tilde T\|}{N\lambda_1}\end{aligned}"
            )
            st.markdown(
                "**How many columns** (Thm 1): with M columns per view drawn with probabilities p_i ≥ β l_i / d_eff "
                "(β = 1 for the leverage scores, d_eff / (N max l_i) for uniform sampling), |ρ − ρ̃| ≤ ε with "
                "probability 1 − δ once, for some t in [0, 1),"
            )
            board.equation(
                r"\begin{aligned}M &\ge 2\Big(\frac{d_{\mathrm{eff}}}{\beta t^2} + \frac{1}{3t}\Big)"
                r"\log\frac{2N}{\delta},"
                r"\\ d_{\mathrm{eff}} &= \operatorname{tr}\big(K(K + N\gamma I)^{-1}\big),\quad "
                r"\gamma = \tfrac{\epsilon\lambda(1-t)}{2}\end{aligned}"
            )
            st.markdown(
                "K̄ = HKH is the centred kernel; ρ is the largest singular value of T, ρ̃ that of T̃ built from "
                "L₁, L₂ (eq. 15, never forming an N × N matrix). The kernel error of greedy columns is the trace "
                "of sparse KPCA's deflated kernel: pivoted Cholesky *is* Nyström on the chosen columns."
            )

    curves = result.table()  # not the result itself in the callable: it would outlive the run
    st.download_button(
        "Download the curves (CSV)",
        lambda: board.to_csv(curves),
        "column-selection.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help="Means over the repetitions at each computed rank.",
    )
    board.study_code(settings)
    st.caption(
        f"Computed on N = {result.m} training points, {result.repeats} repetitions, in {seconds:.2f} s "
        "(cached: stepping only redraws)."
    )
    state.write_url()


board.study_page(picture, INTRO, view, progress_text="Choosing columns and fitting Nyström approximations")
