// The live class's bar, its parts (live.js draws it): nodes kept from one drawing to the
// next, the join screen, the lecturer's controls of the class's pace and of the round, and
// the class's answers on the board.
// A control's change goes to the class through `c.drive` (live.js).

import { boardPanel } from "./board.js";
import { el } from "./dom.js";
import { answerSummary, asking, choiceSummary, clock, pickSummary, playerNow, roundAnswer, secondsLeft, voteOpen } from "./class-round.js";

// A button of the bar, made once per class: the bar redraws as the class's counts come
// (several times a second while a class answers), and a button replaced between the press
// and the release of a click would lose the click.
export function button(c, label, title, onclick, primary) {
  c.buttons = c.buttons || {};
  if (!c.buttons[title]) {
    c.buttons[title] = el("button", { class: "mpl-btn" + (primary ? " mpl-live-primary" : ""), type: "button", text: label, title, "aria-label": title, onclick });
  }
  return c.buttons[title];
}

export function enabled(node, on) {
  node.disabled = !on;
  return node;
}

export function joinScreen(c) {
  const qr = el("div", { class: "mpl-live-qr", role: "img", "aria-label": "QR code of the students' link" });
  // The QR code is SVG the app made (segno) from the link: paths only, no text of anyone's.
  qr.innerHTML = c.qr;
  const screen = el("div", { class: "mpl-live-join", role: "dialog", "aria-label": "Join the class" }, [
    el("div", { class: "mpl-live-join-text" }, [
      el("div", { class: "mpl-live-join-say", text: "Join the class" }),
      el("div", { class: "mpl-live-join-code", text: c.shown }),
      el("div", { class: "mpl-live-join-link", text: c.link }),
      el("div", { class: "mpl-live-join-hint", text: c.local
        ? "This link names this computer itself (localhost): students reach the app at this computer's network name or address instead."
        : "Open the link, or scan the code. Click or press Esc to close." }),
    ]),
    qr,
  ]);
  const close = () => { screen.remove(); document.removeEventListener("keydown", onKey, true); };
  const onKey = (event) => { if (event.key === "Escape") { event.preventDefault(); close(); } };
  screen.addEventListener("click", close);
  document.addEventListener("keydown", onKey, true);
  document.body.append(screen);
}

// The bar is made of nodes kept from one drawing to the next (buttons, and spans whose text
// changes in place): it redraws several times a second while a class answers or a countdown
// runs, and a button moved or replaced between the press and the release of a click would
// lose the click.  `text(c, key, text, cls, attrs)` is the span kept under `key`.
export function text(c, key, words, cls = "mpl-live-say", attrs = {}) {
  c.spans = c.spans || {};
  let node = c.spans[key];
  if (!node || node.className !== cls) node = c.spans[key] = el("span", Object.assign({ class: cls }, attrs));
  if (node.textContent !== words) node.textContent = words;
  return node;
}

// `parent`'s children made `nodes`, moving only those out of place: a node left where it
// is keeps the focus (a keyboard user's, on a button just pressed).
export function setChildren(parent, nodes) {
  nodes.forEach((node, i) => {
    if (parent.childNodes[i] !== node) parent.insertBefore(node, parent.childNodes[i] || null);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild.remove();
}

export function kept(c, key, make) {
  c.kept = c.kept || {};
  return c.kept[key] || (c.kept[key] = make());
}

// The countdown's text: a timer, which a screen reader does not read out at every second.
export function timer(c, words) { return text(c, "timer", words, "mpl-live-say mpl-live-timer", { role: "timer", "aria-live": "off" }); }

// How the class moves: free (students follow, and may step or change a setting on their
// own), hold (every student on the lecturer's view, stepping off), explore (free within a
// range of steps the lecturer sets).  Toggle buttons, and the range's two numbers.
const PACES = [
  ["free", "Free", "Students follow you, and may step and change settings on their own"],
  ["hold", "Hold", "Hold every student on your view: their stepping is off"],
  ["explore", "Explore", "Let students step on their own within a range of steps you set"],
];

export function paceControls(c, state) {
  const pace = state.pace || "free";
  const player = playerNow();
  const last = player ? player.n : Math.max(state.step, 1);
  const buttons = PACES.map(([name, label, title]) => {
    const node = button(c, label, title, () => {
      const change = { pace: name };
      if (name === "explore" && !Array.isArray(c.state.range)) change.range = [0, playerNow() ? playerNow().n : last];
      c.drive(change);
    });
    node.setAttribute("aria-pressed", String(pace === name));
    return node;
  });
  const nodes = [text(c, "pace", "Students:"), ...buttons];
  if (pace === "explore") {
    // The range the lecturer typed stays in the boxes until the class's state brings it (or
    // the class refused it): a state sent before it and arriving after must not put the old
    // ends back, or the other box's change would send an old end with its new one.
    if (c.typedRange && (c.problem || JSON.stringify(state.range) === JSON.stringify(c.typedRange))) c.typedRange = null;
    const range = c.typedRange || (Array.isArray(state.range) ? state.range : [0, last]);
    const input = (key, label, value) => {
      const node = kept(c, key, () => {
        const made = el("input", { type: "number", class: "mpl-live-step", min: "0", step: "1", "aria-label": label, title: label });
        made.addEventListener("change", () => {
          const [from, to] = [c.kept.rangeFrom, c.kept.rangeTo].map((box) => Math.max(0, Math.round(Number(box.value) || 0)));
          c.typedRange = [Math.min(from, to), Math.max(from, to)];
          c.problem = "";  // (a refusal of this range clears it from the boxes: above)
          c.drive({ pace: "explore", range: c.typedRange });
        });
        return made;
      });
      node.max = String(last);
      if (document.activeElement !== node && node.value !== String(value)) node.value = String(value);
      return node;
    };
    nodes.push(text(c, "rangeSay", "steps"), input("rangeFrom", "The first step students may explore", range[0]),
      text(c, "rangeTo", "to"), input("rangeTo", "The last step students may explore", range[1]));
  }
  const group = kept(c, "paceGroup", () => el("span", { class: "mpl-live-group", role: "group", "aria-label": "The class's pace" }));
  setChildren(group, nodes);
  return group;
}

// The lecturer's controls of the round, on a line of their own, first and always in the same
// places (a button not to be pressed now is greyed, never taken away): the lecturer's mouse
// never finds another button where one was.  What the class answered follows them.
export function roundControls(c, state, followers) {
  const open = voteOpen(c);
  const left = secondsLeft(c);
  const countdown = kept(c, "countdown", () => el("span", { class: "mpl-live-group", role: "group", "aria-label": "A countdown" }, [
    el("span", { class: "mpl-live-say", text: "Close in" }),
    ...[30, 60, 90].map((s) => button(c, s + " s", "Close the vote in " + s + " seconds (a countdown the class sees)", () => c.drive({ countdown: s }))),
  ]));
  for (const node of countdown.querySelectorAll("button")) enabled(node, open);
  const nodes = [
    enabled(button(c, "Reveal", "Show the class the answer, and the share who got it", () => {
      const player = playerNow();
      c.drive(Object.assign(player ? roundAnswer(player) : {}, { reveal: true }));
    }, true), !state.revealed),
    state.shown
      ? button(c, "Hide results", "Hide the class's answers from the board", () => c.drive({ show: false }))
      : button(c, "Show results", "Show the class's answers to the room and to every student (closes the vote)", () => c.drive({ show: true })),
    ...(state.question ? [button(c, "Vote again", "A second vote, after the class has discussed (peer instruction)", () => c.drive({ again: true }))] : []),
    open || state.revealed
      ? enabled(button(c, "Close the vote", "Close the vote now, without revealing the answer", () => c.drive({ open: false })), open)
      : button(c, "Reopen the vote", "Take answers again, with no time limit", () => c.drive({ open: true })),
    countdown,
  ];
  if (!state.revealed) {
    nodes.push(open && left !== null ? timer(c, "Vote open: " + clock(left) + " left") : text(c, "vote", open ? "Vote open" : "Vote closed"));
  }
  const answered = (state.counts || {}).answered || 0;
  nodes.push(text(c, "answered", answered + " of " + followers + " answered"));
  if (state.question) nodes.push(text(c, "votes", choiceSummary(c)));
  if (state.revealed) nodes.push(text(c, "revealed", state.question ? answerSummary(c) : pickSummary(c, playerNow())));
  const round = kept(c, "round", () => el("div", { class: "mpl-live-round", role: "group", "aria-label": "This round" }));
  setChildren(round, nodes);
  return round;
}

// The class's answers on the board, while the lecturer shows them: on the lecturer's screen
// (the projector) and on every student's.  A student may close it on their own screen (until
// the board changes); the lecturer's close hides it for everyone.
export function drawBoard(c) {
  const state = c.state;
  const results = state && !c.ended && state.shown && asking(state) ? state.results : null;
  const mark = results ? state.round + ":" + JSON.stringify(results) : "";
  const wanted = results && c.dismissed !== mark;
  if (!wanted) {
    if (c.board) { c.board.remove(); c.board = null; c.boardMark = ""; }
    return;
  }
  if (c.board && c.board.isConnected && c.boardMark === mark) return;
  const lead = c.role === "lead";
  const panel = boardPanel(results, lead ? () => c.drive({ show: false }) : () => { c.dismissed = mark; drawBoard(c); },
    lead ? "Close the board: the class's answers hidden on every screen" : "Close the class's answers on this screen");
  panel.style.setProperty("--mpl-live-scale", String(c.scale || 1));
  if (c.board) c.board.replaceWith(panel); else document.body.append(panel);
  c.board = panel;
  c.boardMark = mark;
}
