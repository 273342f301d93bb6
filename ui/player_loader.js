// The step player as Streamlit mounts it when the app serves its own routes (ui/player.py
// `routes`, server.py): the component's data is then a reference to the study's payload
// ("MPLR", the length of the per-view JSON, that JSON, the payload's name).  Everything the
// first draw needs starts at once and in parallel -- the payload (gzip-encoded, named by its
// content's hash, so the browser keeps it), plotly.js and the player (ui/player.js, kept
// until its version changes) -- instead of one after the other from inside the player.
const PLAYER = "__PLAYER_URL__";
const PLOTLY = "__PLOTLY_URL__";
const PAYLOADS = "__PAYLOADS_URL__";  // + a payload's name
const REFERENCE = [77, 80, 76, 82];

function referenced(data) {
  if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) return null;
  const bytes = new Uint8Array(data.buffer || data, data.byteOffset || 0, data.byteLength);
  if (bytes.length <= 8 || !REFERENCE.every((b, i) => bytes[i] === b)) return null;
  const size = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4);
  const decoder = new TextDecoder();
  return { head: JSON.parse(decoder.decode(bytes.subarray(8, 8 + size))), name: decoder.decode(bytes.subarray(8 + size)) };
}

function fetched(name) {  // the payload's text, fetched once per name on this page
  const known = window.__mplFetched;
  if (known && known.name === name) return known.text;
  const text = fetch(new URL(PAYLOADS + name, document.baseURI).href).then((response) => {
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    return response.text();
  });
  text.catch(() => { if (window.__mplFetched && window.__mplFetched.text === text) window.__mplFetched = null; });
  window.__mplFetched = { name, text };
  return text;
}

function preloadPlotly() {  // the promise the player's loadPlotly waits on
  if (window.Plotly || window.__mplPlotly) return;
  window.__mplPlotly = new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = new URL(PLOTLY, document.baseURI).href;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => { window.__mplPlotly = null; reject(new Error("could not load " + PLOTLY)); };
    document.head.appendChild(script);
  });
  window.__mplPlotly.catch(() => {});  // the player reports it
}

export default function (component) {
  const reference = referenced(component.data);
  const text = reference ? fetched(reference.name) : null;
  preloadPlotly();
  let cleanup = null, gone = false;
  import(new URL(PLAYER, document.baseURI).href).then((player) => {
    if (gone) return;
    cleanup = reference ? player.mountFetched(component, reference.head, reference.name, text) : player.default(component);
  }).catch((error) => {
    component.parentElement.textContent = "The step player could not load: " + error.message + ". Reload the page.";
  });
  return () => { gone = true; if (cleanup) cleanup(); };
}
