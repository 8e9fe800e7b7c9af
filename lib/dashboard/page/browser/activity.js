/**
 * The activity list (the tool calls, peers' events and the user's actions the app records):
 * newest first, filterable by session and tool, at most MAX_ACTIVITY entries held and only the
 * visible rows of them in the document (virtual rows of ROW_H pixels in a spacer as tall as all).
 * ../page_script.ts reads MAX_ACTIVITY from this text.
 */
import { $, clock, h } from "./dom.js";
import { state } from "./state.js";

const MAX_ACTIVITY = 10000;
const ROW_H = 24;

/** @type {any[]} */
let activity = []; // oldest first, at most MAX_ACTIVITY
/** @type {Map<string, string>} */
export const sessionsSeen = new Map(); // session id -> label
/** @type {Set<string>} */
const toolsSeen = new Set();
/** @type {any[] | null} */
let filtered = null; // newest first, after filters (null: recompute)

// Entries of an attached session name it; the app's own and a standalone server's name a pid.
/**
 * @param {any} e an activity entry
 * @returns {string}
 */
function whoKey(e) {
  if (e.kind === "user") return "user";
  return e.session ? e.session : "pid:" + e.pid;
}
/** @param {number} pid */
function whoLabel(pid) {
  const app = state.sections.app;
  if (app && pid === app.pid) return "app (pid " + pid + ")";
  return "pid " + pid + " (standalone)";
}
/** @param {any} e an activity entry */
function who(e) {
  if (e.kind === "user") return "you (dashboard)";
  const key = whoKey(e);
  return sessionsSeen.get(key) ||
    (e.session ? "session " + e.session.slice(0, 8) : whoLabel(e.pid));
}
/**
 * @param {any[]} entries
 * @param {boolean} reset
 */
export function addActivity(entries, reset) {
  if (reset) activity = [];
  for (const e of entries) {
    activity.push(e);
    const key = whoKey(e);
    if (key !== "user" && !sessionsSeen.has(key)) {
      sessionsSeen.set(key, e.session ? "session " + e.session.slice(0, 8) : whoLabel(e.pid));
    }
    if (e.kind === "tool" && !toolsSeen.has(e.name)) {
      toolsSeen.add(e.name);
      refreshToolFilter();
    }
  }
  if (activity.length > MAX_ACTIVITY) activity.splice(0, activity.length - MAX_ACTIVITY);
  refreshSessionFilter();
  filtered = null;
  scheduleActivity();
}
/** @param {boolean} [labelsChanged] */
export function refreshSessionFilter(labelsChanged) {
  const sel = $("filter-session", HTMLSelectElement);
  if (!labelsChanged && sel.options.length === sessionsSeen.size + 2) return;
  const cur = sel.value;
  sel.replaceChildren(
    h("option", { value: "", text: "all" }),
    h("option", { value: "user", text: "you (dashboard)" }),
  );
  sessionsSeen.forEach(function (label, id) {
    sel.appendChild(h("option", { value: id, text: label }));
  });
  sel.value = cur;
}
function refreshToolFilter() {
  const sel = $("filter-tool", HTMLSelectElement);
  const cur = sel.value;
  sel.replaceChildren(h("option", { value: "", text: "all" }));
  Array.from(toolsSeen).sort().forEach(function (t) {
    sel.appendChild(h("option", { value: t, text: t }));
  });
  sel.value = cur;
}
function computeFiltered() {
  const s = $("filter-session", HTMLSelectElement).value;
  const t = $("filter-tool", HTMLSelectElement).value;
  const out = [];
  for (let i = activity.length - 1; i >= 0; i--) {
    const e = activity[i];
    if (s && whoKey(e) !== s) continue;
    if (t && e.name !== t) continue;
    out.push(e);
  }
  return out;
}
/** The activity list's spacer: as tall as all rows, holding the visible ones. */
export function activitySpace() {
  return /** @type {HTMLElement} */ ($("activity").firstChild);
}
let activityFrame = 0;
export function scheduleActivity() {
  if (!activityFrame) {
    activityFrame = requestAnimationFrame(function () {
      activityFrame = 0;
      drawActivity();
    });
  }
}
function drawActivity() {
  if (filtered === null) filtered = computeFiltered();
  const box = $("activity");
  const space = activitySpace();
  space.style.height = (filtered.length * ROW_H) + "px";
  const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 5);
  const last = Math.min(filtered.length, first + Math.ceil(box.clientHeight / ROW_H) + 10);
  const rows = [];
  for (let i = first; i < last; i++) {
    const e = filtered[i];
    const row = h(
      "div",
      { cls: "vrow " + e.kind + " st-" + e.status },
      h("span", { cls: "t", text: clock(e.at) }),
      h("span", { cls: "who", text: who(e) }),
      h("span", { cls: "n", text: e.name }),
      h("span", { cls: "s", text: e.summary, title: e.summary }),
    );
    row.style.top = (i * ROW_H) + "px";
    rows.push(row);
  }
  space.replaceChildren(...rows);
  $("activity-count").textContent = filtered.length === activity.length
    ? activity.length + " entries"
    : filtered.length + " of " + activity.length + " entries";
}
/** @returns {number} the entries held */
export function activityHeld() {
  return activity.length;
}
/** The list's scrolling and its two filters. */
export function wireActivity() {
  $("activity").addEventListener("scroll", scheduleActivity);
  $("filter-session").addEventListener("change", function () {
    filtered = null;
    scheduleActivity();
  });
  $("filter-tool").addEventListener("change", function () {
    filtered = null;
    scheduleActivity();
  });
}
