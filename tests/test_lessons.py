"""Guided lessons as data (views/lessons.py, ui/guide.py): the schema with its line-numbered
refusals, computed narration, claims that can fail, the shipped lessons' claims checked
on their own scenes as the app runs them, and the lesson page with a bad file."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mpcore import datasets
from mpcore.labs import column_selection, compare_deflations
from views import export, lessons

APP = str(Path(__file__).resolve().parent.parent / "app.py")

GOOD = """title = "A small lesson"
summary = "Two scenes."

[[scene]]
title = "First"
page = "kmp"
settings = { data = "sinc", gamma = "3", k = 30 }
step = 0
until = 4
narration = "The bound is lowest at {bound_argmin} ({bound_min:.2f})."
claims = ["bound never below 1", "argmins within 3"]

[scene.question]
ask = "Where?"
choices = ["here", "there"]
answer = 2

[[scene]]
title = "Second"
page = "deflation-lab"
settings = { data = "moons", k = "20", deflations = "schur,ortho-schur" }
narration = "They share {shared_picks} picks."
try = "Change the criterion."
"""


def test_a_good_lesson_reads_into_scenes():
    lesson = lessons.parse(GOOD)
    assert lesson.title == "A small lesson" and len(lesson.scenes) == 2
    first, second = lesson.scenes
    assert first.page == "kmp" and first.query() == {"data": "sinc", "gamma": "3", "k": "30"}
    assert first.until == 4 and first.question.choices == ("here", "there") and first.question.answer == 2
    assert second.step == 0 and second.try_it == "Change the criterion." and second.question is None
    assert lesson.scene(0) is first and lesson.scene(99) is second  # clipped into range


def refusal(text):
    with pytest.raises(lessons.LessonError) as caught:
        lessons.parse(text)
    return str(caught.value)


def line_of(text, fragment):
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize(
    "old,new,says",
    [
        ('page = "deflation-lab"', 'page = "kpm"', "page must be one of"),
        ('try = "Change the criterion."', 'tries = "x"', "'tries' is not a key of a scene"),
        (
            'narration = "They share {shared_picks} picks."',
            'narration = "They share {bound_min} picks."',
            "{bound_min} is not a number the deflation-lab page computes",
        ),
        (
            'narration = "They share {shared_picks} picks."',
            'narration = "They share {shared_picks picks."',
            "the braces do not pair up",
        ),
        (
            "answer = 2",
            "answer = 3",
            "answer (the number of the right choice, from 1) must be a whole number from 1 to 2",
        ),
        ("until = 4", "until = -1", "until must be a whole number"),
        (
            'claims = ["bound never below 1", "argmins within 3"]',
            'claims = ["the bound is nice"]',
            "'the bound is nice' is not a claim the app can check",
        ),
        (
            'try = "Change the criterion."',
            'claims = ["bound below 1"]',
            "needs bound_min, which the deflation-lab page",
        ),
        (
            'settings = { data = "moons", k = "20", deflations = "schur,ortho-schur" }',
            'settings = { data = "moons", step = "3" }',
            "the step is the scene's own",
        ),
        ('choices = ["here", "there"]', 'choices = ["only one"]', "choices must be a list of two to five texts"),
        ('ask = "Where?"', 'ask = ""', "ask must be text in quotes and not empty"),
    ],
)
def test_a_bad_lesson_is_refused_with_its_line_and_what_is_wrong(old, new, says):
    text = GOOD.replace(old, new)
    assert text != GOOD
    message = refusal(text)
    assert says in message, message
    assert message.startswith(f"line {line_of(text, new)} "), message


def test_until_before_the_step_and_a_next_pick_with_choices_are_refused():
    assert "until (2) comes before the scene's step (5)" in refusal(
        GOOD.replace("step = 0\nuntil = 4", "step = 5\nuntil = 2")
    )
    text = GOOD.replace('ask = "Where?"', 'kind = "next-pick"\nask = "Where?"')
    assert "a next-pick question is answered on the board" in refusal(text)
    assert 'until is a step number, or "bound_argmin"' in refusal(GOOD.replace("until = 4", 'until = "soon"'))


def test_files_that_are_not_lessons_get_a_sentence():
    assert refusal('title = "x"\n[[scene]\n').startswith("This is not valid TOML")
    assert "line" in refusal('title = "x"\n[[scene]\n')  # tomllib says where
    assert refusal('title = "x"') == (
        "A lesson needs at least one scene: a [[scene]] table with page, settings and narration."
    )
    assert "not UTF-8" in refusal(b'title = "\xff\xfe"')
    assert "a lesson is at most" in refusal(b"#" * (lessons.MAX_BYTES + 1))
    assert "'author' is not a key of a lesson" in refusal('author = "me"\n' + GOOD)
    many = GOOD + "\n".join(GOOD[GOOD.index('[[scene]]\ntitle = "Second"') :] for _ in range(lessons.MAX_SCENES))
    assert "at most 30 scenes" in refusal(many)


def test_narration_is_filled_from_the_numbers_and_says_when_one_is_missing():
    assert (
        lessons.fill(
            "{m:,} points, lowest {bound_min:.2f} at {bound_argmin}",
            {"m": 2100, "bound_min": 0.5712, "bound_argmin": 12},
        )
        == "2,100 points, lowest 0.57 at 12"
    )
    assert (
        lessons.fill("lowest {bound_min:.2f} at {bound_argmin}", {"bound_min": math.nan, "bound_argmin": None})
        == "lowest n/a at n/a"
    )
    assert lessons.fill("no braces", {}) == "no braces"


CLAIM_ROWS = [
    ("bound below 1", {"bound_min": 0.9}, {"bound_min": 1.0}),
    ("bound never below 1", {"bound_min": 1.0}, {"bound_min": 0.99}),
    ("argmins within 3", {"bound_argmin": 10, "test_argmin": 13}, {"bound_argmin": 10, "test_argmin": 14}),
    (
        "bound stops before the test error",
        {"bound_argmin": 3, "test_argmin": 4},
        {"bound_argmin": 4, "test_argmin": 4},
    ),
    ("rank correlation below 0.5", {"rank_corr": 0.4}, {"rank_corr": 0.5}),
    ("rank correlation above 0.5", {"rank_corr": 0.6}, {"rank_corr": math.nan}),
    ("test error below 0.1", {"test_min": 0.05}, {"test_min": 0.1}),
    ("deflations pick the same points", {"first_difference": 0}, {"first_difference": 7}),
    ("deflations differ by step 3", {"first_difference": 2}, {"first_difference": 0}),
    ("best deflation is projection", {"best": "projection"}, {"best": "schur"}),
    ("best columns are greedy", {"best": "greedy"}, {"best": "uniform"}),
    ("test error at the end below 0.2", {"test_end": 0.1}, {"test_end": 0.2}),
    ("a deflation turns the kernel indefinite", {"n_indefinite": 1}, {"n_indefinite": 0}),
    ("every deflation keeps the kernel psd", {"n_indefinite": 0}, {"n_indefinite": 2}),
    ("incremental is quicker", {"speedup": 1.3}, {"speedup": 0.9}),
    (
        "printed reading lowest later",
        {"printed_argmin": 60, "operator_argmin": 1},
        {"printed_argmin": 1, "operator_argmin": 1},
    ),
    (
        "local bounds above the compression bound",
        {"local_min": 12.0, "bound_min": 0.4},
        {"local_min": 0.3, "bound_min": 0.4},
    ),
    (
        "bound rises past its lowest",
        {"bound_argmin": 2, "series": {"bound": (1.0, 0.5, 0.7)}},
        {"bound_argmin": 3, "series": {"bound": (1.0, 0.6, 0.5)}},
    ),
    ("bound crosses 1", {"crossing_step": 57, "crossing": 824.0}, {"crossing_step": -1, "crossing": math.nan}),
    ("bound below 1", {"bound_min": 0.5}, {}),  # a number the study lacks: the claim does not hold
]


def test_every_claim_and_number_says_from_which_step_it_is_drawn():
    """A claim or number with no rule would pass as drawn at every step."""
    assert set(lessons.CLAIMS_SEEN) == set(lessons.CLAIMS)
    settings = {"variant", "criterion", "deflation", "m"}  # words and sizes the page shows at every step
    for page in ("skpca", "kmp", "skcca", "mpkfda", "deflation-lab"):
        assert set(lessons.NUMBERS[page]) - set(lessons.SEEN_FROM[page]) <= settings, page
    assert not lessons.SEEN_FROM["column-lab"]  # its curves are drawn whole at every step


def test_a_number_is_seen_from_the_step_its_curve_reaches_it():
    scene = lessons.parse(GOOD).scenes[0]  # until = 4, quotes {bound_argmin} and {bound_min}
    numbers = {"bound_argmin": 3, "bound_min": 0.5, "test_argmin": 6, "series": {"bound": (0.9, 0.7, 0.5, 0.6)}}
    found = lessons.unseen(scene, numbers)
    assert found == ["the claim 'argmins within 3' is drawn from step 6, but the scene ends at step 4 of 4."]
    later = {**numbers, "bound_argmin": 5, "series": {"bound": (0.9, 0.7, 0.6, 0.6, 0.5)}}
    assert "{bound_argmin} is drawn from step 5, but the scene ends at step 4 of 5." in lessons.unseen(scene, later)
    # a bound that never gets below 1 has its lowest value written in the chart: {bound_min} is seen
    vacuous = {**later, "bound_min": 1.3, "series": {"bound": (1.9, 1.7, 1.6, 1.6, 1.3)}}
    assert not any("{bound_min}" in s for s in lessons.unseen(scene, vacuous))


def test_every_claim_is_tried_both_ways():
    """Each claim of ``lessons.CLAIMS`` has a row above (a claim no row tries could never fail)."""
    tried = {claim for claim, _, _ in CLAIM_ROWS}
    untried = [p for p in lessons.CLAIMS if not any(re.fullmatch(p, claim) for claim in tried)]
    assert untried == []


@pytest.mark.parametrize("claim,holds,fails", CLAIM_ROWS)
def test_every_claim_holds_on_numbers_that_agree_and_fails_on_numbers_that_do_not(claim, holds, fails):
    assert lessons.check(claim, holds) is True
    assert lessons.check(claim, fails) is False


def test_a_lesson_travels_in_an_address_and_a_damaged_one_is_refused():
    value = lessons.encode(GOOD)
    assert lessons.decode(value) == GOOD and len(value) < 1000
    assert "damaged" in str(pytest.raises(lessons.LessonError, lessons.decode, value[:-40]).value)
    assert "neither a shipped lesson" in str(pytest.raises(lessons.LessonError, lessons.decode, "kmp-lesson").value)
    bomb = lessons.encode("#" * (lessons.MAX_BYTES + 10))  # small in the address, too big inflated
    assert "longer than" in str(pytest.raises(lessons.LessonError, lessons.decode, bomb).value)


# --- the core's numbers the deflation and column labs offer ---------------------------------


def test_deflation_summary_finds_the_first_step_where_the_picks_part():
    split = datasets.prepare(datasets.load_dataset("moons", n_samples=120), seed=0)
    lab = compare_deflations(split, 8, "mpkfda", "optimal", ("schur", "ortho-schur", "hotelling"))
    summary = lab.summary()
    picks = [lab.paths[name].indices for name in lab.deflations]
    expected = next((j + 1 for j in range(8) if len({int(p[j]) for p in picks}) > 1), 0)
    assert summary["first_difference"] == expected
    assert summary["shared_picks"] == sum(len({int(p[j]) for p in picks}) == 1 for j in range(8))
    errors = {name: lab.errors[name][-1] for name in lab.deflations}
    assert summary["best_error"] == min(errors.values()) and errors[summary["best"]] == summary["best_error"]


def test_column_summary_names_the_method_with_the_lowest_trace_error():
    split = datasets.prepare(datasets.load_dataset("rings-two-view", n_samples=200), seed=0)
    result = column_selection(split, (4, 8), methods=("greedy", "uniform", "ridge-leverage"), repeats=2)
    summary = result.summary()
    means = {name: result.kernel_error[name]["trace"][:, -1].mean() for name in result.methods}
    assert summary["best"] == min(means, key=means.get) and summary["rank"] == 8
    assert summary["trace_ridge_leverage"] == means["ridge-leverage"]
    assert summary["d_eff"] == pytest.approx(float(np.sum(result.leverage[0])))


# --- the shipped lessons, as the app runs them ---------------------------------------------

SHIPPED = lessons.shipped()


def test_a_scene_names_its_panel_with_a_plain_word():
    assert lessons.parse(GOOD.replace("until = 4", 'until = 4\npanel = "bounds"')).scenes[0].panel == "bounds"
    assert "panel is the name of one of the page's panels" in refusal(
        GOOD.replace("until = 4", 'until = 4\npanel = "a b"')
    )


def test_the_shipped_lessons_cover_the_papers_with_six_to_twelve_scenes():
    assert len(SHIPPED) == 5
    for key, lesson in SHIPPED.items():
        assert 6 <= len(lesson.scenes) <= 12, key
        assert any(scene.question for scene in lesson.scenes), key
    pages = {scene.page for lesson in SHIPPED.values() for scene in lesson.scenes}
    assert {"skpca", "kmp", "skcca", "mpkfda", "deflation-lab", "column-lab", "bounds"} <= pages
    assert sum(bool(scene.try_it) for lesson in SHIPPED.values() for scene in lesson.scenes) >= 5
    assert sum(len(scene.claims) for lesson in SHIPPED.values() for scene in lesson.scenes) >= 20


@pytest.mark.parametrize("key", list(SHIPPED))
def test_every_shipped_scene_runs_and_its_claims_hold_on_its_own_study(key):
    """Each scene opened from its address, headless, as a browser would get it: no error, no
    setting the page lacks, every number of the narration computed (no "n/a"), and every
    claim true on the study the page computed."""
    lesson, runs = export.run_lesson(key)
    for number, (scene, notes) in enumerate(runs, 1):
        payload = json.loads(scene.payload)
        head = payload["lesson"]
        guide = head["guide"]
        written = lesson.scene(number)
        assert notes == [], (key, number, notes)
        assert guide["scene"] == number and guide["scenes"] == len(lesson.scenes)
        assert head["name"] == written.title and "n/a" not in head["text"] and "{" not in head["text"]
        assert payload["step"] == min(written.step, payload["n_steps"])
        # a clicker's worth of presses per scene: the lecturer never holds PageDown through 40 steps
        assert guide["until"] is not None and 0 <= guide["until"] - guide["start"] <= 15, (key, number)
        assert [claim for claim, _ in guide["claims"]] == list(written.claims)
        if written.panel:  # the panel the narration discusses is one of the page's
            assert written.panel in [panel["key"] for panel in payload["panels"]], (key, number, written.panel)
            assert guide["panel"] == written.panel
        assert all(holds for _, holds in guide["claims"]), (key, number, guide["claims"])
        if guide["question"] and guide["question"]["kind"] == "choice":
            assert "n/a" not in guide["question"]["explain"]


# --- what a scene says is on screen at its last step ----------------------------------------------


def _at_last_step(lesson, number, key="lesson"):
    """Scene ``number`` of ``lesson`` opened as its address opens it, moved to its last step:
    ``(scene, numbers, payload at that step)``."""
    from views import pictures, site

    scene = lesson.scene(number)
    page = site.by_key(scene.page)
    view = pictures.open_address(page, scene.query())
    last = lessons.head(lesson, key, number, view.picture.numbers)["guide"]["until"]
    view.step = min(last, view.picture.n_steps)
    return scene, view.picture.numbers, json.loads(view.payload())


@pytest.mark.parametrize("key", list(SHIPPED))
def test_every_shipped_scene_shows_at_its_last_step_what_it_says(key):
    """Each scene rendered at the step it plays to: every number and claim its texts state
    is drawn there (a lowest point once the curve has reached it, a whole-path number at
    the path's end), no stop is drawn for a bound that says nothing, and every lowest value
    quoted is on a drawn curve or in a chart's note."""
    from views import on_screen

    lesson = SHIPPED[key]
    for number in range(1, len(lesson.scenes) + 1):
        scene, numbers, payload = _at_last_step(lesson, number)
        assert on_screen.contradictions(scene, numbers, payload) == [], (key, number)


def _as_it_was(key, *edits):
    """A shipped lesson with edits undone: the text it had before its scenes were checked
    against what they draw."""
    text = (lessons.HERE / f"{key}.toml").read_text(encoding="utf-8")
    for new, old in edits:
        assert text.count(new) == 1, new
        text = text.replace(new, old)
    return lessons.parse(text)


# The scenes found saying what they did not draw, as they were written then: (lesson, scene,
# what was changed back, what the check must name).
AS_THEY_WERE = [
    ("2-kmp", 6, [("step = 15\nuntil = 30", "step = 0\nuntil = 10")], "{test_min}"),  # 0.167 comes at t = 30
    ("2-kmp", 3, [("step = 6\nuntil = 12", 'step = 6\nuntil = "bound_argmin"')], "{test_argmin}"),
    ("2-kmp", 4, [("step = 10\nuntil = 25", 'step = 0\nuntil = "bound_argmin"')], "bound stops before"),
    ("1-sparse-kpca", 4, [("step = 8\nuntil = 23", 'step = 8\nuntil = "bound_argmin"')], "rises past"),
    ("3-fisher", 5, [('k = "15", deflations', 'k = "20", deflations'), ("until = 15", "until = 5")], "shared_picks"),
    ("5-bounds", 4, [("step = 15\nuntil = 30", 'step = 0\nuntil = "bound_argmin"')], "{rank_corr}"),
]


@pytest.mark.parametrize("key,number,edits,named", AS_THEY_WERE, ids=[f"{k}-{n}" for k, n, *_ in AS_THEY_WERE])
def test_the_check_fails_each_scene_as_it_was(key, number, edits, named):
    from views import on_screen

    lesson = _as_it_was(key, *edits)
    scene, numbers, payload = _at_last_step(lesson, number)
    found = on_screen.contradictions(scene, numbers, payload)
    assert any(named in sentence for sentence in found), found


def test_a_scene_that_says_the_bound_rises_must_claim_it():
    """The bound lesson's question "Past its lowest point the bound rises again" was never
    drawn: words that state a claim are refused unless the scene lists the claim."""
    said = refusal(
        (lessons.HERE / "1-sparse-kpca.toml")
        .read_text(encoding="utf-8")
        .replace('claims = ["bound below 1", "bound rises past its lowest"]', 'claims = ["bound below 1"]')
    )
    assert "'rises again'" in said and "'bound rises past its lowest'" in said and "line 50" in said
    assert "states the claim 'bound never below 1'" in refusal(
        GOOD.replace('"bound never below 1", ', "").replace(
            "The bound is lowest at", "It never gets below 1; lowest at"
        )
    )


def _old_stop(curves):
    """The stop as it was drawn before a bound's vacuousness was asked: every bound but a
    flat one had one."""
    from views import figures

    name = figures.primary_bound(curves)
    t = curves.argmin.get(name) if name else None
    if t is None or name in figures.flat_bounds(curves):
        return None
    return name, int(t), float(np.asarray(curves.curves[name])[t - 1])


# The scenes whose narration says the bound says nothing, while a stop was drawn.
NO_STOPS = [("2-kmp", 5), ("1-sparse-kpca", 6), ("2-kmp", 7), ("5-bounds", 6)]


@pytest.mark.parametrize("key,number", NO_STOPS)
def test_the_check_finds_a_stop_drawn_for_a_bound_that_says_nothing(monkeypatch, key, number):
    from views import figures, on_screen
    from views.pictures import common

    scene, numbers, payload = _at_last_step(SHIPPED[key], number)
    assert not [s for s in on_screen.contradictions(scene, numbers, payload) if "stop" in s]
    monkeypatch.setattr(figures, "bound_stop", _old_stop)
    monkeypatch.setattr(common, "bound_stop", _old_stop)
    scene, numbers, payload = _at_last_step(SHIPPED[key], number)
    found = on_screen.contradictions(scene, numbers, payload)
    assert any("Jump to the bound's stop" in s for s in found), found
    assert any("bound's stop t=" in s for s in found), found


def test_a_lowest_value_quoted_but_not_drawn_is_found():
    """Held against the payload itself: a test error quoted from a step the curve has not
    reached is on no drawn curve."""
    from views import on_screen

    scene, numbers, payload = _at_last_step(SHIPPED["2-kmp"], 6)
    payload["step"] = 10
    text = scene.narration
    assert "{test_min:.3f}" in text
    early = lessons.Scene(**{**scene.__dict__, "until": None, "step": 10})
    found = on_screen.contradictions(early, numbers, payload)
    assert any("on no curve drawn at step 10" in s for s in found), found


# --- the app ---------------------------------------------------------------------------------


def test_the_lesson_page_lists_the_shipped_lessons():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("app_pages/lessons.py").run()
    assert not at.exception
    titles = [header.value for header in at.subheader]
    assert [lesson.title for lesson in SHIPPED.values()] == titles[: len(SHIPPED)]


def test_a_scene_locks_the_controls_unless_it_asks_the_student_to_try():
    lesson = SHIPPED["2-kmp"]
    for number in (1, 7):
        scene = lesson.scene(number)
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        for name, value in {**scene.query(), "lesson": "2-kmp", "scene": str(number)}.items():
            at.query_params[name] = value
        at.switch_page("app_pages/kmp.py").run()
        assert not at.exception and not at.error
        k = next(slider for slider in at.slider if slider.label.startswith("Basis"))
        assert k.disabled is (not scene.try_it), number
        assert at.query_params["lesson"] == "2-kmp" and at.query_params["scene"] == str(number)


def test_a_link_with_a_broken_lesson_says_so_and_shows_the_page():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.query_params["lesson"] = "zNOTALESSON"
    at.query_params["data"] = "sinc"
    at.switch_page("app_pages/kmp.py").run()
    assert not at.exception and not at.error
    warnings = " ".join(str(w.value) for w in at.warning)
    assert "lesson could not be opened" in warnings and "damaged" in warnings
    assert all(slider.disabled is False for slider in at.slider)


def test_leaving_a_lesson_for_another_page_keeps_it_and_the_way_back_reopens_the_scene():
    """Mid-lesson the app stays usable: another page opens unlocked, its sidebar offers
    the way back, and that button opens the scene's page on the scene's settings and step."""
    lesson = SHIPPED["2-kmp"]
    scene = lesson.scene(3)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for name, value in {**scene.query(), "lesson": "2-kmp", "scene": "3", "step": str(scene.step)}.items():
        at.query_params[name] = value
    at.switch_page("app_pages/kmp.py").run()
    assert at.session_state["_guide"]["page"] == "kmp"
    for name in list(at.query_params):
        del at.query_params[name]
    at.switch_page("app_pages/sparse_kpca.py").run()
    assert not at.exception and not at.error
    assert "lesson" not in at.query_params and all(not s.disabled for s in at.slider)
    back = next(button for button in at.button if button.label == "Back to the lesson")
    back.click().run()
    assert not at.exception and not at.error
    assert at.query_params["lesson"] == "2-kmp" and at.query_params["scene"] == "3"
    assert at.query_params["data"] == "sinc" and at.query_params["step"] == str(scene.step)
    from ui.component import mounted
    from views.player import unpacked

    player = json.loads(unpacked(mounted(at.get("bidi_component"))[0].proto.bytes))
    assert player["lesson"]["guide"]["scene"] == 3 and player["step"] == scene.step


def test_the_documented_example_is_a_lesson_the_app_reads():
    readme = (Path(__file__).resolve().parent.parent / "docs" / "lessons.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    lesson = lessons.parse(block)
    assert lesson.scenes[0].page == "kmp" and lesson.scenes[0].until == "test_argmin"
    assert lesson.scenes[0].question.answer == 2
    from views import on_screen

    assert on_screen.contradictions(*_at_last_step(lesson, 1, lessons.encode(block))) == []


def test_the_readme_counts_the_shipped_lessons():
    """The docs' list is written from the files at build time (docs/conf.py); the README's
    sentence is checked here."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    assert f"{words[len(SHIPPED)]} narrated paths" in readme


def test_ending_a_lesson_unlocks_the_page_and_drops_the_lesson_from_the_address():
    scene = SHIPPED["2-kmp"].scene(1)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for name, value in {**scene.query(), "lesson": "2-kmp", "scene": "1"}.items():
        at.query_params[name] = value
    at.switch_page("app_pages/kmp.py").run()
    assert any(slider.disabled for slider in at.slider)
    next(button for button in at.button if button.label == "End the lesson").click().run()
    assert not at.exception and not at.error
    assert "lesson" not in at.query_params and "scene" not in at.query_params
    assert at.query_params["data"] == "sinc"  # the page stays as it was
    assert all(not slider.disabled for slider in at.slider)
    assert "_guide" not in at.session_state


# --- conclusions chosen by claims, settings named by placeholders, numbers at the step shown ----

SAY = GOOD.replace(
    'narration = "The bound is lowest at {bound_argmin} ({bound_min:.2f})."',
    'narration = "With {m} points {verdict}"',
).replace(
    '[scene.question]\nask = "Where?"',
    '[scene.say]\nverdict = { if = "bound below 1", then = "a guarantee ({bound_min:.2f}).", '
    'else = "no guarantee." }\n\n[scene.question]\nask = "Where?"',
)


def test_a_phrase_is_chosen_by_its_claim_on_the_study_shown():
    scene = lessons.parse(SAY).scenes[0]
    assert scene.say == (("verdict", "bound below 1", "a guarantee ({bound_min:.2f}).", "no guarantee."),)
    assert (
        lessons.fill(scene.narration, {"m": 1500, "bound_min": 0.81}, scene.say)
        == "With 1500 points a guarantee (0.81)."
    )
    assert lessons.fill(scene.narration, {"m": 500, "bound_min": 1.4}, scene.say) == "With 500 points no guarantee."
    assert lessons.fill(scene.narration, {"m": 500}, scene.say) == "With 500 points no guarantee."  # nothing to check


@pytest.mark.parametrize(
    "old,new,says",
    [
        ('if = "bound below 1"', 'if = "the bound is nice"', "'the bound is nice' is not a claim the app can check"),
        ('if = "bound below 1"', 'if = "best columns are greedy"', "needs best, which the kmp page does not compute"),
        (', else = "no guarantee." ', " ", "needs exactly if, then and else"),
        ("verdict = {", "bound_min = {", "a phrase's name is a lower-case word"),
        ('then = "a guarantee ({bound_min:.2f}).", ', 'then = "a guarantee ({best}).", ', "{best} is not a number"),
        ("{verdict}", "{verdikt}", "{verdikt} is not a number the kmp page computes nor a phrase"),
    ],
)
def test_a_bad_phrase_is_refused_with_a_sentence(old, new, says):
    text = SAY.replace(old, new)
    assert text != SAY
    assert says in refusal(text)


def test_numbers_at_the_scenes_last_step_are_the_curves_there():
    numbers = {"m": 100, "bound_argmin": 2, "series": {"bound": (1.5, 0.7, 0.9), "test": (0.3, 0.2, 0.1)}}
    at = lessons.at_end(numbers, 3)
    assert (at["end"], at["bound_end"], at["test_end"]) == (3, 0.9, 0.1)
    at = lessons.at_end(numbers, "bound_argmin")
    assert (at["end"], at["bound_end"], at["test_end"]) == (2, 0.7, 0.2)
    assert lessons.at_end(numbers, 99)["end"] == 3  # clipped to the path
    assert math.isnan(lessons.at_end(numbers, 0)["test_end"])  # no curve value before the first pick
    assert lessons.fill("{test_end:.2f} at {end}", lessons.at_end(numbers, 0)) == "n/a at 0"


def filled(key, number, **numbers):
    scene = SHIPPED[key].scene(number)
    return lessons.fill(scene.narration, numbers, scene.say)


def test_the_kmp_lesson_names_the_variant_its_scene_runs():
    """Scene 1 said "back-fitting" over a pre-fitting study."""
    for number, scene in enumerate(SHIPPED["2-kmp"].scenes, 1):
        variant = scene.settings.get("variant", "prefit")
        text = filled("2-kmp", number, m=50, variant=lessons.word("variant", variant))
        others = [lessons.word("variant", v) for v in ("prefit", "backfit") if v != variant]
        assert not any(word in text for word in others), (number, text)
    assert "pre-fitting" in filled("2-kmp", 1, m=50, variant=lessons.word("variant", "prefit"))


def test_a_try_it_scene_concludes_from_the_study_the_student_made():
    """KMP scene 7 said "only the guarantee is lost" at 1,500 points, where the bound is 0.81."""
    numbers = {"m": 1500, "bound_argmin": 12, "test_end": 0.01, "end": 40}
    below = filled("2-kmp", 7, bound_min=0.81, **numbers)
    above = filled("2-kmp", 7, bound_min=1.3, **{**numbers, "m": 500})
    assert "guarantee holds" in below and "no guarantee" not in below and "lost" not in below
    assert "no guarantee" in above and "guarantee holds" not in above


def test_the_fisher_lesson_says_which_deflation_left_the_kernel_indefinite():
    """Scene 4 said "projection keeps it positive semi-definite" beside a table saying it did not."""
    scene = SHIPPED["3-fisher"].scene(4)
    text = filled("3-fisher", 4, n_steps=6, first_difference=2, indefinite="projection", n_indefinite=1)
    assert "projection left it indefinite" in text and "positive semi-definite" not in text
    split = datasets.prepare(datasets.load_dataset(scene.settings["data"]), seed=0)
    shown = ("hotelling", "projection", "schur", "ortho-projection")  # the deflation lab's default four
    lab = compare_deflations(split, int(scene.settings["k"]), "mpkfda", "optimal", shown)
    summary = lab.summary()
    lost = [name for name, fact in lab.facts(lab.n_steps).items() if not fact.psd]
    assert summary["n_indefinite"] == len(lost) and all(name in summary["indefinite"] for name in lost)
    assert scene.until == lab.n_steps  # the table at the scene's last step is the one quoted


def test_the_nystrom_lesson_says_quicker_only_when_it_was():
    """Scene 4 said "incremental is quicker" beside a speed-up panel below 1 at every rank."""
    slower = filled("4-nystrom", 4, rank=60, speedup=0.6)
    quicker = filled("4-nystrom", 4, rank=60, speedup=2.5)
    assert "not quicker" in slower and "2.5 times as quick" in quicker and "not quicker" not in quicker
    assert "quicker" not in SHIPPED["4-nystrom"].scene(4).title.lower()


def test_the_bounds_lessons_first_steps_show_the_price_falling_as_m_grows():
    """Bounds scene 1 said "the price falls as m grows" over six steps where no bound was defined."""
    from mpcore.explore import grid

    scene = SHIPPED["5-bounds"].scene(1)
    xs = np.asarray(grid("m"))[scene.step : scene.until + 1]
    values = explore_values(scene.settings["bound"], xs)
    assert np.isfinite(values).all() and np.all(np.diff(values) < 0)
    assert values[0] > 1 > values[-1]  # "the bound crosses 1 on the way"


def explore_values(name, xs):
    from mpcore.explore import KNOBS, explore

    knobs = {n: KNOBS[n].default for n in ("k", "t", "delta")}
    return explore(name, "m", xs, **knobs)


def test_a_quoted_test_error_says_whether_it_is_the_best_or_at_the_step_shown():
    """The best over the path (0.007) was quoted beside a board showing 0.0133 at that step."""
    for key, lesson in SHIPPED.items():
        for number, scene in enumerate(lesson.scenes, 1):
            for text in (scene.narration, *(p for _, _, *pair in scene.say for p in pair)):
                if "{test_min" in text:
                    assert "best" in text, (key, number, text)


def test_no_sentence_speaks_of_bars_on_a_scatter():
    for number, scene in enumerate(SHIPPED["1-sparse-kpca"].scenes, 1):
        assert "bar" not in f"{scene.narration} {scene.notes}".lower(), number


# --- lesson links: the scene's page, on the scene's settings, or a sentence --------------------


def opened(path, **query):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for name, value in query.items():
        at.query_params[name] = value
    at.switch_page(path).run()
    assert not at.exception and not at.error
    return at


def test_a_lesson_link_without_the_scenes_settings_opens_the_scene_on_them():
    """/kmp?lesson=2-kmp opened scene 1's narration over the page's default XOR data, locked."""
    at = opened("app_pages/kmp.py", lesson="2-kmp")
    scene = SHIPPED["2-kmp"].scene(1)
    assert at.query_params["scene"] == "1"
    shown = {key: at.query_params[key] for key in scene.query() if key in at.query_params}
    assert shown == {key: value for key, value in scene.query().items() if key in shown}  # the rest at default
    assert shown["data"] == "sinc" and shown["gamma"] == "3"


def test_a_try_it_scenes_bare_link_opens_its_settings_and_step_and_the_students_are_kept():
    """/kmp?lesson=2-kmp&scene=7 opened the page's defaults (3,000 points, step 0), leaving
    the exercise nothing to do; a link with the student's own settings keeps them."""
    from ui.component import mounted
    from views import pictures
    from views.player import unpacked

    scene = SHIPPED["2-kmp"].scene(7)
    assert scene.try_it and scene.step == 40
    own = json.loads(pictures.open_address("kmp", scene.address("2-kmp", 7)).payload())

    def shown(at):
        return json.loads(unpacked(mounted(at.get("bidi_component"))[0].proto.bytes))

    at = opened("app_pages/kmp.py", lesson="2-kmp", scene="7")
    assert at.query_params["step"] == "40" and at.query_params["data"] == "xor"
    player = shown(at)
    assert player["id"] == own["id"] and player["step"] == 40  # the scene's study: 500 points, not 3,000
    at = opened("app_pages/kmp.py", lesson="2-kmp", scene="7", data="xor", points="1000", k="40")
    assert at.query_params["points"] == "1000" and shown(at)["id"] != own["id"]  # the student's try, reloaded


@pytest.mark.parametrize("key", list(SHIPPED))
def test_every_scenes_bare_link_opens_its_settings_and_step_headless(key):
    """As the export and a live class's warm-up open an address: every scene's
    ``?lesson=...&scene=N`` on its page is the scene, on its settings and first step."""
    from views import pictures, site

    lesson = SHIPPED[key]
    for number, scene in enumerate(lesson.scenes, 1):
        page = site.by_key(scene.page)
        settings, address = pictures.read_address(page, {"lesson": key, "scene": str(number), "present": "1"})
        given = address.given
        assert {name: given[name] for name in scene.query()} == scene.query(), (key, number)
        assert given.get("step", "0") == str(scene.step) and given["present"] == "1", (key, number)
        assert address.guided[2] == number


def test_a_lesson_link_without_a_step_opens_on_the_scenes_first_step():
    scene = SHIPPED["2-kmp"].scene(3)
    at = opened("app_pages/kmp.py", lesson="2-kmp", scene="3", **scene.query())
    assert scene.step > 0 and at.query_params["step"] == str(scene.step)


def test_a_scene_that_does_not_exist_is_said_to_be_missing():
    at = opened("app_pages/kmp.py", lesson="2-kmp", scene="9")
    last = len(SHIPPED["2-kmp"].scenes)
    notes = " ".join(str(w.value) for w in at.warning) + " ".join(str(c.value) for c in at.caption)
    assert f"has {last} scenes, so there is no scene 9" in notes, notes
    assert at.query_params["scene"] == str(last)


@pytest.mark.parametrize("path", ["app_pages/home.py", "app_pages/sparse_kpca.py", "app_pages/references.py"])
def test_a_lesson_named_on_another_page_opens_on_its_scenes_page(path):
    """/?lesson=2-kmp and /sparse-kpca?lesson=2-kmp dropped the lesson without a word."""
    at = opened(path, lesson="2-kmp", scene="3")
    scene = SHIPPED["2-kmp"].scene(3)
    assert at.query_params["lesson"] == "2-kmp" and at.query_params["scene"] == "3"
    assert at.query_params["data"] == scene.settings["data"]
    assert at.session_state["_guide"]["page"] == "kmp"


# --- a lesson's settings, checked when the file is read ----------------------------------------


def _control_names():
    """Every address key the pictures' controls use, read from their source."""
    import re

    from mpcore.explore import KNOBS

    root = Path(__file__).resolve().parent.parent
    names = set()
    for path in root.glob("views/pictures/*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r'Control\(\s*"([a-z0-9_-]+)"', text))
        names |= {f"{v}max" for v in ("k", "t")} if re.search(r"Control\(\s*f\"{vary}max\"", text) else set()
        names |= set(KNOBS) if path.name == "bounds.py" else set()  # the explorer's knobs, one control each
    return names - {"step", "present", "text"}


def test_the_settings_a_lesson_may_give_are_the_pages_controls():
    """Read from the pages' declared controls; a control made in a picture's source and
    left out of its page's list is missing from them."""
    assert lessons.setting_keys() == _control_names()


@pytest.mark.parametrize(
    "old,new,says",
    [
        ('gamma = "3"', 'gama = "3"', "'gama' is not a setting of any page (did you mean 'gamma'?)"),
        ('data = "sinc"', 'data = "bostn"', "data = 'bostn' is not a dataset of the app; the datasets are"),
        ('page = "kmp"', 'page = "kmp-page"', 'page must be one of "sparse-kpca", "kmp"'),
    ],
)
def test_a_settings_typo_is_refused_when_the_file_is_read(old, new, says):
    text = GOOD.replace(old, new, 1)
    assert text != GOOD
    message = refusal(text)
    assert says in message and message.startswith(f"line {line_of(text, new)} "), message


def test_a_lesson_names_a_page_by_its_address_and_the_old_names_still_read():
    for address, key in (("sparse-kpca", "skpca"), ("column-selection", "column-lab"), ("kmp", "kmp")):
        for name in (address, key):
            text = GOOD.replace('page = "kmp"', f'page = "{name}"').replace("{bound_argmin} ({bound_min:.2f})", "{m}")
            text = text.replace('claims = ["bound never below 1", "argmins within 3"]', "")
            text = text.replace('settings = { data = "sinc", gamma = "3", k = 30 }', "settings = {}")
            assert lessons.parse(text).scenes[0].page == key
    shipped_pages = {scene.page for lesson in SHIPPED.values() for scene in lesson.scenes}
    written = "".join(path.read_text() for path in lessons.HERE.glob("*.toml"))
    assert all(f'page = "{lessons_key}"' not in written for lessons_key in ("skpca", "skcca", "column-lab"))
    assert shipped_pages <= set(lessons.PAGES)
