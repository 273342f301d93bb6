// The round a live class is asked (live.js): whether it asks and takes answers now, the
// countdown by the server's clock, the right answer from the lecturer's player, and what the
// lecturer's bar says of the class's answers.  No drawing here: the bar (class-bar.js) and
// the class's stream (live.js) read it.

import { boardModel } from "./board.js";

const RANKS = [[1, 1, "1st"], [2, 3, "2nd–3rd"], [4, 10, "4th–10th"], [11, Infinity, "lower"]];

// The player on screen on this page, if one is mounted.
export function playerNow() {
  const player = window.__mplLive;
  return player && !player.destroyed && player.path === window.location.pathname ? player : null;
}

export function letter(choice) { return String.fromCharCode(64 + Number(choice)); }

export function asking(state) { return Boolean(state && (state.predict || state.question) && !state.ended); }

// Seconds until the round's countdown closes it (null: no countdown), by the server's clock.
export function secondsLeft(c) {
  const state = c.state;
  if (!state || state.closes === null || state.closes === undefined) return null;
  return Math.max(0, state.closes - (Date.now() / 1000 + (c.skew || 0)));
}

// Whether the round takes answers now: open, its countdown (if any) not run out, not revealed.
export function voteOpen(c) {
  const state = c.state;
  if (!asking(state) || state.revealed || state.open === false) return false;
  const left = secondsLeft(c);
  return left === null || left > 0;
}

export function clock(seconds) {
  const s = Math.ceil(seconds);
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

// The round's right answer and what it asks, from the lecturer's player: a scene's
// multiple-choice question's, else the next pick (said to the class only once revealed,
// and kept for the lecturer's report).
export function roundAnswer(player) {
  const question = player.guide && player.guide.question;
  if (question && question.kind !== "next-pick" && question.answer) return { right: question.answer, label: question.ask || "" };
  const picks = player.payload.picks;
  if (picks && player.j < picks.length && player.j < player.n) {
    return { right: picks[player.j], label: (player.payload.title || "The study") + ": the next pick at step " + player.j };
  }
  return {};
}

// The reveal of a predicted pick: the pick, the share of the class that chose it, and the
// ranks of the class's answers by the criterion's score.
export function pickSummary(c, player) {
  const counts = (c.state.counts || {}).answers || {};
  const answered = (c.state.counts || {}).answered || 0;
  if (!player || !player.payload.picks || player.j >= player.n) return "";
  const winner = player.payload.picks[player.j];
  const right = counts[String(winner)] || 0;
  const share = answered ? Math.round((100 * right) / answered) : 0;
  let text = "The pick: point " + winner + ". " + right + " of " + answered + " answers (" + share + "%) chose it.";
  if (player.rankOf && answered) {
    const groups = RANKS.map(() => 0);
    for (const [point, n] of Object.entries(counts)) {
      const rank = player.rankOf(Number(point));
      const at = RANKS.findIndex(([low, high]) => rank >= low && rank <= high);
      if (at >= 0) groups[at] += n;
    }
    text += " By the criterion's rank: " + RANKS.map(([, , name], i) => name + " " + groups[i]).filter((_, i) => groups[i]).join(", ") + ".";
  }
  return text;
}

export function choiceSummary(c) {
  const counts = c.state.counts || {};
  const shown = (answers) => {
    const total = Object.values(answers || {}).reduce((a, b) => a + b, 0);
    return Array.from({ length: c.state.question }, (_, i) => {
      const n = (answers || {})[String(i + 1)] || 0;
      return letter(i + 1) + " " + n + (total ? " (" + Math.round((100 * n) / total) + "%)" : "");
    }).join(" · ");
  };
  let text = (c.state.vote === 2 ? "Second vote: " : "Votes: ") + shown(counts.answers);
  if (c.state.vote === 2 && counts.before) text += ". First vote: " + shown(counts.before);
  return text + ".";
}

// The reveal of a question, on the lecturer's bar: the answer, the share right in each vote,
// and who moved to it.
export function answerSummary(c) {
  const counts = c.state.counts || {};
  const results = c.state.results;
  if (!results || !results.right) return "Revealed.";
  return "Revealed. " + boardModel(Object.assign({}, results, { answers: counts.answers ? stringKeys(counts.answers) : results.answers,
    moved: counts.moved !== undefined ? counts.moved : results.moved, lost: counts.lost !== undefined ? counts.lost : results.lost }))
    .lines.slice(1).join(" ");
}

function stringKeys(counts) { return Object.fromEntries(Object.entries(counts).map(([k, v]) => [String(k), v])); }
