// A saved page's loader (views/export.py makes it the page's one script): the page carries the
// player's modules as text (#mx-modules, by file name).  Each becomes a blob URL whose
// imports of "./name.js" point to the others' blob URLs, then the saved page's entry,
// standalone.js, is imported.  Nothing is fetched from the network.
const SOURCES = JSON.parse(document.getElementById("mx-modules").textContent);
const URLS = new Map();
const IMPORT = /(\bfrom\s*)"\.\/([\w-]+\.js)"/g;

function url(name) {
  if (!URLS.has(name)) {
    const text = SOURCES[name].replace(IMPORT, (match, head, dependency) => `${head}"${url(dependency)}"`);
    URLS.set(name, URL.createObjectURL(new Blob([text], { type: "text/javascript" })));
  }
  return URLS.get(name);
}

import(url("standalone.js")).catch((error) => {
  document.getElementById("mx-player").textContent = "The player could not start: " + error.message;
});
