/**
 * How a stack trace's lines are read, on both threads: a Java frame line (`at a.b.c(File:12)`),
 * its location, and the R8 map ids frames name (`at a.b(r8-map-id-48ffd94:12)`), by which the
 * main thread picks the mapping to ask the retrace worker for (lib/sessions/retrace_crash.ts).
 * lib/retrace/retrace_text.ts rewrites the frames with the same reading. Pure.
 */

/** Lines of a trace retraced at most; the rest are kept as printed. */
export const MAX_RETRACE_LINES = 20_000;

/** A frame line: indentation, class, method, location (what is inside the parentheses). */
export const FRAME = /^(\s*)at\s+([^\s(]+)\.([^\s.(]+)\(([^()]*)\)\s*$/;
const MAP_ID_FILE = /^r8-map-id-([0-9a-fA-F]+)$/;

/** `File:12` → file and line; `Unknown Source` → file, no line. Pure. */
export function splitLocation(loc: string): { file: string; line: number | null } {
  const colon = loc.lastIndexOf(":");
  // 1–9 decimal digits after the last colon (read by hand: a regex and a slice per frame).
  const digits = loc.length - colon - 1;
  if (colon <= 0 || digits < 1 || digits > 9) return { file: loc, line: null };
  let line = 0;
  for (let i = colon + 1; i < loc.length; i++) {
    const c = loc.charCodeAt(i);
    if (c < 48 || c > 57) return { file: loc, line: null };
    line = line * 10 + (c - 48);
  }
  return { file: loc.slice(0, colon), line };
}

/** The map ids a trace's frames name (`at a.b(r8-map-id-48ffd94:12)`), in order of appearance. */
export function mapIdsInTrace(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split("\n").slice(0, MAX_RETRACE_LINES)) {
    const m = FRAME.exec(line.replace(/\r$/, ""));
    if (!m) continue;
    const id = MAP_ID_FILE.exec(splitLocation(m[4]).file);
    if (id && !ids.includes(id[1].toLowerCase())) ids.push(id[1].toLowerCase());
  }
  return ids;
}
