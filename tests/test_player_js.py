"""The step player (its modules, static/player/) in Chromium, on its own: what needs a
browser -- text measured in its font, Plotly drawing the steps, the keys -- and the payload
Python encodes, decoded by the player.  The modules are served as they are, each by its
name, on a page of their own (no app); the helpers that need no browser are tested under
Node (tests/js)."""

import base64
import json

import numpy as np
import pytest
from browser_support import browser  # noqa: F401

ORIGIN = "http://player.test/"  # never reached: the page's route answers every request


def player_page(browser, body="", **options):
    """A page at ``ORIGIN`` holding ``body``, where ``ORIGIN + name`` answers with the
    player's module ``name`` (and ``plotly-bundle.js`` plotly.js); ``window.__modules`` holds the
    modules imported: ``{"labels": ..., "mount": ...}``."""
    from views.player import PLAYER_DIR, PLOTLY_BUNDLE

    page = browser.new_page(**options)
    html = f"<html><body>{body}<script src='plotly-bundle.js'></script></body></html>"

    def answer(route):
        name = route.request.url[len(ORIGIN) :].split("?")[0]
        if name == "plotly-bundle.js":
            return route.fulfill(body=PLOTLY_BUNDLE.read_text(), content_type="text/javascript")
        if (PLAYER_DIR / name).is_file() and name.endswith(".js"):
            return route.fulfill(body=(PLAYER_DIR / name).read_text(), content_type="text/javascript")
        return route.fulfill(body=html, content_type="text/html")

    page.route(ORIGIN + "**", answer)
    page.goto(ORIGIN)
    page.add_script_tag(
        content="const names = ['decode', 'labels', 'mount'];"
        "Promise.all(names.map((n) => import('./' + n + '.js')))"
        ".then((ms) => { window.__modules = Object.fromEntries(names.map((n, i) => [n, ms[i]])); });",
        type="module",
    )
    page.wait_for_function("window.__modules !== undefined && window.Plotly !== undefined")
    return page


@pytest.fixture(scope="module")
def js(browser):
    page = player_page(browser)
    page.evaluate("() => { window.__player = Object.assign({}, window.__modules.decode, window.__modules.labels); }")
    yield lambda expression, arg=None: page.evaluate(
        f"(arg) => {{ const P = window.__player; return {expression}; }}", arg
    )
    page.close()


def test_wrap_text_keeps_lines_within_the_room(js):
    lines = js("P.wrapText('the train error rate outside the compression set', 18, 150)")
    assert len(lines) > 1 and " ".join(lines) == "the train error rate outside the compression set"
    widths = js("arg.map((line) => P.textWidth(line, 18))", lines)
    assert all(width <= 150 for width in widths)


def test_decode_reads_what_python_encodes(js):
    from views import player

    matrix = np.array([[0.0, 0.5], [-1.0, np.nan]])
    spec = json.loads(
        json.dumps(player.encode({"a": np.arange(4, dtype=float), "q": player.Quantized(matrix, -1.0, 1.0)}))
    )
    out = js(
        "(() => { const d = P.decode(arg); return {a: Array.from(d.a), q: d.q.map((row) => Array.from(row))}; })()",
        spec,
    )
    assert out["a"] == [0, 1, 2, 3]
    assert out["q"][0] == pytest.approx([0.0, 0.5], abs=1 / 254) and out["q"][1][0] == -1.0
    assert np.isnan(out["q"][1][1])  # a missing cell comes back as NaN: a gap in the heatmap
    raw = base64.b64encode(np.array([1.5, 2.5], dtype=np.float32).tobytes()).decode()
    assert js("Array.from(P.decode({dtype: 'f4', bdata: arg}))", raw) == [1.5, 2.5]


def _small_payload(n=4, panels=1, height=240):
    """A payload as the app sends it: ``panels`` scatter panels whose y is j at step j."""
    import plotly.graph_objects as go

    from views import player

    frames = [{"data": {"curve": {"y": np.full(3, float(j))}}, "title": f"step {j}"} for j in range(n + 1)]
    shown = [
        player.Panel(
            f"curve{i}" if i else "curve",
            "curve",
            "A curve",
            go.Figure(go.Scatter(uid="curve", x=[0, 1, 2], y=[0, 0, 0], mode="lines")),
            frames=frames,
            height=height,
        )
        for i in range(panels)
    ]
    return json.loads(
        player.with_step(player.payload("test", "small", n, shown, [f"story {j}" for j in range(n + 1)]), 0)
    )


MOUNT_TEXT = """([text, key]) => {
  window.__modules.mount.mountText(document.getElementById('root'), {step: 1}, key, () => Promise.resolve(text), {});
}"""


@pytest.mark.parametrize("worker", ["starts", "refused", "missing"])
def test_a_study_is_decoded_off_the_main_thread_and_on_it_when_no_worker_can(browser, worker):
    """A study's text is parsed and decoded in a worker (static/player/decode-worker.js), its
    arrays handed to the page; where the browser refuses the worker, or its script is not
    found, on the main thread: the same study drawn either way.  A study that names a trace
    its figure lacks gets a sentence on the page, wherever it was read."""
    page = player_page(browser, "<div class='mpl-root' id='root'></div>", viewport={"width": 900, "height": 700})
    try:
        if worker == "refused":
            page.evaluate("() => { window.Worker = function () { throw new Error('no workers here'); }; }")
        if worker == "missing":
            page.route(ORIGIN + "decode-worker.js", lambda route: route.fulfill(status=404, body="not here"))
        page.evaluate(MOUNT_TEXT, [json.dumps(_small_payload()), "small"])
        page.wait_for_function("window.__mplSettled && window.__mplSettled.step === 1")
        shown = page.evaluate(
            "() => { const p = window.__mplPlayer; const y = p.cells[0].plot.data[0].y;"
            " return {where: p.decodedIn, typed: ArrayBuffer.isView(y), y: Array.from(y)}; }"
        )
        assert shown == {"where": "page" if worker != "starts" else "worker", "typed": True, "y": [1.0, 1.0, 1.0]}
        broken = _small_payload()
        broken["panels"][0]["frames"][2]["data"] = {"a-trace-it-lacks": {"y": [0, 0, 0]}}
        page.evaluate(MOUNT_TEXT, [json.dumps(broken), "broken"])
        page.wait_for_function("document.getElementById('root').textContent.startsWith('The study could not be read')")
        assert "names a trace its figure lacks (a-trace-it-lacks)" in page.inner_text("#root")
    finally:
        page.close()


@pytest.fixture
def stepper(browser):
    """A blank page with the player's plotly.js bundle and ``mount``; ``open(options)``
    mounts the small study and records what the options hear."""
    page = player_page(
        browser, "<input id='field'><div class='mpl-root' id='root'></div>", viewport={"width": 900, "height": 700}
    )
    page.evaluate("() => { window.__mount = window.__modules.mount.mount; }")

    def open_player(past_end=True):
        page.evaluate(
            """([payload, pastEnd]) => {
          window.__heard = { steps: [], past: [] };
          const options = { onStep: (j) => window.__heard.steps.push(j) };
          if (pastEnd) options.onPastEnd = (d) => window.__heard.past.push(d);
          window.__mount(document.getElementById('root'), payload, options);
        }""",
            [_small_payload(), past_end],
        )
        page.wait_for_function("window.__mplSettled && window.__mplSettled.step === 0")

    yield page, open_player
    page.close()


def test_a_first_draw_shows_the_screen_before_the_panels_below_it(stepper):
    """A lesson link's first screen is drawn before the panels scrolled below it: when the
    player reports the step on screen, every panel in view is drawn and those below are
    not; each is drawn as it comes into view."""
    page, _ = stepper
    drawn_when_rendered = page.evaluate(
        """(payload) => new Promise((resolve) => {
          document.addEventListener('mpl-rendered', () => resolve(window.__mplPlayer.cells.map((cell) => [
            cell.cell.getBoundingClientRect().top < window.innerHeight, Boolean(cell.plot._fullLayout)])), { once: true });
          window.__mount(document.getElementById('root'), payload, {});
        })""",
        _small_payload(panels=6, height=420),
    )
    in_view = [drawn for seen, drawn in drawn_when_rendered if seen]
    below = [drawn for seen, drawn in drawn_when_rendered if not seen]
    assert in_view and below  # the page is taller than the screen
    assert all(in_view) and not any(below)
    page.wait_for_function("window.__mplSettled && window.__mplSettled.step === 0")
    last = page.evaluate("window.__mplPlayer.cells.length") - 1
    assert not page.evaluate(f"Boolean(window.__mplPlayer.cells[{last}].plot._fullLayout)")
    page.evaluate(f"window.__mplPlayer.cells[{last}].cell.scrollIntoView()")
    page.wait_for_function(f"Boolean(window.__mplPlayer.cells[{last}].plot._fullLayout)", timeout=10_000)


def test_no_panel_near_the_screen_is_drawn_before_those_in_view_are_shown(stepper):
    """A panel just below the screen (within the margin the player draws ahead) waits until
    the panels in view are drawn and shown: its draw came between theirs when the player's
    IntersectionObserver reported it during a new study's draw, and a width already seen
    took a panel's draw longer to show.  Here the observer's report is made while the
    first panel in view is drawn."""
    page, _ = stepper
    order = page.evaluate(
        """(payload) => new Promise((resolve) => {
          const order = [];
          const keyOf = (gd) => gd.closest('.mpl-cell').dataset.panel;
          for (const name of ['newPlot', 'react']) {
            const draw = Plotly[name];
            Plotly[name] = function (gd, ...rest) {
              const player = window.__mplPlayer;
              order.push([keyOf(gd), gd.getBoundingClientRect().top < window.innerHeight]);
              if (!window.__poked && player) { window.__poked = true; player.catchUp(); }  // (as the observer)
              return draw.call(this, gd, ...rest);
            };
          }
          document.addEventListener('mpl-rendered', () => { order.push(['shown']); resolve(order); }, { once: true });
          window.__mount(document.getElementById('root'), payload, {});
        })""",
        _small_payload(panels=6, height=330),
    )
    shown = order.index(["shown"])
    assert page.evaluate("window.__poked") and shown >= 2, order
    assert all(in_view for _, in_view in order[:shown]), order
    page.wait_for_function(
        "window.__mplPlayer.cells.some((c) => c.behind === null && c.plot._fullLayout"
        " && c.cell.getBoundingClientRect().top >= window.innerHeight)",
        timeout=10_000,
    )


def test_whole_figures_share_a_task_until_it_has_drawn_its_share(stepper):
    """A new study's (or a new layout's) panels in view are drawn one after another in the
    same task while they are quick, and the next waits for a new task once the task has drawn
    for its share (30 ms): a click is never kept waiting behind every panel, nor every panel
    behind another task for nothing.  Counted on a clock the test moves: each Plotly draw
    takes 5 ms of it, then 40; a new task is the player yielding to the page."""
    page, _ = stepper
    page.evaluate(
        """(payload) => {
          let now = 0;
          performance.now = () => now;
          for (const name of ['newPlot', 'react']) {
            const draw = Plotly[name];
            Plotly[name] = function (...args) { now += window.__drawMs; return draw.apply(this, args); };
          }
          window.__drawMs = 5;
          window.__yields = 0;
          const yielded = scheduler.yield.bind(scheduler);
          scheduler.yield = () => { window.__yields += 1; return yielded(); };
          window.__mount(document.getElementById('root'), payload, {});
        }""",
        _small_payload(panels=4, height=150),
    )
    page.wait_for_function("window.__mplSettled && window.__mplSettled.step === 0")
    in_view = page.evaluate("window.__mplPlayer.cells.filter((c) => window.__mplPlayer.onScreen(c)).length")
    assert in_view >= 3, in_view
    counts = {}
    for ms in (5, 40):
        counts[ms] = page.evaluate(
            """(ms) => { window.__drawMs = ms; window.__yields = 0;
              return window.__mplPlayer.render(true).then(() => window.__yields); }""",
            ms,
        )
    assert counts == {5: 0, 40: in_view - 1}, counts


def held_slider_page(browser):
    """A page with a sidebar slider "Basis vectors k" (value 5) and ``window.__follow(asked)``:
    drag.js following it, where the view route answers every value at once, ``asked()``
    called as each question is put; the values asked in ``window.__asked``, the pictures
    shown in ``window.__shown``, the page's reruns delivered in ``window.__delivered``."""
    page = player_page(
        browser,
        "<div data-testid='stSidebar'><div data-testid='stSlider'>"
        "<input type='range' aria-label='Basis vectors k' min='1' max='40' value='5'></div></div>",
    )
    page.evaluate(
        """() => { window.__follow = async (asked) => {
          const { followDrags } = await import('./drag.js');
          window.__asked = []; window.__shown = []; window.__delivered = 0;
          const current = () => ({ head: { settings: [{ widget: 'slider', label: 'Basis vectors k', name: 'k' }] } });
          const fetchView = (query) => {
            const k = new URLSearchParams(query).get('k');
            window.__asked.push(k);
            asked();
            return Promise.resolve({ name: 'k' + k, address: '?' + query, values: {} });
          };
          followDrags(current, () => window.__delivered, fetchView, (head, name) => window.__shown.push(name), () => {});
        }; }"""
    )
    return page


def test_a_held_value_whose_picture_came_after_a_rerun_is_asked_again(browser):
    """A slider held on a value whose picture arrives after a rerun of the page delivered
    another: that picture is not drawn over the rerun's (the release's would be newer), and the
    value still held is asked for again and drawn, before the release (it was dropped until the
    thumb moved: a drag test on CI waited a minute for it)."""
    page = held_slider_page(browser)
    try:
        page.evaluate(
            """async () => {
              // the page's rerun delivers a picture while the first question is out
              await window.__follow(() => { if (window.__asked.length === 1) window.__delivered += 1; });
              const input = document.querySelector('input');
              input.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
              input.value = '12';
              input.dispatchEvent(new PointerEvent('pointermove', { bubbles: true }));
            }"""
        )
        page.wait_for_function("window.__shown.length > 0", timeout=10_000)
        assert page.evaluate("[window.__asked, window.__shown]") == [["12", "12"], ["k12"]]
    finally:
        page.close()


def test_a_held_sliders_value_committed_after_its_move_is_asked_for_while_held(browser):
    """The slider's own code (React) writes the value a move gave it in a task of its own,
    which may come after the frame that follows the move, with no event: the value the thumb
    rests on is still asked for and drawn while it is held (it was read at the move, found
    unchanged, and never asked for until the release: a drag test waited a minute for it)."""
    page = held_slider_page(browser)
    try:
        page.evaluate(
            """async () => {
              await window.__follow(() => {});
              const input = document.querySelector('input');
              input.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
              input.dispatchEvent(new PointerEvent('pointermove', { bubbles: true }));
              // the move's value written three frames later, no event with it
              const later = (n, then) => requestAnimationFrame(() => (n ? later(n - 1, then) : then()));
              later(3, () => { input.value = '12'; });
            }"""
        )
        page.wait_for_function("window.__shown.length > 0", timeout=5_000)
        assert page.evaluate("[window.__asked, window.__shown]") == [["12"], ["k12"]]
    finally:
        page.close()


def _at(page, j):
    page.wait_for_function(f"window.__mplRendered.step === {j} && window.__mplPlayer.j === {j}")
    return page.evaluate("[window.__mplPlayer.cells[0].plot.data[0].y[0], window.__mplPlayer.story.textContent]")


def test_the_keys_step_draw_the_step_and_report_it(stepper):
    page, open_player = stepper
    open_player()
    page.keyboard.press("PageDown")
    assert _at(page, 1) == [1.0, "story 1"]  # the drawn data is the step's frame
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    assert _at(page, 4)[0] == 4.0
    page.keyboard.press("PageUp")
    page.keyboard.press("Home")
    assert _at(page, 0)[0] == 0.0
    assert page.evaluate("window.__heard.steps") == [1, 2, 4, 3, 0]


def test_past_either_end_the_player_asks_for_the_next_scene(stepper):
    page, open_player = stepper
    open_player()
    page.keyboard.press("PageUp")  # at step 0: the previous scene
    page.keyboard.press("End")
    _at(page, 4)
    page.keyboard.press("PageDown")  # at the last step: the next scene
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.__heard.past") == [-1, 1, 1]
    assert page.evaluate("window.__mplPlayer.j") == 4  # the step stays


def test_the_step_buttons_do_what_the_clicker_keys_do_past_either_end(stepper):
    """ "Next ▶" on a scene's last step asks for the next scene, as PageDown does ("Next ▶"
    stepped past the scene's end into steps the narration does not speak of)."""
    page, _ = stepper
    guide = {
        "lesson": "A lesson",
        "id": "x",
        "scene": 2,
        "scenes": 3,
        "notes": "",
        "claims": [],
        "question": None,
        "try": "",
        "start": 0,
        "until": 2,
    }
    payload = {**_small_payload(), "lesson": {"name": "Scene two", "text": "Narration.", "guide": guide}}
    page.evaluate(
        """(payload) => { window.__heard = { past: [] };
          window.__mount(document.getElementById('root'), payload, { onPastEnd: (d) => window.__heard.past.push(d) }); }""",
        payload,
    )
    page.wait_for_function("window.__mplSettled && window.__mplSettled.step === 0")
    page.get_by_role("button", name="Back one step").click()  # at the scene's first step: the previous scene
    page.get_by_role("button", name="Next step").click()
    page.get_by_role("button", name="Next step").click()
    assert _at(page, 2)[0] == 2.0
    page.get_by_role("button", name="Next step").click()  # at the scene's last step: the next scene
    assert page.evaluate("window.__heard.past") == [-1, 1]
    assert page.evaluate("window.__mplPlayer.j") == 2  # not step 3, which the scene does not speak of


def test_without_scenes_the_ends_clamp_and_go_clamps(stepper):
    page, open_player = stepper
    open_player(past_end=False)
    page.keyboard.press("PageUp")
    page.evaluate("window.__mplPlayer.go(99, 'key')")
    assert _at(page, 4)[0] == 4.0
    page.keyboard.press("PageDown")
    page.evaluate("window.__mplPlayer.go(-5, 'key')")
    assert _at(page, 0)[0] == 0.0
    assert page.evaluate("window.__heard.steps") == [4, 0]


def test_keys_typed_in_a_field_are_not_steps_and_blanking_takes_one_key(stepper):
    page, open_player = stepper
    open_player()
    page.click("#field")
    page.keyboard.press("ArrowRight")
    page.keyboard.type("b.")
    assert page.evaluate("[window.__mplPlayer.j, window.__mplPlayer.blanked || false]") == [0, False]
    page.evaluate("window.__mplPlayer.takeFocus(true)")
    page.keyboard.press("b")
    assert page.evaluate("window.__mplPlayer.blanked") is True
    page.keyboard.press("PageDown")  # the key that brings the screen back does nothing else
    assert page.evaluate("[window.__mplPlayer.j, window.__mplPlayer.blanked]") == [0, False]
    page.keyboard.press("PageDown")
    assert _at(page, 1)[0] == 1.0


def _rebuilt_frames(js, panel_dict, scores=None):
    """A panel's frames as the player holds them after load (decoded, traces found by their
    names, references resolved): each frame's patches by trace position."""
    return js(
        """(() => {
          const panel = arg.panel;
          const figure = panel.figure ? P.decode(panel.figure) : null;
          const scores = arg.scores ? P.decode(arg.scores) : null;
          const columns = (panel.columns || []).map(P.decode);
          const named = P.byPosition({ key: panel.key, figure, frames: panel.frames.map(P.decode),
            hide_when_predicting: panel.hide_when_predicting });
          const frames = P.resolveChanges(named.frames.map((f) => P.withScoreRows(f, scores, columns)), figure);
          const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v, (x) => (Number.isNaN(x) ? null : x))
            : Array.isArray(v) ? v.map(plain) : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v);
          return frames.map((f) => plain(f.data || {}));
        })()""",
        {"panel": panel_dict, "scores": scores},
    )


@pytest.fixture(scope="module")
def kmp_study():
    from mpcore import datasets, studies

    split = datasets.prepare(datasets.load_dataset("sinc", n_samples=300), seed=0)
    return studies.kmp_study(split, k=15, gamma=10.0)


def test_a_heatmap_sent_as_changes_is_rebuilt_within_a_quarter_level(js, kmp_study):
    from views import player, steps

    j_steps = range(kmp_study.n_steps + 1)
    panel = steps.heatmap_panel(kmp_study, j_steps, sort_note="sorted", shared_scale=False)
    spec = json.loads(json.dumps(panel.as_dict()))
    kinds = [type(frame["data"]["kernel-after"]["z"]).__name__ for frame in spec["frames"]]
    changes = sum("change" in frame["data"]["kernel-after"]["z"] for frame in spec["frames"])
    assert changes == len(spec["frames"]), kinds  # a deflation: every step a change, the first from the base figure
    eight_bit = sum(len(json.dumps(player.encode(f))) for f in panel.frames)
    assert len(json.dumps(spec["frames"])) < eight_bit / 4
    rebuilt = _rebuilt_frames(js, spec)
    order = steps._heat_order(kmp_study.order, kmp_study.n_steps)
    for j, frame in zip(j_steps, rebuilt):
        truth = kmp_study.path.deflated_block(j, order)
        level = (frame["1"]["zmax"] - frame["1"]["zmin"]) / 254  # this step's own colour range
        error = np.max(np.abs(np.array(frame["1"]["z"], dtype=float) - truth))
        assert error <= level / 4 + 1e-6 * np.max(np.abs(truth)), (j, error, level)


def test_a_matrix_that_changes_wholly_goes_as_eight_bit_cells(js):
    from views import player

    rng = np.random.default_rng(1)
    matrices = [rng.uniform(-1, 1, size=(20, 20)) for _ in range(4)]
    frames = [{"data": {"heat": {"z": player.Quantized(m, -1.0, 1.0)}}} for m in matrices]
    import plotly.graph_objects as go

    figure = go.Figure(go.Heatmap(uid="heat", z=np.zeros((20, 20))))
    panel = player.Panel("heat", "kernel", "title", figure, frames)
    spec = json.loads(json.dumps(panel.as_dict()))
    assert all("q8" in frame["data"]["heat"]["z"] for frame in spec["frames"])  # no change is of low rank
    for frame, truth in zip(_rebuilt_frames(js, spec), matrices):
        assert np.max(np.abs(np.array(frame["0"]["z"]) - truth)) <= 1 / 254 + 1e-6


def test_criterion_frames_refer_to_the_payloads_scores(js, kmp_study):
    from views import player, steps

    j_steps = range(kmp_study.n_steps + 1)
    labels = np.where(kmp_study.split.y_train > 0, 1.0, -1.0)  # two groups of candidates
    panel = steps.criterion_panel(kmp_study, j_steps, kmp_study.coords[:, 0], labels, title="step {j}")
    scores = kmp_study.path.scores[: kmp_study.n_steps]
    spec = json.loads(json.dumps(panel.as_dict(scores)))
    assert all("score_row" in frame["data"][f"scores-{n}"]["y"] for frame in spec["frames"] for n in (0, 1))
    assert len(spec["columns"]) == 2  # each group's points sent once
    rebuilt = _rebuilt_frames(js, spec, json.loads(json.dumps(player.encode(np.asarray(scores, dtype=float)))))
    groups = figures_groups(labels, scores.shape[1])
    for j, frame in zip(j_steps, rebuilt):
        truth, _ = kmp_study.criterion(j)
        for number, index in enumerate(groups):
            got = np.array([np.nan if v is None else v for v in frame[str(number)]["y"]], dtype=float)
            np.testing.assert_allclose(got, truth[index], rtol=1e-6, equal_nan=True)
    # without the payload's rows (no "predict the next pick") the frames carry the values
    alone = json.loads(json.dumps(panel.as_dict(None)))
    assert not any("score_row" in json.dumps(frame) for frame in alone["frames"]) and "columns" not in alone


def figures_groups(labels, m):
    from views import figures

    return [index for *_, index in figures.criterion_groups(labels, m)]


def test_a_payload_of_another_version_gets_a_sentence_not_a_blank_panel(stepper):
    """A demo saved by another release (its payload's ``version`` is not this player's):
    the player says so in the panel's place, and draws nothing it might misread."""
    from views import player

    page, _ = stepper
    said = page.evaluate(
        """(payload) => { const root = document.getElementById('root');
          window.__mount(root, payload, {}); return root.textContent; }""",
        {**_small_payload(), "version": player.PAYLOAD_VERSION + 1},
    )
    assert f"payload version {player.PAYLOAD_VERSION + 1}" in said and "another version of the step player" in said
    assert page.evaluate("document.querySelectorAll('#root .mpl-cell').length") == 0


def test_a_keys_triangle_points_the_way_its_markers_do(js):
    """The chart's key drew every triangle pointing down: the criterion's "scoring ∞"
    (triangle-up) read as the bound panel's "lowest bound so far" (triangle-down)."""
    apexes = js(
        "import('./dom.js').then((dom) => arg.map((symbol) => {"
        " const points = dom.swatch({kind: 'marker', symbol}, (c) => c).querySelector('polygon').getAttribute('points')"
        "   .split(' ').map((p) => p.split(',').map(Number));"
        " const ys = points.map(([, y]) => y); const lone = ys.filter((y) => ys.indexOf(y) === ys.lastIndexOf(y))[0];"
        " return lone < Math.max(...ys) ? 'up' : 'down'; }))",
        ["triangle-up", "triangle-down"],
    )
    assert apexes == ["up", "down"]
