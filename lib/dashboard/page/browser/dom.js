/**
 * The page's element helpers: `$` (an element of the page by id, of the asked kind), `h` and
 * `svg` (elements from attributes and children, text by textContent only), the time formats, the
 * relative-time ticker and the toast.
 */
/**
 * The page's element of that id, of that kind; throws when the page has none.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {new () => T} [kind]
 * @returns {T}
 */
export function $(id, kind) {
  const el = document.getElementById(id);
  if (!(el instanceof (kind ?? HTMLElement))) throw new Error("the page has no #" + id);
  return /** @type {T} */ (el);
}
/** @param {string} id */
export function tbody(id) {
  return $(id, HTMLTableElement).tBodies[0];
}
/**
 * An element: attrs "text" is its text, "cls" its class, "on…" a listener, others attributes.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const k in attrs) {
      if (k === "text") el.textContent = attrs[k];
      else if (k === "cls") el.className = attrs[k];
      else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), attrs[k]);
      else el.setAttribute(k, attrs[k]);
    }
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}
/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @returns {SVGElement}
 */
export function svg(tag, attrs) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const k in attrs) {
    if (k === "text") el.textContent = String(attrs[k]);
    else el.setAttribute(k, String(attrs[k]));
  }
  return el;
}
/**
 * @param {Element} box
 * @param {Node[]} rows
 */
export function fill(box, rows) {
  box.replaceChildren(...rows);
}
/**
 * @param {string} iso
 * @returns {string}
 */
export function ago(iso) {
  const t = Date.parse(iso);
  if (!isFinite(t)) return "";
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return Math.round(s / 86400) + " d ago";
}
// A relative time ("7 s ago") that the ticker (startTicker) keeps advancing while the page is open:
// sections are only re-sent when they change, so a time written once would freeze.
/**
 * @param {string} tag
 * @param {string} iso
 * @param {string} pre
 * @param {string} post
 * @param {Record<string, any>} [attrs]
 */
export function rel(tag, iso, pre, post, attrs) {
  /** @type {Record<string, any>} */
  const a = Object.assign({}, attrs || {});
  a["data-at"] = iso;
  a["data-pre"] = pre;
  a["data-post"] = post;
  a.text = pre + ago(iso) + post;
  return h(tag, a);
}
/** Starts the ticker that keeps every relative time (`data-at`) advancing, once a second. */
export function startTicker() {
  setInterval(function () {
    const els = document.querySelectorAll("[data-at]");
    for (let i = 0; i < els.length; i++) {
      const el = els[i];
      const t = (el.getAttribute("data-pre") ?? "") + ago(el.getAttribute("data-at") ?? "") +
        (el.getAttribute("data-post") ?? "");
      if (el.textContent !== t) el.textContent = t;
    }
  }, 1000);
}
/** @param {string} iso */
export function clock(iso) {
  const d = new Date(iso);
  return isFinite(d.getTime()) ? d.toLocaleTimeString([], { hour12: false }) : "";
}
/** @param {number | null | undefined} ms */
export function secs(ms) {
  if (ms === null || ms === undefined) return "";
  return ms < 10000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms / 1000) + " s";
}
/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/**
 * @param {string} message
 * @param {boolean} [bad]
 */
export function toast(message, bad) {
  const t = $("toast");
  t.textContent = message;
  t.className = bad ? "toast bad" : "toast";
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(function () {
    t.hidden = true;
  }, 5000);
}
