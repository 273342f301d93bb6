// The step player's component script (ui/component.py `_boot` fills in the addresses, relative
// to the page, and the adapter's module graph): Streamlit runs it inline.  Everything the first draw needs starts
// at once -- plotly.js, the study's payload when the component names it, and the player's
// Streamlit adapter -- each through the player's own modules, imported by their address.
// Served by the app, the modules' address names their version, so a browser keeps them
// until the player changes.
const BASE = "__MODULES__";
const WHERE = { plotly: "__PLOTLY__", payloads: "__PAYLOADS__", views: "__VIEWS__" };
const GRAPH = "__GRAPH__";  // every module the adapter imports, however deep
const address = (name) => new URL(BASE + name, document.baseURI).href;

// Every module asked for at once (modulepreload), not one import level after another.
function preload() {
  for (const name of GRAPH) {
    const href = address(name);
    if (document.querySelector(`link[rel="modulepreload"][href="${href}"]`)) continue;
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.append(link);
  }
}

export default function (component) {
  preload();
  import(address("plotly.js")).then((module) => module.loadPlotly(new URL(WHERE.plotly, document.baseURI).href))
    .catch(() => {});  // the player reports a failure
  import(address("fetching.js")).then((module) => {
    const reference = module.reference(component.data);
    if (reference) module.fetched(new URL(WHERE.payloads + reference.name, document.baseURI).href).catch(() => {});
  }).catch(() => {});
  let cleanup = null, gone = false;
  import(address("streamlit.js")).then((adapter) => {
    if (!gone) cleanup = adapter.attach(component, WHERE);
  }).catch((error) => {
    component.parentElement.textContent = "The step player could not load: " + error.message + ". Reload the page.";
  });
  return () => { gone = true; if (cleanup) cleanup(); };
}
