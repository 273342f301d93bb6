// The text size and the theme: fonts scaled in a figure, and neutral colours swapped for the
// dark theme's (the map comes from Python, views/figures.py DARK_INK).

// Every font size in a figure times `scale` (the text-size control), margins too.
export function scaleFonts(value, scale) {
  if (scale === 1 || value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) { value.forEach((item) => scaleFonts(item, scale)); return; }
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (/font$/i.test(key) && item && typeof item === "object" && typeof item.size === "number") {
      item.size = Math.round(item.size * scale);
    }
    if (key === "margin" && item && typeof item === "object") {
      for (const side of ["l", "r", "t", "b"]) if (typeof item[side] === "number") item[side] = Math.round(item[side] * scale);
    }
    scaleFonts(item, scale);
  }
}

// Relative luminance (WCAG 2.1) of "#rrggbb" or "rgb(a)(r, g, b...)"; null if unreadable.
export function luminance(colour) {
  let rgb = null;
  const text = String(colour || "").trim();
  const hex = /^#([0-9a-f]{6})$/i.exec(text);
  if (hex) rgb = [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16));
  const fn = /^rgba?\(([^)]+)\)/i.exec(text);
  if (fn) rgb = fn[1].split(",").slice(0, 3).map((part) => parseFloat(part));
  if (!rgb || rgb.some((v) => !Number.isFinite(v))) return null;
  const [r, g, b] = rgb.map((v) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// A copy of a figure with every neutral colour swapped for its dark-theme stand-in (the
// map comes from Python: views/figures.py DARK_INK, one source for both sides).
export function recolour(value, ink) {
  if (typeof value === "string") {
    const swapped = ink[value.toLowerCase().replace(/ /g, "")];
    return swapped === undefined ? value : swapped;
  }
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map((item) => recolour(item, ink));
  const out = {};
  for (const key of Object.keys(value)) out[key] = recolour(value[key], ink);
  return out;
}

export function pageIsDark(root) {
  const styles = getComputedStyle(root);
  let background = styles.getPropertyValue("--st-background-color").trim();
  if (!background) {
    const app = document.querySelector(".stApp") || document.body;
    background = getComputedStyle(app).backgroundColor;
  }
  const value = luminance(background);
  return value !== null && value < 0.3;
}
