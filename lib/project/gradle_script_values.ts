/**
 * The values of a Gradle build script's properties, never guessed: a literal, a top-level
 * `val`/`def` of a literal in the same file, a string template or `+` concatenation of those, or a
 * Gradle property (`project.property("X")`, `providers.gradleProperty("X")`, `findProperty`,
 * Groovy bare names). Anything computed is `null`. Pure.
 */
import {
  closeParen,
  depthZero,
  maskStrings,
  type Scope,
  statements,
} from "./gradle_script_scan.ts";

export type ValueSource = "literal" | "val" | "property";

interface Resolved {
  value: string | null;
  source: ValueSource | "unresolved";
}

/** What a value may be read from: the file's top-level vals and the Gradle properties. */
export interface Context {
  vals: Map<string, { value: string | null; source: ValueSource | "unresolved" }>;
  properties: Map<string, string>;
  dialect: "kotlin" | "groovy";
}

const UNRESOLVED: Resolved = { value: null, source: "unresolved" };

const rank = { literal: 0, val: 1, property: 2, unresolved: 3 } as const;
const weaker = (a: Resolved["source"], b: Resolved["source"]) => rank[a] >= rank[b] ? a : b;

function unescapeString(body: string): string {
  return body.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return c === "n" ? "\n" : c === "t" ? "\t" : c;
  });
}

/** Split `a + b + c` at depth 0 outside strings. */
function splitPlus(expr: string): string[] {
  const mask = maskStrings(expr);
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < mask.length; i++) {
    const c = mask[i];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === "+" && depth === 0) {
      parts.push(expr.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(expr.slice(from).trim());
  return parts;
}

/** Drop conversions that keep the value: `.toString()`, `as String`, `.get()`, `!!`, parens. */
function unwrap(expr: string): string {
  let e = expr.trim();
  for (let n = 0; n < 8; n++) {
    const before = e;
    e = e.replace(/\s+as\s+String$/, "")
      .replace(/(?:\.toString\(\)|\.get\(\)|\.orNull|!!|\.trim\(\))$/, "")
      .trim();
    if (/^\(.*\)$/s.test(e) && closeParen(maskStrings(e), 0, e.length) === e.length - 1) {
      e = e.slice(1, -1).trim();
    }
    if (e === before) break;
  }
  return e;
}

const PROPERTY_READ = new RegExp(
  String
    .raw`^(?:(?:project|rootProject)\s*\.\s*)?(?:property|findProperty)\(\s*["']([\w.\-]+)["']\s*\)$` +
    String
      .raw`|^(?:(?:project|rootProject)\s*\.\s*)?providers\s*\.\s*gradleProperty\(\s*["']([\w.\-]+)["']\s*\)$` +
    String.raw`|^(?:project|rootProject)\s*\.\s*properties\s*\[\s*["']([\w.\-]+)["']\s*\]$`,
);

function resolveString(expr: string, ctx: Context, depth = 0): Resolved {
  if (depth > 4) return UNRESOLVED;
  const parts = splitPlus(expr);
  if (parts.length > 1) {
    let value = "";
    let source: Resolved["source"] = "literal";
    for (const part of parts) {
      const r = resolveString(part, ctx, depth + 1);
      if (r.value === null) return UNRESOLVED;
      value += r.value;
      source = weaker(source, r.source);
    }
    return { value, source };
  }
  const e = unwrap(expr);
  let m = /^'((?:[^'\\\n]|\\.)*)'$/.exec(e);
  if (m) return { value: unescapeString(m[1]), source: "literal" };
  m = /^"((?:[^"\\\n]|\\.)*)"$/.exec(e);
  if (m) return interpolate(m[1], ctx);
  if (/^[A-Za-z_]\w*$/.test(e)) {
    const v = ctx.vals.get(e);
    if (v) {
      if (v.value === null) return UNRESOLVED;
      return { value: v.value, source: v.source === "literal" ? "val" : v.source };
    }
    if (ctx.dialect === "groovy" && ctx.properties.has(e)) {
      return { value: ctx.properties.get(e)!, source: "property" };
    }
    return UNRESOLVED;
  }
  m = PROPERTY_READ.exec(e);
  if (m) {
    const key = m[1] ?? m[2] ?? m[3];
    const v = ctx.properties.get(key);
    return v === undefined ? UNRESOLVED : { value: v, source: "property" };
  }
  return UNRESOLVED;
}

/** A double-quoted body: `$NAME` and `${NAME}` from the file's vals; anything else unresolved. */
function interpolate(body: string, ctx: Context): Resolved {
  if (!body.includes("$")) return { value: unescapeString(body), source: "literal" };
  let source: Resolved["source"] = "literal";
  let ok = true;
  const value = body.replace(
    /\\\$|\$\{\s*([A-Za-z_]\w*)\s*\}|\$([A-Za-z_]\w*)|\$/g,
    (all, a, b) => {
      if (all === "\\$") return "$";
      const name = a ?? b;
      if (name === undefined) {
        ok = false;
        return "";
      }
      const r = resolveString(name, ctx, 1);
      if (r.value === null) {
        ok = false;
        return "";
      }
      source = weaker(source, r.source);
      return r.value;
    },
  );
  return ok ? { value: unescapeString(value), source: weaker(source, "val") } : UNRESOLVED;
}

function resolveInt(expr: string, ctx: Context): number | null {
  let e = unwrap(expr);
  for (let n = 0; n < 4; n++) {
    const before = e;
    e = unwrap(
      e.replace(/(?:\.toInt\(\)|\.toInteger\(\)|\.toIntOrNull\(\)|\s+as\s+int(?:eger)?)$/i, ""),
    );
    const parse = /^(?:Integer\.parseInt|Integer\.valueOf)\((.*)\)$/s.exec(e);
    if (parse) e = unwrap(parse[1]);
    if (e === before) break;
  }
  if (/^\d{1,9}$/.test(e)) return Number(e);
  const r = resolveString(e, ctx);
  if (r.value === null) return null;
  const m = /^\s*(?:android-)?(\d{1,9})\s*$/.exec(r.value);
  return m ? Number(m[1]) : null;
}

function resolveBool(expr: string): boolean | null {
  const e = unwrap(expr);
  return e === "true" ? true : e === "false" ? false : null;
}

/** Top-level `val X = …` (Kotlin) and `def X = …` / `final String X = …` (Groovy), in order. */
export function collectVals(s: Scope, ctx: Context): void {
  const flat = depthZero(s);
  const re = new RegExp(
    String
      .raw`(?:^|[\n;])[ \t]*(?:(?:private|internal|const)\s+)*(?:val|var|def|final(?:\s+String|\s+def)?|String)` +
      String.raw`\s+([A-Za-z_]\w*)\s*(?::\s*[\w.<>?]+\s*)?(=|by\b)`,
    "g",
  );
  for (const m of flat.matchAll(re)) {
    const name = m[1];
    const p = m.index + m[0].length;
    let end = flat.indexOf("\n", p);
    if (end === -1) end = flat.length;
    const expr = s.src.slice(s.start + p, s.start + end).trim();
    if (m[2] === "by") {
      // `val APP_ID: String by project` reads the Gradle property of the same name.
      const v = /^project\s*$/.test(expr) ? ctx.properties.get(name) : undefined;
      ctx.vals.set(name, v === undefined ? UNRESOLVED : { value: v, source: "property" });
      continue;
    }
    const r = resolveString(expr, ctx);
    ctx.vals.set(name, { value: r.value, source: r.value === null ? "unresolved" : r.source });
  }
}

/** A property as the script sets it: `set` when a statement sets it, `value` null if computed. */
export interface FieldValue<T> {
  value: T | null;
  set: boolean;
  source?: Resolved["source"];
}

/** The last statement's value across scopes (later wins). */
export function lastString(scopes: Scope[], names: string, ctx: Context): FieldValue<string> {
  let out: FieldValue<string> = { value: null, set: false };
  for (const s of scopes) {
    for (const st of statements(s, names)) {
      if (st.op === "+=" || st.method) continue;
      const r = resolveString(st.value, ctx);
      out = { value: r.value, set: true, source: r.source };
    }
  }
  return out;
}

/** The last statement's integer across scopes (later wins). */
export function lastInt(scopes: Scope[], names: string, ctx: Context): FieldValue<number> {
  let out: FieldValue<number> = { value: null, set: false };
  for (const s of scopes) {
    for (const st of statements(s, names)) {
      if (st.op === "+=" || st.method) continue;
      out = { value: resolveInt(st.value, ctx), set: true };
    }
  }
  return out;
}

/** The last statement's boolean literal across scopes (later wins). */
export function lastBool(scopes: Scope[], names: string): FieldValue<boolean> {
  let out: FieldValue<boolean> = { value: null, set: false };
  for (const s of scopes) {
    for (const st of statements(s, names)) {
      if (st.op === "+=" || st.method) continue;
      out = { value: resolveBool(st.value), set: true };
    }
  }
  return out;
}

/** String literals of a list expression: `"a"`, `['a', 'b']`, `listOf("a")`, `"a", "b"`. */
export function listStrings(expr: string, ctx: Context): string[] | null {
  let e = unwrap(expr);
  const call = /^(?:listOf|mutableListOf|arrayOf|setOf|mutableSetOf)\s*\((.*)\)$/s.exec(e);
  if (call) e = call[1];
  else if (/^\[.*\]$/s.test(e)) e = e.slice(1, -1);
  const out: string[] = [];
  const mask = maskStrings(e);
  let from = 0;
  let depth = 0;
  const parts: string[] = [];
  for (let i = 0; i <= mask.length; i++) {
    const c = mask[i];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    if (i === mask.length || (c === "," && depth === 0)) {
      parts.push(e.slice(from, i).trim());
      from = i + 1;
    }
  }
  for (const part of parts) {
    if (part === "") continue;
    const r = resolveString(part, ctx);
    if (r.value === null) return null;
    out.push(r.value);
  }
  return out;
}
