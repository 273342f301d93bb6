"""A page's picture as a function (views/pictures): read from an address the way the page's
widgets read it, drawn without Streamlit, and the same payload a browser gets from the page."""

import ast
import json
import math
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from test_payload_schema import payload_problems

from serving import routes as serving_routes
from serving import warm
from ui import component
from views import export, lessons, pictures, player, site
from views.presets import PRESETS, matching

ROOT = Path(__file__).resolve().parent.parent
WITH_PICTURES = [page for page in site.PAGES if page.picture]


def test_every_page_with_a_player_has_a_picture_that_reads_and_draws():
    assert {page.key for page in WITH_PICTURES} == {
        "skpca",
        "kmp",
        "skcca",
        "mpkfda",
        "deflation-lab",
        "column-lab",
        "bounds",
    }
    for page in WITH_PICTURES:
        draws = pictures.module(page)
        assert draws.PAGE == page.key and callable(draws.read) and callable(draws.draw)
    with pytest.raises(ValueError, match="has no step player"):
        pictures.module("home")


def test_a_link_without_a_dataset_opens_the_first_preset_and_one_with_a_dataset_does_not():
    preset = PRESETS["kmp"][0].params
    settings, address = pictures.read_address("kmp", {"present": "1"})
    assert settings.data.name == preset["data"] and address.values["present"][0] is True
    assert {key: value for key, value in address.query().items() if key in preset} == dict(preset)
    settings, _ = pictures.read_address("kmp", {"data": "sinc"})
    assert settings.data.name == "sinc" and settings.options["k"] == 30  # the page's own default


@pytest.mark.parametrize("page", list(PRESETS))
def test_every_preset_reopens_from_the_address_its_page_writes(page):
    """A preset's view writes an address (what a student copies); opened by a browser new to
    the app, that address shows the same study, drawn the same way, under the same preset.
    (tests/test_lecture.py chooses one page's presets with the mouse and reopens them in
    Chromium: the address the page writes is this one, tests above.)"""
    for preset in PRESETS[page]:
        settings, address = pictures.read_address(page, preset.params)
        assert matching(page, address.values) is preset
        again, reopened = pictures.read_address(page, address.query())
        assert again == settings and again.key() == settings.key()
        assert matching(page, reopened.values) is preset and not reopened.notes


def test_a_links_bad_values_are_noted_and_replaced_as_the_page_does():
    settings, address = pictures.read_address("kmp", {"data": "sinc", "k": "5000", "variant": "bogus", "log": "x"})
    assert settings.options["k"] == 150 and settings.options["variant"] == "prefit"
    assert settings.shown("log_y") is False
    said = " ".join(address.notes)
    assert "k = ` 5000 ` is outside 1 to 150; using 150" in said
    assert "` bogus ` for 'variant' is not allowed here" in said
    assert "` x ` for 'log' is not allowed here" in said


def test_a_dataset_of_another_task_is_refused_with_a_sentence_and_the_page_default_used():
    settings, address = pictures.read_address("skcca", {"data": "sinc"})
    assert settings.data.name == "rings-two-view"
    assert any("'data'" in note for note in address.notes)


def test_nothing_to_compare_is_a_sentence_not_a_traceback():
    settings, address = pictures.read_address("deflation-lab", {"data": "moons", "deflations": ""})
    assert settings.options["deflations"] and "'deflations'" in address.notes[0]  # a link cannot ask for none
    none = replace(settings, study=tuple((k, () if k == "deflations" else v) for k, v in settings.study))
    assert pictures.missing(none) == "Pick at least one deflation in the sidebar."  # the widget can
    with pytest.raises(ValueError, match="cannot show these settings: Pre-fitting needs the squared loss"):
        pictures.open_address("kmp", {"data": "xor", "loss": "tanh", "variant": "prefit", "k": "5"})


@pytest.mark.parametrize("page", ["kmp", "skpca", "skcca", "mpkfda"])
def test_the_criterion_panel_never_calls_the_last_choice_a_step_it_is_not(page):
    """Past the last pick there is no criterion to show: the panel keeps the last one, its
    star the last point chosen, and its title says which step that was, not step n."""
    view = pictures.open_address(page, {"k": "4", "points": "120"})
    n = view.picture.n_steps
    panel = next(panel for panel in view.picture.player["panels"] if panel.role == "criterion")
    titles = [frame["title"] for frame in panel.frames]
    assert titles[n] == titles[n - 1] + " (the last choice)", titles  # step n - 1's criterion, said so
    assert len(set(titles[:n])) == n and not any("last choice" in title for title in titles[:n]), titles


def test_the_steps_of_a_link_are_clamped_with_a_note():
    view = pictures.open_address("bounds", {"vary": "m", "step": "900"})
    assert view.step == view.picture.n_steps
    assert any("so it shows step" in note for note in view.notes)
    assert json.loads(view.payload())["step"] == view.step


def test_a_guided_scene_on_another_page_is_refused():
    with pytest.raises(ValueError, match="is on the"):
        pictures.read_address("kmp", {"lesson": "1-sparse-kpca", "scene": "1"})


def test_the_bounds_explorer_reads_its_log_axis_default_from_the_curves():
    local, _ = pictures.read_address("bounds", {"bound": "pca_local_rademacher"})
    vc, _ = pictures.read_address("bounds", {"bound": "kmp_vc", "vary": "k", "m": "100"})
    assert local.shown("log_y") is True  # far above the linear axis's cut everywhere
    assert vc.shown("log_y") is False


# --- the picture is what the page shows -----------------------------------------------------


def _through_the_page(page, query):
    """The scene the page's script shows at ``query``: the app run headless, as a browser
    opening the address would get it."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page.file).run()
    assert not at.exception and not at.error, [str(item.value) for item in [*at.exception, *at.error]]
    (mounted,) = component.mounted(at.get("bidi_component"))
    shown = {key: at.query_params[key] for key in at.query_params}
    return json.loads(player.unpacked(mounted.proto.bytes)), shown, [str(item.value) for item in at.warning]


def _comparable(payload, page):
    """A payload without what the column lab times on this machine (its speed-up panel,
    and a scene's sentence quoting it)."""
    if page.key == "column-lab":
        payload = dict(payload, panels=[p for p in payload["panels"] if p.get("key") != "speedup"])
        payload.pop("lesson", None)
    return payload


def _first_scenes():
    out = []
    for name in lessons.shipped():
        _, queries = export.lesson_queries(name)
        page, query = queries[0]
        out.append(pytest.param(page.key, query, id=f"{name}-1"))
    return out


ADDRESSES = [
    *(
        pytest.param(page, dict(preset.params), id=f"{page}-{number}")
        for page, presets in PRESETS.items()
        for number, preset in enumerate(presets, 1)
    ),
    pytest.param("kmp", {"data": "sinc", "k": "5000", "step": "x", "present": "1", "text": "125"}, id="kmp-bad-link"),
    pytest.param(
        "mpkfda", {"data": "moons", "criterion": "random", "aseed": "3", "ownscale": "true"}, id="mpkfda-random"
    ),
    pytest.param("deflation-lab", {}, id="deflation-lab"),
    pytest.param("deflation-lab", {"data": "sinc", "family": "kpca", "deflations": "schur,none"}, id="deflation-kpca"),
    pytest.param("column-lab", {"data": "moons", "methods": "uniform,greedy", "rank": "30"}, id="column-lab"),
    pytest.param("bounds", {}, id="bounds"),
    pytest.param("bounds", {"bound": "mpkfda", "vary": "k", "overlay": "kmp_vc", "kmax": "60"}, id="bounds-overlay"),
    *_first_scenes(),
]


@pytest.mark.parametrize("key,query", ADDRESSES)
def test_the_picture_of_an_address_is_what_its_page_shows(key, query):
    """The widgets (ui.choose.Sidebar) and an address (views.pictures.settings.Address) read
    the same controls: the page run headless and the picture give the same payload, the
    same address written back and the same notes about the link."""
    page = site.by_key(key)
    shown, address, notes = _through_the_page(page, query)
    view = pictures.open_address(page, query)
    written = json.loads(view.payload())
    assert payload_problems(written) == [], "the payload does not follow views/payload.schema.json"
    assert _comparable(written, page) == _comparable(shown, page)
    assert view.query == address
    assert view.notes == notes


# --- no Streamlit where a picture is made, nor its test harness or protocol in the app ---------


def test_pictures_and_the_export_do_not_import_streamlit():
    code = (
        "import sys\n"
        "from views import export, pictures\n"
        "for page in ('skpca', 'kmp', 'skcca', 'mpkfda', 'deflation-lab', 'column-lab', 'bounds'):\n"
        "    pictures.module(page)\n"
        "pictures.open_address('kmp', {'data': 'sinc', 'k': '4'}).payload()\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'streamlit'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


FORBIDDEN = ("streamlit.testing", "streamlit.proto")


def forbidden_imports(source):
    """The modules of Streamlit's test harness or private protocol that ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            whole = node.module.startswith(FORBIDDEN)
            names = [node.module] if whole else [f"{node.module}.{alias.name}" for alias in node.names]
        found += [name for name in names if name.startswith(FORBIDDEN)]
    return found


def test_the_check_for_forbidden_imports_finds_them():
    assert forbidden_imports("from streamlit.testing.v1 import AppTest") == ["streamlit.testing.v1"]
    assert forbidden_imports("import streamlit.proto.BackMsg_pb2 as m") == ["streamlit.proto.BackMsg_pb2"]
    assert forbidden_imports("from streamlit import proto") == ["streamlit.proto"]
    assert forbidden_imports("import streamlit as st\nfrom streamlit import config") == []


def test_the_app_uses_neither_streamlits_test_harness_nor_its_private_protocol():
    shipped = [ROOT / "app.py", ROOT / "server.py"]
    for folder in ("views", "ui", "app_pages", "deploy"):
        shipped += sorted((ROOT / folder).rglob("*.py"))
    found = {str(path.relative_to(ROOT)): forbidden_imports(path.read_text()) for path in shipped}
    assert {path: names for path, names in found.items() if names} == {}


# --- the class warm-up draws in the process that serves ---------------------------------------


def test_warming_draws_each_scene_into_the_stores_a_page_reads_and_names_its_payload():
    addresses = [("kmp", "data=sinc&k=4&step=2"), ("kmp", "data=sinc&k=9999999999999"), ("home", ""), ("nowhere", "")]
    warm.warm(addresses, base="/base")
    done = warm.status()
    assert done["done"] and done["scenes"] == 4
    assert len(done["failed"]) == 1 and done["failed"][0].startswith("/nowhere?")
    settings, _ = pictures.read_address("kmp", {"data": "sinc", "k": "4"})
    name = serving_routes.linked_payload("/base/kmp", "data=sinc&k=4")
    assert name is not None  # a browser opening the address is told to fetch it early
    from ui import compute

    gz, n_steps, _ = compute.payload_of(settings, None, draw=None)  # kept: neither drawn nor computed again
    assert n_steps == 4 and serving_routes.served_name(gz) == name


def test_the_pages_never_import_the_serving_layer():
    """The serving layer (serving/) is installed by the server; pages, the pictures and the
    export work without it (Streamlit's tests run app.py without it)."""
    found = {}
    pages = [ROOT / "app.py", *(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]
    for path in [*pages, *(ROOT / "views").rglob("*.py")]:
        names = reached_packages(path.read_text()) & {"serving"}
        if names:
            found[str(path.relative_to(ROOT))] = sorted(names)
    assert found == {}


def reached_packages(source):
    """The top-level packages the code ``source`` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


#: What the pure layer (views/) may never import: Streamlit, the app's Streamlit layer, the
#: serving layer, the pages.
NOT_PURE = {"streamlit", "ui", "serving", "app_pages", "deploy"}


def test_the_pure_layer_imports_neither_streamlit_nor_the_layers_above_it():
    """``views/`` (the registry, the pictures, the payload, the lessons) is the app's pure
    layer: no file of it imports Streamlit, ``ui/``, the serving layer or a page, at its top
    or inside a function."""
    found = {}
    for path in sorted((ROOT / "views").rglob("*.py")):
        reached = reached_packages(path.read_text()) & NOT_PURE
        if reached:
            found[str(path.relative_to(ROOT))] = sorted(reached)
    assert found == {}


def test_the_check_of_the_pure_layer_finds_an_import_inside_a_function():
    planted = "import numpy as np\n\ndef menu():\n    import streamlit as st\n    from ui import board\n    return st\n"
    assert reached_packages(planted) & NOT_PURE == {"streamlit", "ui"}
    assert reached_packages("from . import site\nfrom views.site import PAGES\n") == {"views"}


def test_the_bounds_explorer_says_where_a_bound_crosses_1_and_when_it_never_does():
    from views.pictures.bounds import crossing

    xs = [10, 20, 30, 40]
    assert crossing(xs, [3.0, 1.5, 0.8, 0.5]) == {"crossing_step": 2, "crossing": 30.0}
    assert crossing(xs, [0.2, 0.6, 1.2, 2.0]) == {"crossing_step": 2, "crossing": 30.0}  # rising past 1 too
    never = crossing(xs, [3.0, 2.0, 1.5, 1.0])  # 1 is trivial: a bound at 1 has not crossed
    assert never["crossing_step"] == -1 and math.isnan(never["crossing"])
    view = pictures.open_address("bounds", {"bound": "kmp_vc", "vary": "m"})
    j = view.picture.numbers["crossing_step"]
    curve = next(iter(pictures.compute(view.settings)[0].values()))
    assert curve[j - 1] >= 1 > curve[j] and view.picture.numbers["crossing"] == view.settings.options["xs"][j]


@pytest.mark.parametrize("page", ["kmp", "skpca", "mpkfda"])
def test_each_chart_says_in_words_what_it_shows_at_each_step(page):
    """The data, criterion and bound panels' words at each step are the study's own: the
    point chosen at the step, the criterion's winner and runner-up, the bound and the test
    error at t (and "vacuous" exactly when the bound is 1 or more)."""
    from mpcore.bounds import vacuous

    view = pictures.open_address(page, {"k": "6", "points": "150"})
    study, _ = pictures.compute(view.settings)
    panels = {panel.role: panel for panel in view.picture.player["panels"]}
    said = {
        role: [frame.get("describe", "") for frame in panels[role].frames] for role in ("data", "criterion", "bound")
    }
    n = study.n_steps
    assert said["data"][0].endswith("none chosen yet.")
    for j in range(1, n + 1):
        assert said["data"][j].startswith(f"Point {int(study.path.indices[j - 1])} chosen at step {j}, at ")
    for j in range(n + 1):
        scores, winner = study.criterion(j)
        assert f"criterion {scores[winner]:.3g}, point {winner}; runner-up " in said["criterion"][j], said["criterion"][
            j
        ]
    curves = study.curves
    bound = curves.bound_names[0]
    for j in range(1, n + 1):
        value = curves.curves[bound][j - 1]
        assert said["bound"][j].startswith(f"At t = {j}: {bound} {value:.3g}"), said["bound"][j]
        assert ("vacuous" in said["bound"][j]) == vacuous(value)
    assert len(set(said["bound"])) == n + 1 and len(set(said["criterion"])) == n + 1  # computed per step, not typed
    kept = [
        float(text.split(" keeps ")[1].split("%")[0])
        for text in [frame["describe"] for frame in panels["kernel"].frames][1:]
    ]
    assert kept == sorted(kept, reverse=True) and kept[-1] < 100  # deflation removes more at each step


def test_the_heatmaps_words_say_what_deflation_did_to_the_kernel():
    import numpy as np

    from views.steps import removed_words

    k0 = np.eye(3)
    assert removed_words(k0, k0, 0) == "K₀ twice: nothing deflated yet."
    assert removed_words(k0, 0.5 * k0, 1) == "K₁ after 1 step keeps 50% of K₀'s norm: deflation removed the rest."
    assert removed_words(k0, 2 * k0, 3) == "K₃ after 3 steps has 200% of K₀'s norm: deflation added to it."


ONE_OF_MANY = re.compile(r"(?<![\d.,])1 (?:step|point|draw|basis function|column|vector|landmark)s\b")


@pytest.mark.parametrize(
    "key,query",
    [
        ("skpca", {"k": "3"}),
        ("kmp", {"k": "3"}),
        ("kmp", {"data": "sinc", "k": "3"}),
        ("skcca", {"k": "3"}),
        ("mpkfda", {"k": "3"}),
        ("deflation-lab", {"k": "3"}),
        ("column-lab", {}),
        ("bounds", {}),
    ],
)
def test_one_of_anything_is_said_in_the_singular(key, query):
    """Every title, story and description a page's steps show counts one step, point or
    draw in the singular: "Decision boundary f(x) = 0 after 1 steps" was drawn at step 1."""
    text = pictures.open_address(key, query).payload()
    found = sorted({text[max(0, m.start() - 40) : m.end()] for m in ONE_OF_MANY.finditer(text)})
    assert not found, found


def test_a_count_names_its_noun_in_the_singular_only_for_one():
    from views.figures import after_steps, counted

    assert [counted(n, "point") for n in (0, 1, 2)] == ["0 points", "1 point", "2 points"]
    assert after_steps(1) == "after 1 step" and after_steps(12) == "after 12 steps"
    assert ONE_OF_MANY.search("after 1 steps") and not ONE_OF_MANY.search("after 0.1 steps or 11 steps")


def test_a_point_of_infinite_criterion_is_starred_on_top_and_said_to_be_infinite():
    """MPKFDA's criterion is infinite for a point that separates the classes with no scatter
    within them (the largest float). Its chart starred nothing and said "criterion 1.8e+308"
    (float32 made it inf); now the point is drawn above every finite score, the title says
    how many are infinite, the words say ∞, and the payload is written without overflow."""
    import warnings

    from views.figures import infinite_scores

    query = {"data": "blobs", "spread": "0.3", "points": "3000", "gamma": "0.5", "k": "30"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        view = pictures.open_address("mpkfda", query)
        payload = json.loads(view.payload())
    study, _ = pictures.compute(view.settings)
    (panel,) = [panel for panel in view.picture.player["panels"] if panel.role == "criterion"]
    steps = [j for j in range(study.n_steps) if infinite_scores(study.criterion(j)[0]).any()]
    assert steps, "these settings no longer give a point of infinite criterion: the test needs others"
    for j in steps:
        scores, winner = study.criterion(j)
        infinite = int(infinite_scores(scores).sum())
        frame = panel.frames[j]
        finite = scores[np.isfinite(scores) & ~infinite_scores(scores)]
        star = frame["data"]["winner"]["y"]
        assert len(star) == 1 and np.isfinite(star[0]) and star[0] > finite.max(), (j, star)
        drawn = np.concatenate([np.asarray(frame["data"][uid]["y"].values) for uid in frame["data"] if "scores" in uid])
        assert not (drawn >= star[0]).any()  # the classes' traces: the finite scores, below the star
        on_top = frame["data"]["infinite"]  # the infinite ones: a trace of their own, at the star's height
        assert sorted(on_top["customdata"]) == sorted(np.flatnonzero(infinite_scores(scores)))
        assert np.all(np.asarray(on_top["y"]) == star[0])
        assert frame["title"].endswith(f"∞ for {infinite} point{'s' if infinite > 1 else ''}, drawn on top"), frame
        assert frame["describe"].startswith(f"Largest criterion ∞, point {winner}"), frame["describe"]
    assert payload["panels"]
    assert [item["text"] for item in panel.key_items] == ["scoring ∞", "winner (largest)"], panel.key_items
    (trace,) = [trace for trace in panel.figure.data if trace.uid == "infinite"]
    assert trace.hovertemplate == "point %{customdata}: ∞<extra></extra>"


@pytest.mark.parametrize("page", ["kmp", "mpkfda"])
def test_a_criterion_chart_with_nothing_infinite_carries_no_trace_for_it(page):
    """The trace of points scoring ∞ is there only where some step has one: at the pages'
    first settings (no such point) neither the chart nor any step's patch names it, and
    the key does not offer it."""
    from views.figures import INFINITE_NAME, infinite_scores

    view = pictures.open_address(page, {"k": "5"})
    study, _ = pictures.compute(view.settings)
    assert not any(infinite_scores(study.criterion(j)[0]).any() for j in range(study.n_steps))
    (panel,) = [panel for panel in view.picture.player["panels"] if panel.role == "criterion"]
    assert "infinite" not in [trace.uid for trace in panel.figure.data]
    assert not any("infinite" in frame["data"] for frame in panel.frames)
    assert not [item["text"] for item in panel.key_items if item["text"].startswith(INFINITE_NAME)]
