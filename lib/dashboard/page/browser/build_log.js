/**
 * The build log pane: the lines of one build in chunks, at most MAX_LINES held; the live feed's
 * "lines" events append to it while it follows the end, older lines are fetched (OLDER_LINES at a
 * time) when it is scrolled to its top. ../page_script.ts reads MAX_LINES from this text.
 */
import { $, h } from "./dom.js";
import { rerender, state } from "./state.js";

const MAX_LINES = 3000;
const OLDER_LINES = 500;

/**
 * A piece of the build log shown: lines from line `from`, or a gap of lines not shown live.
 * @typedef {{ from?: number, lines?: string[], gap?: number }} Chunk
 */
/**
 * @typedef {{
 *   build: number | null, chunks: Chunk[], lines: number, following: boolean, pending: number,
 *   loading: boolean, atStart: boolean, held?: boolean,
 * }} LogState
 */

/** @type {LogState} */
export const log = {
  build: null,
  chunks: [],
  lines: 0,
  following: true,
  pending: 0,
  loading: false,
  atStart: false,
};

function logBox() {
  return $("build-log");
}
/** @param {Chunk} c */
function chunkEl(c) {
  if (c.gap) {
    return h("div", {
      cls: "gap",
      text: "… " + c.gap + " lines not shown live (scroll up to read the log from the start)",
    });
  }
  return h("pre", { text: (c.lines ?? []).join("\n") });
}
function trimFront() {
  const box = logBox();
  while (log.lines > MAX_LINES && log.chunks.length > 1) {
    const c = log.chunks.shift();
    log.lines -= c && c.lines ? c.lines.length : 0;
    box.removeChild(/** @type {ChildNode} */ (box.firstChild));
    log.atStart = false;
  }
}
function trimBack() {
  const box = logBox();
  while (log.lines > MAX_LINES && log.chunks.length > 1) {
    const c = log.chunks.pop();
    log.lines -= c && c.lines ? c.lines.length : 0;
    box.removeChild(/** @type {ChildNode} */ (box.lastChild));
    log.following = false;
  }
}
export function logInfo() {
  $("log-info").textContent = log.build === null
    ? ""
    : log.lines + " lines shown" + (log.atStart ? " (from the start)" : "") +
      (log.pending ? ", " + log.pending + " newer lines" : "") +
      (log.held ? " — the log passed its on-disk half: the rest shows when the build ends" : "");
  $("log-follow").hidden = log.following;
}
/**
 * @param {number} id
 * @param {number} from
 * @param {string[]} lines
 */
function resetLog(id, from, lines) {
  if (log.build !== id) log.held = false;
  log.build = id;
  log.chunks = [];
  log.lines = 0;
  log.pending = 0;
  log.following = true;
  log.atStart = from === 0;
  const box = logBox();
  box.replaceChildren();
  appendChunk({ from: from, lines: lines });
}
/** @param {{ from: number, lines: string[] }} c */
function appendChunk(c) {
  if (!c.lines.length) {
    logInfo();
    return;
  }
  const box = logBox();
  log.chunks.push(c);
  log.lines += c.lines.length;
  box.appendChild(chunkEl(c));
  trimFront();
  box.scrollTop = box.scrollHeight;
  logInfo();
}
/** @param {number} id */
export function openLog(id) {
  log.loading = true;
  return fetch("/api/builds/" + id + "/log?lines=" + OLDER_LINES, { credentials: "same-origin" })
    .then(function (r) {
      return r.json();
    }).then(function (v) {
      log.loading = false;
      if (v.error) {
        resetLog(id, 0, []);
        $("log-info").textContent = v.error;
        return;
      }
      resetLog(id, v.from, v.lines);
      rerender("builds");
    }, function () {
      log.loading = false;
    });
}
/** @param {any} ev a "lines" event */
export function onLines(ev) {
  if (ev.reset || log.build !== ev.build_id) {
    if (ev.reset || log.build === null || isRunning(ev.build_id)) {
      resetLog(ev.build_id, ev.from, ev.lines);
    }
    return;
  }
  if (!log.following) {
    log.pending += ev.lines.length + ev.skipped_lines;
    logInfo();
    return;
  }
  if (ev.skipped_lines) {
    log.chunks.push({ gap: ev.skipped_lines });
    logBox().appendChild(chunkEl({ gap: ev.skipped_lines }));
  }
  appendChunk({ from: ev.from, lines: ev.lines });
}
/** @param {number} id */
function isRunning(id) {
  const b = state.sections.builds;
  return !!(b && b.running && b.running.id === id);
}
function loadOlder() {
  if (log.loading || log.atStart || log.build === null || !log.chunks.length) return;
  const first = log.chunks.find(function (c) {
    return !c.gap;
  });
  if (!first) return;
  log.loading = true;
  const box = logBox();
  const before = box.scrollHeight;
  fetch("/api/builds/" + log.build + "/log?before=" + first.from + "&lines=" + OLDER_LINES, {
    credentials: "same-origin",
  }).then(function (r) {
    return r.json();
  }).then(function (v) {
    log.loading = false;
    if (v.error || !v.lines.length) {
      log.atStart = true;
      logInfo();
      return;
    }
    const c = { from: v.from, lines: v.lines };
    log.chunks.unshift(c);
    log.lines += v.lines.length;
    box.insertBefore(chunkEl(c), box.firstChild);
    log.atStart = v.from === 0;
    trimBack();
    box.scrollTop += box.scrollHeight - before;
    logInfo();
  }, function () {
    log.loading = false;
  });
}
/** The pane's scrolling (older lines at the top, following at the end) and its follow button. */
export function wireBuildLog() {
  logBox().addEventListener("scroll", function () {
    const box = logBox();
    if (box.scrollTop < 40) loadOlder();
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 30;
    if (!atEnd && log.following && box.scrollTop > 0) {
      log.following = false;
      logInfo();
    }
  });
  $("log-follow").addEventListener("click", function () {
    if (log.build !== null) openLog(log.build);
  });
}
