// Mounting the player in a root element: one way in for the app (streamlit.js) and a saved
// page (standalone.js).  A payload arrives as a study's gzip-compressed text (inflated once
// per study) with the fields of the view on top (the step, the lesson line, presenter mode,
// the text size: views/player.py `_view`).  The same study again keeps its player and step;
// another study, or the same at another text size, replaces it, on the same step when only a
// setting of the same page changed, and is drawn into the old player's plots unless presenter
// mode changed (Player.handOver).  A study's text is read (parsed and decoded) off the main
// thread, by decoding.js, at 100%; another text size is laid out from that (decode.js atScale).
//
// options: onStep(j), the step on screen (kept in the address or a page's fragment);
// onPastEnd(+1 / -1), a forward key on a scene's last step or a backward key on its first
// (the next or previous scene of a lesson); onMount(player, old), a new player made (old:
// the one it replaces, or null), where it may say the step it opened on.

import { atScale, fingerprint, inflate, PAYLOAD_VERSION } from "./decode.js";
import { decodedStudy, warmDecoding } from "./decoding.js";
import { stored } from "./dom.js";
import { sceneKey } from "./guide.js";
import { Player } from "./player.js";

const STATE = new WeakMap();  // root -> its player
const INFLATED = new WeakMap();  // root -> {key, text}: the last study's text mounted there
// (the last few a page read are fetching.js's: a setting changed back draws without a fetch)
const PENDING = new WeakMap();  // root -> the latest mountText call's token
// The last few studies decoded on this page, by name and text size, without any view's fields:
// a setting changed back, or another text size, draws without decoding its study again.
const DECODED = new Map();  // "name|scale" -> the study (decode.js decodeStudy), the latest last
const DECODED_KEPT = 8;  // (as many as fetching.js keeps texts)

// A study kept by `name` ("key|scale"), made the latest; or undefined.
function recall(name) {
  const study = DECODED.get(name);
  if (study) { DECODED.delete(name); DECODED.set(name, study); }
  return study;
}

function keep(name, study) {
  DECODED.set(name, study);
  if (DECODED.size > DECODED_KEPT) DECODED.delete(DECODED.keys().next().value);
  return study;
}

// The study decoded at 100% laid out for the text size `scale` (decode.js atScale: a copy of
// its plain objects, its arrays shared), kept; a study of another payload version as it is.
function laidOut(key, base, scale) {
  if (base.version !== PAYLOAD_VERSION || scale === 1) return base;
  return keep(key + "|" + scale, atScale(base, scale));
}

// The study named `key` at the text size `scale`, if it or its decoding at 100% is one of
// the last few on this page: {study, where: "kept"}; else null.
function keptStudy(key, scale) {
  const at = recall(key + "|" + scale);
  if (at) return { study: at, where: "kept" };
  const base = recall(key + "|1");
  return base ? { study: laidOut(key, base, scale), where: "kept" } : null;
}

// A promise of the study named `key`, of text `text`, at the text size `scale`: decoded at
// 100% off the main thread (decoding.js), then laid out at `scale`, both kept: {study, where}.
function decodedOf(key, text, scale) {
  return decodedStudy(text).then(({ study, where }) => ({ study: laidOut(key, keep(key + "|1", study), scale), where }));
}

// The player mounted in `root`, if any.
export function playerIn(root) {
  return STATE.get(root) || null;
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

// How a payload is shown (presenter mode, the text size), and that with its study: its view.
const displayOf = (payload) => [Boolean(payload.present), payload.text_scale || 1].join("|");
const viewOf = (payload) => payload.id + "|" + displayOf(payload);

// Mount (or update) the player in `root` with a decoded payload object.
export function mount(root, payload, options) {
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
  const display = displayOf(payload);
  const view = viewOf(payload);
  if (old && old.view === view) {
    if (options) old.options = options;
    old.payload.address = payload.address;  // (a scene of the same study is another view of it)
    old.payload.dragged = payload.dragged;  // (the release's rerun names the study a drag showed)
    old.checkTheme();
    old.setLesson(payload.lesson);
    const want = sceneStep(payload);
    if (payload.exact_step && want !== old.j) old.go(Math.max(0, Math.min(want, old.n)), "scene");
    // a live class hears the view on screen, as after a mount
    document.dispatchEvent(new CustomEvent("mpl-shown", { detail: old }));
    return old.cleanup;
  }
  let step = sceneStep(payload);
  let plots = null;
  if (old) {
    if (old.payload.page === payload.page && !payload.exact_step) step = Math.min(old.j, payload.n_steps);  // a setting changed: stay on the step (a scene of a lesson sets exact_step: its own)
    // A setting of the same page, or another text size: the study is drawn into the plots on
    // screen (a Plotly.react of what changed), not into new ones.  Presenter mode, which lays
    // the panels out anew, gets new ones.
    if (old.payload.page === payload.page && Boolean(old.payload.present) === Boolean(payload.present)) plots = old.handOver();
    old.destroy();
  }
  const player = new Player(root, Object.assign(payload, { step }), options, plots);
  player.view = view;
  player.display = display;
  if (old) { player.whole = old.whole && player.hasReveal; if (player.wholeBox) player.wholeBox.checked = player.whole; }
  STATE.set(root, player);
  player.cleanup = () => {
    player.destroy();
    STATE.delete(root);
  };
  if (player.options.onMount) player.options.onMount(player, old || null);
  // Who wants the player (the browser tests, the latency benchmark) hears of it, as of
  // every step drawn ("mpl-rendered", "mpl-settled"): nothing is left on window for them.
  document.dispatchEvent(new CustomEvent("mpl-mounted", { detail: player }));
  return player.cleanup;
}

// A study's text (`load()`: a promise, called unless the study `key` names was mounted here
// last) with the per-view fields `head` on top; the latest call for a root wins.
export function mountText(root, head, key, load, options, onFailure) {
  warmDecoding();  // (the worker loads while the study is fetched)
  const token = {};
  PENDING.set(root, token);
  // The study on screen again (the page's rerun after a picture drawn at a setting's change,
  // or after a step was saved): its view fields on the player as it is, its text not read again
  const player = STATE.get(root);
  if (player && player.payloadName === key) {
    const base = player.payload;
    const same = Object.assign({ version: base.version, id: base.id, page: base.page, n_steps: base.n_steps }, head);
    if (viewOf(same) === player.view) {
      mount(root, same, options);
      return () => { PENDING.delete(root); const shown = STATE.get(root); if (shown) shown.cleanup(); };
    }
  }
  const fail = (error) => {
    if (PENDING.get(root) === token) root.textContent = "The study could not be read: " + error.message;
  };
  const show = ({ study, where }, text) => {
    if (PENDING.get(root) !== token) return;  // a later call is on its way
    mount(root, Object.assign({}, study, head), options);
    const mounted = STATE.get(root);
    if (mounted) { mounted.payloadBytes = text.length; mounted.payloadName = key; mounted.decodedIn = where; }
  };
  const apply = (text) => {
    if (PENDING.get(root) !== token) return;
    INFLATED.set(root, { key, text });
    const scale = head.text_scale || 1;
    const ready = keptStudy(key, scale);
    if (ready) show(ready, text);  // at once: a setting come back to, or another text size
    else decodedOf(key, text, scale).then((decoded) => show(decoded, text), fail);
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

// A study's gzip-compressed payload `gz` (bytes), inflated here, with the view `head`.
export function mountPacked(root, head, gz, options) {
  return mountText(root, head, fingerprint(gz), () => inflate(gz), options);
}
