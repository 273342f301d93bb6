// A chart as a table a screen reader can read, in a visually hidden table after the chart,
// named by the chart's title at the step on screen.  A chart of curves: the values behind its
// lines at that step (the x values, then one column per named line, as far as the lines are
// drawn).  A chart of points: the points it marks (the points chosen so far and the next
// pick), not the cloud of every training point.  Written again only when the step, the
// study, "whole curves" or a prediction's state changes.  `tables` holds the player's
// methods (mixed into Player, player.js).

import { el } from "./dom.js";

// A table read row by row: a curve drawn on a fine grid of x (a fitted function's 200
// values) is read at one x value in every few, at most READ_ROWS of them, its ends kept.
const READ_ROWS = 50;

// The x values a table reads, ascending: all of them, or one in every `every` (the last kept).
export function readRows(xs, limit = READ_ROWS) {
  if (xs.length <= limit) return { rows: xs, every: 1 };
  const every = Math.ceil((xs.length - 1) / (limit - 1));
  const rows = xs.filter((_, i) => i % every === 0);
  if (rows[rows.length - 1] !== xs[xs.length - 1]) rows.push(xs[xs.length - 1]);
  return { rows, every };
}

// A number as the charts' hover reads it: three significant digits, no trailing zeros.
function shown(value) {
  const number = Number(value);
  if (value === null || value === undefined || !Number.isFinite(number)) return "no value";
  if (Number.isInteger(number)) return String(number);
  return String(Number(number.toPrecision(3)));
}

// A line of a chart worth a column: named, drawn as a line, shown, not a marker of its lowest point.
function isLine(trace) {
  const meta = trace.meta || {};
  return Boolean(trace.name && trace.x && trace.y && String(trace.mode || "lines").includes("lines")
    && trace.visible !== false && trace.visible !== "legendonly" && meta.min_of === undefined);
}

function axisName(layout, axis, fallback) {
  const title = (layout[axis] || {}).title;
  return String((title && (title.text || title)) || fallback).replace(/<[^>]+>/g, " ");
}

export const tables = {
  // The points a chart of points marks at step j, as its rings and star show them
  // (figures.js ringShapes): each point chosen so far, in order, and the next pick -- not
  // while a student predicts it.  Rows of [what, x, y].
  markedPoints(cell, j) {
    const hideStar = this.predict && !this.revealed();
    const rows = [];
    for (const set of cell.panel.rings || []) {
      let chosen = Array.from(set.picks).slice(0, Math.min(j, set.picks.length));
      if (set.unique) chosen = Array.from(new Set(chosen));
      chosen.forEach((i, order) => rows.push([`chosen ${order + 1}: point ${i}`, ...set.coords[i]]));
      const next = set.next ? set.next[Math.min(j, set.next.length - 1)] : -1;
      if (next >= 0 && !hideStar) rows.push([`next pick: point ${next}`, ...set.coords[next]]);
    }
    return rows;
  },

  describeData(cell, j) {
    if (cell.panel.table || !cell.panel.figure) return;
    const key = [this.id, j, this.showWhole ? this.showWhole(j) : "", this.predict && !this.revealed()].join("|");
    if (cell.tableKey === key) return;
    cell.tableKey = key;
    const lines = this.traces(cell, j).filter(isLine);
    const marked = lines.length ? [] : this.markedPoints(cell, j);
    if (!lines.length && !marked.length) {
      if (cell.srBox) cell.srBox.remove();
      cell.srBox = cell.srTable = null;
      return;
    }
    if (!cell.srTable) {  // in a box of 1 px that clips it: a table is as wide as its cells
      cell.srTable = el("table");
      cell.srBox = el("div", { class: "mpl-sr" }, [cell.srTable]);
      cell.cell.append(cell.srBox);
    }
    const title = String(cell.shownTitle || cell.panel.title || cell.panel.key).replace(/\*\*/g, "");
    const layout = this.base(cell.panel).layout;
    if (!lines.length) {
      const head = ["", axisName(layout, "xaxis", "x"), axisName(layout, "yaxis", "y")];
      cell.srTable.replaceChildren(
        el("caption", { text: `Points marked on the chart "${title}" at step ${j}` }),
        el("thead", {}, [el("tr", {}, head.map((name) => el("th", { scope: "col", text: name })))]),
        el("tbody", {}, marked.map(([name, x, y]) => el("tr", {}, [el("th", { scope: "row", text: name }),
          el("td", { text: shown(x) }), el("td", { text: shown(y) })]))),
      );
      return;
    }
    const rows = new Map();  // x -> the values of each line there
    lines.forEach((trace, column) => {
      const count = Math.min(trace.x.length, trace.y.length);
      for (let i = 0; i < count; i += 1) {
        const x = Number(trace.x[i]);
        if (!rows.has(x)) rows.set(x, new Array(lines.length).fill(undefined));
        rows.get(x)[column] = trace.y[i];
      }
    });
    const all = [...rows.keys()].sort((a, b) => a - b);
    const { rows: xs, every } = readRows(all);
    const xName = axisName(layout, "xaxis", "x");
    const part = every > 1 ? ` (one ${xName} value in ${every} of ${all.length})` : "";
    cell.srTable.replaceChildren(
      el("caption", { text: `Values of the chart "${title}" at step ${j}${part}` }),
      el("thead", {}, [el("tr", {}, [xName, ...lines.map((trace) => trace.name)].map((name) =>
        el("th", { scope: "col", text: String(name).replace(/<[^>]+>/g, " ") })))]),
      el("tbody", {}, xs.map((x) => el("tr", {}, [el("th", { scope: "row", text: shown(x) }),
        ...rows.get(x).map((value) => el("td", { text: shown(value) }))]))),
    );
  },
};
