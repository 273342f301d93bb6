// Drawing a step: the panels on screen (a new plot, a patch straight into the drawn figure,
// or a whole redraw); those out of view as they come into view; the step line and its tag;
// the table panels.  It tells whoever listens when a step is on screen ("mpl-rendered",
// "mpl-settled").  `drawing` holds the player's methods (mixed into Player, player.js).

import { el, nextTask } from "./dom.js";
import { textWidth } from "./labels.js";

// How near the screen, in screens, a panel out of view is drawn: the player's
// IntersectionObserver watches this margin and catchUp draws what is within it.
export const NEAR = 0.25;
// How long, in ms, a task draws whole figures before the next waits for a new task (a figure
// takes tens of ms: a task stays well under the 100 ms that a click would wait behind).
const SLICE = 30;

export const drawing = {
  render(full) {
    if (!this.Plotly) return Promise.resolve();
    const j = this.j;
    this.renderText();
    const animate = this.animateBox && this.animateBox.checked && !full;
    // Panels on screen are drawn now; those scrolled out of view when they come into view
    // (catchUp, on the player's IntersectionObserver), each marked with what it missed.  (A
    // first draw with the whole grid below the screen draws its first panel first.)
    const shown = this.cells.filter((cell) => cell.height > 0);
    const visible = shown.filter((cell) => this.onScreen(cell));
    if (!visible.length && shown.length && !shown[0].drawn) visible.push(shown[0]);
    for (const cell of shown) {
      if (visible.includes(cell)) cell.behind = null;
      else {  // (its table for a screen reader says this step already: it reads every panel)
        cell.behind = { full: Boolean(full || animate || (cell.behind && cell.behind.full)) };
        if (!cell.panel.table) this.describeData(cell, j);
      }
    }
    const token = (this.token = (this.token || 0) + 1);
    // A step's patches go together, in one task; whole figures (a new study, a new layout),
    // each tens of milliseconds, go on in the same task only while it has run less than SLICE
    // ms, so that none holds the page long (and no yield lets other work in between for nothing)
    let since = performance.now();
    const slice = () => {
      if (performance.now() - since < SLICE) return undefined;
      return nextTask().then(() => { since = performance.now(); });
    };
    const inView = full && visible.length > 1
      ? visible.reduce((done, cell, k) => done.then(() => (k ? slice() : undefined))
        .then(() => (token === this.token ? this.drawCell(cell, j, full, animate) : undefined)), Promise.resolve())
      : Promise.all(visible.map((cell) => this.drawCell(cell, j, full, animate)));
    // the panels in view first: none near the screen is drawn before they are shown (catchUp
    // waits until the frame that shows them, which reports it)
    this.inViewDrawing = token;
    const drawnInView = () => { if (this.inViewDrawing === token) this.inViewDrawing = null; };
    inView.catch(drawnInView);
    // "mpl-rendered": everything on screen shows step j (what the latency benchmark times);
    // "mpl-settled": so does every panel in view, those out of view waiting to come into it
    // (what layout checks wait for), not while a slider is held: at its release.
    return inView.then(() => new Promise((resolve) => requestAnimationFrame(() => {
      drawnInView();
      if (token !== this.token) { resolve(); return; }  // a later step's draw reports for both
      const detail = { step: j, at: performance.now(), id: this.id, screen: this.screen };
      document.dispatchEvent(new CustomEvent("mpl-rendered", { detail: { step: j, at: detail.at, id: this.id } }));
      if (!this.dragged()) document.dispatchEvent(new CustomEvent("mpl-settled", { detail }));
      resolve();
      this.catchUp();
    })));
  },

  // The panels that came into view since they missed a step (or a study, a layout), drawn one
  // a task, so that a key, a click or the page's rerun is never kept waiting behind them.
  catchUp() {
    if (this.catching || this.inViewDrawing || !this.Plotly || this.destroyed || this.dragged()) return;
    const next = this.cells.find((cell) => cell.behind && cell.height > 0 && this.onScreen(cell, NEAR));
    if (!next) return;
    const { full } = next.behind;
    next.behind = null;
    this.catching = true;
    const done = () => { this.catching = false; setTimeout(() => this.catchUp(), 0); };
    this.drawCell(next, this.j, full, false).then(done, done);
  },

  drawCell(cell, j, full, animate) {
    if (this.destroyed) return Promise.resolve();
    if (cell.panel.table) { this.drawTable(cell, j); return Promise.resolve(); }
    if (!cell.drawn) {
      cell.drawn = true;
      const { data, layout } = this.figure(cell, j);
      return this.track(this.Plotly.newPlot(cell.plot, data, layout, this.config(cell))).then(() => {
        if (this.destroyed) return undefined;
        this.hookPlot(cell);
        cell.mode = "full";
        return this.afterDraw(cell, j, true);
      });
    }
    if (!cell.hooked) {  // a plot kept from the player this one replaced: redrawn, then hooked
      const { data, layout } = this.figure(cell, j);
      cell.mode = "full";
      return this.track(this.Plotly.react(cell.plot, data, layout, this.config(cell))).then(() => {
        if (this.destroyed) return undefined;
        this.hookPlot(cell);
        return this.afterDraw(cell, j, true);
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
      done = this.Plotly.react(cell.plot, data, layout, this.config(cell));
    }
    const wasFull = cell.mode !== "step" || full;
    cell.mode = this.predict || animate ? "full" : "step";
    return this.track(done).then(() => (this.destroyed ? undefined : this.afterDraw(cell, j, wasFull)));
  },

  // Whether a slider of the page is held (drag.js): each value it passes draws only what can
  // be seen; the panels out of view are drawn at its release.
  dragged() {
    return Boolean(this.options.dragging && this.options.dragging());
  },

  // The player's own listeners on a drawn plot (each player hooks a plot it draws once; it
  // takes them off a plot it hands over, Player.handOver, so that it can be let go).
  hookPlot(cell) {
    cell.hooked = true;
    this.hook(cell);
    cell.onRelayout = (change) => {
      if (this.destroyed) return;
      if (!change || !("annotations" in change || Object.keys(change).some((k) => k.startsWith("annotations")))) this.stepLine(cell, this.j);
    };
    cell.plot.on("plotly_relayout", cell.onRelayout);
  },

  // A Plotly call in flight: the player is not torn down under it (see destroy).
  track(promise) {
    const call = Promise.resolve(promise);
    const settled = call.then(() => undefined, () => undefined);  // for destroy; the caller still sees a failure
    this.inflight.add(settled);
    settled.then(() => this.inflight.delete(settled));
    return call;
  },

  // After a draw: the step line, a log axis's decades thinned to its length and the ring
  // numbers fitted again (after a full draw, when the axes may have moved), and the overlay
  // of labels and marks.
  afterDraw(cell, j, full) {
    this.stepLine(cell, j);
    if (full) {
      const thinned = this.thinDecades(cell);
      if (thinned) return this.track(thinned).then(() => (this.destroyed ? undefined : this.afterDraw(cell, j, true)));
      const renumbered = this.renumber(cell, j);
      if (renumbered) return this.track(renumbered).then(() => (this.destroyed ? undefined : this.afterDraw(cell, j, false)));
    }
    this.overlay(cell, j);
    this.describeData(cell, j);
    return undefined;
  },

  // Whether a panel is on screen, or within ``margin`` screens of it.
  onScreen(cell, margin = 0) {
    const box = cell.cell.getBoundingClientRect();
    const room = margin * window.innerHeight;
    return box.bottom > -room && box.top < window.innerHeight + room && box.right > 0 && box.left < window.innerWidth;
  },

  // A step's patch straight into the drawn figure: only the traces it names are restyled
  // and only the layout paths it names relaid out (every frame names the same ones, so
  // any step can follow any other); revealed lines and their labels move with it.
  update(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const indices = Object.keys(frame.data || {}).map(Number);
    const dataUpdate = {};
    indices.forEach((trace, k) => {
      for (const [key, value] of Object.entries(frame.data[trace])) {
        if (!dataUpdate[key]) dataUpdate[key] = new Array(indices.length).fill(undefined);
        dataUpdate[key][k] = value;
      }
    });
    const layoutUpdate = {};
    for (const [key, value] of Object.entries(frame.layout || {})) {
      layoutUpdate[key.replace(/\.(\d+)(?=\.|$)/g, "[$1]")] = value;  // "annotations.1.text" -> "annotations[1].text"
    }
    const refs = (this.base(panel).layout.meta || {}).refs || [];
    for (const ref of refs) {  // the bound's stop shows with the whole curves: a relayout only when that changes
      if (ref.when !== "whole") continue;
      const shape = (cell.plot.layout.shapes || [])[ref.shape];
      if (shape && (shape.visible !== false) !== this.showWhole(j)) layoutUpdate["shapes[" + ref.shape + "].visible"] = this.showWhole(j);
    }
    if (panel.rings && panel.rings.length) {
      const base = this.base(panel).layout.shapes || [];
      layoutUpdate.shapes = base.concat(this.ringShapes(cell, j));
    }
    if (!indices.length && !Object.keys(layoutUpdate).length) { this.overlay(cell, j); return Promise.resolve(); }
    return this.Plotly.update(cell.plot, dataUpdate, layoutUpdate, indices).then(() => (this.destroyed ? undefined : this.overlay(cell, j)));
  },

  // An HTML table panel (the deflation lab's facts): a header row, then one row per
  // frame row whose first cell names it, with the row's meaning as its tooltip.
  drawTable(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const table = panel.table;
    if (!cell.table) {
      cell.table = el("table", { class: "mpl-table" });
      const head = el("tr", {}, table.header.map((name) => el("th", { scope: "col", text: name })));
      cell.body = el("tbody");
      cell.table.append(el("thead", {}, [head]), cell.body);
      cell.plot.replaceChildren(cell.table);
      cell.plot.setAttribute("role", "region");
      cell.plot.setAttribute("aria-label", panel.title);
      cell.plot.setAttribute("tabindex", "0");
      cell.drawn = true;
    }
    cell.plot.style.height = cell.height + "px";
    const help = table.row_help || [];
    cell.body.replaceChildren(...(frame.rows || []).map((row, r) => el("tr", {}, row.map((value, i) => (i === 0
      ? el("th", { scope: "row", title: help[r] || null, class: help[r] ? "mpl-has-tip" : null, text: String(value) })
      : el("td", { text: String(value) }))))));
  },

  // Where the step line of a panel is at step j (null: not drawn), and its tag: left of
  // the line, or right of it where the left has no room; in the plot div's pixels.
  stepPlace(cell, j, full) {
    if (!cell.panel.step_line || !full || !full.xaxis) return null;
    const xa = full.xaxis;
    const stepX = cell.panel.step_x;
    const value = stepX ? stepX[Math.min(j, stepX.length - 1)] : j;
    const x = xa._offset + xa.c2p(value);
    if (!((stepX || j >= 1) && Number.isFinite(x) && x >= xa._offset - 1 && x <= xa._offset + xa._length + 1)) return null;
    const text = cell.panel.step_text ? cell.panel.step_text[Math.min(j, cell.panel.step_text.length - 1)] : "step " + j;
    const size = Math.round(14 * this.scale);
    const w = textWidth(text, size) + 6, h = size * 1.3;
    const right = w + 8 > x - xa._offset;
    return { x, text, right, tag: { x: right ? x + 4 : x - 4 - w, y: full._size.t + 2, w, h } };
  },

  stepTag(cell, j, full) {
    const place = this.stepPlace(cell, j, full);
    return place ? place.tag : null;
  },

  // The step marker of a chart against t: a div over the plot area at x = step (moving a
  // Plotly shape redraws the whole chart; a div costs nothing).
  stepLine(cell, j) {
    if (!cell.panel.step_line) return;
    const full = cell.plot._fullLayout;
    if (!full || !full.xaxis) return;
    if (!cell.line) {
      cell.plot.style.position = "relative";
      cell.line = el("div", { class: "mpl-step-line" }, [el("span", { class: "mpl-step-text" })]);
      cell.plot.appendChild(cell.line);
    }
    const place = this.stepPlace(cell, j, full);
    cell.line.style.display = place ? "" : "none";
    if (!place) return;
    cell.line.style.left = place.x + "px";
    cell.line.style.top = full._size.t + "px";
    cell.line.style.height = full._size.h + "px";
    const tag = cell.line.firstChild;
    tag.textContent = place.text;
    tag.style.fontSize = Math.round(14 * this.scale) + "px";
    tag.classList.toggle("mpl-right", place.right);
  },
};
