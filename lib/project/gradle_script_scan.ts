/**
 * Reading a Gradle build script's structure without running it, Kotlin DSL and Groovy alike: a
 * mask of the source with string contents blanked (so braces, keywords and names inside strings
 * never count; positions in the mask are positions in the source), the blocks of a scope, the
 * statements that set a property (`name = v`, `name(v)`, `name v`, `name += v`, `name.add(v)`),
 * and the elements of a named container (`buildTypes`, `productFlavors`). Pure.
 */
import { appendAll } from "../core/arrays.ts";

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
export function closeParen(mask: string, open: number, end: number): number {
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

export interface Scope {
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
export function depthZero(s: Scope): string {
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
export function statements(s: Scope, names: string): Statement[] {
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
export function containerElements(s: Scope): Element[] {
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

/** The child blocks of a scope whose header matches `pattern` (whitespace collapsed). */
export function blocksNamed(s: Scope, pattern: RegExp): Scope[] {
  return childBlocks(s).filter((b) => pattern.test(b.header.replace(/\s+/g, " "))).map((b) =>
    inner(s, b)
  );
}
