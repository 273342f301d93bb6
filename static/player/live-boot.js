// The live class's component script (ui/live.py `_component` fills in where the player's
// modules are, relative to the page): the class's bar and its link to the step player are
// the module live.js, loaded once per page and kept by the browser with the player's.
const BASE = "__MODULES__";

export default function (component) {
  let cleanup = null, gone = false;
  import(new URL(BASE + "live.js", document.baseURI).href).then((module) => {
    if (!gone) cleanup = module.attach(component);
  }).catch((error) => {
    component.parentElement.textContent = "The live class could not load: " + error.message + ". Reload the page.";
  });
  return () => { gone = true; if (cleanup) cleanup(); };
}
