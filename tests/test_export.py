"""Demos that travel (views/export.py): a study saved as one HTML file that runs with no
server and no network, from the app's Save menu or the command line.

The browser tests open the exported file from ``file://`` with every other request
refused, step it with the keys a clicker sends, and compare what each step draws with
what the app draws for the same settings and step."""

import json
import re
from pathlib import Path

import pytest
from browser_support import (  # noqa: F401 (fixtures)
    app_page,
    browser,
    click_like_a_person,
    save_this_demo,
    settled,
    wait_until_idle,
)

from views import export, site
from views.player import PLAYER_TRACES, Panel

SINC = "kmp?data=sinc&gamma=3&rescale=0.2"  # the KMP page's second preset: 18 steps, 0.8 MB of steps


# --- without a browser ------------------------------------------------------------------


def test_an_address_names_its_page_settings_and_app():
    page, query, app = export.parse_target("https://teach.example.org/lab/kmp?data=sinc&gamma=3")
    assert (page.key, query, app) == ("kmp", {"data": "sinc", "gamma": "3"}, "https://teach.example.org/lab")
    page, query, app = export.parse_target("/sparse-kpca/?data=rings")
    assert (page.key, query, app) == ("skpca", {"data": "rings"}, export.DEFAULT_APP_URL)
    assert export.parse_target("deflation-lab")[0].file == "app_pages/deflation_lab.py"
    for bad, words in [
        ("javascript:alert(1)", "not an http"),
        ("http://localhost:8501/", "no step player"),
        ("paper-figures", "no step player"),
        ("/nowhere?x=1", "no page has the address"),
        ("", "give"),
    ]:
        with pytest.raises(ValueError, match=words):
            export.parse_target(bad)


def test_a_scene_links_back_to_its_settings_in_the_app():
    scene = export.Scene(page="skpca", payload="{}", query={"data": "boston", "k": "60"}, name="Boston")
    assert scene.address("https://lab.example/app/") == "https://lab.example/app/sparse-kpca?data=boston&k=60"
    assert scene.title() == "Sparse KPCA: Boston"
    assert export.app_base("https://lab.example/app/sparse-kpca", "skpca") == "https://lab.example/app"
    assert export.app_base("", "kmp") == export.DEFAULT_APP_URL


def test_text_from_a_scene_cannot_become_markup_or_a_script():
    hostile = "</script><script>window.__owned = 1</script><b>bold</b>"
    scene = export.Scene(
        page="kmp", payload=json.dumps({"n_steps": 0, "note": hostile}), query={"data": hostile}, name=hostile
    )
    text = export.standalone([scene], app_url="javascript:alert(1)")
    assert "<script>window.__owned" not in text and "<b>bold</b>" not in text
    data = json.loads(text.split('id="mx-data">', 1)[1].split("</script>", 1)[0])
    assert data["scenes"][0]["name"] == hostile  # kept as text, shown as text
    assert data["scenes"][0]["url"] == ""  # only http(s) links back


def test_the_player_refuses_a_chart_its_plotly_bundle_cannot_draw():
    import plotly.graph_objects as go

    Panel("ok", "curve", "fine", go.Figure(go.Scatter(x=[1], y=[1]))).as_dict()
    with pytest.raises(ValueError, match="bar"):
        Panel("bars", "curve", "bars", go.Figure(go.Bar(x=[1], y=[1]))).as_dict()
    assert {"scatter", "scattergl", "heatmap"} <= PLAYER_TRACES


def test_the_bundle_is_the_plotly_version_the_figures_are_made_for():
    """The figures' JSON comes from the installed plotly package; the player's partial
    bundle must be built from the plotly.js that package ships (tools/plotly_bundle)."""
    import re

    import plotly

    from views.player import bundle_version

    shipped = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text()[:300]
    assert bundle_version() == re.search(r"plotly\.js v([0-9.]+)", shipped).group(1)


def test_the_command_says_what_is_wrong_in_a_sentence(capsys, tmp_path):
    assert export.main(["http://localhost:8501/paper-figures", "--out", str(tmp_path / "x.html")]) == 2
    assert "has no step player" in capsys.readouterr().err
    assert export.main(["--presets", "bounds", "--out", str(tmp_path / "x.html")]) == 2
    assert "has no presets" in capsys.readouterr().err
    assert export.main(["kmp", "--app-url", "javascript:alert(1)", "--out", str(tmp_path / "x.html")]) == 2
    assert "not an http(s) address" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_the_batch_form_writes_a_file_per_preset_and_an_index(tmp_path):
    from views.presets import PRESETS

    assert export.main(["--presets", "mpkfda", "--out-dir", str(tmp_path)]) == 0
    names = sorted(path.name for path in tmp_path.glob("*.html"))
    presets = PRESETS["mpkfda"]
    assert len(names) == len(presets) + 1 and "index.html" in names
    index = (tmp_path / "index.html").read_text()
    for number, preset in enumerate(presets):
        name = next(n for n in names if n.startswith(f"{number + 1:02d}-"))
        assert f'href="{name}"' in index
        data = json.loads((tmp_path / name).read_text().split('id="mx-data">', 1)[1].split("</script>", 1)[0])
        assert [scene["name"] for scene in data["scenes"]] == [preset.name]
        assert data["scenes"][0]["url"].startswith(export.DEFAULT_APP_URL + "/mpkfda?")


# --- exported files -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A single demo (by the command, as a course site's script would) and a two-scene
    lesson, written to a folder with a page that embeds the demo in an iframe."""
    folder = tmp_path_factory.mktemp("exported")
    assert export.main([SINC, "--out", str(folder / "sinc.html"), "--app-url", "http://127.0.0.1:9"]) == 0
    scenes = [
        export.run_page(*export.parse_target(target)[:2])[0]
        for target in ("kmp?data=sinc&gamma=3&rescale=0.2&k=6", "mpkfda?data=moons&k=4")
    ]
    (folder / "lesson.html").write_text(export.standalone(scenes), encoding="utf-8")
    (folder / "host.html").write_text(
        "<!doctype html><html lang='en'><title>slides</title><body style='margin:0'><h1>Slide 7</h1>"
        "<iframe title='demo' src='sinc.html#step=3' width='900' height='520' style='border:0'></iframe></body></html>"
    )
    return folder


class Offline:
    """A fresh browser context in which only ``file://`` loads: every other request is
    refused and counted, as are failed requests and console errors."""

    def __init__(self, browser, size=(1280, 720)):
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]}, color_scheme="light")
        self.refused, self.failed, self.errors = [], [], []
        self.context.route("**/*", self.route)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("requestfailed", lambda request: self.failed.append(request.url))

    def route(self, route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def open(self, url, step=None):
        self.page.goto(url)
        return player_ready(self.page, step)

    def clean(self):
        assert (self.refused, self.failed, self.errors) == ([], [], [])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.context.close()


def player_ready(page_or_frame, step=None):
    condition = "window.__mplRendered && window.__mplPlayer && window.__mplPlayer.Plotly && window.__mplSettled"
    if step is not None:
        condition += f" && window.__mplRendered.step === {step} && window.__mplPlayer.j === {step}"
    page_or_frame.wait_for_function(condition, timeout=60_000)
    return page_or_frame.evaluate("window.__mplPlayer.j")


def press(page, key, step, scene=None):
    page.keyboard.press(key)
    condition = f"window.__mplRendered.step === {step} && window.__mplPlayer.j === {step}"
    if scene is not None:
        condition += f" && window.__mplScene === {scene}"
    page.wait_for_function(condition, timeout=30_000)


# The numbers every drawn panel holds: per trace, its x, y and z arrays rounded to 6
# significant digits (z as the sum and count of its finite cells); tables by their text.
DRAWN = """() => {
  const round = (v) => (typeof v === 'number' && Number.isFinite(v) ? Number(v.toPrecision(6)) : null);
  const list = (a) => (a && typeof a.length === 'number' && typeof a !== 'string' ? Array.from(a, round) : []);
  const out = {};
  for (const cell of window.__mplPlayer.cells) {
    if (!cell.drawn) continue;
    if (cell.panel.table) { out[cell.panel.key] = cell.plot.innerText; continue; }
    out[cell.panel.key] = cell.plot.data.map((t) => {
      let sum = 0, count = 0;
      for (const row of t.z || []) for (const v of row) if (Number.isFinite(v)) { sum += v; count += 1; }
      return { type: t.type, x: list(t.x), y: list(t.y), z: [round(sum), count] };
    });
  }
  return out;
}"""


def test_the_exported_demo_steps_offline_and_draws_what_the_app_draws(files, browser, server):
    """Opened from file:// with the network refused, the exported demo steps with the
    clicker's keys, and every step's panels hold the same numbers as the app's for the
    same settings and step (the drawn data, not a screenshot); the step is in the
    address's fragment, and that address reopens it."""
    with app_page(browser, f"{server}/{SINC}") as app, Offline(browser) as offline:
        settled(app, 0)
        n = app.evaluate("window.__mplPlayer.n")
        offline.open((files / "sinc.html").as_uri() + "#present=0", 0)
        page = offline.page
        for each in (app, page):  # every panel in view, so every panel drawn at each step, in both
            each.set_viewport_size({"width": 1280, "height": 4000})
        assert page.evaluate("window.__mplPlayer.n") == n == 18
        app.evaluate("document.activeElement && document.activeElement.blur()")
        before = None
        for j in range(n + 1):
            if j:
                press(page, "PageDown", j)
                app.keyboard.press("PageDown")
            app.wait_for_function(f"window.__mplSettled && window.__mplSettled.step === {j}", timeout=30_000)
            page.wait_for_function(f"window.__mplSettled && window.__mplSettled.step === {j}", timeout=30_000)
            ours, theirs = page.evaluate(DRAWN), app.evaluate(DRAWN)
            assert set(ours) == set(theirs) and len(ours) >= 4
            assert ours == theirs, f"step {j} draws other numbers than the app"
            assert ours != before  # each step changes what is drawn
            before = ours
        assert page.url.endswith("#step=18&present=0")
        press(page, "PageDown", n)  # past the last step of a single demo: stays
        press(page, "PageUp", n - 1)
        assert page.evaluate("document.getElementById('mx-made').innerText").startswith(
            "Made with Matching Pursuit Lab " + export.version()
        )
        link = page.get_by_role("link", name="Open these settings in the app")
        assert link.get_attribute("href") == "http://127.0.0.1:9/kmp?data=sinc&gamma=3&rescale=0.2"
        offline.clean()
        address = page.url
    with Offline(browser) as again:  # the address reopens the step, in a fresh browser
        assert again.open(address, n - 1) == n - 1
        assert again.page.evaluate("window.__mplPlayer.payload.present") is False
        again.clean()


def test_a_lesson_moves_through_scenes_with_the_clicker(files, browser):
    """PageDown past a scene's last step opens the next scene at step 0; PageUp at step 0
    goes back to the previous scene's last step; the fragment names the scene."""
    with Offline(browser) as offline:
        offline.open((files / "lesson.html").as_uri(), 0)
        page = offline.page
        first = page.evaluate("window.__mplPlayer.n")
        for j in range(1, first + 1):
            press(page, "PageDown", j, scene=0)
        press(page, "PageDown", 0, scene=1)
        assert page.evaluate("window.__mplPlayer.payload.page") == "mpkfda"
        assert "scene=2" in page.url
        assert page.locator("#mx-scene").input_value() == "1"
        press(page, "PageUp", first, scene=0)
        # the scene menu and its buttons, with the mouse
        click_like_a_person(page, page.get_by_role("button", name="Next scene"))
        page.wait_for_function("window.__mplScene === 1 && window.__mplRendered.step === 0")
        press(page, "PageDown", 1, scene=1)  # the clicker steps again at once: the focus went back to the player
        page.locator("#mx-scene").select_option("0")  # the scene menu
        page.wait_for_function("window.__mplScene === 0 && window.__mplRendered.step === 0")
        press(page, "PageDown", 1, scene=0)  # not taken by the menu as its own key
        offline.clean()


def test_the_page_controls_keep_the_step_and_travel_in_the_address(files, browser):
    """Text size, presenter mode and the theme, clicked with the mouse: the step stays,
    the player redraws at the new size, and the address reopens the same view."""
    with Offline(browser) as offline:
        offline.open((files / "sinc.html").as_uri() + "#step=5", 5)
        page = offline.page
        assert page.evaluate("window.__mplPlayer.payload.present") is True  # a file opens fitted to its window
        click_like_a_person(page, page.get_by_role("button", name="150%"))
        page.wait_for_function("window.__mplPlayer.scale === 1.5 && window.__mplRendered.step === 5")
        click_like_a_person(page, page.get_by_label("Dark"))
        page.wait_for_function("window.__mplPlayer.dark === true")
        press(page, "PageDown", 6)  # the keys still step: the focus went back to the player
        address = page.url
        assert "text=150" in address and "theme=dark" in address and "step=6" in address
        # in presenter mode every panel shown fits the window
        bottom = page.evaluate(
            "Math.max(...[...document.querySelectorAll('.mpl-cell')]"
            ".filter((c) => c.offsetParent).map((c) => c.getBoundingClientRect().bottom))"
        )
        assert bottom <= 720
        offline.clean()
    with Offline(browser) as again:
        again.open(address, 6)
        assert again.page.evaluate("[window.__mplPlayer.scale, window.__mplPlayer.dark]") == [1.5, True]
        again.clean()


def test_the_demo_works_inside_an_iframe_and_fits_it(files, browser):
    with Offline(browser) as offline:
        offline.page.goto((files / "host.html").as_uri())
        frame = offline.page.frame_locator("iframe")
        inner = next(f for f in offline.page.frames if f.url.endswith("sinc.html#step=3"))
        assert player_ready(inner, 3) == 3
        bottom = inner.evaluate(
            "Math.max(...[...document.querySelectorAll('.mpl-cell')]"
            ".filter((c) => c.offsetParent).map((c) => c.getBoundingClientRect().bottom))"
        )
        assert 300 < bottom <= 520  # sized to the frame, not to the window around it
        # a mouse click at the button's place on the slide (the frame's offset added)
        button, place = frame.get_by_role("button", name="Next step"), offline.page.locator("iframe").bounding_box()
        box = button.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        assert (
            inner.evaluate(f"document.elementFromPoint({x - place['x']}, {y - place['y']}).getAttribute('aria-label')")
            == "Next step"
        )
        offline.page.mouse.click(x, y)
        inner.wait_for_function("window.__mplRendered.step === 4")
        offline.page.keyboard.press("PageDown")  # a clicker, once the demo has the focus
        inner.wait_for_function("window.__mplRendered.step === 5")
        offline.clean()


def test_the_demo_works_from_a_static_web_host(files, browser):
    """Served by a plain static file server (a course site), it opens and steps, and asks
    nothing of any other origin."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(files))
    handler.log_message = lambda *args: None
    host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{host.server_address[1]}"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    refused = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(origin)
            else (refused.append(route.request.url), route.abort())
        ),
    )
    try:
        page = context.new_page()
        page.goto(f"{origin}/lesson.html#scene=2&step=1")
        assert player_ready(page, 1) == 1 and page.evaluate("window.__mplScene") == 1
        press(page, "PageDown", 2, scene=1)
        assert refused == []
    finally:
        context.close()
        host.shutdown()


def test_hostile_text_in_a_file_is_shown_as_text(tmp_path, browser):
    hostile = "<img src=x onerror='window.__owned=1'>**bold**"
    scene, _ = export.run_page(*export.parse_target("kmp?data=sinc&gamma=3&rescale=0.2&k=3")[:2])
    scene = export.Scene(page=scene.page, payload=scene.payload, query={"note": hostile}, name=hostile)
    path = tmp_path / "hostile.html"
    path.write_text(export.standalone([scene, scene]), encoding="utf-8")
    with Offline(browser) as offline:
        offline.open(path.as_uri(), 0)
        page = offline.page
        assert page.evaluate("window.__owned") is None
        assert hostile in page.locator("#mx-made").inner_text()
        assert page.locator("#mx-scene option").first.inner_text() == "1. " + hostile
        offline.clean()


# --- the app's Save menu, and the app itself offline -----------------------------------------


def test_save_this_demo_from_the_app_with_the_mouse(browser, server, tmp_path):
    with app_page(browser, f"{server}/kmp?data=sinc&gamma=3&rescale=0.2&step=4&text=125") as page:
        settled(page, 4)
        press(page, "PageDown", 5)  # stepped in the browser, where the server does not see it
        press(page, "PageDown", 6)
        path = tmp_path / "saved.html"
        download = save_this_demo(page, path)
        assert download.suggested_filename.startswith("kmp-sinc-the-bound")
        app_id = page.evaluate("window.__mplPlayer.id")
    assert path.stat().st_size < 6e6
    with Offline(browser) as offline:
        assert offline.open(path.as_uri(), 6) == 6  # the step on screen and the text size the app showed
        assert offline.page.evaluate("window.__mplPlayer.scale") == 1.25
        assert offline.page.evaluate("window.__mplPlayer.id").startswith(app_id)
        assert "sinc: the bound" in offline.page.locator(".mpl-lesson").inner_text()
        offline.clean()


def test_the_app_asks_nothing_of_another_origin(browser, server):
    """Every page of the app, reached through its menu with every request to another
    origin refused: none is made, none fails, no console error.  (A page opened by its
    own address makes Streamlit probe two addresses under it, ``/<page>/_stcore/health``
    and ``host-config``, before finding the server at ``/``: same-origin 404s it
    expects, and the only ones allowed.)"""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    outside, failed, errors = [], [], []
    # only requests to another origin are intercepted (the driver matches the pattern): each
    # intercepted request waits on this process, and the app's own are hundreds
    context.route(
        re.compile("^(?!" + re.escape(server + "/") + ")"),
        lambda route: (outside.append(route.request.url), route.abort()),
    )
    page = context.new_page()
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda response: response.status >= 400 and failed.append(response.url))
    try:
        page.goto(server)
        wait_until_idle(page)
        for entry in site.PAGES[1:]:
            click_like_a_person(
                page, page.locator("[data-testid='stSidebarNav']").get_by_role("link", name=entry.title)
            )
            page.wait_for_url(f"**/{entry.url_path}**")
            wait_until_idle(page)
        assert (outside, failed, errors) == ([], [], [])
        page.goto(f"{server}/mpkfda?present=1")
        wait_until_idle(page)
        probes = {f"{server}/mpkfda/_stcore/health", f"{server}/mpkfda/_stcore/host-config"}
        assert outside == [] and set(failed) <= probes
    finally:
        context.close()


GUIDED = """title = "Two scenes"

[[scene]]
title = "Sinc, first steps"
page = "kmp"
settings = { data = "sinc", gamma = "3", k = "12" }
step = 0
until = 2
narration = "Lowest bound {bound_min:.2f} at t = {bound_argmin}."

[[scene]]
title = "Sinc, basic variant, further on"
page = "kmp"
settings = { data = "sinc", gamma = "3", k = "12", variant = "basic" }
step = 5
until = 6
narration = "Test error {test_min:.3f} at best."

[scene.question]
ask = "Refit?"
choices = ["yes", "no"]
answer = 2
"""


def test_a_guided_lesson_travels_as_one_file_with_its_narration(tmp_path, browser, capsys):
    """``--lesson`` with a lesson file: one file whose scenes carry their narration,
    progress and question; PageDown past a scene's last step opens the next scene on its
    own first step (5 here, not 0), PageUp on it goes back to the previous scene's start.
    A bad lesson file is refused with its line before any scene runs."""
    source = tmp_path / "two.toml"
    source.write_text(GUIDED)
    out = tmp_path / "two.html"
    assert export.main(["--lesson", str(source), "--out", str(out)]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text(GUIDED.replace("answer = 2", "answer = 7"))
    assert export.main(["--lesson", str(bad), "--out", str(tmp_path / "bad.html")]) == 2
    assert "error: line 22 (scene 2's question): answer" in capsys.readouterr().err
    with Offline(browser) as offline:
        offline.open(out.as_uri(), 0)
        page = offline.page
        assert " ".join(page.locator(".mpl-guide-where").inner_text().split()) == "Two scenes · Scene 1 of 2"
        assert page.locator(".mpl-guide-text").inner_text().startswith("Sinc, first steps. Lowest bound ")
        press(page, "PageDown", 1, scene=0)
        press(page, "PageDown", 2, scene=0)
        press(page, "PageDown", 5, scene=1)
        assert " ".join(page.locator(".mpl-guide-where").inner_text().split()) == "Two scenes · Scene 2 of 2"
        assert page.get_by_role("button", name="A. yes", exact=True).count() == 0  # folded on a projector
        page.get_by_role("button", name="Question", exact=True).click()  # until the lecturer opens it
        assert page.get_by_role("button", name="A. yes", exact=True).count() == 1
        press(page, "PageDown", 6, scene=1)
        press(page, "PageDown", 6, scene=1)  # the lesson's end: stays
        press(page, "PageUp", 5, scene=1)
        press(page, "PageUp", 0, scene=0)  # back a scene: its start
        offline.clean()


def test_scenes_of_one_study_keep_it_once_and_merge_back_to_their_payloads():
    from views import player

    text = json.dumps(
        {"id": "s", "n_steps": 3, "panels": [{"title": 'a ,"step": inside a string'}]}, separators=(",", ":")
    )
    other = text.replace('"s"', '"t"')
    payloads = [
        player.with_step(text, 0),
        player.with_step(text, 2, {"name": "n", "text": "t", "guide": {}}),
        player.with_step(other, 1),
    ]
    studies, heads = export._shared_studies(payloads)
    assert studies == [text, other] and [study for study, _ in heads] == [0, 0, 1]
    for payload, (study, view) in zip(payloads, heads):
        assert studies[study][:-1] + "," + view[1:] == payload  # what the page's script does


def test_the_command_prints_no_streamlit_warning_and_names_a_lesson_file_for_its_lesson(tmp_path):
    """The export printed Streamlit's "missing ScriptRunContext" warning; the Save menu named
    every lesson lesson.html."""
    import subprocess
    import sys

    from views import lessons

    out = tmp_path / "one.html"
    done = subprocess.run(
        [sys.executable, "-m", "views.export", "http://localhost:8501/bounds", "--out", str(out)],
        cwd=Path(export.__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and out.exists(), done.stderr
    assert "ScriptRunContext" not in done.stderr + done.stdout
    shipped = lessons.shipped()
    assert export.lesson_stem("2-kmp", shipped["2-kmp"]) == "2-kmp"
    mine = lessons.parse(lessons.decode(lessons.encode(shipped["2-kmp"].source)))
    assert export.lesson_stem("zAbC", mine) == "kernel-matching-pursuit-and-when-to-stop"
