// A select's option picked, or a toggle switched, in the sidebar: the picture at the new value
// drawn at once, beside the page's own rerun (which the widget starts anyway, and which keeps
// the widgets, the address and the lesson line in step).  A picture this page has shown before
// is drawn from what the browser holds, before the rerun has begun; another is asked of the
// app's view route.  The rerun's reference to the same study then keeps what is on screen
// (mount.js), and a picture the rerun brought first is never replaced by an asked one.  Which
// widgets, their address names and the value each shown option stands for, the page says (the
// reference's `settings`); every setting of a view, its `values`.  A text size pressed is
// drawn at once too, from the study on screen.  Only this file knows how Streamlit draws a
// select, a toggle or the text size's buttons.

import { changedQuery, RUNNING } from "./drag.js";

const SIDEBAR = '[data-testid="stSidebar"]';
const SELECT = SIDEBAR + ' [data-testid="stSelectbox"]';
const TOGGLE = SIDEBAR + ' [data-testid="stCheckbox"]';
const KEPT = 24;  // the pictures a page remembers by their settings
const AHEAD = 3;  // the neighbouring values asked for ahead of each picture shown
const STILL_MS = 1000;  // and only once the page has been still for as long: no key, click,
const STIRS = ["keydown", "pointerdown", "wheel", "mpl-rendered"];  // wheel, or step drawn

// The text size's buttons in the page's title row (ui/board.py: a segmented control, "125%").
const TEXT_SIZE = '.st-key-title-row [role="radiogroup"][aria-label="Text size"] [role="radio"]';

// A text size pressed in the title row: `apply(scale)` at the press, beside the page's rerun
// (which keeps the address and the intro in step).  Returns the function that stops it.
export function followTextSize(apply) {
  const pressed = (event) => {
    const button = event.target && event.target.closest ? event.target.closest(TEXT_SIZE) : null;
    const percent = button && /^(\d+)%$/.exec(button.textContent.trim());
    if (percent) apply(Number(percent[1]) / 100);
  };
  document.addEventListener("click", pressed, true);
  return () => document.removeEventListener("click", pressed, true);
}

// A view's settings as one text: the same settings, the same text.
export function valuesKey(values) {
  return JSON.stringify(Object.keys(values).sort().map((name) => [name, values[name]]));
}

// The pictures a page has shown, by their settings: {remember(head, name), find(values)}.
export function pictureMemory() {
  const kept = new Map();  // valuesKey -> {name, address, lesson}, the latest last
  return {
    remember(head, name) {
      if (!head || !head.values) return;
      const key = valuesKey(head.values);
      kept.delete(key);
      kept.set(key, { name, address: head.address, lesson: head.lesson === undefined ? null : head.lesson });
      if (kept.size > KEPT) kept.delete(kept.keys().next().value);
    },
    find(values) {
      return kept.get(valuesKey(values)) || null;
    },
  };
}

// The settings a person is likely to pick next from the view `values`, as [name, value]: each
// select's next option and the one before it, then each toggle's other value.
export function neighbours(settings, values) {
  const out = [], toggles = [];
  for (const setting of settings || []) {
    if (!values || !(setting.name in values)) continue;
    if (setting.widget === "toggle") toggles.push([setting.name, values[setting.name] === "true" ? "false" : "true"]);
    if (setting.widget !== "selectbox") continue;
    const options = (setting.values || []).map(([, value]) => value);
    const at = options.indexOf(values[setting.name]);
    if (at < 0) continue;
    for (const next of [at + 1, at - 1]) if (next >= 0 && next < options.length) out.push([setting.name, options[next]]);
  }
  return out.concat(toggles);
}

// The query of a view's address (its page's part left out), or the page's own.
const queryOf = (head) => (head.address ? head.address.slice(head.address.indexOf("?") + 1) : window.location.search);

// Follow the page's selects and toggles.  `shown()`: {head, name} of the picture on screen
// (the page's last reference, or a picture drawn since); `delivered()`: how many the page's
// runs have delivered; `memory`: the page's pictureMemory(); `fetchView(query)`: a promise of
// the view route's {name, address, values}, or null when it says no; `show(head, name)`: draw
// that payload; `hold(name)`: read a payload's text ahead.  Returns {ahead(), stop()}:
// `ahead()` asks, one at a time while the page is idle and still, for the pictures of the
// neighbouring values of what is on screen (`neighbours`, at most AHEAD), and holds their
// texts, so that the next pick is drawn at once; the server computes them only when idle
// (serving/routes.py).
export function followPicks(shown, delivered, memory, fetchView, show, hold) {
  let open = null;  // {setting, text}: the select whose options are out, and the text it showed
  let guessing = 0;  // the latest ahead() call: an earlier one stops

  const choose = (setting, value) => {
    const now = shown();
    const values = now.head.values;
    if (!values || !(setting.name in values) || values[setting.name] === value) return;
    const wanted = Object.assign({}, values, { [setting.name]: value });
    const base = Object.assign({}, now.head, { values: wanted, dragged: false });
    const known = memory.find(wanted);
    if (known) {
      show(Object.assign(base, { address: known.address, lesson: known.lesson }), known.name);
      return;
    }
    const since = delivered();
    fetchView(changedQuery(queryOf(now.head), setting.name, value)).then((view) => {
      if (!view) return;
      const head = Object.assign(base, { address: view.address, values: view.values, lesson: null });
      memory.remember(head, view.name);
      // a picture the rerun brought meanwhile, or another drawn since, is newer
      if (delivered() === since && shown() === now) show(head, view.name);
    }, () => {});  // the rerun brings the picture anyway
  };
  const settingOf = (input, widget) => {
    const label = input && input.getAttribute("aria-label");
    return (shown().head.settings || []).find((item) => item.widget === widget && item.label === label) || null;
  };
  const pressed = (event) => {
    const box = event.target && event.target.closest ? event.target.closest(SELECT) : null;
    if (!box) return;
    const input = box.querySelector('input[role="combobox"]');
    const setting = settingOf(input, "selectbox");
    open = setting ? { setting, text: input.value } : null;
  };
  // (in the capture phase, before the select takes the option: the value is read off the option)
  const clicked = (event) => {
    switched(event);
    const option = event.target && event.target.closest ? event.target.closest('[role="option"]') : null;
    if (!option || !open) return;
    const { setting, text } = open;
    open = null;
    const picked = option.textContent.trim();
    const found = (setting.values || []).find(([shown]) => shown === picked);
    if (found && picked !== text) choose(setting, found[1]);
  };
  // (a toggle is switched by the press on its label, which Streamlit's switch takes itself:
  // neither its input's click nor its change is sent; what it shows a frame later is its value)
  const switched = (event) => {
    const box = event.target && event.target.closest ? event.target.closest(TOGGLE) : null;
    const input = box && box.querySelector('input[type="checkbox"]');
    const setting = settingOf(input, "toggle");
    if (!setting) return;
    requestAnimationFrame(() => {
      const value = input.checked ? "true" : "false";
      const values = shown().head.values;
      if (input.isConnected && values && values[setting.name] !== value) choose(setting, value);
    });
  };
  const ahead = () => {
    const mine = (guessing += 1);
    // (in a live class, whose students follow and whose lecturer leads, nobody's guesses
    // are worth a class's bandwidth)
    if (new URLSearchParams(window.location.search).has("class")) return;
    const now = shown();
    const values = now.head.values;
    const wanted = neighbours(now.head.settings, values)
      .filter(([name, value]) => !memory.find(Object.assign({}, values, { [name]: value }))).slice(0, AHEAD);
    const next = () => {
      if (mine !== guessing || shown() !== now || !wanted.length) return;
      // the page's rerun first, and nothing while a person steps or moves about: a guess's
      // computation may share this machine with the browser drawing
      const quiet = performance.now() - lastInput;
      if (document.querySelector(RUNNING) || quiet < STILL_MS) { setTimeout(next, Math.max(100, STILL_MS - quiet)); return; }
      const [name, value] = wanted.shift();
      fetchView(changedQuery(queryOf(now.head), name, value) + "&ahead=1").then((view) => {
        if (!view) { wanted.length = 0; return undefined; }  // the server is busy: no more guesses
        memory.remember({ values: view.values, address: view.address, lesson: null }, view.name);
        return hold(view.name);
      }).catch(() => { wanted.length = 0; }).then(() => setTimeout(next, 0));
    };
    setTimeout(next, 0);
  };
  let lastInput = performance.now();
  const input = () => { lastInput = performance.now(); };
  document.addEventListener("pointerdown", pressed, true);
  document.addEventListener("click", clicked, true);
  for (const type of STIRS) document.addEventListener(type, input, true);
  return {
    ahead,
    stop() {
      guessing += 1;
      document.removeEventListener("pointerdown", pressed, true);
      document.removeEventListener("click", clicked, true);
      for (const type of STIRS) document.removeEventListener(type, input, true);
    },
  };
}
