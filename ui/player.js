// The step player: every step of a study lives in the browser, so stepping never asks the
// server anything.  Python (ui/player.py) sends one JSON payload per study: a base Plotly
// figure per panel, and per step a small patch of what changes (trace arrays, titles, the
// step marker).  Going to step j applies patch j to each base figure and hands the result
// to Plotly.react, which redraws only the traces whose arrays changed.
//
// Why a custom component and not one Plotly figure with animation frames: the panels are
// separate figures (a page lays them out in a grid that must fit a projector), the URL's
// `step` must follow the step shown, the keys must work wherever the focus is, and pause
// must stop exactly on the step on screen; Plotly's own slider does none of those.

const STATE = new WeakMap();
let plotlyLoading = null;

function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyLoading) {
    plotlyLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("could not load " + url));
      document.head.appendChild(script);
    });
  }
  return plotlyLoading;
}

// --- payload decoding -------------------------------------------------------------------

const DTYPES = { f4: Float32Array, f8: Float64Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array,
  i4: Int32Array, u4: Uint32Array };

function bytesOf(b64) {
  const text = atob(b64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out.buffer;
}

function rows(flat, shape) {
  if (typeof shape === "string") shape = shape.split(",").map(Number);  // Plotly writes "200, 200"
  if (!shape || shape.length < 2) return flat;
  const [r, c] = shape;
  const out = new Array(r);
  for (let i = 0; i < r; i++) out[i] = flat.subarray(i * c, (i + 1) * c);
  return out;
}

// {dtype, bdata, shape} (Plotly's typed-array spec) and {q8, lo, hi, shape} (8-bit
// quantised heatmaps) become typed arrays once, at load.
function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== "object") return value;
  if (typeof value.bdata === "string" && value.dtype in DTYPES) {
    return rows(new DTYPES[value.dtype](bytesOf(value.bdata)), value.shape);
  }
  if (typeof value.q8 === "string") {
    const codes = new Uint8Array(bytesOf(value.q8));
    const flat = new Float32Array(codes.length);
    const step = (value.hi - value.lo) / 254;
    for (let i = 0; i < codes.length; i++) flat[i] = codes[i] === 255 ? NaN : value.lo + codes[i] * step;
    return rows(flat, value.shape);
  }
  const out = {};
  for (const key of Object.keys(value)) out[key] = decode(value[key]);
  return out;
}

// Every font size in a figure times `scale` (the text-size control).
function scaleFonts(value, scale) {
  if (scale === 1 || value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) { value.forEach((item) => scaleFonts(item, scale)); return; }
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (/font$/i.test(key) && item && typeof item === "object" && typeof item.size === "number") {
      item.size = Math.round(item.size * scale);
    }
    if (key === "margin" && item && typeof item === "object") {  // room for the larger tick labels
      for (const side of ["l", "r", "t", "b"]) if (typeof item[side] === "number") item[side] = Math.round(item[side] * scale);
    }
    scaleFonts(item, scale);
  }
}

// Copy-on-write set of a dotted path ("marker.color"): the base figure is never changed.
function setPath(target, path, value) {
  const parts = path.split(".");
  const root = Array.isArray(target) ? target.slice() : Object.assign({}, target);
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const child = node[parts[i]];
    node[parts[i]] = Array.isArray(child) ? child.slice() : Object.assign({}, child || {});
    node = node[parts[i]];
  }
  node[parts[parts.length - 1]] = value;
  return root;
}

function patched(base, patch) {
  let out = base;
  for (const path of Object.keys(patch || {})) out = setPath(out, path, patch[path]);
  return out;
}

// --- the player -------------------------------------------------------------------------

const SPEEDS = [0.5, 1, 2, 4];

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children || []) node.appendChild(child);
  return node;
}

// Story text is plain text; **bold** spans become <strong> through textContent, never HTML.
function storyNodes(text) {
  const parts = String(text).split("**");
  return parts.map((part, i) => (i % 2 ? el("strong", { text: part }) : document.createTextNode(part)));
}

class Player {
  constructor(root, payload) {
    this.root = root;
    this.setData(payload);
    this.j = Math.max(0, Math.min(payload.step || 0, this.n));
    this.playing = false;
    this.timer = null;
    this.speed = 1;
    this.guesses = { right: 0, total: 0 };
    this.guess = null;
    this.predict = false;
    this.build();
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.onResize = () => this.layout();
    window.addEventListener("resize", this.onResize);
    // Streamlit may draw a message above the player after it has been laid out.
    this.watch = setInterval(() => { if (this.moved()) this.layout(); }, 400);
    this.ready = loadPlotly(payload.plotly_url).then((Plotly) => {
      this.Plotly = Plotly;
      this.layout();
    }).catch((error) => { this.story.textContent = "The charts could not load: " + error.message; });
  }

  setData(payload) {
    this.payload = payload;
    this.id = payload.id;
    this.n = payload.n_steps;
    for (const panel of payload.panels) {
      panel.figure = decode(panel.figure);
      panel.frames = (panel.frames || []).map(decode);
      scaleFonts(panel.figure, payload.text_scale || 1);
      panel.frames.forEach((frame) => scaleFonts(frame, payload.text_scale || 1));
      if (panel.present_layout) scaleFonts({ layout: panel.present_layout }, payload.text_scale || 1);
    }
    this.scores = payload.scores ? decode(payload.scores) : null;
  }

  build() {
    const p = this.payload;
    // Our own child: the parent also holds the component's <style>, which must stay.
    let host = this.root.querySelector(":scope > .mpl-host");
    if (!host) { host = el("div", { class: "mpl-host" }); this.root.appendChild(host); }
    host.replaceChildren();
    this.host = host;
    const bar = el("div", { class: "mpl-bar", role: "toolbar", "aria-label": "Step controls" });
    const button = (label, title, action, cls) => el("button", { class: "mpl-btn " + (cls || ""), title, type: "button", text: label, onclick: action });
    this.buttons = {
      reset: button("|◀ Reset", "Back to step 0 (Home)", () => this.go(0, "reset")),
      back: button("◀ Back", "One step back (left arrow)", () => this.go(this.j - 1, "back")),
      play: button("▶ Play", "Play or pause (space)", () => this.toggle(), "mpl-primary"),
      next: button("Next ▶", "One step forward (right arrow)", () => this.go(this.j + 1, "next")),
    };
    this.slider = el("input", { type: "range", min: "0", max: String(this.n), step: "1", value: String(this.j),
      class: "mpl-slider", "aria-label": "Step", title: p.slider_help || "Step j: the state after j greedy choices" });
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value), "slider"));
    this.label = el("span", { class: "mpl-label", "aria-live": "polite" });
    const short = p.present;
    this.speedSelect = el("select", { class: "mpl-select", "aria-label": "Play speed", title: "Play speed: steps per second" },
      SPEEDS.map((s) => el("option", { value: String(s), text: s + "×" })));
    this.speedSelect.value = "1";
    // After a choice the focus leaves the control, so the arrow keys and space step again.
    this.speedSelect.addEventListener("change", () => { this.speed = Number(this.speedSelect.value); this.speedSelect.blur(); });
    bar.append(this.buttons.reset, this.buttons.back, this.buttons.play, this.buttons.next, this.slider, this.label, this.speedSelect);
    for (const mark of p.marks || []) {
      bar.append(button(short ? mark.short || mark.label : mark.label, mark.help || "", () => { this.pause(); this.go(mark.step, "mark"); }, "mpl-mark"));
    }
    if (p.predict) {
      this.predictBox = el("input", { type: "checkbox", class: "mpl-check", title: "Predict the next pick: click the point you expect the criterion to choose" });
      this.predictBox.addEventListener("change", () => {
        this.predict = this.predictBox.checked; this.guess = null; this.predictBox.blur(); this.render();
      });
      bar.append(el("label", { class: "mpl-toggle", title: this.predictBox.title }, [this.predictBox, document.createTextNode(short ? " Predict" : " Predict the next pick")]));
    }
    this.animateBox = el("input", { type: "checkbox", class: "mpl-check", title: "Slide the points between steps" });
    this.animateBox.addEventListener("change", () => this.animateBox.blur());
    bar.append(el("label", { class: "mpl-toggle", title: "Animate the change between steps" }, [this.animateBox, document.createTextNode(" Animate")]));
    this.story = el("div", { class: "mpl-story", "aria-live": "polite" });
    this.quiz = el("div", { class: "mpl-quiz", "aria-live": "polite" });
    this.grid = el("div", { class: "mpl-grid mpl-" + (p.grid || "algo") + (p.present ? " mpl-present" : "") });
    this.cells = p.panels.map((panel) => {
      const title = el("div", { class: "mpl-title" });
      const plot = el("div", { class: "mpl-plot", "data-panel": panel.key, role: "img", "aria-label": panel.caption || panel.key });
      const area = p.present ? panel.present_area : panel.area;
      const extra = area ? "0" : "1";
      const parts = [title];
      if (panel.subtitle) parts.push(el("div", { class: "mpl-subtitle", text: panel.subtitle }));
      parts.push(plot);
      const cell = el("div", { class: "mpl-cell", style: "grid-area: " + (area || "x"), "data-panel": panel.key, "data-extra": extra }, parts);
      if (panel.caption) cell.append(el("div", { class: "mpl-caption", text: panel.caption }));
      this.grid.append(cell);
      return { panel, title, plot, cell, drawn: false };
    });
    const top = el("div", { class: "mpl-top" + (p.present ? " mpl-pinned" : "") }, [bar, this.story, this.quiz]);
    host.append(el("div", { class: "mpl-player", style: "--mpl-scale:" + (p.text_scale || 1) }, [top, this.grid]));
  }

  // Panel heights: fixed in the scrolling layout; in presenter mode the grid fills the
  // rest of the window, so every panel is on screen at once.
  layout() {
    if (!this.Plotly) return;
    const p = this.payload;
    this.renderText();  // the grid's top depends on the story's height
    this.gridTop = this.grid.getBoundingClientRect().top + window.scrollY;
    for (const cell of this.cells) {
      if (p.present && cell.cell.dataset.extra === "1") { cell.height = 0; continue; }
      let height = (cell.panel.height || 420) * (p.text_scale || 1);
      if (p.present) {
        const rowsInGrid = p.present_rows || 2;
        const free = Math.max(260 * rowsInGrid, window.innerHeight - this.gridTop - 10);
        const sub = cell.cell.querySelector(".mpl-subtitle");
        const titleHeight = cell.title.getBoundingClientRect().height + (sub ? sub.getBoundingClientRect().height : 0);
        const span = p.grid === "algo" && cell.panel.present_area === "d" ? rowsInGrid : 1;
        const gaps = 4 * (rowsInGrid - 1);
        height = Math.floor((free - gaps) * span / rowsInGrid) - titleHeight - 4;
      }
      cell.height = Math.max(180, height);
      cell.plot.style.height = cell.height + "px";
    }
    this.render(true);
  }

  // In presenter mode the panels fill the window below the story; when something above
  // them changes height (a longer story, a message), lay them out again.
  moved() {
    if (!this.payload.present || this.gridTop === undefined) return false;
    return Math.abs(this.grid.getBoundingClientRect().top + window.scrollY - this.gridTop) > 2;
  }

  figure(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const data = panel.figure.data.map((trace, i) => (frame.data && frame.data[i] ? patched(trace, frame.data[i]) : trace));
    let layout = patched(panel.figure.layout, frame.layout);
    if (this.payload.present && panel.present_layout) layout = Object.assign({}, layout, panel.present_layout);
    layout = Object.assign({}, layout, { height: cell.height, width: cell.plot.clientWidth || undefined, autosize: true });
    if (this.predict && !this.revealed() && panel.hide_when_predicting) {
      for (const index of panel.hide_when_predicting) if (data[index]) data[index] = Object.assign({}, data[index], { visible: false });
    }
    if (this.predict && this.guess !== null && panel.guess_trace !== undefined) {
      const [x, y] = panel.guess_xy(this.guess);
      data.push({ type: "scatter", mode: "markers", x: [x], y: [y], name: "your guess", showlegend: true,
        marker: { symbol: "x-thin-open", size: 26, color: "#CC79A7", line: { width: 4, color: "#CC79A7" } }, hoverinfo: "skip" });
    }
    return { data, layout };
  }

  revealed() { return this.guess !== null || this.j >= this.n; }

  renderText() {
    const j = this.j;
    this.slider.value = String(j);
    this.label.textContent = "Step " + j + " of " + this.n + (this.playing ? " — playing" : "");
    this.buttons.back.disabled = j === 0;
    this.buttons.next.disabled = j >= this.n;
    this.buttons.play.textContent = this.playing ? "⏸ Pause" : "▶ Play";
    const stories = this.payload.stories || [];
    const hideNext = this.predict && !this.revealed();
    const story = (hideNext ? (this.payload.stories_hidden || stories) : stories)[j] || "";
    this.story.replaceChildren(...storyNodes(story));
    this.renderQuiz();
    for (const cell of this.cells) {
      const frame = cell.panel.frames[Math.min(j, cell.panel.frames.length - 1)] || {};
      const title = (frame.title !== undefined ? frame.title : cell.panel.title) || "";
      if (cell.shownTitle !== title) { cell.title.replaceChildren(...storyNodes(title)); cell.shownTitle = title; }
    }
  }

  render(full) {
    if (!this.Plotly) return Promise.resolve();
    const j = this.j;
    this.renderText();
    if (!full && this.moved()) { this.layout(); return Promise.resolve(); }
    const animate = this.animateBox.checked && !full;
    const draw = (cell) => {
      if (!cell.drawn) {
        cell.drawn = true;
        const { data, layout } = this.figure(cell, j);
        return this.Plotly.newPlot(cell.plot, data, layout, this.payload.config || {}).then(() => {
          this.hook(cell);
          this.stepLine(cell, j);
          cell.plot.on("plotly_relayout", () => this.stepLine(cell, this.j));  // zoom, pan, autoscale
          cell.mode = "full";
        });
      }
      let done;
      if (animate && cell.panel.animate) {
        const { data, layout } = this.figure(cell, j);
        done = this.Plotly.animate(cell.plot, { data, layout }, { transition: { duration: 250, easing: "cubic-in-out" }, frame: { duration: 250, redraw: true } });
      } else if (!full && !this.predict && cell.mode === "step") {
        done = this.update(cell, j);
      } else {
        const { data, layout } = this.figure(cell, j);
        done = this.Plotly.react(cell.plot, data, layout, this.payload.config || {});
      }
      cell.mode = this.predict || animate ? "full" : "step";
      return done.then(() => this.stepLine(cell, j));
    };
    // Panels on screen first; those scrolled out of view follow in the next task, so a
    // step reaches the screen as soon as everything that can be seen has changed.
    const shown = this.cells.filter((cell) => cell.height > 0);
    const visible = shown.filter((cell) => this.onScreen(cell));
    const hidden = shown.filter((cell) => !this.onScreen(cell));
    const token = (this.token = (this.token || 0) + 1);
    return Promise.all(visible.map(draw)).then(() => new Promise((resolve) => requestAnimationFrame(() => {
      window.__mplRendered = { step: j, at: performance.now(), id: this.id };
      document.dispatchEvent(new CustomEvent("mpl-rendered", { detail: window.__mplRendered }));
      if (!hidden.length) { resolve(); return; }
      setTimeout(() => {
        if (token !== this.token) { resolve(); return; }  // a newer step is already on its way
        Promise.all(hidden.map(draw)).then(resolve);
      }, 0);
    })));
  }

  onScreen(cell) {
    if (!cell.drawn) return true;
    const box = cell.cell.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth;
  }

  // A step's patch straight into the drawn figure: only the traces it names are restyled
  // and only the layout paths it names relaid out (every frame names the same ones, so
  // any step can follow any other); no whole-figure diff.
  update(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const traces = Object.keys(frame.data || {}).map(Number);
    const dataUpdate = {};
    traces.forEach((trace, k) => {
      for (const [key, value] of Object.entries(frame.data[trace])) {
        if (!dataUpdate[key]) dataUpdate[key] = new Array(traces.length).fill(undefined);
        dataUpdate[key][k] = value;
      }
    });
    const layoutUpdate = {};
    for (const [key, value] of Object.entries(frame.layout || {})) {
      layoutUpdate[key.replace(/\.(\d+)(?=\.|$)/g, "[$1]")] = value;  // "annotations.1.text" -> "annotations[1].text"
    }
    if (!traces.length && !Object.keys(layoutUpdate).length) return Promise.resolve();
    return this.Plotly.update(cell.plot, dataUpdate, layoutUpdate, traces);
  }

  // The step marker of a chart against t: a div over the plot area at x = j (moving a
  // Plotly shape redraws the whole chart, ~25 ms; a div costs nothing).
  stepLine(cell, j) {
    if (!cell.panel.step_line) return;
    const full = cell.plot._fullLayout;
    if (!full || !full.xaxis) return;
    if (!cell.line) {
      cell.plot.style.position = "relative";
      cell.line = el("div", { class: "mpl-step-line" }, [el("span", { class: "mpl-step-text" })]);
      cell.plot.appendChild(cell.line);
    }
    const xa = full.xaxis;
    const x = xa._offset + xa.l2p(j);
    const inside = j >= 1 && x >= xa._offset - 1 && x <= xa._offset + xa._length + 1;
    cell.line.style.display = inside ? "" : "none";
    cell.line.style.left = x + "px";
    cell.line.style.top = full._size.t + "px";
    cell.line.style.height = full._size.h + "px";
    cell.line.firstChild.textContent = "step " + j;
  }

  // Clicks on the data panel are guesses in predict mode.
  hook(cell) {
    const panel = cell.panel;
    if (panel.guess_trace === undefined) return;
    const coords = this.payload.coords ? decode(this.payload.coords) : null;
    panel.guess_xy = (i) => [coords[i][0], coords[i][1]];
    cell.plot.on("plotly_click", (event) => {
      if (!this.predict || this.revealed() || !event.points.length) return;
      const point = event.points[0];
      const data = point.customdata;
      const index = Number(Array.isArray(data) || ArrayBuffer.isView(data) ? data[data.length - 1] : data);
      if (!Number.isInteger(index)) return;
      this.guess = index;
      const winner = this.payload.picks[this.j];
      this.guesses.total += 1;
      if (index === winner) this.guesses.right += 1;
      this.render();
    });
  }

  renderQuiz() {
    if (!this.predict) { this.quiz.replaceChildren(); this.quiz.style.display = "none"; return; }
    this.quiz.style.display = "";
    const score = "Score: " + this.guesses.right + " of " + this.guesses.total + ". ";
    if (this.j >= this.n) { this.quiz.textContent = score + "No pick left: reset to play again."; return; }
    if (this.guess === null) {
      this.quiz.textContent = score + "Click the point you expect the criterion to choose next (the star and the criterion are hidden until you do).";
      return;
    }
    const winner = this.payload.picks[this.j];
    const row = this.scores ? this.scores[this.j] : null;
    let detail = "";
    if (row) {
      const mine = row[this.guess];
      const best = row[winner];
      const order = this.payload.pick_max === false ? 1 : -1;
      let rank = 1;
      for (let i = 0; i < row.length; i++) if (Number.isFinite(row[i]) && order * (row[i] - mine) < 0) rank += 1;
      detail = Number.isFinite(mine)
        ? " Your point " + this.guess + " scores " + mine.toPrecision(3) + " (rank " + rank + "); the winner " + winner + " scores " + best.toPrecision(3) + "."
        : " Your point " + this.guess + " cannot be chosen (already chosen or exhausted).";
    }
    this.quiz.textContent = score + (this.guess === winner ? "Right! " : "Not quite. ") + detail + " Press Next.";
  }

  go(j, source) {
    j = Math.max(0, Math.min(Math.round(j), this.n));
    if (source !== "play" && source !== "slider-keep") this.guess = null;
    if (j === this.j && source !== "force") { this.render(); return; }
    this.j = j;
    this.guess = null;
    this.writeUrl();
    this.render();
  }

  writeUrl() {
    const url = new URL(window.location.href);
    if (this.j) url.searchParams.set("step", String(this.j)); else url.searchParams.delete("step");
    window.history.replaceState(window.history.state, "", url.toString());
  }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.j >= this.n) this.go(0, "play");
    this.playing = true;
    this.schedule();
    this.render();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.playing) return;
      if (this.j >= this.n) { this.pause(); return; }
      this.go(this.j + 1, "play");
      if (this.j >= this.n) this.pause(); else this.schedule();
    }, 1000 / this.speed);
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.render();
  }

  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    const ours = target && target.classList && (target.classList.contains("mpl-slider") || target.classList.contains("mpl-check"));
    if (!ours && (tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable))) return;
    if (ours && target.type === "checkbox" && event.key === " ") return;  // space toggles the box itself
    if (!this.root.isConnected) return;
    const actions = {
      ArrowRight: () => this.go(this.j + 1, "key"),
      ArrowLeft: () => this.go(this.j - 1, "key"),
      Home: () => { this.pause(); this.go(0, "key"); },
      " ": () => this.toggle(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  destroy() {
    clearTimeout(this.timer);
    clearInterval(this.watch);
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
    if (this.Plotly) for (const cell of this.cells) this.Plotly.purge(cell.plot);
    if (this.host) this.host.replaceChildren();
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

export default function (component) {
  const { data, parentElement } = component;
  const payload = typeof data === "string" ? JSON.parse(data) : data;
  const old = STATE.get(parentElement);
  if (old && old.id === payload.id) return old.cleanup;
  let step = payload.step;
  if (old) {
    if (old.payload.page === payload.page) step = Math.min(old.j, payload.n_steps);  // a setting changed: stay on the step
    old.destroy();
  }
  if (payload.present && (!old || !old.payload.present)) foldSidebar();
  const player = new Player(parentElement, Object.assign(payload, { step }));
  player.payloadBytes = typeof data === "string" ? data.length : JSON.stringify(data).length;
  STATE.set(parentElement, player);
  window.__mplPlayer = player;  // for the browser tests and the latency benchmark
  player.cleanup = () => {
    player.destroy();
    STATE.delete(parentElement);
  };
  return player.cleanup;
}
