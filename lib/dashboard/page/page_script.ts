/**
 * The dashboard page's script (served as /app.js): browser/app.js, a checked browser script
 * (deno check against the DOM, lint, fmt), imported as text so that the bundle and the compiled
 * binary embed it. Its two bounds are declared once, in app.js, and read from its text here for
 * the server and the tests.
 */
import APP_SCRIPT from "./browser/app.js" with { type: "text" };

/** The script as served, byte for byte app.js. */
export const PAGE_SCRIPT: string = APP_SCRIPT;

/** The value of app.js's `const NAME = digits;`: throws at load when app.js has no such line. */
function bound(name: string): number {
  const m = PAGE_SCRIPT.match(new RegExp(`^  const ${name} = (\\d+);$`, "m"));
  if (!m) {
    throw new Error(`lib/dashboard/page/browser/app.js declares no "const ${name} = <digits>;"`);
  }
  return Number(m[1]);
}

/** Activity entries the page holds at most (only the visible rows of them in the document). */
export const PAGE_MAX_ACTIVITY = bound("MAX_ACTIVITY");
/** Build log lines the page holds at most; older ones are fetched when scrolled to the top. */
export const PAGE_MAX_LINES = bound("MAX_LINES");
