// The step player as Streamlit mounts it when the app serves its own routes (ui/player.py
// `routes`, server.py): the component's data is then a reference to the study's payload (a
// frame starting "MPLR" whose rest is the payload's name).  Everything the first draw needs
// starts at once and in parallel -- the payload (gzip-encoded, named by its content's hash,
// so the browser keeps it), plotly.js and the player (ui/player.js, kept until its version
// changes) -- instead of one after the other from inside the player.
const PLAYER = "__PLAYER_URL__";
const PLOTLY = "__PLOTLY_URL__";
const PAYLOADS = "__PAYLOADS_URL__";  // + a payload's name

/* __LOADING__: loadPlotly and framed, the section of ui/player.js that says it is the loader's */

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

export default function (component) {
  const reference = framed(component.data, "MPLR");
  const name = reference && new TextDecoder().decode(reference.rest);
  const text = reference ? fetched(name) : null;
  loadPlotly(PLOTLY).catch(() => {});  // the player reports a failure
  let cleanup = null, gone = false;
  import(new URL(PLAYER, document.baseURI).href).then((player) => {
    if (gone) return;
    cleanup = reference ? player.mountFetched(component, reference.head, name, text) : player.default(component);
  }).catch((error) => {
    component.parentElement.textContent = "The step player could not load: " + error.message + ". Reload the page.";
  });
  return () => { gone = true; if (cleanup) cleanup(); };
}
