// Screens: the panels packed into what one screen holds at the text size (presenter mode),
// or in a column that scrolls; the next screen (V), one panel alone (1-9), whole curves (W).
// `pack` and `capacity` are pure (tested under Node: tests/js); `screens` holds the
// player's methods (mixed into Player, player.js).

import { SMALL_SCREEN, stored } from "./dom.js";

// The order panels take in presenter mode, by what each is (the payload schema's `role`,
// views/player.py `Panel.role`): one panel of each role first, data, criterion and bound
// leading, then the second of each (a second view's data and kernel), and so on; the
// payload's order within a role.
export const PRESENT_ORDER = ["data", "criterion", "bound", "kernel", "model", "curve", "facts"];

// The smallest panel worth drawing at text size 100%: at 1280 x 720 the presenter shows
// three columns and two rows (data, criterion, the bound two rows tall, the heatmaps two
// columns wide); larger text makes the least size grow with it, so fewer panels share a
// screen and the rest are a key (V) away.
export const MIN_PANEL = { width: 350, height: 230 };
export const GAP = 12;

// How many columns and rows of panels fit an area at a text scale.
export function capacity(width, height, scale) {
  const cols = Math.max(1, Math.floor((width + GAP) / (MIN_PANEL.width * scale + GAP)));
  const rows = height === Infinity ? Infinity : Math.max(1, Math.floor((height + GAP) / (MIN_PANEL.height * scale + GAP)));
  return { cols, rows };
}

function isFree(taken, row, col, w, h) {
  for (let r = row; r < row + h; r++) for (let c = col; c < col + w; c++) if (taken.has(r + ":" + c)) return false;
  return true;
}

// Panels in order (spans [columns, rows] each) packed into screens of `cols` x `rows`
// slots: each screen takes, in order, every remaining panel that still fits somewhere on
// it (first fit in reading order), so a wide panel that must wait for the next screen
// does not push the smaller ones after it there too.  `rows = Infinity`: one long screen
// (the scrolling layout), every panel one row tall.  Returns screens of
// {index, row, col, w, h}, each screen in the panels' order.
export function pack(spans, cols, rows) {
  const sizes = spans.map(([w0, h0]) => [Math.max(1, Math.min(w0 || 1, cols)),
    rows === Infinity ? 1 : Math.max(1, Math.min(h0 || 1, rows))]);
  const left = sizes.map((size, index) => index);
  const screens = [];
  while (left.length) {
    const screen = [];
    const taken = new Set();
    const place = (w, h) => {
      const lastRow = rows === Infinity ? screen.reduce((top, item) => Math.max(top, item.row + item.h), 0) + 1 : rows;
      for (let row = 0; row + h <= lastRow; row++) {
        for (let col = 0; col + w <= cols; col++) if (isFree(taken, row, col, w, h)) return { row, col };
      }
      return null;
    };
    for (let k = 0; k < left.length; k++) {
      const index = left[k];
      const [w, h] = sizes[index];
      const spot = place(w, h);
      if (!spot) continue;
      for (let r = spot.row; r < spot.row + h; r++) for (let c = spot.col; c < spot.col + w; c++) taken.add(r + ":" + c);
      screen.push({ index, row: spot.row, col: spot.col, w, h });
      left.splice(k, 1);
      k -= 1;
    }
    screens.push(screen);
  }
  return screens;
}

export const screens = {
  visibleCells() {
    const p = this.payload;
    // a lesson's scene may name the panel its narration discusses: first, on the first screen
    // (alone, all its height, where the narration leaves room for one row only; on a phone,
    // before the narration)
    const named = this.guide && this.guide.panel ? this.guide.panel : null;
    if (!p.present) {
      const cells = this.cells.slice();
      const at = named && SMALL_SCREEN && SMALL_SCREEN.matches ? cells.findIndex((cell) => cell.panel.key === named) : -1;
      return at > 0 ? [cells[at], ...cells.slice(0, at), ...cells.slice(at + 1)] : cells;
    }
    const ranked = this.cells.filter((cell) => cell.panel.presenter || cell.panel.key === named);
    const seen = new Map();
    const round = new Map(ranked.map((cell) => {
      const before = seen.get(cell.panel.role) || 0;
      seen.set(cell.panel.role, before + 1);
      return [cell, before];
    }));
    const rank = (cell) => {
      if (cell.panel.key === named) return [-1, -1];
      const at = PRESENT_ORDER.indexOf(cell.panel.role);
      return [round.get(cell), at < 0 ? PRESENT_ORDER.length : at];
    };
    const order = (a, b) => {
      const [ra, rb] = [rank(a), rank(b)];
      return ra[0] - rb[0] || ra[1] - rb[1] || a.index - b.index;
    };
    return ranked.sort(order);
  },

  // Where the grid starts inside the scrolling container's content (not the window's:
  // Streamlit scrolls its main section), and how much of one screen is left below it.
  area() {
    const box = this.grid.getBoundingClientRect();
    const scroller = this.scroller;
    const isPage = scroller === document.scrollingElement || scroller === document.documentElement;
    const frame = isPage ? { top: 0 } : scroller.getBoundingClientRect();
    const top = box.top - frame.top + (isPage ? window.scrollY : scroller.scrollTop);
    const height = (isPage ? window.innerHeight : scroller.clientHeight) - top - 10;
    return { width: this.grid.clientWidth || box.width, height, top };
  },

  layout() {
    if (!this.Plotly) return;
    const p = this.payload;
    this.renderText();  // the grid's top depends on the story's height
    const area = this.area();
    const shown = this.visibleCells();
    const scale = this.scale;
    const present = p.present;
    const room = { width: area.width, height: present ? Math.max(area.height, 120) : Infinity };
    const { cols, rows } = capacity(room.width, room.height, scale);
    let screens;
    if (this.zoom !== null && shown.includes(this.cells[this.zoom])) {
      screens = [[{ index: shown.indexOf(this.cells[this.zoom]), row: 0, col: 0, w: 1, h: 1 }]];
    } else {
      this.zoom = null;
      const spans = shown.map((cell) => (present ? cell.panel.span : [cell.panel.span[0], 1]));
      screens = pack(spans, present ? cols : Math.min(cols, 2), present ? rows : Infinity);
      const named = this.guide && this.guide.panel && shown.length && shown[0].panel.key === this.guide.panel;
      if (present && named && shown[0].panel.figure && rows === 1 && cols > 1) {  // (a table keeps its own size)
        // one row is all the narration leaves: the panel the scene discusses has the first
        // screen to itself, its whole width, and the others follow on the next screens
        const rest = pack(spans.slice(1), cols, rows).map((screen) => screen.map((item) => Object.assign({}, item, { index: item.index + 1 })));
        screens = [[{ index: 0, row: 0, col: 0, w: cols, h: 1 }], ...rest];
      }
    }
    this.screens = screens;
    this.screen = Math.min(this.screen, screens.length - 1);
    const items = screens[this.screen] || [];
    if (present) {  // the key above the grid for the panels on this screen, and the room it leaves
      const before = this.sharedKey.style.display;
      this.renderShared(items.map((item) => shown[item.index].panel));
      if (this.sharedKey.style.display !== before) room.height = Math.max(this.area().height, 120);
    }
    const colsUsed = Math.max(1, ...items.map((item) => item.col + item.w));
    const rowsUsed = Math.max(1, ...items.map((item) => item.row + item.h));
    const rowHeight = present || this.zoom !== null
      ? Math.floor(((this.zoom !== null && !present ? Math.max(area.height, 480 * scale) : room.height) - GAP * (rowsUsed - 1)) / rowsUsed)
      : null;
    this.grid.style.gridTemplateColumns = "repeat(" + colsUsed + ", minmax(0, 1fr))";
    this.grid.style.gridTemplateRows = rowHeight ? "repeat(" + rowsUsed + ", " + rowHeight + "px)" : "";
    // a phone: a scene's narration and the step's story come after its first chart, so that
    // the first screen shows the chart (the narration is its caption, one swipe down)
    const lead = Boolean(this.guide && !present && this.zoom === null && SMALL_SCREEN && SMALL_SCREEN.matches && items.length);
    const texts = [this.lesson, this.story];
    if (lead) {
      texts.forEach((node, k) => { this.grid.append(node); node.style.gridColumn = "1 / -1"; node.style.gridRow = String(2 + k); });
    } else if (this.lesson.parentNode === this.grid) {
      for (const node of texts) { this.top.insertBefore(node, this.quiz); node.style.gridColumn = node.style.gridRow = ""; }
    }
    const shift = (row) => (lead && row >= 1 ? texts.length : 0);
    const onScreen = new Map(items.map((item) => [shown[item.index], item]));
    for (const cell of this.cells) {
      const item = onScreen.get(cell);
      if (!item) { cell.cell.style.display = "none"; cell.height = 0; continue; }
      cell.cell.style.display = "";
      cell.cell.style.gridColumn = (item.col + 1) + " / span " + item.w;
      cell.cell.style.gridRow = (item.row + 1 + shift(item.row)) + " / span " + item.h;
      let height = (cell.panel.height || 420) * scale;
      if (rowHeight) {
        const chrome = [cell.head, cell.cell.querySelector(".mpl-subtitle")]
          .reduce((sum, node) => sum + (node && node.style.display !== "none" ? node.getBoundingClientRect().height : 0), 0);
        height = rowHeight * item.h + GAP * (item.h - 1) - chrome - 4;
      }
      cell.height = Math.max(120, Math.floor(height));
      cell.plot.style.height = cell.height + "px";
    }
    const many = screens.length > 1 || this.zoom !== null;
    this.screenButton.style.display = many ? "" : "none";
    this.screenButton.textContent = this.zoom !== null ? "All panels" : (this.payload.present ? "" : "Panels ") + (this.screen + 1) + "/" + screens.length + " ▸";
    const named = this.guide && this.guide.panel ? shown.findIndex((cell) => cell.panel.key === this.guide.panel) : -1;
    const at = named < 0 ? -1 : screens.findIndex((screen) => screen.some((item) => item.index === named));
    if (this.zoom === null && at >= 0 && at !== this.screen) this.screenButton.textContent += " · discussed: " + (at + 1);
    // A resize that leaves every panel where and as large as it was (the observer's first
    // report, the story's new line outside presenter mode) draws nothing again: a full
    // redraw of every panel was a second draw of each new study.
    const shape = [area.width, this.screen, this.grid.style.gridTemplateColumns, this.grid.style.gridTemplateRows,
      ...this.cells.map((cell) => [cell.height, cell.cell.style.gridColumn, cell.cell.style.gridRow].join(" "))].join("|");
    const drawn = (cell) => !cell.height || (cell.drawn && cell.hooked) || cell.behind || this.dragged();  // (drawing.js)
    // (nor does one that comes while this shape's draw is still going: the observer's first
    // report came as a new study's first panels were drawn, and drew them all again)
    if (shape === this.shape && (this.cells.every(drawn) || this.drawingShape === shape)) return;
    this.shape = shape;
    this.drawingShape = shape;
    const done = () => { if (this.drawingShape === shape) this.drawingShape = null; };
    this.render(true).then(done, done);
  },

  nextScreen() {
    if (this.zoom !== null) { this.zoom = null; this.layout(); return; }
    if (!this.screens || this.screens.length < 2) return;
    this.screen = (this.screen + 1) % this.screens.length;
    this.layout();
  },

  enlarge(index) {
    this.zoom = this.zoom === index || index === null ? null : index;
    this.layout();
  },

  setWhole(on) {
    this.whole = on;
    if (this.wholeBox) this.wholeBox.checked = on;
    stored("mpl-whole", on ? "1" : "0");
    for (const cell of this.cells) cell.mode = "full";
    this.render(true);
  },
};
