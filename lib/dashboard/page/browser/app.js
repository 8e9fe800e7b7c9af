/**
 * The dashboard page's script, an ES module served as /app.js (`<script type="module">`, deferred
 * like every module script), the entry of the modules beside it, each served at its own name
 * (/dom.js, /state.js, …) exactly as its file reads (../page_script.ts's table). Plain browser
 * JavaScript, no library, no external asset. It renders what the live feed (/api/events,
 * server-sent events) sends, never polls, and writes every value with textContent (no HTML from
 * data). Bounded: activity.js holds at most MAX_ACTIVITY entries and only the visible rows of them
 * in the document; build_log.js at most MAX_LINES build lines, older ones fetched when the log is
 * scrolled to its top.
 *
 * Type-checked by `deno check` against the DOM: this folder is a workspace member whose deno.json
 * sets checkJs and the DOM lib, in a program of its own (the DOM's types stay out of the rest).
 * Values from the app (sections, events, API answers) are JSON typed `any`: their shapes are
 * lib/dashboard/snapshot.ts's.
 *
 * This module connects and wires up: the sections' renderers into state.js's table, the
 * listeners of the log pane, the activity list and the action buttons, the relative-time ticker,
 * the `keynobiDashboard()` global, then the live feed.
 */
import { wireActions } from "./actions.js";
import { activityHeld, activitySpace, addActivity, wireActivity } from "./activity.js";
import { log, logInfo, onLines, wireBuildLog } from "./build_log.js";
import { $, startTicker } from "./dom.js";
import { SECTIONS } from "./sections.js";
import { render, state } from "./state.js";

/** The live feed: sections, activity and log lines as the app sends them. */
function connect() {
  const es = new EventSource("/api/events");
  es.addEventListener("open", function () {
    state.connected = true;
    $("live").textContent = "live";
    $("live").className = "pill on";
  });
  es.addEventListener("error", function () {
    state.connected = false;
    $("live").textContent = "reconnecting…";
    $("live").className = "pill off";
  });
  es.addEventListener("section", function (m) {
    const d = JSON.parse(m.data);
    state.sections[d.name] = d.value;
    if (render[d.name]) {
      try {
        render[d.name](d.value);
      } catch (e) {
        console.error(d.name, e);
      }
    }
  });
  es.addEventListener("activity_reset", function (m) {
    addActivity(JSON.parse(m.data).entries, true);
  });
  es.addEventListener("activity", function (m) {
    addActivity(JSON.parse(m.data).entries, false);
  });
  es.addEventListener("lines", function (m) {
    onLines(JSON.parse(m.data));
  });
  es.addEventListener("log_held", function (m) {
    const d = JSON.parse(m.data);
    if (d.build_id === log.build) {
      log.held = true;
      logInfo();
    }
  });
}

Object.assign(render, SECTIONS);
startTicker();
wireBuildLog();
wireActivity();
wireActions();
// What the page holds, for the user's bug reports and the browser test.
Object.assign(globalThis, {
  keynobiDashboard: function () {
    return {
      connected: state.connected,
      activity_held: activityHeld(),
      activity_rows: activitySpace().childNodes.length,
      log_build: log.build,
      log_lines_held: log.lines,
      log_following: log.following,
      sections: Object.keys(state.sections),
    };
  },
});
connect();
