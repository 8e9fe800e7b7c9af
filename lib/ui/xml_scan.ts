/**
 * A dedicated scanner for UI Automator XML (PROTOCOLS.md 7). Pure.
 *
 * It reads the declaration, comments, CDATA sections, text, and elements with attributes in
 * double or single quotes, self-closing or open/close, and reports each element to a visitor. It
 * reads them exactly as `fast-xml-parser` does with the options `hierarchy.ts` uses (that parser
 * is the reference the tests compare against): values are trimmed, `\r\n` and `\r` become `\n`,
 * a close tag ends the innermost open element whatever its name, entities are left as written.
 *
 * What it does not handle it does not guess at: a DOCTYPE, an unclosed tag, comment or CDATA, an
 * attribute without a quoted value, a name outside `[A-Za-z0-9_:.-]`, a name that would touch an
 * object's prototype, or nesting past the limit. It then returns why, and the caller hands the
 * text to the general parser, which either reads it or refuses it with its own message.
 */

/** Attributes of one element: name → value (trimmed, entities still encoded). */
export type XmlAttrs = Record<string, string>;

export interface XmlScanVisitor {
  /** An element starts; a self-closing one gets no `close()`. */
  open(name: string, attrs: XmlAttrs, selfClosing: boolean): void;
  /** The innermost open element ends (a close tag with nothing open is skipped). */
  close(): void;
}

/** Open elements at most, by default; opening one more is not handled. */
const DEFAULT_SCAN_NESTING = 1_000;
/** Highest nesting limit a caller may ask for. */
const MAX_SCAN_NESTING = 100_000;

const GT = 62; // >
const SLASH = 47;
const QMARK = 63;
const BANG = 33;
const DASH = 45;
const LBRACKET = 91;
const EQ = 61;
const DQUOTE = 34;
const SQUOTE = 39;

/** Names that would reach an object's prototype; the general parser refuses them. */
const CRITICAL_NAMES = new Set(["__proto__", "constructor", "prototype"]);

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** `[A-Za-z0-9_:.-]`: the names UI Automator writes, and a safe subset of XML names. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 58) || c === 45 ||
    c === 95 || c === 46;
}

/** Characters that may be whitespace to `String.prototype.trim` (then trimming decides). */
function maybeTrimmable(c: number): boolean {
  return c <= 32 || c >= 0xa0;
}

/**
 * Scans `xml`, calling `visitor` for each element in document order. Returns `null` when the
 * whole text was read, else why it was not (the visitor may have seen part of the document).
 */
// deno-lint-ignore house/long-function -- a one-pass tokenizer sharing position and open elements
export function scanUiXml(
  xml: string,
  visitor: XmlScanVisitor,
  maxNesting = DEFAULT_SCAN_NESTING,
): string | null {
  const limit = Math.max(0, Math.min(MAX_SCAN_NESTING, Math.floor(maxNesting)));
  if (xml.includes("\r")) xml = xml.replace(/\r\n?/g, "\n");
  const len = xml.length;
  let open = 0;
  let i = xml.indexOf("<");
  while (i >= 0 && i < len) {
    const c1 = xml.charCodeAt(i + 1);
    if (c1 === SLASH) {
      const gt = xml.indexOf(">", i + 2);
      if (gt < 0) return `an unclosed end tag at ${i}`;
      if (gt - i !== 6 || !xml.startsWith("node", i + 2)) {
        const name = xml.slice(i + 2, gt).trim();
        if (CRITICAL_NAMES.has(name)) return `the reserved name "${name}" at ${i}`;
      }
      if (open > 0) {
        open--;
        visitor.close();
      }
      i = xml.indexOf("<", gt + 1);
      continue;
    }
    if (c1 === QMARK) {
      const end = piEnd(xml, i + 1);
      if (end < 0) return `an unclosed processing instruction at ${i}`;
      const body = xml.slice(i, end);
      for (const name of CRITICAL_NAMES) {
        if (body.includes(name)) return `the reserved name "${name}" at ${i}`;
      }
      i = xml.indexOf("<", end + 2);
      continue;
    }
    if (c1 === BANG) {
      let end: number;
      if (xml.charCodeAt(i + 2) === DASH && xml.charCodeAt(i + 3) === DASH) {
        end = xml.indexOf("-->", i + 4);
      } else if (xml.charCodeAt(i + 2) === LBRACKET) {
        end = xml.indexOf("]]>", i);
      } else {
        return `a declaration (<!…) at ${i}`;
      }
      if (end < 0) return `an unclosed comment or CDATA section at ${i}`;
      i = xml.indexOf("<", end + 3);
      continue;
    }

    // A start tag: name, attributes, then `>` or `/>`.
    let p = i + 1;
    while (p < len && isNameChar(xml.charCodeAt(p))) p++;
    if (p === i + 1) return `a tag without a name at ${i}`;
    const name = xml.slice(i + 1, p);
    if (CRITICAL_NAMES.has(name)) return `the reserved name "${name}" at ${i}`;
    const attrs: XmlAttrs = {};
    let selfClosing = false;
    for (let first = true;; first = false) {
      let c = xml.charCodeAt(p);
      const spaced = isSpace(c);
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c === GT) break;
      if (c === SLASH) {
        if (xml.charCodeAt(p + 1) !== GT) return `a "/" inside a tag at ${p}`;
        selfClosing = true;
        p++;
        break;
      }
      // The tag name must be followed by a space, `>` or `/>`.
      if (first && !spaced) return `an unexpected character in a tag at ${p}`;
      const ns = p;
      while (p < len && isNameChar(c)) c = xml.charCodeAt(++p);
      if (p === ns) return `an unexpected character in a tag at ${p}`;
      let an = knownName(xml, ns, p);
      if (an === null) {
        an = xml.slice(ns, p);
        if (CRITICAL_NAMES.has(an)) return `the reserved name "${an}" at ${ns}`;
      }
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c !== EQ) return `an attribute without a value at ${ns}`;
      c = xml.charCodeAt(++p);
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c !== DQUOTE && c !== SQUOTE) return `an unquoted attribute value at ${p}`;
      const ve = xml.indexOf(c === DQUOTE ? '"' : "'", p + 1);
      if (ve < 0) return `an unclosed attribute value at ${p}`;
      let v = xml.slice(p + 1, ve);
      if (
        v.length > 0 &&
        (maybeTrimmable(v.charCodeAt(0)) || maybeTrimmable(v.charCodeAt(v.length - 1)))
      ) {
        v = v.trim();
      }
      attrs[an] = v;
      p = ve + 1;
    }
    // `p` is at the closing `>`.
    if (selfClosing) {
      visitor.open(name, attrs, true);
    } else {
      if (open > limit) return `nesting deeper than ${limit} elements at ${i}`;
      open++;
      visitor.open(name, attrs, false);
    }
    i = xml.indexOf("<", p + 1);
  }
  return null;
}

/** The attribute names UI Automator writes, by first character (shared strings: faster keys). */
const KNOWN_NAMES: readonly (readonly string[])[] = (() => {
  const names = [
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
    "drawing-order",
    "hint",
    "NAF",
    "rotation",
  ];
  const table: string[][] = Array.from({ length: 128 }, () => []);
  for (const n of names) table[n.charCodeAt(0)].push(n);
  return table;
})();

/** `xml[start, end)` as one of `KNOWN_NAMES`, or null. */
function knownName(xml: string, start: number, end: number): string | null {
  const c = xml.charCodeAt(start);
  if (c >= 128) return null;
  for (const n of KNOWN_NAMES[c]) {
    if (n.length === end - start && xml.startsWith(n, start)) return n;
  }
  return null;
}

/** Index of the `?>` ending a processing instruction, skipping quoted values; -1 when none. */
function piEnd(xml: string, from: number): number {
  const len = xml.length;
  for (let k = from; k < len; k++) {
    const c = xml.charCodeAt(k);
    if (c === DQUOTE || c === SQUOTE) {
      k = xml.indexOf(c === DQUOTE ? '"' : "'", k + 1);
      if (k < 0) return -1;
    } else if (c === QMARK && xml.charCodeAt(k + 1) === GT) {
      return k;
    }
  }
  return -1;
}
