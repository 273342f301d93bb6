// The step player: every step of a study lives in the browser, so stepping never asks the
// server anything.  Python (views/player.py) sends one payload per study: a base Plotly figure
// per panel, and per step a small patch of what changes (trace arrays, titles, the step
// marker).  Going to step j applies patch j to each base figure and hands the result to
// Plotly, which redraws only what changed.
//
// Why not one Plotly figure with animation frames: the panels are separate figures laid out
// to fit a projector at every text size, the keys (and a presentation clicker) must work
// wherever the focus is, and pause must stop exactly on the step on screen; Plotly's own
// slider does none of those.
//
// This file is the player's core: its state, the toolbar, the text around the charts and
// going to a step.  Each other concern is a file of methods mixed in below: screens.js
// (layout), figures.js and drawing.js (the charts), labels.js, keys.js, guide.js (lessons),
// predict.js, tables.js (each chart's values for a screen reader).  The player knows
// nothing of Streamlit or of the page's address: whoever mounts it (mount.js, through
// streamlit.js or standalone.js) passes `options`.

import { decodeStudy } from "./decode.js";
import { el, isTyping, nextTask, scrollParent, SMALL_SCREEN, stored, storyNodes, swatch, usingKeyboard } from "./dom.js";
import { drawing, NEAR } from "./drawing.js";
import { figures } from "./figures.js";
import { guide, sceneKey } from "./guide.js";
import { keys, KEYS_HELP } from "./keys.js";
import { labels } from "./labels.js";
import { loadPlotly } from "./plotly.js";
import { predict } from "./predict.js";
import { screens } from "./screens.js";
import { tables } from "./tables.js";
import { pageIsDark, recolour } from "./theme.js";

const SPEEDS = [0.5, 1, 2, 4];
// A key item by what it draws, to find the one several panels share.
const itemKey = (item) => item.kind + "|" + item.symbol + "|" + item.colour + "|" + item.text;
const REDUCED_MOTION = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");

export class Player {
  // options (the standalone page's, views/export.py): onStep(j) keeps the step somewhere else
  // than the URL's query; onPastEnd(+1 / -1) is called by a forward key on the last step
  // or a backward key on step 0 (the next or previous scene of a lesson).
  // plots: the drawn plots of the player this one replaces, by panel key, with the Plotly
  // calls still running on them (handOver): the new study is drawn into them.
  constructor(root, payload, options, plots) {
    this.root = root;
    this.options = options || {};
    this.inflight = new Set();
    this.adopted = plots || null;
    const running = plots ? plots.running : [];  // the old player's last draws on them finish first
    this.setData(payload);
    this.j = Math.max(0, Math.min(payload.step || 0, this.n));
    this.playing = false;
    this.timer = null;
    this.speed = 1;
    this.guesses = { right: 0, total: 0 };
    this.guess = null;
    this.guessNote = "";
    this.predict = false;
    this.screen = 0;
    this.zoom = null;
    this.whole = this.hasReveal && stored("mpl-whole") === "1";
    this.dark = pageIsDark(root);
    this.build();
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    // (the player it replaces found it already: asked again, the page's new elements would be
    // styled here, in the mount's task, rather than in the draw's)
    const kept = plots && plots.scroller;
    this.scroller = kept && kept.isConnected && kept.contains(root) ? kept : scrollParent(root);
    this.resizing = null;
    const relayout = () => {
      if (this.resizing) return;
      this.resizing = requestAnimationFrame(() => { this.resizing = null; this.layout(); });
    };
    this.observer = new ResizeObserver(relayout);
    // A scrolling section (Streamlit's) is observed; the page itself is not -- its height
    // is the content's, which the first draw changes (a needless second draw): the window's
    // resize event covers it.
    if (this.scroller !== document.scrollingElement && this.scroller !== document.documentElement) this.observer.observe(this.scroller);
    this.observer.observe(this.top);
    // a panel out of view is drawn as it comes into view (drawing.js catchUp)
    this.seen = new IntersectionObserver(() => this.catchUp(), { rootMargin: NEAR * 100 + "% 0px" });
    for (const cell of this.cells) this.seen.observe(cell.cell);
    this.onResize = relayout;
    window.addEventListener("resize", this.onResize);
    // the theme can change under us (the app's settings menu, the system): check now and then
    this.themeWatch = setInterval(() => this.checkTheme(), 1000);
    // The charts are drawn a task after the player is built, so that no one task holds the
    // page for both (a key pressed in between is answered)
    this.ready = Promise.all([loadPlotly(payload.plotly_url), ...running, nextTask()]).then(([Plotly]) => {
      if (this.destroyed) return;
      this.Plotly = Plotly;
      for (const plot of this.unused) Plotly.purge(plot);  // kept plots no panel of this study took
      this.unused = [];
      this.layout();
    }).catch((error) => { this.story.textContent = "The charts could not load: " + error.message; });
    this.takeFocus();
  }

  setData(payload) {
    this.payload = payload;
    this.id = payload.id;
    this.n = payload.n_steps;
    this.scale = payload.text_scale || 1;
    // The charts' text grows with the text size; the toolbar, story and keys grow half as
    // much (18 px at 150%), so that at 150% they still leave a 1280 x 720 screen room for charts.
    this.chrome = 1 + (this.scale - 1) / 2;
    this.ink = {};
    for (const [key, value] of Object.entries(payload.ink || {})) this.ink[key.toLowerCase().replace(/ /g, "")] = value;
    const { scores, coords, hasReveal } = decodeStudy(payload, this.scale).decoded;
    this.scores = scores;
    this.coords = coords;
    this.hasReveal = hasReveal;
  }

  inkOf(colour) { return this.dark ? (this.ink[String(colour).toLowerCase().replace(/ /g, "")] || colour) : colour; }

  // The figure of a panel in the theme on screen (the dark copy is made once).
  base(panel) {
    if (!this.dark) return panel.light;
    if (!panel.dark) panel.dark = recolour(panel.light, this.ink);
    return panel.dark;
  }

  checkTheme() {
    const dark = pageIsDark(this.root);
    if (dark === this.dark) return;
    this.dark = dark;
    this.host.classList.toggle("mpl-dark", dark);
    this.renderShared();
    for (const cell of this.cells) { this.renderKey(cell); cell.mode = "full"; }
    this.render(true);
  }

  build() {
    const p = this.payload;
    // Our own child: the parent also holds the component's <style>, which must stay.
    let host = this.root.querySelector(":scope > .mpl-host");
    if (!host) { host = el("div", { class: "mpl-host" }); this.root.appendChild(host); }
    host.replaceChildren();
    host.setAttribute("tabindex", "-1");  // takes the focus back from a control, so the keys step
    host.classList.toggle("mpl-dark", this.dark);
    this.host = host;
    const bar = el("div", { class: "mpl-bar", role: "toolbar", "aria-label": "Step controls" });
    const button = (label, name, title, action, cls) => el("button", { class: "mpl-btn " + (cls || ""), title, type: "button",
      text: label, "aria-label": name, onclick: (event) => { action(); this.afterClick(event); } });
    const short = p.present || Boolean(SMALL_SCREEN && SMALL_SCREEN.matches);  // presenter mode: one line at 1280 px; a phone
    this.buttons = {
      reset: button(short ? "|◀" : "|◀ Reset", "Reset to step 0", "Back to step 0 (Home)", () => { this.pause(); this.go(0, "reset"); }),
      back: button(short ? "◀" : "◀ Back", "Back one step", "One step back (left arrow, PageUp)", () => this.forward(-1)),
      play: button("▶ Play", "Play", "Play or pause (space)", () => this.toggle(), "mpl-primary"),
      next: button(short ? "▶" : "Next ▶", "Next step", "One step forward (right arrow, PageDown)", () => this.forward(1)),
    };
    this.slider = el("input", { type: "range", min: "0", max: String(this.n), step: "1", value: String(this.j),
      class: "mpl-slider", "aria-label": "Step", title: p.slider_help || "Step j: the state after j greedy choices" });
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value), "slider"));
    this.label = el("span", { class: "mpl-label", "aria-hidden": "true" });
    this.status = el("span", { class: "mpl-sr", role: "status", "aria-live": "polite" });
    this.speedSelect = el("select", { class: "mpl-select", "aria-label": "Play speed", title: "Play speed: steps per second" },
      SPEEDS.map((s) => el("option", { value: String(s), text: s + "×" })));
    this.speedSelect.value = "1";
    // After a choice the focus leaves the control, so the arrow keys and space step again.
    this.speedSelect.addEventListener("change", () => { this.speed = Number(this.speedSelect.value); this.takeFocus(true); });
    bar.append(this.buttons.reset, this.buttons.back, this.buttons.play, this.buttons.next, this.slider, this.label, this.status,
      this.speedSelect);
    for (const mark of p.marks || []) {
      bar.append(button(short ? mark.short || mark.label : mark.label, mark.label, mark.help || "",
        () => { this.pause(); this.go(mark.step, "mark"); }, "mpl-mark"));
    }
    const toggle = (label, shortLabel, title, checked, change) => {
      const box = el("input", { type: "checkbox", class: "mpl-check", title });
      box.checked = checked;
      box.addEventListener("change", () => { change(box.checked); this.takeFocus(true); });
      bar.append(el("label", { class: "mpl-toggle", title }, [box, document.createTextNode(" " + (short ? shortLabel : label))]));
      return box;
    };
    if (p.predict) {
      this.predictBox = toggle("Predict the next pick", "Predict", "Predict the next pick: click the point you expect the criterion to choose",
        false, (on) => { this.predict = on; this.guess = null; this.guessNote = ""; this.render(true); this.tellPredict(); });
    }
    if (this.hasReveal) {
      this.wholeBox = toggle("Whole curves", "Whole", "Draw the curves to the end (W); off: up to the step shown, as the algorithm sees them",
        this.whole, (on) => this.setWhole(on));
    }
    if (!(REDUCED_MOTION && REDUCED_MOTION.matches)) {
      this.animateBox = toggle("Animate", "Animate", "Slide the points between steps", false, () => {});
    }
    this.screenButton = button("", "Next screen of panels", "Show the next screen of panels (V)", () => this.nextScreen(), "mpl-screens");
    this.keysButton = button(short ? "?" : "Keys", "Keyboard and clicker keys", "The keys a keyboard or a presentation clicker can use (?)", () => this.help(), "mpl-keys");
    bar.append(this.screenButton, this.keysButton);
    this.lesson = el("div", { class: "mpl-lesson" });
    this.setLesson(p.lesson);
    this.story = el("div", { class: "mpl-story" });
    this.quiz = el("div", { class: "mpl-quiz", "aria-live": "polite" });
    // A key item two panels share (the classes, test points, chosen, next pick) is said
    // once, above the grid; each panel's own key keeps what only it draws.
    const counts = new Map();
    for (const panel of p.panels) for (const item of new Map((panel.key_items || []).map((i) => [itemKey(i), i])).values()) counts.set(itemKey(item), (counts.get(itemKey(item)) || 0) + 1);
    this.sharedItems = [];
    for (const panel of p.panels) for (const item of panel.key_items || []) {
      if (counts.get(itemKey(item)) > 1 && !this.sharedItems.some((other) => itemKey(other) === itemKey(item))) this.sharedItems.push(item);
    }
    for (const panel of p.panels) panel.own_items = (panel.key_items || []).filter((item) => counts.get(itemKey(item)) < 2);
    this.sharedKey = el("div", { class: "mpl-key mpl-shared-key", "aria-label": "Key" });
    this.grid = el("div", { class: "mpl-grid" + (p.present ? " mpl-present" : "") });
    this.cells = p.panels.map((panel, index) => {
      const title = el("div", { class: "mpl-title" });
      const keyLine = el("div", { class: "mpl-key" });
      const kept = this.adopted && !panel.table ? this.adopted.plots.get(panel.key) : null;
      if (kept) this.adopted.plots.delete(panel.key);
      const label = panel.caption || panel.title || panel.key;
      const plot = kept || el("div", { class: "mpl-plot", "data-panel": panel.key, role: "figure", "aria-label": label });
      if (kept) kept.setAttribute("aria-label", label);
      const head = el("div", { class: "mpl-head" }, [title, keyLine]);
      const parts = [head];
      if (panel.subtitle) parts.push(el("div", { class: "mpl-subtitle", text: panel.subtitle }));
      parts.push(plot);
      const cell = el("div", { class: "mpl-cell", "data-panel": panel.key }, parts);
      if (panel.caption) cell.append(el("div", { class: "mpl-caption", text: panel.caption }));
      title.addEventListener("dblclick", () => this.enlarge(index));
      this.grid.append(cell);
      // a kept plot is drawn: the first render redraws it (Plotly.react) and hooks it anew
      const record = { panel, index, title, head, keyLine, plot, cell, drawn: Boolean(kept), mode: "full", hooked: false, height: 0 };
      this.renderKey(record);
      return record;
    });
    this.unused = this.adopted ? [...this.adopted.plots.values()] : [];
    this.adopted = null;
    this.top = el("div", { class: "mpl-top" + (p.present ? " mpl-pinned" : "") }, [bar, this.lesson, this.story, this.quiz]);
    this.renderShared();
    this.blanker = el("div", { class: "mpl-blank", role: "presentation", title: "Blank screen: press any key" });
    this.blanker.addEventListener("click", () => this.blank(false));
    this.helpBox = el("div", { class: "mpl-help", role: "dialog", "aria-label": "Keys" }, [
      el("table", {}, KEYS_HELP.map(([keys, what]) => el("tr", {}, [el("th", { text: keys }), el("td", { text: what })])))]);
    this.helpBox.addEventListener("click", () => this.help(false));
    host.append(el("div", { class: "mpl-player", style: "--mpl-scale:" + this.chrome }, [this.top, this.sharedKey, this.grid, this.blanker, this.helpBox]));
  }

  // The shared key says what the panels on screen draw (`panels`: those; default: all): a
  // screen that holds the bound panel alone has no "chosen" or "next pick" to explain.
  renderShared(panels = this.sharedPanels) {
    this.sharedPanels = panels;
    const items = panels ? this.sharedItems.filter((item) => panels.some((panel) => (panel.key_items || []).some((other) => itemKey(other) === itemKey(item))))
      : this.sharedItems;
    this.sharedKey.style.display = items.length ? "" : "none";
    this.sharedKey.replaceChildren(...items.map((item) => el("span", { class: "mpl-key-item" },
      [swatch(item, (c) => this.inkOf(c)), document.createTextNode(item.text)])));
  }

  renderKey(cell) {
    const panel = cell.panel;
    const items = panel.own_items || [];
    if (!items.length) { cell.keyLine.style.display = "none"; return; }
    cell.keyLine.replaceChildren(...items.map((item) => el("span", { class: "mpl-key-item" },
      [swatch(item, (c) => this.inkOf(c)), document.createTextNode(item.text)])));
  }

  // After a mouse click on a control the focus goes back to the player, so that the
  // keys and a clicker keep stepping; a keyboard user keeps the focus where it is.
  afterClick(event) { if (event && event.detail > 0) this.takeFocus(true); }

  takeFocus(force) {
    const active = document.activeElement;
    const elsewhere = active && active !== document.body && !(this.host && this.host.contains(active));
    if (!force && active && active !== document.body && isTyping(active)) return;
    if (!force && elsewhere && usingKeyboard()) return;  // a control changed with the keyboard keeps it
    if (active && active !== this.host && active.blur && (force || !this.host.contains(active))) active.blur();
    if (this.host && this.root.isConnected) this.host.focus({ preventScroll: true });
  }

  renderText() {
    const j = this.j;
    this.slider.value = String(j);
    const text = "Step " + j + " of " + this.n + (this.playing ? " — playing" : "");
    this.label.textContent = text;
    this.slider.setAttribute("aria-valuetext", "Step " + j + " of " + this.n);
    // past either end, a lesson's scene goes on to the previous or next scene (forward())
    const scenes = this.guide && this.options.onPastEnd ? this.guide : null;
    const range = this.classRange;
    this.buttons.back.disabled = range ? j <= range[0] : j === 0 && !(scenes && scenes.scene > 1);
    this.buttons.next.disabled = range ? j >= Math.min(range[1], this.n) : j >= this.n && !(scenes && scenes.scene < scenes.scenes);
    this.buttons.play.disabled = Boolean(range && range[0] >= range[1]);
    this.buttons.play.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    this.buttons.play.setAttribute("aria-label", this.playing ? "Pause" : "Play");
    const stories = this.payload.stories || [];
    const hideNext = this.predict && !this.revealed();
    const story = (hideNext ? (this.payload.stories_hidden || stories) : stories)[j] || "";
    this.story.replaceChildren(...storyNodes(story));
    // a screen reader hears what the step changed, as the picture's story says it, once per
    // step (the region is only written when its text changes)
    const said = "Step " + j + " of " + this.n + ". " + story.replace(/\*\*/g, "").replace(/^Step \d+\.\s*/, "");
    if (this.status.textContent !== said.trim()) this.status.textContent = said.trim();
    this.renderQuiz();
    for (const cell of this.cells) {
      const frame = cell.panel.frames[Math.min(j, cell.panel.frames.length - 1)] || {};
      const title = (frame.title !== undefined ? frame.title : cell.panel.title) || "";
      if (cell.shownTitle !== title) { cell.title.replaceChildren(...storyNodes(title)); cell.shownTitle = title; }
      // the chart's name says what it shows at this step: its title ("Criterion at step 2"),
      // what the picture says of it in words (the point chosen, the bound there), its caption
      // (not while a student predicts the next pick on a panel that hides it: it would say it)
      const hiding = this.predict && !this.revealed() && (cell.panel.hide_when_predicting || []).length;
      // (a curve panel's caption speaks of the whole path: said only while the whole curves show)
      const caption = cell.panel.step_line && !this.showWhole(j) ? "" : cell.panel.caption;
      const named = [title.replace(/\*\*/g, ""), hiding ? "" : frame.describe, caption].filter(Boolean)
        .map((part) => part.replace(/[.:;]\s*$/, "")).join(". ") || cell.panel.key;
      if (cell.plot.getAttribute("aria-label") !== named) cell.plot.setAttribute("aria-label", named);
    }
  }

  go(j, source) {
    j = Math.max(0, Math.min(Math.round(j), this.n));
    // a live class's pace (live.js): a held student stays on the lecturer's step, an exploring
    // one within the lecturer's range; the class itself moves the player anywhere
    if (this.classRange && source !== "class") j = Math.max(this.classRange[0], Math.min(j, this.classRange[1]));
    if (source !== "play" && source !== "slider-keep") { this.guess = null; this.guessNote = ""; }
    if (j === this.j && source !== "force") { this.render(); return; }
    this.j = j;
    this.guess = null;
    if (this.guide) stored(sceneKey(this.guide), String(j));  // "Back to the lesson" returns here
    this.tellStep();
    this.render();
    // A live class (live.js) hears of every step and what took it (a key, the class, ...).
    document.dispatchEvent(new CustomEvent("mpl-step", { detail: { player: this, step: this.j, source } }));
  }

  // The step on screen, told to whoever mounted the player: the app keeps it in the address,
  // a saved page in its fragment.
  tellStep() {
    if (this.options.onStep) this.options.onStep(this.j);
  }

  // This player's drawn plots, given to the player that replaces it (mount.js): `plots`, by
  // panel key, without what this player drew over them; `running`, its Plotly calls on
  // them.  They are not purged when this player goes.
  handOver() {
    const plots = new Map();
    for (const cell of this.cells) {
      if (!cell.drawn || cell.panel.table || !cell.plot._fullLayout) continue;
      for (const mine of [cell.line, cell.marks]) if (mine) mine.remove();
      // this player's listeners off the plot: they would keep it, and its study, alive
      if (cell.onClick) cell.plot.removeEventListener("click", cell.onClick, true);
      if (cell.onRelayout && cell.plot.removeListener) cell.plot.removeListener("plotly_relayout", cell.onRelayout);
      cell.given = true;
      plots.set(cell.panel.key, cell.plot);
    }
    return { plots, running: [...this.inflight], scroller: this.scroller };
  }

  destroy() {
    clearTimeout(this.timer);
    clearInterval(this.themeWatch);
    if (this.resizing) cancelAnimationFrame(this.resizing);
    this.observer.disconnect();
    this.seen.disconnect();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
    this.destroyed = true;
    if (this.host) this.host.replaceChildren();
    // Purged once every Plotly call in flight has finished: purging under a running draw
    // leaves it to read a layout that is gone (a console error, "_rehover").
    const purge = () => { if (this.Plotly) for (const cell of this.cells) if (cell.drawn && !cell.panel.table && !cell.given) this.Plotly.purge(cell.plot); };
    Promise.all([...this.inflight]).then(purge);
  }
}

Object.assign(Player.prototype, screens, figures, drawing, labels, keys, guide, predict, tables);
