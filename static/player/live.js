// A live class (ui/live.py, serving/classes.py) in the browser: the bar above the page, the
// class's events, and the step player they move.
//
// The lecturer's player tells the class each step and predict mode (the events "mpl-step"
// and "mpl-predict" the player dispatches); the lecturer's bar shows how many follow, the
// class's answers, "Reveal", "Vote again" and the join screen (the students' link and its
// QR code, large).  A student's bar follows: the same view (a setting, scene, text size or
// presenter mode changed: the page asks Streamlit to open the lecturer's address), the same
// step, predict mode and the round's question; a student who steps or changes a setting
// explores alone until "Back to the lecturer".  A class lives in one object on the window,
// so that it outlives Streamlit's reruns and page switches (one stream per tab).

import { el } from "./dom.js";

const ALIVE_MS = 40000;  // no event for this long (the server says "alive" every 15 s): reconnect
const RANKS = [[1, 1, "1st"], [2, 3, "2nd–3rd"], [4, 10, "4th–10th"], [11, Infinity, "lower"]];

function live() {
  if (!window.__mplClass) window.__mplClass = { code: null };
  return window.__mplClass;
}

// The player on screen on this page, if one is mounted.
function playerNow() {
  const player = window.__mplLive;
  return player && !player.destroyed && player.path === window.location.pathname ? player : null;
}

// The tab's own ballot for a class: random, made here, never tied to a name.
function ballot(code) {
  const name = "mpl-class-ballot:" + code;
  let value = null;
  try { value = sessionStorage.getItem(name); } catch (error) { value = null; }
  if (!value) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    try { sessionStorage.setItem(name, value); } catch (error) { /* a tab without storage: one ballot per page */ }
  }
  return value;
}

function letter(choice) { return String.fromCharCode(64 + Number(choice)); }

// --- the class's stream ---------------------------------------------------------------------

function open(c) {
  if (c.source) c.source.close();
  const url = new URL(c.routes + "events?class=" + encodeURIComponent(c.code) + (c.key ? "&key=" + encodeURIComponent(c.key) : ""), document.baseURI);
  const source = new EventSource(url.href);
  c.source = source;
  c.heard = c.openedAt = Date.now();
  source.onmessage = (event) => {
    c.heard = Date.now();
    let state;
    try { state = JSON.parse(event.data); } catch (error) { return; }
    received(c, state);
  };
  source.addEventListener("alive", () => { c.heard = Date.now(); });
  source.onopen = () => { c.heard = Date.now(); c.opens = (c.opens || 0) + 1; c.problem = ""; draw(c); };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {  // refused (the class ended, is full, or the key is wrong)
      c.problem = "The class's server does not answer for this class: it may have ended. Reload the page to try again.";
      draw(c);
    }
  };
}

// A browser asleep or a connection a proxy dropped without a word: reconnect, and get the
// class as it is now first thing.
function keepAlive(c) {
  const check = () => {
    if (!c.source || c.ended) return;
    // refused (the server answered, but not with the class): again after a while, not at once
    const refused = c.source.readyState === EventSource.CLOSED && Date.now() - c.openedAt > 30000;
    if (refused || (c.source.readyState !== EventSource.CLOSED && Date.now() - c.heard > ALIVE_MS)) open(c);
  };
  c.watch = setInterval(check, 5000);
  c.onWake = () => { if (document.visibilityState === "visible" && c.source && Date.now() - c.heard > 20000) open(c); };
  document.addEventListener("visibilitychange", c.onWake);
  window.addEventListener("online", c.onWake);
}

function received(c, state) {
  if (state.ended) {
    c.ended = true;
    c.state = null;
    if (c.source) c.source.close();
    const player = playerNow();
    if (player) { player.classAsk = null; player.classCounts = null; player.render(true); }
    draw(c);
    return;
  }
  const before = c.state;
  c.state = state;
  if (c.role === "lead") applyToLead(c, before);
  else if (c.following) follow(c);
  draw(c);
}

// --- a student ------------------------------------------------------------------------------

function asking(state) { return Boolean(state && (state.predict || state.question) && !state.ended); }

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
  setAsk(player, state);
  if (player.j !== state.step) player.go(state.step, "class");
}

let settingPredict = false;  // predict mode set from the class's state, not by the lecturer

// The round the class is asked (predict the next pick, or the scene's question) in the
// player; the lecturer's own player keeps its predict mode (it is what drives the class's).
function setAsk(player, state, lead) {
  const ask = asking(state) ? { round: state.round, revealed: Boolean(state.revealed), question: state.question } : null;
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
  if (!state || !asking(state) || state.revealed || c.role !== "follow" || !c.following) return;
  c.answered = { round: state.round, value };
  fetch(new URL(c.routes + "answer?class=" + encodeURIComponent(c.code), document.baseURI).href, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ballot: ballot(c.code), round: state.round, answer: value }),
  }).then((response) => response.ok ? null : response.json().then((body) => { c.problem = body.error || "The answer was not counted."; }))
    .catch(() => { c.problem = "The answer did not reach the class's server: click again."; })
    .finally(() => draw(c));
  draw(c);
}

// --- the lecturer ---------------------------------------------------------------------------

function drive(c, change) {
  c.queue = Object.assign(c.queue || {}, change);
  if (c.sending) return;
  const send = () => {
    const body = c.queue;
    c.queue = null;
    if (!body) { c.sending = false; return; }
    c.sending = true;
    fetch(new URL(c.routes + "drive?class=" + encodeURIComponent(c.code), document.baseURI).href, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Class-Key": c.key }, body: JSON.stringify(body),
    }).then((response) => response.ok ? null : response.json().then((answer) => { c.problem = answer.error || "The class did not take the change."; draw(c); }))
      .catch(() => { c.problem = "The class's server did not answer: the students' screens may lag. It tries again at the next step."; draw(c); })
      .finally(send);
  };
  send();
}

function applyToLead(c, before) {
  const player = playerNow();
  if (!player) return;
  setAsk(player, c.state, true);
  const counts = c.state.counts;
  player.classCounts = c.state.predict && counts ? counts.answers : null;
  if (!before || JSON.stringify((before.counts || {}).answers) !== JSON.stringify((counts || {}).answers)) player.render(true);
}

// The reveal of a predicted pick: the pick, the share of the class that chose it, and the
// ranks of the class's answers by the criterion's score.
function pickSummary(c, player) {
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

function choiceSummary(c) {
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

// --- the bar --------------------------------------------------------------------------------

// A button of the bar, made once per class: the bar redraws as the class's counts come
// (several times a second while a class answers), and a button replaced between the press
// and the release of a click would lose the click.
function button(c, label, title, onclick, primary) {
  c.buttons = c.buttons || {};
  if (!c.buttons[title]) {
    c.buttons[title] = el("button", { class: "mpl-btn" + (primary ? " mpl-live-primary" : ""), type: "button", text: label, title, "aria-label": title, onclick });
  }
  return c.buttons[title];
}

function joinScreen(c) {
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

function draw(c) {
  if (!c.root || !c.root.isConnected) return;
  const state = c.state;
  const parts = [el("span", { class: "mpl-live-code", text: "Class " + c.shown })];
  const say = (text) => parts.push(el("span", { class: "mpl-live-say", text }));
  if (c.ended) say(c.role === "lead" ? "The class has ended." : "The lecturer has ended the class: the page is yours.");
  else if (c.role === "lead") {
    const followers = state && state.followers !== undefined ? state.followers : 0;
    say(followers + (followers === 1 ? " student follows" : " students follow"));
    parts.push(button(c, "Join screen", "Show the students' link and its QR code, large", () => joinScreen(c)));
    if (asking(state)) {
      const answered = (state.counts || {}).answered || 0;
      say(answered + " of " + followers + " answered");
      if (state.question) say(choiceSummary(c));
      if (state.revealed) say(state.question ? "Revealed." : pickSummary(c, playerNow()));
      else parts.push(button(c, "Reveal", "Show the class the answer, and the share who got it", () => drive(c, { reveal: true }), true));
      if (state.question) parts.push(button(c, "Vote again", "A second vote, after the class has discussed (peer instruction)", () => drive(c, { again: true })));
    }
    parts.push(button(c, "End the class", "End the live class: the students' screens stop following", () => leave(c)));
  } else if (state) {
    if (c.following) {
      say("Following the lecturer");
      parts.push(button(c, "Leave", "Leave the class: this page stays as it is, and stops following", () => leave(c)));
      if (asking(state)) {
        const mine = c.answered && c.answered.round === state.round ? c.answered.value : null;
        if (state.revealed) say("The answer is out: see the board.");
        else if (mine !== null) say("Your answer: " + (state.question ? letter(mine) : "point " + mine) + ". The lecturer reveals it.");
        else say(state.question ? "Answer the question below." : "The class predicts the next pick.");
      }
    } else {
      say("You are exploring on your own; the lecturer is on step " + state.step + ".");
      parts.push(button(c, "Back to the lecturer", "Follow the lecturer again, from where the lecturer is now", () => {
        c.following = true;
        follow(c);
        draw(c);
      }, true));
    }
  } else say("Joining…");
  if (c.problem) parts.push(el("span", { class: "mpl-live-problem", role: "alert", text: c.problem }));
  const drawn = parts.map((part) => part.tagName + ":" + part.textContent).join("|");
  if (c.bar && c.bar.isConnected && c.bar.parentNode === c.root && drawn === c.drawn) return;  // nothing new to say
  c.drawn = drawn;
  if (!c.bar || c.bar.parentNode !== c.root) {
    c.bar = el("div", { class: "mpl-live-bar", role: "region", "aria-label": "Live class", "aria-live": "polite" });
    c.root.replaceChildren(c.bar);
  }
  c.bar.replaceChildren(...parts);
}

// --- the player's events ------------------------------------------------------------------

function listen(c) {
  c.onStep = (event) => {
    const { source, step } = event.detail;
    if (source === "class" || source === "scene") return;
    if (c.role === "lead") drive(c, { step });
    else if (c.following && c.state && step !== c.state.step) { c.following = false; draw(c); }
  };
  c.onPredict = (event) => { if (c.role === "lead" && !settingPredict) drive(c, { predict: Boolean(event.detail.on) }); };
  c.onGuess = (event) => answer(c, event.detail.point);
  c.onChoice = (event) => answer(c, event.detail.choice);
  c.onMounted = (event) => {
    if (c.role === "follow") { if (c.following) follow(c); return; }
    const player = playerNow();
    if (player && player === event.detail) drive(c, { step: player.j });  // a new scene's own step
    if (c.state) applyToLead(c, null);
  };
  document.addEventListener("mpl-step", c.onStep);
  document.addEventListener("mpl-predict", c.onPredict);
  document.addEventListener("mpl-guess", c.onGuess);
  document.addEventListener("mpl-choice", c.onChoice);
  document.addEventListener("mpl-mounted", c.onMounted);
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
  if (c.source) c.source.close();
  clearInterval(c.watch);
  document.removeEventListener("visibilitychange", c.onWake);
  window.removeEventListener("online", c.onWake);
  for (const [name, handler] of [["mpl-step", c.onStep], ["mpl-predict", c.onPredict], ["mpl-guess", c.onGuess], ["mpl-choice", c.onChoice], ["mpl-mounted", c.onMounted]]) {
    document.removeEventListener(name, handler);
  }
}

export function attach(component) {
  const data = component.data || {};
  let c = live();
  if (c.code !== data.code || c.role !== data.role) {
    if (c.code) stop(c);
    c = window.__mplClass = { code: data.code, role: data.role, key: data.key || null, following: true, state: null };
    c.routes = new URL(data.routes, document.baseURI).href;
    listen(c);
    open(c);
    keepAlive(c);
  }
  // The bar goes in the component's own element (its style sheet sits beside it).
  const root = component.parentElement.querySelector(".mpl-live") || component.parentElement;
  root.style.setProperty("--mpl-live-scale", String(data.scale || 1));  // the page's text size
  Object.assign(c, { component, root, here: data.here, shown: data.shown, qr: data.qr, link: data.link, local: data.local });
  // A view the student chose (a setting changed here, not the lecturer's): exploring.
  if (c.role === "follow" && c.following && c.state && data.here !== c.state.address && c.asked !== c.state.version) c.following = false;
  if (c.role === "follow" && c.following) follow(c);
  if (c.role === "lead" && c.sentHere !== data.here) {
    // The view on screen, with its step: the player's own on this page (a setting changed:
    // it stays on its step), or the step a new page opens on.
    c.sentHere = data.here;
    const player = playerNow();
    drive(c, { address: data.here, step: player ? player.j : data.step || 0 });
  }
  draw(c);
  return () => {};
}
