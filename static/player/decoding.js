// A study's text parsed and decoded (decode.js decodeStudy) off the page's main thread, in a
// worker (decode-worker.js), so that a setting's new study never holds up a key, a click or a
// frame while it is read.  Where no worker starts (a browser that refuses module workers; a
// module loaded from a blob URL, which cannot name a worker's script beside it), or when the
// worker fails, the study is decoded on the main thread, as before.  (A saved page reads its
// studies itself, on the main thread: standalone.js.)

import { decodeStudy, PAYLOAD_VERSION } from "./decode.js";

const WAITING = new Map();  // id -> {text, resolve, reject}: the studies the worker holds
let worker;  // undefined until first asked; null when none could start or it failed
let asked = 0;

// The study decoded here, on the main thread: {study, where: "page"}.
function onThePage(text) {
  const study = JSON.parse(text);
  if (study.version === PAYLOAD_VERSION) decodeStudy(study, 1);
  return { study, where: "page" };
}

// The worker failed (its script did not load, or a message could not be read): the studies
// it held are decoded here, and every later one too.
function giveUp() {
  if (worker) worker.terminate();
  worker = null;
  const held = [...WAITING.values()];
  WAITING.clear();
  for (const { text, resolve, reject } of held) {
    try { resolve(onThePage(text)); } catch (error) { reject(error); }
  }
}

function started() {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL("./decode-worker.js", import.meta.url), { type: "module" });
  } catch (error) {
    worker = null;
    return worker;
  }
  worker.onmessage = ({ data }) => {
    const waiting = WAITING.get(data.id);
    if (!waiting) return;
    WAITING.delete(data.id);
    if (data.error) waiting.reject(new Error(data.error));
    else waiting.resolve({ study: data.study, where: "worker" });
  };
  worker.onerror = (event) => { event.preventDefault(); giveUp(); };
  worker.onmessageerror = giveUp;
  return worker;
}

// Start the worker ahead of the first study (a page's first mount), so that a setting's
// change does not wait for it to load.
export function warmDecoding() {
  started();
}

// A promise of {study, where}: the study of text `text` parsed and decoded at text size 1
// (decode.js atScale lays it out at another), "worker" or "page" where it was decoded.  A
// study of another payload version comes parsed, not decoded.  Rejected with decodeStudy's
// error for a study it cannot read.
export function decodedStudy(text) {
  if (!started()) {
    try { return Promise.resolve(onThePage(text)); } catch (error) { return Promise.reject(error); }
  }
  const id = ++asked;
  return new Promise((resolve, reject) => {
    WAITING.set(id, { text, resolve, reject });
    worker.postMessage({ id, text });
  });
}
