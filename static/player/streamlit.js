// The Streamlit adapter: everything of the player that touches Streamlit's page or the
// browser's history is here.  The component (ui/component.py, components v2) hands its data to
// `attach`: a payload reference (a frame starting "MPLR": the view, then the payload's name,
// fetched from the app's routes and kept by the browser by that name) or the payload
// itself, packed (a frame starting "MPLZ": the view, then the gzip-compressed study), which
// the page sends when it serves no routes, for an upload, or when a fetch failed.

import { framed } from "./decode.js";
import { followDrags } from "./drag.js";
import { fetched, reference } from "./fetching.js";
import { mountPacked, mountText, playerIn } from "./mount.js";
import { followPicks, followTextSize, pictureMemory } from "./pick.js";

// root -> {named, deliveries, drags, picks, sizes, memory, shown}: the reference the page's
// last run delivered, how many its runs have delivered, the following of its sliders (drag.js),
// of its selects and toggles and of the text size (pick.js), the pictures it has shown by
// their settings, and the one on screen.
const DELIVERED = new WeakMap();

// The page's address path (its last part: the app may sit under a base path).
const pagePath = () => window.location.pathname.replace(/\/+$/, "").split("/").pop();

// The pictures each page has shown, by their settings (pick.js), kept while the browser stays
// on the app: the page's player may be made anew (a rerun of the whole page), its memory not.
const MEMORIES = new Map();
const memoryOf = (path) => {
  if (!MEMORIES.has(path)) MEMORIES.set(path, pictureMemory());
  return MEMORIES.get(path);
};

// The view route's answer for this page at `query`: {name, address, values}, or null when it
// says no; rejected, with `again` set, when it says to ask again once this browser's views in
// flight are drawn (429).
function fetchView(where, query) {
  const url = new URL(where.views + encodeURIComponent(pagePath()) + "?" + query, document.baseURI).href;
  return fetch(url, { credentials: "same-origin" }).then((response) => {
    if (response.status === 429) throw Object.assign(new Error("asked again later"), { again: true });
    return response.ok ? response.json() : null;
  });
}

// History's own replaceState, before keepStepInAddress wraps it.
const REPLACE_STATE = (...args) =>
  (window.history.__mplReplaceState || window.history.replaceState).apply(window.history, args);

// The step in the address (?step=j), so that a copied address reopens it.
function writeStep(player) {
  const url = new URL(window.location.href);
  if (player.j) url.searchParams.set("step", String(player.j)); else url.searchParams.delete("step");
  if (url.href !== window.location.href) REPLACE_STATE(window.history.state, "", url.href);
}

// The address always carries the step on screen.  The steps are taken in the browser and
// the server never sees them; when a rerun changes the query (a setting changed on step 3:
// the player stays on step 3), Streamlit writes the address the server asked for, which has
// no step.  So after any address write on the live player's page that is not the player's
// own, the player's step is written again.  The live player is kept on the window, not in
// this module: a second copy of the module (a newer version loaded by a long-open page)
// finds the one hook already in place.
function keepStepInAddress() {
  if (window.history.__mplReplaceState) return;
  window.history.__mplReplaceState = window.history.replaceState;
  for (const name of ["pushState", "replaceState"]) {
    const write = window.history[name];
    window.history[name] = function (...args) {
      const result = write.apply(this, args);
      const live = window.__mplLive;
      if (live && !live.destroyed && window.location.pathname === live.path) writeStep(live);
      return result;
    };
  }
}

// Entering presenter mode folds Streamlit's sidebar away (a link with ?present=1 opens
// with it folded already, from the page config); the ">>" button brings it back.
function foldSidebar() {
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  if (!sidebar || sidebar.getAttribute("data-collapsed") !== "false") return;
  const button = sidebar.querySelector('[data-testid="stSidebarCollapseButton"] button, [data-testid="stSidebarHeader"] button');
  if (button) button.click();
}

// The player in a Streamlit component.  `where.payloads`: the URL of the payloads (a
// payload's name appended), relative to the page (ui/component.py `_boot`).  The component's
// script (boot.js) has already started plotly.js and, for a reference, the payload.
export function attach(component, where) {
  const root = component.parentElement;
  const named = reference(component.data);
  const packed = named ? null : framed(component.data, "MPLZ");
  if (!named && !packed) {
    root.textContent = "The step player received no study. Reload the page.";
    return () => {};
  }
  const options = {
    onStep: () => { const player = playerIn(root); if (player) writeStep(player); },
    dragging: () => { const runs = DELIVERED.get(root); return Boolean(runs && runs.drags && runs.drags.dragging()); },
    // In a guided lesson, past the scene's steps the player asks Streamlit for the next or
    // previous scene (ui/guide.py); elsewhere it has nothing to ask.
    onPastEnd: (direction) => {
      const player = playerIn(root);
      if (player && player.guide) component.setTriggerValue("scene", direction);
    },
    onMount: (player, old) => {
      if (player.payload.present && (!old || !old.payload.present)) foldSidebar();
      player.path = window.location.pathname;
      window.__mplLive = player;
      keepStepInAddress();
      writeStep(player);  // a step kept from before a setting changed, or a scene's own
    },
  };
  // The Save menu (ui/board.py, the popover keyed "save-menu") saves the demo at the step
  // on screen: the server does not see the steps taken here, so pressing Save tells it (one
  // rerun, in which the menu's items are made again).
  const onSave = (event) => {
    const player = playerIn(root);
    if (player && event.target && event.target.closest && event.target.closest(".st-key-save-menu")) {
      component.setStateValue("shown_step", player.j);
    }
  };
  document.addEventListener("click", onSave, true);
  let cleanup;
  const runs = DELIVERED.get(root) || { deliveries: 0, drags: null, picks: null, memory: memoryOf(pagePath()) };
  DELIVERED.set(root, runs);
  runs.deliveries += 1;
  runs.named = named || { head: {} };  // (an upload's study, packed: none of its settings is followed)
  runs.shown = runs.named;
  if (named) {
    const url = (name) => new URL(where.payloads + name, document.baseURI).href;
    // When the payload cannot be fetched (the server no longer keeps it), the page is asked
    // to send the bytes inline (one rerun).
    const askInline = () => component.setStateValue("inline", true);
    runs.memory.remember(named.head, named.name);
    cleanup = mountText(root, named.head, named.name, () => fetched(url(named.name)), options, askInline);
    // A slider of the page dragged: the picture at each value it passes, drawn before the
    // release; a select's option picked or a toggle switched: its picture drawn beside the
    // page's rerun
    if (!runs.drags && where.views && (named.head.settings || []).length) {
      const ask = (query) => fetchView(where, query);
      const show = (head, name) => {
        runs.shown = { head, name };
        runs.memory.remember(head, name);
        const cleanup = mountText(root, head, name, () => fetched(url(name)), options, askInline);
        if (!head.dragged) runs.picks.ahead();
        return cleanup;
      };
      runs.drags = followDrags(() => runs.named, () => runs.deliveries, ask, show,
        () => { const player = playerIn(root); if (player) player.render(); });
      runs.picks = followPicks(() => runs.shown, () => runs.deliveries, runs.memory, ask, show,
        (name) => fetched(url(name)));
      // another text size: the study on screen laid out at it, on the step on screen
      runs.sizes = followTextSize((scale) => {
        const player = playerIn(root);
        if (!player || player.scale === scale || player.payloadName !== runs.shown.name) return;
        show(Object.assign({}, runs.shown.head, { text_scale: scale, step: player.j }), runs.shown.name);
      });
    }
    if (runs.picks) runs.picks.ahead();
  } else {
    cleanup = mountPacked(root, packed.head, packed.rest, options);
  }
  return () => {
    document.removeEventListener("click", onSave, true);
    if (runs.drags) { runs.drags.stop(); runs.picks.stop(); runs.sizes(); runs.drags = runs.picks = runs.sizes = null; }
    cleanup();
  };
}
