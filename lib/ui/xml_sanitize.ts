/**
 * Repairs the malformed UI Automator XML real devices emit, before strict parsing. Pure.
 *
 * What goes wrong in the wild: text with control characters the dumper did not replace (older
 * releases; XML 1.0 forbids them), a bare `&` or `<` inside an attribute (custom dumpers and OEM
 * builds), a dump cut off mid-stream (the dump process killed, `Killed` with status 137), and
 * bytes around the document (`UI hierchary dumped to: /dev/tty` after it over a PTY, warnings
 * before it). Each repair is named in the result so callers can log it.
 */

/** What was repaired. */
export type SanitizeRepair =
  | "leading_junk"
  | "trailing_junk"
  | "control_chars"
  | "ampersands"
  | "surrogate_refs"
  | "truncated";

interface SanitizedXml {
  xml: string;
  repairs: SanitizeRepair[];
}

/** Thrown when the text holds no hierarchy at all (nothing to repair). */
export class NoHierarchyError extends Error {
  constructor(detail: string) {
    super(`Cannot read the UI hierarchy: ${detail}`);
    this.name = "NoHierarchyError";
  }
}

// XML 1.0 Char: tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, and pairs; a lone surrogate is not.
const BAD_CHARS =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const BARE_AMP = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)/g;
const SURROGATE_REFS = /&#(x[0-9a-fA-F]+|\d+);&#(x[0-9a-fA-F]+|\d+);|&#(x[0-9a-fA-F]+|\d+);/g;
const NODE_TAGS = /<node\b[^>]*?(\/?)>|<\/node\s*>/g;

/** Cuts the document out of surrounding text and repairs it; throws `NoHierarchyError`. */
export function sanitizeHierarchyXml(text: string): SanitizedXml {
  const repairs: SanitizeRepair[] = [];
  let start = text.indexOf("<?xml");
  const hierarchyAt = text.indexOf("<hierarchy");
  if (hierarchyAt < 0) throw new NoHierarchyError("the output holds no <hierarchy> element");
  if (start < 0 || start > hierarchyAt) start = hierarchyAt;
  if (start > 0 && text.slice(0, start).trim() !== "") repairs.push("leading_junk");
  const endTag = text.indexOf("</hierarchy>", hierarchyAt);
  let xml: string;
  if (endTag >= 0) {
    const end = endTag + "</hierarchy>".length;
    if (text.slice(end).trim() !== "") repairs.push("trailing_junk");
    xml = text.slice(start, end);
  } else {
    xml = text.slice(start);
  }

  if (BAD_CHARS.test(xml)) {
    BAD_CHARS.lastIndex = 0;
    xml = xml.replace(BAD_CHARS, ".");
    repairs.push("control_chars");
  }
  if (xml.includes("&")) {
    BARE_AMP.lastIndex = 0;
    if (BARE_AMP.test(xml)) {
      BARE_AMP.lastIndex = 0;
      xml = xml.replace(BARE_AMP, "&amp;");
      repairs.push("ampersands");
    }
  }
  // Old serializers write an emoji as two numeric references to its surrogates, which XML
  // parsers reject; join each pair into one reference and blank out lone ones.
  if (xml.includes("&#")) {
    let changed = false;
    xml = xml.replace(SURROGATE_REFS, (m, hi?: string, lo?: string, lone?: string) => {
      const h = hi === undefined ? NaN : refValue(hi);
      const l = lo === undefined ? NaN : refValue(lo);
      if (h >= 0xd800 && h <= 0xdbff && l >= 0xdc00 && l <= 0xdfff) {
        changed = true;
        return `&#x${(0x10000 + ((h - 0xd800) << 10) + (l - 0xdc00)).toString(16)};`;
      }
      const v = lone === undefined ? NaN : refValue(lone);
      if (v >= 0xd800 && v <= 0xdfff) {
        changed = true;
        return ".";
      }
      return m;
    });
    if (changed) repairs.push("surrogate_refs");
  }
  // A raw `<` inside a quoted value needs no repair: both readers (lib/ui/xml_scan.ts and
  // fast-xml-parser) accept it, and a regex "repair" across tags broke correct XML.
  if (endTag < 0) {
    xml = closeTruncated(xml);
    repairs.push("truncated");
  }
  return { xml, repairs };
}

function refValue(ref: string): number {
  return ref.startsWith("x") ? parseInt(ref.slice(1), 16) : parseInt(ref, 10);
}

/** Drops a partial last tag and closes every element still open. */
function closeTruncated(xml: string): string {
  const lastGt = xml.lastIndexOf(">");
  const openHierarchy = xml.indexOf(">", xml.indexOf("<hierarchy"));
  if (openHierarchy < 0 || lastGt < openHierarchy) {
    // Not even the <hierarchy ...> tag is complete.
    throw new NoHierarchyError("the output ends before the <hierarchy> tag is complete");
  }
  const body = xml.slice(0, lastGt + 1);
  let open = 0;
  NODE_TAGS.lastIndex = 0;
  for (let m = NODE_TAGS.exec(body); m !== null; m = NODE_TAGS.exec(body)) {
    if (m[0].startsWith("</")) open = Math.max(0, open - 1);
    else if (m[1] !== "/") open++;
  }
  return body + "</node>".repeat(open) + "</hierarchy>";
}
