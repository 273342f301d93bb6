// The step player's component script (ui/player.py `_boot` fills in the three addresses):
// Streamlit runs it inline, so it imports the player's Streamlit adapter by its address
// (relative to the page) and hands it the component.  The adapter's modules are named by
// their version, so a browser keeps them until the player changes.
const ENTRY = "__ENTRY__";
const WHERE = { plotly: "__PLOTLY__", payloads: "__PAYLOADS__" };

export default function (component) {
  let cleanup = null, gone = false;
  import(new URL(ENTRY, document.baseURI).href).then((adapter) => {
    if (!gone) cleanup = adapter.attach(component, WHERE);
  }).catch((error) => {
    component.parentElement.textContent = "The step player could not load: " + error.message + ". Reload the page.";
  });
  return () => { gone = true; if (cleanup) cleanup(); };
}
