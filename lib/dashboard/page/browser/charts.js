/**
 * The charts, plain SVG: build durations (history), crashes and ANRs per debug session, launch
 * time per install.
 */
import { $, h, secs, svg } from "./dom.js";

/**
 * @typedef {{ value: number, label: string, title: string, color?: string }} Bar
 */
/**
 * @param {HTMLElement} box
 * @param {Bar[]} items
 * @param {string} unit
 * @param {string} color
 */
function bars(box, items, unit, color) {
  const W = 440, H = 110, pad = 18;
  const max = Math.max(...items.map(function (i) {
    return i.value;
  })) || 1;
  const s = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img" });
  s.appendChild(svg("line", { x1: pad, y1: H - pad, x2: W, y2: H - pad, stroke: "#d8dce3" }));
  s.appendChild(
    svg("text", {
      x: 0,
      y: 10,
      text: (max < 10 ? max.toFixed(1) : Math.round(max)) + " " + unit,
    }),
  );
  const bw = items.length ? Math.min(28, (W - pad) / items.length - 2) : 0;
  items.forEach(function (it, i) {
    const bh = Math.max(1, (H - 2 * pad) * it.value / max);
    const x = pad + i * (bw + 2);
    const r = svg("rect", {
      x: x,
      y: H - pad - bh,
      width: bw,
      height: bh,
      fill: it.color || color,
      rx: 2,
    });
    r.appendChild(svg("title", { text: it.title }));
    s.appendChild(r);
    if (items.length <= 20) s.appendChild(svg("text", { x: x, y: H - 4, text: it.label }));
  });
  box.replaceChildren(s);
}
/** @type {Record<string, string>} */
const STATUS_COLOR = {
  success: "#16803c",
  failed: "#c4321f",
  cancelled: "#b76e00",
  timeout: "#c4321f",
  running: "#2f6fde",
  interrupted: "#9aa3b2",
};
/** @param {any[]} hist */
export function durationChart(hist) {
  const items = hist.filter(function (b) {
    return b.duration_ms !== null;
  }).slice(0, 30).reverse().map(function (b) {
    return {
      value: b.duration_ms / 1000,
      label: "#" + b.id,
      color: STATUS_COLOR[b.status],
      title: "#" + b.id + " " + b.task + ": " + secs(b.duration_ms) + " (" + b.status + ")",
    };
  });
  const box = $("chart-durations");
  if (!items.length) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren();
  box.appendChild(h("div", { cls: "muted", text: "Build duration (s), oldest to newest" }));
  const inner = h("div");
  box.appendChild(inner);
  bars(inner, items, "s", "#2f6fde");
}
/** @param {any[]} list */
export function crashChart(list) {
  const items = list.slice(0, 20).reverse().map(function (s) {
    const n = s.counts.crashes + s.counts.anrs;
    return {
      value: n,
      label: s.package.split(".").pop().slice(0, 6),
      title: s.id + " " + s.package + ": " + n + " crashes/ANRs",
    };
  });
  const box = $("chart-crashes");
  if (
    !items.some(function (i) {
      return i.value > 0;
    })
  ) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(h("div", { cls: "muted", text: "Crashes and ANRs per debug session" }));
  const inner = h("div");
  box.appendChild(inner);
  bars(inner, items, "", "#c4321f");
}
/** @param {any[]} list */
export function launchChart(list) {
  const items = list.filter(function (s) {
    return s.launch_ms !== null;
  }).slice(0, 20).reverse().map(function (s) {
    return {
      value: s.launch_ms,
      label: s.build_id ? "#" + s.build_id : s.id.slice(2, 8),
      title: s.id + ": launch " + s.launch_ms + " ms",
    };
  });
  const box = $("chart-launch");
  if (!items.length) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(h("div", { cls: "muted", text: "Launch time per install (ms)" }));
  const inner = h("div");
  box.appendChild(inner);
  bars(inner, items, "ms", "#7a4fd6");
}
