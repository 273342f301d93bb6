// A panel's figure at step j, as Plotly draws it: the frame's patch on the base figure,
// curves cut at the step, the chosen points ringed and numbered, the next pick starred,
// axes that never cut their text; its Plotly config and its SVG download.  `figures`
// holds the player's methods (mixed into Player, player.js).

import { patched, slice } from "./decode.js";
import { SMALL_SCREEN } from "./dom.js";
import { overlaps, textWidth, wrapText } from "./labels.js";

// A five-pointed star of outer radius r around (0, 0), as an SVG path (the next pick).
function starPath(r) {
  const points = [];
  for (let k = 0; k < 10; k++) {
    const angle = Math.PI / 2 + (k * Math.PI) / 5, length = k % 2 ? r * 0.45 : r;
    points.push((length * Math.cos(angle)).toFixed(2) + "," + (length * Math.sin(angle)).toFixed(2));
  }
  return "M" + points.join(" L") + " Z";
}

// The drawn axis a trace or shape refers to ("x2" -> the full layout's xaxis2), if drawn.
function axisOf(full, ref) {
  return full && full[ref.replace(/^([xy])/, "$1axis")];
}

// Where the axes of a panel's numbered rings are on screen, and the numbers' size: what the
// numbers were fitted to (each kept only where it clears the newer ones).
function numbersFit(full, sets, fontSize) {
  const place = (ref) => {
    const axis = axisOf(full, ref);
    return axis ? [axis._offset, axis._length, axis.range] : null;
  };
  return JSON.stringify([fontSize, sets.filter((set) => set.numbers).map((set) => [place(set.xref), place(set.yref)])]);
}

export const figures = {
  // How many points of a revealed line are drawn at step j (its x are steps 1..k).
  revealCount(trace, j) {
    if (this.whole || j >= this.n) return null;
    const x = trace.x || [];
    let count = 0;
    while (count < x.length && x[count] <= j) count += 1;
    return count;
  },

  // The traces of a panel as they are at step j: the frame's patch, lines cut at step j
  // (unless whole curves are on), each "lowest point" marker moved to the lowest point drawn.
  traces(cell, j) {
    const panel = cell.panel;
    const base = this.base(panel);
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    const data = base.data.map((trace, i) => (frame.data && frame.data[i] ? patched(trace, frame.data[i]) : trace));
    if (!this.hasReveal) return data;
    data.forEach((trace, i) => {
      const meta = trace.meta || {};
      if (meta.reveal) {
        const count = this.revealCount(trace, j);
        if (count !== null) data[i] = Object.assign({}, trace, { x: slice(trace.x, count), y: slice(trace.y, count) });
      }
    });
    data.forEach((trace, i) => {
      const meta = trace.meta || {};
      if (meta.min_of === undefined) return;
      const source = data[meta.min_of];
      let best = -1;
      for (let k = 0; k < (source.y || []).length; k++) {
        const v = source.y[k];
        if (v !== null && Number.isFinite(v) && (best < 0 || v < source.y[best])) best = k;
      }
      data[i] = Object.assign({}, trace, best < 0 ? { x: [], y: [] } : { x: [source.x[best]], y: [source.y[best]] });
    });
    return data;
  },

  // What Plotly draws of a panel at step j: the frame's patch; revealed curves whole (the
  // overlay clips them at step j without a Plotly call) and the "lowest so far" marks left
  // to the overlay.
  drawData(cell, j) {
    const panel = cell.panel;
    const base = this.base(panel);
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    return base.data.map((trace, i) => {
      const out = frame.data && frame.data[i] ? patched(trace, frame.data[i]) : trace;
      return out.meta && out.meta.min_of !== undefined ? Object.assign({}, out, { visible: false }) : out;
    });
  },

  layoutOf(cell, j) {
    const panel = cell.panel;
    const frame = panel.frames[Math.min(j, panel.frames.length - 1)] || {};
    let layout = patched(this.base(panel).layout, frame.layout);
    layout = Object.assign({}, layout, { height: cell.height, width: cell.plot.clientWidth || undefined, autosize: true,
      showlegend: false });
    for (const name of Object.keys(layout)) {  // tick labels and titles push the margins, never get cut
      if (!/^[xy]axis\d*$/.test(name)) continue;
      const axis = Object.assign({}, layout[name], { automargin: true });
      const title = axis.title && axis.title.text;
      if (name.startsWith("y") && title && !String(title).includes("<br>")) {  // longer than the chart is tall: two lines
        const fontSize = (axis.title.font && axis.title.font.size) || 18;
        const room = 0.85 * (cell.height - 70 * this.scale);
        if (textWidth(title, fontSize) > room) axis.title = Object.assign({}, axis.title, { text: wrapText(title, fontSize, room).join("<br>") });
      }
      if (cell.decades && cell.decades[name]) Object.assign(axis, { dtick: cell.decades[name], tick0: 0 });
      layout[name] = axis;
    }
    const refs = (layout.meta && layout.meta.refs) || [];
    if (refs.length && layout.shapes) {
      const shapes = layout.shapes.slice();
      for (const ref of refs) if (ref.when === "whole" && shapes[ref.shape]) shapes[ref.shape] = Object.assign({}, shapes[ref.shape], { visible: this.showWhole(j) });
      layout.shapes = shapes;
    }
    if (panel.rings && panel.rings.length) layout.shapes = (layout.shapes || []).concat(this.ringShapes(cell, j));
    return layout;
  },

  showWhole(j) { return !this.hasReveal || this.whole || j >= this.n; },

  // The chosen points as layout shapes: a ring around each pick so far (pixel-sized, so it
  // stays round whatever the axes), its order number above it unless that would overprint
  // a newer one, and a star on the next pick -- hidden while a student predicts it.
  ringShapes(cell, j) {
    const sets = cell.panel.rings;
    if (!sets || !sets.length) return [];
    const full = cell.plot._fullLayout;
    const ink = this.inkOf("#000000");
    const radius = 10 * this.scale, fontSize = Math.round(16 * this.scale);
    const hideStar = this.predict && !this.revealed();
    const out = [];
    cell.numbersFit = numbersFit(full, sets, fontSize);
    for (const set of sets) {
      const n = Math.min(j, set.picks.length);
      let chosen = Array.from(set.picks).slice(0, n);
      if (set.unique) chosen = Array.from(new Set(chosen));
      const where = { xref: set.xref, yref: set.yref, xsizemode: "pixel", ysizemode: "pixel", layer: "above" };
      const start = out.length;
      for (const i of chosen) {
        const [x, y] = set.coords[i];
        out.push(Object.assign({ type: "circle", xanchor: x, yanchor: y, x0: -radius, x1: radius, y0: -radius, y1: radius,
          line: { color: ink, width: 3 * this.scale } }, where));
      }
      if (set.numbers) {
        const xa = axisOf(full, set.xref), ya = axisOf(full, set.yref);
        const kept = [];
        for (let order = chosen.length - 1; order >= Math.max(0, chosen.length - 20); order--) {
          const text = String(order + 1);
          let below = false;  // under the ring when above it would leave the chart (a pick near the top)
          if (xa && ya) {
            const [x, y] = set.coords[chosen[order]];
            const w = textWidth(text, fontSize), h = fontSize * 1.2;
            const centre = ya._offset + ya.c2p(y);
            below = centre - radius - h < 2;
            const box = { x: xa._offset + xa.c2p(x) - w / 2, y: below ? centre + radius : centre - radius - h, w, h };
            if (kept.some((other) => overlaps(box, other, 0))) continue;
            kept.push(box);
          }
          out[start + order].label = below
            ? { text, textposition: "bottom center", yanchor: "top", font: { size: fontSize, color: ink }, padding: 2 }
            : { text, textposition: "top center", yanchor: "bottom", font: { size: fontSize, color: ink }, padding: 2 };
        }
      }
      const next = set.next ? set.next[Math.min(j, set.next.length - 1)] : -1;
      if (next >= 0 && !hideStar) {
        const [x, y] = set.coords[next];
        out.push(Object.assign({ type: "path", xanchor: x, yanchor: y, path: starPath(12 * this.scale),
          fillcolor: "#F0E442", line: { color: ink, width: 2 * this.scale } }, where));
      }
    }
    return out;
  },

  // The ring numbers again, when the draw just made moved the axes they were fitted to (a
  // first draw, a new text size or screen size): fitted to the old place, they overprinted
  // each other.  Null when they still fit, or fitted again come out as they are drawn.
  renumber(cell, j) {
    const sets = cell.panel.rings;
    if (!sets || !sets.some((set) => set.numbers)) return null;
    if (cell.numbersFit === numbersFit(cell.plot._fullLayout, sets, Math.round(16 * this.scale))) return null;
    const shapes = this.layoutOf(cell, j).shapes || [];
    const drawn = cell.plot.layout.shapes || [];
    const label = (shape) => JSON.stringify((shape && shape.label) || null);
    if (shapes.length === drawn.length && shapes.every((shape, i) => label(shape) === label(drawn[i]))) return null;
    return this.Plotly.relayout(cell.plot, { shapes });
  },

  figure(cell, j) {
    const panel = cell.panel;
    const data = this.drawData(cell, j);
    const layout = this.layoutOf(cell, j);
    if (this.predict && !this.revealed() && panel.hide_when_predicting) {
      for (const index of panel.hide_when_predicting) if (data[index]) data[index] = Object.assign({}, data[index], { visible: false });
    }
    if (this.predict && this.guess !== null && panel.guess_trace !== undefined) {
      const [x, y] = this.coords[this.guess];
      data.push({ type: "scatter", mode: "markers", x: [x], y: [y], name: "your guess", showlegend: false,
        marker: { symbol: "x-thin-open", size: 26 * this.scale, color: "#CC79A7", line: { width: 4, color: "#CC79A7" } }, hoverinfo: "skip" });
    }
    const counts = this.classCounts;
    if (this.predict && counts && panel.guess_trace !== undefined && this.coords) {
      // A live class's answers (live.js), for its lecturer: a disc on each point the class
      // clicked, as large as its count's square root, the count written in it.
      const points = Object.keys(counts).map(Number).filter((i) => this.coords[i]);
      if (points.length) {
        const largest = Math.max(...points.map((i) => counts[i]));
        data.push({ type: "scatter", mode: "markers+text", name: "the class's answers", showlegend: false, hoverinfo: "text",
          x: points.map((i) => this.coords[i][0]), y: points.map((i) => this.coords[i][1]),
          text: points.map((i) => String(counts[i])), hovertext: points.map((i) => "point " + i + ": " + counts[i] + (counts[i] === 1 ? " answer" : " answers")),
          textfont: { size: 15 * this.scale, color: "#000000" },
          marker: { size: points.map((i) => (16 + 22 * Math.sqrt(counts[i] / largest)) * this.scale), color: "rgba(230, 159, 0, 0.75)",
            line: { width: 1.5, color: "#000000" } } });
      }
    }
    return { data, layout };
  },

  // Plotly's config for a panel: a chart with an overlay downloads through download().
  // A cell's Plotly config: one object per cell, made once and handed to every react.  A
  // config that differs from the last (a new click handler compares as a change) makes
  // Plotly.react start over with newPlot and then react again, and that round can repeat
  // for ever: the tab froze in "newPlot -> doAutoMargin -> redraw" when a lesson's next
  // scene re-laid out the same study.  So react never sees a changed config.  (Called
  // only once Plotly is loaded; what it depends on, the cell's panel, never changes.)
  config(cell) {
    if (cell.config) return cell.config;
    // WebGL panels at the screen's own pixel density (Plotly's default is 2: four times the
    // pixels to fill on a 1x projector, for no visible gain)
    const config = Object.assign({ plotGlPixelRatio: Math.max(1, Math.min(2, window.devicePixelRatio || 1)) },
      this.payload.config || {});
    if (this.wantsLabels(cell)) {
      config.modeBarButtonsToRemove = ["toImage"];
      config.modeBarButtonsToAdd = [{ name: "Download as SVG", title: "Download the chart as an SVG file (curves whole, labelled)",
        icon: this.Plotly.Icons.camera, click: () => this.download(cell) }];
    }
    // a phone: a finger cannot hit the toolbar's 24 px buttons, and a tap on a chart shows it
    if (SMALL_SCREEN && SMALL_SCREEN.matches) config.displayModeBar = false;
    cell.config = config;
    return config;
  },

  // A log axis ticked at every decade (dtick 1) shows as many decades as its length has
  // room for, at whole multiples: every 10, 100 or 1000 times.  Null when nothing changed.
  thinDecades(cell) {
    const full = cell.plot._fullLayout;
    if (!full) return null;
    const update = {};
    for (const name of ["xaxis", "yaxis"]) {
      const axis = full[name];
      if (!axis || axis.type !== "log" || axis.tickmode === "array" || !axis.range) continue;
      const decades = Math.abs(axis.range[1] - axis.range[0]);
      const size = (axis.tickfont && axis.tickfont.size) || 16;
      const fits = Math.max(2, Math.floor(axis._length / (size * (name === "yaxis" ? 2.1 : 3.6))));
      const wanted = Math.max(1, Math.ceil(decades / fits));
      if (decades >= 2 && Number(axis.dtick) !== wanted) {
        update[name + ".dtick"] = wanted;
        update[name + ".tick0"] = 0;
        cell.decades = Object.assign(cell.decades || {}, { [name]: wanted });  // kept for the next full draw
      }
    }
    return Object.keys(update).length ? this.Plotly.relayout(cell.plot, update) : null;
  },

  // The chart as an SVG file, as the step shows it drawn whole: every curve to its end, its
  // lowest point and its label as Plotly annotations (the overlay is HTML, not in the SVG).
  download(cell) {
    const j = this.n;
    const data = this.traces(cell, j).map((trace) => (trace.meta && trace.meta.min_of !== undefined ? Object.assign({}, trace, { visible: true }) : trace));
    const layout = this.layoutOf(cell, j);
    const size = cell.plot._fullLayout._size;
    const toPaper = (box) => ({ x: (box.x - size.l) / size.w, y: 1 - (box.y + box.h / 2 - size.t) / size.h });
    const notes = (this.labelBoxes(cell, data, layout, j) || []).filter((item) => item.box).map((item) => Object.assign({
      text: item.text, xref: "paper", yref: "paper", xanchor: "left", yanchor: "middle", showarrow: false,
      font: { size: item.size, color: item.colour || this.inkOf("#222222") }, bgcolor: this.dark ? "rgba(23,22,20,0.78)" : "rgba(255,255,255,0.78)" },
    toPaper(item.box)));
    layout.annotations = (layout.annotations || []).concat(notes);
    const options = (this.payload.config || {}).toImageButtonOptions || {};
    return this.Plotly.downloadImage({ data, layout }, { format: "svg", filename: options.filename || "matching-pursuit-lab",
      width: cell.plot.clientWidth, height: cell.height });
  },
};
