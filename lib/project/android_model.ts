/**
 * The Android model of one module, read from its build file without running Gradle: namespace,
 * application id, SDK levels, versions, build types, flavor dimensions and product flavors.
 * Kotlin DSL and Groovy alike.
 *
 * Parsing is textual and never guesses: a value is reported when it is a literal, a top-level
 * `val`/`def` of a literal in the same file, a string template or `+` concatenation of those, or a
 * Gradle property read from `gradle.properties` (`project.property("X")`,
 * `providers.gradleProperty("X")`, `findProperty`, Groovy bare names). Anything computed is `null`
 * and its field is named in `unresolved`. Reading `gradle.properties` runs nothing, so it is read
 * for trusted and untrusted projects alike.
 */
import { join } from "../core/path.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import { readProjectFile } from "../core/project_paths.ts";
import {
  MAX_BUILD_FILE_BYTES,
  moduleDir,
  normalizeProjectPath,
  parseSettings,
  stripComments,
} from "./build_files.ts";
import { MAX_PROPERTIES_BYTES, parseProperties } from "../core/properties.ts";
import { appendAll } from "../core/arrays.ts";

/** Text beyond this many characters of a build file is not parsed. */
export const MAX_MODEL_SOURCE_CHARS = MAX_BUILD_FILE_BYTES;
/** At most this many build types are kept (the AGP defaults debug and release count). */
export const MAX_BUILD_TYPES = 64;
/** At most this many product flavors are kept. */
export const MAX_PRODUCT_FLAVORS = 256;
/** At most this many flavor dimensions are kept. */
export const MAX_FLAVOR_DIMENSIONS = 16;
/** A manifest read for its `package` attribute is read only up to this many bytes. */
export const MAX_MANIFEST_BYTES = 256 * 1024;

export const ApplicationIdSource = {
  literal: "literal",
  val: "val",
  property: "property",
  unresolved: "unresolved",
  /** No `applicationId` in the build file: AGP uses the namespace (or the manifest package). */
  none: "none",
} as const;
export type ApplicationIdSource = typeof ApplicationIdSource[keyof typeof ApplicationIdSource];

export interface BuildType {
  name: string;
  /** `null` when not set or not a literal (then `unresolved` names it); `""` when set empty. */
  application_id_suffix: string | null;
  minify_enabled?: boolean | null;
  /** Fields that are set to something this parser cannot evaluate. */
  unresolved: string[];
}

export interface ProductFlavor {
  name: string;
  dimension: string | null;
  application_id: string | null;
  application_id_suffix: string | null;
  unresolved: string[];
}

export interface AndroidModel {
  /** Gradle path of the module (`:app`, `:` for the root project). */
  module: string;
  namespace: string | null;
  application_id: string | null;
  application_id_source: ApplicationIdSource;
  min_sdk: number | null;
  target_sdk: number | null;
  compile_sdk: number | null;
  version_code: number | null;
  version_name: string | null;
  build_types: BuildType[];
  flavor_dimensions: string[];
  product_flavors: ProductFlavor[];
  /** `package` of `src/main/AndroidManifest.xml` (old projects without namespace); else null. */
  manifest_package: string | null;
  /** Top-level fields set to something this parser cannot evaluate (`version_name`, …). */
  unresolved: string[];
}

export interface ParseOptions {
  module?: string;
  /** Gradle properties (root `gradle.properties`, then the module's). */
  properties?: Map<string, string>;
  /** Groovy resolves bare names as project properties; Kotlin does not. Default `kotlin`. */
  dialect?: "kotlin" | "groovy";
  manifestPackage?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Source scanning: a mask of the source with string contents blanked, so braces, keywords and
// names inside strings never count. Positions in the mask are positions in the source.

/** Blank the contents of string literals (quotes kept, newlines kept). Pure. */
export function maskStrings(src: string): string {
  const out = src.split("");
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== "\n") out[k] = " ";
  };
  while (i < src.length) {
    const c = src[i];
    if ((c === '"' || c === "'") && src.startsWith(c.repeat(3), i)) {
      const end = src.indexOf(c.repeat(3), i + 3);
      const stop = end === -1 ? src.length : end;
      blank(i + 3, stop);
      i = stop + 3;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      blank(i + 1, Math.min(j, src.length));
      i = j + 1;
    } else i++;
  }
  return out.join("");
}

/** Index of the `}` matching the `{` at `open` in a mask, or the end. */
function closeBrace(mask: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    if (mask[i] === "{") depth++;
    else if (mask[i] === "}" && --depth === 0) return i;
  }
  return end;
}

/** Index of the `)` matching the `(` at `open` in a mask, or -1. */
function closeParen(mask: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    if (mask[i] === "(") depth++;
    else if (mask[i] === ")" && --depth === 0) return i;
  }
  return -1;
}

interface Block {
  header: string;
  /** Body range: after `{` up to the matching `}`. */
  start: number;
  end: number;
}

interface Scope {
  src: string;
  mask: string;
  start: number;
  end: number;
}

/** The blocks at depth 0 of a scope, each with the statement text before its `{`. */
function childBlocks(s: Scope): Block[] {
  const blocks: Block[] = [];
  let headerStart = s.start;
  let paren = 0;
  for (let i = s.start; i < s.end; i++) {
    const c = s.mask[i];
    if (c === "(") paren++;
    else if (c === ")") paren = Math.max(0, paren - 1);
    else if ((c === "\n" || c === ";") && paren === 0) headerStart = i + 1;
    else if (c === "}") headerStart = i + 1;
    else if (c === "{") {
      const close = closeBrace(s.mask, i, s.end);
      blocks.push({ header: s.src.slice(headerStart, i).trim(), start: i + 1, end: close });
      i = close;
      headerStart = close + 1;
      paren = 0;
    }
  }
  return blocks;
}

/** The scope's mask with nested block contents blanked (newlines kept). */
function depthZero(s: Scope): string {
  const out = s.mask.slice(s.start, s.end).split("");
  let depth = 0;
  for (let k = 0; k < out.length; k++) {
    const c = out[k];
    if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (depth > 0 && c !== "\n") out[k] = " ";
  }
  return out.join("");
}

const inner = (s: Scope, b: Block): Scope => ({ ...s, start: b.start, end: b.end });

interface Statement {
  op: "=" | "+=" | "call" | "command";
  /** Source text of the value (for `call`, the text between the parentheses). */
  value: string;
  /** Property-style `x.add(...)` / `x.addAll(...)`: the method name. */
  method?: string;
}

/**
 * Statements `name = v`, `name += v`, `name(v)`, `name v` (Groovy) and `name.add(v)` at depth 0
 * of a scope, in source order. `names` is a regex alternation of property names.
 */
function statements(s: Scope, names: string): Statement[] {
  const flat = depthZero(s);
  const re = new RegExp(String.raw`(?:^|[\n;{}])[ \t]*(?:${names})(?![\w$])`, "g");
  const out: Statement[] = [];
  for (const m of flat.matchAll(re)) {
    let p = m.index + m[0].length;
    const lineEnd = (from = p) => {
      let depth = 0;
      let k = from;
      for (; k < flat.length; k++) {
        const c = flat[k];
        if (c === "(" || c === "[") depth++;
        else if (c === ")" || c === "]") depth--;
        else if ((c === "\n" || c === ";") && depth <= 0) break;
      }
      return k;
    };
    const abs = (k: number) => s.start + k;
    let method: string | undefined;
    const dot = /^[ \t]*\.[ \t]*(add|addAll|set)[ \t]*(?=\()/.exec(flat.slice(p));
    if (dot) {
      method = dot[1];
      p += dot[0].length;
    }
    while (flat[p] === " " || flat[p] === "\t") p++;
    const c = flat[p];
    if (c === "=" && flat[p + 1] !== "=") {
      p++;
      out.push({ op: "=", value: s.src.slice(abs(p), abs(lineEnd())).trim() });
    } else if (c === "+" && flat[p + 1] === "=") {
      p += 2;
      out.push({ op: "+=", value: s.src.slice(abs(p), abs(lineEnd())).trim() });
    } else if (c === "(") {
      const close = closeParen(flat, p, flat.length);
      if (close === -1) continue;
      const after = flat.slice(close + 1, lineEnd(close + 1)).trim();
      // `name(x).something` or `name(x) { … }` is not a plain setter call.
      if (after !== "" && !after.startsWith("//")) continue;
      out.push({ op: "call", value: s.src.slice(abs(p + 1), abs(close)).trim(), method });
    } else if (!method && c !== undefined && c !== "\n" && c !== ";" && /[\w"'\[(-]/.test(c)) {
      out.push({ op: "command", value: s.src.slice(abs(p), abs(lineEnd())).trim() });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Values.

type ValueSource = "literal" | "val" | "property";

interface Resolved {
  value: string | null;
  source: ValueSource | "unresolved";
}

interface Context {
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
function collectVals(s: Scope, ctx: Context): void {
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

// ---------------------------------------------------------------------------------------------
// Model.

const NOT_NAMES = new Set([
  "if",
  "else",
  "try",
  "catch",
  "finally",
  "all",
  "each",
  "forEach",
  "configureEach",
  "whenObjectAdded",
  "matching",
  "apply",
  "run",
  "with",
  "also",
  "let",
  "do",
  "while",
  "for",
  "when",
  "switch",
  "return",
  "object",
]);

/** The element a block header configures in a named container, or null. */
export function containerElementName(header: string): string | null {
  const h = header.replace(/\s+/g, " ").trim();
  let m = /^([A-Za-z_]\w*)$/.exec(h);
  if (m) return NOT_NAMES.has(m[1]) ? null : m[1];
  m =
    /^(?:create|register|maybeCreate|getByName|named|getting|creating)\s*\(\s*["']([\w\-]+)["']\s*\)(?:\s*\.\s*(?:configure|apply|get\(\)\s*\.\s*apply|also|run))?$/
      .exec(h);
  if (m) return m[1];
  m = /^val ([A-Za-z_]\w*)(?: ?: ?[\w.<>]+)? by (?:creating|getting)$/.exec(h);
  if (m) return m[1];
  return null;
}

/** Containers' elements declared without a block: `create("blue")`, `register("core")`. */
function blocklessElements(s: Scope): { name: string; at: number }[] {
  const flat = depthZero(s);
  const out: { name: string; at: number }[] = [];
  const re = /(?:^|[\n;{}])[ \t]*(?:create|register|maybeCreate)\s*\(\s*["']/g;
  for (const m of flat.matchAll(re)) {
    const at = s.start + m.index + m[0].length;
    const q = s.src[at - 1];
    const end = s.src.indexOf(q, at);
    if (end === -1) continue;
    const name = s.src.slice(at, end);
    if (/^[\w\-]+$/.test(name)) out.push({ name, at });
  }
  return out;
}

interface Element {
  name: string;
  scopes: Scope[];
}

/** Elements of a named container (`buildTypes`, `productFlavors`), merged by name in order. */
function containerElements(s: Scope): Element[] {
  const events: { at: number; name: string; scope?: Scope }[] = [];
  for (const b of childBlocks(s)) {
    const name = containerElementName(b.header);
    if (name !== null) events.push({ at: b.start, name, scope: inner(s, b) });
  }
  appendAll(events, blocklessElements(s));
  events.sort((a, b) => a.at - b.at);
  const byName = new Map<string, Element>();
  for (const e of events) {
    let el = byName.get(e.name);
    if (!el) {
      el = { name: e.name, scopes: [] };
      byName.set(e.name, el);
    }
    if (e.scope) el.scopes.push(e.scope);
  }
  return [...byName.values()];
}

function blocksNamed(s: Scope, pattern: RegExp): Scope[] {
  return childBlocks(s).filter((b) => pattern.test(b.header.replace(/\s+/g, " "))).map((b) =>
    inner(s, b)
  );
}

interface FieldValue<T> {
  value: T | null;
  set: boolean;
  source?: Resolved["source"];
}

/** The last statement's value across scopes (later wins). */
function lastString(scopes: Scope[], names: string, ctx: Context): FieldValue<string> {
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

function lastInt(scopes: Scope[], names: string, ctx: Context): FieldValue<number> {
  let out: FieldValue<number> = { value: null, set: false };
  for (const s of scopes) {
    for (const st of statements(s, names)) {
      if (st.op === "+=" || st.method) continue;
      out = { value: resolveInt(st.value, ctx), set: true };
    }
  }
  return out;
}

function lastBool(scopes: Scope[], names: string): FieldValue<boolean> {
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
function listStrings(expr: string, ctx: Context): string[] | null {
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

function flavorDimensions(scopes: Scope[], ctx: Context, unresolved: Set<string>): string[] {
  let dims: string[] = [];
  for (const s of scopes) {
    for (const st of statements(s, "flavorDimensions")) {
      const values = listStrings(st.value, ctx);
      if (values === null) {
        unresolved.add("flavor_dimensions");
        continue;
      }
      if (st.op === "=" || (st.op === "call" && !st.method) || st.op === "command") dims = values;
      else dims = dims.concat(values); // `+=`, `.add(…)`, `.addAll(…)`
    }
  }
  return [...new Set(dims)].slice(0, MAX_FLAVOR_DIMENSIONS);
}

const APPLICATION_ID = "applicationId";
const SUFFIX = "applicationIdSuffix";

function suffixOf(scopes: Scope[], ctx: Context, unresolved: string[]): string | null {
  const f = lastString(scopes, SUFFIX, ctx);
  if (f.set && f.value === null) unresolved.push("application_id_suffix");
  return f.value;
}

/** The top-level `android { }` blocks (and `configure<ApplicationExtension> { }`). */
function androidScopes(file: Scope): Scope[] {
  return blocksNamed(
    file,
    /^(?:android|(?:extensions\s*\.\s*)?configure\s*<\s*[\w.]*(?:Application|AppModule|Base)\w*Extension\s*>)$/,
  );
}

/** Parse a module build file (Kotlin DSL or Groovy) into its Android model. Pure. */
export function parseAndroidModel(text: string, options: ParseOptions = {}): AndroidModel {
  const src = stripComments(text.slice(0, MAX_MODEL_SOURCE_CHARS));
  const mask = maskStrings(src);
  const file: Scope = { src, mask, start: 0, end: src.length };
  const ctx: Context = {
    vals: new Map(),
    properties: options.properties ?? new Map(),
    dialect: options.dialect ?? "kotlin",
  };
  collectVals(file, ctx);
  const unresolved = new Set<string>();
  const androids = androidScopes(file);
  const defaults = androids.flatMap((a) => blocksNamed(a, /^defaultConfig$/));
  const configScopes = [...androids, ...defaults];

  const noteString = (f: FieldValue<string>, field: string) => {
    if (f.set && f.value === null) unresolved.add(field);
    return f.value;
  };
  const noteInt = (f: FieldValue<number>, field: string) => {
    if (f.set && f.value === null) unresolved.add(field);
    return f.value;
  };

  // `namespace` belongs to `android {}`; Tusky also sets it inside defaultConfig.
  const nsAndroid = lastString(androids, "namespace", ctx);
  const namespace = noteString(
    nsAndroid.set ? nsAndroid : lastString(defaults, "namespace", ctx),
    "namespace",
  );
  const appId = lastString(
    configScopes,
    `${APPLICATION_ID}|defaultConfig\\.${APPLICATION_ID}`,
    ctx,
  );
  let applicationIdSource: ApplicationIdSource = ApplicationIdSource.none;
  if (appId.set) {
    applicationIdSource = appId.value === null ? "unresolved" : appId.source as ValueSource;
    if (appId.value === null) unresolved.add("application_id");
  }

  let compileSdk = noteInt(
    lastInt(androids, "compileSdk|compileSdkVersion", ctx),
    "compile_sdk",
  );
  for (const block of androids.flatMap((a) => blocksNamed(a, /^compileSdk$/))) {
    // AGP 8.13+: `compileSdk { version = release(36) }`.
    const m = /release\s*\(\s*(\d{1,4})\s*\)/.exec(src.slice(block.start, block.end));
    compileSdk = m ? Number(m[1]) : null;
    if (!m) unresolved.add("compile_sdk");
    else unresolved.delete("compile_sdk");
  }
  const at = (names: string) => `${names}|defaultConfig\\.(?:${names})`;
  const minSdk = noteInt(lastInt(configScopes, at("minSdk|minSdkVersion"), ctx), "min_sdk");
  const targetSdk = noteInt(
    lastInt(configScopes, at("targetSdk|targetSdkVersion"), ctx),
    "target_sdk",
  );
  const versionCode = noteInt(lastInt(configScopes, at("versionCode"), ctx), "version_code");
  const versionName = noteString(
    lastString(configScopes, at("versionName"), ctx),
    "version_name",
  );

  const buildTypes: BuildType[] = [
    { name: "debug", application_id_suffix: null, unresolved: [] },
    { name: "release", application_id_suffix: null, unresolved: [] },
  ];
  for (
    const el of androids.flatMap((a) => blocksNamed(a, /^buildTypes$/)).flatMap(containerElements)
  ) {
    let bt = buildTypes.find((b) => b.name === el.name);
    if (!bt) {
      if (buildTypes.length >= MAX_BUILD_TYPES) continue;
      bt = { name: el.name, application_id_suffix: null, unresolved: [] };
      buildTypes.push(bt);
    }
    const unres: string[] = [];
    const suffix = suffixOf(el.scopes, ctx, unres);
    if (suffix !== null || unres.length > 0) bt.application_id_suffix = suffix;
    const minify = lastBool(el.scopes, "minifyEnabled|isMinifyEnabled");
    if (minify.set) {
      bt.minify_enabled = minify.value;
      if (minify.value === null) unres.push("minify_enabled");
    }
    bt.unresolved = [...new Set([...bt.unresolved, ...unres])];
  }

  const dimensions = flavorDimensions(androids, ctx, unresolved);
  const flavors: ProductFlavor[] = [];
  for (
    const el of androids.flatMap((a) => blocksNamed(a, /^productFlavors$/)).flatMap(
      containerElements,
    )
  ) {
    let fl = flavors.find((f) => f.name === el.name);
    if (!fl) {
      if (flavors.length >= MAX_PRODUCT_FLAVORS) continue;
      fl = {
        name: el.name,
        dimension: null,
        application_id: null,
        application_id_suffix: null,
        unresolved: [],
      };
      flavors.push(fl);
    }
    const unres: string[] = [];
    const dim = lastString(el.scopes, "dimension", ctx);
    if (dim.set) {
      fl.dimension = dim.value;
      if (dim.value === null) unres.push("dimension");
    }
    const id = lastString(el.scopes, APPLICATION_ID, ctx);
    if (id.set) {
      fl.application_id = id.value;
      if (id.value === null) unres.push("application_id");
    }
    const suffix = suffixOf(el.scopes, ctx, unres);
    if (suffix !== null || unres.includes("application_id_suffix")) {
      fl.application_id_suffix = suffix;
    }
    fl.unresolved = [...new Set([...fl.unresolved, ...unres])];
  }
  // With a single dimension AGP assigns it to every flavor that names none.
  if (dimensions.length === 1) {
    for (const f of flavors) {
      if (f.dimension === null && !f.unresolved.includes("dimension")) f.dimension = dimensions[0];
    }
  }

  return {
    module: normalizeProjectPath(options.module ?? ":app"),
    namespace,
    application_id: appId.value,
    application_id_source: applicationIdSource,
    min_sdk: minSdk,
    target_sdk: targetSdk,
    compile_sdk: compileSdk,
    version_code: versionCode,
    version_name: versionName,
    build_types: buildTypes,
    flavor_dimensions: dimensions,
    product_flavors: flavors,
    manifest_package: options.manifestPackage ?? null,
    unresolved: [...unresolved],
  };
}

/** The `package` attribute of a manifest's `<manifest>` element, or null. Pure. */
export function parseManifestPackage(xml: string): string | null {
  const m = /<manifest\b[^>]*?\bpackage\s*=\s*["']([A-Za-z][\w.]*)["']/s.exec(xml);
  return m ? m[1] : null;
}

// ---------------------------------------------------------------------------------------------
// I/O: every file goes through readProjectFile (inside the project, bounded).

async function readOptional(root: string, rel: string, max: number): Promise<string | null> {
  try {
    return (await readProjectFile(root, rel, max)).text;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

export interface ModuleModel extends AndroidModel {
  /** Folder relative to the root ("" for the root project). */
  dir: string;
  /** The build file read, relative to the root. */
  build_file: string;
}

/** Gradle properties: the root `gradle.properties`, then the module's own (which wins). */
export async function readGradleProperties(
  root: string,
  dir = "",
): Promise<Map<string, string>> {
  const props = new Map<string, string>();
  const files = dir === ""
    ? ["gradle.properties"]
    : ["gradle.properties", `${dir}/gradle.properties`];
  for (const rel of files) {
    const text = await readOptional(root, rel, MAX_PROPERTIES_BYTES);
    if (text !== null) { for (const [k, v] of parseProperties(text)) props.set(k, v); }
  }
  return props;
}

/** The folder of a module path (`:app` → `app`, `:` → ""), honouring custom folders. */
export async function moduleFolder(root: string, modulePath: string): Promise<string> {
  const path = normalizeProjectPath(modulePath);
  if (path === ":") return "";
  const settingsText = await readOptional(root, "settings.gradle.kts", MAX_BUILD_FILE_BYTES) ??
    await readOptional(root, "settings.gradle", MAX_BUILD_FILE_BYTES);
  const settings = settingsText === null ? null : parseSettings(settingsText);
  if (settings !== null && settings.modules.length > 0 && !settings.modules.includes(path)) {
    throw invalidParams(
      `Unknown module ${path}: the project's modules are ${settings.modules.join(", ")}; ` +
        "pass one of them",
    );
  }
  return moduleDir(path, settings?.projectDirs ?? {});
}

/** Read and parse the build file of `modulePath` (`:app`, `:` for the root project). */
export async function readAndroidModel(root: string, modulePath: string): Promise<ModuleModel> {
  const module = normalizeProjectPath(modulePath);
  const dir = await moduleFolder(root, module);
  const prefix = dir === "" ? "" : `${dir}/`;
  let buildFile: string | null = null;
  let text: string | null = null;
  for (const name of ["build.gradle.kts", "build.gradle"]) {
    text = await readOptional(root, `${prefix}${name}`, MAX_BUILD_FILE_BYTES);
    if (text !== null) {
      buildFile = `${prefix}${name}`;
      break;
    }
  }
  if (buildFile === null || text === null) {
    throw new ToolError(
      "not_found",
      `Cannot read the build file of module ${module}: no build.gradle.kts or build.gradle ` +
        `inside the project at ${join(root, dir)}; pass a module that has one`,
      { module },
    );
  }
  const properties = await readGradleProperties(root, dir);
  const manifest = await readOptional(
    root,
    `${prefix}src/main/AndroidManifest.xml`,
    MAX_MANIFEST_BYTES,
  );
  const model = parseAndroidModel(text, {
    module,
    properties,
    dialect: buildFile.endsWith(".kts") ? "kotlin" : "groovy",
    manifestPackage: manifest === null ? null : parseManifestPackage(manifest),
  });
  return { ...model, dir, build_file: buildFile };
}
