// The step player's pure modules (static/player/), under Node's own test runner: packing panels
// into screens, the screen's capacity, labels placed clear of lines and of each other,
// colours for the dark theme, the payload's framing and typed arrays.  `node --test tests/js/`
// (tests/test_player_node.py runs it with the rest of the suite).  What needs a browser --
// text measured in a font, Plotly drawing, keys -- is tested in Chromium (tests/test_player_js.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { atScale, byPosition, decode, decodeStudy, framed, PAYLOAD_VERSION, resolveChanges } from "../../static/player/decode.js";
import { placeLabels } from "../../static/player/labels.js";
import { predict } from "../../static/player/predict.js";
import { capacity, pack, PRESENT_ORDER, screens } from "../../static/player/screens.js";
import { readRows } from "../../static/player/tables.js";
import { luminance, recolour } from "../../static/player/theme.js";

const indices = (screens) => screens.map((screen) => screen.map((item) => item.index));
const SPANS = [[1, 1], [1, 1], [1, 2], [2, 1], [1, 1]];  // data, criterion, bound (two rows), heatmaps (two columns), model

test("pack fills each screen in order and lets small panels pass a wide one", () => {
  // the algorithm pages at 1280 x 720, 100%: four panels fill one screen, the model waits
  let screens = pack(SPANS, 3, 2);
  assert.deepEqual(indices(screens), [[0, 1, 2, 3], [4]]);
  const first = Object.fromEntries(screens[0].map((i) => [i.index, [i.row, i.col, i.w, i.h]]));
  assert.deepEqual(first, { 0: [0, 0, 1, 1], 1: [0, 1, 1, 1], 2: [0, 2, 1, 2], 3: [1, 0, 2, 1] });
  // one row of two at 150%: the wide heatmaps wait, the model after them moves up
  assert.deepEqual(indices(pack(SPANS, 2, 1)), [[0, 1], [2, 4], [3]]);
  // scrolling: one long screen, a wide panel alone on its row, a later small one filling the hole before it
  screens = pack(SPANS, 2, Infinity);
  assert.equal(screens.length, 1);
  const rows = Object.fromEntries(screens[0].map((i) => [i.index, [i.row, i.col]]));
  assert.deepEqual(rows, { 0: [0, 0], 1: [0, 1], 2: [1, 0], 4: [1, 1], 3: [2, 0] });
});

test("a screen holds fewer panels at a larger text size", () => {
  assert.deepEqual(capacity(1120, 540, 1), { cols: 3, rows: 2 });
  assert.deepEqual(capacity(1120, 540, 1.5), { cols: 2, rows: 1 });
  assert.equal(capacity(1760, 900, 1.5).cols, 3);
});

test("labels avoid the lines and each other, and one that cannot stand clear is not drawn", () => {
  const area = { x: 0, y: 0, w: 400, h: 300 };
  const line = [[0, 150], [400, 150]];  // a horizontal curve through the middle
  const ref = { candidates: [{ x: 10, y: 140, w: 80, h: 20 }, { x: 10, y: 100, w: 80, h: 20 }] };
  const tips = [{ x: 200, y: 60, w: 90, h: 20 }, { x: 200, y: 62, w: 90, h: 20 }];
  const placed = placeLabels([ref], tips, [line], area);
  assert.equal(placed.refs[0].y, 100);  // the first candidate sits on the curve: the second is taken
  assert.ok(Math.abs(placed.tips[0].y - placed.tips[1].y) >= 20);  // pushed apart
  const crowded = Array.from({ length: 4 }, () => ({ x: 200, y: 150, w: 90, h: 120 }));  // 480 px in 300
  const boxes = placeLabels([], crowded, [], area).tips;
  assert.ok(boxes.some((box) => box === null));
  for (const box of boxes.filter(Boolean)) assert.ok(box.y >= 0 && box.y + box.h <= 300);
});

test("colours: relative luminance, and the dark theme's ink swapped in wherever it is", () => {
  assert.ok(Math.abs(luminance("#ffffff") - 1) < 1e-9);
  assert.ok(Math.abs(luminance("rgb(0, 0, 0)")) < 1e-9);
  assert.equal(luminance("not a colour"), null);
  assert.deepEqual(
    recolour({ a: "#FFFFFF", b: ["#000000", "#0072B2"], c: 3 }, { "#ffffff": "dark", "#000000": "light" }),
    { a: "dark", b: ["light", "#0072B2"], c: 3 },
  );
});

const b64 = (typed) => Buffer.from(typed.buffer).toString("base64");

test("typed arrays and 8-bit cells decode to what was encoded", () => {
  assert.deepEqual(Array.from(decode({ dtype: "f4", bdata: b64(new Float32Array([1.5, 2.5])) })), [1.5, 2.5]);
  const matrix = decode({ dtype: "i4", bdata: b64(new Int32Array([1, 2, 3, 4, 5, 6])), shape: [2, 3] });
  assert.deepEqual(matrix.map((row) => Array.from(row)), [[1, 2, 3], [4, 5, 6]]);
  // 8-bit codes over [lo, hi]: 0 is lo, 254 is hi, 255 a missing cell (a gap in the heatmap)
  const cells = decode({ q8: b64(new Uint8Array([0, 127, 254, 255])), lo: -1, hi: 1, shape: [2, 2] });
  assert.equal(cells[0][0], -1);
  assert.ok(Math.abs(cells[0][1]) < 1 / 254);
  assert.equal(cells[1][0], 1);
  assert.ok(Number.isNaN(cells[1][1]));
  assert.deepEqual(decode({ nested: [{ dtype: "u1", bdata: b64(new Uint8Array([7])) }] }).nested[0][0], 7);
});

test("a heatmap's step sent as a change is the step before plus the change's factors", () => {
  const base = { data: [{ z: [[1, 0], [0, 1]] }] };
  const change = { change: { u: [[1], [2]], w: [[1, 1]] } };  // u @ w = [[1, 1], [2, 2]]
  const frames = resolveChanges([{ data: { 0: { z: change } } }, { data: { 0: { z: change } } }], base);
  const rows = (z) => z.map((row) => Array.from(row));
  assert.deepEqual(rows(frames[0].data[0].z), [[2, 1], [2, 3]]);
  assert.deepEqual(rows(frames[1].data[0].z), [[3, 2], [4, 5]]);
});

// A small study as Python sends it: scores, a panel whose frame reads a row of them, an array,
// and fonts and margins to scale (in the figure, an annotation and a frame's patch).
const study = () => ({
  scores: { dtype: "f4", bdata: b64(new Float32Array([0.5, 2, 4])), shape: [1, 3] },
  panels: [{
    key: "data",
    columns: [{ dtype: "i4", bdata: b64(new Int32Array([2, 0])) }],
    figure: {
      data: [{ uid: "points", meta: { reveal: true }, x: { dtype: "f4", bdata: b64(new Float32Array([1, 2])) }, textfont: { size: 13 } }],
      layout: { font: { size: 14 }, margin: { l: 10, t: 7 }, annotations: [{ name: "note", font: { size: 17 } }] },
    },
    frames: [{ data: { points: { y: { score_row: 0, columns: 0 } } }, layout: { "annotations.note.font": { size: 19 } } }],
  }],
});

test("a study is decoded once for its text size: decoded again it is unchanged, and at another size refused", () => {
  const once = decodeStudy(study(), 1.5);
  const panel = once.panels[0];
  assert.deepEqual(Array.from(panel.frames[0].data[0].y), [4, 0.5]);  // row 0 of the scores at points 2 and 0
  assert.equal(panel.figure.layout.font.size, 21);
  assert.equal(panel.figure.layout.margin.l, 15);
  assert.equal(panel.light, panel.figure);
  assert.deepEqual(Array.from(once.decoded.scores[0]), [0.5, 2, 4]);
  assert.equal(once.decoded.hasReveal, true);
  // a second player of the same study (a setting changed back) finds it as it was: the fonts
  // are not scaled twice, nor its frames' references read again
  const again = decodeStudy(Object.assign({}, once, { step: 3 }), 1.5);
  assert.equal(again.panels[0].figure.layout.font.size, 21);
  assert.deepEqual(Array.from(again.panels[0].frames[0].data[0].y), [4, 0.5]);
  assert.throws(() => decodeStudy(once, 1), /decoded for one text size/);
  assert.equal(decodeStudy(study(), 1).panels[0].figure.layout.font.size, 14);
});

test("a study decoded at 100% and laid out at another size is what decoding at that size gives", () => {
  const base = decodeStudy(study(), 1);
  base.panels[0].dark = { data: [], layout: {} };  // the dark theme's copy, made at 100% (player.js), is not carried over
  const before = JSON.stringify(base, (key, value) => (ArrayBuffer.isView(value) ? Array.from(value) : value));
  for (const scale of [1.25, 1.5]) {
    const laid = atScale(base, scale);
    const decoded = decodeStudy(study(), scale);
    const plain = (value) => JSON.parse(JSON.stringify(value, (key, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
    assert.deepEqual(plain(laid), plain(decoded));
    assert.equal(laid.decoded.scale, scale);
    assert.equal("dark" in laid.panels[0], false);
    assert.equal(laid.panels[0].light, laid.panels[0].figure);  // held twice, copied once
    assert.equal(laid.panels[0].figure.data[0].x, base.panels[0].figure.data[0].x);  // the arrays shared, not copied
  }
  // the study at 100% is left as it was, and a copy is only made from it
  assert.equal(JSON.stringify(base, (key, value) => (ArrayBuffer.isView(value) ? Array.from(value) : value)), before);
  assert.equal(atScale(base, 1), base);
  assert.throws(() => atScale(decodeStudy(study(), 1.5), 1.25), /size-1 decoding/);
});

test("a frame is read only when its magic bytes are there", () => {
  const head = new TextEncoder().encode(JSON.stringify({ step: 3 }));
  const bytes = new Uint8Array(8 + head.length + 2);
  bytes.set(new TextEncoder().encode("MPLZ"));
  new DataView(bytes.buffer).setUint32(4, head.length);
  bytes.set(head, 8);
  bytes.set([9, 9], 8 + head.length);
  const read = framed(bytes, "MPLZ");
  assert.deepEqual(read.head, { step: 3 });
  assert.deepEqual(Array.from(read.rest), [9, 9]);
  assert.equal(framed(bytes, "MPLR"), null);
  assert.equal(framed("text", "MPLZ"), null);
});

const SCHEMA = JSON.parse(readFileSync(new URL("../../views/payload.schema.json", import.meta.url), "utf8"));

test("the player reads the schema's payload version, and ranks every role the schema names", () => {
  assert.equal(PAYLOAD_VERSION, SCHEMA.properties.version.const);
  assert.deepEqual(PRESENT_ORDER, SCHEMA.$defs.role.enum);
});

test("presenter mode shows one panel of each role first, by role, then the second of each, and leaves out the ones it hides", () => {
  const panels = [
    ["data", "data", true], ["criterion", "criterion", true], ["view-y", "data", true], ["model", "model", true],
    ["bounds", "bound", true], ["heat", "kernel", true], ["hidden", "data", false], ["heat-y", "kernel", true],
  ].map(([key, role, presenter]) => ({ key, role, presenter }));
  const player = (present, guide = null) => ({
    payload: { present },
    cells: panels.map((panel, index) => ({ panel, index })),
    guide,
  });
  const keys = (self) => screens.visibleCells.call(self).map((cell) => cell.panel.key);
  assert.deepEqual(keys(player(true)), ["data", "criterion", "bounds", "heat", "model", "view-y", "heat-y"]);
  assert.deepEqual(keys(player(false)), panels.map((panel) => panel.key));
  // a lesson's scene names the panel it discusses: first, even one presenter mode hides
  assert.deepEqual(keys(player(true, { panel: "model" })).slice(0, 3), ["model", "data", "criterion"]);
  assert.deepEqual(keys(player(true, { panel: "hidden" }))[0], "hidden");
});

test("traces named in the payload are found by their position, and a name the figure lacks is refused", () => {
  const panel = {
    key: "bounds",
    figure: { data: [{ uid: "curve-0", y: [3, 1, 2] }, { uid: "marker", meta: { min_of: "curve-0" } }, { uid: "curve-1" }] },
    frames: [{ data: { "curve-1": { y: [1] }, "curve-0": { y: [2] } } }, {}],
    hide_when_predicting: ["curve-1"],
  };
  byPosition(panel);
  assert.deepEqual(panel.frames[0].data, { 2: { y: [1] }, 0: { y: [2] } });
  assert.deepEqual(panel.hide_when_predicting, [2]);
  assert.equal(panel.figure.data[1].meta.min_of, 0);
  const wrong = { key: "criterion", figure: { data: [{ uid: "winner" }] }, frames: [{ data: { loser: {} } }] };
  assert.throws(() => byPosition(wrong), /names a trace its figure lacks \(loser\)/);
});

test("annotations and shapes named in the payload are found by their position, and a name the figure lacks is refused", () => {
  const panel = () => ({
    key: "heat",
    figure: {
      data: [],
      layout: {
        annotations: [{ name: "before-title" }, { name: "after-title" }],
        shapes: [{ name: "stop" }, { name: "trivial" }],
        meta: { refs: [{ shape: "trivial", axis: "y" }, { shape: "stop", axis: "x" }] },
      },
    },
    frames: [{ layout: { "annotations.after-title.text": "K1", "yaxis.range": [0, 1] } }, {}],
  });
  const found = byPosition(panel());
  assert.deepEqual(found.frames[0].layout, { "annotations.1.text": "K1", "yaxis.range": [0, 1] });
  assert.deepEqual(found.figure.layout.meta.refs.map((ref) => ref.shape), [1, 0]);
  const lacking = panel();
  lacking.frames[0].layout = { "annotations.title-0.text": "K1" };
  assert.throws(() => byPosition(lacking), /names annotations its figure lacks \(title-0\)/);
  const ghost = panel();
  ghost.figure.layout.meta.refs[0].shape = "ghost";
  assert.throws(() => byPosition(ghost), /names shapes its figure lacks \(ghost\)/);
});

test("a table reads a fine grid of x at one value in every few, its ends kept", () => {
  const t = Array.from({ length: 30 }, (_, i) => i + 1);  // a bound's t: read whole
  assert.deepEqual(readRows(t), { rows: t, every: 1 });
  const grid = Array.from({ length: 200 }, (_, i) => i / 199);
  const { rows, every } = readRows(grid);
  assert.ok(rows.length <= 51 && rows.length >= 40, String(rows.length));
  assert.equal(every, 5);
  assert.equal(rows[0], 0);
  assert.equal(rows[rows.length - 1], 1);
  assert.deepEqual(rows.slice(0, 3), [grid[0], grid[5], grid[10]]);
});

test("the board says both votes, marks the right answer only once revealed, and counts who moved", async () => {
  const { boardModel } = await import("../../static/player/board.js");
  const shown = boardModel({ kind: "question", choices: 3, answers: { 1: 1, 2: 3 }, before: { 1: 2, 2: 1, 3: 1 }, right: 0, moved: null, lost: null });
  assert.deepEqual(shown.rows.map((r) => [r.name, r.right, r.votes.map((v) => v.count + " " + v.share)]),
    [["A", false, ["2 50%", "1 25%"]], ["B", false, ["1 25%", "3 75%"]], ["C", false, ["1 25%", "0 0%"]]]);
  assert.deepEqual(shown.lines, ["First vote: 4 answers · second vote: 4 answers."]);  // nothing said of the answer
  const revealed = boardModel({ kind: "question", choices: 3, answers: { 1: 1, 2: 3 }, before: { 1: 2, 2: 1, 3: 1 }, right: 2, moved: 2, lost: 0 });
  assert.deepEqual(revealed.rows.map((r) => r.right), [false, true, false]);
  assert.equal(revealed.lines[1], "The answer: B. Correct: 25% → 75%.");
  assert.equal(revealed.lines[2], "2 moved to the right answer between the votes, 0 away from it.");
  // a prediction: the most clicked points first, the pick listed even when few chose it
  const picks = boardModel({ kind: "predict", choices: 0, answers: { 4: 1, 9: 5, 12: 2, 30: 1, 31: 1, 32: 1, 33: 1 }, before: null, right: 30 });
  assert.deepEqual(picks.rows.map((r) => r.name), ["point 9", "point 12", "point 4", "point 30", "point 31", "point 32"]);
  assert.equal(picks.lines[1], "The pick: point 30. 1 of 12 (8%) predicted it.");
  const unpicked = boardModel({ kind: "predict", choices: 0, answers: { 4: 3, 9: 5, 12: 2, 31: 1, 32: 1, 33: 1, 34: 1 }, before: null, right: 77 });
  assert.equal(unpicked.rows.at(-1).name, "point 77");
  assert.equal(unpicked.rows.at(-1).votes[0].count, 0);
});

test("a page knows a picture it has shown by its settings, in any order, and forgets the oldest", async () => {
  const { pictureMemory, valuesKey } = await import("../../static/player/pick.js");
  assert.equal(valuesKey({ gamma: "3", k: "30" }), valuesKey({ k: "30", gamma: "3" }));
  assert.notEqual(valuesKey({ gamma: "3", k: "30" }), valuesKey({ gamma: "3", k: "31" }));
  const memory = pictureMemory();
  memory.remember({ values: { gamma: "1", k: "30" }, address: "kmp?k=30", lesson: null }, "first");
  assert.equal(memory.find({ k: "30", gamma: "1" }).name, "first");
  assert.equal(memory.find({ k: "30", gamma: "3" }), null);  // another width: not shown yet
  assert.equal(memory.find({ k: "30" }), null);  // a setting left out is another view
  memory.remember({ address: "kmp" }, "no values");  // (a view without its values is not kept)
  for (let k = 0; k < 24; k += 1) memory.remember({ values: { gamma: "3", k: String(k) } }, `k${k}`);
  assert.equal(memory.find({ k: "30", gamma: "1" }), null);  // the oldest of 25 forgotten
  assert.equal(memory.find({ gamma: "3", k: "0" }).name, "k0");
  memory.remember({ values: { gamma: "3", k: "0" } }, "k0");  // shown again: the latest
  memory.remember({ values: { gamma: "9", k: "0" } }, "new");
  assert.equal(memory.find({ gamma: "3", k: "0" }).name, "k0");
  assert.equal(memory.find({ gamma: "3", k: "1" }), null);
});

test("the values asked ahead are each select's next option and the one before, then each toggle's other value", async () => {
  const { neighbours } = await import("../../static/player/pick.js");
  const settings = [
    { name: "points", widget: "slider" },
    { name: "std", widget: "toggle" },
    { name: "gamma", widget: "selectbox", values: [["0.1", "0.1"], ["1", "1"], ["3", "3"], ["auto (median)", "auto (median)"]] },
    { name: "loss", widget: "selectbox", values: [["squared", "squared"], ["tanh", "tanh"]] },
  ];
  const values = { points: "350", std: "true", gamma: "1", loss: "squared" };
  assert.deepEqual(neighbours(settings, values), [["gamma", "3"], ["gamma", "0.1"], ["loss", "tanh"], ["std", "false"]]);
  // the last option has no next; a value the options lack has no neighbours; a setting the view lacks is left out
  assert.deepEqual(neighbours(settings, { gamma: "auto (median)" }), [["gamma", "3"]]);
  assert.deepEqual(neighbours(settings, { gamma: "2", std: "false" }), [["std", "true"]]);
  assert.deepEqual(neighbours(settings, undefined), []);
});

test("a guess of a point scoring infinity is ranked and said, and only nan is not eligible", () => {
  // the Fisher criterion of a point that separates the classes with no scatter within
  // them is infinite (float32 inf in the payload): such a point can be chosen, and ranks first
  const row = Float32Array.from([0.5, Infinity, NaN, 0.25, Infinity]);
  const player = Object.assign({}, predict, { scores: [row], j: 0, guessNote: "", payload: { picks: [1], pick_max: true } });
  assert.deepEqual([0, 1, 2, 3, 4].map((point) => player.rankOf(point)), [3, 1, Infinity, 4, 1]);
  player.guess = 4;
  assert.equal(player.guessDetail(), " You took point 4: it scores ∞ (rank 1); the winner 1 scores ∞.");
  player.guess = 0;
  assert.equal(player.guessDetail(), " You took point 0: it scores 0.500 (rank 3); the winner 1 scores ∞.");
  player.guess = 2;
  assert.match(player.guessDetail(), /cannot be chosen/);
});
