// The saved page's entry (views/export.py): the page holds plotly.js and each scene's payload
// gzip-compressed, the same payloads the app sends; it inflates them here, mounts the player
// on a scene, and keeps the scene, step, text size, presenter mode and theme in the
// address's fragment (#scene=2&step=5&text=125), so a link, a reload or a bookmark reopens
// the same view.  Nothing is fetched: no server, no network.

import { bytesOf, inflate } from "./decode.js";
import { mount, playerIn } from "./mount.js";

const DATA = JSON.parse(document.getElementById("mx-data").textContent);
const SIZES = [100, 125, 150];
const ROOT = document.getElementById("mx-player");
const SYSTEM_DARK = Boolean(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
const view = readFragment();
const texts = new Map();

function readFragment() {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const whole = (name) => (/^\d+$/.test(params.get(name) || "") ? Number(params.get(name)) : null);
  const scene = whole("scene");
  return {
    scene: scene === null ? 0 : Math.max(0, Math.min(DATA.scenes.length, scene) - 1),
    step: whole("step"),
    text: SIZES.includes(whole("text")) ? whole("text") : (SIZES.includes(DATA.text) ? DATA.text : 100),
    present: params.get("present") !== "0",
    dark: params.has("theme") ? params.get("theme") === "dark" : SYSTEM_DARK,
  };
}

function writeFragment(step) {
  const params = new URLSearchParams();
  if (DATA.scenes.length > 1) params.set("scene", String(view.scene + 1));
  if (step) params.set("step", String(step));
  if (view.text !== (DATA.text || 100)) params.set("text", String(view.text));
  if (!view.present) params.set("present", "0");
  if (view.dark !== SYSTEM_DARK) params.set("theme", view.dark ? "dark" : "light");
  const hash = params.toString();
  const url = window.location.href.split("#")[0] + (hash ? "#" + hash : "");
  try {
    window.history.replaceState(window.history.state, "", url);
  } catch (error) {  // some sandboxed frames refuse it; the view still works, unlinked
    try { window.location.replace(url); } catch (ignored) { /* not linkable here */ }
  }
}

// A scene's payload: its study (kept once in the file, however many scenes show it) with
// the scene's own view -- step, display, narration -- merged in, as views/player.py merges them.
function sceneText(index) {
  const scene = DATA.scenes[index];
  if (!texts.has(scene.study)) texts.set(scene.study, inflate(bytesOf(DATA.studies[scene.study])));
  return texts.get(scene.study).then((study) => scene.view === "{}" ? study : study.slice(0, -1) + "," + scene.view.slice(1));
}

async function installPlotly() {
  if (window.Plotly) return;
  const script = document.createElement("script");
  script.textContent = await inflate(bytesOf(DATA.plotly));
  document.head.appendChild(script);  // a classic script: runs now, and defines window.Plotly
}

const options = {
  onStep: (j) => writeFragment(j),
  onPastEnd: DATA.scenes.length > 1 ? (direction) => {
    const next = view.scene + direction;
    if (next >= 0 && next < DATA.scenes.length) show(next, direction > 0 ? null : "end");
  } : undefined,
};

async function show(index, step) {
  const text = await sceneText(index);
  const payload = JSON.parse(text);
  payload.present = view.present;
  payload.text_scale = view.text / 100;
  payload.id = payload.id + "-" + index;  // each scene its own player (the id is also a CSS name: plain characters)
  // A scene opens on its own step (a guided lesson's scene may start further on); back
  // from the next scene, a preset opens on its last step, a guided scene on its start.
  if (step === "end") step = payload.lesson && payload.lesson.guide ? null : Infinity;
  if (step !== null && step !== undefined) payload.step = Math.min(step, payload.n_steps);
  payload.exact_step = true;
  const loading = document.getElementById("mx-loading");
  if (loading) loading.remove();
  view.scene = index;
  mount(ROOT, payload, options);
  shown().payloadBytes = text.length;
  renderChrome();
  writeFragment(shown().j);
  ROOT.dispatchEvent(new CustomEvent("mx-scene", { bubbles: true, detail: { scene: index } }));
}

function shown() { return playerIn(ROOT); }  // the player on the page
function currentStep() { return shown() ? shown().j : view.step; }

// --- the page's own controls ---------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function tag(name, attributes, text) {
  const node = document.createElement(name);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderChrome() {
  const scene = DATA.scenes[view.scene];
  document.documentElement.style.setProperty("--mx-scale", String(1 + (view.text / 100 - 1) / 2));
  document.documentElement.classList.toggle("mx-dark", view.dark);
  $("mx-present").checked = view.present;
  $("mx-dark").checked = view.dark;
  for (const button of $("mx-sizes").children) button.setAttribute("aria-pressed", String(Number(button.value) === view.text));
  if (DATA.scenes.length > 1) {
    $("mx-scene").value = String(view.scene);
    $("mx-prev").disabled = view.scene === 0;
    $("mx-next").disabled = view.scene === DATA.scenes.length - 1;
  }
  const made = $("mx-made");
  made.replaceChildren();
  made.append("Made with Matching Pursuit Lab " + DATA.version + " on " + DATA.made + " from " + scene.page + ", " +
    scene.settings + ". Everything it shows is in this file: it needs no server and no network. ");
  if (scene.url) {
    const link = tag("a", { href: scene.url, target: "_blank", rel: "noopener" }, "Open these settings in the app");
    made.append(link, " (" + scene.url + ", where the app runs).");
  }
}

// After a control of the page, the keys go to the player again (a focused scene menu would
// take the clicker's PageDown as its own; a focused button would take the space bar).
function refocus() { if (shown()) shown().takeFocus(true); }

function buildChrome() {
  document.title = DATA.title;
  $("mx-title").textContent = DATA.heading;
  for (const size of SIZES) {
    const button = tag("button", { type: "button", class: "mpl-btn", value: String(size), "aria-pressed": "false",
      title: "Size of the text in every chart, for the back of the room" }, size + "%");
    button.addEventListener("click", () => { view.text = size; show(view.scene, currentStep()).then(refocus); });
    $("mx-sizes").append(button);
  }
  $("mx-present").addEventListener("change", (event) => {
    view.present = event.target.checked;
    show(view.scene, currentStep()).then(refocus);
  });
  $("mx-dark").addEventListener("change", (event) => {
    view.dark = event.target.checked;
    renderChrome();
    if (shown()) shown().checkTheme();
    refocus();
    writeFragment(currentStep());
  });
  if (DATA.scenes.length > 1) {
    $("mx-scenes").hidden = false;
    DATA.scenes.forEach((scene, index) => $("mx-scene").append(tag("option", { value: String(index) }, (index + 1) + ". " + scene.name)));
    $("mx-scene").addEventListener("change", (event) => show(Number(event.target.value), null).then(refocus));
    $("mx-prev").addEventListener("click", () => show(view.scene - 1, null).then(refocus));
    $("mx-next").addEventListener("click", () => show(view.scene + 1, null).then(refocus));
  }
  // A link opened in the same page (the fragment edited by hand, back / forward) shows its view.
  window.addEventListener("hashchange", () => {
    const wanted = readFragment();
    Object.assign(view, { text: wanted.text, present: wanted.present, dark: wanted.dark });
    show(wanted.scene, wanted.step === null ? 0 : wanted.step);
  });
}

async function start() {
  buildChrome();
  renderChrome();
  try {
    await Promise.all([installPlotly(), sceneText(view.scene)]);
    await show(view.scene, view.step);
  } catch (error) {
    const loading = $("mx-loading");
    const message = "The charts could not load: " + error.message +
      (typeof DecompressionStream === "undefined" ? " (this browser is too old: it lacks DecompressionStream)" : "");
    if (loading) loading.textContent = message; else ROOT.append(tag("p", {}, message));
  }
}

start();
