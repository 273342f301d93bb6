// Labels placed where nothing else is: each labelled curve named at its end in its colour,
// each reference line's label where no curve crosses it, and the overlay that draws them
// (with each curve's lowest point so far and its clip at the step) over the Plotly chart
// without a Plotly call.  The placement is pure (tests/js); `labels` holds the player's
// methods (mixed into Player, player.js).

import { SVG, el, swatch } from "./dom.js";

let measureCanvas = null;
export function textWidth(text, size) {
  measureCanvas = measureCanvas || document.createElement("canvas");
  const context = measureCanvas.getContext("2d");
  context.font = size + 'px "Open Sans", verdana, arial, sans-serif';
  return context.measureText(String(text)).width;
}

// Words in lines no wider than `room` px at `size` px (a word longer than that stays whole).
export function wrapText(text, size, room) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(" ")) {
    const next = line ? line + " " + word : word;
    if (line && textWidth(next, size) > room) { lines.push(line); line = word; } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

export function overlaps(a, b, pad = 1) {
  return a.x < b.x + b.w + pad && b.x < a.x + a.w + pad && a.y < b.y + b.h + pad && b.y < a.y + a.h + pad;
}

function segmentHitsBox(x1, y1, x2, y2, box) {
  // Liang-Barsky clipping: does the segment pass through the box?
  const dx = x2 - x1, dy = y2 - y1;
  let t0 = 0, t1 = 1;
  const edges = [[-dx, x1 - box.x], [dx, box.x + box.w - x1], [-dy, y1 - box.y], [dy, box.y + box.h - y1]];
  for (const [p, q] of edges) {
    if (p === 0) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return true;
}

function crossings(box, lines) {
  let count = 0;
  for (const line of lines) {
    for (let i = 1; i < line.length; i++) {
      const [x1, y1] = line[i - 1], [x2, y2] = line[i];
      if (segmentHitsBox(x1, y1, x2, y2, box)) count += 1;
    }
  }
  return count;
}

// Reference labels (each with candidate boxes, best first) go where no line crosses them
// and no other label is; tip labels sit just right of their line's last point (left of
// it near the right edge) and are pushed apart vertically.  All in pixels of the plot
// area `area` {x, y, w, h}; `lines`: polylines [[x, y], ...]; `fixed`: boxes to avoid.
export function placeLabels(refs, tips, lines, area, fixed = []) {
  const placed = fixed.slice();
  const inside = (box) => box.x >= area.x - 1 && box.y >= area.y - 1 && box.x + box.w <= area.x + area.w + 1 &&
    box.y + box.h <= area.y + area.h + 1;
  const refBoxes = refs.map((ref) => {
    let best = null, bestCost = Infinity;
    for (const box of ref.candidates) {  // over a curve if it must, over another label never
      const cost = (inside(box) ? 0 : 1000) + 10 * crossings(box, lines) + placed.filter((other) => overlaps(box, other)).length * 100000;
      if (cost < bestCost) { best = box; bestCost = cost; }
      if (cost === 0) break;
    }
    if (!best || !inside(best)) return null;  // no room on a small chart: the line stays, unnamed
    placed.push(best);
    return best;
  });
  // Each label beside its line's end: to the right when there is room, else to the left,
  // level with the end or just above or below it -- wherever fewest curves cross it.
  const tipBoxes = tips.map((tip) => {
    const right = tip.x + 8 + tip.w <= area.x + area.w;
    const x = Math.max(area.x, right ? tip.x + 8 : tip.x - 8 - tip.w);
    const levels = right ? [0] : [0, -tip.h / 2 - 4, tip.h / 2 + 4, -1.5 * tip.h - 4, 1.5 * tip.h + 4, -2.5 * tip.h - 4];
    let best = null, bestCost = Infinity;
    for (const shift of levels) {
      const box = { x, y: tip.y - tip.h / 2 + shift, w: tip.w, h: tip.h };
      const cost = crossings(box, lines) + (inside(box) ? 0 : 1000);
      if (cost < bestCost) { best = box; bestCost = cost; }
    }
    return Object.assign(best, { anchor: best.y + tip.h / 2 });
  });
  // One column of labels, in the order of their lines' ends (a label above another names
  // the line that ends above: sorted by where each box was shifted to, a shift to dodge a
  // crossing could swap two neighbours and name each other's line): from the top down,
  // each at its line's height or just below the one above it, stepping over the reference
  // labels; then, if the last one left the plot, from the bottom up.
  const order = tipBoxes.map((box, i) => i).sort((a, b) => tips[a].y - tips[b].y || a - b);
  const clear = (box, down) => {
    for (let guard = 0; guard < placed.length + 1; guard++) {
      const hit = placed.find((other) => overlaps(box, other, 0));
      if (!hit) return;
      box.y = down ? hit.y + hit.h + 1 : hit.y - box.h - 1;
    }
  };
  let cursor = area.y;
  for (const index of order) {
    const box = tipBoxes[index];
    box.y = Math.max(box.y, cursor);
    clear(box, true);
    cursor = box.y + box.h + 1;
  }
  let limit = area.y + area.h;
  for (let k = order.length - 1; k >= 0; k--) {
    const box = tipBoxes[order[k]];
    if (box.y + box.h <= limit) break;
    box.y = limit - box.h;
    clear(box, false);
    limit = box.y - 1;
  }
  // a label that still leaves the plot or lies on another is not drawn (its line keeps
  // its colour and its hover): never an overprint
  const kept = placed.slice();
  tipBoxes.forEach((box, i) => {
    if (!inside(box) || kept.some((other) => overlaps(box, other, 0))) { tipBoxes[i] = null; return; }
    kept.push(box);
  });
  return { refs: refBoxes, tips: tipBoxes };
}

export const labels = {
  wantsLabels(cell) {
    const figure = cell.panel.light;
    if (!figure) return false;
    if (cell.wants === undefined) {
      cell.wants = figure.data.some((trace) => trace.meta && trace.meta.label) || Boolean(figure.layout.meta && figure.layout.meta.refs && figure.layout.meta.refs.length);
    }
    return cell.wants;
  },

  // Each labelled line named at the end of what is drawn of it, and each reference line's
  // label where no curve crosses it: [{text, box}] in the plot's pixels (box null: not
  // drawn).  The overlay shows them as HTML; the SVG download as Plotly annotations.
  labelBoxes(cell, data, layout, j) {
    if (!this.wantsLabels(cell)) return null;
    const full = cell.plot._fullLayout;
    if (!full || !full.xaxis || !full.yaxis || !full._size) return null;
    const xa = full.xaxis, ya = full.yaxis, size = full._size;
    const px = (x) => xa._offset + xa.c2p(x), py = (y) => ya._offset + ya.c2p(y);
    const fontSize = Math.round(14 * this.scale);
    const lines = [];
    const tips = [];
    const tipTraces = [];
    data.forEach((trace, i) => {
      if (trace.visible === false || !trace.x || !trace.y || (trace.mode && !trace.mode.includes("lines"))) return;
      if ((trace.yaxis && trace.yaxis !== "y") || (trace.xaxis && trace.xaxis !== "x")) return;
      const line = [];
      let last = null, beyond = "";
      for (let k = 0; k < trace.x.length; k++) {
        const y = trace.y[k];
        if (y === null || !Number.isFinite(y) || (ya.type === "log" && y <= 0)) continue;
        const point = [px(trace.x[k]), Math.max(size.t, Math.min(size.t + size.h, py(y)))];
        line.push(point);
        last = point;  // the line's end; off the chart, its label says where it went and its value
        beyond = py(y) < size.t - 1 ? " ↑ " + Number(y).toPrecision(3) : py(y) > size.t + size.h + 1 ? " ↓ " + Number(y).toPrecision(3) : "";
      }
      lines.push(line);
      const meta = trace.meta || {};
      if (meta.label) {
        const colour = (trace.line && trace.line.color) || (trace.marker && typeof trace.marker.color === "string" ? trace.marker.color : null);
        tipTraces.push({ index: i, text: meta.label + beyond, last, rank: meta.label_rank || 0, colour });
      }
    });
    // a label wider than ~45% of the plot goes on two lines (or more), its box with it
    const measure = (text) => {
      const lines = textWidth(text, fontSize) > 0.45 * size.w ? wrapText(text, fontSize, 0.45 * size.w) : [text];
      return { text: lines.join("<br>"), w: Math.max(...lines.map((line) => textWidth(line, fontSize))) + 8, h: fontSize * 1.35 * lines.length };
    };
    for (const tip of tipTraces) {
      const box = measure(tip.text);
      tip.shown = box.text;
      tips.push({ x: tip.last ? tip.last[0] : 0, y: tip.last ? tip.last[1] : 0, w: box.w, h: box.h, rank: tip.rank });
    }
    // when the labels cannot all stand in the plot's height, the least important go (their
    // lines keep their colour and hover)
    const refs = ((layout.meta && layout.meta.refs) || []).map((ref) => {
      const shape = (layout.shapes || [])[ref.shape] || {};
      const box = measure(ref.text);
      ref.shown = box.text;
      const w = box.w, h = box.h;
      const visible = shape.visible !== false && (ref.when !== "whole" || this.showWhole(j));
      let candidates = [];
      if (ref.axis === "y") {
        const y = py(shape.y0);
        for (const share of [1, 0, 0.5, 0.75, 0.25]) {
          const x = size.l + 4 + share * (size.w - w - 8);
          candidates.push({ x, y: y - h - 2, w, h }, { x, y: y + 2, w, h });
        }
      } else {
        const x = px(shape.x0);
        for (const share of [0, 1, 0.5, 0.25, 0.75]) {
          const y = size.t + 2 + share * (size.h - h - 4);
          candidates.push({ x: x + 4, y, w, h }, { x: x - w - 4, y, w, h });
        }
      }
      return { ref, visible, candidates, inRange: ref.axis === "y" ? (py(shape.y0) >= size.t && py(shape.y0) <= size.t + size.h) : true };
    });
    const area = { x: size.l, y: size.t, w: size.w, h: size.h };
    const fixed = [];
    const tag = this.stepTag(cell, j, full);  // the step line's "step j" tag, where it will be
    if (tag) fixed.push(tag);
    const shownRefs = refs.filter((item) => item.visible && item.inRange);
    let room = size.h - 4 - fixed.reduce((sum, box) => sum + box.h + 1, 0) -
      shownRefs.reduce((sum, item) => sum + item.candidates[0].h + 1, 0);
    const byRank = tips.map((tip, i) => i).filter((i) => tipTraces[i].last).sort((a, b) => tips[a].rank - tips[b].rank || a - b);
    for (const i of byRank) { room -= tips[i].h + 1; if (room < 0) tipTraces[i].last = null; }
    const shownTips = tips.map((tip, i) => ({ tip, i })).filter(({ i }) => tipTraces[i].last);
    const placed = placeLabels(shownRefs, shownTips.map(({ tip }) => tip), lines, area, fixed);
    const out = [];
    refs.forEach((item) => {
      const at = shownRefs.indexOf(item);
      out.push({ text: item.ref.shown, box: at >= 0 ? placed.refs[at] : null, size: fontSize });
    });
    tipTraces.forEach((tip, i) => {
      const at = shownTips.findIndex((entry) => entry.i === i);
      out.push({ text: tip.shown, box: at >= 0 ? placed.tips[at] : null, size: fontSize,
        colour: tip.colour ? this.inkOf(tip.colour) : null, end: tip.last });  // named in its line's colour
    });
    return out;
  },

  // What changes with the step on a chart of curves, drawn over it without asking Plotly:
  // the curves clipped at step j (an SVG clip on its trace layer), each curve's lowest
  // point so far, and the labels.
  overlay(cell, j) {
    const full = cell.plot._fullLayout;
    if (!full || !full._size || !this.wantsLabels(cell)) return;
    const size = full._size, xa = full.xaxis, ya = full.yaxis;
    const svgRoot = cell.plot.querySelector("svg.main-svg");
    const layer = cell.plot.querySelector(".overplot .xy .scatterlayer, .cartesianlayer .subplot.xy .plot .scatterlayer");
    if (this.hasReveal && svgRoot && layer) {
      const id = "mpl-reveal-" + this.id + "-" + cell.index;
      let clip = svgRoot.querySelector("#" + id);
      if (!clip) {
        clip = document.createElementNS(SVG, "clipPath");
        clip.setAttribute("id", id);
        clip.appendChild(document.createElementNS(SVG, "rect"));
        (svgRoot.querySelector("defs") || svgRoot).appendChild(clip);
      }
      const whole = this.showWhole(j);
      const width = whole ? size.w + 40 : Math.max(0, xa.c2p(j) + 1.5);
      Object.entries({ x: -20, y: -20, width: width + 20, height: size.h + 40 }).forEach(([key, value]) => clip.firstChild.setAttribute(key, value));
      layer.setAttribute("clip-path", whole ? "" : "url(#" + id + ")");
    }
    const data = this.traces(cell, j);
    if (!cell.marks) {
      cell.plot.style.position = "relative";
      cell.marks = el("div", { class: "mpl-marks", "aria-hidden": "true" });
      cell.plot.appendChild(cell.marks);
    }
    const nodes = [];
    data.forEach((trace) => {  // the lowest point so far of each curve
      const meta = trace.meta || {};
      if (meta.min_of === undefined || !trace.x || !trace.x.length) return;
      const x = xa._offset + xa.c2p(trace.x[0]), y = ya._offset + ya.c2p(trace.y[0]);
      if (!Number.isFinite(y) || y < size.t - 1 || y > size.t + size.h + 1) return;
      const marker = trace.marker || {};
      const item = { kind: "marker", symbol: marker.symbol || "circle", colour: marker.color, edge: this.inkOf("#ffffff") };
      const mark = el("div", { class: "mpl-mark-point", style: `left:${x}px;top:${y}px;font-size:${Math.round(16 * this.scale)}px` },
        [swatch(item, (c) => this.inkOf(c))]);
      nodes.push(mark);
    });
    for (const item of this.labelBoxes(cell, data, this.layoutOf(cell, j), j) || []) {
      if (!item.box) continue;
      const label = el("div", { class: "mpl-curve-label", style: `left:${item.box.x}px;top:${item.box.y}px;` +
        `width:${item.box.w}px;font-size:${item.size}px` + (item.colour ? `;color:${item.colour}` : "") });
      if (item.end) label.dataset.end = item.end.map((v) => v.toFixed(1)).join(",");  // its curve's end (plot px)
      item.text.split("<br>").forEach((line, k) => { if (k) label.appendChild(el("br")); label.appendChild(document.createTextNode(line)); });
      nodes.push(label);
    }
    cell.marks.replaceChildren(...nodes);
  },
};
