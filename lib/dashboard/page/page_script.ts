/**
 * The dashboard page's script: the ES modules of browser/ (checked browser JavaScript: deno
 * check against the DOM, lint, fmt), each imported as text so that the bundle and the compiled
 * binary embed it, and served at its own name, /app.js the entry (the page's
 * `<script type="module">`), which imports the others by relative URL (`./dom.js` → /dom.js).
 * Its two bounds are declared once, MAX_ACTIVITY in activity.js and MAX_LINES in build_log.js,
 * and read from their text here for the server and the tests.
 */
import ACTIONS from "./browser/actions.js" with { type: "text" };
import ACTIVITY from "./browser/activity.js" with { type: "text" };
import APP from "./browser/app.js" with { type: "text" };
import BUILD_LOG from "./browser/build_log.js" with { type: "text" };
import CHARTS from "./browser/charts.js" with { type: "text" };
import DOM from "./browser/dom.js" with { type: "text" };
import SECTIONS from "./browser/sections.js" with { type: "text" };
import STATE from "./browser/state.js" with { type: "text" };

/**
 * The script's modules as served: URL path → the text, byte for byte browser/<name>. The server
 * serves these paths and no other (a fixed table: nothing read from disk at request time).
 */
export const PAGE_MODULES: ReadonlyMap<string, string> = new Map([
  ["/app.js", APP],
  ["/actions.js", ACTIONS],
  ["/activity.js", ACTIVITY],
  ["/build_log.js", BUILD_LOG],
  ["/charts.js", CHARTS],
  ["/dom.js", DOM],
  ["/sections.js", SECTIONS],
  ["/state.js", STATE],
]);

/** The value of a module's top-level `const NAME = digits;`: throws at load when it has none. */
function bound(file: string, text: string, name: string): number {
  const m = text.match(new RegExp(`^const ${name} = (\\d+);$`, "m"));
  if (!m) {
    throw new Error(`lib/dashboard/page/browser/${file} declares no "const ${name} = <digits>;"`);
  }
  return Number(m[1]);
}

/** Activity entries the page holds at most (only the visible rows of them in the document). */
export const PAGE_MAX_ACTIVITY = bound("activity.js", ACTIVITY, "MAX_ACTIVITY");
/** Build log lines the page holds at most; older ones are fetched when scrolled to the top. */
export const PAGE_MAX_LINES = bound("build_log.js", BUILD_LOG, "MAX_LINES");
