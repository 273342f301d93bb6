// The keys of a keyboard and of a presentation clicker, and playing: step, play / pause,
// blank the screen, the keys' list.  `keys` holds the player's methods (mixed into Player,
// player.js).

import { isTyping } from "./dom.js";

export const KEYS_HELP = [
  ["→  PageDown", "next step (a presentation clicker's forward button)"],
  ["←  PageUp", "step back"],
  ["Space", "play / pause"],
  ["Home  End", "first / last step"],
  ["W", "whole curves / curves up to this step"],
  ["V", "the next screen of panels (when they do not all fit)"],
  ["1 – 9", "one panel alone, large (again or Esc: back)"],
  ["B  or  .", "blank the screen (any key: back)"],
  ["?", "this list"],
];

export const keys = {
  toggle() { if (this.playing) this.pause(); else this.play(); },

  play() {
    if (this.j >= this.n) this.go(0, "play");
    this.playing = true;
    this.schedule();
    this.render();
  },

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.playing) return;
      const last = this.classRange ? Math.min(this.classRange[1], this.n) : this.n;  // (a live class's pace)
      if (this.j >= last) { this.pause(); return; }
      this.go(this.j + 1, "play");
      if (this.j >= last) this.pause(); else this.schedule();
    }, 1000 / this.speed);
  },

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    this.render();
  },

  blank(on) {
    this.blanked = on === undefined ? !this.blanked : on;
    this.blanker.classList.toggle("mpl-on", this.blanked);
  },

  help(on) {
    const show = on === undefined ? !this.helpBox.classList.contains("mpl-on") : on;
    this.helpBox.classList.toggle("mpl-on", show);
  },

  // The keys of a keyboard and of a presentation clicker (which sends PageDown / PageUp,
  // and "b" or "." to blank the screen).  Never while the user types in a field, never
  // stealing a focused slider's arrows or a focused button's space; a key the player
  // uses never scrolls the page.
  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!this.root.isConnected) return;
    if (this.blanked) { event.preventDefault(); this.blank(false); return; }
    const target = event.target;
    const ours = this.host.contains(target);
    if (!ours && isTyping(target)) return;
    const role = target && target.getAttribute ? target.getAttribute("role") : null;
    const foreignSlider = !ours && (role === "slider" || (target.type === "range"));
    const navigation = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageDown", "PageUp", "Home", "End"];
    if (foreignSlider && navigation.includes(event.key)) return;
    if (!ours && (role === "option" || role === "listbox" || role === "menuitem")) return;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    const pressable = tag === "button" || tag === "a" || role === "button" || role === "switch" || role === "tab" || target.type === "checkbox" || target.type === "radio";
    if ((event.key === " " || event.key === "Enter") && pressable) return;  // a focused control's own key
    if (event.key === "Enter") return;
    const digit = /^[1-9]$/.test(event.key) ? Number(event.key) - 1 : null;
    const actions = {
      ArrowRight: () => this.forward(1),
      PageDown: () => this.forward(1),
      ArrowLeft: () => this.forward(-1),
      PageUp: () => this.forward(-1),
      Home: () => { this.pause(); this.go(0, "key"); },
      End: () => { this.pause(); this.go(this.n, "key"); },
      " ": () => this.toggle(),
      b: () => this.blank(true), B: () => this.blank(true), ".": () => this.blank(true),
      w: () => this.hasReveal && this.setWhole(!this.whole), W: () => this.hasReveal && this.setWhole(!this.whole),
      v: () => this.nextScreen(), V: () => this.nextScreen(),
      "?": () => this.help(),
      Escape: () => { this.help(false); if (this.zoom !== null) this.enlarge(null); },
    };
    let action = actions[event.key];
    if (digit !== null) {
      const shown = this.visibleCells();
      if (digit < shown.length) action = () => this.enlarge(shown[digit].index);
    }
    if (!action) return;
    event.preventDefault();
    action();
  },

  // A step forward or back; past either end, the next or previous scene when there is one.
  forward(direction) {
    if (this.classRange) { this.go(this.j + direction, "key"); return; }  // a live class's pace: never another scene
    const g = this.guide;
    const end = g && g.until !== null && g.until !== undefined ? Math.min(g.until, this.n) : this.n;
    const start = g ? Math.min(g.start || 0, this.n) : 0;
    const past = direction > 0 ? this.j >= end : this.j <= start;
    if (past && this.options.onPastEnd) { this.pause(); this.options.onPastEnd(direction); return; }
    this.go(this.j + direction, "key");
  },
};
