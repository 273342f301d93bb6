"""Figure builders, checked on the figure objects (no browser)."""

import numpy as np
import pytest

from mpcore.curves import BoundCurves
from views import figures


def names(fig):
    return [trace.name for trace in fig.data]


def test_data_figure_numbers_the_chosen_points_and_stars_the_next():
    coords = np.arange(20.0).reshape(10, 2)
    labels = np.array([-1.0, 1.0] * 5)
    fig = figures.data_figure(
        coords,
        labels,
        [4, 2, 7],
        next_pick=1,
        coords_test=coords[:3],
        labels_test=labels[:3],
        class_names=("no", "yes"),
    )
    assert "class yes (train)" in names(fig) and "class no (test)" in names(fig)
    chosen = fig.data[names(fig).index("chosen (3)")]
    assert list(chosen.text) == ["1", "2", "3"]
    np.testing.assert_array_equal(chosen.x, coords[[4, 2, 7], 0])
    star = fig.data[names(fig).index("next pick")]
    assert tuple(star.x) == (coords[1, 0],)
    assert fig.layout.font.size == figures.FONT_SIZE
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.paper_bgcolor == "#ffffff" and fig.layout.font.color == "#222222"  # same in dark theme


def test_only_recent_picks_are_numbered():
    coords = np.random.default_rng(0).normal(size=(50, 2))
    fig = figures.data_figure(coords, None, list(range(30)))
    text = list(fig.data[names(fig).index("chosen (30)")].text)
    assert text[:10] == [""] * 10 and text[-1] == "30" and sum(bool(t) for t in text) == figures.MAX_NUMBERED


@pytest.mark.parametrize("cells", [(1, 1), (2, 2)])
def test_relayout_is_plotlys_own_update_of_layout_every_axis_and_annotation(cells):
    from plotly.subplots import make_subplots

    def subplots():
        fig = make_subplots(
            rows=cells[0], cols=cells[1], subplot_titles=["a", "b", "c", "d"], figure=figures._new_figure()
        )
        fig.update_layout(margin={"l": 5, "pad": 2}, yaxis={"range": [0, 1], "title": {"text": "kept"}})
        return fig.update_xaxes(title_text="gone")

    changes = {"margin": {"l": 70, "r": 30}, "title": {"text": "t", "font": {"size": 20}}, "meta": {"refs": [1]}}
    xaxes = {"showline": True, "title": {"text": None, "font": {"size": 18}}}
    yaxes = {"tickfont": {"size": 16}, "title": {"font": {"size": 18}}}
    theirs = subplots().update_layout(changes).update_xaxes(xaxes).update_yaxes(yaxes).update_annotations(font_size=9)
    ours = figures.relayout(subplots(), changes, xaxes=xaxes, yaxes=yaxes, annotations={"font": {"size": 9}})
    assert ours.layout.to_plotly_json() == theirs.layout.to_plotly_json()
    assert (
        ours.layout.yaxis.title.text == "kept" and ours.layout.margin.pad == 2 and ours.layout.xaxis.title.text is None
    )
    assert [a.font.size for a in ours.layout.annotations] == [9] * min(4, cells[0] * cells[1])
    assert changes["margin"] == {"l": 70, "r": 30}  # the arguments are not changed
    assert not ours.layout.template.layout.to_plotly_json()  # no template: plotly.js's own defaults


def test_heatmaps_share_one_scale_unless_asked():
    before = np.array([[1.0, 0.5], [0.5, 2.0]])
    after = np.array([[0.1, -0.2], [-0.2, 0.3]])
    shared = figures.heatmap_pair_figure(before, after, j=3)
    assert [t.zmin for t in shared.data] == [-2.0, -2.0] and [t.zmax for t in shared.data] == [2.0, 2.0]
    assert [t.showscale for t in shared.data] == [False, True]
    own = figures.heatmap_pair_figure(before, after, j=3, shared_scale=False)
    assert own.data[1].zmax == 0.3 and own.data[1].zmin == -0.3
    assert "K₃" in own.layout.annotations[1].text


def test_bound_figure_marks_argmins_and_the_step():
    t = np.arange(1, 6)
    curves = BoundCurves(
        "demo",
        t,
        {"test error rate": np.array([0.5, 0.3, 0.2, 0.25, 0.3]), "a bound": np.array([5.0, 2.0, 0.9, np.inf, 3.0])},
        ("a bound",),
    )
    fig = figures.bound_figure(curves, 2)
    assert "test error rate" in names(fig) and "a bound" in names(fig)
    markers = [tr for tr in fig.data if tr.name and tr.name.startswith("min of")]
    assert {(m.name, m.x[0]) for m in markers} == {("min of test error rate: t=3", 3), ("min of a bound: t=3", 3)}
    bound = fig.data[names(fig).index("a bound")]
    assert bound.line.dash == "dash" and bound.y[3] is None  # inf is not drawn
    assert any(shape.x0 == 2 for shape in fig.layout.shapes)  # the line at the current step
    assert fig.layout.yaxis.range[1] >= 1.1  # the trivial line at 1 is visible
    log = figures.bound_figure(curves, 2, log_y=True)
    assert log.layout.yaxis.type == "log"


def test_bound_figure_secondary_axis():
    t = np.arange(1, 4)
    curves = BoundCurves(
        "demo",
        t,
        {"test error rate": np.ones(3) * 0.2, "test MSE": np.array([30.0, 20.0, 10.0]), "KMP bound": np.ones(3) * 2},
        ("KMP bound",),
    )
    fig = figures.bound_figure(curves, 1, secondary=("test MSE",), secondary_title="MSE")
    mse = fig.data[names(fig).index("test MSE")]
    assert mse.yaxis == "y2"
    assert fig.layout.yaxis2.title.text == "MSE"
    assert fig.layout.yaxis.range[1] < 10  # the MSE does not stretch the error-rate axis


def test_decision_and_projection_figures():
    xs = ys = np.linspace(-1, 1, 5)
    values = np.subtract.outer(ys, xs)
    coords = np.zeros((4, 2))
    fig = figures.decision_figure(xs, ys, values, coords, np.array([-1.0, 1.0, 1.0, -1.0]), [0])
    boundary = fig.data[names(fig).index("decision boundary")]
    assert boundary.contours.start == 0 and boundary.contours.end == 0
    proj = {
        "train": (np.arange(5.0), np.arange(5.0)),
        "test": (np.arange(3.0), np.arange(3.0) * 2),
        "correlation": (1.0, 1.0),
    }
    fig = figures.projection_figure(proj)
    assert "training pairs (corr 1.000)" in names(fig)


def test_palette_is_okabe_ito():
    assert set(figures.CLASS_COLOURS.values()) <= set(figures.OKABE_ITO.values())
    assert figures.CLASS_SYMBOLS[-1.0] != figures.CLASS_SYMBOLS[1.0]
    assert figures.EXPORT_CONFIG["toImageButtonOptions"]["format"] == "svg"


def test_lab_grids_share_one_colour_scale_and_one_legend():
    blocks = {"schur": np.eye(3), "hotelling": -np.eye(3), "projection": np.zeros((3, 3))}
    fig = figures.heatmap_grid_figure(
        blocks, steps={"schur": 2, "hotelling": 2, "projection": 1}, sort_note="sorted", scale=1.5
    )
    assert [t.coloraxis for t in fig.data] == ["coloraxis"] * 3
    assert fig.layout.coloraxis.cmin == -1.5 and fig.layout.coloraxis.cmax == 1.5
    assert "projection (K₁)" in [a.text for a in fig.layout.annotations]
    coords = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    labels = np.array([-1.0, 1.0, 1.0])
    grid = figures.chosen_grid_figure(coords, labels, {"a": np.array([0]), "b": np.array([1, 2])}, {"a": 2, "b": None})
    shown = [t.name for t in grid.data if t.showlegend]
    assert len(shown) == len(set(shown)) and "chosen points" in shown and "next pick" in shown
    assert figures.panel_grid(7) == (2, 4) and figures.panel_grid(3) == (1, 3)


def test_lines_figure_bands_dashes_and_table():
    fig = figures.lines_figure(
        [1, 2, 3],
        {"a": [3, 2, 1], "b": [1, np.nan, 0.5]},
        j=2,
        dashed=("b",),
        spreads={"a": ([2, 1, 0.5], [4, 3, 2])},
        colours={"b": "#000000"},
    )
    band, a, b = fig.data
    assert band.fill == "toself" and a.line.dash == "solid" and b.line.dash == "dash" and b.line.color == "#000000"
    assert list(b.y) == [1.0, None, 0.5]
    table = figures.table_figure(
        np.array([[0.2, 0.1], [0.3, 0.4]]), ["x", "y"], ["p", "q"], title="t", colour_title="err"
    )
    outlined = [(s.x0, s.y0) for s in table.layout.shapes]
    assert outlined == [(0.5, -0.5), (-0.5, 0.5)]  # best of each row: column 1, then column 0


def test_trivial_region_and_cut_axis():
    fig = figures.lines_figure([1, 2, 3], {"bound": [50.0, 2.0, 0.5]})
    assert figures.mark_trivial(fig, [1, 2, 3]) is True and tuple(fig.layout.yaxis.range) == (0, 2.5)
    fig = figures.lines_figure([1, 2, 3], {"bound": [50.0, 20.0, 5.0]})
    assert figures.mark_trivial(fig, [1, 2, 3]) is False and fig.layout.yaxis.range[1] == pytest.approx(52.5)


def _contrast(a, b):
    """WCAG 2.1 contrast ratio of two "#rrggbb" colours (computed here from the definition)."""

    def luminance(colour):
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_line_and_marker_colour_reads_on_both_themes():
    """WCAG 2.1 asks 3:1 for lines and markers: every curve and class colour against the
    light card and the dark projector theme's background (black, the chosen-point rings,
    is swapped for a light ink there; yellow only ever fills a star inside a black or
    light outline)."""
    for colour in set(figures.CURVE_COLOURS) | set(figures.CLASS_COLOURS.values()):
        light = colour
        dark = figures.DARK_INK.get(colour.lower(), colour)
        assert _contrast(light, figures.LIGHT_BACKGROUND) >= 3, colour
        assert _contrast(dark, figures.DARK_BACKGROUND) >= 3, colour
    assert _contrast(figures.DARK_INK["#222222"], figures.DARK_BACKGROUND) >= 4.5  # text on the dark card
    assert _contrast("#222222", figures.LIGHT_BACKGROUND) >= 4.5
    assert _contrast(figures.NEXT_COLOUR, figures.DARK_INK[figures.CHOSEN_COLOUR]) < 3  # hence the outline
    assert _contrast(figures.NEXT_COLOUR, figures.CHOSEN_COLOUR) >= 3


def test_dark_theme_swaps_the_ink_and_nothing_else():
    fig = figures.data_figure(np.zeros((3, 2)), np.array([-1.0, 1.0, 1.0]), [0], next_pick=1).to_plotly_json()
    dark = figures.themed(fig, True)
    assert dark["layout"]["paper_bgcolor"] == figures.DARK_BACKGROUND and dark["layout"]["font"]["color"] == "#e6e6e6"
    ring = next(t for t in dark["data"] if t["name"].startswith("chosen"))
    assert ring["marker"]["color"] == figures.DARK_INK["#000000"]
    classes = [t["marker"]["color"] for t in dark["data"] if t["name"].startswith("class")]
    assert classes == [figures.CLASS_COLOURS[-1.0], figures.CLASS_COLOURS[1.0]]  # the palette stays
    assert figures.themed(fig, False) is fig


def test_log_ticks_are_decades_or_one_two_five():
    assert figures.log_ticks([1e-6, 1.0]) == {"dtick": 1}
    ticks = figures.log_ticks([0.3, 4.0])
    assert ticks["tickmode"] == "array" and ticks["tickvals"] == [0.5, 1.0, 2.0, 5.0]  # within 0.15 decade
    assert ticks["ticktext"] == ["0.5", "1", "2", "5"]
    assert figures.log_ticks([0.0, -1.0]) == {}


def test_key_items_say_once_what_a_legend_would():
    coords = np.arange(12.0).reshape(6, 2)
    labels = np.array([-1.0, 1.0] * 3)
    fig = figures.data_figure(
        coords, labels, [1], next_pick=2, coords_test=coords[:2], labels_test=labels[:2], class_names=("no", "yes")
    )
    texts = [item["text"] for item in figures.key_items(fig)]
    assert texts == ["class no", "class yes", "test points (open)", "chosen", "next pick"]
    regression = figures.data_figure(coords, np.arange(6.0), [], target_name="price")
    gradient = figures.key_items(regression)[0]
    assert gradient["kind"] == "gradient" and gradient["text"] == "price: 0 to 5"
    bounds = BoundCurves(
        "demo", np.arange(1, 4), {"test error rate": np.ones(3) * 0.2, "KMP bound": np.ones(3) * 2}, ("KMP bound",)
    )
    assert figures.key_items(figures.bound_figure(bounds, 0)) == []  # every line is named at its end instead


def test_a_bound_that_is_1_at_every_step_gets_no_stop_and_says_so():
    """Diethe's bound on two moons is 1 at every step: it names no step to stop at, and the
    note says "trivial at every step" once, not the bound's name three times.  A bound that
    varies but never gets below 1 names no stop either (mpcore.bounds.says_something)."""
    t = np.arange(1, 5)
    flat = BoundCurves(
        "demo",
        t,
        {
            "test error rate": np.array([0.3, 0.2, 0.1, 0.1]),
            "MPKFDA bound": np.ones(4),
            "MPKFDA bound, class -1": np.ones(4),
            "MPKFDA bound, class +1": np.ones(4),
        },
        ("MPKFDA bound", "MPKFDA bound, class -1", "MPKFDA bound, class +1"),
    )
    assert figures.bound_stop(flat) is None
    note = figures.trivial_note(flat)
    assert "trivial at every step" in note and note.count("MPKFDA bound") == 1, note
    falling = BoundCurves(
        "demo", t, {"test error rate": np.ones(4) / 4, "a bound": np.array([3.0, 2.0, 1.5, 1.8])}, ("a bound",)
    )
    # shaped, but never below 1: it guarantees nothing at any step, so it names no stop (the KMP
    # lesson's moons showed a stop and a jump button for a bound its narration called meaningless)
    assert figures.bound_stop(falling) is None
    assert "never below 1 (min 1.5)" in figures.trivial_note(falling)
    assert "Stopping where" not in figures.bound_summary(falling)
    dips = BoundCurves(
        "demo", t, {"test error rate": np.ones(4) / 4, "a bound": np.array([3.0, 0.9, 1.5, 1.8])}, ("a bound",)
    )
    assert figures.bound_stop(dips) == ("a bound", 2, 0.9)
    assert "Stopping where the a bound is lowest gives t = 2" in figures.bound_summary(dips)


def test_a_variant_that_never_deflates_says_so_on_its_heatmap():
    """With back-fitting the 'after deflation' heatmap equalled K0 with no word why."""
    from mpcore.datasets import load_dataset, prepare
    from mpcore.studies import kmp_study
    from views import steps

    split = prepare(load_dataset("sinc", n_samples=60), seed=0)
    study = kmp_study(split, k=4, gamma=3.0, variant="backfit")
    panel = steps.heatmap_panel(study, range(5), sort_note="x", not_deflated="back-fitting")
    assert panel.frames[3]["layout"]["annotations.after-title.text"] == "K₃ = K₀"
    assert panel.title == "The kernel, which back-fitting never deflates"
    deflating = steps.heatmap_panel(study, range(5), sort_note="x")
    assert deflating.frames[3]["layout"]["annotations.after-title.text"] == figures.after_title(3)
    assert "never deflates" not in deflating.title


def test_the_app_and_the_paper_judges_read_vacuous_as_the_library_does():
    from types import SimpleNamespace

    from mpcore.experiments import hussain2011
    from views import figures

    curves = SimpleNamespace(
        bound_names=["a", "b", "c"], curves={"a": [1.84, 1.9], "b": [1.84, 0.6], "c": [np.inf, np.inf]}
    )
    assert figures.trivial_bounds(curves) == ["a", "c"]
    kept = hussain2011.judge_skcca_bound(np.full(30, 1.0), np.full(30, 0.3))
    assert kept.status == "partly" and "trivial: 1 or more" in kept.reason  # exactly 1: vacuous
    assert hussain2011.judge_skcca_bound(np.full(30, 1 - 1e-9), np.full(30, 0.3)).status == "reproduced"
