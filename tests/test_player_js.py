"""The step player's pure helpers (ui/player.js), run in Chromium on their own: packing
panels into screens, placing labels, wrapping text, decoding the payload, colours."""
import base64
import json
from pathlib import Path

import numpy as np
import pytest

from browser_support import browser  # noqa: F401

PLAYER = Path(__file__).resolve().parent.parent / "ui" / "player.js"
EXPORTS = ("pack", "capacity", "placeLabels", "wrapText", "textWidth", "decode", "luminance", "recolour",
           "MIN_PANEL")


@pytest.fixture(scope="module")
def js(browser):
    page = browser.new_page()
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=PLAYER.read_text() + "\nwindow.__player = {" + ", ".join(EXPORTS) + "};",
                        type="module")
    page.wait_for_function("window.__player !== undefined")
    yield lambda expression, arg=None: page.evaluate(f"(arg) => {{ const P = window.__player; return {expression}; }}",
                                                      arg)
    page.close()


def test_pack_fills_each_screen_in_order_and_lets_small_panels_pass_a_wide_one(js):
    # the algorithm pages at 1280 x 720, 100%: data, criterion, the bound two rows tall, the
    # heatmaps two columns wide fill one screen; the model waits for the next
    screens = js("P.pack(arg, 3, 2)", [[1, 1], [1, 1], [1, 2], [2, 1], [1, 1]])
    assert [[item["index"] for item in screen] for screen in screens] == [[0, 1, 2, 3], [4]]
    first = {item["index"]: (item["row"], item["col"], item["w"], item["h"]) for item in screens[0]}
    assert first == {0: (0, 0, 1, 1), 1: (0, 1, 1, 1), 2: (0, 2, 1, 2), 3: (1, 0, 2, 1)}
    # one row of two at 150%: the wide heatmaps wait, the model after them moves up
    screens = js("P.pack(arg, 2, 1)", [[1, 1], [1, 1], [1, 2], [2, 1], [1, 1]])
    assert [[item["index"] for item in screen] for screen in screens] == [[0, 1], [2, 4], [3]]
    # the scrolling layout: one long screen, everything one row tall, a wide panel alone on its
    # row, a later small one filling the hole before it (data | criterion, bound | model, heatmaps)
    screens = js("P.pack(arg, 2, Infinity)", [[1, 1], [1, 1], [1, 2], [2, 1], [1, 1]])
    assert len(screens) == 1
    rows = {item["index"]: (item["row"], item["col"]) for item in screens[0]}
    assert rows == {0: (0, 0), 1: (0, 1), 2: (1, 0), 4: (1, 1), 3: (2, 0)}


def test_capacity_shrinks_with_the_text_size(js):
    assert js("P.capacity(1120, 540, 1)") == {"cols": 3, "rows": 2}
    assert js("P.capacity(1120, 540, 1.5)") == {"cols": 2, "rows": 1}
    assert js("P.capacity(1760, 900, 1.5)")["cols"] == 3


def test_labels_avoid_lines_and_each_other(js):
    area = {"x": 0, "y": 0, "w": 400, "h": 300}
    line = [[0, 150], [400, 150]]  # a horizontal curve through the middle
    ref = {"candidates": [{"x": 10, "y": 140, "w": 80, "h": 20}, {"x": 10, "y": 100, "w": 80, "h": 20}]}
    tips = [{"x": 200, "y": 60, "w": 90, "h": 20}, {"x": 200, "y": 62, "w": 90, "h": 20}]
    placed = js("P.placeLabels(arg.refs, arg.tips, arg.lines, arg.area)",
                {"refs": [ref], "tips": tips, "lines": [line], "area": area})
    assert placed["refs"][0]["y"] == 100  # the first candidate sits on the curve: the second is taken
    a, b = placed["tips"]
    assert abs(a["y"] - b["y"]) >= 20  # pushed apart, never on top of each other
    crowded = [{"x": 200, "y": 150, "w": 90, "h": 120} for _ in range(4)]  # 480 px of labels in 300
    placed = js("P.placeLabels([], arg.tips, [], arg.area)", {"tips": crowded, "area": area})["tips"]
    assert any(box is None for box in placed)  # what cannot stand clear is not drawn
    shown = [box for box in placed if box]
    assert all(0 <= box["y"] and box["y"] + box["h"] <= 300 for box in shown)


def test_wrap_text_keeps_lines_within_the_room(js):
    lines = js("P.wrapText('the train error rate outside the compression set', 18, 150)")
    assert len(lines) > 1 and " ".join(lines) == "the train error rate outside the compression set"
    widths = js("arg.map((line) => P.textWidth(line, 18))", lines)
    assert all(width <= 150 for width in widths)


def test_decode_reads_what_python_encodes(js):
    from ui import player

    matrix = np.array([[0.0, 0.5], [-1.0, np.nan]])
    spec = json.loads(json.dumps(player.encode({"a": np.arange(4, dtype=float), "q": player.Quantized(matrix, -1.0, 1.0)})))
    out = js("(() => { const d = P.decode(arg); return {a: Array.from(d.a), q: d.q.map((row) => Array.from(row))}; })()",
             spec)
    assert out["a"] == [0, 1, 2, 3]
    assert out["q"][0] == pytest.approx([0.0, 0.5], abs=1 / 254) and out["q"][1][0] == -1.0
    assert np.isnan(out["q"][1][1])  # a missing cell comes back as NaN: a gap in the heatmap
    raw = base64.b64encode(np.array([1.5, 2.5], dtype=np.float32).tobytes()).decode()
    assert js("Array.from(P.decode({dtype: 'f4', bdata: arg}))", raw) == [1.5, 2.5]


def test_colours(js):
    assert js("P.luminance('#ffffff')") == pytest.approx(1.0)
    assert js("P.luminance('rgb(0, 0, 0)')") == pytest.approx(0.0)
    assert js("P.luminance('not a colour')") is None
    swapped = js("P.recolour({a: '#FFFFFF', b: ['#000000', '#0072B2'], c: 3}, {'#ffffff': 'dark', '#000000': 'light'})")
    assert swapped == {"a": "dark", "b": ["light", "#0072B2"], "c": 3}
