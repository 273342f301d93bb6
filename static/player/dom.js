// Small DOM helpers the player's parts share: elements made with their attributes, plain
// text with **bold** spans (never HTML), a key item's swatch, and a choice remembered.

export const SVG = "http://www.w3.org/2000/svg";
// A phone or a tablet: a finger's targets (44 px, views/player.css), short labels, no chart toolbar.
export const SMALL_SCREEN = typeof window !== "undefined" && window.matchMedia
  ? window.matchMedia("(max-width: 640px), (pointer: coarse)") : null;

export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children || []) node.appendChild(child);
  return node;
}

// Story text is plain text; **bold** spans become <strong> through textContent, never HTML.
export function storyNodes(text) {
  const parts = String(text).split("**");
  return parts.map((part, i) => (i % 2 ? el("strong", { text: part }) : document.createTextNode(part)));
}

export function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

const DASHES = { solid: "", dash: "5 3", dot: "1.5 2.5", dashdot: "5 2 1.5 2", longdash: "8 3" };

// A key item's swatch: the marker or line it stands for, 1.2em wide.
export function swatch(item, ink) {
  const box = svg("svg", { viewBox: "0 0 24 16", width: "1.5em", height: "1em", "aria-hidden": "true", class: "mpl-swatch" });
  const colour = ink(item.colour || "#777777");
  if (item.kind === "line") {
    box.appendChild(svg("line", { x1: 1, y1: 8, x2: 23, y2: 8, stroke: colour, "stroke-width": 3, "stroke-dasharray": DASHES[item.dash] || "" }));
  } else if (item.kind === "gradient") {
    const id = "g" + Math.random().toString(36).slice(2);
    const gradient = svg("linearGradient", { id, x1: 0, x2: 1, y1: 0, y2: 0 });
    item.colours.forEach((stop, i) => gradient.appendChild(svg("stop", { offset: i / (item.colours.length - 1), "stop-color": ink(stop) })));
    const defs = svg("defs", {});
    defs.appendChild(gradient);
    box.setAttribute("viewBox", "0 0 48 16");
    box.setAttribute("width", "3em");
    box.append(defs, svg("rect", { x: 0, y: 3, width: 48, height: 10, fill: "url(#" + id + ")", stroke: ink("#888888") }));
  } else {
    const symbol = String(item.symbol || "circle");
    const open = symbol.endsWith("-open");
    const edge = ink(item.edge || colour);
    const paint = open ? { fill: "none", stroke: colour, "stroke-width": 2.2 } : { fill: colour, stroke: edge, "stroke-width": item.edge ? 1.5 : 0 };
    let shape;
    if (symbol.startsWith("diamond")) shape = svg("polygon", Object.assign({ points: "12,2 18,8 12,14 6,8" }, paint));
    else if (symbol.startsWith("star")) shape = svg("polygon", Object.assign({ points: "12,1 14,6 19.5,6.2 15.2,9.6 16.8,15 12,11.8 7.2,15 8.8,9.6 4.5,6.2 10,6" }, paint));
    else if (symbol.startsWith("square")) shape = svg("rect", Object.assign({ x: 6, y: 2, width: 12, height: 12 }, paint));
    else if (symbol.startsWith("triangle-up")) shape = svg("polygon", Object.assign({ points: "12,2 18,13 6,13" }, paint));
    else if (symbol.startsWith("triangle")) shape = svg("polygon", Object.assign({ points: "12,14 18,3 6,3" }, paint));
    else if (symbol.startsWith("x")) shape = svg("path", { d: "M6 2 L18 14 M18 2 L6 14", stroke: colour, "stroke-width": 3, fill: "none" });
    else shape = svg("circle", Object.assign({ cx: 12, cy: 8, r: open ? 5.5 : 5 }, paint));
    box.appendChild(shape);
  }
  return box;
}

// How the person last acted on the page: "keyboard" or "pointer" (a mouse, a finger, a pen).
// A control changed with the keyboard keeps its focus when the study it asked for arrives
// (the player takes it after a click, so that a clicker's keys step).
let lastInput = "pointer";
if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", () => { lastInput = "pointer"; }, true);
  document.addEventListener("keydown", () => { lastInput = "keyboard"; }, true);
}
export function usingKeyboard() { return lastInput === "keyboard"; }

export function isTyping(target) {
  if (!target || !target.tagName) return false;
  const tag = target.tagName.toLowerCase();
  if (target.isContentEditable || tag === "textarea" || tag === "select") return true;
  if (tag !== "input") return false;
  if (target.getAttribute("role") === "combobox") return target.getAttribute("aria-expanded") === "true";
  return ["text", "number", "search", "email", "url", "tel", "password"].includes((target.type || "text").toLowerCase());
}

// A new task, for work that can wait behind a key or a click: the browser's scheduler.yield,
// which resumes before other queued work, where it has one; else a timer.
export function nextTask() {
  if (globalThis.scheduler && typeof globalThis.scheduler.yield === "function") return globalThis.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export function scrollParent(node) {
  for (let parent = node.parentElement; parent; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && parent.clientHeight > 0) return parent;
  }
  return document.scrollingElement || document.documentElement;
}

// A remembered choice; storage refused (a sandboxed iframe, some file:// pages) only forgets.
export function stored(name, value) {
  try {
    if (value === undefined) return window.localStorage.getItem(name);
    window.localStorage.setItem(name, value);
  } catch (error) { /* not remembered */ }
  return null;
}
