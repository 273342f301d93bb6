// Reading what Python sends (views/player.py; its shape: views/payload.schema.json): the frame a
// payload or its reference travels in, typed arrays and quantised heatmaps decoded once at
// load, the steps sent as changes rebuilt, and a step's patch applied copy-on-write.
// Pure: no window, no document (tested under Node: tests/js).

import { scaleFonts } from "./theme.js";

// The payload's version this player reads (views/payload.schema.json, written by views/player.py):
// a payload of another version (a demo saved by another release) gets a sentence.
export const PAYLOAD_VERSION = 3;

// A frame (views/player.py `packed` and `reference`): the four characters `magic`, the length
// of the per-view JSON (4 bytes, big-endian), that JSON, then the rest (the study's
// gzip-compressed payload, or its name); null when `data` is not such a frame.
export function framed(data, magic) {
  if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) return null;
  const bytes = new Uint8Array(data.buffer || data, data.byteOffset || 0, data.byteLength);
  if (bytes.length <= 8 || ![...magic].every((c, i) => bytes[i] === c.charCodeAt(0))) return null;
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4);
  return { head: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + size))), rest: bytes.subarray(8 + size) };
}

const DTYPES = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array,
  i4: Int32Array, u4: Uint32Array };

export function bytesOf(b64) {
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

// The payload names each trace a frame patches, a prediction hides or a lowest-point
// marker follows by its uid, and each annotation or shape by its name (views/player.py checks
// every name); Plotly addresses them by their position in the figure, found here once, at
// load.  A name the figure lacks is an error: the study is not drawn half right.
export function byPosition(panel) {
  const traces = (panel.figure && panel.figure.data) || [];
  const position = new Map(traces.map((trace, i) => [trace.uid, i]));
  const at = (uid) => {
    if (!position.has(uid)) throw new Error(`the panel ${panel.key} names a trace its figure lacks (${uid})`);
    return position.get(uid);
  };
  for (const frame of panel.frames || []) {
    if (frame && frame.data) frame.data = Object.fromEntries(Object.entries(frame.data).map(([uid, attrs]) => [at(uid), attrs]));
  }
  panel.hide_when_predicting = (panel.hide_when_predicting || []).map(at);
  for (const trace of traces) {
    if (trace.meta && trace.meta.min_of !== undefined) trace.meta = Object.assign({}, trace.meta, { min_of: at(trace.meta.min_of) });
  }
  // annotations and shapes, by their `name`: in the frames' layout paths ("annotations.after-title.text")
  // and the reference lines the labels name (layout.meta.refs)
  const layout = (panel.figure && panel.figure.layout) || {};
  const place = (kind, name) => {
    const i = (layout[kind] || []).findIndex((item) => item.name === name);
    if (i < 0) throw new Error(`the panel ${panel.key} names ${kind} its figure lacks (${name})`);
    return i;
  };
  for (const frame of panel.frames || []) {
    if (!frame || !frame.layout) continue;
    frame.layout = Object.fromEntries(Object.entries(frame.layout).map(([path, value]) => {
      const [kind, name, ...rest] = path.split(".");
      return kind === "annotations" || kind === "shapes" ? [[kind, place(kind, name), ...rest].join("."), value] : [path, value];
    }));
  }
  for (const ref of (layout.meta && layout.meta.refs) || []) ref.shape = place("shapes", ref.shape);
  return panel;
}

// A heatmap's step sent as a change (views/player.py `as_changes`): the attribute's value in
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

// A criterion panel's trace at a step, sent as a reference (views/player.py `ScoreRow`): row
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

// A study's payload (its parsed JSON) decoded in place for the text size `scale`, once: its
// arrays typed, its steps' changes rebuilt, what its frames name found by position, its fonts
// scaled.  What the player reads of it is under `decoded`: {scale, scores, coords, hasReveal}.
// A payload decoded already is returned as it is (mount.js keeps the last few, so that a
// setting changed back is not decoded again).
export function decodeStudy(payload, scale) {
  if (payload.decoded) {
    if (payload.decoded.scale !== scale) throw new Error("a study decoded for one text size was drawn at another");
    return payload;
  }
  const scores = payload.scores ? decode(payload.scores) : null;
  const coords = payload.coords ? decode(payload.coords) : null;
  let hasReveal = false;
  for (const panel of payload.panels) {
    panel.figure = panel.figure ? decode(panel.figure) : null;
    const columns = panel.columns ? panel.columns.map(decode) : [];
    panel.frames = (panel.frames || []).map(decode);
    byPosition(panel);  // the payload names traces; Plotly addresses them by position
    panel.frames = resolveChanges(panel.frames.map((frame) => withScoreRows(frame, scores, columns)), panel.figure);
    if (panel.rings) panel.rings = decode(panel.rings);
    if (panel.figure) {
      scaleFonts(panel.figure, scale);
      panel.frames.forEach((frame) => scaleFonts(frame, scale));
      panel.figure.data.forEach((trace) => { if (trace.meta && trace.meta.reveal) hasReveal = true; });
      panel.light = panel.figure;
    }
  }
  payload.decoded = { scale, scores, coords, hasReveal };
  return payload;
}

// A study decoded at text size 1 (decodeStudy) laid out for the text size `scale`, as
// decodeStudy(payload, scale) would have it: a copy of its plain objects with every font
// and margin scaled, its arrays shared (the study itself is left as it is).  A text size
// chosen on the page then costs a copy, not a second decoding.
export function atScale(study, scale) {
  if (!study.decoded || study.decoded.scale !== 1) throw new Error("a study is laid out at another size from its size-1 decoding");
  if (scale === 1) return study;
  const copies = new Map();  // (what the study holds twice, as panel.light and panel.figure, is copied once)
  const copy = (value) => {
    if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return value;
    if (copies.has(value)) return copies.get(value);
    const out = Array.isArray(value) ? new Array(value.length) : {};
    copies.set(value, out);
    for (const key of Object.keys(value)) out[key] = copy(value[key]);
    return out;
  };
  const panels = study.panels.map((panel) => {
    const out = Object.assign({}, panel, { figure: copy(panel.figure), frames: panel.frames.map(copy), light: copy(panel.light) });
    delete out.dark;  // (the dark theme's copy, made from the figure at its own size)
    if (out.figure) {
      scaleFonts(out.figure, scale);
      out.frames.forEach((frame) => scaleFonts(frame, scale));
    }
    return out;
  });
  return Object.assign({}, study, { panels, decoded: Object.assign({}, study.decoded, { scale }) });
}

// A step's patch, applied copy-on-write: the base figure is never changed.

// Copy-on-write set of a dotted path ("marker.color"): the base figure is never changed.
export function setPath(target, path, value) {
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

export function patched(base, patch) {
  let out = base;
  for (const path of Object.keys(patch || {})) out = setPath(out, path, patch[path]);
  return out;
}

export function slice(values, n) {
  if (!values) return values;
  return ArrayBuffer.isView(values) ? values.subarray(0, n) : values.slice(0, n);
}

// A gzip-compressed payload's text (DecompressionStream: in every browser the app supports).
export async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

// FNV-1a over compressed bytes: the same study, inflated once.
export function fingerprint(bytes) {
  let h = 2166136261;
  for (let i = 0; i < bytes.length; i += 1) { h ^= bytes[i]; h = Math.imul(h, 16777619); }
  return `${bytes.length}:${h >>> 0}`;
}
