"""Figures of the paper reproductions (:mod:`mpcore.experiments`): an ``Experiment`` in,
a list of Plotly figures out.  Shared by the Paper figures page and by
``python -m views.paper_figures`` (the core's command with the figures added; no Streamlit here)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mpcore.curves import LOCAL_OPERATOR, LOCAL_PRINTED
from mpcore.experiments import FIGURES, KMP_PICTURE_METHODS, KMP_SVM_METHODS, USPS_METHODS
from mpcore.experiments.hussain2011 import PAPER_000_SKPCA_ARGMINS
from mpcore.experiments.report import FIGURE_HOOK, item_page, short, write_whole
from mpcore.experiments.vincent2002 import LINEAR_PICTURE_METHODS, MARGIN_LOSSES, TRADITIONAL_LOSSES
from mpcore.experiments.wang2016 import COLUMN_EXPERIMENT_METHODS

from . import figures as F


def _curves(result, names):
    return {name: result.table[name] for name in names if name in result.table}


def _spreads(result, names):
    return {
        name: (result.table[f"{name} (min)"], result.table[f"{name} (max)"])
        for name in names
        if f"{name} (min)" in result.table
    }


def _runs_note(result, what):
    count = result.settings.get("splits", result.settings.get("seeds", 1))
    if count == 1:
        return f"one {what.rstrip('s')}"
    return f"mean of {count} {what} (band: min to max)"


def _bound_lines(result, names, *, x="t", x_title, y_title, title, bounds, log_y=False, what="splits"):
    names = [name for name in names if name in result.table]
    fig = F.lines_figure(
        result.table[x],
        _curves(result, names),
        x_title=x_title,
        y_title=y_title,
        title=f"{title} — {_runs_note(result, what)}",
        log_y=log_y,
        dashed=bounds,
        spreads=_spreads(result, names),
        markers=False,
    )
    smallest_bound = np.nanmin([np.nanmin(result.table[name]) for name in bounds if name in result.table])
    F.mark_trivial(fig, result.table[x], log_y=log_y, cap=max(2.5, 1.25 * float(smallest_bound)))
    return fig


def kmp_bound(result, view):
    alpha = result.findings.get("alpha (mean over splits)", float("nan"))
    curves = _bound_lines(
        result,
        ["test error rate", "train error rate outside compression set", "KMP bound"],
        x_title="t (basis vectors)",
        y_title=f"rate of |f(x) − y| > α (α = {alpha:.2f})",
        title="KMP bound and test error",
        bounds=("KMP bound",),
    )
    a = result.arrays
    if "bound argmins" not in a:
        return [curves]
    spread = F._new_figure()
    for i, (key, label) in enumerate((("bound argmins", "KMP bound"), ("test error argmins", "test error"))):
        spread.add_trace(
            F._trace(
                go.Box,
                x=a[key],
                name=label,
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                orientation="h",
                marker={"color": F.CURVE_COLOURS[2 * i], "size": 9},
                line={"color": F.CURVE_COLOURS[2 * i], "width": 3},
                hovertemplate="argmin %{x}<extra>" + label + "</extra>",
            )
        )
    F._style(
        spread,
        f"Where each is lowest, one point per split ({a['bound argmins'].size} splits)",
        "t at the minimum (basis vectors)",
        None,
        legend=False,
        height=320,
    )
    spread.update_yaxes(automargin=True)
    if "sweep_settings" not in a:
        return [curves, spread]
    s = result.settings
    rows, cols = list(s["datasets"]), [f"γ {g:g}/d, α {al:g} sd" for g in s["gamma_factors"] for al in s["alpha_sds"]]
    excess = (a["sweep_there"] / a["sweep_lowest"] - 1).reshape(len(rows), len(cols)) * 100
    mark = np.where(np.isnan(a["sweep_predicted"]), "–", np.where(a["sweep_predicted"] == 1, "✓", "✗"))
    text = [
        [f"{m} {v:.0f}%" if np.isfinite(v) else m for m, v in zip(mr, vr)]
        for mr, vr in zip(mark.reshape(len(rows), len(cols)), excess)
    ]
    sweep = F.table_figure(
        excess,
        rows,
        cols,
        text=text,
        colour_title="% above",
        title="Each app setting: test error at the bound's argmin",
    )
    return [curves, spread, sweep]


def skpca_bounds(result, view):
    log = bool(view.get("log"))
    local = [LOCAL_PRINTED, LOCAL_OPERATOR, "local Rademacher bound (k² reading)"]
    names = [
        "test residual",
        "train residual outside compression set",
        "compression bound",
        "global Rademacher bound",
    ] + (local if log else [])
    bounds = ("compression bound", "global Rademacher bound", *local)
    what = "splits" if "splits" in result.settings else "draws"
    curves = _bound_lines(
        result,
        names,
        x_title="t (basis vectors / dimensions)",
        y_title="residual ‖φ(x) − Pφ(x)‖²",
        title="Sparse KPCA bounds" + (" (log axis)" if log else ""),
        bounds=bounds,
        log_y=log,
        what=what,
    )
    a = result.arrays
    if log or "sweep" not in a:
        return [curves]
    name = str(a["sweep_name"])
    rows = ["compression bound", "global Rademacher bound"]
    paper = PAPER_000_SKPCA_ARGMINS[
        result.name
        if result.name in PAPER_000_SKPCA_ARGMINS
        else {"hussain2011-fig4": "hussain2011-fig2", "hussain2011-fig5": "hussain2011-fig3"}[result.name]
    ]
    argmins = a["sweep"].T
    distance = np.array(
        [
            np.abs(argmins[r] - paper[row]) if row in paper else np.full(argmins.shape[1], np.nan)
            for r, row in enumerate(rows)
        ]
    )
    text = [["" if not np.isfinite(v) else f"{v:.0f}" for v in row] for row in argmins]
    labels = [f"{row} (paper {paper[row]})" if row in paper else row for row in rows]
    sweep = F.table_figure(
        distance,
        labels,
        [f"{name} {v:g}" for v in a["sweep_values"]],
        text=text,
        colour_title="from paper",
        height=340,
        title=f"Argmin per {name} (median; outlined: nearest the paper)",
    )
    return [curves, sweep]


def skcca_vs_kcca(result, view):
    names = [name for name in result.table if not name.endswith(")") and name != "dimensions"]
    colours = {name: F.CURVE_COLOURS[i % len(F.CURVE_COLOURS)] for i, name in enumerate(names)}
    colours["SKCCA"] = F.OKABE_ITO["black"]
    fig = F.lines_figure(
        result.table["dimensions"],
        _curves(result, names),
        x_title="dimensions (KCCA) / basis vectors (SKCCA)",
        y_title="mean test ‖P_x(x) − P_y(y)‖",
        title=f"Sparse KCCA against KCCA — {_runs_note(result, 'splits')}",
        dashed=tuple(n for n in names if n != "SKCCA"),
        spreads=_spreads(result, names),
        markers=False,
        colours=colours,
    )
    return [fig]


def skcca_bound(result, view):
    alpha = result.settings.get("alpha", 1.0)
    return [
        _bound_lines(
            result,
            ["test error rate", "train error rate outside compression set", "SKCCA bound"],
            x_title="t (basis vectors)",
            y_title=f"rate of |f_x − f_y| > α (α = {alpha:g})",
            title="Sparse KCCA bound, first direction",
            bounds=("SKCCA bound",),
            what="data sets",
        )
    ]


#: Diethe 2015's criterion x deflation tables: what each figure shows, its format and the paper's figure.
_TABLES = {
    "AER": ("error rate", "{:.3f}", "1"),
    "ART": ("seconds", "{:.4f}", "3"),
    "ASD": ("standard deviation over splits", "{:.3f}", "2"),
    "AS": ("sparsity 100 k / m (%)", "{:.1f}", "4"),
}


def criterion_deflation(result, view):
    table = view.get("table", "AER")
    if table.startswith("per set"):
        return [per_set(result, table)]
    key = {"seconds": "ART"}.get(table, table)
    what, fmt, number = _TABLES[key]
    paper_key = f"paper {key}"
    rows = [str(name) for name in result.arrays["deflations"]]
    cols = [str(name) for name in result.arrays["criteria"]]
    n_sets, runs = len(result.findings["datasets"]), result.findings["runs"]
    # the paper's numbers share our colour scale, so equal colours mean equal values; times (other machines) do not
    both = np.concatenate([np.ravel(result.arrays[key]), np.ravel(result.arrays[paper_key])])
    zrange = None if key == "ART" else (float(np.nanmin(both)), float(np.nanmax(both)))
    ours = F.table_figure(
        result.arrays[key],
        rows,
        cols,
        fmt=fmt,
        colour_title=what,
        zrange=zrange,
        title=f"Ours: average {what} over {n_sets} sets, {runs} runs",
    )
    paper = F.table_figure(
        result.arrays[paper_key],
        rows,
        cols,
        fmt=fmt,
        colour_title=what,
        zrange=zrange,
        title=f"Paper (Diethe 2015, Figure {number}): 13 sets" + ("" if zrange is None else ", same colour scale"),
    )
    return [ours, paper]


def per_set(result, table):
    """Diethe 2015 Figures 7-9: each data set's mean test error (rows) per deflation, criterion or
    stage count (columns)."""
    sets = [str(name) for name in result.arrays["datasets"]]
    if table == "per set: stages":
        values, cols = result.arrays["error"], [f"{int(v)} per stage" for v in result.arrays["stages"]]
        what = "bases per stage (pseudo + ortho-Schur)"
    elif table == "per set: deflations":
        pseudo = list(result.arrays["criteria"]).index("pseudo")
        values, cols = result.arrays["error"][:, :, pseudo], [str(n) for n in result.arrays["deflations"]]
        what = "deflation (criterion pseudo)"
    else:
        ortho = list(result.arrays["deflations"]).index("ortho-schur")
        values, cols = result.arrays["error"][:, ortho, :], [str(n) for n in result.arrays["criteria"]]
        what = "criterion (deflation ortho-Schur)"
    return F.table_figure(
        values, sets, cols, fmt="{:.3f}", colour_title="test error", title=f"Each set's mean test error by {what}"
    )


def stages(result, view):
    figs = []
    for key, label, log in (("error", "test error", False), ("seconds", "selection time (s)", True)):
        fig = F._new_figure()
        values = result.arrays[key]
        for i, stage in enumerate(result.arrays["stages"]):
            fig.add_trace(
                F._trace(
                    go.Box,
                    y=values[:, i],
                    name=f"{int(stage)} per stage",
                    boxpoints="all",
                    jitter=0.3,
                    pointpos=0,
                    marker={"color": F.CURVE_COLOURS[i], "size": 9},
                    line={"color": F.CURVE_COLOURS[i], "width": 3},
                    text=list(result.arrays["datasets"]),
                    hovertemplate="%{text}: %{y:.4g}<extra></extra>",
                )
            )
        F._style(
            fig,
            f"{label.capitalize()} by bases per stage (one point per data set)",
            "bases picked per stage",
            label + (" (log scale)" if log else ""),
            legend=False,
        )
        if log:
            fig.update_yaxes(type="log", exponentformat="power")
        figs.append(fig)
    return figs


def kmp_vs_svm(result, view):
    names = [str(n) for n in result.arrays["datasets"]]
    figs = []
    for key, label, paper_key in (("error", "test error (%)", "error (%)"), ("sv", "support vectors", "#sv")):
        fig = F._new_figure()
        for j, method in enumerate(KMP_SVM_METHODS):
            colour = F.CURVE_COLOURS[j]
            fig.add_trace(
                F._trace(
                    go.Bar,
                    x=names,
                    y=result.arrays[key][:, j],
                    name=method,
                    marker_color=colour,
                    offsetgroup=str(j),
                    hovertemplate="%{x}: %{y:.3g}<extra>" + method + "</extra>",
                )
            )
            paper = result.table.get(f"paper {method} {paper_key}")
            if paper is not None and np.isfinite(paper).any():
                fig.add_trace(
                    F._trace(
                        go.Scatter,
                        x=names,
                        y=paper,
                        mode="markers",
                        name="paper (Table 3)",
                        legendgroup="paper",
                        showlegend=j == 0,
                        marker={
                            "symbol": "line-ew-open",
                            "size": 30,
                            "color": F.OKABE_ITO["black"],
                            "line": {"width": 5, "color": F.OKABE_ITO["black"]},
                        },
                        offsetgroup=str(j),
                        hovertemplate="%{x}: paper %{y:.3g}<extra>" + method + "</extra>",
                    )
                )
        F._style(fig, f"{label.capitalize()}: bars ours, black dashes the paper", None, label)
        fig.update_layout(barmode="group", scattermode="group")
        figs.append(fig)
    return figs


def kmp_usps(result, view):
    digits = [str(int(d)) for d in result.table["digit"]]
    fig = F._new_figure()
    for j, method in enumerate(USPS_METHODS):
        fig.add_trace(
            F._trace(
                go.Bar,
                x=digits,
                y=result.table[method],
                name=method,
                marker_color=F.CURVE_COLOURS[j],
                offsetgroup=str(j),
                hovertemplate="digit %{x}: %{y} errors<extra>" + method + "</extra>",
            )
        )
        fig.add_trace(
            F._trace(
                go.Scatter,
                x=digits,
                y=result.table[f"paper {method}"],
                mode="markers",
                name="paper (Table 1)",
                legendgroup="paper",
                showlegend=j == 0,
                offsetgroup=str(j),
                marker={
                    "symbol": "line-ew-open",
                    "size": 26,
                    "color": F.OKABE_ITO["black"],
                    "line": {"width": 5, "color": F.OKABE_ITO["black"]},
                },
                hovertemplate="digit %{x}: paper %{y}<extra>" + method + "</extra>",
            )
        )
    n_test = result.findings.get("test digits", 2007)
    F._style(
        fig,
        f"Test errors (of {n_test}) per digit against the rest: bars ours, black dashes the paper",
        "digit",
        "test errors",
    )
    fig.update_layout(barmode="group", scattermode="group")
    return [fig]


def loss_shapes(result, view):
    margins = result.table["margin"]
    curves = {name: result.table[name] for name in (*MARGIN_LOSSES, *TRADITIONAL_LOSSES)}
    return [
        F.loss_shapes_figure(
            margins, curves, names=tuple(MARGIN_LOSSES), title="Margin losses of boosting and the SVM"
        ),
        F.loss_shapes_figure(
            margins,
            curves,
            names=("Doom II: 1 − tanh(m)", *TRADITIONAL_LOSSES),
            title="Traditional losses (as KMP computes them) beside Doom II's",
        ),
    ]


def linear_picture(result, view):
    a = result.arrays
    X, y = a["X"], a["y"]
    fig = F._new_figure()
    F._points(fig, X, y, size=9)
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    xs = np.linspace(lo[0], hi[0], 2)
    errors = result.table["median training errors"]
    for number, (name, w, c) in enumerate(zip(LINEAR_PICTURE_METHODS, a["w"], a["c"])):
        ys = -(w[0] * xs + c) / w[1]  # w'x + c = 0
        fig.add_trace(
            F._trace(
                go.Scatter,
                x=xs,
                y=ys,
                mode="lines",
                name=f"{name} (median {errors[number]:g} training errors)",
                line={
                    "color": F.OKABE_ITO[("black", "purple", "green")[number]],  # not the classes' colours
                    "width": 4,
                    "dash": ("solid", "dash", "dot")[number],
                },
            )
        )
    F._style(fig, "Linear boundaries on the first draw", "x₁", "x₂")
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])
    return [fig]


def kmp_picture(result, view):
    a = result.arrays
    titles = [
        f"{name}: {int(n)} points, test error {e:.3f}"
        for name, n, e in zip(KMP_PICTURE_METHODS, result.table["support points"], result.table["test error"])
    ]
    fig = make_subplots(
        rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.05, vertical_spacing=0.1, figure=F._new_figure()
    )
    X, y = a["X"], a["y"]
    for number, name in enumerate(KMP_PICTURE_METHODS):
        where = {"row": number // 2 + 1, "col": number % 2 + 1}
        values = a["values"][number]
        top = float(np.nanmax(np.abs(values))) or 1.0
        fig.add_trace(
            F._trace(
                go.Contour,
                x=a["xs"],
                y=a["ys"],
                z=np.clip(values, -top, top),
                zmin=-top,
                zmax=top,
                colorscale=F.DIVERGING,
                opacity=0.4,
                showscale=False,
                contours={"coloring": "fill"},
                ncontours=12,
                hoverinfo="skip",
                line={"width": 0},
                name="decision value",
                showlegend=False,
            ),
            **where,
        )
        fig.add_trace(
            F._trace(
                go.Contour,
                x=a["xs"],
                y=a["ys"],
                z=values,
                showscale=False,
                hoverinfo="skip",
                contours={"start": 0, "end": 0, "size": 1, "coloring": "lines"},
                colorscale=[[0, F.CHOSEN_COLOUR], [1, F.CHOSEN_COLOUR]],
                line={"width": 4},
                name="decision boundary",
                showlegend=number == 0,
            ),
            **where,
        )
        F._points(fig, X, y, size=8, **where)
        support = a[f"support/{name}"]
        fig.add_trace(
            F._trace(
                go.Scatter,
                x=X[support, 0],
                y=X[support, 1],
                mode="markers",
                name="support points",
                marker={"symbol": "circle-open", "size": 18, "color": F.CHOSEN_COLOUR, "line": {"width": 3}},
                showlegend=number == 0,
            ),
            **where,
        )
    seen = set()
    for trace in fig.data:
        trace.showlegend = bool(trace.name) and trace.name not in seen and trace.name != "decision value"
        seen.add(trace.name)
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    fig.update_annotations(font_size=F.FONT_SIZE - 2)
    fig = F._style(fig, "Vincent and Bengio 2002, Fig. 6 on two moons (same RBF kernel for all)", height=900)
    fig.update_layout(legend={"orientation": "h", "y": -0.03, "yanchor": "top"}, margin={"t": 100})
    errors = a["prefit_errors"]
    curve = F.lines_figure(
        np.arange(1, errors.size + 1),
        {"pre-fitting KMP": errors},
        x_title="N (basis vectors)",
        y_title="test error",
        title="Pre-fitting KMP: test error against N; SVM's support vectors marked",
    )
    svm = result.findings["SVM support vectors"]
    curve.add_vline(
        x=svm,
        line={"color": F.OKABE_ITO["vermillion"], "width": 3, "dash": "dash"},
        annotation_text=f"SVM: {svm} support vectors",
        annotation_font_size=F.FONT_SIZE - 2,
    )
    curve.add_hline(
        y=float(result.table["test error"][-1]),
        line={"color": F.OKABE_ITO["vermillion"], "width": 2, "dash": "dot"},
        annotation_text="SVM test error",
        annotation_position="bottom right",
        annotation_font_size=F.FONT_SIZE - 2,
    )
    return [fig, curve]


def column_selection(result, view):
    a = result.arrays
    methods = tuple(m for m in COLUMN_EXPERIMENT_METHODS if f"rho/{m}" in a)  # older kept runs lack the features
    colours = {m: F.CURVE_COLOURS[i] for i, m in enumerate(methods)}
    columns = tuple(m for m in methods if m != "random-features")  # the stability bound is about columns
    ranks = a["ranks"]
    seeds = a["speedup"].shape[0]

    def spread(key):
        return {m: (a[f"{key}/{m}"].min(axis=0), a[f"{key}/{m}"].max(axis=0)) for m in methods}

    def mean(key):
        return {m: a[f"{key}/{m}"].mean(axis=0) for m in methods}

    lev = F.lines_figure(
        np.arange(1, a["leverage_x"].size + 1),
        {"view X": a["leverage_x"], "view Y": a["leverage_y"]},
        x_title="rank of the score",
        y_title="ridge leverage score",
        markers=False,
        title="(a) γ-ridge leverage scores, sorted",
    )
    rho = F.lines_figure(
        ranks,
        mean("rho"),
        x_title="rank M₁ = M₂",
        y_title="|ρ − ρ̃|",
        log_y=True,
        spreads=spread("rho"),
        colours=colours,
        title=f"(b) canonical correlation error — mean of {seeds} seed{'' if seeds == 1 else 's'}",
    )
    T = F.lines_figure(
        ranks,
        mean("T"),
        x_title="rank M₁ = M₂",
        y_title="‖T − T̃‖",
        log_y=True,
        spreads=spread("T"),
        colours=colours,
        title="(b) operator error ‖T − T̃‖",
    )
    series = {}
    for m in columns:
        series[f"{m}: ‖α − α̃‖/√N"] = a[f"alpha/{m}"].mean(axis=0)
        series[f"{m}: bound"] = a[f"bound/{m}"].mean(axis=0)
    stability = F.lines_figure(
        ranks,
        series,
        x_title="rank M₁ = M₂",
        y_title="kernel stability",
        log_y=True,
        dashed=tuple(n for n in series if n.endswith("bound")),
        colours={n: colours[n.split(":")[0]] for n in series},
        title="(c) kernel stability against the Thm 2 bound (dashed)",
    )
    speed = F.lines_figure(
        ranks,
        {"incremental vs refitting": a["speedup"].mean(axis=0)},
        x_title="rank M₁ = M₂",
        y_title="speed-up (×)",
        spreads={"incremental vs refitting": (a["speedup"].min(axis=0), a["speedup"].max(axis=0))},
        title="(d) speed-up of the incremental path",
    )
    speed.add_hline(y=1.0, line={"color": "#777777", "dash": "dot"})
    return [lev, rho, T, stability, speed]


BUILDERS = {
    "hussain2011-fig1": kmp_bound,
    "hussain2011-fig2": skpca_bounds,
    "hussain2011-fig3": skpca_bounds,
    "hussain2011-fig4": skpca_bounds,
    "hussain2011-fig5": skpca_bounds,
    "hussain2011-fig6": skcca_vs_kcca,
    "hussain2011-fig7": skcca_bound,
    "diethe2015-fig1": criterion_deflation,
    "diethe2015-fig2": criterion_deflation,
    "diethe2015-fig3": criterion_deflation,
    "diethe2015-fig4": criterion_deflation,
    "diethe2015-fig5": stages,
    "diethe2015-fig7": criterion_deflation,
    "diethe2015-fig8": criterion_deflation,
    "diethe2015-fig9": lambda result, view: [per_set(result, "per set: stages")],
    "vincent2002-table1": kmp_usps,
    "vincent2002-table3": kmp_vs_svm,
    "vincent2002-fig5": loss_shapes,
    "vincent2002-fig6": kmp_picture,
    "vincent2002-fig7": linear_picture,
    "wang2016-fig1": column_selection,
}


#: A finding or setting as short text (the report's formatting).
format_value = short


def paper_figures(result):
    """The figures of one reproduction (a list: some items have several panels)."""
    return BUILDERS[result.name](result, FIGURES[result.name].view)


def write_item(result, out_dir):
    """Write ``out_dir/NAME.csv`` and ``out_dir/NAME.html``: the core's page (finding, setting,
    verdict, numbers, data) with the interactive figures added, loading plotly.js from
    ``out_dir/plotly.min.js`` (written once, so the pages open offline)."""
    from plotly.offline import get_plotlyjs

    script = out_dir / "plotly.min.js"
    if not script.exists():
        write_whole(script, get_plotlyjs())
    write_whole(out_dir / f"{result.name}.csv", result.to_csv())
    write_whole(out_dir / f"{result.name}.html", html_page(result, paper_figures(result)))


def html_page(result, figures, *, include_plotlyjs="directory"):
    """The core's item page (:func:`mpcore.experiments.report.item_page`) with the figures
    (plotly.js from ``include_plotlyjs``) put before the data table."""
    drawn = [
        fig.to_html(full_html=False, include_plotlyjs=include_plotlyjs if number == 0 else False)
        for number, fig in enumerate(figures)
    ]
    return item_page(result).replace(FIGURE_HOOK, "\n".join(drawn), 1)


def main(argv=None):
    """``python -m views.paper_figures NAME --out DIR``: the core's command, writing the
    interactive figures too (run from the repository with the app's requirements)."""
    from mpcore.experiments.__main__ import run_main

    return run_main(argv, writer=write_item, prog="python -m views.paper_figures")


if __name__ == "__main__":
    import sys

    sys.exit(main())
