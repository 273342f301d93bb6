"""The app, driven headlessly with Streamlit's AppTest: every page renders, steps,
reopens from a URL, and survives a bad upload."""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = {
    "skpca": "app_pages/sparse_kpca.py",
    "kmp": "app_pages/kmp.py",
    "skcca": "app_pages/sparse_kcca.py",
    "mpkfda": "app_pages/mpkfda.py",
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


def assert_clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def figures(at):
    """The page's Plotly figures as dicts."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


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


@pytest.mark.parametrize("page", list(PAGES))
def test_page_renders_and_steps(page):
    at = open_page(page)
    assert_clean(at)
    assert at.session_state[f"{page}:step"] == 0
    assert any(text.value.startswith("**Step 0.**") for text in at.markdown)
    star_before = trace(figures(at), "next pick")
    at.button(key=f"{page}:next").click().run()
    assert_clean(at)
    assert at.session_state[f"{page}:step"] == 1
    assert any(text.value.startswith("**Step 1.**") for text in at.markdown)
    star_after = trace(figures(at), "next pick")
    assert star_before is not None and star_after is not None
    assert (star_before["x"], star_before["y"]) != (star_after["x"], star_after["y"]), "the next-pick marker must move"
    assert trace(figures(at), "chosen (1)") is not None
    assert at.query_params["step"] == "1"
    at.button(key=f"{page}:prev").click().run()
    assert at.session_state[f"{page}:step"] == 0


@pytest.mark.parametrize("page", list(PAGES))
def test_every_control_has_a_tooltip(page):
    at = open_page(page)
    for kind in ("slider", "selectbox", "toggle", "number_input", "select_slider", "button"):
        for widget in getattr(at, kind):
            assert widget.help, f"{kind} {widget.label!r} on {page} has no help tooltip"


def test_url_reopens_the_same_view_and_clamps_the_step():
    at = open_page("kmp", {"data": "moons", "k": "12", "variant": "backfit", "step": "7"})
    assert_clean(at)
    assert at.session_state["kmp:step"] == 7
    assert at.session_state["kmp:k"] == 12
    assert at.session_state["kmp:variant"] == "backfit"
    assert at.selectbox(key="w:data:kmp").value == "moons"
    assert at.slider(key="w:kmp:step").value == 7
    assert at.query_params["k"] == "12" and at.query_params["step"] == "7"

    at = open_page("kmp", {"data": "moons", "k": "12", "step": "999"})
    assert at.session_state["kmp:step"] == 12  # clamped to the last step


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
    assert any(text.value.startswith("**Step 0.**") for text in at.markdown)


def test_good_upload_becomes_the_dataset():
    rows = "\n".join(f"{i / 10},{(i % 7) / 3},{(i * 3) % 11}" for i in range(60))
    at = open_page("kmp")
    at.file_uploader(key="upload_file").upload("mine.csv", f"x1,x2,target\n{rows}\n".encode(), "text/csv").run()
    assert_clean(at)
    assert at.selectbox(key="w:data:kmp").value.startswith("upload: mine.csv")


def test_impossible_settings_give_a_message_not_a_traceback():
    at = open_page("kmp", {"data": "moons", "variant": "prefit", "loss": "tanh"})
    assert not at.exception
    assert any("Pre-fitting needs the squared loss" in e.value for e in at.error)


def test_play_advances_and_pauses():
    at = open_page("skpca")
    at.button(key="skpca:play").click().run()
    assert at.session_state["skpca:playing"] is True
    first = at.session_state["skpca:step"]
    at.run()
    assert at.session_state["skpca:step"] == first + 1
    at.button(key="skpca:play").click().run()
    assert at.session_state["skpca:playing"] is False


def test_downloads_offer_the_path_and_the_curves():
    at = open_page("skpca")
    labels = [button.label for button in at.get("download_button")]
    assert labels == ["Download the path (CSV)", "Download the curves (CSV)"]


def test_csv_has_a_header_and_one_row_per_step():
    from mpcore.datasets import load_dataset, prepare
    from mpcore.studies import skpca_study
    from ui.frame import to_csv

    study = skpca_study(prepare(load_dataset("moons", n_samples=120), seed=0), k=7)
    lines = to_csv(study.path_table()).splitlines()
    assert lines[0] == "step,training index,dataset row,criterion value,x (plot),y (plot)"
    assert len(lines) == 8
    assert lines[1].split(",")[1] == str(study.path.indices[0])
    curves = to_csv(study.curves.table()).splitlines()
    assert len(curves) == 8 and curves[0].startswith("t,test residual")
