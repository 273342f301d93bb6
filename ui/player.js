// The step player: every step of a study lives in the browser, so stepping never asks the
// server anything.  Python (ui/player.py) sends one JSON payload per study: a base Plotly
// figure per panel, and per step a small patch of what changes (trace arrays, titles, the
// step marker).  Going to step j applies patch j to each base figure and hands the result
// to Plotly, which redraws only what changed.
//
// Why a custom component and not one Plotly figure with animation frames: the panels are
// separate figures laid out to fit a projector at every text size, the URL's `step` must
// follow the step shown, the keys (and a presentation clicker) must work wherever the
// focus is, and pause must stop exactly on the step on screen; Plotly's own slider does
// none of those.
//
// The pure helpers (decoding, packing panels into screens, placing labels) are exported
// by name, so that the tests can load this file in a browser and check them alone.

const STATE = new WeakMap();
// The payload's version this player reads (ui/payload.schema.json, written by ui/player.py):
// a payload of another version (a demo saved by another release) gets a sentence.
export const PAYLOAD_VERSION = 1;

// --- loading (also the loader's: ui/player.py `_loader` puts this section in it) ----------

// plotly.js, loaded once per page (kept on the window: a second player finds it loading or loaded).
export function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__mplPlotly) {
    window.__mplPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => { window.__mplPlotly = null; reject(new Error("could not load " + url)); };
      document.head.appendChild(script);
    });
  }
  return window.__mplPlotly;
}

// A frame (ui/player.py `packed` and `reference`): the four characters `magic`, the length
// of the per-view JSON (4 bytes, big-endian), that JSON, then the rest (the study's
// gzip-compressed payload, or its name); null when `data` is not such a frame.
export function framed(data, magic) {
  if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) return null;
  const bytes = new Uint8Array(data.buffer || data, data.byteOffset || 0, data.byteLength);
  if (bytes.length <= 8 || ![...magic].every((c, i) => bytes[i] === c.charCodeAt(0))) return null;
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4);
  return { head: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + size))), rest: bytes.subarray(8 + size) };
}

// --- payload decoding -------------------------------------------------------------------

const DTYPES = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array,
  i4: Int32Array, u4: Uint32Array };

function bytesOf(b64) {
  const text = atob(b64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out.buffer;
}

function rows(flat, shape) {
  if (typeof shape === "string") shape = shape.split(",").map(Number);  // Plotly writes "200, 200"
  if (!shape || shape.length < 2) return flat;
  const [r, c] = shape;
  const out = new Array(r);
  for (let i = 0; i < r; i++) out[i] = flat.subarray(i * c, (i + 1) * c);
  return out;
}

// {dtype, bdata, shape} (Plotly's typed-array spec) and {q8, lo, hi, shape} (8-bit
// quantised heatmaps) become typed arrays once, at load.
export function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== "object") return value;
  if (typeof value.bdata === "string" && value.dtype in DTYPES) {
    return rows(new DTYPES[value.dtype](bytesOf(value.bdata)), value.shape);
  }
  if (typeof value.q8 === "string") {
    const codes = new Uint8Array(bytesOf(value.q8));
    const flat = new Float32Array(codes.length);
    const step = (value.hi - value.lo) / 254;
    for (let i = 0; i < codes.length; i++) flat[i] = codes[i] === 255 ? NaN : value.lo + codes[i] * step;
    return rows(flat, value.shape);
  }
  const out = {};
  for (const key of Object.keys(value)) out[key] = decode(value[key]);
  return out;
}

// A heatmap's step sent as a change (ui/player.py `as_changes`): the attribute's value in
// the last frame that had it plus u @ w (a deflation changes a kernel by rank one or two).
// Rebuilt once, at load, in order: every frame then holds its whole matrix, as before.
export function resolveChanges(frames, base) {
  const held = {};
  (base && base.data ? base.data : []).forEach((trace, i) => { if (Array.isArray(trace.z)) held[`${i}:z`] = trace.z; });
  for (const frame of frames) {
    if (!frame || !frame.data) continue;
    for (const trace of Object.keys(frame.data)) {
      const attrs = frame.data[trace];
      for (const name of Object.keys(attrs)) {
        const value = attrs[name];
        if (value && typeof value === "object" && value.change && held[`${trace}:${name}`]) {
          attrs[name] = plusProduct(held[`${trace}:${name}`], value.change.u, value.change.w);
        }
        held[`${trace}:${name}`] = attrs[name];
      }
    }
  }
  return frames;
}

// A criterion panel's trace at a step, sent as a reference (ui/player.py `ScoreRow`): row
// `score_row` of the payload's scores at the training points `columns[k]`.
export function withScoreRows(frame, scores, columns) {
  if (!frame || !frame.data || !scores) return frame;
  for (const attrs of Object.values(frame.data)) {
    for (const name of Object.keys(attrs)) {
      const value = attrs[name];
      if (value && typeof value === "object" && "score_row" in value) {
        const row = scores[value.score_row];
        attrs[name] = Float32Array.from(columns[value.columns], (i) => row[i]);
      }
    }
  }
  return frame;
}

function plusProduct(before, u, w) {  // before + u @ w, rows of float32
  const rank = w.length;
  return before.map((row, i) => {
    const out = new Float32Array(row.length);
    const ui = u[i];
    for (let k = 0; k < row.length; k++) {
      let value = row[k];
      for (let s = 0; s < rank; s++) value += ui[s] * w[s][k];
      out[k] = value;
    }
    return out;
  });
}

// --- text size and theme ----------------------------------------------------------------

// Every font size in a figure times `scale` (the text-size control), margins too.
export function scaleFonts(value, scale) {
  if (scale === 1 || value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) { value.forEach((item) => scaleFonts(item, scale)); return; }
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (/font$/i.test(key) && item && typeof item === "object" && typeof item.size === "number") {
      item.size = Math.round(item.size * scale);
    }
    if (key === "margin" && item && typeof item === "object") {
      for (const side of ["l", "r", "t", "b"]) if (typeof item[side] === "number") item[side] = Math.round(item[side] * scale);
    }
    scaleFonts(item, scale);
  }
}

// Relative luminance (WCAG 2.1) of "#rrggbb" or "rgb(a)(r, g, b...)"; null if unreadable.
export function luminance(colour) {
  let rgb = null;
  const text = String(colour || "").trim();
  const hex = /^#([0-9a-f]{6})$/i.exec(text);
  if (hex) rgb = [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16));
  const fn = /^rgba?\(([^)]+)\)/i.exec(text);
  if (fn) rgb = fn[1].split(",").slice(0, 3).map((part) => parseFloat(part));
  if (!rgb || rgb.some((v) => !Number.isFinite(v))) return null;
  const [r, g, b] = rgb.map((v) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// A copy of a figure with every neutral colour swapped for its dark-theme stand-in (the
// map comes from Python: ui/figures.py DARK_INK, one source for both sides).
export function recolour(value, ink) {
  if (typeof value === "string") {
    const swapped = ink[value.toLowerCase().replace(/ /g, "")];
    return swapped === undefined ? value : swapped;
  }
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((item) => recolour(item, ink));
  const out = {};
  for (const key of Object.keys(value)) out[key] = recolour(value[key], ink);
  return out;
}

function pageIsDark(root) {
  const styles = getComputedStyle(root);
  let background = styles.getPropertyValue("--st-background-color").trim();
  if (!background) {
    const app = document.querySelector(".stApp") || document.body;
    background = getComputedStyle(app).backgroundColor;
  }
  const value = luminance(background);
  return value !== null && value < 0.3;
}

// --- layout: panels packed into screens -------------------------------------------------

// The smallest panel worth drawing at text size 100%: at 1280 x 720 the presenter shows
// three columns and two rows (data, criterion, the bound two rows tall, the heatmaps two
// columns wide); larger text makes the least size grow with it, so fewer panels share a
// screen and the rest are a key (V) away.
export const MIN_PANEL = { width: 350, height: 230 };
export const GAP = 12;

// How many columns and rows of panels fit an area at a text scale.
export function capacity(width, height, scale) {
  const cols = Math.max(1, Math.floor((width + GAP) / (MIN_PANEL.width * scale + GAP)));
  const rows = height === Infinity ? Infinity : Math.max(1, Math.floor((height + GAP) / (MIN_PANEL.height * scale + GAP)));
  return { cols, rows };
}

function isFree(taken, row, col, w, h) {
  for (let r = row; r < row + h; r++) for (let c = col; c < col + w; c++) if (taken.has(r + ":" + c)) return false;
  return true;
}

// Panels in order (spans [columns, rows] each) packed into screens of `cols` x `rows`
// slots: each screen takes, in order, every remaining panel that still fits somewhere on
// it (first fit in reading order), so a wide panel that must wait for the next screen
// does not push the smaller ones after it there too.  `rows = Infinity`: one long screen
// (the scrolling layout), every panel one row tall.  Returns screens of
// {index, row, col, w, h}, each screen in the panels' order.
export function pack(spans, cols, rows) {
  const sizes = spans.map(([w0, h0]) => [Math.max(1, Math.min(w0 || 1, cols)),
    rows === Infinity ? 1 : Math.max(1, Math.min(h0 || 1, rows))]);
  const left = sizes.map((size, index) => index);
  const screens = [];
  while (left.length) {
    const screen = [];
    const taken = new Set();
    const place = (w, h) => {
      const lastRow = rows === Infinity ? screen.reduce((top, item) => Math.max(top, item.row + item.h), 0) + 1 : rows;
      for (let row = 0; row + h <= lastRow; row++) {
        for (let col = 0; col + w <= cols; col++) if (isFree(taken, row, col, w, h)) return { row, col };
      }
      return null;
    };
    for (let k = 0; k < left.length; k++) {
      const index = left[k];
      const [w, h] = sizes[index];
      const spot = place(w, h);
      if (!spot) continue;
      for (let r = spot.row; r < spot.row + h; r++) for (let c = spot.col; c < spot.col + w; c++) taken.add(r + ":" + c);
      screen.push({ index, row: spot.row, col: spot.col, w, h });
      left.splice(k, 1);
      k -= 1;
    }
    screens.push(screen);
  }
  return screens;
}

// --- labels placed where nothing else is ----------------------------------------------

let measureCanvas = null;
export function textWidth(text, size) {
  measureCanvas = measureCanvas || document.createElement("canvas");
  const context = measureCanvas.getContext("2d");
  context.font = size + 'px "Open Sans", verdana, arial, sans-serif';
  return context.measureText(String(text)).width;
}

// Words in lines no wider than `room` px at `size` px (a word longer than that stays whole).
export function wrapText(text, size, room) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(" ")) {
    const next = line ? line + " " + word : word;
    if (line && textWidth(next, size) > room) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

function overlaps(a, b, pad = 1) {
  return a.x < b.x + b.w + pad && b.x < a.x + a.w + pad && a.y < b.y + b.h + pad && b.y < a.y + a.h + pad;
}

function segmentHitsBox(x1, y1, x2, y2, box) {
  // Liang-Barsky clipping: does the segment pass through the box?
  const dx = x2 - x1, dy = y2 - y1;
  let t0 = 0, t1 = 1;
  const edges = [[-dx, x1 - box.x], [dx, box.x + box.w - x1], [-dy, y1 - box.y], [dy, box.y + box.h - y1]];
  for (const [p, q] of edges) {
    if (p === 0) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return true;
}

function crossings(box, lines) {
  let count = 0;
  for (const line of lines) {
    for (let i = 1; i < line.length; i++) {
      const [x1, y1] = line[i - 1], [x2, y2] = line[i];
      if (segmentHitsBox(x1, y1, x2, y2, box)) count += 1;
    }
  }
  return count;
}

// Reference labels (each with candidate boxes, best first) go where no line crosses them
// and no other label is; tip labels sit just right of their line's last point (left of
// it near the right edge) and are pushed apart vertically.  All in pixels of the plot
// area `area` {x, y, w, h}; `lines`: polylines [[x, y], ...]; `fixed`: boxes to avoid.
export function placeLabels(refs, tips, lines, area, fixed = []) {
  const placed = fixed.slice();
  const inside = (box) => box.x >= area.x - 1 && box.y >= area.y - 1 && box.x + box.w <= area.x + area.w + 1 &&
    box.y + box.h <= area.y + area.h + 1;
  const refBoxes = refs.map((ref) => {
    let best = null, bestCost = Infinity;
    for (const box of ref.candidates) {  // over a curve if it must, over another label never
      const cost = (inside(box) ? 0 : 1000) + 10 * crossings(box, lines) + placed.filter((other) => overlaps(box, other)).length * 100000;
      if (cost < bestCost) { best = box; bestCost = cost; }
      if (cost === 0) break;
    }
    if (!best || !inside(best)) return null;  // no room on a small chart: the line stays, unnamed
    placed.push(best);
    return best;
  });
  // Each label beside its line's end: to the right when there is room, else to the left,
  // level with the end or just above or below it -- wherever fewest curves cross it.
  const tipBoxes = tips.map((tip) => {
    const right = tip.x + 8 + tip.w <= area.x + area.w;
    const x = Math.max(area.x, right ? tip.x + 8 : tip.x - 8 - tip.w);
    const levels = right ? [0] : [0, -tip.h / 2 - 4, tip.h / 2 + 4, -1.5 * tip.h - 4, 1.5 * tip.h + 4, -2.5 * tip.h - 4];
    let best = null, bestCost = Infinity;
    for (const shift of levels) {
      const box = { x, y: tip.y - tip.h / 2 + shift, w: tip.w, h: tip.h };
      const cost = crossings(box, lines) + (inside(box) ? 0 : 1000);
      if (cost < bestCost) { best = box; bestCost = cost; }
    }
    return Object.assign(best, { anchor: best.y + tip.h / 2 });
  });
  // One column of labels, in the order of their lines' ends (a label above another names
  // the line that ends above: sorted by where each box was shifted to, a shift to dodge a
  // crossing could swap two neighbours and name each other's line): from the top down,
  // each at its line's height or just below the one above it, stepping over the reference
  // labels; then, if the last one left the plot, from the bottom up.
  const order = tipBoxes.map((box, i) => i).sort((a, b) => tips[a].y - tips[b].y || a - b);
  const clear = (box, down) => {
    for (let guard = 0; guard < placed.length + 1; guard++) {
      const hit = placed.find((other) => overlaps(box, other, 0));
      if (!hit) return;
      box.y = down ? hit.y + hit.h + 1 : hit.y - box.h - 1;
    }
  };
  let cursor = area.y;
  for (const index of order) {
    const box = tipBoxes[index];
    box.y = Math.max(box.y, cursor);
    clear(box, true);
    cursor = box.y + box.h + 1;
  }
  let limit = area.y + area.h;
  for (let k = order.length - 1; k >= 0; k--) {
    const box = tipBoxes[order[k]];
    if (box.y + box.h <= limit) break;
    box.y = limit - box.h;
    clear(box, false);
    limit = box.y - 1;
  }
  // a label that still leaves the plot or lies on another is not drawn (its line keeps
  // its colour and its hover): never an overprint
  const kept = placed.slice();
  tipBoxes.forEach((box, i) => {
    if (!inside(box) || kept.some((other) => overlaps(box, other, 0))) { tipBoxes[i] = null; return; }
    kept.push(box);
  });
  return { refs: refBoxes, tips: tipBoxes };
}

// --- patches --------------------------------------------------------------------------

// Copy-on-write set of a dotted path ("marker.color"): the base figure is never changed.
function setPath(target, path, value) {
  const parts = path.split(".");
  const root = Array.isArray(target) ? target.slice() : Object.assign({}, target);
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const child = node[parts[i]];
    node[parts[i]] = Array.isArray(child) ? child.slice() : Object.assign({}, child || {});
    node = node[parts[i]];
  }
  node[parts[parts.length - 1]] = value;
  return root;
}

function patched(base, patch) {
  let out = base;
  for (const path of Object.keys(patch || {})) out = setPath(out, path, patch[path]);
  return out;
}

function slice(values, n) {
  if (!values) return values;
  return ArrayBuffer.isView(values) ? values.subarray(0, n) : values.slice(0, n);
}

// --- DOM helpers --------------------------------------------------------------------------

const SPEEDS = [0.5, 1, 2, 4];
const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children || []) node.appendChild(child);
  return node;
}

// Story text is plain text; **bold** spans become <strong> through textContent, never HTML.
function storyNodes(text) {
  const parts = String(text).split("**");
  return parts.map((part, i) => (i % 2 ? el("strong", { text: part }) : document.createTextNode(part)));
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

const DASHES = { solid: "", dash: "5 3", dot: "1.5 2.5", dashdot: "5 2 1.5 2", longdash: "8 3" };

// A key item's swatch: the marker or line it stands for, 1.2em wide.
function swatch(item, ink) {
  const box = svg("svg", { viewBox: "0 0 24 16", width: "1.5em", height: "1em", "aria-hidden": "true", class: "mpl-swatch" });
  const colour = ink(item.colour || "#777777");
  if (item.kind === "line") {
    box.appendChild(svg("line", { x1: 1, y1: 8, x2: 23, y2: 8, stroke: colour, "stroke-width": 3, "stroke-dasharray": DASHES[item.dash] || "" }));
  } else if (item.kind === "gradient") {
    const id = "g" + Math.random().toString(36).slice(2);
    const gradient = svg("linearGradient", { id, x1: 0, x2: 1, y1: 0, y2: 0 });
    item.colours.forEach((stop, i) => gradient.appendChild(svg("stop", { offset: i / (item.colours.length - 1), "stop-color": ink(stop) })));
    const defs = svg("defs", {});
    defs.appendChild(gradient);
    box.setAttribute("viewBox", "0 0 48 16");
    box.setAttribute("width", "3em");
    box.append(defs, svg("rect", { x: 0, y: 3, width: 48, height: 10, fill: "url(#" + id + ")", stroke: ink("#888888") }));
  } else {
    const symbol = String(item.symbol || "circle");
    const open = symbol.endsWith("-open");
    const edge = ink(item.edge || colour);
    const paint = open ? { fill: "none", stroke: colour, "stroke-width": 2.2 } : { fill: colour, stroke: edge, "stroke-width": item.edge ? 1.5 : 0 };
    let shape;
    if (symbol.startsWith("diamond")) shape = svg("polygon", Object.assign({ points: "12,2 18,8 12,14 6,8" }, paint));
    else if (symbol.startsWith("star")) shape = svg("polygon", Object.assign({ points: "12,1 14,6 19.5,6.2 15.2,9.6 16.8,15 12,11.8 7.2,15 8.8,9.6 4.5,6.2 10,6" }, paint));
    else if (symbol.startsWith("square")) shape = svg("rect", Object.assign({ x: 6, y: 2, width: 12, height: 12 }, paint));
    else if (symbol.startsWith("triangle")) shape = svg("polygon", Object.assign({ points: "12,14 18,3 6,3" }, paint));
    else if (symbol.startsWith("x")) shape = svg("path", { d: "M6 2 L18 14 M18 2 L6 14", stroke: colour, "stroke-width": 3, fill: "none" });
    else shape = svg("circle", Object.assign({ cx: 12, cy: 8, r: open ? 5.5 : 5 }, paint));
    box.appendChild(shape);
  }
  return box;
}

// A five-pointed star of outer radius r around (0, 0), as an SVG path (the next pick).
function starPath(r) {
  const points = [];
  for (let k = 0; k < 10; k++) {
    const angle = Math.PI / 2 + (k * Math.PI) / 5, length = k % 2 ? r * 0.45 : r;
    points.push((length * Math.cos(angle)).toFixed(2) + "," + (length * Math.sin(angle)).toFixed(2));
  }
  return "M" + points.join(" L") + " Z";
}

function isTyping(target) {
  if (!target || !target.tagName) return false;
  const tag = target.tagName.toLowerCase();
  if (target.isContentEditable || tag === "textarea" || tag === "select") return true;
  if (tag !== "input") return false;
  if (target.getAttribute("role") === "combobox") return target.getAttribute("aria-expanded") === "true";
  return ["text", "number", "search", "email", "url", "tel", "password"].includes((target.type || "text").toLowerCase());
}

function scrollParent(node) {
  for (let parent = node.parentElement; parent; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && parent.clientHeight > 0) return parent;
  }
  return document.scrollingElement || document.documentElement;
}

const REDUCED_MOTION = typeof window !== "undefined" && window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");
const PRESENT_ORDER = "abdecfghij";
const KEYS_HELP = [
  ["→  PageDown", "next step (a presentation clicker's forward button)"],
  ["←  PageUp", "step back"],
  ["Space", "play / pause"],
  ["Home  End", "first / last step"],
  ["W", "whole curves / curves up to this step"],
  ["V", "the next screen of panels (when they do not all fit)"],
  ["1 – 9", "one panel alone, large (again or Esc: back)"],
  ["B  or  .", "blank the screen (any key: back)"],
  ["?", "this list"],
];

// A remembered choice; storage refused (a sandboxed iframe, some file:// pages) only forgets.
function stored(name, value) {
  try {
    if (value === undefined) return window.localStorage.getItem(name);
    window.localStorage.setItem(name, value);
  } catch (error) { /* not remembered */ }
  return null;
}

class Player {
  // options (the standalone page's, ui/export.py): onStep(j) keeps the step somewhere else
  // than the URL's query; onPastEnd(+1 / -1) is called by a forward key on the last step
  // or a backward key on step 0 (the next or previous scene of a lesson).
  constructor(root, payload, options) {
    this.root = root;
    this.options = options || {};
    this.inflight = new Set();
    this.setData(payload);
    this.j = Math.max(0, Math.min(payload.step || 0, this.n));
    this.playing = false;
    this.timer = null;
    this.speed = 1;
    this.guesses = { right: 0, total: 0 };
    this.guess = null;
    this.guessNote = "";
    this.predict = false;
    this.screen = 0;
    this.zoom = null;
    this.whole = this.hasReveal && stored("mpl-whole") === "1";
    this.dark = pageIsDark(root);
    this.build();
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.scroller = scrollParent(root);
    this.resizing = null;
    const relayout = () => {
      if (this.resizing) return;
      this.resizing = requestAnimationFrame(() => { this.resizing = null; this.layout(); });
    };
    this.observer = new ResizeObserver(relayout);
    // A scrolling section (Streamlit's) is observed; the page itself is not -- its height
    // is the content's, which the first draw changes (a needless second draw): the window's
    // resize event covers it.
    if (this.scroller !== document.scrollingElement && this.scroller !== document.documentElement) this.observer.observe(this.scroller);
    this.observer.observe(this.top);
    this.onResize = relayout;
    window.addEventListener("resize", this.onResize);
    // the theme can change under us (the app's settings menu, the system): check now and then
    this.themeWatch = setInterval(() => this.checkTheme(), 1000);
    this.ready = loadPlotly(payload.plotly_url).then((Plotly) => {
      this.Plotly = Plotly;
      this.layout();
    }).catch((error) => { this.story.textContent = "The charts could not load: " + error.message; });
    this.takeFocus();
  }

  setData(payload) {
    this.payload = payload;
    this.id = payload.id;
    this.n = payload.n_steps;
    this.scale = payload.text_scale || 1;
    // The charts' text grows with the text size; the toolbar, story and keys grow half as
    // much (18 px at 150%), so that at 150% they still leave a 1280 x 720 screen room for charts.
    this.chrome = 1 + (this.scale - 1) / 2;
    this.ink = {};
    for (const [key, value] of Object.entries(payload.ink || {})) this.ink[key.toLowerCase().replace(/ /g, "")] = value;
    this.hasReveal = false;
    this.scores = payload.scores ? decode(payload.scores) : null;
    this.coords = payload.coords ? decode(payload.coords) : null;
    for (const panel of payload.panels) {
      panel.figure = panel.figure ? decode(panel.figure) : null;
      const columns = panel.columns ? panel.columns.map(decode) : [];
      panel.frames = resolveChanges((panel.frames || []).map(decode).map((frame) => withScoreRows(frame, this.scores, columns)), panel.figure);
      if (panel.rings) panel.rings = decode(panel.rings);
      if (panel.figure) {
        scaleFonts(panel.figure, this.scale);
        panel.frames.forEach((frame) => scaleFonts(frame, this.scale));
        panel.figure.data.forEach((trace) => { if (trace.meta && trace.meta.reveal) this.hasReveal = true; });
        panel.light = panel.figure;
      }
    }
  }

  inkOf(colour) { return this.dark ? (this.ink[String(colour).toLowerCase().replace(/ /g, "")] || colour) : colour; }

  // The figure of a panel in the theme on screen (the dark copy is made once).
  base(panel) {
    if (!this.dark) return panel.light;
    if (!panel.dark) panel.dark = recolour(panel.light, this.ink);
    return panel.dark;
  }

  checkTheme() {
    const dark = pageIsDark(this.root);
    if (dark === this.dark) return;
    this.dark = dark;
    this.host.classList.toggle("mpl-dark", dark);
    this.renderShared();
    for (const cell of this.cells) { this.renderKey(cell); cell.mode = "full"; }
    this.render(true);
  }

  build() {
    const p = this.payload;
    // Our own child: the parent also holds the component's <style>, which must stay.
    let host = this.root.querySelector(":scope > .mpl-host");
    if (!host) { host = el("div", { class: "mpl-host" }); this.root.appendChild(host); }
    host.replaceChildren();
    host.setAttribute("tabindex", "-1");  // takes the focus back from a control, so the keys step
    host.classList.toggle("mpl-dark", this.dark);
    this.host = host;
    const bar = el("div", { class: "mpl-bar", role: "toolbar", "aria-label": "Step controls" });
    const button = (label, name, title, action, cls) => el("button", { class: "mpl-btn " + (cls || ""), title, type: "button",
      text: label, "aria-label": name, onclick: (event) => { action(); this.afterClick(event); } });
    const short = p.present;  // presenter mode: the toolbar on one line at 1280 px
    this.buttons = {
      reset: button(short ? "|◀" : "|◀ Reset", "Reset to step 0", "Back to step 0 (Home)", () => { this.pause(); this.go(0, "reset"); }),
      back: button(short ? "◀" : "◀ Back", "Back one step", "One step back (left arrow, PageUp)", () => this.forward(-1)),
      play: button("▶ Play", "Play", "Play or pause (space)", () => this.toggle(), "mpl-primary"),
      next: button(short ? "▶" : "Next ▶", "Next step", "One step forward (right arrow, PageDown)", () => this.forward(1)),
    };
    this.slider = el("input", { type: "range", min: "0", max: String(this.n), step: "1", value: String(this.j),
      class: "mpl-slider", "aria-label": "Step", title: p.slider_help || "Step j: the state after j greedy choices" });
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value), "slider"));
    this.label = el("span", { class: "mpl-label", "aria-hidden": "true" });
    this.status = el("span", { class: "mpl-sr", role: "status", "aria-live": "polite" });
    this.speedSelect = el("select", { class: "mpl-select", "aria-label": "Play speed", title: "Play speed: steps per second" },
      SPEEDS.map((s) => el("option", { value: String(s), text: s + "×" })));
    this.speedSelect.value = "1";
    // After a choice the focus leaves the control, so the arrow keys and space step again.
    this.speedSelect.addEventListener("change", () => { this.speed = Number(this.speedSelect.value); this.takeFocus(true); });
    bar.append(this.buttons.reset, this.buttons.back, this.buttons.play, this.buttons.next, this.slider, this.label, this.status,
      this.speedSelect);
    for (const mark of p.marks || []) {
      bar.append(button(short ? mark.short || mark.label : mark.label, mark.label, mark.help || "",
        () => { this.pause(); this.go(mark.step, "mark"); }, "mpl-mark"));
    }
    const toggle = (label, shortLabel, title, checked, change) => {
      const box = el("input", { type: "checkbox", class: "mpl-check", title });
      box.checked = checked;
      box.addEventListener("change", () => { change(box.checked); this.takeFocus(true); });
      bar.append(el("label", { class: "mpl-toggle", title }, [box, document.createTextNode(" " + (short ? shortLabel : label))]));
      return box;
    };
    if (p.predict) {
      this.predictBox = toggle("Predict the next pick", "Predict", "Predict the next pick: click the point you expect the criterion to choose",
        false, (on) => { this.predict = on; this.guess = null; this.guessNote = ""; this.render(true); });
    }
    if (this.hasReveal) {
      this.wholeBox = toggle("Whole curves", "Whole", "Draw the curves to the end (W); off: up to the step shown, as the algorithm sees them",
        this.whole, (on) => this.setWhole(on));
    }
    if (!(REDUCED_MOTION && REDUCED_MOTION.matches)) {
      this.animateBox = toggle("Animate", "Animate", "Slide the points between steps", false, () => {});
    }
    this.screenButton = button("", "Next screen of panels", "Show the next screen of panels (V)", () => this.nextScreen(), "mpl-screens");
    this.keysButton = button(short ? "?" : "Keys", "Keyboard and clicker keys", "The keys a keyboard or a presentation clicker can use (?)", () => this.help(), "mpl-keys");
    bar.append(this.screenButton, this.keysButton);
    this.lesson = el("div", { class: "mpl-lesson" });
    this.setLesson(p.lesson);
    this.story = el("div", { class: "mpl-story" });
    this.quiz = el("div", { class: "mpl-quiz", "aria-live": "polite" });
    // A key item two panels share (the classes, test points, chosen, next pick) is said
    // once, above the grid; each panel's own key keeps what only it draws.
    const itemKey = (item) => item.kind + "|" + item.symbol + "|" + item.colour + "|" + item.text;
    const counts = new Map();
    for (const panel of p.panels) for (const item of new Map((panel.key_items || []).map((i) => [itemKey(i), i])).values()) counts.set(itemKey(item), (counts.get(itemKey(item)) || 0) + 1);
    this.sharedItems = [];
    for (const panel of p.panels) for (const item of panel.key_items || []) {
      if (counts.get(itemKey(item)) > 1 && !this.sharedItems.some((other) => itemKey(other) === itemKey(item))) this.sharedItems.push(item);
    }
    for (const panel of p.panels) panel.own_items = (panel.key_items || []).filter((item) => counts.get(itemKey(item)) < 2);
    this.sharedKey = el("div", { class: "mpl-key mpl-shared-key", "aria-label": "Key" });
    this.grid = el("div", { class: "mpl-grid" + (p.present ? " mpl-present" : "") });
    this.cells = p.panels.map((panel, index) => {
      const title = el("div", { class: "mpl-title" });
      const keyLine = el("div", { class: "mpl-key" });
      const plot = el("div", { class: "mpl-plot", "data-panel": panel.key, role: "figure", "aria-label": panel.caption || panel.title || panel.key });
      const head = el("div", { class: "mpl-head" }, [title, keyLine]);
      const parts = [head];
      if (panel.subtitle) parts.push(el("div", { class: "mpl-subtitle", text: panel.subtitle }));
      parts.push(plot);
      const area = p.present ? panel.present_area : panel.area;
      const cell = el("div", { class: "mpl-cell", "data-panel": panel.key, "data-extra": area ? "0" : "1" }, parts);
      if (panel.caption) cell.append(el("div", { class: "mpl-caption", text: panel.caption }));
      title.addEventListener("dblclick", () => this.enlarge(index));
      this.grid.append(cell);
      const record = { panel, index, title, head, keyLine, plot, cell, drawn: false, height: 0 };
      this.renderKey(record);
      return record;
    });
    this.top = el("div", { class: "mpl-top" + (p.present ? " mpl-pinned" : "") }, [bar, this.lesson, this.story, this.quiz]);
    this.renderShared();
    this.blanker = el("div", { class: "mpl-blank", role: "presentation", title: "Blank screen: press any key" });
    this.blanker.addEventListener("click", () => this.blank(false));
    this.helpBox = el("div", { class: "mpl-help", role: "dialog", "aria-label": "Keys" }, [
      el("table", {}, KEYS_HELP.map(([keys, what]) => el("tr", {}, [el("th", { text: keys }), el("td", { text: what })])))]);
    this.helpBox.addEventListener("click", () => this.help(false));
    host.append(el("div", { class: "mpl-player", style: "--mpl-scale:" + this.chrome }, [this.top, this.sharedKey, this.grid, this.blanker, this.helpBox]));
  }

  renderShared() {
    this.sharedKey.style.display = this.sharedItems.length ? "" : "none";
    this.sharedKey.replaceChildren(...this.sharedItems.map((item) => el("span", { class: "mpl-key-item" },
      [swatch(item, (c) => this.inkOf(c)), document.createTextNode(item.text)])));
  }

  // The lesson line: the preset the view is on, its name and what it shows (plain text);
  // or a guided lesson's scene (ui/guide.py): progress, narration, question, notes.
  setLesson(lesson) {
    const key = lesson ? JSON.stringify(lesson) : "";
    if (key === this.lessonKey) return;
    this.lessonKey = key;
    const wasGuided = Boolean(this.guide);
    const panelBefore = this.guide ? this.guide.panel : null;
    this.guide = lesson && lesson.guide ? lesson.guide : null;
    if ((this.guide ? this.guide.panel : null) !== panelBefore && this.Plotly && this.payload.present) {
      this.screen = 0;
      requestAnimationFrame(() => { if (!this.destroyed) this.layout(); });  // the named panel first
    }
    this.lesson.classList.toggle("mpl-guided", Boolean(this.guide));
    if (wasGuided && !this.guide) this.setPredict(false);  // a next-pick scene's predict mode ends with the lesson
    if (this.guide) {
      this.lesson.replaceChildren(...this.guideParts(lesson));
      this.lesson.style.display = "";
      this.setPredict(Boolean(this.guide.question && this.guide.question.kind === "next-pick"));
    } else if (lesson && lesson.name) {
      this.lesson.replaceChildren(el("strong", { text: lesson.name + ". " }), document.createTextNode(lesson.text || ""));
      this.lesson.style.display = "";
    } else {
      this.lesson.replaceChildren();
      this.lesson.style.display = "none";
    }
  }

  // A scene of a guided lesson: "Lesson · Scene 3 of 9" with a progress bar and the way to
  // the next and previous scene, the scene's title and narration, a "try it yourself"
  // prompt, a question answered by a click (the answer and the running score shown then),
  // and the speaker notes with the scene's checked claims, folded.  All plain text.
  guideParts(lesson) {
    const g = this.guide;
    const afterClick = (event) => this.afterClick(event);
    const sceneButton = (label, name, direction, disabled) => el("button", {
      class: "mpl-btn mpl-scene-btn", type: "button", text: label, "aria-label": name, title: name + " (PageDown / PageUp past the scene's steps)",
      disabled: disabled ? "disabled" : null,
      onclick: (event) => { if (this.options.onPastEnd) this.options.onPastEnd(direction); afterClick(event); } });
    const bar = el("div", { class: "mpl-progress", role: "progressbar", "aria-label": "Scene " + g.scene + " of " + g.scenes,
      "aria-valuemin": "1", "aria-valuemax": String(g.scenes), "aria-valuenow": String(g.scene) },
      [el("div", { class: "mpl-progress-fill", style: "width:" + (100 * g.scene / g.scenes).toFixed(1) + "%" })]);
    // Speaker notes and the scene's checked claims: folded behind a button on the head's
    // line, so that on a projector they take no room until the lecturer opens them.
    let notes = null;
    let notesButton = null;
    if (g.notes || (g.claims && g.claims.length)) {
      notes = el("div", { class: "mpl-guide-notes", hidden: "hidden" });
      if (g.notes) notes.append(el("div", { text: g.notes }));
      for (const [claim, holds] of g.claims || []) notes.append(el("div", { class: "mpl-claim", text: (holds ? "✓ " : "✗ ") + claim + (holds ? "" : " — does not hold on these settings") }));
      notesButton = el("button", { class: "mpl-btn mpl-notes-btn", type: "button", text: "Notes", "aria-expanded": "false",
        "aria-label": "Speaker notes", title: "Speaker notes and the scene's checked claims",
        onclick: (event) => {
          notes.hidden = !notes.hidden;
          notesButton.setAttribute("aria-expanded", String(!notes.hidden));  // (the top's new height relays the panels out)
          afterClick(event);
        } });
    }
    const where = el("div", { class: "mpl-guide-head" }, [
      sceneButton("◀ Scene", "Previous scene", -1, g.scene <= 1),
      el("span", { class: "mpl-guide-where", text: g.lesson + " · Scene " + g.scene + " of " + g.scenes }),
      bar,
      ...(notesButton ? [notesButton] : []),
      sceneButton(g.scene >= g.scenes ? "End" : "Scene ▶", "Next scene", 1, g.scene >= g.scenes),
    ]);
    const parts = [where];
    if (notes) parts.push(notes);
    const text = el("div", { class: "mpl-guide-text" }, [el("strong", { text: lesson.name + ". " }), document.createTextNode(lesson.text || "")]);
    if (g.try) text.append(" ", el("span", { class: "mpl-guide-try" }, [el("strong", { text: "Try it yourself: " }), document.createTextNode(g.try + " (the sidebar's controls are yours for this scene)")]));
    parts.push(text);
    if (g.question && g.question.kind === "choice") parts.push(this.questionBox(g));
    else if (g.question) parts.push(el("div", { class: "mpl-guide-question" }, [el("strong", { text: "Predict: " }), document.createTextNode(g.question.ask)]));
    return parts;
  }

  // A multiple-choice question: the first click answers it (kept for the lesson's score in
  // this tab's session storage), then the right choice and the explanation show.
  questionBox(g) {
    const q = g.question;
    const store = "mpl-lesson-score:" + g.id;
    let scores = {};
    try { scores = JSON.parse(sessionStorage.getItem(store) || "{}"); } catch (error) { scores = {}; }
    const box = el("div", { class: "mpl-guide-question", role: "group", "aria-label": "Question" });
    const draw = () => {
      const chosen = scores[g.scene];
      const right = Object.values(scores).filter((value) => value.right).length;
      const total = Object.keys(scores).length;
      const row = el("div", { class: "mpl-choices" }, [el("span", { class: "mpl-guide-ask" }, [el("strong", { text: "Question: " }), document.createTextNode(q.ask)])]);
      box.replaceChildren(row);
      q.choices.forEach((choice, index) => {
        const mark = chosen ? (index + 1 === q.answer ? "✓ " : (index + 1 === chosen.choice ? "✗ " : "")) : "";
        row.append(el("button", { class: "mpl-btn mpl-choice" + (chosen && index + 1 === q.answer ? " mpl-right" : ""), type: "button",
          text: mark + String.fromCharCode(65 + index) + ". " + choice, "aria-pressed": chosen && chosen.choice === index + 1 ? "true" : "false",
          onclick: (event) => {
            if (!scores[g.scene]) {
              scores[g.scene] = { choice: index + 1, right: index + 1 === q.answer };
              try { sessionStorage.setItem(store, JSON.stringify(scores)); } catch (error) { /* not kept */ }
              draw();
            }
            this.afterClick(event);
          } }));
      });
      if (chosen) {
        box.append(el("div", { class: "mpl-guide-answer", "aria-live": "polite",
          text: (chosen.right ? "Right. " : "Not quite: the answer is " + String.fromCharCode(64 + q.answer) + ". ") + (q.explain || "") +
            " Score so far: " + right + " of " + total + "." }));
      }
    };
    draw();
    return box;
  }

  setPredict(on) {
    if (!this.predictBox || this.predict === on) return;
    this.predictBox.checked = on;
    this.predict = on;
    this.guess = null;
    this.guessNote = "";
    if (this.cells) this.render(true);  // (not while the player is being built)
  }

  renderKey(cell) {
    const panel = cell.panel;
    const items = panel.own_items || [];
    if (!items.length) { cell.keyLine.style.display = "none"; return; }
    cell.keyLine.replaceChildren(...items.map((item) => el("span", { class: "mpl-key-item" },
      [swatch(item, (c) => this.inkOf(c)), document.createTextNode(item.text)])));
  }

  // After a mouse click on a control the focus goes back to the player, so that the
  // keys and a clicker keep stepping; a keyboard user keeps the focus where it is.
  afterClick(event) { if (event && event.detail > 0) this.takeFocus(true); }

  takeFocus(force) {
    const active = document.activeElement;
    if (!force && active && active !== document.body && isTyping(active)) return;
    if (active && active !== this.host && active.blur && (force || !this.host.contains(active))) active.blur();
    if (this.host && this.root.isConnected) this.host.focus({ preventScroll: true });
  }

  // --- layout ---------------------------------------------------------------------------

  visibleCells() {
    const p = this.payload;
    if (!p.present) return this.cells.slice();
    // a lesson's scene may name the panel its narration discusses: first, where there is room (layout)
    const named = this.guide && this.guide.panel ? this.guide.panel : null;
    const ranked = this.cells.filter((cell) => cell.panel.present_area || cell.panel.key === named);
    const rank = (cell) => {
      if (cell.panel.key === named && this.roomy) return -1;
      const at = PRESENT_ORDER.indexOf(cell.panel.present_area);
      return at < 0 ? 99 : at;
    };
    return ranked.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
  }

  // Where the grid starts inside the scrolling container's content (not the window's:
  // Streamlit scrolls its main section), and how much of one screen is left below it.
  area() {
    const box = this.grid.getBoundingClientRect();
    const scroller = this.scroller;
    const isPage = scroller === document.scrollingElement || scroller === document.documentElement;
    const frame = isPage ? { top: 0 } : scroller.getBoundingClientRect();
    const top = box.top - frame.top + (isPage ? window.scrollY : scroller.scrollTop);
    const height = (isPage ? window.innerHeight : scroller.clientHeight) - top - 10;
    return { width: this.grid.clientWidth || box.width, height, top };
  }

  layout() {
    if (!this.Plotly) return;
    const p = this.payload;
    this.renderText();  // the grid's top depends on the story's height
    const area = this.area();
    // a scene's named panel goes first only where a screen has room for a readable row (at
    // 1280x720 and 150% the narration leaves a sliver; the screen button then says where it is)
    this.roomy = !p.present || area.height >= MIN_PANEL.height * this.scale;
    const shown = this.visibleCells();
    const scale = this.scale;
    const present = p.present;
    const room = { width: area.width, height: present ? Math.max(area.height, 120) : Infinity };
    const { cols, rows } = capacity(room.width, room.height, scale);
    let screens;
    if (this.zoom !== null && shown.includes(this.cells[this.zoom])) {
      screens = [[{ index: shown.indexOf(this.cells[this.zoom]), row: 0, col: 0, w: 1, h: 1 }]];
    } else {
      this.zoom = null;
      const spans = shown.map((cell) => (present ? cell.panel.span : [cell.panel.span[0], 1]));
      screens = pack(spans, present ? cols : Math.min(cols, 2), present ? rows : Infinity);
    }
    this.screens = screens;
    this.screen = Math.min(this.screen, screens.length - 1);
    const items = screens[this.screen] || [];
    const colsUsed = Math.max(1, ...items.map((item) => item.col + item.w));
    const rowsUsed = Math.max(1, ...items.map((item) => item.row + item.h));
    const rowHeight = present || this.zoom !== null
      ? Math.floor(((this.zoom !== null && !present ? Math.max(area.height, 480 * scale) : room.height) - GAP * (rowsUsed - 1)) / rowsUsed)
      : null;
    this.grid.style.gridTemplateColumns = "repeat(" + colsUsed + ", minmax(0, 1fr))";
    this.grid.style.gridTemplateRows = rowHeight ? "repeat(" + rowsUsed + ", " + rowHeight + "px)" : "";
    const onScreen = new Map(items.map((item) => [shown[item.index], item]));
    for (const cell of this.cells) {
      const item = onScreen.get(cell);
      if (!item) { cell.cell.style.display = "none"; cell.height = 0; continue; }
      cell.cell.style.display = "";
      cell.cell.style.gridColumn = (item.col + 1) + " / span " + item.w;
      cell.cell.style.gridRow = (item.row + 1) + " / span " + item.h;
      let height = (cell.panel.height || 420) * scale;
      if (rowHeight) {
        const chrome = [cell.head, cell.cell.querySelector(".mpl-subtitle")]
          .reduce((sum, node) => sum + (node && node.style.display !== "none" ? node.getBoundingClientRect().height : 0), 0);
        height = rowHeight * item.h + GAP * (item.h - 1) - chrome - 4;
      }
      cell.height = Math.max(120, Math.floor(height));
      cell.plot.style.height = cell.height + "px";
    }
    const many = screens.length > 1 || this.zoom !== null;
    this.screenButton.style.display = many ? "" : "none";
    this.screenButton.textContent = this.zoom !== null ? "All panels" : (this.payload.present ? "" : "Panels ") + (this.screen + 1) + "/" + screens.length + " ▸";
    const named = this.guide && this.guide.panel ? shown.findIndex((cell) => cell.panel.key === this.guide.panel) : -1;
    const at = named < 0 ? -1 : screens.findIndex((screen) => screen.some((item) => item.index === named));
    if (this.zoom === null && at >= 0 && at !== this.screen) this.screenButton.textContent += " · discussed: " + (at + 1);
    this.render(true);
  }

  nextScreen() {
    if (this.zoom !== null) { this.zoom = null; this.layout(); return; }
    if (!this.screens || this.screens.length < 2) return;
    this.screen = (this.screen + 1) % this.screens.length;
    this.layout();
  }

  enlarge(index) {
    this.zoom = this.zoom === index || index === null ? null : index;
    this.layout();
  }

  setWhole(on) {
    this.whole = on;
    if (this.wholeBox) this.wholeBox.checked = on;
    stored("mpl-whole", on ? "1" : "0");
    for (const cell of this.cells) cell.mode = "full";
    this.render(true);
  }

  // --- drawing ----------------------------------------------------------------------------

  // How many points of a revealed line are drawn at step j (its x are steps 1..k).
  revealCount(trace, j) {
    if (this.whole || j >= this.n) return null;
    const x = trace.x || [];
    let count = 0;
    while (count < x.length && x[count] <= j) count += 1;
    return count;
  }

  // The traces of a panel as they are at step j: the frame's patch, lines cut at step j
  // (unless whole curves are on), each "lowest point" marker moved to the lowest point drawn.
  traces(cell, j) {
    const panel = cell.panel;
    const base = this.base(panel);
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const data = base.data.map((trace, i) => (frame.data && frame.data[i] ? patched(trace, frame.data[i]) : trace));
    if (!this.hasReveal) return data;
    data.forEach((trace, i) => {
      const meta = trace.meta || {};
      if (meta.reveal) {
        const count = this.revealCount(trace, j);
        if (count !== null) data[i] = Object.assign({}, trace, { x: slice(trace.x, count), y: slice(trace.y, count) });
      }
    });
    data.forEach((trace, i) => {
      const meta = trace.meta || {};
      if (meta.min_of === undefined) return;
      const source = data[meta.min_of];
      let best = -1;
      for (let k = 0; k < (source.y || []).length; k++) {
        const v = source.y[k];
        if (v !== null && Number.isFinite(v) && (best < 0 || v < source.y[best])) best = k;
      }
      data[i] = Object.assign({}, trace, best < 0 ? { x: [], y: [] } : { x: [source.x[best]], y: [source.y[best]] });
    });
    return data;
  }

  // What Plotly draws of a panel at step j: the frame's patch; revealed curves whole (the
  // overlay clips them at step j without a Plotly call) and the "lowest so far" marks left
  // to the overlay.
  drawData(cell, j) {
    const panel = cell.panel;
    const base = this.base(panel);
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    return base.data.map((trace, i) => {
      const out = frame.data && frame.data[i] ? patched(trace, frame.data[i]) : trace;
      return out.meta && out.meta.min_of !== undefined ? Object.assign({}, out, { visible: false }) : out;
    });
  }

  layoutOf(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    let layout = patched(this.base(panel).layout, frame.layout);
    layout = Object.assign({}, layout, { height: cell.height, width: cell.plot.clientWidth || undefined, autosize: true,
      showlegend: false });
    for (const name of Object.keys(layout)) {  // tick labels and titles push the margins, never get cut
      if (!/^[xy]axis\d*$/.test(name)) continue;
      const axis = Object.assign({}, layout[name], { automargin: true });
      const title = axis.title && axis.title.text;
      if (name.startsWith("y") && title && !String(title).includes("<br>")) {  // longer than the chart is tall: two lines
        const fontSize = (axis.title.font && axis.title.font.size) || 18;
        const room = 0.85 * (cell.height - 70 * this.scale);
        if (textWidth(title, fontSize) > room) axis.title = Object.assign({}, axis.title, { text: wrapText(title, fontSize, room).join("<br>") });
      }
      if (cell.decades && cell.decades[name]) Object.assign(axis, { dtick: cell.decades[name], tick0: 0 });
      layout[name] = axis;
    }
    const refs = (layout.meta && layout.meta.refs) || [];
    if (refs.length && layout.shapes) {
      const shapes = layout.shapes.slice();
      for (const ref of refs) if (ref.when === "whole" && shapes[ref.shape]) shapes[ref.shape] = Object.assign({}, shapes[ref.shape], { visible: this.showWhole(j) });
      layout.shapes = shapes;
    }
    if (panel.rings && panel.rings.length) layout.shapes = (layout.shapes || []).concat(this.ringShapes(cell, j));
    return layout;
  }

  showWhole(j) { return !this.hasReveal || this.whole || j >= this.n; }

  // The chosen points as layout shapes: a ring around each pick so far (pixel-sized, so it
  // stays round whatever the axes), its order number above it unless that would overprint
  // a newer one, and a star on the next pick -- hidden while a student predicts it.
  ringShapes(cell, j) {
    const sets = cell.panel.rings;
    if (!sets || !sets.length) return [];
    const full = cell.plot._fullLayout;
    const ink = this.inkOf("#000000");
    const radius = 10 * this.scale, fontSize = Math.round(16 * this.scale);
    const hideStar = this.predict && !this.revealed();
    const out = [];
    for (const set of sets) {
      const n = Math.min(j, set.picks.length);
      let chosen = Array.from(set.picks).slice(0, n);
      if (set.unique) chosen = Array.from(new Set(chosen));
      const where = { xref: set.xref, yref: set.yref, xsizemode: "pixel", ysizemode: "pixel", layer: "above" };
      const start = out.length;
      for (const i of chosen) {
        const [x, y] = set.coords[i];
        out.push(Object.assign({ type: "circle", xanchor: x, yanchor: y, x0: -radius, x1: radius, y0: -radius, y1: radius,
          line: { color: ink, width: 3 * this.scale } }, where));
      }
      if (set.numbers) {
        const xa = full && full[set.xref.replace("x", "xaxis")], ya = full && full[set.yref.replace("y", "yaxis")];
        const kept = [];
        for (let order = chosen.length - 1; order >= Math.max(0, chosen.length - 20); order--) {
          const text = String(order + 1);
          let below = false;  // under the ring when above it would leave the chart (a pick near the top)
          if (xa && ya) {
            const [x, y] = set.coords[chosen[order]];
            const w = textWidth(text, fontSize), h = fontSize * 1.2;
            const centre = ya._offset + ya.c2p(y);
            below = centre - radius - h < 2;
            const box = { x: xa._offset + xa.c2p(x) - w / 2, y: below ? centre + radius : centre - radius - h, w, h };
            if (kept.some((other) => overlaps(box, other, 0))) continue;
            kept.push(box);
          }
          out[start + order].label = below
            ? { text, textposition: "bottom center", yanchor: "top", font: { size: fontSize, color: ink }, padding: 2 }
            : { text, textposition: "top center", yanchor: "bottom", font: { size: fontSize, color: ink }, padding: 2 };
        }
      }
      const next = set.next ? set.next[Math.min(j, set.next.length - 1)] : -1;
      if (next >= 0 && !hideStar) {
        const [x, y] = set.coords[next];
        out.push(Object.assign({ type: "path", xanchor: x, yanchor: y, path: starPath(12 * this.scale),
          fillcolor: "#F0E442", line: { color: ink, width: 2 * this.scale } }, where));
      }
    }
    return out;
  }

  figure(cell, j) {
    const panel = cell.panel;
    const data = this.drawData(cell, j);
    const layout = this.layoutOf(cell, j);
    if (this.predict && !this.revealed() && panel.hide_when_predicting) {
      for (const index of panel.hide_when_predicting) if (data[index]) data[index] = Object.assign({}, data[index], { visible: false });
    }
    if (this.predict && this.guess !== null && panel.guess_trace !== undefined) {
      const [x, y] = this.coords[this.guess];
      data.push({ type: "scatter", mode: "markers", x: [x], y: [y], name: "your guess", showlegend: false,
        marker: { symbol: "x-thin-open", size: 26 * this.scale, color: "#CC79A7", line: { width: 4, color: "#CC79A7" } }, hoverinfo: "skip" });
    }
    return { data, layout };
  }

  revealed() { return this.guess !== null || this.j >= this.n; }

  renderText() {
    const j = this.j;
    this.slider.value = String(j);
    const text = "Step " + j + " of " + this.n + (this.playing ? " — playing" : "");
    this.label.textContent = text;
    this.slider.setAttribute("aria-valuetext", "Step " + j + " of " + this.n);
    if (this.status.textContent !== "Step " + j + " of " + this.n) this.status.textContent = "Step " + j + " of " + this.n;
    // past either end, a lesson's scene goes on to the previous or next scene (forward())
    const scenes = this.guide && this.options.onPastEnd ? this.guide : null;
    this.buttons.back.disabled = j === 0 && !(scenes && scenes.scene > 1);
    this.buttons.next.disabled = j >= this.n && !(scenes && scenes.scene < scenes.scenes);
    this.buttons.play.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    this.buttons.play.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    const stories = this.payload.stories || [];
    const hideNext = this.predict && !this.revealed();
    const story = (hideNext ? (this.payload.stories_hidden || stories) : stories)[j] || "";
    this.story.replaceChildren(...storyNodes(story));
    this.renderQuiz();
    for (const cell of this.cells) {
      const frame = cell.panel.frames[Math.min(j, cell.panel.frames.length - 1)] || {};
      const title = (frame.title !== undefined ? frame.title : cell.panel.title) || "";
      if (cell.shownTitle !== title) { cell.title.replaceChildren(...storyNodes(title)); cell.shownTitle = title; }
    }
  }

  render(full) {
    if (!this.Plotly) return Promise.resolve();
    const j = this.j;
    this.renderText();
    const animate = this.animateBox && this.animateBox.checked && !full;
    const draw = (cell) => {
      if (this.destroyed) return Promise.resolve();
      if (cell.panel.table) { this.drawTable(cell, j); return Promise.resolve(); }
      if (!cell.drawn) {
        cell.drawn = true;
        const { data, layout } = this.figure(cell, j);
        return this.track(this.Plotly.newPlot(cell.plot, data, layout, this.config(cell))).then(() => {
          if (this.destroyed) return undefined;
          this.hook(cell);
          cell.plot.on("plotly_relayout", (change) => { if (!change || !("annotations" in change || Object.keys(change).some((k) => k.startsWith("annotations")))) this.stepLine(cell, this.j); });
          cell.mode = "full";
          return this.afterDraw(cell, j, true);
        });
      }
      let done;
      if (animate && cell.panel.animate) {
        const { data, layout } = this.figure(cell, j);
        done = this.Plotly.animate(cell.plot, { data, layout }, { transition: { duration: 250, easing: "cubic-in-out" }, frame: { duration: 250, redraw: true } });
      } else if (!full && !this.predict && cell.mode === "step") {
        done = this.update(cell, j);
      } else {
        const { data, layout } = this.figure(cell, j);
        done = this.Plotly.react(cell.plot, data, layout, this.config(cell));
      }
      const wasFull = cell.mode !== "step" || full;
      cell.mode = this.predict || animate ? "full" : "step";
      return this.track(done).then(() => (this.destroyed ? undefined : this.afterDraw(cell, j, wasFull)));
    };
    // Panels on screen first; those scrolled out of view follow in the next task, so a
    // step reaches the screen as soon as everything that can be seen has changed.  (A
    // first draw with the whole grid below the screen draws its first panel first.)
    const shown = this.cells.filter((cell) => cell.height > 0);
    const visible = shown.filter((cell) => this.onScreen(cell));
    if (!visible.length && shown.length && !shown[0].drawn) visible.push(shown[0]);
    const hidden = shown.filter((cell) => !visible.includes(cell));
    const token = (this.token = (this.token || 0) + 1);
    // "mpl-rendered": everything on screen shows step j (what the latency benchmark times);
    // "mpl-settled": every panel does, those scrolled away too (what layout checks wait for).
    const settle = () => {
      if (token !== this.token) return;
      document.dispatchEvent(new CustomEvent("mpl-settled", {
        detail: { step: j, at: performance.now(), id: this.id, screen: this.screen } }));
    };
    return Promise.all(visible.map(draw)).then(() => new Promise((resolve) => requestAnimationFrame(() => {
      if (token !== this.token) { resolve(); return; }  // a later step's draw reports for both
      document.dispatchEvent(new CustomEvent("mpl-rendered", { detail: { step: j, at: performance.now(), id: this.id } }));
      if (!hidden.length) { settle(); resolve(); return; }
      setTimeout(() => {
        if (token !== this.token) { resolve(); return; }  // a newer step is already on its way
        Promise.all(hidden.map(draw)).then(() => requestAnimationFrame(() => { settle(); resolve(); }));
      }, 0);
    })));
  }

  // A Plotly call in flight: the player is not torn down under it (see destroy).
  track(promise) {
    const call = Promise.resolve(promise);
    const settled = call.then(() => undefined, () => undefined);  // for destroy; the caller still sees a failure
    this.inflight.add(settled);
    settled.then(() => this.inflight.delete(settled));
    return call;
  }

  // After a draw: the step line, a log axis's decades thinned to its length (after a full
  // draw, when the axes may have moved) and the overlay of labels and marks.
  afterDraw(cell, j, full) {
    this.stepLine(cell, j);
    if (full) {
      const thinned = this.thinDecades(cell);
      if (thinned) return this.track(thinned).then(() => (this.destroyed ? undefined : this.afterDraw(cell, j, true)));
    }
    this.overlay(cell, j);
    return undefined;
  }

  onScreen(cell) {
    const box = cell.cell.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth;
  }

  // A step's patch straight into the drawn figure: only the traces it names are restyled
  // and only the layout paths it names relaid out (every frame names the same ones, so
  // any step can follow any other); revealed lines and their labels move with it.
  update(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const indices = Object.keys(frame.data || {}).map(Number);
    const dataUpdate = {};
    indices.forEach((trace, k) => {
      for (const [key, value] of Object.entries(frame.data[trace])) {
        if (!dataUpdate[key]) dataUpdate[key] = new Array(indices.length).fill(undefined);
        dataUpdate[key][k] = value;
      }
    });
    const layoutUpdate = {};
    for (const [key, value] of Object.entries(frame.layout || {})) {
      layoutUpdate[key.replace(/\.(\d+)(?=\.|$)/g, "[$1]")] = value;  // "annotations.1.text" -> "annotations[1].text"
    }
    const refs = (this.base(panel).layout.meta || {}).refs || [];
    for (const ref of refs) {  // the bound's stop shows with the whole curves: a relayout only when that changes
      if (ref.when !== "whole") continue;
      const shape = (cell.plot.layout.shapes || [])[ref.shape];
      if (shape && (shape.visible !== false) !== this.showWhole(j)) layoutUpdate["shapes[" + ref.shape + "].visible"] = this.showWhole(j);
    }
    if (panel.rings && panel.rings.length) {
      const base = this.base(panel).layout.shapes || [];
      layoutUpdate.shapes = base.concat(this.ringShapes(cell, j));
    }
    if (!indices.length && !Object.keys(layoutUpdate).length) { this.overlay(cell, j); return Promise.resolve(); }
    return this.Plotly.update(cell.plot, dataUpdate, layoutUpdate, indices).then(() => (this.destroyed ? undefined : this.overlay(cell, j)));
  }

  wantsLabels(cell) {
    const figure = cell.panel.light;
    if (!figure) return false;
    if (cell.wants === undefined) {
      cell.wants = figure.data.some((trace) => trace.meta && trace.meta.label) || Boolean(figure.layout.meta && figure.layout.meta.refs && figure.layout.meta.refs.length);
    }
    return cell.wants;
  }

  // Each labelled line named at the end of what is drawn of it, and each reference line's
  // label where no curve crosses it: [{text, box}] in the plot's pixels (box null: not
  // drawn).  The overlay shows them as HTML; the SVG download as Plotly annotations.
  labelBoxes(cell, data, layout, j) {
    if (!this.wantsLabels(cell)) return null;
    const full = cell.plot._fullLayout;
    if (!full || !full.xaxis || !full.yaxis || !full._size) return null;
    const xa = full.xaxis, ya = full.yaxis, size = full._size;
    const px = (x) => xa._offset + xa.c2p(x), py = (y) => ya._offset + ya.c2p(y);
    const fontSize = Math.round(14 * this.scale);
    const ink = this.inkOf("#222222");
    const lines = [];
    const tips = [];
    const tipTraces = [];
    data.forEach((trace, i) => {
      if (trace.visible === false || !trace.x || !trace.y || (trace.mode && !trace.mode.includes("lines"))) return;
      if ((trace.yaxis && trace.yaxis !== "y") || (trace.xaxis && trace.xaxis !== "x")) return;
      const line = [];
      let last = null, beyond = "";
      for (let k = 0; k < trace.x.length; k++) {
        const y = trace.y[k];
        if (y === null || !Number.isFinite(y) || (ya.type === "log" && y <= 0)) continue;
        const point = [px(trace.x[k]), Math.max(size.t, Math.min(size.t + size.h, py(y)))];
        line.push(point);
        last = point;  // the line's end; off the chart, its label says where it went and its value
        beyond = py(y) < size.t - 1 ? " ↑ " + Number(y).toPrecision(3) : py(y) > size.t + size.h + 1 ? " ↓ " + Number(y).toPrecision(3) : "";
      }
      lines.push(line);
      const meta = trace.meta || {};
      if (meta.label) {
        const colour = (trace.line && trace.line.color) || (trace.marker && typeof trace.marker.color === "string" ? trace.marker.color : null);
        tipTraces.push({ index: i, text: meta.label + beyond, last, rank: meta.label_rank || 0, colour });
      }
    });
    // a label wider than ~45% of the plot goes on two lines (or more), its box with it
    const measure = (text) => {
      const lines = textWidth(text, fontSize) > 0.45 * size.w ? wrapText(text, fontSize, 0.45 * size.w) : [text];
      return { text: lines.join("<br>"), w: Math.max(...lines.map((line) => textWidth(line, fontSize))) + 8, h: fontSize * 1.35 * lines.length };
    };
    for (const tip of tipTraces) {
      const box = measure(tip.text);
      tip.shown = box.text;
      tips.push({ x: tip.last ? tip.last[0] : 0, y: tip.last ? tip.last[1] : 0, w: box.w, h: box.h, rank: tip.rank });
    }
    // when the labels cannot all stand in the plot's height, the least important go (their
    // lines keep their colour and hover)
    const refs = ((layout.meta && layout.meta.refs) || []).map((ref) => {
      const shape = (layout.shapes || [])[ref.shape] || {};
      const box = measure(ref.text);
      ref.shown = box.text;
      const w = box.w, h = box.h;
      const visible = shape.visible !== false && (ref.when !== "whole" || this.showWhole(j));
      let candidates = [];
      if (ref.axis === "y") {
        const y = py(shape.y0);
        for (const share of [1, 0, 0.5, 0.75, 0.25]) {
          const x = size.l + 4 + share * (size.w - w - 8);
          candidates.push({ x, y: y - h - 2, w, h }, { x, y: y + 2, w, h });
        }
      } else {
        const x = px(shape.x0);
        for (const share of [0, 1, 0.5, 0.25, 0.75]) {
          const y = size.t + 2 + share * (size.h - h - 4);
          candidates.push({ x: x + 4, y, w, h }, { x: x - w - 4, y, w, h });
        }
      }
      return { ref, visible, candidates, inRange: ref.axis === "y" ? (py(shape.y0) >= size.t && py(shape.y0) <= size.t + size.h) : true };
    });
    const area = { x: size.l, y: size.t, w: size.w, h: size.h };
    const fixed = [];
    const tag = this.stepTag(cell, j, full);  // the step line's "step j" tag, where it will be
    if (tag) fixed.push(tag);
    const shownRefs = refs.filter((item) => item.visible && item.inRange);
    let room = size.h - 4 - fixed.reduce((sum, box) => sum + box.h + 1, 0) -
      shownRefs.reduce((sum, item) => sum + item.candidates[0].h + 1, 0);
    const byRank = tips.map((tip, i) => i).filter((i) => tipTraces[i].last).sort((a, b) => tips[a].rank - tips[b].rank || a - b);
    for (const i of byRank) { room -= tips[i].h + 1; if (room < 0) tipTraces[i].last = null; }
    const shownTips = tips.map((tip, i) => ({ tip, i })).filter(({ i }) => tipTraces[i].last);
    const placed = placeLabels(shownRefs, shownTips.map(({ tip }) => tip), lines, area, fixed);
    const out = [];
    refs.forEach((item) => {
      const at = shownRefs.indexOf(item);
      out.push({ text: item.ref.shown, box: at >= 0 ? placed.refs[at] : null, size: fontSize });
    });
    tipTraces.forEach((tip, i) => {
      const at = shownTips.findIndex((entry) => entry.i === i);
      out.push({ text: tip.shown, box: at >= 0 ? placed.tips[at] : null, size: fontSize,
        colour: tip.colour ? this.inkOf(tip.colour) : null, end: tip.last });  // named in its line's colour
    });
    return out;
  }

  // What changes with the step on a chart of curves, drawn over it without asking Plotly:
  // the curves clipped at step j (an SVG clip on its trace layer), each curve's lowest
  // point so far, and the labels.
  overlay(cell, j) {
    const full = cell.plot._fullLayout;
    if (!full || !full._size || !this.wantsLabels(cell)) return;
    const size = full._size, xa = full.xaxis, ya = full.yaxis;
    const svgRoot = cell.plot.querySelector("svg.main-svg");
    const layer = cell.plot.querySelector(".overplot .xy .scatterlayer, .cartesianlayer .subplot.xy .plot .scatterlayer");
    if (this.hasReveal && svgRoot && layer) {
      const id = "mpl-reveal-" + this.id + "-" + cell.index;
      let clip = svgRoot.querySelector("#" + id);
      if (!clip) {
        clip = document.createElementNS(SVG, "clipPath");
        clip.setAttribute("id", id);
        clip.appendChild(document.createElementNS(SVG, "rect"));
        (svgRoot.querySelector("defs") || svgRoot).appendChild(clip);
      }
      const whole = this.showWhole(j);
      const width = whole ? size.w + 40 : Math.max(0, xa.c2p(j) + 1.5);
      Object.entries({ x: -20, y: -20, width: width + 20, height: size.h + 40 }).forEach(([key, value]) => clip.firstChild.setAttribute(key, value));
      layer.setAttribute("clip-path", whole ? "" : "url(#" + id + ")");
    }
    const data = this.traces(cell, j);
    if (!cell.marks) {
      cell.plot.style.position = "relative";
      cell.marks = el("div", { class: "mpl-marks", "aria-hidden": "true" });
      cell.plot.appendChild(cell.marks);
    }
    const nodes = [];
    data.forEach((trace) => {  // the lowest point so far of each curve
      const meta = trace.meta || {};
      if (meta.min_of === undefined || !trace.x || !trace.x.length) return;
      const x = xa._offset + xa.c2p(trace.x[0]), y = ya._offset + ya.c2p(trace.y[0]);
      if (!Number.isFinite(y) || y < size.t - 1 || y > size.t + size.h + 1) return;
      const marker = trace.marker || {};
      const item = { kind: "marker", symbol: marker.symbol || "circle", colour: marker.color, edge: this.inkOf("#ffffff") };
      const mark = el("div", { class: "mpl-mark-point", style: `left:${x}px;top:${y}px;font-size:${Math.round(16 * this.scale)}px` },
        [swatch(item, (c) => this.inkOf(c))]);
      nodes.push(mark);
    });
    for (const item of this.labelBoxes(cell, data, this.layoutOf(cell, j), j) || []) {
      if (!item.box) continue;
      const label = el("div", { class: "mpl-curve-label", style: `left:${item.box.x}px;top:${item.box.y}px;` +
        `width:${item.box.w}px;font-size:${item.size}px` + (item.colour ? `;color:${item.colour}` : "") });
      if (item.end) label.dataset.end = item.end.map((v) => v.toFixed(1)).join(",");  // its curve's end (plot px)
      item.text.split("<br>").forEach((line, k) => { if (k) label.appendChild(el("br")); label.appendChild(document.createTextNode(line)); });
      nodes.push(label);
    }
    cell.marks.replaceChildren(...nodes);
  }

  // The chart as an SVG file, as the step shows it drawn whole: every curve to its end, its
  // lowest point and its label as Plotly annotations (the overlay is HTML, not in the SVG).
  download(cell) {
    const j = this.n;
    const data = this.traces(cell, j).map((trace) => (trace.meta && trace.meta.min_of !== undefined ? Object.assign({}, trace, { visible: true }) : trace));
    const layout = this.layoutOf(cell, j);
    const size = cell.plot._fullLayout._size;
    const toPaper = (box) => ({ x: (box.x - size.l) / size.w, y: 1 - (box.y + box.h / 2 - size.t) / size.h });
    const notes = (this.labelBoxes(cell, data, layout, j) || []).filter((item) => item.box).map((item) => Object.assign({
      text: item.text, xref: "paper", yref: "paper", xanchor: "left", yanchor: "middle", showarrow: false,
      font: { size: item.size, color: item.colour || this.inkOf("#222222") }, bgcolor: this.dark ? "rgba(23,22,20,0.78)" : "rgba(255,255,255,0.78)" },
    toPaper(item.box)));
    layout.annotations = (layout.annotations || []).concat(notes);
    const options = (this.payload.config || {}).toImageButtonOptions || {};
    return this.Plotly.downloadImage({ data, layout }, { format: "svg", filename: options.filename || "matching-pursuit-lab",
      width: cell.plot.clientWidth, height: cell.height });
  }

  // Plotly's config for a panel: a chart with an overlay downloads through download().
  // A cell's Plotly config: one object per cell, made once and handed to every react.  A
  // config that differs from the last (a new click handler compares as a change) makes
  // Plotly.react start over with newPlot and then react again, and that round can repeat
  // for ever: the tab froze in "newPlot -> doAutoMargin -> redraw" when a lesson's next
  // scene re-laid out the same study.  So react never sees a changed config.  (Called
  // only once Plotly is loaded; what it depends on, the cell's panel, never changes.)
  config(cell) {
    if (cell.config) return cell.config;
    // WebGL panels at the screen's own pixel density (Plotly's default is 2: four times the
    // pixels to fill on a 1x projector, for no visible gain)
    const config = Object.assign({ plotGlPixelRatio: Math.max(1, Math.min(2, window.devicePixelRatio || 1)) },
      this.payload.config || {});
    if (this.wantsLabels(cell)) {
      config.modeBarButtonsToRemove = ["toImage"];
      config.modeBarButtonsToAdd = [{ name: "Download as SVG", title: "Download the chart as an SVG file (curves whole, labelled)",
        icon: this.Plotly.Icons.camera, click: () => this.download(cell) }];
    }
    cell.config = config;
    return config;
  }

  // A log axis ticked at every decade (dtick 1) shows as many decades as its length has
  // room for, at whole multiples: every 10, 100 or 1000 times.  Null when nothing changed.
  thinDecades(cell) {
    const full = cell.plot._fullLayout;
    if (!full) return null;
    const update = {};
    for (const name of ["xaxis", "yaxis"]) {
      const axis = full[name];
      if (!axis || axis.type !== "log" || axis.tickmode === "array" || !axis.range) continue;
      const decades = Math.abs(axis.range[1] - axis.range[0]);
      const size = (axis.tickfont && axis.tickfont.size) || 16;
      const fits = Math.max(2, Math.floor(axis._length / (size * (name === "yaxis" ? 2.1 : 3.6))));
      const wanted = Math.max(1, Math.ceil(decades / fits));
      if (decades >= 2 && Number(axis.dtick) !== wanted) {
        update[name + ".dtick"] = wanted;
        update[name + ".tick0"] = 0;
        cell.decades = Object.assign(cell.decades || {}, { [name]: wanted });  // kept for the next full draw
      }
    }
    return Object.keys(update).length ? this.Plotly.relayout(cell.plot, update) : null;
  }

  // Where the step line of a panel is at step j (null: not drawn), and its tag: left of
  // the line, or right of it where the left has no room; in the plot div's pixels.
  stepPlace(cell, j, full) {
    if (!cell.panel.step_line || !full || !full.xaxis) return null;
    const xa = full.xaxis;
    const stepX = cell.panel.step_x;
    const value = stepX ? stepX[Math.min(j, stepX.length - 1)] : j;
    const x = xa._offset + xa.c2p(value);
    if (!((stepX || j >= 1) && Number.isFinite(x) && x >= xa._offset - 1 && x <= xa._offset + xa._length + 1)) return null;
    const text = cell.panel.step_text ? cell.panel.step_text[Math.min(j, cell.panel.step_text.length - 1)] : "step " + j;
    const size = Math.round(14 * this.scale);
    const w = textWidth(text, size) + 6, h = size * 1.3;
    const right = w + 8 > x - xa._offset;
    return { x, text, right, tag: { x: right ? x + 4 : x - 4 - w, y: full._size.t + 2, w, h } };
  }

  stepTag(cell, j, full) {
    const place = this.stepPlace(cell, j, full);
    return place ? place.tag : null;
  }

  // The step marker of a chart against t: a div over the plot area at x = step (moving a
  // Plotly shape redraws the whole chart; a div costs nothing).
  stepLine(cell, j) {
    if (!cell.panel.step_line) return;
    const full = cell.plot._fullLayout;
    if (!full || !full.xaxis) return;
    if (!cell.line) {
      cell.plot.style.position = "relative";
      cell.line = el("div", { class: "mpl-step-line" }, [el("span", { class: "mpl-step-text" })]);
      cell.plot.appendChild(cell.line);
    }
    const place = this.stepPlace(cell, j, full);
    cell.line.style.display = place ? "" : "none";
    if (!place) return;
    cell.line.style.left = place.x + "px";
    cell.line.style.top = full._size.t + "px";
    cell.line.style.height = full._size.h + "px";
    const tag = cell.line.firstChild;
    tag.textContent = place.text;
    tag.style.fontSize = Math.round(14 * this.scale) + "px";
    tag.classList.toggle("mpl-right", place.right);
  }

  // An HTML table panel (the deflation lab's facts): a header row, then one row per
  // frame row whose first cell names it, with the row's meaning as its tooltip.
  drawTable(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const table = panel.table;
    if (!cell.table) {
      cell.table = el("table", { class: "mpl-table" });
      const head = el("tr", {}, table.header.map((name) => el("th", { scope: "col", text: name })));
      cell.body = el("tbody");
      cell.table.append(el("thead", {}, [head]), cell.body);
      cell.plot.replaceChildren(cell.table);
      cell.plot.setAttribute("role", "region");
      cell.plot.setAttribute("aria-label", panel.title);
      cell.plot.setAttribute("tabindex", "0");
      cell.drawn = true;
    }
    cell.plot.style.height = cell.height + "px";
    const help = table.row_help || [];
    cell.body.replaceChildren(...(frame.rows || []).map((row, r) => el("tr", {}, row.map((value, i) => (i === 0
      ? el("th", { scope: "row", title: help[r] || null, class: help[r] ? "mpl-has-tip" : null, text: String(value) })
      : el("td", { text: String(value) }))))));
  }

  // Predict mode: a click anywhere on the data panel takes the training point nearest to
  // it on screen (test points and points under others can never swallow it); when several
  // training points lie under the click (within 4 px of the nearest), the winner among
  // them counts -- on screen they are the same point.
  hook(cell) {
    const panel = cell.panel;
    if (panel.guess_trace === undefined) return;
    cell.plot.addEventListener("click", (event) => {
      if (!this.predict || this.revealed() || !this.coords) return;
      const full = cell.plot._fullLayout;
      if (!full || !full.xaxis) return;
      const frame = cell.plot.getBoundingClientRect();
      const x = event.clientX - frame.left, y = event.clientY - frame.top;
      const xa = full.xaxis, ya = full.yaxis, size = full._size;
      if (x < size.l || x > size.l + size.w || y < size.t || y > size.t + size.h) return;
      const winner = this.payload.picks[this.j];
      const distances = this.coords.map((point) => Math.hypot(xa._offset + xa.c2p(point[0]) - x, ya._offset + ya.c2p(point[1]) - y));
      const chosen = new Set(this.payload.picks.slice(0, this.j));
      let nearest = -1;
      distances.forEach((d, i) => { if (!chosen.has(i) && (nearest < 0 || d < distances[nearest])) nearest = i; });
      if (nearest < 0) return;
      const under = distances[winner] <= distances[nearest] + 4 * this.scale;
      this.guess = under ? winner : nearest;
      this.guessNote = under && winner !== nearest ? " (the point under your click)" : " (the training point nearest your click)";
      this.guesses.total += 1;
      if (this.guess === winner) this.guesses.right += 1;
      this.render(true);
    }, true);
  }

  renderQuiz() {
    if (!this.predict) { this.quiz.replaceChildren(); this.quiz.style.display = "none"; return; }
    this.quiz.style.display = "";
    const score = "Score: " + this.guesses.right + " of " + this.guesses.total + ". ";
    if (this.j >= this.n) { this.quiz.textContent = score + "No pick left: reset to play again."; return; }
    if (this.guess === null) {
      this.quiz.textContent = score + "Click the training point you expect the criterion to choose next (the star and the criterion are hidden until you do).";
      return;
    }
    const winner = this.payload.picks[this.j];
    const row = this.scores ? this.scores[this.j] : null;
    let detail = "";
    if (row) {
      const mine = row[this.guess];
      const best = row[winner];
      const order = this.payload.pick_max === false ? 1 : -1;
      let rank = 1;
      for (let i = 0; i < row.length; i++) if (Number.isFinite(row[i]) && order * (row[i] - mine) < 0) rank += 1;
      detail = Number.isFinite(mine)
        ? " You took point " + this.guess + this.guessNote + ": it scores " + mine.toPrecision(3) + " (rank " + rank + "); the winner " + winner + " scores " + best.toPrecision(3) + "."
        : " You took point " + this.guess + this.guessNote + ", which cannot be chosen (already chosen or exhausted).";
    }
    this.quiz.textContent = score + (this.guess === winner ? "Right! " : "Not quite. ") + detail + " Press Next.";
  }

  go(j, source) {
    j = Math.max(0, Math.min(Math.round(j), this.n));
    if (source !== "play" && source !== "slider-keep") { this.guess = null; this.guessNote = ""; }
    if (j === this.j && source !== "force") { this.render(); return; }
    this.j = j;
    this.guess = null;
    if (this.guide) stored(sceneKey(this.guide), String(j));  // "Back to the lesson" returns here
    this.writeUrl();
    this.render();
  }

  writeUrl() {
    if (this.options.onStep) { this.options.onStep(this.j); return; }
    const url = new URL(window.location.href);
    if (this.j) url.searchParams.set("step", String(this.j)); else url.searchParams.delete("step");
    if (url.href !== window.location.href) REPLACE_STATE(window.history.state, "", url.href);
  }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.j >= this.n) this.go(0, "play");
    this.playing = true;
    this.schedule();
    this.render();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.playing) return;
      if (this.j >= this.n) { this.pause(); return; }
      this.go(this.j + 1, "play");
      if (this.j >= this.n) this.pause(); else this.schedule();
    }, 1000 / this.speed);
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.render();
  }

  blank(on) {
    this.blanked = on === undefined ? !this.blanked : on;
    this.blanker.classList.toggle("mpl-on", this.blanked);
  }

  help(on) {
    const show = on === undefined ? !this.helpBox.classList.contains("mpl-on") : on;
    this.helpBox.classList.toggle("mpl-on", show);
  }

  // The keys of a keyboard and of a presentation clicker (which sends PageDown / PageUp,
  // and "b" or "." to blank the screen).  Never while the user types in a field, never
  // stealing a focused slider's arrows or a focused button's space; a key the player
  // uses never scrolls the page.
  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!this.root.isConnected) return;
    if (this.blanked) { event.preventDefault(); this.blank(false); return; }
    const target = event.target;
    const ours = this.host.contains(target);
    if (!ours && isTyping(target)) return;
    const role = target && target.getAttribute ? target.getAttribute("role") : null;
    const foreignSlider = !ours && (role === "slider" || (target.type === "range"));
    const navigation = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageDown", "PageUp", "Home", "End"];
    if (foreignSlider && navigation.includes(event.key)) return;
    if (!ours && (role === "option" || role === "listbox" || role === "menuitem")) return;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    const pressable = tag === "button" || tag === "a" || role === "button" || role === "switch" || role === "tab" || target.type === "checkbox" || target.type === "radio";
    if ((event.key === " " || event.key === "Enter") && pressable) return;  // a focused control's own key
    if (event.key === "Enter") return;
    const digit = /^[1-9]$/.test(event.key) ? Number(event.key) - 1 : null;
    const actions = {
      ArrowRight: () => this.forward(1),
      PageDown: () => this.forward(1),
      ArrowLeft: () => this.forward(-1),
      PageUp: () => this.forward(-1),
      Home: () => { this.pause(); this.go(0, "key"); },
      End: () => { this.pause(); this.go(this.n, "key"); },
      " ": () => this.toggle(),
      b: () => this.blank(true), B: () => this.blank(true), ".": () => this.blank(true),
      w: () => this.hasReveal && this.setWhole(!this.whole), W: () => this.hasReveal && this.setWhole(!this.whole),
      v: () => this.nextScreen(), V: () => this.nextScreen(),
      "?": () => this.help(),
      Escape: () => { this.help(false); if (this.zoom !== null) this.enlarge(null); },
    };
    let action = actions[event.key];
    if (digit !== null) {
      const shown = this.visibleCells();
      if (digit < shown.length) action = () => this.enlarge(shown[digit].index);
    }
    if (!action) return;
    event.preventDefault();
    action();
  }

  // A step forward or back; past either end, the next or previous scene when there is one.
  forward(direction) {
    const g = this.guide;
    const end = g && g.until !== null && g.until !== undefined ? Math.min(g.until, this.n) : this.n;
    const start = g ? Math.min(g.start || 0, this.n) : 0;
    const past = direction > 0 ? this.j >= end : this.j <= start;
    if (past && this.options.onPastEnd) { this.pause(); this.options.onPastEnd(direction); return; }
    this.go(this.j + direction, "key");
  }

  destroy() {
    clearTimeout(this.timer);
    clearInterval(this.themeWatch);
    if (this.resizing) cancelAnimationFrame(this.resizing);
    this.observer.disconnect();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
    this.destroyed = true;
    if (this.host) this.host.replaceChildren();
    // Purged once every Plotly call in flight has finished: purging under a running draw
    // leaves it to read a layout that is gone (a console error, "_rehover").
    const purge = () => { if (this.Plotly) for (const cell of this.cells) if (cell.drawn && !cell.panel.table) this.Plotly.purge(cell.plot); };
    Promise.all([...this.inflight]).then(purge);
  }
}

// The address always carries the step on screen, so that a copied address reopens it.  The
// steps are taken here and the server never sees them; when a rerun changes the query (a
// setting changed on step 3: the player stays on step 3), Streamlit writes the address the
// server asked for, which has no step.  So after any address write on the live player's
// page that is not the player's own, the player writes its step again.
// The live player is kept on the window, not in this module: a second copy of the module
// (a newer version loaded by a long-open page) finds the one hook already in place.
// History's own replaceState, before keepStepInAddress wraps it (read when first needed: the
// pure helpers are also loaded where there is no window, by Node's test runner).
const REPLACE_STATE = (...args) =>
  (window.history.__mplReplaceState || window.history.replaceState).apply(window.history, args);

function keepStepInAddress() {
  if (window.history.__mplReplaceState) return;
  window.history.__mplReplaceState = window.history.replaceState;
  for (const name of ["pushState", "replaceState"]) {
    const write = window.history[name];
    window.history[name] = function (...args) {
      const result = write.apply(this, args);
      const live = window.__mplLive;  // the player mounted in the app (a saved page keeps its step itself)
      if (live && !live.destroyed && window.location.pathname === live.path) live.writeUrl();
      return result;
    };
  }
}

// Entering presenter mode folds Streamlit's sidebar away (a link with ?present=1 opens
// with it folded already, from the page config); the ">>" button brings it back.
function foldSidebar() {
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("data-collapsed") !== "false") return;
  const button = sidebar.querySelector('[data-testid="stSidebarCollapseButton"] button, [data-testid="stSidebarHeader"] button');
  if (button) button.click();
}

// Where a lesson's scene remembers the step a student left it on (localStorage).
function sceneKey(guide) {
  return "mpl-scene-step:" + guide.id + ":" + guide.scene;
}

// The step a payload opens on: its own, or for a scene reopened by "Back to the lesson"
// (guide.resume) the step the student left it on, within the scene's steps.
function sceneStep(payload) {
  const guide = payload.lesson && payload.lesson.guide;
  const step = payload.step || 0;
  if (!guide || !guide.resume) return step;
  const kept = stored(sceneKey(guide));
  const left = kept === null ? NaN : Number(kept);
  return Number.isInteger(left) && left >= (guide.start || 0) && left <= payload.n_steps ? left : step;
}

// Mount (or update) the player in `root` with a payload (JSON text or object): the same
// study again keeps its player and step; another study replaces it, on the same step when
// only a setting of the same page changed.  Used by Streamlit (the default export below)
// and by the standalone page (ui/export.py).
export function mount(root, data, options) {
  const payload = typeof data === "string" ? JSON.parse(data) : data;
  if (payload.version !== PAYLOAD_VERSION) {
    const old = STATE.get(root);
    if (old) old.cleanup();
    root.textContent = `This study was written for another version of the step player (payload version ${payload.version ?? "none"}; ` +
      `this player reads version ${PAYLOAD_VERSION}). Open it again from the app, or save the demo again.`;
    return () => {};
  }
  const old = STATE.get(root);
  // The same study shown the same way keeps its player; presenter mode or the text size
  // lays it out anew (one payload serves every display).
  const view = [payload.id, Boolean(payload.present), payload.text_scale || 1].join("|");
  if (old && old.view === view) {
    if (options) old.options = options;
    old.checkTheme();
    old.setLesson(payload.lesson);
    const want = sceneStep(payload);
    if (payload.exact_step && want !== old.j) old.go(Math.max(0, Math.min(want, old.n)), "scene");
    return old.cleanup;
  }
  let step = sceneStep(payload);
  if (old) {
    if (old.payload.page === payload.page && !payload.exact_step) step = Math.min(old.j, payload.n_steps);  // a setting changed: stay on the step (a scene of a lesson sets exact_step: its own)
    old.destroy();
  }
  if (payload.present && (!old || !old.payload.present)) foldSidebar();
  const player = new Player(root, Object.assign(payload, { step }), options);
  player.view = view;
  if (old) { player.whole = old.whole && player.hasReveal; if (player.wholeBox) player.wholeBox.checked = player.whole; }
  player.payloadBytes = typeof data === "string" ? data.length : null;  // (an object's size: its sender knows it)
  STATE.set(root, player);
  // Who wants the player (the browser tests, the latency benchmark) hears of it, as of
  // every step drawn ("mpl-rendered", "mpl-settled"): nothing is left on window for them.
  document.dispatchEvent(new CustomEvent("mpl-mounted", { detail: player }));
  if (!player.options.onStep) {
    player.path = window.location.pathname;
    window.__mplLive = player;
    keepStepInAddress();
    player.writeUrl();  // a step kept from before a setting changed, or a scene's own
  }
  player.cleanup = () => {
    player.destroy();
    STATE.delete(root);
    if (window.__mplLive === player) window.__mplLive = null;
  };
  return player.cleanup;
}

const INFLATED = new WeakMap();  // root -> {key, text}: the last study's text mounted there

function fingerprint(bytes) {  // FNV-1a over the compressed bytes: the same study, inflated once
  let h = 2166136261;
  for (let i = 0; i < bytes.length; i += 1) { h ^= bytes[i]; h = Math.imul(h, 16777619); }
  return `${bytes.length}:${h >>> 0}`;
}

async function inflateGzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

// A packed payload (ui/player.py `packed`, a frame starting "MPLZ"): the study's
// gzip-compressed payload, inflated here.
function mountPacked(root, { head, rest: gz }, options) {
  return mountText(root, head, fingerprint(gz), () => inflateGzip(gz), options);
}

// The study's text (`load()`, unless the same study was mounted here last), with the
// per-view fields `head`; the latest call wins.
function mountText(root, head, key, load, options, onFailure) {
  const token = {};
  PENDING.set(root, token);
  const apply = (text) => {
    if (PENDING.get(root) !== token) return;  // a later call is on its way
    INFLATED.set(root, { key, text });
    mount(root, Object.assign(JSON.parse(text), head), options);
    const player = STATE.get(root);
    if (player) player.payloadBytes = text.length;
  };
  const known = INFLATED.get(root);
  if (known && known.key === key) apply(known.text);
  else load().then(apply, (error) => {
    if (PENDING.get(root) !== token) return;
    if (onFailure) onFailure(error);
    else root.textContent = "The study could not be read: " + error.message;
  });
  return () => { PENDING.delete(root); const player = STATE.get(root); if (player) player.cleanup(); };
}
const PENDING = new WeakMap();

// The player mounted in a Streamlit component: `mountWith(root, options, askInline)` mounts
// its payload.
function attach(component, mountWith) {
  // In a guided lesson, past the scene's steps the player asks Streamlit for the next or
  // previous scene (ui/guide.py); elsewhere it has nothing to ask.
  const root = component.parentElement;
  const options = { onPastEnd: (direction) => {
    const player = STATE.get(root);
    if (player && player.guide) component.setTriggerValue("scene", direction);
  } };
  // The Save menu (ui/board.py, the popover keyed "save-menu") saves the demo at the step
  // on screen: the server does not see the steps taken here, so pressing Save tells it (one
  // rerun, in which the menu's items are made again).
  const onSave = (event) => {
    const player = STATE.get(root);
    if (player && event.target && event.target.closest && event.target.closest(".st-key-save-menu")) {
      component.setStateValue("shown_step", player.j);
    }
  };
  document.addEventListener("click", onSave, true);
  // When a referenced payload cannot be fetched (the server no longer keeps it), the page
  // is asked to send the bytes inline (one rerun).
  const askInline = () => component.setStateValue("inline", true);
  const cleanup = mountWith(root, options, askInline);
  return () => { document.removeEventListener("click", onSave, true); if (cleanup) cleanup(); };
}

export default function (component) {
  const packed = framed(component.data, "MPLZ");
  return attach(component, (root, options) => (packed
    ? mountPacked(root, packed, options) : mount(root, component.data, options)));
}

// A referenced payload (ui/player_loader.js): its per-view fields `head`, its `name`, and the
// promise of its text, which the loader started fetching before this script arrived.
export function mountFetched(component, head, name, text) {
  return attach(component, (root, options, askInline) => mountText(root, head, name, () => text, options, askInline));
}
