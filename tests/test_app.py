"""The app, driven headlessly with Streamlit's AppTest: every page renders, steps,
reopens from a URL, and survives a bad upload."""

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mpcore.experiments import FIGURES

APP = str(Path(__file__).resolve().parent.parent / "app.py")
ALGORITHMS = {
    "skpca": "app_pages/sparse_kpca.py",
    "kmp": "app_pages/kmp.py",
    "skcca": "app_pages/sparse_kcca.py",
    "mpkfda": "app_pages/mpkfda.py",
}
LABS = {
    "deflation-lab": "app_pages/deflation_lab.py",
    "column-lab": "app_pages/column_lab.py",
    "bounds": "app_pages/bounds_explorer.py",
}
PAGES = {
    **ALGORITHMS,
    **LABS,
    "paper-figures": "app_pages/paper_figures.py",
    "lessons": "app_pages/lessons.py",
    "references": "app_pages/references.py",
}


def open_page(page=None, query=None):
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        for key, value in query.items():
            at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(PAGES[page]).run()
    return at


def opened(at, *menus):
    """``at`` rerun with the popover menus keyed ``menus`` open (their items are made only
    while open), as a click on each does."""
    for key in menus:
        at.session_state[key] = True
    return at.run()


def whole(at):
    """``at`` run again as a whole page.  A setting that changes only values redraws the
    page's view alone (``ui.board.study_page``); AppTest's tree then holds only what that
    run sent, where a browser keeps the rest of the page on screen."""
    return at.run()


def assert_clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def figures(at):
    """The page's Plotly figures as dicts."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def player(at):
    """The step player's payload: every step of the study the page sends to the browser."""
    from ui.component import mounted
    from views.player import unpacked

    elements = mounted(at.get("bidi_component"))
    assert len(elements) == 1, "the page must mount exactly one step player"

    return json.loads(unpacked(elements[0].proto.bytes))  # packed: per-view JSON + the gzip-compressed study


def panel(payload, key):
    return next(item for item in payload["panels"] if item["key"] == key)


def decode(spec):
    """A typed-array spec from the payload as a numpy array."""
    import base64

    import numpy as np

    if isinstance(spec, list):
        return np.asarray(spec)
    dtypes = {"f4": np.float32, "f8": np.float64, "i4": np.int32, "i1": np.int8, "u1": np.uint8, "i2": np.int16}
    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=dtypes[spec["dtype"]])


def trace(figs, name):
    for fig in figs:
        for item in fig["data"]:
            if item.get("name") == name:
                return item
    return None


def test_home_renders_a_card_per_algorithm():
    at = open_page()
    assert_clean(at)
    assert "Matching Pursuit Lab" in at.title[0].value
    assert len(figures(at)) == 4
    assert len(at.latex) >= 1


@pytest.mark.parametrize("page", list(ALGORITHMS))
def test_page_sends_every_step_to_the_player(page):
    at = open_page(page)
    assert_clean(at)
    payload = player(at)
    n = payload["n_steps"]
    assert n >= 10 and payload["step"] == 0
    assert len(payload["stories"]) == n + 1
    assert payload["stories"][0].startswith("**Step 0.**") and payload["stories"][1].startswith("**Step 1.**")
    assert {item["key"] for item in payload["panels"]} >= {"data", "criterion", "bounds", "heatmaps", "model"}
    for item in payload["panels"]:
        assert len(item["frames"]) == n + 1, f"{item['key']} must have a patch for every step"
    data = panel(payload, "data")
    rings = data["rings"][0]  # the player rings picks[:j] and stars next[j], as layout shapes
    picks, nexts = decode(rings["picks"]), decode(rings["next"])
    assert picks.size == n and nexts.size == n + 1
    assert list(nexts[:n]) == list(picks), "the star at step j is the pick of step j + 1"
    assert nexts[n] == -1, "no next pick after the last step"
    assert np.array_equal(decode(rings["coords"]), decode(payload["coords"]))  # the training points drawn
    assert payload["picks"] and list(payload["picks"]) == list(picks)  # predict-the-next-pick has the answers
    assert len(payload["marks"]) == 1 and "bound's stop" in payload["marks"][0]["label"]


def test_payload_stays_within_its_budget():
    from ui.component import mounted

    for page in ALGORITHMS:
        at = open_page(page)
        size = len(mounted(at.get("bidi_component"))[0].proto.bytes)
        assert size < 5_000_000, f"{page}: {size / 1e6:.1f} MB"


def test_predict_mode_hides_the_answer():
    payload = player(open_page("skpca"))
    assert "Next: point" in payload["stories"][3]
    assert "Next: point" not in payload["stories_hidden"][3]
    criterion = panel(payload, "criterion")
    assert len(criterion["hide_when_predicting"]) == len(criterion["figure"]["data"])
    assert panel(payload, "data").get("guess_trace") is True


def test_presenter_mode_and_text_size_travel_in_the_url():
    at = open_page("kmp", {"present": "1", "text": "150", "data": "sinc"})
    assert_clean(at)
    payload = player(at)
    assert payload["present"] is True and payload["text_scale"] == 1.5
    roles = {item["key"]: (item["role"], item["presenter"]) for item in payload["panels"]}
    assert roles["bounds"] == ("bound", True) and roles["heatmaps"] == ("kernel", True)
    assert roles["criterion"] == ("criterion", True)
    # 1-D regression: on a projector the fit, drawn over the points, replaces the data panel
    assert roles["model"] == ("data", True) and roles["data"] == ("data", False)
    assert at.query_params["present"] == "true" and at.query_params["text"] == "150"


@pytest.mark.parametrize("page", list(PAGES))
def test_every_control_has_a_tooltip(page):
    at = open_page(page)
    for kind in ("slider", "selectbox", "toggle", "number_input", "select_slider", "button", "multiselect", "radio"):
        for widget in getattr(at, kind):
            assert widget.help, f"{kind} {widget.label!r} on {page} has no help tooltip"


@pytest.mark.parametrize("page", ["skpca", "kmp", "skcca", "mpkfda"])
def test_every_preset_opens_cleanly(page):
    """Each named lesson is a link the page accepts whole: no value refused, no error."""
    from views.presets import PRESETS

    for preset in PRESETS[page]:
        at = open_page(page, preset.params)
        assert_clean(at)
        assert not at.warning, (preset.name, [w.value for w in at.warning])
        assert player(at)["n_steps"] >= 5


def test_a_first_visit_opens_on_the_first_preset_and_a_preset_can_be_chosen():
    """The board says which preset it shows (the picker and the player's lesson line, its
    numbers computed from the study), also in presenter mode; a changed setting is no
    longer the preset."""
    import re

    from views.presets import PRESETS

    at = open_page("skpca", {"present": "1"})
    first = PRESETS["skpca"][0]
    assert at.query_params["data"] == first.params["data"] and at.query_params["gamma"] == first.params["gamma"]
    assert at.query_params["present"] == "true"  # what the link said is kept
    assert at.selectbox(key="w:skpca:preset").value == first.name  # not "Choose a preset..."
    assert player(at)["lesson"]["name"] == first.name
    second = PRESETS["skpca"][2]
    at.selectbox(key="w:skpca:preset").select(second.name).run()
    assert_clean(at)
    assert at.query_params["gamma"] == second.params["gamma"] and at.query_params["present"] == "true"
    assert at.selectbox(key="w:data:skpca").value == second.params["data"]
    assert at.selectbox(key="w:skpca:preset").value == second.name
    lesson = player(at)["lesson"]
    assert lesson["name"] == second.name and "{" not in lesson["text"]
    lowest = float(re.search(r"its lowest: ([0-9.]+)", lesson["text"]).group(1))
    assert lowest >= 1  # the trivial preset's number says what its name says
    assert any(lesson["text"] in c.value for c in at.caption)
    at.slider(key="w:skpca:k").set_value(35).run()  # now a view of the user's own
    assert at.selectbox(key="w:skpca:preset").value is None and "lesson" not in player(at)


def test_kernel_width_retunes_with_the_dataset_unless_the_user_set_it():
    at = open_page("kmp", {"data": "moons"})
    gamma = at.selectbox(key="w:kmp:gamma")
    assert gamma.value == "auto (median)"
    at.selectbox(key="w:data:kmp").select("sinc").run()
    assert at.selectbox(key="w:kmp:gamma").value == "auto (median)"
    at = open_page("kmp", {"data": "moons", "gamma": "3"})  # set by a link: not the user's own choice
    at.selectbox(key="w:data:kmp").select("sinc").run()
    assert at.selectbox(key="w:kmp:gamma").value == "auto (median)"
    whole(at.selectbox(key="w:kmp:gamma").select("10").run())  # the user's own choice stays
    at.selectbox(key="w:data:kmp").select("diabetes").run()
    assert at.selectbox(key="w:kmp:gamma").value == "10"
    assert_clean(at)


def test_url_reopens_the_same_view_and_clamps_the_step():
    at = open_page("kmp", {"data": "moons", "k": "12", "variant": "backfit", "step": "7"})
    assert_clean(at)
    assert player(at)["step"] == 7
    assert at.session_state["kmp:k"] == 12
    assert at.session_state["kmp:variant"] == "backfit"
    assert at.selectbox(key="w:data:kmp").value == "moons"
    assert at.query_params["k"] == "12" and at.query_params["step"] == "7"

    at = open_page("kmp", {"data": "moons", "k": "12", "step": "999"})
    assert player(at)["step"] == 12  # clamped to the last step, with a note
    assert any("step" in w.value and "999" in w.value for w in at.warning)
    assert at.query_params["step"] == "12"


def test_bad_url_values_are_ignored_with_a_note():
    at = open_page("mpkfda", {"deflation": "bogus", "k": "abc"})
    assert_clean(at)
    assert at.session_state["mpkfda:deflation"] == "projection"
    assert len(at.warning) == 2


def test_dataset_is_remembered_across_pages():
    at = open_page("mpkfda")
    at.selectbox(key="w:data:mpkfda").select("xor").run()
    at.switch_page(PAGES["kmp"]).run()
    assert at.selectbox(key="w:data:kmp").value == "xor"  # KMP takes binary data too
    at.switch_page(PAGES["skcca"]).run()
    assert at.selectbox(key="w:data:skcca").value == "rings-two-view"  # not two-view: the page's preset
    at.switch_page(PAGES["mpkfda"]).run()
    assert at.selectbox(key="w:data:mpkfda").value == "xor"


def test_bad_upload_shows_an_error_and_keeps_the_data():
    at = open_page("kmp")
    at.selectbox(key="w:data:kmp").select("diabetes").run()
    at.file_uploader(key="upload_file").upload("broken.csv", b"a,b\n1,2\n3,oops\n", "text/csv").run()
    assert not at.exception
    assert any("oops" in e.value and "previous dataset" in e.value for e in at.error)
    assert at.selectbox(key="w:data:kmp").value == "diabetes"
    assert player(at)["stories"][0].startswith("**Step 0.**")


def test_good_upload_becomes_the_dataset():
    rows = "\n".join(f"{i / 10},{(i % 7) / 3},{(i * 3) % 11}" for i in range(60))
    at = open_page("kmp")
    at.file_uploader(key="upload_file").upload("mine.csv", f"x1,x2,target\n{rows}\n".encode(), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="w:data:kmp").value.startswith("upload: mine.csv")
    # the points slider still reads 3,000: the sidebar says how many the file has, all used
    said = " ".join(caption.value for caption in at.sidebar.caption)
    assert "These data have 60 points, fewer than 3,000: all of them are used." in said, said
    # its settings redraw the whole page: an address cannot say the view of an upload
    study = player(at)["id"]
    at.selectbox(key="w:kmp:gamma").select("1").run()
    assert_clean(at)
    assert at.sidebar.slider and at.selectbox(key="w:data:kmp").value.startswith("upload: mine.csv")
    assert player(at)["id"] != study


def test_an_upload_whose_target_has_two_values_is_read_as_two_classes_and_the_captions_follow():
    """A CSV whose target is -1/+1 loaded as regression while the heatmap said "sorted by
    class (-1 first)": it opens as binary, with a sentence saying so and how to say
    otherwise; read as numbers, the heatmap and the curves follow."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    rows = "\n".join(f"{a:.3f},{b:.3f},{1 if a * b > 0 else -1}" for a, b in X)
    at = open_page("kmp")
    at.file_uploader(key="upload_file").upload("signs.csv", f"x1,x2,label\n{rows}\n".encode(), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="upload_task").value == "binary"
    said = " ".join(caption.value for caption in at.sidebar.caption)
    assert "has two values, ` -1 ` and ` 1 `: read as two classes. Choose regression under Task" in said, said

    def heatmap_note(at):
        panel = next(panel for panel in player(at)["panels"] if panel["key"] == "heatmaps")
        return json.dumps(panel)

    def drawn_as(at):  # how the data and criterion panels draw the points: by class, or by value
        names = [
            trace.get("name", "")
            for panel in player(at)["panels"]
            if panel["key"] in ("data", "criterion")
            for trace in panel["figure"]["data"]
        ]
        return {
            "classes": any(name.startswith(("class ", "candidates, class")) for name in names),
            "values": any(name.startswith(("points (train)", "candidates")) and "class" not in name for name in names),
        }

    assert "sorted by class (-1 first)" in heatmap_note(at)
    assert drawn_as(at) == {"classes": True, "values": False}
    at.selectbox(key="upload_task").select("regression").run()
    assert_clean(at)
    said = " ".join(caption.value for caption in at.sidebar.caption)
    assert "read as numbers, as chosen. Choose binary under Task to read them as two classes." in said, said
    assert "sorted by target value" in heatmap_note(at) and "sorted by class" not in heatmap_note(at)
    assert drawn_as(at) == {"classes": False, "values": True}  # the points coloured by value, as the curves read them


def test_an_uploads_payload_goes_inline_on_its_own_session_never_by_a_name(monkeypatch):
    """Served with the app's routes, a page's payload gets a name any browser can fetch it
    by (and a proxy keep); an upload's is one student's data: it goes packed, on the
    session's own connection, and is never named."""
    from ui import compute

    named = []

    def namer(gz, addresses=(), page=None):
        named.append(page)
        return "0" * 40

    monkeypatch.setattr(compute.SERVING, "payload_name", namer)
    at = open_page("kmp")
    assert named and set(named) == {"kmp"}  # a registry dataset's study: named for fetching
    named.clear()
    rows = "\n".join(f"{i / 10},{(i % 7) / 3},{(i * 3) % 11}" for i in range(60))
    at.file_uploader(key="upload_file").upload("mine.csv", f"x1,x2,target\n{rows}\n".encode(), "text/csv").run()
    assert_clean(at)
    assert named == []
    assert player(at)["stories"][0].startswith("**Step 0.**")  # packed: the whole study inline


def test_impossible_settings_give_a_message_not_a_traceback():
    at = open_page("kmp", {"data": "moons", "variant": "prefit", "loss": "tanh"})
    assert not at.exception
    assert any("Pre-fitting needs the squared loss" in e.value.replace("\\", "") for e in at.error)


def test_downloads_offer_the_path_and_the_curves():
    from ui import board

    at = open_page("skpca")
    assert not at.get("download_button")  # the menus' items: once opened
    opened(at, "save-menu", board.data_menu_key("sparse-kpca"), board.code_menu_key("sparse-kpca"))
    assert_clean(at)
    labels = [button.label for button in at.get("download_button")]
    assert labels == [
        "This demo (.html)",
        "This page's 4 lessons (.html)",  # the title row's Save menu
        "Download the path (CSV)",
        "Download the curves (CSV)",
        "Download as a .py file",
    ]


def test_seldom_settings_are_made_when_opened_and_kept_when_closed():
    """The data's seed and split and the bounds' settings sit in groups whose widgets are made
    only while open; closed, each keeps its value, the address keeps it, and a line names it."""
    at = open_page("kmp", {"data": "xor", "seed": "3", "log": "true", "delta": "0.01"})
    assert_clean(at)
    assert not [w for w in at.number_input if w.key == "w:seed"] and not at.toggle(key="w:present").value
    closed = [w.key for w in at.sidebar.toggle]
    assert "w:kmp:log" not in closed and "w:std" not in closed
    said = " ".join(c.value for c in at.sidebar.caption).replace("\\", "")
    assert said.startswith("More data settings: Data seed 3")
    assert "Log-scale bound axis on" in said and "Confidence delta 0.01" in said
    assert "Test fraction" not in said  # at its default
    order = [getattr(e, "key", None) or getattr(e, "value", "") for e in at.sidebar.children.values()]
    for group in ("seldom-data-kmp", "seldom-bounds-kmp"):  # each line right under its group
        assert str(order[order.index(group) + 1]).replace("\\", "").startswith(("More data", "Bound and")), order
    study = player(at)["id"]

    opened(at, "seldom-data-kmp", "seldom-bounds-kmp")
    assert_clean(at)
    assert at.number_input(key="w:seed").value == 3 and at.toggle(key="w:kmp:log").value
    assert at.select_slider(key="w:kmp:delta").value == 0.01 and player(at)["id"] == study
    at.number_input(key="w:seed").set_value(5).run()
    at.session_state["seldom-data-kmp"] = False  # closed again
    at.run()
    assert_clean(at)
    assert at.query_params["seed"] == "5" and player(at)["id"] != study
    assert "Data seed 5" in " ".join(c.value for c in at.sidebar.caption).replace("\\", "")


@pytest.mark.parametrize("page", ["kmp", "skpca", "skcca", "mpkfda", "deflation-lab", "column-lab"])
def test_formulas_are_made_when_opened(page):
    at = open_page(page)
    assert not at.latex  # the expander is there, closed and empty: its contents cost every run
    opened(at, f"formulas-{page}")
    assert_clean(at)
    assert len(at.latex) >= 1 and any(box.label.startswith("The formulas") for box in at.main.expander)


def test_csv_has_a_header_and_one_row_per_step():
    from mpcore.datasets import load_dataset, prepare
    from mpcore.studies import skpca_study
    from ui.board import to_csv

    study = skpca_study(prepare(load_dataset("moons", n_samples=120), seed=0), k=7)
    lines = to_csv(study.path_table()).splitlines()
    assert lines[0] == "step,training index,dataset row,criterion value,x (plot),y (plot)"
    assert len(lines) == 8
    assert lines[1].split(",")[1] == str(study.path.indices[0])
    curves = to_csv(study.curves.table()).splitlines()
    assert len(curves) == 8 and curves[0].startswith("t,test residual")


# --- labs and theory ----------------------------------------------------------------------------


def test_the_facts_caption_says_when_they_come_from_a_subsample():
    from mpcore import kernel_matrix
    from mpcore.labs import kernel_spectrum
    from views.steps import _facts_caption

    X = np.random.default_rng(0).normal(size=(60, 3))
    narrow = kernel_matrix(X, gamma=50.0)  # nearly the identity: 60 significant eigenvalues
    sampled = _facts_caption(kernel_spectrum(narrow, limit=20))
    assert "20 × 20 block" in sampled and "subsample" in sampled and "K₀ − UV′" not in sampled
    exact = _facts_caption(kernel_spectrum(narrow, limit=100))
    assert "K₀ − UV′" in exact and "subsample" not in exact


def test_deflation_lab_steps_and_reports_facts():
    at = open_page("deflation-lab", {"points": "200", "k": "8"})
    assert_clean(at)
    assert list(at.multiselect(key="w:deflation-lab:deflations").value) == [
        "hotelling",
        "projection",
        "schur",
        "ortho-projection",
    ]
    payload = player(at)
    facts = panel(payload, "facts")
    names = [name.replace("\u200b", "") for name in facts["table"]["header"][1:]]  # headers may break after a hyphen
    rows = {row[0]: dict(zip(names, row[1:])) for row in facts["frames"][1]["rows"]}
    assert names == ["hotelling", "projection", "schur", "ortho-projection"]
    assert rows["PSD"]["schur"] == "yes"
    assert rows["symmetric"]["projection"] == "no"
    assert rows["smallest eigenvalue"]["schur"] == "≈ 0" and float(rows["smallest eigenvalue"]["hotelling"]) < -1e-3
    assert all(facts["table"]["row_help"]) and len(facts["table"]["row_help"]) == len(facts["frames"][1]["rows"])
    help_of = dict(zip([row[0] for row in facts["frames"][1]["rows"]], facts["table"]["row_help"]))
    assert "wiped them out" in help_of["chosen columns left"]  # every row says what it means
    # says how the facts are computed: with 140 training points K₀ always fits an exact small
    # basis (at most 140 pivots, under the 400-point limit), never the subsample
    assert "K₀ − UV′" in facts["caption"] and "subsample" not in facts["caption"]
    story = payload["stories"][1]
    assert story.startswith("**Step 1.**") and "PSD" in story and "projection" in story
    heat = panel(payload, "heatmaps")  # by default each kernel on its own colour range, said in its title
    assert len(heat["figure"]["data"]) == 4 and len(heat["frames"]) == payload["n_steps"] + 1
    ranges = [frame["data"]["kernel-1"]["zmax"] for frame in heat["frames"][1:]]
    assert len(set(ranges)) > 1 and all("±" in text for key, text in heat["frames"][3]["layout"].items())
    shared = panel(player(open_page("deflation-lab", {"points": "200", "k": "8", "ownscale": "false"})), "heatmaps")
    assert shared["figure"]["layout"].get("coloraxis")  # one colour axis for all
    chosen = panel(payload, "chosen")
    assert len(chosen["rings"]) == 4 and {r["xref"] for r in chosen["rings"]} == {"x", "x2", "x3", "x4"}
    assert all(not r["numbers"] for r in chosen["rings"])  # numbers would overprint in small panels


def test_deflation_lab_table_on_demand():
    at = open_page("deflation-lab", {"points": "120", "k": "4", "deflations": "schur,none"})
    assert_clean(at)
    before = len(figures(at))
    at.button(key="lab:table").click().run()
    assert_clean(at)
    assert len(figures(at)) == before + 2
    assert any("Lowest:" in c.value for c in at.caption)


def test_deflation_lab_reads_tau_from_the_original_kernel():
    at = open_page(
        "deflation-lab", {"points": "120", "k": "6", "deflations": "schur,ortho-schur,projection", "tau": "original"}
    )
    assert_clean(at)
    assert at.selectbox(key="w:deflation-lab:tau").value == "original"
    assert any("span of the τ's" in m.value for m in at.markdown)


def test_every_chart_follows_the_text_size():
    at = open_page("deflation-lab", {"points": "120", "k": "4", "deflations": "schur,none", "text": "150"})
    whole(at.button(key="lab:table").click().run())
    assert_clean(at)
    assert player(at)["text_scale"] == 1.5  # the player scales its charts in the browser
    table = figures(at)[0]
    assert table["layout"]["font"]["size"] == round(1.5 * 18)  # a chart drawn by the server scales here
    # one payload serves every display: presenter mode and another text size build none anew
    from ui import compute

    built = dict(compute._payloads())
    at.toggle(key="w:present").set_value(True).run()
    at.segmented_control(key="w:text").set_value(125).run()
    assert (player(at)["present"], player(at)["text_scale"]) == (True, 1.25)
    assert dict(compute._payloads()) == built


def test_a_clear_cache_message_leaves_the_lessons_computed():
    """Any browser can send Streamlit's clear_cache message; the server then clears every
    st.cache_data and st.cache_resource for all users. The shared studies must stay."""
    import streamlit as st

    from ui import compute

    query = {"data": "sinc", "points": "150", "k": "5"}
    at = open_page("kmp", query)
    assert_clean(at)
    studies = dict(compute._results())
    payloads = dict(compute._payloads())
    assert studies and payloads
    st.cache_data.clear()  # what the server does on clear_cache (AppSession._handle_clear_cache_request)
    st.cache_resource.clear()
    assert dict(compute._results()) == studies and dict(compute._payloads()) == payloads
    again = open_page("kmp", query)
    assert_clean(again)
    assert all(compute._results()[key] is value for key, value in studies.items())  # nothing recomputed


def test_deflation_lab_families_follow_the_task_and_empty_choice_is_explained():
    at = open_page("deflation-lab", {"data": "sinc", "points": "120"})
    assert_clean(at)
    assert at.selectbox(key="w:family:regression").options == [
        "Kernel matching pursuit criterion",
        "Sparse KPCA criterion",
    ]
    at.multiselect(key="w:deflation-lab:deflations").set_value([]).run()
    assert_clean(at)
    assert any("at least one deflation" in i.value for i in at.info)


def test_column_lab_two_view_and_stepping():
    """The column lab steps in the browser like the algorithm pages: every chart in the
    player, the landmarks and the story at every step."""
    at = open_page("column-lab", {"points": "150", "rank": "20", "repeats": "2"})
    assert_clean(at)
    payload = player(at)
    keys = [item["key"] for item in payload["panels"]]
    assert sorted(keys) == sorted(["landmarks", "trace", "spectral", "leverage", "rho", "T", "stability", "speedup"])
    assert payload["n_steps"] == 20 and len(payload["stories"]) == 21
    assert payload["stories"][1].startswith("**Rank 1.**")
    landmarks = panel(payload, "landmarks")
    greedy = landmarks["rings"][0]
    assert greedy["unique"] and len(set(decode(greedy["picks"])[:5])) == 5  # greedy: five distinct landmarks
    assert "Fig. 1c" in panel(payload, "stability")["title"] and "Fig. 1d" in panel(payload, "speedup")["title"]
    assert not figures(at)  # nothing is drawn by the server


def test_column_lab_draws_random_features_and_quotes_theorem1():
    """Random features (Wang's baseline) have no landmarks to draw; the correlation panel says
    what Wang 2016, Thm 1 guarantees at the largest rank and compares it with the measured error."""
    at = open_page("column-lab", {"points": "150", "rank": "20", "repeats": "1", "methods": "uniform,random-features"})
    assert_clean(at)
    payload = player(at)
    assert "random-features" in json.dumps(panel(payload, "rho")["figure"])
    caption = panel(payload, "rho")["caption"]
    assert "Thm 1 (Wang 2016) guarantees" in caption and "Measured at that rank: uniform" in caption
    assert "each sampling with its own β at the theorem's γ = ελ(1 − t)/2" in caption
    alone = open_page("column-lab", {"points": "150", "rank": "20", "repeats": "1", "methods": "random-features"})
    assert_clean(alone)
    assert "landmarks" not in [item["key"] for item in player(alone)["panels"]]
    linear = open_page("column-lab", {"points": "150", "kernel": "linear", "methods": "random-features"})
    assert not linear.exception and any("RBF" in e.value for e in linear.error)


def test_column_lab_one_view_explains_what_is_missing():
    at = open_page("column-lab", {"data": "moons", "points": "120", "rank": "10", "repeats": "1"})
    assert_clean(at)
    assert any("two-view" in i.value for i in at.info)
    assert len(player(at)["panels"]) == 4


def test_bounds_explorer_overlay_and_axes():
    at = open_page("bounds")
    assert_clean(at)
    payload = player(at)
    fig = panel(payload, "bound")["figure"]
    assert len([t for t in fig["data"] if t.get("mode") == "lines"]) == 1 and len(at.latex) == 1
    assert payload["n_steps"] + 1 == len(payload["stories"]) == len(panel(payload, "bound")["step_x"])
    at = open_page("bounds", {"overlay": "compression_classification", "vary": "k", "kmax": "100"})
    assert_clean(at)
    fig = panel(player(at), "bound")["figure"]
    assert len([t for t in fig["data"] if t.get("mode") == "lines"]) == 2
    assert any(s.label.startswith("Largest k") and s.value == 100 for s in at.select_slider)
    assert len(at.latex) == 2
    assert any("tighter" in m.value for m in at.markdown)
    at.selectbox(key="w:bounds:bound").set_value("pca_local_rademacher").run()
    assert_clean(at)
    assert panel(player(at), "bound")["figure"]["layout"]["yaxis"]["type"] == "log"  # the local bound: log axis


def test_bounds_explorer_counts_are_settable_and_an_overlay_stays_on_the_chart():
    """k and t move in round counts (a slider over 0..999 cannot be set to 10 with a
    mouse); an overlaid bound above the linear axis's cut everywhere turns the log axis on
    rather than leaving the chart."""
    at = open_page("bounds", {"k": "7"})
    assert_clean(at)
    k = next(s for s in at.select_slider if s.label.startswith("basis vectors k"))
    assert "10" in k.options and len(k.options) < 40 and k.value in (6, 8)  # a link's 7: the nearest count
    assert any("nearest" in w.value for w in at.warning)  # and says so
    at = open_page("bounds", {"bound": "pca_global_rademacher", "vary": "m", "overlay": "pca_local_rademacher"})
    assert_clean(at)
    fig = panel(player(at), "bound")["figure"]
    assert fig["layout"]["yaxis"]["type"] == "log"


def test_paper_figures_gallery_shows_every_card_and_reproduces_on_demand():
    from ui import compute

    compute.store("reproductions").clear()  # a fresh server: another test may have reproduced a card already
    at = open_page("paper-figures")
    assert_clean(at)
    titles = [header.value for header in at.subheader]
    assert len(titles) == len(FIGURES) and titles[0].startswith("Hussain et al. (2011), Fig. 1")
    assert not figures(at)  # nothing runs until asked
    at = open_page("paper-figures", {"paper": "vincent2002"})
    assert [header.value.split(":")[0] for header in at.subheader] == [
        "Vincent and Bengio (2002), Table 1",
        "Vincent and Bengio (2002), Table 3",
        "Vincent and Bengio (2002), Fig. 5",
        "Vincent and Bengio (2002), Fig. 6",
        "Vincent and Bengio (2002), Fig. 7",
    ]
    said = [text.value for text in at.markdown]
    assert any(
        text.startswith("**The paper says.** “") and "unable to separate the data points" in text for text in said
    )
    assert any(text.startswith("**Judged by.**") for text in said)
    # the kept full-size verdict comes first, before anything is rerun
    assert any("at full size]" in text for text in said) and not figures(at)
    assert any("not bundled" in box.value for box in at.info)  # Table 1 needs the USPS file
    at.button(key="run-vincent2002-fig6-quick").click().run()
    assert_clean(at)
    figs = figures(at)
    assert len(figs) == 2 and trace(figs, "support points") is not None
    assert any(text.value.startswith("**Ours.**") for text in at.markdown)
    assert any("-badge[**" in text.value for text in at.markdown)  # the verdict
    assert len(at.get("download_button")) == 1  # the data (CSV); the card's script once its menu is open
    from ui import board

    opened(at, board.code_menu_key("vincent2002-fig6-quick"))
    assert len(at.get("download_button")) == 2 and any("NUMBERS" in block.value for block in at.code)
    assert at.query_params["paper"] == "vincent2002"


def test_paper_figures_full_toggle_labels_the_long_runs():
    at = open_page("paper-figures", {"paper": "wang2016", "full": "true"})
    assert_clean(at)
    labels = [button.label for button in at.button]
    assert any("paper-sized" in label for label in labels)


def test_paper_figures_take_presenter_mode_and_the_text_size():
    """Presenter mode and the text size did nothing on Paper figures: a link's present=1
    and text=150 now show there, and a card's chart grows with the text."""
    from ui import compute

    compute.store("reproductions").clear()  # another test may have reproduced the card already
    at = open_page("paper-figures", {"paper": "vincent2002", "present": "1", "text": "150"})
    assert_clean(at)
    assert next(t for t in at.toggle if t.label == "Presenter mode").value is True
    at.button(key="run-vincent2002-fig6-quick").click().run()
    assert_clean(at)
    large = figures(at)[0]["layout"]["font"]["size"]
    at = open_page("paper-figures", {"paper": "vincent2002"})  # the card's result is kept: shown at once
    assert_clean(at)
    assert large == round(figures(at)[0]["layout"]["font"]["size"] * 1.5)


def test_the_server_runs_one_blas_thread_per_pool():
    """ui.blas (imported by app.py) limits every BLAS pool to one thread, the setting
    benchmarks/blas_threads.py measured fastest on a shared server; the variable parses."""
    from threadpoolctl import threadpool_info

    import ui.blas

    pools = [info for info in threadpool_info() if info["user_api"] == "blas"]
    assert pools and all(info["num_threads"] == 1 for info in pools)
    assert ui.blas.threads_wanted(None) == 1 and ui.blas.threads_wanted(" 4 ") == 4
    assert ui.blas.threads_wanted("default") is None and ui.blas.threads_wanted("lots") == 1
    assert ui.blas.threads_wanted("0") == 1


# Sidebar changes a user makes, page by page: after each, the address reopens the same
# view in a fresh session (the same study and display: the player's payload id).
ROUND_TRIPS = {
    "skpca": [
        ("selectbox", "w:data:skpca", "moons"),
        ("slider", "w:moons:noise", 0.3),
        ("slider", "w:points", 400),
        ("selectbox", "w:skpca:gamma", "0.3"),
        ("slider", "w:skpca:k", 12),
        ("toggle", "w:skpca:sub", True),
        ("toggle", "w:skpca:ownscale", True),
    ],
    "kmp": [
        ("selectbox", "w:data:kmp", "sinc"),
        ("slider", "w:kmp:k", 12),
        ("selectbox", "w:kmp:variant", "backfit"),
        ("toggle", "w:kmp:setalpha", True),
        ("select_slider", "w:kmp:rescale", 0.2),
        ("toggle", "w:kmp:log", True),
    ],
    "skcca": [
        ("slider", "w:points", 300),
        ("slider", "w:skcca:alpha", 0.5),
        ("select_slider", "w:skcca:reg", 1e-2),
        ("selectbox", "w:skcca:kernel", "laplacian"),
    ],
    "mpkfda": [
        ("selectbox", "w:data:mpkfda", "xor"),
        ("selectbox", "w:mpkfda:criterion", "pseudo"),
        ("selectbox", "w:mpkfda:deflation", "schur"),
        ("slider", "w:mpkfda:stages", 2),
        ("number_input", "w:seed", 3),
        ("slider", "w:test", 0.4),
        ("toggle", "w:std", False),
    ],
    "deflation-lab": [
        ("selectbox", "w:deflation-lab:tau", "original"),
        ("toggle", "w:deflation-lab:ownscale", False),
        ("slider", "w:deflation-lab:k", 8),
    ],
    "column-lab": [("slider", "w:column-lab:rank", 20), ("slider", "w:column-lab:repeats", 2)],
}


@pytest.mark.parametrize("page", list(ROUND_TRIPS))
def test_every_sidebar_state_reopens_from_its_address(page):
    """(The fresh session opens with the seldom-changed settings' groups closed: their values
    come from the address without their widgets.)"""
    at = open_page(page, {"points": "300"} if page in ("deflation-lab", "column-lab") else None)
    opened(at, f"seldom-data-{page}", f"seldom-bounds-{page}")
    assert_clean(at)
    view = ("id", "present", "text_scale", "step")  # the study, how it is shown, and where
    for kind, key, value in ROUND_TRIPS[page]:
        getattr(at, kind)(key=key).set_value(value).run()
        assert_clean(at)
        shown = [player(at)[k] for k in view]  # the view redrawn in place, when it was
        whole(at)
        assert_clean(at)
        address = {name: at.query_params[name] for name in at.query_params}
        assert "data" in address, "a link names its dataset (one without opens the page's first preset)"
        fresh = open_page(page, address)
        assert [player(fresh)[k] for k in view] == [player(at)[k] for k in view] == shown, (
            f"after {key} = {value!r}, {address} reopens another view"
        )


def test_a_setting_that_changes_values_redraws_the_view_alone():
    """A width, a size or a switch changes the page's view in place: the run draws the view
    (the study, the player, what is said of the data, the address), not the sidebar's widgets
    (AppTest's tree holds what a run sent), and it is the view the new address opens.  A
    setting that changes which widgets the page shows (the kernel's kind: a linear kernel has
    no width) reruns the whole page."""
    at = open_page("kmp", {"data": "sinc"})
    assert_clean(at)
    first = player(at)["id"]
    at.selectbox(key="w:kmp:gamma").select("1").run()
    assert_clean(at)
    assert not at.sidebar.slider, "the width redrew the whole page"
    assert at.query_params["gamma"] == "1" and player(at)["id"] != first
    assert player(at)["address"].endswith("gamma=1") or "gamma=1&" in player(at)["address"]
    assert player(open_page("kmp", {"data": "sinc", "gamma": "1"}))["id"] == player(at)["id"]

    at.run()  # the whole page, as the next click elsewhere draws it: the widget keeps its value
    assert at.selectbox(key="w:kmp:gamma").value == "1"
    at.slider(key="w:points").set_value(400).run()
    assert_clean(at)
    assert not at.sidebar.slider and at.query_params["points"] == "400"
    assert any("400 points" in caption.value for caption in at.sidebar.caption), "the data's line is stale"
    assert player(open_page("kmp", {"data": "sinc", "gamma": "1", "points": "400"}))["id"] == player(at)["id"]

    at.run()
    at.selectbox(key="w:kmp:kernel").select("linear").run()
    assert_clean(at)
    assert at.sidebar.slider, "a change of the widgets shown must redraw the page"
    assert "w:kmp:gamma" not in [getattr(box, "key", None) for box in at.sidebar.selectbox]


@pytest.mark.parametrize("page", ["kmp", "mpkfda", "column-lab"])
def test_a_page_names_the_settings_of_its_view_as_a_link_to_it_reads_them(page, monkeypatch):
    """The settings a page's run names its view by (every value, defaults included: the player
    knows a picture it has shown by them, and draws it again at once when a setting comes back
    to it) are those its address reads as a link, or the view route, reads them: on opening,
    after a width changed in place, and after a switch that reruns the page."""
    from ui import board
    from views import pictures

    named = []
    real = board.pictures.view_values
    monkeypatch.setattr(board.pictures, "view_values", lambda values: named.append(real(values)) or named[-1])
    at = opened(open_page(page), f"seldom-data-{page}")
    assert_clean(at)
    for change in (None, f"w:{page}:gamma", "w:std"):
        if change is not None:
            at.run()  # (the page whole again, as the next click draws it)
            widget = next(w for w in [*at.selectbox, *at.toggle] if getattr(w, "key", None) == change)
            if change == "w:std":
                widget.set_value(not widget.value).run()
            else:
                widget.select(widget.options[-1]).run()
        assert_clean(at)
        query = {name: at.query_params[name] for name in at.query_params}
        _, address = pictures.read_address(page, query)
        assert named[-1] == real(address.values), f"{page} after {change}: {query}"
    assert named[-1]["std"] != named[0]["std"] and named[-1]["gamma"] != named[0]["gamma"]


def test_home_takes_a_class_code_typed_by_hand_and_says_what_a_code_is(monkeypatch):
    """Where the server runs live classes, Home has a box for the code on the lecturer's
    screen; a slip gets a sentence that shows what was typed as text (never markdown), and
    the address is left alone.  (Joining with a right code: tests/test_live_class.py.)"""
    from views import classroom

    monkeypatch.setattr(classroom, "SERVED", False)  # (another test of this process may have started one)
    at = open_page()
    assert not at.text_input, "no class server, no box for its code"
    monkeypatch.setattr(classroom, "SERVED", True)
    at = open_page()
    box = next(field for field in at.text_input if field.label == "Class code")
    box.input("**ab**[c](x)")
    next(button for button in at.button if button.label == "Join the class").click().run()
    assert_clean(at)
    said = [warning.value for warning in at.warning]
    assert any("A class code is 8 letters and digits" in text for text in said), said
    assert any("` **ab**[c](x) `" in text for text in said), said  # a code span: shown as typed
    assert "class" not in at.query_params
