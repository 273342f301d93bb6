// A live class (ui/live.py, serving/classes.py) in the browser: the bar above the page, the
// class's events, and the step player they move.
//
// The lecturer's player tells the class the view it shows with its step, at every step and
// every new view (the events "mpl-step", "mpl-mounted" and "mpl-shown" the player
// dispatches; the address is the player's own, so a step is never sent with another view's
// address), and predict mode ("mpl-predict"); a change that does not reach the server is
// sent again until it does.  The lecturer's bar (class-bar.js) shows how many follow (and how
// many are reconnecting, behind or exploring), the class's pace, the round's controls and
// what the class answered (class-round.js), and the join screen.  A student's bar follows:
// the same view (a setting, scene, text size or presenter mode changed: the page asks
// Streamlit to open the lecturer's address), the same step, predict mode and the round's
// question, within the pace the lecturer sets; a student who steps or changes a setting
// explores alone until "Back to the lecturer".  The class's answers, once the lecturer shows
// them, are on every screen (board.js).  A class lives in one object on the window, so that
// it outlives Streamlit's reruns and page switches (one stream per tab).

import { button, drawBoard, joinScreen, paceControls, roundControls, setChildren, text, timer } from "./class-bar.js";
import { asking, clock, letter, playerNow, roundAnswer, secondsLeft, voteOpen } from "./class-round.js";
import { el } from "./dom.js";
import { openStream } from "./stream.js";

function live() {
  if (!window.__mplClass) window.__mplClass = { code: null };
  return window.__mplClass;
}

// --- the class's stream ---------------------------------------------------------------------

function open(c) {
  if (c.stream) c.stream.close();
  const url = new URL(c.routes + "events?class=" + encodeURIComponent(c.code), document.baseURI).href;
  c.stream = openStream(url, {
    headers: c.key ? { "X-Class-Key": c.key } : {},  // the key in a header: an address is logged
    onEvent: (state) => received(c, state),
    onState: (connection, sentence) => {
      c.connection = connection;
      if (connection === "open") c.toldExploring = null;  // a new stream: the server hears it again
      c.refusal = connection === "refused" ? sentence || "The class's server refused this page's connection. Reload the page to try again." : "";
      draw(c);
    },
  });
}

function received(c, state) {
  if (state.ended) {
    c.ended = true;
    c.endedWhy = state.why || "";
    c.state = null;
    if (c.stream) c.stream.close();
    const player = playerNow();
    if (player) { player.classAsk = null; player.classCounts = null; player.render(true); }
    draw(c);
    return;
  }
  const before = c.state;
  // the address comes only when it changed (a lesson from a file makes it long): its view names it
  if (state.address === undefined && before && state.view === before.view) state.address = before.address;
  c.state = state;
  if (typeof state.now === "number") c.skew = state.now - Date.now() / 1000;  // the server's clock, less ours
  tick(c);
  if (c.role === "follow" && state.pace === "hold" && !c.following) c.following = true;  // held: on the lecturer's view
  if (c.role === "lead") applyToLead(c, before);
  else if (c.following) follow(c);
  else { const player = playerNow(); if (player) setPace(player, state, c); }
  draw(c);
}

// --- a student ------------------------------------------------------------------------------

// While a countdown runs, the bar says the time left every second, and the players learn
// when it runs out (a student's answers then stop).
function tick(c) {
  const running = secondsLeft(c) !== null && voteOpen(c);
  if (running && !c.ticker) {
    c.ticker = setInterval(() => {
      if (!voteOpen(c) || secondsLeft(c) === null) { clearInterval(c.ticker); c.ticker = null; }
      const player = playerNow();
      if (player && c.state && (c.role === "lead" || c.following)) setAsk(player, c.state, c.role === "lead", c);
      draw(c);
    }, 250);
  } else if (!running && c.ticker) { clearInterval(c.ticker); c.ticker = null; }
}

// Move this tab to where the lecturer is: another view through Streamlit (one rerun), the
// step and the round's question in the player.
function follow(c) {
  const state = c.state;
  if (!state) return;
  if (state.address !== c.here) {
    if (c.asked !== state.version) {
      c.asked = state.version;
      c.component.setTriggerValue("follow", state.version);
    }
    return;
  }
  const player = playerNow();
  if (!player) return;  // mounting: "mpl-mounted" follows again
  setAsk(player, state, false, c);
  setPace(player, state, c);
  if (player.j !== state.step) player.go(state.step, "class");
}

// The class's pace on a student's player: held on the lecturer's step, or free within the
// lecturer's range of steps (the player keeps its steps inside it: player.js `go`).
function setPace(player, state, c) {
  let range = null;
  if (c.role === "follow" && state && !state.ended) {
    if (state.pace === "hold") range = [state.step, state.step];
    else if (state.pace === "explore" && Array.isArray(state.range)) range = state.range;
  }
  if (JSON.stringify(range) === JSON.stringify(player.classRange || null)) return;
  player.classRange = range;
  if (range && (player.j < range[0] || player.j > range[1])) player.go(Math.max(range[0], Math.min(player.j, range[1])), "class");
  else player.render(true);
}

// A student's page tells the class whether it explores on its own or follows (the
// lecturer's bar counts both): when that changes, and again on each new stream.
function tellStatus(c) {
  if (c.role !== "follow" || !c.state || c.ended || c.connection !== "open") return;
  const exploring = !c.following;
  if (c.toldExploring === exploring || Date.now() < (c.statusAfter || 0)) return;
  c.toldExploring = exploring;
  const failed = () => { c.toldExploring = null; c.statusAfter = Date.now() + 5000; };  // said again, not at every drawing
  fetch(new URL(c.routes + "status?class=" + encodeURIComponent(c.code), document.baseURI).href, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ exploring }),
  }).then((response) => { if (!response.ok) failed(); }, failed);
}

let settingPredict = false;  // predict mode set from the class's state, not by the lecturer

// The round the class is asked (predict the next pick, or the scene's question) in the
// player; the lecturer's own player keeps its predict mode (it is what drives the class's).
// A student's data panel shows the class's predictions once the pick is revealed.
function setAsk(player, state, lead, c) {
  const results = state.results || null;
  const ask = asking(state) ? {
    round: state.round, revealed: Boolean(state.revealed), question: state.question,
    closed: !state.revealed && !voteOpen(c || { state }), results: state.revealed ? results : null,
  } : null;
  // (shown on every screen, the projected lecturer's too, once the lecturer shows or reveals them)
  if (!lead) player.classCounts = ask && (state.revealed || state.shown) && results && results.kind === "predict" ? results.answers : null;
  const was = player.classAsk ? JSON.stringify(player.classAsk) : "";
  player.classLead = Boolean(lead);
  if (!lead && state.predict !== Boolean(player.predict) && player.predictBox) {
    settingPredict = true;
    try { player.setPredict(Boolean(state.predict)); } finally { settingPredict = false; }
  }
  if (was !== (ask ? JSON.stringify(ask) : "")) {
    const newRound = !player.classAsk || !ask || player.classAsk.round !== ask.round;
    player.classAsk = ask;
    if (newRound) { player.guess = null; player.classChoice = null; }
    player.render(true);
    if (player.redrawQuestion) player.redrawQuestion();
  }
}

function answer(c, value) {
  const state = c.state;
  if (!state || !asking(state) || !voteOpen(c) || c.role !== "follow" || !c.following) return;
  c.answered = { round: state.round, value };
  fetch(new URL(c.routes + "answer?class=" + encodeURIComponent(c.code), document.baseURI).href, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ round: state.round, answer: value }),  // the seat goes as the stream's cookie
  }).then((response) => {
    if (response.ok) { c.problem = ""; return null; }
    return response.json().then((body) => { c.problem = body.error || "The answer was not counted."; });
  })
    .catch(() => { c.problem = "The answer did not reach the class's server: click again."; })
    .finally(() => draw(c));
  draw(c);
}

// --- the lecturer ---------------------------------------------------------------------------

const RETRY_MS = [500, 1000, 2000, 4000, 8000];

// Send the lecturer's changes, one post at a time, the latest merged into what waits; a post
// that does not reach the server (restarting, unreachable) is sent again until it lands,
// with the changes made meanwhile, and the bar says so meanwhile.
function drive(c, change) {
  c.queue = Object.assign(c.queue || {}, change);
  if (c.sending) return;
  const send = () => {
    const body = c.queue;
    c.queue = null;
    if (!body || c.ended) { c.sending = false; return; }
    c.sending = true;
    const failed = (sentence) => {
      c.queue = Object.assign(body, c.queue || {});  // later changes win; none is lost
      c.unsent = sentence;
      draw(c);
      c.retry = setTimeout(send, RETRY_MS[Math.min(c.failures, RETRY_MS.length - 1)]);
      c.failures += 1;
    };
    fetch(new URL(c.routes + "drive?class=" + encodeURIComponent(c.code), document.baseURI).href, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Class-Key": c.key }, body: JSON.stringify(body),
    }).then((response) => {
      if (response.ok || (response.status < 500 && response.status !== 429 && response.status !== 408)) {
        c.failures = 0;
        c.unsent = "";
        if (!response.ok) return response.json().then((answer) => { c.problem = answer.error || "The class did not take the change."; }, () => {}).finally(() => { draw(c); send(); });
        c.problem = "";
        draw(c);
        return send();
      }
      return failed("The class's server is busy: the students may be behind. Sending again…");
    }, () => failed("The class's server does not answer: the students may be behind. Sending again…"));
  };
  send();
}

// The lecturer's view on screen, from the player that shows it: its address (the page, its
// settings, the scene) with its step, together.
function driveView(c, player) {
  const change = { step: player.j, ...roundAnswer(player) };
  const address = player.payload.address;
  if (address && address !== c.sentAddress) {
    change.address = address;
    c.sentAddress = address;
  }
  drive(c, change);
}

function applyToLead(c, before) {
  const player = playerNow();
  if (!player) return;
  setAsk(player, c.state, true, c);
  const counts = c.state.counts;
  const out = c.state.revealed || c.state.shown;  // the lecturer's screen is the room's: nothing before
  player.classCounts = c.state.predict && out && counts ? counts.answers : null;
  const was = before && (before.revealed || before.shown);
  if (!before || Boolean(was) !== Boolean(out) || JSON.stringify((before.counts || {}).answers) !== JSON.stringify((counts || {}).answers)) player.render(true);
}

function draw(c) {
  if (!c.root || !c.root.isConnected) return;
  const state = c.state;
  const parts = [text(c, "code", "Class " + c.shown, "mpl-live-code")];
  let said = 0;
  const say = (words) => parts.push(text(c, "say" + said++, words));
  const away = c.connection === "reconnecting";
  if (c.ended) {
    say(c.endedWhy || (c.role === "lead" ? "The class has ended." : "The lecturer has ended the class: the page is yours."));
  } else if (c.role === "lead") {
    const followers = state && state.followers !== undefined ? state.followers : 0;
    if (away) say("The class's server does not answer: reconnecting…");
    const exploring = Math.min((state && state.exploring) || 0, followers);
    say(exploring
      ? followers + (followers === 1 ? " student: " : " students: ") + (followers - exploring) + " follow, " + exploring + " explore on their own"
      : followers + (followers === 1 ? " student follows" : " students follow"));
    if (state && state.away) say(state.away + " reconnecting");
    if (state && state.behind) say(state.behind + (state.behind === 1 ? " student is" : " students are") + " behind");
    parts.push(button(c, "Join screen", "Show the students' link and its QR code, large", () => joinScreen(c)));
    parts.push(button(c, "End the class", "End the live class: the students' screens stop following", () => leave(c)));
    if (state) parts.push(paceControls(c, state));
    if (asking(state)) parts.push(roundControls(c, state, followers));
  } else if (state) {
    const range = state.pace === "explore" && Array.isArray(state.range) ? state.range : null;
    if (c.following) {
      say(away ? "Reconnecting to the class…" : state.pace === "hold" ? "The lecturer holds the class on this view: stepping is off" : "Following the lecturer");
      if (range) say("You may explore steps " + range[0] + "–" + range[1] + ".");
      parts.push(button(c, "Leave", "Leave the class: this page stays as it is, and stops following", () => leave(c)));
      if (asking(state)) {
        const mine = c.answered && c.answered.round === state.round ? c.answered.value : null;
        const left = secondsLeft(c);
        if (state.revealed) say("The answer is out: see the board.");
        else if (!voteOpen(c)) say("The vote is closed" + (mine !== null ? ": your answer, " + (state.question ? letter(mine) : "point " + mine) + ", counts." : "."));
        else {
          parts.push(left !== null ? timer(c, "Vote open: " + clock(left) + " left") : text(c, "vote", "Vote open, no time limit"));
          if (mine !== null) say("Your answer: " + (state.question ? letter(mine) : "point " + mine) + ". The lecturer reveals it.");
          else say(state.question ? "Answer the question below." : "The class predicts the next pick.");
        }
      }
    } else {
      say("You are exploring " + (range ? "steps " + range[0] + "–" + range[1] + " " : "") + "on your own; the lecturer is on step " + state.step + ".");
      parts.push(button(c, "Back to the lecturer", "Follow the lecturer again, from where the lecturer is now", () => {
        c.following = true;
        follow(c);
        draw(c);
      }, true));
    }
  } else say(away ? "Reconnecting to the class…" : "Joining…");
  [c.refusal, c.unsent, c.problem].forEach((problem, i) => {
    if (problem) parts.push(text(c, "problem" + i, problem, "mpl-live-problem", { role: "alert" }));
  });
  drawBoard(c);
  tellStatus(c);
  if (!c.bar || c.bar.parentNode !== c.root) {
    c.bar = el("div", { class: "mpl-live-bar", role: "region", "aria-label": "Live class", "aria-live": "polite" });
    c.root.replaceChildren(c.bar);
  }
  setChildren(c.bar, parts);
}

// --- the player's events ------------------------------------------------------------------

const EVENTS = ["mpl-step", "mpl-predict", "mpl-guess", "mpl-choice", "mpl-mounted", "mpl-shown"];

function listen(c) {
  // The lecturer's every step, whatever moved it (a key, a scene's own step, "Back to the
  // lesson"), goes to the class with the address of the player that took it.
  const onStep = (event) => {
    const { source, step, player } = event.detail;
    if (source === "class") return;
    if (c.role === "lead") { if (player === playerNow()) driveView(c, player); }
    else if (source !== "scene" && c.following && c.state && step !== c.state.step) { c.following = false; alone(player); draw(c); }
  };
  const onPredict = (event) => { if (c.role === "lead" && !settingPredict) drive(c, { predict: Boolean(event.detail.on) }); };
  // A player made for a new view, or one given a new view of its study (a scene of the same
  // study): the lecturer's view and step go to the class; a student's follows the class.
  const onShown = (event) => {
    if (c.role === "follow") {
      if (c.following) follow(c);
      else if (playerNow() && c.state) setPace(playerNow(), c.state, c);
      return;
    }
    const player = playerNow();
    // a slider's values while it is dragged stay on the lecturer's screen: the class follows
    // the value released (the page's rerun shows it, drag.js)
    if (player && player === event.detail && !player.payload.dragged) driveView(c, player);
    if (c.state) applyToLead(c, null);
  };
  c.handlers = {
    "mpl-step": onStep,
    "mpl-predict": onPredict,
    "mpl-guess": (event) => answer(c, event.detail.point),
    "mpl-choice": (event) => answer(c, event.detail.choice),
    "mpl-mounted": onShown,
    "mpl-shown": onShown,
  };
  for (const name of EVENTS) document.addEventListener(name, c.handlers[name]);
}

// A student exploring on their own: the class's round is not theirs to answer (their board
// is their own again, predict mode and its score too) until they follow again.
function alone(player) {
  if (!player || (!player.classAsk && !player.classCounts)) return;
  player.classAsk = null;
  player.classCounts = null;
  player.render(true);
}

// The lecturer ends the class, or a student leaves it: this tab's stream closes, and the
// page (one rerun) drops the class from its address.
function leave(c) {
  stop(c);
  window.__mplClass = { code: null };
  const player = playerNow();
  if (player) { player.classAsk = null; player.classCounts = null; player.classLead = false; player.render(true); }
  c.component.setTriggerValue("end", true);
}

function stop(c) {
  if (c.stream) c.stream.close();
  if (c.board) { c.board.remove(); c.board = null; }
  if (c.ticker) { clearInterval(c.ticker); c.ticker = null; }
  clearTimeout(c.retry);
  for (const name of EVENTS) document.removeEventListener(name, c.handlers[name]);
}

export function attach(component) {
  const data = component.data || {};
  let c = live();
  if (c.code !== data.code || c.role !== data.role) {
    if (c.code) stop(c);
    c = window.__mplClass = { code: data.code, role: data.role, key: data.key || null, following: true, state: null, failures: 0 };
    c.drive = (change) => drive(c, change);  // (the bar's controls: class-bar.js)
    c.routes = new URL(data.routes, document.baseURI).href;
    listen(c);
    open(c);
  }
  // The bar goes in the component's own element (its style sheet sits beside it).
  const root = component.parentElement.querySelector(".mpl-live") || component.parentElement;
  root.style.setProperty("--mpl-live-scale", String(data.scale || 1));  // the page's text size
  c.scale = data.scale || 1;
  Object.assign(c, { component, root, here: data.here, shown: data.shown, qr: data.qr, link: data.link, local: data.local });
  // A view the student chose (a setting changed here, not the lecturer's): exploring.
  if (c.role === "follow" && c.state && data.here !== c.state.address) {
    if (c.state.pace === "hold") {  // held: back to the lecturer's view (asked once per view this page names)
      if (c.heldFrom !== data.here) { c.heldFrom = data.here; c.asked = null; }
      c.following = true;
    } else if (c.following && c.asked !== c.state.version) c.following = false;
  }
  if (c.role === "follow" && c.following) follow(c);
  if (c.role === "lead" && c.sentHere !== data.here) {
    // A new view: a page with a player tells it from the player once the player shows it
    // ("mpl-mounted", "mpl-shown": with its own step, never the old view's); a page without
    // one, here, with the step it opened on.
    c.sentHere = data.here;
    const player = playerNow();
    if (!data.player) {
      c.sentAddress = data.here;
      drive(c, { address: data.here, step: data.step || 0 });
    } else if (player && player.payload.address === data.here) driveView(c, player);
  }
  draw(c);
  return () => {};
}
