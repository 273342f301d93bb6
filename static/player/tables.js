// A chart of curves as a table a screen reader can read: the values behind its lines at the
// step on screen (the x values, then one column per named line, as far as the lines are
// drawn), in a visually hidden table after the chart, named by the chart's title at that
// step.  Written again only when the step, the study or "whole curves" changes.  `tables`
// holds the player's methods (mixed into Player, player.js).

import { el } from "./dom.js";

const MAX_ROWS = 400;

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

export const tables = {
  describeData(cell, j) {
    if (cell.panel.table || !cell.panel.figure) return;
    const key = [this.id, j, this.showWhole ? this.showWhole(j) : ""].join("|");
    if (cell.tableKey === key) return;
    cell.tableKey = key;
    const lines = this.traces(cell, j).filter(isLine);
    if (!lines.length) {
      if (cell.srBox) cell.srBox.remove();
      cell.srBox = cell.srTable = null;
      return;
    }
    if (!cell.srTable) {  // in a box of 1 px that clips it: a table is as wide as its cells
      cell.srTable = el("table");
      cell.srBox = el("div", { class: "mpl-sr" }, [cell.srTable]);
      cell.cell.append(cell.srBox);
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
    const xs = [...rows.keys()].sort((a, b) => a - b).slice(0, MAX_ROWS);
    const axis = (this.base(cell.panel).layout.xaxis || {}).title;
    const xName = (axis && (axis.text || axis)) || "x";
    const title = String(cell.shownTitle || cell.panel.title || cell.panel.key).replace(/\*\*/g, "");
    cell.srTable.replaceChildren(
      el("caption", { text: `Values of the chart "${title}" at step ${j}` }),
      el("thead", {}, [el("tr", {}, [xName, ...lines.map((trace) => trace.name)].map((name) =>
        el("th", { scope: "col", text: String(name).replace(/<[^>]+>/g, " ") })))]),
      el("tbody", {}, xs.map((x) => el("tr", {}, [el("th", { scope: "row", text: shown(x) }),
        ...rows.get(x).map((value) => el("td", { text: shown(value) }))]))),
    );
  },
};
