"""Deflation lab: one criterion, several deflations, side by side under one step slider."""

import numpy as np
import streamlit as st

from mpcore import DEFLATIONS
from mpcore.labs import ERROR_NAMES, LAB_CRITERIA, criterion_deflation_table
from ui import board
from ui.state import plain
from views import figures
from views.pictures import deflation_lab as picture

INTRO = (
    "The same data and the same criterion, with several ways to *deflate* the kernel after each pick, side by side. "
    "Deflation decides what the next pick sees: it should remove what the chosen point explains. Step through and "
    "watch which deflations keep the kernel symmetric and positive semi-definite, which wipe out the chosen "
    "column, and how the test error differs (Diethe 2015, sec. 3.2 and Figure 1)."
)


def view(state, display, settings, lab, seconds):
    """The page's view at its settings (:func:`ui.board.study_page`)."""
    family, k, split = settings.options["family"], settings.options["k"], lab.split
    stopped = {name: path.stop_reason for name, path in lab.paths.items() if path.stop_reason}
    if stopped:
        st.info(
            "Stopped early: "
            + "; ".join(
                f"**{name}** after {lab.paths[name].n_steps} steps ({why.split(':')[0]})"
                for name, why in stopped.items()
            ),
            icon=":material/info:",
        )
    board.player(state, settings, lab, picture.draw, display)

    st.subheader("Which deflations keep the kernel PSD, and why")
    st.markdown(
        "- **none** changes nothing, so K stays PSD — but the criterion never sees what was already explained.\n"
        "- **Schur complement** (eq. 17) `K − Kττ'K / τ'Kτ`: if K is the covariance of a random vector z, this is the "
        "covariance of z after removing its regression on τ'z — a covariance, so PSD. Several Schur steps give "
        "`K − KV(V'KV)⁻¹V'K` for V = [τ₁ … τₜ], which depends only on the span of the τ's; orthogonalising them "
        "(**ortho-Schur**, eq. 19) keeps the span, so it gives the same kernel and picks the same points (Mackey 2009, "
        "Prop. 2.2) — whether τ is read from the deflated kernel or from K₀ (try the sidebar). The paper reports "
        "different numbers for the two (e.g. reverse criterion: 0.275 against 0.245), which no reading of its text "
        "explains.\n"
        "- **ortho-projection** `(I − qq')K(I − qq')` is a congruence: `x'(I−qq')K(I−qq')x = z'Kz ≥ 0`, so PSD.\n"
        "- **projection** (eq. 16) `(I − ττ')K` is one-sided: the chosen column becomes exactly zero (that is what "
        "pre-fitting KMP and sparse KCCA need), but the matrix is no longer symmetric, so 'PSD' is lost — the table "
        "reports the smallest eigenvalue of its symmetric part.\n"
        "- **Hotelling** (eq. 15) `K − (τ'Kτ)ττ'` removes an eigen-pair only when τ is an eigenvector of K. A kernel "
        "column is not, so Hotelling over-subtracts in some directions and K turns indefinite (negative eigenvalues); "
        "orthogonalising (**ortho-Hotelling**, eq. 18) does not fix that."
    )

    formulas = board.formulas(state, "The formulas (Diethe 2015, eqs 15–19)")
    if formulas.open:
        with formulas:
            st.markdown(
                "With τ = K[:, i] / ‖K[:, i]‖ for the chosen i; the orthogonalised versions use "
                "q = (I − QQ')τ / ‖(I − QQ')τ‖ and append q to Q."
            )
            board.equation(  # each deflation beside its orthogonalised version (ortho-Hotelling, ...)
                r"\begin{array}{lll} & \text{on } \tau & \text{ortho-: on } q \\[4pt]"
                r"\text{Hotelling} & K - (\tau^\top K\tau)\,\tau\tau^\top & K - (q^\top Kq)\,qq^\top \\[4pt]"
                r"\text{projection} & (I-\tau\tau^\top)K & (I-qq^\top)K(I-qq^\top) \\[4pt]"
                r"\text{Schur} & K - \dfrac{K\tau\tau^\top K}{\tau^\top K\tau} & K - \dfrac{Kqq^\top K}{q^\top Kq}"
                r"\end{array}"
            )
            st.markdown(
                "The paper's tables say 'Ortho-projection' where its text defines orthogonalised Hotelling; the "
                "lab offers both."
            )

    st.subheader("Every criterion × every deflation (Diethe 2015, Figures 1 and 3)")
    st.markdown(
        f"The {ERROR_NAMES[family]} after k = {k} steps and the selection time, for each of the "
        f"{len(LAB_CRITERIA[family])} criteria × 7 deflations on the current data. The paper averages over "
        "13 benchmark sets; this is one split, so read the pattern, not the third digit."
    )
    data, kernel = settings.data, settings.kernel
    table_key = (data, kernel, family, int(k))
    tables = st.session_state.setdefault("_lab_tables", {})
    if st.button(
        "Compute the table",
        key="lab:table",
        icon=":material/table:",
        help=f"Runs {len(LAB_CRITERIA[family]) * len(DEFLATIONS)} greedy selections on the current data.",
    ):
        bar = st.progress(0.0, text="Running every criterion with every deflation...")
        try:
            tables[table_key] = criterion_deflation_table(
                split,
                int(k),
                family,
                kernel=kernel.kernel,
                gamma=kernel.gamma,
                degree=kernel.degree,
                progress=lambda done, total: bar.progress(done / total, text=f"{done} of {total} runs"),
            )
        except ValueError as error:
            st.error(f"Cannot compute the table: {plain(error)}", icon=":material/error:")
        bar.empty()
    if table_key in tables:
        table = tables[table_key]
        left, right = st.columns(2)
        with left:
            board.chart(
                figures.table_figure(
                    table["error"],
                    table["criteria"],
                    table["deflations"],
                    title=f"{ERROR_NAMES[family]} at k = {table['k']}",
                    colour_title=ERROR_NAMES[family].split()[-1],
                ),
                key="lab-table-error",
                caption="Outlined: the best deflation for each criterion.",
            )
        with right:
            board.chart(
                figures.table_figure(
                    1000 * table["seconds"],
                    table["criteria"],
                    table["deflations"],
                    title="selection time (ms)",
                    colour_title="ms",
                    fmt="{:.0f}",
                ),
                key="lab-table-time",
                caption="Time of the greedy selection alone (explicit m × m kernel); "
                "outlined: the fastest for each criterion.",
            )
        best = np.unravel_index(np.nanargmin(table["error"]), table["error"].shape)
        st.caption(
            f"Lowest: {table['criteria'][best[0]]} with {table['deflations'][best[1]]} ({table['error'][best]:.3g})."
        )

    errors = lab.error_table()  # not the lab itself in the callable: it would outlive the run
    st.download_button(
        "Download the error curves (CSV)",
        lambda: board.to_csv(errors),
        "deflation-lab-errors.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        help="One row per step k, one column per deflation.",
    )
    board.study_code(settings)
    board.speed_note(seconds, lab)
    state.write_url()


board.study_page(picture, INTRO, view)
