// The decoding worker's script (decoding.js starts it, as a module worker): a study's text
// parsed and decoded here at text size 1, off the page's main thread, and sent back with the memory of its
// typed arrays moved to the page, not copied.  A study of another payload version is sent
// back parsed and not decoded (mount.js says so on the page).

import { decodeStudy, PAYLOAD_VERSION } from "./decode.js";

// Every ArrayBuffer under `value`, once each (the decoded arrays share a few: a heatmap's
// rows are views of one buffer, and a step's trace may be its base figure's array).
function buffersOf(value, found = new Set(), seen = new Set()) {
  if (value === null || typeof value !== "object" || seen.has(value)) return found;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    found.add(value.buffer);
    return found;
  }
  if (Array.isArray(value)) for (const item of value) buffersOf(item, found, seen);
  else for (const key of Object.keys(value)) buffersOf(value[key], found, seen);
  return found;
}

self.onmessage = ({ data }) => {
  const { id, text } = data;
  let study;
  try {
    study = JSON.parse(text);
    if (study.version === PAYLOAD_VERSION) decodeStudy(study, 1);
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
    return;
  }
  self.postMessage({ id, study }, [...buffersOf(study)]);
};
