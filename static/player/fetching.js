// A study's payload named by a reference (views/player.py `reference`: a frame starting "MPLR",
// the view's fields, then the payload's name) and fetched by that name, once per page: the
// component's script starts the fetch before the player's modules have arrived, and the
// Streamlit adapter finds it under way.

import { framed } from "./decode.js";

// `{head, name}` of a payload reference, or null when `data` is not one.
export function reference(data) {
  const frame = framed(data, "MPLR");
  return frame ? { head: frame.head, name: new TextDecoder().decode(frame.rest) } : null;
}

const HELD = new Map();  // url -> text: the last payloads read, the latest last
const KEPT = 8;

// A payload's text, fetched once per name on this page (a second mount of the same study,
// or the page's early preload, finds it; one of the last few read is not fetched again).
export function fetched(url) {
  if (HELD.has(url)) {
    const text = HELD.get(url);
    HELD.delete(url);
    HELD.set(url, text);
    return Promise.resolve(text);
  }
  const known = window.__mplFetched;
  if (known && known.url === url) return known.text;
  const text = fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    return response.text();
  }).then((read) => {
    HELD.set(url, read);
    if (HELD.size > KEPT) HELD.delete(HELD.keys().next().value);
    return read;
  });
  text.catch(() => { if (window.__mplFetched && window.__mplFetched.text === text) window.__mplFetched = null; });
  window.__mplFetched = { url, text };
  return text;
}
