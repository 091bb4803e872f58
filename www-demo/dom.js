// Tiny DOM helpers for the demo: build elements from data without innerHTML (pasted data is
// shown as text, never parsed as markup).

/** h("div", {class: "x", onclick: fn}, "text", child, [more]) → HTMLElement */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the children of el (by id or element) with the given nodes. */
export function fill(target, ...children) {
  const el = typeof target === "string" ? document.getElementById(target) : target;
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Formats a number with up to `digits` decimals, or "–" for null. */
export function num(x, digits = 3) {
  if (x === null || x === undefined) return "–";
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

/** Formats a token count: 24000 → "24,000". */
export function tok(n) {
  return Math.round(n).toLocaleString("en-US");
}
