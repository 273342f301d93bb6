// The class's answers on the board (a live class, live.js): shown to the room and to every
// student when the lecturer shows them, both votes of a question side by side, with counts
// and shares, the right answer marked once revealed, the share correct and how many moved
// to the right answer between the votes.  Dark on white whatever the theme, and large: a
// projector's back row reads it.
//
// `boardModel` is pure (the node tests call it); `boardPanel` draws it.

import { el } from "./dom.js";

export function choiceName(kind, answer) {
  return kind === "question" ? String.fromCharCode(64 + Number(answer)) : "point " + answer;
}

const TOP_POINTS = 6;  // points a prediction's board lists (the data panel shows them all)

function total(counts) { return Object.values(counts || {}).reduce((a, b) => a + b, 0); }

function percent(part, whole) { return whole ? Math.round((100 * part) / whole) + "%" : "0%"; }

// What the board says of `results` (the class's state's, views/classroom.py `_results`):
// { title, rows: [{ answer, name, right, votes: [{ count, share, width }] }], lines: [...] }.
export function boardModel(results) {
  const kind = results.kind;
  const votes = results.before ? [results.before, results.answers] : [results.answers];
  const totals = votes.map(total);
  const right = Number(results.right) || 0;
  let answers;
  if (kind === "question" && results.choices) answers = Array.from({ length: results.choices }, (_, i) => i + 1);
  else {
    const last = votes[votes.length - 1];
    answers = Object.keys(last).map(Number).sort((a, b) => last[b] - last[a] || a - b).slice(0, TOP_POINTS);
    if (right && !answers.includes(right)) answers.push(right);
  }
  const rows = answers.map((answer) => ({
    answer,
    name: choiceName(kind, answer),
    right: right === answer,
    votes: votes.map((counts, i) => {
      const count = Number((counts || {})[String(answer)] || 0);
      return { count, share: percent(count, totals[i]), width: totals[i] ? count / totals[i] : 0 };
    }),
  }));
  const lines = [];
  const said = (n) => n + (n === 1 ? " answer" : " answers");
  lines.push(votes.length === 2 ? "First vote: " + said(totals[0]) + " · second vote: " + said(totals[1]) + "." : said(totals[0]) + ".");
  if (right) {
    const correct = votes.map((counts, i) => percent(Number((counts || {})[String(right)] || 0), totals[i]));
    if (kind === "predict") {
      const last = votes[votes.length - 1];
      const n = Number(last[String(right)] || 0);
      lines.push("The pick: point " + right + ". " + n + " of " + totals[totals.length - 1] + " (" + correct[correct.length - 1] + ") predicted it.");
    } else {
      lines.push("The answer: " + choiceName(kind, right) + ". Correct: " + correct.join(" → ") + ".");
    }
    if (results.moved !== null && results.moved !== undefined) {
      lines.push(results.moved + " moved to the right answer between the votes, " + results.lost + " away from it.");
    }
  }
  const title = kind === "question" ? "The class's answers" : "The class's predictions" + (kind === "predict" && !right ? " (the data panel shows where)" : "");
  return { title, rows, lines, votes: votes.length };
}

// The board's panel for `results`; `close` (a button's action) hides it: for the lecturer,
// for the whole class; for a student, on this screen only.
export function boardPanel(results, close, closeTitle) {
  const model = boardModel(results);
  const head = el("div", { class: "mpl-board-head" }, [
    el("h2", { class: "mpl-board-title", text: model.title }),
    el("button", { class: "mpl-btn mpl-board-close", type: "button", text: "×", title: closeTitle, "aria-label": closeTitle, onclick: close }),
  ]);
  const legend = model.votes === 2
    ? el("div", { class: "mpl-board-legend", "aria-hidden": "true" }, [
      el("span", { class: "mpl-board-key mpl-board-first" }), document.createTextNode(" first vote  "),
      el("span", { class: "mpl-board-key" }), document.createTextNode(" second vote"),
    ])
    : null;
  // a table: a screen reader reads the counts as rows and columns
  const table = el("table", { class: "mpl-board-table" }, [
    el("caption", { class: "mpl-sr", text: model.title + ": " + model.lines.join(" ") }),
    el("thead", { class: "mpl-sr" }, [el("tr", {}, [
      el("th", { scope: "col", text: "Answer" }),
      ...(model.votes === 2 ? ["First vote", "Second vote"] : ["Answers"]).map((name) => el("th", { scope: "col", text: name })),
    ])]),
    el("tbody", {}, model.rows.map((row) => el("tr", { class: row.right ? "mpl-board-right" : "" }, [
      el("th", { scope: "row", class: "mpl-board-name", text: (row.right ? "✓ " : "") + row.name }),
      ...row.votes.map((vote, i) => el("td", { class: "mpl-board-cell" }, [
        el("span", { class: "mpl-board-bar" + (model.votes === 2 && i === 0 ? " mpl-board-first" : ""), style: "width:" + (vote.width * 100).toFixed(1) + "%" }),
        el("span", { class: "mpl-board-count", text: vote.count + " (" + vote.share + ")" }),
      ])),
    ]))),
  ]);
  return el("div", { class: "mpl-board", role: "region", "aria-label": model.title }, [
    head, ...(legend ? [legend] : []), table, ...model.lines.map((line) => el("p", { class: "mpl-board-line", text: line })),
  ]);
}
